//! Constant indices: indirect loads of `IN`, `CONST` and `IMM` with
//! constant indices made direct, and array loads and stores with a
//! constant index given it as their offset (or folded to 0, or removed,
//! out of the array), as the backend indexes.

use ir::{Inst, Op, Source};
use tgsi::File;

use super::known::index_of;
use super::values::{Action, Counter, Ctx};
use crate::rewrite::get_mut;

impl Ctx<'_> {
    /// The constant index parts of a `LoadIndirect`: `None` when a part is
    /// not constant; the index and 2-D index as the backend adds them.
    pub(super) fn load_indirect(self, inst: Inst) -> Action {
        let Some(data) = self.func.insts.get(inst) else { return Action::Keep };
        let Op::LoadIndirect { reg, chan } = &data.op else { return Action::Keep };
        let (reg, chan) = (*reg, *chan);
        let mut k = 0;
        let mut part = |indirect: bool| -> Option<i32> {
            if !indirect {
                return Some(0);
            }
            let a = data.args.get(k)?;
            k += 1;
            index_of(self.func, self.immediates, a.value).map(|bits| bits as u32 as i32)
        };
        let Some(index) = part(reg.indirect.is_some()) else { return Action::Keep };
        let dim = match &reg.dimension {
            Some(d) => match part(d.indirect.is_some()) {
                Some(i) => Some(d.index.wrapping_add(i)),
                None => return Action::Keep,
            },
            None => None,
        };
        let i = reg.index.wrapping_add(index);
        if i < 0 || dim.is_some_and(|d| d < 0) {
            // The backend reads 0 at a negative index.
            return self.make_const(inst, 0, Counter::Indices);
        }
        let (i, dim) = (i as u32, dim.map(|d| d as u32));
        match reg.file {
            File::Immediate => {
                let bits = self.immediates.get(i as usize).map_or(0, |imm| imm.data[chan as usize & 3]);
                self.make_const(inst, bits as u64, Counter::Indices)
            }
            File::Input | File::Constant if self.declared(reg.file, i, dim) => {
                match get_mut(&mut self.func.insts, inst) {
                    Some(d) => {
                        d.op = Op::Read(Source { file: reg.file, dim, index: i, chan });
                        d.args.clear();
                        Action::Changed(Counter::Indices)
                    }
                    None => Action::Keep,
                }
            }
            // Outputs and system values have no direct read; undeclared
            // registers would not be declared in the emitted text.
            _ => Action::Keep,
        }
    }

    /// Whether `file[index]` (of buffer `dim` for constants) is declared.
    fn declared(&self, file: File, index: u32, dim: Option<u32>) -> bool {
        self.interface.iter().any(|item| match item {
            tgsi::Item::Declaration(d) => {
                d.file == file
                    && u32::from(d.first) <= index
                    && index <= u32::from(d.last)
                    && (file != File::Constant || u32::from(d.dimension.unwrap_or(0)) == dim.unwrap_or(0))
            }
            _ => false,
        })
    }

    pub(super) fn array_access(self, inst: Inst) -> Action {
        let Some(data) = self.func.insts.get(inst) else { return Action::Keep };
        let (array, offset, store) = match data.op {
            Op::ArrayLoad { array, offset, .. } => (array, offset, false),
            Op::ArrayStore { array, offset, .. } => (array, offset, true),
            _ => return Action::Keep,
        };
        // A load's index is its only operand; a store's comes before the value.
        let indexed = if store { data.args.len() == 2 } else { data.args.len() == 1 };
        if !indexed {
            return Action::Keep;
        }
        let Some(bits) = data.args.first().and_then(|a| index_of(self.func, self.immediates, a.value)) else {
            return Action::Keep;
        };
        let Some(len) = self.func.arrays.get(array).map(|a| i64::from(a.len)) else { return Action::Keep };
        // The element as the backend computes it.
        let i = i64::from(offset) + i64::from(bits as u32 as i32);
        let in_range = (0..len).contains(&i);
        if !in_range {
            // Out of the array the backend loads 0 and drops the store.
            return if store { Action::Remove(Counter::Indices) } else { self.make_const(inst, 0, Counter::Indices) };
        }
        let Ok(new_offset) = i32::try_from(i) else { return Action::Keep };
        match get_mut(&mut self.func.insts, inst) {
            Some(d) => {
                match &mut d.op {
                    Op::ArrayLoad { offset, .. } | Op::ArrayStore { offset, .. } => *offset = new_offset,
                    _ => return Action::Keep,
                }
                d.args.remove(0);
                Action::Changed(Counter::Indices)
            }
            None => Action::Keep,
        }
    }
}
