//! Deeply nested control flow (5,000 levels) through the `-O1` pipeline
//! (constfold, dce, coalesce, with verification after each pass), emission
//! and the executor, on a thread with a 2 MB stack, so none of them may
//! recurse once per nesting level. The executor runs the shader as built,
//! as optimized and as emitted and read back, on a few invocations that
//! take different paths, and all three runs agree.
//! `crates/ir/tests/nesting.rs` puts the same shaders through the IR's own
//! stages.

#[path = "../crates/ir/tests/support/nesting.rs"]
mod nesting;

use nesting::{nested_constant_ifs, nested_ifs, nested_loops};
use std::thread;
use tgsi_opt::{exec, ir, passes, tgsi};

/// The stack of the thread the stages run on.
const STACK: usize = 2 << 20;

/// How deep the constructs nest.
const DEPTH: usize = 5_000;

/// Limits that let the constructs nest [`DEPTH`] deep (the default
/// refuses more than `tgsi::Limits::default().max_nesting`).
const DEEP: tgsi::Limits = tgsi::Limits { max_nesting: DEPTH + 1, ..tgsi::Limits::DEFAULT };

/// Invocations whose inputs send them down different paths of
/// [`nested_ifs`]: a zero channel fails the test of its level.
const IF_STATE: &str = "invocations 6
input 0 * 1 1 1 1
input 0 1 0 1 1 1
input 0 2 1 0 1 1
input 0 3 1 1 0 1
input 0 4 1 1 1 0
input 0 5 -1 1 1 1
";

/// Invocations that leave [`nested_loops`] at different depths (the
/// counter `x` grows by `y` a level until it reaches `w`).
const LOOP_STATE: &str = "invocations 5
input 0 * 0 1 1 3
input 0 1 0 1 1 0
input 0 2 0 2 1 7
input 0 3 5 1 2 5
input 0 4 0 0.5 1 2
";

/// Optimizes `text` at `-O1`, emits it, and runs it before and after on
/// `state`, on a thread with a [`STACK`]-byte stack. Returns what the
/// pipeline did: whether it changed anything, and the instructions in and
/// out.
fn optimize_and_run(name: &'static str, text: String, state: &'static str) -> (bool, usize, usize) {
    let worker = thread::Builder::new()
        .name(name.to_string())
        .stack_size(STACK)
        .spawn(move || {
            let shader = tgsi::parse_with_limits(&text, &DEEP).unwrap_or_else(|e| panic!("{}", e.render(&text, name)));
            let state = exec::State::parse(state).unwrap_or_else(|e| panic!("{name}: {e}"));
            let options = exec::RunOptions::default();
            let mut module = ir::from_tgsi_with_limits(&shader, &DEEP).unwrap_or_else(|e| panic!("{name}: {e}"));
            let before = exec::run(&module, &state, &options).unwrap_or_else(|e| panic!("{name}: {e}"));
            let mut manager = passes::PassManager::new(passes::Options { verify_each: true, ..Default::default() });
            let report = manager.run(&passes::Pipeline::o1(), &mut module).unwrap_or_else(|e| panic!("{name}: {e}"));
            let after = exec::run(&module, &state, &options).unwrap_or_else(|e| panic!("{name}, optimized: {e}"));
            assert!(after == before, "{name}: the optimized shader computes something else");

            let emitted = ir::to_tgsi(&module).unwrap_or_else(|e| panic!("{name}: {e}"));
            let emitted_text = tgsi::print(&emitted, tgsi::Style::Exact);
            let reparsed = tgsi::parse_with_limits(&emitted_text, &DEEP)
                .unwrap_or_else(|e| panic!("{}", e.render(&emitted_text, name)));
            let again = ir::from_tgsi_with_limits(&reparsed, &DEEP).unwrap_or_else(|e| panic!("{name}, emitted: {e}"));
            let emitted_run = exec::run(&again, &state, &options).unwrap_or_else(|e| panic!("{name}, emitted: {e}"));
            assert!(emitted_run == before, "{name}: the emitted shader computes something else");
            (report.changed(), shader.instructions().count(), emitted.instructions().count())
        })
        .expect("spawning a thread");
    worker.join().unwrap_or_else(|_| panic!("{name} failed"))
}

#[test]
fn five_thousand_nested_ifs() {
    let (_, input, output) = optimize_and_run("5000 nested IFs", nested_ifs(DEPTH), IF_STATE);
    // Every IF and ENDIF stays.
    assert!(output >= 2 * DEPTH, "{input} instructions in, {output} out");
}

#[test]
fn a_thousand_nested_constant_ifs() {
    // Folding an IF looks through every block for phis that lose an
    // entry, so folding them all is quadratic in the depth: this shape is
    // shallower. The passes' walks meet DEPTH in the other two tests.
    const FOLDED: usize = 1_000;
    let (changed, input, output) = optimize_and_run("1000 nested constant IFs", nested_constant_ifs(FOLDED), IF_STATE);
    assert!(changed);
    // Constant folding keeps every then-arm: no IF is left.
    assert!(output <= input - 2 * FOLDED, "{input} instructions in, {output} out");
}

#[test]
fn five_thousand_nested_loops() {
    let (_, input, output) = optimize_and_run("5000 nested loops", nested_loops(DEPTH), LOOP_STATE);
    assert!(output >= 2 * DEPTH, "{input} instructions in, {output} out");
}
