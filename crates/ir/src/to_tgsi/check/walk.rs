//! The walk over the emitted code's structured control flow: the state
//! of each path, joined where paths meet, and loops walked again until
//! the facts at their head stop changing.

use super::loops::drop_changed;
use super::state::{join, State};
use super::{CheckError, Checker, Failure};
use tgsi::Opcode;

/// An open construct, innermost last.
enum Frame {
    If {
        /// The state the `IF` was reached with: its false edge.
        at_if: Option<State>,
        /// Where the then arm ended, once the `ELSE` is reached.
        then_end: Option<State>,
        in_else: bool,
    },
    Loop {
        /// The index of the `BGNLOOP`.
        start: usize,
        /// The loop's place among the loops.
        ordinal: usize,
        /// The state at the head of the body: the entry joined with every
        /// back edge of the rounds walked so far.
        head: Option<State>,
        breaks: Option<State>,
        continues: Option<State>,
    },
    Switch {
        /// The state the selector was read with, which every case starts
        /// from.
        dispatch: Option<State>,
        breaks: Option<State>,
        has_default: bool,
    },
}

/// Where the walk is.
struct Walk {
    /// The state reaching the instruction at `pc`; `None` where no path
    /// reaches it.
    state: Option<State>,
    frames: Vec<Frame>,
    /// Per loop, the slots its back edges were found to change.
    dropped: Vec<Vec<usize>>,
    /// The instruction walked.
    pc: usize,
}

impl Checker<'_> {
    /// Walks the whole emitted code from its start.
    pub(super) fn run(&self) -> Result<(), CheckError> {
        let mut walk = Walk {
            state: Some(self.space.initial()),
            frames: Vec::new(),
            dropped: vec![Vec::new(); self.loops.count()],
            pc: 0,
        };
        while let Some(inst) = self.out.get(walk.pc) {
            let pc = walk.pc;
            if let Some(s) = walk.state.as_mut() {
                self.apply_markers(pc, false, s)?;
            }
            match inst.opcode {
                Opcode::If | Opcode::Uif | Opcode::Else | Opcode::Endif => self.step_if(inst.opcode, &mut walk)?,
                Opcode::Bgnloop | Opcode::Brk | Opcode::Cont | Opcode::Endloop => {
                    self.step_loop(inst.opcode, &mut walk)?
                }
                Opcode::Switch | Opcode::Case | Opcode::Default | Opcode::Endswitch => {
                    self.step_switch(inst.opcode, &mut walk)?
                }
                Opcode::Ret | Opcode::End => {
                    if let Some(s) = &walk.state {
                        self.outputs_observed(pc, s)?;
                    }
                    walk.state = None;
                }
                Opcode::Cal | Opcode::Bgnsub | Opcode::Endsub => {
                    return Err(self.structure(pc, "a subroutine, which emission never writes"));
                }
                _ => {
                    if let Some(s) = walk.state.as_mut() {
                        self.reads(pc, s)?;
                        if inst.opcode == Opcode::Emit {
                            self.outputs_observed(pc, s)?;
                        }
                        self.writes(pc, s);
                    }
                }
            }
            walk.pc += 1;
        }
        if !walk.frames.is_empty() {
            return Err(self.fail(self.out.len().saturating_sub(1), Failure::Structure("a construct left open")));
        }
        Ok(())
    }

    /// The failure of a construct badly nested at `pc`.
    fn structure(&self, pc: usize, what: &'static str) -> CheckError {
        self.fail(pc, Failure::Structure(what))
    }

    /// `IF`, `UIF`, `ELSE` or `ENDIF` (`opcode`) at `walk.pc`.
    fn step_if(&self, opcode: Opcode, walk: &mut Walk) -> Result<(), CheckError> {
        let pc = walk.pc;
        match opcode {
            Opcode::Else => {
                let Some(Frame::If { at_if, then_end, in_else }) = walk.frames.last_mut() else {
                    return Err(self.structure(pc, "an ELSE outside an IF"));
                };
                *then_end = walk.state.take();
                walk.state = at_if.take();
                *in_else = true;
            }
            Opcode::Endif => {
                let Some(Frame::If { at_if, then_end, in_else }) = walk.frames.pop() else {
                    return Err(self.structure(pc, "an ENDIF outside an IF"));
                };
                let other = if in_else {
                    then_end
                } else {
                    // The false edge, with what an else arm that wrote
                    // no instruction did.
                    let mut false_edge = at_if;
                    if let Some(s) = false_edge.as_mut() {
                        self.apply_markers(pc, true, s)?;
                    }
                    false_edge
                };
                walk.state = join(walk.state.take(), other.as_ref());
            }
            _ => {
                if let Some(s) = &walk.state {
                    self.reads(pc, s)?;
                }
                walk.frames.push(Frame::If { at_if: walk.state.clone(), then_end: None, in_else: false });
            }
        }
        Ok(())
    }

    /// `BGNLOOP`, `BRK`, `CONT` or `ENDLOOP` (`opcode`) at `walk.pc`. An
    /// `ENDLOOP` whose back edges change the head's state sets `walk.pc`
    /// back to the `BGNLOOP`, for another round.
    fn step_loop(&self, opcode: Opcode, walk: &mut Walk) -> Result<(), CheckError> {
        let pc = walk.pc;
        match opcode {
            Opcode::Bgnloop => {
                let ordinal = self.loops.ordinal(pc);
                let known = walk.dropped.get(ordinal).map_or(&[][..], Vec::as_slice);
                let head = self.loop_start(ordinal, &walk.state, known);
                walk.state = head.clone();
                walk.frames.push(Frame::Loop { start: pc, ordinal, head, breaks: None, continues: None });
            }
            Opcode::Brk => {
                let target = walk.frames.iter_mut().rev().find(|f| !matches!(f, Frame::If { .. }));
                match target {
                    Some(Frame::Loop { breaks, .. } | Frame::Switch { breaks, .. }) => {
                        *breaks = join(breaks.take(), walk.state.take().as_ref());
                    }
                    _ => return Err(self.structure(pc, "a BRK outside a loop or switch")),
                }
            }
            Opcode::Cont => {
                let target = walk.frames.iter_mut().rev().find(|f| matches!(f, Frame::Loop { .. }));
                let Some(Frame::Loop { continues, .. }) = target else {
                    return Err(self.structure(pc, "a CONT outside a loop"));
                };
                *continues = join(continues.take(), walk.state.take().as_ref());
            }
            _ => {
                let Some(Frame::Loop { start, ordinal, head, breaks, continues }) = walk.frames.last_mut() else {
                    return Err(self.structure(pc, "an ENDLOOP outside a loop"));
                };
                let back = join(walk.state.take(), continues.take().as_ref());
                let next = join(head.clone(), back.as_ref());
                if next != *head {
                    if let Some(list) = walk.dropped.get_mut(*ordinal) {
                        drop_changed(list, head, &next);
                    }
                    // Another round from the head with what the back
                    // edges bring: the walk goes on after the BGNLOOP.
                    *head = next;
                    walk.state = head.clone();
                    *breaks = None;
                    walk.pc = *start;
                    return Ok(());
                }
                walk.state = breaks.take();
                walk.frames.pop();
            }
        }
        Ok(())
    }

    /// `SWITCH`, `CASE`, `DEFAULT` or `ENDSWITCH` (`opcode`) at `walk.pc`.
    fn step_switch(&self, opcode: Opcode, walk: &mut Walk) -> Result<(), CheckError> {
        let pc = walk.pc;
        match opcode {
            Opcode::Switch => {
                if let Some(s) = &walk.state {
                    self.reads(pc, s)?;
                }
                walk.frames.push(Frame::Switch { dispatch: walk.state.take(), breaks: None, has_default: false });
            }
            Opcode::Case | Opcode::Default => {
                let Some(Frame::Switch { dispatch, has_default, .. }) = walk.frames.last_mut() else {
                    return Err(self.structure(pc, "a CASE or DEFAULT outside a SWITCH"));
                };
                *has_default |= opcode == Opcode::Default;
                // Control comes from the selector's test, or falls
                // through from the case before.
                walk.state = join(walk.state.take(), dispatch.as_ref());
                if let Some(s) = &walk.state {
                    self.reads(pc, s)?;
                }
            }
            _ => {
                let Some(Frame::Switch { dispatch, breaks, has_default }) = walk.frames.pop() else {
                    return Err(self.structure(pc, "an ENDSWITCH outside a SWITCH"));
                };
                walk.state = join(walk.state.take(), breaks.as_ref());
                if !has_default {
                    walk.state = join(walk.state.take(), dispatch.as_ref());
                }
            }
        }
        Ok(())
    }
}
