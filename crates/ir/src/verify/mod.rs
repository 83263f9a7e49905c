//! The verifier: checks that a [`Function`] is well formed.
//!
//! It checks, in this order:
//!
//! 1. **Tree shape and structured flow.** Every region is non-empty and
//!    starts with a block; every construct is followed by a block; every
//!    block in the tree exists and appears once (blocks of the arena that
//!    are not in the tree are *detached*: ignored, with their
//!    instructions); `break` only inside a loop or switch, `continue` only
//!    inside a loop; a block leaving by `break`, `continue` or `return` is
//!    the last node of its region; a switch has at most one `DEFAULT`;
//!    conditions, selectors and case values exist and are 32-bit.
//! 2. **Placement.** Every instruction listed by a block of the tree exists
//!    and is listed once in the whole tree. Instructions listed nowhere are
//!    dead and not checked further.
//! 3. **Definitions.** Every value's `def` exists and lists the value among
//!    its results; every result of a placed instruction points back to it;
//!    every operand exists and is defined by a placed instruction.
//! 4. **Operations.** Operand counts and widths (`Pack` takes two 32-bit
//!    values and gives a 64-bit one, `Split` the reverse, phi arguments have
//!    the result's width, ALU operands follow the opcode table), channels in
//!    range, arrays that exist and constant offsets within them, no source
//!    modifiers where an op only moves bits (phi, pack, split, loads and
//!    stores), phis only at the start of a block.
//! 5. **SSA** (only when the tree's shape is sound, since the CFG is
//!    derived from it): in every reachable block, each use is dominated by
//!    its definition (earlier in the same block, or in a dominating block);
//!    a phi lists exactly the predecessors of its block (as a set, see
//!    [`crate::cfg`]) and each argument's definition dominates the end of
//!    its predecessor; the values a construct reads are dominated at the end
//!    of its condition block. Unreachable blocks are not checked for
//!    dominance.
//!
//! The verifier never panics, whatever the function holds: dangling
//! indices are reported, not followed.
//!
//! Each check has its module: `structure` (1), `placement` (2),
//! `definitions` (3), `operations` with `opcodes` for ALU and opaque
//! instructions (4), `ssa` (5), and `phis` for both checks of phis.

mod definitions;
#[cfg(test)]
mod fixtures;
mod opcodes;
mod operations;
mod phis;
mod placement;
mod ssa;
mod structure;

use crate::entity::EntityRef;
use crate::function::{Block, Function, Inst, Ty, Value};
use crate::print::print_inst;

/// One problem found by the verifier, with where it is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VerifyIssue {
    /// The block it is in, if any.
    pub block: Option<Block>,
    /// The instruction it is about, if any.
    pub inst: Option<Inst>,
    /// The instruction's text, when it is about one.
    pub inst_text: Option<String>,
    /// What is wrong.
    pub message: String,
}

impl std::fmt::Display for VerifyIssue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut located = false;
        if let Some(b) = self.block {
            write!(f, "{b}")?;
            located = true;
        }
        if let Some(i) = self.inst {
            if located {
                f.write_str(", ")?;
            }
            write!(f, "{i}")?;
            if let Some(t) = &self.inst_text {
                write!(f, " ({t})")?;
            }
            located = true;
        }
        if located {
            f.write_str(": ")?;
        }
        f.write_str(&self.message)
    }
}

/// Every problem the verifier found (at least one).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{}", render(.issues))]
pub struct VerifyError {
    /// The problems, in the order they were found.
    pub issues: Vec<VerifyIssue>,
}

/// How many issues the error's message lists.
const SHOWN: usize = 50;

fn render(issues: &[VerifyIssue]) -> String {
    match issues {
        [one] => format!("invalid IR: {one}"),
        _ => {
            let mut s = format!("invalid IR ({} issues):", issues.len());
            for i in issues.iter().take(SHOWN) {
                s.push_str("\n  ");
                s.push_str(&i.to_string());
            }
            if issues.len() > SHOWN {
                s.push_str(&format!("\n  ... and {} more", issues.len() - SHOWN));
            }
            s
        }
    }
}

/// Checks `func`; see the module documentation for what is checked.
pub fn verify(func: &Function) -> Result<(), VerifyError> {
    let issues = check(func);
    if issues.is_empty() {
        Ok(())
    } else {
        Err(VerifyError { issues })
    }
}

/// Every problem in `func` (empty when it is well formed).
pub fn check(func: &Function) -> Vec<VerifyIssue> {
    let mut v = Verifier {
        func,
        issues: Vec::new(),
        inst_loc: vec![None; func.insts.len()],
        block_seen: vec![false; func.blocks.len()],
        order: Vec::new(),
        construct_uses: Vec::new(),
        shape_ok: true,
    };
    v.structure();
    v.placement();
    v.definitions();
    v.operations();
    if v.shape_ok {
        v.ssa();
    }
    v.issues
}

/// One run of the checks over a function: what they found so far and what
/// the earlier checks learned for the later ones. Each check's module adds
/// its methods.
struct Verifier<'f> {
    func: &'f Function,
    issues: Vec<VerifyIssue>,
    /// Where each instruction is placed: block and position.
    inst_loc: Vec<Option<(Block, usize)>>,
    block_seen: Vec<bool>,
    /// The blocks of the tree, first occurrences, in program order.
    order: Vec<Block>,
    /// Values read by constructs: the condition block and a description.
    construct_uses: Vec<(Option<Block>, Value, String)>,
    /// Whether the tree's shape allows deriving the CFG.
    shape_ok: bool,
}

impl Verifier<'_> {
    fn issue(&mut self, block: Option<Block>, message: String) {
        self.issues.push(VerifyIssue { block, inst: None, inst_text: None, message });
    }

    fn inst_issue(&mut self, block: Option<Block>, inst: Inst, message: String) {
        let inst_text = self.func.insts.get(inst).map(|_| print_inst(self.func, inst));
        self.issues.push(VerifyIssue { block, inst: Some(inst), inst_text, message });
    }

    fn loc(&self, inst: Inst) -> Option<(Block, usize)> {
        self.inst_loc.get(inst.index()).copied().flatten()
    }

    fn ty(&self, v: Value) -> Option<Ty> {
        self.func.values.get(v).map(|d| d.ty)
    }

    /// Where the instruction defining `v` is placed, if `v` exists, its def
    /// exists, and the def is placed.
    fn def_loc(&self, v: Value) -> Option<(Block, usize)> {
        let def = self.func.values.get(v)?.def;
        self.loc(def)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cfg::build::*;
    use crate::function::*;
    use crate::verify::fixtures::*;
    use smallvec::smallvec;
    use tgsi::Opcode;

    #[test]
    fn valid_if_else_with_phi() {
        let (t, ..) = diamond();
        assert_valid(&t.f);
    }

    #[test]
    fn valid_loop_with_break_continue_and_header_phis() {
        let (t, ..) = looped();
        assert_valid(&t.f);
    }

    #[test]
    fn valid_switch_with_fallthrough() {
        // b0: s, k0, k1; switch s { case k0: b1: a (falls through); case k1: b2 break; default: b3: d }
        // b4: p = phi [b2: ?, b3: d]
        let mut t = Builder::default();
        let b: Vec<Block> = (0..5).map(|_| t.block()).collect();
        let s = t.konst(b[0], 0);
        let k0 = t.konst(b[0], 0);
        let k1 = t.konst(b[0], 1);
        let a = t.konst(b[1], 7);
        let m = t.phi(b[2], &[(b[0], s), (b[1], a)]);
        t.exit(b[2], Exit::Break);
        let d = t.konst(b[3], 9);
        let p = t.phi(b[4], &[(b[2], m), (b[3], d)]);
        t.store(b[4], 0, p);
        t.f.body = vec![
            blk(b[0]),
            switch(s, vec![(Some(k0), vec![blk(b[1])]), (Some(k1), vec![blk(b[2])]), (None, vec![blk(b[3])])]),
            blk(b[4]),
        ];
        assert_valid(&t.f);
    }

    #[test]
    fn message_names_block_instruction_and_text() {
        let (mut t, [_, b1, b2, _], [x, _, y, _, _]) = diamond();
        // Use y (defined in b1) in b2.
        let bad = t.inst(b2, Op::Alu { opcode: Opcode::Add, chan: 0 }, &[x, y], &[Ty::B32]);
        let all = issues(&t.f);
        let r = t.f.result(bad);
        assert_eq!(
            all,
            vec![format!("{b2}, {bad} ({r} = add {x}, {y}): {y} does not dominate its use (defined in {b1})")]
        );
        let err = verify(&t.f).unwrap_err();
        assert_eq!(err.to_string(), format!("invalid IR: {}", all[0]));
    }

    #[test]
    fn dangling_indices_never_panic() {
        let (mut t, [b0, b1, b2, b3], [x, c, y, _, p]) = diamond();
        let phi = t.f.values[p].def;
        t.f.insts[phi].op = Op::Phi { preds: smallvec![Block::new(9999), b2] };
        t.f.insts[phi].args[1].value = Value::new(123_456);
        t.f.blocks[b1].insts.push(Inst::new(u32::MAX as usize - 1));
        t.inst(b0, Op::ArrayLoad { array: Array::new(77), offset: i32::MAX, chan: 200 }, &[y, x], &[Ty::B64]);
        t.inst(b0, Op::Alu { opcode: Opcode::Tex, chan: 9 }, &[], &[Ty::B32, Ty::B64]);
        t.inst(b0, Op::Alu { opcode: Opcode::Dadd, chan: 9 }, &[x], &[Ty::B32, Ty::B64]);
        t.inst(b0, Op::Phi { preds: smallvec![b1, Block::new(1 << 31)] }, &[Value::new(1 << 29)], &[]);
        t.f.values[x].def = Inst::new(1 << 30);
        t.f.body = vec![
            blk(b0),
            if_(Value::new(1 << 20), vec![blk(b1), loop_(vec![])], vec![blk(Block::new(1 << 25))]),
            switch(c, vec![(Some(Value::new(5555)), vec![]), (None, vec![blk(b3), blk(b3)])]),
        ];
        let found = issues(&t.f);
        assert!(found.len() > 20, "{found:#?}");
        let _ = crate::print::print_function(&t.f);
    }

    #[test]
    fn many_issues_are_summarized() {
        let mut t = Builder::default();
        let b0 = t.block();
        t.f.body = vec![blk(b0)];
        for _ in 0..60 {
            t.inst(b0, Op::Pack, &[], &[Ty::B64]);
        }
        let e = verify(&t.f).unwrap_err();
        assert_eq!(e.issues.len(), 60);
        let text = e.to_string();
        assert!(text.starts_with("invalid IR (60 issues):\n  b0, i"), "{text}");
        assert!(text.ends_with("\n  ... and 10 more"), "{text}");
    }
}
