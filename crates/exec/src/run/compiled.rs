//! A batch running the program's compiled function (`jit::whole`): the
//! frame of pointers the code reads, and the helper through which it has
//! the interpreter run the steps it does not compile, one quad at a time.

use std::ffi::c_void;

use super::batch::Batch;
use super::ExecError;
use crate::program::Step;

/// What the compiled function reads of its batch (laid out for the code,
/// which loads the fields at their offsets).
#[repr(C)]
pub(crate) struct Frame {
    /// The batch's slots (slot-major, `jit::whole::LANES` lanes a slot).
    pub slots: *mut u32,
    /// The batch's declared OUT registers, lane-major.
    pub outputs: *mut [u32; 4],
    /// The batch itself, for [`step_quad`].
    pub batch: *mut c_void,
    /// Steps one quad may run.
    pub budget: u64,
}

/// [`step_quad`], as compiled code calls it.
pub(crate) const STEP_QUAD: unsafe extern "C" fn(*mut Frame, *const Step, u64) -> u32 = step_quad;

/// Runs `step` for the lanes of `lanes` (one quad's) by the interpreter's
/// step function; 0, or [`Status::Step`](crate::jit::Status) with the
/// error kept in the batch.
///
/// # Safety
/// `frame` is the frame [`Batch::run_compiled`] passed the code, and
/// `step` a step of the batch's program.
unsafe extern "C" fn step_quad(frame: *mut Frame, step: *const Step, lanes: u64) -> u32 {
    // SAFETY: as the caller promises; the batch is not otherwise borrowed
    // while its code runs (`run_compiled` holds it only through `frame`).
    let (batch, step) = unsafe { (&mut *((*frame).batch as *mut Batch<'_>), &*step) };
    match batch.step(step, lanes) {
        Ok(()) => 0,
        Err(e) => {
            batch.compiled_error = Some(e);
            crate::jit::Status::Step as u32
        }
    }
}

impl Batch<'_> {
    /// Runs the program's compiled function `code` for the lanes of
    /// `active`.
    pub(super) fn run_compiled(&mut self, code: crate::jit::ProgramFn, active: u64) -> Result<(), ExecError> {
        // The code's slots have the stride it was compiled for.
        if self.w != crate::jit::LANES || self.slots.len() < self.program.slots * self.w {
            return Err(ExecError::Malformed(format!("a batch of {} lanes for compiled code", self.w)));
        }
        // The code writes every lane of a quad whose lanes are all active
        // at the top level: into the batch's output table when it holds
        // all 64 lanes, else into a block as large, copied out after.
        let lanes = (active & self.all).count_ones() as usize;
        let registers = self.outputs.registers.len();
        let mut block = if lanes < crate::jit::LANES && crate::jit::native_outputs(self.program) {
            let mut block = vec![[0u32; 4]; crate::jit::LANES * registers];
            let held = self.outputs.values.len().min(block.len());
            block[..held].copy_from_slice(&self.outputs.values[..held]);
            Some(block)
        } else {
            None
        };
        let outputs = match &mut block {
            Some(block) => block.as_mut_ptr(),
            None => self.outputs.values.as_mut_ptr(),
        };
        let mut frame = Frame {
            slots: self.slots.as_mut_ptr(),
            outputs,
            batch: (self as *mut Batch<'_>).cast(),
            budget: self.budget,
        };
        // SAFETY: the code reads and writes the slots below the program's
        // count (checked when it was compiled) of this batch's width, the
        // outputs of the active lanes only (each batch's table holds its
        // lanes), and the batch only through `step_quad`.
        let status = unsafe { code(&mut frame, active & self.all) };
        if let Some(block) = block {
            let held = self.outputs.values.len().min(block.len());
            self.outputs.values[..held].copy_from_slice(&block[..held]);
        }
        match status {
            0 => Ok(()),
            s if s == crate::jit::Status::StepBudget as u32 => Err(ExecError::StepBudget(self.budget)),
            _ => Err(self.compiled_error.take().unwrap_or_else(|| ExecError::Jit("a compiled step failed".into()))),
        }
    }
}
