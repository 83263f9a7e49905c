//! `tgsi-opt run`: execute a shader for every invocation of a state and
//! print its outputs.

use crate::cli::RunArgs;
use crate::commands::opt::build;
use crate::diagnostics::Failure;
use crate::files::{write_output, Input};

/// Runs `run`.
pub fn run(args: &RunArgs) -> Result<(), Failure> {
    let input = Input::from_arg(Some(&args.file));
    let module = build(&input, args.input_format)?;
    let state_input = Input::from_arg(Some(&args.state));
    let state_text = state_input.read_text()?;
    let state = exec::State::parse(&state_text)
        .map_err(|err| Failure::Located { rendered: err.render(&state_text, &state_input.file_name()) })?;
    let options = exec::RunOptions { lanes: args.lanes, ..exec::RunOptions::default() };
    let outputs =
        exec::run(&module, &state, &options).map_err(|source| Failure::Exec { what: input.describe(), source })?;
    write_output(args.output.as_deref(), outputs.write().as_bytes())
}
