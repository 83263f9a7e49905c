//! The compiled tier against the interpreter: segments under partial
//! masks and in loops, and every lowered operation against
//! `semantics::eval` on random bits.

use crate::{Backend, Executable, Outputs, RunOptions, State};

mod operations;
mod whole;

/// Runs `text` on `state` with both tiers at `lanes` lanes a batch, and
/// checks the outputs are the same; returns them.
pub(super) fn both(text: &str, state: &str, lanes: usize) -> Outputs {
    let module = ir::from_tgsi(&tgsi::parse(text).unwrap()).unwrap();
    let state = State::parse(state).unwrap();
    let options = RunOptions { lanes, ..RunOptions::default() };
    let interp = Executable::compile_with(&module, Backend::Interpreter).unwrap().run(&state, &options).unwrap();
    let jit = Executable::compile_with(&module, Backend::Jit).unwrap();
    assert_eq!(jit.backend(), Backend::Jit);
    let out = jit.run(&state, &options).unwrap();
    assert_eq!(out.write(), interp.write());
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
fn segments_under_partial_masks_write_only_active_lanes() {
    // Lanes split at the IF (lane l takes the ELSE when l % 3 == 2), so
    // the segments in each arm run with some lanes of each quad off; TEMP[1] keeps its value
    // from before the IF in the lanes of the other arm.
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
fn segments_in_loops_keep_the_values_of_lanes_that_left() {
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

#[test]
fn a_straight_line_alu_shader_is_one_segment() {
    let text = "FRAG\nDCL IN[0]\nDCL OUT[0], COLOR\nDCL TEMP[0]\n\
                MUL TEMP[0], IN[0], IN[0].yxwz\nEX2 TEMP[0].x, TEMP[0].xxxx\nADD OUT[0], TEMP[0], IN[0]\nEND\n";
    let module = ir::from_tgsi(&tgsi::parse(text).unwrap()).unwrap();
    let program = crate::program::Program::compile(&module).unwrap();
    let compiled = crate::jit::compile_segments(&program).unwrap();
    let pieces: Vec<_> = (0..program.steps.len()).flat_map(|b| compiled.pieces(b).iter()).collect();
    // The ALU steps form one segment; only the OUT stores are steps.
    let segments = pieces.iter().filter(|p| matches!(p, super::Piece::Segment(_))).count();
    assert_eq!(segments, 1, "{pieces:?}");
    assert!(pieces.iter().all(|p| match p {
        super::Piece::Steps(a, b) => program.steps[0][*a as usize..*b as usize]
            .iter()
            .all(|s| matches!(s, crate::program::Step::StoreOutput { .. })),
        super::Piece::Segment(_) => true,
    }));
}

/// One segment of the single step `step` over `slots` (slot-major, 64
/// lanes a slot), run for the lanes of `active`; whether it calls the
/// helper.
pub(super) fn run_segment(step: crate::program::Step, slots: &mut [u32], active: u64) -> bool {
    let mut module = crate::jit::new_module().unwrap();
    let mut kernels = crate::jit::helpers::Kernels::default();
    let mut builder = crate::jit::codegen::Builder::new(&module);
    let id = builder.define(&mut module, &[step], &|_| true, &mut kernels).unwrap();
    module.finalize_definitions().unwrap();
    // SAFETY: defined with the signature of `SegmentFn`.
    let code = unsafe { std::mem::transmute::<*const u8, crate::jit::SegmentFn>(module.get_finalized_function(id)) };
    // SAFETY: the step's slots are within `slots`, of 64 lanes each.
    unsafe { code(slots.as_mut_ptr(), 64, active) };
    let code = crate::jit::Code(Some(module));
    drop(code);
    !kernels.is_empty()
}

#[test]
fn values_only_the_segment_reads_are_not_stored() {
    use crate::program::Step;
    let text = "FRAG\nDCL IN[0]\nDCL OUT[0], COLOR\nDCL TEMP[0]\n\
                MUL TEMP[0], IN[0], IN[0]\nADD OUT[0], TEMP[0], IN[0]\nEND\n";
    let module = ir::from_tgsi(&tgsi::parse(text).unwrap()).unwrap();
    let program = crate::program::Program::compile(&module).unwrap();
    let steps = &program.steps[0];
    let range = crate::jit::segment::segments(steps, program.slots).remove(0);
    let counts = super::liveness::read_counts(&program);
    let stored = super::liveness::stored(&steps[range.clone()], counts.as_deref());
    let dsts: Vec<(u32, u32)> = steps[range]
        .iter()
        .filter_map(|s| if let Step::Alu { dst, width, .. } = s { Some((*dst, *width)) } else { None })
        .collect();
    let [(mul, 4), (add, 4)] = dsts[..] else { panic!("{dsts:?}") };
    assert!((mul..mul + 4).all(|s| !stored(s)), "the products stay in registers");
    assert!((add..add + 4).all(&stored), "the sums go to OUT[0]");
}
