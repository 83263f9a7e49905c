//! `reduce`: a shader shrunk while a test command still finds it
//! interesting.

use super::*;

/// A test script in `dir`: interesting when `tgsi-opt opt -O FILE` writes
/// an instruction `opcode`.
fn opcode_test(dir: &Path, opcode: &str) -> String {
    let script = dir.join("interesting.sh");
    let binary = env!("CARGO_BIN_EXE_tgsi-opt");
    fs::write(&script, format!("#!/bin/sh\n\"{binary}\" opt -O \"$1\" | grep -q ': {opcode} '\n")).unwrap();
    format!("sh {}", script.display())
}

#[test]
fn reduce_shrinks_a_shader_to_what_the_test_wants() {
    let dir = scratch_dir("reduce_opcode");
    let test = opcode_test(&dir, "MAD");
    let plasma = example_path("fragment_plasma.tgsi");
    let before = instruction_count(&fs::read_to_string(&plasma).unwrap());
    let output = run(&["reduce", "--test", &test, "-j", "1", plasma.to_str().unwrap()], b"");
    assert!(output.status.success(), "{}", stderr(&output));
    let reduced = stdout(&output).to_string();
    let after = instruction_count(&reduced);
    assert!(after <= 5 && after * 10 <= before, "{before} -> {after}:\n{reduced}");
    // What comes out is still interesting, and the same with more jobs.
    let file = dir.join("reduced.tgsi");
    fs::write(&file, &reduced).unwrap();
    let status = Command::new("sh").arg("-c").arg(format!("{test} \"$0\"")).arg(&file).status().unwrap();
    assert!(status.success(), "the result is not interesting:\n{reduced}");
    assert_eq!(success(&["reduce", "--test", &test, "-j", "2", plasma.to_str().unwrap()], b""), reduced);
    // Progress and the count of test runs go to standard error.
    let err = stderr(&output);
    assert!(
        err.contains(" instructions left (") && err.contains(&format!("reduce: {before} -> {after} instructions, ")),
        "{err}"
    );
    // -o writes the file instead.
    let out = dir.join("out.tgsi");
    success(&["reduce", "--test", &test, "-o", out.to_str().unwrap(), plasma.to_str().unwrap()], b"");
    assert_eq!(fs::read_to_string(&out).unwrap(), reduced);
}

#[test]
fn reduce_refuses_an_input_the_test_does_not_want() {
    let dir = scratch_dir("reduce_refuses");
    let test = opcode_test(&dir, "XPD");
    let shader = example_path("vertex_transform.tgsi");
    let output = run(&["reduce", "--test", &test, shader.to_str().unwrap()], b"");
    assert_eq!(output.status.code(), Some(1));
    assert!(stderr(&output).starts_with("error: reduce: the test does not find `"), "{}", stderr(&output));
    // A test that outlives --timeout counts as not interesting.
    let output = run(&["reduce", "--test", "sleep 5;", "--timeout", "0.2", shader.to_str().unwrap()], b"");
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    let output = run(&["reduce", "--test", "true", "--timeout", "-1", shader.to_str().unwrap()], b"");
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
}
