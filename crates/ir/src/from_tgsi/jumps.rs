//! The constructs `BRK` and `CONT` leave (loops, switches and the
//! once-loops of inlined subroutines) and the lowering of those jumps:
//! each records the state along its edge for the join it goes to.

use super::ssa::Incoming;
use super::vars::Var;
use super::{BuildError, Builder};
use crate::function::{Exit, Inst};
use tgsi::Opcode;

/// A construct that `BRK` leaves.
pub(super) struct Breakable {
    /// `vars.mark()` when the construct began.
    pub(super) mark: usize,
    /// The states at each `BRK`.
    pub(super) breaks: Vec<Incoming>,
    /// For loops: the header phis (variable, phi) and the states at
    /// each `CONT`.
    pub(super) looping: Option<LoopInfo>,
    /// Whether this is the once-loop of an inlined subroutine (`RET`
    /// breaks out of it).
    pub(super) subroutine: bool,
}

/// What a loop being lowered collects for its header phis.
pub(super) struct LoopInfo {
    /// The header phis: one per variable the body may write.
    pub(super) phis: Vec<(Var, Inst)>,
    /// The states along each edge back to the header (`CONT` and latch).
    pub(super) continues: Vec<Incoming>,
}

impl Builder<'_> {
    /// Records the current block as an edge back to the innermost loop's
    /// header.
    pub(super) fn record_continue(&mut self) {
        let cur = self.cur;
        let Some(idx) = self.breakables.iter().rposition(|b| b.looping.is_some()) else { return };
        let mark = self.breakables[idx].mark;
        let state = self.capture(mark);
        if let Some(info) = &mut self.breakables[idx].looping {
            info.continues.push(Incoming { pred: cur, state });
        }
    }

    /// Lowers a `BRK` (or the `RET` of an inlined subroutine): the current
    /// block leaves the innermost loop or switch.
    pub(super) fn lower_break(&mut self) -> Result<(), BuildError> {
        let cur = self.cur;
        let Some(top) = self.breakables.last() else {
            return Err(self.error("BRK outside a loop or switch"));
        };
        if top.subroutine && self.insts[self.pc].opcode == Opcode::Brk {
            return Err(self.error("BRK outside a loop or switch of its subroutine"));
        }
        let state = self.capture(top.mark);
        if let Some(top) = self.breakables.last_mut() {
            top.breaks.push(Incoming { pred: cur, state });
        }
        self.func.blocks[cur].exit = Exit::Break;
        Ok(())
    }

    /// Lowers a `CONT`: the current block goes back to the innermost
    /// loop's header.
    pub(super) fn lower_continue(&mut self) -> Result<(), BuildError> {
        match self.breakables.iter().rev().find(|b| b.looping.is_some()) {
            None => return Err(self.error("CONT outside a loop")),
            Some(b) if b.subroutine => return Err(self.error("CONT outside a loop of its subroutine")),
            Some(_) => {}
        }
        if self.breakables.last().is_some_and(|b| b.looping.is_none()) {
            return Err(self.error("CONT inside a switch is not supported"));
        }
        self.record_continue();
        self.func.blocks[self.cur].exit = Exit::Continue;
        Ok(())
    }
}
