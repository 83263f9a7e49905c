//! Every shader of the shared corpus builds into IR. Skipped when
//! `../shared` is absent.

use std::path::{Path, PathBuf};

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            files(&p, out);
        } else if p.extension().is_some_and(|x| x == "tgsi") {
            out.push(p);
        }
    }
}

#[test]
fn every_corpus_shader_builds() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus");
    if !dir.is_dir() {
        eprintln!("note: {} not found; skipping", dir.display());
        return;
    }
    let mut paths = Vec::new();
    files(&dir, &mut paths);
    paths.sort();
    let mut failures = Vec::new();
    for p in &paths {
        let text = String::from_utf8_lossy(&std::fs::read(p).unwrap()).into_owned();
        let shader = tgsi::parse(&text).unwrap();
        if let Err(e) = ir::from_tgsi(&shader) {
            failures.push(format!("{}: {e}", p.display()));
        }
    }
    eprintln!("{} of {} build", paths.len() - failures.len(), paths.len());
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
