//! The arguments of the commands that execute shaders: `run`, `bench`
//! and `render`.

use std::path::PathBuf;

use clap::{Args, ValueEnum};

use super::{Format, PipelineArgs};

/// Parses `--lanes`: a multiple of 4 (a quad) from 4 to 64.
fn parse_lanes(text: &str) -> Result<usize, String> {
    match text.parse::<usize>() {
        Ok(n) if exec::RunOptions::valid_lanes(n) => Ok(n),
        _ => Err("lanes per batch are a multiple of 4 from 4 to 64: 4, 8, 12, 16, 20, 24, 28, 32, 36, 40, 44, \
                  48, 52, 56, 60 or 64"
            .to_string()),
    }
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
    /// The shader compiled to native code with Cranelift, as one function;
    /// a shader with memory operations or indirect loads of outputs runs
    /// in the interpreter.
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
