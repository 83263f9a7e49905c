//! Compiling one instruction of the IR: to steps, to values filled in when
//! a batch starts, or to nothing (phis, barriers).

use ir::function::{Function, Inst, InstData, Module, Op, Source};
use ir::EntityRef;
use smallvec::SmallVec;
use tgsi::{File, Opcode, Register, SemanticName};

use super::memory;
use super::slots::{Arg, Slots};
use super::steps::{Deriv, Fill, Lod, Step, TexOp, TEX_OPERANDS};
use crate::error::ExecError;
use crate::kernel::Kernel;

/// What an instruction compiles to.
pub(super) enum Compiled {
    Steps(SmallVec<[Step; 2]>),
    /// Slots set when a batch starts (two for a 64-bit constant).
    Fills(SmallVec<[(u32, Fill); 2]>),
    /// Phis (copies at the ends of their predecessors instead), and
    /// barriers, which a batch's lanes honour by running together.
    Nothing,
}

/// An instruction being compiled, with the slots of its values.
struct InstSlots<'f> {
    inst: Inst,
    data: &'f InstData,
    slots: &'f Slots,
}

impl InstSlots<'_> {
    /// The slot of the (first) result, or an error without one.
    fn dst(&self) -> Result<u32, ExecError> {
        let inst = self.inst;
        let dst = self.data.results.first().map(|&v| self.slots.of(v));
        dst.ok_or_else(|| ExecError::Malformed(format!("{inst} has no result")))
    }

    /// Whether the (first) result is a 64-bit value.
    fn wide_dst(&self) -> bool {
        self.data.results.first().is_some_and(|&v| self.slots.is_wide(v))
    }

    /// The slot of operand `i`, or an error without one.
    fn arg(&self, i: usize) -> Result<u32, ExecError> {
        let inst = self.inst;
        let slot = self.data.args.get(i).map(|a| self.slots.of(a.value));
        slot.ok_or_else(|| ExecError::Malformed(format!("{inst} lacks operand {i}")))
    }

    /// The slot of the first operand, when there is one.
    fn first_arg(&self) -> Option<u32> {
        self.data.args.first().map(|a| self.slots.of(a.value))
    }

    /// A value set when a batch starts; the high half of a 64-bit one too.
    fn fill(&self, fill: Fill, hi: u32) -> Result<Compiled, ExecError> {
        let dst = self.dst()?;
        let mut list = SmallVec::from_slice(&[(dst, fill)]);
        if self.wide_dst() {
            list.push((dst + 1, Fill::Bits(hi)));
        }
        Ok(Compiled::Fills(list))
    }
}

/// Compiles `inst` of `func`: `sv_names` are the system values'
/// semantics, `outputs` the declared OUT registers, and `const_reads`
/// gets the direct constant reads it makes.
pub(super) fn compile_inst(
    module: &Module,
    func: &Function,
    slots: &Slots,
    inst: Inst,
    sv_names: &[Option<SemanticName>],
    outputs: &[u32],
    const_reads: &mut Vec<(u32, u32, u8)>,
) -> Result<Compiled, ExecError> {
    let data = &func.insts[inst];
    // Batch loops write a result's slot while they read the operands'.
    if data.args.iter().any(|a| data.results.contains(&a.value)) {
        return Err(ExecError::Malformed(format!("{inst} reads its own result")));
    }
    let x = InstSlots { inst, data, slots };
    let step = match &data.op {
        Op::Const(bits) => return x.fill(Fill::Bits(*bits as u32), (*bits >> 32) as u32),
        Op::Initial | Op::Undef => return x.fill(Fill::Bits(0), 0),
        Op::Read(s) => return x.fill(read_fill(module, s, sv_names, const_reads), 0),
        Op::Alu { opcode, chan } => alu_step(&x, *opcode, *chan)?,
        Op::Pack => {
            let dst = x.dst()?;
            let moves = [Step::Move { dst, src: x.arg(0)? }, Step::Move { dst: dst + 1, src: x.arg(1)? }];
            return Ok(Compiled::Steps(SmallVec::from_iter(moves)));
        }
        Op::Split { hi } => Step::Move { dst: x.dst()?, src: x.arg(0)? + *hi as u32 },
        Op::LoadIndirect { reg, chan } => load_indirect_step(&x, reg, *chan)?,
        Op::ArrayLoad { array, offset, chan } => Step::ArrayLoad {
            dst: x.dst()?,
            array: array.index() as u32,
            offset: *offset,
            index: x.first_arg(),
            chan: *chan,
        },
        Op::ArrayStore { array, offset, chan } => {
            let value = data
                .args
                .last()
                .map(|a| slots.of(a.value))
                .ok_or_else(|| ExecError::Malformed(format!("{inst} stores no value")))?;
            Step::ArrayStore {
                array: array.index() as u32,
                offset: *offset,
                index: if data.args.len() > 1 { Some(x.arg(0)?) } else { None },
                value,
                chan: *chan,
            }
        }
        // A direct output (a tessellation control shader's per-patch
        // output) is stored as any output is; per-vertex outputs are
        // shared by the invocations of a patch, which the backend does not
        // model.
        Op::StoreIndirect { reg, chan } => match u32::try_from(reg.index) {
            Ok(index) if reg.file == File::Output && reg.indirect.is_none() && reg.dimension.is_none() => {
                let declared = outputs.binary_search(&index).ok().map(|r| r as u32);
                let value = data.args.last().map(|a| slots.of(a.value));
                let value = value.ok_or_else(|| ExecError::Malformed(format!("{inst} stores no value")))?;
                Step::StoreOutput { index, chan: *chan, value, declared }
            }
            _ => return Err(ExecError::Unsupported(format!("stores to 2-D or indirect {} registers", reg.file))),
        },
        Op::StoreOutput { index, chan } => {
            let declared = outputs.binary_search(index).ok().map(|r| r as u32);
            Step::StoreOutput { index: *index, chan: *chan, value: x.arg(0)?, declared }
        }
        Op::Opaque { inst: t, .. } => return opaque_step(module, &x, t),
        Op::Phi { .. } => return Ok(Compiled::Nothing),
    };
    Ok(Compiled::Steps(SmallVec::from_iter([step])))
}

/// An ALU instruction: a derivative, or a batch loop over its operands
/// (lane by lane on joined halves when a value is 64-bit).
fn alu_step(x: &InstSlots, opcode: Opcode, chan: u8) -> Result<Step, ExecError> {
    let (data, slots, inst) = (x.data, x.slots, x.inst);
    let info = opcode.info();
    let kind = match opcode {
        Opcode::Ddx => Some(Deriv::X),
        Opcode::Ddy => Some(Deriv::Y),
        Opcode::DdxFine => Some(Deriv::XFine),
        Opcode::DdyFine => Some(Deriv::YFine),
        _ => None,
    };
    if let Some(kind) = kind {
        let a = data.args.first().ok_or_else(|| ExecError::Malformed(format!("{inst} lacks its operand")))?;
        return Ok(Step::Deriv { dst: x.dst()?, arg: slots.arg(a), kind, sat: data.saturate });
    }
    let n = data.args.len();
    let dst = x.dst()?;
    let wide_dst = x.wide_dst();
    let args: SmallVec<[Arg; 4]> = data.args.iter().map(|a| slots.arg(a)).collect();
    let plain = !data.saturate && args.iter().all(|a| !a.neg && !a.abs);
    let wide = wide_dst || args.iter().any(|a| a.wide);
    let kernel = if wide { Kernel::eval(opcode, chan, n) } else { Kernel::of(opcode, chan, n) };
    let kernel = kernel.ok_or(ExecError::UnsupportedAlu { opcode: info.name, chan, args: n })?;
    Ok(Step::Alu {
        dst,
        width: 1,
        broadcast: 0,
        args,
        src_tys: (0..n).map(|i| opcode.src_type(i)).collect(),
        sat: data.saturate.then_some(info.dst_type),
        kernel,
        opcode,
        plain,
        wide,
        wide_dst,
    })
}

/// A load from register `reg`'s file, its index (and 2-D index) adding
/// the operands for their indirect parts, in order.
fn load_indirect_step(x: &InstSlots, reg: &Register, chan: u8) -> Result<Step, ExecError> {
    if reg.file == File::Output && reg.dimension.is_some() {
        return Err(ExecError::Unsupported(format!("loads of 2-D {} registers", reg.file)));
    }
    let mut k = 0;
    let index = if reg.indirect.is_some() {
        k += 1;
        Some(x.arg(0)?)
    } else {
        None
    };
    let dim = match &reg.dimension {
        Some(d) => Some((d.index, if d.indirect.is_some() { Some(x.arg(k)?) } else { None })),
        None => None,
    };
    Ok(Step::LoadIndirect { dst: x.dst()?, file: reg.file, base: reg.index, index, dim, chan })
}

/// An instruction the IR keeps whole (`t`): kills, geometry emission,
/// texture and memory instructions; an error for any other.
fn opaque_step(module: &Module, x: &InstSlots, t: &tgsi::Instruction) -> Result<Compiled, ExecError> {
    let (data, slots, inst) = (x.data, x.slots, x.inst);
    let value_srcs = match &data.op {
        Op::Opaque { value_srcs, .. } => *value_srcs,
        _ => 0,
    };
    // Resources picked per lane (`SAMP[ADDR[0].x]`) are not modelled.
    if let Some(reg) = ir::opaque_address_operands(t, value_srcs).find(|r| ir::indirect_parts(r) > 0) {
        return Err(ExecError::Unsupported(format!("indirectly addressed {} operands", reg.file)));
    }
    let step = match t.opcode {
        Opcode::Kill | Opcode::Demote => Step::Kill,
        // The source's `-` and `|x|` are the template's, as for texture
        // operands.
        Opcode::KillIf => {
            let modifiers = t.src.first().map_or((false, false), |s| (s.negate, s.absolute));
            Step::KillIf { args: data.args.iter().take(4).map(|a| slots.source_arg(a, modifiers)).collect() }
        }
        // The stream is the first channel of the operand, when there is one.
        Opcode::Emit => Step::Emit { stream: x.first_arg() },
        Opcode::Endprim => Step::EndPrimitive { stream: x.first_arg() },
        op @ (Opcode::Tex
        | Opcode::TexLz
        | Opcode::TxfLz
        | Opcode::Txb
        | Opcode::Txl
        | Opcode::Txd
        | Opcode::Txp
        | Opcode::Txf
        | Opcode::Txq
        | Opcode::Sample
        | Opcode::SampleB
        | Opcode::SampleL
        | Opcode::SampleD
        | Opcode::Sviewinfo
        | Opcode::Txqs
        | Opcode::SampleInfo
        | Opcode::SamplePos) => {
            let fragment = module.processor == tgsi::Processor::Fragment;
            texture_step(data, slots, (t, value_srcs), (op, fragment), inst)?
        }
        op if memory::handles(op) => match memory::compile(module, data, slots, t, inst)? {
            Some(access) => Step::Memory(Box::new(access)),
            None => return Ok(Compiled::Nothing),
        },
        other => return Err(ExecError::Unsupported(other.info().name.to_string())),
    };
    Ok(Compiled::Steps(SmallVec::from_iter([step])))
}

/// A texture instruction: its unit (the sampler, or the view for the
/// SAMPLE family), the first value operand's four channels (with the
/// operand's modifiers), the operands its level of detail or sample index
/// needs, and the written channels. `fragment`: whether the shader is a
/// fragment shader, whose lanes are quads.
fn texture_step(
    data: &InstData,
    slots: &Slots,
    (t, value_srcs): (&tgsi::Instruction, u8),
    (op, fragment): (Opcode, bool),
    inst: Inst,
) -> Result<Step, ExecError> {
    let unit_file = if t.src.iter().any(|s| s.reg.file == File::SamplerView) && op != Opcode::Txq {
        File::SamplerView
    } else {
        File::Sampler
    };
    let unit = t.src.iter().find(|s| s.reg.file == unit_file).map_or(0, |s| s.reg.index.max(0) as u32);
    // Channel `chan` of source `src`, a value source: its arguments come
    // four a source, in source order.
    let operand = |src: usize, chan: usize| -> Result<Arg, ExecError> {
        let missing = || ExecError::Malformed(format!("{inst} lacks channel {chan} of operand {src}"));
        if src >= 8 || value_srcs & (1 << src) == 0 {
            return Err(missing());
        }
        let k = 4 * (value_srcs & ((1u8 << src) - 1)).count_ones() as usize + chan;
        let a = data.args.get(k).ok_or_else(missing)?;
        let s = t.src.get(src).ok_or_else(missing)?;
        Ok(slots.source_arg(a, (s.negate, s.absolute)))
    };
    let first = t.src.iter().position(|s| !matches!(s.reg.file, File::Sampler | File::SamplerView)).unwrap_or(0);
    let implicit = if fragment { Lod::Implicit } else { Lod::Zero };
    // The render target is named by a TEMP operand (a value, so a
    // placeholder in the kept instruction), a resource by a view.
    let target = t.src.first().is_some_and(|s| s.reg.file != File::SamplerView);
    let op = match op {
        Opcode::Txp => TexOp::Project(implicit),
        Opcode::Txf => TexOp::Fetch { level: true },
        Opcode::TxfLz => TexOp::Fetch { level: false },
        Opcode::Txq | Opcode::Sviewinfo => TexOp::Query,
        Opcode::Txqs => TexOp::SampleCount { target: false },
        Opcode::SampleInfo => TexOp::SampleCount { target },
        Opcode::SamplePos => TexOp::SamplePosition { target },
        Opcode::TexLz => TexOp::Sample(Lod::Zero),
        Opcode::Txb | Opcode::SampleB => TexOp::Sample(Lod::Bias { implicit: fragment }),
        Opcode::Txl | Opcode::SampleL => TexOp::Sample(Lod::Explicit),
        Opcode::Txd | Opcode::SampleD => TexOp::Sample(Lod::Gradients),
        _ => TexOp::Sample(implicit),
    };
    let none = Arg { slot: 0, neg: false, abs: false, wide: false };
    let mut coords = [none; TEX_OPERANDS];
    match op {
        TexOp::Sample(_) | TexOp::Project(_) | TexOp::Fetch { .. } => {
            for (chan, c) in coords[..4].iter_mut().enumerate() {
                *c = operand(first, chan)?;
            }
        }
        // The level, when there is an operand for it.
        TexOp::Query if value_srcs & 1 != 0 => coords[0] = operand(0, 0)?,
        // The sample index: the operand after the resource or target.
        TexOp::SamplePosition { .. } => coords[0] = operand(1, 0)?,
        // Other queries read no operand.
        _ => {}
    }
    // Bias and level: the coordinate's w for TXB and TXL, the fourth
    // operand's x for the SAMPLE family; derivatives: two operands' x, y.
    let sample_family = matches!(op, TexOp::Sample(_)) && unit_file == File::SamplerView;
    match op {
        TexOp::Sample(Lod::Bias { .. } | Lod::Explicit) if sample_family => coords[4] = operand(3, 0)?,
        TexOp::Sample(Lod::Bias { .. } | Lod::Explicit) => coords[4] = coords[3],
        TexOp::Sample(Lod::Gradients) => {
            let (dx, dy) = if sample_family { (3, 4) } else { (1, 2) };
            coords[4..].copy_from_slice(&[operand(dx, 0)?, operand(dx, 1)?, operand(dy, 0)?, operand(dy, 1)?]);
        }
        _ => {}
    }
    // The sample queries apply the resource operand's swizzle to their
    // result.
    let swizzle = match (op, t.src.first()) {
        (TexOp::SampleCount { .. } | TexOp::SamplePosition { .. }, Some(s)) if s.reg.file == File::SamplerView => {
            s.swizzle
        }
        _ => tgsi::IDENTITY_SWIZZLE,
    };
    let mask = t.dst.first().map_or(0, |d| d.write_mask);
    let dsts = slots.written(mask, &data.results);
    Ok(Step::Texture { op, unit, coords: Box::new(coords), swizzle, dsts, sat: data.saturate })
}

fn read_fill(
    module: &Module,
    s: &Source,
    sv_names: &[Option<SemanticName>],
    const_reads: &mut Vec<(u32, u32, u8)>,
) -> Fill {
    match s.file {
        File::Input => Fill::Input { vertex: s.dim, index: s.index, chan: s.chan },
        File::Constant => {
            const_reads.push((s.dim.unwrap_or(0), s.index, s.chan));
            Fill::Constant { k: const_reads.len() as u32 - 1 }
        }
        File::SystemValue => {
            Fill::SystemValue { name: sv_names.get(s.index as usize).copied().flatten(), chan: s.chan }
        }
        File::Immediate => {
            Fill::Bits(module.immediates.get(s.index as usize).map_or(0, |imm| imm.data[s.chan as usize & 3]))
        }
        _ => Fill::Bits(0),
    }
}
