//! Emulation of double and 64-bit integer operations with 32-bit integer
//! operations, for targets without them. Not written yet: nothing is
//! lowered this way, and the pass counts such operations as not lowered.

use super::emit::Emit;
use tgsi::Opcode;

/// The emulation of `opcode` on `args`, or `None` when there is none.
pub fn lower<E: Emit>(_e: &mut E, _opcode: Opcode, _args: &[E::V]) -> Option<E::V> {
    None
}
