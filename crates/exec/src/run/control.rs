//! A batch running the program's flat control list: a program counter, the
//! mask of active lanes, and stacks of the masks of arms and cases waiting
//! their turn, of loops' breaks and of loops' continues.

use super::batch::Batch;
use crate::error::ExecError;
use crate::program::Control;

impl Batch<'_> {
    /// Runs the module's control flow for the lanes of `active`.
    pub(super) fn run(&mut self, mut active: u64) -> Result<(), ExecError> {
        let program = self.program;
        let mut pc = 0;
        while let Some(control) = program.control.get(pc) {
            pc += 1;
            match control {
                // No lane left in this region: on to its end.
                Control::Block { skip, .. }
                | Control::If { skip, .. }
                | Control::Loop { skip, .. }
                | Control::Switch { skip, .. }
                    if active == 0 =>
                {
                    pc = *skip;
                }
                Control::Block { block, .. } => {
                    self.block(*block, active)?;
                    active = match program.exit(*block) {
                        ir::Exit::Fallthrough => active,
                        ir::Exit::Break => {
                            if let Some(m) = self.work.breaks.last_mut() {
                                *m |= active;
                            }
                            0
                        }
                        ir::Exit::Continue => {
                            if let Some(m) = self.work.continues.last_mut() {
                                *m |= active;
                            }
                            0
                        }
                        ir::Exit::Return => 0,
                    };
                }
                Control::If { cond, unsigned, .. } => {
                    let mut taken = 0u64;
                    for l in self.lanes(active) {
                        let bits = self.get(*cond, l);
                        let t = if *unsigned { bits != 0 } else { f32::from_bits(bits) != 0.0 };
                        if t {
                            taken |= 1 << l;
                        }
                    }
                    self.work.masks.push(active & !taken);
                    active &= taken;
                }
                Control::Else => {
                    let waiting = self.work.masks.pop().unwrap_or(0);
                    self.work.masks.push(active);
                    active = waiting;
                }
                Control::EndIf => active |= self.work.masks.pop().unwrap_or(0),
                Control::Loop { .. } => {
                    self.work.breaks.push(0);
                    self.work.continues.push(0);
                }
                Control::EndLoop { body } => {
                    let live = active | self.work.continues.pop().unwrap_or(0);
                    self.count(1)?;
                    if live != 0 {
                        self.work.continues.push(0);
                        active = live;
                        pc = *body;
                    } else {
                        active = self.work.breaks.pop().unwrap_or(0);
                    }
                }
                Control::Switch { selector, values, .. } => {
                    self.switch(*selector, values, active);
                    active = 0;
                }
                Control::Case => active |= self.work.masks.pop().unwrap_or(0),
                Control::EndSwitch => {
                    active |= self.work.masks.pop().unwrap_or(0) | self.work.breaks.pop().unwrap_or(0);
                }
            }
        }
        Ok(())
    }

    /// Sorts the lanes of `active` into the cases of a switch on
    /// `selector` (`values` are the cases' value slots, `None` for
    /// `DEFAULT`): pushes the lanes no case takes when there is no
    /// `DEFAULT` (none otherwise), then the lanes entering each case, last
    /// case first, and a break mask.
    fn switch(&mut self, selector: u32, values: &[Option<u32>], active: u64) {
        let n = values.len();
        let base = self.work.masks.len();
        self.work.masks.resize(base + 1 + n, 0);
        let mut matched = 0u64;
        for (k, value) in values.iter().enumerate() {
            let Some(v) = *value else { continue };
            let mut entry = 0u64;
            for l in self.lanes(active & !matched) {
                if self.get(selector, l) == self.get(v, l) {
                    entry |= 1 << l;
                }
            }
            matched |= entry;
            self.work.masks[base + n - k] = entry;
        }
        let default = active & !matched;
        for (k, value) in values.iter().enumerate() {
            if value.is_none() {
                self.work.masks[base + n - k] = default;
            }
        }
        // Without a DEFAULT, lanes matching no case skip the switch.
        self.work.masks[base] = if values.iter().any(Option::is_none) { 0 } else { default };
        self.work.breaks.push(0);
    }
}
