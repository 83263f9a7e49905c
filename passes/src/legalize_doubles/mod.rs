//! `legalize-doubles`: rewrites double-precision and 64-bit integer
//! operations into what a target supports.

pub mod emit;
pub mod soft;
mod soft_float;
mod soft_int64;
