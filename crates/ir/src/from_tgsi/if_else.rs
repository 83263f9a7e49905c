//! Lowering of `IF`/`UIF` ... `ELSE` ... `ENDIF`: each arm is lowered
//! from the state at the `IF`, and the arms' states are joined after it.

use super::flow::{Next, Open, Run, Stop};
use super::ssa::{Incoming, State};
use super::{BuildError, Builder};
use crate::function::{Block, IfNode, Node, Operand, Region};
use tgsi::Opcode;

/// An if whose then-arm is lowered.
pub(super) struct IfArms {
    unsigned: bool,
    cond: Operand,
    mark: usize,
    then_end: Option<Block>,
    then_state: State,
    then_region: Region,
    has_else: bool,
}

impl<'a> Builder<'a> {
    /// An `IF` or `UIF`: the then-arm is next.
    pub(super) fn begin_if(&mut self, inst: &'a tgsi::Instruction, main: bool) -> Result<Next<'a>, BuildError> {
        let src = inst.src.first().ok_or_else(|| self.error("IF needs a condition"))?;
        let cond = self.src_scalar(src, 0, false)?;
        let mark = self.vars.mark();
        let then_start = self.new_block();
        self.open_region(then_start);
        Ok(Some((Open::Then { inst, cond, mark }, Run { stops: &[Opcode::Else, Opcode::Endif], main })))
    }

    /// The then-arm ended at `stop`: the else-arm is next.
    pub(super) fn end_then(
        &mut self,
        inst: &tgsi::Instruction,
        cond: Operand,
        mark: usize,
        stop: Stop,
        main: bool,
    ) -> Result<Next<'a>, BuildError> {
        let then_end = (self.reaches_end()).then_some(self.cur);
        let then_state = self.capture(mark);
        self.vars.rollback(mark);
        let then_region = self.close_region();

        let else_start = self.new_block();
        self.open_region(else_start);
        let has_else = stop == Stop::At(Opcode::Else);
        let unsigned = inst.opcode == Opcode::Uif;
        let arms = IfArms { unsigned, cond, mark, then_end, then_state, then_region, has_else };
        if has_else {
            return Ok(Some((Open::Else(Box::new(arms)), Run { stops: &[Opcode::Endif], main })));
        }
        Ok(self.end_if(arms))
    }

    /// The else-arm ended (or there is none): the if is complete.
    pub(super) fn end_if(&mut self, arms: IfArms) -> Next<'a> {
        let IfArms { unsigned, cond, mark, then_end, then_state, then_region, has_else } = arms;
        let else_end = (self.reaches_end()).then_some(self.cur);
        let else_state = self.capture(mark);
        self.vars.rollback(mark);
        let else_region = self.close_region();

        // One if built from its arms: not a walk.
        let node = IfNode { cond, unsigned, then_region, else_region, has_else };
        let merge = self.push_construct(Node::If(Box::new(node)));
        let mut incoming = Vec::new();
        if let Some(pred) = then_end {
            incoming.push(Incoming { pred, state: then_state });
        }
        if let Some(pred) = else_end {
            incoming.push(Incoming { pred, state: else_state });
        }
        self.join_after(merge, &incoming, self.pc);
        None
    }
}
