//! The command line: subcommands, flags and their help text. The
//! arguments several commands share are here; those of the commands that
//! execute shaders are in `execute`, of the checking and measuring ones
//! in `tools`.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

use crate::diagnostics::Failure;

mod execute;
mod tools;

pub use execute::*;
pub use tools::*;

/// Reads, rewrites and optimizes shaders in Gallium's TGSI language.
#[derive(Debug, Parser)]
#[command(name = "tgsi-opt", version, propagate_version = true)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Read a shader (TGSI text or token words) and print it in canonical form.
    Fmt(FmtArgs),
    /// Build a shader's SSA IR, run optimization passes over it, and write
    /// the result as TGSI, token words, the IR's text form or a Graphviz graph.
    Opt(OptArgs),
    /// Run a shader for every invocation of an input state and print the
    /// outputs in the state exchange format.
    Run(RunCommandArgs),
    /// Run a shader repeatedly on an input state and print how fast it runs.
    Bench(BenchArgs),
    /// Run a fragment shader over every pixel of a target, in 2x2 quads,
    /// and write its COLOR outputs as 8-bit RGBA PNG images.
    Render(RenderArgs),
    /// Differential testing of the passes: generate random programs and
    /// states, run every registered pass alone and -O1 (verifying after
    /// each pass), and require unchanged results, also from the emitted TGSI.
    FuzzPasses(FuzzArgs),
    /// Find the pass that changes a shader's results: run it on random
    /// states unoptimized and after each pass in turn, and name the first
    /// pass (or emission) after which an output differs.
    Check(CheckArgs),
    /// Check the lowerings of legalize-doubles: run each lowered 64-bit
    /// opcode of a target through the backend on many inputs and compare
    /// with IEEE-754 double results (ulp error, mismatches).
    CheckDoubles(CheckDoublesArgs),
    /// Say what a shader needs that a driver lacks (integers, SQRT, TEMPs,
    /// control-flow depth, indirect addressing, ...), each finding under
    /// its line; exit 1 when there is any.
    CheckTarget(CheckTargetArgs),
    /// Count what shaders cost, or compare two sets as shader-db's report
    /// does.
    ///
    /// The statistics are instructions, TEMPs, ALU, texture, memory and
    /// flow instructions, immediates and loops, in all and per stage; of
    /// the shaders as written, or after passes.
    Report(ReportArgs),
    /// Shrink a shader while a test command still finds it interesting.
    ///
    /// The test exits 0 on a candidate it finds interesting; the smallest
    /// interesting shader found is written.
    Reduce(ReduceArgs),
}

/// Arguments of `tgsi-opt fmt`.
#[derive(Debug, Args)]
pub struct FmtArgs {
    /// The shader to read; `-` or nothing reads standard input.
    #[arg(value_name = "FILE")]
    pub file: Option<PathBuf>,

    /// How to print immediates in text output: `exact` prints every value so it
    /// reads back to the same bits; `mesa` prints byte for byte what Mesa's
    /// tgsi_dump prints (floats rounded to 4 decimals).
    #[arg(long, value_enum, value_name = "STYLE", default_value_t = TextStyle::Exact)]
    pub style: TextStyle,

    /// What to write: canonical TGSI text, Mesa's binary token stream as
    /// hex words (one `0x%08x` word a line), or the IR's text form. The
    /// default is `ir` for IR input and `text` otherwise.
    #[arg(long, value_enum, value_name = "FORMAT")]
    pub emit: Option<Format>,

    /// What the input is: TGSI text, Mesa's token stream as hex words
    /// (one `0x` word a line; blank lines are skipped), or the IR's text
    /// form (as `opt --emit=ir` writes it).
    #[arg(long = "input", value_enum, value_name = "FORMAT", default_value_t = Format::Text)]
    pub input_format: Format,

    /// Write the result to FILE instead of standard output.
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
}

/// Arguments of `tgsi-opt opt`.
#[derive(Debug, Args)]
pub struct OptArgs {
    /// The shaders to read; `-` or nothing reads standard input. Several
    /// files need --out-dir.
    #[arg(value_name = "FILE")]
    pub files: Vec<PathBuf>,

    /// Write each result into DIR, at its input's path below the directory
    /// holding all the inputs (with `.ir`, `.hex` or `.dot` in place of its
    /// extension for those --emit formats).
    #[arg(long, value_name = "DIR", conflicts_with = "output")]
    pub out_dir: Option<PathBuf>,

    /// Optimize this many files at once (0: one per core). Results do not
    /// depend on it.
    #[arg(long, short = 'j', value_name = "N", default_value_t = 1)]
    pub jobs: usize,

    /// Which passes to run.
    #[command(flatten)]
    pub pipeline: PipelineArgs,

    /// What to write: TGSI text, the IR's text form, Mesa's tokens as hex
    /// words, or the control-flow graph in Graphviz's dot language.
    #[arg(long, value_enum, value_name = "FORMAT", default_value_t = OptEmit::Tgsi)]
    pub emit: OptEmit,

    /// With --emit=ir, end each instruction with its origin (`; from #12
    /// TEMP[3].y`: the source instruction and register channel), which
    /// --input=ir reads back, so TGSI emitted from that IR uses the same
    /// registers as TGSI emitted from the source.
    #[arg(long)]
    pub origins: bool,

    /// How to print immediates in TGSI output: `exact` prints every value so
    /// it reads back to the same bits; `mesa` prints byte for byte what Mesa's
    /// tgsi_dump prints (floats rounded to 4 decimals).
    #[arg(long, value_enum, value_name = "STYLE", default_value_t = TextStyle::Exact)]
    pub style: TextStyle,

    /// What the input is: TGSI text, Mesa's token stream as hex words
    /// (one `0x` word a line; blank lines are skipped), or the IR's text
    /// form (as `--emit=ir` writes it; verified before any pass runs).
    #[arg(long = "input", value_enum, value_name = "FORMAT", default_value_t = Format::Text)]
    pub input_format: Format,

    /// Write the result to FILE instead of standard output.
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,

    /// Verify the IR after every pass, not only after SSA construction; a
    /// failure names the pass.
    #[arg(long)]
    pub verify_each: bool,

    /// Print the module (to standard error) after every pass.
    #[arg(long)]
    pub print_after_all: bool,

    /// Print the module (to standard error) before every run of pass P;
    /// repeat the flag or separate names with commas for more.
    #[arg(long, value_name = "P", value_delimiter = ',')]
    pub print_before: Vec<String>,

    /// Print the module (to standard error) after every run of pass P;
    /// repeat the flag or separate names with commas for more.
    #[arg(long, value_name = "P", value_delimiter = ',')]
    pub print_after: Vec<String>,

    /// How --print-* flags print the module: the IR's text form, or TGSI
    /// emitted from it.
    #[arg(long, value_enum, value_name = "FORMAT", default_value_t = PrintFormat::Ir)]
    pub print_format: PrintFormat,

    /// Print a table of the time each pass took, and its share of the total,
    /// to standard error.
    #[arg(long)]
    pub time_passes: bool,

    /// Print each pass's counters (values removed, ...) summed over its runs,
    /// to standard error.
    #[arg(long)]
    pub stats: bool,

    /// Print every pass's name and description, and exit.
    #[arg(long)]
    pub list_passes: bool,
}

/// Which passes to run: `--passes=LIST` or an optimization level.
#[derive(Debug, Args, Default)]
pub struct PipelineArgs {
    /// The passes to run, in order, separated by commas (`--passes=a,b`).
    /// Empty (the default) runs none. An unknown name is a usage error
    /// that lists the known passes.
    #[arg(long, value_name = "LIST", value_delimiter = ',', conflicts_with = "opt_level")]
    pub passes: Vec<String>,

    /// The optimization level, also written `-O0`, `-O1` and `-O` (= `-O1`):
    /// 0 runs no pass; 1 runs constfold, dce, select, combine, coalesce, dce, group-stores again and again
    /// until nothing changes (at most 16 rounds). There is no level 2, 3
    /// or s (`-O2` is a usage error).
    #[arg(long, value_name = "LEVEL", value_parser = parse_opt_level)]
    pub opt_level: Option<u8>,

    /// The driver the output is for: passes and emission make nothing it
    /// lacks; `opt` warns where the input already needs more, and fails
    /// where only the optimized shader would. Drivers: softpipe, llvmpipe, virgl, svga, nvc0, nv50,
    /// nv30, nv40, r300, r500, i915, etnaviv-gc2000, etnaviv-halti2; and
    /// the 64-bit sets of `legalize-doubles` (full, one-double,
    /// no-fp64-div, fp64-basic, no-fp64, no-int64). docs/targets.md lists
    /// each one's capabilities.
    #[arg(long, value_name = "NAME", conflicts_with = "caps")]
    pub target: Option<String>,

    /// The target as a list, separated by commas: a target to start from,
    /// NAME=VALUE capabilities (`MAX_TEMPS=16`, `INTEGERS=0`), 64-bit
    /// opcode names and `one-double`.
    #[arg(long, value_name = "LIST")]
    pub caps: Option<String>,

    /// How passes may read a register channel nothing wrote before:
    /// `exact` (the default) as the zero Mesa's interpreter reads, every
    /// result bit-identical; `any` as an undefined value, as NIR and
    /// hardware do (-O then runs the `undef` pass; docs/passes.md).
    #[arg(long, value_name = "MODE", default_value = "exact", value_parser = parse_undef)]
    pub undef: passes::undef::Undef,
}

impl PipelineArgs {
    /// The pipeline the flags ask for: an unknown pass or target, or
    /// `legalize-doubles` without a target, is a usage error.
    pub fn pipeline(&self) -> Result<passes::Pipeline, Failure> {
        let config = self.config()?;
        match self.opt_level {
            Some(level) => Ok(passes::Pipeline::opt_level_with(level, &config)),
            None => passes::Pipeline::named_with(&self.passes, &config).map_err(pipeline_failure),
        }
    }

    /// The pass options `--target`, `--caps` and `--undef` give.
    pub fn config(&self) -> Result<passes::Config, Failure> {
        Ok(passes::Config { target: self.target()?, undef: self.undef })
    }

    /// The target `--target` or `--caps` names, if any.
    pub fn target(&self) -> Result<Option<target::Target>, Failure> {
        target_of(self.target.as_deref(), self.caps.as_deref())
    }
}

/// The target a `--target NAME` or a `--caps LIST` names (the name first),
/// if either is given; an unknown preset or capability is a usage error.
pub fn target_of(name: Option<&str>, list: Option<&str>) -> Result<Option<target::Target>, Failure> {
    match (name, list) {
        (Some(name), _) => target::Target::preset(name).map(Some).ok_or_else(|| {
            let known: Vec<&str> = target::PRESETS.iter().map(|p| p.name).collect();
            Failure::Usage(format!("unknown target `{name}`; targets: {}", known.join(", ")))
        }),
        (None, Some(list)) => target::Target::parse(list).map(Some).map_err(|e| Failure::Usage(e.to_string())),
        (None, None) => Ok(None),
    }
}

/// The usage error for a pipeline that cannot be built.
pub fn pipeline_failure(err: passes::PipelineError) -> Failure {
    match err {
        passes::PipelineError::Unknown(e) => Failure::UnknownPass { name: e.name, known: passes::known_names() },
        passes::PipelineError::Config(e) => Failure::Usage(e.to_string()),
    }
}

/// Parses `--opt-level` (and `-O<LEVEL>`, rewritten to it): the levels
/// that exist are 0 and 1; any other (`2`, `3`, `s`, ...) is a usage error
/// that names both spellings and the levels there are.
fn parse_opt_level(level: &str) -> Result<u8, String> {
    match level {
        "0" => Ok(0),
        "1" => Ok(1),
        _ => Err(format!(
            "there is no optimization level {level} (-O{level}); the levels are 0 (-O0: no passes) \
             and 1 (-O1 or -O: the pipeline `--list-passes` shows)"
        )),
    }
}

/// Parses `--undef`.
fn parse_undef(mode: &str) -> Result<passes::undef::Undef, String> {
    passes::undef::Undef::parse(mode)
        .ok_or_else(|| format!("unknown --undef mode `{mode}`; modes: {}", passes::undef::Undef::NAMES))
}

/// Rewrites `-O` and `-O<LEVEL>` (`-O0`, `-O1`, also `-O2`, `-Os`, ...)
/// before any `--` as `--opt-level=1` and `--opt-level=LEVEL`: clap has no
/// multi-letter short flags, and an `-O` taking an optional value would
/// swallow a following file name. Levels that do not exist are then the
/// same usage error as `--opt-level=2`, instead of clap's `unexpected
/// argument '-O'`.
pub fn normalize_args<I: IntoIterator<Item = std::ffi::OsString>>(args: I) -> Vec<std::ffi::OsString> {
    let mut out = Vec::new();
    let mut options_end = false;
    for arg in args {
        if !options_end {
            match arg.to_str() {
                Some("--") => options_end = true,
                Some("-O") => {
                    out.push("--opt-level=1".into());
                    continue;
                }
                Some(flag) if flag.starts_with("-O") => {
                    out.push(format!("--opt-level={}", &flag[2..]).into());
                    continue;
                }
                _ => {}
            }
        }
        out.push(arg);
    }
    out
}

/// What `tgsi-opt opt` writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum OptEmit {
    /// TGSI text in Mesa's canonical layout (immediates as --style says).
    Tgsi,
    /// The IR's text form: scalar SSA values in blocks, in the structured
    /// control-flow tree.
    Ir,
    /// Mesa's token stream as hex words, one `0x%08x` word a line.
    Tokens,
    /// The control-flow graph in Graphviz's dot language: a node per block,
    /// back edges dashed.
    Dot,
}

/// How `--print-before`, `--print-after` and `--print-after-all` print.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum PrintFormat {
    /// The IR's text form.
    Ir,
    /// TGSI text emitted from the IR.
    Tgsi,
}

impl From<PrintFormat> for passes::PrintFormat {
    fn from(f: PrintFormat) -> Self {
        match f {
            PrintFormat::Ir => passes::PrintFormat::Ir,
            PrintFormat::Tgsi => passes::PrintFormat::Tgsi,
        }
    }
}

/// A representation of a shader, on input or output.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// TGSI text.
    Text,
    /// Mesa's token stream as hex words, one `0x%08x` word a line.
    Tokens,
    /// The IR's text form, as `opt --emit=ir` writes it.
    Ir,
}

/// How the printer writes immediates.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum TextStyle {
    /// Mesa's layout, with every immediate printed so it reads back exactly.
    Exact,
    /// Byte for byte Mesa's tgsi_dump (floats rounded to 4 decimals).
    Mesa,
}

impl From<TextStyle> for tgsi::Style {
    fn from(style: TextStyle) -> Self {
        match style {
            TextStyle::Exact => tgsi::Style::Exact,
            TextStyle::Mesa => tgsi::Style::Mesa,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn command_line_definition_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn fmt_defaults() {
        let cli = Cli::try_parse_from(["tgsi-opt", "fmt"]).expect("valid arguments");
        let Command::Fmt(args) = cli.command else { panic!("not fmt") };
        assert_eq!(args.file, None);
        assert_eq!(args.style, TextStyle::Exact);
        assert_eq!(args.emit, None);
        assert_eq!(args.input_format, Format::Text);
        assert_eq!(args.output, None);
    }

    #[test]
    fn fmt_all_flags() {
        let cli = Cli::try_parse_from([
            "tgsi-opt",
            "fmt",
            "a.hex",
            "--style=mesa",
            "--emit=tokens",
            "--input=tokens",
            "-o",
            "b.hex",
        ])
        .expect("valid arguments");
        let Command::Fmt(args) = cli.command else { panic!("not fmt") };
        assert_eq!(args.file, Some(PathBuf::from("a.hex")));
        assert_eq!(args.style, TextStyle::Mesa);
        assert_eq!(args.emit, Some(Format::Tokens));
        assert_eq!(args.input_format, Format::Tokens);
        assert_eq!(args.output, Some(PathBuf::from("b.hex")));
    }

    #[test]
    fn opt_defaults() {
        let cli = Cli::try_parse_from(["tgsi-opt", "opt"]).expect("valid arguments");
        let Command::Opt(args) = cli.command else { panic!("not opt") };
        assert!(args.files.is_empty());
        assert!(args.pipeline.passes.is_empty());
        assert_eq!(args.pipeline.opt_level, None);
        assert_eq!(args.emit, OptEmit::Tgsi);
        assert_eq!(args.style, TextStyle::Exact);
        assert_eq!(args.input_format, Format::Text);
        assert_eq!(args.output, None);
        assert!(!args.verify_each);
        assert!(!args.print_after_all && !args.time_passes && !args.stats && !args.list_passes);
        assert!(args.print_before.is_empty() && args.print_after.is_empty());
        assert_eq!(args.print_format, PrintFormat::Ir);
    }

    #[test]
    fn opt_all_flags() {
        let cli = Cli::try_parse_from([
            "tgsi-opt",
            "opt",
            "a.hex",
            "--passes=x,y",
            "--emit=dot",
            "--style=mesa",
            "--input=tokens",
            "-o",
            "b.dot",
            "--verify-each",
            "--print-after-all",
            "--print-before=x",
            "--print-after=x,y",
            "--print-after",
            "z",
            "--print-format=tgsi",
            "--time-passes",
            "--stats",
            "--list-passes",
        ])
        .expect("valid arguments");
        let Command::Opt(args) = cli.command else { panic!("not opt") };
        assert_eq!(args.files, vec![PathBuf::from("a.hex")]);
        assert_eq!(args.pipeline.passes, ["x", "y"]);
        assert!(args.print_after_all && args.time_passes && args.stats && args.list_passes);
        assert_eq!(args.print_before, ["x"]);
        assert_eq!(args.print_after, ["x", "y", "z"]);
        assert_eq!(args.print_format, PrintFormat::Tgsi);
        assert_eq!(args.emit, OptEmit::Dot);
        assert_eq!(args.style, TextStyle::Mesa);
        assert_eq!(args.input_format, Format::Tokens);
        assert_eq!(args.output, Some(PathBuf::from("b.dot")));
        assert!(args.verify_each);
    }

    #[test]
    fn ir_input() {
        for command in ["opt", "fmt", "run"] {
            let mut argv = vec!["tgsi-opt", command, "--input=ir", "a.ir"];
            if command == "run" {
                argv.extend(["--state", "a.state"]);
            }
            let cli = Cli::try_parse_from(argv).expect("valid arguments");
            let format = match cli.command {
                Command::Opt(args) => args.input_format,
                Command::Fmt(args) => args.input_format,
                Command::Run(args) => args.run.input_format,
                _ => panic!("not {command}"),
            };
            assert_eq!(format, Format::Ir, "{command}");
        }
    }

    #[test]
    fn empty_pass_list() {
        let cli = Cli::try_parse_from(["tgsi-opt", "opt", "--passes="]).expect("valid arguments");
        let Command::Opt(args) = cli.command else { panic!("not opt") };
        assert!(args.pipeline.passes.iter().all(String::is_empty), "{:?}", args.pipeline.passes);
    }

    fn parse(args: &[&str]) -> Result<Cli, clap::Error> {
        Cli::try_parse_from(normalize_args(args.iter().map(std::ffi::OsString::from)))
    }

    #[test]
    fn optimization_levels() {
        for (flag, level) in [("-O", 1), ("-O0", 0), ("-O1", 1), ("--opt-level=0", 0)] {
            for args in [&["tgsi-opt", "opt", flag, "a.tgsi"][..], &["tgsi-opt", "opt", "a.tgsi", flag]] {
                let cli = parse(args).unwrap_or_else(|e| panic!("{args:?}: {e}"));
                let Command::Opt(opt) = cli.command else { panic!("not opt") };
                assert_eq!(opt.pipeline.opt_level, Some(level), "{args:?}");
                assert_eq!(opt.files, vec![PathBuf::from("a.tgsi")], "{args:?}");
            }
        }
        let cli = parse(&["tgsi-opt", "run", "a.tgsi", "--state", "s", "-O"]).expect("valid");
        let Command::Run(run) = cli.command else { panic!("not run") };
        assert_eq!(run.run.pipeline.opt_level, Some(1));
        // After `--`, `-O` is a file name.
        let cli = parse(&["tgsi-opt", "opt", "--", "-O"]).expect("valid");
        let Command::Opt(opt) = cli.command else { panic!("not opt") };
        assert_eq!((opt.files, opt.pipeline.opt_level), (vec![PathBuf::from("-O")], None));
        for bad in [
            &["tgsi-opt", "opt", "-O2"][..],
            &["tgsi-opt", "opt", "-O", "--passes=dce"],
            &["tgsi-opt", "opt", "--opt-level=2"],
        ] {
            assert_eq!(parse(bad).map(|_| ()).unwrap_err().exit_code(), 2, "{bad:?}");
        }
        // `-O2` and `--opt-level=2` give the same message, which names
        // the levels there are.
        for level in ["2", "3", "s", "fast"] {
            let short = parse(&["tgsi-opt", "opt", &format!("-O{level}"), "a.tgsi"]).map(|_| ()).unwrap_err();
            let long = parse(&["tgsi-opt", "opt", &format!("--opt-level={level}")]).map(|_| ()).unwrap_err();
            assert_eq!(short.to_string(), long.to_string());
            let message = short.to_string();
            assert!(message.contains(&format!("there is no optimization level {level} (-O{level})")), "{message}");
            assert!(message.contains("the levels are 0 (-O0") && message.contains("1 (-O1 or -O"), "{message}");
        }
    }

    #[test]
    fn lanes_are_a_multiple_of_4_up_to_64() {
        for lanes in ["4", "8", "60", "64"] {
            let cli = parse(&["tgsi-opt", "run", "a.tgsi", "--state", "s", "--lanes", lanes]).expect("valid");
            let Command::Run(run) = cli.command else { panic!("not run") };
            assert_eq!(run.run.lanes.to_string(), lanes);
        }
        for lanes in ["0", "5", "68", "128", "x"] {
            let err = parse(&["tgsi-opt", "run", "a.tgsi", "--state", "s", "--lanes", lanes]).map(|_| ()).unwrap_err();
            assert_eq!(err.exit_code(), 2, "{lanes}");
            assert!(err.to_string().contains("a multiple of 4 from 4 to 64: 4, 8, 12"), "{err}");
        }
    }

    #[test]
    fn unknown_style_is_a_usage_error() {
        let err = Cli::try_parse_from(["tgsi-opt", "fmt", "--style=pretty"]).unwrap_err();
        assert_eq!(err.exit_code(), 2);
    }
}
