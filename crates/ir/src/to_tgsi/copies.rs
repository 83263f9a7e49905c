//! Copies between register channels: the parallel copy into the phis of a
//! block's successors at its end (moved before an `IF` when the else arm
//! would hold nothing else), and the MOVs the rest of emission writes.

use super::note::{Channels, CopyNote, Marker, Note};
use super::operands::{fill_unused, reg_src};
use super::*;
use rustc_hash::FxHashMap as HashMap;
use tgsi::{DstOperand, Register, SrcOperand};

impl Emitter<'_> {
    /// The parallel copy into the phis of this block's successors.
    pub(super) fn phi_copies(&mut self, b: Block) -> Result<(), EmitError> {
        let (pending, left_out) = self.pending_phi_copies(b)?;
        #[cfg(test)]
        let pending = self.planted_drop(pending);
        self.parallel_copy(pending)?;
        // The copies left out, after the others: those read the arguments
        // before any phi's channel is written.
        for marker in left_out.into_iter().chain(self.notes.take_deferred(b)) {
            self.mark(marker);
        }
        Ok(())
    }

    /// The phi copies at the end of `b` (destination, source, what they
    /// mean), leaving out copies of zero into registers that still hold
    /// it; with the copies left out, as markers for the checker.
    fn pending_phi_copies(&mut self, b: Block) -> Result<(Vec<PendingCopy>, Vec<Marker>), EmitError> {
        let Some(list) = self.copies.get(&b).cloned() else { return Ok((Vec::new(), Vec::new())) };
        let mut pending: Vec<PendingCopy> = Vec::new();
        let mut left_out: Vec<Marker> = Vec::new();
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
                left_out.push(Marker::Relabel { chan: dst, from: Some(Operand::new(arg)), to: phi });
                continue;
            }
            let src = self.loc(arg)?;
            // An undefined value (--undef=any) needs no copy.
            if src == Loc::Any {
                left_out.push(Marker::Relabel { chan: dst, from: None, to: phi });
                continue;
            }
            if src == Loc::Reg(dst) {
                left_out.push(Marker::Relabel { chan: dst, from: Some(Operand::new(arg)), to: phi });
            } else if !pending.iter().any(|&(d, _, _)| d == dst) {
                let note = CopyNote { read: Some(Operand::new(arg)), holds: Some(Operand::new(phi)) };
                pending.push((dst, src, note));
            }
        }
        Ok((pending, left_out))
    }

    /// When an `IF` has no `ELSE` in the source and its else arm would hold
    /// only phi copies, writes those copies before the `IF` instead (the
    /// then arm overwrites the phis' registers on its own path), so no
    /// `ELSE` is needed. Valid when no value occupies those registers where
    /// the condition is read: then nothing on either path reads what they
    /// held. Returns whether it did.
    pub(super) fn hoist_else_copies(&mut self, n: &IfNode, prev: Option<Block>) -> Result<bool, EmitError> {
        let [Node::Block(else_block)] = n.else_region.as_slice() else { return Ok(false) };
        let Some(at) = prev.and_then(|b| self.layout.block_end.get(&b)).map(|&end| end + 1) else {
            return Ok(false);
        };
        if n.has_else || !self.writes_nothing(*else_block) {
            return Ok(false);
        }
        let zero_skips = self.zero_skips.len();
        let (pending, left_out) = self.pending_phi_copies(*else_block)?;
        let movable = |e: &Self, dst: RegChannel| {
            e.alloc.free_at(dst, at) && !e.zero_skips.iter().any(|&(s, before)| s == dst && before > at)
        };
        if pending.is_empty() || !pending.iter().all(|&(dst, _, _)| movable(self, dst)) {
            // The else arm writes them itself; its zero skips are noted again.
            self.zero_skips.truncate(zero_skips);
            return Ok(false);
        }
        for &(dst, _, _) in &pending {
            // A copy of zero into these registers can no longer be left out.
            self.gather_writes.push((dst, at));
        }
        self.parallel_copy(pending)?;
        self.copies.insert(*else_block, Vec::new());
        // The copies left out are the else arm's, on the IF's false edge.
        self.notes.defer(*else_block, left_out);
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
    pub(super) fn parallel_copy(&mut self, mut pending: Vec<PendingCopy>) -> Result<(), EmitError> {
        // Copy first into registers no pending copy still reads; a cycle
        // is broken by saving one register in a scratch channel.
        self.scratch_used = self.held_scratch;
        // How many pending copies read each register channel: a copy is
        // free when none reads its destination, known without a scan of
        // the others (copies into a SWITCH's join number in the hundreds).
        let mut readers: HashMap<RegChannel, u32> = HashMap::default();
        for &(_, s, _) in &pending {
            if let Loc::Reg(r) = s {
                *readers.entry(r).or_default() += 1;
            }
        }
        let is_free = |readers: &HashMap<RegChannel, u32>, d: RegChannel| readers.get(&d).is_none_or(|&n| n == 0);
        let unread = |readers: &mut HashMap<RegChannel, u32>, s: Loc| {
            if let Loc::Reg(r) = s {
                if let Some(n) = readers.get_mut(&r) {
                    *n = n.saturating_sub(1);
                }
            }
        };
        while !pending.is_empty() {
            let free = pending.iter().position(|&(d, _, _)| is_free(&readers, d));
            match free {
                Some(k) => {
                    // With it, every other free copy into the same register
                    // from the same register: one MOV.
                    let (dst, src, note) = pending.remove(k);
                    unread(&mut readers, src);
                    let mut batch = vec![(dst, src, note)];
                    let mut i = 0;
                    while i < pending.len() {
                        let (d, s, _) = pending[i];
                        if is_free(&readers, d) && (d.file, d.index) == (dst.file, dst.index) && same_register(s, src) {
                            batch.push(pending.remove(i));
                            unread(&mut readers, s);
                        } else {
                            i += 1;
                        }
                    }
                    self.copy_batch(&batch)?;
                }
                None => {
                    let saved = pending[0].0;
                    let tmp = RegChannel { file: File::Temporary, index: self.scratch(), chan: 0 };
                    // The scratch channel holds what the copies reading
                    // the saved one read.
                    let held = pending.iter().find(|p| p.1 == Loc::Reg(saved)).and_then(|p| p.2.read);
                    self.mov_raw(tmp, reg_src(saved), CopyNote { read: held, holds: held })?;
                    for p in pending.iter_mut() {
                        if p.1 == Loc::Reg(saved) {
                            p.1 = Loc::Reg(tmp);
                        }
                    }
                    let moved = readers.remove(&saved).unwrap_or(0);
                    *readers.entry(tmp).or_default() += moved;
                }
            }
        }
        self.scratch_used = self.held_scratch;
        Ok(())
    }

    /// One MOV writing each (channel, location) of a batch whose sources
    /// share a register.
    pub(super) fn copy_batch(&mut self, batch: &[PendingCopy]) -> Result<(), EmitError> {
        let Some(&(dst, first, note)) = batch.first() else { return Ok(()) };
        if batch.len() == 1 {
            let s = self.single_src(first, dst.chan)?;
            return self.mov_raw(dst, s, note);
        }
        let mut mask = 0u8;
        let mut used = SmallVec::<[(usize, u8); 4]>::new();
        let mut consts = Vec::new();
        let (mut reads, mut holds): (Channels, Channels) = ([None; 4], [None; 4]);
        for &(d, s, note) in batch {
            reads[d.chan as usize & 3] = note.read;
            holds[d.chan as usize & 3] = note.holds;
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
        let note = Note { dst: smallvec::smallvec![holds], src: smallvec::smallvec![reads], ..Note::default() };
        self.push(inst, note);
        Ok(())
    }

    /// A source operand reading one 32-bit location in every channel.
    pub(super) fn single_src(&mut self, loc: Loc, chan: u8) -> Result<SrcOperand, EmitError> {
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

    /// A MOV of the IR operand `src` into `dst`, which holds it after.
    pub(super) fn mov(&mut self, dst: RegChannel, src: Operand) -> Result<(), EmitError> {
        let s = self.operand(&[(dst.chan as usize, src)])?;
        let mut inst = tgsi::Instruction::new(Opcode::Mov);
        inst.dst.push(DstOperand { reg: Register::new(dst.file, dst.index as i32), write_mask: 1 << dst.chan });
        inst.src.push(s);
        let mut channels: Channels = [None; 4];
        channels[dst.chan as usize & 3] = self.reads(&[(dst.chan as usize, src)])[dst.chan as usize & 3];
        self.push(inst, Note::copy(channels));
        self.scratch_used = self.held_scratch;
        Ok(())
    }

    /// A MOV of `src` into `dst`, meaning what `note` says (read at the
    /// swizzle position of `dst`'s channel).
    pub(super) fn mov_raw(&mut self, dst: RegChannel, src: SrcOperand, note: CopyNote) -> Result<(), EmitError> {
        let mut inst = tgsi::Instruction::new(Opcode::Mov);
        inst.dst.push(DstOperand { reg: Register::new(dst.file, dst.index as i32), write_mask: 1 << dst.chan });
        inst.src.push(src);
        let (mut reads, mut holds): (Channels, Channels) = ([None; 4], [None; 4]);
        reads[dst.chan as usize & 3] = note.read;
        holds[dst.chan as usize & 3] = note.holds;
        let note = Note { dst: smallvec::smallvec![holds], src: smallvec::smallvec![reads], ..Note::default() };
        self.push(inst, note);
        Ok(())
    }
}

/// A copy to write: destination, source, and what it means.
pub(super) type PendingCopy = (RegChannel, Loc, CopyNote);

/// Whether two 32-bit locations can be read by one operand.
pub(super) fn same_register(a: Loc, b: Loc) -> bool {
    match (a, b) {
        (Loc::Reg(x), Loc::Reg(y)) => (x.file, x.index) == (y.file, y.index),
        (Loc::Src(x), Loc::Src(y)) => (x.file, x.index, x.dim) == (y.file, y.index, y.dim),
        (Loc::Const(_), Loc::Const(_)) => true,
        _ => false,
    }
}
