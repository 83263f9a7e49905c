//! The compiled tier: each block's runs of consecutive ALU steps, moves
//! and phi copies (a *segment*) become one native function, compiled with
//! Cranelift once per [`Executable`](crate::Executable); every other step
//! runs through the interpreter's own step function between segments. So
//! a block is a list of [`Piece`]s, and the interpreter's runtime (the
//! control walker with its masks, loops and step budget, the fills, the
//! output table, memory) runs compiled code as it runs steps.
//!
//! A segment's function runs over a batch's slots four lanes (one quad,
//! one 128-bit vector) at a time, keeps every value it computed in a
//! register for the steps after it, and writes only the active lanes of
//! each destination. Operations are lowered to vector code where that
//! gives exactly the bits of [`semantics::eval`] (`lower`), and computed by
//! the interpreter's own batch loop lane by lane otherwise (`helpers`):
//! one set of semantics for both tiers.
//!
//! `segment` picks what compiles, `codegen` builds a segment's function;
//! `whole` builds the whole-program function where the program fits it;
//! in it, `indirect` compiles indirect loads and arrays, `wide` is the
//! call a quad for 64-bit operations, and `texture` the call a quad into
//! the sampler.

use std::sync::OnceLock;

use cranelift_codegen::settings::{self, Configurable};
use cranelift_jit::{JITBuilder, JITModule};
use cranelift_module::default_libcall_names;

use crate::abi::{Callbacks, ProgramFn};
use crate::error::ExecError;
use crate::program::Program;

mod codegen;
mod helpers;
mod indirect;
mod liveness;
mod lower;
mod nan;
mod segment;
mod texture;
mod whole;
mod wide;

#[cfg(test)]
mod tests;

pub(crate) use segment::Piece;
pub(crate) use whole::{native_outputs, stored_outputs};

/// A segment's code: `slots` is a batch's slots (slot-major, `w` lanes a
/// slot, `w` a multiple of 4 up to 64), `active` its lane mask.
pub(crate) type SegmentFn = unsafe extern "C" fn(slots: *mut u32, w: usize, active: u64);

/// A program's compiled segments: the pieces of each block, and the code
/// they call, kept alive as long as the pieces.
pub(crate) struct Compiled {
    /// The whole program as one function, where it compiles so
    /// ([`whole::fits`]); else the segments' pieces.
    whole: Option<ProgramFn>,
    pieces: Vec<Vec<Piece>>,
    /// Read by the helpers through pointers the code holds.
    _kernels: helpers::Kernels,
    _code: Code,
}

impl Compiled {
    /// The whole program's function, when it was compiled whole.
    pub fn whole(&self) -> Option<ProgramFn> {
        self.whole
    }

    /// The pieces of block `b`.
    pub fn pieces(&self, b: usize) -> &[Piece] {
        self.pieces.get(b).map_or(&[], Vec::as_slice)
    }
}

/// The module holding the compiled code, freed when dropped.
struct Code(Option<JITModule>);

// SAFETY: once its definitions are finalized the module is never used
// again but to free its memory on drop; the code it holds is immutable and
// is only called (from any thread) through the pieces' function pointers.
unsafe impl Send for Code {}
// SAFETY: see `Send`: nothing reads or writes the module through `&Code`.
unsafe impl Sync for Code {}

impl Drop for Code {
    fn drop(&mut self) {
        if let Some(module) = self.0.take() {
            // SAFETY: the pieces pointing into this memory are dropped
            // with it (`Compiled` owns both and is never split).
            unsafe { module.free_memory() };
        }
    }
}

/// Whether Cranelift serves this processor; why not otherwise. Asked
/// once per process.
pub(crate) fn host_support() -> Result<(), String> {
    static SUPPORT: OnceLock<Result<(), String>> = OnceLock::new();
    SUPPORT.get_or_init(|| new_module().map(drop).map_err(|e| e.to_string())).clone()
}

/// A module for code to run on this processor.
fn new_module() -> Result<JITModule, ExecError> {
    let fail = |what: &str, e: &dyn std::fmt::Display| ExecError::Jit(format!("{what}: {e}"));
    let mut flags = settings::builder();
    // Cranelift's IR verifier costs a third of compile time: on in debug
    // builds (the tests), off in release ones.
    let verify = if cfg!(debug_assertions) { "true" } else { "false" };
    let settings =
        [("opt_level", "speed"), ("use_colocated_libcalls", "false"), ("is_pic", "false"), ("enable_verifier", verify)];
    for (name, value) in settings {
        flags.set(name, value).map_err(|e| fail("setting up Cranelift", &e))?;
    }
    let isa = cranelift_native::builder()
        .map_err(|e| fail("no code generator for this processor", &e))?
        .finish(settings::Flags::new(flags))
        .map_err(|e| fail("setting up Cranelift", &e))?;
    Ok(JITModule::new(JITBuilder::with_isa(isa, default_libcall_names())))
}

/// Compiles `program`: whole into one function where it fits, else the
/// segments of every block.
pub(crate) fn compile(program: &Program, callbacks: Callbacks) -> Result<Compiled, ExecError> {
    if whole::fits(program) {
        return compile_whole(program, callbacks);
    }
    compile_segments(program)
}

/// The whole program as one function.
fn compile_whole(program: &Program, callbacks: Callbacks) -> Result<Compiled, ExecError> {
    let mut module = new_module()?;
    let mut kernels = helpers::Kernels::default();
    let id = whole::define(&mut module, program, &mut kernels, callbacks)?;
    module.finalize_definitions().map_err(|e| ExecError::Jit(e.to_string()))?;
    // SAFETY: `id` was defined with the signature of `ProgramFn`.
    let f = unsafe { std::mem::transmute::<*const u8, ProgramFn>(module.get_finalized_function(id)) };
    Ok(Compiled { whole: Some(f), pieces: Vec::new(), _kernels: kernels, _code: Code(Some(module)) })
}

/// The segments of every block of `program`.
pub(crate) fn compile_segments(program: &Program) -> Result<Compiled, ExecError> {
    let mut module = new_module()?;
    let mut kernels = helpers::Kernels::default();
    let mut pending = Vec::new();
    let mut builder = codegen::Builder::new(&module);
    let counts = liveness::read_counts(program);
    for (b, steps) in program.steps.iter().enumerate() {
        for range in segment::segments(steps, program.slots) {
            let segment = &steps[range.clone()];
            let stored = liveness::stored(segment, counts.as_deref());
            let id = builder.define(&mut module, segment, &stored, &mut kernels)?;
            pending.push((b, range, id));
        }
    }
    module.finalize_definitions().map_err(|e| ExecError::Jit(e.to_string()))?;
    let mut code = pending.into_iter().map(|(b, range, id)| {
        // SAFETY: `id` was defined with the signature of `SegmentFn`.
        let f = unsafe { std::mem::transmute::<*const u8, SegmentFn>(module.get_finalized_function(id)) };
        (b, range, f)
    });
    let mut next = code.next();
    let pieces = program
        .steps
        .iter()
        .enumerate()
        .map(|(b, steps)| {
            let mut list = Vec::new();
            let mut i = 0;
            while i < steps.len() {
                match &next {
                    Some((nb, range, f)) if *nb == b && range.start == i => {
                        list.push(Piece::Segment(*f));
                        i = range.end;
                        next = code.next();
                    }
                    _ => {
                        // Up to the next segment of this block, or its end.
                        let end = match &next {
                            Some((nb, range, _)) if *nb == b => range.start,
                            _ => steps.len(),
                        };
                        list.push(Piece::Steps(i as u32, end as u32));
                        i = end;
                    }
                }
            }
            list
        })
        .collect();
    Ok(Compiled { whole: None, pieces, _kernels: kernels, _code: Code(Some(module)) })
}
