//! One module per subcommand.

pub mod check;
pub mod check_doubles;
pub mod fmt;
pub mod fuzz;
pub mod opt;
pub mod render;
pub mod run;
