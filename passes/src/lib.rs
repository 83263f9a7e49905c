//! Named optimization passes over the scalar SSA IR of TGSI shaders.
//!
//! A [`Pass`] rewrites an [`ir::Module`] in place and reports whether it
//! changed anything, with counters ([`Stats`]). [`registry`] is the one
//! list of passes: it gives the command line its names, `--list-passes` its
//! text, timing and statistics their rows, and [`UnknownPass`] its list of
//! known names. A [`Pipeline`] is a sequence of passes (`--passes=a,b`,
//! `-O0`, `-O1`); the [`PassManager`] runs one with verification, printing,
//! timing and statistics.
//!
//! ```
//! let text = "FRAG\nDCL IN[0]\nDCL OUT[0], COLOR\nDCL TEMP[0]\n\
//!             MUL TEMP[0], IN[0], IN[0]\nMOV OUT[0], IN[0]\nEND\n";
//! let mut module = ir::from_tgsi(&tgsi::parse(text).unwrap()).unwrap();
//! let pipeline = passes::Pipeline::named(&["dce"]).unwrap();
//! let report = passes::PassManager::new(passes::Options::default()).run(&pipeline, &mut module).unwrap();
//! assert!(report.changed());
//! assert_eq!(report.stats()[0].1.get("values removed"), Some(4));
//! ```

pub mod coalesce;
pub mod combine;
pub mod constfold;
pub mod dce;
pub mod group_stores;
pub mod legalize_doubles;
mod manager;
mod pipeline;
mod rewrite;
pub mod select;
mod stats;
pub mod undef;

pub use manager::{Options, PassManager, PassRun, PrintFormat, PrintOptions, Report, RunError, Timing};
pub use pipeline::{emit_options, Config, ConfigError, Pipeline, PipelineError, UnknownPass, O1_PASSES};
pub use stats::Stats;

/// A transformation of a module. Implementors are unit structs listed in
/// [`registry`].
pub trait Pass: Sync + Send {
    /// The stable name `--passes` uses (lower case, no spaces).
    fn name(&self) -> &'static str;
    /// One line for `--list-passes`.
    fn description(&self) -> &'static str;
    /// Rewrites `module` in place. The module is well formed (it passes
    /// [`ir::verify::verify`]) and must stay so, and every program must
    /// compute exactly what it computed before.
    fn run(&self, module: &mut ir::Module) -> PassResult;
    /// The pass set up with a pipeline's [`Config`]: `Ok(None)` (the
    /// default) runs the registered pass itself; a pass with options
    /// (`legalize-doubles` needs a target) returns a configured copy, or
    /// an error when the configuration lacks what it needs.
    fn configure(&self, _config: &Config) -> Result<Option<std::sync::Arc<dyn Pass>>, ConfigError> {
        Ok(None)
    }
}

/// What one run of a pass did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PassResult {
    /// Whether the module changed. A pipeline iterated to a fixed point
    /// stops when no pass reports a change.
    pub changed: bool,
    /// Named counters of what the pass did.
    pub stats: Stats,
}

/// Every pass, in the order `--list-passes` prints them. Adding a pass is
/// adding it here: the command line, `-O1` and the error for unknown names
/// follow.
pub fn registry() -> &'static [&'static dyn Pass] {
    static LEGALIZE_DOUBLES: legalize_doubles::LegalizeDoubles = legalize_doubles::LegalizeDoubles::unconfigured();
    static SELECT: select::Select = select::Select::unconfigured();
    static DCE: dce::Dce = dce::Dce::unconfigured();
    static GROUP_STORES: group_stores::GroupStores = group_stores::GroupStores::unconfigured();
    static REGISTRY: [&dyn Pass; 8] = [
        &constfold::Constfold,
        &DCE,
        &SELECT,
        &combine::Combine,
        &coalesce::Coalesce,
        &GROUP_STORES,
        &LEGALIZE_DOUBLES,
        &undef::UndefReads,
    ];
    &REGISTRY
}

/// The registered pass called `name`.
///
/// ```
/// assert_eq!(passes::find("dce").map(|p| p.name()), Some("dce"));
/// assert!(passes::find("nope").is_none());
/// ```
pub fn find(name: &str) -> Option<&'static dyn Pass> {
    registry().iter().copied().find(|p| p.name() == name)
}

/// The registered names, comma-separated (for error messages).
pub fn known_names() -> String {
    registry().iter().map(|p| p.name()).collect::<Vec<_>>().join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_plain() {
        let names: Vec<&str> = registry().iter().map(|p| p.name()).collect();
        for (i, n) in names.iter().enumerate() {
            assert!(!names[..i].contains(n), "{n} twice");
            assert!(!n.is_empty() && n.chars().all(|c| c.is_ascii_lowercase() || c == '-'), "{n}");
            assert!(!find(n).map(|p| p.description()).unwrap_or_default().is_empty(), "{n}");
        }
    }
}
