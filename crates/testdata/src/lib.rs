//! The data the tests and benchmarks read when it lies beside the checkout,
//! in `../shared/`: the corpus of real shaders and the conformance cases.
//! A user's clone has none of it; the functions then say so on standard
//! error and return `None`, and their callers skip what needs it.
//!
//! ```no_run
//! if let Some(paths) = testdata::corpus_files() {
//!     for path in paths {
//!         let text = std::fs::read_to_string(&path).unwrap();
//!         assert!(text.contains("END"));
//!     }
//! }
//! ```

use std::path::{Path, PathBuf};

/// `../shared/<sub>` beside the workspace, when it is a folder; `None`
/// after a note when it is not.
pub fn shared(sub: &str) -> Option<PathBuf> {
    // This crate is `crates/testdata` of the workspace.
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared").join(sub);
    if dir.is_dir() {
        // Without the `..` steps, so that paths print plainly.
        Some(dir.canonicalize().unwrap_or(dir))
    } else {
        eprintln!("note: {} not found; skipping", dir.display());
        None
    }
}

/// Every `.tgsi` file of the shared corpus (`../shared/corpus`, folders
/// included), sorted.
pub fn corpus_files() -> Option<Vec<PathBuf>> {
    Some(tgsi_files(&shared("corpus")?))
}

/// The folder of the backend's conformance cases
/// (`../shared/conformance/exec`) and the cases' names, sorted: case
/// `NAME` is `NAME.tgsi` with its `NAME.state` and `NAME.expected`.
pub fn conformance_cases() -> Option<(PathBuf, Vec<String>)> {
    let dir = shared("conformance/exec")?;
    let names = tgsi_files(&dir).iter().filter_map(|p| Some(p.file_stem()?.to_str()?.to_string())).collect();
    Some((dir, names))
}

/// Every `.tgsi` file under `dir`, in its folders too, sorted.
pub fn tgsi_files(dir: &Path) -> Vec<PathBuf> {
    files_with_extension(dir, "tgsi")
}

/// Every file named `*.EXT` under `dir` (`ext` without its dot), in its
/// folders too, sorted; none when `dir` cannot be read.
pub fn files_with_extension(dir: &Path, ext: &str) -> Vec<PathBuf> {
    let mut paths = Vec::new();
    let mut folders = vec![dir.to_path_buf()];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                folders.push(path);
            } else if path.extension().is_some_and(|x| x == ext) {
                paths.push(path);
            }
        }
    }
    paths.sort();
    paths
}
