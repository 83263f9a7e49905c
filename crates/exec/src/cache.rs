//! An in-memory cache of compiled code, for callers that compile the same
//! shader many times (a driver, the differential tests: most passes leave
//! most random programs unchanged, and every unchanged copy would pay the
//! JIT again).
//!
//! The key is the program a module compiles to (its steps, slots, control
//! list and interface: everything the code generator reads), so a hit
//! gives exactly the code a fresh compile would. Building that program
//! costs little next to Cranelift; a hit runs the cached program (equal
//! to the new one) with its code.

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use ir::function::Module;

use crate::error::ExecError;
use crate::program::Program;
use crate::run::Loaded;
use crate::{Backend, Executable};

/// Compiled code kept for programs seen before: [`CompileCache::compile`]
/// compiles a module as [`Executable::compile_with`] does, but takes the
/// native code of an equal program from the cache instead of compiling it
/// again. Shared between threads by reference; holds at most `capacity`
/// programs' code, dropping the oldest first.
///
/// ```
/// let text = "FRAG\nDCL IN[0]\nDCL OUT[0], COLOR\nMUL OUT[0], IN[0], IN[0]\nEND\n";
/// let module = ir::from_tgsi(&tgsi::parse(text).unwrap()).unwrap();
/// let copy = module.clone();
/// let cache = exec::CompileCache::new(16);
/// let first = cache.compile(&module, exec::Backend::default()).unwrap();
/// let second = cache.compile(&copy, exec::Backend::default()).unwrap();
/// let state = exec::State::parse("invocations 2\ninput 0 * 1 2 3 4\n").unwrap();
/// let options = exec::RunOptions::default();
/// assert_eq!(first.run(&state, &options).unwrap(), second.run(&state, &options).unwrap());
/// if exec::Backend::default() == exec::Backend::Jit {
///     assert_eq!(cache.stats(), exec::CacheStats { hits: 1, misses: 1, entries: 1 });
/// }
/// ```
pub struct CompileCache {
    capacity: usize,
    entries: Mutex<Entries>,
    hits: AtomicU64,
    misses: AtomicU64,
}

/// How a [`CompileCache`] has done.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CacheStats {
    /// Compiles served from the cache.
    pub hits: u64,
    /// Compiles that ran the code generator.
    pub misses: u64,
    /// Programs whose code the cache holds now.
    pub entries: usize,
}

/// The cached code by key, and the keys oldest first (for eviction).
#[derive(Default)]
struct Entries {
    code: HashMap<Arc<str>, Arc<Loaded>>,
    order: VecDeque<Arc<str>>,
}

impl CompileCache {
    /// A cache holding the code of up to `capacity` programs (at least one).
    pub fn new(capacity: usize) -> CompileCache {
        CompileCache {
            capacity: capacity.max(1),
            entries: Mutex::new(Entries::default()),
            hits: AtomicU64::new(0),
            misses: AtomicU64::new(0),
        }
    }

    /// Compiles `module` for `backend`, as [`Executable::compile_with`]
    /// does (the same errors, the same results), with the JIT's code taken
    /// from the cache when an equal program was compiled before. The
    /// interpreter compiles nothing native: it never reaches the cache.
    pub fn compile<'m>(&self, module: &'m Module, backend: Backend) -> Result<Executable<'m>, ExecError> {
        backend.available().map_err(ExecError::JitUnavailable)?;
        let program = Program::compile(module)?;
        if backend == Backend::Interpreter {
            return Ok(Executable::from_loaded(Arc::new(Loaded::new(program, backend)?)));
        }
        // An equal program's code runs with that program (the code points
        // into its steps): the new one is only the key.
        let key: Arc<str> = format!("{program:?}").into();
        if let Some(loaded) = self.lock().code.get(&key) {
            self.hits.fetch_add(1, Ordering::Relaxed);
            return Ok(Executable::from_loaded(loaded.clone()));
        }
        self.misses.fetch_add(1, Ordering::Relaxed);
        // Compiled outside the lock: other threads keep using the cache.
        let loaded = Arc::new(Loaded::new(program, backend)?);
        let mut entries = self.lock();
        if !entries.code.contains_key(&key) {
            while entries.order.len() >= self.capacity {
                if let Some(old) = entries.order.pop_front() {
                    entries.code.remove(&old);
                }
            }
            entries.order.push_back(key.clone());
            entries.code.insert(key, loaded.clone());
        }
        drop(entries);
        Ok(Executable::from_loaded(loaded))
    }

    /// Hits, misses and entries so far.
    pub fn stats(&self) -> CacheStats {
        CacheStats {
            hits: self.hits.load(Ordering::Relaxed),
            misses: self.misses.load(Ordering::Relaxed),
            entries: self.lock().order.len(),
        }
    }

    /// Drops every program's code (executables holding it keep theirs).
    pub fn clear(&self) {
        let mut entries = self.lock();
        entries.code.clear();
        entries.order.clear();
    }

    /// The entries; a thread that panicked holding them left them whole
    /// (every update is done before the lock is released).
    fn lock(&self) -> std::sync::MutexGuard<'_, Entries> {
        self.entries.lock().unwrap_or_else(|e| e.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn module(text: &str) -> Module {
        ir::from_tgsi(&tgsi::parse(text).expect("test shader parses")).expect("test shader builds")
    }

    const SQUARE: &str = "FRAG\nDCL IN[0]\nDCL OUT[0], COLOR\nMUL OUT[0], IN[0], IN[0]\nEND\n";
    const DOUBLE: &str = "FRAG\nDCL IN[0]\nDCL OUT[0], COLOR\nADD OUT[0], IN[0], IN[0]\nEND\n";

    fn run(executable: &Executable<'_>) -> crate::Outputs {
        let state = crate::State::parse("invocations 5\ninput 0 * 3 -2 0.5 7\n").expect("test state parses");
        executable.run(&state, &crate::RunOptions::default()).expect("test shader runs")
    }

    #[test]
    fn an_equal_module_reuses_the_code_and_a_different_one_does_not() {
        if Backend::Jit.available().is_err() {
            eprintln!("skipped: no JIT here");
            return;
        }
        let cache = CompileCache::new(8);
        let (square, copy, double) = (module(SQUARE), module(SQUARE), module(DOUBLE));
        let first = cache.compile(&square, Backend::Jit).expect("compiles");
        let again = cache.compile(&copy, Backend::Jit).expect("compiles");
        let other = cache.compile(&double, Backend::Jit).expect("compiles");
        assert_eq!(cache.stats(), CacheStats { hits: 1, misses: 2, entries: 2 });
        assert_eq!(again.backend(), Backend::Jit);
        let fresh = |m| run(&Executable::compile_with(m, Backend::Jit).expect("compiles"));
        assert_eq!(run(&first), fresh(&square));
        assert_eq!(run(&again), fresh(&square));
        assert_eq!(run(&other), fresh(&double));
        assert_ne!(run(&again), run(&other));
    }

    #[test]
    fn the_oldest_program_leaves_a_full_cache_and_its_executables_still_run() {
        if Backend::Jit.available().is_err() {
            eprintln!("skipped: no JIT here");
            return;
        }
        let cache = CompileCache::new(1);
        let (square, double) = (module(SQUARE), module(DOUBLE));
        let kept = cache.compile(&square, Backend::Jit).expect("compiles");
        cache.compile(&double, Backend::Jit).expect("compiles");
        cache.compile(&square, Backend::Jit).expect("compiles");
        assert_eq!(cache.stats(), CacheStats { hits: 0, misses: 3, entries: 1 });
        cache.clear();
        assert_eq!(cache.stats().entries, 0);
        assert_eq!(run(&kept), run(&Executable::compile_with(&square, Backend::Jit).expect("compiles")));
    }

    #[test]
    fn a_hit_runs_after_the_executable_that_filled_the_cache_is_gone() {
        if Backend::Jit.available().is_err() {
            eprintln!("skipped: no JIT here");
            return;
        }
        // The kill is a call from the code to the interpreter's step,
        // which the code reaches through the address of the program's
        // step: a hit must run with the program it was compiled from.
        let text = "FRAG\nDCL IN[0]\nDCL OUT[0], COLOR\nKILL_IF IN[0]\nMUL OUT[0], IN[0], IN[0]\nEND\n";
        let (kills, copy) = (module(text), module(text));
        let cache = CompileCache::new(4);
        drop(cache.compile(&kills, Backend::Jit).expect("compiles"));
        let hit = cache.compile(&copy, Backend::Jit).expect("compiles");
        assert_eq!(cache.stats().hits, 1);
        let state =
            crate::State::parse("invocations 8\ninput 0 * 3 -2 0.5 7\ninput 0 2 1 1 1 1\n").expect("test state parses");
        let options = crate::RunOptions::default();
        let fresh = Executable::compile_with(&kills, Backend::Jit).expect("compiles");
        let got = hit.run(&state, &options).expect("runs");
        assert_eq!(got, fresh.run(&state, &options).expect("runs"));
        assert_ne!(got.write().matches("kill").count(), 0);
    }

    #[test]
    fn the_interpreter_never_touches_the_cache() {
        let cache = CompileCache::new(4);
        let square = module(SQUARE);
        let executable = cache.compile(&square, Backend::Interpreter).expect("compiles");
        assert_eq!(executable.backend(), Backend::Interpreter);
        assert_eq!(cache.stats(), CacheStats::default());
    }
}
