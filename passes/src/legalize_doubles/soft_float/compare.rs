//! What only compares or moves bits, without unpacking significands: the
//! comparisons, DMIN and DMAX, DNEG and DABS.

use crate::legalize_doubles::emit::Emit;
use crate::legalize_doubles::soft_int64::{addk, neg64, opk, sel64, slt64, Pair};
use tgsi::Opcode::{self, *};

use super::pack::{is_nan, is_zero, unpack_fields, Unpacked};

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

/// The comparisons, DMIN, DMAX, DNEG and DABS; `None` for the others.
pub(super) fn lower<E: Emit>(e: &mut E, opcode: Opcode, args: &[E::V]) -> Option<E::V> {
    let wide = |e: &mut E, i: usize| e.split(args[i]);
    let out = |e: &mut E, (lo, hi): Pair<E::V>| Some(e.pack(lo, hi));
    match (opcode, args.len()) {
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
        _ => None,
    }
}
