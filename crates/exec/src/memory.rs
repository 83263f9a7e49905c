//! Memory: shader storage buffers (`BUFFER`), images (`IMAGE`), shared
//! memory (`MEMORY[n], SHARED`) and what reads and writes them: `LOAD`,
//! `STORE`, the atomics, `RESQ`; also `BARRIER`, `MEMBAR` and `FBFETCH`.
//!
//! Resources come from the state's `buffer`, `bufdata`, `image` and
//! `imgdata` lines (see [`crate::state`]) and are allocated whole for the
//! run; their final contents are the `bufdata` and `imgdata` lines of the
//! results (see [`crate::outputs`]).
//!
//! - Buffers are byte-addressed by the `.x` channel of the address
//!   operand: channel `c` of a `LOAD` or `STORE` is the little-endian
//!   32-bit word at byte `x + 4c`, for the channels of the destination's
//!   write mask (a `LOAD` then applies the resource operand's swizzle). A
//!   word that does not lie wholly inside the buffer reads 0 and is not
//!   written, word by word, as robust buffer access allows. A `BUFFER[n]`
//!   the state has no `buffer n` line for is empty: every load gives 0 and
//!   every store is dropped.
//! - Images hold texels of four 32-bit channels. The declared format is
//!   not modelled: a `STORE` keeps the bits of the channels it writes and
//!   a `LOAD` returns them as they are, whatever `PIPE_FORMAT` the shader
//!   names (converting to, say, `R8G8B8A8_UNORM` would need the packing of
//!   every format, and raw channels keep every written bit visible in the
//!   results, which is what comparing runs needs). The address is unsigned
//!   integers; the instruction's target (or, for the atomics when the
//!   instruction names none, the declaration's) says which channels are
//!   the column, row and layer: `BUFFER` and `1D` use `x`; `1D_ARRAY`
//!   `x` and layer `y`; `2D`, `RECT` and `2D_MSAA` `x`, `y`; every other
//!   target `x`, `y` and layer `z`. Outside the image a load gives 0 and a
//!   store is dropped, as is everything on a unit with no `image` line. A
//!   `RAW` image is byte-addressed by `x` like a buffer, its texels' channels
//!   being consecutive words (a misaligned address is rounded down to a
//!   word).
//! - Shared memory is [`SHARED_MEMORY_SIZE`] bytes per work group,
//!   addressed like a buffer, zero when the group starts; every
//!   `MEMORY[n], SHARED` register names the same memory, as in Mesa. A work
//!   group is `BLOCK_SIZE` consecutive invocations (the product of the
//!   `CS_FIXED_BLOCK_*` properties, or every invocation without them).
//!   Other kinds of `MEMORY` are not executed.
//! - The atomics work on one 32-bit word (the buffer or shared word at
//!   byte `x`, or channel 0 of the image texel) and write the value it
//!   held before to every channel of the destination's write mask; out of
//!   bounds they give 0 and change nothing. `ATOMINC_WRAP` stores
//!   `old + 1 <= src ? old + 1 : 0` and `ATOMDEC_WRAP` `old > 0 && old <
//!   src ? old - 1 : 0`, as the TGSI spec writes them, and both return the
//!   old value like the others.
//! - `RESQ` gives a buffer's size in bytes in `.x` (0 without a buffer);
//!   for an image the extent along each address channel its target uses
//!   (so `(W, H, LAYERS)` for `2D_ARRAY`, `(W, LAYERS)` for `1D_ARRAY`) with
//!   the sample count 1 in `.w`, and zeros without an image.
//! - `FBFETCH` gives (0, 0, 0, 0): a state has no framebuffer.
//! - Lanes killed by `KILL`/`KILL_IF` do not write memory afterwards.
//!
//! Order: every memory instruction runs for the active lanes of its batch
//! in ascending order, and a program that writes memory (any `STORE` or
//! atomic) runs its batches in ascending order on one thread whatever
//! `threads` says, so stores and atomics from many lanes to one word land
//! in invocation order within an instruction and batch by batch. How lanes
//! are grouped into batches still depends on `lanes`: a lane that loads
//! what a lane of another batch stores (or of the same batch, by a later
//! instruction) sees a value that may change with it. That is a data race
//! in the program (GLSL gives no order there either); programs without
//! one give the same results for every `lanes` and `threads`.
//!
//! `BARRIER`: lanes of a batch run each instruction together, so a barrier
//! holds when the whole work group is in one batch. A compute shader with
//! a `BARRIER` therefore runs in batches of whole work groups, wider than
//! `lanes` asks if need be; a work group of more than 64 invocations is an
//! [`ExecError::Unsupported`] error. In other stages `BARRIER` waits for
//! nothing (no memory is shared between their invocations here). `MEMBAR`
//! does nothing: every access completes before the next instruction.

use std::collections::BTreeMap;
use std::sync::Mutex;

use tgsi::OperandType;

use crate::error::ExecError;
use crate::program::memory::{Access, Atomic, Dims, Kind, Resource};
use crate::program::{Arg, Program};
use crate::{Outputs, State};

/// Bytes of shared memory per work group (GL's minimum for
/// `MAX_COMPUTE_SHARED_MEMORY_SIZE` is 32 KiB; Mesa's drivers give 64).
pub const SHARED_MEMORY_SIZE: u32 = 65536;

/// The largest work group a compute shader with a `BARRIER` may have: one
/// batch.
pub const MAX_BARRIER_GROUP: u64 = 64;

/// The batch width and the lanes each batch takes: `(w, w)` unless the
/// program is a compute shader with a `BARRIER`, whose batches take whole
/// work groups (in a width of at least one group). `w` is the width the
/// options give, `n` the invocations.
pub(crate) fn batch_lanes(program: &Program, w: usize, n: usize) -> Result<(usize, usize), ExecError> {
    if !program.memory.barrier {
        return Ok((w, w));
    }
    let group = group_size(program, n).min(n as u64).max(1);
    if group > MAX_BARRIER_GROUP {
        return Err(ExecError::Unsupported(format!(
            "BARRIER in a work group of {group} invocations (a barrier holds within one batch of at most \
             {MAX_BARRIER_GROUP} lanes)"
        )));
    }
    let group = group as usize;
    let w = w.max(group.div_ceil(4) * 4);
    Ok((w, w / group * group))
}

/// Invocations per work group: the fixed block size, or every invocation.
fn group_size(program: &Program, n: usize) -> u64 {
    match program.block_size {
        Some([x, y, z]) => x as u64 * y as u64 * z as u64,
        None => n as u64,
    }
    .max(1)
}

/// An image's texels, allocated whole.
struct ImageData {
    width: u32,
    height: u32,
    layers: u32,
    /// By layer, row, column.
    texels: Vec<[u32; 4]>,
}

impl ImageData {
    /// The index of the texel the address picks, if inside.
    fn index(&self, dims: Dims, a: [u32; 4]) -> Option<usize> {
        let (x, y, layer) = match dims {
            Dims::X => (a[0], 0, 0),
            Dims::XLayer => (a[0], 0, a[1]),
            Dims::XY => (a[0], a[1], 0),
            Dims::XYLayer => (a[0], a[1], a[2]),
        };
        if x >= self.width || y >= self.height || layer >= self.layers {
            return None;
        }
        Some(((layer as usize * self.height as usize) + y as usize) * self.width as usize + x as usize)
    }

    /// The texel and channel of the word at byte `addr`, for RAW access.
    fn raw(&self, addr: u64) -> Option<(usize, usize)> {
        let word = addr / 4;
        let texel = (word / 4) as usize;
        (texel < self.texels.len()).then_some((texel, (word % 4) as usize))
    }
}

/// The buffers, images and shared memories of a run.
pub(crate) struct Memory {
    buffers: BTreeMap<u32, Vec<u8>>,
    images: BTreeMap<u32, ImageData>,
    /// By work group; made when a group first writes, dropped once a later
    /// batch starts past it (batches that write run in order).
    shared: BTreeMap<u64, Vec<u8>>,
    group: u64,
}

impl Memory {
    /// The state's buffers and images, and no shared memory yet.
    pub fn new(program: &Program, state: &State) -> Memory {
        // Extended, not collected: collecting into a map sorts a vector
        // first, which costs a run with no buffers more than the rest of
        // this function.
        let mut buffers = BTreeMap::new();
        buffers.extend(state.buffers().map(|(unit, b)| {
            let mut bytes = vec![0u8; b.size() as usize];
            for (offset, word) in b.words() {
                if let Some(at) = bytes.get_mut(offset as usize..offset as usize + 4) {
                    at.copy_from_slice(&word.to_le_bytes());
                }
            }
            (unit, bytes)
        }));
        let mut images = BTreeMap::new();
        images.extend(state.images().map(|(unit, image)| {
            let (width, height, layers) = (image.width(), image.height(), image.layers());
            let mut data = ImageData { width, height, layers, texels: Vec::new() };
            data.texels = vec![[0; 4]; width as usize * height as usize * layers as usize];
            for ((x, y, layer), texel) in image.texels() {
                if let Some(i) = data.index(Dims::XYLayer, [x, y, layer, 0]) {
                    data.texels[i] = texel;
                }
            }
            (unit, data)
        }));
        let group = group_size(program, state.invocations() as usize);
        Memory { buffers, images, shared: BTreeMap::new(), group }
    }

    /// The final contents, into `outputs`.
    pub fn finish(self, outputs: &mut Outputs) {
        for (unit, bytes) in &self.buffers {
            for (k, word) in bytes.chunks_exact(4).enumerate() {
                let word = u32::from_le_bytes([word[0], word[1], word[2], word[3]]);
                outputs.set_buffer_word(*unit, 4 * k as u32, word);
            }
        }
        for (unit, image) in &self.images {
            let (w, h) = (image.width as usize, image.height as usize);
            for (i, &texel) in image.texels.iter().enumerate() {
                let (x, y, layer) = ((i % w) as u32, ((i / w) % h) as u32, (i / (w * h)) as u32);
                outputs.set_image_texel(*unit, x, y, layer, texel);
            }
        }
    }

    /// Word `c` (channel, or word `c` after the address) of what `address`
    /// names for invocation `lane`; `None` outside the resource.
    fn load(&self, resource: Resource, lane: u32, a: [u32; 4], c: u32) -> Option<u32> {
        let byte = a[0] as u64 + 4 * c as u64;
        match resource {
            Resource::Buffer(unit) => read_word(self.buffers.get(&unit)?, byte),
            Resource::Shared => match self.shared.get(&(lane as u64 / self.group)) {
                Some(bytes) => read_word(bytes, byte),
                None => (byte + 4 <= SHARED_MEMORY_SIZE as u64).then_some(0),
            },
            Resource::Image { unit, dims, raw } => {
                let image = self.images.get(&unit)?;
                let (texel, chan) = if raw { image.raw(byte)? } else { (image.index(dims, a)?, c as usize & 3) };
                Some(image.texels[texel][chan])
            }
        }
    }

    /// Stores `v` where [`Memory::load`] would read; `first` is the batch's
    /// first invocation, before which every work group is finished.
    fn store(&mut self, resource: Resource, lane: u32, first: u32, a: [u32; 4], c: u32, v: u32) {
        let byte = a[0] as u64 + 4 * c as u64;
        match resource {
            Resource::Buffer(unit) => {
                if let Some(bytes) = self.buffers.get_mut(&unit) {
                    write_word(bytes, byte, v);
                }
            }
            Resource::Shared => {
                if byte + 4 > SHARED_MEMORY_SIZE as u64 {
                    return;
                }
                let group = lane as u64 / self.group;
                if !self.shared.contains_key(&group) {
                    // Groups before the batch's are done with their memory.
                    let done = first as u64 / self.group;
                    self.shared.retain(|&g, _| g >= done);
                }
                let bytes = self.shared.entry(group).or_insert_with(|| vec![0; SHARED_MEMORY_SIZE as usize]);
                write_word(bytes, byte, v);
            }
            Resource::Image { unit, dims, raw } => {
                let Some(image) = self.images.get_mut(&unit) else { return };
                let at = if raw { image.raw(byte) } else { image.index(dims, a).map(|t| (t, c as usize & 3)) };
                if let Some((texel, chan)) = at {
                    image.texels[texel][chan] = v;
                }
            }
        }
    }

    /// `RESQ`.
    fn query(&self, resource: Resource) -> [u32; 4] {
        match resource {
            Resource::Buffer(unit) => [self.buffers.get(&unit).map_or(0, |b| b.len() as u32), 0, 0, 0],
            Resource::Shared => [SHARED_MEMORY_SIZE, 0, 0, 0],
            Resource::Image { unit, dims, .. } => match self.images.get(&unit) {
                Some(i) => match dims {
                    Dims::X => [i.width, 0, 0, 1],
                    Dims::XLayer => [i.width, i.layers, 0, 1],
                    Dims::XY => [i.width, i.height, 0, 1],
                    Dims::XYLayer => [i.width, i.height, i.layers, 1],
                },
                None => [0; 4],
            },
        }
    }
}

fn read_word(bytes: &[u8], byte: u64) -> Option<u32> {
    let at = usize::try_from(byte).ok()?;
    let word = bytes.get(at..at.checked_add(4)?)?;
    Some(u32::from_le_bytes([word[0], word[1], word[2], word[3]]))
}

fn write_word(bytes: &mut [u8], byte: u64, v: u32) {
    let Ok(at) = usize::try_from(byte) else { return };
    let Some(end) = at.checked_add(4) else { return };
    if let Some(word) = bytes.get_mut(at..end) {
        word.copy_from_slice(&v.to_le_bytes());
    }
}

/// A batch's view of what a memory access needs.
pub(crate) struct Lanes<'s> {
    /// The batch's slots, slot-major (`slot * w + lane`).
    pub slots: &'s mut [u32],
    pub w: usize,
    /// The invocation of lane 0.
    pub first: u32,
    /// The lanes running the instruction.
    pub active: u64,
    /// The lanes killed so far, which write no memory.
    pub killed: u64,
}

impl Lanes<'_> {
    fn get(&self, a: &Arg, ty: OperandType, lane: usize) -> u32 {
        a.lane_value(self.slots, self.w, ty, lane) as u32
    }

    fn set(&mut self, slot: u32, lane: usize, v: u32) {
        if let Some(s) = self.slots.get_mut(slot as usize * self.w + lane) {
            *s = v;
        }
    }
}

/// Runs `access` for the active lanes, in ascending order.
pub(crate) fn execute(access: &Access, lanes: &mut Lanes<'_>, memory: &Mutex<Memory>) {
    // A panic elsewhere cannot leave the memory half-written in a way that
    // matters here: the run fails anyway.
    let mut memory = memory.lock().unwrap_or_else(|e| e.into_inner());
    let (active, writers) = (lanes.active, lanes.active & !lanes.killed);
    for l in (0..lanes.w).filter(|l| active & (1 << l) != 0) {
        let lane = lanes.first + l as u32;
        let address = access.address.map(|a| a.map_or(0, |a| lanes.get(&a, OperandType::Uint, l)));
        let result: [u32; 4] = match access.kind {
            Kind::Zero => [0; 4],
            Kind::Query => memory.query(access.resource),
            Kind::Load { swizzle } => {
                let mut out = [0; 4];
                for &(c, _) in &access.dsts {
                    let from = swizzle[c as usize & 3] as u32 & 3;
                    out[c as usize & 3] = memory.load(access.resource, lane, address, from).unwrap_or(0);
                }
                out
            }
            Kind::Store { mask } => {
                if writers & (1 << l) != 0 {
                    for (c, (arg, ty)) in access.values.iter().enumerate().filter(|(c, _)| mask & (1 << c) != 0) {
                        let v = lanes.get(arg, *ty, l);
                        memory.store(access.resource, lane, lanes.first, address, c as u32, v);
                    }
                }
                continue;
            }
            Kind::Atomic(atomic) => {
                let value = |k: usize| access.values.get(k).map_or(0, |(a, ty)| lanes.get(a, *ty, l));
                // ATOMCAS's operands are the comparand, then the value stored.
                let (src, cmp) = if atomic == Atomic::Cas { (value(1), value(0)) } else { (value(0), 0) };
                let old = memory.load(access.resource, lane, address, 0);
                if let (Some(old), true) = (old, writers & (1 << l) != 0) {
                    memory.store(access.resource, lane, lanes.first, address, 0, atomic.apply(old, src, cmp));
                }
                [old.unwrap_or(0); 4]
            }
        };
        for &(c, slot) in &access.dsts {
            lanes.set(slot, l, result[c as usize & 3]);
        }
    }
}
