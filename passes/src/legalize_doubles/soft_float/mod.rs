//! IEEE binary64 arithmetic on 32-bit integer words, round to nearest
//! even, denormals kept.
//!
//! The shape follows Berkeley SoftFloat: operands are unpacked into sign,
//! exponent and a significand normalized to bit 52 (denormals too); the
//! exact result is built in integer words with the bits below the
//! rounding point folded into a sticky bit; one shared routine rounds and
//! packs. Special operands (NaN, infinity, invalid cases) take the normal
//! path with meaningless bits and are replaced by selects at the end.
//!
//! NaN results follow x86 SSE: the first NaN operand, quieted, else the
//! default NaN 0xfff8000000000000 (DFMA: the backend's fma takes b's NaN
//! first, then a's, then c's).
//!
//! The parts: `pack` takes doubles apart and rounds and packs results,
//! `arith` the arithmetic (DADD, DMUL, DMAD, DFMA, DDIV, DRCP, DSQRT,
//! DRSQ), `compare` what only compares or moves bits (the comparisons,
//! DMIN, DMAX, DNEG, DABS), `convert` the conversions.

mod arith;
mod compare;
mod convert;
mod pack;

use crate::legalize_doubles::emit::Emit;
use tgsi::Opcode;

/// The double-precision opcodes; `None` for the others.
pub(super) fn lower<E: Emit>(e: &mut E, opcode: Opcode, args: &[E::V]) -> Option<E::V> {
    arith::lower(e, opcode, args)
        .or_else(|| compare::lower(e, opcode, args))
        .or_else(|| convert::lower(e, opcode, args))
}
