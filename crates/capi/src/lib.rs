//! tgsi-opt for drivers written in C: a shader goes in and out as Mesa's
//! TGSI token words, the `struct tgsi_token` array a driver holds.
//!
//! [`optimize()`], [`optimize_with_limits()`] and [`print()`] are the Rust
//! side; the `abi` module exports them as the C functions that
//! `include/tgsi_opt.h` declares (`tgsi_opt_optimize`,
//! `tgsi_opt_optimize_limited`, `tgsi_opt_default_limits`, `tgsi_opt_print`
//! and the two `tgsi_opt_free_*`), built as a static and a shared library.
//! A shader past a bound of [`tgsi::Limits`] (the defaults, or the
//! caller's) is refused with [`Error::Limit`] before it costs more than
//! the input's size.
//!
//! ```
//! let text = "VERT\nDCL IN[0]\nDCL OUT[0], POSITION\nDCL TEMP[0]\n\
//!             IMM[0] FLT32 { 1.0, 2.0, 0.0, 0.0 }\n\
//!             ADD TEMP[0], IMM[0].xxxx, IMM[0].yyyy\nMUL OUT[0], IN[0], TEMP[0]\nEND\n";
//! let words = tgsi::tokens::encode(&tgsi::parse(text).unwrap()).unwrap();
//! let optimized = tgsi_opt_capi::optimize(&words, Some("-O1"), None).unwrap();
//! let printed = tgsi_opt_capi::print(&optimized).unwrap();
//! assert!(printed.contains("MUL OUT[0], IN[0], IMM[0].xxxx"), "{printed}");
//! ```

pub mod abi;

use passes::{Config, Options, PassManager, Pipeline};
use target::Target;

/// Why a shader could not be optimized or printed; each kind is one
/// `tgsi_opt_status` of the C ABI.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A required pointer is null, or a string is not UTF-8.
    #[error("{0}")]
    BadArgument(String),
    /// The words are not a shader Mesa's tokens can express.
    #[error("bad tokens: {0}")]
    BadTokens(tgsi::tokens::DecodeError),
    /// The shader has no IR form, or its IR no token form.
    #[error("{0}")]
    Unsupported(String),
    /// An unknown pass or target, or a pass that needs a target.
    #[error("{0}")]
    BadPasses(String),
    /// A pass broke the IR: a bug in it.
    #[error("{0}")]
    Internal(String),
    /// The optimized shader needs what the target lacks and the input did
    /// not (the message lists each finding of [`target::check`] with its
    /// instruction). What the input already needed is no error: the
    /// driver judges it as it would the input.
    #[error("{0}")]
    TargetLacks(String),
    /// The shader is past a bound of [`tgsi::Limits`]: the message says
    /// which, and where (a word of the tokens, or an instruction).
    #[error("limit exceeded: {message}")]
    Limit {
        /// The bound and the input's value.
        limit: tgsi::LimitExceeded,
        /// The located message.
        message: String,
    },
}

impl From<tgsi::tokens::DecodeError> for Error {
    fn from(e: tgsi::tokens::DecodeError) -> Error {
        match e.problem() {
            Some(tgsi::tokens::Problem::Limit(limit)) => Error::Limit { limit: *limit, message: e.to_string() },
            _ => Error::BadTokens(e),
        }
    }
}

impl From<ir::BuildError> for Error {
    fn from(e: ir::BuildError) -> Error {
        match e.limit {
            Some(limit) => Error::Limit { limit, message: e.to_string() },
            None => Error::Unsupported(e.to_string()),
        }
    }
}

/// Builds the shader of `words` into the IR, runs `passes` over it
/// (verifying the IR after each) and returns the emitted shader's words.
///
/// `passes`: `None`, `-O` or `-O1` for the `-O1` pipeline, `-O0` for none,
/// or pass names separated by commas, run once each in order. `target`:
/// the driver the shader is for, a preset name of [`target::PRESETS`]
/// (`r300`, `nvc0`, `no-fp64`, ...) or a `--caps` list
/// ([`Target::parse`]); the passes make nothing it lacks, and a result
/// that needs more than the input did is [`Error::TargetLacks`]. The shader must keep
/// within [`tgsi::Limits::default()`].
pub fn optimize(words: &[u32], passes: Option<&str>, target: Option<&str>) -> Result<Vec<u32>, Error> {
    optimize_with_limits(words, passes, target, &tgsi::Limits::default())
}

/// [`optimize`], with the shader kept within `limits` (the decoder's and
/// the IR builder's checks).
pub fn optimize_with_limits(
    words: &[u32],
    passes: Option<&str>,
    target: Option<&str>,
    limits: &tgsi::Limits,
) -> Result<Vec<u32>, Error> {
    let shader = tgsi::tokens::decode_with_limits(words, limits)?;
    let mut module = ir::from_tgsi_with_limits(&shader, limits)?;
    // The IR holds all it needs: the decoded shader need not stay beside it.
    drop(shader);
    let target = target_named(target)?;
    let pipeline = pipeline(passes, target.as_ref())?;
    let options = Options { verify_each: true, ..Options::default() };
    PassManager::new(options.clone()).run(&pipeline, &mut module).map_err(|e| Error::Internal(e.to_string()))?;
    // What the passes deleted need not size emission's tables.
    module.function.compact();
    // Verified passes, checked emission: a failure of the check is a bug
    // of emission, not something the shader asked for.
    let emit_options = passes::emit_options(target.as_ref(), module.processor, options.verify_each);
    let emitted = ir::to_tgsi_with(&module, &emit_options).map_err(|e| match e {
        ir::EmitError::Check(_) => Error::Internal(e.to_string()),
        ir::EmitError::Unwritable(_) => Error::Unsupported(e.to_string()),
    })?;
    drop(module);
    if let Some(target) = &target {
        lacks(words, &emitted, target)?;
    }
    tgsi::tokens::encode(&emitted).map_err(|e| Error::Unsupported(e.to_string()))
}

/// [`Error::TargetLacks`] when `shader`, the optimized form of `words`,
/// needs what `target` lacks and the input did not.
fn lacks(words: &[u32], shader: &tgsi::Shader, target: &Target) -> Result<(), Error> {
    let findings = target::check(shader, target);
    if findings.is_empty() {
        return Ok(());
    }
    // The input is decoded again only here: it is not kept beside the IR.
    let before = target::check(&tgsi::tokens::decode(words)?, target);
    let findings = target::introduced(&before, findings);
    if findings.is_empty() {
        return Ok(());
    }
    let printed = tgsi::print(shader, tgsi::Style::Mesa);
    let lines: Vec<String> = findings
        .iter()
        .map(|f| match f.item.and_then(|k| tgsi::print::item_line(&printed, k)) {
            Some(line) => format!("{}: `{line}`", f.lack),
            None => f.lack.to_string(),
        })
        .collect();
    Err(Error::TargetLacks(format!("the shader needs what target `{}` lacks: {}", target.name(), lines.join("; "))))
}

/// The shader of `words` as Mesa's `tgsi_dump` prints it.
pub fn print(words: &[u32]) -> Result<String, Error> {
    Ok(tgsi::print(&tgsi::tokens::decode(words)?, tgsi::Style::Mesa))
}

/// The pipeline `passes` names for `target` (see [`optimize`]).
fn pipeline(passes: Option<&str>, target: Option<&Target>) -> Result<Pipeline, Error> {
    let config = Config { target: target.cloned(), ..Config::default() };
    match passes.map(str::trim) {
        None | Some("-O" | "-O1") => Ok(Pipeline::opt_level_with(1, &config)),
        Some("-O0") => Ok(Pipeline::o0()),
        Some(list) => {
            let names: Vec<&str> = list.split(',').map(str::trim).collect();
            Pipeline::named_with(&names, &config).map_err(|e| Error::BadPasses(e.to_string()))
        }
    }
}

/// The target `text` names: a preset, or a `--caps` list (a preset alone
/// is a list of one).
fn target_named(text: Option<&str>) -> Result<Option<Target>, Error> {
    text.map(|t| Target::parse(t).map_err(|e| Error::BadPasses(e.to_string()))).transpose()
}
