//! Emission keeps meaning: every corpus shader and the TGSI emitted from
//! its IR, read back, compute the same outputs on random states, run by the
//! backend (`testkit::difftest::check_emission`). A state the backend does
//! not run the original on (what it does not execute yet, or no end within
//! the step budget) is skipped; a shader with no such state must be listed
//! in [`NOT_RUN`] with why. Skipped entirely when `../shared` is absent.

use testdata::{case_name, corpus_files, Exceptions};
use testkit::{difftest, states, Rng};
use tgsi_opt::{ir, tgsi};

/// Random states per shader.
const STATES: u64 = 8;

/// Corpus shaders the backend runs on none of their random states, so
/// that nothing of their emission is compared, and why.
const NOT_RUN: &[(&str, &str)] = &[];

/// Shaders compared; the corpus holds 538.
const FLOOR: usize = 500;

#[test]
fn emitted_programs_compute_what_the_originals_compute() {
    let Some(paths) = corpus_files() else { return };
    let mut checked = 0;
    let mut exceptions = Exceptions::new("emission_executes", NOT_RUN);
    let mut failures = Vec::new();
    for p in &paths {
        let name = case_name(p);
        let text = String::from_utf8_lossy(&std::fs::read(p).unwrap_or_else(|e| panic!("{name}: {e}"))).into_owned();
        let shader = tgsi::parse(&text).unwrap_or_else(|e| panic!("{}", e.render(&text, &name)));
        let module = ir::from_tgsi(&shader).unwrap_or_else(|e| panic!("{name}: {e}"));
        // Seeded from the file name, so that the states do not depend on
        // where the corpus lies.
        let file = p.file_name().map(|f| f.to_string_lossy().into_owned()).unwrap_or_default();
        let mut ok_runs = 0;
        let (mut not_run, mut differs) = (String::new(), false);
        for round in 0..STATES {
            let state = states::for_module(&module, &mut Rng::from_name(&file, round));
            let report = difftest::check_emission(round, &text, &[state]);
            match report.findings.first() {
                None => ok_runs += 1,
                // The original does not run on this state: nothing to compare.
                Some(f) if f.pipeline == "generator" && f.stage == "unoptimized run" => {
                    if std::env::var_os("SHOW_SKIPPED").is_some() {
                        eprintln!("skipped {name}, state {round}: {}", f.detail);
                    }
                    not_run = f.detail.clone();
                }
                Some(f) => {
                    failures.push(format!("{name}: {f}"));
                    differs = true;
                    break;
                }
            }
        }
        if ok_runs > 0 {
            checked += 1;
        } else if !differs {
            exceptions.skip(&name, format!("runs on no state: {not_run}"));
        }
    }
    assert!(
        failures.is_empty(),
        "{} differ:\n{}",
        failures.len(),
        failures.iter().take(3).cloned().collect::<Vec<_>>().join("\n")
    );
    exceptions.finish("shaders compared on random states", checked, FLOOR);
}
