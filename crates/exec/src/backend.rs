//! Which tier runs a compiled program: the interpreter's batch loops, or
//! the whole program as native code compiled with Cranelift (the `jit`
//! feature, see `crate::jit`).

use std::fmt;
use std::str::FromStr;

/// The execution tier of an [`Executable`](crate::Executable).
///
/// ```
/// let default = exec::Backend::default();
/// assert!(default == exec::Backend::Interpreter || exec::Backend::Jit.available().is_ok());
/// assert_eq!("interp".parse::<exec::Backend>(), Ok(exec::Backend::Interpreter));
/// assert_eq!(exec::Backend::Jit.to_string(), "jit");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Backend {
    /// The whole program compiled to native code with Cranelift, as one
    /// function; a program that does not compile so (memory steps,
    /// indirect loads of outputs, deep nesting) runs in the interpreter.
    Jit,
    /// Every step by the interpreter.
    Interpreter,
}

impl Backend {
    /// Every tier: the JIT, then the interpreter.
    pub const ALL: [Backend; 2] = [Backend::Jit, Backend::Interpreter];

    /// The name `--backend` takes.
    pub fn name(self) -> &'static str {
        match self {
            Backend::Jit => "jit",
            Backend::Interpreter => "interp",
        }
    }

    /// Whether this tier runs here; why not when it does not (built
    /// without the `jit` feature, or a processor Cranelift does not serve).
    pub fn available(self) -> Result<(), String> {
        match self {
            Backend::Interpreter => Ok(()),
            Backend::Jit => jit_available(),
        }
    }
}

/// The JIT where it is built in and the processor is served, the
/// interpreter otherwise.
impl Default for Backend {
    fn default() -> Self {
        if Backend::Jit.available().is_ok() {
            Backend::Jit
        } else {
            Backend::Interpreter
        }
    }
}

impl fmt::Display for Backend {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A name `--backend` does not take.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown backend `{0}` (expected `jit` or `interp`)")]
pub struct UnknownBackend(pub String);

impl FromStr for Backend {
    type Err = UnknownBackend;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Backend::ALL.into_iter().find(|b| b.name() == s).ok_or_else(|| UnknownBackend(s.to_string()))
    }
}

#[cfg(feature = "jit")]
fn jit_available() -> Result<(), String> {
    crate::jit::host_support()
}

#[cfg(not(feature = "jit"))]
fn jit_available() -> Result<(), String> {
    Err("this build has no JIT (the `jit` feature of the exec crate is off)".into())
}
