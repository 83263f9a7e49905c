//! The control-flow tree written back as structured TGSI: the opening and
//! closing instructions of every construct (an `ELSE` only when its arm
//! writes something or the source had one), and each block's instructions,
//! phi copies and exit.

use super::note::Note;
use super::operands::broadcast;
use super::*;
use crate::walk::{ConstructRef, RegionKind};

impl Emitter<'_> {
    pub(super) fn region(&mut self, region: &Region) -> Result<(), EmitError> {
        // Where the ELSE of each if whose else-region is being written went.
        let mut else_at: Vec<usize> = Vec::new();
        for event in walk(region) {
            match event {
                Event::Block(b, _) => self.block(b)?,
                Event::Enter(construct, at) => self.open(construct, at.prev_block())?,
                Event::EnterRegion(r) => {
                    if let Some(case) = r.case() {
                        match case.value {
                            Some(v) => {
                                let val = self.operand(&[(0, v)])?;
                                let mut inst = tgsi::Instruction::new(Opcode::Case);
                                inst.src.push(broadcast(val));
                                self.push(inst, Note::condition(v));
                            }
                            None => self.push(tgsi::Instruction::new(Opcode::Default), Note::default()),
                        }
                    }
                }
                Event::LeaveRegion(r) => match (r.kind, r.construct) {
                    // ELSE only when the else arm writes something (phi
                    // copies included) or the source had one.
                    (RegionKind::Then, _) => {
                        self.push(tgsi::Instruction::new(Opcode::Else), Note::default());
                        else_at.push(self.out.len());
                    }
                    (RegionKind::Else, Some(ConstructRef::If(n))) => {
                        let at = else_at.pop();
                        if at == Some(self.out.len()) && !n.has_else {
                            self.pop_else();
                        }
                    }
                    _ => {}
                },
                Event::Leave(construct, _) => {
                    let op = match construct {
                        ConstructRef::If(_) => Opcode::Endif,
                        ConstructRef::Loop(_) => Opcode::Endloop,
                        ConstructRef::Switch(_) => Opcode::Endswitch,
                    };
                    self.push(tgsi::Instruction::new(op), Note::default());
                }
            }
        }
        Ok(())
    }

    /// Writes the opening instruction of `construct`, whose condition
    /// block is `prev`.
    fn open(&mut self, construct: ConstructRef<'_>, prev: Option<Block>) -> Result<(), EmitError> {
        let (inst, note) = match construct {
            ConstructRef::If(n) => {
                self.hoist_else_copies(n, prev)?;
                let cond = self.operand(&[(0, n.cond)])?;
                let mut inst = tgsi::Instruction::new(if n.unsigned { Opcode::Uif } else { Opcode::If });
                inst.src.push(broadcast(cond));
                (inst, Note::condition(n.cond))
            }
            ConstructRef::Loop(_) => (tgsi::Instruction::new(Opcode::Bgnloop), Note::default()),
            ConstructRef::Switch(n) => {
                let sel = self.operand(&[(0, n.selector)])?;
                let mut inst = tgsi::Instruction::new(Opcode::Switch);
                inst.src.push(broadcast(sel));
                (inst, Note::condition(n.selector))
            }
        };
        self.push(inst, note);
        Ok(())
    }

    fn block(&mut self, b: Block) -> Result<(), EmitError> {
        self.cur_block = Some(b);
        let insts = self.func.blocks[b].insts.clone();
        let mut i = 0;
        while i < insts.len() {
            i += self.instruction(&insts, i)?;
        }
        self.end_group();
        self.pos = None;
        self.phi_copies(b)?;
        match self.func.blocks[b].exit {
            Exit::Fallthrough => {}
            Exit::Break => self.push(tgsi::Instruction::new(Opcode::Brk), Note::default()),
            Exit::Continue => self.push(tgsi::Instruction::new(Opcode::Cont), Note::default()),
            Exit::Return => {
                let op = if Some(b) == self.last_block { Opcode::End } else { Opcode::Ret };
                self.push(tgsi::Instruction::new(op), Note::default());
            }
        }
        Ok(())
    }
}
