//! 64-bit integer opcodes, on one channel pair.

use super::mask32;
use tgsi::Opcode;

/// The 64-bit integer opcodes; `None` for the others or a wrong operand
/// count.
pub(super) fn eval(op: Opcode, args: &[u64]) -> Option<u64> {
    use Opcode::*;
    let i = |x: u64| x as i64;
    // Shift counts come from the first channel of the count's pair, modulo 64.
    let count = |x: u64| (x as u32) & 63;
    let r = match (op, args) {
        (U64add, &[a, b]) => a.wrapping_add(b),
        (U64mul, &[a, b]) => a.wrapping_mul(b),
        (I64abs, &[a]) => i(a).wrapping_abs() as u64,
        (I64neg, &[a]) => i(a).wrapping_neg() as u64,
        (I64ssg, &[a]) => i(a).signum() as u64,
        (U64shl, &[a, b]) => a << count(b),
        (I64shr, &[a, b]) => (i(a) >> count(b)) as u64,
        (U64shr, &[a, b]) => a >> count(b),
        (I64min, &[a, b]) => i(a).min(i(b)) as u64,
        (I64max, &[a, b]) => i(a).max(i(b)) as u64,
        (U64min, &[a, b]) => a.min(b),
        (U64max, &[a, b]) => a.max(b),
        // Division by zero as Mesa: all ones, except I64DIV which gives 0.
        // INT64_MIN / -1 wraps.
        (U64div, &[a, b]) => a.checked_div(b).unwrap_or(u64::MAX),
        (U64mod, &[a, b]) => a.checked_rem(b).unwrap_or(u64::MAX),
        (I64div, &[a, b]) => {
            if b == 0 {
                0
            } else {
                i(a).wrapping_div(i(b)) as u64
            }
        }
        (I64mod, &[a, b]) => {
            if b == 0 {
                u64::MAX
            } else {
                i(a).wrapping_rem(i(b)) as u64
            }
        }

        (U64seq, &[a, b]) => mask32(a == b),
        (U64sne, &[a, b]) => mask32(a != b),
        (U64slt, &[a, b]) => mask32(a < b),
        (U64sge, &[a, b]) => mask32(a >= b),
        (I64slt, &[a, b]) => mask32(i(a) < i(b)),
        (I64sge, &[a, b]) => mask32(i(a) >= i(b)),
        _ => return None,
    };
    Some(r)
}
