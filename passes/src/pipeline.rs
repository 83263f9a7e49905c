//! Pipelines: which passes run, in which order, and whether the sequence
//! repeats until nothing changes.

use crate::{find, known_names, Pass};

/// The passes `-O1` asks for, in order. Names not (yet) in the registry
/// are left out, and a pass that would then run twice in a row runs once,
/// so `-O1` grows as passes are added to the registry (today it is
/// `constfold, dce, coalesce, dce`).
pub const O1_PASSES: &[&str] = &["constfold", "dce", "coalesce", "dce"];

/// How many times at most a fixed-point pipeline repeats its passes.
const MAX_ITERATIONS: usize = 16;

/// `--passes` names a pass that is not registered.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown pass `{name}`; known passes: {}", known_names())]
pub struct UnknownPass {
    /// The name given.
    pub name: String,
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
/// ```
#[derive(Clone, Default)]
pub struct Pipeline {
    passes: Vec<&'static dyn Pass>,
    max_iterations: usize,
}

impl Pipeline {
    /// The passes `names` lists, run once each, in order. Empty names
    /// (from `--passes=` or `a,,b`) are skipped.
    pub fn named<S: AsRef<str>>(names: &[S]) -> Result<Pipeline, UnknownPass> {
        let passes = names
            .iter()
            .map(AsRef::as_ref)
            .filter(|n| !n.is_empty())
            .map(|n| find(n).ok_or_else(|| UnknownPass { name: n.to_string() }))
            .collect::<Result<_, _>>()?;
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
        let mut passes: Vec<&'static dyn Pass> = Vec::new();
        for pass in O1_PASSES.iter().filter_map(|n| find(n)) {
            // Every pass runs to its own fixed point: twice in a row is once.
            if passes.last().is_none_or(|last| last.name() != pass.name()) {
                passes.push(pass);
            }
        }
        Pipeline { passes, max_iterations: MAX_ITERATIONS }
    }

    /// The pipeline of an optimization level: 0 is [`Pipeline::o0`], any
    /// other [`Pipeline::o1`].
    pub fn opt_level(level: u8) -> Pipeline {
        if level == 0 {
            Self::o0()
        } else {
            Self::o1()
        }
    }

    /// The passes, in order.
    pub fn passes(&self) -> &[&'static dyn Pass] {
        &self.passes
    }

    /// The pass names, in order.
    pub fn names(&self) -> Vec<&'static str> {
        self.passes.iter().map(|p| p.name()).collect()
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
