//! Every state and expected result of the conformance data beside the
//! repository (`../shared/conformance/exec`): each state parses, and each
//! `.expected` file reads back and writes out byte for byte. Skipped when
//! that folder is absent.

use std::path::Path;

use exec::{Outputs, State};
use testdata::files_with_extension;

fn read(path: &Path) -> String {
    String::from_utf8_lossy(&std::fs::read(path).expect("shared file is readable")).into_owned()
}

#[test]
fn every_conformance_state_parses() {
    let Some(dir) = testdata::shared("conformance/exec") else { return };
    let files = files_with_extension(&dir, "state");
    // 438 today.
    testdata::assert_checked("every_conformance_state_parses", "states", files.len(), 430);
    let mut failures = Vec::new();
    for path in &files {
        let text = read(path);
        if let Err(e) = State::parse(&text) {
            failures.push(e.render(&text, &path.display().to_string()));
        }
    }
    eprintln!("conformance: {} of {} states parse", files.len() - failures.len(), files.len());
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n"));
}

#[test]
fn every_conformance_expected_round_trips() {
    let Some(dir) = testdata::shared("conformance/exec") else { return };
    let files = files_with_extension(&dir, "expected");
    testdata::assert_checked("every_conformance_expected_round_trips", "expected results", files.len(), 430);
    let mut failures = Vec::new();
    for path in &files {
        let text = read(path);
        match Outputs::parse(&text) {
            Ok(outputs) if outputs.write() != text => {
                failures.push(format!("{}: written text differs from the file", path.display()))
            }
            Ok(outputs) => {
                // The result has one lane per invocation of its state.
                let state = State::parse(&read(&path.with_extension("state")));
                if let Ok(state) = state {
                    if outputs.invocations() != state.invocations() {
                        failures.push(format!(
                            "{}: {} lanes, but the state has {} invocations",
                            path.display(),
                            outputs.invocations(),
                            state.invocations()
                        ));
                    }
                }
            }
            Err(e) => failures.push(e.render(&text, &path.display().to_string())),
        }
    }
    eprintln!("conformance: {} of {} expected results round-trip", files.len() - failures.len(), files.len());
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n"));
}
