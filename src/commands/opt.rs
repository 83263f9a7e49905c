//! `tgsi-opt opt`: build a shader's SSA IR, run passes over it, and write
//! the result.

use tgsi::{tokens, Shader, Span};

use crate::cli::{Format, OptArgs, OptEmit};
use crate::diagnostics::{token_failure, Failure};
use crate::files::{write_output, Input};

/// A named pass: what `--passes` can list.
pub struct Pass {
    /// The name `--passes` uses.
    pub name: &'static str,
    /// Rewrites the module in place.
    pub run: fn(&mut ir::Module),
}

/// Every pass `--passes` accepts, in the order `unknown pass` errors list
/// them. The passes come with the passes crate; until then there are none.
pub fn known_passes() -> &'static [Pass] {
    &[]
}

/// Runs `opt`.
pub fn run(args: &OptArgs) -> Result<(), Failure> {
    // Unknown pass names are usage errors: report them before reading anything.
    let pipeline = resolve_passes(&args.passes, known_passes())?;
    let input = Input::from_arg(args.file.as_deref());
    let (mut module, _) = build(&input, args.input_format)?;
    for pass in pipeline {
        (pass.run)(&mut module);
        if args.verify_each {
            verify(&module, &input, &format!("pass `{}`", pass.name))?;
        }
    }

    let output = match args.emit {
        OptEmit::Tgsi => tgsi::print(&emit(&module, &input)?, args.style.into()),
        OptEmit::Ir => ir::print::print_module(&module),
        OptEmit::Tokens => {
            let shader = emit(&module, &input)?;
            let words = tokens::encode(&shader).map_err(|source| Failure::Encode { what: input.describe(), source })?;
            tokens::to_hex(&words)
        }
        OptEmit::Dot => ir::dot::function_to_dot(&module.function),
    };
    write_output(args.output.as_deref(), output.as_bytes())
}

/// Reads the input and builds its verified SSA IR: what `opt` and `run`
/// start from. Also returns the input's instruction count (END excluded).
pub(crate) fn build(input: &Input, format: Format) -> Result<(ir::Module, usize), Failure> {
    let (shader, located) = read_shader(input, format)?;
    let module = ir::from_tgsi(&shader).map_err(|err| build_failure(err, input, &shader, located.as_ref()))?;
    verify(&module, input, "SSA construction")?;
    let instructions = shader.instructions().filter(|i| i.opcode != tgsi::Opcode::End).count();
    Ok((module, instructions))
}

/// The passes `names` lists, in order; empty names (`--passes=`, `a,,b`)
/// are skipped.
fn resolve_passes<'a>(names: &[String], known: &'a [Pass]) -> Result<Vec<&'a Pass>, Failure> {
    names
        .iter()
        .filter(|name| !name.is_empty())
        .map(|name| {
            known.iter().find(|pass| pass.name == name).ok_or_else(|| Failure::UnknownPass {
                name: name.clone(),
                known: if known.is_empty() {
                    "(none yet)".to_string()
                } else {
                    known.iter().map(|pass| pass.name).collect::<Vec<_>>().join(", ")
                },
            })
        })
        .collect()
}

/// The input text and the span of every item, for locating build errors
/// (text input only).
struct Located {
    text: String,
    spans: Vec<Span>,
}

/// Reads and parses (or decodes) the input.
fn read_shader(input: &Input, format: Format) -> Result<(Shader, Option<Located>), Failure> {
    let text = input.read_text()?;
    match format {
        Format::Text => match tgsi::parse_with_spans(&text) {
            Ok((shader, spans)) => Ok((shader, Some(Located { text, spans }))),
            Err(err) => Err(Failure::Located { rendered: err.render(&text, &input.file_name()) }),
        },
        Format::Tokens => tokens::parse_hex(&text)
            .and_then(|words| tokens::decode(&words))
            .map(|shader| (shader, None))
            .map_err(|err| token_failure(&err, &text, &input.file_name())),
    }
}

/// A build error, with a caret under the instruction it names when the
/// input was text.
fn build_failure(err: ir::BuildError, input: &Input, shader: &Shader, located: Option<&Located>) -> Failure {
    let span = located.zip(err.inst).and_then(|(located, inst)| instruction_span(shader, &located.spans, inst));
    match (located, span) {
        (Some(located), Some(span)) => {
            let error = tgsi::ParseError { message: format!("cannot build the IR: {}", err.message), span };
            Failure::Located { rendered: error.render(&located.text, &input.file_name()) }
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

/// The module as a TGSI shader.
fn emit(module: &ir::Module, input: &Input) -> Result<Shader, Failure> {
    ir::to_tgsi(module).map_err(|source| Failure::Emit { what: input.describe(), source })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn noop(_: &mut ir::Module) {}

    const PASSES: [Pass; 2] = [Pass { name: "a", run: noop }, Pass { name: "b", run: noop }];

    fn names(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn no_passes_are_known_yet() {
        assert!(known_passes().is_empty());
        assert!(resolve_passes(&[], known_passes()).is_ok_and(|p| p.is_empty()));
        assert!(resolve_passes(&names(&[""]), known_passes()).is_ok_and(|p| p.is_empty()));
        let Err(err) = resolve_passes(&names(&["dce"]), known_passes()) else { panic!("dce is not known yet") };
        assert_eq!(err.report(), "error: unknown pass `dce`; known passes: (none yet)\n");
        assert_eq!(err.exit_code(), 2);
    }

    #[test]
    fn passes_resolve_in_order() {
        let pipeline = resolve_passes(&names(&["b", "", "a", "b"]), &PASSES).expect("known");
        assert_eq!(pipeline.iter().map(|p| p.name).collect::<Vec<_>>(), ["b", "a", "b"]);
        let Err(err) = resolve_passes(&names(&["a", "c"]), &PASSES) else { panic!("c is unknown") };
        assert_eq!(err.report(), "error: unknown pass `c`; known passes: a, b\n");
    }

    #[test]
    fn build_errors_point_at_the_instruction() {
        let text = "FRAG\nDCL OUT[0], COLOR\n  0: BRK\n  1: END\n";
        let (shader, spans) = tgsi::parse_with_spans(text).expect("parses");
        let err = ir::from_tgsi(&shader).expect_err("BRK outside a loop");
        let input = Input::File("a.tgsi".into());
        let located = Located { text: text.to_string(), spans };
        let report = build_failure(err.clone(), &input, &shader, Some(&located)).report();
        assert!(report.starts_with("error: cannot build the IR: BRK outside a loop"), "{report}");
        assert!(report.contains("--> a.tgsi:3:"), "{report}");
        assert!(report.contains("3 |   0: BRK"), "{report}");
        let report = build_failure(err, &input, &shader, None).report();
        assert_eq!(report, "error: cannot build the IR of `a.tgsi`: instruction 0: BRK outside a loop or switch\n");
    }
}
