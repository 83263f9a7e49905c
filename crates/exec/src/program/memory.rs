//! Memory instructions compiled into steps: `LOAD`, `STORE`, the
//! atomics, `RESQ`, `BARRIER`, `MEMBAR` and `FBFETCH` (what they do is
//! [`crate::memory`]'s), and what a module does with memory.

use ir::function::{Inst, InstData, Module, Op};
use smallvec::SmallVec;
use tgsi::{File, MemoryType, Opcode, OperandType, Processor, TextureTarget};

use super::{Arg, Slots};
use crate::error::ExecError;

/// How address channels pick an image texel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Dims {
    /// Column `x`.
    X,
    /// Column `x`, layer `y`.
    XLayer,
    /// Column `x`, row `y`.
    XY,
    /// Column `x`, row `y`, layer `z`.
    XYLayer,
}

impl Dims {
    pub(crate) fn of(target: TextureTarget) -> Dims {
        match target {
            TextureTarget::Buffer | TextureTarget::T1D | TextureTarget::Shadow1D => Dims::X,
            TextureTarget::Array1D | TextureTarget::Shadow1DArray => Dims::XLayer,
            TextureTarget::T2D
            | TextureTarget::Rect
            | TextureTarget::Shadow2D
            | TextureTarget::ShadowRect
            | TextureTarget::Msaa2D => Dims::XY,
            _ => Dims::XYLayer,
        }
    }
}

/// The resource an access names.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Resource {
    Buffer(u32),
    Image { unit: u32, dims: Dims, raw: bool },
    Shared,
}

/// An atomic read-modify-write.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Atomic {
    Add,
    FAdd,
    Xchg,
    Cas,
    And,
    Or,
    Xor,
    UMin,
    UMax,
    IMin,
    IMax,
    IncWrap,
    DecWrap,
}

impl Atomic {
    pub(crate) fn of(op: Opcode) -> Option<Atomic> {
        Some(match op {
            Opcode::Atomuadd => Atomic::Add,
            Opcode::Atomfadd => Atomic::FAdd,
            Opcode::Atomxchg => Atomic::Xchg,
            Opcode::Atomcas => Atomic::Cas,
            Opcode::Atomand => Atomic::And,
            Opcode::Atomor => Atomic::Or,
            Opcode::Atomxor => Atomic::Xor,
            Opcode::Atomumin => Atomic::UMin,
            Opcode::Atomumax => Atomic::UMax,
            Opcode::Atomimin => Atomic::IMin,
            Opcode::Atomimax => Atomic::IMax,
            Opcode::AtomincWrap => Atomic::IncWrap,
            Opcode::AtomdecWrap => Atomic::DecWrap,
            _ => return None,
        })
    }

    /// The new value of a word holding `old`; `cmp` is `ATOMCAS`'s
    /// comparand.
    pub(crate) fn apply(self, old: u32, src: u32, cmp: u32) -> u32 {
        match self {
            Atomic::Add => old.wrapping_add(src),
            Atomic::FAdd => (f32::from_bits(old) + f32::from_bits(src)).to_bits(),
            Atomic::Xchg => src,
            // ATOMCAS dst, res, offset, cmp, src: src[2] compares, src[3] is stored.
            Atomic::Cas => {
                if old == cmp {
                    src
                } else {
                    old
                }
            }
            Atomic::And => old & src,
            Atomic::Or => old | src,
            Atomic::Xor => old ^ src,
            Atomic::UMin => old.min(src),
            Atomic::UMax => old.max(src),
            Atomic::IMin => (old as i32).min(src as i32) as u32,
            Atomic::IMax => (old as i32).max(src as i32) as u32,
            Atomic::IncWrap => match old.checked_add(1) {
                Some(v) if v <= src => v,
                _ => 0,
            },
            Atomic::DecWrap => {
                if old > 0 && old < src {
                    old - 1
                } else {
                    0
                }
            }
        }
    }
}

/// What an access does.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Kind {
    /// `LOAD`, the resource operand's swizzle applied to what is read.
    Load {
        swizzle: [u8; 4],
    },
    /// `STORE` of the channels of `mask`.
    Store {
        mask: u8,
    },
    Atomic(Atomic),
    /// `RESQ`.
    Query,
    /// `FBFETCH`: zeros.
    Zero,
}

/// One memory instruction, compiled.
#[derive(Clone, Debug)]
pub(crate) struct Access {
    pub kind: Kind,
    pub resource: Resource,
    /// The address operand's four channels (unused by queries).
    pub address: [Option<Arg>; 4],
    /// `STORE`: the four channels of the value; atomics: the operand's
    /// `.x` and, for `ATOMCAS`, the comparand's `.x` (first).
    pub values: SmallVec<[(Arg, OperandType); 4]>,
    /// The destination channels written, with their slots.
    pub dsts: SmallVec<[(u8, u32); 4]>,
}

/// Whether the backend treats `op` here.
pub(crate) fn handles(op: Opcode) -> bool {
    matches!(op, Opcode::Load | Opcode::Store | Opcode::Resq | Opcode::Barrier | Opcode::Membar | Opcode::Fbfetch)
        || Atomic::of(op).is_some()
}

/// What a module does with memory, for how a run is organised.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Usage {
    /// Some `STORE` or atomic: batches must run in order on one thread.
    pub writes: bool,
    /// A compute shader with a `BARRIER`: batches hold whole work groups.
    pub barrier: bool,
    /// Some step reads, writes or queries memory (set once the steps are
    /// compiled).
    pub accesses: bool,
}

impl Usage {
    pub fn of(module: &Module) -> Usage {
        let mut usage = Usage::default();
        for (_, data) in module.function.insts.iter() {
            if let Op::Opaque { inst, .. } = &data.op {
                usage.writes |= inst.opcode == Opcode::Store || Atomic::of(inst.opcode).is_some();
                usage.barrier |= inst.opcode == Opcode::Barrier && module.processor == Processor::Compute;
            }
        }
        usage
    }
}

/// Compiles a memory instruction; `None` for those that do nothing here
/// (`BARRIER`, `MEMBAR`).
pub(crate) fn compile(
    module: &Module,
    data: &InstData,
    slots: &Slots,
    t: &tgsi::Instruction,
    inst: Inst,
) -> Result<Option<Access>, ExecError> {
    let op = t.opcode;
    let name = op.info().name;
    if matches!(op, Opcode::Barrier | Opcode::Membar) {
        return Ok(None);
    }
    let mask = t.dst.first().map_or(0, |d| d.write_mask & 0xf);
    let dsts: SmallVec<[(u8, u32); 4]> =
        if op == Opcode::Store { SmallVec::new() } else { slots.written(mask, &data.results) };
    if op == Opcode::Fbfetch {
        let address = [None; 4];
        return Ok(Some(Access {
            kind: Kind::Zero,
            resource: Resource::Shared,
            address,
            values: SmallVec::new(),
            dsts,
        }));
    }
    let reg = if op == Opcode::Store { t.dst.first().map(|d| d.reg) } else { t.src.first().map(|s| s.reg) };
    let reg = reg.ok_or_else(|| ExecError::Malformed(format!("{inst} names no resource")))?;
    let unit = reg.index.max(0) as u32;
    let resource = match reg.file {
        File::Buffer => Resource::Buffer(unit),
        File::Image => {
            let decl = declaration(module, File::Image, unit).and_then(|d| d.image);
            let declared = decl.map_or(TextureTarget::T2D, |i| i.target);
            // LOAD and STORE read the address channels the instruction's
            // target needs (all four without one); the others read all
            // four, and most name no target.
            let target = match t.memory.map(|m| m.texture) {
                Some(TextureTarget::Buffer) if !matches!(op, Opcode::Load | Opcode::Store) => declared,
                Some(named) => named,
                None => declared,
            };
            Resource::Image { unit, dims: Dims::of(target), raw: decl.is_some_and(|i| i.raw) }
        }
        File::Memory => match declaration(module, File::Memory, unit).map(|d| d.memory_type) {
            Some(MemoryType::Shared) => Resource::Shared,
            other => {
                let kind = other.unwrap_or(MemoryType::Global);
                return Err(ExecError::Unsupported(format!("{name} on {kind} memory")));
            }
        },
        other => return Err(ExecError::Unsupported(format!("{name} on {other} registers"))),
    };
    // Value operands come four channels each, in source order; the
    // resource is not one of them (for STORE it is the destination).
    let value_srcs: Vec<usize> = match &data.op {
        Op::Opaque { value_srcs, .. } => (0..t.src.len()).filter(|i| value_srcs & (1 << i) != 0).collect(),
        _ => Vec::new(),
    };
    let operand = |k: usize, c: usize| -> Result<(Arg, OperandType), ExecError> {
        let (&src, a) = value_srcs
            .get(k)
            .zip(data.args.get(4 * k + c))
            .ok_or_else(|| ExecError::Malformed(format!("{inst} lacks operand {k}")))?;
        let s = &t.src[src];
        Ok((slots.source_arg(a, (s.negate, s.absolute)), op.src_type(src)))
    };
    let address = |k: usize| -> Result<[Option<Arg>; 4], ExecError> {
        let mut out = [None; 4];
        for (c, slot) in out.iter_mut().enumerate() {
            *slot = Some(operand(k, c)?.0);
        }
        Ok(out)
    };
    let access = match op {
        Opcode::Load => {
            let swizzle = t.src.first().map_or(tgsi::IDENTITY_SWIZZLE, |s| s.swizzle);
            Access { kind: Kind::Load { swizzle }, resource, address: address(0)?, values: SmallVec::new(), dsts }
        }
        Opcode::Store => {
            let values = (0..4).map(|c| operand(1, c)).collect::<Result<_, _>>()?;
            Access { kind: Kind::Store { mask }, resource, address: address(0)?, values, dsts }
        }
        Opcode::Resq => Access { kind: Kind::Query, resource, address: [None; 4], values: SmallVec::new(), dsts },
        _ => {
            let Some(atomic) = Atomic::of(op) else {
                return Err(ExecError::Unsupported(name.to_string()));
            };
            let mut values = SmallVec::new();
            values.push(operand(1, 0)?);
            if atomic == Atomic::Cas {
                values.push(operand(2, 0)?);
            }
            Access { kind: Kind::Atomic(atomic), resource, address: address(0)?, values, dsts }
        }
    };
    Ok(Some(access))
}

/// The declaration of register `index` of `file`.
fn declaration(module: &Module, file: File, index: u32) -> Option<&tgsi::Declaration> {
    module.interface.iter().find_map(|item| match item {
        tgsi::Item::Declaration(d) if d.file == file && (d.first as u32..=d.last as u32).contains(&index) => Some(d),
        _ => None,
    })
}
