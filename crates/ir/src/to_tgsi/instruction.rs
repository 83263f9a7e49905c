//! Writing one instruction of a block, by the kind of its operation: the
//! halves of 64-bit register pairs (split, pack) and opaque instructions
//! here, the others in `alu`, `stores` and `indirect`.

use super::note::{Channels, CopyNote, Note};
use super::operands::reg_src;
use super::*;
use tgsi::Register;

impl Emitter<'_> {
    /// Writes the instruction at `insts[i]` (and those grouped with it);
    /// returns how many were consumed.
    pub(super) fn instruction(&mut self, insts: &[Inst], i: usize) -> Result<usize, EmitError> {
        let inst = insts[i];
        let data = &self.func.insts[inst];
        // What writes nothing leaves a group being written alone (a
        // constant the members of a group are written around).
        if groups::writes_nothing(data) {
            return Ok(1);
        }
        self.gathered.clear();
        let pos = self.layout.inst_pos.get(&inst).copied();
        if pos != self.pos {
            self.end_group();
        }
        self.scratch_used = self.held_scratch;
        self.pos = pos;
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
                        self.mov_raw(dst, reg_src(src), CopyNote::of(v))?;
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
                        moves.push((dst, src, *arg));
                    }
                }
                // A half that sits where the other half goes must be read
                // before it is overwritten.
                let reads_a_destination =
                    moves.iter().any(|&(_, s, _)| moves.iter().any(|&(d, _, _)| s == Loc::Reg(d)));
                if reads_a_destination {
                    let note = |a: Operand| CopyNote { read: Some(a), holds: Some(a) };
                    self.parallel_copy(moves.iter().map(|&(d, s, a)| (d, s, note(a))).collect())?;
                } else {
                    for (dst, _, arg) in moves {
                        self.mov(dst, arg)?;
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
            Op::ArrayStore { .. } | Op::StoreIndirect { .. } => self.stores_in_place(insts, i),
            Op::Opaque { .. } => {
                self.opaque(inst)?;
                Ok(1)
            }
        }
    }

    /// Forgets what the group just written kept ([`Emitter::keep_read_values`])
    /// and wrote: its values are read up to its last instruction only.
    pub(super) fn end_group(&mut self) {
        self.relocated.clear();
        self.held_scratch = 0;
        self.written_here.clear();
    }

    fn opaque(&mut self, inst: Inst) -> Result<(), EmitError> {
        let data = &self.func.insts[inst];
        let Op::Opaque { inst: template, value_srcs } = &data.op else { return Ok(()) };
        let mut t = (**template).clone();
        if matches!(t.opcode, Opcode::Emit | Opcode::Endprim) && t.src.is_empty() {
            // The 2010 form names no vertex stream; today's takes the
            // stream index as an immediate, and stream 0 is what it meant.
            let (k, swizzle) = self.imms.find_or_add(&[(0, 0)]);
            t.src.push(reg_src(RegChannel { file: File::Immediate, index: k, chan: swizzle[0] }));
        }
        let mut args = data.args.iter().copied();
        let mut note = Note::default();
        for (i, src) in t.src.iter_mut().enumerate() {
            if value_srcs & (1 << i) != 0 {
                let wanted: Wanted = (0..4).zip(args.by_ref().take(4)).collect();
                let (neg, abs) = (src.negate, src.absolute);
                let mut s = self.operand(&wanted)?;
                s.negate = neg;
                s.absolute = abs;
                *src = s;
                // The IR's operands read through the instruction's own
                // modifiers.
                let mut reads = self.reads(&wanted);
                for o in reads.iter_mut().flatten() {
                    (o.neg, o.abs) = if abs { (neg, true) } else { (o.neg ^ neg, o.abs) };
                }
                note.src.push(reads);
            } else {
                note.src.push([None; 4]);
                if src.reg.file == File::Immediate {
                    self.imms.keep(src.reg.index as u32);
                }
            }
        }
        // The indirect indices of the operands kept as they are, in the
        // order `opaque_address_operands` gives.
        let value_srcs = *value_srcs;
        let srcs = t
            .src
            .iter_mut()
            .enumerate()
            .filter(|(i, _)| *i >= 8 || value_srcs & (1 << i) == 0)
            .map(|(_, s)| &mut s.reg);
        let dsts = t.dst.iter_mut().filter(|d| !is_value_destination(d.reg.file)).map(|d| &mut d.reg);
        let mut referenced: Vec<&mut Register> = srcs.chain(dsts).collect();
        for reg in referenced.iter_mut() {
            let dim_ind = reg.dimension.as_mut().and_then(|d| d.indirect.as_mut());
            for ind in [reg.indirect.as_mut(), dim_ind].into_iter().flatten() {
                let arg =
                    args.next().ok_or_else(|| EmitError::Unwritable(format!("{inst} lacks an indirect index")))?;
                *ind = self.address(arg, ind.array_id)?;
                note.indirect.push(arg);
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
        note.dst = t.dst.iter().map(|_| [None; 4]).collect();
        for (d, dst) in t.dst.iter_mut().enumerate() {
            let n = dst.write_mask.count_ones() as usize;
            if !is_value_destination(dst.reg.file) {
                continue;
            }
            let vals: Vec<Value> = results.by_ref().take(n).collect();
            // Channels the allocator left unplaced (`Loc::Any`) are read by
            // nothing and not written.
            let chans = (0..4u8).filter(|c| dst.write_mask & (1 << c) != 0);
            let mut mask = dst.write_mask & !0xf;
            let mut first = None;
            let mut holds: Channels = [None; 4];
            for (c, &v) in chans.zip(&vals) {
                if self.loc(v)? != Loc::Any {
                    mask |= 1 << c;
                    first = first.or(Some(v));
                    holds[c as usize] = Some(Operand::new(v));
                }
            }
            if let Some(v) = first {
                let (file, index) = self.dst_reg(v)?;
                dst.reg = Register::new(file, index as i32);
                dst.write_mask = mask;
            }
            note.dst[d] = holds;
        }
        self.push(t, note);
        Ok(())
    }
}
