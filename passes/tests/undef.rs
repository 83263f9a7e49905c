//! The `undef` pass (`--undef=any`) on hand-written cases.
//!
//! Every `tests/inputs/undef/*.tgsi` is built, run through `undef` and
//! verified; a second run changes nothing; the IR and the TGSI emitted
//! after the pass are snapshotted in `snapshots/undef/`, and `; expect`
//! lines check the counters. Results may change where they read a
//! never-written channel (that is the point), so the check by execution
//! is that the emitted TGSI computes what the IR after the pass computes,
//! the backend reading never-written channels and `undef` as zero.

mod support;

use std::path::Path;

use passes::Pass;
use support::*;
use testkit::{states, Rng};

fn case(path: &Path) -> (String, Vec<String>) {
    let name = path.file_name().map_or_else(|| path.display().to_string(), |n| n.to_string_lossy().into_owned());
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
    let pass = passes::undef::UndefReads;
    let before = ir::from_tgsi(&tgsi::parse(&text).expect("parses")).unwrap_or_else(|e| panic!("{name}: {e}"));
    let mut after = before.clone();
    let result = pass.run(&mut after);
    ir::verify::verify(&after.function).unwrap_or_else(|e| panic!("{name}: {e}\n{}", ir::print::print_module(&after)));
    let mut again = after.clone();
    assert!(!pass.run(&mut again).changed, "{name}: a second run changed something");
    let emitted = tgsi::print(&ir::to_tgsi(&after).expect("emits"), tgsi::Style::Exact);
    let rebuilt = ir::from_tgsi(&tgsi::parse(&emitted).expect("re-parses")).expect("rebuilds");
    for round in 0..3 {
        let state_text = states::for_module(&before, &mut Rng::from_name(&name, round));
        let state = exec::State::parse(&state_text).expect("state");
        let (a, b) = (exec::run(&after, &state, &run_options()), exec::run(&rebuilt, &state, &run_options()));
        assert!(same_results(&a, &b), "{name}: the emitted TGSI computes something else:\n{emitted}");
    }
    let wrong = check_expectations(&name, &text, &result);
    (snapshot_text(&name, pass.name(), &after, &result), wrong)
}

#[test]
fn undef_snapshots() {
    snapshot_suite("undef", case);
}

/// The pass runs only where reads of never-written channels may be
/// undefined: a pipeline naming it needs `undef: Undef::Any`, and `-O1`
/// includes it only then.
#[test]
fn only_with_undef_any() {
    use passes::undef::Undef;
    assert!(passes::Pipeline::named(&["undef"]).is_err());
    let any = passes::Config { undef: Undef::Any, ..passes::Config::default() };
    assert_eq!(passes::Pipeline::named_with(&["undef"], &any).map(|p| p.names()).ok(), Some(vec!["undef"]));
    assert!(!passes::Pipeline::o1().names().contains(&"undef"));
    assert!(passes::Pipeline::o1_with(&any).names().contains(&"undef"));
}

/// A shader that reads no never-written channel is left as it is.
#[test]
fn defined_reads_unchanged() {
    let text = "FRAG\nDCL IN[0], GENERIC[0], PERSPECTIVE\nDCL OUT[0], COLOR\nDCL TEMP[0], LOCAL\n\
                MUL TEMP[0], IN[0], IN[0]\nIF IN[0].xxxx\n  ADD TEMP[0], TEMP[0], IN[0]\nENDIF\n\
                MOV OUT[0], TEMP[0]\nEND\n";
    let mut module = ir::from_tgsi(&tgsi::parse(text).expect("parses")).expect("builds");
    assert!(!passes::undef::UndefReads.run(&mut module).changed);
}

/// `-O --undef=any` over random programs: every pass leaves valid IR
/// (verified after each), and the emitted TGSI parses, builds and runs
/// wherever the input runs. (Every generated program reads some
/// never-written channel, a loop counter's first value at least, so
/// results are not compared: they may change by design.)
#[test]
fn random_programs_with_undef_any() {
    use passes::undef::Undef;
    let any = passes::Config { undef: Undef::Any, ..passes::Config::default() };
    let options = passes::Options { verify_each: true, ..passes::Options::default() };
    let (mut runs, mut changed) = (0, 0);
    for seed in 0..300 {
        let program = testkit::random_program::program(seed);
        let Ok(Ok(before)) = tgsi::parse(&program.text).map(|s| ir::from_tgsi(&s)) else { continue };
        let mut after = before.clone();
        let report = passes::PassManager::new(options.clone())
            .run(&passes::Pipeline::o1_with(&any), &mut after)
            .unwrap_or_else(|e| panic!("seed {seed}: {e}"));
        changed += usize::from(report.stats().iter().any(|(name, s)| *name == "undef" && !s.is_zero()));
        let emitted = tgsi::print(&ir::to_tgsi(&after).expect("emits"), tgsi::Style::Exact);
        let rebuilt = ir::from_tgsi(&tgsi::parse(&emitted).expect("re-parses")).expect("rebuilds");
        let state = exec::State::parse(&testkit::random_program::state(&program, 0)).expect("state");
        if exec::run(&before, &state, &run_options()).is_err() {
            continue;
        }
        runs += 1;
        assert!(exec::run(&rebuilt, &state, &run_options()).is_ok(), "seed {seed}: the emitted TGSI fails");
    }
    assert!(runs > 100 && changed > 10, "{runs} programs ran, undef changed {changed}");
}
