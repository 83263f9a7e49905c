//! A batch of lanes in flight: its slots, arrays, output table and lane
//! mask stacks, and its working memory, kept per thread between batches
//! and runs.

use std::cell::RefCell;
use std::mem::ManuallyDrop;
use std::sync::Mutex;

use tgsi::{OperandType, Processor};

use super::columns::Beside;
use super::env::Env;
use super::mask::{full, Lanes};
use super::output_table::OutputTable;
use super::{Code, RunFills};
use crate::error::ExecError;
use crate::geometry::Emitter;
use crate::kernel::MAX_ARGS;
use crate::memory::Memory;
use crate::program::{Arg, Fill, Program, MAX_WIDTH};

/// A batch's working memory, kept per thread between batches and runs so
/// that a run allocates (and clears) nothing it used before; boxed, so
/// that a batch takes it from its thread and gives it back by moving one
/// pointer.
#[derive(Default)]
pub(super) struct Work {
    pub(super) slots: Vec<u32>,
    /// Lanes waiting for a construct's other arm or case (see
    /// [`Control`](crate::program::Control)).
    pub(super) masks: Vec<u64>,
    pub(super) breaks: Vec<u64>,
    pub(super) continues: Vec<u64>,
    /// Phi copies' sources, read before any is written.
    pub(super) copies: Vec<u32>,
    /// Batch loops' operands with modifiers applied (`MAX_ARGS` columns).
    pub(super) modified: Vec<u32>,
    /// Batch loops' results, before the masked write.
    pub(super) out: Vec<u32>,
    /// Texture results, a texel per lane.
    pub(super) texels: Vec<[u32; 4]>,
    /// The operands of a 64-bit operation as whole values
    /// (`MAX_ARGS` columns), and its results.
    pub(super) joined: Vec<u64>,
    pub(super) joined_out: Vec<u64>,
    /// The outputs of a batch of fewer lanes than compiled code writes.
    #[cfg_attr(not(feature = "jit"), allow(dead_code))]
    pub(super) output_block: Vec<[u32; 4]>,
}

impl Work {
    /// Readies the memory for a run of `w` lanes: the `cleared` slots
    /// zeroed, no construct open.
    fn start(&mut self, cleared: &[u32], w: usize) {
        for &slot in cleared {
            if let Some(lanes) = self.slots.get_mut(slot as usize * w..(slot as usize + 1) * w) {
                lanes.fill(0);
            }
        }
        self.masks.clear();
        self.breaks.clear();
        self.continues.clear();
    }
}

/// Makes `v` at least `len` long.
fn grow<T: Clone + Default>(v: &mut Vec<T>, len: usize) {
    if v.len() < len {
        v.resize(len, T::default());
    }
}

thread_local! {
    static WORK: RefCell<Option<Box<Work>>> = const { RefCell::new(None) };
}

impl Drop for Batch<'_> {
    fn drop(&mut self) {
        // SAFETY: `work` is taken once, here, and never used after.
        let work = unsafe { ManuallyDrop::take(&mut self.work) };
        WORK.with(|w| *w.borrow_mut() = Some(work));
    }
}

/// One batch of lanes in flight.
pub(super) struct Batch<'a> {
    pub(super) program: &'a Program,
    /// The program compiled whole, run in place of the control walker.
    #[cfg_attr(not(feature = "jit"), allow(dead_code))]
    pub(super) code: Code<'a>,
    pub(super) env: &'a Env<'a>,
    pub(super) first: u32,
    pub(super) w: usize,
    /// Every lane of the batch, as a mask.
    pub(super) all: u64,
    /// Whether blocks run in their AVX2 build.
    pub(super) avx2: bool,
    /// The working memory: slots, mask stacks, the batch loops' columns.
    pub(super) work: ManuallyDrop<Box<Work>>,
    pub(super) arrays: Vec<Vec<[u32; 4]>>,
    pub(super) outputs: OutputTable<'a>,
    pub(super) killed: u64,
    /// What a geometry shader emits (other stages have none).
    pub(super) emitted: Option<Emitter<'a>>,
    pub(super) steps: u64,
    pub(super) budget: u64,
    /// The run's buffers, images and shared memory (none when no step
    /// touches memory and the state has none).
    pub(super) memory: Option<&'a Mutex<Memory>>,
    /// The error of a step compiled code had the interpreter run.
    #[cfg_attr(not(feature = "jit"), allow(dead_code))]
    pub(super) compiled_error: Option<ExecError>,
}

impl<'a> Batch<'a> {
    pub(super) fn new(
        (program, code): (&'a Program, Code<'a>),
        env: &'a Env<'a>,
        first: u32,
        w: usize,
        budget: u64,
        outputs: OutputTable<'a>,
        memory: Option<&'a Mutex<Memory>>,
    ) -> Self {
        let mut work = WORK.with(|w| w.borrow_mut().take()).unwrap_or_default();
        // Slots are not cleared: every lane writes a value before it reads
        // it. Only derivatives read other lanes of a quad, which may not
        // have written the value, and those read zero, as at the start.
        // Grown, never shrunk: a run of fewer lanes reuses the front.
        grow(&mut work.slots, program.slots * w);
        // An ALU step computes up to `MAX_WIDTH` slots at once.
        grow(&mut work.modified, MAX_ARGS * MAX_WIDTH as usize * w);
        grow(&mut work.out, MAX_WIDTH as usize * w);
        grow(&mut work.texels, w);
        grow(&mut work.joined, MAX_ARGS * w);
        grow(&mut work.joined_out, w);
        work.start(&program.cleared, w);
        Batch {
            program,
            code,
            env,
            first,
            w,
            all: full(w),
            avx2: has_avx2(),
            work: ManuallyDrop::new(work),
            arrays: program.arrays.iter().map(|&len| vec![[0; 4]; len as usize * w]).collect(),
            outputs,
            killed: 0,
            emitted: (program.processor == Processor::Geometry).then(|| Emitter::new(&program.geometry, w)),
            steps: 0,
            budget,
            memory,
            compiled_error: None,
        }
    }

    /// Makes this batch the one of the lanes from `first` on, writing
    /// `outputs`: what [`Batch::new`] makes of the run's next batch, with
    /// no working memory taken or given back.
    pub(super) fn reset(&mut self, first: u32, outputs: OutputTable<'a>) {
        let (program, w) = (self.program, self.w);
        self.first = first;
        self.outputs = outputs;
        self.killed = 0;
        self.steps = 0;
        self.compiled_error = None;
        self.emitted = (program.processor == Processor::Geometry).then(|| Emitter::new(&program.geometry, w));
        self.arrays.iter_mut().for_each(|a| a.fill([0; 4]));
        self.work.start(&program.cleared, w);
    }

    /// Runs the program for the lanes of `active`: its compiled function
    /// when it was compiled whole, else its control list.
    /// The code loads its fills from `fills`; the control list runs on
    /// the fills of the batch's own slots.
    pub(super) fn run_program(&mut self, active: u64, fills: Option<&RunFills<'_>>) -> Result<(), ExecError> {
        #[cfg(feature = "jit")]
        if let (Some(code), Some(fills)) = (self.code.map(|c| c.whole()), fills) {
            return self.run_compiled(code, fills, active);
        }
        #[cfg(not(feature = "jit"))]
        let _ = fills;
        self.fill_invariants();
        self.run(active)
    }

    /// Sets the values that do not depend on a lane's path, in every lane.
    pub(super) fn fill_invariants(&mut self) {
        let w = self.w;
        for &(slot, fill) in &self.program.fills {
            let column = &mut self.work.slots[slot as usize * w..(slot as usize + 1) * w];
            match fill {
                Fill::Bits(bits) => column.fill(bits),
                Fill::Constant { k } => column.fill(self.env.constants[k as usize]),
                Fill::Input { vertex, index, chan } => {
                    self.env.state.input_column(vertex, index, chan, self.first, column);
                }
                Fill::SystemValue { name, chan } => {
                    for (l, v) in column.iter_mut().enumerate() {
                        *v = self.env.system_value(name, self.first + l as u32)[chan as usize & 3];
                    }
                }
            }
        }
    }

    /// The lanes of `width` slots from `dst` on, to write, beside a reader
    /// of every other slot.
    #[inline]
    pub(super) fn write_beside(&mut self, dst: u32, width: u32) -> (&mut [u32], Beside<'_>) {
        let (w, d, width) = (self.w, dst as usize, width as usize);
        let (below, rest) = self.work.slots.split_at_mut(d * w);
        let (out, above) = rest.split_at_mut(width * w);
        (out, Beside { below, above, dst: d, width, w })
    }

    #[inline]
    pub(super) fn get(&self, slot: u32, lane: usize) -> u32 {
        self.work.slots[slot as usize * self.w + lane]
    }

    #[inline]
    pub(super) fn set(&mut self, slot: u32, lane: usize, v: u32) {
        self.work.slots[slot as usize * self.w + lane] = v;
    }

    #[inline]
    pub(super) fn lanes(&self, mask: u64) -> Lanes {
        Lanes(mask & self.all)
    }

    #[inline]
    pub(super) fn count(&mut self, n: u64) -> Result<(), ExecError> {
        self.steps += n;
        if self.steps > self.budget {
            return Err(ExecError::StepBudget(self.budget));
        }
        Ok(())
    }

    /// Operand `a` of `lane` read as `ty`, with its modifiers; both halves
    /// of a 64-bit value.
    #[inline]
    pub(super) fn operand(&self, a: &Arg, ty: OperandType, lane: usize) -> u64 {
        a.lane_value(&self.work.slots, self.w, ty, lane)
    }

    /// Copies the OUT registers kept in arrays into the output table, for
    /// the lanes of `active`, so that results and `EMIT` see them.
    pub(super) fn sync_output_arrays(&mut self, active: u64) {
        for &(array, first, len) in &self.program.geometry.output_arrays {
            let Some(values) = self.arrays.get(array as usize) else { continue };
            for i in 0..len {
                for l in (0..self.w).filter(|l| active & (1 << l) != 0) {
                    let v = values.get(i as usize * self.w + l).copied().unwrap_or_default();
                    for (c, &bits) in v.iter().enumerate() {
                        self.outputs.set(first + i, c as u8, l, bits);
                    }
                }
            }
        }
    }
}

/// Whether the processor has AVX2 (the answer is cached by the standard
/// library).
fn has_avx2() -> bool {
    #[cfg(target_arch = "x86_64")]
    return std::arch::is_x86_feature_detected!("avx2");
    #[cfg(not(target_arch = "x86_64"))]
    false
}
