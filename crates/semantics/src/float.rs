//! 32-bit float opcodes: arithmetic, comparisons, selections, the
//! replicated scalar functions and the channel-dependent LIT, EXP, LOG, DST.

use super::{f32_of, mask32};
use tgsi::Opcode;

/// The one NaN every 32-bit float operation yields: the positive quiet NaN
/// with no payload (what x86's `addps` makes of two infinities, and
/// Mesa's `tgsi_exec` prints for most NaN results).
pub const CANONICAL_NAN: u32 = 0x7fc0_0000;

/// The bits of a float operation's result: [`CANONICAL_NAN`] for any NaN.
///
/// Which NaN payload an operation on two NaNs keeps depends on the order
/// of its operands, which compilers feel free to swap (addition and
/// multiplication commute to LLVM), so constant folding, the interpreter's
/// batch loops and the JIT could each keep a different one; an integer
/// operation reading the result would then show it. One NaN makes every
/// tier agree bit for bit.
#[inline(always)]
pub fn canonical(x: f32) -> u32 {
    if x.is_nan() {
        CANONICAL_NAN
    } else {
        x.to_bits()
    }
}

/// A float result as argument-sized bits, its NaN made canonical.
fn f32_bits(x: f32) -> u64 {
    canonical(x) as u64
}

/// `log2(e)`: Mesa's LG2 multiplies by `1.442695f`, which is this same f32.
const LOG2_E: f32 = std::f32::consts::LOG2_E;

/// C's `fmaxf` as glibc computes it on x86-64 (`maxss` after the NaN
/// checks): a NaN operand yields the other one, and of two equal operands
/// (such as -0.0 and +0.0) the second is returned.
pub fn fmax(x: f32, y: f32) -> f32 {
    if x.is_nan() {
        y
    } else if y.is_nan() || x > y {
        x
    } else {
        y
    }
}

/// C's `fminf` as glibc computes it on x86-64, see [`fmax`].
pub fn fmin(x: f32, y: f32) -> f32 {
    if x.is_nan() {
        y
    } else if y.is_nan() || x < y {
        x
    } else {
        y
    }
}

/// `2^x` as Mesa computes it (`powf(2.0f, x)`).
pub fn exp2(x: f32) -> f32 {
    2.0f32.powf(x)
}

/// `log2(x)` as Mesa computes it.
pub fn lg2(x: f32) -> f32 {
    x.ln() * LOG2_E
}

/// `x * 2^n` with one rounding, as C's `ldexpf` (musl's `scalbnf`: the
/// scaling is split so that no intermediate step rounds).
pub(super) fn ldexp(x: f32, n: i32) -> f32 {
    let mut y = x;
    let mut n = n;
    let big = f32::from_bits(0x7f00_0000); // 2^127
    let small = f32::from_bits(0x0c80_0000); // 2^-126 * 2^24
    if n > 127 {
        y *= big;
        n -= 127;
        if n > 127 {
            y *= big;
            n -= 127;
            n = n.min(127);
        }
    } else if n < -126 {
        y *= small;
        n += 126 - 24;
        if n < -126 {
            y *= small;
            n += 126 - 24;
            n = n.max(-126);
        }
    }
    y * f32::from_bits(((0x7f + n) as u32) << 23)
}

/// Below this magnitude an f32 may have a fraction; from it on every f32
/// is an integer.
const INTEGRAL: f32 = 8_388_608.0; // 2^23

/// `x.floor()` without a library call (the baseline x86-64 target has no
/// rounding instruction) and without a conversion to an integer (which
/// does not vectorize), so that batch loops vectorize: the nearest integer
/// as [`round_ties_even`] finds it, less one when that is above `x`.
pub fn floor(x: f32) -> f32 {
    if x.abs() < INTEGRAL {
        let r = round_ties_even(x);
        // -0.0 stays; 1.0 - 1.0 is +0.0, right for x in [0.5, 1).
        if r > x {
            r - 1.0
        } else {
            r
        }
    } else {
        x
    }
}

/// `x.ceil()`, as [`floor`].
pub fn ceil(x: f32) -> f32 {
    -floor(-x)
}

/// `x.trunc()`, as [`floor`]: the floor of the magnitude.
pub fn trunc(x: f32) -> f32 {
    floor(x.abs()).copysign(x)
}

/// `x.round_ties_even()`, as [`floor`]: adding 2^23 to the magnitude
/// leaves no fraction bits, so the addition rounds to an integer, ties to
/// even.
pub fn round_ties_even(x: f32) -> f32 {
    if x.abs() < INTEGRAL {
        ((x.abs() + INTEGRAL) - INTEGRAL).copysign(x)
    } else {
        x
    }
}

/// 1.0 or 0.0, the results of SLT, SGE and the other float-valued tests.
fn one_if(b: bool) -> u64 {
    f32_bits(if b { 1.0 } else { 0.0 })
}

/// The sign as -1.0, 0.0 or 1.0; NaN and -0.0 give 0.0 (Mesa's `micro_sgn`).
pub fn sign(x: f32) -> f32 {
    if x < 0.0 {
        -1.0
    } else if x > 0.0 {
        1.0
    } else {
        0.0
    }
}

/// The float opcodes; `None` for the others or a wrong operand count.
pub(super) fn eval(op: Opcode, chan: u8, args: &[u64]) -> Option<u64> {
    use Opcode::*;
    let f = f32_of;
    let r = match (op, args) {
        // Moves and selections copy bits (NaN payloads included); every
        // other float result that is NaN is the canonical NaN.
        (Mov, &[a]) => a & 0xffff_ffff,
        (Cmp, &[a, b, c]) => (if f(a) < 0.0 { b } else { c }) & 0xffff_ffff,
        (Ucmp, &[a, b, c]) => (if a as u32 != 0 { b } else { c }) & 0xffff_ffff,

        (Add, &[a, b]) => f32_bits(f(a) + f(b)),
        (Mul, &[a, b]) => f32_bits(f(a) * f(b)),
        (Div, &[a, b]) => f32_bits(f(a) / f(b)),
        // Unfused: the product is rounded before the addition.
        (Mad, &[a, b, c]) => f32_bits(f(a) * f(b) + f(c)),
        (Fma, &[a, b, c]) => f32_bits(f(a).mul_add(f(b), f(c))),
        (Lrp, &[a, b, c]) => f32_bits(f(a) * (f(b) - f(c)) + f(c)),
        (Min, &[a, b]) => f32_bits(fmin(f(a), f(b))),
        (Max, &[a, b]) => f32_bits(fmax(f(a), f(b))),
        (Ldexp, &[a, b]) => f32_bits(ldexp(f(a), b as u32 as i32)),

        (Frc, &[a]) => f32_bits(f(a) - f(a).floor()),
        (Flr, &[a]) => f32_bits(f(a).floor()),
        (Ceil, &[a]) => f32_bits(f(a).ceil()),
        (Trunc, &[a]) => f32_bits(f(a).trunc()),
        (Round, &[a]) => f32_bits(f(a).round_ties_even()),
        (Ssg, &[a]) => f32_bits(sign(f(a))),

        (Slt, &[a, b]) => one_if(f(a) < f(b)),
        (Sge, &[a, b]) => one_if(f(a) >= f(b)),
        (Seq, &[a, b]) => one_if(f(a) == f(b)),
        (Sne, &[a, b]) => one_if(f(a) != f(b)),
        (Sgt, &[a, b]) => one_if(f(a) > f(b)),
        (Sle, &[a, b]) => one_if(f(a) <= f(b)),
        (Fslt, &[a, b]) => mask32(f(a) < f(b)),
        (Fsge, &[a, b]) => mask32(f(a) >= f(b)),
        (Fseq, &[a, b]) => mask32(f(a) == f(b)),
        (Fsne, &[a, b]) => mask32(f(a) != f(b)),

        // Replicated scalars.
        (Rcp, &[a]) => f32_bits(1.0 / f(a)),
        (Rsq, &[a]) => f32_bits(1.0 / f(a).sqrt()),
        (Sqrt, &[a]) => f32_bits(f(a).sqrt()),
        (Ex2, &[a]) => f32_bits(exp2(f(a))),
        (Lg2, &[a]) => f32_bits(lg2(f(a))),
        (Pow, &[a, b]) => f32_bits(f(a).powf(f(b))),
        (Sin, &[a]) => f32_bits(f(a).sin()),
        (Cos, &[a]) => f32_bits(f(a).cos()),
        (Dp2, &[a0, a1, b0, b1]) => f32_bits(dot(&[a0, a1], &[b0, b1])),
        (Dp3, &[a0, a1, a2, b0, b1, b2]) => f32_bits(dot(&[a0, a1, a2], &[b0, b1, b2])),
        (Dp4, &[a0, a1, a2, a3, b0, b1, b2, b3]) => f32_bits(dot(&[a0, a1, a2, a3], &[b0, b1, b2, b3])),

        // Channel-dependent.
        (Lit, &[x, y, _, w]) => f32_bits(lit(chan, f(x), f(y), f(w))?),
        (Exp, &[x, _, _, _]) => f32_bits(exp(chan, f(x))?),
        (Log, &[x, _, _, _]) => f32_bits(log(chan, f(x))?),
        (Dst, &[_, a1, a2, _, _, b1, _, b3]) => f32_bits(match chan {
            0 => 1.0,
            1 => f(a1) * f(b1),
            2 => f(a2),
            3 => f(b3),
            _ => return None,
        }),
        _ => return None,
    };
    Some(r)
}

/// A dot product as Mesa accumulates it: a multiply, then unfused
/// multiply-adds in channel order.
fn dot(a: &[u64], b: &[u64]) -> f32 {
    let mut acc = f32_of(a[0]) * f32_of(b[0]);
    for (&x, &y) in a.iter().zip(b).skip(1) {
        acc += f32_of(x) * f32_of(y);
    }
    acc
}

/// LIT: (1, max(x, 0), x > 0 ? max(y, 0)^clamp(w, -128, 128) : 0, 1).
fn lit(chan: u8, x: f32, y: f32, w: f32) -> Option<f32> {
    Some(match chan {
        0 | 3 => 1.0,
        1 => fmax(x, 0.0),
        2 => {
            let power = fmax(fmin(w, 128.0), -128.0);
            let v = fmax(y, 0.0).powf(power);
            // Mesa's `micro_lt(0, x, v, 0)`: NaN x gives 0.
            if 0.0 < x {
                v
            } else {
                0.0
            }
        }
        _ => return None,
    })
}

/// EXP: (2^floor(x), x - floor(x), 2^x, 1).
fn exp(chan: u8, x: f32) -> Option<f32> {
    let fl = x.floor();
    Some(match chan {
        0 => exp2(fl),
        1 => x - fl,
        2 => exp2(x),
        3 => 1.0,
        _ => return None,
    })
}

/// LOG: (floor(log2|x|), |x| / 2^floor(log2|x|), log2|x|, 1).
fn log(chan: u8, x: f32) -> Option<f32> {
    let ax = x.abs();
    let l = lg2(ax);
    let fl = l.floor();
    Some(match chan {
        0 => fl,
        1 => ax / exp2(fl),
        2 => l,
        3 => 1.0,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The rounding functions against the library's, on every special
    /// value and on every f32 with a fraction near a power of two.
    #[test]
    fn rounding_without_a_library_call_is_exact() {
        let mut values: Vec<f32> = vec![0.0, -0.0, 0.5, -0.5, 1.5, -1.5, 2.5, -2.5, f32::INFINITY, f32::NEG_INFINITY];
        values.extend([f32::MIN_POSITIVE, f32::MAX, f32::MIN, f32::EPSILON, INTEGRAL, -INTEGRAL, 1.0e-45]);
        for e in -30..32 {
            let p = 2f32.powi(e);
            for k in -64..64 {
                values.push(p + k as f32 * p * f32::EPSILON);
                values.push(-(p + k as f32 * p * f32::EPSILON));
            }
        }
        let mut rng = testkit::Rng::new(0x2545_f491_4f6c_dd1d);
        for _ in 0..200_000 {
            values.push(f32::from_bits(rng.next_u32()));
        }
        for x in values {
            let same = |a: f32, b: f32| a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan());
            assert!(same(floor(x), x.floor()), "floor {x:e}");
            assert!(same(ceil(x), x.ceil()), "ceil {x:e}");
            assert!(same(trunc(x), x.trunc()), "trunc {x:e}");
            assert!(same(round_ties_even(x), x.round_ties_even()), "round {x:e}");
        }
    }
}
