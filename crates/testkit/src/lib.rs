//! Developer tooling for `tgsi-opt`: what the tests, the benchmarks, the
//! fuzz targets and the command line's checking commands (`fuzz-passes`,
//! `check-doubles`) share. None of it is part of the compiler itself.
//!
//! - [`Rng`]: the one seeded random number generator every test and tool
//!   draws from, the same on every platform;
//! - [`random_program`]: random TGSI programs and input states for them;
//! - [`states`]: random input states for any shader's IR;
//! - [`difftest`]: the differential check of the passes (and of emission)
//!   on the backend;
//! - [`check`]: which pass of a pipeline changes one shader's results
//!   (`tgsi-opt check`);
//! - [`double_accuracy`]: the accuracy check of `legalize-doubles` against
//!   IEEE-754 double arithmetic;
//! - [`synth`]: large deterministic synthetic shaders;
//! - [`shapes`]: shaders of one shape at any size, for the compile
//!   benchmark over shapes and the linearity tests;
//! - [`counting`]: an allocator counting each thread's bytes, for the
//!   tests that bound work;
//! - [`fuzz_input`]: the state-and-shader input of the fuzz targets that
//!   run shaders;
//! - [`roundtrip`]: the round-trip properties of the language crate that the
//!   fuzz targets assert.

mod bits;
pub mod check;
pub mod counting;
pub mod difftest;
pub mod double_accuracy;
pub mod fuzz_input;
pub mod random_program;
mod rng;
pub mod roundtrip;
pub mod shapes;
pub mod states;
pub mod synth;

pub use bits::{special_or_random, SPECIAL_BITS};
pub use rng::Rng;
