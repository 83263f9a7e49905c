//! Check 5: SSA dominance, run only when the tree's shape is sound (the
//! CFG is derived from it). In every reachable block each use is dominated
//! by its definition (earlier in the same block, or in a dominating block),
//! phis are checked against the CFG (see [`super::phis`]), and the values a
//! construct reads are dominated at the end of its condition block.
//! Unreachable blocks are not checked for dominance.

use super::Verifier;
use crate::cfg::{Cfg, DomTree};
use crate::function::Op;

impl Verifier<'_> {
    pub(super) fn ssa(&mut self) {
        let func = self.func;
        let cfg = Cfg::new(func);
        let dom = DomTree::new(&cfg);
        for (b, pos, inst) in self.placed() {
            if !cfg.is_reachable(b) {
                continue;
            }
            let Some(data) = func.insts.get(inst) else { continue };
            if let Op::Phi { preds } = &data.op {
                self.phi(&cfg, &dom, b, inst, data, preds);
                continue;
            }
            for arg in &data.args {
                let Some((db, dpos)) = self.def_loc(arg.value) else { continue };
                if db == b && dpos >= pos {
                    let when = if dpos == pos { "by this instruction" } else { "later in this block" };
                    self.inst_issue(Some(b), inst, format!("{} does not dominate its use (defined {when})", arg.value));
                } else if db != b && !dom.dominates(db, b) {
                    self.inst_issue(
                        Some(b),
                        inst,
                        format!("{} does not dominate its use (defined in {db})", arg.value),
                    );
                }
            }
        }
        let uses = std::mem::take(&mut self.construct_uses);
        for (cb, v, what) in &uses {
            let Some(cb) = *cb else { continue };
            if !cfg.is_reachable(cb) {
                continue;
            }
            let Some((db, _)) = self.def_loc(*v) else { continue };
            if !dom.dominates(db, cb) {
                self.issue(Some(cb), format!("{v}, the {what}, does not dominate the end of {cb} (defined in {db})"));
            }
        }
        self.construct_uses = uses;
    }
}

#[cfg(test)]
mod tests {
    use crate::cfg::build::*;
    use crate::function::*;
    use crate::verify::fixtures::*;
    use tgsi::Opcode;

    #[test]
    fn use_before_def_in_the_same_block() {
        let mut t = Builder::default();
        let b0 = t.block();
        let x = t.konst(b0, 1);
        let add = t.inst(b0, Op::Alu { opcode: Opcode::Add, chan: 0 }, &[x, x], &[Ty::B32]);
        let y = t.f.result(add);
        t.f.insts[add].args[1].value = y;
        t.f.body = vec![blk(b0)];
        assert_issue(&t.f, "does not dominate its use (defined by this instruction)");
        let late = t.konst(b0, 5);
        t.f.insts[add].args[1].value = late;
        assert_issue(&t.f, "does not dominate its use (defined later in this block)");
    }

    #[test]
    fn unreachable_blocks_skip_dominance() {
        // b0: c; if c { b1 return } else { b2 return }; b3 (unreachable) uses a value from b1.
        let mut t = Builder::default();
        let b: Vec<Block> = (0..4).map(|_| t.block()).collect();
        let c = t.konst(b[0], 1);
        let y = t.konst(b[1], 1);
        t.store(b[3], 0, y);
        t.exit(b[1], Exit::Return);
        t.exit(b[2], Exit::Return);
        t.f.body = vec![blk(b[0]), if_(c, vec![blk(b[1])], vec![blk(b[2])]), blk(b[3])];
        assert_valid(&t.f);
    }
}
