//! The `constfold` pass on hand-written cases, on the shared corpus and on
//! the conformance shaders.
//!
//! Every `tests/inputs/constfold/*.tgsi` (at the workspace root) is built,
//! run through `constfold` and verified; the IR and the TGSI emitted after
//! the pass are snapshotted in `snapshots/constfold/` (review with
//! `cargo insta review`). Each case also runs before and after (and as
//! the emitted TGSI) on three pseudo-random states and must give the same
//! outputs bit for bit, so a wrong fold cannot be blessed. Lines
//! `; expect COUNTER: N` in an input check the pass's counters
//! (`; expect unchanged` checks that nothing changed).

mod support;

use std::fs;

use passes::Pass;
use support::*;
use testkit::{states, Rng};

#[test]
fn constfold_snapshots() {
    snapshot_suite("constfold", |path| snapshot_case(path, &passes::constfold::Constfold));
}

/// There are at least 20 hand-written cases.
#[test]
fn enough_cases() {
    let n = case_count("constfold");
    assert!(n >= 20, "{n} cases in tests/inputs/constfold");
}

/// What one corpus or conformance check found wrong, if anything, for a
/// module after a pipeline: it verifies, its emitted text parses and
/// builds, and (when `state` runs) the module and the rebuilt text compute
/// what `before` computes.
fn check_after(
    name: &str,
    before: &ir::Module,
    after: &ir::Module,
    state: Option<&exec::State>,
    options: &exec::RunOptions,
) -> Result<Option<bool>, String> {
    ir::verify::verify(&after.function).map_err(|e| format!("{name}: invalid: {e}"))?;
    let emitted = ir::to_tgsi(after).map_err(|e| format!("{name}: emission failed: {e}"))?;
    let printed = tgsi::print(&emitted, tgsi::Style::Exact);
    let rebuilt = match tgsi::parse(&printed).map(|s| ir::from_tgsi(&s)) {
        Ok(Ok(m)) => m,
        _ => return Err(format!("{name}: the emitted text does not parse and build:\n{printed}")),
    };
    let Some(state) = state else { return Ok(None) };
    let a = exec::run(before, state, options);
    if a.is_err() {
        return Ok(None);
    }
    let b = exec::run(after, state, options);
    let c = exec::run(&rebuilt, state, options);
    if !same_results(&a, &b) {
        return Err(format!("{name}: outputs changed"));
    }
    if !same_results(&a, &c) {
        return Err(format!("{name}: the emitted TGSI computes something else:\n{printed}"));
    }
    Ok(Some(true))
}

/// Runs `-O1` (constfold and dce to a fixed point) with verification after
/// each pass.
fn o1(module: &mut ir::Module) -> Result<passes::Report, String> {
    let mut manager = passes::PassManager::new(passes::Options { verify_each: true, ..passes::Options::default() });
    manager.run(&passes::Pipeline::o1(), module).map_err(|e| e.to_string())
}

/// `constfold` alone and `-O1` over every corpus shader: the verifier
/// passes, the emitted text parses and builds, and where the backend runs
/// a shader its outputs (and those of the emitted text) do not change.
/// Prints the counts (`--nocapture`).
#[test]
fn constfold_on_the_corpus() {
    let Some((corpus, skipped, files)) = built_corpus() else { return };
    let built = corpus.len();
    let (mut ir_before, mut ir_fold, mut ir_o1) = (0usize, 0usize, 0usize);
    let (mut tgsi_source, mut tgsi_before, mut tgsi_fold, mut tgsi_o1) = (0usize, 0usize, 0usize, 0usize);
    let (mut ran, mut not_run) = (0, 0);
    let mut totals = passes::Stats::default();
    let mut failures = Vec::new();
    for Built { name, shader, module: before } in &corpus {
        let mut folded = before.clone();
        let result = passes::constfold::Constfold.run(&mut folded);
        totals.merge(&result.stats);
        let mut optimized = before.clone();
        if let Err(e) = o1(&mut optimized) {
            failures.push(format!("{name}: -O1: {e}"));
            continue;
        }
        let state_text = states::for_module(before, &mut Rng::from_name(name, 0));
        let state = exec::State::parse(&state_text).ok();
        let mut outcome = None;
        for (what, after) in [("constfold", &folded), ("-O1", &optimized)] {
            match check_after(&format!("{name} ({what})"), before, after, state.as_ref(), &run_options()) {
                Ok(o) => outcome = o,
                Err(e) => failures.push(format!("{e}\non\n{state_text}")),
            }
        }
        if outcome.is_some() {
            ran += 1;
        } else {
            not_run += 1;
        }
        let (Ok(e0), Ok(e1), Ok(e2)) = (ir::to_tgsi(before), ir::to_tgsi(&folded), ir::to_tgsi(&optimized)) else {
            failures.push(format!("{name}: emission failed"));
            continue;
        };
        ir_before += placed_instructions(&before.function);
        ir_fold += placed_instructions(&folded.function);
        ir_o1 += placed_instructions(&optimized.function);
        tgsi_source += tgsi_instructions(shader);
        tgsi_before += tgsi_instructions(&e0);
        tgsi_fold += tgsi_instructions(&e1);
        tgsi_o1 += tgsi_instructions(&e2);
    }
    eprintln!(
        "constfold over the corpus: {} files, {built} built ({skipped} skipped: no parse or build)\n\
         IR instructions: {ir_before} before, {ir_fold} after constfold, {ir_o1} after -O1\n\
         TGSI instructions: {tgsi_source} in the sources, {tgsi_before} emitted without passes, \
         {tgsi_fold} after constfold, {tgsi_o1} after -O1\n\
         run: {ran} unchanged, not run by the backend: {not_run}\n{totals}",
        files
    );
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n"));
    // Of 538, every one built; RAN_FLOOR of them run by the backend.
    testdata::assert_checked("constfold_on_the_corpus", "corpus shaders", built, 500);
    testdata::assert_checked("constfold_on_the_corpus", "corpus shaders run before and after", ran, RAN_FLOOR);
}

/// Corpus shaders whose outputs are compared before and after (537 of
/// 538; one does not run on its random state).
const RAN_FLOOR: usize = 530;

/// Every conformance case with a state: `-O1` leaves its outputs (and
/// those of the emitted text) bit-identical.
#[test]
fn o1_on_the_conformance_cases() {
    let Some((dir, names)) = testdata::conformance_cases() else { return };
    let (mut cases, mut identical, mut not_run) = (0, 0, 0);
    let (mut tgsi_source, mut tgsi_before, mut tgsi_after) = (0usize, 0usize, 0usize);
    let mut failures = Vec::new();
    for name in &names {
        let read = |ext: &str| fs::read_to_string(dir.join(format!("{name}.{ext}")));
        let (Ok(text), Ok(state_text)) = (read("tgsi"), read("state")) else {
            failures.push(format!("{name}: no .tgsi or no .state"));
            continue;
        };
        let (Ok(shader), Ok(state)) = (tgsi::parse(&text), exec::State::parse(&state_text)) else {
            failures.push(format!("{name}: the shader or its state does not parse"));
            continue;
        };
        let Ok(before) = ir::from_tgsi(&shader) else {
            failures.push(format!("{name}: does not build"));
            continue;
        };
        cases += 1;
        let mut after = before.clone();
        if let Err(e) = o1(&mut after) {
            failures.push(format!("{name}: -O1: {e}"));
            continue;
        }
        match check_after(name, &before, &after, Some(&state), &exec::RunOptions::default()) {
            Ok(Some(_)) => identical += 1,
            Ok(None) => not_run += 1,
            Err(e) => failures.push(e),
        }
        if let (Ok(a), Ok(b)) = (ir::to_tgsi(&before), ir::to_tgsi(&after)) {
            tgsi_source += tgsi_instructions(&shader);
            tgsi_before += tgsi_instructions(&a);
            tgsi_after += tgsi_instructions(&b);
        }
    }
    eprintln!(
        "-O1 on the conformance cases: {cases} built, {identical} bit-identical, \
         {not_run} not run by the backend; TGSI instructions: {tgsi_source} in the sources, {tgsi_before} emitted \
         with no pass, {tgsi_after} after -O1"
    );
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n"));
    // Of 438, all of which run.
    testdata::assert_checked("o1_on_the_conformance_cases", "cases bit-identical after -O1", identical, 430);
}

/// An `IF` that never runs holds the loop's only `BRK`, and the value it
/// computes is read after the loop: the arm stays (the loop never ends,
/// so nothing after it runs, but the read must keep its definition).
#[test]
fn a_dead_arm_holding_the_only_way_out_of_a_loop_stays() {
    let text = "FRAG
DCL IN[0], GENERIC[0], PERSPECTIVE
DCL OUT[0], COLOR
DCL TEMP[0..1]
IMM[0] UINT32 {0, 1, 0, 0}
IF IN[0].xxxx
  BGNLOOP
    UIF IMM[0].xxxx
      ADD TEMP[0].y, IN[0].xxxx, IN[0].yyyy
      BRK
    ENDIF
  ENDLOOP
  UCMP TEMP[1].x, TEMP[0].yyyy, IMM[0].xxxx, IMM[0].yyyy
  MOV OUT[0], TEMP[1].xxxx
ENDIF
END
";
    let mut module = ir::from_tgsi(&tgsi::parse(text).expect("parses")).expect("builds");
    passes::find("constfold").expect("constfold").run(&mut module);
    ir::verify::verify(&module.function).expect("constfold leaves valid IR");
}
