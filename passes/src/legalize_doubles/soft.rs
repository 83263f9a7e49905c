//! Software emulation of double-precision and 64-bit integer operations
//! with 32-bit integer operations only, for targets without either.
//!
//! Every lowering is straight-line code (selects, no branches) over the
//! 32-bit halves of its operands, bit-exact with the backend's scalar
//! semantics (`exec::scalar`).

use super::emit::Emit;
use super::{soft_float, soft_int64};
use tgsi::Opcode;

/// The emulation of one scalar operation of `opcode` on `args` (operands
/// as [`exec::scalar::eval`] takes them), emitted into `e`; `None` for an
/// opcode (or operand count) this module does not emulate, in which case
/// nothing was emitted.
pub fn lower<E: Emit>(e: &mut E, opcode: Opcode, args: &[E::V]) -> Option<E::V> {
    soft_int64::lower(e, opcode, args).or_else(|| soft_float::lower(e, opcode, args))
}
