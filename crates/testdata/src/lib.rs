//! The data the tests and benchmarks read when it lies beside the checkout,
//! in `../shared/`: the corpus of real shaders and the conformance cases.
//! A user's clone has none of it; the functions then say so on standard
//! error and return `None`, and their callers skip what needs it.
//!
//! The note is one line, `skipped: <test>: ../shared/<sub> not found`,
//! written straight to the process's standard error rather than through
//! `eprintln!`, which the test harness captures and hides for passing
//! tests: a run without the data says what it did not test.
//!
//! With the environment variable [`REQUIRE_SHARED`] set to `1` a missing
//! folder is a failure instead (a panic saying which folder), so that a
//! run that must test everything (CI) cannot pass by skipping.
//!
//! ```no_run
//! if let Some(paths) = testdata::corpus_files() {
//!     for path in paths {
//!         let text = std::fs::read_to_string(&path).unwrap();
//!         assert!(text.contains("END"));
//!     }
//! }
//! ```

use std::io::Write;
use std::path::{Path, PathBuf};

mod cases;
pub use cases::{assert_checked, case_name, Exceptions};

/// The environment variable that makes missing shared data a failure:
/// set to `1`, [`shared`] panics instead of returning `None`.
pub const REQUIRE_SHARED: &str = "TGSI_OPT_REQUIRE_SHARED";

/// `../shared/<sub>` beside the workspace, when it is a folder. When it is
/// not: a panic if [`REQUIRE_SHARED`] is `1`, else `None` after a
/// `skipped:` line on standard error naming the calling test.
pub fn shared(sub: &str) -> Option<PathBuf> {
    // This crate is `crates/testdata` of the workspace.
    shared_in(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared"), sub)
}

/// [`shared`] with the shared folder at `root` instead of beside the
/// workspace (for testing the missing-data paths).
pub fn shared_in(root: &Path, sub: &str) -> Option<PathBuf> {
    let dir = root.join(sub);
    if dir.is_dir() {
        // Without the `..` steps, so that paths print plainly.
        return Some(dir.canonicalize().unwrap_or(dir));
    }
    let required = std::env::var_os(REQUIRE_SHARED).is_some_and(|v| v == "1");
    let test = std::thread::current().name().unwrap_or("main").to_string();
    let message = skip_message(&test, sub, required);
    if required {
        panic!("{message}");
    }
    // The harness captures `eprintln!` of a test thread and shows it only
    // when the test fails; a direct write to the stream is not captured, so
    // every run shows what it skipped. A failed write loses only the note.
    let _ = writeln!(std::io::stderr().lock(), "{message}");
    None
}

/// The line [`shared`] prints (or panics with) when `../shared/<sub>` is
/// missing, for test `test`.
fn skip_message(test: &str, sub: &str, required: bool) -> String {
    if required {
        format!("{test}: ../shared/{sub} not found beside the checkout, and {REQUIRE_SHARED}=1 requires it")
    } else {
        format!("skipped: {test}: ../shared/{sub} not found")
    }
}

/// Every `.tgsi` file of the shared corpus (`../shared/corpus`, folders
/// included), sorted. A corpus folder with no shader is a panic: a test
/// over it would pass on nothing.
pub fn corpus_files() -> Option<Vec<PathBuf>> {
    Some(some_cases(tgsi_files(&shared("corpus")?), "../shared/corpus"))
}

/// `cases`, or a panic naming `what` when there are none.
fn some_cases<T>(cases: Vec<T>, what: &str) -> Vec<T> {
    assert!(!cases.is_empty(), "{what} holds no .tgsi file: a test over it would check nothing");
    cases
}

/// The folder of the backend's conformance cases
/// (`../shared/conformance/exec`) and the cases' names, sorted: case
/// `NAME` is `NAME.tgsi` with its `NAME.state` and `NAME.expected`.
pub fn conformance_cases() -> Option<(PathBuf, Vec<String>)> {
    let dir = shared("conformance/exec")?;
    let names = tgsi_files(&dir).iter().filter_map(|p| Some(p.file_stem()?.to_str()?.to_string())).collect();
    Some((dir, some_cases(names, "../shared/conformance/exec")))
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cases_found_pass_through() {
        assert_eq!(some_cases(vec![1, 2], "here"), [1, 2]);
    }

    #[test]
    #[should_panic(expected = "holds no .tgsi file")]
    fn no_case_is_a_failure() {
        some_cases(Vec::<u8>::new(), "../shared/corpus");
    }
}
