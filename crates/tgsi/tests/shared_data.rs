//! Checks against the shared data beside the repository (`../shared`):
//! every corpus shader parses and round-trips, and every conformance case
//! prints exactly as Mesa's `tgsi_dump` does. Skipped when `../shared` is
//! absent.

use std::path::Path;
use tgsi::{parse, print, Style};

fn read(path: &Path) -> String {
    String::from_utf8_lossy(&std::fs::read(path).expect("shared file is readable")).into_owned()
}

#[test]
fn every_corpus_shader_parses_and_round_trips() {
    let Some(files) = testdata::corpus_files() else { return };
    assert!(!files.is_empty());
    let mut failures = Vec::new();
    for path in &files {
        let text = read(path);
        let shader = match parse(&text) {
            Ok(s) => s,
            Err(e) => {
                failures.push(format!("{}: {e}", path.display()));
                continue;
            }
        };
        for style in [Style::Exact, Style::Mesa] {
            let printed = print(&shader, style);
            match parse(&printed) {
                Ok(again) if style == Style::Exact && again != shader => {
                    failures.push(format!("{}: exact print does not round-trip", path.display()))
                }
                Ok(again) if print(&again, style) != printed => {
                    failures.push(format!("{}: {style:?} print is not a fixed point", path.display()))
                }
                Ok(_) => {}
                Err(e) => failures.push(format!("{}: {style:?} print does not parse: {e}", path.display())),
            }
        }
    }
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n"));
    // Of 538.
    testdata::assert_checked("every_corpus_shader_parses_and_round_trips", "corpus shaders", files.len(), 500);
}

#[test]
fn every_conformance_shader_prints_like_mesa() {
    let Some(dir) = testdata::shared("conformance/text") else { return };
    let files = testdata::tgsi_files(&dir);
    assert!(!files.is_empty());
    let mut failures = Vec::new();
    for path in &files {
        let text = read(path);
        let expected = read(&path.with_extension("dump"));
        match parse(&text) {
            Ok(shader) => {
                let printed = print(&shader, Style::Mesa);
                if printed != expected {
                    let diff = printed
                        .lines()
                        .zip(expected.lines())
                        .find(|(a, b)| a != b)
                        .map(|(a, b)| format!("\n    ours: {a}\n    mesa: {b}"))
                        .unwrap_or_else(|| " (length differs)".into());
                    failures.push(format!("{}{diff}", path.display()));
                }
            }
            Err(e) => failures.push(format!("{}: {e}", path.display())),
        }
    }
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n"));
    // Of 377.
    testdata::assert_checked("every_conformance_shader_prints_like_mesa", "dumps", files.len(), 370);
}

#[test]
fn every_invalid_corpus_file_is_rejected_with_a_location() {
    let Some(dir) = testdata::shared("corpus-invalid") else { return };
    let files = testdata::tgsi_files(&dir);
    // The folder holds one.
    testdata::assert_checked("every_invalid_corpus_file_is_rejected_with_a_location", "files", files.len(), 1);
    for path in &files {
        let text = read(path);
        match parse(&text) {
            Ok(_) => panic!("{} should be rejected", path.display()),
            Err(e) => {
                assert!(e.span.line >= 1 && e.span.column >= 1);
                let rendered = e.render(&text, &path.display().to_string());
                eprintln!("{rendered}");
                assert!(rendered.contains('^'));
            }
        }
    }
}
