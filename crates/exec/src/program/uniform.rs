//! Operations every lane computes alike: an ALU step (or a move) whose
//! operands are all immediates, constants, or results of such steps gives every lane
//! the same bits, so it is taken out of its block and computed once a run
//! ([`crate::run::uniform`]), its results then filled in as constants
//! are. A shader that takes the cosine of an immediate, or scales a
//! constant, pays for it once, not once a lane.
//!
//! Not taken out: a step whose result a derivative or a texture step
//! reads, as those read the lanes of a quad that may never have computed
//! it (holding zero there until then). The step budget still counts the
//! steps taken out, in their blocks ([`super::Program::counted`]).

use ir::EntityRef;

use super::slots::Arg;
use super::steps::{Fill, Step};
use super::Control;

/// The steps of `steps` (by block, walked in `control`'s order, which
/// puts every value's definition before its uses) whose operands are the
/// same in every lane, removed from their blocks and returned in an order
/// that computes each operand before its readers. Each slot they write
/// gets a fill `Fill::Constant { k }`, `k` counting on from `first_k`, in
/// the order of the returned slot list.
pub(super) fn hoist(
    control: &[Control],
    steps: &mut [Vec<Step>],
    fills: &mut Vec<(u32, Fill)>,
    slots: usize,
    first_k: u32,
) -> (Vec<Step>, Vec<u32>) {
    let mut uniform = vec![false; slots];
    for &(slot, fill) in fills.iter() {
        if let Some(u) = uniform.get_mut(slot as usize) {
            // A slot filled twice holds its last fill.
            *u = matches!(fill, Fill::Bits(_) | Fill::Constant { .. });
        }
    }
    let cross_lane = cross_lane_reads(steps, slots);
    let (mut hoisted, mut written) = (Vec::new(), Vec::new());
    for node in control {
        let Control::Block { block, .. } = node else { continue };
        let Some(list) = steps.get_mut(block.index()) else { continue };
        let mut kept = Vec::with_capacity(list.len());
        for step in std::mem::take(list) {
            let Some(dsts) = uniform_dsts(&step, &uniform, &cross_lane) else {
                kept.push(step);
                continue;
            };
            for slot in dsts {
                uniform[slot as usize] = true;
                fills.push((slot, Fill::Constant { k: first_k + written.len() as u32 }));
                written.push(slot);
            }
            hoisted.push(step);
        }
        *list = kept;
    }
    (hoisted, written)
}

/// The slots `step` writes, when it computes the same bits in every lane
/// and nothing reads them across lanes: an ALU step or a move (what
/// joins two halves into a 64-bit value) of uniform operands.
fn uniform_dsts(step: &Step, uniform: &[bool], cross_lane: &[bool]) -> Option<std::ops::Range<u32>> {
    let is = |v: &[bool], slot: u32| v.get(slot as usize).copied().unwrap_or(false);
    let (dst, writes, reads_uniform) = match step {
        Step::Alu { dst, width, broadcast, args, wide, wide_dst, .. } => {
            let reads_uniform = args.iter().enumerate().all(|(i, a)| {
                let n = if broadcast & (1 << i) != 0 { 1 } else { *width };
                let halves = 1 + a.wide as u32;
                (0..n).all(|k| (0..halves).all(|h| is(uniform, a.slot + k + h)))
            });
            (*dst, if *wide { 1 + *wide_dst as u32 } else { *width }, reads_uniform)
        }
        Step::Move { dst, src } => (*dst, 1, is(uniform, *src)),
        _ => return None,
    };
    let dsts = dst..dst.checked_add(writes)?;
    let seen_across = dsts.clone().any(|s| is(cross_lane, s));
    let in_range = (dsts.end as usize) <= uniform.len();
    (reads_uniform && !seen_across && in_range).then_some(dsts)
}

/// By slot: whether a step reads it in lanes other than its own
/// (derivatives, and textures' coordinates for the level of detail).
fn cross_lane_reads(steps: &[Vec<Step>], slots: usize) -> Vec<bool> {
    let mut seen = vec![false; slots];
    for s in steps.iter().flatten().flat_map(Step::cross_lane_operands).flat_map(Arg::slots) {
        if let Some(x) = seen.get_mut(s as usize) {
            *x = true;
        }
    }
    seen
}

#[cfg(test)]
mod tests {
    use crate::program::{Program, Step};
    use crate::{Backend, Executable, Outputs, RunOptions, State};

    fn program(text: &str) -> Program {
        Program::compile(&ir::from_tgsi(&tgsi::parse(text).unwrap()).unwrap()).unwrap()
    }

    /// The outputs of `text` on `state` with every backend this build
    /// has, checked equal; an error (the step budget) is `None`.
    fn run(text: &str, state: &str, options: &RunOptions) -> Option<Outputs> {
        let module = ir::from_tgsi(&tgsi::parse(text).unwrap()).unwrap();
        let state = State::parse(state).unwrap();
        let backends = [Backend::Interpreter, Backend::Jit];
        let runs: Vec<Option<Outputs>> = backends
            .iter()
            .filter(|&&b| b == Backend::Interpreter || cfg!(feature = "jit"))
            .map(|&b| Executable::compile_with(&module, b).unwrap().run(&state, options).ok())
            .collect();
        assert!(runs.windows(2).all(|w| w[0].as_ref().map(Outputs::write) == w[1].as_ref().map(Outputs::write)));
        runs.into_iter().next().flatten()
    }

    fn alu_steps(program: &Program) -> usize {
        program.steps.iter().flatten().filter(|s| matches!(s, Step::Alu { .. } | Step::Move { .. })).count()
    }

    #[test]
    fn operations_on_immediates_and_constants_are_computed_once_a_run() {
        // COS of an immediate, a product of it with a constant, and a
        // 64-bit operation on constants: computed once; the ADD of an
        // input stays.
        let text = "FRAG\nDCL IN[0]\nDCL OUT[0], COLOR\nDCL OUT[1], GENERIC[0]\nDCL CONST[0]\nDCL TEMP[0..1]\n\
                    IMM[0] FLT32 { 0.5, 2.0, 0.0, 0.0 }\n\
                    COS TEMP[0].x, IMM[0].xxxx\nMUL_SAT TEMP[0].y, TEMP[0].xxxx, -CONST[0].xxxx\n\
                    DADD OUT[1].xy, CONST[0].zwzw, CONST[0].zwzw\n\
                    ADD OUT[0], TEMP[0].xyxy, IN[0]\nEND\n";
        let p = program(text);
        // COS, MUL, the moves joining the DADD's two operands (two
        // each), the DADD, and the two taking its result's halves.
        assert_eq!(p.uniform.len(), 9, "{:?}", p.uniform);
        // The ADD's four channels (not joined: `.xyxy` reads a value twice).
        assert_eq!(alu_steps(&p), 4);
        let state = "invocations 5\nconst 0 0 -0.25 0 0 0x3ff80000\ninput 0 * 1 2 3 4\n";
        let out = run(text, state, &RunOptions::default()).unwrap();
        let c = 0.5f32.cos();
        let expect = [c + 1.0, (c * 0.25).clamp(0.0, 1.0) + 2.0, c + 3.0, (c * 0.25).clamp(0.0, 1.0) + 4.0];
        let double = 3.0f64.to_bits();
        for lane in 0..5 {
            assert_eq!(out.get(0, lane), Some(expect.map(f32::to_bits)));
            assert_eq!(out.get(1, lane), Some([double as u32, (double >> 32) as u32, 0, 0]));
        }
    }

    #[test]
    fn a_value_read_across_a_quad_is_computed_in_its_block() {
        // Lanes that skip the IF hold 0 for TEMP[0], and DDX reads them:
        // computed once, TEMP[0] would hold the value in every lane.
        let text = "FRAG\nDCL IN[0]\nDCL OUT[0], COLOR\nDCL CONST[0]\nDCL TEMP[0]\n\
                    IF IN[0].xxxx\n  ADD TEMP[0], CONST[0], CONST[0]\n  DDX OUT[0], TEMP[0]\nENDIF\nEND\n";
        let p = program(text);
        assert!(p.uniform.is_empty());
        let state = "invocations 4\nconst 0 0 1 2 3 4\ninput 0 0 0 0 0 0\ninput 0 1 1 0 0 0\n\
                     input 0 2 0 0 0 0\ninput 0 3 1 0 0 0\n";
        let out = run(text, state, &RunOptions::default()).unwrap();
        assert_eq!(out.get(0, 1), Some([2.0f32, 4.0, 6.0, 8.0].map(f32::to_bits)));
    }

    #[test]
    fn steps_computed_once_still_count_against_the_step_budget() {
        // The same loop with a per-lane operand and a uniform one: each
        // runs out of budget at the same count.
        let body = |operand: &str| {
            format!(
                "FRAG\nDCL IN[0]\nDCL OUT[0], COLOR\nDCL CONST[0]\nDCL TEMP[0..1]\nIMM[0] FLT32 {{ 1.0, 4.0, 0.0, 0.0 }}\n\
                 BGNLOOP\n  ADD TEMP[1].x, {operand}, IMM[0].xxxx\n  \
                 ADD TEMP[0].x, TEMP[0].xxxx, TEMP[1].xxxx\n  SGE TEMP[1].y, TEMP[0].xxxx, IMM[0].yyyy\n  \
                 IF TEMP[1].yyyy\n    BRK\n  ENDIF\nENDLOOP\nMOV OUT[0].x, TEMP[0].xxxx\nEND\n"
            )
        };
        let (uniform, per_lane) = (body("CONST[0].xxxx"), body("IN[0].xxxx"));
        assert_eq!(program(&uniform).uniform.len(), 1);
        assert!(program(&per_lane).uniform.is_empty());
        let state = "invocations 4\nconst 0 0 0 0 0 0\ninput 0 * 0 0 0 0\n";
        let mut ran = 0;
        for step_budget in 1..40 {
            let options = RunOptions { step_budget, ..RunOptions::default() };
            let a = run(&uniform, state, &options);
            assert_eq!(a.is_some(), run(&per_lane, state, &options).is_some(), "budget {step_budget}");
            ran += a.is_some() as u32;
        }
        assert!(ran > 0 && ran < 39, "the budget both stops and allows the loop");
    }
}
