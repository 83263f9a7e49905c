//! The `tgsi-opt` command.

mod cli;
mod commands;
mod diagnostics;
mod files;
mod progress;

use std::io::Write;
use std::process::ExitCode;

use clap::Parser;

use crate::cli::{Cli, Command};

fn main() -> ExitCode {
    // Usage errors print clap's message and exit with status 2.
    let cli = Cli::parse_from(cli::normalize_args(std::env::args_os()));
    let result = match &cli.command {
        Command::Fmt(args) => commands::fmt::run(args),
        Command::Opt(args) => commands::opt::run(args),
        Command::Run(args) => commands::run::run(args),
        Command::Bench(args) => commands::run::bench(args),
        Command::Render(args) => commands::render::run(args),
        Command::FuzzPasses(args) => commands::fuzz::run(args),
        Command::Check(args) => commands::check::run(args),
        Command::CheckDoubles(args) => commands::check_doubles::run(args),
        Command::CheckTarget(args) => commands::check_target::run(args),
        Command::Report(args) => commands::report::run(args),
        Command::Reduce(args) => commands::reduce::run(args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(failure) => {
            // Nothing more can be done if standard error is closed.
            let _ = std::io::stderr().lock().write_all(failure.report().as_bytes());
            ExitCode::from(failure.exit_code())
        }
    }
}
