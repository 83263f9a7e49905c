//! What a run without `../shared` shows: each skipping test prints a line
//! the harness does not capture, and `TGSI_OPT_REQUIRE_SHARED=1` turns the
//! skip into a failure. Each check runs this test binary again as a child
//! process, on [`probe`] alone, the way `cargo test` runs it.

use std::path::Path;
use std::process::{Command, Output};

/// Set in the child run so that [`probe`] acts; it does nothing otherwise.
const PROBE: &str = "TESTDATA_MISSING_PROBE";

/// Looks for shared data in a folder that does not exist.
#[test]
fn probe() {
    if std::env::var_os(PROBE).is_some() {
        let missing = Path::new(env!("CARGO_TARGET_TMPDIR")).join("no-such-shared-folder");
        assert!(testdata::shared_in(&missing, "corpus").is_none());
    }
}

/// Runs [`probe`] in a child, captured as `cargo test` captures it, with
/// `TGSI_OPT_REQUIRE_SHARED` set to `require` (unset when `None`).
fn run_probe(require: Option<&str>) -> Output {
    let mut command = Command::new(std::env::current_exe().expect("test binary path"));
    command.args(["probe", "--exact", "--test-threads", "1"]).env(PROBE, "1");
    match require {
        Some(value) => command.env(testdata::REQUIRE_SHARED, value),
        None => command.env_remove(testdata::REQUIRE_SHARED),
    };
    command.output().expect("run the test binary")
}

#[test]
fn a_skip_is_shown_though_the_test_passes() {
    let out = run_probe(None);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "stdout:\n{stdout}\nstderr:\n{stderr}");
    assert!(stdout.contains("test probe ... ok"), "stdout:\n{stdout}");
    assert!(stderr.contains("skipped: probe: ../shared/corpus not found\n"), "stderr:\n{stderr}");
}

#[test]
fn require_shared_turns_a_skip_into_a_failure() {
    let out = run_probe(Some("1"));
    let stderr = String::from_utf8_lossy(&out.stderr);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(!out.status.success(), "stdout:\n{stdout}\nstderr:\n{stderr}");
    assert!(stdout.contains("test probe ... FAILED"), "stdout:\n{stdout}");
    assert!(
        stdout.contains(
            "probe: ../shared/corpus not found beside the checkout, and TGSI_OPT_REQUIRE_SHARED=1 requires it"
        ),
        "stdout:\n{stdout}"
    );
    assert!(!stderr.contains("skipped:"), "stderr:\n{stderr}");
}

#[test]
fn require_shared_other_than_1_still_skips() {
    let out = run_probe(Some("0"));
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("skipped: probe:"));
}
