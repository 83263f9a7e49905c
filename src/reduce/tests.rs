//! The edits on small shaders, and whole reductions with tests run in
//! process.

use super::edits::{apply, edits, Edit, Pass, SourceChange};
use super::*;

fn parse(text: &str) -> Shader {
    tgsi::parse(text).expect("the test's shader parses")
}

fn print(shader: &Shader) -> String {
    tgsi::print(shader, tgsi::Style::Exact)
}

/// A subroutine called once, an IF with an ELSE (Mesa's labels) and a loop.
const BRANCHY: &str = "FRAG
DCL IN[0], GENERIC[0], PERSPECTIVE
DCL OUT[0], COLOR
DCL TEMP[0..1]
IMM[0] FLT32 {0.5, 2.0, 0.0, 0.0}
IMM[1] FLT32 {3.0, 0.0, 0.0, 0.0}
  0: MOV TEMP[0], IN[0]
  1: CAL :12
  2: IF TEMP[0].xxxx :4
  3:   MUL TEMP[0], TEMP[0], IMM[1].xxxx
  4: ELSE :6
  5:   ADD TEMP[0], TEMP[0], IMM[0].yyyy
  6: ENDIF
  7: BGNLOOP :10
  8:   BRK
  9:   ADD TEMP[0].x, TEMP[0].xxxx, IMM[0].xxxx
 10: ENDLOOP :8
 11: END
 12: BGNSUB
 13:   RCP TEMP[1].x, TEMP[0].xxxx
 14:   MOV OUT[0], TEMP[1].xxxx
 15:   RET
 16: ENDSUB
";

#[test]
fn removing_instructions_renumbers_labels() {
    let shader = parse(BRANCHY);
    let out = apply(&shader, &Edit::RemoveInstructions(vec![0, 3])).expect("applies");
    let text = print(&out);
    // CAL still names the BGNSUB; IF and ELSE still name their ELSE and ENDIF.
    assert!(text.contains("  0: CAL :10\n"), "{text}");
    assert!(text.contains("  1: IF TEMP[0].xxxx :2\n"), "{text}");
    assert!(text.contains("  2: ELSE :4\n"), "{text}");
    assert!(text.contains(" 10: BGNSUB\n"), "{text}");
}

#[test]
fn keeping_one_arm_of_an_if() {
    let shader = parse(BRANCHY);
    let flow = edits(&shader, Pass::ControlFlow);
    // The IF: drop it, keep the THEN arm, keep the ELSE arm; the loop:
    // drop it, run its body once (its BRK goes too).
    assert_eq!(
        flow,
        [
            Edit::RemoveInstructions(vec![2, 3, 4, 5, 6]),
            Edit::RemoveInstructions(vec![2, 4, 5, 6]),
            Edit::RemoveInstructions(vec![2, 3, 4, 6]),
            Edit::RemoveInstructions(vec![7, 8, 9, 10]),
            Edit::RemoveInstructions(vec![7, 8, 10]),
        ]
    );
    let else_arm = print(&apply(&shader, &flow[2]).expect("applies"));
    assert!(else_arm.contains("  2: ADD TEMP[0], TEMP[0], IMM[0].yyyy\n  3: BGNLOOP"), "{else_arm}");
}

#[test]
fn inlining_a_subroutine_called_once() {
    let shader = parse(BRANCHY);
    assert_eq!(edits(&shader, Pass::Subroutines), [Edit::Inline(1)]);
    let text = print(&apply(&shader, &Edit::Inline(1)).expect("applies"));
    assert!(
        text.contains("  1: RCP TEMP[1].x, TEMP[0].xxxx\n  2: MOV OUT[0], TEMP[1].xxxx\n  3: IF TEMP[0].xxxx :5\n"),
        "{text}"
    );
    assert!(!text.contains("BGNSUB") && !text.contains("RET"), "{text}");
    ir::from_tgsi(&parse(&text)).expect("builds");
}

#[test]
fn removing_an_immediate_renumbers_the_later_ones() {
    let shader = parse(BRANCHY);
    // IMM[0] is read: it stays.
    assert!(apply(&shader, &Edit::RemoveImmediate(0)).is_none());
    let dropped = apply(&shader, &Edit::RemoveInstructions(vec![5, 9])).expect("applies");
    let text = print(&apply(&dropped, &Edit::RemoveImmediate(0)).expect("IMM[0] is no longer read"));
    assert!(text.contains("MUL TEMP[0], TEMP[0], IMM[0].xxxx"), "{text}");
    assert!(!text.contains("IMM[1]"), "{text}");
}

#[test]
fn operands_become_zero_and_masks_shrink() {
    let shader = parse(BRANCHY);
    let zero = Edit::Source { inst: 0, src: 0, change: SourceChange::Zero };
    let text = print(&apply(&shader, &zero).expect("applies"));
    // IMM[0] and IMM[1] hold no all-zero vector: one is added.
    assert!(text.contains("IMM[2] FLT32 {    0.0000,     0.0000,     0.0000,     0.0000}"), "{text}");
    assert!(text.contains("  0: MOV TEMP[0], IMM[2]\n"), "{text}");
    let mask = Edit::WriteMask { inst: 0, dst: 0, mask: 0b0111 };
    assert!(print(&apply(&shader, &mask).expect("applies")).contains("  0: MOV TEMP[0].xyz, IN[0]\n"));
}

#[test]
fn every_kept_edit_makes_the_shader_smaller() {
    let shader = parse(BRANCHY);
    let cost = Cost::of(&shader);
    for pass in Pass::ALL {
        for edit in edits(&shader, pass) {
            if let Some(candidate) = apply(&shader, &edit) {
                assert!(Cost::of(&candidate) < cost, "{edit:?} does not make the shader smaller");
            }
        }
    }
}

/// Reduces `text` while `keep` holds, checking that the test only ever
/// sees shaders that parse and build.
fn reduce_while(text: &str, batch: usize, keep: impl Fn(&Shader) -> bool + Sync) -> Reduction {
    reduce(
        &parse(text),
        batch,
        |candidate| {
            let shader = tgsi::parse(candidate).expect("every candidate parses");
            ir::from_tgsi(&shader).expect("every candidate builds");
            Ok::<_, ()>(keep(&shader))
        },
        |_| {},
    )
    .expect("reduces")
}

#[test]
fn a_reduction_keeps_what_the_test_wants_and_little_else() {
    let has_rcp = |s: &Shader| s.instructions().any(|i| i.opcode == tgsi::Opcode::Rcp);
    let reduced = reduce_while(BRANCHY, 1, has_rcp);
    // The test only asks for an RCP somewhere: after END is as good as
    // anywhere, and reading zero as good as reading TEMP[0].
    let expected = "FRAG
DCL TEMP[1]
IMM[0] FLT32 {    0.0000,     0.0000,     0.0000,     0.0000}
  0: END
  1: RCP TEMP[1].x, IMM[0]
";
    assert_eq!(print(&reduced.shader), expected);
    assert!(reduced.tests > 0 && reduced.kept > 0);
}

#[test]
fn the_result_does_not_depend_on_the_batch() {
    let has_add = |s: &Shader| s.instructions().any(|i| i.opcode == tgsi::Opcode::Add);
    let one = reduce_while(BRANCHY, 1, has_add);
    let four = reduce_while(BRANCHY, 4, has_add);
    assert_eq!(print(&one.shader), print(&four.shader));
    assert_eq!(one.kept, four.kept);
}

#[test]
fn an_uninteresting_input_is_an_error() {
    let err = reduce(&parse(BRANCHY), 1, |_| Ok::<_, ()>(false), |_| {}).expect_err("not interesting");
    assert!(matches!(err, ReduceError::NotInteresting));
    let err = reduce(&parse(BRANCHY), 1, |_| Err::<bool, _>("no such test"), |_| {}).expect_err("the test fails");
    assert!(matches!(err, ReduceError::Test("no such test")));
}

/// A planted miscompile: a "compiler" that turns MAX into MIN. A shader
/// is interesting when what it compiles to gives other results than the
/// shader itself on random states.
fn miscompiled(shader: &Shader) -> bool {
    let mut compiled = shader.clone();
    for item in &mut compiled.items {
        if let tgsi::Item::Instruction(inst) = item {
            if inst.opcode == tgsi::Opcode::Max {
                inst.opcode = tgsi::Opcode::Min;
            }
        }
    }
    let (Ok(source), Ok(compiled)) = (ir::from_tgsi(shader), ir::from_tgsi(&compiled)) else { return false };
    let options = exec::RunOptions { step_budget: testkit::check::STEP_BUDGET, ..exec::RunOptions::default() };
    let states = testkit::check::random_states(&source, 4, 7).unwrap_or_default();
    states.iter().any(|state| exec::run(&source, state, &options).ok() != exec::run(&compiled, state, &options).ok())
}

#[test]
fn a_planted_miscompile_reduces_to_the_instruction_it_breaks() {
    let text = include_str!("../../examples/shaders/fragment_textured.tgsi");
    let before = parse(text).instruction_count();
    let reduced = reduce_while(text, 2, miscompiled);
    let after = reduced.shader.instruction_count();
    let printed = print(&reduced.shader);
    assert!(after <= 5 && after * 10 <= before.max(50), "{before} -> {after}:\n{printed}");
    assert!(printed.contains("MAX"), "{printed}");
    println!("{before} -> {after} instructions, {} tests:\n{printed}", reduced.tests);
    assert!(miscompiled(&reduced.shader));
}
