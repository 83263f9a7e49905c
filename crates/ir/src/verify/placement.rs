//! Check 2: placement. Every instruction a block of the tree lists exists
//! and is listed once in the whole tree; the first listing is where it is
//! placed. Blocks outside the tree and instructions listed nowhere are
//! ignored from here on.

use super::Verifier;
use crate::entity::EntityRef;
use crate::function::{Block, Inst};

impl Verifier<'_> {
    pub(super) fn placement(&mut self) {
        let func = self.func;
        for bi in 0..self.order.len() {
            let b = self.order[bi];
            let Some(data) = func.blocks.get(b) else { continue };
            for (pos, &inst) in data.insts.iter().enumerate() {
                if !func.insts.contains(inst) {
                    self.issue(Some(b), format!("lists {inst}, which does not exist"));
                    continue;
                }
                match self.loc(inst) {
                    Some((other, _)) if other == b => {
                        self.inst_issue(Some(b), inst, format!("{inst} is listed twice in {b}"));
                    }
                    Some((other, _)) => {
                        self.inst_issue(Some(b), inst, format!("{inst} is also listed in {other}"));
                    }
                    None => self.inst_loc[inst.index()] = Some((b, pos)),
                }
            }
        }
    }

    /// The placed instructions in program order, with their location.
    pub(super) fn placed(&self) -> Vec<(Block, usize, Inst)> {
        let mut out = Vec::new();
        for &b in &self.order {
            let Some(data) = self.func.blocks.get(b) else { continue };
            for (pos, &inst) in data.insts.iter().enumerate() {
                if self.loc(inst) == Some((b, pos)) {
                    out.push((b, pos, inst));
                }
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use crate::entity::EntityRef;
    use crate::function::*;
    use crate::verify::fixtures::*;

    #[test]
    fn placement_errors() {
        let (mut t, [b0, b1, _, _], [x, ..]) = diamond();
        let def = t.f.values[x].def;
        t.f.blocks[b1].insts.push(def);
        assert_issue(&t.f, &format!("{def} is also listed in {b0}"));
        t.f.blocks[b1].insts.pop();
        t.f.blocks[b0].insts.push(def);
        assert_issue(&t.f, &format!("{def} is listed twice in {b0}"));
        t.f.blocks[b0].insts.pop();
        t.f.blocks[b0].insts.push(Inst::new(999));
        assert_issue(&t.f, "b0: lists i999, which does not exist");
    }

    #[test]
    fn detached_blocks_and_dead_instructions_are_ignored() {
        let (mut t, ..) = diamond();
        let d = t.block();
        let v = t.konst(d, 1);
        t.inst(d, Op::Pack, &[v], &[Ty::B32]);
        t.f.add_inst(Op::Split { hi: false }, &[], &[], Origin::default());
        assert_valid(&t.f);
    }
}
