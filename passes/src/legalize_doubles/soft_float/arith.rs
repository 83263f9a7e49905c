//! The arithmetic: DADD, DMUL, DMAD, DFMA (one exact add/subtract core
//! over multi-word terms), DDIV and DSQRT (restoring digit recurrences),
//! DRCP and DRSQ.

use crate::legalize_doubles::emit::Emit;
use crate::legalize_doubles::soft_int64::{
    add_words, addk, mul_64x64, neg_words_if, opk, sel64, shl_words, shr_words, Pair,
};
use tgsi::Opcode::{self, *};

use super::pack::{
    default_nan, inf, is_inf, is_nan, is_zero, normalize, original, quiet, round_pack, unpack, zero_signed, Unpacked,
};

/// A signed multi-word magnitude: the value is `words * 2^scale`, with
/// the top two bits of `words` clear (room for a carry and a sign).
struct Term<V> {
    sbit: V,
    scale: V,
    words: Vec<V>,
}

/// The exact sum of two terms (the smaller shifted right with a sticky
/// bit), ready for [`round_pack`]: sign bit, exponent, significand. An
/// exact zero is +0 unless both terms are negative.
fn add_terms<E: Emit>(e: &mut E, x: &Term<E::V>, y: &Term<E::V>) -> (E::V, E::V, [E::V; 2]) {
    let n = x.words.len();
    let ny = e.alu(Ineg, &[y.scale]);
    let d = e.alu(Uadd, &[x.scale, ny]);
    let swap = opk(e, Islt, d, 0);
    let mut big = Vec::with_capacity(n);
    let mut small = Vec::with_capacity(n);
    for i in 0..n {
        big.push(e.select(swap, y.words[i], x.words[i]));
        small.push(e.select(swap, x.words[i], y.words[i]));
    }
    let bsign = e.select(swap, y.sbit, x.sbit);
    let bscale = e.select(swap, y.scale, x.scale);
    let ad = e.alu(Iabs, &[d]);
    let cnt = opk(e, Umin, ad, 32 * n as u32 - 1);
    let small = shr_words(e, &small, cnt, true);
    // Opposite signs subtract: add the complement and one.
    let signs = e.alu(Xor, &[x.sbit, y.sbit]);
    let sub = opk(e, Ishr, signs, 31);
    let small: Vec<_> = small.iter().map(|&w| e.alu(Xor, &[w, sub])).collect();
    let sum = add_words(e, &big, &small, Some(sub));
    let neg = opk(e, Ishr, sum[n - 1], 31);
    let sum = neg_words_if(e, &sum, neg);
    let flip = opk(e, And, neg, 0x8000_0000);
    let sbit = e.alu(Xor, &[bsign, flip]);
    let (exp, sig) = normalize(e, &sum, bscale);
    let nz = e.alu(Or, &[sig[0], sig[1]]);
    let both = e.alu(And, &[x.sbit, y.sbit]);
    let sbit = e.select(nz, sbit, both);
    (sbit, exp, sig)
}

/// A constant shift left of a 64-bit significand, by less than 32.
fn shl_const<E: Emit>(e: &mut E, s: [E::V; 2], n: u32) -> [E::V; 2] {
    let lo = opk(e, Shl, s[0], n);
    let hi = opk(e, Shl, s[1], n);
    let down = opk(e, Ushr, s[0], 32 - n);
    [lo, e.alu(Or, &[hi, down])]
}

/// `a + b`.
fn add<E: Emit>(e: &mut E, a: Pair<E::V>, b: Pair<E::V>) -> Pair<E::V> {
    let (ua, ub) = (unpack(e, a), unpack(e, b));
    // Nine bits of room below the significand keep a shifted operand's
    // round bits; the top two are for the carry and the sign.
    let term = |e: &mut E, u: &Unpacked<E::V>| {
        let scale = addk(e, u.exp, (-1084i32) as u32);
        Term { sbit: u.sbit, scale, words: shl_const(e, u.sig, 9).to_vec() }
    };
    let (x, y) = (term(e, &ua), term(e, &ub));
    let (s, ex, sig) = add_terms(e, &x, &y);
    let r = round_pack(e, s, ex, sig);
    let (ai, bi) = (is_inf(e, &ua), is_inf(e, &ub));
    let t = original(e, &ub);
    let r = sel64(e, bi, t, r);
    let t = original(e, &ua);
    let r = sel64(e, ai, t, r);
    // inf - inf
    let both = e.alu(And, &[ai, bi]);
    let ds = e.alu(Xor, &[ua.sbit, ub.sbit]);
    let ds = opk(e, Ishr, ds, 31);
    let bad = e.alu(And, &[both, ds]);
    let t = default_nan(e);
    let r = sel64(e, bad, t, r);
    nan_first(e, &[&ua, &ub], r)
}

/// `r`, unless an operand is NaN: then the first NaN operand, quieted.
fn nan_first<E: Emit>(e: &mut E, ops: &[&Unpacked<E::V>], mut r: Pair<E::V>) -> Pair<E::V> {
    for u in ops.iter().rev() {
        let n = is_nan(e, u);
        let q = quiet(e, u);
        r = sel64(e, n, q, r);
    }
    r
}

/// `a * b`.
fn mul<E: Emit>(e: &mut E, a: Pair<E::V>, b: Pair<E::V>) -> Pair<E::V> {
    let (ua, ub) = (unpack(e, a), unpack(e, b));
    let sbit = e.alu(Xor, &[ua.sbit, ub.sbit]);
    let prod = mul_64x64(e, ua.sig, ub.sig);
    let sc = e.alu(Uadd, &[ua.exp, ub.exp]);
    let sc = addk(e, sc, (-2150i32) as u32);
    let (ex, sig) = normalize(e, &prod, sc);
    let r = round_pack(e, sbit, ex, sig);
    let (ai, bi) = (is_inf(e, &ua), is_inf(e, &ub));
    let (az, bz) = (is_zero(e, &ua), is_zero(e, &ub));
    let anyinf = e.alu(Or, &[ai, bi]);
    let t = inf(e, sbit);
    let r = sel64(e, anyinf, t, r);
    let bad = invalid_product(e, ai, bi, az, bz);
    let t = default_nan(e);
    let r = sel64(e, bad, t, r);
    nan_first(e, &[&ua, &ub], r)
}

/// Infinity times zero, as a mask.
fn invalid_product<E: Emit>(e: &mut E, ai: E::V, bi: E::V, az: E::V, bz: E::V) -> E::V {
    let x = e.alu(And, &[ai, bz]);
    let y = e.alu(And, &[bi, az]);
    e.alu(Or, &[x, y])
}

/// `a * b + c` with one rounding: the exact 106-bit product and the
/// addend are added in 128 bits.
fn fma<E: Emit>(e: &mut E, a: Pair<E::V>, b: Pair<E::V>, c: Pair<E::V>) -> Pair<E::V> {
    let (ua, ub, uc) = (unpack(e, a), unpack(e, b), unpack(e, c));
    let sp = e.alu(Xor, &[ua.sbit, ub.sbit]);
    // The product's leading bit lands at 124 or 125, the addend's at 125,
    // so either can be shifted right by 20 or more bits before any of its
    // bits fall into the sticky bit: cancellation stays exact.
    let sa = shl_const(e, ua.sig, 11);
    let sb = shl_const(e, ub.sig, 9);
    let prod = mul_64x64(e, sa, sb);
    let ps = e.alu(Uadd, &[ua.exp, ub.exp]);
    let ps = addk(e, ps, (-2170i32) as u32);
    let sc = shl_const(e, uc.sig, 9);
    let zero = e.k32(0);
    let cs = addk(e, uc.exp, (-1148i32) as u32);
    let x = Term { sbit: sp, scale: ps, words: prod };
    let y = Term { sbit: uc.sbit, scale: cs, words: vec![zero, zero, sc[0], sc[1]] };
    let (s, ex, sig) = add_terms(e, &x, &y);
    let r = round_pack(e, s, ex, sig);
    let (ai, bi, ci) = (is_inf(e, &ua), is_inf(e, &ub), is_inf(e, &uc));
    let (az, bz) = (is_zero(e, &ua), is_zero(e, &ub));
    let t = original(e, &uc);
    let r = sel64(e, ci, t, r);
    let pinf = e.alu(Or, &[ai, bi]);
    let t = inf(e, sp);
    let r = sel64(e, pinf, t, r);
    // inf * 0, and an infinite product plus the opposite infinity.
    let bad = invalid_product(e, ai, bi, az, bz);
    let ds = e.alu(Xor, &[sp, uc.sbit]);
    let ds = opk(e, Ishr, ds, 31);
    let opp = e.alu(And, &[pinf, ci]);
    let opp = e.alu(And, &[opp, ds]);
    let bad = e.alu(Or, &[bad, opp]);
    let t = default_nan(e);
    let r = sel64(e, bad, t, r);
    // The backend's fma (glibc on x86-64) picks b's NaN before a's.
    nan_first(e, &[&ub, &ua, &uc], r)
}

/// `a / b`.
fn div<E: Emit>(e: &mut E, a: Pair<E::V>, b: Pair<E::V>) -> Pair<E::V> {
    let (ua, ub) = (unpack(e, a), unpack(e, b));
    let sbit = e.alu(Xor, &[ua.sbit, ub.sbit]);
    let (q, rem) = div_sig(e, ua.sig, ub.sig);
    // q = floor(2^54 * sa / sb) has 54 or 55 bits; below it goes the sticky bit.
    let sig = shl_const(e, q, 8);
    let st = opk(e, Umin, rem, 1);
    let lo = e.alu(Or, &[sig[0], st]);
    let nb = e.alu(Ineg, &[ub.exp]);
    let sc = e.alu(Uadd, &[ua.exp, nb]);
    let sc = addk(e, sc, (-62i32) as u32);
    let (ex, sig) = normalize(e, &[lo, sig[1]], sc);
    let r = round_pack(e, sbit, ex, sig);
    let (ai, bi) = (is_inf(e, &ua), is_inf(e, &ub));
    let (az, bz) = (is_zero(e, &ua), is_zero(e, &ub));
    let to_zero = e.alu(Or, &[bi, az]);
    let t = zero_signed(e, sbit);
    let r = sel64(e, to_zero, t, r);
    let to_inf = e.alu(Or, &[ai, bz]);
    let t = inf(e, sbit);
    let r = sel64(e, to_inf, t, r);
    let ii = e.alu(And, &[ai, bi]);
    let zz = e.alu(And, &[az, bz]);
    let bad = e.alu(Or, &[ii, zz]);
    let t = default_nan(e);
    let r = sel64(e, bad, t, r);
    nan_first(e, &[&ua, &ub], r)
}

/// Restoring division of significands (leading bits at 52): the 55-bit
/// quotient `floor(2^54 * a / b)` and whether a remainder is left
/// (nonzero when so).
fn div_sig<E: Emit>(e: &mut E, a: [E::V; 2], b: [E::V; 2]) -> ([E::V; 2], E::V) {
    let (mut rl, mut rh) = (a[0], a[1]);
    let nbl = e.alu(Ineg, &[b[0]]);
    let nbh = e.alu(Ineg, &[b[1]]);
    let zero = e.k32(0);
    let two = e.k32(2);
    // Each step adds its sign mask (-1 where rem - b went negative, so the
    // bit is 0) into a word of the quotient less all ones: a word of n
    // bits is the sum plus 2^n - 1.
    let mut q = [zero, zero];
    for i in (0..55).rev() {
        let dl = e.alu(Uadd, &[rl, nbl]);
        let borrow = e.alu(Uslt, &[rl, b[0]]);
        let dh = e.alu(Uadd, &[rh, nbh]);
        let dh = e.alu(Uadd, &[dh, borrow]);
        let neg = opk(e, Ishr, dh, 31);
        rl = e.select(neg, rl, dl);
        rh = e.select(neg, rh, dh);
        let w = usize::from(i >= 32);
        q[w] = e.alu(Umad, &[q[w], two, neg]);
        if i > 0 {
            let c = opk(e, Ushr, rl, 31);
            rh = e.alu(Umad, &[rh, two, c]);
            rl = e.alu(Uadd, &[rl, rl]);
        }
    }
    let ql = addk(e, q[0], u32::MAX);
    let qh = addk(e, q[1], 0x007f_ffff);
    let rem = e.alu(Or, &[rl, rh]);
    ([ql, qh], rem)
}

/// `sqrt(a)`.
fn sqrt<E: Emit>(e: &mut E, a: Pair<E::V>) -> Pair<E::V> {
    let u = unpack(e, a);
    // An even exponent: the significand takes the odd bit.
    let e2 = addk(e, u.exp, (-1075i32) as u32);
    let odd = opk(e, And, e2, 1);
    let m = shl_words(e, &u.sig, odd);
    let no = e.alu(Ineg, &[odd]);
    let e2 = e.alu(Uadd, &[e2, no]);
    let half = opk(e, Ishr, e2, 1);
    let (q, rem) = sqrt_sig(e, [m[0], m[1]]);
    // q = floor(sqrt(m * 2^56)) has 55 bits; below it goes the sticky bit.
    let sig = shl_const(e, q, 8);
    let st = opk(e, Umin, rem, 1);
    let lo = e.alu(Or, &[sig[0], st]);
    let ex = addk(e, half, 1048);
    let zero = e.k32(0);
    let r = round_pack(e, zero, ex, [lo, sig[1]]);
    let az = is_zero(e, &u);
    let ai = is_inf(e, &u);
    let t = original(e, &u);
    let r = sel64(e, az, t, r);
    let t = original(e, &u);
    let r = sel64(e, ai, t, r);
    // Below zero (not -0): invalid.
    let neg = opk(e, Ishr, u.sbit, 31);
    let nz = e.alu(Not, &[az]);
    let bad = e.alu(And, &[neg, nz]);
    let t = default_nan(e);
    let r = sel64(e, bad, t, r);
    nan_first(e, &[&u], r)
}

/// Digit-by-digit square root of `m * 2^56` (`m` below 2^54): the 55-bit
/// root and whether a remainder is left (nonzero when so).
fn sqrt_sig<E: Emit>(e: &mut E, m: [E::V; 2]) -> ([E::V; 2], E::V) {
    let zero = e.k32(0);
    let (two, four) = (e.k32(2), e.k32(4));
    let (mut rl, mut rh) = (zero, zero);
    let (mut ql, mut qh) = (zero, zero);
    // The first 29 root bits: the remainder (at most twice the root) and
    // r - (4q + 1) still fit in 32 signed bits.
    for i in (26..55u32).rev() {
        let bits = if i >= 28 {
            let pos = 2 * i - 56;
            let w = m[(pos / 32) as usize];
            let (o, n) = (e.k32(pos % 32), e.k32(2));
            e.alu(Ubfe, &[w, o, n])
        } else {
            zero
        };
        rl = e.alu(Umad, &[rl, four, bits]);
        let t = opk(e, Shl, ql, 2);
        let nt = e.alu(Not, &[t]);
        let d = e.alu(Uadd, &[rl, nt]);
        let neg = opk(e, Ishr, d, 31);
        rl = e.select(neg, rl, d);
        let bit = addk(e, neg, 1);
        ql = e.alu(Umad, &[ql, two, bit]);
    }
    for _ in 0..26 {
        // r = 4r + the next two bits of m * 2^56 (zeros by now).
        let c = opk(e, Ushr, rl, 30);
        rh = e.alu(Umad, &[rh, four, c]);
        rl = opk(e, Shl, rl, 2);
        // r - (4q + 1) is r + !(4q).
        let tl = opk(e, Shl, ql, 2);
        let c = opk(e, Ushr, ql, 30);
        let th = e.alu(Umad, &[qh, four, c]);
        let ntl = e.alu(Not, &[tl]);
        let nth = e.alu(Not, &[th]);
        let dl = e.alu(Uadd, &[rl, ntl]);
        let carry = e.alu(Uslt, &[dl, rl]);
        let carry = e.alu(Ineg, &[carry]);
        let dh = e.alu(Uadd, &[rh, nth]);
        let dh = e.alu(Uadd, &[dh, carry]);
        let neg = opk(e, Ishr, dh, 31);
        rl = e.select(neg, rl, dl);
        rh = e.select(neg, rh, dh);
        let bit = addk(e, neg, 1);
        let c = opk(e, Ushr, ql, 31);
        qh = e.alu(Umad, &[qh, two, c]);
        ql = e.alu(Umad, &[ql, two, bit]);
    }
    let rem = e.alu(Or, &[rl, rh]);
    ([ql, qh], rem)
}

/// The constant 1.0.
fn one<E: Emit>(e: &mut E) -> Pair<E::V> {
    (e.k32(0), e.k32(0x3ff0_0000))
}

/// The arithmetic opcodes; `None` for the others.
pub(super) fn lower<E: Emit>(e: &mut E, opcode: Opcode, args: &[E::V]) -> Option<E::V> {
    let wide = |e: &mut E, i: usize| e.split(args[i]);
    let out = |e: &mut E, (lo, hi): Pair<E::V>| Some(e.pack(lo, hi));
    match (opcode, args.len()) {
        (Dadd, 2) => {
            let (a, b) = (wide(e, 0), wide(e, 1));
            let r = add(e, a, b);
            out(e, r)
        }
        (Dmul, 2) => {
            let (a, b) = (wide(e, 0), wide(e, 1));
            let r = mul(e, a, b);
            out(e, r)
        }
        (Dmad, 3) => {
            // Unfused, as the backend: the product rounded first.
            let (a, b, c) = (wide(e, 0), wide(e, 1), wide(e, 2));
            let p = mul(e, a, b);
            let r = add(e, p, c);
            out(e, r)
        }
        (Dfma, 3) => {
            let (a, b, c) = (wide(e, 0), wide(e, 1), wide(e, 2));
            let r = fma(e, a, b, c);
            out(e, r)
        }
        (Ddiv, 2) => {
            let (a, b) = (wide(e, 0), wide(e, 1));
            let r = div(e, a, b);
            out(e, r)
        }
        (Drcp, 1) => {
            let a = wide(e, 0);
            let o = one(e);
            let r = div(e, o, a);
            out(e, r)
        }
        (Dsqrt, 1) => {
            let a = wide(e, 0);
            let r = sqrt(e, a);
            out(e, r)
        }
        (Drsq, 1) => {
            // Two roundings, as the backend: 1 / sqrt(a).
            let a = wide(e, 0);
            let s = sqrt(e, a);
            let o = one(e);
            let r = div(e, o, s);
            out(e, r)
        }
        _ => None,
    }
}
