//! What compiled code and the run share: the frame the code reads a
//! batch through, the tables it reads constants and textures from, the
//! status it returns, and the interpreter's functions it calls back.
//! Below both the JIT (which lays code out against these) and the run
//! (which fills them in and provides the callbacks), so neither imports
//! the other's internals.

use std::ffi::c_void;

use crate::program::Step;
use crate::{sampler, State, Texture};

/// Lanes of the batch the function runs over (its slots' stride).
pub(crate) const LANES: usize = 64;
/// The program's code: `frame` the batch's pointers, `active` its lanes;
/// returns 0, or a [`Status`] code.
pub(crate) type ProgramFn = unsafe extern "C" fn(frame: *mut Frame, active: u64) -> u32;

/// Why a function stopped early.
#[repr(u32)]
pub(crate) enum Status {
    /// The step budget ran out.
    StepBudget = 1,
    /// A step the interpreter ran failed (its error is in the batch).
    Step = 2,
}

/// A unit's texture as compiled code samples it itself: laid out once a
/// run, by unit. `texels` is null where the texture is not of the common
/// case ([`sampler::nearest_repeat_texels`]) or the unit has none; the
/// code then calls `jit::texture::sample_quad`.
#[repr(C)]
pub(crate) struct NearestTexture {
    pub texels: *const [u32; 4],
    /// The width and the height, as floats.
    pub size: [f32; 2],
    /// The width and the height less one: the masks of REPEAT.
    pub mask: [i32; 2],
    /// Texels a row.
    pub width: i32,
}

impl NearestTexture {
    pub(crate) fn of(texture: Option<&Texture>) -> NearestTexture {
        let common = texture.and_then(|t| Some((t, sampler::nearest_repeat_texels(t)?)));
        let Some((tex, texels)) = common else {
            return NearestTexture { texels: std::ptr::null(), size: [0.0; 2], mask: [0; 2], width: 0 };
        };
        let (w, h) = (tex.width(), tex.height());
        NearestTexture {
            texels: texels.as_ptr(),
            size: [w as f32, h as f32],
            mask: [w as i32 - 1, h as i32 - 1],
            width: w as i32,
        }
    }
}

/// Registers `0..len` of a constant buffer, as compiled code reads them for
/// indirect CONST loads: 0 at an index outside, but a lane whose index is
/// `asks_from` or more asks [`Callbacks::indirect_channel`] instead (`len` when the
/// state sets registers past the table, else `i32::MAX`, which no lane
/// needs to ask but none is wrong to).
#[repr(C)]
pub(crate) struct ConstTable {
    pub values: *const [u32; 4],
    pub len: u64,
    pub asks_from: u64,
}

/// What the compiled function reads of its batch (laid out for the code,
/// which loads the fields at their offsets).
#[repr(C)]
pub(crate) struct Frame {
    /// The batch's slots (slot-major, `jit::whole::LANES` lanes a slot).
    pub slots: *mut u32,
    /// The batch's declared OUT registers, lane-major.
    pub outputs: *mut [u32; 4],
    /// The batch itself, for [`Callbacks::step_quad`].
    pub batch: *mut c_void,
    /// Steps one quad may run.
    pub budget: u64,
    /// By fill: the splat of a value every lane shares
    /// (`run::compiled::RunFills::uniforms`).
    pub uniforms: *const [u32; 4],
    /// By fill: the start of the column of a per-lane value.
    pub columns: *const *const u32,
    /// The batch's first lane in the run (its lane 0 in the columns).
    pub first: u64,
    /// By buffer of the program's `indirect_const_buffers`: its registers.
    pub constants: *const ConstTable,
    /// The run's state, for the texture steps' calls
    /// (`jit::texture::sample_quad`).
    pub state: *const State,
    /// By unit: the state's texture or null (`run::compiled::RunFills::textures`).
    pub textures: *const *const Texture,
    /// By unit: the texture as the code samples it itself
    /// (`run::compiled::RunFills::nearest`).
    pub nearest: *const NearestTexture,
    /// The lanes the code killed (`KILL`, `KILL_IF`), added to the
    /// batch's after it runs.
    pub killed: u64,
}

/// Runs a step for one quad's lanes by the interpreter's step function;
/// 0, or [`Status::Step`] with the error kept in the batch.
pub(crate) type StepQuadFn = unsafe extern "C" fn(frame: *mut Frame, step: *const Step, lanes: u64) -> u32;

/// What an indirect load step reads for a lane at a register (and 2-D
/// index), as the interpreter reads it.
pub(crate) type IndirectChannelFn =
    unsafe extern "C" fn(frame: *mut Frame, step: *const Step, lane: u64, index: i32, dim: i32) -> u32;

/// The interpreter's functions compiled code calls.
#[derive(Clone, Copy)]
pub(crate) struct Callbacks {
    pub step_quad: StepQuadFn,
    pub indirect_channel: IndirectChannelFn,
}
