//! Check 4: operations. Each placed instruction is checked by its op:
//! operand and result counts and widths, channels in range, arrays that
//! exist and constant offsets within them, no source modifiers where an op
//! only moves bits; and phis stand only at the start of their block.
//!
//! The ops that carry a TGSI opcode (ALU and opaque instructions) are
//! checked in [`super::opcodes`], phis in [`super::phis`]; the checks each
//! of them shares (counts, widths, modifiers, channels) are here.

use super::Verifier;
use crate::function::{Array, Block, Inst, InstData, Op, Ty};

/// How a width is named in messages.
pub(super) fn width(ty: Ty) -> &'static str {
    match ty {
        Ty::B32 => "32-bit",
        Ty::B64 => "64-bit",
    }
}

impl Verifier<'_> {
    /// Checks every placed instruction by its op, and that phis come first
    /// in their block.
    pub(super) fn operations(&mut self) {
        let func = self.func;
        let mut phis_done: Option<Block> = None;
        let mut current: Option<Block> = None;
        for (b, _, inst) in self.placed() {
            let Some(data) = func.insts.get(inst) else { continue };
            if current != Some(b) {
                current = Some(b);
                phis_done = None;
            }
            if matches!(data.op, Op::Phi { .. }) {
                if phis_done.is_some() {
                    self.inst_issue(Some(b), inst, "phi after a non-phi instruction".into());
                }
            } else {
                phis_done = Some(b);
            }
            self.op(b, inst, data);
        }
    }

    /// Checks the count of operands and results.
    pub(super) fn counts(
        &mut self,
        b: Block,
        inst: Inst,
        data: &InstData,
        what: &str,
        args: &[usize],
        results: usize,
    ) -> bool {
        let mut ok = true;
        if !args.contains(&data.args.len()) {
            let expected = match args {
                [n] => n.to_string(),
                [a, b] => format!("{a} or {b}"),
                _ => format!("{args:?}"),
            };
            self.inst_issue(Some(b), inst, format!("{what} takes {expected} operand(s), not {}", data.args.len()));
            ok = false;
        }
        if data.results.len() != results {
            self.inst_issue(Some(b), inst, format!("{what} has {results} result(s), not {}", data.results.len()));
            ok = false;
        }
        ok
    }

    /// Checks that operand `i` has width `ty` (when it exists).
    pub(super) fn arg_ty(&mut self, b: Block, inst: Inst, data: &InstData, i: usize, ty: Ty, what: &str) {
        let Some(arg) = data.args.get(i) else { return };
        match self.ty(arg.value) {
            Some(t) if t != ty => self.inst_issue(
                Some(b),
                inst,
                format!("operand {i} ({}) of {what} is {}; expected {}", arg.value, width(t), width(ty)),
            ),
            _ => {}
        }
    }

    /// Checks that result `i` has width `ty` (when it exists).
    pub(super) fn result_ty(&mut self, b: Block, inst: Inst, data: &InstData, i: usize, ty: Ty, what: &str) {
        let Some(&r) = data.results.get(i) else { return };
        match self.ty(r) {
            Some(t) if t != ty => {
                self.inst_issue(Some(b), inst, format!("result {r} of {what} is {}; expected {}", width(t), width(ty)))
            }
            _ => {}
        }
    }

    pub(super) fn no_modifiers(&mut self, b: Block, inst: Inst, data: &InstData, what: &str) {
        for (i, a) in data.args.iter().enumerate() {
            if a.neg || a.abs {
                self.inst_issue(
                    Some(b),
                    inst,
                    format!("operand {i} of {what} has a source modifier; {what} moves bits"),
                );
            }
        }
    }

    pub(super) fn chan(&mut self, b: Block, inst: Inst, chan: u8, limit: u8, what: &str) {
        if chan >= limit {
            self.inst_issue(Some(b), inst, format!("channel {chan} of {what} is out of range 0..{limit}"));
        }
    }

    /// Checks one placed instruction by its op.
    fn op(&mut self, b: Block, inst: Inst, data: &InstData) {
        match &data.op {
            Op::Const(bits) => self.constant(b, inst, data, *bits),
            Op::Initial | Op::Undef => self.initial(b, inst, data),
            Op::Read(src) => self.read(b, inst, data, src.chan),
            Op::Alu { opcode, chan } => self.alu(b, inst, data, *opcode, *chan),
            Op::Pack => self.pack(b, inst, data),
            Op::Split { .. } => self.split(b, inst, data),
            Op::Phi { preds } => self.phi_operands(b, inst, data, preds),
            Op::LoadIndirect { chan, .. } => self.load_indirect(b, inst, data, *chan),
            Op::ArrayLoad { array, offset, chan } => self.array_load(b, inst, data, *array, *offset, *chan),
            Op::StoreIndirect { reg, chan } => self.store_indirect(b, inst, data, reg, *chan),
            Op::ArrayStore { array, offset, chan } => self.array_store(b, inst, data, *array, *offset, *chan),
            Op::StoreOutput { chan, .. } => self.store_output(b, inst, data, *chan),
            Op::Opaque { inst: template, value_srcs } => self.opaque(b, inst, data, template, *value_srcs),
        }
    }

    /// A constant: one result, and a 32-bit one has no bits above bit 31.
    fn constant(&mut self, b: Block, inst: Inst, data: &InstData, bits: u64) {
        if self.counts(b, inst, data, "const", &[0], 1)
            && data.results.first().and_then(|&r| self.ty(r)) == Some(Ty::B32)
            && bits > u64::from(u32::MAX)
        {
            self.inst_issue(Some(b), inst, format!("32-bit constant 0x{bits:x} has bits above bit 31"));
        }
    }

    /// The zero of a never-written channel, or a value nothing reads: one
    /// 32-bit result, no operands.
    fn initial(&mut self, b: Block, inst: Inst, data: &InstData) {
        self.counts(b, inst, data, "initial", &[0], 1);
        self.result_ty(b, inst, data, 0, Ty::B32, "initial");
    }

    /// A direct read of an input, constant or system value.
    fn read(&mut self, b: Block, inst: Inst, data: &InstData, chan: u8) {
        self.counts(b, inst, data, "read", &[0], 1);
        self.result_ty(b, inst, data, 0, Ty::B32, "read");
        self.chan(b, inst, chan, 4, "read");
    }

    /// Two 32-bit halves into one 64-bit value.
    fn pack(&mut self, b: Block, inst: Inst, data: &InstData) {
        self.counts(b, inst, data, "pack", &[2], 1);
        self.no_modifiers(b, inst, data, "pack");
        for i in 0..2 {
            self.arg_ty(b, inst, data, i, Ty::B32, "pack");
        }
        self.result_ty(b, inst, data, 0, Ty::B64, "pack");
    }

    /// One 32-bit half of a 64-bit value.
    fn split(&mut self, b: Block, inst: Inst, data: &InstData) {
        self.counts(b, inst, data, "split", &[1], 1);
        self.no_modifiers(b, inst, data, "split");
        self.arg_ty(b, inst, data, 0, Ty::B64, "split");
        self.result_ty(b, inst, data, 0, Ty::B32, "split");
    }

    /// A read of an indirectly addressed register: 32-bit indices.
    fn load_indirect(&mut self, b: Block, inst: Inst, data: &InstData, chan: u8) {
        if data.results.len() != 1 {
            self.inst_issue(Some(b), inst, format!("loadindirect has {} results, not 1", data.results.len()));
        }
        self.no_modifiers(b, inst, data, "loadindirect");
        for i in 0..data.args.len() {
            self.arg_ty(b, inst, data, i, Ty::B32, "loadindirect");
        }
        self.result_ty(b, inst, data, 0, Ty::B32, "loadindirect");
        self.chan(b, inst, chan, 4, "loadindirect");
    }

    /// A store to a register kept in memory: one operand per indirect
    /// part of the register, then the value.
    fn store_indirect(&mut self, b: Block, inst: Inst, data: &InstData, reg: &tgsi::Register, chan: u8) {
        let parts = crate::function::indirect_parts(reg);
        self.counts(b, inst, data, "storeindirect", &[parts + 1], 0);
        self.no_modifiers(b, inst, data, "storeindirect");
        for i in 0..data.args.len() {
            self.arg_ty(b, inst, data, i, Ty::B32, "storeindirect");
        }
        self.chan(b, inst, chan, 4, "storeindirect");
    }

    /// A load from a memory array; without an index operand, at a constant
    /// offset within it.
    fn array_load(&mut self, b: Block, inst: Inst, data: &InstData, array: Array, offset: i32, chan: u8) {
        self.counts(b, inst, data, "arrayload", &[0, 1], 1);
        self.no_modifiers(b, inst, data, "arrayload");
        self.arg_ty(b, inst, data, 0, Ty::B32, "arrayload");
        self.result_ty(b, inst, data, 0, Ty::B32, "arrayload");
        self.chan(b, inst, chan, 4, "arrayload");
        self.array(b, inst, array, offset, data.args.is_empty());
    }

    /// A store to a memory array: the index if any, then the value.
    fn array_store(&mut self, b: Block, inst: Inst, data: &InstData, array: Array, offset: i32, chan: u8) {
        self.counts(b, inst, data, "arraystore", &[1, 2], 0);
        self.no_modifiers(b, inst, data, "arraystore");
        for i in 0..data.args.len() {
            self.arg_ty(b, inst, data, i, Ty::B32, "arraystore");
        }
        self.chan(b, inst, chan, 4, "arraystore");
        self.array(b, inst, array, offset, data.args.len() < 2);
    }

    /// A store of one output channel.
    fn store_output(&mut self, b: Block, inst: Inst, data: &InstData, chan: u8) {
        self.counts(b, inst, data, "storeoutput", &[1], 0);
        self.no_modifiers(b, inst, data, "storeoutput");
        self.arg_ty(b, inst, data, 0, Ty::B32, "storeoutput");
        self.chan(b, inst, chan, 4, "storeoutput");
    }

    /// Checks that `array` exists and, for a `direct` access (no index
    /// operand), that `offset` is within it.
    fn array(&mut self, b: Block, inst: Inst, array: Array, offset: i32, direct: bool) {
        match self.func.arrays.get(array) {
            None => self.inst_issue(Some(b), inst, format!("{array} does not exist")),
            Some(a) if direct && (offset < 0 || i64::from(offset) >= i64::from(a.len)) => {
                self.inst_issue(Some(b), inst, format!("offset {offset} is outside {array} (length {})", a.len))
            }
            Some(_) => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::cfg::build::*;
    use crate::entity::EntityRef;
    use crate::function::*;
    use crate::verify::fixtures::*;
    use tgsi::Opcode;

    #[test]
    fn type_errors() {
        let mut t = Builder::default();
        let b0 = t.block();
        t.f.body = vec![blk(b0)];
        let x = t.konst(b0, 1);
        let pack = t.inst(b0, Op::Pack, &[x, x], &[Ty::B64]);
        let d = t.f.result(pack);
        let lo = t.inst(b0, Op::Split { hi: false }, &[d], &[Ty::B32]);
        let lo = t.f.result(lo);
        let dadd = t.alu(b0, Opcode::Dadd, &[d, d]);
        let shl = t.alu(b0, Opcode::U64shl, &[d, lo]);
        let f2d = t.alu(b0, Opcode::F2d, &[lo]);
        let d2f = t.alu(b0, Opcode::D2f, &[f2d]);
        let dp3 = t.alu(b0, Opcode::Dp3, &[x, x, x, lo, lo, lo]);
        let slt = t.alu(b0, Opcode::Dslt, &[dadd, shl]);
        t.store(b0, 0, d2f);
        t.store(b0, 1, dp3);
        t.store(b0, 2, slt);
        assert_valid(&t.f);

        let bad = t.inst(b0, Op::Pack, &[x, d], &[Ty::B32]);
        assert_issue(&t.f, &format!("operand 1 ({d}) of pack is 64-bit; expected 32-bit"));
        assert_issue(&t.f, "of pack is 32-bit; expected 64-bit");
        t.f.blocks[b0].insts.retain(|&i| i != bad);
        t.inst(b0, Op::Split { hi: true }, &[x], &[Ty::B32]);
        assert_issue(&t.f, &format!("operand 0 ({x}) of split is 32-bit; expected 64-bit"));
        t.f.blocks[b0].insts.pop();
        t.alu(b0, Opcode::Dmul, &[d, x]);
        assert_issue(&t.f, &format!("operand 1 ({x}) of dmul is 32-bit; expected 64-bit"));
        t.f.blocks[b0].insts.pop();
        t.alu(b0, Opcode::Add, &[d, x]);
        assert_issue(&t.f, &format!("operand 0 ({d}) of add is 64-bit; expected 32-bit"));
        t.f.blocks[b0].insts.pop();
        t.alu(b0, Opcode::Dp3, &[x, x, d, x, x, x]);
        assert_issue(&t.f, &format!("operand 2 ({d}) of dp3 is 64-bit; expected 32-bit"));
        t.f.blocks[b0].insts.pop();
        t.alu(b0, Opcode::Add, &[x]);
        assert_issue(&t.f, "component-wise add takes 2 operand(s), not 1");
        t.f.blocks[b0].insts.pop();
        t.inst(b0, Op::Alu { opcode: Opcode::Dadd, chan: 1 }, &[d, d], &[Ty::B64]);
        assert_issue(&t.f, "channel 1 of dadd computes channel 0's formula; it must say 0");
        t.f.blocks[b0].insts.pop();
        t.inst(b0, Op::Alu { opcode: Opcode::Lit, chan: 3 }, &[x; 4], &[Ty::B32]);
        assert_issue(&t.f, "channel 3 of lit computes channel 0's formula; it must say 0");
        t.f.blocks[b0].insts.pop();
        t.inst(b0, Op::Alu { opcode: Opcode::Dst, chan: 4 }, &[x; 8], &[Ty::B32]);
        assert_issue(&t.f, "channel 4 of dst is out of range 0..4");
        t.f.blocks[b0].insts.pop();
        t.inst(b0, Op::Alu { opcode: Opcode::Dadd, chan: 0 }, &[d, d], &[Ty::B32]);
        assert_issue(&t.f, "of dadd is 32-bit; expected 64-bit");
        t.f.blocks[b0].insts.pop();
        t.konst(b0, 0x1_0000_0000);
        assert_issue(&t.f, "32-bit constant 0x100000000 has bits above bit 31");
        t.f.blocks[b0].insts.pop();
        t.inst(b0, Op::StoreOutput { index: 0, chan: 4 }, &[x, x], &[Ty::B32]);
        assert_issue(&t.f, "storeoutput takes 1 operand(s), not 2");
        assert_issue(&t.f, "storeoutput has 0 result(s), not 1");
        assert_issue(&t.f, "channel 4 of storeoutput is out of range 0..4");
        t.f.blocks[b0].insts.pop();
        t.inst(b0, Op::Alu { opcode: Opcode::Tex, chan: 0 }, &[x, x, x, x], &[Ty::B32]);
        assert_issue(&t.f, "tex does not work channel by channel; it must be an opaque instruction");
    }

    #[test]
    fn array_errors() {
        let mut t = Builder::default();
        let b0 = t.block();
        t.f.body = vec![blk(b0)];
        let a0 = t.f.arrays.push(ArrayData { file: tgsi::File::Temporary, first: 4, len: 4, array_id: Some(1) });
        let x = t.konst(b0, 1);
        t.inst(b0, Op::ArrayStore { array: a0, offset: 3, chan: 0 }, &[x], &[]);
        t.inst(b0, Op::ArrayStore { array: a0, offset: 7, chan: 0 }, &[x, x], &[]);
        t.inst(b0, Op::ArrayLoad { array: a0, offset: -1, chan: 1 }, &[x], &[Ty::B32]);
        t.inst(b0, Op::ArrayLoad { array: a0, offset: 0, chan: 1 }, &[], &[Ty::B32]);
        assert_valid(&t.f);
        t.inst(b0, Op::ArrayLoad { array: a0, offset: 4, chan: 1 }, &[], &[Ty::B32]);
        assert_issue(&t.f, "offset 4 is outside a0 (length 4)");
        t.f.blocks[b0].insts.pop();
        t.inst(b0, Op::ArrayStore { array: a0, offset: -1, chan: 0 }, &[x], &[]);
        assert_issue(&t.f, "offset -1 is outside a0 (length 4)");
        t.f.blocks[b0].insts.pop();
        t.inst(b0, Op::ArrayLoad { array: Array::new(3), offset: 0, chan: 0 }, &[x], &[Ty::B32]);
        assert_issue(&t.f, "a3 does not exist");
        t.f.blocks[b0].insts.pop();
        t.inst(b0, Op::ArrayStore { array: a0, offset: 0, chan: 0 }, &[], &[]);
        assert_issue(&t.f, "arraystore takes 1 or 2 operand(s), not 0");
    }
}
