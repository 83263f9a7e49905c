//! How much faster the backend runs on two threads than on one: the
//! ALU-heavy chain of `cargo bench --bench exec` (20 rounds, 102 TGSI
//! instructions) for 1,048,576 invocations, run with 1 and with 2 threads
//! in turn, each into an output table it keeps from run to run.
//!
//! Timings on a shared machine drift by 20% and more within seconds, so
//! the two settings alternate run by run (the order swapping every
//! round) and both see the same moments of the machine. It prints the
//! median run of each setting, their ratio, and the spread of the ratio
//! of the two runs of each round.
//!
//! Run with `cargo bench --bench exec_threads`; `EXEC_THREADS_ROUNDS=N`
//! sets the rounds (default 30).

use std::hint::black_box;
use std::time::Instant;

use testkit::synth::alu_heavy_shader;
use tgsi_opt::{exec, ir, tgsi};

const INVOCATIONS: u32 = 1 << 20;

fn main() {
    let rounds: usize = std::env::var("EXEC_THREADS_ROUNDS").ok().and_then(|v| v.parse().ok()).unwrap_or(30);
    let shader = tgsi::parse(&alu_heavy_shader(20)).expect("the chain parses");
    let module = ir::from_tgsi(&shader).expect("it builds");
    let executable = exec::Executable::compile(&module).expect("it compiles");
    let state =
        exec::State::parse(&format!("invocations {INVOCATIONS}\ninput 0 * 1.5 2 3 4\ninput 1 * 0.5 0.25 0.125 1\n"))
            .expect("the state parses");
    let options = |threads| exec::RunOptions { threads, ..exec::RunOptions::default() };
    let settings = [options(1), options(2)];
    let mut tables = [exec::Outputs::new(0, []), exec::Outputs::new(0, [])];
    let mut run = |k: usize| -> f64 {
        let start = Instant::now();
        executable.run_into(black_box(&state), &settings[k], &mut tables[k]).expect("it runs");
        black_box(&tables[k]);
        start.elapsed().as_secs_f64()
    };
    // Warm up: both tables laid out.
    run(0);
    run(1);
    let mut times: [Vec<f64>; 2] = [Vec::new(), Vec::new()];
    let mut ratios = Vec::new();
    for round in 0..rounds {
        let order = if round % 2 == 0 { [0, 1] } else { [1, 0] };
        let mut t = [0.0; 2];
        for k in order {
            t[k] = run(k);
            times[k].push(t[k]);
        }
        ratios.push(t[0] / t[1]);
    }
    let per_invocation = |s: f64| s * 1e9 / INVOCATIONS as f64;
    let (one, two) = (median(&mut times[0]), median(&mut times[1]));
    println!("rounds {rounds}, {INVOCATIONS} invocations a run");
    println!("1 thread:  median {:.2} ns per invocation", per_invocation(one));
    println!("2 threads: median {:.2} ns per invocation", per_invocation(two));
    println!("ratio of the medians {:.3}", one / two);
    let middle = median(&mut ratios);
    println!(
        "ratio within a round: median {middle:.3}  min {:.3}  max {:.3}",
        ratios.first().copied().unwrap_or(0.0),
        ratios.last().copied().unwrap_or(0.0)
    );
}

/// The median of `values`, which it sorts.
fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    match values.len() {
        0 => 0.0,
        n if n % 2 == 1 => values[n / 2],
        n => (values[n / 2 - 1] + values[n / 2]) / 2.0,
    }
}
