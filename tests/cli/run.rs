//! `run` and `bench`: outputs, formats, errors, passes before a run.

use super::*;

#[test]
fn run_prints_the_outputs_of_every_invocation() {
    let shader = example_path("vertex_transform.tgsi");
    let state = example_state("vertex_transform.state");
    let out = success(&["run", shader.to_str().unwrap(), "--state", &state], b"");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 8, "{out}");
    // Lane 0: (1, 1, 0, 1) scaled by (2, 3, 1, 1); IN[1] * 0.5 + 0.5.
    assert_eq!(lines[0], "output 0 0 0x40000000 0x40400000 0x00000000 0x3f800000");
    assert_eq!(lines[1], "output 1 0 0x00000000 0x3f000000 0x3f800000 0x3f400000");
    assert_eq!(lines[6], "output 0 3 0x41000000 0xc0c00000 0x3f800000 0x40000000");
    for lanes in ["4", "8", "16"] {
        assert_eq!(success(&["run", shader.to_str().unwrap(), "--state", &state, "--lanes", lanes], b""), out);
    }
    // The shader may come from standard input.
    assert_eq!(success(&["run", "-", "--state", &state], example_text("vertex_transform.tgsi").as_bytes()), out);
}

#[test]
fn the_redundant_example_shrinks_under_o1_with_the_same_results() {
    let shader = example_path("fragment_redundant.tgsi");
    let shader = shader.to_str().expect("UTF-8 path");
    let output = run(&["opt", "-O", "--stats", shader], b"");
    assert!(output.status.success(), "{}", stderr(&output));
    assert_eq!(instruction_count(&example_text("fragment_redundant.tgsi")), 12);
    // Dead code goes, the constant and the multiply by it fold away, and
    // the repeated DP3 and the broadcast MUL are computed once.
    assert_eq!(instruction_count(stdout(&output)), 6, "{}", stdout(&output));
    let err = stderr(&output);
    for pass in ["constfold  - ops folded", "dce        - values removed", "coalesce   - values merged"] {
        assert!(err.lines().any(|l| l.ends_with(pass)), "no `{pass}` in:\n{err}");
    }
    let state = example_state("fragment_redundant.state");
    let plain = success(&["run", shader, "--state", &state], b"");
    assert_eq!(plain.lines().count(), 4, "{plain}");
    assert_eq!(success(&["run", "-O", shader, "--state", &state], b""), plain);
}

#[test]
fn run_prints_words_as_floats_on_request() {
    let shader = example_path("vertex_transform.tgsi");
    let shader = shader.to_str().expect("UTF-8 path");
    let state = example_state("vertex_transform.state");
    let hex = success(&["run", shader, "--state", &state], b"");
    // Hex is the default, and the exchange format stays as it is.
    assert_eq!(success(&["run", shader, "--state", &state, "--format=hex"], b""), hex);
    let float = success(&["run", shader, "--state", &state, "--format=float"], b"");
    let both = success(&["run", shader, "--state", &state, "--format", "both"], b"");
    assert_eq!(float.lines().count(), hex.lines().count());
    assert_eq!(float.lines().next(), Some("output 0 0 2.0 3.0 0.0 1.0"), "{float}");
    assert_eq!(float.lines().nth(1), Some("output 1 0 0.0 0.5 1.0 0.75"), "{float}");
    assert_eq!(
        both.lines().next(),
        Some("output 0 0 0x40000000 (2.0) 0x40400000 (3.0) 0x00000000 (0.0) 0x3f800000 (1.0)"),
        "{both}"
    );
    let output = run(&["run", shader, "--state", &state, "--format=decimal"], b"");
    assert_eq!(output.status.code(), Some(2));
    // bench prints no words: it has no --format.
    let output = run(&["bench", shader, "--state", &state, "--format=float"], b"");
    assert_eq!(output.status.code(), Some(2));
}

#[test]
fn run_prints_the_vertices_a_geometry_shader_emits() {
    let dir = scratch_dir("run_geometry");
    let state = dir.join("lines.state");
    fs::write(&state, "invocations 2\nvinput 0 0 * 1 0 0 1\nvinput 1 0 * 2 0 0 1\nvinput 1 0 1 3 0 0 1\n").unwrap();
    let shader = "GEOM\nPROPERTY GS_INPUT_PRIMITIVE LINES\nPROPERTY GS_OUTPUT_PRIMITIVE LINE_STRIP\n\
                  PROPERTY GS_MAX_OUTPUT_VERTICES 2\nDCL IN[][0], POSITION\nDCL OUT[0], POSITION\n\
                  IMM[0] INT32 { 0, 0, 0, 0 }\n\
                  MOV OUT[0], IN[1][0]\nEMIT IMM[0].xxxx\nMOV OUT[0], IN[0][0]\nEMIT IMM[0].xxxx\nENDPRIM IMM[0].xxxx\nEND\n";
    let out = success(&["run", "-", "--state", state.to_str().unwrap()], shader.as_bytes());
    assert_eq!(
        out,
        "output 0 0 0x3f800000 0x00000000 0x00000000 0x3f800000\n\
         emit 0 0 0 0 0x40000000 0x00000000 0x00000000 0x3f800000\n\
         emit 0 0 1 0 0x3f800000 0x00000000 0x00000000 0x3f800000\n\
         endprim 0 0 2\n\
         output 0 1 0x3f800000 0x00000000 0x00000000 0x3f800000\n\
         emit 1 0 0 0 0x40400000 0x00000000 0x00000000 0x3f800000\n\
         emit 1 0 1 0 0x3f800000 0x00000000 0x00000000 0x3f800000\n\
         endprim 1 0 2\n"
    );
}

#[test]
fn run_errors_are_located_and_exit_non_zero() {
    let dir = scratch_dir("run_errors");
    let shader = example_path("vertex_transform.tgsi");
    let bad = dir.join("bad.state");
    fs::write(&bad, "invocations 2\ninput 0 5 1 2 3 4\n").unwrap();
    let output = run(&["run", shader.to_str().unwrap(), "--state", bad.to_str().unwrap()], b"");
    assert_eq!(output.status.code(), Some(1));
    let err = stderr(&output);
    assert!(err.contains("bad.state:2:9"), "{err}");
    assert!(err.contains("lane"), "{err}");
    // Something the backend does not execute yet is an error, not a guess.
    let global = dir.join("global.tgsi");
    fs::write(&global, "COMP\nDCL MEMORY[0], GLOBAL\nDCL TEMP[0]\nLOAD TEMP[0].x, MEMORY[0], TEMP[0].xxxx\nEND\n")
        .unwrap();
    let output = run(&["run", global.to_str().unwrap(), "--state", &example_state("vertex_transform.state")], b"");
    assert_eq!(output.status.code(), Some(1));
    assert!(stderr(&output).contains("not executed"), "{}", stderr(&output));
    // Lanes must be whole quads, at most 64: a usage error from argument
    // parsing, before anything is read or run.
    for lanes in ["0", "5", "6", "128"] {
        for command in ["run", "bench"] {
            let output = run(&[command, "missing.tgsi", "--state", "missing.state", "--lanes", lanes], b"");
            assert_eq!(output.status.code(), Some(2), "{command} --lanes {lanes}");
            assert!(output.stdout.is_empty());
            let err = stderr(&output);
            assert!(err.starts_with(&format!("error: invalid value '{lanes}' for '--lanes <N>'")), "{err}");
            assert!(err.contains("a multiple of 4 from 4 to 64: 4, 8, 12,") && err.contains("60 or 64"), "{err}");
        }
    }
    // --state is required: a usage error.
    assert_eq!(run(&["run", shader.to_str().unwrap()], b"").status.code(), Some(2));
}

#[test]
fn bench_reports_speed_and_threads_do_not_change_results() {
    let shader = example_path("vertex_transform.tgsi");
    let state = example_state("vertex_transform.state");
    let shader = shader.to_str().unwrap();
    let out = success(&["bench", shader, "--state", &state, "--repeat", "3"], b"");
    let keys: Vec<&str> = out.lines().filter_map(|l| l.split_whitespace().next()).collect();
    assert_eq!(
        keys,
        [
            "invocations_per_second",
            "ns_per_invocation",
            "ns_per_instruction",
            "fastest_ns_per_invocation",
            "median_ns_per_invocation",
            "backend",
            "compile_us",
            "compile_cached_us"
        ],
        "{out}"
    );
    for line in out.lines().filter(|l| !l.starts_with("backend ")) {
        let value = line.split_whitespace().nth(1).unwrap_or("");
        assert!(value.parse::<f64>().is_ok_and(|v| v >= 0.0), "{line}");
    }
    // No run to time is a usage error, not a report of nothing.
    assert_eq!(run(&["bench", shader, "--state", &state, "--repeat", "0"], b"").status.code(), Some(2));
    let one = success(&["run", shader, "--state", &state, "--lanes", "4", "--threads", "1"], b"");
    assert_eq!(success(&["run", shader, "--state", &state, "--lanes", "4", "--threads", "2"], b""), one);
    assert_eq!(success(&["run", shader, "--state", &state, "--lanes", "4", "--threads", "0"], b""), one);
}

#[test]
fn both_backends_give_the_same_outputs_and_bench_names_its_tier() {
    let shader = example_path("vertex_transform.tgsi");
    let state = example_state("vertex_transform.state");
    let shader = shader.to_str().unwrap();
    let interp = success(&["run", shader, "--state", &state, "--backend", "interp"], b"");
    let bench = success(&["bench", shader, "--state", &state, "--repeat", "1", "--backend", "interp"], b"");
    assert!(bench.contains("\nbackend interp\n"), "{bench}");
    if exec::Backend::Jit.available().is_ok() {
        assert_eq!(success(&["run", shader, "--state", &state, "--backend", "jit"], b""), interp);
        assert_eq!(success(&["run", shader, "--state", &state], b""), interp);
        let bench = success(&["bench", shader, "--state", &state, "--repeat", "1", "--backend", "jit"], b"");
        assert!(bench.contains("\nbackend jit\n"), "{bench}");
    }
    assert_eq!(run(&["run", shader, "--state", &state, "--backend", "llvm"], b"").status.code(), Some(2));
}

#[test]
fn run_and_bench_take_passes() {
    let shader = example_path("vertex_transform.tgsi");
    let state = example_state("vertex_transform.state");
    let shader = shader.to_str().unwrap();
    let plain = success(&["run", shader, "--state", &state], b"");
    for flags in [&["-O"][..], &["--passes=dce"], &["-O0"], &["--passes=dce,dce"]] {
        assert_eq!(success(&[&["run", shader, "--state", &state][..], flags].concat(), b""), plain, "{flags:?}");
    }
    let out = success(&["bench", shader, "--state", &state, "--repeat", "1", "-O"], b"");
    assert!(out.starts_with("invocations_per_second "), "{out}");
    let output = run(&["run", shader, "--state", &state, "--passes=gvn"], b"");
    assert_eq!(output.status.code(), Some(2));
    let known = tgsi_opt::passes::known_names();
    assert_eq!(stderr(&output), format!("error: unknown pass `gvn`; known passes: {known}\n"));
    let help = success(&["run", "--help"], b"");
    assert!(help.contains("--passes <LIST>") && help.contains("--opt-level <LEVEL>"), "{help}");
}

#[test]
fn run_prints_the_buffers_a_compute_shader_writes() {
    let shader = example_path("compute_loop.tgsi");
    let state = example_state("compute_loop.state");
    let output = run(&["run", shader.to_str().unwrap(), "--state", &state], b"");
    assert!(output.status.success(), "{}", stderr(&output));
    let text = String::from_utf8(output.stdout).expect("UTF-8");
    // Thread t sums words t, 64 + t, 128 + t and 192 + t of BUFFER[0],
    // whose word k holds k: 384 + 4t.
    let sums: Vec<String> = text.lines().filter(|l| l.starts_with("bufdata 1 ")).map(str::to_string).collect();
    let want: Vec<String> = (0..64).map(|t| format!("bufdata 1 {} 0x{:08x}", 4 * t, 384 + 4 * t)).collect();
    assert_eq!(sums, want);
}
