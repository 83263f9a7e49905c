//! `tgsi-opt`: an SSA optimizing middle-end for Gallium's TGSI shader
//! language. This facade re-exports the crates that make it up; the
//! `tgsi-opt` binary is its command line.

pub use exec;
pub use ir;
pub use passes;
pub use semantics;
pub use tgsi;
