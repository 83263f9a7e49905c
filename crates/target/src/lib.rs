//! What a Gallium driver takes: a [`Target`] is the shader capabilities
//! (`PIPE_SHADER_CAP_*`) of each stage the driver runs, and the 64-bit
//! opcodes it runs as they are ([`Wide64`]). Presets ([`PRESETS`]) carry
//! the values real drivers' `get_shader_param` returns; [`check`] lists
//! what a shader needs that a target lacks.
//!
//! ```
//! use target::{Cap, Target};
//! use tgsi::Processor;
//! let r300 = Target::preset("r300").unwrap();
//! let fragment = r300.stage(Processor::Fragment).unwrap();
//! assert!(!fragment.integers && !fragment.sqrt);
//! assert!(r300.stage(Processor::Geometry).is_none());
//! // A preset with changes: `--caps r300,MAX_TEMPS=16`.
//! let tight = Target::parse("r300,MAX_TEMPS=16").unwrap();
//! assert_eq!(tight.stage(Processor::Fragment).unwrap().get(Cap::MaxTemps), Some(16));
//! ```

mod caps;
mod check;
mod list;
mod presets;
mod wide;

pub use caps::{Cap, Caps};
pub use check::{check, introduced, Finding, Lack};
pub use list::UnknownCapability;
pub use presets::{Preset, PRESETS};
pub use wide::{int64_opcodes, is_double_opcode, wide_opcodes, Wide64};

use tgsi::Processor;

/// The shader stages a target may run, in [`Processor`] order.
const STAGES: usize = 6;

/// A driver's capabilities: per stage, and its 64-bit opcodes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Target {
    name: String,
    stages: [Option<Caps>; STAGES],
    /// The double and 64-bit integer opcodes the target runs as they are.
    pub wide: Wide64,
    /// What the driver's compiler makes larger code of, beyond its caps.
    pub tuning: Tuning,
}

/// Choices that keep a driver's machine code small where its compiler
/// pays for what another's does not. None changes what a shader computes
/// or what the target takes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tuning {
    /// Texture and sample instructions write all four channels, used or
    /// not: the driver's compiler writes a partial mask as a whole write
    /// and a `MOV` (i915's `texld`).
    pub whole_texture_writes: bool,
    /// Results the source computed in TEMPs stay there, and `MOV`s copy
    /// them into the outputs (`ir::EmitOptions::outputs_through_temps`):
    /// the driver's compiler gives an output
    /// written by an operation a register of its own, and folds a `MOV`
    /// from a TEMP (etnaviv).
    pub outputs_through_temps: bool,
    /// Outside fragment shaders, each output is stored right after the
    /// last use of the values it takes rather than where the invocation
    /// ends: the driver's compiler writes an output where the shader
    /// does, so a store at the end keeps its values in registers until
    /// then (nouveau's exports, r300's vertex outputs).
    pub early_output_stores: bool,
    /// `select` converts only branches whose arms compute nothing: the
    /// driver's compiler predicates a short arm itself (nouveau's
    /// if-conversion), where a select computes it for every invocation
    /// and holds both arms' results at once.
    pub predicated_branches: bool,
    /// In fragment shaders, emission keeps every value in the channel the
    /// source computed it in (`ir::EmitOptions::source_channels`): the
    /// driver's fragment ALU splits a vector instruction by channels
    /// (r300's RGB and alpha units), so a result packed from `.xyz` into
    /// `.yzw` costs it an instruction.
    pub source_channels: bool,
    /// Emission reads the initial zeros an output is stored with from a
    /// TEMP channel nothing writes (`ir::EmitOptions::zeros_from_temps`):
    /// the driver's compiler takes such a channel as undefined and writes
    /// nothing for it (nouveau), or folds the `MOV` from the TEMP into the
    /// output (etnaviv).
    pub zeros_from_temps: bool,
}

impl Target {
    /// A target called `name` running every stage with `caps`.
    pub fn uniform(name: &str, caps: Caps, wide: Wide64) -> Target {
        Target { name: name.to_string(), stages: [Some(caps); STAGES], wide, tuning: Tuning::default() }
    }

    /// A target called `name` running the vertex and fragment stages only.
    pub fn vertex_fragment(name: &str, vertex: Caps, fragment: Caps, wide: Wide64) -> Target {
        let mut stages = [None; STAGES];
        stages[Processor::Vertex.index() as usize] = Some(vertex);
        stages[Processor::Fragment.index() as usize] = Some(fragment);
        Target { name: name.to_string(), stages, wide, tuning: Tuning::default() }
    }

    /// The preset called `name` (see [`PRESETS`]).
    pub fn preset(name: &str) -> Option<Target> {
        presets::find(name).map(Preset::target)
    }

    /// The target's name: a preset's, or the `--caps` list it was read
    /// from.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The capabilities of `stage`; `None` when the driver runs no shader
    /// of that stage.
    pub fn stage(&self, stage: Processor) -> Option<&Caps> {
        self.stages.get(stage.index() as usize).and_then(Option::as_ref)
    }

    /// The capabilities passes work within for a shader of `stage`: the
    /// stage's, or everything for a stage the driver does not run (such a
    /// shader fails [`check`] whatever the passes do).
    pub fn caps_for(&self, stage: Processor) -> Caps {
        self.stage(stage).copied().unwrap_or(Caps::ALL)
    }

    /// Changes a stage capability in every stage the target runs.
    pub fn set(&mut self, cap: Cap, value: u32) {
        for caps in self.stages.iter_mut().flatten() {
            caps.set(cap, value);
        }
    }

    /// Replaces the capabilities of `stage`.
    pub fn set_stage(&mut self, stage: Processor, caps: Caps) {
        if let Some(slot) = self.stages.get_mut(stage.index() as usize) {
            *slot = Some(caps);
        }
    }

    /// Removes `stages`: the driver runs no shader of them.
    pub fn drop_stages(&mut self, stages: &[Processor]) {
        for stage in stages {
            if let Some(slot) = self.stages.get_mut(stage.index() as usize) {
                *slot = None;
            }
        }
    }

    /// Renames the target.
    pub fn named(mut self, name: &str) -> Target {
        self.name = name.to_string();
        self
    }
}
