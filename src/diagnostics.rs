//! The errors the command line reports, and how they are shown.

use std::io;

use tgsi::tokens::DecodeError;
use tgsi::Span;

/// Why a command failed. Every variant is reported on standard error and
/// makes the process exit with status 1.
#[derive(Debug, thiserror::Error)]
pub enum Failure {
    /// The input could not be read.
    #[error("cannot read {what}: {source}")]
    Read {
        /// `` `path` `` or `standard input`.
        what: String,
        /// The I/O error.
        source: io::Error,
    },
    /// The output could not be written.
    #[error("cannot write {what}: {source}")]
    Write {
        /// `` `path` `` or `standard output`.
        what: String,
        /// The I/O error.
        source: io::Error,
    },
    /// The input is not UTF-8 text.
    #[error("{what} is not UTF-8 text: invalid byte at line {line}, column {column}")]
    NotUtf8 {
        /// `` `path` `` or `standard input`.
        what: String,
        /// 1-based line of the first invalid byte.
        line: usize,
        /// 1-based column (in characters) of the first invalid byte.
        column: usize,
    },
    /// A located error in the input, already rendered as a caret diagnostic
    /// (`error: ...`, `--> file:line:col`, the line and a caret).
    #[error("{rendered}")]
    Located {
        /// The full diagnostic text.
        rendered: String,
    },
    /// The shader cannot be written as tokens.
    #[error("cannot encode {what} as tokens: {source}")]
    Encode {
        /// `` `path` `` or `standard input`.
        what: String,
        /// Why not.
        source: tgsi::tokens::EncodeError,
    },
    /// The shader's SSA IR cannot be built (an input without a location:
    /// tokens, or an error that names no instruction).
    #[error("cannot build the IR of {what}: {source}")]
    Build {
        /// `` `path` `` or `standard input`.
        what: String,
        /// Why not.
        source: ir::BuildError,
    },
    /// The IR failed verification: a bug in SSA construction or a pass.
    #[error("{what}, after {after}: {source}")]
    Verify {
        /// `` `path` `` or `standard input`.
        what: String,
        /// The stage that produced it: `SSA construction`, `pass `dce``.
        after: String,
        /// Every problem found.
        source: ir::verify::VerifyError,
    },
    /// The IR cannot be written back as TGSI.
    #[error("{what}: {source}")]
    Emit {
        /// `` `path` `` or `standard input`.
        what: String,
        /// Why not.
        source: ir::EmitError,
    },
    /// The shader could not be run.
    #[error("cannot run {what}: {source}")]
    Exec {
        /// `` `path` `` or `standard input`.
        what: String,
        /// Why not.
        source: exec::ExecError,
    },
    /// The shader could not be rendered.
    #[error("cannot render {what}: {source}")]
    Render {
        /// `` `path` `` or `standard input`.
        what: String,
        /// Why not.
        source: tgsi_opt::render::RenderError,
    },
    /// A `--texture` image that cannot be a texture.
    #[error("cannot use {what} as a texture: {source}")]
    Texture {
        /// `` `path` ``.
        what: String,
        /// Why not.
        source: tgsi_opt::render::TextureError,
    },
    /// `render --compare`: the passes change the picture.
    #[error("the passes change {count} pixel(s); the first: {first}")]
    PixelsDiffer {
        /// How many pixels differ, over every colour buffer.
        count: u64,
        /// The first one, before and after.
        first: String,
    },
    /// Arguments that do not go together (a usage error).
    #[error("{0}")]
    Usage(String),
    /// `check-target` found what shaders need that the target lacks (each
    /// finding was reported under its line).
    #[error("{} {} what target `{target}` lacks", files.join(", "), if files.len() == 1 { "needs" } else { "need" })]
    TargetLacks {
        /// The target's name.
        target: String,
        /// The files with findings.
        files: Vec<String>,
    },
    /// Some of several files failed: each one's failure, in the order the
    /// files were given.
    #[error("{} of {total} files failed", failures.len())]
    Files {
        /// The failures.
        failures: Vec<Failure>,
        /// How many files there were.
        total: usize,
    },
    /// `fuzz-passes` found differences, verifier failures or errors.
    #[error("{count} finding(s) in fuzz-passes; the cases are in {dir}")]
    Findings {
        /// How many.
        count: u64,
        /// The directory they were written to.
        dir: String,
    },
    /// `check` found a pass (or emission) that changes the results.
    #[error("{step} changes the shader's results")]
    Changed {
        /// The pass, or `emission`.
        step: String,
    },
    /// `check` could not decide: the shader does not run, or a pass broke
    /// the IR or emission.
    #[error("check: {0}")]
    Undecided(#[from] testkit::check::CheckError),
    /// `check-doubles` could not run its shaders, or found results that
    /// differ from IEEE-754 arithmetic.
    #[error("check-doubles: {0}")]
    Check(String),
    /// A CSV report given to `report --compare` cannot be read.
    #[error("cannot read the report {what}: {source}")]
    Csv {
        /// The file.
        what: String,
        /// What is wrong, and on which line.
        source: tgsi_opt::report::CsvError,
    },
    /// `reduce` cannot start or go on: the input is not interesting or
    /// does not build, or the test cannot be run.
    #[error("reduce: {0}")]
    Reduce(String),
    /// `--passes` names a pass that does not exist (a usage error).
    #[error("unknown pass `{name}`; known passes: {known}")]
    UnknownPass {
        /// The name given.
        name: String,
        /// The known names, comma-separated.
        known: String,
    },
}

impl Failure {
    /// The text to print on standard error: every line after the first is
    /// context, and the text ends with a newline.
    pub fn report(&self) -> String {
        match self {
            Failure::Located { rendered } if rendered.ends_with('\n') => rendered.clone(),
            Failure::Located { rendered } => format!("{rendered}\n"),
            Failure::Files { failures, .. } => {
                failures.iter().map(Failure::report).collect::<String>() + &format!("error: {self}\n")
            }
            other => format!("error: {other}\n"),
        }
    }

    /// The process exit status for this failure: 2 for a usage error, 1
    /// for everything else.
    pub fn exit_code(&self) -> u8 {
        match self {
            Failure::UnknownPass { .. } | Failure::Usage(_) => 2,
            _ => 1,
        }
    }
}

/// The warning for a shader without an END instruction, or `None` when it
/// has one. Mesa's parser accepts such a shader (and this one reads it as
/// if END followed its last instruction), so it is a warning, not an
/// error; it points at the last item, where the END is missing, when the
/// input was text (`located`: the text and each item's span).
pub fn missing_end_warning(shader: &tgsi::Shader, located: Option<(&str, &[Span])>, file_name: &str) -> Option<String> {
    if shader.instructions().any(|i| i.opcode == tgsi::Opcode::End) {
        return None;
    }
    let message = "the shader has no END instruction: it is read as if END followed its last instruction";
    Some(match located {
        Some((text, spans)) => {
            // With no items, the header line is where the program ends.
            let span = spans.last().copied().unwrap_or_else(|| line_span(text, |_, _| true));
            let error = tgsi::ParseError { message: message.to_string(), span, limit: None };
            let rendered = error.render(text, file_name);
            format!("warning: {}", rendered.strip_prefix("error: ").unwrap_or(&rendered))
        }
        None => format!("warning: {file_name}: {message}\n"),
    })
}

/// Renders a token error as a caret diagnostic on the hex text it was read
/// from (one word a line): a bad line, or the word where decoding failed.
pub fn token_failure(err: &DecodeError, hex_text: &str, file_name: &str) -> Failure {
    let span = match err {
        DecodeError::Hex { line, .. } => line_span(hex_text, |number, _| number == *line),
        DecodeError::Token { word, .. } => {
            let mut words_seen = 0;
            line_span(hex_text, |_, _| {
                let found = words_seen == *word;
                words_seen += 1;
                found
            })
        }
    };
    // The location line names the line: the message need not say it again.
    let message = match err {
        DecodeError::Hex { text, .. } => {
            format!("{text:?} is not a 32-bit word written 0x followed by 1 to 8 hex digits")
        }
        DecodeError::Token { .. } => err.to_string(),
    };
    let error = tgsi::ParseError { message, span, limit: None };
    Failure::Located { rendered: error.render(hex_text, file_name) }
}

/// The span of the trimmed content of the first non-blank line for which
/// `wanted(line_number, content)` holds; when none does, the point just
/// after the last non-blank line's content (where a missing word would be).
fn line_span(text: &str, mut wanted: impl FnMut(usize, &str) -> bool) -> Span {
    let mut last_end = Span { start: 0, end: 0, line: 1, column: 1 };
    let mut offset = 0;
    for (index, line) in text.split('\n').enumerate() {
        let content = line.trim();
        if !content.is_empty() {
            let lead = line.len() - line.trim_start().len();
            let start = offset + lead;
            let number = index + 1;
            let line_no = u32::try_from(number).unwrap_or(u32::MAX);
            let column = u32::try_from(line[..lead].chars().count() + 1).unwrap_or(u32::MAX);
            if wanted(number, content) {
                return Span { start, end: start + content.len(), line: line_no, column };
            }
            let width = u32::try_from(content.chars().count()).unwrap_or(u32::MAX);
            let end = start + content.len();
            last_end = Span { start: end, end, line: line_no, column: column.saturating_add(width) };
        }
        offset += line.len() + 1;
    }
    last_end
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn io_errors_name_the_file() {
        let failure = Failure::Read {
            what: "`missing.tgsi`".into(),
            source: io::Error::new(io::ErrorKind::NotFound, "No such file or directory"),
        };
        assert_eq!(failure.report(), "error: cannot read `missing.tgsi`: No such file or directory\n");
        assert_eq!(failure.exit_code(), 1);
    }

    #[test]
    fn unknown_pass_is_a_usage_error() {
        let failure = Failure::UnknownPass { name: "dse".into(), known: "(none yet)".into() };
        assert_eq!(failure.report(), "error: unknown pass `dse`; known passes: (none yet)\n");
        assert_eq!(failure.exit_code(), 2);
    }

    #[test]
    fn ir_errors_name_the_file() {
        let failure =
            Failure::Emit { what: "`a.tgsi`".into(), source: ir::EmitError::Unwritable("too many registers".into()) };
        assert_eq!(failure.report(), "error: `a.tgsi`: cannot emit TGSI: too many registers\n");
        assert_eq!(failure.exit_code(), 1);
        let issue = ir::verify::VerifyIssue { block: None, inst: None, inst_text: None, message: "no entry".into() };
        let failure = Failure::Verify {
            what: "`a.tgsi`".into(),
            after: "SSA construction".into(),
            source: ir::verify::VerifyError { issues: vec![issue] },
        };
        assert_eq!(failure.report(), "error: `a.tgsi`, after SSA construction: invalid IR: no entry\n");
        let source =
            ir::BuildError { inst: None, message: "an indirect access names TEMP array 3".into(), limit: None };
        let failure = Failure::Build { what: "standard input".into(), source };
        assert_eq!(
            failure.report(),
            "error: cannot build the IR of standard input: an indirect access names TEMP array 3\n"
        );
    }

    #[test]
    fn located_errors_are_printed_as_rendered() {
        let failure = Failure::Located { rendered: "error: x\n --> a.tgsi:1:1\n".into() };
        assert_eq!(failure.report(), "error: x\n --> a.tgsi:1:1\n");
        let failure = Failure::Located { rendered: "error: x".into() };
        assert_eq!(failure.report(), "error: x\n");
    }

    #[test]
    fn bad_hex_line_is_located() {
        let text = "0x00000202\n\n  0xnope \n";
        let err = tgsi::tokens::parse_hex(text).unwrap_err();
        let report = token_failure(&err, text, "a.hex").report();
        assert!(report.starts_with("error: \"0xnope\" is not a 32-bit word"), "{report}");
        assert!(report.contains("a.hex:3:3"), "{report}");
        assert!(!report.contains("line 3"), "the line is named once: {report}");
        assert!(report.contains("3 |   0xnope"), "{report}");
        assert!(report.contains("|   ^^^^^^\n"), "{report}");
    }

    #[test]
    fn token_errors_point_at_their_word() {
        let problem = tgsi::tokens::decode(&[0x0000_0202, 0x0000_0004, 0xffff_ffff]).unwrap_err();
        let Some(word) = problem.word() else { panic!("no word index: {problem}") };
        let text = "0x00000202\n\n0x00000004\n0xffffffff\n";
        let report = token_failure(&problem, text, "a.hex").report();
        assert!(report.contains(&format!("word {word}")), "{report}");
        // Word n is on line n + 1, skipping the blank line.
        let line = if word == 0 { 1 } else { word + 2 };
        assert!(report.contains(&format!("a.hex:{line}:1")), "{report}");
    }

    #[test]
    fn a_missing_end_is_a_located_warning() {
        let text = "FRAG\nDCL OUT[0], COLOR\n  0: MOV OUT[0], IN[0]\n";
        let (shader, spans) = tgsi::parse_with_spans(text).expect("parses");
        let warning = missing_end_warning(&shader, Some((text, &spans)), "a.tgsi").expect("no END");
        assert!(warning.starts_with("warning: the shader has no END instruction: it is read as if END followed"));
        assert!(warning.contains(" --> a.tgsi:3:3\n"), "{warning}");
        assert!(warning.ends_with("3 |   0: MOV OUT[0], IN[0]\n  |   ^^^^^^^^^^^^^^^^^^^^\n"), "{warning}");
        let warning = missing_end_warning(&shader, None, "<stdin>").expect("no END");
        assert!(warning.starts_with("warning: <stdin>: the shader has no END"), "{warning}");
        let (shader, spans) = tgsi::parse_with_spans("FRAG\n").expect("parses");
        let warning = missing_end_warning(&shader, Some(("FRAG\n", &spans)), "b.tgsi").expect("no END");
        assert!(warning.contains(" --> b.tgsi:1:1\n"), "{warning}");
        let text = "FRAG\nDCL OUT[0], COLOR\n  0: END\n";
        let (shader, spans) = tgsi::parse_with_spans(text).expect("parses");
        assert_eq!(missing_end_warning(&shader, Some((text, &spans)), "c.tgsi"), None);
    }

    #[test]
    fn missing_words_point_after_the_last_one() {
        assert_eq!(line_span("0x1\n0x22\n\n", |_, _| false), Span { start: 8, end: 8, line: 2, column: 5 });
        assert_eq!(line_span("", |_, _| false), Span { start: 0, end: 0, line: 1, column: 1 });
    }
}
