//! The compiled tier against the interpreter: partial masks, loops,
//! every lowered operation against `semantics::eval` on random bits, and
//! programs compiled whole.

use crate::{Backend, Executable, Outputs, RunOptions, State};

mod operations;
mod whole;

/// Runs `text` on `state` with both tiers at `lanes` lanes a batch, and
/// checks the outputs are the same; returns them, and the tier the JIT's
/// executable ran on (the interpreter for a program that does not
/// compile whole).
pub(super) fn run_both(text: &str, state: &str, lanes: usize) -> (Outputs, Backend) {
    let module = ir::from_tgsi(&tgsi::parse(text).unwrap()).unwrap();
    let state = State::parse(state).unwrap();
    let options = RunOptions { lanes, ..RunOptions::default() };
    let interp = Executable::compile_with(&module, Backend::Interpreter).unwrap().run(&state, &options).unwrap();
    let jit = Executable::compile_with(&module, Backend::Jit).unwrap();
    let out = jit.run(&state, &options).unwrap();
    assert_eq!(out.write(), interp.write());
    (out, jit.backend())
}

/// [`run_both`] of a program that compiles whole.
pub(super) fn both(text: &str, state: &str, lanes: usize) -> Outputs {
    let (out, backend) = run_both(text, state, lanes);
    assert_eq!(backend, Backend::Jit, "compiled whole");
    out
}

#[test]
fn straight_line_alu_matches_the_interpreter() {
    let text = "FRAG\nDCL IN[0]\nDCL OUT[0], COLOR\nDCL TEMP[0]\n\
                MUL TEMP[0], IN[0], -|IN[0].yxwz|\nADD_SAT OUT[0], TEMP[0], IN[0].xxxx\nEND\n";
    let state = "invocations 7\ninput 0 * 0.5 -2 3 nan\ninput 0 3 1e30 -0 inf 0x00000001\n";
    both(text, state, 8);
}

/// `n` lanes of IN[0] = (lane, lane / 3, -lane, 0.25 * lane).
pub(super) fn lanes_state(n: u32) -> String {
    let mut s = format!("invocations {n}\n");
    for l in 0..n {
        let x = l as f32;
        s += &format!("input 0 {l} {x} {} {} {}\n", x / 3.0, -x, 0.25 * x);
    }
    s
}

#[test]
fn partial_masks_write_only_active_lanes() {
    // Lanes split at the IF (lane l takes the ELSE when l % 3 == 2), so
    // each arm runs with some lanes of each quad off; TEMP[1] keeps its
    // value from before the IF in the lanes of the other arm.
    let text = "FRAG\nDCL IN[0]\nDCL OUT[0], COLOR\nDCL TEMP[0..1]\n\
                IMM[0] FLT32 { 2.5, 1.0, 0.5, 0.0 }\n\
                MOV TEMP[1], IN[0].wzyx\n\
                FRC TEMP[0].x, IN[0].yyyy\nSLT TEMP[0].x, TEMP[0].xxxx, IMM[0].zzzz\n\
                IF TEMP[0].xxxx\n  MAD_SAT TEMP[1].xy, IN[0], IMM[0].zzzz, -IN[0].wwww\n\
                ELSE\n  ADD TEMP[1].zw, |IN[0]|, IMM[0].yyyy\nENDIF\n\
                MUL OUT[0], TEMP[1], IN[0].xxxx\nEND\n";
    for lanes in [4, 8, 16, 64] {
        both(text, &lanes_state(37), lanes);
    }
}

#[test]
fn loops_keep_the_values_of_lanes_that_left() {
    // Lane l leaves the loop after about l / 4 turns; the phi copies and
    // the ALU steps of the body run for fewer and fewer lanes.
    let text = "FRAG\nDCL IN[0]\nDCL OUT[0], COLOR\nDCL TEMP[0..2]\n\
                IMM[0] FLT32 { 1.0, 4.0, 0.5, 0.0 }\n\
                MOV TEMP[0], IMM[0].wwww\nMOV TEMP[1], IN[0]\n\
                BGNLOOP\n  SGE TEMP[2].x, TEMP[0].xxxx, IN[0].wwww\n  IF TEMP[2].xxxx\n    BRK\n  ENDIF\n\
                  ADD TEMP[0].x, TEMP[0].xxxx, IMM[0].zzzz\n  MAD TEMP[1], TEMP[1], IMM[0].zzzz, TEMP[0].xxxx\n\
                ENDLOOP\nMOV OUT[0], TEMP[1]\nEND\n";
    for lanes in [4, 16, 64] {
        both(text, &lanes_state(50), lanes);
    }
}
