//! Walks over the [`Region`] tree that never recurse, so nesting depth is
//! bounded only by memory, never by the call stack.
//!
//! * [`walk`] yields the tree as a stream of [`Event`]s in program order: a
//!   construct is [entered](Event::Enter), each of its regions is
//!   [entered](Event::EnterRegion) and [left](Event::LeaveRegion) in turn,
//!   and the construct is [left](Event::Leave). Every event says where it
//!   is (the region, the node's index, the nesting depth), which is what the
//!   order-sensitive walks need: the CFG, the verifier, the printer,
//!   emission, the executor's compilation.
//! * [`for_each_region_post_order_mut`] hands every region to a closure,
//!   inner regions before the regions holding them, for the passes that
//!   restructure the tree.
//! * [`Node::regions`], [`Node::operands`] and their `_mut` forms give a
//!   node's child regions and the values a construct reads, for walks that
//!   only need those.
//!
//! ```
//! use ir::walk::{walk, Event};
//! use ir::{Block, EntityRef, IfNode, Node, Operand, Value};
//!
//! let b = |i| Node::Block(Block::new(i));
//! let cond = Operand::new(Value::new(0));
//! let if_ = IfNode { cond, unsigned: false, then_region: vec![b(1)], else_region: vec![b(2)], has_else: true };
//! let body = vec![b(0), Node::If(Box::new(if_)), b(3)];
//!
//! let mut lines = Vec::new();
//! for event in walk(&body) {
//!     match event {
//!         Event::Block(block, at) => lines.push(format!("{}{block}", "  ".repeat(at.depth))),
//!         Event::Enter(_, at) => lines.push(format!("{}if", "  ".repeat(at.depth))),
//!         _ => {}
//!     }
//! }
//! assert_eq!(lines, ["b0", "if", "  b1", "  b2", "b3"]);
//! ```

use crate::function::{Block, Case, IfNode, LoopNode, Node, Operand, Region, SwitchNode};

/// Which region of its construct a region is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RegionKind {
    /// The region the walk started from (the function body when walking a
    /// whole function).
    Root,
    /// An if's then-region.
    Then,
    /// An if's else-region.
    Else,
    /// A loop's body.
    LoopBody,
    /// The body of the switch case at this index.
    Case(usize),
}

/// A borrowed construct: the node of an if, a loop or a switch.
#[derive(Clone, Copy, Debug)]
pub enum ConstructRef<'a> {
    /// An if.
    If(&'a IfNode),
    /// A loop.
    Loop(&'a LoopNode),
    /// A switch.
    Switch(&'a SwitchNode),
}

impl<'a> ConstructRef<'a> {
    /// The number of regions the construct holds.
    pub fn num_regions(self) -> usize {
        match self {
            ConstructRef::If(_) => 2,
            ConstructRef::Loop(_) => 1,
            ConstructRef::Switch(n) => n.cases.len(),
        }
    }

    /// Region `k` of the construct, in program order (then before else,
    /// cases in order), with its kind.
    pub fn region(self, k: usize) -> Option<(RegionKind, &'a Region)> {
        match (self, k) {
            (ConstructRef::If(n), 0) => Some((RegionKind::Then, &n.then_region)),
            (ConstructRef::If(n), 1) => Some((RegionKind::Else, &n.else_region)),
            (ConstructRef::Loop(n), 0) => Some((RegionKind::LoopBody, &n.body)),
            (ConstructRef::Switch(n), k) => n.cases.get(k).map(|c| (RegionKind::Case(k), &c.body)),
            _ => None,
        }
    }

    /// The construct's regions in program order, with their kinds.
    pub fn regions(self) -> impl DoubleEndedIterator<Item = (RegionKind, &'a Region)> {
        (0..self.num_regions()).filter_map(move |k| self.region(k))
    }

    /// The values the construct reads: an if's condition; a switch's
    /// selector, then its case values in order; nothing for a loop.
    pub fn operands(self) -> impl Iterator<Item = &'a Operand> {
        let (first, cases): (Option<&'a Operand>, &'a [Case]) = match self {
            ConstructRef::If(n) => (Some(&n.cond), &[]),
            ConstructRef::Loop(_) => (None, &[]),
            ConstructRef::Switch(n) => (Some(&n.selector), &n.cases),
        };
        first.into_iter().chain(cases.iter().filter_map(|c| c.value.as_ref()))
    }
}

impl Node {
    /// The construct this node is; `None` for a block.
    pub fn construct(&self) -> Option<ConstructRef<'_>> {
        match self {
            Node::Block(_) => None,
            Node::If(n) => Some(ConstructRef::If(n)),
            Node::Loop(n) => Some(ConstructRef::Loop(n)),
            Node::Switch(n) => Some(ConstructRef::Switch(n)),
        }
    }

    /// The regions the node holds, in program order: then and else, a
    /// loop's body, the case bodies; none for a block.
    pub fn regions(&self) -> impl DoubleEndedIterator<Item = &Region> {
        self.construct().into_iter().flat_map(|c| c.regions().map(|(_, r)| r))
    }

    /// [`Node::regions`], mutably.
    pub fn regions_mut(&mut self) -> impl Iterator<Item = &mut Region> {
        let (a, b, cases): (Option<&mut Region>, Option<&mut Region>, &mut [Case]) = match self {
            Node::Block(_) => (None, None, &mut []),
            Node::If(n) => (Some(&mut n.then_region), Some(&mut n.else_region), &mut []),
            Node::Loop(n) => (Some(&mut n.body), None, &mut []),
            Node::Switch(n) => (None, None, &mut n.cases),
        };
        a.into_iter().chain(b).chain(cases.iter_mut().map(|c| &mut c.body))
    }

    /// Region `k` of the node (see [`Node::regions`]), mutably.
    fn region_mut(&mut self, k: usize) -> Option<&mut Region> {
        match (self, k) {
            (Node::If(n), 0) => Some(&mut n.then_region),
            (Node::If(n), 1) => Some(&mut n.else_region),
            (Node::Loop(n), 0) => Some(&mut n.body),
            (Node::Switch(n), k) => n.cases.get_mut(k).map(|c| &mut c.body),
            _ => None,
        }
    }

    /// The values the node reads as a construct (see
    /// [`ConstructRef::operands`]); none for a block.
    pub fn operands(&self) -> impl Iterator<Item = &Operand> {
        self.construct().into_iter().flat_map(ConstructRef::operands)
    }

    /// [`Node::operands`], mutably.
    pub fn operands_mut(&mut self) -> impl Iterator<Item = &mut Operand> {
        let (first, cases): (Option<&mut Operand>, &mut [Case]) = match self {
            Node::Block(_) | Node::Loop(_) => (None, &mut []),
            Node::If(n) => (Some(&mut n.cond), &mut []),
            Node::Switch(n) => (Some(&mut n.selector), &mut n.cases),
        };
        first.into_iter().chain(cases.iter_mut().filter_map(|c| c.value.as_mut()))
    }
}

/// Where a node is: its region, its index there, and how many constructs
/// enclose it.
#[derive(Clone, Copy, Debug)]
pub struct Place<'a> {
    /// The region holding the node.
    pub region: &'a [Node],
    /// The node's index in `region`.
    pub index: usize,
    /// The number of constructs around the node (0 in the root region).
    pub depth: usize,
}

impl<'a> Place<'a> {
    /// The node before this one in its region.
    pub fn prev(&self) -> Option<&'a Node> {
        self.index.checked_sub(1).and_then(|p| self.region.get(p))
    }

    /// The node before this one when it is a block: for a construct, its
    /// condition block.
    pub fn prev_block(&self) -> Option<Block> {
        match self.prev() {
            Some(Node::Block(b)) => Some(*b),
            _ => None,
        }
    }

    /// The node after this one in its region.
    pub fn next(&self) -> Option<&'a Node> {
        self.region.get(self.index + 1)
    }

    /// Whether the node is the last of its region.
    pub fn is_last(&self) -> bool {
        self.index + 1 == self.region.len()
    }
}

/// A region entered or left by a walk.
#[derive(Clone, Copy, Debug)]
pub struct RegionRef<'a> {
    /// The region's nodes.
    pub nodes: &'a [Node],
    /// Which region of its construct it is.
    pub kind: RegionKind,
    /// The construct holding it (`None` for the root).
    pub construct: Option<ConstructRef<'a>>,
    /// The number of constructs around the region's nodes (0 for the root).
    pub depth: usize,
}

impl<'a> RegionRef<'a> {
    /// The switch case whose body this is.
    pub fn case(&self) -> Option<&'a Case> {
        match (self.kind, self.construct) {
            (RegionKind::Case(k), Some(ConstructRef::Switch(n))) => n.cases.get(k),
            _ => None,
        }
    }
}

/// One step of a [`walk`].
#[derive(Clone, Copy, Debug)]
pub enum Event<'a> {
    /// A region starts; its nodes follow. The first event of a walk enters
    /// the root.
    EnterRegion(RegionRef<'a>),
    /// A block node.
    Block(Block, Place<'a>),
    /// A construct starts; its regions follow, each entered and left.
    Enter(ConstructRef<'a>, Place<'a>),
    /// A construct ends: all its regions have been walked.
    Leave(ConstructRef<'a>, Place<'a>),
    /// A region ends. The last event of a walk leaves the root.
    LeaveRegion(RegionRef<'a>),
}

/// One level of a walk in progress.
#[derive(Clone, Copy, Debug)]
enum Frame<'a> {
    /// A region whose nodes are being walked; `next` is the next node.
    Region { region: RegionRef<'a>, next: usize },
    /// A construct whose regions are being walked; `next` is the next
    /// region.
    Construct { construct: ConstructRef<'a>, at: Place<'a>, next: usize },
}

/// The iterator of [`walk`]: the walk's position is an explicit stack.
#[derive(Clone, Debug)]
pub struct Walk<'a> {
    /// The root, until the first event enters it.
    root: Option<&'a [Node]>,
    stack: Vec<Frame<'a>>,
}

/// Walks `region` and everything nested in it in program order: blocks and
/// constructs in region order, a construct's regions in order (then before
/// else, cases in order) between its [`Event::Enter`] and [`Event::Leave`].
/// Each nesting level costs a frame on the iterator's heap stack, none on
/// the call stack.
pub fn walk(region: &[Node]) -> Walk<'_> {
    Walk { root: Some(region), stack: Vec::new() }
}

/// Every block of `region`, nested ones included, in program order.
pub fn blocks(region: &[Node]) -> impl Iterator<Item = Block> + '_ {
    walk(region).filter_map(|event| match event {
        Event::Block(b, _) => Some(b),
        _ => None,
    })
}

/// The operands every construct of `region` reads, nested ones included, in
/// program order: conditions, selectors and case values.
pub fn construct_operands(region: &[Node]) -> impl Iterator<Item = &Operand> + '_ {
    walk(region)
        .filter_map(|event| match event {
            Event::Enter(construct, _) => Some(construct.operands()),
            _ => None,
        })
        .flatten()
}

impl<'a> Walk<'a> {
    /// The number of constructs around the walk's position (entered and
    /// not yet left).
    pub fn depth(&self) -> usize {
        // The stack alternates regions and constructs, from the root region.
        self.stack.len() / 2
    }

    /// The innermost construct around the walk's position (the one last
    /// entered and not yet left), and where it is.
    pub fn enclosing(&self) -> Option<(ConstructRef<'a>, Place<'a>)> {
        self.stack.iter().rev().find_map(|f| match *f {
            Frame::Construct { construct, at, .. } => Some((construct, at)),
            Frame::Region { .. } => None,
        })
    }
}

impl<'a> Iterator for Walk<'a> {
    type Item = Event<'a>;

    fn next(&mut self) -> Option<Event<'a>> {
        if let Some(nodes) = self.root.take() {
            let region = RegionRef { nodes, kind: RegionKind::Root, construct: None, depth: 0 };
            self.stack.push(Frame::Region { region, next: 0 });
            return Some(Event::EnterRegion(region));
        }
        match self.stack.last_mut()? {
            Frame::Region { region, next } => {
                let region = *region;
                let Some(node) = region.nodes.get(*next) else {
                    self.stack.pop();
                    return Some(Event::LeaveRegion(region));
                };
                let at = Place { region: region.nodes, index: *next, depth: region.depth };
                *next += 1;
                let construct = match node {
                    Node::Block(b) => return Some(Event::Block(*b, at)),
                    Node::If(n) => ConstructRef::If(n),
                    Node::Loop(n) => ConstructRef::Loop(n),
                    Node::Switch(n) => ConstructRef::Switch(n),
                };
                self.stack.push(Frame::Construct { construct, at, next: 0 });
                Some(Event::Enter(construct, at))
            }
            Frame::Construct { construct, at, next } => {
                let (construct, at) = (*construct, *at);
                let Some((kind, nodes)) = construct.region(*next) else {
                    self.stack.pop();
                    return Some(Event::Leave(construct, at));
                };
                *next += 1;
                let region = RegionRef { nodes, kind, construct: Some(construct), depth: at.depth + 1 };
                self.stack.push(Frame::Region { region, next: 0 });
                Some(Event::EnterRegion(region))
            }
        }
    }
}

/// A region detached from its parent while the regions inside it are
/// visited.
struct Detached {
    region: Region,
    /// The node whose regions are being visited.
    node: usize,
    /// The next region of that node to visit.
    next: usize,
}

/// Calls `f` on every region of the tree rooted at `root` (`root` last),
/// each after every region nested in it: for each node in order, its
/// regions in order (then before else, cases in order), each fully
/// handled, and then the region holding them. `f` may restructure the
/// region it is given (what it nests has been visited already).
///
/// Each region is moved out of its parent while it is being visited and
/// put back after, so the walk is linear in the size of the tree and keeps
/// its position on a heap stack. If `f` panics, the regions detached at
/// that moment are lost from the tree.
///
/// ```
/// use ir::walk::for_each_region_post_order_mut;
/// use ir::{Block, EntityRef, LoopNode, Node};
///
/// let b = |i| Node::Block(Block::new(i));
/// let inner = vec![b(1)];
/// let mut body = vec![b(0), Node::Loop(Box::new(LoopNode { body: inner })), b(2)];
/// let mut sizes = Vec::new();
/// for_each_region_post_order_mut(&mut body, |r| sizes.push(r.len()));
/// assert_eq!(sizes, [1, 3]);
/// ```
pub fn for_each_region_post_order_mut(root: &mut Region, mut f: impl FnMut(&mut Region)) {
    let mut stack = vec![Detached { region: std::mem::take(root), node: 0, next: 0 }];
    while let Some(top) = stack.last_mut() {
        if let Some(node) = top.region.get_mut(top.node) {
            match node.region_mut(top.next) {
                Some(child) => {
                    let region = std::mem::take(child);
                    top.next += 1;
                    stack.push(Detached { region, node: 0, next: 0 });
                }
                None => {
                    top.node += 1;
                    top.next = 0;
                }
            }
            continue;
        }
        let Some(mut done) = stack.pop() else { break };
        f(&mut done.region);
        match stack.last_mut() {
            // Back where it was taken from: region `next - 1` of `node`.
            Some(parent) => {
                let slot = parent.region.get_mut(parent.node).and_then(|n| n.region_mut(parent.next - 1));
                if let Some(slot) = slot {
                    *slot = done.region;
                }
            }
            None => *root = done.region,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::entity::EntityRef;
    use crate::function::Value;

    fn blk(i: usize) -> Node {
        Node::Block(Block::new(i))
    }

    fn if_(then_region: Region, else_region: Region) -> Node {
        let cond = Operand::new(Value::new(0));
        Node::If(Box::new(IfNode { cond, unsigned: false, then_region, else_region, has_else: true }))
    }

    fn loop_(body: Region) -> Node {
        Node::Loop(Box::new(LoopNode { body }))
    }

    fn switch(cases: Vec<(Option<usize>, Region)>) -> Node {
        let selector = Operand::new(Value::new(1));
        let cases =
            cases.into_iter().map(|(v, body)| Case { value: v.map(|v| Operand::new(Value::new(v))), body }).collect();
        Node::Switch(Box::new(SwitchNode { selector, cases }))
    }

    /// b0; if { b1; loop { b2 } b3 } else { b4 }; b5; switch { case v7: b6; default: b7 }; b8
    fn sample() -> Region {
        vec![
            blk(0),
            if_(vec![blk(1), loop_(vec![blk(2)]), blk(3)], vec![blk(4)]),
            blk(5),
            switch(vec![(Some(7), vec![blk(6)]), (None, vec![blk(7)])]),
            blk(8),
        ]
    }

    fn describe(event: &Event<'_>) -> String {
        let construct = |c: &ConstructRef<'_>| match c {
            ConstructRef::If(_) => "if",
            ConstructRef::Loop(_) => "loop",
            ConstructRef::Switch(_) => "switch",
        };
        match event {
            Event::EnterRegion(r) => format!("enter {:?} {}", r.kind, r.depth),
            Event::Block(b, at) => format!("{b} @{}.{}", at.depth, at.index),
            Event::Enter(c, at) => format!("{} @{}.{} after {:?}", construct(c), at.depth, at.index, at.prev_block()),
            Event::Leave(c, at) => format!("end {} @{}.{}", construct(c), at.depth, at.index),
            Event::LeaveRegion(r) => format!("leave {:?}", r.kind),
        }
    }

    #[test]
    fn events_come_in_program_order() {
        let body = sample();
        let events: Vec<String> = walk(&body).map(|e| describe(&e)).collect();
        let expected = [
            "enter Root 0",
            "b0 @0.0",
            "if @0.1 after Some(b0)",
            "enter Then 1",
            "b1 @1.0",
            "loop @1.1 after Some(b1)",
            "enter LoopBody 2",
            "b2 @2.0",
            "leave LoopBody",
            "end loop @1.1",
            "b3 @1.2",
            "leave Then",
            "enter Else 1",
            "b4 @1.0",
            "leave Else",
            "end if @0.1",
            "b5 @0.2",
            "switch @0.3 after Some(b5)",
            "enter Case(0) 1",
            "b6 @1.0",
            "leave Case(0)",
            "enter Case(1) 1",
            "b7 @1.0",
            "leave Case(1)",
            "end switch @0.3",
            "b8 @0.4",
            "leave Root",
        ];
        assert_eq!(events, expected);
        let all: Vec<usize> = blocks(&body).map(|b| b.index()).collect();
        assert_eq!(all, (0..9).collect::<Vec<_>>());
    }

    #[test]
    fn the_walk_knows_where_it_is() {
        let body = sample();
        let mut w = walk(&body);
        assert_eq!(w.depth(), 0);
        assert!(w.enclosing().is_none());
        // Up to b2, in the loop in the then-region.
        for event in w.by_ref() {
            if matches!(event, Event::Block(b, _) if b.index() == 2) {
                break;
            }
        }
        assert_eq!(w.depth(), 2);
        assert!(matches!(w.enclosing(), Some((ConstructRef::Loop(_), at)) if at.index == 1 && at.depth == 1));
        // The case region knows its case.
        let values: Vec<Option<Value>> = walk(&body)
            .filter_map(|e| match e {
                Event::EnterRegion(r) => r.case().map(|c| c.value.map(|v| v.value)),
                _ => None,
            })
            .collect();
        assert_eq!(values, [Some(Value::new(7)), None]);
    }

    #[test]
    fn regions_and_operands_of_nodes() {
        let mut body = sample();
        let sizes: Vec<Vec<usize>> = body.iter().map(|n| n.regions().map(|r| r.len()).collect()).collect();
        assert_eq!(sizes, [vec![], vec![3, 1], vec![], vec![1, 1], vec![]]);
        let ops: Vec<Vec<usize>> = body.iter().map(|n| n.operands().map(|o| o.value.index()).collect()).collect();
        assert_eq!(ops, [vec![], vec![0], vec![], vec![1, 7], vec![]]);
        for node in &mut body {
            for op in node.operands_mut() {
                op.value = Value::new(op.value.index() + 10);
            }
            for region in node.regions_mut() {
                region.push(blk(99));
            }
        }
        let ops: Vec<usize> = body.iter().flat_map(|n| n.operands()).map(|o| o.value.index()).collect();
        assert_eq!(ops, [10, 11, 17]);
        assert_eq!(body[1].regions().map(|r| r.len()).collect::<Vec<_>>(), [4, 2]);
        assert_eq!(body[3].regions().rev().map(|r| r.len()).collect::<Vec<_>>(), [2, 2]);
    }

    #[test]
    fn post_order_visits_inner_regions_first_and_restores_the_tree() {
        let mut body = sample();
        let original = body.clone();
        let mut seen = Vec::new();
        for_each_region_post_order_mut(&mut body, |r| {
            let first: Vec<usize> = blocks(r).map(|b| b.index()).collect();
            seen.push(first);
        });
        // The loop body, the then-region holding it, the else-region, the
        // two cases, the root.
        let expected: Vec<Vec<usize>> =
            vec![vec![2], vec![1, 2, 3], vec![4], vec![6], vec![7], (0..9).collect::<Vec<_>>()];
        assert_eq!(seen, expected);
        assert_eq!(body, original);
    }

    #[test]
    fn post_order_lets_the_closure_restructure() {
        // Replace every loop by its body's blocks, innermost first.
        let mut body = vec![blk(0), loop_(vec![blk(1), loop_(vec![blk(2)]), blk(3)]), blk(4)];
        for_each_region_post_order_mut(&mut body, |r| {
            let mut out = Vec::with_capacity(r.len());
            for node in r.drain(..) {
                match node {
                    Node::Loop(n) => out.extend(n.body),
                    other => out.push(other),
                }
            }
            *r = out;
        });
        assert_eq!(body, (0..5).map(blk).collect::<Vec<_>>());
    }

    #[test]
    fn a_hundred_thousand_levels_walk_without_recursion() {
        const DEPTH: usize = 100_000;
        let mut region = vec![blk(0)];
        for level in 1..=DEPTH {
            let inner = std::mem::take(&mut region);
            region = match level % 3 {
                0 => vec![blk(level), if_(inner, vec![blk(0)]), blk(0)],
                1 => vec![blk(level), loop_(inner), blk(0)],
                _ => vec![blk(level), switch(vec![(Some(0), inner)]), blk(0)],
            };
        }
        let mut deepest = 0;
        let mut events = 0usize;
        for event in walk(&region) {
            events += 1;
            if let Event::Block(_, at) = event {
                deepest = deepest.max(at.depth);
            }
        }
        assert_eq!(deepest, DEPTH);
        assert_eq!(events, 2 + DEPTH * 4 + (DEPTH / 3) * 2 + 1 + 2 * DEPTH + DEPTH / 3);
        let mut regions = 0;
        for_each_region_post_order_mut(&mut region, |_| regions += 1);
        assert_eq!(regions, 1 + DEPTH + DEPTH / 3);
        // Dropping the tree would recurse once per level: empty the
        // regions innermost first instead.
        for_each_region_post_order_mut(&mut region, Vec::clear);
        assert!(region.is_empty());
    }
}
