//! 32-bit integer opcodes: arithmetic, comparisons, shifts, logic and bit
//! fields.

use super::mask32;
use tgsi::Opcode;

/// The integer opcodes; `None` for the others or a wrong operand count.
pub(super) fn eval(op: Opcode, args: &[u64]) -> Option<u64> {
    use Opcode::*;
    let u = |x: u64| x as u32;
    let i = |x: u64| x as u32 as i32;
    let r: u32 = match (op, args) {
        (Uarl, &[a]) => u(a),
        (Uadd, &[a, b]) => u(a).wrapping_add(u(b)),
        (Umul, &[a, b]) => u(a).wrapping_mul(u(b)),
        (Umad, &[a, b, c]) => u(a).wrapping_mul(u(b)).wrapping_add(u(c)),
        (ImulHi, &[a, b]) => ((i(a) as i64 * i(b) as i64) >> 32) as u32,
        (UmulHi, &[a, b]) => ((u(a) as u64 * u(b) as u64) >> 32) as u32,
        // Division by zero: UDIV and UMOD give all ones (spec), IDIV gives 0
        // and MOD all ones (Mesa). INT_MIN / -1 wraps.
        (Udiv, &[a, b]) => u(a).checked_div(u(b)).unwrap_or(u32::MAX),
        (Umod, &[a, b]) => u(a).checked_rem(u(b)).unwrap_or(u32::MAX),
        (Idiv, &[a, b]) => {
            if i(b) == 0 {
                0
            } else {
                i(a).wrapping_div(i(b)) as u32
            }
        }
        (Mod, &[a, b]) => {
            if i(b) == 0 {
                u32::MAX
            } else {
                i(a).wrapping_rem(i(b)) as u32
            }
        }
        (Ineg, &[a]) => i(a).wrapping_neg() as u32,
        (Iabs, &[a]) => i(a).wrapping_abs() as u32,
        (Issg, &[a]) => i(a).signum() as u32,
        (Imin, &[a, b]) => i(a).min(i(b)) as u32,
        (Imax, &[a, b]) => i(a).max(i(b)) as u32,
        (Umin, &[a, b]) => u(a).min(u(b)),
        (Umax, &[a, b]) => u(a).max(u(b)),

        (And, &[a, b]) => u(a) & u(b),
        (Or, &[a, b]) => u(a) | u(b),
        (Xor, &[a, b]) => u(a) ^ u(b),
        (Not, &[a]) => !u(a),
        // Shift counts are taken modulo 32.
        (Shl, &[a, b]) => u(a) << (u(b) & 31),
        (Ishr, &[a, b]) => (i(a) >> (u(b) & 31)) as u32,
        (Ushr, &[a, b]) => u(a) >> (u(b) & 31),

        (Islt, &[a, b]) => return Some(mask32(i(a) < i(b))),
        (Isge, &[a, b]) => return Some(mask32(i(a) >= i(b))),
        (Useq, &[a, b]) => return Some(mask32(u(a) == u(b))),
        (Usne, &[a, b]) => return Some(mask32(u(a) != u(b))),
        (Uslt, &[a, b]) => return Some(mask32(u(a) < u(b))),
        (Usge, &[a, b]) => return Some(mask32(u(a) >= u(b))),

        (Ibfe, &[v, off, bits]) => bitfield_extract(u(v), u(off), u(bits), true),
        (Ubfe, &[v, off, bits]) => bitfield_extract(u(v), u(off), u(bits), false),
        (Bfi, &[base, insert, off, bits]) => bitfield_insert(u(base), u(insert), u(off), u(bits)),
        (Brev, &[a]) => u(a).reverse_bits(),
        (Popc, &[a]) => u(a).count_ones(),
        (Lsb, &[a]) => {
            if u(a) == 0 {
                u32::MAX
            } else {
                u(a).trailing_zeros()
            }
        }
        (Umsb, &[a]) => highest_set_bit(u(a)),
        // The highest bit that differs from the sign: for negative values
        // the highest clear bit. 0 and -1 give -1.
        (Imsb, &[a]) => highest_set_bit(if i(a) < 0 { !u(a) } else { u(a) }),
        _ => return None,
    };
    Some(r as u64)
}

/// The index of the highest set bit, or -1 (all ones) for 0.
fn highest_set_bit(x: u32) -> u32 {
    if x == 0 {
        u32::MAX
    } else {
        31 - x.leading_zeros()
    }
}

/// IBFE and UBFE as Mesa's `micro_ibfe`/`micro_ubfe` define the cases the
/// spec leaves undefined: the offset is taken modulo 32; width 32 at offset 0
/// is the whole value; otherwise the width is taken modulo 32, width 0 gives
/// 0, and a field reaching past bit 31 is the value shifted right by the
/// offset (arithmetically for IBFE).
fn bitfield_extract(value: u32, offset: u32, width: u32, signed: bool) -> u32 {
    let offset = offset & 31;
    if width == 32 && offset == 0 {
        return value;
    }
    let width = width & 31;
    if width == 0 {
        0
    } else if width + offset < 32 {
        let up = value << (32 - width - offset);
        if signed {
            ((up as i32) >> (32 - width)) as u32
        } else {
            up >> (32 - width)
        }
    } else if signed {
        ((value as i32) >> offset) as u32
    } else {
        value >> offset
    }
}

/// BFI as Mesa's `micro_bfi`: width 32 gives the inserted value whole; the
/// offset is taken modulo 32, and so is the width when building the mask
/// (`1 << width` on x86 shifts by `width & 31`).
fn bitfield_insert(base: u32, insert: u32, offset: u32, width: u32) -> u32 {
    if width == 32 {
        return insert;
    }
    let offset = offset & 31;
    let mask = (1u32 << (width & 31)).wrapping_sub(1) << offset;
    ((insert << offset) & mask) | (base & !mask)
}
