//! The compiled tier: a program whose steps all compile becomes one
//! native function over a batch of lanes ([`whole`]), compiled with
//! Cranelift once per [`Executable`](crate::Executable); the run calls it
//! in place of the interpreter's control walker. A program that does not
//! fit it (memory steps, steps the interpreter would have to run a quad at
//! a time, nesting past what Cranelift takes) runs in the interpreter.
//!
//! Operations are lowered to vector code where that gives exactly the
//! bits of [`semantics::eval`] (`lower`), and computed by the
//! interpreter's own batch loop lane by lane otherwise (`helpers`): one
//! set of semantics for both tiers. `codegen` holds what the function's
//! parts share; in it, `indirect` compiles indirect loads and arrays,
//! `wide` is the call a quad for 64-bit operations, and `texture` the
//! call a quad into the sampler.

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
mod texture;
mod whole;
mod wide;

#[cfg(test)]
mod tests;

pub(crate) use whole::{native_outputs, stored_outputs};

/// A program compiled whole, and the code it calls, kept alive together.
pub(crate) struct Compiled {
    whole: ProgramFn,
    /// Read by the helpers through pointers the code holds.
    _kernels: helpers::Kernels,
    _code: Code,
}

impl Compiled {
    /// The program's function.
    pub fn whole(&self) -> ProgramFn {
        self.whole
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

/// Compiles `program` into one function where it fits ([`whole::fits`]);
/// `None` for a program the interpreter runs (memory steps, steps the
/// interpreter would run a quad at a time, nesting past what Cranelift
/// takes).
pub(crate) fn compile(program: &Program, callbacks: Callbacks) -> Result<Option<Compiled>, ExecError> {
    if !whole::fits(program) {
        return Ok(None);
    }
    let mut module = new_module()?;
    let mut kernels = helpers::Kernels::default();
    let id = whole::define(&mut module, program, &mut kernels, callbacks)?;
    module.finalize_definitions().map_err(|e| ExecError::Jit(e.to_string()))?;
    // SAFETY: `id` was defined with the signature of `ProgramFn`.
    let f = unsafe { std::mem::transmute::<*const u8, ProgramFn>(module.get_finalized_function(id)) };
    Ok(Some(Compiled { whole: f, _kernels: kernels, _code: Code(Some(module)) }))
}
