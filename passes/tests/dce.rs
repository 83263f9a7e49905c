//! The `dce` pass on hand-written cases and on the shared corpus.
//!
//! Every `tests/inputs/dce/*.tgsi` (at the workspace root) is built, and
//! every `*.ir` read back (the IR text of cases with phis nothing reads,
//! which the builder does not make from TGSI), run through `dce` and
//! verified; the IR and the TGSI emitted after the pass
//! are snapshotted in `snapshots/dce/` (review with `cargo insta review`).
//! Each case also runs before and after on three pseudo-random states and
//! must give the same outputs bit for bit, so a wrong transform cannot be
//! blessed. Lines `; expect COUNTER: N` in an input check the pass's
//! counters (`; expect unchanged` checks that nothing changed).

mod support;

use passes::Pass;
use support::*;
use testkit::{states, Rng};

#[test]
fn dce_snapshots() {
    snapshot_suite("dce", |path| snapshot_case(path, &passes::dce::Dce::unconfigured()));
}

/// There are at least 20 hand-written cases.
#[test]
fn enough_cases() {
    let n = case_count("dce");
    assert!(n >= 20, "{n} cases in tests/inputs/dce");
}

/// `dce` over every corpus shader: the verifier passes, the emitted text
/// parses and builds, and where the backend runs a shader its outputs do
/// not change. Prints the counts (`--nocapture`).
#[test]
fn dce_on_the_corpus() {
    let Some((corpus, skipped, files)) = built_corpus() else { return };
    let built = corpus.len();
    let (mut ir_before, mut ir_after) = (0usize, 0usize);
    let (mut tgsi_source, mut tgsi_before, mut tgsi_after) = (0usize, 0usize, 0usize);
    let (mut ran, mut unchanged, mut not_run) = (0, 0, 0);
    let mut totals = passes::Stats::default();
    let mut failures = Vec::new();
    for Built { name, shader, module: before } in &corpus {
        let mut after = before.clone();
        let result = passes::dce::Dce::unconfigured().run(&mut after);
        totals.merge(&result.stats);
        if let Err(e) = ir::verify::verify(&after.function) {
            failures.push(format!("{name}: invalid after dce: {e}"));
            continue;
        }
        let (Ok(emit_before), Ok(emit_after)) = (ir::to_tgsi(before), ir::to_tgsi(&after)) else {
            failures.push(format!("{name}: emission failed"));
            continue;
        };
        let printed = tgsi::print(&emit_after, tgsi::Style::Exact);
        match tgsi::parse(&printed).map(|s| ir::from_tgsi(&s)) {
            Ok(Ok(_)) => {}
            _ => {
                failures.push(format!("{name}: the emitted text does not parse and build:\n{printed}"));
                continue;
            }
        }
        ir_before += placed_instructions(&before.function);
        ir_after += placed_instructions(&after.function);
        tgsi_source += tgsi_instructions(shader);
        tgsi_before += tgsi_instructions(&emit_before);
        tgsi_after += tgsi_instructions(&emit_after);

        let state_text = states::for_module(before, &mut Rng::from_name(name, 0));
        let Ok(state) = exec::State::parse(&state_text) else {
            not_run += 1;
            continue;
        };
        let a = exec::run(before, &state, &run_options());
        if a.is_err() {
            not_run += 1;
            continue;
        }
        ran += 1;
        let b = exec::run(&after, &state, &run_options());
        if same_results(&a, &b) {
            unchanged += 1;
        } else {
            failures.push(format!("{name}: outputs changed on\n{state_text}"));
        }
    }
    eprintln!(
        "dce over the corpus: {} files, {built} built ({skipped} skipped: no parse or build)\n\
         IR instructions: {ir_before} before, {ir_after} after\n\
         TGSI instructions: {tgsi_source} in the sources, {tgsi_before} emitted without dce, {tgsi_after} with dce\n\
         run: {ran} ({unchanged} unchanged), not run by the backend: {not_run}\n{totals}",
        files
    );
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n"));
}
