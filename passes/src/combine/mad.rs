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
//!
//! A doubling `ADD t, x, x` is a product too, `x * 2.0`: `x + x` is the
//! exact double of `x` (or an infinity when that overflows, as `x * 2.0`
//! rounds), -0.0, infinities and NaNs included, so it fuses as
//! `MAD y, x, 2.0, c`.

use ir::{Function, Inst, Op, Operand, Ty};
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};
use smallvec::smallvec;
use tgsi::Opcode;

use super::uses::Uses;
use super::{remove_placed, Analyses};

/// Fuses every pair whose instructions fuse whole; returns how many.
pub(super) fn fuse(func: &mut Function, analyses: &mut Analyses) -> u64 {
    let uses = analyses.uses(func);
    let mut pairs: HashMap<Inst, (Inst, usize)> = HashMap::default();
    // The ADDs in program order: what is iterated (the map only answers
    // lookups, so nothing depends on hash order).
    let mut order: Vec<Inst> = Vec::new();
    for b in func.blocks_in_order() {
        let Some(bd) = func.blocks.get(b) else { continue };
        for &add in &bd.insts {
            if let Some(pair) = fusable(func, uses, add) {
                pairs.insert(add, pair);
                order.push(add);
            }
        }
    }
    if pairs.is_empty() {
        return 0;
    }
    let groups = analyses.groups(func);
    // Fuse an ADD instruction only when all its channels fuse, and a MUL
    // only when all of its go: a part left would be an extra instruction.
    loop {
        let fused_muls: HashSet<Inst> = pairs.values().map(|&(mul, _)| mul).collect();
        let dropped: Vec<Inst> = order
            .iter()
            .filter_map(|add| pairs.get(add).map(|mul| (add, mul)))
            .filter(|&(&add, &(mul, _))| {
                // A doubling ADD that is itself becoming a MAD is no
                // product any more.
                pairs.contains_key(&mul)
                    || !groups.of(&add).iter().all(|m| pairs.contains_key(m))
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
    let mut twos: HashMap<Inst, Inst> = HashMap::default();
    for (&add, &(mul, other)) in order.iter().filter_map(|add| pairs.get(add).map(|pair| (add, pair))) {
        let Some(m) = func.insts.get(mul) else { continue };
        let (fa, mut fb) = (m.args[0], m.args[1]);
        if m.op == DOUBLE {
            let origin = m.origin;
            let two = func.add_inst(Op::Const(u64::from(TWO)), &[], &[Ty::B32], origin);
            fb = Operand::new(func.result(two));
            twos.insert(add, two);
        }
        let Some(d) = crate::rewrite::get_mut(&mut func.insts, add) else { continue };
        let product = d.args[1 - other];
        let (a, b) = factors(fa, fb, product);
        let c = d.args[other];
        d.op = Op::Alu { opcode: Opcode::Mad, chan: 0 };
        d.args = smallvec![a, b, c];
        dead.push(mul);
    }
    place_before(func, &twos);
    remove_placed(func, &dead);
    dead.len() as u64
}

/// `ADD`, as a doubling `ADD x, x` is a product.
const DOUBLE: Op = Op::Alu { opcode: Opcode::Add, chan: 0 };

/// The bits of 2.0f.
const TWO: u32 = 0x4000_0000;

/// Places each new instruction of `before` (keyed by the placed
/// instruction it goes in front of) into that instruction's block.
fn place_before(func: &mut Function, before: &HashMap<Inst, Inst>) {
    if before.is_empty() {
        return;
    }
    for b in func.blocks_in_order() {
        let Some(bd) = crate::rewrite::get_mut(&mut func.blocks, b) else { continue };
        if !bd.insts.iter().any(|i| before.contains_key(i)) {
            continue;
        }
        let mut insts = Vec::with_capacity(bd.insts.len() + before.len());
        for &i in &bd.insts {
            if let Some(&new) = before.get(&i) {
                insts.push(new);
            }
            insts.push(i);
        }
        bd.insts = insts;
    }
}

/// The `MUL` (or doubling `ADD`) that the placed `ADD` `add` can absorb, and the index of the
/// ADD's other operand, if any.
fn fusable(func: &Function, uses: &Uses, add: Inst) -> Option<(Inst, usize)> {
    let d = func.insts.get(add)?;
    if d.op != (Op::Alu { opcode: Opcode::Add, chan: 0 }) || d.precise || d.args.len() != 2 {
        return None;
    }
    // The product in either place: addition commutes exactly, NaNs
    // included (any NaN sum is the canonical NaN).
    let product = |k: usize| {
        let t = d.args[k];
        let single = uses.of(t.value).len() == 1;
        let b32 = func.values.get(t.value).is_some_and(|vd| vd.ty == Ty::B32);
        let mul = func.values.get(t.value)?.def;
        let m = func.insts.get(mul)?;
        let is_mul = m.op == (Op::Alu { opcode: Opcode::Mul, chan: 0 }) && m.args.len() == 2;
        let is_double = m.op == DOUBLE && m.args.len() == 2 && m.args[0] == m.args[1];
        let is_mul = is_mul || is_double;
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
