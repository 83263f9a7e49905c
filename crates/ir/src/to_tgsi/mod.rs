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

mod alloc;
mod constant_phis;
mod gather;
mod immediates;
mod layout;

use crate::channels::replicated_reads;
use crate::entity::SecondaryMap;
use crate::function::*;
use crate::walk::{walk, ConstructRef, Event, RegionKind};
use alloc::{Allocation, Loc};
use immediates::ImmediatePool;
use layout::Layout;
use smallvec::SmallVec;
use tgsi::{ChannelMode, DstOperand, File, Opcode, Register, SrcOperand};

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
/// assert_eq!(shader.instructions().count(), 3);
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

/// How many instructions back a gathered copy is still looked for: checking
/// one reads every instruction written since.
const HELD_WINDOW: usize = 64;

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

    // ----- control flow -----

    fn region(&mut self, region: &Region) -> Result<(), EmitError> {
        // Where the ELSE of each if whose else-region is being written went.
        let mut else_at: Vec<usize> = Vec::new();
        for event in walk(region) {
            match event {
                Event::Block(b, _) => self.block(b)?,
                Event::Enter(construct, at) => self.open(construct, at.prev_block())?,
                Event::EnterRegion(r) => {
                    if let Some(case) = r.case() {
                        match case.value {
                            Some(v) => {
                                let val = self.operand(&[(0, v)])?;
                                let mut inst = tgsi::Instruction::new(Opcode::Case);
                                inst.src.push(broadcast(val));
                                self.out.push(inst);
                            }
                            None => self.out.push(tgsi::Instruction::new(Opcode::Default)),
                        }
                    }
                }
                Event::LeaveRegion(r) => match (r.kind, r.construct) {
                    // ELSE only when the else arm writes something (phi
                    // copies included) or the source had one.
                    (RegionKind::Then, _) => {
                        self.out.push(tgsi::Instruction::new(Opcode::Else));
                        else_at.push(self.out.len());
                    }
                    (RegionKind::Else, Some(ConstructRef::If(n))) => {
                        let at = else_at.pop();
                        if at == Some(self.out.len()) && !n.has_else {
                            self.out.pop();
                        }
                    }
                    _ => {}
                },
                Event::Leave(construct, _) => {
                    let op = match construct {
                        ConstructRef::If(_) => Opcode::Endif,
                        ConstructRef::Loop(_) => Opcode::Endloop,
                        ConstructRef::Switch(_) => Opcode::Endswitch,
                    };
                    self.out.push(tgsi::Instruction::new(op));
                }
            }
        }
        Ok(())
    }

    /// Writes the opening instruction of `construct`, whose condition
    /// block is `prev`.
    fn open(&mut self, construct: ConstructRef<'_>, prev: Option<Block>) -> Result<(), EmitError> {
        let inst = match construct {
            ConstructRef::If(n) => {
                self.hoist_else_copies(n, prev)?;
                let cond = self.operand(&[(0, n.cond)])?;
                let mut inst = tgsi::Instruction::new(if n.unsigned { Opcode::Uif } else { Opcode::If });
                inst.src.push(broadcast(cond));
                inst
            }
            ConstructRef::Loop(_) => tgsi::Instruction::new(Opcode::Bgnloop),
            ConstructRef::Switch(n) => {
                let sel = self.operand(&[(0, n.selector)])?;
                let mut inst = tgsi::Instruction::new(Opcode::Switch);
                inst.src.push(broadcast(sel));
                inst
            }
        };
        self.out.push(inst);
        Ok(())
    }

    fn block(&mut self, b: Block) -> Result<(), EmitError> {
        self.cur_block = Some(b);
        let insts = self.func.blocks[b].insts.clone();
        let mut i = 0;
        while i < insts.len() {
            i += self.instruction(&insts, i)?;
        }
        self.phi_copies(b)?;
        match self.func.blocks[b].exit {
            Exit::Fallthrough => {}
            Exit::Break => self.out.push(tgsi::Instruction::new(Opcode::Brk)),
            Exit::Continue => self.out.push(tgsi::Instruction::new(Opcode::Cont)),
            Exit::Return => {
                let op = if Some(b) == self.last_block { Opcode::End } else { Opcode::Ret };
                self.out.push(tgsi::Instruction::new(op));
            }
        }
        Ok(())
    }

    /// The parallel copy into the phis of this block's successors.
    fn phi_copies(&mut self, b: Block) -> Result<(), EmitError> {
        let pending = self.pending_phi_copies(b)?;
        self.parallel_copy(pending)
    }

    /// The (destination, source) pairs of the phi copies at the end of
    /// `b`, leaving out copies of zero into registers that still hold it.
    fn pending_phi_copies(&mut self, b: Block) -> Result<Vec<(RegChannel, Loc)>, EmitError> {
        let Some(list) = self.copies.get(&b).cloned() else { return Ok(Vec::new()) };
        let mut pending: Vec<(RegChannel, Loc)> = Vec::new();
        let (excluded, loop_end) = self.layout.context.get(&b).cloned().unwrap_or_default();
        let end = self.layout.block_end.get(&b).copied().unwrap_or(0);
        for (phi, arg) in list {
            let Loc::Reg(dst) = self.loc(phi)? else { return Err(self.err("a phi without a register")) };
            // A register that still holds its initial zero needs no copy of
            // one (inside a loop, it must hold it on every iteration).
            let before = loop_end.unwrap_or(end).max(end);
            if matches!(self.func.def(arg).op, Op::Initial)
                && self.alloc.untouched(dst, before, &excluded)
                && !self.gather_writes.iter().any(|&(slot, at)| slot == dst && at < before)
            {
                self.zero_skips.push((dst, before));
                continue;
            }
            let src = self.loc(arg)?;
            if src != Loc::Reg(dst) && !pending.iter().any(|&(d, _)| d == dst) {
                pending.push((dst, src));
            }
        }
        Ok(pending)
    }

    /// When an `IF` has no `ELSE` in the source and its else arm would hold
    /// only phi copies, writes those copies before the `IF` instead (the
    /// then arm overwrites the phis' registers on its own path), so no
    /// `ELSE` is needed. Valid when no value occupies those registers where
    /// the condition is read: then nothing on either path reads what they
    /// held. Returns whether it did.
    fn hoist_else_copies(&mut self, n: &IfNode, prev: Option<Block>) -> Result<bool, EmitError> {
        let [Node::Block(else_block)] = n.else_region.as_slice() else { return Ok(false) };
        let Some(at) = prev.and_then(|b| self.layout.block_end.get(&b)).map(|&end| end + 1) else {
            return Ok(false);
        };
        if n.has_else || !self.writes_nothing(*else_block) {
            return Ok(false);
        }
        let zero_skips = self.zero_skips.len();
        let pending = self.pending_phi_copies(*else_block)?;
        let movable = |e: &Self, dst: RegChannel| {
            e.alloc.free_at(dst, at) && !e.zero_skips.iter().any(|&(s, before)| s == dst && before > at)
        };
        if pending.is_empty() || !pending.iter().all(|&(dst, _)| movable(self, dst)) {
            // The else arm writes them itself; its zero skips are noted again.
            self.zero_skips.truncate(zero_skips);
            return Ok(false);
        }
        for &(dst, _) in &pending {
            // A copy of zero into these registers can no longer be left out.
            self.gather_writes.push((dst, at));
        }
        self.parallel_copy(pending)?;
        self.copies.insert(*else_block, Vec::new());
        Ok(true)
    }

    /// Whether emitting block `b` writes no instruction of its own (phi
    /// copies aside).
    fn writes_nothing(&self, b: Block) -> bool {
        let data = &self.func.blocks[b];
        data.exit == Exit::Fallthrough
            && data.insts.iter().all(|&i| {
                !self.layout.inst_pos.contains_key(&i)
                    || matches!(
                        self.func.insts[i].op,
                        Op::Phi { .. } | Op::Const(_) | Op::Initial | Op::Undef | Op::Read(_)
                    )
            })
    }

    /// Copies every (destination, source) pair as if all sources were read
    /// before any destination is written.
    fn parallel_copy(&mut self, mut pending: Vec<(RegChannel, Loc)>) -> Result<(), EmitError> {
        // Copy first into registers no pending copy still reads; a cycle
        // is broken by saving one register in a scratch channel.
        self.scratch_used = 0;
        while !pending.is_empty() {
            let free = (0..pending.len()).find(|&k| !pending.iter().any(|&(_, s)| s == Loc::Reg(pending[k].0)));
            match free {
                Some(k) => {
                    // With it, every other free copy into the same register
                    // from the same register: one MOV.
                    let (dst, src) = pending.remove(k);
                    let mut batch = vec![(dst, src)];
                    let mut i = 0;
                    while i < pending.len() {
                        let (d, s) = pending[i];
                        let free = !pending.iter().any(|&(_, s2)| s2 == Loc::Reg(d));
                        if free && (d.file, d.index) == (dst.file, dst.index) && same_register(s, src) {
                            batch.push(pending.remove(i));
                        } else {
                            i += 1;
                        }
                    }
                    self.copy_batch(&batch)?;
                }
                None => {
                    let saved = pending[0].0;
                    let tmp = RegChannel { file: File::Temporary, index: self.scratch(), chan: 0 };
                    self.mov_raw(tmp, reg_src(saved))?;
                    for p in pending.iter_mut() {
                        if p.1 == Loc::Reg(saved) {
                            p.1 = Loc::Reg(tmp);
                        }
                    }
                }
            }
        }
        self.scratch_used = 0;
        Ok(())
    }

    /// One MOV writing each (channel, location) of a batch whose sources
    /// share a register.
    fn copy_batch(&mut self, batch: &[(RegChannel, Loc)]) -> Result<(), EmitError> {
        let (dst, first) = batch[0];
        if batch.len() == 1 {
            let s = self.single_src(first, dst.chan)?;
            return self.mov_raw(dst, s);
        }
        let mut mask = 0u8;
        let mut used = SmallVec::<[(usize, u8); 4]>::new();
        let mut consts = Vec::new();
        for &(d, s) in batch {
            mask |= 1 << d.chan;
            match s {
                Loc::Reg(r) => used.push((d.chan as usize, r.chan)),
                Loc::Src(x) => used.push((d.chan as usize, x.chan)),
                Loc::Const(bits) => consts.push((d.chan as usize, bits)),
                _ => return Err(self.err("a copy of a value with no channel")),
            }
        }
        let reg = match first {
            Loc::Reg(r) => Register::new(r.file, r.index as i32),
            Loc::Src(x) => {
                let mut reg = Register::new(x.file, x.index as i32);
                reg.dimension = x.dim.map(|d| tgsi::Dimension { index: d as i32, indirect: None });
                reg
            }
            _ => {
                let (k, sw) = self.imms.find_or_add(&consts);
                for &(p, _) in &consts {
                    used.push((p, sw[p]));
                }
                Register::new(File::Immediate, k as i32)
            }
        };
        let mut swizzle = [0u8, 1, 2, 3];
        for &(p, c) in &used {
            swizzle[p] = c;
        }
        fill_unused(&mut swizzle, used.iter().copied());
        let mut inst = tgsi::Instruction::new(Opcode::Mov);
        inst.dst.push(DstOperand { reg: Register::new(dst.file, dst.index as i32), write_mask: mask });
        inst.src.push(SrcOperand { reg, swizzle, negate: false, absolute: false });
        self.out.push(inst);
        Ok(())
    }

    /// A source operand reading one 32-bit location in every channel.
    fn single_src(&mut self, loc: Loc, chan: u8) -> Result<SrcOperand, EmitError> {
        match loc {
            Loc::Reg(r) => Ok(reg_src(r)),
            Loc::Const(bits) => {
                let (k, sw) = self.imms.find_or_add(&[(chan as usize & 3, bits)]);
                let c = sw[chan as usize & 3];
                Ok(reg_src(RegChannel { file: File::Immediate, index: k, chan: c }))
            }
            Loc::Src(s) => {
                let mut reg = Register::new(s.file, s.index as i32);
                reg.dimension = s.dim.map(|d| tgsi::Dimension { index: d as i32, indirect: None });
                Ok(SrcOperand { reg, swizzle: [s.chan; 4], negate: false, absolute: false })
            }
            Loc::Any => self.single_src(Loc::Const(0), chan),
            Loc::Folded(load) => {
                let reg = self.load_register(load)?;
                let c = match self.func.insts[load].op {
                    Op::ArrayLoad { chan, .. } | Op::LoadIndirect { chan, .. } => chan,
                    _ => 0,
                };
                Ok(SrcOperand { reg, swizzle: [c; 4], negate: false, absolute: false })
            }
            Loc::Pair { .. } | Loc::Const64(_) => Err(self.err("a 64-bit value copied as 32 bits")),
        }
    }

    fn mov(&mut self, dst: RegChannel, src: Operand) -> Result<(), EmitError> {
        let s = self.operand(&[(dst.chan as usize, src)])?;
        let mut inst = tgsi::Instruction::new(Opcode::Mov);
        inst.dst.push(DstOperand { reg: Register::new(dst.file, dst.index as i32), write_mask: 1 << dst.chan });
        inst.src.push(s);
        self.out.push(inst);
        self.scratch_used = 0;
        Ok(())
    }

    fn mov_raw(&mut self, dst: RegChannel, src: SrcOperand) -> Result<(), EmitError> {
        let mut inst = tgsi::Instruction::new(Opcode::Mov);
        inst.dst.push(DstOperand { reg: Register::new(dst.file, dst.index as i32), write_mask: 1 << dst.chan });
        inst.src.push(src);
        self.out.push(inst);
        Ok(())
    }

    // ----- operands -----

    /// A source operand reading, at each wanted swizzle position, the given
    /// value: one register with a swizzle, or a scratch register filled
    /// first when the values are scattered.
    fn operand(&mut self, wanted: &[(usize, Operand)]) -> Result<SrcOperand, EmitError> {
        // Positions nothing reads take whatever the others leave there.
        let wanted: Wanted = wanted.iter().filter(|(_, o)| self.loc(o.value).ok() != Some(Loc::Any)).copied().collect();
        let wanted = &wanted[..];
        if wanted.is_empty() {
            let (k, _) = self.imms.find_or_add(&[(0, 0)]);
            return Ok(reg_src(RegChannel { file: File::Immediate, index: k, chan: 0 }));
        }
        let Some(&(_, first)) = wanted.first() else {
            return Ok(reg_src(RegChannel { file: File::Immediate, index: 0, chan: 0 }));
        };
        let same_mods = wanted.iter().all(|(_, o)| o.neg == first.neg && o.abs == first.abs);
        if same_mods {
            if let Some(mut s) = self.direct_operand(wanted)? {
                s.negate = first.neg;
                s.absolute = first.abs;
                return Ok(s);
            }
        }
        if wanted.len() == 1 {
            return Err(self.err("a single value that cannot be read"));
        }
        if same_mods {
            if let Some(s) = self.gather_in_place(wanted)? {
                return Ok(SrcOperand { negate: first.neg, absolute: first.abs, ..s });
            }
        }
        // Gather into a scratch register, one MOV per position, unless one
        // still holds what an earlier operand gathered there.
        let plain = |o: &Operand| !o.neg && !o.abs;
        let slot = |index: u32, pos: usize| RegChannel { file: File::Temporary, index, chan: pos as u8 };
        let mut scratches: Vec<u32> =
            self.held.iter().map(|&(s, _, _)| s.index).filter(|&i| i >= self.alloc.temp_count).collect();
        scratches.sort_unstable();
        scratches.dedup();
        let holding = scratches
            .into_iter()
            .find(|&index| wanted.iter().all(|&(pos, o)| plain(&o) && self.held_copy(slot(index, pos), o.value)));
        if let Some(index) = holding {
            // Later operands of this instruction must not take it.
            self.scratch_used = self.scratch_used.max(index - self.alloc.temp_count + 1);
            let mut swizzle = [0u8, 1, 2, 3];
            fill_unused(&mut swizzle, wanted.iter().map(|&(p, _)| (p, p as u8)));
            return Ok(SrcOperand {
                reg: Register::new(File::Temporary, index as i32),
                swizzle,
                negate: false,
                absolute: false,
            });
        }
        let index = self.scratch();
        for &(pos, o) in wanted {
            let s = self.operand(&[(pos, o)])?;
            let mut inst = tgsi::Instruction::new(Opcode::Mov);
            inst.dst.push(DstOperand { reg: Register::new(File::Temporary, index as i32), write_mask: 1 << pos });
            inst.src.push(s);
            self.out.push(inst);
            if plain(&o) {
                self.remember_copy(slot(index, pos), o.value);
            }
        }
        let mut swizzle = [0u8, 1, 2, 3];
        fill_unused(&mut swizzle, wanted.iter().map(|&(p, _)| (p, p as u8)));
        Ok(SrcOperand { reg: Register::new(File::Temporary, index as i32), swizzle, negate: false, absolute: false })
    }

    /// Notes that the instruction just written copied `v` into `slot`.
    fn remember_copy(&mut self, slot: RegChannel, v: Value) {
        let now = self.out.len();
        self.held.retain(|&(_, _, since)| now - since <= HELD_WINDOW);
        self.held.push((slot, v, now));
    }

    /// Whether `slot` still holds the copy of `v` gathering put there: no
    /// instruction written since writes it, and no control flow came
    /// between (a join could bring a path that did not copy).
    fn held_copy(&self, slot: RegChannel, v: Value) -> bool {
        self.held.iter().rev().any(|&(s, w, since)| {
            s == slot
                && w == v
                && self.out.len() - since <= HELD_WINDOW
                && self.out[since..].iter().all(|inst| {
                    !inst.opcode.info().has(tgsi::flags::CONTROL_FLOW)
                        && inst.dst.iter().all(|d| {
                            d.reg.file != slot.file
                                || (d.reg.indirect.is_none()
                                    && (d.reg.index != slot.index as i32 || d.write_mask & (1 << slot.chan) == 0))
                        })
                })
        })
    }

    /// The operand when every wanted value is in one register.
    fn direct_operand(&mut self, wanted: &[(usize, Operand)]) -> Result<Option<SrcOperand>, EmitError> {
        let locs: Vec<(usize, Loc)> =
            wanted.iter().map(|&(p, o)| self.loc(o.value).map(|l| (p, l))).collect::<Result<_, _>>()?;
        let mut swizzle = [0u8, 1, 2, 3];
        let mut used: SmallVec<[(usize, u8); 4]> = SmallVec::new();
        let reg = match locs[0].1 {
            Loc::Any => return Ok(None),
            Loc::Folded(load) => {
                let key = |f: &Function, i: Inst| {
                    let d = &f.insts[i];
                    let k = match &d.op {
                        Op::ArrayLoad { array, offset, .. } => (Some((*array, *offset)), None),
                        Op::LoadIndirect { reg, .. } => (None, Some(*reg)),
                        _ => (None, None),
                    };
                    (k, d.args.clone())
                };
                let k0 = key(self.func, load);
                for &(p, l) in &locs {
                    match l {
                        Loc::Folded(i) if key(self.func, i) == k0 => {
                            let chan = match self.func.insts[i].op {
                                Op::ArrayLoad { chan, .. } | Op::LoadIndirect { chan, .. } => chan,
                                _ => 0,
                            };
                            used.push((p, chan));
                        }
                        _ => return Ok(None),
                    }
                }
                self.load_register(load)?
            }
            Loc::Const(_) => {
                let mut want = Vec::new();
                for &(p, l) in &locs {
                    match l {
                        Loc::Const(bits) => want.push((p, bits)),
                        _ => return Ok(None),
                    }
                }
                let (k, sw) = self.imms.find_or_add(&want);
                for &(p, _) in &want {
                    used.push((p, sw[p]));
                }
                Register::new(File::Immediate, k as i32)
            }
            Loc::Const64(_) => {
                let mut want = Vec::new();
                for &(p, l) in &locs {
                    match l {
                        Loc::Const64(bits) => want.push((p / 2, bits)),
                        _ => return Ok(None),
                    }
                }
                let (k, pairs) = self.imms.find_or_add_64(&want);
                for &(p, _) in &locs {
                    let q = pairs[p / 2];
                    used.push((p - p % 2, 2 * q));
                    used.push((p - p % 2 + 1, 2 * q + 1));
                }
                Register::new(File::Immediate, k as i32)
            }
            Loc::Src(s0) => {
                for &(p, l) in &locs {
                    match l {
                        Loc::Src(s) if (s.file, s.index, s.dim) == (s0.file, s0.index, s0.dim) => {
                            used.push((p, s.chan))
                        }
                        _ => return Ok(None),
                    }
                }
                let mut reg = Register::new(s0.file, s0.index as i32);
                reg.dimension = s0.dim.map(|d| tgsi::Dimension { index: d as i32, indirect: None });
                reg
            }
            Loc::Reg(r0) => {
                for &(p, l) in &locs {
                    match l {
                        Loc::Reg(r) if (r.file, r.index) == (r0.file, r0.index) => used.push((p, r.chan)),
                        _ => return Ok(None),
                    }
                }
                Register::new(r0.file, r0.index as i32)
            }
            Loc::Pair { file, index, .. } => {
                for &(p, l) in &locs {
                    match l {
                        Loc::Pair { file: f, index: i, pair } if (f, i) == (file, index) => {
                            used.push((p - p % 2, 2 * pair));
                            used.push((p - p % 2 + 1, 2 * pair + 1));
                        }
                        _ => return Ok(None),
                    }
                }
                Register::new(file, index as i32)
            }
        };
        for &(p, c) in &used {
            swizzle[p & 3] = c;
        }
        fill_unused(&mut swizzle, used.iter().copied());
        Ok(Some(SrcOperand { reg, swizzle, negate: false, absolute: false }))
    }

    // ----- instructions -----

    /// Writes the instruction at `insts[i]` (and those grouped with it);
    /// returns how many were consumed.
    fn instruction(&mut self, insts: &[Inst], i: usize) -> Result<usize, EmitError> {
        self.scratch_used = 0;
        self.gathered.clear();
        let inst = insts[i];
        self.pos = self.layout.inst_pos.get(&inst).copied();
        let data = &self.func.insts[inst];
        if !self.layout.inst_pos.contains_key(&inst) {
            // Computes nothing anything uses.
            return Ok(1);
        }
        match &data.op {
            Op::Phi { .. } | Op::Const(_) | Op::Initial | Op::Undef | Op::Read(_) => Ok(1),
            Op::Split { .. } => {
                let v = data.results[0];
                let whole = data.args[0].value;
                let Loc::Reg(dst) = self.loc(v)? else { return Err(self.err("a split without a register")) };
                if let Loc::Pair { file, index, pair } = self.loc(whole)? {
                    let hi = matches!(data.op, Op::Split { hi: true });
                    let src = RegChannel { file, index, chan: 2 * pair + hi as u8 };
                    if src != dst {
                        self.mov_raw(dst, reg_src(src))?;
                    }
                    return Ok(1);
                }
                Err(self.err("a split of a value that is not in a register pair"))
            }
            Op::Pack => {
                let Loc::Pair { file, index, pair } = self.loc(data.results[0])? else {
                    return Err(self.err("a pack without a register pair"));
                };
                let mut moves = Vec::new();
                for (k, arg) in data.args.iter().enumerate() {
                    let dst = RegChannel { file, index, chan: 2 * pair + k as u8 };
                    let src = self.loc(arg.value)?;
                    if src != Loc::Reg(dst) {
                        moves.push((dst, src, arg.value));
                    }
                }
                // A half that sits where the other half goes must be read
                // before it is overwritten.
                let reads_a_destination =
                    moves.iter().any(|&(_, s, _)| moves.iter().any(|&(d, _, _)| s == Loc::Reg(d)));
                if reads_a_destination {
                    self.parallel_copy(moves.iter().map(|&(d, s, _)| (d, s)).collect())?;
                } else {
                    for (dst, _, v) in moves {
                        self.mov(dst, Operand::new(v))?;
                    }
                }
                Ok(1)
            }
            Op::Alu { .. } => self.alu_group(insts, i),
            Op::StoreOutput { index, .. } => self.store_outputs(insts, i, *index),
            Op::ArrayLoad { .. } | Op::LoadIndirect { .. } if matches!(self.loc(data.results[0])?, Loc::Folded(_)) => {
                Ok(1)
            }
            Op::ArrayLoad { .. } | Op::LoadIndirect { .. } => self.loads(insts, i),
            Op::ArrayStore { .. } => self.array_stores(insts, i),
            Op::Opaque { .. } => {
                self.opaque(inst)?;
                Ok(1)
            }
        }
    }

    /// Whether output channel `dst` already holds `v`.
    fn in_place(&self, v: Value, dst: RegChannel) -> bool {
        match self.alloc.loc.get(&v) {
            Some(Loc::Reg(r)) if *r == dst => true,
            Some(Loc::Reg(r)) if (r.file, r.index) == (dst.file, dst.index) => {
                self.alloc.also.get(&v).is_some_and(|m| m & (1 << dst.chan) != 0)
            }
            _ => false,
        }
    }

    /// Whether `ops` can be read from one register.
    fn one_register(&self, ops: &[Operand]) -> Result<bool, EmitError> {
        let Some(first) = ops.first() else { return Ok(true) };
        if !ops.iter().all(|o| o.neg == first.neg && o.abs == first.abs) {
            return Ok(false);
        }
        let locs: Vec<Loc> =
            ops.iter().map(|o| self.loc(o.value)).filter(|l| *l != Ok(Loc::Any)).collect::<Result<_, _>>()?;
        if locs.is_empty() {
            return Ok(true);
        }
        let key = |l: &Loc| match l {
            Loc::Any => (5, None),
            Loc::Folded(_) => (6, None),
            Loc::Reg(r) => (0, Some((r.file, r.index, None))),
            Loc::Pair { file, index, .. } => (1, Some((*file, *index, None))),
            Loc::Src(s) => (2, Some((s.file, s.index, s.dim))),
            Loc::Const(_) => (3, None),
            Loc::Const64(_) => (4, None),
        };
        let k0 = key(&locs[0]);
        let mut consts: Vec<u32> =
            locs.iter().filter_map(|l| if let Loc::Const(b) = l { Some(*b) } else { None }).collect();
        consts.sort();
        consts.dedup();
        Ok(locs.iter().all(|l| key(l) == k0) && consts.len() <= 4)
    }

    /// Consecutive stores to one output register, as one MOV.
    fn store_outputs(&mut self, insts: &[Inst], i: usize, index: u32) -> Result<usize, EmitError> {
        let mut wanted: Wanted = Wanted::new();
        let mut mask = 0u8;
        let mut n = 0;
        while let Some(&inst) = insts.get(i + n) {
            if !self.layout.inst_pos.contains_key(&inst) {
                break;
            }
            let data = &self.func.insts[inst];
            let Op::StoreOutput { index: oi, chan } = data.op else { break };
            if oi != index || mask & (1 << chan) != 0 {
                break;
            }
            let dst = RegChannel { file: File::Output, index, chan };
            if !self.in_place(data.args[0].value, dst) {
                wanted.push((chan as usize, data.args[0]));
                mask |= 1 << chan;
            }
            n += 1;
        }
        if wanted.is_empty() {
            return Ok(n.max(1));
        }
        // One MOV per source register, unless gathering the values into
        // the TEMP register holding most of them takes fewer.
        let mut groups: Vec<Wanted> = Vec::new();
        for &(p, o) in &wanted {
            let mut placed = false;
            for g in groups.iter_mut() {
                let mut trial: Vec<Operand> = g.iter().map(|&(_, x)| x).collect();
                trial.push(o);
                if self.one_register(&trial)? {
                    g.push((p, o));
                    placed = true;
                    break;
                }
            }
            if !placed {
                groups.push(smallvec::smallvec![(p, o)]);
            }
        }
        if groups.len() == 2 && self.store_with_zeros(index, &groups)? {
            return Ok(n.max(1));
        }
        let same_mods = wanted.iter().all(|(_, o)| o.neg == wanted[0].1.neg && o.abs == wanted[0].1.abs);
        let missing = self.gather_plan(&wanted)?.map(|plan| plan.moves());
        // At equal cost, gathering pays when a later store of the block
        // stores the same values again: it reads the gathered copies.
        let pays = |m: usize| m + 1 < groups.len() || (m < groups.len() && self.stored_again(&insts[i + n..], &wanted));
        if groups.len() > 1 && same_mods && missing.is_some_and(pays) {
            if let Some(s) = self.gather_in_place(&wanted)? {
                let s = SrcOperand { negate: wanted[0].1.neg, absolute: wanted[0].1.abs, ..s };
                self.mov_output(index, mask, s);
                return Ok(n.max(1));
            }
        }
        for g in groups {
            let m = g.iter().fold(0u8, |m, &(p, _)| m | 1 << p);
            let src = self.operand(&g)?;
            self.mov_output(index, m, src);
        }
        Ok(n.max(1))
    }

    /// Whether a run of stores to one output among `rest` stores exactly
    /// the values of `wanted`, in the same channels.
    fn stored_again(&self, rest: &[Inst], wanted: &[(usize, Operand)]) -> bool {
        let mut wanted: Wanted = wanted.iter().copied().collect();
        wanted.sort_by_key(|&(p, _)| p);
        let mut run: Wanted = Wanted::new();
        let mut run_index = None;
        let same = |run: &mut Wanted| {
            run.sort_by_key(|&(p, _)| p);
            *run == wanted
        };
        for &inst in rest.iter().filter(|i| self.layout.inst_pos.contains_key(i)) {
            let data = &self.func.insts[inst];
            let Op::StoreOutput { index, chan } = data.op else { continue };
            if run_index != Some(index) {
                if same(&mut run) {
                    return true;
                }
                run.clear();
                run_index = Some(index);
            }
            if !self.in_place(data.args[0].value, RegChannel { file: File::Output, index, chan }) {
                run.push((chan as usize, data.args[0]));
            }
        }
        same(&mut run)
    }

    /// Stores an output whose channels are values of one TEMP register
    /// and initial zeros (channels the source read without writing them)
    /// with one MOV, when a channel of that register still holds its
    /// initial zero here: the zeros are read from it. Only initial zeros:
    /// a zero the source wrote is not made to rely on a register's
    /// initial value. Returns whether it did.
    fn store_with_zeros(&mut self, index: u32, groups: &[Wanted]) -> Result<bool, EmitError> {
        let (Some(pos), Some(block)) = (self.pos, self.cur_block) else { return Ok(false) };
        let is_zero = |e: &Self, o: &Operand| {
            !o.neg && matches!(e.func.def(o.value).op, Op::Initial) && e.func.ty(o.value) == Ty::B32
        };
        let (zeros, regs) = match groups {
            [a, b] if a.iter().all(|(_, o)| is_zero(self, o)) => (a, b),
            [a, b] if b.iter().all(|(_, o)| is_zero(self, o)) => (b, a),
            _ => return Ok(false),
        };
        if regs.iter().any(|(_, o)| o.neg || o.abs) {
            return Ok(false);
        }
        let Ok(Loc::Reg(r)) = self.loc(regs[0].1.value) else { return Ok(false) };
        if r.file != File::Temporary {
            return Ok(false);
        }
        // Zero until the end of the outermost loop around: a write later in
        // the loop reaches here on the next round.
        let (excluded, loop_end) = self.layout.context.get(&block).cloned().unwrap_or_default();
        let before = loop_end.unwrap_or(pos).max(pos);
        let zero_chan = (0..4u8).find(|&c| {
            let slot = RegChannel { file: File::Temporary, index: r.index, chan: c };
            self.alloc.untouched(slot, before, &excluded)
                && !self.gathered.contains(&slot)
                && !self.gather_writes.iter().any(|&(s, at)| s == slot && at < before)
        });
        let Some(c) = zero_chan else { return Ok(false) };
        let emitted = self.out.len();
        let mut src = self.operand(regs)?;
        if self.out.len() != emitted || src.reg != Register::new(File::Temporary, r.index as i32) {
            // The register values needed copies; write them as they are.
            let m = regs.iter().fold(0u8, |m, &(p, _)| m | 1 << p);
            self.mov_output(index, m, src);
            let m = zeros.iter().fold(0u8, |m, &(p, _)| m | 1 << p);
            let z = self.operand(zeros)?;
            self.mov_output(index, m, z);
            return Ok(true);
        }
        for &(p, _) in zeros {
            src.swizzle[p] = c;
        }
        let mask = groups.iter().flatten().fold(0u8, |m, &(p, _)| m | 1 << p);
        self.mov_output(index, mask, src);
        // Gathering must not write the channel before `before`.
        self.zero_skips.push((RegChannel { file: File::Temporary, index: r.index, chan: c }, before));
        Ok(true)
    }

    fn mov_output(&mut self, index: u32, mask: u8, src: SrcOperand) {
        let mut inst = tgsi::Instruction::new(Opcode::Mov);
        inst.dst.push(DstOperand { reg: Register::new(File::Output, index as i32), write_mask: mask });
        inst.src.push(src);
        self.out.push(inst);
    }

    /// Consecutive loads of channels of one indirectly addressed register
    /// (from one source instruction), as one MOV.
    fn loads(&mut self, insts: &[Inst], i: usize) -> Result<usize, EmitError> {
        let first = &self.func.insts[insts[i]];
        let (dst_file, dst_index) = self.dst_reg(first.results[0])?;
        let key = |d: &InstData| match &d.op {
            Op::ArrayLoad { array, offset, .. } => Some((Some((*array, *offset)), None)),
            Op::LoadIndirect { reg, .. } => Some((None, Some(*reg))),
            _ => None,
        };
        let k0 = key(first);
        let mut mask = 0u8;
        let mut swizzle = [0u8; 4];
        let mut used = SmallVec::<[(usize, u8); 4]>::new();
        let mut n = 0;
        while let Some(&inst) = insts.get(i + n) {
            if !self.layout.inst_pos.contains_key(&inst) {
                break;
            }
            let d = &self.func.insts[inst];
            if key(d) != k0 || d.args != first.args || d.origin.inst != first.origin.inst {
                break;
            }
            let Loc::Reg(r) = self.loc(d.results[0])? else { break };
            if (r.file, r.index) != (dst_file, dst_index) || mask & (1 << r.chan) != 0 {
                break;
            }
            let chan = match d.op {
                Op::ArrayLoad { chan, .. } | Op::LoadIndirect { chan, .. } => chan,
                _ => 0,
            };
            mask |= 1 << r.chan;
            swizzle[r.chan as usize] = chan;
            used.push((r.chan as usize, chan));
            n += 1;
        }
        fill_unused(&mut swizzle, used.into_iter());
        let reg = self.load_register(insts[i])?;
        let mut inst = tgsi::Instruction::new(Opcode::Mov);
        inst.dst.push(DstOperand { reg: Register::new(dst_file, dst_index as i32), write_mask: mask });
        inst.src.push(SrcOperand { reg, swizzle, negate: false, absolute: false });
        self.out.push(inst);
        Ok(n.max(1))
    }

    /// Whether two loads read channels of the same register.
    fn same_load(&self, a: Inst, b: Inst) -> bool {
        let (x, y) = (&self.func.insts[a], &self.func.insts[b]);
        let key = |d: &InstData| match &d.op {
            Op::ArrayLoad { array, offset, .. } => (Some((*array, *offset)), None),
            Op::LoadIndirect { reg, .. } => (None, Some(*reg)),
            _ => (None, None),
        };
        key(x) == key(y) && x.args == y.args
    }

    /// The register a load reads, with its index registers.
    fn load_register(&mut self, load: Inst) -> Result<Register, EmitError> {
        let first = &self.func.insts[load];
        match &first.op {
            Op::ArrayLoad { array, offset, .. } => self.array_register(*array, *offset, first.args.first().copied()),
            Op::LoadIndirect { reg, .. } => {
                let args = first.args.clone();
                let mut reg = *reg;
                let mut k = 0;
                if let Some(ind) = &mut reg.indirect {
                    *ind = self.address(args[k], ind.array_id)?;
                    k += 1;
                }
                if let Some(dim) = &mut reg.dimension {
                    if let Some(ind) = &mut dim.indirect {
                        *ind = self.address(args[k], ind.array_id)?;
                    }
                }
                Ok(reg)
            }
            _ => Err(self.err("not a load")),
        }
    }

    /// Consecutive stores to channels of one array element, as one MOV.
    fn array_stores(&mut self, insts: &[Inst], i: usize) -> Result<usize, EmitError> {
        let first = &self.func.insts[insts[i]];
        let Op::ArrayStore { array, offset, .. } = first.op else { return Err(self.err("not a store")) };
        let index_arg = if first.args.len() > 1 { first.args.first().copied() } else { None };
        let mut wanted = Wanted::new();
        let mut mask = 0u8;
        let mut n = 0;
        while let Some(&inst) = insts.get(i + n) {
            if !self.layout.inst_pos.contains_key(&inst) {
                break;
            }
            let d = &self.func.insts[inst];
            let Op::ArrayStore { array: a, offset: o, chan } = d.op else { break };
            let idx = if d.args.len() > 1 { d.args.first().copied() } else { None };
            if (a, o, idx) != (array, offset, index_arg) || mask & (1 << chan) != 0 {
                break;
            }
            let value = d.args[d.args.len() - 1];
            let mut trial: Vec<Operand> = wanted.iter().map(|&(_, o)| o).collect();
            trial.push(value);
            if !wanted.is_empty() && !self.one_register(&trial)? {
                break;
            }
            wanted.push((chan as usize, value));
            mask |= 1 << chan;
            n += 1;
        }
        let reg = self.array_register(array, offset, index_arg)?;
        let src = self.operand(&wanted)?;
        let mut inst = tgsi::Instruction::new(Opcode::Mov);
        inst.dst.push(DstOperand { reg, write_mask: mask });
        inst.src.push(src);
        self.out.push(inst);
        Ok(n.max(1))
    }

    /// An indirect index reading `arg`'s register channel.
    fn address(&mut self, arg: Operand, array_id: u16) -> Result<tgsi::Indirect, EmitError> {
        match self.loc(arg.value)? {
            Loc::Reg(r) => Ok(tgsi::Indirect { file: r.file, index: r.index as i32, component: r.chan, array_id }),
            Loc::Src(s) if s.dim.is_none() => {
                Ok(tgsi::Indirect { file: s.file, index: s.index as i32, component: s.chan, array_id })
            }
            _ => {
                // A constant or scattered index: put it in a scratch channel.
                let r = RegChannel { file: File::Temporary, index: self.scratch(), chan: 0 };
                let s = self.operand(&[(0, arg)])?;
                self.mov_raw(r, s)?;
                Ok(tgsi::Indirect { file: r.file, index: r.index as i32, component: 0, array_id })
            }
        }
    }

    fn array_register(&mut self, array: Array, offset: i32, index: Option<Operand>) -> Result<Register, EmitError> {
        let data = self.func.arrays.get(array).ok_or_else(|| self.err("an unknown array"))?.clone();
        let base = data.first as i32 + offset;
        let mut reg = Register::new(data.file, base);
        if let Some(ix) = index {
            reg.indirect = Some(self.address(ix, data.array_id.unwrap_or(0))?);
        }
        Ok(reg)
    }

    /// Consecutive ALU operations from one source instruction, written as
    /// one instruction when their registers allow.
    fn alu_group(&mut self, insts: &[Inst], i: usize) -> Result<usize, EmitError> {
        let first = &self.func.insts[insts[i]];
        let Op::Alu { opcode, .. } = first.op else { return Err(self.err("not an ALU operation")) };
        let dst_reg = self.dst_reg(first.results[0])?;
        let mut group = vec![insts[i]];
        let mut mask = self.dst_mask(first.results[0])?;
        let mut consumed = 1;
        let mut j = i + 1;
        while j < insts.len() && first.origin.inst.is_some() {
            let d = &self.func.insts[insts[j]];
            // Instructions that write nothing do not break a group.
            let writes_nothing = !self.layout.inst_pos.contains_key(&insts[j])
                || matches!(d.op, Op::Const(_) | Op::Initial | Op::Undef | Op::Read(_) | Op::Phi { .. });
            if writes_nothing {
                j += 1;
                continue;
            }
            let same = matches!(d.op, Op::Alu { opcode: o, .. } if o == opcode)
                && d.origin.inst == first.origin.inst
                && d.saturate == first.saturate
                && d.precise == first.precise
                && d.args.len() == first.args.len();
            if !same || self.dst_reg(d.results[0])? != dst_reg {
                break;
            }
            let m = self.dst_mask(d.results[0])?;
            if m & mask != 0 {
                break;
            }
            // One instruction reads every operand before it writes: an
            // operation reading the result of another of the group cannot
            // join it.
            let group_results = |v: Value| group.iter().any(|&g| self.func.insts[g].results.contains(&v));
            if d.args.iter().any(|a| group_results(a.value)) {
                break;
            }
            // Operands must still be readable from one register each.
            let mut trial = group.clone();
            trial.push(insts[j]);
            if !self.group_readable(opcode, &trial)? {
                break;
            }
            group.push(insts[j]);
            mask |= m;
            j += 1;
            consumed = j - i;
        }
        self.write_alu(opcode, &group, dst_reg, mask)?;
        Ok(consumed)
    }

    fn dst_reg(&self, v: Value) -> Result<(File, u32), EmitError> {
        match self.loc(v)? {
            Loc::Reg(r) => Ok((r.file, r.index)),
            Loc::Pair { file, index, .. } => Ok((file, index)),
            _ => Err(self.err(format!("{v} is computed but has no register"))),
        }
    }

    fn dst_mask(&self, v: Value) -> Result<u8, EmitError> {
        match self.loc(v)? {
            Loc::Reg(r) => Ok(1 << r.chan | self.alloc.also.get(&v).copied().unwrap_or(0)),
            Loc::Pair { pair, .. } => Ok(0b11 << (2 * pair)),
            _ => Err(self.err(format!("{v} has no register"))),
        }
    }

    /// For each source operand of `opcode`, the values read at each swizzle
    /// position by the group.
    fn group_operands(&self, opcode: Opcode, group: &[Inst]) -> Result<Vec<Wanted>, EmitError> {
        let info = opcode.info();
        let nsrc = info.num_src as usize;
        let mut ops: Vec<Wanted> = vec![Wanted::new(); nsrc];
        for &inst in group {
            let d = &self.func.insts[inst];
            let v = d.results[0];
            let loc = self.loc(v)?;
            match info.mode {
                _ if info.is_64bit() => {
                    let dst64 = info.dst_type.is_64bit();
                    let src64 = info.src_type.is_64bit();
                    for (s, arg) in d.args.iter().enumerate() {
                        let arg64 = self.func.values[arg.value].ty == Ty::B64;
                        let positions: SmallVec<[usize; 2]> = match loc {
                            Loc::Pair { pair, .. } => {
                                if arg64 {
                                    smallvec::smallvec![2 * pair as usize, 2 * pair as usize + 1]
                                } else if dst64 && !src64 {
                                    smallvec::smallvec![pair as usize]
                                } else {
                                    smallvec::smallvec![2 * pair as usize]
                                }
                            }
                            Loc::Reg(r) => {
                                // A narrowing conversion's k-th written channel
                                // reads pair k; a comparison reads the pair its
                                // channel is in.
                                let p = if crate::channels::is_narrowing(opcode) {
                                    rank_in_group(self, group, r.chan)?
                                } else {
                                    r.chan as usize / 2
                                };
                                if arg64 {
                                    smallvec::smallvec![2 * p, 2 * p + 1]
                                } else {
                                    smallvec::smallvec![2 * p]
                                }
                            }
                            _ => return Err(self.err("a 64-bit result without a register")),
                        };
                        for p in positions {
                            ops[s].push((p, *arg));
                        }
                    }
                }
                ChannelMode::Componentwise => {
                    let Loc::Reg(r) = loc else { return Err(self.err("a result without a register")) };
                    // A result also written to further channels reads its
                    // operands there too.
                    let also = self.alloc.also.get(&v).copied().unwrap_or(0);
                    for (s, arg) in d.args.iter().enumerate() {
                        ops[s].push((r.chan as usize, *arg));
                        for c in (0..4).filter(|c| also & (1 << c) != 0) {
                            ops[s].push((c, *arg));
                        }
                    }
                }
                ChannelMode::Replicate => {
                    for (&(s, c), arg) in replicated_reads(opcode).iter().zip(&d.args) {
                        ops[s as usize].push((c as usize, *arg));
                    }
                }
                _ => {
                    for (k, arg) in d.args.iter().enumerate() {
                        ops[k / 4].push((k % 4, *arg));
                    }
                }
            }
        }
        // Positions wanted twice must want the same value.
        for op in &mut ops {
            op.sort_by_key(|&(p, _)| p);
            op.dedup_by(|a, b| a.0 == b.0 && a.1 == b.1);
        }
        Ok(ops)
    }

    fn group_readable(&mut self, opcode: Opcode, group: &[Inst]) -> Result<bool, EmitError> {
        let ops = self.group_operands(opcode, group)?;
        for op in &ops {
            if op.windows(2).any(|w| w[0].0 == w[1].0) {
                return Ok(false);
            }
            // Channel-dependent members read the same operands: one
            // gathered operand serves them all.
            if opcode.info().mode == ChannelMode::ChannelDependent && !opcode.info().is_64bit() {
                continue;
            }
            let Some(&(_, first)) = op.first() else { continue };
            if !op.iter().all(|(_, o)| o.neg == first.neg && o.abs == first.abs) {
                return Ok(false);
            }
            let locs: Vec<Loc> = op.iter().map(|&(_, o)| self.loc(o.value)).collect::<Result<_, _>>()?;
            let same = |a: &Loc, b: &Loc| match (a, b) {
                (Loc::Reg(x), Loc::Reg(y)) => (x.file, x.index) == (y.file, y.index),
                (Loc::Pair { file: f, index: i, .. }, Loc::Pair { file: g, index: j, .. }) => (f, i) == (g, j),
                (Loc::Src(x), Loc::Src(y)) => (x.file, x.index, x.dim) == (y.file, y.index, y.dim),
                (Loc::Const(_), Loc::Const(_)) | (Loc::Const64(_), Loc::Const64(_)) => true,
                (Loc::Folded(a), Loc::Folded(b)) => self.same_load(*a, *b),
                _ => false,
            };
            if !locs.iter().all(|l| same(l, &locs[0])) {
                return Ok(false);
            }
            let consts: Vec<u32> =
                locs.iter().filter_map(|l| if let Loc::Const(b) = l { Some(*b) } else { None }).collect();
            let mut distinct = consts.clone();
            distinct.sort();
            distinct.dedup();
            if distinct.len() > 4 {
                return Ok(false);
            }
        }
        Ok(true)
    }

    fn write_alu(&mut self, opcode: Opcode, group: &[Inst], dst: (File, u32), mask: u8) -> Result<(), EmitError> {
        let ops = self.group_operands(opcode, group)?;
        let first = &self.func.insts[group[0]];
        let (saturate, precise) = (first.saturate, first.precise);
        let mut inst = tgsi::Instruction::new(opcode);
        inst.saturate = saturate;
        inst.precise = precise;
        let mut srcs = SmallVec::<[SrcOperand; 3]>::new();
        for op in &ops {
            srcs.push(self.operand(op)?);
        }
        inst.dst.push(DstOperand { reg: Register::new(dst.0, dst.1 as i32), write_mask: mask });
        inst.src = srcs;
        self.out.push(inst);
        Ok(())
    }

    fn opaque(&mut self, inst: Inst) -> Result<(), EmitError> {
        let data = &self.func.insts[inst];
        let Op::Opaque { inst: template, value_srcs } = &data.op else { return Ok(()) };
        let mut t = (**template).clone();
        let mut args = data.args.iter().copied();
        for (i, src) in t.src.iter_mut().enumerate() {
            if value_srcs & (1 << i) != 0 {
                let wanted: Wanted = (0..4).zip(args.by_ref().take(4)).collect();
                let (neg, abs) = (src.negate, src.absolute);
                let mut s = self.operand(&wanted)?;
                s.negate = neg;
                s.absolute = abs;
                *src = s;
            } else if src.reg.file == File::Immediate {
                self.imms.keep(src.reg.index as u32);
            }
        }
        if let Some(tex) = &t.texture {
            for off in &tex.offsets {
                if off.file == File::Immediate {
                    self.imms.keep(off.index as u32);
                }
            }
        }
        let mut results = data.results.iter().copied();
        for dst in t.dst.iter_mut() {
            let n = dst.write_mask.count_ones() as usize;
            let value_dst = matches!(dst.reg.file, File::Temporary | File::Output | File::Address);
            if !value_dst {
                continue;
            }
            let vals: Vec<Value> = results.by_ref().take(n).collect();
            if let Some(&v) = vals.first() {
                let (file, index) = self.dst_reg(v)?;
                dst.reg = Register::new(file, index as i32);
            }
        }
        self.out.push(t);
        Ok(())
    }

    // ----- assembly -----

    /// Sets IF/UIF labels to their ELSE or ENDIF and ELSE labels to their
    /// ENDIF, as Mesa's emitters do.
    fn fix_labels(&mut self) {
        let mut stack: Vec<(usize, Option<usize>)> = Vec::new();
        for k in 0..self.out.len() {
            match self.out[k].opcode {
                Opcode::If | Opcode::Uif => stack.push((k, None)),
                Opcode::Else => {
                    if let Some(top) = stack.last_mut() {
                        self.out[top.0].label = Some(k as u32);
                        top.1 = Some(k);
                    }
                }
                Opcode::Endif => {
                    if let Some((if_at, else_at)) = stack.pop() {
                        match else_at {
                            Some(e) => self.out[e].label = Some(k as u32),
                            None => self.out[if_at].label = Some(k as u32),
                        }
                    }
                }
                _ => {}
            }
        }
    }

    fn assemble(self, module: &Module) -> tgsi::Shader {
        let (imms, map) = self.imms.finish();
        let mut items: Vec<tgsi::Item> = module.interface.clone();
        // TEMP declarations: arrays as declared, plain registers as ranges.
        let local = !module.temps.is_empty() && module.temps.iter().all(|d| d.local);
        let temp_count = self.alloc.temp_count + self.out_scratch_count();
        let mut arrays: Vec<(u32, u32, Option<u16>)> = self
            .func
            .arrays
            .iter()
            .filter(|(_, a)| a.file == File::Temporary)
            .map(|(_, a)| (a.first, a.first + a.len - 1, a.array_id))
            .collect();
        arrays.sort();
        let mut next = 0u32;
        let mut decls = Vec::new();
        let plain = |from: u32, to: u32, decls: &mut Vec<tgsi::Declaration>| {
            if from < to {
                let mut d = tgsi::Declaration::new(File::Temporary, from as u16, (to - 1) as u16);
                d.local = local;
                decls.push(d);
            }
        };
        for &(first, last, id) in &arrays {
            plain(next, first, &mut decls);
            let mut d = tgsi::Declaration::new(File::Temporary, first as u16, last as u16);
            d.array_id = id;
            d.local = local;
            decls.push(d);
            next = last + 1;
        }
        plain(next, temp_count.max(next), &mut decls);
        let decl_end =
            items.iter().rposition(|i| matches!(i, tgsi::Item::Declaration(_))).map_or(items.len(), |p| p + 1);
        let mut tail = items.split_off(decl_end);
        items.extend(decls.into_iter().map(tgsi::Item::Declaration));
        items.extend(imms.into_iter().map(tgsi::Item::Immediate));
        items.append(&mut tail);
        for mut inst in self.out {
            remap_immediates(&mut inst, &map);
            items.push(tgsi::Item::Instruction(inst));
        }
        tgsi::Shader { processor: module.processor, items }
    }

    /// How many scratch registers the output uses beyond the allocation.
    fn out_scratch_count(&self) -> u32 {
        let mut max = 0;
        for inst in &self.out {
            for d in &inst.dst {
                if d.reg.file == File::Temporary && d.reg.index >= 0 {
                    max = max.max(d.reg.index as u32 + 1);
                }
            }
        }
        max.saturating_sub(self.alloc.temp_count)
    }
}

/// Renumbers immediates after unused ones were dropped.
fn remap_immediates(inst: &mut tgsi::Instruction, map: &[Option<u32>]) {
    let fix = |index: &mut i32| {
        if let Some(Some(n)) = map.get(*index as usize) {
            *index = *n as i32;
        }
    };
    for s in &mut inst.src {
        if s.reg.file == File::Immediate && s.reg.indirect.is_none() {
            fix(&mut s.reg.index);
        }
    }
    if let Some(tex) = &mut inst.texture {
        for off in &mut tex.offsets {
            if off.file == File::Immediate {
                fix(&mut off.index);
            }
        }
    }
}

fn reg_src(r: RegChannel) -> SrcOperand {
    SrcOperand { reg: Register::new(r.file, r.index as i32), swizzle: [r.chan; 4], negate: false, absolute: false }
}

/// Reads channel x of `s` in every position (conditions read `.x`).
fn broadcast(mut s: SrcOperand) -> SrcOperand {
    s.swizzle = [s.swizzle[0]; 4];
    s
}

/// Fills the swizzle positions nothing reads: with the one channel read
/// when every read position reads the same, else with the identity.
fn fill_unused(swizzle: &mut [u8; 4], used: impl Iterator<Item = (usize, u8)>) {
    let used: SmallVec<[(usize, u8); 4]> = used.collect();
    let single = used.first().map(|&(_, c)| c).filter(|&c| used.iter().all(|&(_, d)| d == c));
    for (p, slot) in swizzle.iter_mut().enumerate() {
        if !used.iter().any(|&(q, _)| q == p) {
            *slot = single.unwrap_or(p as u8);
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
                Op::StoreOutput { .. } | Op::ArrayStore { .. } => true,
                Op::Opaque { inst: t, .. } => {
                    t.opcode.info().has(tgsi::flags::SIDE_EFFECT)
                        || t.dst.iter().any(|d| !matches!(d.reg.file, File::Temporary | File::Output | File::Address))
                }
                _ => false,
            };
            if effect && live.insert(inst, ()).is_none() {
                work.extend(data.args.iter().map(|a| a.value));
            }
        }
    }
    for event in walk(&func.body) {
        if let Event::Enter(construct, _) = event {
            work.extend(construct.operands().map(|op| op.value));
        }
    }
    while let Some(v) = work.pop() {
        let Some(data) = func.values.get(v) else { continue };
        if live.insert(data.def, ()).is_none() {
            work.extend(func.insts[data.def].args.iter().map(|a| a.value));
        }
    }
    live
}

/// Whether two 32-bit locations can be read by one operand.
fn same_register(a: Loc, b: Loc) -> bool {
    match (a, b) {
        (Loc::Reg(x), Loc::Reg(y)) => (x.file, x.index) == (y.file, y.index),
        (Loc::Src(x), Loc::Src(y)) => (x.file, x.index, x.dim) == (y.file, y.index, y.dim),
        (Loc::Const(_), Loc::Const(_)) => true,
        _ => false,
    }
}

/// How many members of `group` write a lower channel than `chan`.
fn rank_in_group(e: &Emitter<'_>, group: &[Inst], chan: u8) -> Result<usize, EmitError> {
    let mut rank = 0;
    for &m in group {
        if let Loc::Reg(r) = e.loc(e.func.insts[m].results[0])? {
            if r.chan < chan {
                rank += 1;
            }
        }
    }
    Ok(rank)
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
