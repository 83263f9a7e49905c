//! Where a loop's walk starts: the state it is entered with, less the
//! facts of values dead at its head, less the channels an earlier walk
//! of it found its back edges change.
//!
//! A loop is walked again until the facts at its head stop changing. A
//! channel holding a value the loop no longer reads (a temporary of the
//! code before it) is rewritten in the body and would cost a second walk
//! of every loop, and nested loops would multiply those walks. So facts
//! of values dead in the loop are dropped on entry: that can only turn a
//! read unknown, and no read of a value dead in the loop comes after; which values
//! are live is the layout's, so a wrong answer there shows as a failed
//! read, never as a bug hidden. The channels a loop's back edges
//! changed are remembered and dropped when it is entered again (from the
//! next round of a loop around it), so each further entry takes one walk.

use super::fact::{canonical, Fact};
use super::state::State;
use super::Checker;
use crate::entity::SecondaryMap;
use crate::function::*;
use crate::to_tgsi::layout::{Interval, Layout};
use crate::walk::{walk, ConstructRef, Event};
use smallvec::SmallVec;
use tgsi::{File, Opcode};

/// What the walk knows of the loops of the emitted code.
pub(super) struct Loops {
    /// The indices of the `BGNLOOP`s, in order: a loop's ordinal is its
    /// place here.
    starts: Vec<usize>,
    /// Per loop in order: the positions of its body in the layout.
    body: Vec<Option<Interval>>,
    /// The values whose facts are named by another value (the halves a
    /// split or pack names): a fact is live when any of them is.
    aliases: SecondaryMap<Value, SmallVec<[Value; 2]>>,
}

impl Loops {
    pub fn new(func: &Function, out: &[tgsi::Instruction], layout: &Layout, imms: &[tgsi::Immediate]) -> Loops {
        let starts: Vec<usize> = (0..out.len()).filter(|&pc| out[pc].opcode == Opcode::Bgnloop).collect();
        // Emission opens the loops in the order the walk enters them.
        // Only a loop asks which values are live.
        let events = walk(&func.body).take_while(|_| !starts.is_empty());
        let body = events
            .filter_map(|event| match event {
                Event::Enter(ConstructRef::Loop(l), _) => Some((l.body.first(), l.body.last())),
                _ => None,
            })
            .map(|ends| match ends {
                (Some(Node::Block(first)), Some(Node::Block(last))) => {
                    let start = layout.block_start.get(first).copied()?;
                    let end = layout.block_end.get(last).copied()?;
                    Some(Interval { start, end })
                }
                _ => None,
            })
            .collect();
        let mut aliases: SecondaryMap<Value, SmallVec<[Value; 2]>> = SecondaryMap::default();
        let values = func.values.iter().take_while(|_| !starts.is_empty());
        for (v, data) in values {
            let halves: &[bool] = if data.ty == Ty::B64 { &[false, true] } else { &[false] };
            for &odd in halves {
                if let Fact::Value(named, _, _) = canonical(func, imms, Operand::new(v), odd) {
                    if named != v {
                        aliases.get_or_default(named).push(v);
                    }
                }
            }
        }
        Loops { starts, body, aliases }
    }

    /// The ordinal of the loop a `BGNLOOP` at `pc` opens.
    pub fn ordinal(&self, pc: usize) -> usize {
        self.starts.partition_point(|&s| s < pc)
    }

    /// How many loops there are.
    pub fn count(&self) -> usize {
        self.starts.len()
    }
}

impl Checker<'_> {
    /// The state the body of loop `ordinal` starts from when it is
    /// entered with `entry`: without the facts of values dead at its head
    /// and of the channels in `dropped`.
    pub(super) fn loop_start(&self, ordinal: usize, entry: &Option<State>, dropped: &[usize]) -> Option<State> {
        let mut state = entry.clone()?;
        if let Some(Some(body)) = self.loops.body.get(ordinal) {
            for slot in 0..state.regs.len() {
                let Fact::Value(v, _, _) = state.regs.get(slot) else { continue };
                // Outputs are observed at the end whether or not a value
                // is read again.
                if self.space.channel_file(slot) != File::Output && !self.live_in(v, *body) {
                    state.regs.set(slot, Fact::Unknown);
                }
            }
        }
        let regs = state.regs.len();
        for &slot in dropped {
            match slot.checked_sub(regs) {
                None => state.regs.set(slot, Fact::Unknown),
                Some(output) => state.outputs.set(output, Fact::Unknown),
            }
        }
        Some(state)
    }

    /// Whether the value a fact names (or one naming the same bits) is
    /// live anywhere in `body` (a value defined before a loop and read in
    /// it is live at its head).
    fn live_in(&self, v: Value, body: Interval) -> bool {
        let live = |v: &Value| self.layout.ranges.get(v).is_some_and(|r| r.iter().any(|iv| iv.overlaps(body)));
        live(&v) || self.loops.aliases.get(&v).is_some_and(|a| a.iter().any(live))
    }
}

/// Adds to `dropped` the slots known in `before` and unknown in `after`
/// (the registers' slots, then the outputs' after them).
pub(super) fn drop_changed(dropped: &mut Vec<usize>, before: &Option<State>, after: &Option<State>) {
    let (Some(b), Some(a)) = (before, after) else { return };
    let pairs = b.regs.iter().zip(a.regs.iter()).chain(b.outputs.iter().zip(a.outputs.iter()));
    for (slot, (x, y)) in pairs.enumerate() {
        if x != Fact::Unknown && y == Fact::Unknown {
            dropped.push(slot);
        }
    }
}
