//! The `legalize-doubles` pass on hand-written cases.
//!
//! Every `tests/inputs/legalize-doubles/*.tgsi` (at the workspace root)
//! names its target in a line `; target NAME`; it is built, legalized for
//! that target and verified; the IR and the TGSI emitted after the pass
//! are snapshotted in `snapshots/legalize-doubles/`. Each case also runs
//! before and after (and from the emitted TGSI) on three pseudo-random
//! states and must give the same outputs bit for bit (NaNs aside), and
//! the emitted TGSI must use only what the target has, apart from the
//! operations the case expects to stay (`; expect ops not lowered: N`).

mod support;

use std::path::Path;

use passes::legalize_doubles::{preset, presets, LegalizeDoubles, Wide64};
use passes::Pass;
use support::*;
use testkit::{states, Rng};

/// The target a case names.
fn target(name: &str, text: &str) -> Wide64 {
    let line = text.lines().find_map(|l| l.trim().strip_prefix("; target "));
    let line = line.unwrap_or_else(|| panic!("{name}: no `; target NAME` line"));
    preset(line.trim()).unwrap_or_else(|| panic!("{name}: unknown target `{line}`")).target().wide
}

/// Runs `module` unless the backend does not execute it (DFRACEXP before
/// lowering): then `None`.
fn run(module: &ir::Module, state: &exec::State) -> Option<Result<exec::Outputs, exec::ExecError>> {
    match exec::run(module, state, &run_options()) {
        Err(exec::ExecError::Unsupported(op)) if op == "DFRACEXP" => None,
        r => Some(r),
    }
}

/// Builds, legalizes and checks one case; returns the snapshot text and
/// what its expectations found wrong.
fn case(path: &Path) -> (String, Vec<String>) {
    let name = path.file_name().map_or_else(String::new, |n| n.to_string_lossy().into_owned());
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{name}: {e}"));
    let caps = target(&name, &text);
    let pass = LegalizeDoubles::new(caps.clone());
    let shader = tgsi::parse(&text).unwrap_or_else(|e| panic!("{}", e.render(&text, &name)));
    let before = ir::from_tgsi(&shader).unwrap_or_else(|e| panic!("{name}: {e}"));
    let mut after = before.clone();
    let result = pass.run(&mut after);
    ir::verify::verify(&after.function).unwrap_or_else(|e| panic!("{name}: {e}\n{}", ir::print::print_module(&after)));
    let mut again = after.clone();
    assert!(!pass.run(&mut again).changed, "{name}: a second run changed something");

    let emitted = ir::to_tgsi(&after).unwrap_or_else(|e| panic!("{name}: {e}"));
    let printed = tgsi::print(&emitted, tgsi::Style::Exact);
    let rebuilt = tgsi::parse(&printed)
        .map(|s| ir::from_tgsi(&s))
        .unwrap_or_else(|e| panic!("{name}: {}", e.render(&printed, &name)))
        .unwrap_or_else(|e| panic!("{name}: emitted: {e}"));
    for round in 0..3 {
        let state_text = states::for_module(&before, &mut Rng::from_name(&name, round));
        let state = exec::State::parse(&state_text).unwrap_or_else(|e| panic!("{name}: {e}"));
        let b = run(&after, &state).unwrap_or_else(|| panic!("{name}: DFRACEXP left after the pass"));
        if let Some(a) = run(&before, &state) {
            assert!(same_results(&a, &b), "{name}: results changed on\n{state_text}\nbefore {a:?}\nafter {b:?}");
        }
        let c = run(&rebuilt, &state).unwrap_or_else(|| panic!("{name}: DFRACEXP in the emitted TGSI"));
        assert!(same_results(&b, &c), "{name}: the emitted TGSI computes something else on\n{state_text}\n{printed}");
    }
    let mut wrong = check_expectations(&name, &text, &result);
    wrong.extend(illegal_instructions(&name, &emitted, &caps, result.stats.get("ops not lowered").unwrap_or(0)));
    (snapshot_text(&name, "legalize-doubles", &after, &result), wrong)
}

/// The emitted instructions `caps` does not allow, beyond `allowed` left
/// unlowered: a 64-bit opcode the target lacks, or with `one-double` an
/// instruction writing two doubles.
fn illegal_instructions(name: &str, shader: &tgsi::Shader, caps: &Wide64, allowed: u64) -> Vec<String> {
    let mut lacking = 0;
    let mut wrong = Vec::new();
    for inst in shader.instructions() {
        if !caps.is_native(inst.opcode) {
            lacking += 1;
        }
        let wide = inst.opcode.dst_type().is_64bit();
        if caps.one_double && wide && inst.dst.first().is_some_and(|d| d.write_mask & 0xf == 0xf) {
            wrong.push(format!("{name}: {} writes two doubles on a one-double target", inst.opcode));
        }
    }
    if lacking > allowed {
        wrong.push(format!("{name}: {lacking} instructions the target lacks, {allowed} expected"));
    }
    wrong
}

#[test]
fn legalize_doubles_snapshots() {
    snapshot_suite("legalize-doubles", case);
}

/// Every preset's lowered opcode has at least one case.
#[test]
fn enough_cases() {
    assert!(case_count("legalize-doubles") >= 20);
}

/// `no-fp64` leaves nothing unlowered in any of the cases, whatever
/// target the case itself names.
#[test]
fn no_fp64_lowers_everything() {
    let caps = preset("no-fp64").expect("the no-fp64 preset").target().wide;
    let paths = case_paths("legalize-doubles");
    assert!(paths.len() >= 20, "{} cases", paths.len());
    for path in paths {
        let text = std::fs::read_to_string(&path).expect("a readable input");
        let shader = tgsi::parse(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let mut module = ir::from_tgsi(&shader).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let result = LegalizeDoubles::new(caps.clone()).run(&mut module);
        assert_eq!(result.stats.get("ops not lowered"), Some(0), "{}", path.display());
        assert!(!has_wide_ops(&module), "{}: a 64-bit operation is left", path.display());
    }
}

/// Whether `m` has a 64-bit operation.
fn has_wide_ops(m: &ir::Module) -> bool {
    let f = &m.function;
    let placed = f.blocks_in_order().into_iter().flat_map(|b| f.blocks[b].insts.clone());
    placed.map(|i| &f.insts[i]).any(|d| match &d.op {
        ir::Op::Alu { opcode, .. } => opcode.info().is_64bit(),
        ir::Op::Opaque { inst, .. } => inst.opcode.info().is_64bit(),
        _ => false,
    })
}

/// TGSI instructions (END excluded) emitted for the double-using shaders: with no
/// legalization, and for each target in [`presets`] order.
#[derive(Default)]
struct Sizes {
    unlowered: usize,
    per_target: Vec<usize>,
}

/// `before` legalized for every target: verified, emitted, re-parsed and
/// rebuilt, and run on `state` before, after and from the emitted TGSI.
/// For targets with no native 64-bit opcode, the emitted TGSI must have
/// none. Returns how many runs were compared, adds the emitted sizes, and
/// pushes what went wrong.
fn check_every_target(
    name: &str,
    before: &ir::Module,
    state: &exec::State,
    sizes: &mut Sizes,
    failures: &mut Vec<String>,
) -> usize {
    let mut ran = 0;
    sizes.unlowered += ir::to_tgsi(before).map_or(0, |s| tgsi_instructions(&s));
    sizes.per_target.resize(presets().count(), 0);
    for (k, p) in presets().enumerate() {
        let mut after = before.clone();
        LegalizeDoubles::new(p.target().wide).run(&mut after);
        if let Err(e) = ir::verify::verify(&after.function) {
            failures.push(format!("{name} ({}): invalid: {e}", p.name));
            continue;
        }
        let Ok(emitted) = ir::to_tgsi(&after) else {
            failures.push(format!("{name} ({}): emission failed", p.name));
            continue;
        };
        sizes.per_target[k] += tgsi_instructions(&emitted);
        if p.target().wide.native().next().is_none() && emitted.instructions().any(|i| i.opcode.info().is_64bit()) {
            failures.push(format!("{name} ({}): a 64-bit opcode is left", p.name));
        }
        let rebuilt = tgsi::parse(&tgsi::print(&emitted, tgsi::Style::Exact)).ok().and_then(|s| ir::from_tgsi(&s).ok());
        let Some(rebuilt) = rebuilt else {
            failures.push(format!("{name} ({}): the emitted TGSI does not parse and build", p.name));
            continue;
        };
        let (Some(a), Some(b), Some(c)) = (run(before, state), run(&after, state), run(&rebuilt, state)) else {
            continue;
        };
        if a.is_ok() {
            ran += 1;
            if !same_results(&a, &b) || !same_results(&a, &c) {
                failures.push(format!("{name} ({}): results changed", p.name));
            }
        }
    }
    ran
}

/// Corpus shaders with a 64-bit operation: the corpus holds none today,
/// so the conformance cases carry this test (the count is printed).
const CORPUS_FLOOR: usize = 0;

/// Conformance cases with a 64-bit operation (92 of 438).
const CONFORMANCE_FLOOR: usize = 90;

/// Every shader of the shared corpus and every conformance case (with its
/// state) that has a 64-bit operation, for every target: see
/// [`check_every_target`]. Prints the counts (`--nocapture`); skips what
/// is absent.
#[test]
fn legalize_doubles_on_the_corpus_and_conformance_cases() {
    let mut failures = Vec::new();
    let (mut shaders, mut ran) = (0, 0);
    let mut sizes = Sizes::default();
    if let Some((corpus, _, _)) = built_corpus() {
        let mut checked = 0;
        for Built { name, module, .. } in corpus.iter().filter(|b| has_wide_ops(&b.module)) {
            let state_text = states::for_module(module, &mut Rng::from_name(name, 0));
            let Ok(state) = exec::State::parse(&state_text) else {
                failures.push(format!("{name}: the generated state does not parse"));
                continue;
            };
            ran += check_every_target(name, module, &state, &mut sizes, &mut failures);
            checked += 1;
        }
        shaders += checked;
        testdata::assert_checked("legalize-doubles", "corpus shaders with 64-bit operations", checked, CORPUS_FLOOR);
    }
    // The corpus is checked even without the conformance cases.
    if let Some((dir, names)) = testdata::conformance_cases() {
        let mut checked = 0;
        for name in &names {
            let read = |ext: &str| std::fs::read_to_string(dir.join(format!("{name}.{ext}")));
            let (Ok(text), Ok(state_text)) = (read("tgsi"), read("state")) else {
                failures.push(format!("{name}: no .tgsi or no .state"));
                continue;
            };
            let module = match (tgsi::parse(&text), exec::State::parse(&state_text)) {
                (Ok(shader), Ok(state)) => ir::from_tgsi(&shader).map(|m| (m, state)),
                _ => {
                    failures.push(format!("{name}: the shader or its state does not parse"));
                    continue;
                }
            };
            let Ok((module, state)) = module else {
                failures.push(format!("{name}: does not build"));
                continue;
            };
            if has_wide_ops(&module) {
                ran += check_every_target(name, &module, &state, &mut sizes, &mut failures);
                checked += 1;
            }
        }
        shaders += checked;
        testdata::assert_checked(
            "legalize-doubles",
            "conformance cases with 64-bit operations",
            checked,
            CONFORMANCE_FLOOR,
        );
    }
    eprintln!("legalize-doubles on {shaders} shaders with 64-bit operations: {ran} runs compared");
    eprintln!("TGSI instructions emitted: {} unlowered", sizes.unlowered);
    for (p, n) in presets().zip(&sizes.per_target) {
        eprintln!("  {:<12} {n:>8} ({:.2}x)", p.name, *n as f64 / sizes.unlowered.max(1) as f64);
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
