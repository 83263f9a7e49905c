//! Compile work linear in the input, whatever its shape: each shape of
//! `testkit::shapes` that once made a stage quadratic goes through the
//! whole `-O1` pipeline, emission and printing at a size where the
//! quadratic algorithm takes minutes unoptimized (the suite would time
//! out) and the linear one seconds. Where the work can be
//! counted it is: the `-O1` pipeline reaches its fixed point in a bounded
//! number of rounds, whatever the size.
//!
//! What each size caught:
//! - nested loops: `ir::from_tgsi` scanned each loop's body for what it
//!   writes, once per nesting level;
//! - nested IFs: emission scanned every earlier occupant of a register for
//!   each phi copy at an ENDIF (`Allocation::untouched`);
//! - nested constant IFs: constfold scanned every block for each IF it
//!   folded, and followed ever longer chains of merged blocks;
//! - many immediates: emission searched every immediate for each constant;
//! - a large SWITCH: the verifier and the CFG compared every predecessor
//!   of the join with every other, emission rescanned the pending phi
//!   copies for each one it wrote;
//! - many arrays: the builder and emission's TEMP renumbering scanned
//!   every array for each register access, and the allocator tried every
//!   register of every array for each value it placed.

use std::thread;
use testkit::shapes::{Shape, LIMITS};
use tgsi_opt::{ir, passes, tgsi};

/// The rounds of `-O1` a shape may take: the pipeline's fixed point does
/// not depend on how many constructs there are.
const MAX_ROUNDS: usize = 3;

/// Compiles `text` as `opt -O` does (verifying after each pass) and as
/// `opt -O0` does, on a thread with room for the deepest trees; returns
/// the `-O1` rounds.
fn compile(name: &'static str, text: String) -> usize {
    let worker = thread::Builder::new()
        .name(name.to_string())
        .stack_size(64 << 20)
        .spawn(move || {
            let shader =
                tgsi::parse_with_limits(&text, &LIMITS).unwrap_or_else(|e| panic!("{}", e.render(&text, name)));
            let mut module = ir::from_tgsi_with_limits(&shader, &LIMITS).unwrap_or_else(|e| panic!("{name}: {e}"));
            let unoptimized = ir::to_tgsi(&module).unwrap_or_else(|e| panic!("{name}, -O0: {e}"));
            drop(tgsi::print(&unoptimized, tgsi::Style::Exact));
            let mut manager = passes::PassManager::new(passes::Options { verify_each: true, ..Default::default() });
            let report = manager.run(&passes::Pipeline::o1(), &mut module).unwrap_or_else(|e| panic!("{name}: {e}"));
            let emitted = ir::to_tgsi(&module).unwrap_or_else(|e| panic!("{name}: {e}"));
            drop(tgsi::print(&emitted, tgsi::Style::Exact));
            report.iterations
        })
        .expect("spawning a thread");
    worker.join().unwrap_or_else(|_| panic!("{name} failed"))
}

#[test]
fn nested_loops() {
    let rounds = compile("nested loops", Shape::NestedLoops.generate(20_000));
    assert!(rounds <= MAX_ROUNDS, "{rounds} rounds");
}

#[test]
fn nested_ifs_with_bodies() {
    let rounds = compile("nested IFs", Shape::NestedIfBodies.generate(15_000));
    assert!(rounds <= MAX_ROUNDS, "{rounds} rounds");
}

#[test]
fn nested_empty_ifs() {
    let rounds = compile("nested empty IFs", Shape::NestedEmptyIfs.generate(20_000));
    assert!(rounds <= MAX_ROUNDS, "{rounds} rounds");
}

#[test]
fn nested_constant_ifs() {
    // Every level folds: constfold takes the then arm 10,000 times.
    let text = Shape::NestedEmptyIfs.generate(20_000).replace("IF IN[0]", "IF IMM[0]").replace("IF IN[1]", "IF IMM[0]");
    let text = text.replacen("DCL OUT[0], COLOR\n", "DCL OUT[0], COLOR\nIMM[0] FLT32 {1.0, 1.0, 1.0, 1.0}\n", 1);
    let rounds = compile("nested constant IFs", text);
    assert!(rounds <= MAX_ROUNDS, "{rounds} rounds");
}

#[test]
fn many_immediates() {
    let rounds = compile("many immediates", Shape::ManyImmediates.generate(10_000));
    assert!(rounds <= MAX_ROUNDS, "{rounds} rounds");
}

#[test]
fn large_switch() {
    let rounds = compile("large switch", Shape::LargeSwitch.generate(10_000));
    assert!(rounds <= MAX_ROUNDS, "{rounds} rounds");
}

#[test]
fn many_arrays() {
    let rounds = compile("many arrays", Shape::ManyArrays.generate(20_000));
    assert!(rounds <= MAX_ROUNDS, "{rounds} rounds");
}
