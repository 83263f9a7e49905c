//! `tgsi_opt_optimize` under concurrent load: many threads at once over
//! the project's shaders and mutated token streams, each result
//! byte-identical to a single-threaded run of the same call (status,
//! words, message). `cargo test` runs a short round; the long run (a
//! duration, a number of calls, and the process's resident memory over
//! them) is an ignored test with its numbers in the environment:
//!
//! ```sh
//! TGSI_OPT_LOAD_SECONDS=600 TGSI_OPT_LOAD_CALLS=1000000 TGSI_OPT_LOAD_THREADS=8 \
//!     cargo test --release -p tgsi-opt-capi --test load -- --ignored --nocapture
//! ```

mod support;

use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use support::optimize;
use tgsi_opt_capi::abi::Status;

/// One call: its token words and pass list.
struct Call {
    name: String,
    words: Vec<u32>,
    passes: Option<&'static str>,
}

/// What a call returned.
type Result = (Status, Vec<u32>, Option<String>);

impl Call {
    fn run(&self) -> Result {
        optimize(&self.words, self.passes, None)
    }
}

/// Every `.tgsi` file under `dir`, sorted.
fn shaders(dir: &Path, found: &mut Vec<std::path::PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    let mut paths: Vec<_> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    paths.sort();
    for path in paths {
        if path.is_dir() {
            shaders(&path, found);
        } else if path.extension().is_some_and(|e| e == "tgsi") {
            found.push(path);
        }
    }
}

/// The calls: each of the project's shaders that encodes (the examples
/// and `tests/inputs`), under three pass lists, and `mutations` copies of
/// each with bits flipped.
fn calls(mutations: usize) -> Vec<Call> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut paths = Vec::new();
    shaders(&root.join("examples/shaders"), &mut paths);
    shaders(&root.join("tests/inputs"), &mut paths);
    let passes = [None, Some("-O0"), Some("constfold,dce,coalesce")];
    let mut rng = testkit::Rng::new(0x1d8e_4e27_c47d_124f);
    let mut calls = Vec::new();
    for path in &paths {
        let Ok(text) = std::fs::read_to_string(path) else { continue };
        let Some(words) = tgsi::parse(&text).ok().and_then(|s| tgsi::tokens::encode(&s).ok()) else { continue };
        let name = path.strip_prefix(&root).unwrap_or(path).display().to_string();
        for m in 0..=mutations {
            let mut words = words.clone();
            if m > 0 {
                for _ in 0..1 + rng.below(3) {
                    let at = rng.index(words.len());
                    words[at] ^= 1 << rng.below(32);
                }
            }
            let passes = passes[calls.len() % passes.len()];
            calls.push(Call { name: format!("{name} (mutation {m})"), words, passes });
        }
    }
    calls
}

/// The process's resident memory in KiB (Linux; 0 elsewhere).
fn resident_kib() -> u64 {
    let statm = std::fs::read_to_string("/proc/self/statm").unwrap_or_default();
    let pages: u64 = statm.split_whitespace().nth(1).and_then(|p| p.parse().ok()).unwrap_or(0);
    pages * 4
}

/// What a load run saw.
struct Load {
    calls: u64,
    differences: Vec<String>,
}

/// `threads` threads calling `calls` until `stop` says so, each starting
/// at its own place in the list, each result compared with `expected`.
/// `progress` counts the calls made.
fn load(
    calls: &[Call],
    expected: &[Result],
    threads: usize,
    progress: &AtomicU64,
    stop: &(dyn Fn(u64) -> bool + Sync),
) -> Load {
    let done = AtomicBool::new(false);
    let differences = std::sync::Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for t in 0..threads {
            let (done, differences) = (&done, &differences);
            scope.spawn(move || {
                let mut i = t * calls.len() / threads;
                while !done.load(Ordering::Relaxed) {
                    let call = &calls[i % calls.len()];
                    if call.run() != expected[i % calls.len()] {
                        differences.lock().unwrap_or_else(|e| e.into_inner()).push(call.name.clone());
                    }
                    i += 1;
                    if stop(progress.fetch_add(1, Ordering::Relaxed) + 1) {
                        done.store(true, Ordering::Relaxed);
                    }
                }
            });
        }
    });
    Load { calls: progress.load(Ordering::Relaxed), differences: differences.into_inner().unwrap_or_default() }
}

/// Eight threads over every call twice give what one thread gave.
#[test]
fn eight_threads_give_the_single_threaded_results() {
    let calls = calls(2);
    assert!(calls.len() > 300, "the project's shaders: {} calls", calls.len());
    let expected: Vec<Result> = calls.iter().map(Call::run).collect();
    // Every kind of result is among them.
    for status in [Status::Ok, Status::BadTokens] {
        assert!(expected.iter().any(|r| r.0 == status), "no {status:?}");
    }
    let total = 2 * calls.len() as u64;
    let seen = load(&calls, &expected, 8, &AtomicU64::new(0), &|n| n >= total);
    assert!(seen.calls >= total);
    assert!(seen.differences.is_empty(), "{} differences: {:?}", seen.differences.len(), seen.differences);
}

/// The long run: `TGSI_OPT_LOAD_THREADS` threads (8) until both
/// `TGSI_OPT_LOAD_SECONDS` (600) have passed and `TGSI_OPT_LOAD_CALLS`
/// (1,000,000) calls were made; no difference, and resident memory after
/// the first tenth of the calls within 1 MiB of its value at the end.
#[test]
#[ignore = "minutes of load; run with --ignored"]
fn sustained_load_gives_the_same_results_in_flat_memory() {
    let number = |name: &str, default: u64| std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default);
    let (seconds, wanted, threads) = (
        number("TGSI_OPT_LOAD_SECONDS", 600),
        number("TGSI_OPT_LOAD_CALLS", 1_000_000),
        number("TGSI_OPT_LOAD_THREADS", 8),
    );
    let calls = calls(2);
    let expected: Vec<Result> = calls.iter().map(Call::run).collect();
    let start = Instant::now();
    let warm = AtomicU64::new(0);
    let progress = AtomicU64::new(0);
    let stop = |n: u64| {
        if n == wanted / 10 {
            warm.store(resident_kib(), Ordering::Relaxed);
        }
        n >= wanted && start.elapsed() >= Duration::from_secs(seconds)
    };
    let seen = load(&calls, &expected, threads as usize, &progress, &stop);
    let (warm, end) = (warm.load(Ordering::Relaxed), resident_kib());
    println!(
        "{} calls of {} kinds on {threads} threads in {:.0} s: {} differences; resident {warm} KiB after {} calls, {end} KiB at the end",
        seen.calls,
        calls.len(),
        start.elapsed().as_secs_f64(),
        seen.differences.len(),
        wanted / 10
    );
    assert!(seen.differences.is_empty(), "{:?}", seen.differences);
    assert!(end <= warm + 1024, "resident memory grew from {warm} KiB to {end} KiB");
}
