//! The process's cache of compiled code: `run`, `bench` and `render`
//! compile through it, so a shader compiled again in one process (the
//! unoptimized and optimized renders of `render --compare` when the
//! passes leave it unchanged, a library caller running one shader on many
//! states) runs the native code of the first compile.

use std::sync::OnceLock;

/// Programs whose code the process keeps.
const CAPACITY: usize = 64;

/// The process's [`exec::CompileCache`].
pub fn shared() -> &'static exec::CompileCache {
    static CACHE: OnceLock<exec::CompileCache> = OnceLock::new();
    CACHE.get_or_init(|| exec::CompileCache::new(CAPACITY))
}

/// `module` compiled for `backend` as [`exec::Executable::compile_with`]
/// does, its native code from the process's cache when an equal program
/// was compiled before.
pub fn executable(module: &ir::Module, backend: exec::Backend) -> Result<exec::Executable<'_>, exec::ExecError> {
    shared().compile(module, backend)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The second compile of an equal module is a hit, and runs as the
    /// first.
    #[test]
    fn a_shader_compiled_twice_compiles_once() {
        if exec::Backend::Jit.available().is_err() {
            eprintln!("skipped: no JIT here");
            return;
        }
        let text = "FRAG\nDCL IN[0]\nDCL OUT[0], COLOR\nMAD OUT[0], IN[0], IN[0].wzyx, IN[0]\nEND\n";
        let module = || ir::from_tgsi(&tgsi::parse(text).expect("parses")).expect("builds");
        let (first, second) = (module(), module());
        let before = shared().stats();
        let a = executable(&first, exec::Backend::Jit).expect("compiles");
        let b = executable(&second, exec::Backend::Jit).expect("compiles");
        let after = shared().stats();
        // Other tests of this binary compile through the same cache at the
        // same time and may add hits of their own (the exact counts are
        // tested on private caches in `exec::cache`).
        assert!(after.hits > before.hits, "the second compile is served from the cache");
        let state = exec::State::parse("invocations 3\ninput 0 * 1 2 3 4\n").expect("parses");
        let options = exec::RunOptions::default();
        assert_eq!(a.run(&state, &options).expect("runs"), b.run(&state, &options).expect("runs"));
    }
}
