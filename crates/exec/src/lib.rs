//! Execution of TGSI shaders: the SIMD backend that runs a shader's IR over
//! many invocations at once ([`Executable`], [`run()`]), computing every ALU
//! operation with the `semantics` crate's scalar functions, and the state
//! exchange format it reads and writes, shared with the reference harness
//! that produced the conformance data:
//!
//! - [`State`]: the input of a run (invocations, constants, inputs, the
//!   2-D inputs of geometry shaders, textures, system values, buffers and
//!   images), read from text, or built in code with [`State::new`] and its
//!   setters (a million lanes of a render cost no text);
//! - [`Outputs`]: the result (every declared `OUT` register of every lane,
//!   the vertices and primitive ends a geometry shader emitted, see
//!   [`geometry`], the killed lanes, and the final contents of buffers and
//!   images, see [`memory`]), written as text and read back from
//!   `.expected` files.
//!
//! ```
//! let state = exec::State::parse("invocations 2\ninput 0 * 1 2 3 4\ninput 0 1 0x7f800000 0 0 0\n").unwrap();
//! assert_eq!(state.input(0, 0), [1.0f32.to_bits(), 2.0f32.to_bits(), 3.0f32.to_bits(), 4.0f32.to_bits()]);
//! assert_eq!(state.input(0, 1), [0x7f80_0000, 0, 0, 0]);
//!
//! let mut out = exec::Outputs::new(state.invocations(), [0]);
//! *out.get_mut(0, 1).unwrap() = state.input(0, 1);
//! out.kill(1);
//! assert_eq!(
//!     out.write(),
//!     "output 0 0 0x00000000 0x00000000 0x00000000 0x00000000\n\
//!      output 0 1 0x7f800000 0x00000000 0x00000000 0x00000000\nkill 1\n"
//! );
//! ```

#[cfg(feature = "jit")]
mod abi;
mod backend;
mod cache;
pub mod error;
pub mod geometry;
#[cfg(feature = "jit")]
mod jit;
mod kernel;
pub mod memory;
pub mod outputs;
mod program;
pub mod run;
mod sampler;
pub mod state;
mod syntax;

pub use backend::{Backend, UnknownBackend};
pub use cache::{CacheStats, CompileCache};
pub use error::{ExecError, StateError, StateErrorKind};
pub use geometry::EmittedStream;
pub use outputs::{Difference, Outputs};
pub use run::{run, Executable, Prepared, RunOptions};
pub use state::{Buffer, Filter, Image, InvocationCount, Sampler, State, Texture, TextureLevel, TextureLevels, Wrap};
