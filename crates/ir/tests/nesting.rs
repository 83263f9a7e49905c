//! Deeply nested control flow (5,000 levels) goes through every stage
//! (parse, SSA construction, verification, printing, the CFG's dot
//! rendering, emission, re-parse and rebuild) on a thread with a 2 MB stack,
//! so no stage may recurse once per nesting level. The workspace's
//! `tests/nesting.rs` does the same for the passes and the executor.

mod support {
    pub mod nesting;
}

use std::thread;
use support::nesting::{nested_constant_ifs, nested_ifs, nested_loops};

/// The stack of the thread the stages run on.
const STACK: usize = 2 << 20;

/// How deep the constructs nest.
const DEPTH: usize = 5_000;

/// Limits that let the constructs nest [`DEPTH`] deep (the default
/// refuses more than `tgsi::Limits::default().max_nesting`).
const DEEP: tgsi::Limits = tgsi::Limits { max_nesting: DEPTH + 1, ..tgsi::Limits::DEFAULT };

/// Runs every stage on `text`, on a thread with a [`STACK`]-byte stack.
fn all_stages(name: &'static str, text: String) {
    let worker = thread::Builder::new()
        .name(name.to_string())
        .stack_size(STACK)
        .spawn(move || {
            let shader = tgsi::parse_with_limits(&text, &DEEP).unwrap_or_else(|e| panic!("{}", e.render(&text, name)));
            let module = ir::from_tgsi_with_limits(&shader, &DEEP).unwrap_or_else(|e| panic!("{name}: {e}"));
            ir::verify::verify(&module.function).unwrap_or_else(|e| panic!("{name}: {e}"));
            let printed = ir::print::print_module(&module);
            assert!(printed.contains("phi"), "{name}: no phis in\n{printed}");
            let dot = ir::dot::function_to_dot(&module.function);
            assert!(dot.starts_with("digraph cfg {"), "{name}");
            let emitted = ir::to_tgsi(&module).unwrap_or_else(|e| panic!("{name}: {e}"));
            let emitted_text = tgsi::print(&emitted, tgsi::Style::Exact);
            let reparsed = tgsi::parse_with_limits(&emitted_text, &DEEP)
                .unwrap_or_else(|e| panic!("{}", e.render(&emitted_text, name)));
            assert_eq!(reparsed, emitted, "{name}: the emitted text does not read back");
            let again = ir::from_tgsi_with_limits(&reparsed, &DEEP).unwrap_or_else(|e| panic!("{name}, emitted: {e}"));
            ir::verify::verify(&again.function).unwrap_or_else(|e| panic!("{name}, emitted: {e}"));
            (shader.instructions().count(), emitted.instructions().count())
        })
        .expect("spawning a thread");
    let (input, output) = worker.join().unwrap_or_else(|_| panic!("{name} failed"));
    assert!(output > 0 && input > 0, "{name}: {input} instructions in, {output} out");
}

#[test]
fn five_thousand_nested_ifs() {
    let text = nested_ifs(DEPTH);
    assert_eq!(text.matches(": IF ").count(), DEPTH);
    all_stages("5000 nested IFs", text);
}

#[test]
fn five_thousand_nested_constant_ifs() {
    let text = nested_constant_ifs(DEPTH);
    assert_eq!(text.matches(": IF IMM[0].xxxx").count(), DEPTH);
    all_stages("5000 nested constant IFs", text);
}

#[test]
fn five_thousand_nested_loops() {
    let text = nested_loops(DEPTH);
    assert_eq!(text.matches(": BGNLOOP").count(), DEPTH);
    all_stages("5000 nested loops", text);
}

#[test]
fn generated_shaders_are_well_formed() {
    let ifs = nested_ifs(3);
    assert!(ifs.contains("  1: IF TEMP[0].xxxx :10\n"), "{ifs}");
    assert!(ifs.contains("  5: IF TEMP[0].zzzz :8\n"), "{ifs}");
    assert!(ifs.ends_with(" 11: MOV OUT[0], TEMP[0]\n 12: END\n"), "{ifs}");
    let loops = nested_loops(2);
    assert!(loops.contains("  3: IF TEMP[1].xxxx :5\n"), "{loops}");
    assert!(loops.contains("  9: IF TEMP[1].xxxx :11\n"), "{loops}");
    let constant = nested_constant_ifs(2);
    assert!(constant.contains("\nIMM[0] FLT32 {"), "{constant}");
    assert!(constant.contains("  3: IF IMM[0].xxxx :6\n"), "{constant}");
    for text in [ifs, loops, constant] {
        let shader =
            tgsi::parse_with_limits(&text, &DEEP).unwrap_or_else(|e| panic!("{}", e.render(&text, "generated")));
        ir::from_tgsi_with_limits(&shader, &DEEP).expect("builds");
    }
}
