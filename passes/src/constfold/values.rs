//! Folding of values, instruction by instruction: ALU operations on
//! constants computed with the backend's own arithmetic, packs, splits
//! and phis of constants, copies propagated, and identities applied (the
//! indirect accesses are in `indices`).

use ir::{EntityRef, Function, Inst, Module, Op, Operand, Ty, Value};
use rustc_hash::FxHashMap as HashMap;
use semantics::apply_modifiers;
use smallvec::SmallVec;
use tgsi::{File, Opcode};

use super::identity::{identity, Outcome, Pat};
use super::known::{alu_value, const_of, is_nan, is_quiet};
use super::Counts;
use crate::rewrite::{apply, get_mut, Rewrites};

/// What to do with one instruction.
pub(super) enum Action {
    Keep,
    /// Rewritten in place.
    Changed(Counter),
    /// Its result is `Value` everywhere; the instruction goes.
    Replace(Value, Counter),
    /// The instruction goes (a store that never happens).
    Remove(Counter),
    /// A phi that became a constant: it moves after the phis.
    PhiConst,
}

/// Which of the [`Counts`] an action adds to.
#[derive(Clone, Copy)]
pub(super) enum Counter {
    Folded,
    Copies,
    Identities,
    Indices,
}

fn bump(counts: &mut Counts, c: Counter) {
    match c {
        Counter::Folded => counts.folded += 1,
        Counter::Copies => counts.copies += 1,
        Counter::Identities => counts.identities += 1,
        Counter::Indices => counts.indices += 1,
    }
}

/// One pass over every block's instructions; see the module documentation.
pub(super) fn fold_values(module: &mut Module, counts: &mut Counts) {
    let (immediates, interface, func) = (&module.immediates, &module.interface, &mut module.function);
    let blind = nan_blind_values(func);
    let mut rw = Rewrites::default();
    for b in func.blocks_in_order() {
        let insts = func.blocks.get(b).map(|bd| bd.insts.clone()).unwrap_or_default();
        let mut siblings: Siblings = HashMap::default();
        for &inst in &insts {
            if let Some(d) = func.insts.get(inst).filter(|d| matches!(d.op, Op::Alu { .. })) {
                if let Some(origin) = d.origin.inst {
                    siblings.entry(origin).or_default().push(inst);
                }
            }
        }
        let mut kept = Vec::with_capacity(insts.len());
        let mut phi_consts = Vec::new();
        for inst in insts {
            if let Some(d) = get_mut(&mut func.insts, inst) {
                for a in d.args.iter_mut() {
                    a.value = rw.value(a.value);
                }
            }
            let ctx = Ctx { func: &mut *func, immediates, interface, siblings: &siblings, blind: &blind };
            let action = ctx.simplify(inst);
            match action {
                Action::Keep => kept.push(inst),
                Action::Changed(c) => {
                    bump(counts, c);
                    kept.push(inst);
                }
                Action::Replace(v, c) => {
                    let result = func.insts.get(inst).and_then(|d| d.results.first().copied());
                    match result {
                        Some(r) if r != v => {
                            rw.replace_value(r, v);
                            bump(counts, c);
                            give_register(func, inst, v);
                        }
                        _ => kept.push(inst),
                    }
                }
                Action::Remove(c) => bump(counts, c),
                Action::PhiConst => {
                    counts.folded += 1;
                    phi_consts.push(inst);
                }
            }
        }
        // Phis come first in a block: constants made of phis go after them.
        let phis =
            kept.iter().take_while(|&&i| func.insts.get(i).is_some_and(|d| matches!(d.op, Op::Phi { .. }))).count();
        kept.splice(phis..phis, phi_consts);
        if let Some(bd) = get_mut(&mut func.blocks, b) {
            bd.insts = kept;
        }
    }
    apply(func, &rw);
}

/// The values every use of which is an operand the table of operations
/// calls NaN-blind ([`semantics::arg_nan_blind`]): for them, which NaN a
/// value is does not matter, so a float identity that only changes a
/// NaN's bits (`MUL x, 1.0` of a signalling NaN) holds for what they
/// compute.
fn nan_blind_values(func: &Function) -> Vec<bool> {
    // Per value: never read (`None`), or whether every read so far is blind.
    // Dense by value, not hashed: this visits every operand of the module.
    let mut seen: Vec<Option<bool>> = vec![None; func.values.len()];
    for b in func.blocks_in_order() {
        let Some(bd) = func.blocks.get(b) else { continue };
        for d in bd.insts.iter().filter_map(|&i| func.insts.get(i)) {
            let opcode = match d.op {
                Op::Alu { opcode, .. } => Some(opcode),
                _ => None,
            };
            for (k, a) in d.args.iter().enumerate() {
                let blind = opcode.is_some_and(|op| semantics::arg_nan_blind(op, k));
                if let Some(e) = seen.get_mut(a.value.index()) {
                    *e = Some(e.unwrap_or(true) & blind);
                }
            }
        }
    }
    // IF conditions and SWITCH selectors and cases are no such operands.
    for a in ir::walk::construct_operands(&func.body) {
        if let Some(e) = seen.get_mut(a.value.index()) {
            *e = Some(false);
        }
    }
    seen.into_iter().map(|e| e == Some(true)).collect()
}

/// The `Alu` instructions of a block by the TGSI instruction they came
/// from (up to four channels: inline, no allocation per instruction).
type Siblings = HashMap<u32, SmallVec<[Inst; 4]>>;

/// Per-operand facts of one instruction (at most a few operands): kept
/// inline, as a heap vector per instruction was a large share of the
/// pass's time.
type PerOperand<T> = SmallVec<[T; 4]>;

/// What simplification reads besides the function.
pub(super) struct Ctx<'a> {
    pub(super) func: &'a mut Function,
    pub(super) immediates: &'a [tgsi::Immediate],
    pub(super) interface: &'a [tgsi::Item],
    /// The `Alu` instructions of the block by the TGSI instruction they
    /// came from.
    siblings: &'a Siblings,
    /// The values whose users do not tell one NaN from another.
    blind: &'a [bool],
}

impl Ctx<'_> {
    fn simplify(self, inst: Inst) -> Action {
        let Some(data) = self.func.insts.get(inst) else { return Action::Keep };
        match &data.op {
            &Op::Alu { opcode, .. } => self.alu(inst, opcode),
            Op::Pack => {
                let (Some(lo), Some(hi)) = (data.args.first(), data.args.get(1)) else { return Action::Keep };
                let (lo, hi) = (self.konst(lo.value), self.konst(hi.value));
                match (lo, hi) {
                    // As the backend's Step::Pack.
                    (Some(lo), Some(hi)) => self.make_const(inst, (lo & 0xffff_ffff) | (hi << 32), Counter::Folded),
                    _ => Action::Keep,
                }
            }
            Op::Split { hi } => {
                let hi = *hi;
                let Some(src) = data.args.first().map(|a| a.value) else { return Action::Keep };
                if let Some(bits) = self.konst(src) {
                    // As the backend's Step::Split.
                    return self.make_const(inst, if hi { bits >> 32 } else { bits & 0xffff_ffff }, Counter::Folded);
                }
                // A split of a pack is the half packed (32-bit values have
                // their high bits clear, so the pack's masking is a no-op).
                let pack = self.func.values.get(src).and_then(|vd| self.func.insts.get(vd.def));
                match pack {
                    Some(p) if matches!(p.op, Op::Pack) => match p.args.get(usize::from(hi)) {
                        Some(a) if !a.neg && !a.abs && self.ty(a.value) == Some(Ty::B32) => {
                            Action::Replace(a.value, Counter::Copies)
                        }
                        _ => Action::Keep,
                    },
                    _ => Action::Keep,
                }
            }
            Op::Phi { .. } => self.phi(inst),
            Op::LoadIndirect { .. } => self.load_indirect(inst),
            Op::ArrayLoad { .. } | Op::ArrayStore { .. } => self.array_access(inst),
            _ => Action::Keep,
        }
    }

    fn konst(&self, v: Value) -> Option<u64> {
        const_of(self.func, self.immediates, v)
    }

    fn ty(&self, v: Value) -> Option<Ty> {
        self.func.values.get(v).map(|vd| vd.ty)
    }

    pub(super) fn make_const(self, inst: Inst, bits: u64, counter: Counter) -> Action {
        match get_mut(&mut self.func.insts, inst) {
            Some(d) => {
                d.op = Op::Const(bits);
                d.args.clear();
                d.saturate = false;
                Action::Changed(counter)
            }
            None => Action::Keep,
        }
    }

    fn alu(self, inst: Inst, opcode: Opcode) -> Action {
        let Some(data) = self.func.insts.get(inst) else { return Action::Keep };
        let info = opcode.info();
        let args: PerOperand<Operand> = data.args.iter().copied().collect();
        let known: PerOperand<Option<u64>> = args
            .iter()
            .enumerate()
            .map(|(i, a)| self.konst(a.value).map(|bits| apply_modifiers(opcode.src_type(i), bits, a.neg, a.abs)))
            .collect();
        let sat = data.saturate;
        // A plain copy is its operand, constant or not (a register's
        // initial zero stays one: emission reads it where it lies).
        let to_address = data.origin.dst.is_some_and(|d| d.file == File::Address);
        if opcode == Opcode::Mov && !sat && !to_address {
            let result_ty = data.results.first().and_then(|&r| self.ty(r));
            if let [a] = args.as_slice() {
                if !a.neg && !a.abs && result_ty.is_some() && self.ty(a.value) == result_ty {
                    return Action::Replace(a.value, Counter::Copies);
                }
            }
        }
        if known.iter().all(Option::is_some) {
            // An address register write stays: emission then keeps the
            // index in ADDR. Its value still folds the loads it indexes.
            if to_address {
                return Action::Keep;
            }
            return match alu_value(self.func, self.immediates, inst) {
                // A NaN stays computed at run time: which operand's payload
                // a float operation passes on is up to how the compiler
                // ordered the operands in each build of it (the backend's
                // batch loop against `eval` here), and an integer op
                // reading the bits would see the difference.
                Some(v) if is_nan(info.dst_type, v) => Action::Keep,
                Some(v) => self.make_const(inst, v, Counter::Folded),
                None => Action::Keep,
            };
        }
        if sat {
            return Action::Keep;
        }
        if opcode == Opcode::Mov {
            return Action::Keep;
        }
        let Some(outcome) = self.identity_of(inst) else { return Action::Keep };
        // A vector instruction some of whose channels stay would keep its
        // instruction and need copies (MOVs into outputs) for the others:
        // larger TGSI. So an identity applies only when it applies to
        // every channel the instruction computes.
        let siblings = data.origin.inst.and_then(|o| self.siblings.get(&o));
        let simplifies = |s: Inst| s == inst || self.all_constant(s) || self.identity_of(s).is_some();
        if siblings.is_some_and(|list| !list.iter().all(|&s| simplifies(s))) {
            return Action::Keep;
        }
        match outcome {
            Outcome::Operand(i) => match args.get(i) {
                Some(a) => Action::Replace(a.value, Counter::Identities),
                None => Action::Keep,
            },
            Outcome::Const(bits) => self.make_const(inst, bits, Counter::Identities),
        }
    }

    /// Whether every operand of `inst` is a constant (so it folds).
    fn all_constant(&self, inst: Inst) -> bool {
        self.func.insts.get(inst).is_some_and(|d| d.args.iter().all(|a| self.konst(a.value).is_some()))
    }

    /// The identity that applies to the `Alu` instruction `inst` (32-bit,
    /// not saturated, some operand not constant), if any.
    fn identity_of(&self, inst: Inst) -> Option<Outcome> {
        let data = self.func.insts.get(inst)?;
        let Op::Alu { opcode, .. } = data.op else { return None };
        if data.saturate {
            return None;
        }
        let result = *data.results.first()?;
        let result_ty = self.ty(result)?;
        if result_ty != Ty::B32 {
            return None;
        }
        let blind = self.blind.get(result.index()).copied().unwrap_or(false);
        let known: PerOperand<Option<u64>> = data
            .args
            .iter()
            .enumerate()
            .map(|(i, a)| self.konst(a.value).map(|bits| apply_modifiers(opcode.src_type(i), bits, a.neg, a.abs)))
            .collect();
        let pats: PerOperand<Pat> = data
            .args
            .iter()
            .zip(&known)
            .map(|(a, k)| match k {
                Some(bits) => Pat::Known(*bits),
                None => Pat::Unknown {
                    id: a.value.index(),
                    neg: a.neg,
                    abs: a.abs,
                    quiet: blind || is_quiet(self.func, self.immediates, a.value),
                },
            })
            .collect();
        match identity(opcode, &pats)? {
            Outcome::Operand(i) if data.args.get(i).is_some_and(|a| self.ty(a.value) == Some(result_ty)) => {
                Some(Outcome::Operand(i))
            }
            Outcome::Operand(_) => None,
            c @ Outcome::Const(_) => Some(c),
        }
    }

    fn phi(self, inst: Inst) -> Action {
        let Some(data) = self.func.insts.get(inst) else { return Action::Keep };
        let Some(&result) = data.results.first() else { return Action::Keep };
        // Arguments that are the phi itself (around a loop) add nothing.
        let others: PerOperand<Value> = data.args.iter().map(|a| a.value).filter(|&v| v != result).collect();
        let Some(&first) = others.first() else { return Action::Keep };
        if others.iter().all(|&v| v == first) {
            // `first` dominates every predecessor, so it dominates the phi.
            return Action::Replace(first, Counter::Copies);
        }
        let Some(bits) = self.konst(first) else { return Action::Keep };
        if !others.iter().all(|&v| self.konst(v) == Some(bits)) {
            return Action::Keep;
        }
        match get_mut(&mut self.func.insts, inst) {
            Some(d) => {
                d.op = Op::Const(bits);
                d.args.clear();
                Action::PhiConst
            }
            None => Action::Keep,
        }
    }
}

/// Gives the register `inst` (a copy or an identity replaced by `v`)
/// wrote to `v`'s definition, when that has none and comes from the same
/// source instruction (an indirect load a `MOV` read): emission's first
/// choice for `v` is then where the source kept the copy.
fn give_register(func: &mut ir::Function, inst: Inst, v: Value) {
    let Some(&d) = func.insts.get(inst).map(|d| &d.origin) else { return };
    let Some(def) = func.values.get(v).map(|vd| vd.def) else { return };
    if let Some(origin) = get_mut(&mut func.insts, def).map(|d| &mut d.origin) {
        if origin.dst.is_none() && origin.inst.is_some() && origin.inst == d.inst {
            origin.dst = d.dst;
        }
    }
}
