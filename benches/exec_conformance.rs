//! Per-shader speed of the backend on the conformance cases: for every case
//! of `../shared/conformance/exec/` (skipped when absent), the time of one
//! `Executable::run` on its own state, single-threaded, divided by its
//! TGSI instructions times its invocations. Prints the distribution over
//! the cases (the median is the figure to compare with Mesa's interpreter).
//!
//! Every state there has 16 invocations, so a run's fixed work (laying
//! out the outputs, setting up the batch) weighs in. The second figure
//! runs the same states into one output table kept from run to run
//! (`Executable::run_into`), as a caller running many states would. The
//! third runs each case on its state repeated to 1,024 invocations (lane
//! `l` gets what lane `l % 16` has), which is the throughput of the
//! shader's code itself. Each figure is given for every execution tier
//! this build has (the JIT, then the interpreter), with each case's first
//! compile time, and the JIT's speedup over the interpreter per case.
//!
//! Run with `cargo bench --bench exec_conformance`. Timings on a shared
//! machine drift by 20% and more between runs; pinning the run to one core
//! (`taskset -c 0 target/release/deps/exec_conformance-*`) steadies them,
//! and two builds compare best when run at once, each on its own core. With
//! `EXEC_CONFORMANCE_RUNS=N` in the environment it instead runs every case
//! N times untimed on each of its two states, for an instruction-counting profiler such as
//! `valgrind --tool=callgrind`, whose counts do not depend on what else the
//! machine is doing. `EXEC_CONFORMANCE_CASES=TEXT` keeps the cases whose
//! name contains TEXT.

use std::hint::black_box;
use std::time::{Duration, Instant};

use tgsi_opt::{exec, ir, tgsi};

/// Time spent on each case and state per round, and rounds (the fastest
/// round counts, so a busy moment of the machine does not).
const ROUND: Duration = Duration::from_millis(2);
const ROUNDS: usize = 8;

fn main() {
    let Some((dir, mut names)) = testdata::conformance_cases() else { return };
    if let Ok(only) = std::env::var("EXEC_CONFORMANCE_CASES") {
        names.retain(|name| name.contains(&only));
    }
    let options = exec::RunOptions::default();
    let fixed_runs: Option<u32> = std::env::var("EXEC_CONFORMANCE_RUNS").ok().and_then(|v| v.parse().ok());
    let mut cases = Vec::new();
    for name in &names {
        let read = |ext: &str| std::fs::read_to_string(dir.join(format!("{name}.{ext}")));
        let (Ok(text), Ok(state)) = (read("tgsi"), read("state")) else { continue };
        let tiled = exec::State::parse(&tile(&state, TILED));
        let (Ok(shader), Ok(state), Ok(tiled)) = (tgsi::parse(&text), exec::State::parse(&state), tiled) else {
            continue;
        };
        let Ok(module) = ir::from_tgsi(&shader) else { continue };
        let instructions = shader.instructions().filter(|i| i.opcode != tgsi::Opcode::End).count() as f64;
        cases.push(Case { name: name.clone(), module, state, tiled, instructions });
    }
    let tiers: Vec<exec::Backend> = exec::Backend::ALL.into_iter().filter(|b| b.available().is_ok()).collect();
    let mut tiled_by_tier = Vec::new();
    for &tier in &tiers {
        // The first compile of each case, as a driver meets a shader.
        let mut compile_ns = Vec::new();
        let executables: Vec<(&Case, exec::Executable)> = cases
            .iter()
            .filter_map(|c| {
                let start = Instant::now();
                let executable = exec::Executable::compile_with(&c.module, tier).ok()?;
                compile_ns.push((start.elapsed().as_nanos() as f64, c.name.clone()));
                Some((c, executable))
            })
            .collect();
        if let Some(runs) = fixed_runs {
            for (case, executable) in &executables {
                for _ in 0..runs {
                    black_box(executable.run(black_box(&case.state), &options).expect("it runs"));
                    black_box(executable.run(black_box(&case.tiled), &options).expect("it runs"));
                }
            }
            continue;
        }
        if executables.is_empty() {
            println!("no cases timed");
            return;
        }
        // Rounds go over every case in turn, so that a case's fastest round
        // (the one that counts) is taken from moments spread over the whole
        // run, not from one stretch in which the machine may be busy.
        // Per case: own state, own state into one reused output table,
        // repeated state.
        let mut best = vec![[f64::INFINITY; 3]; executables.len()];
        for _ in 0..ROUNDS {
            for ((case, executable), best) in executables.iter().zip(&mut best) {
                best[0] = best[0].min(time(executable, &case.state, &options, false));
                best[1] = best[1].min(time(executable, &case.state, &options, true));
                best[2] = best[2].min(time(executable, &case.tiled, &options, false));
            }
        }
        let per_case = |pick: usize, state: fn(&Case) -> &exec::State| -> Vec<(f64, String)> {
            executables
                .iter()
                .zip(&best)
                .map(|((case, _), b)| {
                    (b[pick] / (case.instructions * state(case).invocations() as f64), case.name.clone())
                })
                .collect()
        };
        println!("tier {tier}: cases {}", executables.len());
        compile_ns.iter_mut().for_each(|c| c.0 /= 1e3);
        report("compile time, microseconds", &mut compile_ns);
        report("on their own states (16 invocations)", &mut per_case(0, |c| &c.state));
        report("on their own states, into one reused output table", &mut per_case(1, |c| &c.state));
        report(&format!("on their states repeated to {TILED} invocations"), &mut per_case(2, |c| &c.tiled));
        tiled_by_tier.push(per_case(2, |c| &c.tiled));
    }
    // Per case, how many times faster the first tier (the JIT) runs the
    // repeated states than the second (the interpreter).
    if let [first, second] = tiled_by_tier.as_slice() {
        let mut speedup: Vec<(f64, String)> =
            first.iter().zip(second).map(|(a, b)| (b.0 / a.0.max(f64::MIN_POSITIVE), a.1.clone())).collect();
        report(&format!("{} over {}, repeated states: times faster", tiers[0], tiers[1]), &mut speedup);
    }
}

/// A conformance case, read and converted.
struct Case {
    name: String,
    module: ir::Module,
    state: exec::State,
    tiled: exec::State,
    /// TGSI instructions, END excluded.
    instructions: f64,
}

/// Invocations of the repeated states.
const TILED: u32 = 1024;

/// One round of running `state`: runs for [`ROUND`], in ns per run. With
/// `reuse`, the runs share one output table (`Executable::run_into`), as
/// a caller running many states would keep it.
fn time(executable: &exec::Executable, state: &exec::State, options: &exec::RunOptions, reuse: bool) -> f64 {
    let mut outputs = exec::Outputs::new(0, []);
    let start = Instant::now();
    let mut runs = 0u32;
    while start.elapsed() < ROUND {
        if reuse {
            executable.run_into(black_box(state), options, &mut outputs).expect("it runs");
            black_box(&outputs);
        } else {
            black_box(executable.run(black_box(state), options).expect("it runs"));
        }
        runs += 1;
    }
    start.elapsed().as_nanos() as f64 / runs as f64
}

/// `state` with `invocations` lanes, lane `l` getting what lane
/// `l % n` had (`n` the state's own invocations).
fn tile(state: &str, invocations: u32) -> String {
    let n: u32 = state.lines().find_map(|l| l.strip_prefix("invocations ")?.trim().parse().ok()).unwrap_or(1);
    let mut out = format!("invocations {invocations}\n");
    for line in state.lines().map(|l| l.split('#').next().unwrap_or("")) {
        let words: Vec<&str> = line.split_whitespace().collect();
        match words.as_slice() {
            ["invocations", ..] => {}
            [directive @ ("input" | "sysval"), what, lane, rest @ ..] if lane.parse::<u32>().is_ok() => {
                let lane: u32 = lane.parse().unwrap_or(0);
                for copy in (lane..invocations).step_by(n as usize) {
                    out += &format!("{directive} {what} {copy} {}\n", rest.join(" "));
                }
            }
            _ => out += &format!("{line}\n"),
        }
    }
    out
}

fn report(what: &str, per_case: &mut [(f64, String)]) {
    per_case.sort_by(|a, b| a.0.total_cmp(&b.0));
    let at = |q: f64| per_case[((per_case.len() - 1) as f64 * q).round() as usize].0;
    let mean = per_case.iter().map(|c| c.0).sum::<f64>() / per_case.len() as f64;
    println!("{what}: ns per instruction per invocation");
    println!(
        "  median {:.2}  p10 {:.2}  p25 {:.2}  p75 {:.2}  p90 {:.2}  mean {:.2}",
        at(0.5),
        at(0.1),
        at(0.25),
        at(0.75),
        at(0.9),
        mean
    );
    println!("  slowest:");
    for (ns, name) in per_case.iter().rev().take(3) {
        println!("    {ns:8.2}  {name}");
    }
}
