//! Indirectly addressed registers: loads of them and of arrays, stores to
//! array elements, and the address operands they take.

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
    pub(super) fn array_stores(&mut self, insts: &[Inst], i: usize) -> Result<usize, EmitError> {
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
}
