//! Lowering of `SWITCH` ... `CASE`/`DEFAULT` ... `ENDSWITCH`: each case
//! starts from the dispatch block and the case falling into it, and the
//! `BRK` edges, the last case's fall-through and (without a `DEFAULT`) the
//! dispatch block join after the switch.

use super::flow::{Next, Open, Run, Stop};
use super::jumps::Breakable;
use super::ssa::Incoming;
use super::{BuildError, Builder};
use crate::function::{Block, Case, Node, Operand, SwitchNode};
use tgsi::{File, Opcode};

/// A switch being lowered.
pub(super) struct Switching {
    selector: Operand,
    /// The block the switch leaves.
    dispatch: Block,
    mark: usize,
    /// The cases lowered so far.
    cases: Vec<Case>,
    /// The edge falling out of the last case lowered, if it does.
    fallthrough: Option<Incoming>,
    /// The value of the case being lowered (`None` for `DEFAULT`).
    value: Option<Operand>,
}

impl<'a> Builder<'a> {
    /// A `SWITCH`: the case its first `CASE` or `DEFAULT` opens is next.
    pub(super) fn begin_switch(
        &mut self,
        inst: &tgsi::Instruction,
        pc: &mut usize,
        main: bool,
    ) -> Result<Next<'a>, BuildError> {
        let src = inst.src.first().ok_or_else(|| self.error("SWITCH needs a selector"))?;
        let selector = self.src_scalar(src, 0, false)?;
        let dispatch = self.cur;
        let mark = self.vars.mark();
        self.breakables.push(Breakable { mark, breaks: Vec::new(), looping: None, subroutine: false });

        // The first CASE or DEFAULT.
        let label = loop {
            let Some(&next) = self.insts.get(*pc) else {
                return Err(self.error("SWITCH without ENDSWITCH"));
            };
            self.pc = *pc;
            *pc += 1;
            match next.opcode {
                Opcode::Case | Opcode::Default | Opcode::Endswitch => break next,
                Opcode::Nop => {}
                other => return Err(self.error(format!("{} before the first CASE of a SWITCH", other.name()))),
            }
        };
        let switching = Switching { selector, dispatch, mark, cases: Vec::new(), fallthrough: None, value: None };
        self.next_case(Box::new(switching), label, main)
    }

    /// Starts the case `label` opens, or completes the switch at its
    /// `ENDSWITCH`.
    fn next_case(
        &mut self,
        mut switching: Box<Switching>,
        label: &tgsi::Instruction,
        main: bool,
    ) -> Result<Next<'a>, BuildError> {
        if label.opcode == Opcode::Endswitch {
            self.end_switch(*switching)?;
            return Ok(None);
        }
        let value = if label.opcode == Opcode::Case {
            let src = label.src.first().ok_or_else(|| self.error("CASE needs a value"))?;
            if matches!(src.reg.file, File::Temporary | File::Output | File::Address) {
                return Err(self.error("a CASE value from a register is not supported (use an immediate)"));
            }
            Some(self.src_scalar(src, 0, false)?)
        } else {
            None
        };
        let start = self.new_block();
        self.open_region(start);
        let mut incoming = vec![Incoming { pred: switching.dispatch, state: Vec::new() }];
        if let Some(f) = switching.fallthrough.take() {
            incoming.push(f);
        }
        self.join_after(start, &incoming, self.pc);
        switching.value = value;
        Ok(Some((Open::Switch(switching), Run { stops: &[Opcode::Case, Opcode::Default, Opcode::Endswitch], main })))
    }

    /// A case ended at `stop`: the next case is next.
    pub(super) fn end_case(
        &mut self,
        mut switching: Box<Switching>,
        stop: Stop,
        main: bool,
    ) -> Result<Next<'a>, BuildError> {
        if self.reaches_end() {
            switching.fallthrough = Some(Incoming { pred: self.cur, state: self.capture(switching.mark) });
        }
        self.vars.rollback(switching.mark);
        let body = self.close_region();
        switching.cases.push(Case { value: switching.value.take(), body });
        let label = match stop {
            Stop::At(_) => self.insts[self.pc],
            Stop::End => return Err(self.error("SWITCH without ENDSWITCH")),
        };
        self.next_case(switching, label, main)
    }

    /// Every case is lowered: the switch is complete.
    fn end_switch(&mut self, switching: Switching) -> Result<(), BuildError> {
        let Switching { selector, dispatch, cases, fallthrough, .. } = switching;
        let ctx = self.breakables.pop().ok_or_else(|| self.error("switch context lost"))?;
        let has_default = cases.iter().any(|c| c.value.is_none());
        // One switch built from its cases: not a walk.
        let exit = self.push_construct(Node::Switch(Box::new(SwitchNode { selector, cases })));
        let mut incoming = ctx.breaks;
        if let Some(f) = fallthrough {
            incoming.push(f);
        }
        if !has_default {
            incoming.push(Incoming { pred: dispatch, state: Vec::new() });
        }
        self.join_after(exit, &incoming, self.pc);
        Ok(())
    }
}
