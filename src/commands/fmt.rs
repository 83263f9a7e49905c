//! `tgsi-opt fmt`: read a shader, print it in canonical form.

use tgsi::{tokens, Shader};

use crate::cli::{FmtArgs, Format};
use crate::commands::opt::to_stderr;
use crate::diagnostics::{missing_end_warning, token_failure, Failure};
use crate::files::{write_output, Input};

/// Runs `fmt`.
pub fn run(args: &FmtArgs) -> Result<(), Failure> {
    let input = Input::from_arg(args.file.as_deref());
    let shader = read_shader(&input, args.input_format)?;
    let output = match args.emit {
        Format::Text => tgsi::print(&shader, args.style.into()),
        Format::Tokens => {
            let words = tokens::encode(&shader).map_err(|source| Failure::Encode { what: input.describe(), source })?;
            tokens::to_hex(&words)
        }
    };
    write_output(args.output.as_deref(), output.as_bytes())
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
    };
    if let Some(warning) = warning {
        to_stderr(&warning);
    }
    Ok(shader)
}
