//! `tgsi-opt fmt`: read a shader, print it in canonical form.

use tgsi::{tokens, Shader};

use crate::cli::{FmtArgs, Format};
use crate::commands::opt::to_stderr;
use crate::diagnostics::{missing_end_warning, token_failure, Failure};
use crate::files::{write_output, Input};

/// Runs `fmt`.
///
/// IR input prints as IR by default (canonically: numbering kept,
/// whitespace and constant comments as the printer writes them); asked for
/// TGSI or tokens, the IR is emitted as `opt` would. TGSI input asked for
/// IR is built into IR.
pub fn run(args: &FmtArgs) -> Result<(), Failure> {
    let input = Input::from_arg(args.file.as_deref());
    let default_emit = if args.input_format == Format::Ir { Format::Ir } else { Format::Text };
    let emit = args.emit.unwrap_or(default_emit);
    let output = if args.input_format == Format::Ir {
        let module = crate::commands::opt::read_ir(&input)?;
        match emit {
            Format::Ir => ir::print::print_module(&module),
            Format::Text | Format::Tokens => {
                let shader = crate::commands::opt::emit(&module, &input)?;
                write_shader(&shader, emit, args, &input)?
            }
        }
    } else if emit == Format::Ir {
        let (module, _) = crate::commands::opt::build(&input, args.input_format)?;
        ir::print::print_module(&module)
    } else {
        let shader = read_shader(&input, args.input_format)?;
        write_shader(&shader, emit, args, &input)?
    };
    write_output(args.output.as_deref(), output.as_bytes())
}

/// A shader as TGSI text or tokens.
fn write_shader(shader: &Shader, emit: Format, args: &FmtArgs, input: &Input) -> Result<String, Failure> {
    Ok(match emit {
        Format::Tokens => {
            let words = tokens::encode(shader).map_err(|source| Failure::Encode { what: input.describe(), source })?;
            tokens::to_hex(&words)
        }
        Format::Text | Format::Ir => tgsi::print(shader, args.style.into()),
    })
}

/// Reads and parses (or decodes) the input.
fn read_shader(input: &Input, format: Format) -> Result<Shader, Failure> {
    let text = input.read_text()?;
    let file_name = input.file_name();
    let (shader, warning) = match format {
        Format::Text => {
            let (shader, spans) = tgsi::parse_with_spans(&text)
                .map_err(|err| Failure::Located { rendered: err.render(&text, &file_name) })?;
            let warning = missing_end_warning(&shader, Some((&text, &spans)), &file_name);
            (shader, warning)
        }
        Format::Tokens => {
            let shader = tokens::parse_hex(&text)
                .and_then(|words| tokens::decode(&words))
                .map_err(|err| token_failure(&err, &text, &file_name))?;
            let warning = missing_end_warning(&shader, None, &file_name);
            (shader, warning)
        }
        Format::Ir => return Err(Failure::Usage("IR input is read by `read_ir`".to_string())),
    };
    if let Some(warning) = warning {
        to_stderr(&warning);
    }
    Ok(shader)
}
