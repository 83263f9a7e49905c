//! Pipelines: which passes run, in which order, and whether the sequence
//! repeats until nothing changes.

use std::sync::Arc;

use crate::undef::Undef;
use crate::{find, known_names, Pass};

/// The passes `-O1` asks for, in order. Names not (yet) in the registry
/// are left out, and a pass that would then run twice in a row runs once,
/// so `-O1` grows as passes are added to the registry (today it is
/// `constfold, dce, select, combine, coalesce, dce, group-stores`).
pub const O1_PASSES: &[&str] = &["constfold", "dce", "select", "combine", "coalesce", "dce", "group-stores"];

/// How many times at most a fixed-point pipeline repeats its passes.
const MAX_ITERATIONS: usize = 16;

/// `--passes` names a pass that is not registered.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown pass `{name}`; known passes: {}", known_names())]
pub struct UnknownPass {
    /// The name given.
    pub name: String,
}

/// Options of the passes that take any: what `--target`/`--caps` and
/// `--undef` give.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Config {
    /// The driver the output is for: `select` makes only what it takes,
    /// `legalize-doubles` lowers the 64-bit opcodes it lacks. `None`: no
    /// target was named; passes assume softpipe's capabilities, and
    /// `legalize-doubles` cannot run.
    pub target: Option<target::Target>,
    /// How reads of never-written register channels may be taken: as the
    /// zero Mesa's interpreter reads (the default, exact), or as any
    /// value (`-O` then runs the `undef` pass, see [`crate::undef`]).
    pub undef: Undef,
}

/// How emission writes a shader of `stage` for `target`: with its
/// emission tuning (`Tuning::outputs_through_temps`,
/// `Tuning::zeros_from_temps`, and in fragment shaders
/// `Tuning::source_channels`), and with the allocation checker when
/// `check`.
///
/// ```
/// use tgsi::Processor::{Fragment, Vertex};
/// let r300 = target::Target::preset("r300");
/// assert!(passes::emit_options(r300.as_ref(), Fragment, false).source_channels);
/// assert!(!passes::emit_options(r300.as_ref(), Vertex, false).source_channels);
/// assert_eq!(passes::emit_options(None, Fragment, true), ir::EmitOptions { check: true, ..Default::default() });
/// ```
pub fn emit_options(target: Option<&target::Target>, stage: tgsi::Processor, check: bool) -> ir::EmitOptions {
    let tuning = target.map(|t| t.tuning).unwrap_or_default();
    ir::EmitOptions {
        check,
        outputs_through_temps: tuning.outputs_through_temps,
        source_channels: tuning.source_channels && stage == tgsi::Processor::Fragment,
        zeros_from_temps: tuning.zeros_from_temps,
    }
}

/// The preset names, comma-separated.
fn target_names() -> String {
    target::PRESETS.iter().map(|p| p.name).collect::<Vec<_>>().join(", ")
}

/// A pass cannot run with the configuration given.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ConfigError {
    /// The pass needs a target.
    #[error("pass `{pass}` needs a target: --target=NAME (one of {}) or --caps=LIST", target_names())]
    NeedsTarget {
        /// The pass.
        pass: &'static str,
    },
    /// The pass takes never-written channels as undefined, which the
    /// configuration does not allow.
    #[error("pass `{pass}` changes what reads of never-written channels give: it needs --undef=any")]
    NeedsUndefAny {
        /// The pass.
        pass: &'static str,
    },
}

/// A pipeline cannot be built.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PipelineError {
    /// A name that is not a registered pass.
    #[error(transparent)]
    Unknown(#[from] UnknownPass),
    /// A pass that cannot run with the configuration.
    #[error(transparent)]
    Config(#[from] ConfigError),
}

/// A pass in a pipeline: the registered one, or a copy configured for it.
#[derive(Clone)]
enum Slot {
    Registered(&'static dyn Pass),
    Configured(Arc<dyn Pass>),
}

impl Slot {
    fn get(&self) -> &dyn Pass {
        match self {
            Slot::Registered(p) => *p,
            Slot::Configured(p) => p.as_ref(),
        }
    }

    fn new(pass: &'static dyn Pass, config: &Config) -> Result<Slot, ConfigError> {
        Ok(match pass.configure(config)? {
            Some(p) => Slot::Configured(p),
            None => Slot::Registered(pass),
        })
    }
}

/// A sequence of passes.
///
/// ```
/// use passes::Pipeline;
/// assert!(Pipeline::o0().is_empty());
/// assert_eq!(Pipeline::named(&["dce", "", "dce"]).unwrap().names(), ["dce", "dce"]);
/// // The registered passes of O1_PASSES, in order.
/// assert!(Pipeline::o1().names().iter().all(|n| passes::find(n).is_some()));
/// let err = Pipeline::named(&["dce", "gvn"]).unwrap_err();
/// assert_eq!(err.to_string(), format!("unknown pass `gvn`; known passes: {}", passes::known_names()));
/// // legalize-doubles needs a target.
/// assert!(Pipeline::named(&["legalize-doubles"]).is_err());
/// let target = target::Target::preset("fp64-basic");
/// let config = passes::Config { target, ..passes::Config::default() };
/// assert_eq!(Pipeline::named_with(&["legalize-doubles"], &config).unwrap().names(), ["legalize-doubles"]);
/// ```
#[derive(Clone, Default)]
pub struct Pipeline {
    passes: Vec<Slot>,
    max_iterations: usize,
}

impl Pipeline {
    /// The passes `names` lists, run once each, in order, with no pass
    /// options (see [`Pipeline::named_with`]). Empty names (from
    /// `--passes=` or `a,,b`) are skipped.
    pub fn named<S: AsRef<str>>(names: &[S]) -> Result<Pipeline, PipelineError> {
        Self::named_with(names, &Config::default())
    }

    /// The passes `names` lists, configured with `config`.
    pub fn named_with<S: AsRef<str>>(names: &[S], config: &Config) -> Result<Pipeline, PipelineError> {
        let mut passes = Vec::new();
        for n in names.iter().map(AsRef::as_ref).filter(|n| !n.is_empty()) {
            let pass = find(n).ok_or_else(|| UnknownPass { name: n.to_string() })?;
            passes.push(Slot::new(pass, config)?);
        }
        Ok(Pipeline { passes, max_iterations: 1 })
    }

    /// `-O0`: no passes.
    pub fn o0() -> Pipeline {
        Pipeline { passes: Vec::new(), max_iterations: 1 }
    }

    /// `-O1` (and `-O`): the registered passes of [`O1_PASSES`], without
    /// a pass directly repeating itself, repeated until no pass reports a
    /// change (at most 16 times).
    pub fn o1() -> Pipeline {
        let mut passes: Vec<Slot> = Vec::new();
        for pass in O1_PASSES.iter().filter_map(|n| find(n)) {
            // Every pass runs to its own fixed point: twice in a row is once.
            if passes.last().is_none_or(|last| last.get().name() != pass.name()) {
                passes.push(Slot::Registered(pass));
            }
        }
        Pipeline { passes, max_iterations: MAX_ITERATIONS }
    }

    /// `-O1` with pass options: each pass configured for the target, and
    /// with `undef: Undef::Any` the `undef` pass first in every round.
    ///
    /// ```
    /// use passes::{undef::Undef, Config, Pipeline};
    /// let any = Config { undef: Undef::Any, ..Config::default() };
    /// assert_eq!(Pipeline::o1_with(&any).names()[..2], ["undef", "constfold"]);
    /// assert_eq!(Pipeline::o1_with(&Config::default()).names(), Pipeline::o1().names());
    /// ```
    pub fn o1_with(config: &Config) -> Pipeline {
        let mut pipeline = Self::o1();
        for slot in &mut pipeline.passes {
            // The passes of -O1 run with any configuration (only
            // legalize-doubles and undef refuse some, and neither is one).
            if let Slot::Registered(pass) = *slot {
                if let Ok(configured) = Slot::new(pass, config) {
                    *slot = configured;
                }
            }
        }
        if config.undef == Undef::Any {
            // First: constant folding would fold operations on
            // never-written channels as zeros before it sees them.
            if let Some(undef) = find("undef") {
                pipeline.passes.insert(0, Slot::Registered(undef));
            }
        }
        pipeline
    }

    /// The pipeline of an optimization level: 0 is [`Pipeline::o0`], any
    /// other [`Pipeline::o1`].
    pub fn opt_level(level: u8) -> Pipeline {
        Self::opt_level_with(level, &Config::default())
    }

    /// [`Pipeline::opt_level`] with pass options (see [`Pipeline::o1_with`]).
    pub fn opt_level_with(level: u8, config: &Config) -> Pipeline {
        if level == 0 {
            Self::o0()
        } else {
            Self::o1_with(config)
        }
    }

    /// The passes, in order.
    pub fn passes(&self) -> impl Iterator<Item = &dyn Pass> + '_ {
        self.passes.iter().map(Slot::get)
    }

    /// The pass names, in order.
    pub fn names(&self) -> Vec<&'static str> {
        self.passes().map(|p| p.name()).collect()
    }

    /// Whether there are no passes.
    pub fn is_empty(&self) -> bool {
        self.passes.is_empty()
    }

    /// How many times the sequence runs at most: 1 for a plain list; for a
    /// fixed-point pipeline it stops earlier once an iteration changes
    /// nothing.
    pub fn max_iterations(&self) -> usize {
        self.max_iterations.max(1)
    }
}

impl std::fmt::Debug for Pipeline {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Pipeline").field("passes", &self.names()).field("max_iterations", &self.max_iterations).finish()
    }
}
