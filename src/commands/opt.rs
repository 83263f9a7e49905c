//! `tgsi-opt opt`: build a shader's SSA IR, run passes over it, and write
//! the result.

use std::io::Write;
use std::path::{Path, PathBuf};

use rayon::prelude::*;

use tgsi::{tokens, Shader, Span};

use crate::cli::{Format, OptArgs, OptEmit};
use crate::commands::check_target;
use crate::diagnostics::{missing_end_warning, token_failure, Failure};
use crate::files::{write_output, Input};
use crate::progress::Progress;

/// Runs `opt`.
pub fn run(args: &OptArgs) -> Result<(), Failure> {
    // Unknown pass names are usage errors: report them before reading
    // anything, and before --list-passes, which would otherwise hide them.
    let pipeline = args.pipeline.pipeline()?;
    for name in args.print_before.iter().chain(&args.print_after) {
        if passes::find(name).is_none() {
            return Err(unknown_pass(passes::UnknownPass { name: name.clone() }));
        }
    }
    if args.list_passes {
        return write_output(None, list_passes().as_bytes());
    }
    if args.files.len() > 1 || args.out_dir.is_some() {
        return run_files(args, &pipeline);
    }
    let input = Input::from_arg(args.files.first().map(PathBuf::as_path));
    let (output, report) = optimize(&input, args, &pipeline)?;
    report_passes(args, &report);
    write_output(args.output.as_deref(), output.as_bytes())
}

/// `opt` over several files into `--out-dir`, `--jobs` at a time. Every
/// file is tried; the failures are reported together, in input order.
fn run_files(args: &OptArgs, pipeline: &passes::Pipeline) -> Result<(), Failure> {
    let Some(dir) = args.out_dir.as_deref() else {
        return Err(Failure::Usage("several input files need --out-dir DIR".to_string()));
    };
    if args.print_after_all || !args.print_before.is_empty() || !args.print_after.is_empty() {
        return Err(Failure::Usage("--print-* flags print one file at a time: give a single FILE".to_string()));
    }
    let root = common_dir(&args.files);
    let mut targets = Vec::new();
    // Which input each output name is taken by: a map, not a search per
    // file, so that thousands of files cost no more than their count.
    let mut taken: std::collections::HashMap<PathBuf, &PathBuf> = std::collections::HashMap::new();
    for file in &args.files {
        let name = out_name(file, &root, args.emit)
            .ok_or_else(|| Failure::Usage(format!("`{}` has no file name to write under", file.display())))?;
        if let Some(other) = taken.insert(name.clone(), file) {
            let clash =
                format!("`{}` and `{}` would both be written to `{}`", other.display(), file.display(), name.display());
            return Err(Failure::Usage(clash));
        }
        targets.push((file, name));
    }
    let progress = Progress::new(targets.len() as u64, "files");
    let one = |(file, name): &(&PathBuf, PathBuf)| -> Result<passes::Report, Failure> {
        let result = optimize_into(file, &dir.join(name), args, pipeline);
        progress.step();
        result
    };
    let results: Vec<Result<passes::Report, Failure>> = match args.jobs {
        1 => targets.iter().map(one).collect(),
        jobs => rayon::ThreadPoolBuilder::new()
            .num_threads(jobs)
            .build()
            .map_err(|e| Failure::Usage(format!("cannot start {jobs} jobs: {e}")))?
            .install(|| targets.par_iter().map(one).collect()),
    };
    let mut total = passes::Report::default();
    let mut failures = Vec::new();
    for result in results {
        match result {
            Ok(report) => {
                total.iterations = total.iterations.max(report.iterations);
                total.runs.extend(report.runs);
            }
            Err(failure) => failures.push(failure),
        }
    }
    progress.finish();
    report_passes(args, &total);
    if failures.is_empty() {
        to_stderr(&format!("optimized {} file(s) into `{}`\n", targets.len(), dir.display()));
        Ok(())
    } else {
        Err(Failure::Files { failures, total: targets.len() })
    }
}

/// Optimizes `file` and writes the result to `out`, creating its folder.
fn optimize_into(
    file: &Path,
    out: &Path,
    args: &OptArgs,
    pipeline: &passes::Pipeline,
) -> Result<passes::Report, Failure> {
    let (output, report) = optimize(&Input::File(file.to_path_buf()), args, pipeline)?;
    if let Some(parent) = out.parent() {
        std::fs::create_dir_all(parent)
            .map_err(|source| Failure::Write { what: format!("`{}`", parent.display()), source })?;
    }
    write_output(Some(out), output.as_bytes())?;
    Ok(report)
}

/// The directory holding every input file (as written on the command
/// line): results keep their paths below it.
fn common_dir(files: &[PathBuf]) -> PathBuf {
    let mut dirs = files.iter().map(|f| f.parent().map(Path::to_path_buf).unwrap_or_default());
    let Some(mut common) = dirs.next() else { return PathBuf::new() };
    for dir in dirs {
        while !dir.starts_with(&common) {
            if !common.pop() {
                return PathBuf::new();
            }
        }
    }
    common
}

/// The path a result is written under in `--out-dir`: the input's path
/// below `root`.
fn out_name(file: &Path, root: &Path, emit: OptEmit) -> Option<PathBuf> {
    file.file_name()?;
    let name =
        file.strip_prefix(root).map_or_else(|_| PathBuf::from(file.file_name().unwrap_or_default()), Path::to_path_buf);
    // `..` or an absolute path would write outside the directory.
    if name.components().any(|c| !matches!(c, std::path::Component::Normal(_))) {
        return None;
    }
    Some(match emit {
        OptEmit::Tgsi => name,
        OptEmit::Ir => name.with_extension("ir"),
        OptEmit::Tokens => name.with_extension("hex"),
        OptEmit::Dot => name.with_extension("dot"),
    })
}

/// Builds one input, runs the pipeline and renders what `--emit` asks for.
fn optimize(input: &Input, args: &OptArgs, pipeline: &passes::Pipeline) -> Result<(String, passes::Report), Failure> {
    let target = args.pipeline.target()?;
    let (mut module, _, inherited) = build_for(input, args.input_format, target.as_ref())?;
    let options = passes::Options {
        verify_each: args.verify_each,
        print: passes::PrintOptions {
            before: args.print_before.clone(),
            after: args.print_after.clone(),
            after_all: args.print_after_all,
            format: args.print_format.into(),
        },
        // Only the emitted shader is shown, which does not depend on the
        // IR's numbering (emission compacts the module anyway).
        compact: matches!(args.emit, OptEmit::Tgsi | OptEmit::Tokens)
            && args.print_before.is_empty()
            && args.print_after.is_empty()
            && !args.print_after_all,
    };
    let report = run_pipeline(pipeline, &mut module, options, input)?;
    let emit_options = emit_options(args.verify_each, target.as_ref(), module.processor);
    let emitted = |module| {
        let shader = emit_compacted(module, input, &emit_options)?;
        if let Some(target) = &target {
            check_target::check_output(&shader, &inherited, target)?;
        }
        Ok::<_, Failure>(shader)
    };
    let output = match args.emit {
        OptEmit::Tgsi => tgsi::print(&emitted(module)?, args.style.into()),
        OptEmit::Ir => ir::print::print_module_with(&module, &ir::print::PrintOptions { origins: args.origins }),
        OptEmit::Tokens => {
            let shader = emitted(module)?;
            let words = tokens::encode(&shader).map_err(|source| Failure::Encode { what: input.describe(), source })?;
            tokens::to_hex(&words)
        }
        OptEmit::Dot => ir::dot::function_to_dot(&module.function),
    };
    Ok((output, report))
}

/// `--time-passes` and `--stats`, on standard error.
fn report_passes(args: &OptArgs, report: &passes::Report) {
    if args.time_passes {
        to_stderr(&report.time_table());
    }
    if args.stats {
        to_stderr(&report.stats_text());
    }
}

/// What `--list-passes` prints: each registered pass's name and
/// description, one a line, then the `-O1` pipeline.
pub fn list_passes() -> String {
    let width = passes::registry().iter().map(|p| p.name().len()).max().unwrap_or(0);
    let mut s = String::new();
    for pass in passes::registry() {
        s.push_str(&format!("{:<width$}  {}\n", pass.name(), pass.description()));
    }
    s.push_str(&format!("-O1 runs: {}\n", passes::Pipeline::o1().names().join(", ")));
    s
}

/// Runs `pipeline` over `module` (printed modules go to standard error);
/// a verifier failure names the pass.
pub(crate) fn run_pipeline(
    pipeline: &passes::Pipeline,
    module: &mut ir::Module,
    options: passes::Options,
    input: &Input,
) -> Result<passes::Report, Failure> {
    passes::PassManager::new(options).on_print(to_stderr).run(pipeline, module).map_err(|err| match err {
        passes::RunError::Verify { pass, source } => {
            Failure::Verify { what: input.describe(), after: format!("pass `{pass}`"), source }
        }
    })
}

/// The usage error for a pass name that is not registered.
pub(crate) fn unknown_pass(err: passes::UnknownPass) -> Failure {
    Failure::UnknownPass { name: err.name, known: passes::known_names() }
}

/// Writes diagnostics text to standard error (nothing more can be done if
/// it is closed).
pub(crate) fn to_stderr(text: &str) {
    let _ = std::io::stderr().lock().write_all(text.as_bytes());
}

/// Reads the input and builds its verified SSA IR: what `opt` and `run`
/// start from. Also returns the input's instruction count (END excluded).
pub(crate) fn build(input: &Input, format: Format) -> Result<(ir::Module, usize), Failure> {
    build_for(input, format, None).map(|(module, instructions, _)| (module, instructions))
}

/// [`build`], also checking the input against `target`: what it needs
/// that the target lacks (nothing for IR input).
pub(crate) fn build_for(
    input: &Input,
    format: Format,
    target: Option<&target::Target>,
) -> Result<(ir::Module, usize, check_target::Inherited), Failure> {
    if format == Format::Ir {
        let module = read_ir(input)?;
        // The source is the IR: count its placed instructions.
        let func = &module.function;
        let instructions =
            func.blocks_in_order().iter().filter_map(|&b| func.blocks.get(b)).map(|b| b.insts.len()).sum();
        return Ok((module, instructions, check_target::Inherited::default()));
    }
    let (shader, located) = read_shader(input, format)?;
    if let Some(located) = &located {
        check_declared(&shader, located, input)?;
    }
    let inherited =
        target.map(|t| check_target::Inherited::of(&shader, located.as_ref(), input, t)).unwrap_or_default();
    // The text and spans only locate a build error: not held beside the
    // IR while it is built (the peak of a large shader's compile). A build
    // error parses the text again for the spans, and reads a file again
    // for its text; standard input cannot be read twice, so its text stays.
    let is_text = located.is_some();
    let text = located.and_then(|located| matches!(input, Input::Stdin).then_some(located.text));
    let module = ir::from_tgsi(&shader).map_err(|err| {
        let text = text.or_else(|| is_text.then(|| input.read_text().ok()).flatten());
        build_failure(err, input, &shader, text.as_deref())
    })?;
    let instructions = shader.instructions().filter(|i| i.opcode != tgsi::Opcode::End).count();
    // The parsed shader is about as large as the IR: gone before the
    // verifier's tables are added to the IR.
    drop(shader);
    verify(&module, input, "SSA construction")?;
    Ok((module, instructions, inherited))
}

/// Reads the IR's text form and verifies it: a parse error is shown
/// under its line, a module that does not verify is refused before any
/// pass sees it.
pub(crate) fn read_ir(input: &Input) -> Result<ir::Module, Failure> {
    let text = input.read_text()?;
    let module =
        ir::parse(&text).map_err(|err| Failure::Located { rendered: err.render(&text, &input.file_name()) })?;
    verify(&module, input, "reading the IR")?;
    Ok(module)
}

/// The input text and the span of every item, for locating build errors
/// (text input only).
pub(crate) struct Located {
    pub(crate) text: String,
    pub(crate) spans: Vec<Span>,
}

/// Reads and parses (or decodes) the input.
pub(crate) fn read_shader(input: &Input, format: Format) -> Result<(Shader, Option<Located>), Failure> {
    let text = input.read_text()?;
    let file_name = input.file_name();
    let (shader, located) = match format {
        Format::Text => match tgsi::parse_with_spans(&text) {
            Ok((shader, spans)) => (shader, Some(Located { text, spans })),
            Err(err) => return Err(Failure::Located { rendered: err.render(&text, &file_name) }),
        },
        Format::Tokens => tokens::parse_hex(&text)
            .and_then(|words| tokens::decode(&words))
            .map(|shader| (shader, None))
            .map_err(|err| token_failure(&err, &text, &file_name))?,
        Format::Ir => return Err(Failure::Usage("IR input is read by `read_ir`".to_string())),
    };
    let at = located.as_ref().map(|l| (l.text.as_str(), l.spans.as_slice()));
    if let Some(warning) = missing_end_warning(&shader, at, &file_name) {
        to_stderr(&warning);
    }
    Ok((shader, located))
}

/// The registers used without a declaration, with a caret under each:
/// Mesa accepts them, so each is a warning on standard error, except an
/// `IMM[n]` past the immediates, which has no value and is an error.
fn check_declared(shader: &Shader, located: &Located, input: &Input) -> Result<(), Failure> {
    let mut warnings = String::new();
    for found in tgsi::undeclared(shader) {
        let Some(&item_span) = located.spans.get(found.item) else { continue };
        let span = register_span(&located.text, item_span, &found.register.to_string());
        let message = format!("{} is not declared", found.register);
        let rendered = tgsi::ParseError { message, span, limit: None }.render(&located.text, &input.file_name());
        if found.register.file == tgsi::File::Immediate {
            to_stderr(&warnings);
            return Err(Failure::Located { rendered });
        }
        warnings.push_str("warning: ");
        warnings.push_str(rendered.strip_prefix("error: ").unwrap_or(&rendered));
    }
    to_stderr(&warnings);
    Ok(())
}

/// The span of the first `name` (`IN[3]`) standing alone within the item
/// at `item`; the whole item when it is not found (a register written
/// with spaces inside its brackets).
pub(crate) fn register_span(text: &str, item: Span, name: &str) -> Span {
    let Some(item_text) = text.get(item.start..item.end) else { return item };
    let alone = |at: usize| {
        let before = item_text[..at].chars().next_back();
        !before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
    };
    let Some((at, _)) = item_text.match_indices(name).find(|&(at, _)| alone(at)) else { return item };
    let lead = &item_text[..at];
    let (line, column) = match lead.rfind('\n') {
        Some(nl) => (item.line + lead.matches('\n').count() as u32, lead[nl + 1..].chars().count() as u32 + 1),
        None => (item.line, item.column + lead.chars().count() as u32),
    };
    Span { start: item.start + at, end: item.start + at + name.len(), line, column }
}

/// A build error, with a caret under the instruction it names when the
/// input was text.
fn build_failure(err: ir::BuildError, input: &Input, shader: &Shader, text: Option<&str>) -> Failure {
    // The text parsed before, so it parses again, to the same items.
    let spans = text.and_then(|text| tgsi::parse_with_spans(text).ok()).map(|(_, spans)| spans);
    let span = spans.zip(err.inst).and_then(|(spans, inst)| instruction_span(shader, &spans, inst));
    match (text, span) {
        (Some(text), Some(span)) => {
            let error =
                tgsi::ParseError { message: format!("cannot build the IR: {}", err.message), span, limit: None };
            Failure::Located { rendered: error.render(text, &input.file_name()) }
        }
        _ => Failure::Build { what: input.describe(), source: err },
    }
}

/// The span of the `inst`-th instruction (counting from 0, as
/// [`ir::BuildError::inst`] does).
fn instruction_span(shader: &Shader, spans: &[Span], inst: usize) -> Option<Span> {
    shader
        .items
        .iter()
        .zip(spans)
        .filter(|(item, _)| matches!(item, tgsi::Item::Instruction(_)))
        .nth(inst)
        .map(|(_, span)| *span)
}

/// Checks the IR; `after` names the stage that produced it.
fn verify(module: &ir::Module, input: &Input, after: &str) -> Result<(), Failure> {
    ir::verify::verify(&module.function).map_err(|source| Failure::Verify {
        what: input.describe(),
        after: after.to_string(),
        source,
    })
}

/// The module as a TGSI shader, emitted from its live instructions only
/// and dropped before the shader is printed: what the passes deleted no
/// longer sizes emission's tables, and the IR and the printed text are
/// not held at once. (The printed IR keeps its numbering: only emission
/// sees the compacted module.)
pub(crate) fn emit_compacted(
    mut module: ir::Module,
    input: &Input,
    options: &ir::EmitOptions,
) -> Result<Shader, Failure> {
    module.function.compact();
    ir::to_tgsi_with(&module, options).map_err(|source| Failure::Emit { what: input.describe(), source })
}

/// How `opt` emits: with emission's allocation checker on when `check`
/// (`--verify-each`) asks for it or debug assertions are on, and with the
/// target's tuning.
pub(crate) fn emit_options(check: bool, target: Option<&target::Target>, stage: tgsi::Processor) -> ir::EmitOptions {
    passes::emit_options(target, stage, check || cfg!(debug_assertions))
}

/// The module as a TGSI shader (checked in builds with debug assertions).
pub(crate) fn emit(module: &ir::Module, input: &Input) -> Result<Shader, Failure> {
    ir::to_tgsi(module).map_err(|source| Failure::Emit { what: input.describe(), source })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passes_come_from_the_registry() {
        let listed = list_passes();
        for pass in passes::registry() {
            // Names are padded to the longest one.
            let line = listed.lines().find(|l| l.split_whitespace().next() == Some(pass.name()));
            assert!(line.is_some_and(|l| l.ends_with(&format!("  {}", pass.description()))), "{listed}");
        }
        assert!(listed.ends_with(&format!("-O1 runs: {}\n", passes::Pipeline::o1().names().join(", "))), "{listed}");
        let err = unknown_pass(passes::UnknownPass { name: "gvn".into() });
        assert_eq!(err.report(), format!("error: unknown pass `gvn`; known passes: {}\n", passes::known_names()));
        assert_eq!(err.exit_code(), 2);
    }

    #[test]
    fn build_errors_point_at_the_instruction() {
        let text = "FRAG\nDCL OUT[0], COLOR\n  0: BRK\n  1: END\n";
        let shader = tgsi::parse(text).expect("parses");
        let err = ir::from_tgsi(&shader).expect_err("BRK outside a loop");
        let input = Input::File("a.tgsi".into());
        let report = build_failure(err.clone(), &input, &shader, Some(text)).report();
        assert!(report.starts_with("error: cannot build the IR: BRK outside a loop"), "{report}");
        assert!(report.contains("--> a.tgsi:3:"), "{report}");
        assert!(report.contains("3 |   0: BRK"), "{report}");
        let report = build_failure(err, &input, &shader, None).report();
        assert_eq!(report, "error: cannot build the IR of `a.tgsi`: instruction 0: BRK outside a loop or switch\n");
    }
}
