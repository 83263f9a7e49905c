//! Inlining of subroutines at each `CAL`: the body is walked in place of
//! the call. A body with a `RET` before its end is inlined inside a loop
//! that runs once, whose `BRK` the `RET` becomes; recursion is refused.

use super::flow::{Next, Open, Run};
use super::jumps::{Breakable, LoopInfo};
use super::{BuildError, Builder};
use crate::function::{LoopNode, Node};
use tgsi::Opcode;

/// A subroutine call being inlined.
pub(super) struct Call {
    /// `vars.mark()` at the call, when the body is inlined inside a
    /// once-loop (it returns early).
    once_loop: Option<usize>,
    /// Where the caller's walk goes on after the call.
    caller_pc: usize,
    /// The index of the `CAL`.
    call_pc: usize,
}

impl<'a> Builder<'a> {
    /// A `CAL`: the subroutine's body is next, walked in place; the
    /// caller's walk goes on after the call.
    pub(super) fn begin_call(&mut self, inst: &tgsi::Instruction, pc: &mut usize) -> Result<Next<'a>, BuildError> {
        let start = inst.label.ok_or_else(|| self.error("CAL needs a label"))? as usize;
        if self.insts.get(start).map(|i| i.opcode) != Some(Opcode::Bgnsub) {
            return Err(self.error(format!("CAL :{start} does not name a BGNSUB")));
        }
        if self.calls.contains(&start) {
            return Err(self.error("recursive subroutine calls cannot be inlined"));
        }
        // Where the body ends, and whether it returns early.
        let mut end = start + 1;
        let mut early_return = false;
        while end < self.insts.len() && self.insts[end].opcode != Opcode::Endsub {
            let next_is_end = self.insts.get(end + 1).is_some_and(|i| i.opcode == Opcode::Endsub);
            if self.insts[end].opcode == Opcode::Ret && !next_is_end {
                early_return = true;
            }
            end += 1;
        }
        let call_pc = self.pc;
        self.calls.push(start);
        // The body is walked from its start; the caller goes on after.
        let caller_pc = std::mem::replace(pc, start + 1);
        if !early_return {
            let call = Call { once_loop: None, caller_pc, call_pc };
            return Ok(Some((Open::Call(call), Run { stops: &[Opcode::Endsub, Opcode::Ret], main: false })));
        }
        let mark = self.vars.mark();
        let header = self.new_block();
        // A loop that never loops: it needs no header phis.
        let looping = Some(LoopInfo { phis: Vec::new(), continues: Vec::new() });
        self.breakables.push(Breakable { mark, breaks: Vec::new(), looping, subroutine: true });
        self.open_region(header);
        let call = Call { once_loop: Some(mark), caller_pc, call_pc };
        Ok(Some((Open::Call(call), Run { stops: &[Opcode::Endsub], main: false })))
    }

    /// The body of an inlined subroutine ended: the call is complete.
    pub(super) fn end_call(&mut self, call: Call, pc: &mut usize) -> Result<Next<'a>, BuildError> {
        *pc = call.caller_pc;
        if let Some(mark) = call.once_loop {
            if self.reaches_end() {
                self.lower_break()?;
            }
            let body = self.close_region();
            let ctx = self.breakables.pop().ok_or_else(|| self.error("subroutine context lost"))?;
            self.vars.rollback(mark);
            // One loop built from the body: not a walk.
            let exit = self.push_construct(Node::Loop(Box::new(LoopNode { body })));
            self.join(exit, &ctx.breaks);
        }
        self.calls.pop();
        self.pc = call.call_pc;
        Ok(None)
    }
}
