//! Integer negations that cancel: `INEG` of `INEG x` or of `-x` (the
//! operand modifier is the same wrapping negation on an integer source),
//! and `NOT` of `NOT x`, are `x`.

use ir::{Function, Inst, Op, Operand, Ty, Value};
use tgsi::Opcode;

use super::remove_placed;
use crate::rewrite::{apply, Rewrites};

fn plain(o: &Operand) -> bool {
    !o.neg && !o.abs
}

/// The value `inst` is equal to, if it is a cancelling negation.
fn cancelled(func: &Function, inst: Inst) -> Option<Value> {
    let d = func.insts.get(inst)?;
    let (Op::Alu { opcode, .. }, [a], [r]) = (&d.op, d.args.as_slice(), d.results.as_slice()) else { return None };
    if d.saturate || func.values.get(*r)?.ty != Ty::B32 || func.values.get(a.value)?.ty != Ty::B32 {
        return None;
    }
    if *opcode == Opcode::Ineg && a.neg && !a.abs {
        return Some(a.value);
    }
    if !plain(a) || !matches!(opcode, Opcode::Ineg | Opcode::Not) {
        return None;
    }
    let inner = func.insts.get(func.values.get(a.value)?.def)?;
    match (&inner.op, inner.args.as_slice()) {
        (Op::Alu { opcode: o, .. }, [x]) if o == opcode && plain(x) && !inner.saturate => Some(x.value),
        _ => None,
    }
}

/// Replaces every cancelling negation by its operand's operand; returns
/// how many.
pub(super) fn cancel(func: &mut Function) -> u64 {
    let mut rw = Rewrites::default();
    let mut dead = Vec::new();
    for b in func.blocks_in_order() {
        let Some(bd) = func.blocks.get(b) else { continue };
        for &inst in &bd.insts {
            if let Some(x) = cancelled(func, inst) {
                rw.replace_value(func.result(inst), rw.value(x));
                dead.push(inst);
            }
        }
    }
    apply(func, &rw);
    remove_placed(func, &dead);
    dead.len() as u64
}
