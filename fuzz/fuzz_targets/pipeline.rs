//! Arbitrary bytes as TGSI text through the whole pipeline: parse, build
//! the IR, verify, `-O1` with the verifier after every pass, emit, read the
//! emitted text back; and the results on two random states the same after
//! every pass and after emission (`testkit::check`, in the interpreter).
//! Nothing may panic, no pass may break the IR or change a result, and
//! emission must read back.
#![no_main]

use libfuzzer_sys::fuzz_target;
use testkit::check::{check_with_budget, random_states, CheckError, Verdict};
use tgsi_opt::{exec, ir, passes, tgsi};

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let Ok(shader) = tgsi::parse(&text) else { return };
    let Ok(module) = ir::from_tgsi(&shader) else { return };
    if let Err(e) = ir::verify::verify(&module.function) {
        panic!("the IR built from the input does not verify: {e}\n{text}");
    }
    let Ok(states) = random_states(&module, 2, 0) else { return };
    let pipeline = passes::Pipeline::o1();
    let list: Vec<&dyn passes::Pass> = pipeline.passes().collect();
    // The interpreter: a one-shot run compiled by Cranelift, itself
    // instrumented for coverage here, took most of the time (inputs of a
    // few hundred bytes took seconds). The `generated` target and
    // `fuzz-passes` compare the tiers (`testkit::difftest`).
    let interp = exec::Backend::Interpreter;
    match check_with_budget(&module, &list, pipeline.max_iterations(), &states, 20_000, interp) {
        Ok(Verdict::Same { .. }) => {}
        Ok(Verdict::Changed(culprit)) => panic!("{} changed the results: {:?}\n{text}", culprit.step, culprit.difference),
        // The unoptimized shader does not run (an endless loop, say).
        Err(CheckError::Baseline { .. } | CheckError::NoStates) => {}
        // A pass or emission may move a run across the small step budget.
        Err(CheckError::Run { source: exec::ExecError::StepBudget(_), .. }) => {}
        Err(e) => panic!("{e}\n{text}"),
    }
});
