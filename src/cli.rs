//! The command line: subcommands, flags and their help text.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

use crate::diagnostics::Failure;

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

    /// The target `legalize-doubles` rewrites for: full, one-double,
    /// no-fp64-div, fp64-basic, no-fp64 or no-int64 (docs/passes.md
    /// lists each one's native opcodes).
    #[arg(long, value_name = "NAME", conflicts_with = "caps")]
    pub target: Option<String>,

    /// The target as a list: targets (their opcodes are added), 64-bit
    /// opcode names and `one-double`, separated by commas.
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

    /// The pass options `--target` and `--caps` give.
    pub fn config(&self) -> Result<passes::Config, Failure> {
        use passes::legalize_doubles::{preset, preset_names, Caps};
        let caps = match (&self.target, &self.caps) {
            (Some(name), _) => Some(
                preset(name)
                    .map(|p| p.caps())
                    .ok_or_else(|| Failure::Usage(format!("unknown target `{name}`; targets: {}", preset_names())))?,
            ),
            (None, Some(list)) => Some(Caps::parse(list).map_err(|e| Failure::Usage(e.to_string()))?),
            (None, None) => None,
        };
        Ok(passes::Config { caps, undef: self.undef })
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

/// Parses `check --count`: at least one state (none would check nothing).
fn parse_state_count(text: &str) -> Result<usize, String> {
    match text.parse::<usize>() {
        Ok(n) if n >= 1 => Ok(n),
        _ => Err("the number of states is a whole number, at least 1".to_string()),
    }
}

/// Parses `--lanes`: a multiple of 4 (a quad) from 4 to 64.
fn parse_lanes(text: &str) -> Result<usize, String> {
    match text.parse::<usize>() {
        Ok(n) if exec::RunOptions::valid_lanes(n) => Ok(n),
        _ => Err("lanes per batch are a multiple of 4 from 4 to 64: 4, 8, 12, 16, 20, 24, 28, 32, 36, 40, 44, \
                  48, 52, 56, 60 or 64"
            .to_string()),
    }
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

/// Arguments of `tgsi-opt run`.
#[derive(Debug, Args)]
pub struct RunArgs {
    /// The shader to run; `-` reads standard input.
    #[arg(value_name = "FILE")]
    pub file: PathBuf,

    /// The input state: invocations, inputs, constants, textures and system
    /// values, in the state exchange format.
    #[arg(long, value_name = "STATE")]
    pub state: PathBuf,

    /// Invocations run together in one batch: a multiple of 4 (a quad) from
    /// 4 to 64. Results do not depend on it.
    #[arg(long, value_name = "N", default_value_t = 64, value_parser = parse_lanes)]
    pub lanes: usize,

    /// Threads running batches of lanes; 0 uses one per core. Results do
    /// not depend on it.
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub threads: usize,

    /// The execution tier: native code compiled with Cranelift, or the
    /// interpreter. Without it, the JIT where this build and processor
    /// have it. Results do not depend on it.
    #[arg(long, value_enum, value_name = "TIER")]
    pub backend: Option<BackendArg>,

    /// What the shader input is: TGSI text, Mesa's token stream as hex
    /// words, or the IR's text form (as `opt --emit=ir` writes it).
    #[arg(long = "input", value_enum, value_name = "FORMAT", default_value_t = Format::Text)]
    pub input_format: Format,

    /// Passes to run on the shader's IR before executing it.
    #[command(flatten)]
    pub pipeline: PipelineArgs,

    /// Write the outputs (for `bench`, its report) to FILE instead of
    /// standard output.
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
}

/// Arguments of `tgsi-opt render`.
#[derive(Debug, Args)]
pub struct RenderArgs {
    /// The fragment shader to render; `-` reads standard input.
    #[arg(value_name = "FILE")]
    pub file: PathBuf,

    /// The target's width and height in pixels, each 1 to 8192.
    #[arg(long, value_name = "WxH", value_parser = parse_size)]
    pub size: (u32, u32),

    /// The image of COLOR[0]; COLOR[i] goes to the same name with `.i`
    /// before the extension (`out.png`, `out.1.png`, ...).
    #[arg(short, long, value_name = "FILE")]
    pub output: PathBuf,

    /// POSITION.z of every pixel.
    #[arg(long, value_name = "Z", default_value_t = 0.5, allow_negative_numbers = true)]
    pub z: f32,

    /// POSITION.w of every pixel.
    #[arg(long, value_name = "W", default_value_t = 1.0, allow_negative_numbers = true)]
    pub w: f32,

    /// Which way the primitive faces: FACE is +1 (front) or -1 (back).
    #[arg(long, value_enum, value_name = "SIDE", default_value_t = FaceArg::Front)]
    pub face: FaceArg,

    /// Colour buffers bound (1 to 8): with FS_COLOR0_WRITES_ALL_CBUFS,
    /// COLOR[0] is written to each of them.
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=8))]
    pub cbufs: u32,

    /// The colour of killed pixels, four floats.
    #[arg(long, value_name = "R,G,B,A", default_value = "0,0,0,0", value_parser = parse_clear)]
    pub clear: [f32; 4],

    /// Inputs other than POSITION and FACE from the state's `input INDEX *`
    /// lines, and constants, textures and the rest from the state, instead
    /// of gradients and zero constants.
    #[arg(long, value_name = "STATE")]
    pub state: Option<PathBuf>,

    /// Threads running batches of pixels; 0 uses one per core. Results
    /// do not depend on it.
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub threads: usize,

    /// The execution tier: native code compiled with Cranelift, or the
    /// interpreter. Without it, the JIT where this build and processor
    /// have it. Results do not depend on it.
    #[arg(long, value_enum, value_name = "TIER")]
    pub backend: Option<BackendArg>,

    /// Bind a PNG image to sampler unit UNIT, read in FORMAT (R, RG, RGB,
    /// RGBA (the default), A, L, LA, I, Z or S), with mipmaps built from
    /// it; repeatable.
    #[arg(long = "texture", value_name = "UNIT=FILE[:FORMAT]", value_parser = parse_texture)]
    pub textures: Vec<TextureArg>,

    /// How unit UNIT samples: `nearest` or `linear`, `repeat` or `clamp`;
    /// repeatable. Without it a unit samples `nearest,repeat`.
    #[arg(long = "sampler", value_name = "UNIT=FILTER,WRAP", value_parser = parse_sampler)]
    pub samplers: Vec<(u32, tgsi_opt::exec::Sampler)>,

    /// Samples per pixel: 1, 2, 4, 8 or 16, at Direct3D's standard
    /// positions, resolved by averaging.
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = parse_samples)]
    pub samples: u32,

    /// Shade every sample apart (as a shader reading SAMPLEID or
    /// SAMPLEPOS is), not once per pixel.
    #[arg(long)]
    pub per_sample: bool,

    /// Write the depth output (`OUT[i], POSITION` z) as a grey image.
    #[arg(long, value_name = "FILE")]
    pub depth: Option<PathBuf>,

    /// Render before and after the passes too, and write where they differ
    /// (white on black) to this image; exit 1 if any pixel differs. Needs
    /// --passes or -O.
    #[arg(long, value_name = "DIFF.png")]
    pub compare: Option<PathBuf>,

    /// What the shader input is: TGSI text, Mesa's token stream as hex
    /// words, or the IR's text form (as `opt --emit=ir` writes it).
    #[arg(long = "input", value_enum, value_name = "FORMAT", default_value_t = Format::Text)]
    pub input_format: Format,

    /// Passes to run on the shader's IR before rendering.
    #[command(flatten)]
    pub pipeline: PipelineArgs,
}

/// `--face` of `tgsi-opt render`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum FaceArg {
    /// Front-facing: FACE is +1.
    Front,
    /// Back-facing: FACE is -1.
    Back,
}

/// Parses `--size WxH`: two integers from 1 to 8192.
fn parse_size(text: &str) -> Result<(u32, u32), String> {
    let max = tgsi_opt::render::MAX_SIZE;
    let bad = || format!("the size is WIDTHxHEIGHT, each 1 to {max} (`256x256`), not `{text}`");
    let (w, h) = text.split_once(['x', 'X']).ok_or_else(bad)?;
    let (w, h) = (w.parse::<u32>().map_err(|_| bad())?, h.parse::<u32>().map_err(|_| bad())?);
    match (1..=max).contains(&w) && (1..=max).contains(&h) {
        true => Ok((w, h)),
        false => Err(bad()),
    }
}

/// `--texture UNIT=FILE[:FORMAT]` of `tgsi-opt render`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TextureArg {
    /// The sampler unit.
    pub unit: u32,
    /// The PNG file.
    pub path: PathBuf,
    /// How its pixels read.
    pub format: tgsi_opt::render::TextureFormat,
}

/// Parses `--texture UNIT=FILE[:FORMAT]`: a trailing `:NAME` is the
/// format when NAME is one, else part of the file name.
fn parse_texture(text: &str) -> Result<TextureArg, String> {
    use tgsi_opt::render::TextureFormat;
    let bad = || format!("a texture is UNIT=FILE[:FORMAT] (`0=checker.png:L`), not `{text}`");
    let (unit, file) = text.split_once('=').ok_or_else(bad)?;
    let unit = unit.trim().parse::<u32>().map_err(|_| bad())?;
    let (path, format) = match file.rsplit_once(':') {
        Some((path, name)) => match TextureFormat::from_name(name) {
            Some(format) => (path, format),
            None if name.chars().all(|c| c.is_ascii_alphabetic()) && name.len() <= 4 => {
                let known: Vec<&str> = TextureFormat::ALL.iter().map(|&(_, n)| n).collect();
                return Err(format!("unknown texture format `{name}`; known formats: {}", known.join(", ")));
            }
            None => (file, TextureFormat::default()),
        },
        None => (file, TextureFormat::default()),
    };
    if path.is_empty() {
        return Err(bad());
    }
    Ok(TextureArg { unit, path: PathBuf::from(path), format })
}

/// Parses `--sampler UNIT=FILTER,WRAP`.
fn parse_sampler(text: &str) -> Result<(u32, tgsi_opt::exec::Sampler), String> {
    use tgsi_opt::exec::{Filter, Sampler, Wrap};
    let bad = || format!("a sampler is UNIT=nearest|linear,repeat|clamp (`0=linear,clamp`), not `{text}`");
    let (unit, rest) = text.split_once('=').ok_or_else(bad)?;
    let unit = unit.trim().parse::<u32>().map_err(|_| bad())?;
    let (filter, wrap) = rest.split_once(',').ok_or_else(bad)?;
    let filter = match filter.trim() {
        "nearest" => Filter::Nearest,
        "linear" => Filter::Linear,
        _ => return Err(bad()),
    };
    let wrap = match wrap.trim() {
        "repeat" => Wrap::Repeat,
        "clamp" => Wrap::Clamp,
        _ => return Err(bad()),
    };
    Ok((unit, Sampler { filter, wrap }))
}

/// Parses `--samples N`: a count with a standard pattern.
fn parse_samples(text: &str) -> Result<u32, String> {
    let counts = tgsi_opt::render::SAMPLE_COUNTS;
    match text.parse::<u32>() {
        Ok(n) if counts.contains(&n) => Ok(n),
        _ => Err(format!("the sample count is 1, 2, 4, 8 or 16, not `{text}`")),
    }
}

/// Parses `--clear R,G,B,A`: four floats.
fn parse_clear(text: &str) -> Result<[f32; 4], String> {
    let bad = || format!("the clear colour is four floats R,G,B,A (`0,0,0,1`), not `{text}`");
    let values: Vec<f32> =
        text.split(',').map(|v| v.trim().parse::<f32>()).collect::<Result<_, _>>().map_err(|_| bad())?;
    values.try_into().map_err(|_| bad())
}

/// Arguments of `tgsi-opt run`: those it shares with `bench`, and how to
/// print the outputs.
#[derive(Debug, Args)]
pub struct RunCommandArgs {
    /// The shader, its state and how to run it.
    #[command(flatten)]
    pub run: RunArgs,

    /// How to print each 32-bit output word: `hex` (the state exchange
    /// format, as `tgsi-ref run` prints it), `float` (its value as an f32)
    /// or `both` (`0x3f800000 (1.0)`).
    #[arg(long, value_enum, value_name = "FORMAT", default_value_t = WordFormat::Hex)]
    pub format: WordFormat,
}

/// How `tgsi-opt run` prints output words.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum WordFormat {
    /// `0x%08x`: the state exchange format.
    Hex,
    /// The word read as an f32 (`1.0`, `-0.5`, `inf`, `NaN`).
    Float,
    /// The hex word, then its f32 value in parentheses.
    Both,
}

/// An execution tier, as `--backend` names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum BackendArg {
    /// The shader compiled to native code with Cranelift: as one
    /// function, or as runs of ALU operations between operations the
    /// interpreter runs (memory, indirect loads of outputs).
    Jit,
    /// Every operation by the interpreter.
    Interp,
}

impl BackendArg {
    /// The tier `backend` asks for, or the default one without it.
    pub fn tier(backend: Option<BackendArg>) -> exec::Backend {
        match backend {
            Some(BackendArg::Jit) => exec::Backend::Jit,
            Some(BackendArg::Interp) => exec::Backend::Interpreter,
            None => exec::Backend::default(),
        }
    }
}

/// Arguments of `tgsi-opt bench`.
#[derive(Debug, Args)]
pub struct BenchArgs {
    /// The shader, its state and how to run it, as for `run`.
    #[command(flatten)]
    pub run: RunArgs,

    /// How many times to run every invocation of the state (at least 1).
    #[arg(long, value_name = "R", default_value_t = 10, value_parser = clap::value_parser!(u32).range(1..))]
    pub repeat: u32,
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
