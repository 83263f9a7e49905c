//! `fmt`: canonical printing, tokens, and the errors every command shares.

use super::*;

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
    let mut checked = 0;
    for tgsi in cases.iter().step_by(25) {
        let (Ok(dump), Ok(hex)) =
            (fs::read_to_string(tgsi.with_extension("dump")), fs::read_to_string(tgsi.with_extension("hex")))
        else {
            failures.push(format!("{}: no .dump or no .hex", tgsi.display()));
            continue;
        };
        checked += 1;
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
    // One case in 25 of 377.
    testdata::assert_checked("fmt_matches_mesa_on_conformance_sample", "cases", checked, 15);
}
