//! One module per subcommand.

pub mod fmt;
pub mod opt;
pub mod run;
