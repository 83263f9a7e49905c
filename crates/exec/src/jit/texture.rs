//! Texture steps in the whole-program function: one call a quad to
//! [`sample_quad`], which samples by the interpreter's own rules
//! ([`sampler::sample_quad`], the per-lane code `sample_lanes` runs) with
//! no batch, no slots and no step dispatch in between. The code stores the
//! operands `op` reads as rows of four lanes in a stack slot, calls, and
//! loads the four lanes' texels back, transposed into channels.
//!
//! Sampling a texture of the common case
//! ([`sampler::nearest_repeat_texels`]), the code computes the four
//! lanes' texel indices as vector code and loads the texels itself,
//! without the call: the run describes each unit's texture for it
//! ([`NearestTexture`]), and which way a step goes is decided when it
//! runs, by its unit's texture.

use cranelift_codegen::ir::{AbiParam, Signature};
use cranelift_jit::JITModule;
use cranelift_module::Module;

use crate::abi::Frame;
use crate::program::{Step, TEX_OPERANDS};
use crate::sampler;

/// Rows (four lanes of 32 bits each) of the stack slot the code passes:
/// the operands, then the four lanes' texels.
pub(super) const ROWS: usize = TEX_OPERANDS + 4;
/// The first row of the result.
pub(super) const OUT_ROW: usize = TEX_OPERANDS;

/// [`sample_quad`], as compiled code calls it.
pub(super) const SAMPLE_QUAD: unsafe extern "C" fn(*const Frame, *const Step, *mut [u32; 4]) = sample_quad;

/// The signature of [`sample_quad`].
pub(super) fn signature(module: &JITModule) -> Signature {
    let mut sig = module.make_signature();
    sig.params.extend([AbiParam::new(module.target_config().pointer_type()); 3]);
    sig
}

/// Whether the whole-program code runs `step` (a texture step) through
/// [`sample_quad`]: not when an operand it reads or a destination is
/// outside the program's slots or 64-bit (the interpreter's step function
/// handles those).
pub(super) fn compiles(step: &Step, slots: usize) -> bool {
    let Step::Texture { op, coords, dsts, .. } = step else { return false };
    let used = sampler::operands_read(*op);
    coords.iter().take(used).all(|a| !a.wide && (a.slot as usize) < slots)
        && dsts.iter().all(|&(_, d)| (d as usize) < slots)
}

/// Samples one quad for texture step `step` (its unit's texture from the
/// frame's table, looked up once a run): `rows[k]` holds operand `k`
/// of the quad's four lanes (for the operands `op` reads), and
/// `rows[OUT_ROW + l]` gets lane `l`'s texel (the code transposes them
/// into channels).
/// Every lane is sampled, as the interpreter samples every lane of a quad
/// with an active one (sampling is pure); the code writes the active ones.
///
/// # Safety
/// `frame` is the frame [`crate::run`] passed the code (its state set),
/// `step` a step of the program, `rows` [`ROWS`] writable rows.
unsafe extern "C" fn sample_quad(frame: *const Frame, step: *const Step, rows: *mut [u32; 4]) {
    // SAFETY: as the caller promises; the state outlives the run.
    let (state, step, rows) = unsafe { (&*(*frame).state, &*step, std::slice::from_raw_parts_mut(rows, ROWS)) };
    let Step::Texture { op, unit, .. } = step else { return };
    let (operands, out) = rows.split_at_mut(OUT_ROW);
    // The operands `op` does not read stay empty (read as 0), as the
    // interpreter leaves them.
    let mut columns: [&[u32]; TEX_OPERANDS] = [&[]; TEX_OPERANDS];
    for (column, row) in columns.iter_mut().zip(operands.iter()).take(sampler::operands_read(*op)) {
        *column = row;
    }
    // SAFETY: the frame's table covers every unit a texture step of the
    // program names (`run_compiled` checks its length), and its textures
    // live as long as the state.
    let texture = unsafe { (*(*frame).textures.add(*unit as usize)).as_ref() };
    if let Ok(texels) = <&mut [[u32; 4]; 4]>::try_from(out) {
        sampler::sample_quad(state, texture, *op, columns, texels);
    }
}
