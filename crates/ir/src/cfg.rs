//! The control-flow graph derived from a function's [`Region`](crate::function::Region) tree, its
//! dominator tree and loop nesting. Liveness over it is [`crate::liveness`].
//!
//! # Edges
//!
//! The tree is the one source of truth; the CFG is computed from it by these
//! rules, which also define the predecessor set every phi must list:
//!
//! * Within a region, a block whose exit is [`Exit::Fallthrough`] flows to
//!   the *entry blocks* of the next node:
//!   - a block node: that block;
//!   - an if: the first block of `then_region` **and** the first block of
//!     `else_region` (the block before an if is its condition block);
//!   - a loop: the first block of the body (the loop header);
//!   - a switch: the first block of every case body, plus the block after
//!     the switch (its exit) when no case is `DEFAULT`.
//! * The last block of a `then_region` or `else_region` (when it falls
//!   through) flows to the block after the if (the merge block).
//! * The last block of a loop body (when it falls through) flows back to the
//!   loop header (the latch edge).
//! * The last block of case `k`'s body (when it falls through) flows to the
//!   first block of case `k + 1`, and for the last case to the switch exit.
//! * [`Exit::Continue`] flows to the header of the innermost enclosing loop;
//!   [`Exit::Break`] flows to the block after the innermost enclosing loop
//!   *or* switch; [`Exit::Return`] has no successor, and neither has a block
//!   falling off the end of the function body.
//!
//! Edges leave unreachable blocks too: a reachable block's predecessors may
//! include unreachable ones, and its phis list them like any other.
//! Duplicate edges are never recorded (no well-formed tree produces one).
//!
//! # Order
//!
//! Edges are recorded while walking the tree depth-first in program order
//! (blocks before the constructs that follow them, then-region before
//! else-region, cases in order, a loop body before what follows the loop),
//! each block adding its out-edges when it is visited. So `preds(b)` lists
//! predecessors in the program order of the predecessor blocks: for a loop
//! header the entering edge first, then `continue` edges, then the latch
//! edge; for a merge block the then-arm before the else-arm. `succs(b)` of a
//! condition block lists then before else, and cases in order before the
//! switch exit. Phis need only list the same *set* of predecessors (the
//! verifier checks set equality, not order).
//!
//! # Malformed trees
//!
//! [`Cfg::new`] never panics. The verifier checks the tree's shape (every
//! region starts with a block, every construct is followed by a block, every
//! block appears once); on a tree that breaks it, the CFG skips what it
//! cannot interpret: references to blocks that do not exist, second
//! occurrences of a block, and entries of regions that do not start with a
//! block. An empty region passes control straight to what follows it.
//!
//! The tree is walked with [`crate::walk`] and every other walk here uses
//! explicit stacks, so nesting depth is bounded only by memory.

use crate::entity::EntityRef;
use crate::function::{Block, Exit, Function, Node, Value};
use crate::walk::{walk, ConstructRef, Event, Place, RegionKind};
use smallvec::SmallVec;

/// A small list of blocks (the targets of an edge set).
type Targets = SmallVec<[Block; 2]>;

/// The control-flow graph of a function.
#[derive(Clone, Debug)]
pub struct Cfg {
    succs: Vec<Targets>,
    preds: Vec<Targets>,
    entry: Option<Block>,
    order: Vec<Block>,
    in_tree: Vec<bool>,
    reachable: Vec<bool>,
    rpo: Vec<Block>,
    loop_depth: Vec<u32>,
    branch_uses: Vec<SmallVec<[Value; 1]>>,
}

/// What the walk knows in one region.
struct Frame {
    /// For each node, where control goes when it is left by falling through.
    follows: Vec<Targets>,
    /// The innermost loop's header, if inside a loop (`Some(None)` when the
    /// loop has no header block: a malformed tree).
    header: Option<Option<Block>>,
    /// Where `break` goes, if inside a loop or switch.
    brk: Option<Targets>,
    depth: u32,
}

impl Cfg {
    /// Computes the CFG of `func` from its tree.
    pub fn new(func: &Function) -> Cfg {
        let n = func.blocks.len();
        let mut cfg = Cfg {
            succs: vec![Targets::new(); n],
            preds: vec![Targets::new(); n],
            entry: None,
            order: Vec::with_capacity(n),
            in_tree: vec![false; n],
            reachable: vec![false; n],
            rpo: Vec::new(),
            loop_depth: vec![0; n],
            branch_uses: vec![SmallVec::new(); n],
        };
        cfg.entry = region_entries(func, &func.body, &Targets::new()).first().copied();
        cfg.walk(func);
        cfg.compute_rpo();
        cfg
    }

    fn add_edge(&mut self, from: Block, to: Block) {
        let (f, t) = (from.index(), to.index());
        if f >= self.succs.len() || t >= self.preds.len() {
            return;
        }
        // The shorter list answers whether the edge is there: a SWITCH head
        // has thousands of successors, the block after it as many
        // predecessors.
        let present = if self.succs[f].len() <= self.preds[t].len() {
            self.succs[f].contains(&to)
        } else {
            self.preds[t].contains(&from)
        };
        if present {
            return;
        }
        self.succs[f].push(to);
        self.preds[t].push(from);
    }

    fn walk(&mut self, func: &Function) {
        // The frames of the regions being walked, innermost last, and those
        // of the regions of the constructs entered, to enter next last.
        let mut frames: Vec<Frame> = Vec::new();
        let mut pending: Vec<Frame> = Vec::new();
        for event in walk(&func.body) {
            match event {
                Event::EnterRegion(r) => {
                    let frame = match r.kind {
                        RegionKind::Root => Frame {
                            follows: follows(func, r.nodes, &Targets::new()),
                            header: None,
                            brk: None,
                            depth: 0,
                        },
                        // Every construct entered prepared one per region.
                        _ => pending.pop().unwrap_or(Frame { follows: Vec::new(), header: None, brk: None, depth: 0 }),
                    };
                    frames.push(frame);
                }
                Event::LeaveRegion(_) => {
                    frames.pop();
                }
                Event::Block(b, at) => {
                    if let Some(top) = frames.last() {
                        self.block(func, b, top, at.index);
                    }
                }
                Event::Enter(construct, at) => {
                    if let Some(top) = frames.last() {
                        self.enter(func, construct, at, top, &mut pending);
                    }
                }
                Event::Leave(..) => {}
            }
        }
    }

    /// Records block `b`, node `index` of the region of `frame`, and its
    /// out-edges.
    fn block(&mut self, func: &Function, b: Block, frame: &Frame, index: usize) {
        let Some(data) = func.blocks.get(b) else { return };
        if self.in_tree[b.index()] {
            return;
        }
        self.in_tree[b.index()] = true;
        self.order.push(b);
        self.loop_depth[b.index()] = frame.depth;
        let targets: Targets = match data.exit {
            Exit::Fallthrough => frame.follows.get(index).cloned().unwrap_or_default(),
            Exit::Break => frame.brk.clone().unwrap_or_default(),
            Exit::Continue => frame.header.flatten().into_iter().collect(),
            Exit::Return => Targets::new(),
        };
        for t in targets {
            self.add_edge(b, t);
        }
    }

    /// Records the values `construct` reads at the end of its condition
    /// block, and prepares the frames of its regions (the first on top).
    fn enter(
        &mut self,
        func: &Function,
        construct: ConstructRef<'_>,
        at: Place<'_>,
        frame: &Frame,
        pending: &mut Vec<Frame>,
    ) {
        let follow = frame.follows.get(at.index).cloned().unwrap_or_default();
        let (header, brk, depth) = (frame.header, &frame.brk, frame.depth);
        // The block before a construct is its condition block.
        if let Some(c) = at.prev_block().filter(|b| b.index() < func.blocks.len()) {
            self.branch_uses[c.index()].extend(construct.operands().map(|op| op.value));
        }
        match construct {
            ConstructRef::If(n) => {
                for region in [&n.else_region, &n.then_region] {
                    let follows = follows(func, region, &follow);
                    pending.push(Frame { follows, header, brk: brk.clone(), depth });
                }
            }
            ConstructRef::Loop(n) => {
                let head = region_entries(func, &n.body, &Targets::new()).first().copied();
                let back: Targets = head.into_iter().collect();
                let follows = follows(func, &n.body, &back);
                pending.push(Frame { follows, header: Some(head), brk: Some(follow), depth: depth + 1 });
            }
            ConstructRef::Switch(n) => {
                let case_follows = case_follows(func, n, &follow);
                for (case, cf) in n.cases.iter().zip(case_follows).rev() {
                    let follows = follows(func, &case.body, &cf);
                    pending.push(Frame { follows, header, brk: Some(follow.clone()), depth });
                }
            }
        }
    }

    fn compute_rpo(&mut self) {
        let Some(entry) = self.entry else { return };
        if entry.index() >= self.succs.len() {
            return;
        }
        let mut post = Vec::new();
        let mut stack: Vec<(Block, usize)> = vec![(entry, 0)];
        self.reachable[entry.index()] = true;
        // Successors are visited last to first, so that the reverse
        // postorder lists the arms of a construct in program order.
        while let Some(&mut (b, ref mut i)) = stack.last_mut() {
            let succs = &self.succs[b.index()];
            if let Some(&s) = succs.len().checked_sub(*i + 1).and_then(|k| succs.get(k)) {
                *i += 1;
                if !self.reachable[s.index()] {
                    self.reachable[s.index()] = true;
                    stack.push((s, 0));
                }
            } else {
                post.push(b);
                stack.pop();
            }
        }
        post.reverse();
        self.rpo = post;
    }

    /// The number of blocks of the function (the size of the block arena).
    pub fn num_blocks(&self) -> usize {
        self.succs.len()
    }

    /// The predecessors of `b`, in program order (see the module docs).
    pub fn preds(&self, b: Block) -> &[Block] {
        self.preds.get(b.index()).map_or(&[], |p| p)
    }

    /// The successors of `b`.
    pub fn succs(&self, b: Block) -> &[Block] {
        self.succs.get(b.index()).map_or(&[], |s| s)
    }

    /// The entry block: the first block of the body (`None` only for a
    /// malformed body that does not start with a block).
    pub fn entry(&self) -> Option<Block> {
        self.entry
    }

    /// Whether `b` is reachable from the entry.
    pub fn is_reachable(&self, b: Block) -> bool {
        self.reachable.get(b.index()).copied().unwrap_or(false)
    }

    /// Whether `b` is in the tree (blocks of the arena that are not are
    /// detached and ignored).
    pub fn contains(&self, b: Block) -> bool {
        self.in_tree.get(b.index()).copied().unwrap_or(false)
    }

    /// The reachable blocks in reverse postorder (of a depth-first search
    /// that visits successors last to first, so the arms of an if and the
    /// cases of a switch come in program order). The entry is first; every
    /// block comes before its successors except along loop back edges.
    pub fn rpo(&self) -> &[Block] {
        &self.rpo
    }

    /// Every block of the tree in program order (reachable or not).
    pub fn blocks(&self) -> &[Block] {
        &self.order
    }

    /// The number of loops enclosing `b` (0 outside loops).
    pub fn loop_depth(&self, b: Block) -> u32 {
        self.loop_depth.get(b.index()).copied().unwrap_or(0)
    }

    /// The values read at the end of `b` by the construct it is the
    /// condition block of: an if's condition, or a switch's selector and
    /// case values.
    pub fn branch_uses(&self, b: Block) -> &[Value] {
        self.branch_uses.get(b.index()).map_or(&[], |u| u)
    }
}

/// The entry blocks of `region`, whose fall-through continuation is
/// `follow`: its first block, or `follow` when it is empty.
fn region_entries(func: &Function, region: &[Node], follow: &Targets) -> Targets {
    match region.first() {
        None => follow.clone(),
        Some(Node::Block(b)) if func.blocks.contains(*b) => [*b].into_iter().collect(),
        // A region that does not start with a block (malformed): no entry.
        Some(_) => Targets::new(),
    }
}

/// Where control goes when the fall-through out of each case of a switch
/// continues: the next case's entry, or `exit` after the last.
fn case_follows(func: &Function, n: &crate::function::SwitchNode, exit: &Targets) -> Vec<Targets> {
    let mut out = vec![Targets::new(); n.cases.len()];
    let mut cur = exit.clone();
    for (k, case) in n.cases.iter().enumerate().rev() {
        out[k] = cur.clone();
        cur = region_entries(func, &case.body, &cur);
    }
    out
}

/// The entry blocks of `node`, whose fall-through continuation is `follow`.
fn node_entries(func: &Function, node: &Node, follow: &Targets) -> Targets {
    // One node and the first blocks of its regions: not a walk.
    match node {
        Node::Block(b) if func.blocks.contains(*b) => [*b].into_iter().collect(),
        Node::Block(_) => Targets::new(),
        Node::If(n) => {
            let mut t = region_entries(func, &n.then_region, follow);
            for b in region_entries(func, &n.else_region, follow) {
                if !t.contains(&b) {
                    t.push(b);
                }
            }
            t
        }
        Node::Loop(n) => region_entries(func, &n.body, &Targets::new()),
        Node::Switch(n) => {
            let cf = case_follows(func, n, follow);
            let mut t = Targets::new();
            // Thousands of cases: a set, not a scan of `t`, finds repeats.
            let mut seen: rustc_hash::FxHashSet<Block> = rustc_hash::FxHashSet::default();
            for (case, f) in n.cases.iter().zip(&cf) {
                for b in region_entries(func, &case.body, f) {
                    if seen.insert(b) {
                        t.push(b);
                    }
                }
            }
            if !n.cases.iter().any(|c| c.value.is_none()) {
                for &b in follow {
                    if seen.insert(b) {
                        t.push(b);
                    }
                }
            }
            t
        }
    }
}

/// For each node of `region`, where falling through out of it goes.
fn follows(func: &Function, region: &[Node], follow: &Targets) -> Vec<Targets> {
    let mut out = vec![Targets::new(); region.len()];
    let mut cur = follow.clone();
    for (i, node) in region.iter().enumerate().rev() {
        let entries = node_entries(func, node, &cur);
        out[i] = std::mem::replace(&mut cur, entries);
    }
    out
}

/// The dominator tree of a [`Cfg`]'s reachable blocks.
#[derive(Clone, Debug)]
pub struct DomTree {
    idom: Vec<Option<Block>>,
    children: Vec<Vec<Block>>,
    /// Preorder and postorder numbers in the dominator tree; `u32::MAX` for
    /// unreachable blocks.
    pre: Vec<u32>,
    post: Vec<u32>,
}

impl DomTree {
    /// Computes the dominators of `cfg` (Cooper, Harvey and Kennedy's
    /// algorithm, as petgraph implements it).
    pub fn new(cfg: &Cfg) -> DomTree {
        let n = cfg.num_blocks();
        let mut tree = DomTree {
            idom: vec![None; n],
            children: vec![Vec::new(); n],
            pre: vec![u32::MAX; n],
            post: vec![u32::MAX; n],
        };
        let Some(entry) = cfg.entry().filter(|e| e.index() < n) else { return tree };
        let mut graph = petgraph::graph::DiGraph::<(), (), u32>::with_capacity(n, n + n / 2);
        for _ in 0..n {
            graph.add_node(());
        }
        for &b in cfg.rpo() {
            for &s in cfg.succs(b) {
                graph.add_edge(node_index(b), node_index(s), ());
            }
        }
        let doms = petgraph::algo::dominators::simple_fast(&graph, node_index(entry));
        for &b in cfg.rpo() {
            if let Some(d) = doms.immediate_dominator(node_index(b)) {
                let d = Block::new(d.index());
                tree.idom[b.index()] = Some(d);
                tree.children[d.index()].push(b);
            }
        }
        // Children in reverse postorder of the CFG, for determinism.
        let mut rpo_index = vec![u32::MAX; n];
        for (i, &b) in cfg.rpo().iter().enumerate() {
            rpo_index[b.index()] = i as u32;
        }
        for c in &mut tree.children {
            c.sort_by_key(|b| rpo_index[b.index()]);
        }
        // Number the tree.
        let (mut pre, mut post) = (0u32, 0u32);
        let mut stack: Vec<(Block, usize)> = vec![(entry, 0)];
        tree.pre[entry.index()] = pre;
        pre += 1;
        while let Some(&mut (b, ref mut i)) = stack.last_mut() {
            if let Some(&c) = tree.children[b.index()].get(*i) {
                *i += 1;
                tree.pre[c.index()] = pre;
                pre += 1;
                stack.push((c, 0));
            } else {
                tree.post[b.index()] = post;
                post += 1;
                stack.pop();
            }
        }
        tree
    }

    /// The immediate dominator of `b` (`None` for the entry and for
    /// unreachable blocks).
    pub fn idom(&self, b: Block) -> Option<Block> {
        self.idom.get(b.index()).copied().flatten()
    }

    /// The blocks `b` immediately dominates, in reverse postorder.
    pub fn children(&self, b: Block) -> &[Block] {
        self.children.get(b.index()).map_or(&[], |c| c)
    }

    /// Whether `b` is reachable (and so in the tree).
    pub fn is_reachable(&self, b: Block) -> bool {
        self.pre.get(b.index()).is_some_and(|&p| p != u32::MAX)
    }

    /// Whether `a` dominates `b` (every block dominates itself). False when
    /// either is unreachable.
    pub fn dominates(&self, a: Block, b: Block) -> bool {
        match (self.pre.get(a.index()), self.pre.get(b.index()), self.post.get(a.index()), self.post.get(b.index())) {
            (Some(&pa), Some(&pb), Some(&qa), Some(&qb)) => pa != u32::MAX && pb != u32::MAX && pa <= pb && qb <= qa,
            _ => false,
        }
    }

    /// Whether `a` strictly dominates `b`.
    pub fn strictly_dominates(&self, a: Block, b: Block) -> bool {
        a != b && self.dominates(a, b)
    }
}

fn node_index(b: Block) -> petgraph::graph::NodeIndex<u32> {
    petgraph::graph::NodeIndex::new(b.index())
}

/// Helpers for building functions by hand in tests.
#[cfg(test)]
pub(crate) mod build {
    use crate::function::*;
    use tgsi::Opcode;

    /// A function under construction.
    #[derive(Default)]
    pub struct Builder {
        pub f: Function,
    }

    impl Builder {
        pub fn block(&mut self) -> Block {
            self.f.blocks.push(BlockData::default())
        }

        pub fn exit(&mut self, b: Block, exit: Exit) {
            self.f.blocks[b].exit = exit;
        }

        pub fn inst(&mut self, b: Block, op: Op, args: &[Value], tys: &[Ty]) -> Inst {
            let args: Vec<Operand> = args.iter().map(|&v| Operand::new(v)).collect();
            let i = self.f.add_inst(op, &args, tys, Origin::default());
            self.f.blocks[b].insts.push(i);
            i
        }

        pub fn konst(&mut self, b: Block, bits: u64) -> Value {
            let i = self.inst(b, Op::Const(bits), &[], &[Ty::B32]);
            self.f.result(i)
        }

        pub fn alu(&mut self, b: Block, opcode: Opcode, args: &[Value]) -> Value {
            let ty = if opcode.dst_type().is_64bit() { Ty::B64 } else { Ty::B32 };
            let i = self.inst(b, Op::Alu { opcode, chan: 0 }, args, &[ty]);
            self.f.result(i)
        }

        pub fn phi(&mut self, b: Block, incoming: &[(Block, Value)]) -> Value {
            let preds = incoming.iter().map(|&(p, _)| p).collect();
            let args: Vec<Value> = incoming.iter().map(|&(_, v)| v).collect();
            let i = self.inst(b, Op::Phi { preds }, &args, &[Ty::B32]);
            self.f.result(i)
        }

        pub fn store(&mut self, b: Block, index: u32, v: Value) -> Inst {
            self.inst(b, Op::StoreOutput { index, chan: 0 }, &[v], &[])
        }
    }

    pub fn blk(b: Block) -> Node {
        Node::Block(b)
    }

    // These build one node each: not walks.
    pub fn if_(cond: Value, then_region: Region, else_region: Region) -> Node {
        Node::If(Box::new(IfNode {
            cond: Operand::new(cond),
            unsigned: false,
            then_region,
            else_region,
            has_else: true,
        }))
    }

    pub fn loop_(body: Region) -> Node {
        Node::Loop(Box::new(LoopNode { body }))
    }

    pub fn switch(selector: Value, cases: Vec<(Option<Value>, Region)>) -> Node {
        Node::Switch(Box::new(SwitchNode {
            selector: Operand::new(selector),
            cases: cases.into_iter().map(|(v, body)| Case { value: v.map(Operand::new), body }).collect(),
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::build::*;
    use super::*;
    use crate::liveness::liveness;

    fn bs(v: &[Block]) -> Vec<Block> {
        v.to_vec()
    }

    #[test]
    fn if_else_edges_and_dominators() {
        let mut t = Builder::default();
        let [b0, b1, b2, b3] = [t.block(), t.block(), t.block(), t.block()];
        let c = t.konst(b0, 1);
        t.f.body = vec![blk(b0), if_(c, vec![blk(b1)], vec![blk(b2)]), blk(b3)];
        let cfg = Cfg::new(&t.f);
        assert_eq!(cfg.entry(), Some(b0));
        assert_eq!(bs(cfg.succs(b0)), vec![b1, b2]);
        assert_eq!(bs(cfg.preds(b3)), vec![b1, b2]);
        assert_eq!(bs(cfg.succs(b3)), vec![]);
        assert_eq!(cfg.rpo().first(), Some(&b0));
        assert_eq!(cfg.rpo().last(), Some(&b3));
        assert_eq!(cfg.branch_uses(b0), &[c]);
        let dom = DomTree::new(&cfg);
        assert_eq!(dom.idom(b3), Some(b0));
        assert_eq!(dom.idom(b1), Some(b0));
        assert_eq!(dom.idom(b0), None);
        assert!(dom.dominates(b0, b3));
        assert!(dom.dominates(b3, b3));
        assert!(!dom.dominates(b1, b3));
        assert!(!dom.strictly_dominates(b3, b3));
        assert_eq!(dom.children(b0), &[b1, b2, b3]);
    }

    #[test]
    fn loop_with_break_and_continue() {
        // b0; loop { b1; if {b2 continue} else {b3}; b4; if {b5 break} else {b6}; b7 }; b8
        let mut t = Builder::default();
        let b: Vec<Block> = (0..9).map(|_| t.block()).collect();
        let c = t.konst(b[0], 1);
        t.exit(b[2], Exit::Continue);
        t.exit(b[5], Exit::Break);
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
        let cfg = Cfg::new(&t.f);
        assert_eq!(bs(cfg.preds(b[1])), vec![b[0], b[2], b[7]]);
        assert_eq!(bs(cfg.succs(b[2])), vec![b[1]]);
        assert_eq!(bs(cfg.succs(b[3])), vec![b[4]]);
        assert_eq!(bs(cfg.preds(b[4])), vec![b[3]]);
        assert_eq!(bs(cfg.succs(b[5])), vec![b[8]]);
        assert_eq!(bs(cfg.preds(b[8])), vec![b[5]]);
        assert_eq!(bs(cfg.succs(b[7])), vec![b[1]]);
        assert_eq!(cfg.loop_depth(b[0]), 0);
        assert_eq!(cfg.loop_depth(b[1]), 1);
        assert_eq!(cfg.loop_depth(b[6]), 1);
        assert_eq!(cfg.loop_depth(b[8]), 0);
        assert!(b.iter().all(|&x| cfg.is_reachable(x)));
        let dom = DomTree::new(&cfg);
        assert_eq!(dom.idom(b[1]), Some(b[0]));
        assert_eq!(dom.idom(b[4]), Some(b[3]));
        assert_eq!(dom.idom(b[8]), Some(b[5]));
        assert!(dom.dominates(b[1], b[7]));
        assert!(!dom.dominates(b[7], b[1]));
    }

    #[test]
    fn switch_fallthrough_and_default() {
        // b0; switch { case: b1 (falls through); case: b2 break; default: b3 }; b4
        let mut t = Builder::default();
        let b: Vec<Block> = (0..5).map(|_| t.block()).collect();
        let s = t.konst(b[0], 0);
        let k0 = t.konst(b[0], 0);
        let k1 = t.konst(b[0], 1);
        t.exit(b[2], Exit::Break);
        t.f.body = vec![
            blk(b[0]),
            switch(s, vec![(Some(k0), vec![blk(b[1])]), (Some(k1), vec![blk(b[2])]), (None, vec![blk(b[3])])]),
            blk(b[4]),
        ];
        let cfg = Cfg::new(&t.f);
        assert_eq!(bs(cfg.succs(b[0])), vec![b[1], b[2], b[3]]);
        assert_eq!(bs(cfg.succs(b[1])), vec![b[2]]);
        assert_eq!(bs(cfg.preds(b[2])), vec![b[0], b[1]]);
        assert_eq!(bs(cfg.preds(b[4])), vec![b[2], b[3]]);
        assert_eq!(cfg.branch_uses(b[0]), &[s, k0, k1]);
        let dom = DomTree::new(&cfg);
        assert_eq!(dom.idom(b[2]), Some(b[0]));
        assert_eq!(dom.idom(b[4]), Some(b[0]));
    }

    #[test]
    fn switch_without_default_reaches_its_exit() {
        let mut t = Builder::default();
        let b: Vec<Block> = (0..4).map(|_| t.block()).collect();
        let s = t.konst(b[0], 0);
        t.f.body = vec![blk(b[0]), switch(s, vec![(Some(s), vec![blk(b[1])]), (Some(s), vec![blk(b[2])])]), blk(b[3])];
        let cfg = Cfg::new(&t.f);
        assert_eq!(bs(cfg.succs(b[0])), vec![b[1], b[2], b[3]]);
        assert_eq!(bs(cfg.preds(b[3])), vec![b[0], b[2]]);
    }

    #[test]
    fn break_in_switch_leaves_the_switch_and_continue_the_loop() {
        // b0; loop { b1; switch { case: b2 continue; default: b3 break }; b4 break }; b5
        let mut t = Builder::default();
        let b: Vec<Block> = (0..6).map(|_| t.block()).collect();
        let s = t.konst(b[0], 0);
        t.exit(b[2], Exit::Continue);
        t.exit(b[3], Exit::Break);
        t.exit(b[4], Exit::Break);
        t.f.body = vec![
            blk(b[0]),
            loop_(vec![blk(b[1]), switch(s, vec![(Some(s), vec![blk(b[2])]), (None, vec![blk(b[3])])]), blk(b[4])]),
            blk(b[5]),
        ];
        let cfg = Cfg::new(&t.f);
        assert_eq!(bs(cfg.succs(b[2])), vec![b[1]]);
        assert_eq!(bs(cfg.succs(b[3])), vec![b[4]]);
        assert_eq!(bs(cfg.succs(b[4])), vec![b[5]]);
        assert_eq!(bs(cfg.preds(b[1])), vec![b[0], b[2]]);
    }

    #[test]
    fn unreachable_blocks_and_detached_blocks() {
        // b0; if { b1 return } else { b2 return }; b3 (unreachable); b4 detached
        let mut t = Builder::default();
        let b: Vec<Block> = (0..5).map(|_| t.block()).collect();
        let c = t.konst(b[0], 1);
        t.exit(b[1], Exit::Return);
        t.exit(b[2], Exit::Return);
        t.f.body = vec![blk(b[0]), if_(c, vec![blk(b[1])], vec![blk(b[2])]), blk(b[3])];
        let cfg = Cfg::new(&t.f);
        assert!(!cfg.is_reachable(b[3]));
        assert!(cfg.preds(b[3]).is_empty());
        assert!(cfg.contains(b[3]));
        assert!(!cfg.contains(b[4]));
        assert_eq!(cfg.rpo().len(), 3);
        assert_eq!(cfg.blocks(), &b[..4]);
        let dom = DomTree::new(&cfg);
        assert!(!dom.dominates(b[0], b[3]));
        assert!(!dom.is_reachable(b[3]));
        assert_eq!(dom.idom(b[3]), None);
    }

    #[test]
    fn malformed_trees_do_not_panic() {
        let mut t = Builder::default();
        let b0 = t.block();
        let c = t.konst(b0, 1);
        let ghost = Block::new(99);
        let bodies = vec![
            vec![],
            vec![if_(c, vec![], vec![])],
            vec![blk(b0), if_(c, vec![blk(ghost)], vec![loop_(vec![])])],
            vec![blk(ghost), blk(b0), blk(b0)],
            vec![blk(b0), switch(c, vec![(None, vec![]), (None, vec![])])],
            vec![blk(b0), loop_(vec![if_(c, vec![], vec![])]), switch(c, vec![])],
        ];
        for body in bodies {
            t.f.body = body;
            let cfg = Cfg::new(&t.f);
            let dom = DomTree::new(&cfg);
            let _ = liveness(&t.f, &cfg);
            let _ = dom.dominates(ghost, b0);
            assert!(cfg.preds(ghost).is_empty());
        }
    }
}
