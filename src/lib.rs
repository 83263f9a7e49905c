//! `tgsi-opt`: an SSA optimizing middle-end for Gallium's TGSI shader
//! language. This facade re-exports the crates that make it up; the
//! `tgsi-opt` binary is its command line.
//!
//! Parse, build the SSA IR, optimize with `-O1` and emit TGSI again (the
//! README's example; `tests/docs.rs` checks that every Rust example of the
//! README and `docs/` is one of these):
//!
//! ```
//! use tgsi_opt::{ir, passes, tgsi};
//!
//! let text = std::fs::read_to_string("examples/shaders/fragment_texture_branch.tgsi")?;
//! let mut module = ir::from_tgsi(&tgsi::parse(&text)?)?;
//! passes::PassManager::new(passes::Options::default()).run(&passes::Pipeline::o1(), &mut module)?;
//! print!("{}", tgsi::print(&ir::to_tgsi(&module)?, tgsi::Style::Exact));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! The same with the IR verified after every pass, then run on a state
//! (`docs/library.md`'s example):
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
//!
//! A shader from an untrusted source, within tightened limits
//! (`docs/library.md`'s example of `tgsi::Limits`):
//!
//! ```
//! use tgsi_opt::{ir, tgsi};
//!
//! let text = std::fs::read_to_string("examples/shaders/vertex_transform.tgsi")?;
//! let words = tgsi::tokens::encode(&tgsi::parse(&text)?)?;
//! let limits = tgsi::Limits { max_instructions: 4096, max_nesting: 16, ..tgsi::Limits::DEFAULT };
//! let shader = tgsi::tokens::decode_with_limits(&words, &limits)?;
//! let module = ir::from_tgsi_with_limits(&shader, &limits)?;
//! assert!(!module.function.insts.is_empty());
//!
//! let tight = tgsi::Limits { max_instructions: 2, ..limits };
//! let err = tgsi::tokens::decode_with_limits(&words, &tight).unwrap_err();
//! assert!(matches!(err.problem(), Some(tgsi::tokens::Problem::Limit(l)) if l.limit == tgsi::Limit::Instructions));
//! println!("{err}"); // word N: more than 2 instructions (the limit)
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! What an operation guarantees, from the table of operations
//! (`docs/library.md`'s example of `semantics::facts`):
//!
//! ```
//! use tgsi_opt::{semantics, tgsi::Opcode};
//!
//! let add = semantics::facts(Opcode::Add).unwrap();
//! assert_eq!(add.nan, semantics::NanResult::Canonical); // any NaN sum is 0x7fc00000
//! assert!(add.commutes); // ADD a, b and ADD b, a: the same bits
//! let pow = semantics::facts(Opcode::Pow).unwrap();
//! assert_eq!(pow.nan_blind, 0); // a NaN base's bits matter (POW of a signalling NaN by 0)
//! assert!(semantics::needs(Opcode::Ucmp).integers); // what a driver must support
//! ```

pub mod compile_cache;
pub mod reduce;
pub mod render;
pub mod report;

pub use exec;
pub use ir;
pub use passes;
pub use semantics;
pub use target;
pub use tgsi;
