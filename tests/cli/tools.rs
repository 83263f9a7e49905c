//! Many files at once, `fuzz-passes`, `check`, `legalize-doubles` and
//! `check-doubles`.

use super::*;

#[test]
fn opt_writes_many_files_into_a_directory_the_same_with_any_number_of_jobs() {
    let dir = scratch_dir("opt_many");
    let paths: Vec<PathBuf> = EXAMPLES.iter().map(|name| example_path(name)).collect();
    let files: Vec<&str> = paths.iter().map(|p| p.to_str().unwrap()).collect();
    for jobs in ["1", "2", "0"] {
        let out = dir.join(format!("jobs{jobs}"));
        let mut args = vec!["opt", "-O", "--jobs", jobs, "--out-dir", out.to_str().unwrap()];
        args.extend(&files);
        success(&args, b"");
        for (name, path) in EXAMPLES.iter().zip(&files) {
            let written = fs::read_to_string(out.join(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(written, success(&["opt", "-O", path], b""), "{name} with --jobs {jobs}");
        }
    }
    // Inputs keep their paths below the directory holding them all, so
    // files of one name in two directories do not collide.
    for sub in ["a", "b"] {
        fs::create_dir_all(dir.join("in").join(sub)).unwrap();
        fs::write(dir.join("in").join(sub).join("same.tgsi"), example_text(EXAMPLES[0])).unwrap();
    }
    let (a, b) = (dir.join("in/a/same.tgsi"), dir.join("in/b/same.tgsi"));
    let nested = dir.join("nested");
    success(&["opt", "--out-dir", nested.to_str().unwrap(), a.to_str().unwrap(), b.to_str().unwrap()], b"");
    assert!(nested.join("a/same.tgsi").is_file() && nested.join("b/same.tgsi").is_file());
    // Other formats get their own extension.
    let ir = dir.join("ir");
    success(&["opt", "--emit=ir", "--out-dir", ir.to_str().unwrap(), files[0]], b"");
    assert!(ir.join(EXAMPLES[0].replace(".tgsi", ".ir")).is_file());
}

#[test]
fn opt_with_many_files_reports_every_failure_and_usage_errors() {
    let dir = scratch_dir("opt_many_errors");
    let bad = dir.join("bad.tgsi");
    fs::write(&bad, "FRAG\nMOV OUT[0], IN[0]\nBOGUS\nEND\n").unwrap();
    let good = dir.join(EXAMPLES[0]);
    fs::write(&good, example_text(EXAMPLES[0])).unwrap();
    let out = dir.join("out");
    let output = run(&["opt", "--out-dir", out.to_str().unwrap(), bad.to_str().unwrap(), good.to_str().unwrap()], b"");
    assert_eq!(output.status.code(), Some(1));
    let err = stderr(&output);
    assert!(err.contains("bad.tgsi:3:1") && err.ends_with("error: 1 of 2 files failed\n"), "{err}");
    assert!(out.join(EXAMPLES[0]).is_file(), "the good file is still written");
    // Several files need a directory; two files of one name would collide.
    let output = run(&["opt", bad.to_str().unwrap(), good.to_str().unwrap()], b"");
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("need --out-dir"), "{}", stderr(&output));
    let output = run(&["opt", "--out-dir", out.to_str().unwrap(), good.to_str().unwrap(), good.to_str().unwrap()], b"");
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("would both be written"), "{}", stderr(&output));
}

#[test]
fn fuzz_passes_checks_a_few_programs_and_prints_a_summary() {
    let dir = scratch_dir("fuzz_passes");
    let out_dir = dir.join("failures");
    let out_arg = out_dir.to_str().expect("UTF-8 path");
    let out = success(&["fuzz-passes", "--count", "6", "--seed", "3", "--jobs", "2", "--out-dir", out_arg], b"");
    let pipelines = testkit::difftest::pipelines().len();
    for line in ["programs: 6\n", &format!("pass runs: {}\n", 6 * pipelines), "differences: 0\n", "errors: 0\n"] {
        assert!(out.contains(line), "no `{line}` in:\n{out}");
    }
    assert!(out.contains("verifier failures: 0\nerrors: 0\nlarger than the program: "), "{out}");
    assert!(out.contains(" (-O0), ") && out.contains(" (-O1)\nelapsed: "), "{out}");
    // Nothing failed, so nothing was written.
    assert!(!out_dir.exists());
}

#[test]
fn fuzz_passes_prints_programs_that_run() {
    let dir = scratch_dir("fuzz_passes_print");
    let out = success(&["fuzz-passes", "--count", "2", "--seed", "10", "--print"], b"");
    let (first, _) = out.split_once("# state 0 of seed 10\n").expect("a state header");
    let program = first.strip_prefix("# seed 10\n").expect("a program header");
    assert_eq!(program, testkit::random_program::program(10).text);
    let shader = dir.join("seed10.tgsi");
    fs::write(&shader, program).expect("writing the program");
    let state = dir.join("seed10.state");
    fs::write(&state, testkit::random_program::state(&testkit::random_program::program(10), 0)).expect("state");
    let (shader, state) = (shader.to_str().expect("UTF-8"), state.to_str().expect("UTF-8"));
    let plain = success(&["run", shader, "--state", state], b"");
    assert_eq!(success(&["run", shader, "--state", state, "-O"], b""), plain);
    let bad = run(&["fuzz-passes", "--count", "many"], b"");
    assert_eq!(bad.status.code(), Some(2), "{}", stderr(&bad));
}

/// A shader with a DDIV and a DSQRT of its inputs.
const DOUBLES: &str = "VERT\nDCL IN[0]\nDCL IN[1]\nDCL OUT[0], GENERIC[0]\nDCL TEMP[0]\n\
                       DDIV TEMP[0].xy, IN[0].xyxy, IN[1].xyxy\nDSQRT TEMP[0].zw, IN[0].xyxy\nMOV OUT[0], TEMP[0]\nEND\n";

#[test]
fn legalize_doubles_needs_a_target() {
    let output = run(&["opt", "--passes=legalize-doubles"], DOUBLES.as_bytes());
    assert_eq!(output.status.code(), Some(2));
    let err = stderr(&output);
    assert!(err.contains("needs a target") && err.contains("no-fp64-div, fp64-basic"), "{err}");
    let output = run(&["opt", "--passes=legalize-doubles", "--target=gpu"], DOUBLES.as_bytes());
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("unknown target `gpu`"), "{}", stderr(&output));
    let output = run(&["opt", "--passes=legalize-doubles", "--caps=DADD,ADD"], DOUBLES.as_bytes());
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("unknown capability `ADD`"), "{}", stderr(&output));
}

#[test]
fn legalize_doubles_for_a_target_keeps_the_results() {
    let dir = scratch_dir("legalize_doubles_for_a_target");
    let shader = dir.join("d.tgsi");
    let state = dir.join("d.state");
    fs::write(&shader, DOUBLES).expect("writing the shader");
    let lines: String = (0..8).map(|l| format!("input 0 {l} 0x{:08x} 0x4{l}f00000 0 0\n", l * 977)).collect();
    fs::write(&state, format!("invocations 8\ninput 1 * 0 0x40080000 0 0\n{lines}")).expect("writing the state");
    let (shader, state) = (shader.to_str().expect("UTF-8"), state.to_str().expect("UTF-8"));
    let plain = success(&["run", shader, "--state", state], b"");
    for target in ["no-fp64-div", "fp64-basic", "one-double"] {
        let flag = format!("--target={target}");
        let lowered = success(&["run", shader, "--state", state, "--passes=legalize-doubles", &flag], b"");
        assert_eq!(lowered, plain, "{target}");
    }
    let caps = success(&["opt", "--passes=legalize-doubles", "--caps=fp64-basic", "--stats", shader], b"");
    assert!(!caps.contains("DDIV") && !caps.contains("DSQRT") && caps.contains("DFMA"), "{caps}");
    let output = run(&["opt", "--passes=legalize-doubles", "--target=no-fp64-div", "--stats", shader], b"");
    assert!(stderr(&output).contains("   2  legalize-doubles  - ops lowered\n"), "{}", stderr(&output));
}

#[test]
fn check_doubles_reports_a_table_per_target() {
    let out = success(&["check-doubles", "--target=no-fp64-div", "--count", "2000", "--batch", "512"], b"");
    assert!(out.starts_with("target no-fp64-div\n"), "{out}");
    for op in ["DDIV", "DRCP", "DSQRT", "DRSQ"] {
        let line = out.lines().find(|l| l.split_whitespace().next() == Some(op));
        // op, count, max ulp, mismatches, not lowered.
        let fields: Vec<&str> = line.map(|l| l.split_whitespace().collect()).unwrap_or_default();
        assert_eq!(fields.get(1..5), Some(&["2000", "0", "0", "0"][..]), "{out}");
    }
    let output = run(&["check-doubles", "--target=nope"], b"");
    assert_eq!(output.status.code(), Some(2));
}

#[test]
fn check_finds_no_difference_in_the_passes_on_the_examples() {
    for name in EXAMPLES {
        let out = success(&["check", "--count", "4", example_path(name).to_str().unwrap()], b"");
        assert!(out.starts_with("no difference: "), "{name}: {out}");
        assert!(
            out.contains("(constfold, dce, select, combine, coalesce, dce, group-stores), then the emitted TGSI"),
            "{name}: {out}"
        );
    }
    // One state of the user's, and one pass.
    let shader = example_path("fragment_redundant.tgsi");
    let state = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/states/fragment_redundant.state");
    let out = success(&["check", shader.to_str().unwrap(), "--passes=dce", "--state", state.to_str().unwrap()], b"");
    assert_eq!(out, "no difference: 1 state(s), 1 pass run(s) (dce), then the emitted TGSI\n");
}

#[test]
fn check_usage_errors() {
    let shader = example_path("fragment_redundant.tgsi");
    let output = run(&["check", shader.to_str().unwrap(), "--passes=bogus"], b"");
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("unknown pass `bogus`"), "{}", stderr(&output));
    let output = run(&["check", shader.to_str().unwrap(), "--state", "x.state", "--count", "3"], b"");
    assert_eq!(output.status.code(), Some(2));
    let output = run(&["check", shader.to_str().unwrap(), "--count", "0"], b"");
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("at least 1"), "{}", stderr(&output));
    // A shader that runs on no state cannot be checked.
    let dir = scratch_dir("check_endless");
    let endless = dir.join("endless.tgsi");
    fs::write(&endless, "FRAG\nDCL OUT[0], COLOR\nBGNLOOP\nENDLOOP\nEND\n").unwrap();
    let output = run(&["check", endless.to_str().unwrap(), "--count", "1"], b"");
    assert_eq!(output.status.code(), Some(1));
    assert!(
        stderr(&output).starts_with("error: check: the unoptimized shader runs on none of the states"),
        "{}",
        stderr(&output)
    );
}
