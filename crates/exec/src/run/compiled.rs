//! A batch running the program's compiled function (`jit::whole`): the
//! frame of pointers the code reads, the values it loads in place of the
//! batch's fills (laid out once per run), and the helper through which it
//! has the interpreter run the steps it does not compile, one quad at a
//! time.

use std::cell::RefCell;
use std::marker::PhantomData;

use super::batch::Batch;
use super::env::Env;
use crate::abi::{Callbacks, ConstTable, Frame, NearestTexture, ProgramFn, Status, LANES};
use crate::error::ExecError;
use crate::program::{Fill, Program, Step};
use crate::{State, Texture};

/// The values of the program's fills for a whole run, laid out once so
/// that compiled code loads them where it uses them and no batch fills a
/// column: a value every lane shares (an immediate, a constant) as one
/// 16-byte splat, a value of each lane (an input, a system value) as a
/// column of the run's lanes, the state's own where it holds one. Its
/// memory is kept per thread from run to run, as a batch's is.
pub(crate) struct RunFills<'a> {
    /// By fill (`Program::fills` order): the splat of a shared value.
    uniforms: Vec<[u32; 4]>,
    /// The columns the state does not hold, one after the other.
    owned: Vec<u32>,
    /// By fill: the start of its column (null for shared values).
    column_starts: Vec<*const u32>,
    /// By unit, up to the program's `texture_units`: the state's texture
    /// (null for none), looked up once a run for the texture steps'
    /// calls.
    textures: Vec<*const Texture>,
    /// By unit, as `textures`: the texture as the code samples it itself.
    nearest: Vec<NearestTexture>,
    /// Lanes every column holds.
    lanes: usize,
    /// The registers of the constant buffers indirect loads read
    /// (the program's `indirect_const_buffers`), one table after the other (read through `const_tables`).
    _const_values: Vec<[u32; 4]>,
    /// By such buffer: its table in `const_values`.
    const_tables: Vec<ConstTable>,
    /// The state the borrowed columns are in.
    _state: PhantomData<&'a State>,
}

/// A run's fills' memory, kept per thread between runs.
#[derive(Default)]
struct Storage {
    uniforms: Vec<[u32; 4]>,
    owned: Vec<u32>,
    column_starts: Vec<*const u32>,
    textures: Vec<*const Texture>,
}

thread_local! {
    static STORAGE: RefCell<Storage> = RefCell::default();
}

// SAFETY: the pointers point into `owned` or the state borrowed for
// `'a`, neither of which changes while the table lives.
unsafe impl Send for RunFills<'_> {}
// SAFETY: as `Send`: nothing writes through the pointers.
unsafe impl Sync for RunFills<'_> {}

impl Drop for RunFills<'_> {
    fn drop(&mut self) {
        let storage = Storage {
            uniforms: std::mem::take(&mut self.uniforms),
            owned: std::mem::take(&mut self.owned),
            column_starts: std::mem::take(&mut self.column_starts),
            textures: std::mem::take(&mut self.textures),
        };
        STORAGE.with(|s| *s.borrow_mut() = storage);
    }
}

impl<'a> RunFills<'a> {
    /// The fills of `program` for a run whose code reads `lanes` lanes of
    /// each column (every quad a batch has an active lane in), as the
    /// batches would fill them.
    pub(crate) fn new(program: &Program, env: &Env<'a>, lanes: usize) -> RunFills<'a> {
        let state = env.state;
        let Storage { mut uniforms, mut owned, mut column_starts, mut textures } =
            STORAGE.with(|s| std::mem::take(&mut *s.borrow_mut()));
        uniforms.clear();
        owned.clear();
        column_starts.clear();
        textures.clear();
        textures
            .extend((0..program.texture_units).map(|u| state.texture(u).map_or(std::ptr::null(), |t| t as *const _)));
        // Room for every column the state does not hold, reserved first so
        // that `owned` never moves and a column's address is known as it
        // is laid out.
        let own_columns =
            program.fills.iter().filter(|(_, f)| matches!(f, Fill::Input { .. } | Fill::SystemValue { .. }));
        owned.reserve(own_columns.count() * lanes);
        let reserved = owned.capacity();
        for &(_, fill) in &program.fills {
            let mut own = |f: &mut dyn FnMut(&mut [u32])| {
                let start = owned.len();
                owned.resize(start + lanes, 0);
                f(&mut owned[start..]);
                // SAFETY: `start + lanes` is within `owned`; `as_ptr`
                // makes no reference, so the address stays valid while
                // later columns are written (the memory never moves).
                unsafe { owned.as_ptr().add(start) }
            };
            let (uniform, column) = match fill {
                Fill::Bits(bits) => ([bits; 4], std::ptr::null()),
                Fill::Constant { k } => ([env.constants.get(k as usize).copied().unwrap_or(0); 4], std::ptr::null()),
                Fill::Input { vertex, index, chan } => match state.input_lanes(vertex, index, chan, lanes) {
                    Some(column) => ([0; 4], column.as_ptr()),
                    None => ([0; 4], own(&mut |column| state.input_column(vertex, index, chan, 0, column))),
                },
                Fill::SystemValue { name, chan } => {
                    let column = own(&mut |column| {
                        for (l, v) in (0..).zip(column.iter_mut()) {
                            *v = env.system_value(name, l)[chan as usize & 3];
                        }
                    });
                    ([0; 4], column)
                }
            };
            uniforms.push(uniform);
            column_starts.push(column);
        }
        debug_assert_eq!(owned.capacity(), reserved, "the owned columns moved");
        let (const_values, const_tables) = const_tables(program, state);
        let nearest = (0..program.texture_units).map(|u| NearestTexture::of(state.texture(u))).collect();
        RunFills {
            uniforms,
            owned,
            column_starts,
            textures,
            nearest,
            lanes,
            _const_values: const_values,
            const_tables,
            _state: PhantomData,
        }
    }

    /// Whether every column holds `lanes` lanes.
    fn covers(&self, lanes: usize) -> bool {
        lanes <= self.lanes
    }
}

/// The most registers of one constant buffer laid out for indirect
/// loads; compiled code asks the state for those past it.
const MAX_CONST_TABLE: usize = 1 << 16;

/// The tables of the program's `indirect_const_buffers` for a run on `state`: each
/// buffer's registers from 0 to the last the state sets (at least one,
/// at most [`MAX_CONST_TABLE`]), unset ones zero.
fn const_tables(program: &Program, state: &State) -> (Vec<[u32; 4]>, Vec<ConstTable>) {
    let buffers = &program.indirect_const_buffers;
    if buffers.is_empty() {
        return (Vec::new(), Vec::new());
    }
    let mut starts = Vec::with_capacity(buffers.len());
    let mut values: Vec<[u32; 4]> = Vec::new();
    for &buf in buffers {
        let start = values.len();
        let mut past = false;
        values.resize(start + 1, [0; 4]);
        for ((_, i), v) in state.constants().filter(|&((b, _), _)| b == buf) {
            if i as usize >= MAX_CONST_TABLE {
                past = true;
                continue;
            }
            let at = start + i as usize;
            if values.len() <= at {
                values.resize(at + 1, [0; 4]);
            }
            values[at] = v;
        }
        let len = values.len() - start;
        starts.push((start, len, if past { len as u64 } else { i32::MAX as u64 }));
    }
    // Pointers taken once `values` no longer grows.
    let tables = starts
        .into_iter()
        .map(|(start, len, asks_from)| ConstTable {
            // SAFETY: `start + len` is within `values`.
            values: unsafe { values.as_ptr().add(start) },
            len: len as u64,
            asks_from,
        })
        .collect();
    (values, tables)
}

/// The interpreter's functions compiled code calls.
pub(crate) const CALLBACKS: Callbacks = Callbacks { step_quad, indirect_channel };

/// Runs `step` for the lanes of `lanes` (one quad's) by the interpreter's
/// step function; 0, or [`Status::Step`](Status) with the
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
            Status::Step as u32
        }
    }
}

/// What the indirect load `step` reads for lane `l` of the batch at
/// register `i` (in 2-D index `d`, when the step has one), as the
/// interpreter reads it ([`Batch::indirect_value`]); 0 for what it cannot
/// read (compiled code calls this only for the files it can).
///
/// # Safety
/// As [`step_quad`]'s.
unsafe extern "C" fn indirect_channel(frame: *mut Frame, step: *const Step, l: u64, i: i32, d: i32) -> u32 {
    // SAFETY: as the caller promises; nothing else borrows the batch
    // mutably while this reads it.
    let (batch, step) = unsafe { (&*((*frame).batch as *const Batch<'_>), &*step) };
    match step {
        Step::LoadIndirect { file, dim, chan, .. } => {
            batch.indirect_value(*file, i, dim.map(|_| d), *chan, l as usize).unwrap_or(0)
        }
        _ => 0,
    }
}

impl Batch<'_> {
    /// Runs the program's compiled function `code` for the lanes of
    /// `active`.
    pub(super) fn run_compiled(&mut self, code: ProgramFn, fills: &RunFills<'_>, active: u64) -> Result<(), ExecError> {
        // The code's slots have the stride it was compiled for, and it
        // reads every fill of each quad it runs (those with an active
        // lane: it skips the others).
        let active = active & self.all;
        let quads_end = (u64::BITS - active.leading_zeros()).div_ceil(4) as usize * 4;
        if self.w != LANES
            || self.work.slots.len() < self.program.slots * self.w
            || fills.uniforms.len() != self.program.fills.len()
            || fills.textures.len() != self.program.texture_units as usize
            || fills.nearest.len() != fills.textures.len()
            || !fills.covers(self.first as usize + quads_end)
        {
            return Err(ExecError::Malformed(format!("a batch of {} lanes for compiled code", self.w)));
        }
        // The code writes every channel of each register stored to, of
        // every lane of each quad it runs: into the batch's output table
        // when that holds those quads' lanes, else into a block of those
        // quads (the thread's own, kept between batches and programs, so
        // zeroed first: the code leaves registers no step stores to
        // unwritten), whose lanes of the table are copied out after.
        let registers = self.outputs.registers.len();
        let in_block = self.outputs.values.len() < quads_end * registers && crate::jit::native_outputs(self.program);
        if in_block {
            let block = quads_end * registers;
            self.work.output_block.clear();
            self.work.output_block.resize(block, [0; 4]);
        }
        let outputs = match in_block {
            true => self.work.output_block.as_mut_ptr(),
            false => self.outputs.values.as_mut_ptr(),
        };
        let mut frame = Frame {
            slots: self.work.slots.as_mut_ptr(),
            outputs,
            batch: (self as *mut Batch<'_>).cast(),
            budget: self.budget,
            uniforms: fills.uniforms.as_ptr(),
            columns: fills.column_starts.as_ptr(),
            first: self.first as u64,
            constants: fills.const_tables.as_ptr(),
            state: self.env.state,
            textures: fills.textures.as_ptr(),
            nearest: fills.nearest.as_ptr(),
            killed: 0,
        };
        // SAFETY: the code reads and writes the slots below the program's
        // count (checked when it was compiled) of this batch's width, the
        // fills of the program's count of the lanes of the quads it runs
        // (checked above), the outputs of those quads only (in the table
        // when it holds them, checked above, else in the 64-lane block),
        // and the batch only through `step_quad`.
        let status = unsafe { code(&mut frame, active) };
        self.killed |= frame.killed;
        if in_block {
            let held = self.outputs.values.len().min(self.work.output_block.len());
            self.outputs.values[..held].copy_from_slice(&self.work.output_block[..held]);
        }
        match status {
            0 => Ok(()),
            s if s == Status::StepBudget as u32 => Err(ExecError::StepBudget(self.budget)),
            _ => Err(self.compiled_error.take().unwrap_or_else(|| ExecError::Jit("a compiled step failed".into()))),
        }
    }
}
