//! Conversions between floats, doubles and integers, and the address loads.
//!
//! Float-to-integer conversions are C casts in Mesa's interpreter, which are
//! undefined for NaN and out-of-range values. The results here are those of
//! the code x86-64 compilers emit for the casts:
//! - to `int`: `cvttss2si`/`cvttsd2si` on 32 bits, 0x80000000 for NaN and
//!   out of range (F2I, D2I, ARL, ARR);
//! - to `unsigned` (F2U, D2U): what gcc -O2 makes of Mesa's `micro_f2u` and
//!   `micro_d2u`, four `dst->u[i] = (uint)src->f[i]` lines that it
//!   vectorizes with SSE2 (`cvttps2dq`/`cvttpd2dq`, 32-bit signed, plus a fix
//!   for the top bit): values from 2^31 on are converted after subtracting
//!   2^31 and get the top bit set back, the others take the signed 32-bit
//!   conversion (checked against gcc 12 -O2 output). So [0, 2^32) converts
//!   exactly (2^31 to 2^32 - 1 included, as `(uint)f` must), NaN and values
//!   at or below -2^31 give 0x80000000 as the conformance README says,
//!   negative values above that wrap (-1.0 gives 0xffffffff; conformance
//!   cases depend on it), and values of 2^32 and above (+inf included) give
//!   0, where the README's "out of range gives 0x80000000" is too broad for
//!   the compiled code. The scalar 64-bit conversion of an unoptimized build
//!   would give 0 for NaN, against the README;
//! - to `int64_t`: the 64-bit conversion, 0x8000000000000000 for NaN and
//!   out of range (F2I64, D2I64);
//! - to `uint64_t`: values below 2^63 (and NaN) use the signed 64-bit
//!   conversion; values from 2^63 on are converted after subtracting 2^63
//!   and get the top bit flipped back, so 2^64 and above give 0 (F2U64,
//!   D2U64).

use super::{f32_bits, f32_of, f64_of};
use tgsi::Opcode;

/// `cvttsd2si` on 32 bits: truncation, or `i32::MIN` when the result does
/// not fit (NaN included).
pub fn trunc_i32(x: f64) -> i32 {
    if x > -2147483649.0 && x < 2147483648.0 {
        x as i32
    } else {
        i32::MIN
    }
}

/// `cvttsd2si` on 64 bits: truncation, or `i64::MIN` when the result does
/// not fit (NaN included).
fn trunc_i64(x: f64) -> i64 {
    // -2^63 itself converts to i64::MIN exactly; below it does not fit.
    if (-9223372036854775808.0..9223372036854775808.0).contains(&x) {
        x as i64
    } else {
        i64::MIN
    }
}

/// C's `(uint64_t)x` on x86-64.
fn trunc_u64(x: f64) -> u64 {
    const TWO_63: f64 = 9223372036854775808.0;
    if x >= TWO_63 {
        (trunc_i64(x - TWO_63) as u64) ^ (1 << 63)
    } else {
        trunc_i64(x) as u64
    }
}

/// C's `(unsigned)x` as Mesa's interpreter computes it (see the module
/// doc): the vectorized SSE2 sequence, 2^31 subtracted from large values so
/// the signed 32-bit conversion can take them, and the top bit set back.
pub fn trunc_u32(x: f64) -> u32 {
    const TWO_31: f64 = 2147483648.0;
    // NaN compares false and so takes the signed conversion: 0x80000000.
    if x >= TWO_31 {
        // Exact for f32 and f64 inputs below 2^32; from 2^32 on the signed
        // conversion overflows to 0x80000000 and the flip makes it 0.
        (trunc_i32(x - TWO_31) as u32) ^ 0x8000_0000
    } else {
        trunc_i32(x) as u32
    }
}

/// The conversion opcodes; `None` for the others or a wrong operand count.
pub(super) fn eval(op: Opcode, args: &[u64]) -> Option<u64> {
    use Opcode::*;
    let f = |x: u64| f32_of(x) as f64;
    let d = f64_of;
    let i = |x: u64| x as u32 as i32;
    let r = match (op, args) {
        // Address loads: floor, and Mesa's round (`floorf(x + 0.5f)`, halves
        // go up, unlike ROUND).
        (Arl, &[a]) => trunc_i32(f(a).floor()) as u32 as u64,
        (Arr, &[a]) => trunc_i32((f32_of(a) + 0.5).floor() as f64) as u32 as u64,

        (F2i, &[a]) => trunc_i32(f(a)) as u32 as u64,
        (F2u, &[a]) => trunc_u32(f(a)) as u64,
        (I2f, &[a]) => f32_bits(i(a) as f32),
        (U2f, &[a]) => f32_bits(a as u32 as f32),

        // Widening: a 32-bit operand, a 64-bit result.
        (F2d, &[a]) => f(a).to_bits(),
        (I2d, &[a]) => (i(a) as f64).to_bits(),
        (U2d, &[a]) => (a as u32 as f64).to_bits(),
        (F2i64, &[a]) => trunc_i64(f(a)) as u64,
        (F2u64, &[a]) => trunc_u64(f(a)),
        (I2i64, &[a]) => i(a) as i64 as u64,
        (U2i64, &[a]) => a as u32 as u64,

        // Narrowing: a 64-bit operand, a 32-bit result.
        (D2f, &[a]) => f32_bits(d(a) as f32),
        (D2i, &[a]) => trunc_i32(d(a)) as u32 as u64,
        (D2u, &[a]) => trunc_u32(d(a)) as u64,
        (U642f, &[a]) => f32_bits(a as f32),
        (I642f, &[a]) => f32_bits(a as i64 as f32),

        // 64-bit to 64-bit.
        (D2i64, &[a]) => trunc_i64(d(a)) as u64,
        (D2u64, &[a]) => trunc_u64(d(a)),
        (U642d, &[a]) => (a as f64).to_bits(),
        (I642d, &[a]) => (a as i64 as f64).to_bits(),
        _ => return None,
    };
    Some(r)
}
