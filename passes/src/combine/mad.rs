//! `MUL t, a, b` then `ADD y, t, c` into `MAD y, a, b, c`. The backend's
//! `MAD` is `a * b` rounded, then `+ c` (unfused, the product first), so
//! it computes what the two instructions computed, NaN operand order
//! included. Only when `t` has no other use, is read plain as the first
//! operand of the `ADD`, or as the second when the first is never a NaN
//! (`c + t` with both NaN returns `c`'s; `-t` or `|t|` change the sign of
//! a default NaN), and the `MUL` neither saturates nor is precise.

use ir::{Function, Inst, Op, Ty};
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};
use smallvec::smallvec;
use tgsi::Opcode;

use super::groups::Groups;
use super::remove_placed;
use super::uses::Uses;

/// Fuses every pair whose instructions fuse whole; returns how many.
pub(super) fn fuse(func: &mut Function, immediates: &[tgsi::Immediate]) -> u64 {
    let uses = Uses::new(func);
    let mut pairs: HashMap<Inst, (Inst, usize)> = HashMap::default();
    // The ADDs in program order: what is iterated (the map only answers
    // lookups, so nothing depends on hash order).
    let mut order: Vec<Inst> = Vec::new();
    for b in func.blocks_in_order() {
        let Some(bd) = func.blocks.get(b) else { continue };
        for &add in &bd.insts {
            if let Some(pair) = fusable(func, immediates, &uses, add) {
                pairs.insert(add, pair);
                order.push(add);
            }
        }
    }
    if pairs.is_empty() {
        return 0;
    }
    let groups = Groups::new(func);
    // Fuse an ADD instruction only when all its channels fuse, and a MUL
    // only when all of its go: a part left would be an extra instruction.
    loop {
        let fused_muls: HashSet<Inst> = pairs.values().map(|&(mul, _)| mul).collect();
        let dropped: Vec<Inst> = order
            .iter()
            .filter_map(|add| pairs.get(add).map(|mul| (add, mul)))
            .filter(|&(&add, &(mul, _))| {
                !groups.of(&add).iter().all(|m| pairs.contains_key(m))
                    || !groups.of(&mul).iter().all(|m| fused_muls.contains(m))
            })
            .map(|(&add, _)| add)
            .collect();
        if dropped.is_empty() {
            break;
        }
        for add in dropped {
            pairs.remove(&add);
        }
    }
    let mut dead = Vec::with_capacity(pairs.len());
    for (&add, &(mul, other)) in order.iter().filter_map(|add| pairs.get(add).map(|pair| (add, pair))) {
        let Some(m) = func.insts.get(mul) else { continue };
        let (a, b) = (m.args[0], m.args[1]);
        let Some(d) = crate::rewrite::get_mut(&mut func.insts, add) else { continue };
        let c = d.args[other];
        d.op = Op::Alu { opcode: Opcode::Mad, chan: 0 };
        d.args = smallvec![a, b, c];
        dead.push(mul);
    }
    remove_placed(func, &dead);
    dead.len() as u64
}

/// The `MUL` that the placed `ADD` `add` can absorb, and the index of the
/// ADD's other operand, if any.
fn fusable(func: &Function, immediates: &[tgsi::Immediate], uses: &Uses, add: Inst) -> Option<(Inst, usize)> {
    let d = func.insts.get(add)?;
    if d.op != (Op::Alu { opcode: Opcode::Add, chan: 0 }) || d.precise || d.args.len() != 2 {
        return None;
    }
    // The product first; or second when the other operand is never a
    // NaN: then at most one operand is a NaN, which the addition returns
    // (quiet) in either order, and otherwise addition commutes exactly.
    let product = |k: usize| {
        let t = d.args[k];
        let single = uses.of(t.value).len() == 1;
        let b32 = func.values.get(t.value).is_some_and(|vd| vd.ty == Ty::B32);
        let mul = func.values.get(t.value)?.def;
        let m = func.insts.get(mul)?;
        let is_mul = m.op == (Op::Alu { opcode: Opcode::Mul, chan: 0 }) && m.args.len() == 2;
        (!t.neg && !t.abs && single && b32 && is_mul && !m.saturate && !m.precise && m.results.len() == 1)
            .then_some(mul)
    };
    if let Some(mul) = product(0) {
        return Some((mul, 1));
    }
    if never_nan(func, immediates, d.args[0].value) {
        return product(1).map(|mul| (mul, 0));
    }
    None
}

/// Whether `v` is never a float NaN: a constant that is not one, a
/// set-on-compare result (0.0 or 1.0), a saturated float result, or a
/// conversion from an integer.
fn never_nan(func: &Function, immediates: &[tgsi::Immediate], v: ir::Value) -> bool {
    let Some(d) = func.values.get(v).and_then(|vd| func.insts.get(vd.def)) else { return false };
    let not_nan = |bits: u32| !f32::from_bits(bits).is_nan();
    use Opcode::*;
    match &d.op {
        Op::Const(bits) => not_nan(*bits as u32),
        Op::Initial => true,
        Op::Read(src) if src.file == tgsi::File::Immediate => {
            not_nan(immediates.get(src.index as usize).map_or(0, |imm| imm.data[src.chan as usize & 3]))
        }
        Op::Alu { opcode, .. } if d.saturate => {
            matches!(opcode.dst_type(), tgsi::OperandType::Float | tgsi::OperandType::Untyped)
        }
        Op::Alu { opcode, .. } => matches!(opcode, Slt | Sge | Seq | Sne | Sgt | Sle | I2f | U2f),
        _ => false,
    }
}
