//! DDIV, DRCP, DSQRT and DRSQ from an f32 seed refined by Newton-Raphson
//! iterations in double precision (DFMA, DMUL), then corrected so the
//! result is the correctly rounded one (round to nearest, ties to even):
//! bit for bit the backend's `a / b`, `1.0 / a`, `a.sqrt()` and
//! `1.0 / a.sqrt()`.
//!
//! How exactness is reached:
//! 1. **Scaling.** Operands are split into a significand in [1, 2) and an
//!    integer exponent with integer operations (denormals normalized), so
//!    the f32 seed never overflows or underflows and every double step
//!    works far from the ends of the exponent range.
//! 2. **Newton-Raphson.** The f32 seed (relative error below 2^-22)
//!    doubles its correct bits with each step; three steps leave the
//!    reciprocal (or reciprocal square root) within an ulp.
//! 3. **Correction.** The quotient `q = a*y` gets two Markstein steps
//!    `q += (a - b*q) * y`, whose residual is exact with DFMA. Then the
//!    exact residual decides the last bit: the true quotient is above the
//!    midpoint `q + ulp/2` exactly when `a - b*(q + ulp/2) > 0`, computed
//!    as `DFMA(-b, ulp/2, r)`, whose sign is exact (likewise below). The
//!    square root uses Tuckerman's test `s*(s - ulp) < m <= s*(s + ulp)`
//!    with DFMA signs. A quotient of doubles is never a midpoint of two
//!    doubles unless the result is denormal, nor is a square root.
//! 4. **Unscaling.** The exponent is put back with integer operations. A
//!    result below the normal range would round twice if it were rounded
//!    to 53 bits and then shifted; instead the 53-bit significand is
//!    shifted right with round-to-nearest-even on the dropped bits, and a
//!    dropped pattern exactly one half is resolved by the sign of the
//!    residual of the correctly rounded quotient (the true quotient lies
//!    above or below it, or is it).
//! 5. **Special operands** (±0, ±inf, NaN, negative square roots) are
//!    selected at the end, with the NaN the backend's x86-64 arithmetic
//!    produces: the first NaN operand quieted, or the default NaN
//!    0xfff8000000000000 for invalid operations.
//!
//! DRSQ is DRCP of DSQRT, as the backend rounds twice.

use super::bits::dfracexp;
use super::emit::Emit;
use super::halves::*;
use tgsi::Opcode::{self, *};

/// The default NaN of x86-64 arithmetic.
const DEFAULT_NAN: u64 = 0xfff8_0000_0000_0000;

/// The lowering of `opcode` on `args`, if this module has one.
pub fn lower<E: Emit>(e: &mut E, opcode: Opcode, args: &[E::V]) -> Option<E::V> {
    match (opcode, args) {
        (Ddiv, &[a, b]) => Some(ddiv(e, a, b)),
        (Drcp, &[a]) => {
            let one = e.k64(1f64.to_bits());
            Some(ddiv(e, one, a))
        }
        (Dsqrt, &[a]) => Some(dsqrt(e, a)),
        (Drsq, &[a]) => {
            let s = dsqrt(e, a);
            let one = e.k64(1f64.to_bits());
            Some(ddiv(e, one, s))
        }
        _ => None,
    }
}

/// |x| as a significand in [1, 2) and its unbiased exponent, for finite
/// nonzero `x` (other operands give values the callers do not use).
fn scale<E: Emit>(e: &mut E, x: E::V) -> (Halves<E::V>, E::V) {
    let (sig, exp) = dfracexp(e, x);
    let h = halves(e, sig);
    // [0.5, 1) to [1, 2): one more in the exponent field, one less in the
    // exponent; and the sign cleared.
    let hi = opk(e, And, h.hi, !SIGN);
    let hi = opk(e, Uadd, hi, 1 << 20);
    let exp = opk(e, Uadd, exp, u32::MAX);
    (Halves { lo: h.lo, hi }, exp)
}

/// Whether the double `x` is > 0 (not a NaN: residuals never are).
fn positive<E: Emit>(e: &mut E, x: E::V) -> E::V {
    let h = halves(e, x);
    let nz = nonzero(e, h);
    let s = opk(e, Ishr, h.hi, 31);
    let pos = not(e, s);
    and(e, nz, pos)
}

/// Whether the double `x` is < 0 (and not -0.0).
fn negative<E: Emit>(e: &mut E, x: E::V) -> E::V {
    let h = halves(e, x);
    let abs_hi = opk(e, And, h.hi, !SIGN);
    let mag = Halves { lo: h.lo, hi: abs_hi };
    let nz = nonzero(e, mag);
    let s = opk(e, Ishr, h.hi, 31);
    and(e, nz, s)
}

/// A positive double with exponent field `field` (a 32-bit value) and a
/// zero mantissa: 2^(field - 1023).
fn pow2<E: Emit>(e: &mut E, field: E::V) -> E::V {
    let hi = opk(e, Shl, field, 20);
    let z = e.k32(0);
    e.pack(z, hi)
}

/// The double with bits `x` plus `delta` (-1, 0 or 1 as a 32-bit value)
/// for a positive finite `x`: its neighbour, or itself.
fn step<E: Emit>(e: &mut E, x: E::V, delta: E::V) -> E::V {
    let h = halves(e, x);
    let hi_delta = opk(e, Ishr, delta, 31);
    let d = Halves { lo: delta, hi: hi_delta };
    let r = add(e, h, d);
    join(e, r)
}

/// `a / b` correctly rounded.
fn ddiv<E: Emit>(e: &mut E, a: E::V, b: E::V) -> E::V {
    let (xa, xb) = (halves(e, a), halves(e, b));
    let (ca, cb) = (classify(e, xa), classify(e, xb));
    let (ma, ea) = scale(e, a);
    let (mb, eb) = scale(e, b);
    let ma = join(e, ma);
    let nmb = Halves { lo: mb.lo, hi: opk(e, Or, mb.hi, SIGN) };
    let mb = join(e, mb);
    let nmb = join(e, nmb);
    let one = e.k64(1f64.to_bits());
    // The seed: 1/mb in f32 (mb in [1, 2) converts without overflow).
    let f = e.alu(D2f, &[mb]);
    let r32 = e.alu(Rcp, &[f]);
    let mut y = e.alu(F2d, &[r32]);
    for _ in 0..3 {
        let err = e.alu(Dfma, &[nmb, y, one]);
        y = e.alu(Dfma, &[y, err, y]);
    }
    let mut q = e.alu(Dmul, &[ma, y]);
    for _ in 0..2 {
        let r = e.alu(Dfma, &[nmb, q, ma]);
        q = e.alu(Dfma, &[r, y, q]);
    }
    // The last bit, from the exact residual against the two midpoints.
    let qh = halves(e, q);
    let qe = exponent(e, qh.hi);
    let r = e.alu(Dfma, &[nmb, q, ma]);
    let half_up_field = opk(e, Uadd, qe, (-53i32) as u32);
    let half_up = pow2(e, half_up_field);
    let above = e.alu(Dfma, &[nmb, half_up, r]);
    let up = positive(e, above);
    let mant_hi = opk(e, And, qh.hi, 0x000f_ffff);
    let mant = Halves { lo: qh.lo, hi: mant_hi };
    let mant_nz = nonzero(e, mant);
    let half_dn_field = opk(e, Uadd, qe, (-54i32) as u32);
    let half_dn_field = e.select(mant_nz, half_up_field, half_dn_field);
    let half_dn = pow2(e, half_dn_field);
    let below_mid = e.alu(Dfma, &[mb, half_dn, r]);
    let dn = negative(e, below_mid);
    let plus = opk(e, And, up, 1);
    let minus = e.k32(u32::MAX);
    let delta = e.select(dn, minus, plus);
    let q = step(e, q, delta);
    let r = e.alu(Dfma, &[nmb, q, ma]);
    let r_pos = positive(e, r);
    let r_neg = negative(e, r);
    // Back to the true exponent: field = qe + ea - eb.
    let qh = halves(e, q);
    let qe = exponent(e, qh.hi);
    let neb = e.alu(Ineg, &[eb]);
    let shift = e.alu(Uadd, &[ea, neb]);
    let field = e.alu(Uadd, &[qe, shift]);
    let sign = e.alu(Xor, &[xa.hi, xb.hi]);
    let sign = opk(e, And, sign, SIGN);
    let finite = unscale(e, qh, field, sign, r_pos, r_neg);
    // Special operands.
    let inf = konst(e, 0x7ff0_0000_0000_0000);
    let inf = Halves { lo: inf.lo, hi: e.alu(Or, &[inf.hi, sign]) };
    let zero = Halves { lo: e.k32(0), hi: sign };
    let invalid_zero = and(e, ca.zero, cb.zero);
    let invalid_inf = and(e, ca.inf, cb.inf);
    let invalid = or(e, invalid_zero, invalid_inf);
    let to_inf = or(e, ca.inf, cb.zero);
    let to_zero = or(e, ca.zero, cb.inf);
    let r = select(e, to_zero, zero, finite);
    let r = select(e, to_inf, inf, r);
    let dnan = konst(e, DEFAULT_NAN);
    let r = select(e, invalid, dnan, r);
    let qa = Halves { lo: xa.lo, hi: opk(e, Or, xa.hi, 0x0008_0000) };
    let qb = Halves { lo: xb.lo, hi: opk(e, Or, xb.hi, 0x0008_0000) };
    let nan = select(e, ca.nan, qa, qb);
    let any_nan = or(e, ca.nan, cb.nan);
    let r = select(e, any_nan, nan, r);
    join(e, r)
}

/// The positive significand `q` (exponent field `qe` of its own) given
/// the exponent field `field` and the sign bit `sign`: infinity above the
/// range, a denormal or zero below it rounded once (see the module
/// documentation), `r_pos`/`r_neg` telling where the exact value lies
/// relative to `q`.
fn unscale<E: Emit>(e: &mut E, q: Halves<E::V>, field: E::V, sign: E::V, r_pos: E::V, r_neg: E::V) -> Halves<E::V> {
    // Normal: replace the exponent field.
    let cleared = opk(e, And, q.hi, 0x000f_ffff);
    let f20 = opk(e, Shl, field, 20);
    let nhi = e.alu(Or, &[cleared, f20]);
    let nhi = e.alu(Or, &[nhi, sign]);
    let normal = Halves { lo: q.lo, hi: nhi };
    // Denormal: the 53-bit significand shifted right by d = 1 - field
    // (at most 54: everything shifted out rounds to zero).
    let implicit = opk(e, Or, cleared, 0x0010_0000);
    let s = Halves { lo: q.lo, hi: implicit };
    let nf = e.alu(Ineg, &[field]);
    let d = opk(e, Uadd, nf, 1);
    let d = opk(e, Imin, d, 54);
    let d = opk(e, Imax, d, 1);
    let kept = shr(e, s, d);
    let dm1 = opk(e, Uadd, d, u32::MAX);
    let half = bit(e, dm1);
    let mask = low_mask(e, d);
    let dropped = bitwise(e, And, s, mask);
    let above_half = ult(e, half, dropped);
    let below_half = ult(e, dropped, half);
    let exact_half = or(e, above_half, below_half);
    let exact_half = not(e, exact_half);
    let lsb = opk(e, And, kept.lo, 1);
    let odd = opk(e, Usne, lsb, 0);
    let exact = or(e, r_pos, r_neg);
    let exact = not(e, exact);
    let tie_even = and(e, exact, odd);
    let tie_up = or(e, r_pos, tie_even);
    let tie = and(e, exact_half, tie_up);
    let up = or(e, above_half, tie);
    let inc = opk(e, And, up, 1);
    let z = e.k32(0);
    let rounded = add(e, kept, Halves { lo: inc, hi: z });
    let dhi = e.alu(Or, &[rounded.hi, sign]);
    let denormal = Halves { lo: rounded.lo, hi: dhi };
    let inf_hi = opk(e, Or, sign, 0x7ff0_0000);
    let inf = Halves { lo: z, hi: inf_hi };
    let k2047 = e.k32(2047);
    let over = e.alu(Isge, &[field, k2047]);
    let under = opk(e, Islt, field, 1);
    let r = select(e, under, denormal, normal);
    select(e, over, inf, r)
}

/// `sqrt(a)` correctly rounded.
fn dsqrt<E: Emit>(e: &mut E, a: E::V) -> E::V {
    let x = halves(e, a);
    let c = classify(e, x);
    let (m, ex) = scale(e, a);
    // An odd exponent moves into the significand: m in [1, 4), ex even.
    let odd = opk(e, And, ex, 1);
    let odd20 = opk(e, Shl, odd, 20);
    let mhi = e.alu(Uadd, &[m.hi, odd20]);
    let m = join(e, Halves { lo: m.lo, hi: mhi });
    // ex - odd: clearing the low bit of an odd exponent subtracts one
    // (two's complement, either sign).
    let ex = e.alu(Xor, &[ex, odd]);
    let one = e.k64(1f64.to_bits());
    let half = e.k64(0.5f64.to_bits());
    let nm = {
        let h = halves(e, m);
        let hi = opk(e, Or, h.hi, SIGN);
        e.pack(h.lo, hi)
    };
    // Seed 1/sqrt(m) in f32, then y += y/2 * (1 - m*y*y).
    let f = e.alu(D2f, &[m]);
    let r32 = e.alu(Rsq, &[f]);
    let mut y = e.alu(F2d, &[r32]);
    for _ in 0..3 {
        let yy = e.alu(Dmul, &[y, y]);
        let d = e.alu(Dfma, &[nm, yy, one]);
        let hy = e.alu(Dmul, &[y, half]);
        y = e.alu(Dfma, &[hy, d, y]);
    }
    // s = m*y, then s += (m - s*s) * y/2 twice.
    let hy = e.alu(Dmul, &[y, half]);
    let mut s = e.alu(Dmul, &[m, y]);
    for _ in 0..2 {
        let ns = {
            let h = halves(e, s);
            let hi = opk(e, Xor, h.hi, SIGN);
            e.pack(h.lo, hi)
        };
        let r = e.alu(Dfma, &[ns, s, m]);
        s = e.alu(Dfma, &[r, hy, s]);
    }
    // Tuckerman: s is right when s*(s - ulp) < m <= s*(s + ulp).
    let minus = e.k32(u32::MAX);
    let plus = e.k32(1);
    let prev = step(e, s, minus);
    let next = step(e, s, plus);
    let lo_test = e.alu(Dfma, &[s, prev, nm]);
    let too_big = negative(e, lo_test);
    let too_big = not(e, too_big);
    let hi_test = e.alu(Dfma, &[s, next, nm]);
    let too_small = negative(e, hi_test);
    let zero = e.k32(0);
    let delta = e.select(too_small, plus, zero);
    let delta = e.select(too_big, minus, delta);
    let s = step(e, s, delta);
    // Back to scale: add ex/2 to the exponent field (s in [1, 2)).
    let sh = halves(e, s);
    let halfe = opk(e, Ishr, ex, 1);
    let add_e = opk(e, Shl, halfe, 20);
    let hi = e.alu(Uadd, &[sh.hi, add_e]);
    let finite = Halves { lo: sh.lo, hi };
    // Specials: NaN quieted, negative (not -0) gives the default NaN, ±0
    // and +inf themselves.
    let quiet = Halves { lo: x.lo, hi: opk(e, Or, x.hi, 0x0008_0000) };
    let keep = or(e, c.zero, c.inf);
    let r = select(e, keep, x, finite);
    let nz = not(e, c.zero);
    let neg = and(e, c.neg, nz);
    let dnan = konst(e, DEFAULT_NAN);
    let r = select(e, neg, dnan, r);
    let r = select(e, c.nan, quiet, r);
    join(e, r)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::legalize_doubles::emit::Evaluate;

    fn operands() -> Vec<u64> {
        let mut v: Vec<u64> = [
            0.0f64,
            -0.0,
            1.0,
            -1.0,
            2.0,
            3.0,
            0.1,
            -7.0,
            1e300,
            -1e-300,
            f64::MAX,
            f64::MIN_POSITIVE,
            5e-324,
            -5e-324,
            f64::from_bits(0x000f_ffff_ffff_ffff),
            1e-310,
            f64::INFINITY,
            f64::NEG_INFINITY,
            4.0,
            0.25,
            1.0000000000000002,
            0.9999999999999999,
        ]
        .into_iter()
        .map(f64::to_bits)
        .collect();
        v.extend([0x7ff8_0000_0000_0000, 0xfff0_0000_0000_0001, 0x7ff4_0000_0000_0000]);
        let mut rng = testkit::Rng::new(0x2545_f491_4f6c_dd1d);
        for _ in 0..400 {
            let s = rng.next_u64();
            v.push(s);
            v.push((s >> 12) | 0x3ff0_0000_0000_0000);
        }
        v
    }

    fn same(a: u64, b: u64) -> bool {
        a == b || (f64::from_bits(a).is_nan() && f64::from_bits(b).is_nan())
    }

    #[test]
    fn unary_ops_are_correctly_rounded() {
        for op in [Drcp, Dsqrt, Drsq] {
            for &a in &operands() {
                let want = semantics::eval(op, 0, &[a]).unwrap_or_default();
                let got = lower(&mut Evaluate, op, &[a]).unwrap_or_default();
                assert!(
                    same(got, want),
                    "{op} {a:#018x} ({:e}): got {got:#018x}, want {want:#018x}",
                    f64::from_bits(a)
                );
            }
        }
    }

    /// Quotients below the normal range round once: exact halves go to
    /// even, and quotients just above or below a half go up or down,
    /// which rounding to 53 bits first and then shifting would get wrong.
    #[test]
    fn denormal_quotients_round_once() {
        let two = 2f64.to_bits();
        let cases = [
            (3u64, two),                      // 1.5 * 2^-1074: a tie, to even (2)
            (5, two),                         // 2.5 * 2^-1074: a tie, to even (2)
            (3, two - 1),                     // just above the tie: up
            (3, two + 1),                     // just below the tie: down
            (0x000f_ffff_ffff_ffff, two - 1), // the largest denormal, just above half of it
            (0x0010_0000_0000_0001, 0x4000_0000_0000_0001),
            (1, 0x3ff8_0000_0000_0000), // 2^-1074 / 1.5: rounds to 2^-1074
            (1, two),                   // exactly half the smallest denormal: to even (0)
            (1, 0x4000_0000_0000_0001), // below that half: 0
        ];
        for (a, b) in cases {
            for (a, b) in [(a, b), (a | 1 << 63, b), (a, b | 1 << 63)] {
                let want = semantics::eval(Ddiv, 0, &[a, b]).unwrap_or_default();
                let got = lower(&mut Evaluate, Ddiv, &[a, b]).unwrap_or_default();
                assert_eq!(got, want, "{a:#018x} / {b:#018x}");
            }
        }
        // Random operands whose quotient falls below the normal range.
        let mut rng = testkit::Rng::new(0x1234_5678_9abc_def1);
        for _ in 0..20_000 {
            let s = rng.next_u64();
            // 2^(ea - eb) between 2^-1075 and 2^-1022.
            let ea = 1 + (s >> 3) % 60;
            let eb = ea + 1022 + (s >> 40) % 54;
            let a = ((s >> 12) & 0x000f_ffff_ffff_ffff) | (ea << 52);
            let b = ((s.rotate_left(17) >> 12) & 0x000f_ffff_ffff_ffff) | (eb << 52);
            assert!(f64::from_bits(a) / f64::from_bits(b) < f64::MIN_POSITIVE * 2.0);
            let want = semantics::eval(Ddiv, 0, &[a, b]).unwrap_or_default();
            let got = lower(&mut Evaluate, Ddiv, &[a, b]).unwrap_or_default();
            assert_eq!(got, want, "{a:#018x} / {b:#018x}");
        }
    }

    #[test]
    fn ddiv_is_correctly_rounded() {
        let ops = operands();
        for &a in ops.iter().step_by(3) {
            for &b in ops.iter().step_by(5) {
                let want = semantics::eval(Ddiv, 0, &[a, b]).unwrap_or_default();
                let got = lower(&mut Evaluate, Ddiv, &[a, b]).unwrap_or_default();
                assert!(same(got, want), "{a:#018x} / {b:#018x}: got {got:#018x}, want {want:#018x}");
            }
        }
    }
}
