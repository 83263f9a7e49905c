//! Copies with modifiers (`MOV t, -x`, `|x|`, `-|x|`) folded into the ALU
//! operands that read them as floats (or untyped, as `MOV` reads): float
//! negation flips the sign bit and absolute value clears it, whatever the
//! value (NaNs included), so `-(-x)` is `x` and `|-x|` is `|x|` bit for
//! bit. Integer readers are left alone: their `-` is a wrapping negation.

use ir::{Function, Inst, Op, Operand, Ty, Value};
use rustc_hash::FxHashMap as HashMap;
use tgsi::Opcode;

use super::groups::source_of;
use super::uses::Use;
use super::{remove_placed, Analyses};

/// What a reader reading `outer` of a copy of `inner` reads.
pub(super) fn compose(inner: Operand, outer: Operand) -> Operand {
    Operand {
        value: inner.value,
        neg: if outer.abs { outer.neg } else { inner.neg ^ outer.neg },
        abs: outer.abs || inner.abs,
    }
}

/// Whether argument `k` of `reader` reads its operand as a float (or
/// untyped) through a TGSI source operand emission can give modifiers.
fn float_read(func: &Function, reader: Inst, k: usize) -> Option<usize> {
    let d = func.insts.get(reader)?;
    let Op::Alu { opcode, .. } = d.op else { return None };
    let s = source_of(opcode, k)?;
    semantics::sign_bit_modifiers(opcode, s).then_some(s)
}

/// Folds every copy with modifiers whose uses all take it; returns how
/// many copies went.
pub(super) fn fold(func: &mut Function, analyses: &mut Analyses) -> u64 {
    let uses = analyses.uses(func);
    let mut copies: HashMap<Value, (Inst, Operand)> = HashMap::default();
    // The copies in program order: what is iterated (the map only answers
    // lookups, so nothing depends on hash order).
    let mut order: Vec<Value> = Vec::new();
    for b in func.blocks_in_order() {
        let Some(bd) = func.blocks.get(b) else { continue };
        for &inst in &bd.insts {
            let Some(d) = func.insts.get(inst) else { continue };
            let (Op::Alu { opcode: Opcode::Mov, .. }, [a], [r]) = (&d.op, d.args.as_slice(), d.results.as_slice())
            else {
                continue;
            };
            let b32 = |v: Value| func.values.get(v).is_some_and(|vd| vd.ty == Ty::B32);
            if d.saturate || !(a.neg || a.abs) || !b32(*r) || !b32(a.value) {
                continue;
            }
            let readers = uses.of(*r);
            let all_float = !readers.is_empty()
                && readers.iter().all(|u| matches!(*u, Use::Arg(i, k) if float_read(func, i, k as usize).is_some()));
            if all_float {
                copies.insert(*r, (inst, *a));
                order.push(*r);
            }
        }
    }
    if copies.is_empty() {
        return 0;
    }
    let (uses, groups) = analyses.uses_and_groups(func);
    // Drop the copies whose folding would leave an instruction with an
    // operand whose channels disagree on modifiers, and copies of copies
    // (the next round takes them), until the rest all fold.
    loop {
        let read = |o: &Operand| match copies.get(&o.value) {
            Some(&(_, inner)) => compose(inner, *o),
            None => *o,
        };
        let mut dropped = Vec::new();
        for (r, a) in order.iter().filter_map(|r| copies.get(r).map(|&(_, a)| (*r, a))) {
            if copies.contains_key(&a.value) {
                dropped.push(r);
                continue;
            }
            let readers = uses.of(r);
            let agrees = readers.iter().all(|u| {
                let &Use::Arg(reader, k) = u else { return false };
                let k = k as usize;
                let Some(s) = float_read(func, reader, k) else { return false };
                let Some(mine) = func.insts.get(reader).and_then(|d| d.args.get(k)).map(read) else { return false };
                groups.of(&reader).iter().all(|&m| {
                    let Some(md) = func.insts.get(m) else { return false };
                    let Op::Alu { opcode, .. } = md.op else { return false };
                    md.args.iter().enumerate().filter(|&(k2, _)| source_of(opcode, k2) == Some(s)).all(|(_, a2)| {
                        let theirs = read(a2);
                        (theirs.neg, theirs.abs) == (mine.neg, mine.abs)
                    })
                })
            });
            if !agrees {
                dropped.push(r);
            }
        }
        if dropped.is_empty() {
            break;
        }
        for r in dropped {
            copies.remove(&r);
        }
    }
    if copies.is_empty() {
        return 0;
    }
    for (_, d) in func.insts.iter_mut() {
        if !matches!(d.op, Op::Alu { .. }) {
            continue;
        }
        for a in d.args.iter_mut() {
            if let Some(&(_, inner)) = copies.get(&a.value) {
                *a = compose(inner, *a);
            }
        }
    }
    let dead: Vec<Inst> = order.iter().filter_map(|r| copies.get(r).map(|&(i, _)| i)).collect();
    remove_placed(func, &dead);
    dead.len() as u64
}

#[cfg(test)]
mod tests {
    use super::*;
    use semantics::apply_modifiers;
    use tgsi::OperandType;

    /// Composing modifiers reads the same bits as applying them one after
    /// the other, for every combination and sign-bit pattern.
    #[test]
    fn composition_is_exact() {
        let v = <Value as ir::EntityRef>::new(0);
        let mods = [(false, false), (true, false), (false, true), (true, true)];
        for bits in [0u64, 0x8000_0000, 0x7fc0_0001, 0xff80_0001, 0x3f80_0000, 0x0000_0001] {
            for &(n1, a1) in &mods {
                for &(n2, a2) in &mods {
                    let inner = Operand { value: v, neg: n1, abs: a1 };
                    let outer = Operand { value: v, neg: n2, abs: a2 };
                    let c = compose(inner, outer);
                    for ty in [OperandType::Float, OperandType::Untyped] {
                        let stepwise = apply_modifiers(ty, apply_modifiers(OperandType::Untyped, bits, n1, a1), n2, a2);
                        assert_eq!(apply_modifiers(ty, bits, c.neg, c.abs), stepwise);
                    }
                }
            }
        }
    }
}
