//! The interpreter's hot loop: a block's steps run one after the other for
//! the active lanes, each by the function for its kind of step
//! ([`super::compute`], [`super::registers`], [`super::effects`]). The
//! loop is built twice, once for any processor and once for AVX2, and
//! every step function is inlined into both builds so that its batch loops
//! use the wider vectors where the processor has them.

use ir::function::Block;

use super::batch::Batch;
use crate::error::ExecError;
use crate::program::Step;

impl<'a> Batch<'a> {
    /// Runs the steps of block `b` for the lanes of `active`.
    pub(super) fn block(&mut self, b: Block, active: u64) -> Result<(), ExecError> {
        let steps = self.program.block(b);
        // Every step counts against the budget, those computed once a
        // run (`Program::uniform`) too.
        self.count(self.program.counted(b))?;
        #[cfg(target_arch = "x86_64")]
        if self.avx2 {
            // SAFETY: the processor has AVX2 (checked when the batch started).
            return unsafe { self.block_avx2(steps, active) };
        }
        self.block_any(steps, active)
    }

    /// [`Batch::block`] built for AVX2: the batch loops (kernels, copies,
    /// modifiers, coordinates) do twice the lanes per instruction.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    fn block_avx2(&mut self, steps: &'a [Step], active: u64) -> Result<(), ExecError> {
        self.block_any(steps, active)
    }

    #[inline(always)]
    fn block_any(&mut self, steps: &'a [Step], active: u64) -> Result<(), ExecError> {
        for step in steps {
            self.step(step, active)?;
        }
        Ok(())
    }

    /// One step by its kind. The guards pick the faster form of a step
    /// when every lane is active; the order of the arms matters.
    #[inline(always)]
    pub(super) fn step(&mut self, step: &'a Step, active: u64) -> Result<(), ExecError> {
        match step {
            Step::Alu { dst, args, src_tys, sat, kernel, wide: true, wide_dst, .. } => {
                self.alu_wide(*dst, (args, src_tys), *sat, kernel, *wide_dst, active)?;
            }
            Step::Alu { dst, width, broadcast, args, kernel, plain: true, .. } if active == self.all => {
                self.alu_in_place((*dst, *width, *broadcast), args, *kernel);
            }
            Step::Alu { dst, width, broadcast, args, src_tys, sat, kernel, .. } => {
                self.alu_masked((*dst, *width, *broadcast), (args, src_tys), *sat, *kernel, active);
            }
            Step::Deriv { dst, arg, kind, sat } => self.deriv(*dst, arg, *kind, *sat, active),
            Step::Move { dst, src } => self.move_slot(*dst, *src, active),
            Step::ArrayLoad { dst, array, offset, index: None, chan } if active == self.all => {
                self.array_load_every_lane(*dst, *array, *offset, *chan);
            }
            Step::ArrayStore { array, offset, index: None, value, chan } if active == self.all => {
                self.array_store_every_lane(*array, *offset, *value, *chan);
            }
            Step::LoadIndirect { dst, file, base, index, dim, chan } => {
                self.load_indirect(*dst, *file, (*base, *index), *dim, *chan, active)?;
            }
            Step::ArrayLoad { dst, array, offset, index, chan } => {
                self.array_load(*dst, *array, (*offset, *index), *chan, active);
            }
            Step::ArrayStore { array, offset, index, value, chan } => {
                self.array_store(*array, (*offset, *index), *value, *chan, active);
            }
            Step::StoreOutput { index, chan, value, declared } => {
                self.store_output(*index, *chan, *value, *declared, active);
            }
            Step::Texture { op, unit, coords, swizzle, dsts, sat } => {
                self.texture((*op, *unit), coords, swizzle, dsts, *sat, active);
            }
            Step::Kill => self.killed |= active,
            Step::Memory(access) => self.memory_access(access, active)?,
            Step::Emit { stream } => self.emit(*stream, active),
            Step::EndPrimitive { stream } => self.end_primitive(*stream, active),
            Step::KillIf { args } => self.kill_if(args, active),
            Step::Copies(pairs) => self.copies(pairs, active),
        }
        Ok(())
    }
}
