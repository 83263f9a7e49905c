//! The checks of phis: their operands (check 4) and, once the CFG is
//! derived, their predecessors and the dominance of their arguments
//! (check 5). That phis stand only at the start of a block is checked
//! with the operations.

use super::Verifier;
use crate::cfg::{Cfg, DomTree};
use crate::entity::EntityRef;
use crate::function::{Block, Inst, InstData};

impl Verifier<'_> {
    /// A phi's operands: one result, one argument per predecessor listed,
    /// each as wide as the result, without source modifiers.
    pub(super) fn phi_operands(&mut self, b: Block, inst: Inst, data: &InstData, preds: &[Block]) {
        if data.results.len() != 1 {
            self.inst_issue(Some(b), inst, format!("phi has {} results, not 1", data.results.len()));
        }
        if data.args.len() != preds.len() {
            self.inst_issue(
                Some(b),
                inst,
                format!("phi has {} argument(s) for {} predecessor(s)", data.args.len(), preds.len()),
            );
        }
        self.no_modifiers(b, inst, data, "phi");
        if let Some(ty) = data.results.first().and_then(|&r| self.ty(r)) {
            for i in 0..data.args.len() {
                self.arg_ty(b, inst, data, i, ty, "phi");
            }
        }
    }

    /// A phi against the CFG: it lists exactly the predecessors of its
    /// block, and each argument's definition dominates the end of its
    /// predecessor.
    pub(super) fn phi(&mut self, cfg: &Cfg, dom: &DomTree, b: Block, inst: Inst, data: &InstData, preds: &[Block]) {
        let actual = cfg.preds(b);
        // Sorted copies: a phi of a SWITCH with thousands of cases must not
        // compare every predecessor with every other.
        let sorted = |blocks: &[Block]| {
            let mut v: Vec<usize> = blocks.iter().map(|b| b.index()).collect();
            v.sort_unstable();
            v
        };
        let (actual_sorted, listed_sorted) = (sorted(actual), sorted(preds));
        let is_actual = |p: &Block| actual_sorted.binary_search(&p.index()).is_ok();
        let mut seen = vec![false; preds.len()];
        for p in preds.iter() {
            // Every listed predecessor has a slot in the sorted list: its
            // first occurrence there.
            let slot = listed_sorted.partition_point(|&x| x < p.index());
            let twice = seen.get(slot).copied().unwrap_or(false);
            if let Some(s) = seen.get_mut(slot) {
                *s = true;
            }
            if twice {
                self.inst_issue(Some(b), inst, format!("phi lists predecessor {p} twice"));
            } else if !is_actual(p) {
                self.inst_issue(Some(b), inst, format!("phi lists {p}, which is not a predecessor of {b}"));
            }
        }
        for p in actual {
            if listed_sorted.binary_search(&p.index()).is_err() {
                self.inst_issue(Some(b), inst, format!("phi has no argument for predecessor {p}"));
            }
        }
        for (p, arg) in preds.iter().zip(&data.args) {
            if !is_actual(p) || !cfg.is_reachable(*p) {
                continue;
            }
            let Some((db, _)) = self.def_loc(arg.value) else { continue };
            if !dom.dominates(db, *p) {
                self.inst_issue(
                    Some(b),
                    inst,
                    format!("{} (defined in {db}) does not dominate the end of predecessor {p}", arg.value),
                );
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::function::*;
    use crate::verify::fixtures::*;
    use smallvec::smallvec;

    #[test]
    fn phi_errors() {
        let (mut t, [b0, b1, b2, b3], [x, _, y, z, p]) = diamond();
        let phi = t.f.values[p].def;
        t.f.insts[phi].op = Op::Phi { preds: smallvec![b1, b0] };
        assert_issue(&t.f, "phi lists b0, which is not a predecessor of b3");
        assert_issue(&t.f, "phi has no argument for predecessor b2");
        t.f.insts[phi].op = Op::Phi { preds: smallvec![b1, b1] };
        assert_issue(&t.f, "phi lists predecessor b1 twice");
        t.f.insts[phi].op = Op::Phi { preds: smallvec![b1, b2, b3] };
        assert_issue(&t.f, "phi has 2 argument(s) for 3 predecessor(s)");
        t.f.insts[phi].op = Op::Phi { preds: smallvec![b1, b2] };
        // An argument not dominating its predecessor: z (defined in b2) from b1.
        t.f.insts[phi].args[0].value = z;
        assert_issue(
            &t.f,
            "z (defined in b2) does not dominate the end of predecessor b1".replace('z', &z.to_string()).as_str(),
        );
        t.f.insts[phi].args[0].value = y;
        // A phi after a non-phi.
        let late = t.phi(b3, &[(b1, x), (b2, x)]);
        let last = t.f.blocks[b3].insts.pop().unwrap_or(phi);
        t.f.blocks[b3].insts.push(last);
        assert_issue(&t.f, &format!("{} = phi [b1: {x}, b2: {x}]): phi after a non-phi instruction", late));
        // Modifiers and widths.
        t.f.blocks[b3].insts.pop();
        t.f.insts[phi].args[0].neg = true;
        assert_issue(&t.f, "operand 0 of phi has a source modifier");
        t.f.insts[phi].args[0].neg = false;
        t.f.values[y].ty = Ty::B64;
        assert_issue(&t.f, &format!("operand 0 ({y}) of phi is 64-bit; expected 32-bit"));
    }

    #[test]
    fn loop_phi_dominance_uses_the_predecessor_end() {
        let (mut t, b, phi) = looped();
        // The latch argument (from b7) defined in b2, the continuing arm
        // of the first if, which does not dominate b7.
        let w = t.konst(b[2], 3);
        t.f.insts[phi].args[2].value = w;
        assert_eq!(issues(&t.f), vec![format!("{}, {phi} ({} = phi [b0: v0, b2: {}, b7: {w}]): {w} (defined in {}) does not dominate the end of predecessor {}", b[1], t.f.result(phi), t.f.result(phi), b[2], b[7])]);
        // The continue edge may carry the header phi itself.
        t.f.insts[phi].args[2].value = t.f.result(phi);
        assert_valid(&t.f);
    }
}
