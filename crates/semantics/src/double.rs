//! Double-precision opcodes, on one channel pair.

use super::{f64_of, mask32};
use tgsi::Opcode;

/// C's `fmax` as glibc computes it on x86-64: a NaN operand yields the
/// other one, and of two equal operands the second is returned.
fn fmax(x: f64, y: f64) -> f64 {
    if x.is_nan() {
        y
    } else if y.is_nan() || x > y {
        x
    } else {
        y
    }
}

/// C's `fmin` as glibc computes it on x86-64, see [`fmax`].
fn fmin(x: f64, y: f64) -> f64 {
    if x.is_nan() {
        y
    } else if y.is_nan() || x < y {
        x
    } else {
        y
    }
}

/// `x * 2^n` with one rounding, as C's `ldexp` (musl's `scalbn`: the
/// scaling is split so that no intermediate step rounds).
fn ldexp(x: f64, n: i32) -> f64 {
    let mut y = x;
    let mut n = n;
    let big = f64::from_bits(0x7fe0_0000_0000_0000); // 2^1023
    let small = f64::from_bits(0x0360_0000_0000_0000); // 2^-1022 * 2^53
    if n > 1023 {
        y *= big;
        n -= 1023;
        if n > 1023 {
            y *= big;
            n -= 1023;
            n = n.min(1023);
        }
    } else if n < -1022 {
        y *= small;
        n += 1022 - 53;
        if n < -1022 {
            y *= small;
            n += 1022 - 53;
            n = n.max(-1022);
        }
    }
    y * f64::from_bits(((0x3ff + n) as u64) << 52)
}

/// The sign as -1.0, 0.0 or 1.0; NaN and -0.0 give 0.0.
fn sign(x: f64) -> f64 {
    if x < 0.0 {
        -1.0
    } else if x > 0.0 {
        1.0
    } else {
        0.0
    }
}

/// The double opcodes; `None` for the others or a wrong operand count.
pub(super) fn eval(op: Opcode, args: &[u64]) -> Option<u64> {
    use Opcode::*;
    let d = f64_of;
    let r: f64 = match (op, args) {
        (Dadd, &[a, b]) => d(a) + d(b),
        (Dmul, &[a, b]) => d(a) * d(b),
        (Ddiv, &[a, b]) => d(a) / d(b),
        // Unfused, as Mesa: two roundings.
        (Dmad, &[a, b, c]) => d(a) * d(b) + d(c),
        (Dfma, &[a, b, c]) => d(a).mul_add(d(b), d(c)),
        (Dmin, &[a, b]) => fmin(d(a), d(b)),
        (Dmax, &[a, b]) => fmax(d(a), d(b)),
        (Dneg, &[a]) => -d(a),
        // Mesa's `x >= 0.0 ? x : -x`: -0.0 stays -0.0, NaN gets its sign
        // flipped.
        (Dabs, &[a]) => {
            if d(a) >= 0.0 {
                d(a)
            } else {
                -d(a)
            }
        }
        (Drcp, &[a]) => 1.0 / d(a),
        (Dsqrt, &[a]) => d(a).sqrt(),
        (Drsq, &[a]) => 1.0 / d(a).sqrt(),
        (Dfrac, &[a]) => d(a) - d(a).floor(),
        (Dflr, &[a]) => d(a).floor(),
        (Dceil, &[a]) => d(a).ceil(),
        (Dtrunc, &[a]) => d(a).trunc(),
        // Halves to even, as ROUND.
        (Dround, &[a]) => d(a).round_ties_even(),
        (Dssg, &[a]) => sign(d(a)),
        (Dldexp, &[a, n]) => ldexp(d(a), n as u32 as i32),

        (Dslt, &[a, b]) => return Some(mask32(d(a) < d(b))),
        (Dsge, &[a, b]) => return Some(mask32(d(a) >= d(b))),
        (Dseq, &[a, b]) => return Some(mask32(d(a) == d(b))),
        (Dsne, &[a, b]) => return Some(mask32(d(a) != d(b))),
        _ => return None,
    };
    Some(r.to_bits())
}
