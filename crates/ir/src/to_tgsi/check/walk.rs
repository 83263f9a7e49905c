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

impl Checker<'_> {
    /// Walks the whole emitted code from its start.
    pub(super) fn run(&self) -> Result<(), CheckError> {
        let mut state = Some(self.space.initial());
        let mut frames: Vec<Frame> = Vec::new();
        // Per loop, the slots its back edges were found to change.
        let mut dropped: Vec<Vec<usize>> = vec![Vec::new(); self.loops.count()];
        let mut pc = 0;
        while let Some(inst) = self.out.get(pc) {
            if let Some(s) = state.as_mut() {
                self.apply_markers(pc, false, s)?;
            }
            let structure = |what: &'static str| self.fail(pc, Failure::Structure(what));
            match inst.opcode {
                Opcode::If | Opcode::Uif => {
                    if let Some(s) = &state {
                        self.reads(pc, s)?;
                    }
                    frames.push(Frame::If { at_if: state.clone(), then_end: None, in_else: false });
                }
                Opcode::Else => {
                    let Some(Frame::If { at_if, then_end, in_else }) = frames.last_mut() else {
                        return Err(structure("an ELSE outside an IF"));
                    };
                    *then_end = state.take();
                    state = at_if.take();
                    *in_else = true;
                }
                Opcode::Endif => {
                    let Some(Frame::If { at_if, then_end, in_else }) = frames.pop() else {
                        return Err(structure("an ENDIF outside an IF"));
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
                    state = join(state, other.as_ref());
                }
                Opcode::Bgnloop => {
                    let ordinal = self.loops.ordinal(pc);
                    let known = dropped.get(ordinal).map_or(&[][..], Vec::as_slice);
                    let head = self.loop_start(ordinal, &state, known);
                    state = head.clone();
                    frames.push(Frame::Loop { start: pc, ordinal, head, breaks: None, continues: None });
                }
                Opcode::Brk => {
                    let target = frames.iter_mut().rev().find(|f| !matches!(f, Frame::If { .. }));
                    match target {
                        Some(Frame::Loop { breaks, .. } | Frame::Switch { breaks, .. }) => {
                            *breaks = join(breaks.take(), state.take().as_ref());
                        }
                        _ => return Err(structure("a BRK outside a loop or switch")),
                    }
                }
                Opcode::Cont => {
                    let target = frames.iter_mut().rev().find(|f| matches!(f, Frame::Loop { .. }));
                    let Some(Frame::Loop { continues, .. }) = target else {
                        return Err(structure("a CONT outside a loop"));
                    };
                    *continues = join(continues.take(), state.take().as_ref());
                }
                Opcode::Endloop => {
                    let Some(Frame::Loop { start, ordinal, head, breaks, continues }) = frames.last_mut() else {
                        return Err(structure("an ENDLOOP outside a loop"));
                    };
                    let back = join(state.take(), continues.take().as_ref());
                    let next = join(head.clone(), back.as_ref());
                    if next != *head {
                        if let Some(list) = dropped.get_mut(*ordinal) {
                            drop_changed(list, head, &next);
                        }
                        // Another round from the head with what the back
                        // edges bring.
                        *head = next;
                        state = head.clone();
                        *breaks = None;
                        pc = *start + 1;
                        continue;
                    }
                    state = breaks.take();
                    frames.pop();
                }
                Opcode::Switch => {
                    if let Some(s) = &state {
                        self.reads(pc, s)?;
                    }
                    frames.push(Frame::Switch { dispatch: state.take(), breaks: None, has_default: false });
                }
                Opcode::Case | Opcode::Default => {
                    let Some(Frame::Switch { dispatch, has_default, .. }) = frames.last_mut() else {
                        return Err(structure("a CASE or DEFAULT outside a SWITCH"));
                    };
                    *has_default |= inst.opcode == Opcode::Default;
                    // Control comes from the selector's test, or falls
                    // through from the case before.
                    state = join(state, dispatch.as_ref());
                    if let Some(s) = &state {
                        self.reads(pc, s)?;
                    }
                }
                Opcode::Endswitch => {
                    let Some(Frame::Switch { dispatch, breaks, has_default }) = frames.pop() else {
                        return Err(structure("an ENDSWITCH outside a SWITCH"));
                    };
                    state = join(state, breaks.as_ref());
                    if !has_default {
                        state = join(state, dispatch.as_ref());
                    }
                }
                Opcode::Ret | Opcode::End => {
                    if let Some(s) = &state {
                        self.outputs_observed(pc, s)?;
                    }
                    state = None;
                }
                Opcode::Cal | Opcode::Bgnsub | Opcode::Endsub => {
                    return Err(structure("a subroutine, which emission never writes"));
                }
                _ => {
                    if let Some(s) = state.as_mut() {
                        self.reads(pc, s)?;
                        if inst.opcode == Opcode::Emit {
                            self.outputs_observed(pc, s)?;
                        }
                        self.writes(pc, s);
                    }
                }
            }
            pc += 1;
        }
        if !frames.is_empty() {
            return Err(self.fail(self.out.len().saturating_sub(1), Failure::Structure("a construct left open")));
        }
        Ok(())
    }
}
