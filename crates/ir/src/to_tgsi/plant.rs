//! Bugs planted in an emission on purpose: the tests of the checker
//! (`check`) show it catches each.

use super::*;

/// What to break.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Plant {
    /// The locations of two values, swapped once every value has one.
    pub swap: Option<(Value, Value)>,
    /// A `MOV` of other bits into the TEMP channel the instruction of
    /// this index reads (its first TEMP source, at position x), written
    /// just before it.
    pub clobber: Option<usize>,
    /// The first phi copy to write is left out.
    pub drop_phi_copy: bool,
}

impl Emitter<'_> {
    /// The planted `MOV` to write before `next`, the instruction about to
    /// be written, once.
    pub(super) fn planted_clobber(&mut self, next: &tgsi::Instruction) -> Option<tgsi::Instruction> {
        if self.plant.clobber != Some(self.out.len()) {
            return None;
        }
        let src = next.src.iter().find(|s| s.reg.file == File::Temporary && s.reg.indirect.is_none())?;
        let chan = RegChannel { file: File::Temporary, index: src.reg.index as u32, chan: src.swizzle[0] };
        self.plant.clobber = None;
        let (k, swizzle) = self.imms.find_or_add(&[(0, 0x7ec0_ffee)]);
        let mut inst = tgsi::Instruction::new(Opcode::Mov);
        let dst = tgsi::Register::new(chan.file, chan.index as i32);
        inst.dst.push(tgsi::DstOperand { reg: dst, write_mask: 1 << chan.chan });
        inst.src.push(operands::reg_src(RegChannel { file: File::Immediate, index: k, chan: swizzle[0] }));
        Some(inst)
    }

    /// Leaves the first of `pending` phi copies out, once.
    pub(super) fn planted_drop<T>(&mut self, mut pending: Vec<T>) -> Vec<T> {
        if self.plant.drop_phi_copy && !pending.is_empty() {
            pending.remove(0);
            self.plant.drop_phi_copy = false;
        }
        pending
    }

    /// Swaps the locations the plant names.
    pub(super) fn planted_swap(&mut self) {
        let Some((a, b)) = self.plant.swap else { return };
        let (Some(&la), Some(&lb)) = (self.alloc.loc.get(&a), self.alloc.loc.get(&b)) else { return };
        self.alloc.loc.insert(a, lb);
        self.alloc.loc.insert(b, la);
    }
}
