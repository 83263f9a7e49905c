//! `tgsi-opt check-doubles`: the accuracy check of `legalize-doubles`
//! (`testkit::double_accuracy`) for one target or all of them.

use std::time::Instant;

use passes::legalize_doubles::{preset, preset_names, presets, Preset};
use testkit::double_accuracy::{self, OpResult, Options};

use crate::cli::CheckDoublesArgs;
use crate::diagnostics::Failure;
use crate::files::write_output;
use crate::progress::Progress;

/// Checks the targets, prints one table each, and fails when any result
/// differs from the reference.
pub fn run(args: &CheckDoublesArgs) -> Result<(), Failure> {
    let targets: Vec<&Preset> = if args.target == "all" {
        presets().collect()
    } else {
        vec![preset(&args.target).ok_or_else(|| {
            Failure::Usage(format!("unknown target `{}`; targets: {}, all", args.target, preset_names()))
        })?]
    };
    let options = Options { count: args.count, seed: args.seed, batch: args.batch };
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(args.jobs)
        .build()
        .map_err(|e| Failure::Usage(format!("cannot start {} jobs: {e}", args.jobs)))?;
    // One step per opcode and target: what `check_preset` does, counted.
    let work: Vec<(&Preset, Vec<_>)> =
        targets.iter().map(|&t| (t, double_accuracy::checked_opcodes(&t.target().wide))).collect();
    let steps = work.iter().map(|(_, ops)| ops.len() as u64).sum();
    let progress = Progress::new(steps, "opcodes");
    let mut text = String::new();
    let mut mismatches = 0;
    let mut results_count = 0;
    for (target, ops) in &work {
        let start = Instant::now();
        let caps = target.target().wide;
        let results = ops
            .iter()
            .map(|&op| {
                let result = pool.install(|| double_accuracy::check_op(op, &caps, &options));
                progress.step();
                result
            })
            .collect::<Result<Vec<OpResult>, _>>()
            .map_err(|e| {
                progress.finish();
                Failure::Check(e.to_string())
            })?;
        mismatches += results.iter().map(|r| r.mismatches).sum::<u64>();
        results_count += results.len();
        text.push_str(&double_accuracy::table(target.name, &results));
        text.push_str(&format!("  ({:.1} s)\n", start.elapsed().as_secs_f64()));
    }
    progress.finish();
    text.push_str(&format!(
        "checked {results_count} opcode(s) on {} target(s): {mismatches} result(s) differ\n",
        work.len()
    ));
    write_output(None, text.as_bytes())?;
    if mismatches > 0 {
        return Err(Failure::Check(format!("{mismatches} result(s) differ from IEEE-754 double arithmetic")));
    }
    Ok(())
}
