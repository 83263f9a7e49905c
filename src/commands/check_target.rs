//! `tgsi-opt check-target`: what a shader needs that a driver lacks, each
//! finding under its line; and the same check of `opt --target`'s output.

use std::path::PathBuf;

use target::{Finding, Lack, Target};
use tgsi::Shader;

use crate::cli::{target_of, CheckTargetArgs, Format};
use crate::commands::opt::{read_shader, register_span, to_stderr, Located};
use crate::diagnostics::Failure;
use crate::files::{write_output, Input};

/// Checks every file; fails (exit 1) when any needs what the target lacks.
pub fn run(args: &CheckTargetArgs) -> Result<(), Failure> {
    let target = target_of(args.target.as_deref(), args.caps.as_deref())?
        .ok_or_else(|| Failure::Usage("check-target needs --target NAME or --caps LIST".to_string()))?;
    if args.input_format == Format::Ir {
        return Err(Failure::Usage("check-target reads TGSI text or tokens, not the IR's text form".to_string()));
    }
    let inputs: Vec<Input> = if args.files.is_empty() {
        vec![Input::Stdin]
    } else {
        args.files.iter().map(|f| Input::from_arg(Some(f.as_path()))).collect()
    };
    let mut report = String::new();
    let mut lacking = Vec::new();
    for input in &inputs {
        let (shader, located) = read_shader(input, args.input_format)?;
        let findings = target::check(&shader, &target);
        if findings.is_empty() {
            report.push_str(&format!("{}: target `{}` takes it\n", input.file_name(), target.name()));
        } else {
            to_stderr(&render(&findings, &shader, located.as_ref(), input, &target));
            report.push_str(&format!("{}: {} finding(s)\n", input.file_name(), findings.len()));
            lacking.push(input.file_name());
        }
    }
    write_output(None, report.as_bytes())?;
    if lacking.is_empty() {
        Ok(())
    } else {
        Err(Failure::TargetLacks { target: target.name().to_string(), files: lacking })
    }
}

/// What an input needs that a target lacks: the findings, and their
/// diagnostics under the input's lines.
#[derive(Debug, Default)]
pub(crate) struct Inherited {
    findings: Vec<Finding>,
    rendered: String,
}

impl Inherited {
    /// The findings of `shader`, read from `input`.
    pub(crate) fn of(shader: &Shader, located: Option<&Located>, input: &Input, target: &Target) -> Inherited {
        let findings = target::check(shader, target);
        let rendered = render(&findings, shader, located, input, target);
        Inherited { findings, rendered }
    }
}

/// Checks `emitted`, an optimized shader, against `target`. What its
/// input already needed (`inherited`) is a warning, under the input's
/// lines (the driver may still take it: r300's fragment compiler
/// emulates branches its caps do not allow); what only the optimized
/// shader needs, such as TEMPs past the budget, is an error showing the
/// emitted instructions.
pub(crate) fn check_output(emitted: &Shader, inherited: &Inherited, target: &Target) -> Result<(), Failure> {
    let findings = target::check(emitted, target);
    if findings.is_empty() {
        return Ok(());
    }
    let new = target::introduced(&inherited.findings, findings);
    if !new.is_empty() {
        let optimized = Input::File(PathBuf::from("<optimized>"));
        return Err(Failure::Located { rendered: render(&new, emitted, None, &optimized, target) });
    }
    to_stderr(&inherited.rendered.replace("error: ", "warning: "));
    Ok(())
}

/// The findings as diagnostics: a caret under the offending text of a
/// text input, the printed item otherwise.
fn render(findings: &[Finding], shader: &Shader, located: Option<&Located>, input: &Input, target: &Target) -> String {
    // Printed only when a finding has no line of the input to stand under.
    let mut printed = None;
    let mut out = String::new();
    for f in findings {
        let message = format!("{} (target `{}`)", f.lack, target.name());
        let span = f.item.zip(located).and_then(|(k, l)| l.spans.get(k).map(|&span| (span, l)));
        match (span, f.item) {
            (Some((span, located)), _) => {
                // Under the opcode, where the lack is the instruction's own.
                let opcode = match (f.lack, f.item.and_then(|k| shader.items.get(k))) {
                    (
                        Lack::Opcode { .. } | Lack::NotNative(_) | Lack::Subroutine(_) | Lack::Depth { .. },
                        Some(tgsi::Item::Instruction(inst)),
                    ) => Some(inst.opcode),
                    _ => None,
                };
                let span = opcode.map_or(span, |op| register_span(&located.text, span, op.name()));
                let error = tgsi::ParseError { message, span, limit: None };
                out.push_str(&error.render(&located.text, &input.file_name()));
            }
            // The printed shader: its header, then an item a line.
            (None, Some(k)) => {
                let printed = printed.get_or_insert_with(|| tgsi::print(shader, tgsi::Style::Exact));
                let line = tgsi::print::item_line(printed, k).unwrap_or("");
                out.push_str(&format!("error: {message}\n --> {}: `{line}`\n", input.file_name()));
            }
            (None, None) => out.push_str(&format!("error: {message}\n --> {}\n", input.file_name())),
        }
    }
    out
}
