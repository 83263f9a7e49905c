//! Emission back to TGSI.
//!
//! Out of SSA: every value gets a register channel (`alloc`), phis become
//! copies at the end of their predecessors (as one parallel copy; those an
//! else arm would hold alone go before the `IF` when they can), and the
//! control-flow tree is written back as structured TGSI. Scalar operations
//! that came from one source instruction, have the same opcode and read
//! the same registers are written as one vector instruction again, so a
//! shader that went through no pass comes out nearly as it went in.
//!
//! The output uses today's opcodes and syntax only, and Mesa's branch
//! labels (IF/UIF to the matching ELSE or ENDIF, ELSE to the ENDIF).
//!
//! Here: the entry point [`to_tgsi`], the `Emitter` state shared by the
//! steps, and which instructions are written at all. The parts, roughly
//! in the order they run:
//!
//! - `constant_phis`: constants stored beside phis of constants made phis;
//! - `layout`: positions in emission order and live intervals;
//! - `alloc`: a register channel for every value;
//! - `control`: the control-flow tree, block by block, as structured TGSI;
//! - `instruction`: one IR instruction (or a run written together), by
//!   kind: `alu` (vector ALU instructions from scalar operations),
//!   `stores` (output stores), `indirect` (indirectly addressed loads and
//!   array stores);
//! - `operands`: the source operand reading a set of values, with
//!   `gather` for values scattered over registers;
//! - `copies`: the phis' parallel copies and the MOVs everything writes;
//! - `immediates`: the emitted shader's immediates;
//! - `interface`: the source's declarations in today's syntax;
//! - `assemble`: branch labels, declarations and the final shader, with
//!   `renumber` numbering the TEMP registers in use densely.

mod alloc;
mod alu;
mod assemble;
mod constant_phis;
mod control;
mod copies;
mod gather;
mod immediates;
mod indirect;
mod instruction;
mod interface;
mod layout;
mod operands;
mod renumber;
mod stores;

use crate::entity::SecondaryMap;
use crate::function::*;
use crate::walk::{walk, Event};
use alloc::{Allocation, Loc};
use immediates::ImmediatePool;
use layout::Layout;
use smallvec::SmallVec;
use tgsi::{File, Opcode};

/// Why a module could not be written as TGSI.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("cannot emit TGSI: {0}")]
pub struct EmitError(pub String);

/// Writes `module` as a TGSI shader.
///
/// ```
/// let text = "FRAG\nDCL IN[0]\nDCL OUT[0]\nDCL TEMP[0]\nADD TEMP[0], IN[0], IN[0]\nMOV OUT[0], TEMP[0]\nEND\n";
/// let module = ir::from_tgsi(&tgsi::parse(text).unwrap()).unwrap();
/// let shader = ir::to_tgsi(&module).unwrap();
/// // ADD OUT[0], IN[0], IN[0] and END: the sum goes straight to the output.
/// assert_eq!(shader.instructions().count(), 2);
/// ```
pub fn to_tgsi(module: &Module) -> Result<tgsi::Shader, EmitError> {
    let prepared = constant_phis::constant_phis(&module.function);
    let func = prepared.as_ref().unwrap_or(&module.function);
    let live = live_instructions(func);
    let layout = Layout::new(func, &live);
    let mut copies: SecondaryMap<Block, Vec<(Value, Value)>> = SecondaryMap::default();
    for (inst, data) in func.insts.iter() {
        if !layout.inst_pos.contains_key(&inst) {
            continue;
        }
        if let Op::Phi { preds } = &data.op {
            for (arg, pred) in data.args.iter().zip(preds) {
                copies.get_or_default(*pred).push((data.results[0], arg.value));
            }
        }
    }
    let mut e = Emitter::new(module, func, &layout, copies);
    e.region(&func.body)?;
    if e.out.last().is_none_or(|i| i.opcode != Opcode::End) {
        e.out.push(tgsi::Instruction::new(Opcode::End));
    }
    e.fix_labels();
    Ok(e.assemble(module))
}

fn last_block(region: &Region) -> Option<Block> {
    match region.last() {
        Some(Node::Block(b)) => Some(*b),
        _ => None,
    }
}

struct Emitter<'a> {
    func: &'a Function,
    layout: &'a Layout,
    alloc: Allocation,
    imms: ImmediatePool,
    out: Vec<tgsi::Instruction>,
    /// Phi copies at the end of each block: (phi, argument).
    copies: SecondaryMap<Block, Vec<(Value, Value)>>,
    /// Scratch registers used by the instruction being written.
    scratch_used: u32,
    /// The position of the instruction being written.
    pos: Option<u32>,
    /// Channels filled to gather operands of the instruction being written.
    gathered: Vec<RegChannel>,
    last_block: Option<Block>,
    /// The block being written.
    cur_block: Option<Block>,
    /// Phi copies of zero left out, trusting the register to hold its
    /// initial zero until the position given: operand gathering must not
    /// write there before it.
    zero_skips: Vec<(RegChannel, u32)>,
    /// Channels written to gather operands, with where: a phi copy of zero
    /// into one of them before that position cannot be left out.
    gather_writes: Vec<(RegChannel, u32)>,
    /// Copies gathering made: the channel, the value copied there, and the
    /// length of the output just after the copy. A later instruction can
    /// read the copy again while nothing has written the channel since and
    /// no control flow came between ([`Emitter::held_copy`]).
    held: Vec<(RegChannel, Value, usize)>,
}

/// One operand of an instruction being written: for each swizzle position
/// the value to read there.
type Wanted = SmallVec<[(usize, Operand); 4]>;

impl<'a> Emitter<'a> {
    fn new(
        module: &'a Module,
        func: &'a Function,
        layout: &'a Layout,
        copies: SecondaryMap<Block, Vec<(Value, Value)>>,
    ) -> Self {
        let mut imms = ImmediatePool::new(&module.immediates);
        // Indirectly addressed immediates are read by their source numbers.
        let indirect_imm = func
            .insts
            .iter()
            .any(|(_, d)| matches!(&d.op, Op::LoadIndirect { reg, .. } if reg.file == File::Immediate));
        if indirect_imm {
            for k in 0..module.immediates.len() {
                imms.keep(k as u32);
            }
        }
        Emitter {
            func,
            layout,
            alloc: alloc::allocate(func, layout),
            imms,
            out: Vec::new(),
            copies,
            scratch_used: 0,
            pos: None,
            gathered: Vec::new(),
            last_block: last_block(&func.body),
            cur_block: None,
            zero_skips: Vec::new(),
            gather_writes: Vec::new(),
            held: Vec::new(),
        }
    }

    fn err(&self, m: impl Into<String>) -> EmitError {
        EmitError(m.into())
    }

    fn loc(&self, v: Value) -> Result<Loc, EmitError> {
        self.alloc.loc.get(&v).copied().ok_or_else(|| self.err(format!("{v} has no location")))
    }

    fn scratch(&mut self) -> u32 {
        let r = self.alloc.temp_count + self.scratch_used;
        self.scratch_used += 1;
        r
    }

    /// The register `v` is written to.
    fn dst_reg(&self, v: Value) -> Result<(File, u32), EmitError> {
        match self.loc(v)? {
            Loc::Reg(r) => Ok((r.file, r.index)),
            Loc::Pair { file, index, .. } => Ok((file, index)),
            _ => Err(self.err(format!("{v} is computed but has no register"))),
        }
    }

    /// The write mask of the channels `v` is written to.
    fn dst_mask(&self, v: Value) -> Result<u8, EmitError> {
        match self.loc(v)? {
            Loc::Reg(r) => Ok(1 << r.chan | self.alloc.also.get(&v).copied().unwrap_or(0)),
            Loc::Pair { pair, .. } => Ok(0b11 << (2 * pair)),
            _ => Err(self.err(format!("{v} has no register"))),
        }
    }
}

/// The instructions whose results are used, directly or through other
/// instructions, by an effect: output and array stores, instructions with
/// side effects, and branch conditions. The others compute nothing that
/// matters, and emission leaves them out.
fn live_instructions(func: &Function) -> SecondaryMap<Inst, ()> {
    let mut live = SecondaryMap::with_capacity(func.insts.len());
    let mut work: Vec<Value> = Vec::new();
    for (_, block) in func.blocks.iter() {
        for &inst in &block.insts {
            let data = &func.insts[inst];
            let effect = match &data.op {
                Op::StoreOutput { .. } | Op::ArrayStore { .. } | Op::StoreIndirect { .. } => true,
                Op::Opaque { inst: t, .. } => {
                    t.opcode.info().has(tgsi::flags::SIDE_EFFECT)
                        || t.dst.iter().any(|d| !is_value_destination(d.reg.file))
                }
                _ => false,
            };
            if effect && live.insert(inst, ()).is_none() {
                work.extend(data.args.iter().map(|a| a.value));
            }
        }
    }
    work.extend(crate::walk::construct_operands(&func.body).map(|op| op.value));
    while let Some(v) = work.pop() {
        let Some(data) = func.values.get(v) else { continue };
        if live.insert(data.def, ()).is_none() {
            work.extend(func.insts[data.def].args.iter().map(|a| a.value));
        }
    }
    live
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two channels of one source instruction where one comes to read the
    /// other's result (as a pass rewriting operands can make them) are
    /// not written as one vector instruction, which would read the old
    /// register contents.
    #[test]
    fn a_channel_reading_another_of_its_instruction_is_not_regrouped() {
        let text = "FRAG\nDCL IN[0]\nDCL OUT[0]\nDCL TEMP[0]\nADD TEMP[0].y, IN[0].xxxx, IN[0].xxxx\n\
                    UADD TEMP[0].xz, TEMP[0].yyyy, TEMP[0].yyyy\nMOV OUT[0], TEMP[0]\nEND\n";
        let mut module = crate::from_tgsi(&tgsi::parse(text).unwrap()).unwrap();
        let func = &mut module.function;
        let adds: Vec<Inst> = func
            .insts
            .iter()
            .filter(|(_, d)| matches!(d.op, Op::Alu { opcode: Opcode::Uadd, .. }))
            .map(|(i, _)| i)
            .collect();
        assert_eq!(adds.len(), 2);
        // z = x + x instead of y + y.
        let x = func.result(adds[0]);
        func.insts[adds[1]].args[0].value = x;
        func.insts[adds[1]].args[1].value = x;
        crate::verify::verify(func).unwrap();
        let shader = to_tgsi(&module).unwrap();
        let uadds: Vec<_> = shader.instructions().filter(|i| i.opcode == Opcode::Uadd).collect();
        assert_eq!(uadds.len(), 2, "{}", tgsi::print(&shader, tgsi::Style::Exact));
    }
}
