//! The control-flow tree compiled to a flat list of [`Control`] nodes that
//! a batch runs with a program counter and stacks of lane masks.

use ir::function::{Block, Function};
use ir::walk::{walk, ConstructRef, Event, RegionKind};
use ir::EntityRef;

use super::slots::Slots;

/// One step of a module's control flow. The tree is compiled to a flat
/// list that a batch runs with a program counter and stacks of lane masks,
/// so nesting costs no call stack. A `skip` is where control goes when no
/// lane is active at the node: the end of its region.
#[derive(Clone, Debug)]
pub(crate) enum Control {
    /// Runs a block, then leaves it by its exit.
    Block { block: Block, skip: usize },
    /// An if: the lanes taking the else-arm wait while the then-arm runs.
    If { cond: u32, unsigned: bool, skip: usize },
    /// The then-arm ended: its lanes wait while the else-arm's run.
    Else,
    /// The else-arm ended: the lanes leaving both arms go on together.
    EndIf,
    /// A loop starts.
    Loop { skip: usize },
    /// A loop body ended: the lanes reaching its end or continuing run it
    /// again from `body`; once none do, those that broke out go on.
    EndLoop { body: usize },
    /// A switch sorts the lanes into its cases (a `None` value is
    /// `DEFAULT`); none runs until the first case starts.
    Switch { selector: u32, values: Vec<Option<u32>>, skip: usize },
    /// A case starts: the lanes entering it join those falling through.
    Case,
    /// A switch ended: the lanes falling out of the last case, those that
    /// broke out and those no case took (without `DEFAULT`) go on.
    EndSwitch,
}

impl Control {
    fn set_skip(&mut self, to: usize) {
        match self {
            Control::Block { skip, .. }
            | Control::If { skip, .. }
            | Control::Loop { skip, .. }
            | Control::Switch { skip, .. } => *skip = to,
            _ => {}
        }
    }
}

/// Compiles the tree of `func` into a [`Control`] list, and marks the
/// blocks it holds in `in_tree`.
pub(super) fn compile_control(func: &Function, slots: &Slots, in_tree: &mut [bool]) -> Vec<Control> {
    let mut code: Vec<Control> = Vec::new();
    // The nodes of each region being walked, to skip to its end.
    let mut nodes: Vec<Vec<usize>> = Vec::new();
    // Where each loop body being walked starts.
    let mut bodies: Vec<usize> = Vec::new();
    for event in walk(&func.body) {
        match event {
            Event::EnterRegion(r) => {
                match r.kind {
                    RegionKind::Case(_) => code.push(Control::Case),
                    RegionKind::LoopBody => bodies.push(code.len()),
                    _ => {}
                }
                nodes.push(Vec::new());
            }
            Event::Block(block, _) => {
                if let Some(m) = in_tree.get_mut(block.index()) {
                    *m = true;
                }
                if let Some(n) = nodes.last_mut() {
                    n.push(code.len());
                }
                code.push(Control::Block { block, skip: 0 });
            }
            Event::Enter(construct, _) => {
                if let Some(n) = nodes.last_mut() {
                    n.push(code.len());
                }
                code.push(match construct {
                    ConstructRef::If(n) => Control::If { cond: slots.of(n.cond.value), unsigned: n.unsigned, skip: 0 },
                    ConstructRef::Loop(_) => Control::Loop { skip: 0 },
                    ConstructRef::Switch(n) => Control::Switch {
                        selector: slots.of(n.selector.value),
                        values: n.cases.iter().map(|c| c.value.map(|v| slots.of(v.value))).collect(),
                        skip: 0,
                    },
                });
            }
            Event::LeaveRegion(r) => {
                let end = code.len();
                for i in nodes.pop().unwrap_or_default() {
                    code[i].set_skip(end);
                }
                match r.kind {
                    RegionKind::Then => code.push(Control::Else),
                    RegionKind::Else => code.push(Control::EndIf),
                    RegionKind::LoopBody => code.push(Control::EndLoop { body: bodies.pop().unwrap_or(end) }),
                    RegionKind::Root | RegionKind::Case(_) => {}
                }
            }
            Event::Leave(construct, _) => {
                if let ConstructRef::Switch(_) = construct {
                    code.push(Control::EndSwitch);
                }
            }
        }
    }
    code
}
