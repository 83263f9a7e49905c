//! Check 4, for the ops that carry a TGSI opcode: ALU ops against the
//! opcode table (channel mode, operand count and widths, results) and
//! opaque instructions against the instruction they keep whole.

use super::Verifier;
use crate::function::{Block, Inst, InstData, Ty};
use tgsi::{ChannelMode, Opcode};

impl Verifier<'_> {
    /// An ALU op: one channel (or channel pair) of a TGSI opcode that works
    /// channel by channel, with operands and results as the opcode table says.
    pub(super) fn alu(&mut self, b: Block, inst: Inst, data: &InstData, opcode: Opcode, chan: u8) {
        let info = opcode.info();
        let name = opcode.name().to_ascii_lowercase();
        let num_src = usize::from(info.num_src);
        if matches!(info.mode, ChannelMode::Other | ChannelMode::None) {
            self.inst_issue(
                Some(b),
                inst,
                format!("{name} does not work channel by channel; it must be an opaque instruction"),
            );
        }
        let formula = crate::channels::formula_chan(opcode, chan);
        if chan >= 4 {
            self.chan(b, inst, chan, 4, &name);
        } else if chan != formula {
            // One formula, one spelling: otherwise equal operations would
            // differ by where their results go.
            self.inst_issue(
                Some(b),
                inst,
                format!("channel {chan} of {name} computes channel {formula}'s formula; it must say {formula}"),
            );
        }
        if info.mode == ChannelMode::Componentwise && data.args.len() != num_src {
            self.inst_issue(
                Some(b),
                inst,
                format!("component-wise {name} takes {num_src} operand(s), not {}", data.args.len()),
            );
        }
        if data.args.len() == num_src {
            for i in 0..num_src {
                self.arg_ty(b, inst, data, i, alu_src_ty(opcode, i), &name);
            }
        } else if !info.is_64bit() {
            for i in 0..data.args.len() {
                self.arg_ty(b, inst, data, i, Ty::B32, &name);
            }
        }
        match info.num_dst {
            1 => {
                if data.results.len() != 1 {
                    self.inst_issue(Some(b), inst, format!("{name} has {} results, not 1", data.results.len()));
                }
                let ty = if info.dst_type.is_64bit() { Ty::B64 } else { Ty::B32 };
                self.result_ty(b, inst, data, 0, ty, &name);
            }
            n if data.results.len() > usize::from(n) => self.inst_issue(
                Some(b),
                inst,
                format!("{name} has {} results; it has {n} destination(s)", data.results.len()),
            ),
            _ => {}
        }
    }

    /// An instruction kept whole: four 32-bit arguments per value source
    /// its template marks, and at most four 32-bit results per destination.
    pub(super) fn opaque(
        &mut self,
        b: Block,
        inst: Inst,
        data: &InstData,
        template: &tgsi::Instruction,
        value_srcs: u8,
    ) {
        let name = template.opcode.name().to_ascii_lowercase();
        let nsrc = template.src.len();
        if nsrc < 8 && u32::from(value_srcs) >> nsrc != 0 {
            self.inst_issue(
                Some(b),
                inst,
                format!("value_srcs 0b{value_srcs:b} marks sources beyond the {nsrc} of {name}"),
            );
        }
        let addresses: usize =
            crate::function::opaque_address_operands(template, value_srcs).map(crate::function::indirect_parts).sum();
        let expected = 4 * value_srcs.count_ones() as usize + addresses;
        if data.args.len() != expected {
            self.inst_issue(
                Some(b),
                inst,
                format!(
                    "{name} has {} arguments; {} value source(s) and {addresses} indirect index(es) take {expected}",
                    data.args.len(),
                    value_srcs.count_ones()
                ),
            );
        }
        for i in 0..data.args.len() {
            self.arg_ty(b, inst, data, i, Ty::B32, &name);
        }
        let max_results = 4 * template.dst.len();
        if data.results.len() > max_results {
            self.inst_issue(
                Some(b),
                inst,
                format!(
                    "{name} has {} results; its {} destination(s) allow {max_results}",
                    data.results.len(),
                    template.dst.len()
                ),
            );
        }
        for i in 0..data.results.len() {
            self.result_ty(b, inst, data, i, Ty::B32, &name);
        }
    }
}

/// The width of ALU operand `i` of `opcode`, by the opcode table, except
/// for the shift count of 64-bit shifts, which is one 32-bit channel.
fn alu_src_ty(opcode: Opcode, i: usize) -> Ty {
    if matches!(opcode, Opcode::U64shl | Opcode::I64shr | Opcode::U64shr) && i == 1 {
        return Ty::B32;
    }
    if opcode.src_type(i).is_64bit() {
        Ty::B64
    } else {
        Ty::B32
    }
}

#[cfg(test)]
mod tests {
    use crate::cfg::build::*;
    use crate::function::*;
    use crate::verify::fixtures::*;
    use tgsi::Opcode;

    /// `TEX TEMP[0], TEMP[0], SAMP[0]`, its first source a value.
    fn tex_2d() -> tgsi::Instruction {
        let mut tex = tgsi::Instruction::new(Opcode::Tex);
        tex.dst.push(tgsi::DstOperand { reg: tgsi::Register::new(tgsi::File::Temporary, 0), write_mask: 0xf });
        for file in [tgsi::File::Temporary, tgsi::File::Sampler] {
            tex.src.push(tgsi::SrcOperand {
                reg: tgsi::Register::new(file, 0),
                swizzle: tgsi::IDENTITY_SWIZZLE,
                negate: false,
                absolute: false,
            });
        }
        tex
    }

    #[test]
    fn opaque_checks() {
        let mut t = Builder::default();
        let b0 = t.block();
        t.f.body = vec![blk(b0)];
        let x = t.konst(b0, 1);
        let tex = tex_2d();
        let op = Op::Opaque { inst: Box::new(tex), value_srcs: 0b01 };
        t.inst(b0, op.clone(), &[x, x, x, x], &[Ty::B32; 4]);
        assert_valid(&t.f);
        t.inst(b0, op, &[x, x], &[Ty::B32; 5]);
        assert_issue(&t.f, "tex has 2 arguments; 1 value source(s) and 0 indirect index(es) take 4");
        assert_issue(&t.f, "tex has 5 results; its 1 destination(s) allow 4");
    }

    /// An indirectly addressed sampler takes its index as one more argument.
    #[test]
    fn opaque_indirect_resource_takes_its_index() {
        let mut t = Builder::default();
        let b0 = t.block();
        t.f.body = vec![blk(b0)];
        let x = t.konst(b0, 1);
        let mut tex = tex_2d();
        tex.src[1].reg.indirect =
            Some(tgsi::Indirect { file: tgsi::File::Address, index: 0, component: 0, array_id: 0 });
        let op = Op::Opaque { inst: Box::new(tex), value_srcs: 0b01 };
        t.inst(b0, op.clone(), &[x, x, x, x, x], &[Ty::B32; 4]);
        assert_valid(&t.f);
        t.inst(b0, op, &[x, x, x, x], &[Ty::B32; 4]);
        assert_issue(&t.f, "tex has 4 arguments; 1 value source(s) and 1 indirect index(es) take 5");
    }
}
