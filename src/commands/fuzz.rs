//! `tgsi-opt fuzz-passes`: the differential test of the passes
//! (`testkit::difftest`) over many random programs, in parallel.

use std::io::Write;
use std::time::Instant;

use rayon::prelude::*;

use testkit::difftest::{self, SeedReport, Summary};
use testkit::random_program;

use crate::cli::FuzzArgs;
use crate::diagnostics::Failure;
use crate::progress::Progress;

/// Checks `--count` programs from `--seed` on, prints a summary, and fails
/// when anything was found (after writing each case under `--out-dir`).
pub fn run(args: &FuzzArgs) -> Result<(), Failure> {
    let seeds = (0..args.count).map(|i| args.seed.wrapping_add(i));
    let stdout = std::io::stdout();
    let write_failure = |source: std::io::Error| Failure::Write { what: "standard output".to_string(), source };
    if args.print {
        let mut out = stdout.lock();
        for seed in seeds {
            let program =
                if args.float_only { random_program::float_program(seed) } else { random_program::program(seed) };
            let state = random_program::state(&program, 0);
            writeln!(out, "# seed {seed}\n{}# state 0 of seed {seed}\n{state}", program.text).map_err(write_failure)?;
        }
        return Ok(());
    }
    let start = Instant::now();
    let pool = rayon::ThreadPoolBuilder::new().num_threads(args.jobs).build().map_err(|e| Failure::Exec {
        what: "fuzz-passes".to_string(),
        source: exec::ExecError::Threads(e.to_string()),
    })?;
    let seeds: Vec<u64> = seeds.collect();
    let progress = Progress::new(args.count, "programs");
    // In seed order whatever the thread count, so the output is deterministic.
    let reports: Vec<(u64, SeedReport)> = pool.install(|| {
        seeds
            .par_iter()
            .map(|&seed| {
                let report =
                    if args.float_only { difftest::check_float_seed(seed) } else { difftest::check_seed(seed) };
                progress.step();
                (seed, report)
            })
            .collect()
    });
    progress.finish();
    let mut summary = Summary::default();
    let mut written = Vec::new();
    for (_, report) in &reports {
        summary.add(report);
        for finding in &report.findings {
            let place = finding
                .write_to(&args.out_dir)
                .map_err(|source| Failure::Write { what: format!("`{}`", args.out_dir.display()), source })?;
            written.push(format!(
                "{} for seed {} with {} ({}): {} -> {}",
                finding.kind,
                finding.seed,
                finding.pipeline,
                finding.stage,
                finding.detail.lines().next().unwrap_or(""),
                place.display()
            ));
        }
    }
    let elapsed = start.elapsed().as_secs_f64();
    let mut out = stdout.lock();
    for line in &written {
        writeln!(out, "{line}").map_err(write_failure)?;
    }
    let larger: Vec<String> =
        summary.larger.iter().zip(difftest::SIZE_CHECKED).map(|(n, name)| format!("{n} ({name})")).collect();
    let text = format!(
        "programs: {}\npass runs: {}\ndifferences: {}\nverifier failures: {}\nerrors: {}\n\
         larger than the program: {}\nelapsed: {elapsed:.1} s\n",
        summary.programs,
        summary.pass_runs,
        summary.differences,
        summary.verifier_failures,
        summary.errors,
        larger.join(", ")
    );
    out.write_all(text.as_bytes()).map_err(write_failure)?;
    if summary.clean() {
        Ok(())
    } else {
        let count = summary.differences + summary.verifier_failures + summary.errors;
        Err(Failure::Findings { count, dir: format!("`{}`", args.out_dir.display()) })
    }
}
