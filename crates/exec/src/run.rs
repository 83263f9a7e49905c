//! Running a module over many invocations at once.
//!
//! Invocations go in batches of up to 64 lanes; every value is a slot
//! holding one 32-bit word per lane (a 64-bit value two slots, see
//! `program::Slots`). Control flow keeps a mask of active
//! lanes: an `if` runs each arm for the lanes that take it, a loop runs
//! while any lane is left in it, a `switch` runs its cases in order for the
//! lanes that entered or fell through. Every write is masked, so a lane's
//! values stay as its own path left them. Phis are copies at the ends of
//! their predecessors, run under the predecessor's mask. The tree runs as
//! the flat control list it was compiled to, with the masks of the arms and
//! cases waiting their turn on a stack, so nesting depth costs no call
//! stack.

use std::cell::RefCell;
use std::marker::PhantomData;
use std::sync::Mutex;

use ir::function::Module;
use tgsi::{File, OperandType, Processor};

use rayon::prelude::*;

use crate::env::Env;
use crate::geometry::{Emitted, Emitter};
use crate::kernel::{Kernel, MAX_ARGS};
use crate::memory::{self, Memory};
use crate::program::{Arg, Control, Deriv, Fill, Program, Step, MAX_WIDTH};
use crate::sampler;
use crate::{Outputs, State};

/// How to run.
#[derive(Clone, Copy, Debug)]
pub struct RunOptions {
    /// Lanes per batch: a multiple of 4 (quads) from 4 to 64.
    pub lanes: usize,
    /// Steps one batch may execute before it is stopped as runaway.
    pub step_budget: u64,
    /// Threads running batches: 1 runs them in order on the calling
    /// thread, 0 uses rayon's global pool. Results do not depend on it: a
    /// program that writes memory runs its batches in order on one thread
    /// whatever this says (see [`crate::memory`]).
    pub threads: usize,
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions { lanes: 64, step_budget: 50_000_000, threads: 1 }
    }
}

/// Why a run failed.
#[derive(Debug, thiserror::Error)]
pub enum ExecError {
    /// An operation the backend does not execute yet.
    #[error("`{0}` is not executed yet")]
    Unsupported(String),
    /// An ALU opcode the scalar semantics do not cover for these operands.
    #[error("`{opcode}` (channel {chan}, {args} operands) is not executed yet")]
    UnsupportedAlu {
        /// The opcode.
        opcode: &'static str,
        /// The channel or pair.
        chan: u8,
        /// The operand count.
        args: usize,
    },
    /// The step budget ran out: most likely an endless loop.
    #[error("stopped after {0} steps in one batch of lanes: the shader does not finish (an endless loop?)")]
    StepBudget(u64),
    /// A lane count that is not a multiple of 4 from 4 to 64.
    #[error("lanes per batch must be a multiple of 4 from 4 to 64, not {0}")]
    Lanes(usize),
    /// The thread pool could not be started.
    #[error("cannot start the thread pool: {0}")]
    Threads(String),
    /// IR the verifier would reject.
    #[error("malformed IR: {0}")]
    Malformed(String),
}

/// Runs `module` for every invocation of `state`.
///
/// ```
/// let text = "FRAG\nDCL IN[0]\nDCL OUT[0], COLOR\nADD OUT[0], IN[0], IN[0]\nEND\n";
/// let module = ir::from_tgsi(&tgsi::parse(text).unwrap()).unwrap();
/// let state = exec::State::parse("invocations 1\ninput 0 0 1 2 3 4\n").unwrap();
/// let out = exec::run(&module, &state, &exec::RunOptions::default()).unwrap();
/// assert_eq!(out.get(0, 0), Some([2.0f32.to_bits(), 4.0f32.to_bits(), 6.0f32.to_bits(), 8.0f32.to_bits()]));
/// ```
pub fn run(module: &Module, state: &State, options: &RunOptions) -> Result<Outputs, ExecError> {
    Executable::compile(module)?.run(state, options)
}

/// A module compiled for running, to run it on many states (or many
/// times) without compiling it again.
pub struct Executable<'m> {
    /// The program reads nothing of the module once compiled; the borrow
    /// stays part of the type all the same.
    module: PhantomData<&'m Module>,
    program: Program,
}

impl<'m> Executable<'m> {
    /// Compiles `module`; fails on an operation the backend does not
    /// execute yet.
    pub fn compile(module: &'m Module) -> Result<Self, ExecError> {
        Ok(Executable { module: PhantomData, program: Program::compile(module)? })
    }

    /// Runs every invocation of `state`.
    pub fn run(&self, state: &State, options: &RunOptions) -> Result<Outputs, ExecError> {
        let mut outputs = Outputs::new(0, []);
        self.run_into(state, options, &mut outputs)?;
        Ok(outputs)
    }

    /// Runs every invocation of `state` into `outputs`, whatever it held
    /// before: the same results as [`Executable::run`], in tables that keep
    /// their memory from run to run. After an error `outputs` holds
    /// nothing meaningful.
    ///
    /// ```
    /// let text = "VERT\nDCL IN[0]\nDCL OUT[0], POSITION\nMOV OUT[0], IN[0]\nEND\n";
    /// let module = ir::from_tgsi(&tgsi::parse(text).unwrap()).unwrap();
    /// let executable = exec::Executable::compile(&module).unwrap();
    /// let mut outputs = exec::Outputs::new(0, []);
    /// for x in ["1", "2"] {
    ///     let state = exec::State::parse(&format!("invocations 1\ninput 0 0 {x} 0 0 0\n")).unwrap();
    ///     executable.run_into(&state, &exec::RunOptions::default(), &mut outputs).unwrap();
    ///     assert_eq!(outputs, executable.run(&state, &exec::RunOptions::default()).unwrap());
    /// }
    /// ```
    pub fn run_into(&self, state: &State, options: &RunOptions, outputs: &mut Outputs) -> Result<(), ExecError> {
        run_program(&self.program, state, options, outputs)
    }
}

fn run_program(program: &Program, state: &State, options: &RunOptions, outputs: &mut Outputs) -> Result<(), ExecError> {
    let w = options.lanes;
    if w == 0 || w > 64 || !w.is_multiple_of(4) {
        return Err(ExecError::Lanes(w));
    }
    // No wider than the invocations need (in whole quads): batch loops run
    // over every lane of a batch.
    let n = state.invocations() as usize;
    let w = w.min(n.div_ceil(4) * 4).max(4);
    // Each batch runs `step` lanes: `w` but for barriers (whole work groups).
    let (w, step) = memory::batch_lanes(program, w, n)?;
    // A run with no memory steps and no buffers or images in its state
    // has no memory to lay out and copy back.
    let has_memory = program.memory.accesses || state.buffers().next().is_some() || state.images().next().is_some();
    let memory = has_memory.then(|| Mutex::new(Memory::new(program, state)));
    let env = Env::new(program, state);
    // Stores and atomics land in invocation order only if batches run in order.
    let threads = if program.memory.writes { 1 } else { options.threads };
    // 0 is rayon's global pool.
    let pool = match threads {
        0 | 1 => None,
        t => Some(
            rayon::ThreadPoolBuilder::new().num_threads(t).build().map_err(|e| ExecError::Threads(e.to_string()))?,
        ),
    };
    let declared = program.outputs.iter().copied();
    match threads {
        1 => outputs.reset(state.invocations(), declared, false),
        _ => on_pool(pool.as_ref(), || outputs.reset(state.invocations(), declared, true)),
    }
    let registers = program.outputs.len();
    let (values, killed) = outputs.lanes_mut();
    // Each batch writes its own lanes' outputs and kill flags in place, so
    // batches are independent and the thread count never changes results.
    let run_batch =
        |(first, (values, killed)): (usize, (&mut [[u32; 4]], &mut [bool]))| -> Result<Option<Emitted>, ExecError> {
            let table = OutputTable { values, registers: &program.outputs, extra: Vec::new() };
            let mut batch = Batch::new(program, &env, first as u32, w, options.step_budget, table, memory.as_ref());
            batch.fill_invariants();
            let count = step.min(n - first);
            let all = full(count);
            batch.run(all)?;
            batch.sync_output_arrays(all);
            if batch.killed != 0 {
                for (l, k) in killed.iter_mut().enumerate() {
                    *k = batch.killed & (1 << l) != 0;
                }
            }
            Ok(batch.emitted.take().map(Emitter::finish))
        };
    // With no OUT register every batch gets an empty slice.
    let value_chunks =
        values.chunks_mut((step * registers).max(1)).chain(std::iter::repeat_with(<&mut [[u32; 4]]>::default));
    let batches = (0..n).step_by(step).zip(value_chunks.zip(killed.chunks_mut(step)));
    // What each batch emitted, with its first lane.
    let emitted: Vec<(usize, Emitted)> = match threads {
        1 => {
            let mut emitted = Vec::new();
            for batch in batches {
                let first = batch.0;
                emitted.extend(run_batch(batch)?.map(|e| (first, e)));
            }
            emitted
        }
        _ => {
            let batches: Vec<_> = batches.collect();
            on_pool(pool.as_ref(), || {
                batches
                    .into_par_iter()
                    .map(|batch| Ok((batch.0, run_batch(batch)?)))
                    .filter_map(|r: Result<_, ExecError>| r.map(|(first, e)| e.map(|e| (first, e))).transpose())
                    .collect::<Result<Vec<_>, _>>()
            })?
        }
    };
    // Vertices are added in lane order once every batch is done.
    for (first, emitter) in emitted {
        emitter.add_to(outputs, first as u32);
    }
    if let Some(memory) = memory {
        memory.into_inner().unwrap_or_else(|e| e.into_inner()).finish(outputs);
    }
    Ok(())
}

/// Runs `f` on `pool`, or on rayon's global pool without one.
fn on_pool<R: Send>(pool: Option<&rayon::ThreadPool>, f: impl FnOnce() -> R + Send) -> R {
    match pool {
        Some(pool) => pool.install(f),
        None => f(),
    }
}

/// A float operand's absolute value and negate as sign-bit masks: the
/// bits to keep, then the bits to flip.
fn sign_masks(a: &Arg) -> (u32, u32) {
    (if a.abs { 0x7fff_ffff } else { 0xffff_ffff }, if a.neg { 0x8000_0000 } else { 0 })
}

/// `source` with `a`'s negate and absolute value applied, into `column`.
fn apply_modifiers(ty: OperandType, a: &Arg, column: &mut [u32], source: &[u32]) {
    match ty {
        // Sign-bit operations: one mask for the whole column.
        OperandType::Float | OperandType::Untyped => {
            let (clear, flip) = sign_masks(a);
            for (m, &v) in column.iter_mut().zip(source) {
                *m = (v & clear) ^ flip;
            }
        }
        _ => {
            for (m, &v) in column.iter_mut().zip(source) {
                *m = semantics::apply_modifiers(ty, v as u64, a.neg, a.abs) as u32;
            }
        }
    }
}

/// The lanes of each operand of `args` for a batch loop, into `columns`:
/// `lanes` lanes from the operand's slot on (slots of `w` lanes), or one
/// slot's for an operand in `broadcast`, read in place, or, for an
/// operand with modifiers, rewritten into column `i` of `modified`
/// (operand `i` read as `ty(i)`). Inlined, so that it is built into the
/// AVX2 build of a block.
#[inline(always)]
fn operand_columns<'c>(
    slots: &'c [u32],
    modified: &'c mut [u32],
    (w, lanes): (usize, usize),
    (args, broadcast): (&[Arg], u32),
    ty: impl Fn(usize) -> OperandType,
    columns: &mut [&'c [u32]],
) {
    let len = |i: usize| if broadcast & (1 << i) != 0 { w } else { lanes };
    for (i, a) in args.iter().enumerate().filter(|(_, a)| a.neg || a.abs) {
        let at = a.slot as usize * w;
        apply_modifiers(ty(i), a, &mut modified[i * lanes..i * lanes + len(i)], &slots[at..at + len(i)]);
    }
    let modified: &'c [u32] = modified;
    for ((i, a), column) in args.iter().enumerate().zip(columns) {
        let at = a.slot as usize * w;
        *column = if a.neg || a.abs { &modified[i * lanes..i * lanes + len(i)] } else { &slots[at..at + len(i)] };
    }
}

/// Runs `kernel` over `out`: at once, or, with operands in `broadcast`
/// (whose columns are one slot's `w` lanes), slot by slot, the other
/// operands' columns taken slot by slot too.
#[inline(always)]
fn run_kernel(kernel: Kernel, columns: &[&[u32]], broadcast: u32, w: usize, out: &mut [u32]) {
    if broadcast == 0 {
        return kernel.run(columns, out);
    }
    for (k, out) in out.chunks_exact_mut(w).enumerate() {
        let mut chunk: [&[u32]; MAX_ARGS] = [&[]; MAX_ARGS];
        for (i, (c, column)) in chunk.iter_mut().zip(columns).enumerate() {
            *c = if broadcast & (1 << i) != 0 { column } else { &column[k * w..(k + 1) * w] };
        }
        kernel.run(&chunk[..columns.len()], out);
    }
}

/// Every slot's lanes but those of the slots being written (SSA: an
/// operation never reads its own results).
struct Beside<'s> {
    below: &'s [u32],
    above: &'s [u32],
    /// The first slot written, and how many are.
    dst: usize,
    width: usize,
    w: usize,
}

impl Beside<'_> {
    /// The lanes of `n` slots from `slot` on; none when they reach a slot
    /// being written, which the program never reads there (compiling
    /// rejects an operation that reads its own result).
    fn columns(&self, slot: u32, n: usize) -> &[u32] {
        let (s, w) = (slot as usize, self.w);
        if s + n <= self.dst {
            &self.below[s * w..(s + n) * w]
        } else if s >= self.dst + self.width {
            let s = s - self.dst - self.width;
            &self.above[s * w..(s + n) * w]
        } else {
            &[]
        }
    }
}

/// `values` into the lanes that `active` has of each slot of `columns`
/// (consecutive slots of `w` lanes): one copy when every lane is active.
fn write_lanes(columns: &mut [u32], values: &[u32], active: u64, w: usize) {
    if active == full(w) {
        columns.copy_from_slice(values);
    } else {
        for (column, values) in columns.chunks_exact_mut(w).zip(values.chunks_exact(w)) {
            for l in Lanes(active) {
                column[l] = values[l];
            }
        }
    }
}

/// The lanes of a mask, lowest first.
struct Lanes(u64);

impl Iterator for Lanes {
    type Item = usize;

    fn next(&mut self) -> Option<usize> {
        if self.0 == 0 {
            return None;
        }
        let l = self.0.trailing_zeros() as usize;
        self.0 &= self.0 - 1;
        Some(l)
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

/// The mask of every lane of a batch of `w`.
fn full(w: usize) -> u64 {
    if w == 64 {
        u64::MAX
    } else {
        (1 << w) - 1
    }
}

/// The OUT registers of a batch's lanes: the declared ones in the run's
/// outputs (lane-major, `values[lane * registers.len() + slot]`), any
/// other index a store names in `extra`. Unwritten channels read zero.
struct OutputTable<'o> {
    values: &'o mut [[u32; 4]],
    registers: &'o [u32],
    /// Stores to undeclared registers, by (index, lane): rare, and kept
    /// sparse whatever the index (a vector: nothing to make or drop in the
    /// usual batch with none).
    extra: Vec<((u32, usize), [u32; 4])>,
}

impl OutputTable<'_> {
    fn get(&self, index: u32, chan: u8, lane: usize) -> u32 {
        let c = chan as usize & 3;
        match self.registers.binary_search(&index) {
            Ok(r) => self.values.get(lane * self.registers.len() + r).map_or(0, |o| o[c]),
            Err(_) => self.extra.iter().find(|e| e.0 == (index, lane)).map_or(0, |e| e.1[c]),
        }
    }

    fn set(&mut self, index: u32, chan: u8, lane: usize, v: u32) {
        let c = chan as usize & 3;
        match self.registers.binary_search(&index) {
            Ok(r) => {
                if let Some(o) = self.values.get_mut(lane * self.registers.len() + r) {
                    o[c] = v;
                }
            }
            Err(_) => match self.extra.iter_mut().find(|e| e.0 == (index, lane)) {
                Some(e) => e.1[c] = v,
                None => {
                    let mut value = [0; 4];
                    value[c] = v;
                    self.extra.push(((index, lane), value));
                }
            },
        }
    }
}

/// A batch's working memory, kept per thread between batches and runs so
/// that a run allocates (and clears) nothing it used before.
#[derive(Default)]
struct Scratch {
    slots: Vec<u32>,
    masks: Vec<u64>,
    breaks: Vec<u64>,
    continues: Vec<u64>,
    copies: Vec<u32>,
    modified: Vec<u32>,
    out: Vec<u32>,
    texels: Vec<[u32; 4]>,
    joined: Vec<u64>,
    joined_out: Vec<u64>,
}

/// Makes `v` at least `len` long.
fn grow<T: Clone + Default>(v: &mut Vec<T>, len: usize) {
    if v.len() < len {
        v.resize(len, T::default());
    }
}

thread_local! {
    static SCRATCH: RefCell<Scratch> = RefCell::default();
}

impl Drop for Batch<'_> {
    fn drop(&mut self) {
        let scratch = Scratch {
            slots: std::mem::take(&mut self.slots),
            masks: std::mem::take(&mut self.masks),
            breaks: std::mem::take(&mut self.breaks),
            continues: std::mem::take(&mut self.continues),
            copies: std::mem::take(&mut self.scratch),
            modified: std::mem::take(&mut self.modified),
            out: std::mem::take(&mut self.out),
            texels: std::mem::take(&mut self.texels),
            joined: std::mem::take(&mut self.joined),
            joined_out: std::mem::take(&mut self.joined_out),
        };
        SCRATCH.with(|s| *s.borrow_mut() = scratch);
    }
}

/// One batch of lanes in flight.
struct Batch<'a> {
    program: &'a Program,
    env: &'a Env<'a>,
    first: u32,
    w: usize,
    /// Every lane of the batch, as a mask.
    all: u64,
    /// Whether blocks run in their AVX2 build.
    avx2: bool,
    slots: Vec<u32>,
    arrays: Vec<Vec<[u32; 4]>>,
    outputs: OutputTable<'a>,
    killed: u64,
    /// What a geometry shader emits (other stages have none).
    emitted: Option<Emitter<'a>>,
    /// Lanes waiting for a construct's other arm or case (see
    /// [`Control`]).
    masks: Vec<u64>,
    breaks: Vec<u64>,
    continues: Vec<u64>,
    steps: u64,
    budget: u64,
    /// Phi copies' sources, read before any is written.
    scratch: Vec<u32>,
    /// Batch loops' operands with modifiers applied (`MAX_ARGS` columns).
    modified: Vec<u32>,
    /// Batch loops' results, before the masked write.
    out: Vec<u32>,
    /// Texture results, a texel per lane.
    texels: Vec<[u32; 4]>,
    /// The operands of a 64-bit operation as whole values
    /// (`MAX_ARGS` columns), and its results.
    joined: Vec<u64>,
    joined_out: Vec<u64>,
    /// The run's buffers, images and shared memory (none when no step
    /// touches memory and the state has none).
    memory: Option<&'a Mutex<Memory>>,
}

impl<'a> Batch<'a> {
    fn new(
        program: &'a Program,
        env: &'a Env<'a>,
        first: u32,
        w: usize,
        budget: u64,
        outputs: OutputTable<'a>,
        memory: Option<&'a Mutex<Memory>>,
    ) -> Self {
        let mut scratch = SCRATCH.with(|s| std::mem::take(&mut *s.borrow_mut()));
        // Slots are not cleared: every lane writes a value before it reads
        // it. Only derivatives read other lanes of a quad, which may not
        // have written the value, and those read zero, as at the start.
        // Grown, never shrunk: a run of fewer lanes reuses the front.
        grow(&mut scratch.slots, program.slots * w);
        for &slot in &program.cleared {
            scratch.slots[slot as usize * w..(slot as usize + 1) * w].fill(0);
        }
        // An ALU step computes up to `MAX_WIDTH` slots at once.
        grow(&mut scratch.modified, MAX_ARGS * MAX_WIDTH as usize * w);
        grow(&mut scratch.out, MAX_WIDTH as usize * w);
        grow(&mut scratch.texels, w);
        grow(&mut scratch.joined, MAX_ARGS * w);
        grow(&mut scratch.joined_out, w);
        scratch.masks.clear();
        scratch.breaks.clear();
        scratch.continues.clear();
        Batch {
            program,
            env,
            first,
            w,
            all: full(w),
            avx2: has_avx2(),
            slots: scratch.slots,
            arrays: program.arrays.iter().map(|&len| vec![[0; 4]; len as usize * w]).collect(),
            outputs,
            killed: 0,
            emitted: (program.processor == Processor::Geometry).then(|| Emitter::new(&program.geometry, w)),
            masks: scratch.masks,
            breaks: scratch.breaks,
            continues: scratch.continues,
            steps: 0,
            budget,
            scratch: scratch.copies,
            modified: scratch.modified,
            out: scratch.out,
            texels: scratch.texels,
            joined: scratch.joined,
            joined_out: scratch.joined_out,
            memory,
        }
    }

    /// Sets the values that do not depend on a lane's path, in every lane.
    fn fill_invariants(&mut self) {
        let w = self.w;
        for &(slot, fill) in &self.program.fills {
            let column = &mut self.slots[slot as usize * w..(slot as usize + 1) * w];
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
    fn write_beside(&mut self, dst: u32, width: u32) -> (&mut [u32], Beside<'_>) {
        let (w, d, width) = (self.w, dst as usize, width as usize);
        let (below, rest) = self.slots.split_at_mut(d * w);
        let (out, above) = rest.split_at_mut(width * w);
        (out, Beside { below, above, dst: d, width, w })
    }

    fn get(&self, slot: u32, lane: usize) -> u32 {
        self.slots[slot as usize * self.w + lane]
    }

    fn set(&mut self, slot: u32, lane: usize, v: u32) {
        self.slots[slot as usize * self.w + lane] = v;
    }

    fn lanes(&self, mask: u64) -> Lanes {
        Lanes(mask & self.all)
    }

    /// Runs the module's control flow for the lanes of `active`.
    fn run(&mut self, mut active: u64) -> Result<(), ExecError> {
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
                    self.block(program.block(*block), active)?;
                    active = match program.exit(*block) {
                        ir::Exit::Fallthrough => active,
                        ir::Exit::Break => {
                            if let Some(m) = self.breaks.last_mut() {
                                *m |= active;
                            }
                            0
                        }
                        ir::Exit::Continue => {
                            if let Some(m) = self.continues.last_mut() {
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
                    self.masks.push(active & !taken);
                    active &= taken;
                }
                Control::Else => {
                    let waiting = self.masks.pop().unwrap_or(0);
                    self.masks.push(active);
                    active = waiting;
                }
                Control::EndIf => active |= self.masks.pop().unwrap_or(0),
                Control::Loop { .. } => {
                    self.breaks.push(0);
                    self.continues.push(0);
                }
                Control::EndLoop { body } => {
                    let live = active | self.continues.pop().unwrap_or(0);
                    self.count(1)?;
                    if live != 0 {
                        self.continues.push(0);
                        active = live;
                        pc = *body;
                    } else {
                        active = self.breaks.pop().unwrap_or(0);
                    }
                }
                Control::Switch { selector, values, .. } => {
                    self.switch(*selector, values, active);
                    active = 0;
                }
                Control::Case => active |= self.masks.pop().unwrap_or(0),
                Control::EndSwitch => {
                    active |= self.masks.pop().unwrap_or(0) | self.breaks.pop().unwrap_or(0);
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
        let base = self.masks.len();
        self.masks.resize(base + 1 + n, 0);
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
            self.masks[base + n - k] = entry;
        }
        let default = active & !matched;
        for (k, value) in values.iter().enumerate() {
            if value.is_none() {
                self.masks[base + n - k] = default;
            }
        }
        // Without a DEFAULT, lanes matching no case skip the switch.
        self.masks[base] = if values.iter().any(Option::is_none) { 0 } else { default };
        self.breaks.push(0);
    }

    fn count(&mut self, n: u64) -> Result<(), ExecError> {
        self.steps += n;
        if self.steps > self.budget {
            return Err(ExecError::StepBudget(self.budget));
        }
        Ok(())
    }

    /// Operand `a` of `lane` read as `ty`, with its modifiers; both halves
    /// of a 64-bit value.
    fn operand(&self, a: &Arg, ty: OperandType, lane: usize) -> u64 {
        a.lane_value(&self.slots, self.w, ty, lane)
    }

    /// Runs the steps of a block for the lanes of `active`.
    fn block(&mut self, steps: &'a [Step], active: u64) -> Result<(), ExecError> {
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
        self.count(steps.len() as u64)?;
        for step in steps {
            match step {
                Step::Alu { dst, args, src_tys, sat, kernel, wide: true, wide_dst, .. } => {
                    // Lane by lane on whole 64-bit values: only the double
                    // and 64-bit integer operations, which have no batch loop.
                    let Kernel::Eval { opcode, chan, family } = kernel else {
                        return Err(ExecError::Malformed("a 64-bit operation with a 32-bit loop".into()));
                    };
                    let (w, n) = (self.w, args.len().min(MAX_ARGS));
                    let (slots, joined, out) = (&mut self.slots, &mut self.joined, &mut self.joined_out);
                    // Each operand as one column of whole values, modifiers applied.
                    for ((a, ty), column) in args[..n].iter().zip(src_tys).zip(joined.chunks_exact_mut(w)) {
                        let at = a.slot as usize * w;
                        let lo = &slots[at..at + w];
                        if a.wide {
                            let hi = &slots[at + w..at + 2 * w];
                            for ((c, &lo), &hi) in column.iter_mut().zip(lo).zip(hi) {
                                *c = lo as u64 | (hi as u64) << 32;
                            }
                        } else {
                            column.iter_mut().zip(lo).for_each(|(c, &lo)| *c = lo as u64);
                        }
                        if a.neg || a.abs {
                            column.iter_mut().for_each(|c| *c = semantics::apply_modifiers(*ty, *c, a.neg, a.abs));
                        }
                    }
                    let mut values = [0u64; MAX_ARGS];
                    for (l, r) in out[..w].iter_mut().enumerate() {
                        for (v, column) in values[..n].iter_mut().zip(joined.chunks_exact(w)) {
                            *v = column[l];
                        }
                        *r = family.eval(*opcode, *chan, &values[..n]).unwrap_or(0);
                    }
                    if let Some(ty) = sat {
                        out[..w].iter_mut().for_each(|r| *r = semantics::saturate(*ty, *r));
                    }
                    let at = *dst as usize * w;
                    for l in Lanes(active & self.all) {
                        slots[at + l] = out[l] as u32;
                        if *wide_dst {
                            slots[at + w + l] = (out[l] >> 32) as u32;
                        }
                    }
                }
                Step::Alu { dst, width, broadcast, args, kernel, plain: true, .. } if active == self.all => {
                    // Every lane straight into the result slots.
                    let w = self.w;
                    let (out, other) = self.write_beside(*dst, *width);
                    let mut columns: [&[u32]; MAX_ARGS] = [&[]; MAX_ARGS];
                    for (i, (a, column)) in args.iter().zip(&mut columns).enumerate() {
                        let n = if broadcast & (1 << i) != 0 { 1 } else { *width as usize };
                        *column = other.columns(a.slot, n);
                    }
                    run_kernel(*kernel, &columns[..args.len().min(MAX_ARGS)], *broadcast, w, out);
                }
                Step::Alu { dst, width, broadcast, args, src_tys, sat, kernel, .. } => {
                    let (w, lanes) = (self.w, *width as usize * self.w);
                    // Operands with modifiers are rewritten into a scratch
                    // column; the others are read in place. Every lane is
                    // computed (the operations are pure), then the active
                    // ones written.
                    let (slots, out) = (&mut self.slots, &mut self.out);
                    {
                        let mut columns: [&[u32]; MAX_ARGS] = [&[]; MAX_ARGS];
                        let n = args.len().min(MAX_ARGS);
                        let modified = &mut self.modified;
                        let operands = (&args[..n], *broadcast);
                        operand_columns(slots, modified, (w, lanes), operands, |i| src_tys[i], &mut columns);
                        run_kernel(*kernel, &columns[..n], *broadcast, w, &mut out[..lanes]);
                    }
                    if let Some(ty) = sat {
                        out[..lanes].iter_mut().for_each(|v| *v = semantics::saturate(*ty, *v as u64) as u32);
                    }
                    let at = *dst as usize * w;
                    write_lanes(&mut slots[at..at + lanes], &out[..lanes], active, w);
                }
                Step::Deriv { dst, arg, kind, sat } => {
                    // Quad by quad: each lane's result is the difference of
                    // two lanes of its quad, `pairs[lane % 4]`.
                    let pairs: [(usize, usize); 4] = match kind {
                        Deriv::X => [(3, 2); 4],
                        Deriv::Y => [(2, 0); 4],
                        Deriv::XFine => [(1, 0), (1, 0), (3, 2), (3, 2)],
                        Deriv::YFine => [(2, 0), (3, 1), (2, 0), (3, 1)],
                    };
                    let (w, (clear, flip)) = (self.w, sign_masks(arg));
                    let (slots, out) = (&mut self.slots, &mut self.out);
                    let at = arg.slot as usize * w;
                    for (quad, results) in slots[at..at + w].chunks_exact(4).zip(out[..w].chunks_exact_mut(4)) {
                        let value = |k: usize| f32::from_bits((quad[k] & clear) ^ flip);
                        for (r, &(a, b)) in results.iter_mut().zip(&pairs) {
                            let d = (value(a) - value(b)).to_bits();
                            *r = if *sat { semantics::saturate(OperandType::Float, d as u64) as u32 } else { d };
                        }
                    }
                    write_lanes(&mut slots[*dst as usize * w..(*dst as usize + 1) * w], &out[..w], active, w);
                }
                Step::Move { dst, src } => {
                    let w = self.w;
                    let (out, other) = self.write_beside(*dst, 1);
                    write_lanes(out, other.columns(*src, 1), active, w);
                }
                Step::ArrayLoad { dst, array, offset, index: None, chan } if active == self.all => {
                    let (w, c, i) = (self.w, *chan as usize & 3, *offset as usize);
                    let registers = self.arrays[*array as usize].get(i * w..(i + 1) * w).filter(|_| *offset >= 0);
                    let column = &mut self.slots[*dst as usize * w..(*dst as usize + 1) * w];
                    match registers {
                        Some(registers) => column.iter_mut().zip(registers).for_each(|(v, r)| *v = r[c]),
                        None => column.fill(0),
                    }
                }
                Step::ArrayStore { array, offset, index: None, value, chan } if active == self.all => {
                    let (w, c, i) = (self.w, *chan as usize & 3, *offset as usize);
                    let values = &self.slots[*value as usize * w..(*value as usize + 1) * w];
                    let registers = self.arrays[*array as usize].get_mut(i * w..(i + 1) * w);
                    if let Some(registers) = registers.filter(|_| *offset >= 0) {
                        registers.iter_mut().zip(values).for_each(|(r, &v)| r[c] = v);
                    }
                }
                Step::LoadIndirect { dst, file, base, index, dim, chan } => {
                    for l in self.lanes(active) {
                        let lane = self.first + l as u32;
                        let i = base.wrapping_add(index.map_or(0, |s| self.get(s, l) as i32));
                        let d = dim.map(|(b, s)| b.wrapping_add(s.map_or(0, |s| self.get(s, l) as i32)));
                        let c = *chan as usize & 3;
                        let v = if i < 0 || d.is_some_and(|d| d < 0) {
                            0
                        } else {
                            let i = i as u32;
                            match file {
                                File::Input => match d {
                                    Some(v) => self.env.state.vertex_input(v as u32, i, lane)[c],
                                    None => self.env.state.input(i, lane)[c],
                                },
                                File::Constant => self.env.state.constant(d.unwrap_or(0) as u32, i)[c],
                                File::SystemValue => self
                                    .env
                                    .system_value(self.program.sv_names.get(i as usize).copied().flatten(), lane)[c],
                                File::Output => self.outputs.get(i, *chan, l),
                                File::Immediate => self.program.immediates.get(i as usize).map_or(0, |imm| imm[c]),
                                _ => return Err(ExecError::Unsupported(format!("indirect {file:?} load"))),
                            }
                        };
                        self.set(*dst, l, v);
                    }
                }
                Step::ArrayLoad { dst, array, offset, index, chan } => {
                    let len = self.program.arrays[*array as usize] as i64;
                    for l in self.lanes(active) {
                        let i = *offset as i64 + index.map_or(0, |s| self.get(s, l) as i32 as i64);
                        let v = if (0..len).contains(&i) {
                            self.arrays[*array as usize][i as usize * self.w + l][*chan as usize & 3]
                        } else {
                            0
                        };
                        self.set(*dst, l, v);
                    }
                }
                Step::ArrayStore { array, offset, index, value, chan } => {
                    let len = self.program.arrays[*array as usize] as i64;
                    for l in self.lanes(active) {
                        let i = *offset as i64 + index.map_or(0, |s| self.get(s, l) as i32 as i64);
                        if (0..len).contains(&i) {
                            let v = self.get(*value, l);
                            self.arrays[*array as usize][i as usize * self.w + l][*chan as usize & 3] = v;
                        }
                    }
                }
                Step::StoreOutput { index, chan, value, declared } => {
                    let column = &self.slots[*value as usize * self.w..(*value as usize + 1) * self.w];
                    match declared {
                        // A declared register: straight into the run's outputs.
                        Some(r) => {
                            let (regs, c, r) = (self.outputs.registers.len(), *chan as usize & 3, *r as usize);
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
                                self.outputs.set(*index, *chan, l, column[l]);
                            }
                        }
                    }
                }
                Step::Texture { op, unit, coords, swizzle, dsts, sat } => {
                    // Every lane is sampled (sampling is pure), then the
                    // active ones written.
                    let w = self.w;
                    let (slots, texels) = (&mut self.slots, &mut self.texels);
                    let mut columns: [&[u32]; 4] = [&[]; 4];
                    let operands = (&coords[..], 0);
                    operand_columns(slots, &mut self.modified, (w, w), operands, |_| OperandType::Float, &mut columns);
                    sampler::sample_lanes(self.env.state.texture(*unit), *op, columns, &mut texels[..w]);
                    let out = &mut self.out;
                    for &(chan, dst) in dsts {
                        let c = swizzle[chan as usize & 3] as usize & 3;
                        for (o, texel) in out[..w].iter_mut().zip(&texels[..w]) {
                            let v = texel[c];
                            *o = if *sat { semantics::saturate(OperandType::Float, v as u64) as u32 } else { v };
                        }
                        write_lanes(&mut slots[dst as usize * w..(dst as usize + 1) * w], &out[..w], active, w);
                    }
                }
                Step::Kill => self.killed |= active,
                Step::Memory(access) => {
                    let memory = self
                        .memory
                        .ok_or_else(|| ExecError::Malformed("a memory step in a run with no memory".into()))?;
                    let (w, first, killed) = (self.w, self.first, self.killed);
                    let mut lanes = memory::Lanes { slots: &mut self.slots, w, first, active, killed };
                    memory::execute(access, &mut lanes, memory);
                }
                Step::Emit { stream } => {
                    self.sync_output_arrays(active);
                    for l in self.lanes(active) {
                        let stream = stream.map_or(0, |s| self.get(s, l));
                        let outputs = &self.outputs;
                        if let Some(emitted) = &mut self.emitted {
                            emitted.emit(l, stream, |r| [0, 1, 2, 3].map(|c| outputs.get(r, c, l)));
                        }
                    }
                }
                Step::EndPrimitive { stream } => {
                    for l in self.lanes(active) {
                        let stream = stream.map_or(0, |s| self.get(s, l));
                        if let Some(emitted) = &mut self.emitted {
                            emitted.end_primitive(l, stream);
                        }
                    }
                }
                Step::KillIf { args } => {
                    for l in self.lanes(active) {
                        if args.iter().any(|a| f32::from_bits(self.operand(a, OperandType::Float, l) as u32) < 0.0) {
                            self.killed |= 1 << l;
                        }
                    }
                }
                Step::Copies(pairs) => {
                    // All sources are read before any destination is written.
                    let w = self.w;
                    self.scratch.clear();
                    for &(_, src) in pairs {
                        let at = src as usize * w;
                        self.scratch.extend_from_slice(&self.slots[at..at + w]);
                    }
                    for (k, &(dst, _)) in pairs.iter().enumerate() {
                        let at = dst as usize * w;
                        write_lanes(&mut self.slots[at..at + w], &self.scratch[k * w..(k + 1) * w], active, w);
                    }
                }
            }
        }
        Ok(())
    }

    /// Copies the OUT registers kept in arrays into the output table, for
    /// the lanes of `active`, so that results and `EMIT` see them.
    fn sync_output_arrays(&mut self, active: u64) {
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Stores to a register no `DCL OUT` declares are kept apart and read
    /// back by lane and channel; declared ones land in the table.
    #[test]
    fn output_table_keeps_undeclared_registers_apart() {
        let mut values = [[0u32; 4]; 2];
        let registers = [3u32];
        let mut table = OutputTable { values: &mut values, registers: &registers, extra: Vec::new() };
        table.set(7, 1, 0, 11);
        table.set(7, 2, 1, 12);
        table.set(7, 3, 0, 13);
        table.set(3, 0, 1, 14);
        assert_eq!([0, 1, 2, 3].map(|c| table.get(7, c, 0)), [0, 11, 0, 13]);
        assert_eq!([0, 1, 2, 3].map(|c| table.get(7, c, 1)), [0, 0, 12, 0]);
        assert_eq!(table.get(5, 0, 0), 0, "never stored");
        assert_eq!(table.extra.len(), 2, "one entry a register and lane");
        assert_eq!(values, [[0; 4], [14, 0, 0, 0]]);
    }
}
