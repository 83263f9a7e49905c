//! One module per subcommand.

pub mod fmt;
pub mod fuzz;
pub mod opt;
pub mod run;
