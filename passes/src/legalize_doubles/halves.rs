//! 64-bit bit patterns as (low, high) 32-bit halves, and the integer
//! operations on them the lowerings share. Everything here emits only
//! 32-bit integer operations, which every target has.
//!
//! Conditions are 32-bit masks: all ones for true, zero for false (what
//! the TGSI comparisons produce and [`Emit::select`] reads).

use super::emit::Emit;
use tgsi::Opcode::{self, *};

/// A 64-bit value as its halves.
#[derive(Clone, Copy, Debug)]
pub struct Halves<V> {
    /// Bits 0..32.
    pub lo: V,
    /// Bits 32..64.
    pub hi: V,
}

impl<V> From<(V, V)> for Halves<V> {
    fn from((lo, hi): (V, V)) -> Self {
        Halves { lo, hi }
    }
}

impl<V> From<Halves<V>> for (V, V) {
    fn from(h: Halves<V>) -> Self {
        (h.lo, h.hi)
    }
}

/// The sign bit of a double's high half.
pub const SIGN: u32 = 0x8000_0000;

/// Splits `v`.
pub fn halves<E: Emit>(e: &mut E, v: E::V) -> Halves<E::V> {
    let (lo, hi) = e.split(v);
    Halves { lo, hi }
}

/// Packs `h`.
pub fn join<E: Emit>(e: &mut E, h: Halves<E::V>) -> E::V {
    e.pack(h.lo, h.hi)
}

/// A 32-bit binary operation with a constant right operand.
pub fn opk<E: Emit>(e: &mut E, op: Opcode, a: E::V, k: u32) -> E::V {
    let k = e.k32(k);
    e.alu(op, &[a, k])
}

/// A 32-bit binary operation.
pub fn op2<E: Emit>(e: &mut E, op: Opcode, a: E::V, b: E::V) -> E::V {
    e.alu(op, &[a, b])
}

/// `a && b` on masks.
pub fn and<E: Emit>(e: &mut E, a: E::V, b: E::V) -> E::V {
    e.alu(And, &[a, b])
}

/// `a || b` on masks.
pub fn or<E: Emit>(e: &mut E, a: E::V, b: E::V) -> E::V {
    e.alu(Or, &[a, b])
}

/// `!a` on masks.
pub fn not<E: Emit>(e: &mut E, a: E::V) -> E::V {
    e.alu(Not, &[a])
}

/// A 64-bit constant as halves.
pub fn konst<E: Emit>(e: &mut E, bits: u64) -> Halves<E::V> {
    Halves { lo: e.k32(bits as u32), hi: e.k32((bits >> 32) as u32) }
}

/// `c ? a : b` on halves.
pub fn select<E: Emit>(e: &mut E, c: E::V, a: Halves<E::V>, b: Halves<E::V>) -> Halves<E::V> {
    Halves { lo: e.select(c, a.lo, b.lo), hi: e.select(c, a.hi, b.hi) }
}

/// Bitwise `a op b` half by half.
pub fn bitwise<E: Emit>(e: &mut E, op: Opcode, a: Halves<E::V>, b: Halves<E::V>) -> Halves<E::V> {
    Halves { lo: e.alu(op, &[a.lo, b.lo]), hi: e.alu(op, &[a.hi, b.hi]) }
}

/// `a & !b` half by half.
pub fn and_not<E: Emit>(e: &mut E, a: Halves<E::V>, b: Halves<E::V>) -> Halves<E::V> {
    let nb = Halves { lo: not(e, b.lo), hi: not(e, b.hi) };
    bitwise(e, And, a, nb)
}

/// Whether `a != 0`.
pub fn nonzero<E: Emit>(e: &mut E, a: Halves<E::V>) -> E::V {
    let any = e.alu(Or, &[a.lo, a.hi]);
    opk(e, Usne, any, 0)
}

/// `a + b` modulo 2^64: the low halves' carry goes into the high half.
pub fn add<E: Emit>(e: &mut E, a: Halves<E::V>, b: Halves<E::V>) -> Halves<E::V> {
    let lo = e.alu(Uadd, &[a.lo, b.lo]);
    // The sum wrapped exactly when it is below an addend; INEG turns that
    // mask into 1.
    let carry = e.alu(Uslt, &[lo, a.lo]);
    let hi = e.alu(Uadd, &[a.hi, b.hi]);
    let carry = e.alu(Ineg, &[carry]);
    let hi = e.alu(Uadd, &[hi, carry]);
    Halves { lo, hi }
}

/// `a < b` as unsigned 64-bit integers.
pub fn ult<E: Emit>(e: &mut E, a: Halves<E::V>, b: Halves<E::V>) -> E::V {
    let hi_lt = e.alu(Uslt, &[a.hi, b.hi]);
    let hi_eq = e.alu(Useq, &[a.hi, b.hi]);
    let lo_lt = e.alu(Uslt, &[a.lo, b.lo]);
    let low = and(e, hi_eq, lo_lt);
    or(e, hi_lt, low)
}

/// The mask of the low `k` bits, for `k` in 0..=63.
pub fn low_mask<E: Emit>(e: &mut E, k: E::V) -> Halves<E::V> {
    let one = e.k32(1);
    let ones = e.k32(u32::MAX);
    let zero = e.k32(0);
    let big = opk(e, Usge, k, 32);
    // k < 32: (1 << k) - 1 in the low half.
    let p = e.alu(Shl, &[one, k]);
    let small_lo = opk(e, Uadd, p, u32::MAX);
    // k >= 32: all of the low half and (1 << (k - 32)) - 1 of the high
    // half (shift counts are taken modulo 32).
    let big_hi = small_lo;
    let lo = e.select(big, ones, small_lo);
    let hi = e.select(big, big_hi, zero);
    Halves { lo, hi }
}

/// The single bit `k`, for `k` in 0..=63.
pub fn bit<E: Emit>(e: &mut E, k: E::V) -> Halves<E::V> {
    let one = e.k32(1);
    let zero = e.k32(0);
    let big = opk(e, Usge, k, 32);
    let p = e.alu(Shl, &[one, k]);
    Halves { lo: e.select(big, zero, p), hi: e.select(big, p, zero) }
}

/// `a << k` for `k` in 0..=63.
pub fn shl<E: Emit>(e: &mut E, a: Halves<E::V>, k: E::V) -> Halves<E::V> {
    let zero = e.k32(0);
    let big = opk(e, Usge, k, 32);
    // k < 32: the high half takes the low half's top k bits; shifting by
    // 1 and then by 31 - k gives 0 for k = 0 without a 32-bit shift.
    let hi_part = e.alu(Shl, &[a.hi, k]);
    let lo1 = opk(e, Ushr, a.lo, 1);
    let rk = opk(e, Xor, k, 31); // 31 - k for k in 0..32
    let carried = e.alu(Ushr, &[lo1, rk]);
    let small_hi = e.alu(Or, &[hi_part, carried]);
    let lo_shifted = e.alu(Shl, &[a.lo, k]);
    Halves { lo: e.select(big, zero, lo_shifted), hi: e.select(big, lo_shifted, small_hi) }
}

/// `a >> k` (logical) for `k` in 0..=63.
pub fn shr<E: Emit>(e: &mut E, a: Halves<E::V>, k: E::V) -> Halves<E::V> {
    let zero = e.k32(0);
    let big = opk(e, Usge, k, 32);
    let lo_part = e.alu(Ushr, &[a.lo, k]);
    let hi1 = opk(e, Shl, a.hi, 1);
    let rk = opk(e, Xor, k, 31);
    let carried = e.alu(Shl, &[hi1, rk]);
    let small_lo = e.alu(Or, &[lo_part, carried]);
    let hi_shifted = e.alu(Ushr, &[a.hi, k]);
    Halves { lo: e.select(big, hi_shifted, small_lo), hi: e.select(big, zero, hi_shifted) }
}

/// The biased exponent field (0..=2047) of a double's high half.
pub fn exponent<E: Emit>(e: &mut E, hi: E::V) -> E::V {
    let s = opk(e, Ushr, hi, 20);
    opk(e, And, s, 0x7ff)
}

/// Facts about a double every lowering needs: whether it is a NaN, an
/// infinity, a zero, and its sign.
pub struct Class<V> {
    /// All ones for a NaN.
    pub nan: V,
    /// All ones for ±infinity.
    pub inf: V,
    /// All ones for ±0.
    pub zero: V,
    /// All ones when the sign bit is set.
    pub neg: V,
    /// The high half without its sign bit.
    pub abs_hi: V,
}

/// Classifies the double `x`.
pub fn classify<E: Emit>(e: &mut E, x: Halves<E::V>) -> Class<E::V> {
    let abs_hi = opk(e, And, x.hi, !SIGN);
    let lo_nz = opk(e, Usne, x.lo, 0);
    let top = opk(e, Useq, abs_hi, 0x7ff0_0000);
    let k = e.k32(0x7ff0_0000);
    let above = e.alu(Uslt, &[k, abs_hi]);
    let top_nan = and(e, top, lo_nz);
    let nan = or(e, above, top_nan);
    let lo_z = not(e, lo_nz);
    let inf = and(e, top, lo_z);
    let hi_z = opk(e, Useq, abs_hi, 0);
    let zero = and(e, hi_z, lo_z);
    let neg = opk(e, Ishr, x.hi, 31);
    Class { nan, inf, zero, neg, abs_hi }
}

/// `x` with its sign bit flipped where `flip` is all ones.
pub fn flip_sign<E: Emit>(e: &mut E, x: Halves<E::V>, flip: E::V) -> Halves<E::V> {
    let bit = opk(e, And, flip, SIGN);
    let hi = e.alu(Xor, &[x.hi, bit]);
    Halves { lo: x.lo, hi }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::legalize_doubles::emit::Evaluate;

    fn h(v: u64) -> Halves<u64> {
        Halves { lo: v & 0xffff_ffff, hi: v >> 32 }
    }
    fn v(h: Halves<u64>) -> u64 {
        h.lo | (h.hi << 32)
    }

    #[test]
    fn shifts_masks_and_adds_match_u64() {
        let e = &mut Evaluate;
        let samples =
            [0u64, 1, 0x8000_0000, 0xffff_ffff, 0x1_0000_0000, 0x8000_0000_0000_0001, u64::MAX, 0x1234_5678_9abc_def0];
        for &a in &samples {
            for k in 0..64u64 {
                assert_eq!(v(shl(e, h(a), k)), a << k, "{a:#x} << {k}");
                assert_eq!(v(shr(e, h(a), k)), a >> k, "{a:#x} >> {k}");
                assert_eq!(v(low_mask(e, k)), (1u64 << k) - 1, "mask {k}");
                assert_eq!(v(bit(e, k)), 1u64 << k, "bit {k}");
            }
            for &b in &samples {
                assert_eq!(v(add(e, h(a), h(b))), a.wrapping_add(b));
                assert_eq!(ult(e, h(a), h(b)) != 0, a < b);
            }
        }
    }

    #[test]
    fn classify_agrees_with_f64() {
        let e = &mut Evaluate;
        for x in [0.0, -0.0, 1.0, -2.5, f64::INFINITY, f64::NEG_INFINITY, f64::NAN, -f64::NAN, 5e-324, f64::MAX] {
            let c = classify(e, h(x.to_bits()));
            assert_eq!(c.nan != 0, x.is_nan(), "{x}");
            assert_eq!(c.inf != 0, x.is_infinite(), "{x}");
            assert_eq!(c.zero != 0, x == 0.0, "{x}");
            assert_eq!(c.neg != 0, x.is_sign_negative(), "{x}");
        }
        let c = classify(e, h(0x7ff0_0000_0000_0001));
        assert!(c.nan != 0 && c.inf == 0);
    }
}
