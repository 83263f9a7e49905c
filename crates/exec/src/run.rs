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
//!
//! This module holds the public entry points ([`run()`], [`Executable`],
//! [`Prepared`], [`RunOptions`], [`ExecError`]) and lays a run out in batches; a batch
//! and its working memory are in `batch`, its walk of the control list in
//! `control`, the hot loop over a block's steps in `block`, and the steps
//! by kind in `compute` (ALU, derivatives, copies, texture sampling),
//! `registers` (indirect loads, arrays, OUT stores) and `effects` (kills,
//! memory, emitted vertices). `columns` reads operands as columns of lanes
//! for the batch loops, `mask` holds lane masks and masked writes, and
//! `output_table` a batch's OUT registers.

use std::marker::PhantomData;
use std::sync::{Arc, Mutex};

use ir::function::Module;

use rayon::prelude::*;

use crate::error::ExecError;
use crate::geometry::{Emitted, Emitter};
use crate::memory::{self, Memory};
use crate::program::Program;
use crate::{Backend, Outputs, State};

mod batch;
mod block;
mod columns;
#[cfg(feature = "jit")]
pub(crate) mod compiled;
mod compute;
mod control;
mod effects;
mod env;
mod mask;
mod output_table;
mod registers;
mod uniform;

use batch::Batch;
use env::Env;
use mask::full;
use output_table::OutputTable;

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

impl RunOptions {
    /// Whether `lanes` is a batch width a run takes: a multiple of 4 (a
    /// quad) from 4 to 64.
    ///
    /// ```
    /// assert!(exec::RunOptions::valid_lanes(16));
    /// assert!(!exec::RunOptions::valid_lanes(5) && !exec::RunOptions::valid_lanes(0) && !exec::RunOptions::valid_lanes(68));
    /// ```
    pub fn valid_lanes(lanes: usize) -> bool {
        (4..=64).contains(&lanes) && lanes.is_multiple_of(4)
    }
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions { lanes: 64, step_budget: 50_000_000, threads: 1 }
    }
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
    /// Shared with the executables of equal programs a
    /// [`crate::CompileCache`] compiled.
    loaded: Arc<Loaded>,
}

/// A compiled program and its native code, which points into the
/// program's steps: the two live and are shared together.
pub(crate) struct Loaded {
    program: Program,
    /// The program compiled whole, with [`Backend::Jit`] where it compiles.
    #[cfg(feature = "jit")]
    jit: Option<crate::jit::Compiled>,
}

impl Loaded {
    /// `program`, with its native code for `backend`.
    pub(crate) fn new(program: Program, backend: Backend) -> Result<Loaded, ExecError> {
        #[cfg(feature = "jit")]
        let jit = match backend {
            Backend::Jit => crate::jit::compile(&program, compiled::CALLBACKS)?,
            Backend::Interpreter => None,
        };
        #[cfg(not(feature = "jit"))]
        let _ = backend;
        Ok(Loaded {
            program,
            #[cfg(feature = "jit")]
            jit,
        })
    }
}

impl<'m> Executable<'m> {
    /// Compiles `module` for the default tier ([`Backend::default`]);
    /// fails on an operation the backend does not execute yet.
    pub fn compile(module: &'m Module) -> Result<Self, ExecError> {
        Executable::compile_with(module, Backend::default())
    }

    /// Compiles `module` for `backend`; [`ExecError::JitUnavailable`]
    /// when that is the JIT and it does not run here.
    ///
    /// ```
    /// let text = "FRAG\nDCL IN[0]\nDCL OUT[0], COLOR\nMUL OUT[0], IN[0], IN[0]\nEND\n";
    /// let module = ir::from_tgsi(&tgsi::parse(text).unwrap()).unwrap();
    /// let state = exec::State::parse("invocations 3\ninput 0 * 1 2 3 4\n").unwrap();
    /// let interp = exec::Executable::compile_with(&module, exec::Backend::Interpreter).unwrap();
    /// assert_eq!(interp.backend(), exec::Backend::Interpreter);
    /// if exec::Backend::Jit.available().is_ok() {
    ///     let jit = exec::Executable::compile_with(&module, exec::Backend::Jit).unwrap();
    ///     let options = exec::RunOptions::default();
    ///     assert_eq!(jit.run(&state, &options).unwrap(), interp.run(&state, &options).unwrap());
    /// }
    /// ```
    pub fn compile_with(module: &'m Module, backend: Backend) -> Result<Self, ExecError> {
        backend.available().map_err(ExecError::JitUnavailable)?;
        let program = Program::compile(module)?;
        Ok(Executable::from_loaded(Arc::new(Loaded::new(program, backend)?)))
    }

    /// An executable running `loaded`.
    pub(crate) fn from_loaded(loaded: Arc<Loaded>) -> Self {
        Executable { module: PhantomData, loaded }
    }

    /// The tier this executable runs on.
    pub fn backend(&self) -> Backend {
        #[cfg(feature = "jit")]
        if self.loaded.jit.is_some() {
            return Backend::Jit;
        }
        Backend::Interpreter
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
        // A width no run takes fails as such, before the layout.
        if !RunOptions::valid_lanes(options.lanes) {
            return Err(ExecError::Lanes(options.lanes));
        }
        let program = self.loaded.program_code();
        run_program(program, &Layout::new(program, state)?, options, outputs)
    }

    /// Lays out what a run on `state` reads besides the code (the
    /// constants it reads, the fills compiled code loads), once, for many
    /// runs on that state: what a driver drawing again with the same
    /// shader and state does. The state stays borrowed while the result
    /// lives, so it cannot change under it; every run gives exactly what
    /// [`Executable::run`] gives on the state. Fails where every run on
    /// the state would (a work group too large for a batch).
    ///
    /// ```
    /// let text = "FRAG\nDCL IN[0]\nDCL OUT[0], COLOR\nDCL CONST[0]\nMAD OUT[0], IN[0], CONST[0], IN[0]\nEND\n";
    /// let module = ir::from_tgsi(&tgsi::parse(text).unwrap()).unwrap();
    /// let state = exec::State::parse("invocations 16\nconst 0 0 2 2 2 2\ninput 0 * 1 2 3 4\n").unwrap();
    /// let executable = exec::Executable::compile(&module).unwrap();
    /// let options = exec::RunOptions::default();
    /// let prepared = executable.prepare(&state).unwrap();
    /// let mut outputs = exec::Outputs::new(0, []);
    /// for _ in 0..3 {
    ///     prepared.run_into(&options, &mut outputs).unwrap();
    ///     assert_eq!(outputs, executable.run(&state, &options).unwrap());
    /// }
    /// assert_eq!(prepared.run(&options).unwrap().get(0, 5), Some([3.0f32, 6.0, 9.0, 12.0].map(f32::to_bits)));
    /// ```
    pub fn prepare<'s>(&'s self, state: &'s State) -> Result<Prepared<'s>, ExecError> {
        let program = self.loaded.program_code();
        Ok(Prepared { program, layout: Layout::new(program, state)? })
    }
}

/// An [`Executable`] with what its runs on one [`State`] read laid out
/// once ([`Executable::prepare`]): each run is left the program itself
/// and the writing of its outputs.
pub struct Prepared<'a> {
    program: ProgramCode<'a>,
    layout: Layout<'a>,
}

impl Prepared<'_> {
    /// Runs every invocation of the state: what [`Executable::run`] gives.
    pub fn run(&self, options: &RunOptions) -> Result<Outputs, ExecError> {
        let mut outputs = Outputs::new(0, []);
        self.run_into(options, &mut outputs)?;
        Ok(outputs)
    }

    /// Runs every invocation of the state into `outputs`, whatever it held
    /// before, as [`Executable::run_into`] does.
    pub fn run_into(&self, options: &RunOptions, outputs: &mut Outputs) -> Result<(), ExecError> {
        run_program(self.program, &self.layout, options, outputs)
    }
}

impl Loaded {
    /// The program with its compiled code, where it has it.
    fn program_code(&self) -> ProgramCode<'_> {
        #[cfg(feature = "jit")]
        let code = self.jit.as_ref();
        #[cfg(not(feature = "jit"))]
        let code = None;
        (&self.program, code)
    }
}

/// A program and its compiled code.
type ProgramCode<'a> = (&'a Program, Code<'a>);

/// What a run on one state reads besides the code, laid out before it:
/// the state's values of the constants the program reads, and the fills
/// of a program compiled whole.
struct Layout<'a> {
    env: Env<'a>,
    fills: Fills<'a>,
}

impl<'a> Layout<'a> {
    fn new((program, code): ProgramCode<'_>, state: &'a State) -> Result<Layout<'a>, ExecError> {
        let env = Env::new(program, state);
        let fills = match whole_lanes(code) {
            Some(w) => {
                let n = state.invocations() as usize;
                let (w, step) = memory::batch_lanes(program, w, n)?;
                run_fills(program, code, &env, fill_lanes(n, w, step))
            }
            None => None,
        };
        Ok(Layout { env, fills })
    }
}

/// The lanes of each fill's column compiled code reads in a run of `n`
/// lanes, batches `w` wide taking `step` lanes each: those of every quad
/// a batch has an active lane in (it skips the others).
fn fill_lanes(n: usize, w: usize, step: usize) -> usize {
    match step % 4 {
        // Batches start on quads: the quads of the run's lanes.
        0 => n.div_ceil(4) * 4,
        // Every batch's, whole.
        _ => n.div_ceil(step).saturating_sub(1) * step + w,
    }
}

/// A program's compiled code, where it has it.
#[cfg(feature = "jit")]
pub(crate) type Code<'a> = Option<&'a crate::jit::Compiled>;
/// Nothing: no JIT in this build.
#[cfg(not(feature = "jit"))]
pub(crate) type Code<'a> = Option<&'a std::convert::Infallible>;

/// A run's fills laid out for its compiled code.
#[cfg(feature = "jit")]
pub(crate) type RunFills<'a> = compiled::RunFills<'a>;
/// Nothing: no JIT in this build.
#[cfg(not(feature = "jit"))]
pub(crate) type RunFills<'a> = PhantomData<&'a ()>;
/// The run's fills, where its code is compiled whole.
type Fills<'a> = Option<RunFills<'a>>;

/// How a run is laid out in batches.
struct Plan {
    /// The batch width.
    w: usize,
    /// The lanes each batch runs: `w` but for barriers (whole work groups).
    step: usize,
    /// Threads running batches (0: rayon's global pool).
    threads: usize,
    /// Their pool, for more than one thread.
    pool: Option<rayon::ThreadPool>,
}

impl Plan {
    fn of((program, code): ProgramCode<'_>, n: usize, options: &RunOptions) -> Result<Plan, ExecError> {
        let w = options.lanes;
        if !RunOptions::valid_lanes(w) {
            return Err(ExecError::Lanes(w));
        }
        // No wider than the invocations need (in whole quads): batch loops
        // run over every lane of a batch. A program compiled whole runs
        // batches of the width it was compiled for.
        let w = whole_lanes(code).unwrap_or_else(|| w.min(n.div_ceil(4) * 4).max(4));
        let (w, step) = memory::batch_lanes(program, w, n)?;
        // Stores and atomics land in invocation order only if batches run
        // in order.
        let threads = if program.memory.writes { 1 } else { options.threads };
        let pool = match threads {
            0 | 1 => None,
            t => Some(
                rayon::ThreadPoolBuilder::new()
                    .num_threads(t)
                    .build()
                    .map_err(|e| ExecError::Threads(e.to_string()))?,
            ),
        };
        Ok(Plan { w, step, threads, pool })
    }
}

fn run_program(
    (program, code): ProgramCode<'_>,
    layout: &Layout<'_>,
    options: &RunOptions,
    outputs: &mut Outputs,
) -> Result<(), ExecError> {
    let (env, state) = (&layout.env, layout.env.state);
    let n = state.invocations() as usize;
    let Plan { w, step, threads, pool } = Plan::of((program, code), n, options)?;
    // A run with no memory steps and no buffers or images in its state
    // has no memory to lay out and copy back.
    let has_memory = program.memory.accesses || state.buffers().next().is_some() || state.images().next().is_some();
    let memory = has_memory.then(|| Mutex::new(Memory::new(program, state)));
    // Compiled whole, the code loads the fills from a table laid out
    // before the run (`layout`), and writes every channel of each OUT
    // register a step stores to, of every lane it runs: when that is
    // every declared register, the table need not be zeroed.
    let fills = layout.fills.as_ref();
    let zero = !writes_every_output(program, code);
    let declared = program.outputs.iter().copied();
    match threads {
        1 => outputs.reset(state.invocations(), declared, false, zero),
        _ => on_pool(pool.as_ref(), || outputs.reset(state.invocations(), declared, true, zero)),
    }
    let registers = program.outputs.len();
    let (values, killed) = outputs.lanes_mut();
    // Each batch writes its own lanes' outputs and kill flags in place, so
    // batches are independent and the thread count never changes results.
    // A thread runs its batches in one `Batch`, reset for each but the first.
    let table = |values| OutputTable { values, registers: &program.outputs, extra: Vec::new() };
    let new_batch = |first: usize, values| {
        Batch::new((program, code), env, first as u32, w, options.step_budget, table(values), memory.as_ref())
    };
    let run_batch = batch_fn(|batch, first, killed| {
        let all = full(step.min(n - first));
        batch.run_program(all, fills)?;
        batch.sync_output_arrays(all);
        if batch.killed != 0 {
            for (l, k) in killed.iter_mut().enumerate() {
                *k = batch.killed & (1 << l) != 0;
            }
        }
        Ok(batch.emitted.take().map(Emitter::finish))
    });
    // With no OUT register every batch gets an empty slice.
    let value_chunks =
        values.chunks_mut((step * registers).max(1)).chain(std::iter::repeat_with(<&mut [[u32; 4]]>::default));
    let mut batches = (0..n).step_by(step).zip(value_chunks.zip(killed.chunks_mut(step)));
    // What each batch emitted, with its first lane.
    let emitted: Vec<(usize, Emitted)> = match threads {
        1 => {
            let mut emitted = Vec::new();
            if let Some((first, (values, killed))) = batches.next() {
                let mut batch = new_batch(first, values);
                emitted.extend(run_batch(&mut batch, first, killed)?.map(|e| (first, e)));
                for (first, (values, killed)) in batches {
                    batch.reset(first as u32, table(values));
                    emitted.extend(run_batch(&mut batch, first, killed)?.map(|e| (first, e)));
                }
            }
            emitted
        }
        _ => {
            let batches: Vec<_> = batches.collect();
            on_pool(pool.as_ref(), || {
                batches
                    .into_par_iter()
                    .map_init(
                        || None::<Batch<'_>>,
                        |reused, (first, (values, killed))| {
                            let batch = match reused {
                                Some(batch) => {
                                    batch.reset(first as u32, table(values));
                                    batch
                                }
                                None => reused.insert(new_batch(first, values)),
                            };
                            Ok((first, run_batch(batch, first, killed)?))
                        },
                    )
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

/// `f`, typed as the closure running one batch (its first lane, its kill
/// flags): the batch and the flags share one lifetime.
fn batch_fn<'a, F>(f: F) -> F
where
    F: Fn(&mut Batch<'a>, usize, &mut [bool]) -> Result<Option<Emitted>, ExecError>,
{
    f
}

/// The batch width `code` was compiled for, when it is the whole program
/// compiled into one function.
#[cfg(feature = "jit")]
fn whole_lanes(code: Code<'_>) -> Option<usize> {
    code.is_some().then_some(crate::abi::LANES)
}

/// Never: no JIT in this build.
#[cfg(not(feature = "jit"))]
fn whole_lanes(_: Code<'_>) -> Option<usize> {
    None
}

/// The fills of a run of `lanes` lanes laid out for `code`, when it is
/// the whole program compiled into one function.
#[cfg(feature = "jit")]
fn run_fills<'a>(program: &Program, code: Code<'_>, env: &Env<'a>, lanes: usize) -> Fills<'a> {
    whole_lanes(code).map(|_| compiled::RunFills::new(program, env, lanes))
}

/// None: no JIT in this build.
#[cfg(not(feature = "jit"))]
fn run_fills<'a>(_: &Program, _: Code<'_>, _: &Env<'a>, _: usize) -> Fills<'a> {
    None
}

/// Whether `code` writes every declared OUT channel of every lane it runs
/// (see `jit::whole`: it does when a step stores to each declared
/// register), so that the output table need not start zeroed.
#[cfg(feature = "jit")]
fn writes_every_output(program: &Program, code: Code<'_>) -> bool {
    whole_lanes(code).is_some()
        && crate::jit::native_outputs(program)
        && crate::jit::stored_outputs(program).into_iter().all(|stored| stored)
}

/// Never: no JIT in this build.
#[cfg(not(feature = "jit"))]
fn writes_every_output(_: &Program, _: Code<'_>) -> bool {
    false
}

/// Runs `f` on `pool`, or on rayon's global pool without one.
fn on_pool<R: Send>(pool: Option<&rayon::ThreadPool>, f: impl FnOnce() -> R + Send) -> R {
    match pool {
        Some(pool) => pool.install(f),
        None => f(),
    }
}
