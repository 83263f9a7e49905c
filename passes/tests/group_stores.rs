//! The `group-stores` pass on hand-written cases.
//!
//! Every `tests/inputs/group-stores/*.tgsi` (at the workspace root) is
//! built, run through `group-stores` and verified; the IR and the TGSI
//! emitted after the pass are snapshotted in `snapshots/group-stores/`.
//! Each case also runs before and after (and as the emitted TGSI) on three
//! pseudo-random states and must give the same outputs. Lines
//! `; expect COUNTER: N` check the pass's counter.

mod support;

use passes::group_stores::GroupStores;
use passes::Pass;
use support::*;

#[test]
fn group_stores_snapshots() {
    snapshot_suite("group-stores", |path| snapshot_case(path, &GroupStores::unconfigured()));
}

/// `-O1` runs the pass.
#[test]
fn in_o1() {
    assert!(passes::Pipeline::o1().names().contains(&"group-stores"));
}

/// The instructions emitted for `text` after `constfold` (which folds
/// copies into the stores) and `group-stores`, as a target with early
/// output stores has it when `early`, checked to compute what `text`
/// computes.
fn stored(text: &str, early: bool) -> String {
    let before = ir::from_tgsi(&tgsi::parse(text).expect("parses")).expect("builds");
    let mut after = before.clone();
    passes::constfold::Constfold.run(&mut after);
    let pass = if early { GroupStores::early() } else { GroupStores::unconfigured() };
    pass.run(&mut after);
    ir::verify::verify(&after.function).expect("valid");
    let emitted = tgsi::print(&ir::to_tgsi(&after).expect("emits"), tgsi::Style::Exact);
    let state = exec::State::parse(
        "invocations 4\ninput 0 * 1 -2 0.5 4\ninput 1 * 3 0.25 -1 2\ninput 0 1 -1 2 nan 0\ninput 1 2 0 -0 inf 1\n",
    )
    .expect("state");
    let want = exec::run(&before, &state, &run_options());
    let got =
        exec::run(&ir::from_tgsi(&tgsi::parse(&emitted).expect("reparses")).expect("rebuilds"), &state, &run_options());
    assert!(same_results(&want, &got), "{emitted}");
    emitted
        .lines()
        .filter(|l| l.contains(": "))
        .map(|l| l.split_once(": ").map_or(l, |(_, i)| i))
        .collect::<Vec<_>>()
        .join("\n")
}

/// For a driver that writes a vertex shader's outputs where the shader
/// does (nouveau, r300), an output copied from an input is stored right
/// after the input's last other read, as the source wrote it, not at the
/// end, where the input would stay in registers until then.
#[test]
fn early_stores_follow_the_last_read_of_their_values() {
    let text = "VERT\nDCL IN[0]\nDCL IN[1]\nDCL OUT[0], POSITION\nDCL OUT[1], GENERIC[0]\nDCL TEMP[0]\n\
                IMM[0] FLT32 {0.5, 1.0, 0.0, 0.0}\n\
                SGE TEMP[0], IN[0], IMM[0].xxyz\nMOV OUT[0], IN[0]\nMUL OUT[1], IN[1], TEMP[0]\nEND\n";
    // Without the tuning the copy is stored where SSA construction put
    // the store: at the end.
    assert_eq!(
        stored(text, false),
        "SGE TEMP[0], IN[0], IMM[0].xxyz\nMUL OUT[1], IN[1], TEMP[0]\nMOV OUT[0], IN[0]\nEND"
    );
    assert_eq!(
        stored(text, true),
        "SGE TEMP[0], IN[0], IMM[0].xxyz\nMOV OUT[0], IN[0]\nMUL OUT[1], IN[1], TEMP[0]\nEND"
    );
}

/// A store never moves above an instruction with an effect: a geometry
/// shader's stores stay after the `EMIT` before them, and the stores of
/// one output register keep their order.
#[test]
fn early_stores_stay_after_effects() {
    let text = "GEOM\nPROPERTY GS_INPUT_PRIMITIVE POINTS\nPROPERTY GS_OUTPUT_PRIMITIVE POINTS\n\
                PROPERTY GS_MAX_OUTPUT_VERTICES 2\nDCL IN[][0], POSITION\nDCL OUT[0], POSITION\nDCL OUT[1], GENERIC[0]\n\
                MOV OUT[1], IN[0][0]\nMOV OUT[0], IN[0][0]\nEMIT IMM[0].xxxx\nMOV OUT[0], IN[0][0].yxzw\nEMIT IMM[0].xxxx\nEND\n";
    let text = text.replace("DCL OUT[1], GENERIC[0]\n", "DCL OUT[1], GENERIC[0]\nIMM[0] UINT32 {0, 0, 0, 0}\n");
    let out = stored(&text, true);
    let emits: Vec<usize> = out.lines().enumerate().filter(|(_, l)| l.starts_with("EMIT")).map(|(i, _)| i).collect();
    let second = out.lines().position(|l| l.contains("IN[0][0].yxzw")).expect("the second store");
    assert_eq!(emits.len(), 2, "{out}");
    assert!(emits[0] < second && second < emits[1], "{out}");
}

/// Fragment shaders keep their stores at the end: their outputs are
/// registers read when the invocation ends.
#[test]
fn early_stores_leave_fragment_shaders() {
    let text = "FRAG\nDCL IN[0], GENERIC[0], LINEAR\nDCL OUT[0], COLOR\nDCL OUT[1], COLOR[1]\nDCL TEMP[0]\n\
                ADD TEMP[0], IN[0], IN[0]\nMOV OUT[0], IN[0]\nMUL OUT[1], IN[0], TEMP[0]\nEND\n";
    assert_eq!(stored(text, true), stored(text, false));
    assert!(stored(text, true).ends_with("MOV OUT[0], IN[0]\nEND"));
}
