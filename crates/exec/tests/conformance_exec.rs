//! Every case of `../shared/conformance/exec/` run by the backend and
//! compared with what Mesa's interpreter printed: bits equal, or both NaN,
//! or within 4 ulp (the allowance for transcendental results); the same
//! lanes killed. Cases using something the backend does not execute yet
//! are counted and skipped. Every case must also give the same results
//! with 4, 8, 16 and 64 lanes a batch, on the JIT and on the interpreter
//! (where the JIT runs), and the TGSI emitted from its IR
//! must give exactly the same outputs as the original. Skipped entirely
//! when the folder is absent.

mod support {
    pub mod compare;
}

use exec::{Backend, ExecError, Executable, Outputs, RunOptions, State};
use support::compare::same;
use testdata::Exceptions;

/// How far apart two f32 bit patterns are, in units in the last place.
fn ulp_distance(a: u32, b: u32) -> u64 {
    let key = |x: u32| if x & 0x8000_0000 != 0 { -((x & 0x7fff_ffff) as i64) } else { x as i64 };
    key(a).abs_diff(key(b))
}

fn is_nan(x: u32) -> bool {
    f32::from_bits(x).is_nan()
}

/// Differences between `got` and `want`, as (exact, close, messages).
fn compare(got: &Outputs, want: &Outputs) -> (usize, usize, Vec<String>) {
    let (mut exact, mut close, mut diffs) = (0, 0, Vec::new());
    if got.registers() != want.registers() || got.invocations() != want.invocations() {
        diffs.push(format!("registers {:?} vs {:?}", got.registers(), want.registers()));
        return (exact, close, diffs);
    }
    for lane in 0..want.invocations() {
        if got.is_killed(lane) != want.is_killed(lane) {
            diffs.push(format!("lane {lane}: killed {} vs {}", got.is_killed(lane), want.is_killed(lane)));
            continue;
        }
        if want.is_killed(lane) {
            continue;
        }
        for &r in want.registers() {
            let (g, w) = (got.get(r, lane).unwrap_or_default(), want.get(r, lane).unwrap_or_default());
            for c in 0..4 {
                if g[c] == w[c] || (is_nan(g[c]) && is_nan(w[c])) {
                    exact += 1;
                } else if ulp_distance(g[c], w[c]) <= 4 {
                    close += 1;
                } else {
                    diffs.push(format!("OUT[{r}] lane {lane} chan {c}: 0x{:08x} vs 0x{:08x}", g[c], w[c]));
                }
            }
        }
    }
    (exact, close, diffs)
}

#[test]
fn conformance_cases_match_mesa() {
    let Some((dir, names)) = testdata::conformance_cases() else { return };
    let (mut cases, mut matched, mut skipped) = (0, 0, Vec::new());
    let mut exceptions = Exceptions::new("conformance_cases_match_mesa", NOT_RUN);
    let (mut exact, mut close) = (0, 0);
    let mut failures = Vec::new();
    for name in &names {
        let read = |ext: &str| std::fs::read_to_string(dir.join(format!("{name}.{ext}")));
        let (Ok(text), Ok(state), Ok(expected)) = (read("tgsi"), read("state"), read("expected")) else {
            failures.push(format!("{name}: no .tgsi, .state or .expected"));
            continue;
        };
        cases += 1;
        let shader = tgsi::parse(&text).unwrap_or_else(|e| panic!("{name}: {}", e.render(&text, name)));
        let module = match ir::from_tgsi(&shader) {
            Ok(m) => m,
            Err(e) => {
                skipped.push(format!("{name}: {e}"));
                exceptions.skip(name, e);
                continue;
            }
        };
        let state = State::parse(&state).unwrap_or_else(|e| panic!("{name}: {}", e.render(&state, name)));
        let want = Outputs::parse(&expected).unwrap_or_else(|e| panic!("{name}: {e}"));
        let got = match exec::run(&module, &state, &RunOptions::default()) {
            Ok(out) => out,
            Err(e @ (ExecError::Unsupported(_) | ExecError::UnsupportedAlu { .. })) => {
                skipped.push(format!("{name}: {e}"));
                exceptions.skip(name, e);
                continue;
            }
            Err(e) => {
                failures.push(format!("{name}: {e}"));
                continue;
            }
        };
        // Neither batching nor the tier may change any result, to the bit.
        for backend in Backend::ALL.into_iter().filter(|b| b.available().is_ok()) {
            let Ok(executable) = Executable::compile_with(&module, backend) else {
                failures.push(format!("{name}: does not compile for {backend}"));
                continue;
            };
            for lanes in [4, 8, 16, 64] {
                let other = executable.run(&state, &RunOptions { lanes, ..RunOptions::default() });
                // Bit for bit, NaNs included (one canonical NaN).
                if !other.as_ref().is_ok_and(|other| *other == got) {
                    failures.push(format!("{name}: --backend {backend} --lanes {lanes} gives other results"));
                }
            }
        }
        let (e, c, diffs) = compare(&got, &want);
        exact += e;
        close += c;
        if diffs.is_empty() {
            matched += 1;
        } else {
            failures.push(format!("{name}: {} differences, first: {}", diffs.len(), diffs[0]));
        }
    }
    eprintln!(
        "conformance exec: {matched} of {cases} cases match ({} skipped, {} differ); channels: {exact} exact, {close} within 4 ulp",
        skipped.len(),
        failures.len()
    );
    let mut reasons: Vec<String> =
        skipped.iter().map(|s| s.split_once(": ").map_or(s.clone(), |(_, r)| r.to_string())).collect();
    reasons.sort();
    reasons.dedup();
    eprintln!("skip reasons: {}", reasons.join("; "));
    assert!(failures.is_empty(), "{} cases differ:\n{}", failures.len(), failures.join("\n"));
    exceptions.finish("cases matching Mesa", matched, MATCHED_FLOOR);
}

/// Conformance cases the backend does not run, and why.
const NOT_RUN: &[(&str, &str)] = &[];

/// Cases that match Mesa's results (438 of 438).
const MATCHED_FLOOR: usize = 430;

/// Emission keeps meaning: every case, rebuilt from the TGSI emitted from
/// its IR, gives exactly the outputs of the original (NaN payloads aside).
#[test]
fn emitted_conformance_shaders_give_the_same_outputs() {
    let Some((dir, names)) = testdata::conformance_cases() else { return };
    let (mut identical, mut failures) = (0, Vec::new());
    for name in &names {
        let read = |ext: &str| std::fs::read_to_string(dir.join(format!("{name}.{ext}")));
        let (Ok(text), Ok(state)) = (read("tgsi"), read("state")) else {
            failures.push(format!("{name}: no .tgsi or no .state"));
            continue;
        };
        let state = State::parse(&state).unwrap_or_else(|e| panic!("{name}: {}", e.render(&state, name)));
        let original = ir::from_tgsi(&tgsi::parse(&text).unwrap()).unwrap();
        let emitted_text = tgsi::print(&ir::to_tgsi(&original).unwrap(), tgsi::Style::Exact);
        let emitted = ir::from_tgsi(&tgsi::parse(&emitted_text).unwrap()).unwrap();
        let options = RunOptions::default();
        let (Ok(a), Ok(b)) = (exec::run(&original, &state, &options), exec::run(&emitted, &state, &options)) else {
            failures.push(format!("{name}: does not run"));
            continue;
        };
        if same(&a, &b) {
            identical += 1;
        } else {
            failures.push(format!("{name}: outputs differ"));
        }
    }
    assert!(failures.is_empty(), "{} cases differ:\n{}", failures.len(), failures.join("\n"));
    // Of 438; every case runs.
    testdata::assert_checked("emitted_conformance_shaders_give_the_same_outputs", "cases", identical, 430);
}
