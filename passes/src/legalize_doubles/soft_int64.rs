//! 64-bit integer operations computed on 32-bit words, and the multi-word
//! helpers (add, shift, leading bit, product) the binary64 emulation
//! builds on.
//!
//! Multi-word values are slices of 32-bit words, least significant first.
//! Conditions are 32-bit masks (all ones or zero), as the comparisons give
//! them, so they feed UCMP, AND and XOR directly.

use super::emit::Emit;
use super::halves;
pub(super) use super::halves::opk;
use tgsi::Opcode::{self, *};

/// A 64-bit value as its (low, high) 32-bit words.
pub(super) type Pair<V> = (V, V);

/// `x + c` for a 32-bit constant `c`.
pub(super) fn addk<E: Emit>(e: &mut E, x: E::V, c: u32) -> E::V {
    let k = e.k32(c);
    e.alu(Uadd, &[x, k])
}

/// 0 or 1 from a mask: INEG of all ones is 1.
fn one_if<E: Emit>(e: &mut E, mask: E::V) -> E::V {
    e.alu(Ineg, &[mask])
}

/// `x + y (+ carry_in)` word by word; `carry_in` is a mask. The carry out
/// of the top word is dropped.
pub(super) fn add_words<E: Emit>(e: &mut E, x: &[E::V], y: &[E::V], carry_in: Option<E::V>) -> Vec<E::V> {
    let mut carry = carry_in;
    let mut out = Vec::with_capacity(x.len());
    for (i, (&a, &b)) in x.iter().zip(y).enumerate() {
        let last = i + 1 == x.len();
        let s = e.alu(Uadd, &[a, b]);
        let (s2, c2) = match carry {
            Some(c) => {
                let c1 = one_if(e, c);
                let s2 = e.alu(Uadd, &[s, c1]);
                (s2, if last { None } else { Some(e.alu(Uslt, &[s2, s])) })
            }
            None => (s, None),
        };
        if !last {
            let c1 = e.alu(Uslt, &[s, a]);
            carry = Some(match c2 {
                Some(c2) => e.alu(Or, &[c1, c2]),
                None => c1,
            });
        }
        out.push(s2);
    }
    out
}

/// `mask ? -w : w` on a multi-word value (complement, then add one).
pub(super) fn neg_words_if<E: Emit>(e: &mut E, w: &[E::V], mask: E::V) -> Vec<E::V> {
    let mut carry = one_if(e, mask);
    let mut out = Vec::with_capacity(w.len());
    for (i, &x) in w.iter().enumerate() {
        let f = e.alu(Xor, &[x, mask]);
        let s = e.alu(Uadd, &[f, carry]);
        if i + 1 < w.len() {
            // The carry continues only through words that wrapped to zero.
            let z = opk(e, Useq, s, 0);
            let z = one_if(e, z);
            carry = e.alu(And, &[carry, z]);
        }
        out.push(s);
    }
    out
}

/// Nonzero when any word is nonzero.
pub(super) fn any<E: Emit>(e: &mut E, w: &[E::V]) -> E::V {
    let mut acc = w[0];
    for &x in &w[1..] {
        acc = e.alu(Or, &[acc, x]);
    }
    acc
}

/// `w >> n` for `n` below 32 times the word count. With `jam`, the bits
/// shifted out are ORed into bit 0 (the sticky bit of rounding).
pub(super) fn shr_words<E: Emit>(e: &mut E, w: &[E::V], n: E::V, jam: bool) -> Vec<E::V> {
    let k = w.len();
    let zero = e.k32(0);
    let mut w = w.to_vec();
    let mut sticky = zero;
    // Whole words first, one stage per bit of n / 32.
    let mut s = 1;
    while s < k {
        let bit = opk(e, And, n, 32 * s as u32);
        if jam {
            let lost = any(e, &w[..s]);
            let lost = e.select(bit, lost, zero);
            sticky = e.alu(Or, &[sticky, lost]);
        }
        w = (0..k).map(|i| e.select(bit, w.get(i + s).copied().unwrap_or(zero), w[i])).collect();
        s *= 2;
    }
    // Then bits: the next word's low bits come in at the top, shifted by
    // 32 - n as (x << 1) << (31 - n) so that n = 0 brings in nothing.
    let not_n = e.alu(Not, &[n]);
    if jam {
        let one = e.k32(1);
        let m = e.alu(Shl, &[one, n]);
        let m = addk(e, m, u32::MAX);
        let lost = e.alu(And, &[w[0], m]);
        sticky = e.alu(Or, &[sticky, lost]);
    }
    let mut out = Vec::with_capacity(k);
    for i in 0..k {
        let lo = e.alu(Ushr, &[w[i], n]);
        out.push(if i + 1 < k {
            let up = opk(e, Shl, w[i + 1], 1);
            let up = e.alu(Shl, &[up, not_n]);
            e.alu(Or, &[lo, up])
        } else {
            lo
        });
    }
    if jam {
        let st = opk(e, Umin, sticky, 1);
        out[0] = e.alu(Or, &[out[0], st]);
    }
    out
}

/// `w << n` for `n` below 32 times the word count.
pub(super) fn shl_words<E: Emit>(e: &mut E, w: &[E::V], n: E::V) -> Vec<E::V> {
    let k = w.len();
    let zero = e.k32(0);
    let mut w = w.to_vec();
    let mut s = 1;
    while s < k {
        let bit = opk(e, And, n, 32 * s as u32);
        w = (0..k).map(|i| e.select(bit, if i >= s { w[i - s] } else { zero }, w[i])).collect();
        s *= 2;
    }
    let not_n = e.alu(Not, &[n]);
    let mut out = Vec::with_capacity(k);
    for i in 0..k {
        let hi = e.alu(Shl, &[w[i], n]);
        out.push(if i > 0 {
            let down = opk(e, Ushr, w[i - 1], 1);
            let down = e.alu(Ushr, &[down, not_n]);
            e.alu(Or, &[hi, down])
        } else {
            hi
        });
    }
    out
}

/// The index of the highest set bit of a multi-word value, -1 for zero.
pub(super) fn msb_words<E: Emit>(e: &mut E, w: &[E::V]) -> E::V {
    let mut r = e.alu(Umsb, &[w[0]]);
    for (i, &x) in w.iter().enumerate().skip(1) {
        let m = e.alu(Umsb, &[x]);
        let m = addk(e, m, 32 * i as u32);
        r = e.select(x, m, r);
    }
    r
}

/// The 128-bit product of two 64-bit values, as four words.
pub(super) fn mul_64x64<E: Emit>(e: &mut E, a: [E::V; 2], b: [E::V; 2]) -> Vec<E::V> {
    let mut part = |x: E::V, y: E::V| [e.alu(Umul, &[x, y]), e.alu(UmulHi, &[x, y])];
    let p00 = part(a[0], b[0]);
    let p01 = part(a[0], b[1]);
    let p10 = part(a[1], b[0]);
    let p11 = part(a[1], b[1]);
    // The outer products do not overlap; the cross products add in at word 1.
    let zero = e.k32(0);
    let mid = add_words(e, &[p00[1], p11[0], p11[1]], &[p01[0], p01[1], zero], None);
    let mid = add_words(e, &mid, &[p10[0], p10[1], zero], None);
    vec![p00[0], mid[0], mid[1], mid[2]]
}

/// `a < b` on unsigned 64-bit (lo, hi) pairs, as a mask.
pub(super) fn ult64<E: Emit>(e: &mut E, a: Pair<E::V>, b: Pair<E::V>) -> E::V {
    halves::ult(e, a.into(), b.into())
}

/// `a < b` on signed 64-bit (lo, hi) pairs, as a mask.
pub(super) fn slt64<E: Emit>(e: &mut E, a: Pair<E::V>, b: Pair<E::V>) -> E::V {
    let hlt = e.alu(Islt, &[a.1, b.1]);
    let heq = e.alu(Useq, &[a.1, b.1]);
    let llt = e.alu(Uslt, &[a.0, b.0]);
    let t = e.alu(And, &[heq, llt]);
    e.alu(Or, &[hlt, t])
}

/// `a == b` on 64-bit pairs, as a mask.
fn eq64<E: Emit>(e: &mut E, a: Pair<E::V>, b: Pair<E::V>) -> E::V {
    let x = e.alu(Xor, &[a.0, b.0]);
    let y = e.alu(Xor, &[a.1, b.1]);
    let z = e.alu(Or, &[x, y]);
    opk(e, Useq, z, 0)
}

/// `-a` on a 64-bit pair: the high half also takes the borrow of the low
/// one (USNE's all ones adds -1).
pub(super) fn neg64<E: Emit>(e: &mut E, a: Pair<E::V>) -> Pair<E::V> {
    let lo = e.alu(Ineg, &[a.0]);
    let hi = e.alu(Ineg, &[a.1]);
    let borrow = opk(e, Usne, a.0, 0);
    (lo, e.alu(Uadd, &[hi, borrow]))
}

/// `a + b` on 64-bit pairs.
pub(super) fn add64<E: Emit>(e: &mut E, a: Pair<E::V>, b: Pair<E::V>) -> Pair<E::V> {
    halves::add(e, a.into(), b.into()).into()
}

/// `cond ? a : b` on 64-bit pairs.
pub(super) fn sel64<E: Emit>(e: &mut E, cond: E::V, a: Pair<E::V>, b: Pair<E::V>) -> Pair<E::V> {
    halves::select(e, cond, a.into(), b.into()).into()
}

/// `|a|` of a signed 64-bit pair (INT64_MIN stays, read unsigned it is 2^63).
pub(super) fn abs64<E: Emit>(e: &mut E, a: Pair<E::V>) -> Pair<E::V> {
    let n = neg64(e, a);
    let neg = opk(e, Ishr, a.1, 31);
    sel64(e, neg, n, a)
}

/// A shift of a 64-bit pair by `n & 63`: left, logical right or
/// arithmetic right. Counts from 32 on move whole words.
pub(super) fn shift64<E: Emit>(e: &mut E, opcode: Opcode, a: Pair<E::V>, n: E::V) -> Pair<E::V> {
    let big = opk(e, And, n, 32);
    let not_n = e.alu(Not, &[n]);
    match opcode {
        U64shl => {
            let lo = e.alu(Shl, &[a.0, n]);
            let hi = e.alu(Shl, &[a.1, n]);
            let down = opk(e, Ushr, a.0, 1);
            let down = e.alu(Ushr, &[down, not_n]);
            let hi = e.alu(Or, &[hi, down]);
            let zero = e.k32(0);
            (e.select(big, zero, lo), e.select(big, lo, hi))
        }
        _ => {
            let arith = opcode == I64shr;
            let r = if arith { Ishr } else { Ushr };
            let hi = e.alu(r, &[a.1, n]);
            let lo = e.alu(Ushr, &[a.0, n]);
            let up = opk(e, Shl, a.1, 1);
            let up = e.alu(Shl, &[up, not_n]);
            let lo = e.alu(Or, &[lo, up]);
            let fill = if arith { opk(e, Ishr, a.1, 31) } else { e.k32(0) };
            (e.select(big, hi, lo), e.select(big, fill, hi))
        }
    }
}

/// The unsigned quotient and remainder, by restoring division: one
/// quotient bit per step, from the top (64 steps; nothing shorter is
/// exact without a correction loop). Dividing by zero gives a quotient of
/// all ones and a remainder of `a`.
pub(super) fn udivmod64<E: Emit>(e: &mut E, a: Pair<E::V>, b: Pair<E::V>) -> (Pair<E::V>, Pair<E::V>) {
    let zero = e.k32(0);
    let (one, two) = (e.k32(1), e.k32(2));
    let nbl = e.alu(Ineg, &[b.0]);
    // While the high bits of a come in, the remainder fits in 32 bits
    // (it is below 2^(64 - i) after taking bit i), so only a divisor
    // below 2^32 can go into it.
    let bh_zero = opk(e, Useq, b.1, 0);
    let mut rl = zero;
    let mut qh = zero;
    for pos in (0..32).rev() {
        let pk = e.k32(pos);
        let bit = e.alu(Ubfe, &[a.1, pk, one]);
        rl = e.alu(Umad, &[rl, two, bit]);
        let ge = e.alu(Usge, &[rl, b.0]);
        let ge = e.alu(And, &[ge, bh_zero]);
        let d = e.alu(Uadd, &[rl, nbl]);
        rl = e.select(ge, d, rl);
        let g = one_if(e, ge);
        qh = e.alu(Umad, &[qh, two, g]);
    }
    // Then the full 64-bit steps. -b is (-lo, !hi + 1 when lo is 0): that
    // +1 joins the low carry, so that b = 0 gives all ones as well.
    let nbh = e.alu(Not, &[b.1]);
    let b_lo_zero = opk(e, Useq, b.0, 0);
    let mut rh = zero;
    let mut ql = zero;
    for pos in (0..32).rev() {
        // rem = rem * 2 + the next bit of a; `top` is the bit shifted out.
        let top = opk(e, Ushr, rh, 31);
        let carry = opk(e, Ushr, rl, 31);
        rh = e.alu(Umad, &[rh, two, carry]);
        let pk = e.k32(pos);
        let bit = e.alu(Ubfe, &[a.0, pk, one]);
        rl = e.alu(Umad, &[rl, two, bit]);
        // rem - b, and whether rem (with its 65th bit) is at least b: the
        // carry out of rem + !b + 1.
        let dl = e.alu(Uadd, &[rl, nbl]);
        let c0 = e.alu(Uslt, &[dl, rl]);
        let c0 = e.alu(Or, &[c0, b_lo_zero]);
        let c0 = one_if(e, c0);
        let t = e.alu(Uadd, &[rh, nbh]);
        let c1 = e.alu(Uslt, &[t, rh]);
        let dh = e.alu(Uadd, &[t, c0]);
        let c2 = e.alu(Uslt, &[dh, t]);
        let ge = e.alu(Or, &[c1, c2]);
        let ge = e.alu(Or, &[ge, top]);
        rl = e.select(ge, dl, rl);
        rh = e.select(ge, dh, rh);
        let g = one_if(e, ge);
        ql = e.alu(Umad, &[ql, two, g]);
    }
    ((ql, qh), (rl, rh))
}

/// Whether a 64-bit pair is zero, as a mask.
fn is_zero64<E: Emit>(e: &mut E, a: Pair<E::V>) -> E::V {
    let o = e.alu(Or, &[a.0, a.1]);
    opk(e, Useq, o, 0)
}

/// `U64DIV`, `U64MOD`, `I64DIV` or `I64MOD` (`opcode`) of `x` and `y`,
/// packed. By zero, a remainder is all ones and a signed quotient zero
/// (an unsigned quotient is what `udivmod64` gives).
fn divide64<E: Emit>(e: &mut E, opcode: Opcode, x: Pair<E::V>, y: Pair<E::V>) -> E::V {
    match opcode {
        U64div | U64mod => {
            let (q, r) = udivmod64(e, x, y);
            if opcode == U64div {
                e.pack(q.0, q.1)
            } else {
                let z = is_zero64(e, y);
                let ones = e.k32(u32::MAX);
                let r = sel64(e, z, (ones, ones), r);
                e.pack(r.0, r.1)
            }
        }
        _ => {
            let (ax, ay) = (abs64(e, x), abs64(e, y));
            let (q, r) = udivmod64(e, ax, ay);
            let z = is_zero64(e, y);
            let sx = opk(e, Ishr, x.1, 31);
            if opcode == I64div {
                let sy = opk(e, Ishr, y.1, 31);
                let s = e.alu(Xor, &[sx, sy]);
                let n = neg64(e, q);
                let q = sel64(e, s, n, q);
                let zero = e.k32(0);
                let q = sel64(e, z, (zero, zero), q);
                e.pack(q.0, q.1)
            } else {
                // The remainder takes the dividend's sign.
                let n = neg64(e, r);
                let r = sel64(e, sx, n, r);
                let ones = e.k32(u32::MAX);
                let r = sel64(e, z, (ones, ones), r);
                e.pack(r.0, r.1)
            }
        }
    }
}

/// A 64-bit comparison (`opcode`) of `x` and `y`, as a mask.
fn compare64<E: Emit>(e: &mut E, opcode: Opcode, x: Pair<E::V>, y: Pair<E::V>) -> E::V {
    let m = match opcode {
        U64seq | U64sne => eq64(e, x, y),
        U64slt | U64sge => ult64(e, x, y),
        _ => slt64(e, x, y),
    };
    if matches!(opcode, U64sne | U64sge | I64sge) {
        e.alu(Not, &[m])
    } else {
        m
    }
}

/// The 64-bit integer opcodes; `None` for the others.
pub(super) fn lower<E: Emit>(e: &mut E, opcode: Opcode, args: &[E::V]) -> Option<E::V> {
    let wide = |e: &mut E, i: usize| args.get(i).map(|&v| e.split(v));
    let pack = |e: &mut E, (lo, hi): Pair<E::V>| e.pack(lo, hi);
    let a = || args.len();
    let r = match (opcode, a()) {
        (U64add, 2) => {
            let (x, y) = (wide(e, 0)?, wide(e, 1)?);
            let s = add64(e, x, y);
            pack(e, s)
        }
        (U64mul, 2) => {
            let (x, y) = (wide(e, 0)?, wide(e, 1)?);
            let lo = e.alu(Umul, &[x.0, y.0]);
            let hi = e.alu(UmulHi, &[x.0, y.0]);
            let c1 = e.alu(Umul, &[x.0, y.1]);
            let c2 = e.alu(Umul, &[x.1, y.0]);
            let hi = e.alu(Uadd, &[hi, c1]);
            let hi = e.alu(Uadd, &[hi, c2]);
            e.pack(lo, hi)
        }
        (U64shl | U64shr | I64shr, 2) => {
            let x = wide(e, 0)?;
            let r = shift64(e, opcode, x, args[1]);
            pack(e, r)
        }
        (U64div | U64mod | I64div | I64mod, 2) => {
            let (x, y) = (wide(e, 0)?, wide(e, 1)?);
            divide64(e, opcode, x, y)
        }
        (U64seq | U64sne | U64slt | U64sge | I64slt | I64sge, 2) => {
            let (x, y) = (wide(e, 0)?, wide(e, 1)?);
            compare64(e, opcode, x, y)
        }
        (U64min | U64max | I64min | I64max, 2) => {
            let (x, y) = (wide(e, 0)?, wide(e, 1)?);
            let lt = if matches!(opcode, U64min | U64max) { ult64(e, x, y) } else { slt64(e, x, y) };
            let r = if matches!(opcode, U64min | I64min) { sel64(e, lt, x, y) } else { sel64(e, lt, y, x) };
            pack(e, r)
        }
        (I64abs, 1) => {
            let x = wide(e, 0)?;
            let r = abs64(e, x);
            pack(e, r)
        }
        (I64neg, 1) => {
            let x = wide(e, 0)?;
            let r = neg64(e, x);
            pack(e, r)
        }
        (I64ssg, 1) => {
            // -1 for negative, else 1 for nonzero, else 0.
            let x = wide(e, 0)?;
            let s = opk(e, Ishr, x.1, 31);
            let o = e.alu(Or, &[x.0, x.1]);
            let nz = opk(e, Umin, o, 1);
            let lo = e.alu(Or, &[s, nz]);
            e.pack(lo, s)
        }
        (I2i64, 1) => {
            let hi = opk(e, Ishr, args[0], 31);
            e.pack(args[0], hi)
        }
        (U2i64, 1) => {
            let zero = e.k32(0);
            e.pack(args[0], zero)
        }
        _ => return None,
    };
    Some(r)
}
