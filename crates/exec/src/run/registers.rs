//! The steps that read or write register files beside the slots: indirect
//! loads (inputs, constants, system values, outputs, immediates), the
//! arrays of indexed temporaries and outputs, and stores to OUT registers.
//! Each is inlined into both builds of the hot loop ([`super::block`]).

use tgsi::File;

use super::batch::Batch;
use crate::error::ExecError;

impl Batch<'_> {
    /// Channel `chan` of register `offset` of `array` into `dst`, every
    /// lane active and no index: one column copy.
    #[inline(always)]
    pub(super) fn array_load_every_lane(&mut self, dst: u32, array: u32, offset: i32, chan: u8) {
        let (w, c, i) = (self.w, chan as usize & 3, offset as usize);
        let registers = self.arrays[array as usize].get(i * w..(i + 1) * w).filter(|_| offset >= 0);
        let column = &mut self.work.slots[dst as usize * w..(dst as usize + 1) * w];
        match registers {
            Some(registers) => column.iter_mut().zip(registers).for_each(|(v, r)| *v = r[c]),
            None => column.fill(0),
        }
    }

    /// Slot `value` into channel `chan` of register `offset` of `array`,
    /// every lane active and no index: one column copy.
    #[inline(always)]
    pub(super) fn array_store_every_lane(&mut self, array: u32, offset: i32, value: u32, chan: u8) {
        let (w, c, i) = (self.w, chan as usize & 3, offset as usize);
        let values = &self.work.slots[value as usize * w..(value as usize + 1) * w];
        let registers = self.arrays[array as usize].get_mut(i * w..(i + 1) * w);
        if let Some(registers) = registers.filter(|_| offset >= 0) {
            registers.iter_mut().zip(values).for_each(|(r, &v)| r[c] = v);
        }
    }

    /// Channel `chan` of register `base` (plus the value of slot `index`)
    /// of `file`, in 2-D index `dim` when there is one, into `dst`, lane by
    /// lane; zero at a negative index.
    #[inline(always)]
    pub(super) fn load_indirect(
        &mut self,
        dst: u32,
        file: File,
        (base, index): (i32, Option<u32>),
        dim: Option<(i32, Option<u32>)>,
        chan: u8,
        active: u64,
    ) -> Result<(), ExecError> {
        // The constant last read: lanes mostly read the same one, and the
        // state keeps constants in a map.
        let mut last: Option<((u32, u32), [u32; 4])> = None;
        for l in self.lanes(active) {
            let i = base.wrapping_add(index.map_or(0, |s| self.get(s, l) as i32));
            let d = dim.map(|(b, s)| b.wrapping_add(s.map_or(0, |s| self.get(s, l) as i32)));
            let v = match file {
                File::Constant if i >= 0 && d.is_none_or(|d| d >= 0) => {
                    let key = (d.unwrap_or(0) as u32, i as u32);
                    let v = match last {
                        Some((k, v)) if k == key => v,
                        _ => self.env.state.constant(key.0, key.1),
                    };
                    last = Some((key, v));
                    v[chan as usize & 3]
                }
                _ => self.indirect_value(file, i, d, chan, l)?,
            };
            self.set(dst, l, v);
        }
        Ok(())
    }

    /// Channel `chan` of register `i` of `file` (in 2-D index `d` when
    /// there is one) for lane `l`: zero at a negative index. What an
    /// indirect load reads, for the interpreter and compiled code alike.
    #[inline(always)]
    pub(crate) fn indirect_value(
        &self,
        file: File,
        i: i32,
        d: Option<i32>,
        chan: u8,
        l: usize,
    ) -> Result<u32, ExecError> {
        if i < 0 || d.is_some_and(|d| d < 0) {
            return Ok(0);
        }
        let (i, c, lane) = (i as u32, chan as usize & 3, self.first + l as u32);
        Ok(match file {
            File::Input => match d {
                Some(v) => self.env.state.vertex_input(v as u32, i, lane)[c],
                None => self.env.state.input(i, lane)[c],
            },
            File::Constant => self.env.state.constant(d.unwrap_or(0) as u32, i)[c],
            File::SystemValue => {
                self.env.system_value(self.program.sv_names.get(i as usize).copied().flatten(), lane)[c]
            }
            File::Output => self.outputs.get(i, chan, l),
            File::Immediate => self.program.immediates.get(i as usize).map_or(0, |imm| imm[c]),
            _ => return Err(ExecError::Unsupported(format!("indirect {file:?} load"))),
        })
    }

    /// Channel `chan` of register `offset` (plus the value of slot
    /// `index`) of `array` into `dst`, lane by lane; zero outside the
    /// array.
    #[inline(always)]
    pub(super) fn array_load(
        &mut self,
        dst: u32,
        array: u32,
        (offset, index): (i32, Option<u32>),
        chan: u8,
        active: u64,
    ) {
        let len = self.program.arrays[array as usize] as i64;
        for l in self.lanes(active) {
            let i = offset as i64 + index.map_or(0, |s| self.get(s, l) as i32 as i64);
            let v = if (0..len).contains(&i) {
                self.arrays[array as usize][i as usize * self.w + l][chan as usize & 3]
            } else {
                0
            };
            self.set(dst, l, v);
        }
    }

    /// Slot `value` into channel `chan` of register `offset` (plus the
    /// value of slot `index`) of `array`, lane by lane; nothing outside
    /// the array.
    #[inline(always)]
    pub(super) fn array_store(
        &mut self,
        array: u32,
        (offset, index): (i32, Option<u32>),
        value: u32,
        chan: u8,
        active: u64,
    ) {
        let len = self.program.arrays[array as usize] as i64;
        for l in self.lanes(active) {
            let i = offset as i64 + index.map_or(0, |s| self.get(s, l) as i32 as i64);
            if (0..len).contains(&i) {
                let v = self.get(value, l);
                self.arrays[array as usize][i as usize * self.w + l][chan as usize & 3] = v;
            }
        }
    }

    /// Slot `value` into channel `chan` of OUT register `index`, whose
    /// place among the declared ones is `declared`.
    #[inline(always)]
    pub(super) fn store_output(&mut self, index: u32, chan: u8, value: u32, declared: Option<u32>, active: u64) {
        let column = &self.work.slots[value as usize * self.w..(value as usize + 1) * self.w];
        match declared {
            // A declared register: straight into the run's outputs.
            Some(r) => {
                let (regs, c, r) = (self.outputs.registers.len(), chan as usize & 3, r as usize);
                // A lane's registers, then the register among them.
                let lanes = self.outputs.values.chunks_exact_mut(regs).map(|lane| &mut lane[r]).zip(column);
                if active == self.all {
                    lanes.for_each(|(out, &v)| out[c] = v);
                } else {
                    for (l, (out, &v)) in lanes.enumerate() {
                        if active & (1 << l) != 0 {
                            out[c] = v;
                        }
                    }
                }
            }
            None => {
                for l in (0..self.w).filter(|l| active & (1 << l) != 0) {
                    self.outputs.set(index, chan, l, column[l]);
                }
            }
        }
    }
}
