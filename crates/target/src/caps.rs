//! The capabilities of one shader stage of a driver, named as Gallium's
//! `PIPE_SHADER_CAP_*` (and the one screen cap that shapes shaders,
//! `PIPE_CAP_TGSI_CAN_READ_OUTPUTS`).

use std::fmt;

/// What one stage of a driver takes. The 64-bit opcodes are the
/// target's [`crate::Wide64`], shared by its stages.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Caps {
    /// `PIPE_SHADER_CAP_INTEGERS`: integer, bitwise and conversion
    /// opcodes, `UIF`, `UCMP`, `SWITCH`, integer comparisons.
    pub integers: bool,
    /// `PIPE_SHADER_CAP_MAX_TEMPS`: TEMP registers.
    pub max_temps: u32,
    /// `PIPE_SHADER_CAP_MAX_CONTROL_FLOW_DEPTH`: how deep `IF`/`UIF`,
    /// `BGNLOOP` and `SWITCH` may nest; 0 allows none.
    pub max_control_flow_depth: u32,
    /// `PIPE_SHADER_CAP_INDIRECT_TEMP_ADDR`: `TEMP[ADDR[0].x + n]`.
    pub indirect_temp_addr: bool,
    /// `PIPE_SHADER_CAP_INDIRECT_CONST_ADDR`: `CONST[ADDR[0].x + n]` (and
    /// an indirect constant buffer).
    pub indirect_const_addr: bool,
    /// `PIPE_SHADER_CAP_INDIRECT_INPUT_ADDR`.
    pub indirect_input_addr: bool,
    /// `PIPE_SHADER_CAP_INDIRECT_OUTPUT_ADDR`.
    pub indirect_output_addr: bool,
    /// `PIPE_SHADER_CAP_SUBROUTINES`: `BGNSUB`, `CAL`, `RET` in a
    /// subroutine.
    pub subroutines: bool,
    /// `PIPE_SHADER_CAP_TGSI_SQRT_SUPPORTED`: the `SQRT` opcode.
    pub sqrt: bool,
    /// `PIPE_SHADER_CAP_MAX_INSTRUCTIONS`: TGSI instructions (`END`
    /// aside).
    pub max_instructions: u32,
    /// `PIPE_SHADER_CAP_MAX_CONST_BUFFERS`: constant buffers
    /// (`CONST[n][i]` with `n` below it).
    pub max_const_buffers: u32,
    /// `PIPE_SHADER_CAP_MAX_TEXTURE_SAMPLERS`: samplers (`SAMP[n]` with
    /// `n` below it; 0: no texturing).
    pub max_texture_samplers: u32,
    /// `PIPE_CAP_TGSI_CAN_READ_OUTPUTS` (a screen cap, later renamed
    /// `PIPE_CAP_SHADER_CAN_READ_OUTPUTS`): `OUT` as a source operand.
    pub can_read_outputs: bool,
}

/// A capability's name, as `--caps NAME=VALUE` and findings spell it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Cap {
    /// [`Caps::integers`].
    Integers,
    /// [`Caps::max_temps`].
    MaxTemps,
    /// [`Caps::max_control_flow_depth`].
    MaxControlFlowDepth,
    /// [`Caps::indirect_temp_addr`].
    IndirectTempAddr,
    /// [`Caps::indirect_const_addr`].
    IndirectConstAddr,
    /// [`Caps::indirect_input_addr`].
    IndirectInputAddr,
    /// [`Caps::indirect_output_addr`].
    IndirectOutputAddr,
    /// [`Caps::subroutines`].
    Subroutines,
    /// [`Caps::sqrt`].
    TgsiSqrtSupported,
    /// [`Caps::max_instructions`].
    MaxInstructions,
    /// [`Caps::max_const_buffers`].
    MaxConstBuffers,
    /// [`Caps::max_texture_samplers`].
    MaxTextureSamplers,
    /// [`Caps::can_read_outputs`].
    CanReadOutputs,
    /// The target's double opcodes ([`crate::Wide64::doubles`]).
    Doubles,
    /// The target's 64-bit integer opcodes ([`crate::Wide64::int64`]).
    Int64,
}

impl Cap {
    /// The stage capabilities, in the order lists print them.
    pub const STAGE: [Cap; 13] = [
        Cap::Integers,
        Cap::MaxTemps,
        Cap::MaxControlFlowDepth,
        Cap::IndirectTempAddr,
        Cap::IndirectConstAddr,
        Cap::IndirectInputAddr,
        Cap::IndirectOutputAddr,
        Cap::Subroutines,
        Cap::TgsiSqrtSupported,
        Cap::MaxInstructions,
        Cap::MaxConstBuffers,
        Cap::MaxTextureSamplers,
        Cap::CanReadOutputs,
    ];

    /// Gallium's name without its `PIPE_SHADER_CAP_`/`PIPE_CAP_` prefix.
    pub fn name(self) -> &'static str {
        match self {
            Cap::Integers => "INTEGERS",
            Cap::MaxTemps => "MAX_TEMPS",
            Cap::MaxControlFlowDepth => "MAX_CONTROL_FLOW_DEPTH",
            Cap::IndirectTempAddr => "INDIRECT_TEMP_ADDR",
            Cap::IndirectConstAddr => "INDIRECT_CONST_ADDR",
            Cap::IndirectInputAddr => "INDIRECT_INPUT_ADDR",
            Cap::IndirectOutputAddr => "INDIRECT_OUTPUT_ADDR",
            Cap::Subroutines => "SUBROUTINES",
            Cap::TgsiSqrtSupported => "TGSI_SQRT_SUPPORTED",
            Cap::MaxInstructions => "MAX_INSTRUCTIONS",
            Cap::MaxConstBuffers => "MAX_CONST_BUFFERS",
            Cap::MaxTextureSamplers => "MAX_TEXTURE_SAMPLERS",
            Cap::CanReadOutputs => "TGSI_CAN_READ_OUTPUTS",
            Cap::Doubles => "DOUBLES",
            Cap::Int64 => "INT64",
        }
    }

    /// The capability called `name` (ASCII case ignored, with or without
    /// the `PIPE_SHADER_CAP_`/`PIPE_CAP_` prefix; `SHADER_CAN_READ_OUTPUTS`,
    /// the later name, too).
    pub fn from_name(name: &str) -> Option<Cap> {
        let upper = name.to_ascii_uppercase();
        let bare = upper.strip_prefix("PIPE_SHADER_CAP_").or_else(|| upper.strip_prefix("PIPE_CAP_")).unwrap_or(&upper);
        if bare == "SHADER_CAN_READ_OUTPUTS" {
            return Some(Cap::CanReadOutputs);
        }
        Cap::STAGE.into_iter().chain([Cap::Doubles, Cap::Int64]).find(|c| c.name() == bare)
    }

    /// Whether the value is a count (not 0 or 1).
    pub fn is_count(self) -> bool {
        matches!(
            self,
            Cap::MaxTemps
                | Cap::MaxControlFlowDepth
                | Cap::MaxInstructions
                | Cap::MaxConstBuffers
                | Cap::MaxTextureSamplers
        )
    }
}

impl fmt::Display for Cap {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl Caps {
    /// Everything, with no bound that a shader the project reads can
    /// reach: what the built-in backend runs.
    pub const ALL: Caps = Caps {
        integers: true,
        max_temps: u32::MAX,
        max_control_flow_depth: u32::MAX,
        indirect_temp_addr: true,
        indirect_const_addr: true,
        indirect_input_addr: true,
        indirect_output_addr: true,
        subroutines: true,
        sqrt: true,
        max_instructions: u32::MAX,
        max_const_buffers: u32::MAX,
        max_texture_samplers: u32::MAX,
        can_read_outputs: true,
    };

    /// The value of a stage capability (booleans as 0 and 1); `None` for
    /// [`Cap::Doubles`] and [`Cap::Int64`], which are the target's.
    pub fn get(&self, cap: Cap) -> Option<u32> {
        Some(match cap {
            Cap::Integers => self.integers.into(),
            Cap::MaxTemps => self.max_temps,
            Cap::MaxControlFlowDepth => self.max_control_flow_depth,
            Cap::IndirectTempAddr => self.indirect_temp_addr.into(),
            Cap::IndirectConstAddr => self.indirect_const_addr.into(),
            Cap::IndirectInputAddr => self.indirect_input_addr.into(),
            Cap::IndirectOutputAddr => self.indirect_output_addr.into(),
            Cap::Subroutines => self.subroutines.into(),
            Cap::TgsiSqrtSupported => self.sqrt.into(),
            Cap::MaxInstructions => self.max_instructions,
            Cap::MaxConstBuffers => self.max_const_buffers,
            Cap::MaxTextureSamplers => self.max_texture_samplers,
            Cap::CanReadOutputs => self.can_read_outputs.into(),
            Cap::Doubles | Cap::Int64 => return None,
        })
    }

    /// Sets a stage capability (a boolean is any nonzero value); returns
    /// false for [`Cap::Doubles`] and [`Cap::Int64`].
    pub fn set(&mut self, cap: Cap, value: u32) -> bool {
        let on = value != 0;
        match cap {
            Cap::Integers => self.integers = on,
            Cap::MaxTemps => self.max_temps = value,
            Cap::MaxControlFlowDepth => self.max_control_flow_depth = value,
            Cap::IndirectTempAddr => self.indirect_temp_addr = on,
            Cap::IndirectConstAddr => self.indirect_const_addr = on,
            Cap::IndirectInputAddr => self.indirect_input_addr = on,
            Cap::IndirectOutputAddr => self.indirect_output_addr = on,
            Cap::Subroutines => self.subroutines = on,
            Cap::TgsiSqrtSupported => self.sqrt = on,
            Cap::MaxInstructions => self.max_instructions = value,
            Cap::MaxConstBuffers => self.max_const_buffers = value,
            Cap::MaxTextureSamplers => self.max_texture_samplers = value,
            Cap::CanReadOutputs => self.can_read_outputs = on,
            Cap::Doubles | Cap::Int64 => return false,
        }
        true
    }
}
