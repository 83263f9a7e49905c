//! Arbitrary bytes as a state and a shader (split at the first `@@` line):
//! reading the state, building the IR, emitting it and running both never
//! panic or hang (a small step budget), and a shader that runs gives the
//! same outputs after emission (NaN payloads aside).
#![no_main]

use libfuzzer_sys::fuzz_target;
use tgsi_opt::{exec, ir, tgsi};

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let Some((state, module)) = testkit::fuzz_input::state_and_module(&text) else { return };
    let options = exec::RunOptions { step_budget: 20_000, lanes: 8, ..exec::RunOptions::default() };
    let Ok(out) = exec::run(&module, &state, &options) else { return };
    // Emission checked: a failure of the allocation checker is a finding.
    let emitted = match ir::to_tgsi_with(&module, &ir::EmitOptions { check: true, ..Default::default() }) {
        Ok(emitted) => emitted,
        Err(e @ ir::EmitError::Check(_)) => panic!("{e}\n{text}"),
        Err(_) => return,
    };
    let printed = tgsi::print(&emitted, tgsi::Style::Exact);
    let again = ir::from_tgsi(&tgsi::parse(&printed).expect("emitted text parses")).expect("and builds");
    let Ok(out2) = exec::run(&again, &state, &options) else { return };
    let nan = |x: u32| f32::from_bits(x).is_nan();
    for lane in 0..out.invocations() {
        for &r in out.registers() {
            let (a, b) = (out.get(r, lane).unwrap_or_default(), out2.get(r, lane).unwrap_or_default());
            assert!(
                out.is_killed(lane) || a.iter().zip(&b).all(|(&p, &q)| p == q || (nan(p) && nan(q))),
                "OUT[{r}] lane {lane}: {a:x?} vs {b:x?}\n{printed}"
            );
        }
    }
});
