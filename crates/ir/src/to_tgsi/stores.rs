//! Output stores: consecutive stores to one output register written as one
//! MOV, or as few as the registers their values are in allow.

use super::note::{Channels, Note};
use super::*;
use tgsi::{DstOperand, Register, SrcOperand};

impl Emitter<'_> {
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
    pub(super) fn one_register(&self, ops: &[Operand]) -> Result<bool, EmitError> {
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

    /// Consecutive stores to one output register, as one MOV; returns how
    /// many were consumed.
    pub(super) fn store_outputs(&mut self, insts: &[Inst], i: usize, index: u32) -> Result<usize, EmitError> {
        let n = self.write_output_stores(insts, i, index)?;
        self.mark_output_stores(insts.get(i..i + n).unwrap_or_default());
        Ok(n)
    }

    /// The MOVs of [`Self::store_outputs`].
    fn write_output_stores(&mut self, insts: &[Inst], i: usize, index: u32) -> Result<usize, EmitError> {
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
            let plain = !data.args[0].neg && !data.args[0].abs;
            if !plain || !self.in_place(data.args[0].value, dst) {
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
        if groups.len() == 2 && self.zeros_from_temps && self.store_with_fresh_zeros(index, &groups)? {
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
                let reads = self.reads(&wanted);
                self.mov_output(index, mask, s, reads);
                return Ok(n.max(1));
            }
        }
        for g in groups {
            let m = g.iter().fold(0u8, |m, &(p, _)| m | 1 << p);
            let src = self.operand(&g)?;
            let reads = self.reads(&g);
            self.mov_output(index, m, src, reads);
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

    /// The two groups of an output store split into its initial zeros (the
    /// source read channels it never wrote) and its values, read without
    /// modifiers; `None` when the store is not of that shape.
    fn zeros_and_values<'w>(&self, groups: &'w [Wanted]) -> Option<(&'w Wanted, &'w Wanted)> {
        let zeros = |g: &Wanted| g.iter().all(|(_, o)| !o.neg && self.is_initial(o.value));
        let (zeros, values) = match groups {
            [a, b] if zeros(a) => (a, b),
            [a, b] if zeros(b) => (b, a),
            _ => return None,
        };
        values.iter().all(|(_, o)| !o.neg && !o.abs).then_some((zeros, values))
    }

    /// Stores an output whose channels are values of one TEMP register
    /// and initial zeros (channels the source read without writing them)
    /// with one MOV, when a channel of that register still holds its
    /// initial zero here: the zeros are read from it. Only initial zeros:
    /// a zero the source wrote is not made to rely on a register's
    /// initial value. Returns whether it did.
    fn store_with_zeros(&mut self, index: u32, groups: &[Wanted]) -> Result<bool, EmitError> {
        let (Some(pos), Some(block)) = (self.pos, self.cur_block) else { return Ok(false) };
        let Some((zeros, regs)) = self.zeros_and_values(groups) else { return Ok(false) };
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
            let reads = self.reads(regs);
            self.mov_output(index, m, src, reads);
            let m = zeros.iter().fold(0u8, |m, &(p, _)| m | 1 << p);
            let z = self.operand(zeros)?;
            let reads = self.reads(zeros);
            self.mov_output(index, m, z, reads);
            return Ok(true);
        }
        for &(p, _) in zeros {
            src.swizzle[p] = c;
        }
        let mask = groups.iter().flatten().fold(0u8, |m, &(p, _)| m | 1 << p);
        let all: Wanted = groups.iter().flatten().copied().collect();
        let reads = self.reads(&all);
        self.mov_output(index, mask, src, reads);
        // Gathering must not write the channel before `before`.
        self.zero_skips.push((RegChannel { file: File::Temporary, index: r.index, chan: c }, before));
        Ok(true)
    }

    /// Stores an output whose channels are values of one register other
    /// than a TEMP and initial zeros ([`EmitOptions::zeros_from_temps`]):
    /// the values are copied into the zero register (a TEMP nothing else
    /// writes), in the channels they are stored to, and the output is
    /// written from it with one `MOV`, the zeros read from a channel no
    /// instruction writes. Returns whether it did.
    fn store_with_fresh_zeros(&mut self, index: u32, groups: &[Wanted]) -> Result<bool, EmitError> {
        let Some((zeros, regs)) = self.zeros_and_values(groups) else { return Ok(false) };
        let outside_temps = regs.iter().all(|(_, o)| matches!(self.loc(o.value), Ok(Loc::Src(_)) | Ok(Loc::Const(_))));
        let values = regs.iter().fold(0u8, |m, &(p, _)| m | 1 << p);
        // A channel nothing writes, where the values go to no channel read
        // as zero elsewhere.
        let written = self.zero_written | values;
        let Some(zero_chan) = (0..4u8).find(|&c| written & (1 << c) == 0) else { return Ok(false) };
        if !outside_temps || values & self.zero_read != 0 {
            return Ok(false);
        }
        self.zero_written = written;
        self.zero_read |= 1 << zero_chan;
        let z = self.zero_register();
        let src = self.operand(regs)?;
        let mut inst = tgsi::Instruction::new(Opcode::Mov);
        inst.dst.push(DstOperand { reg: Register::new(File::Temporary, z as i32), write_mask: values });
        inst.src.push(src);
        let reads = self.reads(regs);
        self.push(inst, Note::copy(reads));
        let mut swizzle = [0u8, 1, 2, 3];
        for &(p, _) in zeros.iter() {
            swizzle[p] = zero_chan;
        }
        let all: Wanted = groups.iter().flatten().copied().collect();
        let reads = self.reads(&all);
        let from =
            SrcOperand { reg: Register::new(File::Temporary, z as i32), swizzle, negate: false, absolute: false };
        let mask = values | zeros.iter().fold(0u8, |m, &(p, _)| m | 1 << p);
        self.mov_output(index, mask, from, reads);
        Ok(true)
    }

    /// `MOV OUT[index].mask, src`, reading and storing the IR operands
    /// `reads` in the channels of the mask.
    fn mov_output(&mut self, index: u32, mask: u8, src: SrcOperand, reads: Channels) {
        let mut inst = tgsi::Instruction::new(Opcode::Mov);
        inst.dst.push(DstOperand { reg: Register::new(File::Output, index as i32), write_mask: mask });
        inst.src.push(src);
        self.push(inst, Note::copy(reads));
    }
}
