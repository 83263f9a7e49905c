//! What folding knows of a value at compile time: its bits when it is a
//! constant (or an address register write of constants), and whether it
//! can be a signalling NaN (which decides whether a float identity is
//! exact).

use ir::{Function, Inst, InstData, Op, Source, Value};
use semantics::{apply_modifiers, eval, saturate};
use tgsi::{File, Opcode};

/// The bits of `v` when it is a constant: `Const`, `Initial` (zero) or a
/// direct immediate read.
pub(super) fn const_of(func: &Function, immediates: &[tgsi::Immediate], v: Value) -> Option<u64> {
    let def = func.values.get(v)?.def;
    match &func.insts.get(def)?.op {
        Op::Const(bits) => Some(*bits),
        Op::Initial => Some(0),
        Op::Read(Source { file: File::Immediate, index, chan, .. }) => {
            // What the backend fills in: a missing immediate reads as 0.
            Some(immediates.get(*index as usize).map_or(0, |imm| imm.data[*chan as usize & 3]) as u64)
        }
        _ => None,
    }
}

/// The bits an `Alu` instruction whose operands are all constants
/// computes: the backend's own arithmetic, in the backend's order
/// (modifiers with the opcode's source type, `eval`, then `_SAT`).
pub(super) fn alu_value(func: &Function, immediates: &[tgsi::Immediate], inst: Inst) -> Option<u64> {
    alu_value_of(func.insts.get(inst)?, |v| const_of(func, immediates, v))
}

/// The bits the `Alu` instruction `data` computes when `bits` gives each
/// operand's value (as [`alu_value`] does for constants).
pub(super) fn alu_value_of(data: &InstData, bits: impl Fn(Value) -> Option<u64>) -> Option<u64> {
    let Op::Alu { opcode, chan } = data.op else { return None };
    let info = opcode.info();
    let args = data
        .args
        .iter()
        .enumerate()
        .map(|(i, a)| bits(a.value).map(|b| apply_modifiers(opcode.src_type(i), b, a.neg, a.abs)))
        .collect::<Option<Vec<u64>>>()?;
    let v = match (opcode, args.as_slice()) {
        // Every lane holds a constant (the backend fills it in all lanes,
        // helpers included), so a derivative is `c - c`: +0.0, or the
        // canonical NaN for an infinity or a NaN.
        (Opcode::Ddx | Opcode::Ddy | Opcode::DdxFine | Opcode::DdyFine, &[c]) => {
            let finite = f32::from_bits(c as u32).is_finite();
            u64::from(if finite { 0.0f32.to_bits() } else { semantics::CANONICAL_NAN })
        }
        _ => eval(opcode, chan, &args)?,
    };
    Some(if data.saturate { saturate(info.dst_type, v) } else { v })
}

/// The value of an indirect index: a constant, or an address register
/// write of constants (kept as an instruction, see `Ctx::alu`).
pub(super) fn index_of(func: &Function, immediates: &[tgsi::Immediate], v: Value) -> Option<u64> {
    const_of(func, immediates, v).or_else(|| alu_value(func, immediates, func.values.get(v)?.def))
}

/// Whether `opcode`'s result is never a NaN other than the canonical one
/// (the table of operations' NaN result).
fn is_quiet_op(opcode: Opcode) -> bool {
    semantics::facts(opcode).is_some_and(|f| f.nan != semantics::NanResult::Bits)
}

/// Whether `bits` is a NaN of float type `ty`.
pub(super) fn is_nan(ty: tgsi::OperandType, bits: u64) -> bool {
    match ty {
        tgsi::OperandType::Float => f32::from_bits(bits as u32).is_nan(),
        tgsi::OperandType::Double => f64::from_bits(bits).is_nan(),
        _ => false,
    }
}

/// Whether a 32-bit pattern is a signalling NaN (exponent all ones,
/// mantissa nonzero, quiet bit clear).
pub fn is_signalling_nan(bits: u32) -> bool {
    bits & 0x7f80_0000 == 0x7f80_0000 && bits & 0x007f_ffff != 0 && bits & 0x0040_0000 == 0
}

/// Whether a 32-bit pattern is a NaN other than the canonical one, which
/// an arithmetic identity such as `x * 1.0` would not give back unchanged.
pub fn is_other_nan(bits: u32) -> bool {
    f32::from_bits(bits).is_nan() && bits != semantics::CANONICAL_NAN
}

/// Whether `v` is known never to be a NaN other than the canonical one
/// (so `x * 1.0` gives `x` back): a constant that is not one, a saturated
/// result, or the result of an opcode whose NaN results are canonical or
/// that never gives one.
pub(crate) fn is_quiet(func: &Function, immediates: &[tgsi::Immediate], v: Value) -> bool {
    if let Some(bits) = const_of(func, immediates, v) {
        return !is_other_nan(bits as u32);
    }
    let Some(data) = func.values.get(v).and_then(|vd| func.insts.get(vd.def)) else { return false };
    match data.op {
        Op::Alu { opcode, .. } => data.saturate || is_quiet_op(opcode),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signalling_nans() {
        assert!(is_signalling_nan(0x7f80_0001));
        assert!(is_signalling_nan(0xffbf_ffff));
        assert!(!is_signalling_nan(0x7fc0_0000));
        assert!(!is_signalling_nan(0x7f80_0000));
        assert!(!is_signalling_nan(0));
    }
}
