//! IEEE binary64 arithmetic on 32-bit integer words, round to nearest
//! even, denormals kept.
//!
//! The shape follows Berkeley SoftFloat: operands are unpacked into sign,
//! exponent and a significand normalized to bit 52 (denormals too); the
//! exact result is built in integer words with the bits below the
//! rounding point folded into a sticky bit; one shared routine rounds and
//! packs. Special operands (NaN, infinity, invalid cases) take the normal
//! path with meaningless bits and are replaced by selects at the end.
//!
//! NaN results follow x86 SSE: the first NaN operand, quieted, else the
//! default NaN 0xfff8000000000000 (DFMA: the backend's fma takes b's NaN
//! first, then a's, then c's).

use super::emit::Emit;
use super::soft_int64::{
    abs64, add_words, addk, any, msb_words, mul_64x64, neg64, neg_words_if, opk, sel64, shl_words, shr_words, slt64,
    Pair,
};
use tgsi::Opcode::{self, *};

/// The high word of the default NaN.
const DEFAULT_NAN_HI: u32 = 0xfff8_0000;
/// The exponent field of infinities and NaNs, in the high word.
const INF_HI: u32 = 0x7ff0_0000;
/// The unpacked exponent given to zeros: far enough below every other
/// operand's that aligning against it never keeps a bit of it, or shifts
/// the other operand.
const ZERO_EXP: i32 = -5000;

/// A double taken apart.
struct Unpacked<V> {
    /// The sign bit, in place (0x80000000 or 0).
    sbit: V,
    /// The value is `sig * 2^(exp - 1075)`.
    exp: V,
    /// The significand, its leading bit at bit 52 (all zero for zeros).
    sig: [V; 2],
    /// The low word of the operand.
    lo: V,
    /// The high word without its sign.
    abs_hi: V,
}

/// Unpacks a double, normalizing denormals with a leading-bit count.
fn unpack<E: Emit>(e: &mut E, (lo, hi): Pair<E::V>) -> Unpacked<E::V> {
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
fn is_nan<E: Emit>(e: &mut E, u: &Unpacked<E::V>) -> E::V {
    // A nonzero low word makes the high word compare one above.
    let l = opk(e, Umin, u.lo, 1);
    let h = e.alu(Or, &[u.abs_hi, l]);
    let inf = e.k32(INF_HI);
    e.alu(Uslt, &[inf, h])
}

/// Plus or minus infinity, as a mask.
fn is_inf<E: Emit>(e: &mut E, u: &Unpacked<E::V>) -> E::V {
    let h = opk(e, Useq, u.abs_hi, INF_HI);
    let l = opk(e, Useq, u.lo, 0);
    e.alu(And, &[h, l])
}

/// Plus or minus zero, as a mask.
fn is_zero<E: Emit>(e: &mut E, u: &Unpacked<E::V>) -> E::V {
    let o = e.alu(Or, &[u.abs_hi, u.lo]);
    opk(e, Useq, o, 0)
}

/// The operand with the quiet bit set.
fn quiet<E: Emit>(e: &mut E, u: &Unpacked<E::V>) -> Pair<E::V> {
    let hi = e.alu(Or, &[u.abs_hi, u.sbit]);
    (u.lo, opk(e, Or, hi, 0x0008_0000))
}

/// The operand itself.
fn original<E: Emit>(e: &mut E, u: &Unpacked<E::V>) -> Pair<E::V> {
    (u.lo, e.alu(Or, &[u.abs_hi, u.sbit]))
}

/// 0xfff8000000000000, what x86 gives for invalid operations.
fn default_nan<E: Emit>(e: &mut E) -> Pair<E::V> {
    (e.k32(0), e.k32(DEFAULT_NAN_HI))
}

/// Infinity with sign bit `sbit`.
fn inf<E: Emit>(e: &mut E, sbit: E::V) -> Pair<E::V> {
    (e.k32(0), opk(e, Or, sbit, INF_HI))
}

/// Zero with sign bit `sbit`.
fn zero_signed<E: Emit>(e: &mut E, sbit: E::V) -> Pair<E::V> {
    (e.k32(0), sbit)
}

/// Rounds and packs (SoftFloat's `roundPackToF64`). `sig` has its leading
/// bit at 62 (or is zero) and its lowest bit sticky; the value is
/// `sig * 2^(exp - 1084)`, so `exp + 1` is the biased exponent when
/// rounding does not carry. Denormal results are shifted right first;
/// results too large round to infinity.
fn round_pack<E: Emit>(e: &mut E, sbit: E::V, exp: E::V, sig: [E::V; 2]) -> Pair<E::V> {
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
fn round_pack32<E: Emit>(e: &mut E, sbit: E::V, exp: E::V, sig: E::V) -> E::V {
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
fn normalize<E: Emit>(e: &mut E, words: &[E::V], scale: E::V) -> (E::V, [E::V; 2]) {
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

/// A double as a signed 64-bit integer that orders as the double does
/// (both zeros map to 0); meaningless for NaN.
fn order_key<E: Emit>(e: &mut E, u: &Unpacked<E::V>) -> Pair<E::V> {
    let mag = (u.lo, u.abs_hi);
    let n = neg64(e, mag);
    let s = opk(e, Ishr, u.sbit, 31);
    sel64(e, s, n, mag)
}

/// The comparisons: all ones or zero. NaN compares unordered.
fn compare<E: Emit>(e: &mut E, opcode: Opcode, a: Pair<E::V>, b: Pair<E::V>) -> E::V {
    let (ua, ub) = (unpack_fields(e, a), unpack_fields(e, b));
    let (ka, kb) = (order_key(e, &ua), order_key(e, &ub));
    let an = is_nan(e, &ua);
    let bn = is_nan(e, &ub);
    let un = e.alu(Or, &[an, bn]);
    match opcode {
        Dslt | Dsge => {
            let lt = slt64(e, ka, kb);
            let r = if opcode == Dslt { lt } else { e.alu(Not, &[lt]) };
            let zero = e.k32(0);
            e.select(un, zero, r)
        }
        _ => {
            let x = e.alu(Xor, &[ka.0, kb.0]);
            let y = e.alu(Xor, &[ka.1, kb.1]);
            let d = e.alu(Or, &[x, y]);
            let ne = e.alu(Or, &[d, un]);
            let ne = opk(e, Umin, ne, 1);
            let eq = addk(e, ne, u32::MAX);
            if opcode == Dseq {
                eq
            } else {
                e.alu(Not, &[eq])
            }
        }
    }
}

/// The sign and magnitude words of a double, without unpacking the
/// significand (for operations that only compare or move bits).
fn unpack_fields<E: Emit>(e: &mut E, (lo, hi): Pair<E::V>) -> Unpacked<E::V> {
    let sbit = opk(e, And, hi, 0x8000_0000);
    let abs_hi = opk(e, And, hi, 0x7fff_ffff);
    let zero = e.k32(0);
    Unpacked { sbit, exp: zero, sig: [zero, zero], lo, abs_hi }
}

/// DMIN and DMAX as glibc's fmin/fmax: a NaN operand gives the other one,
/// and of equal operands the second.
fn min_max<E: Emit>(e: &mut E, max: bool, a: Pair<E::V>, b: Pair<E::V>) -> Pair<E::V> {
    let (ua, ub) = (unpack_fields(e, a), unpack_fields(e, b));
    let (ka, kb) = (order_key(e, &ua), order_key(e, &ub));
    let first = if max { slt64(e, kb, ka) } else { slt64(e, ka, kb) };
    let r = sel64(e, first, a, b);
    let bn = is_nan(e, &ub);
    let r = sel64(e, bn, a, r);
    let an = is_nan(e, &ua);
    sel64(e, an, b, r)
}

/// DABS as Mesa's `x >= 0 ? x : -x`: the sign flips for NaN and for
/// values below zero, so -0 stays -0.
fn abs<E: Emit>(e: &mut E, a: Pair<E::V>) -> Pair<E::V> {
    let u = unpack_fields(e, a);
    let n = is_nan(e, &u);
    let z = is_zero(e, &u);
    let s = opk(e, Ishr, u.sbit, 31);
    let nz = e.alu(Not, &[z]);
    let below = e.alu(And, &[s, nz]);
    let flip = e.alu(Or, &[n, below]);
    let flip = opk(e, And, flip, 0x8000_0000);
    (a.0, e.alu(Xor, &[a.1, flip]))
}

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

/// The double-precision opcodes; `None` for the others.
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
        (Dslt | Dsge | Dseq | Dsne, 2) => {
            let (a, b) = (wide(e, 0), wide(e, 1));
            Some(compare(e, opcode, a, b))
        }
        (Dmin | Dmax, 2) => {
            let (a, b) = (wide(e, 0), wide(e, 1));
            let r = min_max(e, opcode == Dmax, a, b);
            out(e, r)
        }
        (Dneg, 1) => {
            let (lo, hi) = wide(e, 0);
            let hi = opk(e, Xor, hi, 0x8000_0000);
            out(e, (lo, hi))
        }
        (Dabs, 1) => {
            let a = wide(e, 0);
            let r = abs(e, a);
            out(e, r)
        }
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
