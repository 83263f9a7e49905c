//! Check 1: the tree's shape and structured flow.
//!
//! Walks the region tree once, in program order: every region is non-empty
//! and starts with a block, every construct is followed by a block, every
//! block exists and appears once, `break`/`continue`/`return` only where
//! they may stand, at most one `DEFAULT` per switch, and the operands a
//! construct reads (conditions, selectors, case values) exist and are
//! 32-bit. It records the blocks of the tree in order and the values the
//! constructs read, for the later checks, and whether the shape allows
//! deriving the CFG.

use super::Verifier;
use crate::entity::EntityRef;
use crate::function::{Block, Exit, Node, Operand, Ty};
use crate::walk::{walk, ConstructRef, Event, Place};

/// What the structure check knows in one region.
struct Frame {
    in_loop: bool,
    in_breakable: bool,
    what: String,
}

fn kind(node: &Node) -> &'static str {
    node.construct().map_or("block", construct_kind)
}

fn construct_kind(construct: ConstructRef<'_>) -> &'static str {
    match construct {
        ConstructRef::If(_) => "if",
        ConstructRef::Loop(_) => "loop",
        ConstructRef::Switch(_) => "switch",
    }
}

impl Verifier<'_> {
    pub(super) fn structure(&mut self) {
        let func = self.func;
        // The frames of the regions being walked, innermost last, and those
        // of the regions of the constructs entered, to enter next last.
        let mut frames: Vec<Frame> = Vec::new();
        let mut pending: Vec<Frame> = Vec::new();
        self.enter(&mut pending, &func.body, false, false, "the function body".to_string());
        for event in walk(&func.body) {
            match event {
                Event::EnterRegion(_) => {
                    // The root's frame and one per region of each construct
                    // entered were prepared.
                    let what = String::new();
                    frames.push(pending.pop().unwrap_or(Frame { in_loop: false, in_breakable: false, what }));
                }
                Event::LeaveRegion(_) => {
                    frames.pop();
                }
                Event::Block(b, at) => {
                    if let Some(top) = frames.last() {
                        self.block_node(b, at.is_last(), top.in_loop, top.in_breakable);
                    }
                }
                Event::Enter(construct, at) => {
                    if let Some(top) = frames.last() {
                        self.construct(construct, at, top, &mut pending);
                    }
                }
                Event::Leave(..) => {}
            }
        }
    }

    /// Checks a construct's place, operands and regions, and prepares the
    /// frames of its regions (the first on top).
    fn construct(&mut self, construct: ConstructRef<'_>, at: Place<'_>, top: &Frame, pending: &mut Vec<Frame>) {
        let (in_loop, in_breakable) = (top.in_loop, top.in_breakable);
        let prev = at.prev_block();
        let word = construct_kind(construct);
        let name = match prev {
            Some(b) => format!("the {word} after {b}"),
            None if at.index == 0 => format!("the {word} at the start of {}", top.what),
            None => format!("the {word} at node {} of {}", at.index, top.what),
        };
        if !matches!(at.next(), Some(Node::Block(_))) {
            self.shape_ok = false;
            let what = match at.next() {
                None => "is the last node of its region".to_string(),
                Some(n) => format!("is followed by a {} instead of a block", kind(n)),
            };
            self.issue(prev, format!("{name} {what}"));
        }
        match construct {
            ConstructRef::If(n) => {
                let word = if n.unsigned { "uif" } else { "if" };
                self.construct_operand(prev, &n.cond, &format!("condition of {name}"), word);
                self.enter(pending, &n.else_region, in_loop, in_breakable, format!("the else region of {name}"));
                self.enter(pending, &n.then_region, in_loop, in_breakable, format!("the then region of {name}"));
            }
            ConstructRef::Loop(n) => {
                self.enter(pending, &n.body, true, true, format!("the body of {name}"));
            }
            ConstructRef::Switch(n) => {
                self.construct_operand(prev, &n.selector, &format!("selector of {name}"), "switch");
                let defaults = n.cases.iter().filter(|c| c.value.is_none()).count();
                if defaults > 1 {
                    self.issue(prev, format!("{name} has {defaults} DEFAULT cases"));
                }
                for (k, case) in n.cases.iter().enumerate() {
                    if let Some(v) = &case.value {
                        self.construct_operand(prev, v, &format!("value of case {k} of {name}"), "case");
                    }
                }
                for (k, case) in n.cases.iter().enumerate().rev() {
                    self.enter(pending, &case.body, in_loop, true, format!("case {k} of {name}"));
                }
            }
        }
    }

    /// Checks that `region` starts with a block, and prepares its frame.
    fn enter(&mut self, pending: &mut Vec<Frame>, region: &[Node], in_loop: bool, brk: bool, what: String) {
        match region.first() {
            None => {
                self.shape_ok = false;
                self.issue(None, format!("{what} is empty"));
            }
            Some(Node::Block(_)) => {}
            Some(n) => {
                self.shape_ok = false;
                self.issue(None, format!("{what} starts with a {} instead of a block", kind(n)));
            }
        }
        pending.push(Frame { in_loop, in_breakable: brk, what });
    }

    fn block_node(&mut self, b: Block, last: bool, in_loop: bool, in_breakable: bool) {
        let Some(data) = self.func.blocks.get(b) else {
            self.shape_ok = false;
            self.issue(None, format!("the tree lists {b}, which does not exist"));
            return;
        };
        if self.block_seen[b.index()] {
            self.shape_ok = false;
            self.issue(Some(b), format!("{b} appears more than once in the tree"));
            return;
        }
        self.block_seen[b.index()] = true;
        self.order.push(b);
        let exit = match data.exit {
            Exit::Fallthrough => return,
            Exit::Break => "break",
            Exit::Continue => "continue",
            Exit::Return => "return",
        };
        if data.exit == Exit::Break && !in_breakable {
            self.issue(Some(b), "break outside a loop or switch".into());
        }
        if data.exit == Exit::Continue && !in_loop {
            self.issue(Some(b), "continue outside a loop".into());
        }
        if !last {
            self.issue(Some(b), format!("ends with {exit} but is not the last node of its region"));
        }
    }

    fn construct_operand(&mut self, cond_block: Option<Block>, op: &Operand, what: &str, word: &str) {
        match self.ty(op.value) {
            None => self.issue(cond_block, format!("the {what} is {}, which does not exist", op.value)),
            Some(Ty::B64) => {
                self.issue(cond_block, format!("the {what} ({}) is 64-bit; {word} reads 32 bits", op.value))
            }
            Some(Ty::B32) => self.construct_uses.push((cond_block, op.value, what.to_string())),
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::cfg::build::*;
    use crate::entity::EntityRef;
    use crate::function::*;
    use crate::verify::fixtures::*;

    #[test]
    fn tree_shape_errors() {
        let (t0, [b0, b1, b2, b3], [_, c, ..]) = diamond();
        let mut t = t0;
        t.f.body = vec![blk(b0), if_(c, vec![], vec![blk(b2)]), blk(b3)];
        assert_issue(&t.f, "the then region of the if after b0 is empty");
        t.f.body = vec![blk(b0), if_(c, vec![blk(b1)], vec![blk(b2)])];
        assert_issue(&t.f, "b0: the if after b0 is the last node of its region");
        t.f.body = vec![blk(b0), if_(c, vec![blk(b1)], vec![blk(b2)]), loop_(vec![blk(b3)]), blk(Block::new(4))];
        assert_issue(&t.f, "the if after b0 is followed by a loop instead of a block");
        assert_issue(&t.f, "the tree lists b4, which does not exist");
        t.f.body = vec![if_(c, vec![blk(b1)], vec![blk(b2)]), blk(b3)];
        assert_issue(&t.f, "the function body starts with a if instead of a block");
        t.f.body = vec![blk(b0), if_(c, vec![blk(b1)], vec![blk(b1)]), blk(b3)];
        assert_issue(&t.f, "b1: b1 appears more than once in the tree");
        t.f.body = vec![];
        assert_issue(&t.f, "the function body is empty");
    }

    #[test]
    fn exit_errors() {
        let (mut t, [b0, b1, b2, b3], [_, c, ..]) = diamond();
        t.exit(b1, Exit::Break);
        t.exit(b2, Exit::Continue);
        assert_issue(&t.f, "b1: break outside a loop or switch");
        assert_issue(&t.f, "b2: continue outside a loop");
        t.exit(b1, Exit::Fallthrough);
        t.exit(b2, Exit::Fallthrough);
        t.exit(b0, Exit::Return);
        assert_issue(&t.f, "b0: ends with return but is not the last node of its region");
        // Continue inside a switch that is not inside a loop.
        t.exit(b0, Exit::Fallthrough);
        t.exit(b1, Exit::Continue);
        t.f.body = vec![blk(b0), switch(c, vec![(None, vec![blk(b1)])]), blk(b3)];
        assert_issue(&t.f, "b1: continue outside a loop");
        t.f.body = vec![blk(b0), switch(c, vec![(None, vec![blk(b1)]), (None, vec![blk(b2)])]), blk(b3)];
        assert_issue(&t.f, "the switch after b0 has 2 DEFAULT cases");
    }

    #[test]
    fn construct_operands_are_checked() {
        let (mut t, [b0, b1, b2, b3], [x, ..]) = diamond();
        let d = t.inst(b0, Op::Pack, &[x, x], &[Ty::B64]);
        let d = t.f.result(d);
        t.f.body = vec![blk(b0), if_(d, vec![blk(b1)], vec![blk(b2)]), blk(b3)];
        assert_issue(&t.f, &format!("b0: the condition of the if after b0 ({d}) is 64-bit; if reads 32 bits"));
        let y = t.konst(b3, 5);
        t.f.body = vec![blk(b0), if_(y, vec![blk(b1)], vec![blk(b2)]), blk(b3)];
        assert_issue(&t.f, &format!("b0: {y}, the condition of the if after b0, does not dominate the end of b0"));
        t.f.body = vec![blk(b0), if_(Value::new(4000), vec![blk(b1)], vec![blk(b2)]), blk(b3)];
        assert_issue(&t.f, "the condition of the if after b0 is v4000, which does not exist");
    }
}
