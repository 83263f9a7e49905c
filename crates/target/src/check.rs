//! What a shader needs that a target lacks, item by item.

use std::fmt;

use semantics::needs;
use tgsi::{File, Item, Opcode, Processor, Register, Shader};

use crate::{Cap, Target};

/// One thing a shader needs that the target lacks, at an item of
/// [`Shader::items`] (`None` for the shader as a whole).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finding {
    /// The index in [`Shader::items`] of the offending item.
    pub item: Option<usize>,
    /// What is lacking.
    pub lack: Lack,
}

/// What a [`Finding`] says the target lacks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lack {
    /// The driver runs no shader of this stage.
    Stage(Processor),
    /// An opcode that needs a capability the stage lacks (`INTEGERS`,
    /// `TGSI_SQRT_SUPPORTED`, `DOUBLES`, `INT64`).
    Opcode {
        /// The opcode.
        opcode: Opcode,
        /// The capability.
        cap: Cap,
    },
    /// A 64-bit opcode the target's doubles or 64-bit integers do not run
    /// as they are (`legalize-doubles` rewrites it).
    NotNative(Opcode),
    /// Control flow nested `depth` deep, past `MAX_CONTROL_FLOW_DEPTH`.
    Depth {
        /// The depth the opening instruction reaches (1 for an outermost
        /// `IF`).
        depth: u32,
        /// The stage's bound.
        max: u32,
    },
    /// A subroutine (`BGNSUB`, `CAL`) without `SUBROUTINES`.
    Subroutine(Opcode),
    /// Indirect addressing of a register file without its
    /// `INDIRECT_*_ADDR`.
    Indirect {
        /// The file addressed.
        file: File,
        /// The capability.
        cap: Cap,
    },
    /// An `OUT` register read without `TGSI_CAN_READ_OUTPUTS`.
    OutputRead,
    /// A constant buffer past `MAX_CONST_BUFFERS`.
    ConstBuffer {
        /// The buffer (`CONST[index][...]`).
        index: u32,
        /// The stage's bound.
        max: u32,
    },
    /// A sampler past `MAX_TEXTURE_SAMPLERS`.
    Sampler {
        /// The sampler (`SAMP[index]`).
        index: u32,
        /// The stage's bound.
        max: u32,
    },
    /// More TEMP registers than `MAX_TEMPS`.
    Temps {
        /// TEMPs the shader declares.
        count: u32,
        /// The stage's bound.
        max: u32,
    },
    /// More instructions than `MAX_INSTRUCTIONS`.
    Instructions {
        /// Instructions of the shader (`END` aside).
        count: u32,
        /// The stage's bound.
        max: u32,
    },
}

impl Lack {
    /// The capability lacking ([`None`] for a stage the driver lacks, or
    /// an opcode not native among 64-bit ones).
    pub fn cap(&self) -> Option<Cap> {
        Some(match *self {
            Lack::Stage(_) | Lack::NotNative(_) => return None,
            Lack::Opcode { cap, .. } | Lack::Indirect { cap, .. } => cap,
            Lack::Depth { .. } => Cap::MaxControlFlowDepth,
            Lack::Subroutine(_) => Cap::Subroutines,
            Lack::OutputRead => Cap::CanReadOutputs,
            Lack::ConstBuffer { .. } => Cap::MaxConstBuffers,
            Lack::Sampler { .. } => Cap::MaxTextureSamplers,
            Lack::Temps { .. } => Cap::MaxTemps,
            Lack::Instructions { .. } => Cap::MaxInstructions,
        })
    }
}

impl Lack {
    /// Whether `self` and `other` are of one kind: the same capability,
    /// or the same stage or 64-bit opcode.
    pub fn same_kind(&self, other: &Lack) -> bool {
        match (self.cap(), other.cap()) {
            (Some(x), Some(y)) => x == y,
            (None, None) => self == other,
            _ => false,
        }
    }
}

/// The findings of a rewritten shader (`after`) of a kind the original's
/// findings (`before`) do not have: what the rewrite brought in, as a
/// pass that makes more TEMPs than the target has. The rest the input
/// needed already.
pub fn introduced(before: &[Finding], after: Vec<Finding>) -> Vec<Finding> {
    after.into_iter().filter(|f| !before.iter().any(|b| b.lack.same_kind(&f.lack))).collect()
}

impl fmt::Display for Lack {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Lack::Stage(p) => write!(f, "the target runs no {} shader", p.name()),
            Lack::Opcode { opcode, cap } => write!(f, "{} needs {cap}, which the target lacks", opcode.name()),
            Lack::NotNative(opcode) => {
                write!(f, "{} is not native on the target (legalize-doubles rewrites it)", opcode.name())
            }
            Lack::Depth { depth, max } => {
                write!(f, "control flow nested {depth} deep; the target allows {max} (MAX_CONTROL_FLOW_DEPTH)")
            }
            Lack::Subroutine(opcode) => write!(f, "{} needs SUBROUTINES, which the target lacks", opcode.name()),
            Lack::Indirect { file, cap } => {
                write!(f, "indirect addressing of {} needs {cap}, which the target lacks", file.name())
            }
            Lack::OutputRead => write!(f, "reads an output register; the target lacks TGSI_CAN_READ_OUTPUTS"),
            Lack::ConstBuffer { index, max } => {
                write!(f, "constant buffer {index}; the target has {max} (MAX_CONST_BUFFERS)")
            }
            Lack::Sampler { index, max } => write!(f, "sampler {index}; the target has {max} (MAX_TEXTURE_SAMPLERS)"),
            Lack::Temps { count, max } => write!(f, "{count} TEMP registers; the target has {max} (MAX_TEMPS)"),
            Lack::Instructions { count, max } => {
                write!(f, "{count} instructions; the target takes {max} (MAX_INSTRUCTIONS)")
            }
        }
    }
}

/// Everything `shader` needs that `target` lacks, in item order (findings
/// of the shader as a whole first). Empty: the target takes it, as far as
/// its capabilities say (a driver's own limits after its lowering, such
/// as native instruction counts, are not capabilities).
///
/// ```
/// let shader = tgsi::parse("FRAG\nDCL OUT[0], COLOR\nDCL TEMP[0]\n\
///     IMM[0] UINT32 {1, 0, 0, 0}\nUCMP TEMP[0], IMM[0].xxxx, IMM[0].yyyy, IMM[0].zzzz\n\
///     MOV OUT[0], TEMP[0]\nEND\n").unwrap();
/// let r300 = target::Target::preset("r300").unwrap();
/// let findings = target::check(&shader, &r300);
/// assert_eq!(findings[0].item, Some(3)); // items: 2 declarations, the immediate, UCMP
/// assert_eq!(findings[0].lack.to_string(), "UCMP needs INTEGERS, which the target lacks");
/// assert!(target::check(&shader, &target::Target::preset("softpipe").unwrap()).is_empty());
/// ```
pub fn check(shader: &Shader, target: &Target) -> Vec<Finding> {
    let Some(caps) = target.stage(shader.processor) else {
        return vec![Finding { item: None, lack: Lack::Stage(shader.processor) }];
    };
    let mut findings = Vec::new();
    let mut found = |item: usize, lack: Lack| findings.push(Finding { item: Some(item), lack });
    let mut temps = 0u32;
    let mut depth = 0u32;
    let mut instructions = 0u32;
    for (k, item) in shader.items.iter().enumerate() {
        let inst = match item {
            Item::Declaration(d) if d.file == File::Temporary => {
                let count = u32::from(d.last) + 1;
                if count > caps.max_temps && temps <= caps.max_temps {
                    found(k, Lack::Temps { count, max: caps.max_temps });
                }
                temps = temps.max(count);
                continue;
            }
            Item::Instruction(inst) => inst,
            _ => continue,
        };
        if inst.opcode != Opcode::End {
            instructions += 1;
            if instructions == caps.max_instructions.saturating_add(1) {
                let count = shader.instructions().filter(|i| i.opcode != Opcode::End).count();
                found(
                    k,
                    Lack::Instructions { count: u32::try_from(count).unwrap_or(u32::MAX), max: caps.max_instructions },
                );
            }
        }
        for lack in opcode_lacks(inst.opcode, caps, target) {
            found(k, lack);
        }
        if inst.opcode.closes_construct() {
            depth = depth.saturating_sub(1);
        }
        if inst.opcode.opens_construct() {
            depth += 1;
            if depth > caps.max_control_flow_depth {
                found(k, Lack::Depth { depth, max: caps.max_control_flow_depth });
            }
        }
        let dst = inst.dst.iter().map(|d| (&d.reg, false));
        let mut reads_output = false;
        for (reg, is_src) in dst.chain(inst.src.iter().map(|s| (&s.reg, true))) {
            reads_output |= is_src && reg.file == File::Output;
            if let Some((file, cap)) = indirect_lacks(reg, caps) {
                found(k, Lack::Indirect { file, cap });
            }
            if let Some(lack) = bound_lack(reg, caps) {
                found(k, lack);
            }
        }
        if reads_output && !caps.can_read_outputs {
            found(k, Lack::OutputRead);
        }
    }
    findings
}

/// What `opcode` needs that the stage `caps` of `target` lacks.
fn opcode_lacks(opcode: Opcode, caps: &crate::Caps, target: &Target) -> Vec<Lack> {
    let need = needs(opcode);
    let mut lacks = Vec::new();
    let mut lacking = |cap: Cap| lacks.push(Lack::Opcode { opcode, cap });
    if need.integers && !caps.integers {
        lacking(Cap::Integers);
    }
    if need.sqrt && !caps.sqrt {
        lacking(Cap::TgsiSqrtSupported);
    }
    if need.doubles && !target.wide.doubles() {
        lacking(Cap::Doubles);
    } else if need.int64 && !need.doubles && !target.wide.int64() {
        lacking(Cap::Int64);
    } else if !target.wide.is_native(opcode) {
        lacks.push(Lack::NotNative(opcode));
    }
    if matches!(opcode, Opcode::Bgnsub | Opcode::Cal) && !caps.subroutines {
        lacks.push(Lack::Subroutine(opcode));
    }
    lacks
}

/// A constant buffer or sampler `reg` names past the stage's bound.
fn bound_lack(reg: &Register, caps: &crate::Caps) -> Option<Lack> {
    let index = |i: i32| u32::try_from(i).unwrap_or(0);
    match reg.file {
        File::Constant => {
            let buffer = reg.dimension.map_or(0, |d| index(d.index));
            (buffer >= caps.max_const_buffers)
                .then_some(Lack::ConstBuffer { index: buffer, max: caps.max_const_buffers })
        }
        File::Sampler => {
            let sampler = index(reg.index);
            (sampler >= caps.max_texture_samplers)
                .then_some(Lack::Sampler { index: sampler, max: caps.max_texture_samplers })
        }
        _ => None,
    }
}

/// The indirect addressing of `reg` (its index or its dimension) that the
/// stage `caps` lacks.
fn indirect_lacks(reg: &Register, caps: &crate::Caps) -> Option<(File, Cap)> {
    let indirect = reg.indirect.is_some() || reg.dimension.is_some_and(|d| d.indirect.is_some());
    let (cap, has) = match reg.file {
        File::Temporary => (Cap::IndirectTempAddr, caps.indirect_temp_addr),
        File::Constant => (Cap::IndirectConstAddr, caps.indirect_const_addr),
        File::Input => (Cap::IndirectInputAddr, caps.indirect_input_addr),
        File::Output => (Cap::IndirectOutputAddr, caps.indirect_output_addr),
        _ => return None,
    };
    (indirect && !has).then_some((reg.file, cap))
}
