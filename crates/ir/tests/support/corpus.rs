//! The shared corpus of real shaders (`../shared/corpus`), when present.

use std::path::{Path, PathBuf};

/// Every `.tgsi` file of the shared corpus, sorted; `None` (after a note)
/// when the shared folder is absent, as in a user's clone.
pub fn corpus_files() -> Option<Vec<PathBuf>> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus");
    if !dir.is_dir() {
        eprintln!("note: {} not found; skipping", dir.display());
        return None;
    }
    let mut paths = Vec::new();
    files(&dir, &mut paths);
    paths.sort();
    Some(paths)
}

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
