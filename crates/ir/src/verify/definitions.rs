//! Check 3: definitions. Every value's `def` exists and lists the value
//! among its results; every result of a placed instruction points back to
//! it; every operand, and every value a construct reads, exists and is
//! defined by a placed instruction.

use super::Verifier;
use crate::function::{Block, Inst, Value};

impl Verifier<'_> {
    pub(super) fn definitions(&mut self) {
        let func = self.func;
        for (v, vd) in func.values.iter() {
            match func.insts.get(vd.def) {
                None => self.issue(None, format!("{v} is defined by {}, which does not exist", vd.def)),
                Some(d) if !d.results.contains(&v) => {
                    let block = self.loc(vd.def).map(|l| l.0);
                    self.inst_issue(
                        block,
                        vd.def,
                        format!("{v} names {} as its def, but is not among its results", vd.def),
                    );
                }
                Some(_) => {}
            }
        }
        for (b, _, inst) in self.placed() {
            let Some(data) = func.insts.get(inst) else { continue };
            for (k, &r) in data.results.iter().enumerate() {
                match func.values.get(r) {
                    None => self.inst_issue(Some(b), inst, format!("result {r} does not exist")),
                    Some(vd) if vd.def != inst => {
                        self.inst_issue(Some(b), inst, format!("result {r} names {} as its def", vd.def));
                    }
                    Some(_) if data.results[..k].contains(&r) => {
                        self.inst_issue(Some(b), inst, format!("result {r} is listed twice"));
                    }
                    Some(_) => {}
                }
            }
            for arg in &data.args {
                self.check_defined(Some(b), Some(inst), arg.value);
            }
        }
        let uses = std::mem::take(&mut self.construct_uses);
        for (b, v, _) in &uses {
            self.check_defined(*b, None, *v);
        }
        self.construct_uses = uses;
    }

    /// Reports a use of `v` whose definition is missing or not placed.
    fn check_defined(&mut self, block: Option<Block>, inst: Option<Inst>, v: Value) {
        let message = match self.func.values.get(v) {
            None => format!("{v} does not exist"),
            // A missing def is reported with the value itself.
            Some(vd) if !self.func.insts.contains(vd.def) => return,
            Some(vd) if self.loc(vd.def).is_none() => format!("{v} is defined by {}, which is in no block", vd.def),
            Some(_) => return,
        };
        match inst {
            Some(i) => self.inst_issue(block, i, message),
            None => self.issue(block, message),
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::entity::EntityRef;
    use crate::function::*;
    use crate::verify::fixtures::*;

    #[test]
    fn definition_errors() {
        let (mut t, [b0, b1, ..], [x, _, y, ..]) = diamond();
        let add = t.f.values[y].def;
        // An operand that does not exist.
        t.f.insts[add].args[0].value = Value::new(777);
        assert_issue(&t.f, "v777 does not exist");
        // An operand whose def is in no block.
        let dead = t.f.add_inst(Op::Const(3), &[], &[Ty::B32], Origin::default());
        let d = t.f.result(dead);
        t.f.insts[add].args[0].value = d;
        assert_issue(&t.f, &format!("{d} is defined by {dead}, which is in no block"));
        t.f.insts[add].args[0].value = x;
        // A value whose def does not list it, and a result whose def points elsewhere.
        let xdef = t.f.values[x].def;
        t.f.values[x].def = add;
        assert_issue(&t.f, &format!("{x} names {add} as its def, but is not among its results"));
        assert_issue(&t.f, &format!("{b0}, {xdef} ({x} = const"));
        assert_issue(&t.f, &format!("result {x} names {add} as its def"));
        t.f.values[x].def = Inst::new(5000);
        assert_issue(&t.f, &format!("{x} is defined by i5000, which does not exist"));
        t.f.values[x].def = xdef;
        t.f.insts[add].results.push(y);
        assert_issue(&t.f, &format!("{b1}, {add}"));
        assert_issue(&t.f, &format!("result {y} is listed twice"));
    }
}
