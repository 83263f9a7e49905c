//! The walk over the program's instructions. Each construct and inlined
//! call met is begun by its module (`if_else`, `loops`, `switch`,
//! `calls`) and pushed on an explicit stack of [`Open`] parts; when the
//! run of instructions of a part stops, the part's end is lowered and the
//! walk goes on in the next part or the enclosing one. The walk also lowers the jumps (`BRK`, `CONT`,
//! `RET`, `END`), skipping the unreachable instructions after them, and
//! stores the outputs where the invocation ends. The stack holds at most
//! [`tgsi::Limits::max_nesting`] parts: the tree of constructs the walk
//! builds is no deeper, so what walks the tree recursively later is safe.

use super::calls::Call;
use super::if_else::IfArms;
use super::switch::Switching;
use super::{BuildError, Builder};
use crate::function::{Exit, Op, Operand, Origin};
use tgsi::Opcode;

/// What ended a walk over a run of instructions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Stop {
    /// One of the opcodes the walk was told to stop at (consumed).
    At(Opcode),
    /// The end of the instruction list, or the main program's END.
    End,
}

/// A walk over a run of instructions: where it stops.
#[derive(Clone, Copy, Debug)]
pub(super) struct Run {
    /// The opcodes it stops at (consumed).
    pub(super) stops: &'static [Opcode],
    /// Whether it is in the main program rather than an inlined subroutine.
    pub(super) main: bool,
}

/// A construct, or an inlined call, being lowered while the walk is in
/// one of its parts. The walk keeps them on an explicit stack.
pub(super) enum Open<'a> {
    /// The then-arm of an `IF` or `UIF`.
    Then { inst: &'a tgsi::Instruction, cond: Operand, mark: usize },
    /// The else-arm.
    Else(Box<IfArms>),
    /// A loop's body; `mark` is `vars.mark()` when it began.
    Loop { mark: usize },
    /// A case of a switch.
    Switch(Box<Switching>),
    /// The body of an inlined subroutine.
    Call(Call),
}

/// The next part of a construct to walk, if it has one left.
pub(super) type Next<'a> = Option<(Open<'a>, Run)>;

/// Where a walk over a run of instructions came to.
pub(super) enum Walked<'a> {
    /// The run ended.
    Stopped(Stop),
    /// A construct or call began; the walk goes on in this part of it.
    Opened(Open<'a>, Run),
}

impl<'a> Builder<'a> {
    /// Lowers the program: walks its instructions, and each part of each
    /// construct and inlined call met, keeping the constructs being lowered
    /// on a stack rather than recursing.
    pub(super) fn walk_program(&mut self) -> Result<Stop, BuildError> {
        let mut pc = 0;
        let mut run = Run { stops: &[], main: true };
        // The constructs being lowered, innermost last, each with the run
        // it is in.
        let mut open: Vec<(Open<'a>, Run)> = Vec::new();
        loop {
            if let Some(value) = self.phi_overflow {
                return Err(self.phi_budget_error(value));
            }
            let stop = match self.walk(&mut pc, run)? {
                Walked::Stopped(stop) => stop,
                Walked::Opened(construct, inner) => {
                    if open.len() >= self.max_nesting {
                        let (value, max) = (open.len() as u64 + 1, self.max_nesting as u64);
                        let e = tgsi::LimitExceeded { limit: tgsi::Limit::Nesting, value, max };
                        let message = format!("{e}, counting the subroutine calls being inlined");
                        return Err(BuildError { inst: Some(self.pc), message, limit: Some(e) });
                    }
                    open.push((construct, run));
                    run = inner;
                    continue;
                }
            };
            let Some((construct, outer)) = open.pop() else { return Ok(stop) };
            let next = match construct {
                Open::Then { inst, cond, mark } => self.end_then(inst, cond, mark, stop, outer.main)?,
                Open::Else(arms) => self.end_if(*arms),
                Open::Loop { mark } => self.end_loop(mark)?,
                Open::Switch(switching) => self.end_case(switching, stop, outer.main)?,
                Open::Call(call) => self.end_call(call, &mut pc)?,
            };
            run = match next {
                Some((construct, inner)) => {
                    open.push((construct, outer));
                    inner
                }
                None => outer,
            };
        }
    }

    /// Lowers instructions from `*pc` until one of the run's stops
    /// (consumed), the end of the list, or (in the main program) its END:
    /// [`Walked::Stopped`]. At a construct or call, lowers its start and
    /// returns the part of it to walk next.
    fn walk(&mut self, pc: &mut usize, run: Run) -> Result<Walked<'a>, BuildError> {
        let Run { stops, main } = run;
        while *pc < self.insts.len() {
            let inst = self.insts[*pc];
            self.pc = *pc;
            *pc += 1;
            let op = inst.opcode;
            if stops.contains(&op) {
                return Ok(Walked::Stopped(Stop::At(op)));
            }
            let next = match op {
                Opcode::If | Opcode::Uif => self.begin_if(inst, main)?,
                Opcode::Else | Opcode::Endif | Opcode::Endloop | Opcode::Case | Opcode::Default | Opcode::Endswitch => {
                    return Err(self.error(format!("{} without a matching opening instruction", op.name())));
                }
                Opcode::Bgnloop => self.begin_loop(*pc, main)?,
                Opcode::Switch => self.begin_switch(inst, pc, main)?,
                Opcode::Brk => {
                    self.lower_break()?;
                    return self.skip_unreachable(pc, stops).map(Walked::Stopped);
                }
                Opcode::Cont => {
                    self.lower_continue()?;
                    return self.skip_unreachable(pc, stops).map(Walked::Stopped);
                }
                Opcode::Ret if !self.calls.is_empty() => {
                    let Some(top) = self.breakables.last() else {
                        return Err(self.error("RET outside any subroutine loop"));
                    };
                    if !top.subroutine {
                        return Err(self.error("RET inside a loop or switch of a subroutine is not supported"));
                    }
                    self.lower_break()?;
                    return self.skip_unreachable(pc, stops).map(Walked::Stopped);
                }
                Opcode::End | Opcode::Ret => {
                    self.end_invocation();
                    if main && self.regions.len() == 1 && self.calls.is_empty() {
                        return Ok(Walked::Stopped(Stop::End));
                    }
                    return self.skip_unreachable(pc, stops).map(Walked::Stopped);
                }
                Opcode::Cal => self.begin_call(inst, pc)?,
                Opcode::Bgnsub | Opcode::Endsub | Opcode::Nop => None,
                _ => {
                    self.lower_instruction(inst)?;
                    None
                }
            };
            if let Some((construct, inner)) = next {
                return Ok(Walked::Opened(construct, inner));
            }
        }
        if stops.is_empty() {
            Ok(Walked::Stopped(Stop::End))
        } else {
            let expected = stops.iter().map(|o| o.name()).collect::<Vec<_>>().join(" or ");
            // Named by the construct left open, so the error has a place to
            // point at: the list's end has none.
            Err(match self.innermost_unclosed() {
                Some(inst) => BuildError {
                    inst: Some(inst),
                    message: format!(
                        "this {} is never closed: the program ends inside it (expected {expected})",
                        self.insts[inst].opcode.name()
                    ),
                    limit: None,
                },
                None => BuildError {
                    inst: None,
                    message: format!("the program ends inside a construct (expected {expected})"),
                    limit: None,
                },
            })
        }
    }

    /// The innermost construct (IF, UIF, BGNLOOP, SWITCH or BGNSUB) that
    /// no instruction after it closes. Constructs nest lexically, so a walk
    /// that reaches the end of the list inside one is inside this one.
    fn innermost_unclosed(&self) -> Option<usize> {
        let mut open = Vec::new();
        for (index, inst) in self.insts.iter().enumerate() {
            match inst.opcode {
                Opcode::If | Opcode::Uif | Opcode::Bgnloop | Opcode::Switch | Opcode::Bgnsub => open.push(index),
                Opcode::Endif | Opcode::Endloop | Opcode::Endswitch | Opcode::Endsub => {
                    open.pop();
                }
                _ => {}
            }
        }
        open.pop()
    }

    /// After a jump, skips the unreachable rest of the current region up to
    /// one of `stops` (consumed), keeping nesting balanced.
    fn skip_unreachable(&mut self, pc: &mut usize, stops: &[Opcode]) -> Result<Stop, BuildError> {
        let mut depth = 0usize;
        while *pc < self.insts.len() {
            let op = self.insts[*pc].opcode;
            self.pc = *pc;
            *pc += 1;
            if depth == 0 && stops.contains(&op) {
                return Ok(Stop::At(op));
            }
            match op {
                op if op.opens_construct() => depth += 1,
                op if op.closes_construct() => {
                    if depth == 0 {
                        return Err(self.error(format!("{} without a matching opening instruction", op.name())));
                    }
                    depth -= 1;
                }
                _ => {}
            }
        }
        Ok(Stop::End)
    }

    /// Stores the outputs and ends the invocation here. A geometry
    /// shader's outputs reach nothing but the vertices it emits (what it
    /// writes after its last `EMIT` goes to a vertex that is never
    /// emitted), so they are stored before each `EMIT` only.
    pub(super) fn end_invocation(&mut self) {
        if self.processor != tgsi::Processor::Geometry {
            self.store_outputs();
        }
        self.func.blocks[self.cur].exit = Exit::Return;
    }

    /// Stores the current value of every output written so far.
    pub(super) fn store_outputs(&mut self) {
        for v in self.outputs.clone() {
            let Some(value) = self.vars.get(v) else { continue };
            let value = self.state_value(Some(value));
            let reg = self.vars.reg(v);
            let origin = Origin { inst: Some(self.pc as u32), dst: Some(reg) };
            let inst = self.func.add_inst(
                Op::StoreOutput { index: reg.index, chan: reg.chan },
                &[Operand::new(value)],
                &[],
                origin,
            );
            self.append(inst);
        }
    }
}
