//! Compile time and memory per instruction over shapes of shader
//! (`testkit::shapes`) at 1,000, 10,000 and 100,000 instructions, stage by
//! stage: `tgsi::parse`, `ir::from_tgsi`, each pass of `-O1` (constfold,
//! dce, coalesce; summed over the pipeline's rounds), `ir::to_tgsi` of the
//! optimized module (`emit`) and of the unoptimized one (`emit -O0`), each
//! compacted first as `opt` does (`Function::compact`, timed with it), and
//! `tgsi::print`. Compile time is linear when a stage's time per
//! instruction at 100,000 instructions is within 1.5 times its time at
//! 1,000; the last column gives the worst such ratio of the shape's stages.
//!
//! Each stage runs until it has taken `SHAPES_SECONDS` (0.3 by default)
//! and at least once; the fastest run counts. Peak memory is the most heap
//! the process held at once while compiling the 100,000-instruction
//! shader, from a counting allocator.
//!
//! Run with `cargo bench --bench compile_shapes`. Environment:
//! `SHAPES_ONLY=name,name` measures only those shapes, `SHAPES_SIZES=1000,5000`
//! other sizes, `SHAPES_WRITE=DIR` also writes every shader to `DIR`,
//! `SHAPES_STAGE_PEAKS=1` prints the peak heap of each stage of the compile.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use testkit::shapes::{self, Shape};
use tgsi_opt::{ir, passes, tgsi};

/// The system allocator, counting the bytes held and their peak.
struct Counting;

static HELD: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

// SAFETY: every call is forwarded to the system allocator unchanged; the
// counters only observe sizes.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let ptr = unsafe { System.alloc(layout) };
        if !ptr.is_null() {
            let held = HELD.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
            PEAK.fetch_max(held, Ordering::Relaxed);
        }
        ptr
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) };
        HELD.fetch_sub(layout.size(), Ordering::Relaxed);
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let new = unsafe { System.realloc(ptr, layout, new_size) };
        if !new.is_null() {
            if new_size >= layout.size() {
                let held = HELD.fetch_add(new_size - layout.size(), Ordering::Relaxed) + new_size - layout.size();
                PEAK.fetch_max(held, Ordering::Relaxed);
            } else {
                HELD.fetch_sub(layout.size() - new_size, Ordering::Relaxed);
            }
        }
        new
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// The stages, in the order of the table's columns.
const STAGES: [&str; 8] = ["parse", "build", "constfold", "dce", "coalesce", "emit", "emit -O0", "print"];

/// The fastest of repeated runs of `run` on fresh inputs from `setup`,
/// repeated until `budget` has passed (at least once); and the last
/// output.
fn fastest<I, O>(budget: Duration, mut setup: impl FnMut() -> I, mut run: impl FnMut(I) -> O) -> (Duration, O) {
    let started = Instant::now();
    let mut best = Duration::MAX;
    loop {
        let input = setup();
        let start = Instant::now();
        let output = run(input);
        best = best.min(start.elapsed());
        if started.elapsed() >= budget {
            return (best, output);
        }
        drop(output);
    }
}

/// One shader's measurements.
struct Measured {
    instructions: usize,
    /// Time of each of [`STAGES`].
    times: [Duration; 8],
    /// Rounds of the `-O1` pipeline.
    rounds: usize,
    /// Most heap held at once during one compile, beyond the text.
    peak: usize,
}

fn measure(text: &str, budget: Duration) -> Result<Measured, String> {
    let mut times = [Duration::ZERO; 8];
    let (time, shader) = fastest(budget, || (), |()| tgsi::parse_with_limits(text, &shapes::LIMITS));
    let shader = shader.map_err(|e| e.render(text, "shape"))?;
    times[0] = time;
    let instructions = shader.instructions().count();
    let (time, module) = fastest(budget, || (), |()| ir::from_tgsi_with_limits(&shader, &shapes::LIMITS));
    let module = module.map_err(|e| e.to_string())?;
    times[1] = time;

    // The passes time themselves; the fastest pipeline run counts.
    let pipeline = passes::Pipeline::o1();
    let mut pass_times = [Duration::MAX; 3];
    let mut rounds;
    let started = Instant::now();
    let mut optimized;
    loop {
        let mut copy = module.clone();
        let report = passes::PassManager::new(passes::Options::default())
            .run(&pipeline, &mut copy)
            .map_err(|e| e.to_string())?;
        rounds = report.iterations;
        for timing in report.timings() {
            if let Some(i) = ["constfold", "dce", "coalesce"].iter().position(|p| *p == timing.pass) {
                pass_times[i] = pass_times[i].min(timing.time);
            }
        }
        optimized = copy;
        if started.elapsed() >= budget {
            break;
        }
    }
    times[2..5].copy_from_slice(&pass_times);
    // Emission as `opt` does it: the module compacted first (timed too).
    let emit = |mut m: ir::Module| {
        m.function.compact();
        ir::to_tgsi(&m)
    };
    let (time, emitted) = fastest(budget, || optimized.clone(), emit);
    let emitted = emitted.map_err(|e| e.to_string())?;
    times[5] = time;
    let (time, unoptimized) = fastest(budget, || module.clone(), emit);
    unoptimized.map_err(|e| e.to_string())?;
    times[6] = time;
    let (time, _) = fastest(budget, || (), |()| tgsi::print(&emitted, tgsi::Style::Exact));
    times[7] = time;
    drop((shader, module, optimized, emitted));
    Ok(Measured { instructions, times, rounds, peak: peak_of_one_compile(text) })
}

/// The most heap held at once by parse, build, `-O1`, emit and print of
/// `text`, beyond what was held before; with `SHAPES_STAGE_PEAKS` set,
/// also the most held during each stage (what earlier stages still hold
/// included), printed to standard error.
fn peak_of_one_compile(text: &str) -> usize {
    let base = HELD.load(Ordering::Relaxed);
    PEAK.store(base, Ordering::Relaxed);
    let mut stages: Vec<(&str, usize)> = Vec::new();
    // The peak since the last stage ended; the next stage starts from
    // what is held now.
    let mut end_stage = |name: &'static str| {
        stages.push((name, PEAK.load(Ordering::Relaxed).saturating_sub(base)));
        PEAK.store(HELD.load(Ordering::Relaxed), Ordering::Relaxed);
    };
    let compiled = (|| {
        let shader = tgsi::parse_with_limits(text, &shapes::LIMITS).ok()?;
        end_stage("parse");
        let mut module = ir::from_tgsi_with_limits(&shader, &shapes::LIMITS).ok()?;
        end_stage("build");
        drop(shader);
        passes::PassManager::new(passes::Options::default()).run(&passes::Pipeline::o1(), &mut module).ok()?;
        end_stage("-O1");
        module.function.compact();
        let emitted = ir::to_tgsi(&module).ok()?;
        end_stage("emit");
        drop(module);
        let printed = tgsi::print(&emitted, tgsi::Style::Exact);
        end_stage("print");
        Some(printed)
    })();
    drop(compiled);
    end_stage("drop");
    if std::env::var_os("SHAPES_STAGE_PEAKS").is_some() {
        let cells: Vec<String> = stages.iter().map(|(n, p)| format!("{n} {:.1}", *p as f64 / 1e6)).collect();
        eprintln!("peak MB by stage: {}", cells.join(", "));
    }
    stages.iter().map(|&(_, p)| p).max().unwrap_or(0)
}

fn ns_per_instruction(time: Duration, instructions: usize) -> f64 {
    time.as_secs_f64() * 1e9 / instructions.max(1) as f64
}

fn main() {
    // Deriving Clone and Drop for the structured tree recurses once per
    // nesting level: 50,000 levels need more than the main thread's stack.
    let worker = std::thread::Builder::new().stack_size(1 << 30).spawn(run);
    if worker.map(|w| w.join()).is_err() {
        eprintln!("could not start the benchmark's thread");
    }
}

fn run() {
    // `cargo bench` passes `--bench`; `cargo test --benches` does not run
    // benchmarks with harness = false beyond starting them.
    if !std::env::args().any(|a| a == "--bench") {
        return;
    }
    let budget =
        Duration::from_secs_f64(std::env::var("SHAPES_SECONDS").ok().and_then(|s| s.parse().ok()).unwrap_or(0.3));
    let sizes: Vec<usize> = std::env::var("SHAPES_SIZES")
        .ok()
        .map(|s| s.split(',').filter_map(|n| n.trim().parse().ok()).collect())
        .unwrap_or_else(|| vec![1_000, 10_000, 100_000]);
    let only: Option<Vec<String>> =
        std::env::var("SHAPES_ONLY").ok().map(|s| s.split(',').map(|n| n.trim().to_string()).collect());
    let write = std::env::var_os("SHAPES_WRITE").map(std::path::PathBuf::from);

    println!("ns per instruction; peak heap of one compile in MB; -O1 rounds; worst ratio of a stage's ns per instruction, largest size to smallest\n");
    println!("| shape | instructions | {} | rounds | peak MB | worst ratio |", STAGES.join(" | "));
    println!("|---|---:|{}---:|---:|---:|", "---:|".repeat(STAGES.len()));
    for shape in Shape::ALL {
        if only.as_ref().is_some_and(|only| !only.iter().any(|n| n == shape.name())) {
            continue;
        }
        let mut first: Option<Measured> = None;
        for (k, &size) in sizes.iter().enumerate() {
            let text = shape.generate(size);
            if let Some(dir) = &write {
                let path = dir.join(format!("{}_{size}.tgsi", shape.name()));
                if let Err(err) = std::fs::write(&path, &text) {
                    eprintln!("writing {}: {err}", path.display());
                }
            }
            let measured = match measure(&text, budget) {
                Ok(m) => m,
                Err(err) => {
                    eprintln!("skipping {} at {size}: {err}", shape.name());
                    continue;
                }
            };
            let per: Vec<f64> = measured.times.iter().map(|t| ns_per_instruction(*t, measured.instructions)).collect();
            let ratio = first.as_ref().map(|f| {
                (0..STAGES.len())
                    .map(|i| per[i] / ns_per_instruction(f.times[i], f.instructions).max(1e-3))
                    .fold(0.0f64, f64::max)
            });
            let cells: Vec<String> = per.iter().map(|ns| format!("{ns:.0}")).collect();
            println!(
                "| {} | {} | {} | {} | {:.1} | {} |",
                shape.name(),
                measured.instructions,
                cells.join(" | "),
                measured.rounds,
                measured.peak as f64 / 1e6,
                ratio.map(|r| format!("{r:.2}")).unwrap_or_default()
            );
            let slow = measured.times.iter().sum::<Duration>() > Duration::from_secs(3);
            if first.is_none() {
                first = Some(measured);
            }
            if slow && k + 1 < sizes.len() {
                println!("| {} | larger sizes skipped: this one took over 3 s |", shape.name());
                break;
            }
        }
    }
}
