//! Emission keeps meaning: every corpus shader and the TGSI emitted from
//! its IR, read back, compute the same outputs on random states, run by the
//! backend (`testkit::difftest::check_emission`). A state the backend does
//! not run the original on (what it does not execute yet, or no end within
//! the step budget) is skipped, and a shader with no such state is counted
//! as skipped. Skipped entirely when `../shared` is absent.

use testdata::corpus_files;
use testkit::{difftest, states, Rng};
use tgsi_opt::{ir, tgsi};

/// Random states per shader.
const STATES: u64 = 8;

#[test]
fn emitted_programs_compute_what_the_originals_compute() {
    let Some(paths) = corpus_files() else { return };
    let (mut checked, mut skipped) = (0, 0);
    let mut failures = Vec::new();
    for p in &paths {
        let name = p.display().to_string();
        let text = String::from_utf8_lossy(&std::fs::read(p).unwrap()).into_owned();
        let module = ir::from_tgsi(&tgsi::parse(&text).unwrap()).unwrap();
        // Seeded from the file name, so that the states do not depend on
        // where the corpus lies.
        let file = p.file_name().map(|f| f.to_string_lossy().into_owned()).unwrap_or_default();
        let mut ok_runs = 0;
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
                }
                Some(f) => {
                    failures.push(format!("{name}: {f}"));
                    break;
                }
            }
        }
        if ok_runs > 0 {
            checked += 1;
        } else {
            skipped += 1;
        }
    }
    eprintln!("{checked} shaders compared on random states, {skipped} skipped (the backend does not run them)");
    assert!(
        failures.is_empty(),
        "{} differ:\n{}",
        failures.len(),
        failures.iter().take(3).cloned().collect::<Vec<_>>().join("\n")
    );
}
