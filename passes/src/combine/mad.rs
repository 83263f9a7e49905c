//! `MUL t, a, b` then `ADD y, t, c` into `MAD y, a, b, c`. The backend's
//! `MAD` is `a * b` rounded, then `+ c` (unfused, the product first), so
//! it computes what the two instructions computed, NaN operand order
//! included. Only when `t` has no other use, is read plain as the first
//! operand of the `ADD` (`c + t` would put the NaNs in the other order,
//! `-t` or `|t|` change the sign of a default NaN) and the `MUL` neither
//! saturates nor is precise.

use ir::{Function, Inst, Op, Ty};
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};
use smallvec::smallvec;
use tgsi::Opcode;

use super::groups::Groups;
use super::remove_placed;
use super::uses::uses;

/// Fuses every pair whose instructions fuse whole; returns how many.
pub(super) fn fuse(func: &mut Function) -> u64 {
    let uses = uses(func);
    let groups = Groups::new(func);
    let mut pairs: HashMap<Inst, Inst> = HashMap::default();
    // The ADDs in program order: what is iterated (the map only answers
    // lookups, so nothing depends on hash order).
    let mut order: Vec<Inst> = Vec::new();
    for b in func.blocks_in_order() {
        let Some(bd) = func.blocks.get(b) else { continue };
        for &add in &bd.insts {
            if let Some(mul) = fusable(func, &uses, add) {
                pairs.insert(add, mul);
                order.push(add);
            }
        }
    }
    // Fuse an ADD instruction only when all its channels fuse, and a MUL
    // only when all of its go: a part left would be an extra instruction.
    loop {
        let fused_muls: HashSet<Inst> = pairs.values().copied().collect();
        let dropped: Vec<Inst> = order
            .iter()
            .filter_map(|add| pairs.get(add).map(|mul| (add, mul)))
            .filter(|&(&add, &mul)| {
                !groups.of(add).iter().all(|m| pairs.contains_key(m))
                    || !groups.of(mul).iter().all(|m| fused_muls.contains(m))
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
    for (&add, &mul) in order.iter().filter_map(|add| pairs.get(add).map(|mul| (add, mul))) {
        let Some(m) = func.insts.get(mul) else { continue };
        let (a, b) = (m.args[0], m.args[1]);
        let Some(d) = crate::rewrite::get_mut(&mut func.insts, add) else { continue };
        let c = d.args[1];
        d.op = Op::Alu { opcode: Opcode::Mad, chan: 0 };
        d.args = smallvec![a, b, c];
        dead.push(mul);
    }
    remove_placed(func, &dead);
    dead.len() as u64
}

/// The `MUL` that the placed `ADD` `add` can absorb, if any.
fn fusable(func: &Function, uses: &HashMap<ir::Value, Vec<super::uses::Use>>, add: Inst) -> Option<Inst> {
    let d = func.insts.get(add)?;
    if d.op != (Op::Alu { opcode: Opcode::Add, chan: 0 }) || d.precise || d.args.len() != 2 {
        return None;
    }
    let t = d.args[0];
    if t.neg || t.abs || func.values.get(t.value)?.ty != Ty::B32 {
        return None;
    }
    if uses.get(&t.value).map_or(0, Vec::len) != 1 {
        return None;
    }
    let mul = func.values.get(t.value)?.def;
    let m = func.insts.get(mul)?;
    let is_mul = m.op == (Op::Alu { opcode: Opcode::Mul, chan: 0 }) && m.args.len() == 2;
    (is_mul && !m.saturate && !m.precise && m.results.len() == 1).then_some(mul)
}
