//! `tgsi-opt check-doubles`: the accuracy check of `legalize-doubles`
//! (`testkit::double_accuracy`) for one target or all of them.

use std::time::Instant;

use passes::legalize_doubles::{preset, preset_names, Preset, PRESETS};
use testkit::double_accuracy::{self, Options};

use crate::cli::CheckDoublesArgs;
use crate::diagnostics::Failure;
use crate::files::write_output;

/// Checks the targets, prints one table each, and fails when any result
/// differs from the reference.
pub fn run(args: &CheckDoublesArgs) -> Result<(), Failure> {
    let targets: Vec<&Preset> = if args.target == "all" {
        PRESETS.iter().collect()
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
    let mut text = String::new();
    let mut mismatches = 0;
    for target in targets {
        let start = Instant::now();
        let results = pool
            .install(|| double_accuracy::check_preset(target, &options))
            .map_err(|e| Failure::Check(e.to_string()))?;
        mismatches += results.iter().map(|r| r.mismatches).sum::<u64>();
        text.push_str(&double_accuracy::table(target.name, &results));
        text.push_str(&format!("  ({:.1} s)\n", start.elapsed().as_secs_f64()));
    }
    write_output(None, text.as_bytes())?;
    if mismatches > 0 {
        return Err(Failure::Check(format!("{mismatches} result(s) differ from IEEE-754 double arithmetic")));
    }
    Ok(())
}
