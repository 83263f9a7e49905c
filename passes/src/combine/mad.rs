//! `MUL t, a, b` then `ADD y, t, c` (or `ADD y, c, t`) into
//! `MAD y, a, b, c`. The backend's `MAD` is `a * b` rounded, then `+ c`
//! (unfused), so it computes what the two instructions computed: addition
//! commutes exactly, and every NaN result is the canonical one whichever
//! operand was a NaN. Only when `t` has no other use and the `MUL` neither
//! saturates nor is precise.
//!
//! A modifier on `t` moves onto the factors: `-(a * b)` is `(-a) * b` and
//! `|a * b|` is `|a| * |b|` bit for bit, since rounding to nearest is
//! symmetric in sign (zeros and infinities included), and a NaN product
//! is a NaN either way, which the addition makes canonical.

use ir::{Function, Inst, Op, Operand, Ty};
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
    let mut pairs: HashMap<Inst, (Inst, usize)> = HashMap::default();
    // The ADDs in program order: what is iterated (the map only answers
    // lookups, so nothing depends on hash order).
    let mut order: Vec<Inst> = Vec::new();
    for b in func.blocks_in_order() {
        let Some(bd) = func.blocks.get(b) else { continue };
        for &add in &bd.insts {
            if let Some(pair) = fusable(func, &uses, add) {
                pairs.insert(add, pair);
                order.push(add);
            }
        }
    }
    // Fuse an ADD instruction only when all its channels fuse, and a MUL
    // only when all of its go: a part left would be an extra instruction.
    loop {
        let fused_muls: HashSet<Inst> = pairs.values().map(|&(mul, _)| mul).collect();
        let dropped: Vec<Inst> = order
            .iter()
            .filter_map(|add| pairs.get(add).map(|mul| (add, mul)))
            .filter(|&(&add, &(mul, _))| {
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
    for (&add, &(mul, other)) in order.iter().filter_map(|add| pairs.get(add).map(|pair| (add, pair))) {
        let Some((fa, fb)) = func.insts.get(mul).map(|m| (m.args[0], m.args[1])) else { continue };
        let Some(d) = crate::rewrite::get_mut(&mut func.insts, add) else { continue };
        let product = d.args[1 - other];
        let (a, b) = factors(fa, fb, product);
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
fn fusable(func: &Function, uses: &HashMap<ir::Value, Vec<super::uses::Use>>, add: Inst) -> Option<(Inst, usize)> {
    let d = func.insts.get(add)?;
    if d.op != (Op::Alu { opcode: Opcode::Add, chan: 0 }) || d.precise || d.args.len() != 2 {
        return None;
    }
    // The product in either place: addition commutes exactly, NaNs
    // included (any NaN sum is the canonical NaN).
    let product = |k: usize| {
        let t = d.args[k];
        let single = uses.get(&t.value).map_or(0, Vec::len) == 1;
        let b32 = func.values.get(t.value).is_some_and(|vd| vd.ty == Ty::B32);
        let mul = func.values.get(t.value)?.def;
        let m = func.insts.get(mul)?;
        let is_mul = m.op == (Op::Alu { opcode: Opcode::Mul, chan: 0 }) && m.args.len() == 2;
        (single && b32 && is_mul && !m.saturate && !m.precise && m.results.len() == 1).then_some(mul)
    };
    if let Some(mul) = product(0) {
        return Some((mul, 1));
    }
    product(1).map(|mul| (mul, 0))
}

/// The factors of `MAD` that make `a * b` read with `product`'s modifiers:
/// an absolute value replaces each factor's sign by `+`, and a negation
/// then flips the first factor's.
fn factors(a: Operand, b: Operand, product: Operand) -> (Operand, Operand) {
    let (mut a, mut b) = (a, b);
    if product.abs {
        a = Operand { abs: true, neg: false, ..a };
        b = Operand { abs: true, neg: false, ..b };
    }
    if product.neg {
        a.neg = !a.neg;
    }
    (a, b)
}
