//! The steps whose effects reach beyond the batch's slots: conditional
//! kills, memory accesses (see [`crate::memory`]) and a geometry shader's
//! vertices and primitive ends. Each is inlined into both builds of the
//! hot loop ([`super::block`]).

use tgsi::OperandType;

use super::batch::Batch;
use crate::error::ExecError;
use crate::memory;
use crate::program::memory::Access;
use crate::program::Arg;

impl Batch<'_> {
    /// `KILL_IF`: kills the lanes where an operand of `args` is negative.
    #[inline(always)]
    pub(super) fn kill_if(&mut self, args: &[Arg], active: u64) {
        for l in self.lanes(active) {
            if args.iter().any(|a| f32::from_bits(self.operand(a, OperandType::Float, l) as u32) < 0.0) {
                self.killed |= 1 << l;
            }
        }
    }

    /// A load, store, atomic or query of memory for the lanes of `active`.
    #[inline(always)]
    pub(super) fn memory_access(&mut self, access: &Access, active: u64) -> Result<(), ExecError> {
        let memory = self.memory.ok_or_else(|| ExecError::Malformed("a memory step in a run with no memory".into()))?;
        let (w, first, killed) = (self.w, self.first, self.killed);
        let mut lanes = memory::Lanes { slots: &mut self.work.slots, w, first, active, killed };
        memory::execute(access, &mut lanes, memory);
        Ok(())
    }

    /// `EMIT`: a vertex of each lane of `active`, on the stream in slot
    /// `stream` (0 without one).
    #[inline(always)]
    pub(super) fn emit(&mut self, stream: Option<u32>, active: u64) {
        self.sync_output_arrays(active);
        for l in self.lanes(active) {
            let stream = stream.map_or(0, |s| self.get(s, l));
            let outputs = &self.outputs;
            if let Some(emitted) = &mut self.emitted {
                emitted.emit(l, stream, |r| [0, 1, 2, 3].map(|c| outputs.get(r, c, l)));
            }
        }
    }

    /// `ENDPRIM`: a primitive of each lane of `active` ends on the stream
    /// in slot `stream` (0 without one).
    #[inline(always)]
    pub(super) fn end_primitive(&mut self, stream: Option<u32>, active: u64) {
        for l in self.lanes(active) {
            let stream = stream.map_or(0, |s| self.get(s, l));
            if let Some(emitted) = &mut self.emitted {
                emitted.end_primitive(l, stream);
            }
        }
    }
}
