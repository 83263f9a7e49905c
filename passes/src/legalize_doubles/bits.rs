//! Double operations computed on the bits of their operands with 32-bit
//! integer operations on the halves (and a double add or multiply where
//! the backend's own result is a rounded sum or product).
//!
//! Every lowering gives exactly the bits of `semantics::eval`: the unit
//! tests compare them with [`Evaluate`](super::emit::Evaluate) on special
//! and random operands, and `tgsi-opt check-doubles` on millions.

use super::emit::Emit;
use super::halves::*;
use tgsi::Opcode::{self, *};

/// The lowering of `opcode` on `args`, if this module has one.
pub fn lower<E: Emit>(e: &mut E, opcode: Opcode, args: &[E::V]) -> Option<E::V> {
    let r = match (opcode, args) {
        (Dabs, &[a]) => dabs(e, a),
        (Dneg, &[a]) => {
            let x = halves(e, a);
            let hi = opk(e, Xor, x.hi, SIGN);
            e.pack(x.lo, hi)
        }
        (Dssg, &[a]) => dssg(e, a),
        (Dmin, &[a, b]) => dminmax(e, a, b, true),
        (Dmax, &[a, b]) => dminmax(e, a, b, false),
        // Unfused, as the backend: the product is rounded, then the sum.
        (Dmad, &[a, b, c]) => {
            let p = e.alu(Dmul, &[a, b]);
            e.alu(Dadd, &[p, c])
        }
        (Dtrunc, &[a]) => round(e, a, Mode::Trunc),
        (Dflr, &[a]) => round(e, a, Mode::Floor),
        (Dceil, &[a]) => round(e, a, Mode::Ceil),
        (Dround, &[a]) => round(e, a, Mode::Even),
        // The backend computes `x - floor(x)` with one rounded subtraction.
        (Dfrac, &[a]) => {
            let f = round(e, a, Mode::Floor);
            let fh = halves(e, f);
            let hi = opk(e, Xor, fh.hi, SIGN);
            let neg = e.pack(fh.lo, hi);
            e.alu(Dadd, &[a, neg])
        }
        (Dldexp, &[a, n]) => dldexp(e, a, n),
        _ => return None,
    };
    Some(r)
}

/// `a >= 0 ? a : -a`: the sign flips for negative numbers other than -0.0,
/// and for every NaN (a comparison with a NaN is false).
fn dabs<E: Emit>(e: &mut E, a: E::V) -> E::V {
    let x = halves(e, a);
    let c = classify(e, x);
    let nonzero = not(e, c.zero);
    let negative = and(e, c.neg, nonzero);
    let flip = or(e, negative, c.nan);
    let r = flip_sign(e, x, flip);
    join(e, r)
}

/// -1.0, 0.0 or 1.0; ±0 and NaN give +0.0.
fn dssg<E: Emit>(e: &mut E, a: E::V) -> E::V {
    let x = halves(e, a);
    let c = classify(e, x);
    let zero_or_nan = or(e, c.zero, c.nan);
    let sign = opk(e, And, x.hi, SIGN);
    let one = opk(e, Or, sign, 0x3ff0_0000);
    let z = e.k32(0);
    let hi = e.select(zero_or_nan, z, one);
    e.pack(z, hi)
}

/// Whether `x < y` as doubles, neither a NaN: the bit patterns ordered as
/// integers (negative ones reversed), with -0.0 equal to +0.0.
fn less<E: Emit>(e: &mut E, x: Halves<E::V>, cx: &Class<E::V>, y: Halves<E::V>, cy: &Class<E::V>) -> E::V {
    // key = sign ? !bits : bits | SIGN, so that keys order as the values.
    let kx = order_key(e, x, cx.neg);
    let ky = order_key(e, y, cy.neg);
    let lt = ult(e, kx, ky);
    let both_zero = and(e, cx.zero, cy.zero);
    let nz = not(e, both_zero);
    and(e, lt, nz)
}

fn order_key<E: Emit>(e: &mut E, x: Halves<E::V>, neg: E::V) -> Halves<E::V> {
    let flipped = Halves { lo: not(e, x.lo), hi: not(e, x.hi) };
    let hi_set = opk(e, Or, x.hi, SIGN);
    select(e, neg, flipped, Halves { lo: x.lo, hi: hi_set })
}

/// C's `fmin`/`fmax` as the backend computes them: a NaN `x` gives `y`;
/// otherwise a NaN `y`, or `x` strictly smaller (larger), gives `x`; else
/// `y` (so of ±0 the second operand).
fn dminmax<E: Emit>(e: &mut E, a: E::V, b: E::V, min: bool) -> E::V {
    let (x, y) = (halves(e, a), halves(e, b));
    let (cx, cy) = (classify(e, x), classify(e, y));
    let strict = if min { less(e, x, &cx, y, &cy) } else { less(e, y, &cy, x, &cx) };
    let x_wins = or(e, cy.nan, strict);
    let x_ok = not(e, cx.nan);
    let take_x = and(e, x_ok, x_wins);
    e.select64(take_x, a, b)
}

/// How [`round`] rounds to an integer.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    Trunc,
    Floor,
    Ceil,
    Even,
}

/// Rounds to an integral double on the bits. With biased exponent `ex`,
/// the `k = 1075 - ex` low bits are the fraction: `ex >= 1075` (and
/// infinities, NaNs) are already integers; `ex < 1023` (|x| < 1) gives ±0
/// or ±1; otherwise truncation clears the fraction bits, and rounding away
/// from zero adds one unit `1 << k` to the truncated bits (a carry out of
/// the mantissa raises the exponent, which is again the right value:
/// 2^(e+1)). The sign is kept, so -0.5 truncates to -0.0 as `trunc` does.
fn round<E: Emit>(e: &mut E, a: E::V, mode: Mode) -> E::V {
    let x = halves(e, a);
    let ex = exponent(e, x.hi);
    let sign = opk(e, And, x.hi, SIGN);
    let neg = opk(e, Usne, sign, 0);
    let pos = not(e, neg);
    // |x| >= 1: clear k in 1..=52 fraction bits (k is clamped so the
    // masks stay valid where the result is not used).
    let nex = e.alu(Ineg, &[ex]);
    let k_raw = opk(e, Uadd, nex, 1075);
    let k = opk(e, Umin, k_raw, 52);
    let k = opk(e, Umax, k, 1);
    let frac_mask = low_mask(e, k);
    let t = and_not(e, x, frac_mask);
    let dropped = bitwise(e, And, x, frac_mask);
    let inexact = nonzero(e, dropped);
    let bump = match mode {
        Mode::Trunc => e.k32(0),
        Mode::Floor => and(e, inexact, neg),
        Mode::Ceil => and(e, inexact, pos),
        Mode::Even => {
            let km1 = opk(e, Uadd, k, u32::MAX);
            let half = bit(e, km1);
            let below = low_mask(e, km1);
            let half_set = bitwise(e, And, x, half);
            let half_set = nonzero(e, half_set);
            let sticky = bitwise(e, And, x, below);
            let sticky = nonzero(e, sticky);
            let unit = bit(e, k);
            let lsb = bitwise(e, And, x, unit);
            let odd = nonzero(e, lsb);
            let up = or(e, sticky, odd);
            and(e, half_set, up)
        }
    };
    let unit = bit(e, k);
    let z = e.k32(0);
    let unit = Halves { lo: e.select(bump, unit.lo, z), hi: e.select(bump, unit.hi, z) };
    let mid = add(e, t, unit);
    // |x| < 1: ±0, or ±1 when rounding away from zero.
    let abs_hi = opk(e, And, x.hi, !SIGN);
    let mag_nz = e.alu(Or, &[abs_hi, x.lo]);
    let mag_nz = opk(e, Usne, mag_nz, 0);
    let small_bump = match mode {
        Mode::Trunc => e.k32(0),
        Mode::Floor => and(e, mag_nz, neg),
        Mode::Ceil => and(e, mag_nz, pos),
        // Above one half (exponent 1022 with a nonzero mantissa); exactly
        // one half goes to the even 0.
        Mode::Even => {
            let e1022 = opk(e, Useq, ex, 1022);
            let mant_hi = opk(e, And, x.hi, 0x000f_ffff);
            let mant = e.alu(Or, &[mant_hi, x.lo]);
            let mant_nz = opk(e, Usne, mant, 0);
            and(e, e1022, mant_nz)
        }
    };
    let one_hi = opk(e, Or, sign, 0x3ff0_0000);
    let small_hi = e.select(small_bump, one_hi, sign);
    let small = Halves { lo: z, hi: small_hi };
    let is_small = opk(e, Uslt, ex, 1023);
    let is_big = opk(e, Usge, ex, 1075);
    let r = select(e, is_small, small, mid);
    let r = select(e, is_big, x, r);
    join(e, r)
}

/// `x * 2^n` with the backend's algorithm (musl's `scalbn`): at most two
/// pre-scalings by 2^1023 or 2^-969, each exact unless the result
/// overflows or is denormal anyway, then one multiplication by 2^n with
/// `n` clamped to the normal exponents; so the result is rounded once.
/// Multiplying by 1.0 where a step does not apply changes no bits.
fn dldexp<E: Emit>(e: &mut E, a: E::V, n: E::V) -> E::V {
    let (n1, s1) = ldexp_step(e, n);
    let (n2, s2) = ldexp_step(e, n1);
    let n3 = opk(e, Imax, n2, (-1022i32) as u32);
    let n3 = opk(e, Imin, n3, 1023);
    let biased = opk(e, Uadd, n3, 0x3ff);
    let hi = opk(e, Shl, biased, 20);
    let z = e.k32(0);
    let p = e.pack(z, hi);
    let y = e.alu(Dmul, &[a, s1]);
    let y = e.alu(Dmul, &[y, s2]);
    e.alu(Dmul, &[y, p])
}

/// One pre-scaling of [`dldexp`]: for `n > 1023` the factor 2^1023 and
/// `n - 1023`; for `n < -1022` the factor 2^-969 and `n + 969`; else 1.0
/// and `n`.
fn ldexp_step<E: Emit>(e: &mut E, n: E::V) -> (E::V, E::V) {
    let k1023 = e.k32(1023);
    let big = e.alu(Islt, &[k1023, n]);
    let small = opk(e, Islt, n, (-1022i32) as u32);
    let n_big = opk(e, Uadd, n, (-1023i32) as u32);
    let n_small = opk(e, Uadd, n, 969);
    let n1 = e.select(small, n_small, n);
    let n1 = e.select(big, n_big, n1);
    let z = e.k32(0);
    let f_one = e.k32(0x3ff0_0000);
    let f_big = e.k32(0x7fe0_0000);
    let f_small = e.k32(0x0360_0000);
    let f = e.select(small, f_small, f_one);
    let f = e.select(big, f_big, f);
    (n1, e.pack(z, f))
}

/// DFRACEXP: the significand in [0.5, 1) with the sign of `a`, and the
/// exponent, such that `a = significand * 2^exponent` (C's `frexp`); ±0,
/// infinities and NaNs give themselves and exponent 0. Denormals are
/// normalized: their highest set bit `p` (UMSB) becomes the implicit bit.
pub fn dfracexp<E: Emit>(e: &mut E, a: E::V) -> (E::V, E::V) {
    let x = halves(e, a);
    let ex = exponent(e, x.hi);
    let sign = opk(e, And, x.hi, SIGN);
    // Normal: exponent ex - 1022, the exponent field set to 1022.
    let cleared = opk(e, And, x.hi, 0x800f_ffff);
    let normal_hi = opk(e, Or, cleared, 1022 << 20);
    let normal_exp = opk(e, Uadd, ex, (-1022i32) as u32);
    // Denormal: the mantissa m = 2^p * 1.f, the value 0.1f * 2^(p - 1073).
    let m_hi = opk(e, And, x.hi, 0x000f_ffff);
    let hi_msb = e.alu(Umsb, &[m_hi]);
    let hi_msb = opk(e, Uadd, hi_msb, 32);
    let lo_msb = e.alu(Umsb, &[x.lo]);
    let has_hi = opk(e, Usne, m_hi, 0);
    let p = e.select(has_hi, hi_msb, lo_msb);
    let k52 = e.k32(52);
    let np = e.alu(Ineg, &[p]);
    let s = e.alu(Uadd, &[k52, np]);
    let s = opk(e, Umin, s, 63);
    let m = Halves { lo: x.lo, hi: m_hi };
    let shifted = shl(e, m, s);
    let frac_hi = opk(e, And, shifted.hi, 0x000f_ffff);
    let frac_hi = e.alu(Or, &[frac_hi, sign]);
    let den_hi = opk(e, Or, frac_hi, 1022 << 20);
    let den_exp = opk(e, Uadd, p, (-1073i32) as u32);
    let c = classify(e, x);
    let special = or(e, c.zero, c.nan);
    let special = or(e, special, c.inf);
    let is_den = opk(e, Useq, ex, 0);
    let z = e.k32(0);
    let hi = e.select(is_den, den_hi, normal_hi);
    let lo = e.select(is_den, shifted.lo, x.lo);
    let exp = e.select(is_den, den_exp, normal_exp);
    let sig = select(e, special, x, Halves { lo, hi });
    let exp = e.select(special, z, exp);
    (join(e, sig), exp)
}

/// What DFRACEXP computes, in Rust (C's `frexp`): the reference the
/// lowering is tested against (the backend does not run DFRACEXP).
pub fn frexp(x: f64) -> (f64, i32) {
    if x == 0.0 || !x.is_finite() {
        return (x, 0);
    }
    let bits = x.to_bits();
    let ex = ((bits >> 52) & 0x7ff) as i32;
    if ex == 0 {
        let (m, e) = frexp(x * f64::from_bits(0x4350_0000_0000_0000)); // 2^54
        return (m, e - 54);
    }
    (f64::from_bits((bits & !(0x7ffu64 << 52)) | (1022u64 << 52)), ex - 1022)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::legalize_doubles::emit::Evaluate;

    /// Operands every lowering must get right.
    pub(crate) fn specials() -> Vec<u64> {
        let mut v = vec![
            0.0f64,
            -0.0,
            1.0,
            -1.0,
            0.5,
            -0.5,
            1.5,
            -1.5,
            2.5,
            -2.5,
            0.49999999999999994,
            4503599627370495.5,
            4503599627370496.0,
            -4503599627370497.0,
            9007199254740993.0,
            1e300,
            -1e-300,
            f64::MAX,
            f64::MIN,
            f64::MIN_POSITIVE,
            5e-324,
            -5e-324,
            f64::from_bits(0x000f_ffff_ffff_ffff),
            f64::INFINITY,
            f64::NEG_INFINITY,
            3.75,
            -7.25,
            123456.789,
            -0.75,
        ]
        .into_iter()
        .map(f64::to_bits)
        .collect::<Vec<_>>();
        v.extend([0x7ff8_0000_0000_0000, 0xfff8_0000_0000_0001, 0x7ff0_0000_0000_0001, 0x000f_ffff_ffff_ffff]);
        let mut rng = testkit::Rng::new(0x9e37_79b9_7f4a_7c15);
        for _ in 0..300 {
            let s = rng.next_u64();
            v.push(s ^ (s >> 29));
            v.push(f64::from_bits(s >> 12 | 0x4000_0000_0000_0000).to_bits() ^ (s & (1 << 63)));
        }
        v
    }

    fn same(a: u64, b: u64) -> bool {
        a == b || (f64::from_bits(a).is_nan() && f64::from_bits(b).is_nan())
    }

    #[test]
    fn unary_lowerings_match_the_backend_bit_for_bit() {
        for op in [Dabs, Dneg, Dssg, Dtrunc, Dflr, Dceil, Dround, Dfrac] {
            for &a in &specials() {
                let want = semantics::eval(op, 0, &[a]);
                let got = lower(&mut Evaluate, op, &[a]);
                assert_eq!(got, want, "{op} {a:#018x} ({})", f64::from_bits(a));
            }
        }
    }

    #[test]
    fn binary_lowerings_match_the_backend() {
        let sp = specials();
        for op in [Dmin, Dmax, Dmad] {
            for &a in sp.iter().take(40) {
                for &b in sp.iter().step_by(7) {
                    let args: Vec<u64> = if op == Dmad { vec![a, b, a ^ b] } else { vec![a, b] };
                    let want = semantics::eval(op, 0, &args);
                    let got = lower(&mut Evaluate, op, &args);
                    assert!(got.zip(want).is_some_and(|(g, w)| same(g, w)), "{op} {args:x?}: {got:x?} {want:x?}");
                }
            }
        }
    }

    #[test]
    fn dldexp_matches_the_backend_for_every_exponent_range() {
        let ns = [0i32, 1, -1, 52, -52, 1023, 1024, -1022, -1023, -1074, -1075, 2046, 2100, -2100, i32::MAX, i32::MIN];
        for &a in specials().iter().take(60) {
            for &n in &ns {
                let want = semantics::eval(Dldexp, 0, &[a, n as u32 as u64]);
                let got = lower(&mut Evaluate, Dldexp, &[a, n as u32 as u64]);
                assert!(got.zip(want).is_some_and(|(g, w)| same(g, w)), "ldexp({a:#x}, {n}): {got:x?} {want:x?}");
            }
        }
    }

    #[test]
    fn dfracexp_is_frexp() {
        for &a in &specials() {
            let (sig, exp) = dfracexp(&mut Evaluate, a);
            let (want_sig, want_exp) = frexp(f64::from_bits(a));
            assert!(same(sig, want_sig.to_bits()) && exp as u32 as i32 == want_exp, "frexp({a:#x})");
            if f64::from_bits(a).is_finite() && a << 1 != 0 {
                assert!((0.5..1.0).contains(&f64::from_bits(sig).abs()));
            }
        }
    }
}
