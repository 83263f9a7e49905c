//! `tgsi-opt check`: which pass changes a shader's results
//! (`testkit::check`).

use crate::cli::CheckArgs;
use crate::commands::opt::build;
use crate::diagnostics::Failure;
use crate::files::{read_state, write_output, Input};
use testkit::check::{check, random_states, Verdict};

/// Checks the pipeline the flags give (-O1 without any) on the states, and
/// prints the culprit (exit 1) or a one-line summary.
pub fn run(args: &CheckArgs) -> Result<(), Failure> {
    let pipeline = if args.pipeline.passes.is_empty() && args.pipeline.opt_level.is_none() {
        passes::Pipeline::o1()
    } else {
        args.pipeline.pipeline()?
    };
    let input = Input::from_arg(Some(&args.file));
    let (module, _) = build(&input, args.input_format)?;
    let states = match &args.state {
        Some(path) => vec![read_state(path)?],
        None => random_states(&module, args.count, args.seed)
            .map_err(|e| Failure::Usage(format!("cannot make random states for this shader: {e}")))?,
    };
    let passes: Vec<&dyn passes::Pass> = pipeline.passes().collect();
    match check(&module, &passes, pipeline.max_iterations(), &states)? {
        Verdict::Same { states, skipped, pass_runs } => {
            let names = pipeline.names().join(", ");
            let skipped = match skipped {
                0 => String::new(),
                n => format!(" ({n} skipped: the unoptimized shader does not run on them)"),
            };
            let line = format!(
                "no difference: {states} state(s){skipped}, {pass_runs} pass run(s) ({}), then the emitted TGSI\n",
                if names.is_empty() { "no passes" } else { &names }
            );
            write_output(None, line.as_bytes())
        }
        Verdict::Changed(culprit) => {
            write_output(None, format!("{culprit}\n").as_bytes())?;
            Err(Failure::Changed { step: culprit.step })
        }
    }
}
