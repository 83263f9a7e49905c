//! First-compile time of the compiled tier per shader, in one process (as
//! a driver compiles): every shader of `../shared/corpus` and of the
//! conformance cases (skipped when absent) built into SSA and compiled to
//! native code with no cache, after one warm-up compile that pays the
//! process's one-time costs. Prints the median, p90 and worst per set, the
//! median of each shader's best of three compiles, and the slowest
//! shaders.
//!
//! Run with `cargo bench --bench jit_compile`; `JIT_COMPILE_OPT=1` times
//! the `-O1` output instead of the shader as written.

use std::path::PathBuf;
use std::time::Instant;

use tgsi_opt::{exec, ir, passes, tgsi};

/// The shader's IR, after `-O1` when asked; `None` when it does not build.
fn module(text: &str, optimize: bool) -> Option<ir::Module> {
    let mut module = ir::from_tgsi(&tgsi::parse(text).ok()?).ok()?;
    if optimize {
        passes::PassManager::new(passes::Options::default()).run(&passes::Pipeline::o1(), &mut module).ok()?;
    }
    Some(module)
}

/// Microseconds of the first (uncached) compile of each shader that
/// builds, and the best of that and two more: on a machine whose speed
/// drifts, the best of three is the steadier figure to compare.
fn times(paths: &[PathBuf], optimize: bool) -> Vec<(f64, f64, String)> {
    let mut times = Vec::new();
    for path in paths {
        let Some(module) = std::fs::read_to_string(path).ok().and_then(|t| module(&t, optimize)) else { continue };
        let compile = || {
            let start = Instant::now();
            let compiled = exec::Executable::compile_with(&module, exec::Backend::Jit);
            compiled.is_ok().then(|| start.elapsed().as_secs_f64() * 1e6)
        };
        let Some(first) = compile() else { continue };
        let best = (0..2).filter_map(|_| compile()).fold(first, f64::min);
        let name = path.file_name().map_or_else(String::new, |n| n.to_string_lossy().into_owned());
        times.push((first, best, name));
    }
    times.sort_by(|a, b| a.0.total_cmp(&b.0));
    times
}

fn report(set: &str, times: &[(f64, f64, String)]) {
    let Some(worst) = times.last() else {
        println!("{set}: no shader");
        return;
    };
    let at = |p: f64| times[((times.len() - 1) as f64 * p).round() as usize].0;
    let mut best: Vec<f64> = times.iter().map(|t| t.1).collect();
    best.sort_by(f64::total_cmp);
    println!(
        "{set}: {} shaders, compile median {:.0} us, p90 {:.0} us, worst {:.0} us ({}); best of three: median {:.0} us",
        times.len(),
        at(0.5),
        at(0.9),
        worst.0,
        worst.2,
        best[(best.len() - 1) / 2],
    );
}

fn main() {
    if let Err(why) = exec::Backend::Jit.available() {
        println!("skipping: no JIT here ({why})");
        return;
    }
    let optimize = std::env::var_os("JIT_COMPILE_OPT").is_some_and(|v| v == "1");
    let corpus = testdata::corpus_files().unwrap_or_default();
    let conformance = testdata::conformance_cases()
        .map(|(dir, names)| names.iter().map(|n| dir.join(format!("{n}.tgsi"))).collect::<Vec<_>>())
        .unwrap_or_default();
    if corpus.is_empty() && conformance.is_empty() {
        println!("skipping: no ../shared beside the checkout");
        return;
    }
    // The process's one-time costs (the processor's features, the first
    // code pages) are not a shader's; a one-instruction shader's compile
    // is what every shader pays before its own instructions.
    if let Some(m) = module("FRAG\nDCL IN[0]\nDCL OUT[0], COLOR\nMOV OUT[0], IN[0]\nEND\n", false) {
        let _ = exec::Executable::compile_with(&m, exec::Backend::Jit);
        let start = Instant::now();
        for _ in 0..100 {
            let _ = exec::Executable::compile_with(&m, exec::Backend::Jit);
        }
        println!("fixed cost (one MOV): {:.0} us a compile", start.elapsed().as_secs_f64() * 1e6 / 100.0);
    }
    println!("{}", if optimize { "after -O1" } else { "as written" });
    for (set, paths) in [("corpus", &corpus), ("conformance", &conformance)] {
        let times = times(paths, optimize);
        report(set, &times);
        for (us, _, name) in times.iter().rev().take(5) {
            println!("  {us:>8.0} us  {name}");
        }
    }
}
