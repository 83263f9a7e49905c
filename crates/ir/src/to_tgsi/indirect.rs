//! Indirectly addressed registers: loads of them and of arrays, stores to
//! array elements, and the address operands they take.

use super::note::{Channels, CopyNote, Note};
use super::operands::fill_unused;
use super::*;
use tgsi::{DstOperand, Register, SrcOperand};

impl Emitter<'_> {
    /// Consecutive loads of channels of one indirectly addressed register
    /// (from one source instruction), as one MOV.
    pub(super) fn loads(&mut self, insts: &[Inst], i: usize) -> Result<usize, EmitError> {
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
        let mut loaded: Channels = [None; 4];
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
            loaded[r.chan as usize] = Some(Operand::new(d.results[0]));
            used.push((r.chan as usize, chan));
            n += 1;
        }
        fill_unused(&mut swizzle, used.into_iter());
        let reg = self.load_register(insts[i])?;
        let mut inst = tgsi::Instruction::new(Opcode::Mov);
        inst.dst.push(DstOperand { reg: Register::new(dst_file, dst_index as i32), write_mask: mask });
        inst.src.push(SrcOperand { reg, swizzle, negate: false, absolute: false });
        self.push(inst, Note::copy(loaded));
        Ok(n.max(1))
    }

    /// Makes the instruction just written write `reg` (masked by `mask`)
    /// itself, instead of a TEMP a MOV would copy from, when it wrote just
    /// the values the MOV would store (`wanted`, in the channels they are
    /// stored to, or one value stored to every channel by an instruction
    /// that computes it in each) and nothing reads them after the store
    /// (at `last`). Returns whether it did.
    fn write_in_place(
        &mut self,
        wanted: &Wanted,
        mask: u8,
        reg: Register,
        last: Option<u32>,
        indices: &[Operand],
    ) -> bool {
        let Some(last) = last else { return false };
        // A copy operand gathering left for later readers stays.
        if self.held.iter().any(|&(_, _, since)| since == self.out.len()) {
            return false;
        }
        let Some(prev) = self.out.last() else { return false };
        let [dst] = prev.dst.as_slice() else { return false };
        let temp = dst.reg;
        if temp.file != File::Temporary || temp.indirect.is_some() || temp.dimension.is_some() {
            return false;
        }
        // One value in every stored channel, from an instruction whose every
        // channel computes it (a replicated opcode, or broadcast operands).
        let info = prev.opcode.info();
        let broadcast = dst.write_mask.count_ones() == 1
            && wanted.windows(2).all(|w| w[0].1 == w[1].1)
            && match info.mode {
                tgsi::ChannelMode::Replicate => true,
                tgsi::ChannelMode::Componentwise => {
                    !info.is_64bit() && prev.src.iter().all(|s| s.swizzle.iter().all(|&c| c == s.swizzle[0]))
                }
                _ => false,
            };
        // Otherwise each stored value in the channel of the TEMP that holds
        // it, and nothing else written there: `from[pos]` is the channel
        // the value stored to `pos` was computed in.
        let written = dst.write_mask.trailing_zeros() as u8;
        let mut from = [0u8; 4];
        let mut sources = 0u8;
        let in_temp = wanted.iter().all(|&(pos, o)| {
            let Ok(Loc::Reg(r)) = self.loc(o.value) else { return false };
            let chan = if broadcast { written } else { r.chan };
            from[pos & 3] = chan;
            sources |= 1 << chan;
            !o.neg
                && !o.abs
                && r == RegChannel { file: File::Temporary, index: temp.index as u32, chan }
                && self.layout.ranges.get(&o.value).is_some_and(|r| r.iter().all(|iv| iv.end <= last))
        });
        let identity = wanted.iter().all(|&(pos, _)| from[pos & 3] == pos as u8);
        // A componentwise instruction computes any channel it is asked to:
        // its operands' swizzles follow the channels the values move to.
        let permutable = info.mode == tgsi::ChannelMode::Componentwise && !info.is_64bit();
        let fits = broadcast || (sources == dst.write_mask && (identity || permutable));
        // The register's index must not be in the TEMP no longer written.
        let reads_temp =
            |ind: Option<tgsi::Indirect>| ind.is_some_and(|ind| ind.file == File::Temporary && ind.index == temp.index);
        if !in_temp || !fits || reads_temp(reg.indirect) || reads_temp(reg.dimension.and_then(|d| d.indirect)) {
            return false;
        }
        let moved: SmallVec<[(u8, u8); 4]> = wanted.iter().map(|&(pos, _)| (pos as u8 & 3, from[pos & 3])).collect();
        let permuted = !broadcast && !identity;
        if permuted {
            if let Some(prev) = self.out.last_mut() {
                for src in prev.src.iter_mut() {
                    let old = src.swizzle;
                    for &(pos, from) in &moved {
                        src.swizzle[pos as usize] = old[from as usize];
                    }
                }
            }
        }
        if let Some(prev) = self.out.last_mut() {
            prev.dst[0].reg = reg;
            prev.dst[0].write_mask = mask;
        }
        // It now writes what the store's MOV would have.
        if self.notes.enabled {
            let stored = self.reads(wanted);
            self.notes.retarget_last(stored, indices, permuted.then_some(&moved[..]));
        }
        true
    }

    /// Whether two loads read channels of the same register.
    pub(super) fn same_load(&self, a: Inst, b: Inst) -> bool {
        let (x, y) = (&self.func.insts[a], &self.func.insts[b]);
        let key = |d: &InstData| match &d.op {
            Op::ArrayLoad { array, offset, .. } => (Some((*array, *offset)), None),
            Op::LoadIndirect { reg, .. } => (None, Some(*reg)),
            _ => (None, None),
        };
        key(x) == key(y) && x.args == y.args
    }

    /// The register a load reads, with its index registers.
    pub(super) fn load_register(&mut self, load: Inst) -> Result<Register, EmitError> {
        let first = &self.func.insts[load];
        match &first.op {
            Op::ArrayLoad { array, offset, .. } => self.array_register(*array, *offset, first.args.first().copied()),
            Op::LoadIndirect { reg, .. } => {
                let (reg, args) = (*reg, first.args.clone());
                self.indirect_register(reg, &args)
            }
            _ => Err(self.err("not a load")),
        }
    }

    /// `reg` with its indirect index and 2-D indirect index reading the
    /// first of `args`, in that order.
    fn indirect_register(&mut self, mut reg: Register, args: &[Operand]) -> Result<Register, EmitError> {
        let mut args = args.iter().copied();
        let missing = || EmitError::Unwritable("an indirect register without its index operand".into());
        if let Some(ind) = &mut reg.indirect {
            *ind = self.address(args.next().ok_or_else(missing)?, ind.array_id)?;
        }
        if let Some(ind) = reg.dimension.as_mut().and_then(|d| d.indirect.as_mut()) {
            *ind = self.address(args.next().ok_or_else(missing)?, ind.array_id)?;
        }
        Ok(reg)
    }

    /// Consecutive stores to channels of one array element, or of one
    /// register kept in memory, as one MOV.
    pub(super) fn stores_in_place(&mut self, insts: &[Inst], i: usize) -> Result<usize, EmitError> {
        let first = &self.func.insts[insts[i]];
        let Some((target, _)) = store_target(first) else { return Err(self.err("not a store")) };
        let mut wanted = Wanted::new();
        let mut mask = 0u8;
        let mut n = 0;
        while let Some(&inst) = insts.get(i + n) {
            if !self.layout.inst_pos.contains_key(&inst) {
                break;
            }
            let d = &self.func.insts[inst];
            let Some((t, chan)) = store_target(d) else { break };
            if t != target || mask & (1 << chan) != 0 {
                break;
            }
            let Some(&value) = d.args.last() else { break };
            let mut trial: Vec<Operand> = wanted.iter().map(|&(_, o)| o).collect();
            trial.push(value);
            if !wanted.is_empty() && !self.one_register(&trial)? {
                break;
            }
            wanted.push((chan as usize, value));
            mask |= 1 << chan;
            n += 1;
        }
        let written_before = self.out.len();
        let (reg, indices) = match target {
            StoreTarget::Array { array, offset, index } => {
                (self.array_register(array, offset, index)?, index.into_iter().collect())
            }
            StoreTarget::Register { reg, indices } => (self.indirect_register(reg, &indices)?, indices),
        };
        let last = insts.get(i + n.max(1) - 1).and_then(|s| self.layout.inst_pos.get(s)).copied();
        let stores = insts.get(i..i + n.max(1)).unwrap_or_default();
        if self.out.len() == written_before && self.write_in_place(&wanted, mask, reg, last, &indices) {
            self.mark_output_stores(stores);
            return Ok(n.max(1));
        }
        let src = self.operand(&wanted)?;
        let mut inst = tgsi::Instruction::new(Opcode::Mov);
        inst.dst.push(DstOperand { reg, write_mask: mask });
        inst.src.push(src);
        let stored = self.reads(&wanted);
        let note = Note { indirect: indices.into_iter().collect(), ..Note::copy(stored) };
        self.push(inst, note);
        self.mark_output_stores(stores);
        Ok(n.max(1))
    }

    /// An indirect index reading `arg`'s register channel.
    pub(super) fn address(&mut self, arg: Operand, array_id: u16) -> Result<tgsi::Indirect, EmitError> {
        match self.loc(arg.value)? {
            Loc::Reg(r) => Ok(tgsi::Indirect { file: r.file, index: r.index as i32, component: r.chan, array_id }),
            Loc::Src(s) if s.dim.is_none() => {
                Ok(tgsi::Indirect { file: s.file, index: s.index as i32, component: s.chan, array_id })
            }
            _ => {
                // A constant or scattered index: put it in a scratch channel.
                let r = RegChannel { file: File::Temporary, index: self.scratch(), chan: 0 };
                let s = self.operand(&[(0, arg)])?;
                self.mov_raw(r, s, CopyNote { read: Some(arg), holds: Some(arg) })?;
                Ok(tgsi::Indirect { file: r.file, index: r.index as i32, component: 0, array_id })
            }
        }
    }

    fn array_register(&mut self, array: Array, offset: i32, index: Option<Operand>) -> Result<Register, EmitError> {
        let data = self.func.arrays.get(array).ok_or_else(|| self.err("an unknown array"))?.clone();
        let base = data.first as i32 + offset;
        let mut reg = Register::new(data.file, base);
        if let Some(ix) = index {
            reg.indirect = Some(self.address(ix, emitted_array_id(self.func, &data))?);
        }
        Ok(reg)
    }
}

/// The array id an array's accesses are written with. A TEMP array
/// without one stands for the whole file as the source declared it, and
/// indirect accesses must stay bounded to that range: emission adds
/// registers past it (values, scratch), which an index one past the end
/// would otherwise read. So it gets the lowest id no other array has.
pub(super) fn emitted_array_id(func: &Function, data: &ArrayData) -> u16 {
    if let Some(id) = data.array_id {
        return id;
    }
    if data.file != File::Temporary {
        return 0;
    }
    let taken = |id: u16| func.arrays.iter().any(|(_, a)| a.file == File::Temporary && a.array_id == Some(id));
    // 1023: the largest id the token format holds.
    (1..=1023u16).find(|&id| !taken(id)).unwrap_or(0)
}

/// Where a store writes, apart from its channel: stores with equal targets
/// write channels of one register and can be one instruction.
#[derive(PartialEq)]
pub(super) enum StoreTarget {
    /// An array element, at a constant offset plus an index operand.
    Array { array: Array, offset: i32, index: Option<Operand> },
    /// A register kept in memory, with its index operands.
    Register { reg: Register, indices: SmallVec<[Operand; 2]> },
}

/// The target and channel of a store to an array or to a register kept in
/// memory; `None` for any other instruction.
pub(super) fn store_target(d: &InstData) -> Option<(StoreTarget, u8)> {
    let (_, indices) = d.args.split_last()?;
    match d.op {
        Op::ArrayStore { array, offset, chan } => {
            Some((StoreTarget::Array { array, offset, index: indices.first().copied() }, chan))
        }
        Op::StoreIndirect { reg, chan } => {
            Some((StoreTarget::Register { reg, indices: SmallVec::from_slice(indices) }, chan))
        }
        _ => None,
    }
}
