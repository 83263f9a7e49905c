//! Software emulation of double-precision and 64-bit integer operations
//! with 32-bit integer operations only, for targets without either.
//!
//! Every lowering is straight-line code (selects, no branches) over the
//! 32-bit halves of its operands, bit-exact with the backend's scalar
//! semantics (`semantics`).

use super::emit::Emit;
use super::{soft_float, soft_int64};
use ir::Ty;
use tgsi::Opcode;

/// The emulation of one scalar operation of `opcode` on `args` (operands
/// as [`semantics::eval`] takes them), emitted into `e`; `None` for an
/// opcode (or operand count) this module does not emulate, in which case
/// nothing was emitted.
pub fn lower<E: Emit>(e: &mut E, opcode: Opcode, args: &[E::V]) -> Option<E::V> {
    let mut e = Consts { inner: e, seen: Vec::new() };
    soft_int64::lower(&mut e, opcode, args).or_else(|| soft_float::lower(&mut e, opcode, args))
}

/// Emits each distinct constant once: the lowerings ask for the same
/// shift amounts and masks many times, and straight-line code lets the
/// first one serve every later use.
struct Consts<'a, E: Emit> {
    inner: &'a mut E,
    /// (64-bit, bits) and the value; a few dozen at most.
    seen: Vec<((bool, u64), E::V)>,
}

impl<E: Emit> Emit for Consts<'_, E> {
    type V = E::V;

    fn konst(&mut self, ty: Ty, bits: u64) -> E::V {
        let wide = ty == Ty::B64;
        let bits = if wide { bits } else { bits & 0xffff_ffff };
        if let Some(&(_, v)) = self.seen.iter().find(|(k, _)| *k == (wide, bits)) {
            return v;
        }
        let v = self.inner.konst(ty, bits);
        self.seen.push(((wide, bits), v));
        v
    }

    fn alu(&mut self, opcode: Opcode, args: &[E::V]) -> E::V {
        self.inner.alu(opcode, args)
    }

    fn split(&mut self, v: E::V) -> (E::V, E::V) {
        self.inner.split(v)
    }

    fn pack(&mut self, lo: E::V, hi: E::V) -> E::V {
        self.inner.pack(lo, hi)
    }
}
