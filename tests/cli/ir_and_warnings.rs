//! Reading IR back, progress off a terminal, and undeclared registers.

use super::*;

/// The hand-written IR of `tests/inputs/ir_text/`.
fn ir_text_path(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/inputs/ir_text").join(name);
    path.to_str().expect("UTF-8 path").to_string()
}

#[test]
fn hand_written_ir_is_optimized_like_a_shader() {
    // An if on a constant: -O keeps the then-arm, and the phi becomes its
    // value, computed straight into the output.
    let out = success(&["opt", "--input=ir", "-O", &ir_text_path("if_phi.ir")], b"");
    let expected = "\
FRAG
DCL IN[0], GENERIC[0], PERSPECTIVE
DCL OUT[0], COLOR
IMM[0] FLT32 {    2.0000,     2.0000,     2.0000,     2.0000}
  0: MUL OUT[0].x, IN[0].xxxx, IMM[0].xxxx
  1: END
";
    assert_eq!(out, expected);
    // The optimized IR, with its numbering gaps, reads back too.
    let ir = success(&["opt", "--input=ir", "-O", "--emit=ir", &ir_text_path("if_phi.ir")], b"");
    assert_eq!(success(&["fmt", "--input=ir", "-"], ir.as_bytes()), ir);
    assert_eq!(success(&["opt", "--input=ir", "--emit=ir", "-"], ir.as_bytes()), ir);
}

#[test]
fn emitted_ir_reads_back_in_fmt_opt_and_run() {
    let shader = example_path("vertex_transform.tgsi");
    let shader = shader.to_str().expect("UTF-8 path");
    let ir = success(&["opt", "--emit=ir", shader], b"");
    assert_eq!(success(&["fmt", "--emit=ir", shader], b""), ir);
    // fmt prints IR as IR, canonically.
    assert_eq!(success(&["fmt", "--input=ir"], ir.as_bytes()), ir);
    assert_eq!(success(&["opt", "--input=ir", "--emit=ir"], ir.as_bytes()), ir);
    assert_eq!(
        success(&["opt", "--input=ir", "-O"], ir.as_bytes()),
        success(
            &["fmt", "--input=ir", "--emit=text"],
            success(&["opt", "--input=ir", "-O", "--emit=ir"], ir.as_bytes()).as_bytes()
        )
    );
    let dir = scratch_dir("ir_run");
    let ir_path = dir.join("vertex_transform.ir");
    fs::write(&ir_path, &ir).expect("write");
    let state = example_state("vertex_transform.state");
    assert_eq!(
        success(&["run", "--input=ir", ir_path.to_str().expect("UTF-8 path"), "--state", &state], b""),
        success(&["run", shader, "--state", &state], b"")
    );
}

#[test]
fn malformed_ir_is_located() {
    let text = fs::read_to_string(ir_text_path("if_phi.ir")).expect("read");
    let dir = scratch_dir("malformed_ir");
    let path = dir.join("bad.ir");
    fs::write(&path, text.replace("mul v0, v2", "mul v0, v9")).expect("write");
    let output = run(&["opt", "--input=ir", path.to_str().expect("UTF-8 path")], b"");
    assert_eq!(output.status.code(), Some(1));
    let err = stderr(&output);
    assert!(err.starts_with("error: v9 is used but never defined"), "{err}");
    assert!(err.contains(&format!("{}:11:20", path.display())), "{err}");
    assert!(err.contains("11 |       v3 = mul v0, v9"), "{err}");
    // The channel of an ALU op is its formula: MUL has one.
    fs::write(&path, text.replace("mul v0, v2", "mul.y v0, v2")).expect("write");
    let output = run(&["opt", "--input=ir", path.to_str().expect("UTF-8 path")], b"");
    assert_eq!(output.status.code(), Some(1));
    let err = stderr(&output);
    assert!(err.contains("channel 1 of mul computes channel 0's formula; it must say 0"), "{err}");
    // Parsed but invalid: refused before any pass runs.
    fs::write(&path, text.replace("phi [b1: v3, b2: v4]", "phi [b1: v3]")).expect("write");
    let output = run(&["opt", "--input=ir", "-O", path.to_str().expect("UTF-8 path")], b"");
    assert_eq!(output.status.code(), Some(1));
    let err = stderr(&output);
    assert!(err.contains("after reading the IR") && err.contains("no argument for predecessor b2"), "{err}");
    // TGSI read as IR is refused at its first line.
    let output = run(&["fmt", "--input=ir"], example_text("vertex_transform.tgsi").as_bytes());
    assert_eq!(output.status.code(), Some(1));
    assert!(stderr(&output).contains("<stdin>:1:1"), "{}", stderr(&output));
}

#[test]
fn long_commands_draw_no_progress_off_a_terminal_and_end_with_a_summary() {
    // Standard error is a pipe here, so no bar may be drawn on it.
    let dir = scratch_dir("progress");
    let out_dir = dir.join("failures");
    let output = run(&["fuzz-passes", "--count", "3", "--jobs", "2", "--out-dir", out_dir.to_str().unwrap()], b"");
    assert!(output.status.success(), "{}", stderr(&output));
    assert_eq!(stderr(&output), "");
    assert!(stdout(&output).starts_with("programs: 3\n"), "{}", stdout(&output));

    let output = run(&["check-doubles", "--target=no-fp64-div", "--count", "600", "--batch", "512"], b"");
    assert!(output.status.success(), "{}", stderr(&output));
    assert_eq!(stderr(&output), "");
    let summary = stdout(&output).lines().last().unwrap_or_default().to_string();
    assert!(
        summary.starts_with("checked ") && summary.ends_with(" opcode(s) on 1 target(s): 0 result(s) differ"),
        "{}",
        stdout(&output)
    );

    let out = dir.join("opt");
    let files: Vec<PathBuf> = EXAMPLES.iter().take(2).map(|name| example_path(name)).collect();
    let mut args = vec!["opt", "-O", "--jobs", "2", "--out-dir", out.to_str().unwrap()];
    args.extend(files.iter().map(|f| f.to_str().unwrap()));
    let output = run(&args, b"");
    assert!(output.status.success(), "{}", stderr(&output));
    assert_eq!(stderr(&output), format!("optimized 2 file(s) into `{}`\n", out.display()));
}

#[test]
fn undeclared_registers_are_located_warnings_and_an_undeclared_immediate_an_error() {
    // Mesa accepts both shaders; the registers are warned about, with a
    // caret under each, and the shader is still optimized.
    let text = "VERT\nDCL IN[0]\nDCL OUT[0], POSITION\nMOV OUT[0], IN[3]\nMOV OUT[2], TEMP[3]\nEND\n";
    let output = run(&["opt", "-"], text.as_bytes());
    assert!(output.status.success(), "{}", stderr(&output));
    let want = "warning: IN[3] is not declared\n --> <stdin>:4:13\n  |\n4 | MOV OUT[0], IN[3]\n  |             ^^^^^\n\
                warning: OUT[2] is not declared\n --> <stdin>:5:5\n  |\n5 | MOV OUT[2], TEMP[3]\n  |     ^^^^^^\n\
                warning: TEMP[3] is not declared\n --> <stdin>:5:13\n  |\n5 | MOV OUT[2], TEMP[3]\n  |             ^^^^^^^\n";
    assert_eq!(stderr(&output), want);
    assert!(stdout(&output).contains("MOV OUT[0], IN[3]"), "{}", stdout(&output));
    // An immediate that does not exist has no value to read.
    let output = run(&["opt", "-"], b"VERT\nDCL OUT[0], POSITION\nMOV OUT[0],  IMM[5]\nEND\n");
    assert_eq!(output.status.code(), Some(1));
    let want =
        "error: IMM[5] is not declared\n --> <stdin>:3:14\n  |\n3 | MOV OUT[0],  IMM[5]\n  |              ^^^^^^\n";
    assert_eq!(stderr(&output), want);
}

#[test]
fn ir_printed_with_origins_emits_the_same_tgsi_when_read_back() {
    for name in EXAMPLES {
        let shader = example_path(name);
        let shader = shader.to_str().expect("UTF-8 path");
        for level in ["-O0", "-O"] {
            let ir = success(&["opt", level, "--emit=ir", "--origins", shader], b"");
            assert!(ir.contains("  ; from #"), "{name}: no origins printed");
            let direct = success(&["opt", level, shader], b"");
            assert_eq!(success(&["opt", "--input=ir"], ir.as_bytes()), direct, "{name} {level}");
            // The origins read back print again as they were.
            assert_eq!(success(&["opt", "--input=ir", "--emit=ir", "--origins"], ir.as_bytes()), ir, "{name} {level}");
        }
    }
}
