//! `tgsi-opt`: an SSA optimizing middle-end for Gallium's TGSI shader
//! language. This facade re-exports the crates that make it up; the
//! `tgsi-opt` binary is its command line.
//!
//! Parse, build the SSA IR, optimize with `-O1`, emit TGSI again, and run
//! the result on a state (the README and `docs/library.md` show this
//! example; keep them in step):
//!
//! ```
//! use tgsi_opt::{exec, ir, passes, tgsi};
//!
//! let text = std::fs::read_to_string("examples/shaders/vertex_transform.tgsi")?;
//! let mut module = ir::from_tgsi(&tgsi::parse(&text)?)?;
//! passes::PassManager::new(passes::Options { verify_each: true, ..Default::default() })
//!     .run(&passes::Pipeline::o1(), &mut module)?;
//! println!("{}", tgsi::print(&ir::to_tgsi(&module)?, tgsi::Style::Exact));
//!
//! let state: exec::State = std::fs::read_to_string("examples/states/vertex_transform.state")?.parse()?;
//! print!("{}", exec::run(&module, &state, &exec::RunOptions::default())?.write());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub use exec;
pub use ir;
pub use passes;
pub use semantics;
pub use tgsi;
