//! Lowering of one TGSI instruction into scalar operations.

use super::{BuildError, Builder};
use crate::channels::replicated_reads;
use crate::function::*;
use smallvec::SmallVec;
use tgsi::{ChannelMode, File, Opcode};

/// Files whose registers are values (the others name resources).
pub(crate) fn is_value_file(file: File) -> bool {
    matches!(
        file,
        File::Temporary
            | File::Output
            | File::Address
            | File::Input
            | File::Constant
            | File::SystemValue
            | File::Immediate
    )
}

/// The channels destination `d` of `inst` writes.
pub(crate) fn written_channels(inst: &tgsi::Instruction, d: usize) -> u8 {
    inst.dst.get(d).map_or(0, |dst| dst.write_mask & 0xf)
}

/// Opcodes kept whole as [`Op::Opaque`] even though the opcode table calls
/// them component-wise: they read other invocations or the machine.
pub(super) fn is_cross_lane(op: Opcode) -> bool {
    use Opcode::*;
    matches!(op, ReadInvoc | ReadFirst | VoteAny | VoteAll | VoteEq | Ballot | Clock | ReadHelper)
}

/// Whether source `i` of `op` names a resource rather than a value even
/// when its file holds values (`LOAD TEMP[0], CONST[0], ...` reads a
/// constant buffer; `INTERP_CENTROID` names an input).
pub(crate) fn is_reference_src(op: Opcode, i: usize) -> bool {
    use Opcode::*;
    i == 0
        && matches!(
            op,
            Load | Resq
                | Atomuadd
                | Atomxchg
                | Atomcas
                | Atomand
                | Atomor
                | Atomxor
                | Atomumin
                | Atomumax
                | Atomimin
                | Atomimax
                | Atomfadd
                | AtomincWrap
                | AtomdecWrap
                | InterpCentroid
                | InterpSample
                | InterpOffset
                | Fbfetch
        )
}

impl Builder<'_> {
    /// The value of channel `c` of a register (no swizzle, no modifiers).
    pub(super) fn read_channel(&mut self, reg: &tgsi::Register, c: u8) -> Result<Value, BuildError> {
        let file = reg.file;
        if !is_value_file(file) {
            return Err(self.error(format!("{file} registers hold no values")));
        }
        let dim_indirect = reg.dimension.and_then(|d| d.indirect);
        let output_in_memory = self.output_in_memory(reg);
        if reg.indirect.is_some() || dim_indirect.is_some() || output_in_memory {
            let mut args: SmallVec<[Operand; 3]> = SmallVec::new();
            if let Some(ind) = reg.indirect {
                args.push(Operand::new(self.address(&ind)?));
            }
            if file == File::Temporary || (file == File::Output && !output_in_memory) {
                if dim_indirect.is_some() || reg.dimension.is_some() {
                    return Err(self.error("2-D TEMP registers are not supported"));
                }
                let (array, first) = self
                    .array_of(file, reg.index as i64)
                    .or_else(|| self.arrays.iter().find(|a| a.0 == file).map(|a| (a.3, a.1)))
                    .ok_or_else(|| self.error("an indirect register outside every array"))?;
                let offset = reg.index - first as i32;
                return Ok(self.emit(Op::ArrayLoad { array, offset, chan: c }, &args, Ty::B32));
            }
            if let Some(ind) = dim_indirect {
                args.push(Operand::new(self.address(&ind)?));
            }
            return Ok(self.emit(Op::LoadIndirect { reg: *reg, chan: c }, &args, Ty::B32));
        }
        let index = u32::try_from(reg.index).map_err(|_| self.error("a negative register index"))?;
        match file {
            File::Temporary | File::Output | File::Address => {
                if reg.dimension.is_some() {
                    return Err(self.error("2-D TEMP or ADDR registers are not supported"));
                }
                if let Some((array, first)) = self.array_of(file, index as i64) {
                    let offset = (index - first) as i32;
                    return Ok(self.emit(Op::ArrayLoad { array, offset, chan: c }, &[], Ty::B32));
                }
                let v = self.vars.var(file, index, c);
                Ok(self.var_value(v))
            }
            File::Immediate => {
                let imm =
                    self.imms.get(index as usize).ok_or_else(|| self.error(format!("IMM[{index}] is not declared")))?;
                let bits = imm.data[c as usize & 3];
                Ok(self.constant(bits as u64, Ty::B32))
            }
            _ => {
                let dim = reg.dimension.map(|d| d.index as u32);
                Ok(self.read(Source { file, dim, index, chan: c }))
            }
        }
    }

    /// The value of an indirect index register.
    fn address(&mut self, ind: &tgsi::Indirect) -> Result<Value, BuildError> {
        let reg = tgsi::Register::new(ind.file, ind.index);
        self.read_channel(&reg, ind.component)
    }

    /// Result channel `chan` of a source operand: the swizzled channel with
    /// its modifiers.
    pub(super) fn src_scalar(&mut self, src: &tgsi::SrcOperand, chan: u8, _int: bool) -> Result<Operand, BuildError> {
        let c = src.swizzle[chan as usize & 3];
        let value = self.read_channel(&src.reg, c)?;
        Ok(Operand { value, neg: src.negate, abs: src.absolute })
    }

    /// A 64-bit operand from channel pair `pair` (0 = xy, 1 = zw) of a
    /// source; modifiers apply to the 64-bit value.
    fn src_pair(&mut self, src: &tgsi::SrcOperand, pair: u8) -> Result<Operand, BuildError> {
        let lo = self.src_scalar(src, 2 * pair, false)?.value;
        let hi = self.src_scalar(src, 2 * pair + 1, false)?.value;
        let packed = self.emit(Op::Pack, &[Operand::new(lo), Operand::new(hi)], Ty::B64);
        Ok(Operand { value: packed, neg: src.negate, abs: src.absolute })
    }

    /// Writes `value` to channel `c` of a destination.
    fn write_channel(&mut self, dst: &tgsi::DstOperand, c: u8, value: Value) -> Result<(), BuildError> {
        let reg = dst.reg;
        match reg.file {
            File::Null => Ok(()),
            File::Output if self.output_in_memory(&reg) => self.store_indirect(&reg, c, value),
            File::Temporary | File::Output | File::Address => {
                if reg.dimension.is_some() {
                    return Err(self.error("2-D TEMP or ADDR registers are not supported"));
                }
                let array = match reg.indirect {
                    Some(_) => self
                        .array_of(reg.file, reg.index as i64)
                        .or_else(|| self.arrays.iter().find(|a| a.0 == reg.file).map(|a| (a.3, a.1))),
                    None => self.array_of(reg.file, reg.index as i64),
                };
                if let Some((array, first)) = array {
                    let mut args: SmallVec<[Operand; 3]> = SmallVec::new();
                    if let Some(ind) = reg.indirect {
                        args.push(Operand::new(self.address(&ind)?));
                    }
                    args.push(Operand::new(value));
                    let offset = reg.index - first as i32;
                    let origin = Origin { inst: Some(self.pc as u32), dst: None };
                    let inst = self.func.add_inst(Op::ArrayStore { array, offset, chan: c }, &args, &[], origin);
                    self.append(inst);
                    return Ok(());
                }
                if reg.indirect.is_some() {
                    return Err(self.error(format!("indirect writes to {} registers are not supported", reg.file)));
                }
                let index = u32::try_from(reg.index).map_err(|_| self.error("a negative register index"))?;
                let def = self.func.values[value].def;
                let origin = &mut self.func.insts[def].origin;
                if origin.dst.is_none() && origin.inst == Some(self.pc as u32) {
                    origin.dst = Some(RegChannel { file: reg.file, index, chan: c });
                }
                let v = self.vars.var(reg.file, index, c);
                self.write_var(v, value);
                Ok(())
            }
            other => Err(self.error(format!("{other} registers cannot be written by this instruction"))),
        }
    }

    /// Whether output register `reg` is memory, read and written in place
    /// rather than promoted to SSA: 2-D outputs (`OUT[v][i]`), and every
    /// output of a tessellation control shader, which the invocations of
    /// a patch share (one reads what another wrote before a barrier).
    pub(super) fn output_in_memory(&self, reg: &tgsi::Register) -> bool {
        reg.file == File::Output && (reg.dimension.is_some() || self.processor == tgsi::Processor::TessCtrl)
    }

    /// Writes `value` to channel `c` of a register kept in memory: its
    /// indirect index and 2-D indirect index first, as a load reads them.
    fn store_indirect(&mut self, reg: &tgsi::Register, c: u8, value: Value) -> Result<(), BuildError> {
        let mut args: SmallVec<[Operand; 3]> = SmallVec::new();
        if let Some(ind) = reg.indirect {
            args.push(Operand::new(self.address(&ind)?));
        }
        if let Some(ind) = reg.dimension.and_then(|d| d.indirect) {
            args.push(Operand::new(self.address(&ind)?));
        }
        args.push(Operand::new(value));
        let origin = Origin { inst: Some(self.pc as u32), dst: None };
        let inst = self.func.add_inst(Op::StoreIndirect { reg: *reg, chan: c }, &args, &[], origin);
        self.append(inst);
        Ok(())
    }

    /// Adds one ALU operation to the current block, computing the formula
    /// of result channel (or pair) `chan`.
    pub(super) fn alu(
        &mut self,
        opcode: Opcode,
        chan: u8,
        args: &[Operand],
        ty: Ty,
        saturate: bool,
        precise: bool,
    ) -> Value {
        let chan = crate::channels::formula_chan(opcode, chan);
        let v = self.emit(Op::Alu { opcode, chan }, args, ty);
        let def = self.func.values[v].def;
        self.func.insts[def].saturate = saturate;
        self.func.insts[def].precise = precise;
        v
    }

    /// Writes per-channel results, after every source has been read.
    pub(super) fn write_all(&mut self, dst: &tgsi::DstOperand, results: &[(u8, Value)]) -> Result<(), BuildError> {
        for &(c, v) in results {
            self.write_channel(dst, c, v)?;
        }
        Ok(())
    }

    pub(super) fn lower_instruction(&mut self, inst: &tgsi::Instruction) -> Result<(), BuildError> {
        let op = inst.opcode;
        let info = op.info();
        if info.is_legacy() {
            return self.lower_legacy(inst);
        }
        let all_values = inst.src.iter().all(|s| is_value_file(s.reg.file));
        let simple = inst.dst.len() == 1 && all_values && !is_cross_lane(op);
        if simple && info.is_64bit() {
            return self.lower_64bit(inst);
        }
        match info.mode {
            ChannelMode::Componentwise if simple => self.lower_componentwise(inst, op),
            ChannelMode::Replicate if simple => self.lower_replicated(inst, op),
            ChannelMode::ChannelDependent if simple => self.lower_channel_dependent(inst, op),
            _ => self.lower_opaque(inst, op),
        }
    }

    /// Every source of `inst` read at channel `c`, in operand order.
    pub(super) fn channel_srcs(
        &mut self,
        inst: &tgsi::Instruction,
        c: u8,
    ) -> Result<SmallVec<[Operand; 3]>, BuildError> {
        inst.src.iter().map(|s| self.src_scalar(s, c, false)).collect()
    }

    fn lower_componentwise(&mut self, inst: &tgsi::Instruction, op: Opcode) -> Result<(), BuildError> {
        let dst = inst.dst[0];
        // Every operand first (indirect loads among them), then the
        // operations, so emission finds each as one run.
        let mut all_args = SmallVec::<[(u8, SmallVec<[Operand; 3]>); 4]>::new();
        for c in 0..4u8 {
            if dst.write_mask & (1 << c) != 0 {
                all_args.push((c, self.channel_srcs(inst, c)?));
            }
        }
        let mut results = SmallVec::<[(u8, Value); 4]>::new();
        for (c, args) in all_args {
            // A MOV is an operation like the others (copies are
            // `constfold`'s to propagate): the source's registers stay
            // what emission can fall back on.
            results.push((c, self.alu(op, c, &args, Ty::B32, inst.saturate, inst.precise)));
        }
        self.write_all(&dst, &results)
    }

    fn lower_replicated(&mut self, inst: &tgsi::Instruction, op: Opcode) -> Result<(), BuildError> {
        let dst = inst.dst[0];
        if dst.write_mask == 0 {
            return Ok(());
        }
        let mut args = SmallVec::<[Operand; 8]>::new();
        for &(s, c) in replicated_reads(op) {
            let src = inst.src.get(s as usize).ok_or_else(|| self.error("missing source operand"))?;
            args.push(self.src_scalar(src, c, false)?);
        }
        let v = self.alu(op, 0, &args, Ty::B32, inst.saturate, inst.precise);
        let results: SmallVec<[(u8, Value); 4]> =
            (0..4u8).filter(|c| dst.write_mask & (1 << c) != 0).map(|c| (c, v)).collect();
        self.write_all(&dst, &results)
    }

    fn lower_channel_dependent(&mut self, inst: &tgsi::Instruction, op: Opcode) -> Result<(), BuildError> {
        let dst = inst.dst[0];
        let mut all = SmallVec::<[Operand; 8]>::new();
        for src in &inst.src {
            for c in 0..4 {
                all.push(self.src_scalar(src, c, false)?);
            }
        }
        let mut results = SmallVec::<[(u8, Value); 4]>::new();
        for c in 0..4u8 {
            if dst.write_mask & (1 << c) != 0 {
                results.push((c, self.alu(op, c, &all, Ty::B32, inst.saturate, inst.precise)));
            }
        }
        self.write_all(&dst, &results)
    }

    /// Double and 64-bit integer opcodes, on channel pairs.
    fn lower_64bit(&mut self, inst: &tgsi::Instruction) -> Result<(), BuildError> {
        let op = inst.opcode;
        let info = op.info();
        let dst = inst.dst[0];
        let mask = dst.write_mask;
        let dst64 = info.dst_type.is_64bit();
        let src64 = info.src_type.is_64bit();
        let mut results = SmallVec::<[(u8, Value); 4]>::new();
        if crate::channels::is_narrowing(op) {
            // The first written channel from src.xy, the second from src.zw.
            let written = (0..4u8).filter(|c| mask & (1 << c) != 0).take(2);
            for (pair, c) in written.enumerate() {
                let pair = pair as u8;
                let args = inst.src.iter().map(|s| self.src_pair(s, pair)).collect::<Result<SmallVec<[_; 3]>, _>>()?;
                results.push((c, self.alu(op, pair, &args, Ty::B32, inst.saturate, inst.precise)));
            }
            return self.write_all(&dst, &results);
        }
        for pair in 0..2u8 {
            let pair_mask = 0b11 << (2 * pair);
            if mask & pair_mask == 0 {
                continue;
            }
            let mut args = SmallVec::<[Operand; 3]>::new();
            for (i, src) in inst.src.iter().enumerate() {
                if op.src_type(i).is_64bit() {
                    args.push(self.src_pair(src, pair)?);
                } else if dst64 && !src64 {
                    // Widening conversions: dst.xy from src.x, dst.zw from src.y.
                    args.push(self.src_scalar(src, pair, false)?);
                } else {
                    // A 32-bit operand of a 64-bit op (DLDEXP's exponent, a
                    // shift count): the first channel of the pair.
                    args.push(self.src_scalar(src, 2 * pair, false)?);
                }
            }
            if dst64 {
                let v = self.alu(op, pair, &args, Ty::B64, inst.saturate, inst.precise);
                for (c, hi) in [(2 * pair, false), (2 * pair + 1, true)] {
                    if mask & (1 << c) != 0 {
                        let half = self.emit(Op::Split { hi }, &[Operand::new(v)], Ty::B32);
                        results.push((c, half));
                    }
                }
            } else {
                // Comparisons: one 32-bit result, in the first channel of
                // the pair that is written (as Mesa's interpreter does).
                let c = if mask & (1 << (2 * pair)) != 0 { 2 * pair } else { 2 * pair + 1 };
                results.push((c, self.alu(op, pair, &args, Ty::B32, inst.saturate, inst.precise)));
            }
        }
        self.write_all(&dst, &results)
    }

    /// Keeps the instruction whole, with its value sources as scalar
    /// arguments and its value destinations as results.
    pub(super) fn lower_opaque(&mut self, inst: &tgsi::Instruction, op: Opcode) -> Result<(), BuildError> {
        if op == Opcode::Emit {
            self.store_outputs();
        }
        let mut template = inst.clone();
        let mut args = SmallVec::<[Operand; 3]>::new();
        let mut value_srcs = 0u8;
        for (i, src) in inst.src.iter().enumerate() {
            if is_value_file(src.reg.file) && !is_reference_src(op, i) {
                let read = crate::channels::read_mask(inst, i);
                for c in 0..4 {
                    let ch = src.swizzle[c];
                    let v = if read & (1 << c) != 0 { self.read_channel(&src.reg, ch)? } else { self.undef() };
                    args.push(Operand::new(v));
                }
                value_srcs |= 1 << i;
                // The register is a placeholder: the value is in `args`.
                template.src[i].reg = tgsi::Register::new(File::Temporary, 0);
                template.src[i].swizzle = tgsi::IDENTITY_SWIZZLE;
            }
        }
        // Then the indirect indices of the operands kept as they are.
        let referenced: Vec<tgsi::Register> = opaque_address_operands(inst, value_srcs).copied().collect();
        for reg in referenced {
            for ind in [reg.indirect, reg.dimension.and_then(|d| d.indirect)].into_iter().flatten() {
                args.push(Operand::new(self.address(&ind)?));
            }
        }
        let mut result_slots = Vec::new();
        for (d, dst) in inst.dst.iter().enumerate() {
            if is_value_file(dst.reg.file) {
                for c in 0..4u8 {
                    if dst.write_mask & (1 << c) != 0 {
                        result_slots.push((d, c));
                    }
                }
                // A placeholder: the results are values, and where they
                // were written is the origin of the instruction (below).
                template.dst[d].reg = tgsi::Register::new(File::Temporary, 0);
            }
        }
        let tys = vec![Ty::B32; result_slots.len()];
        let origin = Origin { inst: Some(self.pc as u32), dst: None };
        let data = self.func.add_inst(Op::Opaque { inst: Box::new(template), value_srcs }, &args, &tys, origin);
        self.func.insts[data].saturate = inst.saturate;
        self.func.insts[data].precise = inst.precise;
        self.append(data);
        let results: Vec<Value> = self.func.insts[data].results.to_vec();
        for ((d, c), v) in result_slots.into_iter().zip(results) {
            self.write_channel(&inst.dst[d], c, v)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tgsi::flags;

    #[test]
    fn replicated_reads_cover_every_replicated_opcode() {
        for &op in Opcode::ALL {
            let info = op.info();
            if info.mode == ChannelMode::Replicate && !info.is_legacy() && !info.has(flags::SIDE_EFFECT) {
                let reads = replicated_reads(op);
                assert!(reads.iter().all(|&(s, _)| s < info.num_src), "{}", op.name());
            }
        }
    }
}
