//! The scalar SSA IR of TGSI shaders.
//!
//! [`from_tgsi()`] builds it from a parsed shader; [`verify`] checks it;
//! [`mod@print`] writes its text form and [`parse()`] reads it back; [`to_tgsi()`] emits TGSI again
//! ([`to_tgsi_with()`] with the allocation checker on or off);
//! [`mod@walk`] walks its control-flow tree without recursion.

pub mod bitset;
pub mod cfg;
pub mod channels;
mod compact;
pub mod dot;
mod entity;
pub mod from_tgsi;
pub mod function;
pub mod liveness;
pub mod parse;
pub mod print;
pub mod to_tgsi;
pub mod verify;
pub mod walk;

pub use entity::{Arena, EntityRef, SecondaryMap};
pub use from_tgsi::{from_tgsi, from_tgsi_with_limits, BuildError};
pub use function::*;
pub use parse::{parse, ParseIrError};
pub use to_tgsi::{to_tgsi, to_tgsi_with, EmitError, EmitOptions};
