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

#[test]
fn fmt_prints_bundled_examples_in_canonical_form() {
    for name in EXAMPLES {
        let path = example_path(name);
        let path = path.to_str().expect("UTF-8 path");
        let expected = example_text(name);
        // The examples are canonical, and every immediate in them has an
        // exact 4-decimal form, so both styles print them unchanged.
        assert_eq!(success(&["fmt", "--style=mesa", path], b""), expected, "{name}, mesa");
        assert_eq!(success(&["fmt", path], b""), expected, "{name}, exact");
        assert_eq!(success(&["fmt", "--style=exact", path], b""), expected, "{name}, exact");
    }
}

#[test]
fn fmt_reads_standard_input() {
    let text = example_text("vertex_transform.tgsi");
    assert_eq!(success(&["fmt", "-"], text.as_bytes()), text);
    assert_eq!(success(&["fmt"], text.as_bytes()), text);
}

#[test]
fn malformed_file_gives_exit_1_and_a_caret_diagnostic() {
    let dir = scratch_dir("malformed");
    let path = dir.join("malformed.tgsi");
    fs::write(&path, "FRAG\nDCL OUT[0], COLOR\n  0: MOV OUT[0, IN[0]\n  1: END\n").expect("write");
    let output = run(&["fmt", path.to_str().expect("UTF-8 path")], b"");
    assert_eq!(output.status.code(), Some(1));
    assert!(output.stdout.is_empty());
    let err = stderr(&output);
    assert!(err.starts_with("error: "), "{err}");
    let location = format!("{}:3:", path.display());
    assert!(err.contains(&location), "no `{location}` in:\n{err}");
    assert!(err.contains("3 |   0: MOV OUT[0, IN[0]"), "no source line in:\n{err}");
    assert!(err.lines().any(|l| l.trim_start().starts_with('|') && l.contains('^')), "{err}");
}

#[test]
fn float_literals_too_large_for_their_type_are_located_errors() {
    for (text, literal, column) in [
        ("FRAG\nDCL OUT[0], COLOR\nIMM[0] FLT32 { 0, 1e999, 0, 0 }\n  0: MOV OUT[0], IMM[0]\n  1: END\n", "1e999", 19),
        ("FRAG\nDCL OUT[0], COLOR\nIMM[0] FLT64 { 1e400, 0 }\n  0: MOV OUT[0], IMM[0]\n  1: END\n", "1e400", 16),
    ] {
        for command in ["fmt", "opt"] {
            let output = run(&[command], text.as_bytes());
            assert_eq!(output.status.code(), Some(1), "{literal}");
            assert!(output.stdout.is_empty());
            let err = stderr(&output);
            assert!(err.starts_with(&format!("error: {literal} is too large for FLT")), "{err}");
            assert!(err.contains("it would become infinity; write `inf` if that is what is meant"), "{err}");
            assert!(err.contains(&format!("--> <stdin>:3:{column}\n")), "{err}");
            assert!(err.contains("  ^^^^^\n"), "{err}");
        }
    }
}

#[test]
fn malformed_standard_input_is_named_stdin() {
    let output = run(&["fmt"], b"FRAG\n  0: NOT_AN_OPCODE TEMP[0]\n");
    assert_eq!(output.status.code(), Some(1));
    let err = stderr(&output);
    assert!(err.contains("<stdin>:2:"), "{err}");
    assert!(err.contains('^'), "{err}");
}

#[test]
fn tokens_round_trip_through_hex_words() {
    for name in EXAMPLES {
        let path = example_path(name);
        let hex = success(&["fmt", "--emit=tokens", path.to_str().expect("UTF-8 path")], b"");
        assert!(!hex.is_empty(), "{name}: no words");
        for line in hex.lines() {
            let digits = line.strip_prefix("0x").unwrap_or_else(|| panic!("{name}: bad line {line:?}"));
            assert!(digits.len() == 8 && digits.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')), "{line:?}");
        }
        let text = success(&["fmt", "--input=tokens", "-"], hex.as_bytes());
        assert_eq!(text, example_text(name), "{name}");
        let again = success(&["fmt", "--input=tokens", "--emit=tokens"], hex.as_bytes());
        assert_eq!(again, hex, "{name}");
    }
}

#[test]
fn output_flag_writes_the_file() {
    let dir = scratch_dir("output");
    let out = dir.join("out.tgsi");
    let path = example_path("compute_loop.tgsi");
    let output = run(&["fmt", path.to_str().expect("UTF-8 path"), "-o", out.to_str().expect("UTF-8 path")], b"");
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(output.stdout.is_empty(), "stdout: {}", stdout(&output));
    assert_eq!(fs::read_to_string(&out).expect("output written"), example_text("compute_loop.tgsi"));

    let hex = dir.join("out.hex");
    let output =
        run(&["fmt", "--emit=tokens", "--output", hex.to_str().expect("UTF-8 path")], &fs::read(&path).expect("read"));
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(fs::read_to_string(&hex).expect("output written").starts_with("0x"));
}

#[test]
fn unwritable_output_names_the_path() {
    let dir = scratch_dir("unwritable");
    let out = dir.join("no-such-dir").join("out.tgsi");
    let path = example_path("vertex_transform.tgsi");
    let output = run(&["fmt", path.to_str().expect("UTF-8 path"), "-o", out.to_str().expect("UTF-8 path")], b"");
    assert_eq!(output.status.code(), Some(1));
    let err = stderr(&output);
    assert!(err.starts_with(&format!("error: cannot write `{}`: ", out.display())), "{err}");
}

#[test]
fn missing_file_is_a_clear_error() {
    let output = run(&["fmt", "does/not/exist.tgsi"], b"");
    assert_eq!(output.status.code(), Some(1));
    assert!(output.stdout.is_empty());
    let err = stderr(&output);
    assert!(err.starts_with("error: cannot read `does/not/exist.tgsi`: "), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
}

#[test]
fn directory_as_input_is_a_clear_error() {
    let dir = scratch_dir("directory");
    let output = run(&["fmt", dir.to_str().expect("UTF-8 path")], b"");
    assert_eq!(output.status.code(), Some(1));
    assert!(stderr(&output).starts_with(&format!("error: cannot read `{}`: ", dir.display())));
}

#[test]
fn non_utf8_input_is_located() {
    let output = run(&["fmt"], b"FRAG\nDCL IN[0]\xff\n");
    assert_eq!(output.status.code(), Some(1));
    let err = stderr(&output);
    assert_eq!(err, "error: standard input is not UTF-8 text: invalid byte at line 2, column 10\n");
}

#[test]
fn bad_hex_word_is_located() {
    let output = run(&["fmt", "--input=tokens"], b"0x00000202\n0xnope\n");
    assert_eq!(output.status.code(), Some(1));
    let err = stderr(&output);
    // The line is named once, by the location.
    assert!(err.starts_with("error: \"0xnope\" is not a 32-bit word"), "{err}");
    assert!(!err.contains("line 2"), "{err}");
    assert!(err.contains("<stdin>:2:1"), "{err}");
    assert!(err.contains("2 | 0xnope\n"), "{err}");
    assert!(err.contains("| ^^^^^^\n"), "{err}");
}

#[test]
fn invalid_token_stream_names_the_word() {
    let dir = scratch_dir("invalid_tokens");
    let path = dir.join("bad.hex");
    // A fragment shader header, then a word that is no valid token.
    fs::write(&path, "0x00000202\n0x00000004\n0xffffffff\n").expect("write");
    let output = run(&["fmt", "--input=tokens", path.to_str().expect("UTF-8 path")], b"");
    assert_eq!(output.status.code(), Some(1));
    let err = stderr(&output);
    assert!(err.starts_with("error: word "), "{err}");
    assert!(err.contains(&format!("--> {}:", path.display())), "{err}");
    assert!(err.contains('^'), "{err}");
}

#[test]
fn usage_errors_exit_with_2() {
    for args in [&["fmt", "--style=pretty"][..], &["fmt", "--emit=binary"], &["fmt", "a", "b"], &["frobnicate"], &[]] {
        let output = run(args, b"");
        assert_eq!(output.status.code(), Some(2), "{args:?}: {}", stderr(&output));
        assert!(output.stdout.is_empty());
    }
}

#[test]
fn help_documents_every_flag() {
    let help = success(&["fmt", "--help"], b"");
    for needle in [
        "[FILE]",
        "--style <STYLE>",
        "--emit <FORMAT>",
        "--input <FORMAT>",
        "-o, --output <FILE>",
        "exact",
        "mesa",
        "text",
        "tokens",
    ] {
        assert!(help.contains(needle), "no `{needle}` in:\n{help}");
    }
    let top = success(&["--help"], b"");
    assert!(top.contains("fmt"), "{top}");
    assert!(success(&["--version"], b"").starts_with("tgsi-opt "));
}

/// Mesa's own answers in `../shared/conformance/text/`, when present: a
/// sample of cases goes through the CLI and must give Mesa's dump and tokens.
#[test]
fn fmt_matches_mesa_on_conformance_sample() {
    let Some(dir) = testdata::shared("conformance/text") else { return };
    let cases = testdata::tgsi_files(&dir);
    let mut failures = Vec::new();
    for tgsi in cases.iter().step_by(25) {
        let (Ok(dump), Ok(hex)) =
            (fs::read_to_string(tgsi.with_extension("dump")), fs::read_to_string(tgsi.with_extension("hex")))
        else {
            continue;
        };
        let path = tgsi.to_str().expect("UTF-8 path");
        let checks = [
            (&["fmt", "--style=mesa", path][..], &b""[..], &dump),
            (&["fmt", "--emit=tokens", path], b"", &hex),
            (&["fmt", "--input=tokens", "--style=mesa"], hex.as_bytes(), &dump),
        ];
        for (args, stdin, expected) in checks {
            let output = run(args, stdin);
            if !output.status.success() || stdout(&output) != expected.as_str() {
                failures.push(format!("{args:?} {}:\n{}", tgsi.display(), stderr(&output)));
            }
        }
    }
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n"));
}

#[test]
fn opt_emits_tgsi_that_reads_back() {
    for name in EXAMPLES {
        let path = example_path(name);
        let path = path.to_str().expect("UTF-8 path");
        let text = success(&["opt", path], b"");
        let shader = tgsi_opt::tgsi::parse(&text).unwrap_or_else(|e| panic!("{}", e.render(&text, name)));
        assert!(shader.instructions().count() > 0, "{name}");
        // Already canonical: fmt leaves it as it is.
        assert_eq!(success(&["fmt", "-"], text.as_bytes()), text, "{name}");
        assert_eq!(success(&["opt", "--passes=", "--emit=tgsi", "--style=exact", path], b""), text, "{name}");
        let mesa = success(&["opt", "--style=mesa", path], b"");
        assert_eq!(success(&["fmt", "--style=mesa", "-"], text.as_bytes()), mesa, "{name}");
        // Tokens carry the same shader.
        let hex = success(&["opt", "--emit=tokens", path], b"");
        assert!(hex.lines().all(|l| l.starts_with("0x") && l.len() == 10), "{name}: {hex}");
        assert_eq!(success(&["fmt", "--input=tokens"], hex.as_bytes()), text, "{name}");
    }
}

#[test]
fn opt_reads_tokens_and_standard_input() {
    let path = example_path("compute_loop.tgsi");
    let path = path.to_str().expect("UTF-8 path");
    let expected = success(&["opt", path], b"");
    let text = example_text("compute_loop.tgsi");
    assert_eq!(success(&["opt"], text.as_bytes()), expected);
    assert_eq!(success(&["opt", "-"], text.as_bytes()), expected);
    let hex = success(&["fmt", "--emit=tokens", path], b"");
    assert_eq!(success(&["opt", "--input=tokens", "-"], hex.as_bytes()), expected);
}

#[test]
fn opt_emits_ir_and_dot() {
    let path = example_path("fragment_texture_branch.tgsi");
    let path = path.to_str().expect("UTF-8 path");
    let ir = success(&["opt", "--emit=ir", path], b"");
    assert!(ir.starts_with("frag\ninterface:\n"), "{ir}");
    for needle in ["\nb0:\n", "\nif v", " = phi [", "storeoutput OUT[0].x, "] {
        assert!(ir.contains(needle), "no `{needle}` in:\n{ir}");
    }
    let dot = success(&["opt", "--emit=dot", path], b"");
    assert!(dot.starts_with("digraph cfg {\n"), "{dot}");
    assert!(dot.ends_with("}\n"), "{dot}");
    for needle in ["    b0 [label=\"b0:\\l", "    b0 -> b1 [label=\"then\"];\n", "    b0 -> b2 [label=\"else\"];\n"] {
        assert!(dot.contains(needle), "no `{needle}` in:\n{dot}");
    }
    // Loops have dashed back edges.
    let path = example_path("compute_loop.tgsi");
    let dot = success(&["opt", "--emit=dot", path.to_str().expect("UTF-8 path")], b"");
    assert!(dot.contains("style=dashed"), "{dot}");
}

#[test]
fn opt_verify_each_and_output_file() {
    let dir = scratch_dir("opt_output");
    let out = dir.join("out.tgsi");
    let path = example_path("vertex_skinning.tgsi");
    let path = path.to_str().expect("UTF-8 path");
    let expected = success(&["opt", path], b"");
    let output = run(&["opt", "--verify-each", path, "-o", out.to_str().expect("UTF-8 path")], b"");
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(output.stdout.is_empty());
    assert_eq!(fs::read_to_string(&out).expect("output written"), expected);
}

#[test]
fn opt_unknown_pass_is_a_usage_error() {
    let path = example_path("vertex_transform.tgsi");
    let path = path.to_str().expect("UTF-8 path");
    for (args, name) in [
        (&["--passes=gvn"][..], "gvn"),
        (&["--passes=dce,sccp"], "sccp"),
        (&["--passes=,cse"], "cse"),
        (&["--print-after=gvn"], "gvn"),
        (&["--print-before", "licm"], "licm"),
    ] {
        let output = run(&[&["opt", path][..], args].concat(), b"");
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        assert!(output.stdout.is_empty());
        let known = tgsi_opt::passes::known_names();
        assert_eq!(stderr(&output), format!("error: unknown pass `{name}`; known passes: {known}\n"));
    }
    for passes in ["--passes=", "--passes=,", "--passes=dce", "--passes=dce,,dce"] {
        success(&["opt", passes, path], b"");
    }
}

/// A shader with dead code, an empty IF and a dead texture channel.
const DEAD_CODE: &str = "FRAG
DCL IN[0], GENERIC[0], PERSPECTIVE
DCL OUT[0], COLOR
DCL SAMP[0]
DCL SVIEW[0], 2D, FLOAT
DCL TEMP[0..1], LOCAL
  0: TEX TEMP[0], IN[0], SAMP[0], 2D
  1: MUL TEMP[1], IN[0], IN[0]
  2: IF IN[0].xxxx :4
  3:   ADD TEMP[1], TEMP[1], IN[0]
  4: ENDIF
  5: ADD OUT[0], TEMP[0].xxxx, IN[0]
  6: END
";

#[test]
fn opt_runs_dce_by_name_and_level() {
    let expected = "FRAG
DCL IN[0], GENERIC[0], PERSPECTIVE
DCL OUT[0], COLOR
DCL SAMP[0]
DCL SVIEW[0], 2D, FLOAT
DCL TEMP[0], LOCAL
  0: TEX TEMP[0].x, IN[0], SAMP[0], 2D
  1: ADD OUT[0], TEMP[0].xxxx, IN[0]
  2: END
";
    for flags in [&["--passes=dce"][..], &["-O"], &["-O1"], &["--opt-level=1"], &["--passes=dce,dce", "--verify-each"]]
    {
        assert_eq!(success(&[&["opt"][..], flags].concat(), DEAD_CODE.as_bytes()), expected, "{flags:?}");
    }
    // No passes: the IF stays.
    for flags in [&["-O0"][..], &["--passes="], &[]] {
        let out = success(&[&["opt"][..], flags].concat(), DEAD_CODE.as_bytes());
        assert!(out.contains("IF IN[0].xxxx"), "{flags:?}: {out}");
    }
    // A level and a list together are a usage error.
    let output = run(&["opt", "-O", "--passes=dce"], DEAD_CODE.as_bytes());
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
}

#[test]
fn opt_levels_that_do_not_exist_are_usage_errors() {
    let path = example_path("vertex_transform.tgsi");
    let path = path.to_str().expect("UTF-8 path");
    for level in ["2", "3", "s", "z"] {
        let short = run(&["opt", path, &format!("-O{level}")], b"");
        let long = run(&["opt", path, &format!("--opt-level={level}")], b"");
        for output in [&short, &long] {
            assert_eq!(output.status.code(), Some(2), "{level}: {}", stderr(output));
            assert!(output.stdout.is_empty());
        }
        // Both spellings give the same message, which names the levels.
        let err = stderr(&short);
        assert_eq!(err, stderr(&long));
        assert!(!err.contains("unexpected argument"), "{err}");
        assert!(err.contains(&format!("there is no optimization level {level} (-O{level})")), "{err}");
        assert!(err.contains("the levels are 0 (-O0: no passes) and 1 (-O1 or -O:"), "{err}");
    }
    // The levels that exist, before or after the file.
    for flags in [[path, "-O0"], [path, "-O1"], ["-O1", path], ["-O0", path]] {
        success(&[&["opt"][..], &flags].concat(), b"");
    }
}

#[test]
fn opt_lists_passes() {
    let out = success(&["opt", "--list-passes"], b"");
    // Names are padded to the longest one.
    let line = |name: &str| out.lines().find(|l| l.split_whitespace().next() == Some(name)).unwrap_or_default();
    assert!(out.starts_with("constfold ") && line("constfold").contains("  Folds constant operations"), "{out}");
    assert!(line("dce").contains("  Removes values that reach no output or side effect"), "{out}");
    assert!(line("legalize-doubles").contains("--target"), "{out}");
    let o1: Vec<&str> = tgsi_opt::passes::Pipeline::o1().passes().map(|p| p.name()).collect();
    assert!(out.ends_with(&format!("-O1 runs: {}\n", o1.join(", "))), "{out}");
    // A bad pass name is the same usage error as without --list-passes.
    let known = tgsi_opt::passes::known_names();
    for flags in [&["--passes=bogus"][..], &["--print-after=bogus"], &["--passes=dce", "--print-before=bogus"]] {
        let output = run(&[&["opt", "--list-passes"][..], flags].concat(), b"");
        assert_eq!(output.status.code(), Some(2), "{flags:?}");
        assert!(output.stdout.is_empty(), "{flags:?}");
        assert_eq!(stderr(&output), format!("error: unknown pass `bogus`; known passes: {known}\n"));
    }
}

#[test]
fn opt_prints_around_passes_on_stderr() {
    let plain = success(&["opt", "-O"], DEAD_CODE.as_bytes());
    let output = run(&["opt", "-O", "--print-after-all"], DEAD_CODE.as_bytes());
    assert!(output.status.success());
    assert_eq!(stdout(&output), plain, "printing leaves standard output alone");
    let err = stderr(&output);
    // -O iterates constfold and dce to a fixed point: they run twice, the
    // second time changing nothing.
    assert!(err.starts_with("; *** after constfold (iteration 1) ***\nfrag\ninterface:\n"), "{err}");
    assert!(err.contains("; *** after dce (iteration 1) ***\nfrag\ninterface:\n"), "{err}");
    assert!(err.contains("; *** after dce (iteration 2) ***\n"), "{err}");

    let output = run(&["opt", "--passes=dce", "--print-before=dce", "--print-format=tgsi"], DEAD_CODE.as_bytes());
    let err = stderr(&output);
    assert!(err.starts_with("; *** before dce (iteration 1) ***\nFRAG\n"), "{err}");
    assert!(err.contains("IF IN[0].xxxx"), "before dce the IF is there: {err}");
    let output = run(&["opt", "--passes=dce", "--print-after", "dce", "--print-format=tgsi"], DEAD_CODE.as_bytes());
    let err = stderr(&output);
    assert!(err.starts_with("; *** after dce (iteration 1) ***\nFRAG\n"), "{err}");
    assert!(!err.contains("IF IN[0].xxxx"), "after dce it is gone: {err}");
    // Nothing printed for a pass that does not run.
    let output = run(&["opt", "--print-after=dce"], DEAD_CODE.as_bytes());
    assert!(output.status.success() && output.stderr.is_empty(), "{}", stderr(&output));
}

#[test]
fn opt_times_passes_and_counts_statistics() {
    // A fixed list, so the rows do not depend on which passes -O has.
    let output = run(&["opt", "--passes=dce,dce", "--time-passes", "--stats"], DEAD_CODE.as_bytes());
    assert!(output.status.success(), "{}", stderr(&output));
    assert_eq!(stdout(&output), success(&["opt", "-O"], DEAD_CODE.as_bytes()));
    let err = stderr(&output);
    let lines: Vec<&str> = err.lines().collect();
    assert!(lines[0].starts_with("pass ") && lines[0].contains("time (ms)") && lines[0].ends_with("share"), "{err}");
    assert!(lines[1].starts_with("dce ") && lines[1].ends_with('%'), "{err}");
    assert!(lines[2].starts_with("total ") && lines[2].ends_with("100.0%"), "{err}");
    assert_eq!(lines[1].split_whitespace().nth(1), Some("2"), "two runs of dce: {err}");
    // --stats: only the non-zero counters, one aligned table.
    assert_eq!(
        &lines[3..],
        [
            "   8  dce  - values removed",
            "   4  dce  - phis removed",
            "   3  dce  - texture channels removed",
            "   1  dce  - ifs removed",
            "   3  dce  - blocks removed",
        ],
        "{err}"
    );
    // When nothing changes, one line says so.
    let example = example_path("vertex_transform.tgsi");
    let output = run(&["opt", "-O", "--stats", example.to_str().expect("UTF-8 path")], b"");
    assert!(output.status.success(), "{}", stderr(&output));
    assert_eq!(stderr(&output), "every counter is 0: no pass changed the shader\n");
}

#[test]
fn opt_build_errors_are_located() {
    let dir = scratch_dir("opt_build_error");
    let path = dir.join("brk.tgsi");
    let text = "FRAG\nDCL OUT[0], COLOR\n  0: BRK\n  1: END\n";
    fs::write(&path, text).expect("write");
    let output = run(&["opt", path.to_str().expect("UTF-8 path")], b"");
    assert_eq!(output.status.code(), Some(1));
    assert!(output.stdout.is_empty());
    let err = stderr(&output);
    assert!(err.starts_with("error: cannot build the IR: BRK outside a loop or switch\n"), "{err}");
    assert!(err.contains(&format!("--> {}:3:", path.display())), "{err}");
    assert!(err.contains("3 |   0: BRK\n"), "{err}");
    assert!(err.contains('^'), "{err}");

    // Tokens have no lines to point at: the message names the instruction.
    let hex = success(&["fmt", "--emit=tokens", "-"], text.as_bytes());
    let output = run(&["opt", "--input=tokens"], hex.as_bytes());
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(
        stderr(&output),
        "error: cannot build the IR of standard input: instruction 0: BRK outside a loop or switch\n"
    );
}

#[test]
fn a_construct_left_open_is_located_at_its_opening() {
    let dir = scratch_dir("unclosed_if");
    let path = dir.join("cut.tgsi");
    let text = "FRAG\nDCL IN[0], GENERIC[0], PERSPECTIVE\nDCL OUT[0], COLOR\n  0: MOV OUT[0], IN[0]\n\
                \x20 1: IF IN[0].xxxx :0\n  2:   MOV OUT[0], IN[0].yyyy\n";
    fs::write(&path, text).expect("write");
    for command in [&["opt"][..], &["opt", "-O"], &["run", "--state", "missing.state"]] {
        let output = run(&[command, &[path.to_str().expect("UTF-8 path")]].concat(), b"");
        assert_eq!(output.status.code(), Some(1), "{command:?}");
        let err = stderr(&output);
        let expected = format!(
            "error: cannot build the IR: this IF is never closed: the program ends inside it (expected ELSE or \
             ENDIF)\n --> {}:5:3\n  |\n5 |   1: IF IN[0].xxxx :0\n  |   ^^^^^^^^^^^^^^^^^^^\n",
            path.display()
        );
        assert!(err.ends_with(&expected), "{command:?}: {err}");
    }
    // Tokens have no lines: the message names the instruction.
    let hex = run(&["fmt", "--emit=tokens", "-"], text.as_bytes());
    let output = run(&["opt", "--input=tokens"], &hex.stdout);
    assert_eq!(output.status.code(), Some(1));
    assert!(
        stderr(&output).ends_with(
            "error: cannot build the IR of standard input: instruction 1: this IF is never closed: the program ends \
             inside it (expected ELSE or ENDIF)\n"
        ),
        "{}",
        stderr(&output)
    );
}

#[test]
fn a_shader_without_end_is_read_with_a_located_warning() {
    // Mesa's parser accepts it, so it is not an error.
    let text = "FRAG\nDCL IN[0], GENERIC[0], PERSPECTIVE\nDCL OUT[0], COLOR\n  0: MOV OUT[0], IN[0]\n";
    let warning = "warning: the shader has no END instruction: it is read as if END followed its last instruction\n \
                   --> <stdin>:4:3\n  |\n4 |   0: MOV OUT[0], IN[0]\n  |   ^^^^^^^^^^^^^^^^^^^^\n";
    let output = run(&["fmt"], text.as_bytes());
    assert!(output.status.success());
    assert_eq!(stdout(&output), text, "fmt keeps the shader as it is");
    assert_eq!(stderr(&output), warning);
    let output = run(&["opt", "-O"], text.as_bytes());
    assert!(output.status.success());
    assert!(stdout(&output).ends_with("  0: MOV OUT[0], IN[0]\n  1: END\n"), "{}", stdout(&output));
    assert_eq!(stderr(&output), warning);
    // Token input has no lines to point at.
    let hex = run(&["fmt", "--emit=tokens"], text.as_bytes());
    let output = run(&["fmt", "--input=tokens"], &hex.stdout);
    assert!(output.status.success());
    assert_eq!(
        stderr(&output),
        "warning: <stdin>: the shader has no END instruction: it is read as if END followed its last instruction\n"
    );
    // With END, no warning.
    let output = run(&["fmt"], format!("{text}  1: END\n").as_bytes());
    assert!(output.status.success() && output.stderr.is_empty(), "{}", stderr(&output));
}

#[test]
fn opt_parse_errors_are_located() {
    let output = run(&["opt"], b"FRAG\n  0: MOV TEMP[0], IN[0\n");
    assert_eq!(output.status.code(), Some(1));
    let err = stderr(&output);
    assert!(err.contains("<stdin>:2:"), "{err}");
    assert!(err.contains('^'), "{err}");
}

#[test]
fn opt_usage_errors_exit_with_2() {
    for args in [&["opt", "--emit=text"][..], &["opt", "--style=pretty"], &["opt", "--input=dot"], &["opt", "a", "b"]] {
        let output = run(args, b"");
        assert_eq!(output.status.code(), Some(2), "{args:?}: {}", stderr(&output));
        assert!(output.stdout.is_empty());
    }
}

#[test]
fn opt_help_documents_every_flag() {
    let help = success(&["opt", "--help"], b"");
    for needle in [
        "[FILE]",
        "--passes <LIST>",
        "--emit <FORMAT>",
        "--style <STYLE>",
        "--input <FORMAT>",
        "-o, --output <FILE>",
        "--verify-each",
        "--print-after-all",
        "--print-before <P>",
        "--print-after <P>",
        "--print-format <FORMAT>",
        "--time-passes",
        "--stats",
        "--list-passes",
        "--opt-level <LEVEL>",
        "-O0",
        "tgsi",
        "ir",
        "tokens",
        "dot",
        "exact",
        "mesa",
        "text",
    ] {
        assert!(help.contains(needle), "no `{needle}` in:\n{help}");
    }
    assert!(success(&["--help"], b"").contains("opt"));
}

fn example_state(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/states").join(name);
    path.to_str().expect("UTF-8 path").to_string()
}

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

/// The instructions of a TGSI text, END excluded.
fn instruction_count(text: &str) -> usize {
    text.lines().filter(|l| l.trim_start().split(':').next().is_some_and(|n| n.parse::<u32>().is_ok())).count() - 1
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
            "median_ns_per_invocation"
        ],
        "{out}"
    );
    for line in out.lines() {
        let value = line.split_whitespace().nth(1).unwrap_or("");
        assert!(value.parse::<f64>().is_ok_and(|v| v > 0.0), "{line}");
    }
    // No run to time is a usage error, not a report of nothing.
    assert_eq!(run(&["bench", shader, "--state", &state, "--repeat", "0"], b"").status.code(), Some(2));
    let one = success(&["run", shader, "--state", &state, "--lanes", "4", "--threads", "1"], b"");
    assert_eq!(success(&["run", shader, "--state", &state, "--lanes", "4", "--threads", "2"], b""), one);
    assert_eq!(success(&["run", shader, "--state", &state, "--lanes", "4", "--threads", "0"], b""), one);
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
    assert!(out.contains("verifier failures: 0\nerrors: 0\nelapsed: "), "{out}");
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

/// The hand-written IR of `tests/inputs/ir_text/`.
fn ir_text_path(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/inputs/ir_text").join(name);
    path.to_str().expect("UTF-8 path").to_string()
}

#[test]
fn hand_written_ir_is_optimized_like_a_shader() {
    // An if on a constant: -O keeps the then-arm, and the phi becomes its value.
    let out = success(&["opt", "--input=ir", "-O", &ir_text_path("if_phi.ir")], b"");
    let expected = "\
FRAG
DCL IN[0], GENERIC[0], PERSPECTIVE
DCL OUT[0], COLOR
DCL TEMP[0]
IMM[0] FLT32 {    2.0000,     2.0000,     2.0000,     2.0000}
  0: MUL TEMP[0].x, IN[0].xxxx, IMM[0].xxxx
  1: MOV OUT[0].x, TEMP[0].xxxx
  2: END
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
    fs::write(&path, text.replace("mul.x v0, v2", "mul.x v0, v9")).expect("write");
    let output = run(&["opt", "--input=ir", path.to_str().expect("UTF-8 path")], b"");
    assert_eq!(output.status.code(), Some(1));
    let err = stderr(&output);
    assert!(err.starts_with("error: v9 is used but never defined"), "{err}");
    assert!(err.contains(&format!("{}:11:22", path.display())), "{err}");
    assert!(err.contains("11 |       v3 = mul.x v0, v9"), "{err}");
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
