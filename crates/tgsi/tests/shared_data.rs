//! Checks against the shared data beside the repository (`../shared`):
//! every corpus shader parses and round-trips, and every conformance case
//! prints exactly as Mesa's `tgsi_dump` does. Skipped when `../shared` is
//! absent.

use std::path::{Path, PathBuf};
use tgsi::{parse, print, Style};

fn shared() -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared");
    if dir.is_dir() {
        Some(dir)
    } else {
        eprintln!("note: {} not found; skipping shared-data checks", dir.display());
        None
    }
}

fn files_with_ext(dir: &Path, ext: &str, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            files_with_ext(&path, ext, out);
        } else if path.extension().is_some_and(|e| e == ext) {
            out.push(path);
        }
    }
    out.sort();
}

fn read(path: &Path) -> String {
    String::from_utf8_lossy(&std::fs::read(path).expect("shared file is readable")).into_owned()
}

#[test]
fn every_corpus_shader_parses_and_round_trips() {
    let Some(shared) = shared() else { return };
    let mut files = Vec::new();
    files_with_ext(&shared.join("corpus"), "tgsi", &mut files);
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
    eprintln!("corpus: {} of {} shaders parse and round-trip", files.len() - failures.len(), files.len());
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n"));
}

#[test]
fn every_conformance_shader_prints_like_mesa() {
    let Some(shared) = shared() else { return };
    let mut files = Vec::new();
    files_with_ext(&shared.join("conformance/text"), "tgsi", &mut files);
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
    eprintln!("conformance: {} of {} dumps match byte for byte", files.len() - failures.len(), files.len());
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n"));
}

#[test]
fn every_invalid_corpus_file_is_rejected_with_a_location() {
    let Some(shared) = shared() else { return };
    let mut files = Vec::new();
    files_with_ext(&shared.join("corpus-invalid"), "tgsi", &mut files);
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
