//! One module per subcommand.

pub mod check;
pub mod check_doubles;
pub mod check_target;
pub mod fmt;
pub mod fuzz;
pub mod opt;
pub mod reduce;
pub mod render;
pub mod report;
pub mod run;
