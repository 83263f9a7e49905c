//! `legalize-doubles`: rewrites double-precision and 64-bit integer
//! operations into what a target supports.

pub mod emit;
