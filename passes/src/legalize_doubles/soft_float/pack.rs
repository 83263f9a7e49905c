//! Doubles taken apart and put together: unpacking into sign, exponent
//! and significand, the special-value tests and results, normalizing
//! multi-word values, and rounding and packing to binary64 and binary32.

use crate::legalize_doubles::emit::Emit;
use crate::legalize_doubles::soft_int64::{addk, any, msb_words, opk, sel64, shl_words, shr_words, Pair};
use tgsi::Opcode::*;

/// The high word of the default NaN.
const DEFAULT_NAN_HI: u32 = 0xfff8_0000;
/// The exponent field of infinities and NaNs, in the high word.
const INF_HI: u32 = 0x7ff0_0000;
/// The unpacked exponent given to zeros: far enough below every other
/// operand's that aligning against it never keeps a bit of it, or shifts
/// the other operand.
const ZERO_EXP: i32 = -5000;

/// A double taken apart.
pub(super) struct Unpacked<V> {
    /// The sign bit, in place (0x80000000 or 0).
    pub(super) sbit: V,
    /// The value is `sig * 2^(exp - 1075)`.
    pub(super) exp: V,
    /// The significand, its leading bit at bit 52 (all zero for zeros).
    pub(super) sig: [V; 2],
    /// The low word of the operand.
    pub(super) lo: V,
    /// The high word without its sign.
    pub(super) abs_hi: V,
}

/// Unpacks a double, normalizing denormals with a leading-bit count.
pub(super) fn unpack<E: Emit>(e: &mut E, (lo, hi): Pair<E::V>) -> Unpacked<E::V> {
    let sbit = opk(e, And, hi, 0x8000_0000);
    let abs_hi = opk(e, And, hi, 0x7fff_ffff);
    let (c20, c11) = (e.k32(20), e.k32(11));
    let ef = e.alu(Ubfe, &[hi, c20, c11]);
    let fhi = opk(e, And, hi, 0x000f_ffff);
    let (implicit, zero) = (e.k32(0x0010_0000), e.k32(0));
    let implicit = e.select(ef, implicit, zero);
    let fhi = e.alu(Or, &[fhi, implicit]);
    let e1 = opk(e, Imax, ef, 1);
    // Shift the leading bit to 52: nothing for normals.
    let p = msb_words(e, &[lo, fhi]);
    let np = e.alu(Ineg, &[p]);
    let sh = addk(e, np, 52);
    let sig = shl_words(e, &[lo, fhi], sh);
    let nsh = e.alu(Ineg, &[sh]);
    let exp = e.alu(Uadd, &[e1, nsh]);
    let nz = e.alu(Or, &[lo, fhi]);
    let zexp = e.k32(ZERO_EXP as u32);
    let exp = e.select(nz, exp, zexp);
    Unpacked { sbit, exp, sig: [sig[0], sig[1]], lo, abs_hi }
}

/// NaN (of either kind), as a mask.
pub(super) fn is_nan<E: Emit>(e: &mut E, u: &Unpacked<E::V>) -> E::V {
    // A nonzero low word makes the high word compare one above.
    let l = opk(e, Umin, u.lo, 1);
    let h = e.alu(Or, &[u.abs_hi, l]);
    let inf = e.k32(INF_HI);
    e.alu(Uslt, &[inf, h])
}

/// Plus or minus infinity, as a mask.
pub(super) fn is_inf<E: Emit>(e: &mut E, u: &Unpacked<E::V>) -> E::V {
    let h = opk(e, Useq, u.abs_hi, INF_HI);
    let l = opk(e, Useq, u.lo, 0);
    e.alu(And, &[h, l])
}

/// Plus or minus zero, as a mask.
pub(super) fn is_zero<E: Emit>(e: &mut E, u: &Unpacked<E::V>) -> E::V {
    let o = e.alu(Or, &[u.abs_hi, u.lo]);
    opk(e, Useq, o, 0)
}

/// The operand with the quiet bit set.
pub(super) fn quiet<E: Emit>(e: &mut E, u: &Unpacked<E::V>) -> Pair<E::V> {
    let hi = e.alu(Or, &[u.abs_hi, u.sbit]);
    (u.lo, opk(e, Or, hi, 0x0008_0000))
}

/// The operand itself.
pub(super) fn original<E: Emit>(e: &mut E, u: &Unpacked<E::V>) -> Pair<E::V> {
    (u.lo, e.alu(Or, &[u.abs_hi, u.sbit]))
}

/// 0xfff8000000000000, what x86 gives for invalid operations.
pub(super) fn default_nan<E: Emit>(e: &mut E) -> Pair<E::V> {
    (e.k32(0), e.k32(DEFAULT_NAN_HI))
}

/// Infinity with sign bit `sbit`.
pub(super) fn inf<E: Emit>(e: &mut E, sbit: E::V) -> Pair<E::V> {
    (e.k32(0), opk(e, Or, sbit, INF_HI))
}

/// Zero with sign bit `sbit`.
pub(super) fn zero_signed<E: Emit>(e: &mut E, sbit: E::V) -> Pair<E::V> {
    (e.k32(0), sbit)
}

/// Rounds and packs (SoftFloat's `roundPackToF64`). `sig` has its leading
/// bit at 62 (or is zero) and its lowest bit sticky; the value is
/// `sig * 2^(exp - 1084)`, so `exp + 1` is the biased exponent when
/// rounding does not carry. Denormal results are shifted right first;
/// results too large round to infinity.
pub(super) fn round_pack<E: Emit>(e: &mut E, sbit: E::V, exp: E::V, sig: [E::V; 2]) -> Pair<E::V> {
    let nexp = e.alu(Ineg, &[exp]);
    let cnt = opk(e, Imax, nexp, 0);
    let cnt = opk(e, Umin, cnt, 63);
    let s = shr_words(e, &sig, cnt, true);
    let ex = opk(e, Imax, exp, 0);
    let rb = opk(e, And, s[0], 0x3ff);
    // Add half an ulp, drop the ten round bits, and on an exact tie clear
    // the last bit (to even).
    let l2 = addk(e, s[0], 0x200);
    let c = e.alu(Uslt, &[l2, s[0]]);
    let c = e.alu(Ineg, &[c]);
    let h2 = e.alu(Uadd, &[s[1], c]);
    let l3 = opk(e, Ushr, l2, 10);
    let up = opk(e, Shl, h2, 22);
    let l3 = e.alu(Or, &[l3, up]);
    let h3 = opk(e, Ushr, h2, 10);
    let tie = opk(e, Useq, rb, 0x200);
    let (even, all) = (e.k32(0xffff_fffe), e.k32(u32::MAX));
    let m = e.select(tie, even, all);
    let l3 = e.alu(And, &[l3, m]);
    let nz = e.alu(Or, &[l3, h3]);
    let zero = e.k32(0);
    let ex = e.select(nz, ex, zero);
    // The carry of a rounding into bit 53 adds one to the exponent.
    let eh = opk(e, Shl, ex, 20);
    let hi = e.alu(Uadd, &[eh, h3]);
    let hi = e.alu(Or, &[hi, sbit]);
    let big = e.k32(0x7fd);
    let ovf = e.alu(Islt, &[big, exp]);
    let ovf = e.select(nz, ovf, zero);
    let i = inf(e, sbit);
    sel64(e, ovf, i, (l3, hi))
}

/// Rounds and packs a single (`roundPackToF32`): `sig` has its leading
/// bit at 30, the value is `sig * 2^(exp - 156)`.
pub(super) fn round_pack32<E: Emit>(e: &mut E, sbit: E::V, exp: E::V, sig: E::V) -> E::V {
    let nexp = e.alu(Ineg, &[exp]);
    let cnt = opk(e, Imax, nexp, 0);
    let cnt = opk(e, Umin, cnt, 31);
    let one = e.k32(1);
    let m = e.alu(Shl, &[one, cnt]);
    let m = addk(e, m, u32::MAX);
    let lost = e.alu(And, &[sig, m]);
    let lost = opk(e, Umin, lost, 1);
    let s = e.alu(Ushr, &[sig, cnt]);
    let s = e.alu(Or, &[s, lost]);
    let ex = opk(e, Imax, exp, 0);
    let rb = opk(e, And, s, 0x7f);
    let s = addk(e, s, 0x40);
    let s = opk(e, Ushr, s, 7);
    let tie = opk(e, Useq, rb, 0x40);
    let (even, all) = (e.k32(0xffff_fffe), e.k32(u32::MAX));
    let m = e.select(tie, even, all);
    let s = e.alu(And, &[s, m]);
    let zero = e.k32(0);
    let ex = e.select(s, ex, zero);
    let eh = opk(e, Shl, ex, 23);
    let r = e.alu(Uadd, &[eh, s]);
    let r = e.alu(Or, &[r, sbit]);
    let big = e.k32(0xfd);
    let ovf = e.alu(Islt, &[big, exp]);
    let ovf = e.select(s, ovf, zero);
    let i = opk(e, Or, sbit, 0x7f80_0000);
    e.select(ovf, i, r)
}

/// Shifts a multi-word value so its leading bit is the second highest
/// bit, and returns the exponent for [`round_pack`] and the top 64 bits
/// with the rest folded into the sticky bit. The value is
/// `words * 2^scale`.
pub(super) fn normalize<E: Emit>(e: &mut E, words: &[E::V], scale: E::V) -> (E::V, [E::V; 2]) {
    let n = words.len();
    let p = msb_words(e, words);
    let np = e.alu(Ineg, &[p]);
    let sh = addk(e, np, 32 * n as u32 - 2);
    let w = shl_words(e, words, sh);
    let mut lo = w[n - 2];
    if n > 2 {
        let rest = any(e, &w[..n - 2]);
        let st = opk(e, Umin, rest, 1);
        lo = e.alu(Or, &[lo, st]);
    }
    let exp = e.alu(Uadd, &[scale, p]);
    let exp = addk(e, exp, 1022);
    (exp, [lo, w[n - 1]])
}

/// The sign and magnitude words of a double, without unpacking the
/// significand (for operations that only compare or move bits).
pub(super) fn unpack_fields<E: Emit>(e: &mut E, (lo, hi): Pair<E::V>) -> Unpacked<E::V> {
    let sbit = opk(e, And, hi, 0x8000_0000);
    let abs_hi = opk(e, And, hi, 0x7fff_ffff);
    let zero = e.k32(0);
    Unpacked { sbit, exp: zero, sig: [zero, zero], lo, abs_hi }
}
