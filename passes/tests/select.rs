//! The `select` pass (if-conversion) on hand-written cases.
//!
//! Every `tests/inputs/select/*.tgsi` (at the workspace root) is built,
//! run through `select` and verified; a second run changes nothing; the
//! IR and the TGSI emitted after the pass are snapshotted in
//! `snapshots/select/`. Each case runs before and after on three
//! pseudo-random states and must give the same outputs bit for bit.
//! Lines `; expect COUNTER: N` check the counters (`; expect unchanged`
//! that nothing changed).

mod support;

use passes::Pass;
use support::*;

#[test]
fn select_snapshots() {
    snapshot_suite("select", |path| snapshot_case(path, &passes::select::Select::unconfigured()));
}

/// `-O1` runs the pass.
#[test]
fn in_o1() {
    assert!(passes::Pipeline::o1().names().contains(&"select"));
}

/// A float `IF` on the special values, lane by lane: NaN (any payload,
/// either sign), denormals and infinities take the then arm; `+0.0` and
/// `-0.0` the else arm. The converted shader (its IR and its emitted TGSI)
/// gives each lane what the branch gave.
#[test]
fn float_condition_special_values() {
    let text = "FRAG\nDCL IN[0], GENERIC[0], CONSTANT\nDCL OUT[0], COLOR\nDCL TEMP[0]\n\
                IMM[0] FLT32 {1.0, 2.0, 0.0, 0.0}\n\
                IF IN[0].xxxx\n  MOV TEMP[0].x, IMM[0].xxxx\nELSE\n  MOV TEMP[0].x, IMM[0].yyyy\nENDIF\n\
                MOV OUT[0].x, TEMP[0].xxxx\nEND\n";
    // (condition bits, arm taken)
    let lanes: [(u32, bool); 10] = [
        (0x0000_0000, false), // +0.0
        (0x8000_0000, false), // -0.0
        (0x7fc0_0000, true),  // NaN
        (0xffc0_0001, true),  // negative NaN with a payload
        (0x7f80_0001, true),  // signalling NaN
        (0x0000_0001, true),  // smallest denormal
        (0x8000_0001, true),  // negative denormal
        (0x7f80_0000, true),  // +inf
        (0xff80_0000, true),  // -inf
        (0x3f80_0000, true),  // 1.0
    ];
    let mut state = format!("invocations {}\n", lanes.len());
    for (l, (bits, _)) in lanes.iter().enumerate() {
        state.push_str(&format!("input 0 {l} 0x{bits:08x} 0 0 0\n"));
    }
    let state = exec::State::parse(&state).expect("state");
    let before = ir::from_tgsi(&tgsi::parse(text).expect("parses")).expect("builds");
    let mut after = before.clone();
    let result = passes::select::Select::unconfigured().run(&mut after);
    assert_eq!(result.stats.get("IFs converted"), Some(1), "{}", ir::print::print_module(&after));
    ir::verify::verify(&after.function).expect("valid");
    let emitted = tgsi::print(&ir::to_tgsi(&after).expect("emits"), tgsi::Style::Exact);
    assert!(!emitted.contains("IF"), "{emitted}");
    let rebuilt = ir::from_tgsi(&tgsi::parse(&emitted).expect("parses")).expect("builds");
    for module in [&before, &after, &rebuilt] {
        let out = exec::run(module, &state, &run_options()).expect("runs");
        for (l, (bits, taken)) in lanes.iter().enumerate() {
            let want = if *taken { 1.0f32 } else { 2.0f32 }.to_bits();
            let got = out.get(0, l as u32).map(|o| o[0]);
            assert_eq!(got, Some(want), "condition 0x{bits:08x}:\n{emitted}");
        }
    }
}

/// For a target without integers: a condition from a comparison (`SLT`:
/// 1.0 or 0.0) selects with `CMP -c`, one from an operation that never
/// gives a NaN (`SSG`) with `CMP -|c|`, and one that may be a NaN (`ADD`)
/// stays a branch. On special lanes (NaNs, signed zeros, denormals,
/// infinities) each gives what the branch gave.
#[test]
fn float_selects_for_a_target_without_integers() {
    let no_integers = target::Target::parse("INTEGERS=0").expect("a caps list");
    let cases = [
        ("SLT TEMP[1].x, IN[0].xxxx, IMM[0].zzzz", Some(", -TEMP[0].zzzz, ")),
        ("SSG TEMP[1].x, IN[0].xxxx", Some(", -|TEMP[0].zzzz|, ")),
        ("ADD TEMP[1].x, IN[0].xxxx, IMM[0].zzzz", None),
    ];
    let lanes: [u32; 10] = [
        0x0000_0000,
        0x8000_0000,
        0x7fc0_0000,
        0xffc0_0001,
        0x7f80_0001,
        0x0000_0001,
        0x8000_0001,
        0x7f80_0000,
        0xff80_0000,
        0xbf80_0000,
    ];
    let mut state = format!("invocations {}\n", lanes.len());
    for (l, bits) in lanes.iter().enumerate() {
        state.push_str(&format!("input 0 {l} 0x{bits:08x} 0 0 0\n"));
    }
    let state = exec::State::parse(&state).expect("state");
    for (condition, select) in cases {
        let text = format!(
            "FRAG\nDCL IN[0], GENERIC[0], CONSTANT\nDCL OUT[0], COLOR\nDCL TEMP[0..1]\n\
             IMM[0] FLT32 {{1.0, 2.0, 0.0, 0.0}}\n{condition}\n\
             IF TEMP[1].xxxx\n  MOV TEMP[0].x, IMM[0].xxxx\nELSE\n  MOV TEMP[0].x, IMM[0].yyyy\nENDIF\n\
             MOV OUT[0].x, TEMP[0].xxxx\nEND\n"
        );
        let before = ir::from_tgsi(&tgsi::parse(&text).expect("parses")).expect("builds");
        let mut after = before.clone();
        let converted = passes::select::Select::new(no_integers.clone()).run(&mut after).stats.get("IFs converted");
        assert_eq!(converted.unwrap_or(0), u64::from(select.is_some()), "{condition}");
        ir::verify::verify(&after.function).expect("valid");
        let emitted = tgsi::print(&ir::to_tgsi(&after).expect("emits"), tgsi::Style::Exact);
        assert!(!emitted.contains("UCMP") && !emitted.contains("FSNE"), "{emitted}");
        if let Some(selector) = select {
            let cmp = emitted.lines().find(|l| l.contains("CMP ")).unwrap_or_default();
            assert!(cmp.contains(selector), "{condition}:\n{emitted}");
        }
        let want = exec::run(&before, &state, &run_options()).expect("runs");
        let got = exec::run(&after, &state, &run_options()).expect("runs");
        assert!(same_results(&Ok(want), &Ok(got)), "{condition}:\n{emitted}");
    }
}

/// The random programs of the differential tests contain diamonds the
/// pass converts (so `fuzz-passes` exercises it), and converting them
/// never changes their results.
#[test]
fn fires_on_random_programs() {
    let mut fired = 0;
    for seed in 0..200 {
        let program = testkit::random_program::program(seed);
        let Ok(shader) = tgsi::parse(&program.text) else { continue };
        let Ok(before) = ir::from_tgsi(&shader) else { continue };
        let mut after = before.clone();
        if !passes::select::Select::unconfigured().run(&mut after).changed {
            continue;
        }
        fired += 1;
        ir::verify::verify(&after.function).unwrap_or_else(|e| panic!("seed {seed}: {e}"));
        for round in 0..2 {
            let state_text = testkit::random_program::state(&program, round);
            let state = exec::State::parse(&state_text).expect("state");
            let (a, b) = (exec::run(&before, &state, &run_options()), exec::run(&after, &state, &run_options()));
            assert!(same_results(&a, &b), "seed {seed}: select changed the results\n{}", program.text);
        }
    }
    assert!(fired >= 10, "select fired on {fired} of 200 random programs");
}

/// For a driver that predicates short branches itself (nouveau:
/// `Tuning::predicated_branches`), only arms that compute nothing become
/// selects: an arm with a `MUL` stays a branch, one that copies a value
/// or a constant does not. Other targets convert both.
#[test]
fn predicated_branches_keep_arms_that_compute() {
    let shader = |arm: &str| {
        format!(
            "FRAG\nDCL IN[0], GENERIC[0], CONSTANT\nDCL OUT[0], COLOR\nDCL TEMP[0..1]\n\
             IMM[0] FLT32 {{1.0, 2.0, 0.0, 0.0}}\nSLT TEMP[1].x, IN[0].xxxx, IMM[0].zzzz\n\
             IF TEMP[1].xxxx\n  {arm}\nELSE\n  MOV TEMP[0], IMM[0].yyyy\nENDIF\nMOV OUT[0], TEMP[0]\nEND\n"
        )
    };
    let state = exec::State::parse("invocations 4\ninput 0 * -1 2 3 4\ninput 0 1 1 -2 0 nan\ninput 0 3 0 0 0 0\n")
        .expect("state");
    let nvc0 = target::Target::preset("nvc0").expect("a preset");
    assert!(nvc0.tuning.predicated_branches);
    for (arm, converted_for_nvc0) in [("MUL TEMP[0], IN[0], IN[0].yyyy", false), ("MOV TEMP[0], IN[0]", true)] {
        for (target, converts) in
            [(nvc0.clone(), converted_for_nvc0), (target::Target::preset("llvmpipe").expect("a preset"), true)]
        {
            let before = ir::from_tgsi(&tgsi::parse(&shader(arm)).expect("parses")).expect("builds");
            let mut after = before.clone();
            let converted = passes::select::Select::new(target.clone()).run(&mut after).stats.get("IFs converted");
            assert_eq!(converted.unwrap_or(0), u64::from(converts), "{arm} for {}", target.name());
            ir::verify::verify(&after.function).expect("valid");
            let want = exec::run(&before, &state, &run_options());
            let got = exec::run(&after, &state, &run_options());
            assert!(same_results(&want, &got), "{arm} for {}", target.name());
        }
    }
}
