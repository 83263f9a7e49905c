//! Tests of the `tgsi-opt` binary, run as a separate process.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// The bundled examples, which are written in canonical form.
const EXAMPLES: [&str; 5] = [
    "fragment_texture_branch.tgsi",
    "vertex_transform.tgsi",
    "vertex_skinning.tgsi",
    "compute_loop.tgsi",
    "fragment_redundant.tgsi",
];

fn example_path(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/shaders").join(name)
}

fn example_text(name: &str) -> String {
    let path = example_path(name);
    fs::read_to_string(&path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()))
}

/// A fresh directory for one test's files.
fn scratch_dir(test: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("cli").join(test);
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).expect("creating a scratch directory");
    dir
}

/// Runs `tgsi-opt ARGS`, feeding `stdin` to it.
fn run(args: &[&str], stdin: &[u8]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_tgsi-opt"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("starting tgsi-opt");
    let mut pipe = child.stdin.take().expect("stdin is piped");
    let input = stdin.to_vec();
    // Write from another thread so a large output cannot block the child.
    let writer = std::thread::spawn(move || {
        let _ = pipe.write_all(&input);
    });
    let output = child.wait_with_output().expect("waiting for tgsi-opt");
    writer.join().expect("stdin writer");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!stderr.contains("panicked"), "tgsi-opt {args:?} panicked:\n{stderr}");
    output
}

fn stdout(output: &Output) -> &str {
    std::str::from_utf8(&output.stdout).expect("stdout is UTF-8")
}

fn stderr(output: &Output) -> &str {
    std::str::from_utf8(&output.stderr).expect("stderr is UTF-8")
}

/// Asserts success and returns standard output.
fn success(args: &[&str], stdin: &[u8]) -> String {
    let output = run(args, stdin);
    assert!(output.status.success(), "tgsi-opt {args:?} failed ({}):\n{}", output.status, stderr(&output));
    stdout(&output).to_string()
}

fn example_state(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/states").join(name);
    path.to_str().expect("UTF-8 path").to_string()
}

/// The instructions of a TGSI text, END excluded.
fn instruction_count(text: &str) -> usize {
    text.lines().filter(|l| l.trim_start().split(':').next().is_some_and(|n| n.parse::<u32>().is_ok())).count() - 1
}

mod fmt;
mod ir_and_warnings;
mod opt;
mod reduce;
mod report;
mod run;
mod target;
mod tools;
