//! The conversions between doubles and singles, 32-bit and 64-bit
//! integers, rounded and saturated as the backend converts.

use crate::legalize_doubles::emit::Emit;
use crate::legalize_doubles::soft_int64::{abs64, addk, neg64, opk, sel64, shr_words, Pair};
use tgsi::Opcode::{self, *};

use super::pack::{is_nan, normalize, round_pack, round_pack32, unpack, unpack_fields};

/// F2D: exact. Denormal singles are normalized; NaN keeps its payload,
/// quieted (as `cvtss2sd`).
fn from_f32<E: Emit>(e: &mut E, x: E::V) -> Pair<E::V> {
    let s = opk(e, And, x, 0x8000_0000);
    let (c23, c8) = (e.k32(23), e.k32(8));
    let ef = e.alu(Ubfe, &[x, c23, c8]);
    let f = opk(e, And, x, 0x007f_ffff);
    let p = e.alu(Umsb, &[f]);
    let np = e.alu(Ineg, &[p]);
    let sh = addk(e, np, 23);
    let fd = e.alu(Shl, &[f, sh]);
    let fd = opk(e, And, fd, 0x007f_ffff);
    let den = opk(e, Useq, ef, 0);
    let m = e.select(den, fd, f);
    let ed = addk(e, p, 874);
    let en = addk(e, ef, 896);
    let ex = e.select(den, ed, en);
    let special = opk(e, Useq, ef, 255);
    let top = e.k32(0x7ff);
    let ex = e.select(special, top, ex);
    let mag = opk(e, And, x, 0x7fff_ffff);
    let zero = e.k32(0);
    let ex = e.select(mag, ex, zero);
    let qb = e.k32(0x7f80_0000);
    let nan = e.alu(Uslt, &[qb, mag]);
    let qbit = opk(e, And, nan, 0x0040_0000);
    let m = e.alu(Or, &[m, qbit]);
    let eh = opk(e, Shl, ex, 20);
    let mh = opk(e, Ushr, m, 3);
    let hi = e.alu(Or, &[eh, mh]);
    let hi = e.alu(Or, &[hi, s]);
    (opk(e, Shl, m, 29), hi)
}

/// D2F: rounded to nearest even, denormal and infinite results included;
/// NaN keeps the top of its payload, quieted (as `cvtsd2ss`).
fn to_f32<E: Emit>(e: &mut E, a: Pair<E::V>) -> E::V {
    let u = unpack(e, a);
    // The significand with its leading bit at 30, the rest sticky.
    let hi = opk(e, Shl, u.sig[1], 10);
    let lo = opk(e, Ushr, u.sig[0], 22);
    let s = e.alu(Or, &[hi, lo]);
    let rest = opk(e, And, u.sig[0], 0x003f_ffff);
    let rest = opk(e, Umin, rest, 1);
    let s = e.alu(Or, &[s, rest]);
    let ex = addk(e, u.exp, (-897i32) as u32);
    let r = round_pack32(e, u.sbit, ex, s);
    let n = is_nan(e, &u);
    let ph = opk(e, And, u.abs_hi, 0x000f_ffff);
    let ph = opk(e, Shl, ph, 3);
    let pl = opk(e, Ushr, u.lo, 29);
    let p = e.alu(Or, &[ph, pl]);
    let p = e.alu(Or, &[p, u.sbit]);
    let p = opk(e, Or, p, 0x7fc0_0000);
    e.select(n, p, r)
}

/// U2D: exact. The value is shifted up to bit 31 and its leading bit
/// added into the exponent.
fn from_u32<E: Emit>(e: &mut E, x: E::V) -> Pair<E::V> {
    let p = e.alu(Umsb, &[x]);
    let np = e.alu(Not, &[p]);
    let y = e.alu(Shl, &[x, np]);
    let ex = addk(e, p, 1022);
    let eh = opk(e, Shl, ex, 20);
    let mh = opk(e, Ushr, y, 11);
    let hi = e.alu(Uadd, &[eh, mh]);
    let zero = e.k32(0);
    let hi = e.select(x, hi, zero);
    (opk(e, Shl, y, 21), hi)
}

/// I2D: exact.
fn from_i32<E: Emit>(e: &mut E, x: E::V) -> Pair<E::V> {
    let s = opk(e, And, x, 0x8000_0000);
    let m = e.alu(Iabs, &[x]);
    let (lo, hi) = from_u32(e, m);
    (lo, e.alu(Or, &[hi, s]))
}

/// The unsigned 64-bit magnitude and the sign of a signed or unsigned
/// 64-bit integer.
fn int64_parts<E: Emit>(e: &mut E, signed: bool, (lo, hi): Pair<E::V>) -> (E::V, Pair<E::V>) {
    if signed {
        let s = opk(e, And, hi, 0x8000_0000);
        (s, abs64(e, (lo, hi)))
    } else {
        (e.k32(0), (lo, hi))
    }
}

/// I642D and U642D: rounded to nearest even.
fn from_int64<E: Emit>(e: &mut E, signed: bool, x: Pair<E::V>) -> Pair<E::V> {
    let (s, (lo, hi)) = int64_parts(e, signed, x);
    let zero = e.k32(0);
    // A third word gives the leading bit (up to 63) room below bit 94.
    let (ex, sig) = normalize(e, &[lo, hi, zero], zero);
    round_pack(e, s, ex, sig)
}

/// I642F and U642F: rounded to nearest even, once.
fn int64_to_f32<E: Emit>(e: &mut E, signed: bool, x: Pair<E::V>) -> E::V {
    let (s, (lo, hi)) = int64_parts(e, signed, x);
    let zero = e.k32(0);
    let (ex, sig) = normalize(e, &[lo, hi, zero], zero);
    let st = opk(e, Umin, sig[0], 1);
    let s32 = e.alu(Or, &[sig[1], st]);
    let ex = addk(e, ex, (-896i32) as u32);
    round_pack32(e, s, ex, s32)
}

/// Truncation to a 32- or 64-bit integer as the backend converts (see
/// `semantics::convert`): in range, the truncated value (wrapping for
/// negative values converted to unsigned); from 2^(bits-1) on (signed) or
/// 2^bits on (unsigned), and NaN, the patterns x86 gives.
fn to_int<E: Emit>(e: &mut E, a: Pair<E::V>, bits: u32, signed: bool) -> Pair<E::V> {
    let (lo, hi) = a;
    let u = unpack_fields(e, a);
    let (c20, c11) = (e.k32(20), e.k32(11));
    let ef = e.alu(Ubfe, &[hi, c20, c11]);
    let fhi = opk(e, And, hi, 0x000f_ffff);
    let fhi = opk(e, Or, fhi, 0x0010_0000);
    // The significand with its leading bit at the top of 64 bits, shifted
    // down to its integer part: 1086 - e is 0..63 from 1 up to 2^64.
    let th = opk(e, Shl, fhi, 11);
    let tl = opk(e, Ushr, lo, 21);
    let th = e.alu(Or, &[th, tl]);
    let tl = opk(e, Shl, lo, 11);
    let nef = e.alu(Ineg, &[ef]);
    let cnt = addk(e, nef, 1086);
    let cnt = opk(e, Umin, cnt, 63);
    let m = shr_words(e, &[tl, th], cnt, false);
    let small = opk(e, Islt, ef, 1023);
    let zero = e.k32(0);
    let mag = sel64(e, small, (zero, zero), (m[0], m[1]));
    let (mag, min) = if bits == 32 {
        // 2^32 and above give a zero high word and 0x80000000 below.
        let mlo = mag.0;
        ((mlo, zero), (e.k32(0x8000_0000), zero))
    } else {
        (mag, (zero, e.k32(0x8000_0000)))
    };
    let neg = neg64(e, mag);
    let neg = if bits == 32 { (neg.0, zero) } else { neg };
    let lim_neg = e.k32(1023 + bits - 1);
    let over_neg = e.alu(Isge, &[ef, lim_neg]);
    let rn = sel64(e, over_neg, min, neg);
    let lim_pos = e.k32(if signed { 1023 + bits - 1 } else { 1023 + bits });
    let over_pos = e.alu(Isge, &[ef, lim_pos]);
    let big = if signed {
        min
    } else {
        let n = is_nan(e, &u);
        sel64(e, n, min, (zero, zero))
    };
    let rp = sel64(e, over_pos, big, mag);
    let s = opk(e, Ishr, u.sbit, 31);
    sel64(e, s, rn, rp)
}

/// The conversions; `None` for the others.
pub(super) fn lower<E: Emit>(e: &mut E, opcode: Opcode, args: &[E::V]) -> Option<E::V> {
    let wide = |e: &mut E, i: usize| e.split(args[i]);
    let out = |e: &mut E, (lo, hi): Pair<E::V>| Some(e.pack(lo, hi));
    match (opcode, args.len()) {
        (F2d, 1) => {
            let r = from_f32(e, args[0]);
            out(e, r)
        }
        (D2f, 1) => {
            let a = wide(e, 0);
            Some(to_f32(e, a))
        }
        (I2d, 1) => {
            let r = from_i32(e, args[0]);
            out(e, r)
        }
        (U2d, 1) => {
            let r = from_u32(e, args[0]);
            out(e, r)
        }
        (D2i | D2u, 1) => {
            let a = wide(e, 0);
            Some(to_int(e, a, 32, opcode == D2i).0)
        }
        (D2i64 | D2u64, 1) => {
            let a = wide(e, 0);
            let r = to_int(e, a, 64, opcode == D2i64);
            out(e, r)
        }
        (F2i64 | F2u64, 1) => {
            let d = from_f32(e, args[0]);
            let r = to_int(e, d, 64, opcode == F2i64);
            out(e, r)
        }
        (I642d | U642d, 1) => {
            let a = wide(e, 0);
            let r = from_int64(e, opcode == I642d, a);
            out(e, r)
        }
        (I642f | U642f, 1) => {
            let a = wide(e, 0);
            Some(int64_to_f32(e, opcode == I642f, a))
        }
        _ => None,
    }
}
