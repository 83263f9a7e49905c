//! `opt`: passes, levels, printing around passes, statistics and build errors.

use super::*;

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
    assert!(ir.starts_with("frag\nsource: 9 instructions\ninterface:\n"), "{ir}");
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
    // -O iterates its passes to a fixed point: coalesce and the second
    // dce change nothing, so once constfold has run again (changing
    // nothing) the module is at the fixed point and nothing else reruns.
    assert!(err.starts_with("; *** after constfold (iteration 1) ***\nfrag\nsource: "), "{err}");
    assert!(err.contains("; *** after dce (iteration 1) ***\nfrag\nsource: "), "{err}");
    assert!(err.contains("; *** after constfold (iteration 2) ***\n"), "{err}");
    assert!(!err.contains("; *** after dce (iteration 2) ***\n"), "{err}");

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
            "   3  dce  - texture channels removed",
            "   1  dce  - ifs removed",
            "   3  dce  - blocks removed",
        ],
        "{err}"
    );
    // When nothing changes, one line says so.
    let unchanged = "VERT\nDCL IN[0]\nDCL OUT[0], POSITION\nDCL CONST[0]\nMUL OUT[0], IN[0], CONST[0]\nEND\n";
    let output = run(&["opt", "-O", "--stats"], unchanged.as_bytes());
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

/// A doubling chain of 20 subroutine calls (2^20 ADDs once inlined) is
/// refused at its call with a located error, from text and from tokens,
/// before anything is built; so are control flow nested past the limit
/// and a register index past the one rule.
#[test]
fn inputs_past_the_limits_are_located_errors() {
    let mut lines = vec!["MOV TEMP[0], IN[0]".to_string(), "CAL :4".into(), "MOV OUT[0], TEMP[0]".into(), "END".into()];
    for i in 0..20 {
        let next = 4 + 4 * (i + 1);
        lines.extend(["BGNSUB".into(), format!("CAL :{next}"), format!("CAL :{next}"), "ENDSUB".into()]);
    }
    lines.extend(["BGNSUB".into(), "ADD TEMP[0], TEMP[0], IN[0]".into(), "ENDSUB".into()]);
    let chain = format!("FRAG\nDCL IN[0]\nDCL OUT[0], COLOR\nDCL TEMP[0]\n{}\n", lines.join("\n"));
    let out = run(&["opt", "-O1", "-"], chain.as_bytes());
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(
        err.starts_with("error: cannot build the IR: this CAL :4 brings the program to 1048577 instructions")
            && err.contains("--> <stdin>:6:1"),
        "{err}"
    );
    let hex = success(&["fmt", "--emit=tokens", "-"], chain.as_bytes());
    let out = run(&["opt", "--input=tokens", "-"], hex.as_bytes());
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("instruction 1: this CAL :4 brings the program to 1048577"), "{}", stderr(&out));

    let mut deep = String::from("FRAG\nDCL IN[0]\n");
    deep.push_str(&"IF IN[0].xxxx\n".repeat(65));
    deep.push_str(&"ENDIF\n".repeat(65));
    let out = run(&["opt", "-"], deep.as_bytes());
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).starts_with("error: control flow nests more than 64 levels deep (the limit)\n  --> <stdin>:67:1"),
        "{}",
        stderr(&out)
    );

    let out = run(&["fmt", "-"], b"FRAG\nDCL TEMP[0..65535]\nEND\n");
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).starts_with("error: register index 65535 is out of range (at most 32767)\n"),
        "{}",
        stderr(&out)
    );
}
