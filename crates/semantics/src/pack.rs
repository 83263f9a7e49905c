//! Packing floats into 16-bit and 8-bit fields of one channel, and
//! unpacking them.
//!
//! PK2H and UP2H follow Mesa (`_mesa_float_to_half`, round to nearest even;
//! NaN stays NaN). Mesa's interpreter does not implement PK2US, PK4B, PK4UB
//! and their unpacking counterparts (the spec leaves the unpacking ones
//! "TBD"); they follow the spec's `f32_to_unorm16`/`snorm8`/`unorm8` with
//! the usual conversions of normalized formats: clamp, scale, round to
//! nearest even (NaN gives 0); unpacking divides by the scale (a signed
//! value is clamped to -1).

use super::float::{fmax, fmin};
use super::{f32_bits, f32_of};
use tgsi::Opcode;

/// `m >> shift` rounded to nearest, halves to even.
fn shift_round_even(m: u32, shift: u32) -> u32 {
    if shift >= 32 {
        return 0;
    }
    let q = m >> shift;
    let rem = m & ((1 << shift) - 1);
    let half = 1 << (shift - 1);
    if rem > half || (rem == half && q & 1 == 1) {
        q + 1
    } else {
        q
    }
}

/// An f32 as a binary16, rounded to nearest even. Values beyond the range
/// become infinities; NaNs stay quiet NaNs with the top bits of their
/// payload (as x86's `vcvtps2ph`, which Mesa uses when it can).
pub(super) fn f32_to_f16(x: f32) -> u16 {
    let b = x.to_bits();
    let sign = ((b >> 16) & 0x8000) as u16;
    let exp = ((b >> 23) & 0xff) as i32;
    let man = b & 0x7f_ffff;
    if exp == 0xff {
        let nan = if man != 0 { 0x200 | (man >> 13) as u16 } else { 0 };
        return sign | 0x7c00 | nan;
    }
    if exp == 0 {
        // f32 subnormals are far below the smallest binary16 subnormal.
        return sign;
    }
    let m = man | 0x80_0000;
    let e = exp - 127 + 15;
    if e >= 0x1f {
        return sign | 0x7c00;
    }
    let bits = if e >= 1 {
        // The rounded mantissa carries its implicit bit into the exponent,
        // which also rounds the largest values up to infinity.
        (((e - 1) as u32) << 10) + shift_round_even(m, 13)
    } else {
        shift_round_even(m, (14 - e) as u32)
    };
    sign | bits as u16
}

/// A binary16 as an f32 (exact). NaNs stay NaNs (made quiet).
pub(super) fn f16_to_f32(h: u16) -> f32 {
    let sign = ((h & 0x8000) as u32) << 16;
    let exp = ((h >> 10) & 0x1f) as u32;
    let man = (h & 0x3ff) as u32;
    match exp {
        0 => {
            // Zero or subnormal: man * 2^-24, exact in f32.
            let v = man as f32 * f32::from_bits(0x3380_0000);
            f32::from_bits(v.to_bits() | sign)
        }
        0x1f => {
            let nan = if man != 0 { 0x40_0000 | (man << 13) } else { 0 };
            f32::from_bits(sign | 0x7f80_0000 | nan)
        }
        _ => f32::from_bits(sign | ((exp + 112) << 23) | (man << 13)),
    }
}

/// A float in [0, 1] scaled to `max` and rounded (NaN gives 0).
fn to_unorm(x: f32, max: f32) -> u32 {
    (fmin(fmax(x, 0.0), 1.0) * max).round_ties_even() as u32
}

/// A float in [-1, 1] scaled to 127 and rounded, as a byte (NaN gives 0).
fn to_snorm8(x: f32) -> u32 {
    ((fmin(fmax(x, -1.0), 1.0) * 127.0).round_ties_even() as i32 as u32) & 0xff
}

/// The packing opcodes; `None` for the others or a wrong operand count.
pub(super) fn eval(op: Opcode, chan: u8, args: &[u64]) -> Option<u64> {
    use Opcode::*;
    let f = f32_of;
    if chan > 3 && matches!(op, Up2h | Up2us | Up4b | Up4ub) {
        return None;
    }
    let half = |x: u64| if chan & 1 == 0 { x as u16 } else { (x >> 16) as u16 };
    let byte = |x: u64| (x >> (8 * chan)) as u8;
    let r = match (op, args) {
        (Pk2h, &[x, y]) => f32_to_f16(f(x)) as u64 | (f32_to_f16(f(y)) as u64) << 16,
        (Pk2us, &[x, y]) => (to_unorm(f(x), 65535.0) | to_unorm(f(y), 65535.0) << 16) as u64,
        (Pk4ub, &[x, y, z, w]) => {
            let b = [x, y, z, w].map(|v| to_unorm(f(v), 255.0));
            (b[0] | b[1] << 8 | b[2] << 16 | b[3] << 24) as u64
        }
        (Pk4b, &[x, y, z, w]) => {
            let b = [x, y, z, w].map(|v| to_snorm8(f(v)));
            (b[0] | b[1] << 8 | b[2] << 16 | b[3] << 24) as u64
        }
        // Unpacking reads src.x: x and z get the low half, y and w the high.
        (Up2h, &[x, _, _, _]) => f32_bits(f16_to_f32(half(x))),
        (Up2us, &[x, _, _, _]) => f32_bits(half(x) as f32 / 65535.0),
        (Up4ub, &[x, _, _, _]) => f32_bits(byte(x) as f32 / 255.0),
        (Up4b, &[x, _, _, _]) => f32_bits(fmax(byte(x) as i8 as f32 / 127.0, -1.0)),
        _ => return None,
    };
    Some(r)
}
