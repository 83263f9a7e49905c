//! ALU instructions: consecutive scalar operations from one source
//! instruction written as one vector instruction when their registers
//! allow, with the operand each source reads at each swizzle position.

use super::note::{Channels, Note};
use super::*;
use crate::channels::replicated_reads;
use tgsi::{ChannelMode, DstOperand, Register, SrcOperand};

impl Emitter<'_> {
    /// Consecutive ALU operations from one source instruction, written as
    /// one instruction when their registers allow.
    pub(super) fn alu_group(&mut self, insts: &[Inst], i: usize) -> Result<usize, EmitError> {
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
            // A group sharing a position joins no other operation.
            let run = |x: Inst| self.layout.shared.get(&x).copied();
            if !same || run(insts[j]) != run(insts[i]) || self.dst_reg(d.results[0])? != dst_reg {
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
        // The rest of the group that could not join: it reads what the
        // group read, after these channels are written.
        let writes_nothing = |x: &Inst| groups::writes_nothing(&self.func.insts[*x]);
        let rest: Vec<Inst> = insts[i + consumed..]
            .iter()
            .copied()
            .take_while(|x| writes_nothing(x) || self.layout.inst_pos.get(x) == self.pos.as_ref())
            .filter(|x| !writes_nothing(x))
            .collect();
        self.keep_read_values(&rest, dst_reg, mask)?;
        self.write_alu(opcode, &group, dst_reg, mask)?;
        Ok(consumed)
    }

    /// Copies into scratch channels the values the operations `rest` read
    /// from channels `mask` of `dst`, which the instruction being written
    /// overwrites: `rest` shares its position (one source instruction,
    /// which reads every operand first), so the allocation let its results
    /// take those channels. Until the position changes, the values are
    /// read from the copies.
    fn keep_read_values(&mut self, rest: &[Inst], dst: (File, u32), mask: u8) -> Result<(), EmitError> {
        for &m in rest {
            for arg in self.func.insts[m].args.clone() {
                let Loc::Reg(r) = self.loc(arg.value)? else { continue };
                if (r.file, r.index) != dst || mask & (1 << r.chan) == 0 {
                    continue;
                }
                let copy = RegChannel { file: File::Temporary, index: self.scratch(), chan: 0 };
                self.mov_raw(copy, operands::reg_src(r), note::CopyNote::of(arg.value))?;
                self.relocated.push((arg.value, Loc::Reg(copy)));
                self.held_scratch = self.scratch_used;
            }
        }
        Ok(())
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
            // A register's initial zeros are read from a channel of the
            // register the others are in that still holds its zero.
            let mut locs: Vec<Loc> = Vec::with_capacity(op.len());
            for &(_, o) in op.iter() {
                locs.push(self.loc(o.value)?);
            }
            let initial = |v: Value| matches!(self.func.def(v).op, Op::Initial) && self.func.ty(v) == Ty::B32;
            let register = op.iter().zip(&locs).find(|((_, o), _)| !initial(o.value)).map(|(_, l)| *l);
            if let Some(Loc::Reg(r)) = register {
                let zeros = op.iter().any(|(_, o)| initial(o.value));
                if zeros && r.file == File::Temporary && self.zero_channel(r.index).is_some() {
                    locs = op.iter().zip(&locs).filter(|((_, o), _)| !initial(o.value)).map(|(_, l)| *l).collect();
                }
            }
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
        let mut note = Note::default();
        for op in &ops {
            srcs.push(self.operand(op)?);
            note.src.push(self.reads(op));
        }
        note.dst.push(self.results_by_channel(group)?);
        inst.dst.push(DstOperand { reg: Register::new(dst.0, dst.1 as i32), write_mask: mask });
        inst.src = srcs;
        self.push(inst, note);
        Ok(())
    }

    /// What each channel a group of operations writes holds: its result
    /// (a 64-bit result both channels of its pair).
    fn results_by_channel(&self, group: &[Inst]) -> Result<Channels, EmitError> {
        let mut holds: Channels = [None; 4];
        for &inst in group {
            let v = self.func.insts[inst].results[0];
            let chans = match self.loc(v)? {
                Loc::Reg(r) => 1 << r.chan | self.alloc.also.get(&v).copied().unwrap_or(0),
                Loc::Pair { pair, .. } => 0b11 << (2 * pair),
                _ => 0,
            };
            for c in (0..4).filter(|c| chans & (1 << c) != 0) {
                holds[c] = Some(Operand::new(v));
            }
        }
        Ok(holds)
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
