//! The SSA side of the builder: reading and writing variables, capturing
//! the state a construct changed, joining the states of the edges into a
//! join point with phis where they disagree, and removing the phis that
//! turn out trivial once the whole program is built.

use super::live::VarSet;
use super::vars::Var;
use super::{BuildError, Builder};
use crate::entity::SecondaryMap;
use crate::function::{Block, Inst, Node, Op, Operand, Origin, Region, Ty, Value};
use smallvec::SmallVec;
use tgsi::File;

/// A saved set of variable values: those changed since a construct began.
pub(super) type State = Vec<(Var, Option<Value>)>;

/// An edge into a join point, with the variable values along it.
pub(super) struct Incoming {
    pub(super) pred: Block,
    pub(super) state: State,
}

impl Builder<'_> {
    /// The variables changed since `mark`, with their current values.
    pub(super) fn capture(&self, mark: usize) -> State {
        self.vars.changed_since(mark).into_iter().map(|v| (v, self.vars.get(v))).collect()
    }

    /// The current value of a variable (the initial zero if never written).
    pub(super) fn var_value(&mut self, v: Var) -> Value {
        let value = self.vars.get(v);
        self.state_value(value)
    }

    /// The value a variable's state gives a reader: the initial zero for
    /// `None`. Reading the poison of a pruned join is noted (the build is
    /// then done again without pruning) and reads as zero meanwhile.
    pub(super) fn state_value(&mut self, value: Option<Value>) -> Value {
        match value {
            Some(value) if Some(value) == self.poison => {
                self.pruned_too_much = true;
                self.initial()
            }
            Some(value) => value,
            None => self.initial(),
        }
    }

    /// The variables live at the join after instruction `index`, when
    /// joins there are pruned (not inside an inlined subroutine).
    pub(super) fn live_after(&self, index: usize) -> Option<VarSet> {
        if !self.calls.is_empty() {
            return None;
        }
        self.live.as_ref()?.at(index).cloned()
    }

    /// Whether `v` needs a value at a join with `live` variables.
    pub(super) fn needed(live: Option<&VarSet>, v: Var) -> bool {
        live.is_none_or(|l| l.contains(v))
    }

    /// Sets a variable's value, noting an output's first write.
    pub(super) fn write_var(&mut self, v: Var, value: Value) {
        let reg = self.vars.reg(v);
        if reg.file == File::Output && !self.outputs.contains(&v) {
            self.outputs.push(v);
        }
        self.vars.set(v, value);
    }

    /// Joins `incoming` states at block `at` (the state must already be
    /// rolled back to where the construct began). Sets every changed
    /// variable to its joined value, adding phis where the edges disagree.
    pub(super) fn join(&mut self, at: Block, incoming: &[Incoming]) {
        self.join_pruned(at, incoming, None);
    }

    /// [`Self::join`] of the construct that instruction `index` closes (or
    /// the case it opens): variables not live there get no phi.
    pub(super) fn join_after(&mut self, at: Block, incoming: &[Incoming], index: usize) {
        let live = self.live_after(index);
        self.join_pruned(at, incoming, live.as_ref());
    }

    /// [`Self::join`], giving the variables outside `live` (when given)
    /// the poison value rather than a phi.
    fn join_pruned(&mut self, at: Block, incoming: &[Incoming], live: Option<&VarSet>) {
        if incoming.is_empty() || self.phi_overflow.is_some() {
            return;
        }
        // Every (variable, edge, value) the edges set, by variable: one
        // sort, not a search of every edge for every variable (a SWITCH
        // has an edge per case).
        let mut set: Vec<(Var, usize, Option<Value>)> = incoming
            .iter()
            .enumerate()
            .flat_map(|(k, inc)| inc.state.iter().map(move |&(v, val)| (v, k, val)))
            .collect();
        set.sort_unstable_by_key(|&(v, k, _)| (v, k));
        let mut phis = Vec::new();
        for group in set.chunk_by(|a, b| a.0 == b.0) {
            let v = group[0].0;
            let before = self.vars.get(v);
            let first = group[0].2;
            let same =
                group.iter().all(|&(_, _, val)| val == first) && (group.len() == incoming.len() || first == before);
            let joined = if same {
                if group[0].1 == 0 {
                    first
                } else {
                    before
                }
            } else if !Self::needed(live, v) {
                self.poison
            } else {
                self.phi_args += incoming.len();
                if self.phi_args > self.phi_budget {
                    self.phi_overflow = Some(self.phi_args);
                    return;
                }
                let mut args: SmallVec<[Operand; 3]> = SmallVec::with_capacity(incoming.len());
                let mut at_edge = group.iter().peekable();
                for k in 0..incoming.len() {
                    let val = match at_edge.next_if(|&&(_, e, _)| e == k) {
                        Some(&(_, _, val)) => val,
                        None => before,
                    };
                    args.push(Operand::new(self.state_value(val)));
                }
                let preds = incoming.iter().map(|inc| inc.pred).collect();
                let origin = Origin { inst: None, dst: Some(self.vars.reg(v)) };
                let phi = self.func.add_inst(Op::Phi { preds }, &args, &[Ty::B32], origin);
                phis.push(phi);
                self.phis.push(phi);
                Some(self.func.result(phi))
            };
            match joined {
                Some(val) if Some(val) != before => self.write_var(v, val),
                _ => {}
            }
        }
        // New phis go after the block's phis, in variable order.
        let position = self.phi_count(at);
        self.func.blocks[at].insts.splice(position..position, phis);
    }

    /// The error of a join past the phi budget, at the instruction that
    /// closed it.
    pub(super) fn phi_budget_error(&self, value: usize) -> BuildError {
        let max = self.phi_budget as u64;
        let e = tgsi::LimitExceeded { limit: tgsi::Limit::PhiArguments, value: value as u64, max };
        let message = format!(
            "{e}: each register the arms or cases write differently needs an argument per edge joining \
             here (the limit is Limits::inline_factor times the input instructions, at least Limits::inline_floor)"
        );
        BuildError { inst: Some(self.pc), message, limit: Some(e) }
    }

    /// How many phis start block `b` (where a new one goes).
    fn phi_count(&self, b: Block) -> usize {
        self.func.blocks[b].insts.iter().take_while(|&&i| matches!(self.func.insts[i].op, Op::Phi { .. })).count()
    }

    /// Replaces phis whose arguments are all one value (or the phi itself)
    /// by that value, until none is left, and rewrites every use.
    pub(super) fn remove_trivial_phis(&mut self) {
        let mut replace: SecondaryMap<Value, Value> = SecondaryMap::default();
        fn resolve(map: &SecondaryMap<Value, Value>, mut v: Value) -> Value {
            while let Some(&next) = map.get(&v) {
                v = next;
            }
            v
        }
        loop {
            let mut changed = false;
            for &phi in &self.phis {
                let result = self.func.result(phi);
                if replace.contains_key(&result) {
                    continue;
                }
                let mut same: Option<Value> = None;
                let mut trivial = true;
                for arg in &self.func.insts[phi].args {
                    let a = resolve(&replace, arg.value);
                    if a == result || Some(a) == same {
                        continue;
                    }
                    if same.is_some() {
                        trivial = false;
                        break;
                    }
                    same = Some(a);
                }
                if trivial {
                    if let Some(s) = same {
                        replace.insert(result, s);
                        changed = true;
                    }
                }
            }
            if !changed {
                break;
            }
        }
        if replace.is_empty() {
            return;
        }
        for (_, data) in self.func.insts.iter_mut() {
            for arg in &mut data.args {
                arg.value = resolve(&replace, arg.value);
            }
        }
        let mut dead: SecondaryMap<Inst, ()> = SecondaryMap::default();
        for &p in self.phis.iter().filter(|&&p| replace.contains_key(&self.func.result(p))) {
            dead.insert(p, ());
        }
        for (_, block) in self.func.blocks.iter_mut() {
            block.insts.retain(|i| !dead.contains_key(i));
        }
        replace_in_tree(&mut self.func.body, &replace, resolve);
    }
}

impl Builder<'_> {
    /// Takes out of their blocks the phis whose values reach no other
    /// instruction and no construct: joins of a register channel that is
    /// written again (or never read) after the join, and cycles of phis
    /// that only feed each other. Phis have no effect, so no result
    /// changes; every pass and emission then works on fewer operations (on
    /// a random 100,000-instruction shader, half of the phis built).
    pub(super) fn remove_dead_phis(&mut self) {
        let is_phi = |d: &crate::function::InstData| matches!(d.op, Op::Phi { .. });
        let mut live: SecondaryMap<Inst, ()> = SecondaryMap::default();
        let mut work: Vec<Value> = Vec::new();
        for (_, block) in self.func.blocks.iter() {
            for data in block.insts.iter().filter_map(|&i| self.func.insts.get(i)) {
                if !is_phi(data) {
                    work.extend(data.args.iter().map(|a| a.value));
                }
            }
        }
        work.extend(crate::walk::construct_operands(&self.func.body).map(|op| op.value));
        while let Some(v) = work.pop() {
            let Some(def) = self.func.values.get(v).map(|vd| vd.def) else { continue };
            let Some(data) = self.func.insts.get(def) else { continue };
            if is_phi(data) && !live.contains_key(&def) {
                live.insert(def, ());
                work.extend(data.args.iter().map(|a| a.value));
            }
        }
        let mut dead: SecondaryMap<Inst, ()> = SecondaryMap::default();
        for &p in self.phis.iter().filter(|&&p| !live.contains_key(&p)) {
            dead.insert(p, ());
        }
        if dead.is_empty() {
            return;
        }
        for (_, block) in self.func.blocks.iter_mut() {
            block.insts.retain(|i| !dead.contains_key(i));
        }
    }
}

/// Rewrites the operands held by the tree (conditions, selectors, cases).
fn replace_in_tree(
    region: &mut Region,
    map: &SecondaryMap<Value, Value>,
    resolve: fn(&SecondaryMap<Value, Value>, Value) -> Value,
) {
    crate::walk::for_each_region_post_order_mut(region, |r| {
        for op in r.iter_mut().flat_map(Node::operands_mut) {
            op.value = resolve(map, op.value);
        }
    });
}

#[cfg(test)]
mod tests {
    use crate::function::{Function, Op};

    fn build(body: &str) -> Function {
        let text = format!("FRAG\nDCL IN[0]\nDCL OUT[0], COLOR\nDCL TEMP[0..1]\n{body}END\n");
        let shader = tgsi::parse(&text).expect("parses");
        let module = crate::from_tgsi(&shader).expect("builds");
        crate::verify::verify(&module.function).expect("verifies");
        module.function
    }

    fn placed_phis(func: &Function) -> usize {
        let placed = func.blocks.iter().flat_map(|(_, b)| b.insts.iter());
        placed.filter(|&&i| matches!(func.insts[i].op, Op::Phi { .. })).count()
    }

    /// A join whose register is read after it keeps its phi.
    #[test]
    fn a_join_read_later_has_a_phi() {
        let func = build(
            "MOV TEMP[0].x, IN[0].xxxx\nIF IN[0].yyyy\n  MOV TEMP[0].x, IN[0].zzzz\nENDIF\n\
             MOV OUT[0], TEMP[0].xxxx\n",
        );
        assert_eq!(placed_phis(&func), 1);
    }

    /// A join whose register is written again before anything reads it
    /// gets no phi.
    #[test]
    fn a_join_overwritten_before_any_read_has_no_phi() {
        let func = build(
            "MOV TEMP[0].x, IN[0].xxxx\nIF IN[0].yyyy\n  MOV TEMP[0].x, IN[0].zzzz\nENDIF\n\
             MOV TEMP[0].x, IN[0].wwww\nMOV OUT[0], TEMP[0].xxxx\n",
        );
        assert_eq!(placed_phis(&func), 0);
    }

    /// A register a loop may write but nothing reads: its header phi and
    /// the phi joining the arms of the IF inside only read each other, and
    /// both go.
    #[test]
    fn phis_that_only_feed_each_other_go() {
        let func = build(
            "MOV TEMP[1].x, IN[0].xxxx\nBGNLOOP\n  IF IN[0].yyyy\n    MOV TEMP[1].x, IN[0].zzzz\n  ENDIF\n\
               IF IN[0].wwww\n    BRK\n  ENDIF\nENDLOOP\nMOV OUT[0], IN[0]\n",
        );
        assert_eq!(placed_phis(&func), 0);
    }
}
