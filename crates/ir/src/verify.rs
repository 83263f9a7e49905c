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

use crate::cfg::{Cfg, DomTree};
use crate::entity::EntityRef;
use crate::function::{Block, Exit, Function, Inst, InstData, Node, Op, Operand, Ty, Value};
use crate::print::print_inst;
use crate::walk::{walk, ConstructRef, Event, Place};
use tgsi::{ChannelMode, Opcode};

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

fn width(ty: Ty) -> &'static str {
    match ty {
        Ty::B32 => "32-bit",
        Ty::B64 => "64-bit",
    }
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

    // ---- 1. Tree shape and structured flow ----

    fn structure(&mut self) {
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

    // ---- 2. Placement ----

    fn placement(&mut self) {
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
    fn placed(&self) -> Vec<(Block, usize, Inst)> {
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

    // ---- 3. Definitions ----

    fn definitions(&mut self) {
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

    // ---- 4. Operations ----

    fn operations(&mut self) {
        let func = self.func;
        let mut phis_done: Option<Block> = None;
        let mut current: Option<Block> = None;
        for (b, _, inst) in self.placed() {
            let Some(data) = func.insts.get(inst) else { continue };
            if current != Some(b) {
                current = Some(b);
                phis_done = None;
            }
            if matches!(data.op, Op::Phi { .. }) {
                if phis_done.is_some() {
                    self.inst_issue(Some(b), inst, "phi after a non-phi instruction".into());
                }
            } else {
                phis_done = Some(b);
            }
            self.op(b, inst, data);
        }
    }

    /// Checks the count of operands and results.
    fn counts(&mut self, b: Block, inst: Inst, data: &InstData, what: &str, args: &[usize], results: usize) -> bool {
        let mut ok = true;
        if !args.contains(&data.args.len()) {
            let expected = match args {
                [n] => n.to_string(),
                [a, b] => format!("{a} or {b}"),
                _ => format!("{args:?}"),
            };
            self.inst_issue(Some(b), inst, format!("{what} takes {expected} operand(s), not {}", data.args.len()));
            ok = false;
        }
        if data.results.len() != results {
            self.inst_issue(Some(b), inst, format!("{what} has {results} result(s), not {}", data.results.len()));
            ok = false;
        }
        ok
    }

    /// Checks that operand `i` has width `ty` (when it exists).
    fn arg_ty(&mut self, b: Block, inst: Inst, data: &InstData, i: usize, ty: Ty, what: &str) {
        let Some(arg) = data.args.get(i) else { return };
        match self.ty(arg.value) {
            Some(t) if t != ty => self.inst_issue(
                Some(b),
                inst,
                format!("operand {i} ({}) of {what} is {}; expected {}", arg.value, width(t), width(ty)),
            ),
            _ => {}
        }
    }

    /// Checks that result `i` has width `ty` (when it exists).
    fn result_ty(&mut self, b: Block, inst: Inst, data: &InstData, i: usize, ty: Ty, what: &str) {
        let Some(&r) = data.results.get(i) else { return };
        match self.ty(r) {
            Some(t) if t != ty => {
                self.inst_issue(Some(b), inst, format!("result {r} of {what} is {}; expected {}", width(t), width(ty)))
            }
            _ => {}
        }
    }

    fn no_modifiers(&mut self, b: Block, inst: Inst, data: &InstData, what: &str) {
        for (i, a) in data.args.iter().enumerate() {
            if a.neg || a.abs {
                self.inst_issue(
                    Some(b),
                    inst,
                    format!("operand {i} of {what} has a source modifier; {what} moves bits"),
                );
            }
        }
    }

    fn chan(&mut self, b: Block, inst: Inst, chan: u8, limit: u8, what: &str) {
        if chan >= limit {
            self.inst_issue(Some(b), inst, format!("channel {chan} of {what} is out of range 0..{limit}"));
        }
    }

    fn op(&mut self, b: Block, inst: Inst, data: &InstData) {
        match &data.op {
            Op::Const(bits) => {
                if self.counts(b, inst, data, "const", &[0], 1)
                    && data.results.first().and_then(|&r| self.ty(r)) == Some(Ty::B32)
                    && *bits > u64::from(u32::MAX)
                {
                    self.inst_issue(Some(b), inst, format!("32-bit constant 0x{bits:x} has bits above bit 31"));
                }
            }
            Op::Initial | Op::Undef => {
                self.counts(b, inst, data, "initial", &[0], 1);
                self.result_ty(b, inst, data, 0, Ty::B32, "initial");
            }
            Op::Read(src) => {
                self.counts(b, inst, data, "read", &[0], 1);
                self.result_ty(b, inst, data, 0, Ty::B32, "read");
                self.chan(b, inst, src.chan, 4, "read");
            }
            Op::Alu { opcode, chan } => self.alu(b, inst, data, *opcode, *chan),
            Op::Pack => {
                self.counts(b, inst, data, "pack", &[2], 1);
                self.no_modifiers(b, inst, data, "pack");
                for i in 0..2 {
                    self.arg_ty(b, inst, data, i, Ty::B32, "pack");
                }
                self.result_ty(b, inst, data, 0, Ty::B64, "pack");
            }
            Op::Split { .. } => {
                self.counts(b, inst, data, "split", &[1], 1);
                self.no_modifiers(b, inst, data, "split");
                self.arg_ty(b, inst, data, 0, Ty::B64, "split");
                self.result_ty(b, inst, data, 0, Ty::B32, "split");
            }
            Op::Phi { preds } => {
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
            Op::LoadIndirect { chan, .. } => {
                if data.results.len() != 1 {
                    self.inst_issue(Some(b), inst, format!("loadindirect has {} results, not 1", data.results.len()));
                }
                self.no_modifiers(b, inst, data, "loadindirect");
                for i in 0..data.args.len() {
                    self.arg_ty(b, inst, data, i, Ty::B32, "loadindirect");
                }
                self.result_ty(b, inst, data, 0, Ty::B32, "loadindirect");
                self.chan(b, inst, *chan, 4, "loadindirect");
            }
            Op::ArrayLoad { array, offset, chan } => {
                self.counts(b, inst, data, "arrayload", &[0, 1], 1);
                self.no_modifiers(b, inst, data, "arrayload");
                self.arg_ty(b, inst, data, 0, Ty::B32, "arrayload");
                self.result_ty(b, inst, data, 0, Ty::B32, "arrayload");
                self.chan(b, inst, *chan, 4, "arrayload");
                self.array(b, inst, *array, *offset, data.args.is_empty());
            }
            Op::ArrayStore { array, offset, chan } => {
                self.counts(b, inst, data, "arraystore", &[1, 2], 0);
                self.no_modifiers(b, inst, data, "arraystore");
                for i in 0..data.args.len() {
                    self.arg_ty(b, inst, data, i, Ty::B32, "arraystore");
                }
                self.chan(b, inst, *chan, 4, "arraystore");
                self.array(b, inst, *array, *offset, data.args.len() < 2);
            }
            Op::StoreOutput { chan, .. } => {
                self.counts(b, inst, data, "storeoutput", &[1], 0);
                self.no_modifiers(b, inst, data, "storeoutput");
                self.arg_ty(b, inst, data, 0, Ty::B32, "storeoutput");
                self.chan(b, inst, *chan, 4, "storeoutput");
            }
            Op::Opaque { inst: template, value_srcs } => {
                let name = template.opcode.name().to_ascii_lowercase();
                let nsrc = template.src.len();
                if nsrc < 8 && u32::from(*value_srcs) >> nsrc != 0 {
                    self.inst_issue(
                        Some(b),
                        inst,
                        format!("value_srcs 0b{value_srcs:b} marks sources beyond the {nsrc} of {name}"),
                    );
                }
                let expected = 4 * value_srcs.count_ones() as usize;
                if data.args.len() != expected {
                    self.inst_issue(
                        Some(b),
                        inst,
                        format!(
                            "{name} has {} arguments; {} value source(s) take {expected}",
                            data.args.len(),
                            value_srcs.count_ones()
                        ),
                    );
                }
                for i in 0..data.args.len() {
                    self.arg_ty(b, inst, data, i, Ty::B32, &name);
                }
                let max_results = 4 * template.dst.len();
                if data.results.len() > max_results {
                    self.inst_issue(
                        Some(b),
                        inst,
                        format!(
                            "{name} has {} results; its {} destination(s) allow {max_results}",
                            data.results.len(),
                            template.dst.len()
                        ),
                    );
                }
                for i in 0..data.results.len() {
                    self.result_ty(b, inst, data, i, Ty::B32, &name);
                }
            }
        }
    }

    fn array(&mut self, b: Block, inst: Inst, array: crate::function::Array, offset: i32, direct: bool) {
        match self.func.arrays.get(array) {
            None => self.inst_issue(Some(b), inst, format!("{array} does not exist")),
            Some(a) if direct && (offset < 0 || i64::from(offset) >= i64::from(a.len)) => {
                self.inst_issue(Some(b), inst, format!("offset {offset} is outside {array} (length {})", a.len))
            }
            Some(_) => {}
        }
    }

    fn alu(&mut self, b: Block, inst: Inst, data: &InstData, opcode: Opcode, chan: u8) {
        let info = opcode.info();
        let name = opcode.name().to_ascii_lowercase();
        let num_src = usize::from(info.num_src);
        if matches!(info.mode, ChannelMode::Other | ChannelMode::None) {
            self.inst_issue(
                Some(b),
                inst,
                format!("{name} does not work channel by channel; it must be an opaque instruction"),
            );
        }
        if info.dst_type.is_64bit() {
            self.chan(b, inst, chan, 2, &format!("64-bit {name} (a channel pair)"));
        } else {
            self.chan(b, inst, chan, 4, &name);
        }
        if info.mode == ChannelMode::Componentwise && data.args.len() != num_src {
            self.inst_issue(
                Some(b),
                inst,
                format!("component-wise {name} takes {num_src} operand(s), not {}", data.args.len()),
            );
        }
        if data.args.len() == num_src {
            for i in 0..num_src {
                self.arg_ty(b, inst, data, i, alu_src_ty(opcode, i), &name);
            }
        } else if !info.is_64bit() {
            for i in 0..data.args.len() {
                self.arg_ty(b, inst, data, i, Ty::B32, &name);
            }
        }
        match info.num_dst {
            1 => {
                if data.results.len() != 1 {
                    self.inst_issue(Some(b), inst, format!("{name} has {} results, not 1", data.results.len()));
                }
                let ty = if info.dst_type.is_64bit() { Ty::B64 } else { Ty::B32 };
                self.result_ty(b, inst, data, 0, ty, &name);
            }
            n if data.results.len() > usize::from(n) => self.inst_issue(
                Some(b),
                inst,
                format!("{name} has {} results; it has {n} destination(s)", data.results.len()),
            ),
            _ => {}
        }
    }

    // ---- 5. SSA ----

    fn ssa(&mut self) {
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

    fn phi(&mut self, cfg: &Cfg, dom: &DomTree, b: Block, inst: Inst, data: &InstData, preds: &[Block]) {
        let actual = cfg.preds(b);
        for (i, p) in preds.iter().enumerate() {
            if preds[..i].contains(p) {
                self.inst_issue(Some(b), inst, format!("phi lists predecessor {p} twice"));
            } else if !actual.contains(p) {
                self.inst_issue(Some(b), inst, format!("phi lists {p}, which is not a predecessor of {b}"));
            }
        }
        for p in actual {
            if !preds.contains(p) {
                self.inst_issue(Some(b), inst, format!("phi has no argument for predecessor {p}"));
            }
        }
        for (p, arg) in preds.iter().zip(&data.args) {
            if !actual.contains(p) || !cfg.is_reachable(*p) {
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

/// The width of ALU operand `i` of `opcode`, by the opcode table, except
/// for the shift count of 64-bit shifts, which is one 32-bit channel.
fn alu_src_ty(opcode: Opcode, i: usize) -> Ty {
    if matches!(opcode, Opcode::U64shl | Opcode::I64shr | Opcode::U64shr) && i == 1 {
        return Ty::B32;
    }
    if opcode.src_type(i).is_64bit() {
        Ty::B64
    } else {
        Ty::B32
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cfg::build::*;
    use crate::function::*;
    use smallvec::smallvec;

    fn issues(f: &Function) -> Vec<String> {
        match verify(f) {
            Ok(()) => Vec::new(),
            Err(e) => e.issues.iter().map(|i| i.to_string()).collect(),
        }
    }

    #[track_caller]
    fn assert_valid(f: &Function) {
        if let Err(e) = verify(f) {
            panic!("{e}\n{}", crate::print::print_function(f));
        }
    }

    #[track_caller]
    fn assert_issue(f: &Function, expected: &str) {
        let all = issues(f);
        assert!(all.iter().any(|i| i.contains(expected)), "no issue contains {expected:?}; issues: {all:#?}");
    }

    /// b0: x, c; if c { b1: y = add x x } else { b2: z = mul x x }; b3: p = phi [b1: y, b2: z]; store p
    fn diamond() -> (Builder, [Block; 4], [Value; 5]) {
        let mut t = Builder::default();
        let [b0, b1, b2, b3] = [t.block(), t.block(), t.block(), t.block()];
        let x = t.konst(b0, 0x3f80_0000);
        let c = t.konst(b0, 1);
        let y = t.alu(b1, Opcode::Add, &[x, x]);
        let z = t.alu(b2, Opcode::Mul, &[x, x]);
        let p = t.phi(b3, &[(b1, y), (b2, z)]);
        t.store(b3, 0, p);
        t.f.body = vec![blk(b0), if_(c, vec![blk(b1)], vec![blk(b2)]), blk(b3)];
        (t, [b0, b1, b2, b3], [x, c, y, z, p])
    }

    #[test]
    fn valid_if_else_with_phi() {
        let (t, ..) = diamond();
        assert_valid(&t.f);
    }

    /// b0: x, c
    /// loop { b1: i = phi [b0: x, b2: i, b5: j]; if c { b2 continue } else { b3 };
    ///        b4; if c { b5: j = add i x } else { b6 break }; b7 }
    /// b8: store i
    fn looped() -> (Builder, Vec<Block>, Inst) {
        let mut t = Builder::default();
        let b: Vec<Block> = (0..9).map(|_| t.block()).collect();
        let x = t.konst(b[0], 1);
        let c = t.konst(b[0], 2);
        let phi = t.inst(b[1], Op::Phi { preds: smallvec![b[0], b[2], b[7]] }, &[x, x, x], &[Ty::B32]);
        let i = t.f.result(phi);
        let j = t.alu(b[5], Opcode::Add, &[i, x]);
        let k = t.phi(b[7], &[(b[5], j)]);
        t.f.insts[phi].args[1].value = i;
        t.f.insts[phi].args[2].value = k;
        t.store(b[8], 0, i);
        t.exit(b[2], Exit::Continue);
        t.exit(b[6], Exit::Break);
        t.f.body = vec![
            blk(b[0]),
            loop_(vec![
                blk(b[1]),
                if_(c, vec![blk(b[2])], vec![blk(b[3])]),
                blk(b[4]),
                if_(c, vec![blk(b[5])], vec![blk(b[6])]),
                blk(b[7]),
            ]),
            blk(b[8]),
        ];
        (t, b, phi)
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
        let bad = t.inst(b2, Op::Alu { opcode: Opcode::Add, chan: 1 }, &[x, y], &[Ty::B32]);
        let all = issues(&t.f);
        let r = t.f.result(bad);
        assert_eq!(
            all,
            vec![format!("{b2}, {bad} ({r} = add.y {x}, {y}): {y} does not dominate its use (defined in {b1})")]
        );
        let err = verify(&t.f).unwrap_err();
        assert_eq!(err.to_string(), format!("invalid IR: {}", all[0]));
    }

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
    fn type_errors() {
        let mut t = Builder::default();
        let b0 = t.block();
        t.f.body = vec![blk(b0)];
        let x = t.konst(b0, 1);
        let pack = t.inst(b0, Op::Pack, &[x, x], &[Ty::B64]);
        let d = t.f.result(pack);
        let lo = t.inst(b0, Op::Split { hi: false }, &[d], &[Ty::B32]);
        let lo = t.f.result(lo);
        let dadd = t.alu(b0, Opcode::Dadd, &[d, d]);
        let shl = t.alu(b0, Opcode::U64shl, &[d, lo]);
        let f2d = t.alu(b0, Opcode::F2d, &[lo]);
        let d2f = t.alu(b0, Opcode::D2f, &[f2d]);
        let dp3 = t.alu(b0, Opcode::Dp3, &[x, x, x, lo, lo, lo]);
        let slt = t.alu(b0, Opcode::Dslt, &[dadd, shl]);
        t.store(b0, 0, d2f);
        t.store(b0, 1, dp3);
        t.store(b0, 2, slt);
        assert_valid(&t.f);

        let bad = t.inst(b0, Op::Pack, &[x, d], &[Ty::B32]);
        assert_issue(&t.f, &format!("operand 1 ({d}) of pack is 64-bit; expected 32-bit"));
        assert_issue(&t.f, "of pack is 32-bit; expected 64-bit");
        t.f.blocks[b0].insts.retain(|&i| i != bad);
        t.inst(b0, Op::Split { hi: true }, &[x], &[Ty::B32]);
        assert_issue(&t.f, &format!("operand 0 ({x}) of split is 32-bit; expected 64-bit"));
        t.f.blocks[b0].insts.pop();
        t.alu(b0, Opcode::Dmul, &[d, x]);
        assert_issue(&t.f, &format!("operand 1 ({x}) of dmul is 32-bit; expected 64-bit"));
        t.f.blocks[b0].insts.pop();
        t.alu(b0, Opcode::Add, &[d, x]);
        assert_issue(&t.f, &format!("operand 0 ({d}) of add is 64-bit; expected 32-bit"));
        t.f.blocks[b0].insts.pop();
        t.alu(b0, Opcode::Dp3, &[x, x, d, x, x, x]);
        assert_issue(&t.f, &format!("operand 2 ({d}) of dp3 is 64-bit; expected 32-bit"));
        t.f.blocks[b0].insts.pop();
        t.alu(b0, Opcode::Add, &[x]);
        assert_issue(&t.f, "component-wise add takes 2 operand(s), not 1");
        t.f.blocks[b0].insts.pop();
        t.inst(b0, Op::Alu { opcode: Opcode::Dadd, chan: 2 }, &[d, d], &[Ty::B64]);
        assert_issue(&t.f, "channel 2 of 64-bit dadd (a channel pair) is out of range 0..2");
        t.f.blocks[b0].insts.pop();
        t.inst(b0, Op::Alu { opcode: Opcode::Dadd, chan: 0 }, &[d, d], &[Ty::B32]);
        assert_issue(&t.f, "of dadd is 32-bit; expected 64-bit");
        t.f.blocks[b0].insts.pop();
        t.konst(b0, 0x1_0000_0000);
        assert_issue(&t.f, "32-bit constant 0x100000000 has bits above bit 31");
        t.f.blocks[b0].insts.pop();
        t.inst(b0, Op::StoreOutput { index: 0, chan: 4 }, &[x, x], &[Ty::B32]);
        assert_issue(&t.f, "storeoutput takes 1 operand(s), not 2");
        assert_issue(&t.f, "storeoutput has 0 result(s), not 1");
        assert_issue(&t.f, "channel 4 of storeoutput is out of range 0..4");
        t.f.blocks[b0].insts.pop();
        t.inst(b0, Op::Alu { opcode: Opcode::Tex, chan: 0 }, &[x, x, x, x], &[Ty::B32]);
        assert_issue(&t.f, "tex does not work channel by channel; it must be an opaque instruction");
    }

    #[test]
    fn array_errors() {
        let mut t = Builder::default();
        let b0 = t.block();
        t.f.body = vec![blk(b0)];
        let a0 = t.f.arrays.push(ArrayData { file: tgsi::File::Temporary, first: 4, len: 4, array_id: Some(1) });
        let x = t.konst(b0, 1);
        t.inst(b0, Op::ArrayStore { array: a0, offset: 3, chan: 0 }, &[x], &[]);
        t.inst(b0, Op::ArrayStore { array: a0, offset: 7, chan: 0 }, &[x, x], &[]);
        t.inst(b0, Op::ArrayLoad { array: a0, offset: -1, chan: 1 }, &[x], &[Ty::B32]);
        t.inst(b0, Op::ArrayLoad { array: a0, offset: 0, chan: 1 }, &[], &[Ty::B32]);
        assert_valid(&t.f);
        t.inst(b0, Op::ArrayLoad { array: a0, offset: 4, chan: 1 }, &[], &[Ty::B32]);
        assert_issue(&t.f, "offset 4 is outside a0 (length 4)");
        t.f.blocks[b0].insts.pop();
        t.inst(b0, Op::ArrayStore { array: a0, offset: -1, chan: 0 }, &[x], &[]);
        assert_issue(&t.f, "offset -1 is outside a0 (length 4)");
        t.f.blocks[b0].insts.pop();
        t.inst(b0, Op::ArrayLoad { array: Array::new(3), offset: 0, chan: 0 }, &[x], &[Ty::B32]);
        assert_issue(&t.f, "a3 does not exist");
        t.f.blocks[b0].insts.pop();
        t.inst(b0, Op::ArrayStore { array: a0, offset: 0, chan: 0 }, &[], &[]);
        assert_issue(&t.f, "arraystore takes 1 or 2 operand(s), not 0");
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

    #[test]
    fn detached_blocks_and_dead_instructions_are_ignored() {
        let (mut t, ..) = diamond();
        let d = t.block();
        let v = t.konst(d, 1);
        t.inst(d, Op::Pack, &[v], &[Ty::B32]);
        t.f.add_inst(Op::Split { hi: false }, &[], &[], Origin::default());
        assert_valid(&t.f);
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
    fn opaque_checks() {
        let mut t = Builder::default();
        let b0 = t.block();
        t.f.body = vec![blk(b0)];
        let x = t.konst(b0, 1);
        let mut tex = tgsi::Instruction::new(Opcode::Tex);
        tex.dst.push(tgsi::DstOperand { reg: tgsi::Register::new(tgsi::File::Temporary, 0), write_mask: 0xf });
        for file in [tgsi::File::Temporary, tgsi::File::Sampler] {
            tex.src.push(tgsi::SrcOperand {
                reg: tgsi::Register::new(file, 0),
                swizzle: [0, 1, 2, 3],
                negate: false,
                absolute: false,
            });
        }
        let op = Op::Opaque { inst: Box::new(tex), value_srcs: 0b01 };
        t.inst(b0, op.clone(), &[x, x, x, x], &[Ty::B32; 4]);
        assert_valid(&t.f);
        t.inst(b0, op, &[x, x], &[Ty::B32; 5]);
        assert_issue(&t.f, "tex has 2 arguments; 1 value source(s) take 4");
        assert_issue(&t.f, "tex has 5 results; its 1 destination(s) allow 4");
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
