//! The opcodes of the 2010 reference that today's TGSI no longer has,
//! rewritten into today's opcodes as the IR is built.

use super::{BuildError, Builder};
use crate::function::*;
use smallvec::SmallVec;
use tgsi::Opcode;

/// The channels a legacy opcode computes, with the value of each.
type Lowered = SmallVec<[(u8, Value); 4]>;

/// The channels of a write mask, in order.
fn channels(mask: u8) -> impl Iterator<Item = u8> {
    (0..4u8).filter(move |c| mask & (1 << c) != 0)
}

impl Builder<'_> {
    /// Opcodes of the 2010 reference, rewritten into today's.
    pub(super) fn lower_legacy(&mut self, inst: &tgsi::Instruction) -> Result<(), BuildError> {
        use Opcode::*;
        let op = inst.opcode;
        let lower: fn(&mut Self, &tgsi::Instruction, &tgsi::DstOperand) -> Result<Lowered, BuildError> = match op {
            Kil | Kilp => {
                let mut modern = inst.clone();
                modern.opcode = if op == Kil { KillIf } else { Kill };
                return self.lower_opaque(&modern, modern.opcode);
            }
            // Two destinations (significand, exponent): kept whole for
            // `legalize-doubles` to lower.
            Dfracexp => return self.lower_opaque(inst, op),
            Sub | Abs | Shr => Self::legacy_componentwise,
            Clamp | Cnd => Self::legacy_two_steps,
            Xpd => Self::legacy_cross,
            Scs => Self::legacy_sin_cos,
            Dph | Dp2a | Sfl | Str => Self::legacy_dot_and_constant,
            Nrm | Nrm4 | Rfl => Self::legacy_normalize_reflect,
            X2d => Self::legacy_x2d,
            Rcc => Self::legacy_rcc,
            Sad => Self::legacy_sad,
            _ => {
                return Err(self.error(format!(
                    "the removed opcode {} is not supported: the 2010 reference leaves it unspecified or it needs \
                     unstructured control flow or an address stack",
                    op.name()
                )))
            }
        };
        let Some(dst) = inst.dst.first().copied() else { return Err(self.error("missing destination")) };
        let results = lower(self, inst, &dst)?;
        self.write_all(&dst, &results)
    }

    /// SUB, ABS and SHR: one of today's opcodes per channel, with a modifier.
    fn legacy_componentwise(
        &mut self,
        inst: &tgsi::Instruction,
        dst: &tgsi::DstOperand,
    ) -> Result<Lowered, BuildError> {
        use Opcode::*;
        let op = inst.opcode;
        let (sat, precise) = (inst.saturate, inst.precise);
        let mut results = SmallVec::<[(u8, Value); 4]>::new();
        for c in channels(dst.write_mask) {
            let a = self.channel_srcs(inst, c)?;
            let v = match op {
                Sub => {
                    let b = Operand { neg: !a[1].neg, ..a[1] };
                    self.alu(Add, c, &[a[0], b], Ty::B32, sat, precise)
                }
                Abs => self.alu(Mov, c, &[Operand { neg: false, abs: true, ..a[0] }], Ty::B32, sat, precise),
                _ => self.alu(Ishr, c, &a, Ty::B32, sat, precise),
            };
            results.push((c, v));
        }
        Ok(results)
    }

    /// CLAMP (MAX then MIN) and CND (as CMP on `0.5 - src2`).
    fn legacy_two_steps(&mut self, inst: &tgsi::Instruction, dst: &tgsi::DstOperand) -> Result<Lowered, BuildError> {
        use Opcode::*;
        let op = inst.opcode;
        let (sat, precise) = (inst.saturate, inst.precise);
        // Two steps, each over every channel, so emission writes each
        // step as one vector instruction.
        let mut args = Vec::new();
        for c in channels(dst.write_mask) {
            args.push((c, self.channel_srcs(inst, c)?));
        }
        let half = self.constant(0.5f32.to_bits() as u64, Ty::B32);
        let mut firsts = Vec::new();
        for (c, a) in &args {
            let t = if op == Clamp {
                self.alu(Max, *c, &[a[0], a[1]], Ty::B32, false, precise)
            } else {
                // CND: src2 > 0.5 ? src0 : src1, as CMP(0.5 - src2, src0, src1).
                let c2 = Operand { neg: !a[2].neg, ..a[2] };
                self.alu(Add, *c, &[Operand::new(half), c2], Ty::B32, false, precise)
            };
            firsts.push(t);
        }
        let mut results = SmallVec::<[(u8, Value); 4]>::new();
        for ((c, a), t) in args.iter().zip(firsts) {
            let v = if op == Clamp {
                self.alu(Min, *c, &[Operand::new(t), a[2]], Ty::B32, sat, precise)
            } else {
                self.alu(Cmp, *c, &[Operand::new(t), a[0], a[1]], Ty::B32, sat, precise)
            };
            results.push((*c, v));
        }
        Ok(results)
    }

    /// XPD: the cross product.
    fn legacy_cross(&mut self, inst: &tgsi::Instruction, dst: &tgsi::DstOperand) -> Result<Lowered, BuildError> {
        use Opcode::*;
        let (sat, precise) = (inst.saturate, inst.precise);
        // dst.x = src0.y * src1.z - src1.y * src0.z, ...: a MUL over
        // the channels, then a MAD (an unfused multiply and add, so
        // exactly the difference of the two rounded products).
        let mut muls = Vec::new();
        for c in channels(dst.write_mask).filter(|&c| c < 3) {
            let (c1, c2) = [(1, 2), (2, 0), (0, 1)][c as usize];
            let a1 = self.src_scalar(&inst.src[0], c1, false)?;
            let b2 = self.src_scalar(&inst.src[1], c2, false)?;
            muls.push((c, c1, c2, self.alu(Mul, c, &[a1, b2], Ty::B32, false, precise)));
        }
        let mut results = SmallVec::<[(u8, Value); 4]>::new();
        for (c, c1, c2, m) in muls {
            let b1 = self.src_scalar(&inst.src[1], c1, false)?;
            let a2 = self.src_scalar(&inst.src[0], c2, false)?;
            let nb1 = Operand { neg: !b1.neg, ..b1 };
            results.push((c, self.alu(Mad, c, &[nb1, a2, Operand::new(m)], Ty::B32, sat, precise)));
        }
        if dst.write_mask & 8 != 0 {
            results.push((3, self.constant(1.0f32.to_bits() as u64, Ty::B32)));
        }
        Ok(results)
    }

    /// SCS: (cos x, sin x, 0, 1).
    fn legacy_sin_cos(&mut self, inst: &tgsi::Instruction, dst: &tgsi::DstOperand) -> Result<Lowered, BuildError> {
        use Opcode::*;
        let (sat, precise) = (inst.saturate, inst.precise);
        let mut results = SmallVec::<[(u8, Value); 4]>::new();
        for c in channels(dst.write_mask) {
            let v = match c {
                3 => self.constant(1.0f32.to_bits() as u64, Ty::B32),
                2 => self.zero(),
                _ => {
                    let x = self.src_scalar(&inst.src[0], 0, false)?;
                    self.alu(if c == 0 { Cos } else { Sin }, 0, &[x], Ty::B32, sat, precise)
                }
            };
            results.push((c, v));
        }
        Ok(results)
    }

    /// DPH and DP2A (a dot product plus a term), SFL (0) and STR (1): one value for every channel.
    fn legacy_dot_and_constant(
        &mut self,
        inst: &tgsi::Instruction,
        dst: &tgsi::DstOperand,
    ) -> Result<Lowered, BuildError> {
        use Opcode::*;
        let op = inst.opcode;
        let (sat, precise) = (inst.saturate, inst.precise);
        let v = match op {
            Sfl => self.zero(),
            Str => self.constant(1.0f32.to_bits() as u64, Ty::B32),
            _ => {
                let (dp, n, extra) = if op == Dph { (Dp3, 3, (1, 3)) } else { (Dp2, 2, (2, 0)) };
                let mut args = SmallVec::<[Operand; 8]>::new();
                for s in 0..2 {
                    for c in 0..n {
                        args.push(self.src_scalar(&inst.src[s], c, false)?);
                    }
                }
                let d = self.alu(dp, 0, &args, Ty::B32, false, precise);
                let e = self.src_scalar(&inst.src[extra.0], extra.1, false)?;
                self.alu(Add, 0, &[Operand::new(d), e], Ty::B32, sat, precise)
            }
        };
        let results: SmallVec<[(u8, Value); 4]> = channels(dst.write_mask).map(|c| (c, v)).collect();
        Ok(results)
    }

    /// NRM, NRM4 (normalize) and RFL (reflect).
    fn legacy_normalize_reflect(
        &mut self,
        inst: &tgsi::Instruction,
        dst: &tgsi::DstOperand,
    ) -> Result<Lowered, BuildError> {
        use Opcode::*;
        let op = inst.opcode;
        let (sat, precise) = (inst.saturate, inst.precise);
        // NRM, NRM4: the vector times the reciprocal square root of
        // its squared length; RFL: 2 * (a.b) / (a.a) * a - b.
        let n = if op == Nrm4 { 4 } else { 3 };
        let s = |p: &mut Self, i: usize, c: u8| p.src_scalar(&inst.src[i], c, false);
        let dp = if n == 4 { Dp4 } else { Dp3 };
        let mut aa = SmallVec::<[Operand; 8]>::new();
        for _ in 0..2 {
            for c in 0..n {
                aa.push(s(self, 0, c)?);
            }
        }
        let len2 = self.alu(dp, 0, &aa, Ty::B32, false, precise);
        let scale = if op == Rfl {
            let mut ab = SmallVec::<[Operand; 8]>::new();
            for i in 0..2 {
                for c in 0..3 {
                    ab.push(s(self, i, c)?);
                }
            }
            let dot = self.alu(Dp3, 0, &ab, Ty::B32, false, precise);
            let two = self.constant(2.0f32.to_bits() as u64, Ty::B32);
            let twice = self.alu(Mul, 0, &[Operand::new(two), Operand::new(dot)], Ty::B32, false, precise);
            self.alu(Div, 0, &[Operand::new(twice), Operand::new(len2)], Ty::B32, false, precise)
        } else {
            self.alu(Rsq, 0, &[Operand::new(len2)], Ty::B32, false, precise)
        };
        let mut results = SmallVec::<[(u8, Value); 4]>::new();
        for c in channels(dst.write_mask) {
            let v = if c as usize >= n as usize {
                self.constant(1.0f32.to_bits() as u64, Ty::B32)
            } else if op == Rfl {
                let a = s(self, 0, c)?;
                let bneg = s(self, 1, c)?;
                let bneg = Operand { neg: !bneg.neg, ..bneg };
                self.alu(Mad, c, &[Operand::new(scale), a, bneg], Ty::B32, sat, precise)
            } else {
                let a = s(self, 0, c)?;
                self.alu(Mul, c, &[a, Operand::new(scale)], Ty::B32, sat, precise)
            };
            results.push((c, v));
        }
        Ok(results)
    }

    /// X2D: a 2-D transform.
    fn legacy_x2d(&mut self, inst: &tgsi::Instruction, dst: &tgsi::DstOperand) -> Result<Lowered, BuildError> {
        use Opcode::*;
        let (sat, precise) = (inst.saturate, inst.precise);
        // x, z: src0.x + src1.x * src2.x + src1.y * src2.y;
        // y, w: src0.y + src1.x * src2.z + src1.y * src2.w.
        let mut results = SmallVec::<[(u8, Value); 4]>::new();
        for c in channels(dst.write_mask) {
            let (base, k) = if c % 2 == 0 { (0, 0) } else { (1, 2) };
            let s0 = self.src_scalar(&inst.src[0], base, false)?;
            let s1x = self.src_scalar(&inst.src[1], 0, false)?;
            let s1y = self.src_scalar(&inst.src[1], 1, false)?;
            let s2a = self.src_scalar(&inst.src[2], k, false)?;
            let s2b = self.src_scalar(&inst.src[2], k + 1, false)?;
            let t = self.alu(Mad, c, &[s1x, s2a, s0], Ty::B32, false, precise);
            results.push((c, self.alu(Mad, c, &[s1y, s2b, Operand::new(t)], Ty::B32, sat, precise)));
        }
        Ok(results)
    }

    /// RCC: the reciprocal with its magnitude clamped.
    fn legacy_rcc(&mut self, inst: &tgsi::Instruction, dst: &tgsi::DstOperand) -> Result<Lowered, BuildError> {
        use Opcode::*;
        let (sat, precise) = (inst.saturate, inst.precise);
        // 1 / x with its magnitude clamped to [5.42101e-20, 1.884467e+19].
        let x = self.src_scalar(&inst.src[0], 0, false)?;
        let r = Operand::new(self.alu(Rcp, 0, &[x], Ty::B32, false, precise));
        let lo = Operand::new(self.constant(5.42101e-20f32.to_bits() as u64, Ty::B32));
        let hi = Operand::new(self.constant(1.884467e19f32.to_bits() as u64, Ty::B32));
        let neg = |o: Operand| Operand { neg: true, ..o };
        let p1 = Operand::new(self.alu(Max, 0, &[r, lo], Ty::B32, false, precise));
        let pos = Operand::new(self.alu(Min, 0, &[p1, hi], Ty::B32, false, precise));
        let n1 = Operand::new(self.alu(Min, 0, &[r, neg(lo)], Ty::B32, false, precise));
        let negv = Operand::new(self.alu(Max, 0, &[n1, neg(hi)], Ty::B32, false, precise));
        // (1/x) > 0 ? pos : neg, as CMP(-(1/x), pos, neg).
        let v = self.alu(Cmp, 0, &[neg(r), pos, negv], Ty::B32, sat, precise);
        let results: SmallVec<[(u8, Value); 4]> = channels(dst.write_mask).map(|c| (c, v)).collect();
        Ok(results)
    }

    /// SAD: the sum of absolute differences.
    fn legacy_sad(&mut self, inst: &tgsi::Instruction, dst: &tgsi::DstOperand) -> Result<Lowered, BuildError> {
        use Opcode::*;
        let (sat, precise) = (inst.saturate, inst.precise);
        // |src0 - src1| + src2 on integers.
        let mut results = SmallVec::<[(u8, Value); 4]>::new();
        for c in channels(dst.write_mask) {
            let a = self.src_scalar(&inst.src[0], c, false)?;
            let b = self.src_scalar(&inst.src[1], c, false)?;
            let cc = self.src_scalar(&inst.src[2], c, false)?;
            let d = self.alu(Uadd, c, &[a, Operand { neg: !b.neg, ..b }], Ty::B32, false, precise);
            let ad = self.alu(Iabs, c, &[Operand::new(d)], Ty::B32, false, precise);
            results.push((c, self.alu(Uadd, c, &[Operand::new(ad), cc], Ty::B32, sat, precise)));
        }
        Ok(results)
    }
}
