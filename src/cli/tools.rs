//! The arguments of the checking and measuring commands: `check`,
//! `check-doubles`, `fuzz-passes`, `report` and `reduce`.

use std::path::PathBuf;

use clap::{Args, ValueEnum};

use super::{Format, PipelineArgs};

/// Arguments of `tgsi-opt report`.
#[derive(Debug, Args)]
#[command(mut_arg("passes", |a| a.help(
    "Count the shaders after these passes (and emission), separated by commas. Without --passes or \
     -O, the shaders are counted as written; -O0 counts them through the IR with no pass"
)))]
pub struct ReportArgs {
    /// Shaders, and directories searched for `*.tgsi` files (below them,
    /// recursively; named by their path below the directory). With
    /// --compare: two, each a directory, a shader or a CSV report.
    #[arg(value_name = "PATH", required = true)]
    pub paths: Vec<PathBuf>,

    /// The passes to count after, for every PATH.
    #[command(flatten)]
    pub pipeline: PipelineArgs,

    /// Compare two sets: BEFORE AFTER. Files are matched by their path
    /// below each directory; a `.csv` file is a report written before by
    /// `--format csv`.
    #[arg(long)]
    pub compare: bool,

    /// Compare two pipelines over the same shaders: this one (`input`: as
    /// written; `O0`: through the IR with no pass; `O1`; or passes
    /// separated by commas) ...
    #[arg(long, value_name = "PIPELINE", allow_hyphen_values = true)]
    pub before: Option<String>,

    /// ... against this one.
    #[arg(long, value_name = "PIPELINE", allow_hyphen_values = true)]
    pub after: Option<String>,

    /// How to write the report: a table (a comparison in shader-db's
    /// lines), CSV (one row per shader) or JSON.
    #[arg(long, value_enum, value_name = "FORMAT", default_value_t = ReportFormat::Text)]
    pub format: ReportFormat,

    /// How many of the most helped and most hurt shaders a comparison
    /// lists per statistic.
    #[arg(long, value_name = "N", default_value_t = 5)]
    pub top: usize,

    /// Count this many shaders at once (0: one per core). The report does
    /// not depend on it.
    #[arg(long, short = 'j', value_name = "N", default_value_t = 0)]
    pub jobs: usize,

    /// Write the report to FILE instead of standard output.
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
}

/// Arguments of `tgsi-opt reduce`.
#[derive(Debug, Args)]
pub struct ReduceArgs {
    /// The shader to shrink (TGSI text).
    #[arg(value_name = "FILE")]
    pub file: PathBuf,

    /// The test: a shell command, run with a candidate's path as its last
    /// argument (`CMD FILE`); exit status 0 means "still interesting".
    #[arg(long, value_name = "CMD")]
    pub test: String,

    /// Write the reduced shader to FILE instead of standard output.
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,

    /// Tests run at once (0: one per core). The result does not depend on it.
    #[arg(long, short = 'j', value_name = "N", default_value_t = 0)]
    pub jobs: usize,

    /// A test running longer than this many seconds is stopped and counts
    /// as not interesting.
    #[arg(long, value_name = "SECONDS")]
    pub timeout: Option<f64>,
}

/// How `report` writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ReportFormat {
    /// Aligned columns, or shader-db's lines for a comparison.
    Text,
    /// One row per shader with a header.
    Csv,
    /// One JSON object.
    Json,
}

/// Arguments of `tgsi-opt check`.
#[derive(Debug, Args)]
#[command(mut_arg("passes", |a| a.help(
    "The passes to check, in order, separated by commas (`--passes=a,b`). Without --passes or \
     --opt-level, those of -O1. An unknown name is a usage error that lists the known passes"
)))]
pub struct CheckArgs {
    /// The shader to check; `-` reads standard input.
    #[arg(value_name = "FILE")]
    pub file: PathBuf,

    /// The passes to check.
    #[command(flatten)]
    pub pipeline: PipelineArgs,

    /// How many random states to run (inputs, constants, system values,
    /// textures, samplers, buffers and images, as the shader declares them).
    #[arg(long, value_name = "N", default_value_t = 16, value_parser = parse_state_count)]
    pub count: usize,

    /// The seed of the random states.
    #[arg(long, value_name = "S", default_value_t = 0)]
    pub seed: u64,

    /// Run this state instead of random ones.
    #[arg(long, value_name = "STATE", conflicts_with_all = ["count", "seed"])]
    pub state: Option<PathBuf>,

    /// What the shader input is: TGSI text, Mesa's token stream as hex
    /// words, or the IR's text form.
    #[arg(long = "input", value_enum, value_name = "FORMAT", default_value_t = Format::Text)]
    pub input_format: Format,
}

/// Arguments of `tgsi-opt check-target`.
#[derive(Debug, Args)]
pub struct CheckTargetArgs {
    /// The shaders to check; `-` or nothing reads standard input.
    #[arg(value_name = "FILE")]
    pub files: Vec<PathBuf>,

    /// The driver to check against (docs/targets.md lists the presets).
    #[arg(long, value_name = "NAME", conflicts_with = "caps", required_unless_present = "caps")]
    pub target: Option<String>,

    /// The target as a list, as `opt --caps` takes it.
    #[arg(long, value_name = "LIST")]
    pub caps: Option<String>,

    /// What the shader input is: TGSI text or Mesa's token stream as hex
    /// words.
    #[arg(long = "input", value_enum, value_name = "FORMAT", default_value_t = Format::Text)]
    pub input_format: Format,
}

/// Arguments of `tgsi-opt check-doubles`.
#[derive(Debug, Args)]
pub struct CheckDoublesArgs {
    /// The target to check, or `all` for every target.
    #[arg(long, value_name = "NAME", default_value = "all")]
    pub target: String,

    /// Inputs per opcode.
    #[arg(long, value_name = "N", default_value_t = 1 << 20)]
    pub count: u64,

    /// The seed of the inputs.
    #[arg(long, value_name = "S", default_value_t = 0)]
    pub seed: u64,

    /// Threads running batches of inputs; 0 uses one per core.
    #[arg(long, short = 'j', value_name = "N", default_value_t = 0)]
    pub jobs: usize,

    /// Invocations per run of the backend.
    #[arg(long, value_name = "N", default_value_t = 16384)]
    pub batch: u32,
}

/// Arguments of `tgsi-opt fuzz-passes`.
#[derive(Debug, Args)]
pub struct FuzzArgs {
    /// How many programs to generate and check.
    #[arg(long, value_name = "N", default_value_t = 1000)]
    pub count: u64,

    /// The first seed; programs use seeds S, S+1, ..., S+N-1.
    #[arg(long, value_name = "S", default_value_t = 0)]
    pub seed: u64,

    /// Threads checking programs; 0 uses one per core.
    #[arg(long, value_name = "J", default_value_t = 0)]
    pub jobs: usize,

    /// Where each failing case (program, state, emitted TGSI, report) is
    /// written, one directory per seed and pipeline.
    #[arg(long, value_name = "DIR", default_value = "fuzz-failures")]
    pub out_dir: PathBuf,

    /// Print each program and its first state instead of checking them
    /// (to reproduce a seed by hand).
    #[arg(long)]
    pub print: bool,

    /// Float-only programs (no opcode that needs integers), checked under
    /// `select` and `-O1` for a target without integers
    /// (`--caps=INTEGERS=0`, with every preset's tuning): results
    /// unchanged, and nothing in the emitted TGSI that the target lacks
    /// and the program did not need.
    #[arg(long)]
    pub float_only: bool,
}

/// Parses `check --count`: at least one state (none would check nothing).
fn parse_state_count(text: &str) -> Result<usize, String> {
    match text.parse::<usize>() {
        Ok(n) if n >= 1 => Ok(n),
        _ => Err("the number of states is a whole number, at least 1".to_string()),
    }
}
