//! The input state of a run: how many invocations, and the constants,
//! inputs, textures and system values they see.
//!
//! The text format, one directive a line (`#` starts a comment anywhere on
//! a line; blank lines are skipped):
//!
//! ```text
//! invocations N
//! const BUF INDEX x y z w        # CONST[BUF][INDEX]; BUF is 0 for plain CONST[INDEX]
//! input INDEX LANE x y z w       # IN[INDEX] of invocation LANE, or LANE = * for all
//! vinput VERTEX INDEX LANE x y z w  # IN[VERTEX][INDEX] of invocation LANE (geometry shaders)
//! texsize UNIT W H               # 2D texture on sampler/view UNIT
//! texel UNIT X Y r g b a         # one texel of it
//! sampler UNIT FILTER WRAP       # how unit UNIT samples: nearest|linear, repeat|clamp
//! sysval NAME LANE x y z w       # override a system value (THREAD_ID, VERTEXID, ...)
//! buffer UNIT SIZE               # BUFFER[UNIT]: SIZE bytes, zero-filled
//! bufdata UNIT OFFSET v0 v1 ...  # 32-bit words of it from byte OFFSET on
//! image UNIT W H [LAYERS]        # IMAGE[UNIT]: W x H texels (x LAYERS), zero-filled
//! imgdata UNIT X Y LAYER r g b a # one texel of it
//! ```
//!
//! A value is a decimal float read as an `f32` (`1.5`, `-2`, `1e-3`, `inf`,
//! `-inf`, `nan`) or raw bits `0x` followed by 1 to 8 hex digits. Integers
//! are unsigned decimal. Directives are lower case, as the reference harness
//! writes them; system value names are TGSI semantic names in any case.
//!
//! Later lines override earlier ones for the same lane: a `*` line sets every
//! lane and so replaces the per-lane lines before it; a per-lane line after
//! it replaces the `*` value for that lane only. `const` and `texel` lines
//! likewise replace an earlier line for the same register or texel.
//!
//! `sampler` is an extension of the reference harness's format: it sets
//! the filter (`nearest` or `linear`) and the wrap mode (`repeat`, or
//! `clamp` for clamp-to-edge) of the sampler on UNIT, for `TEX`, `TXP` and
//! the other sampling instructions (`TXF` and the size queries ignore it).
//! A unit without one samples `nearest repeat`, as the harness did. It may
//! come before or after the unit's `texsize` (a sampler and a texture are
//! separate objects, as in Gallium), and on a unit with no texture it has
//! no effect. The words are lower case.
//!
//! `buffer`, `bufdata`, `image` and `imgdata` are an extension of the
//! reference harness's format, for shaders that load, store and run
//! atomics on `BUFFER` and `IMAGE` resources (see [`crate::memory`] for
//! what a run does with them). A buffer is SIZE bytes, a multiple of 4; its
//! `bufdata` words are stored little-endian from byte OFFSET (a multiple
//! of 4) on, consecutively. An image holds texels of four 32-bit channels
//! whatever format the shader declares; LAYERS is 1 when omitted. Both
//! start as zero bits, and later `bufdata` and `imgdata` lines replace
//! earlier ones for the same word or texel.
//!
//! Checks, each reported with the line and column of the offending token:
//! - `invocations` appears exactly once, before the first `input`,
//!   `vinput` or `sysval` line, and is 1 to 2^24 (so that a backend may allocate per
//!   lane);
//! - every lane is `*` or below `invocations`;
//! - `texsize` comes once per unit, before the unit's texels, with a width
//!   and height of 1 to 8192; every texel lies inside it;
//! - `sampler` comes at most once per unit, with a known filter and wrap;
//! - `buffer` comes once per unit, before the unit's `bufdata`, with a
//!   size that is a multiple of 4; every `bufdata` offset is a multiple of
//!   4 and its words lie inside the buffer;
//! - `image` comes once per unit, before the unit's `imgdata`, with a
//!   width and height of 1 to 8192 and 1 to 2048 layers; every `imgdata`
//!   texel lies inside it;
//! - buffers and images together hold at most [`MAX_MEMORY_BYTES`] bytes
//!   (a run allocates them whole);
//! - `sysval` names a TGSI semantic (`THREAD_ID`, `VERTEXID`, ...);
//! - every line has its directive's number of operands, and every operand
//!   is well formed.
//!
//! Storage is proportional to the text (per-lane and per-texel values are
//! kept sparse), so no input, however large its numbers, allocates more
//! than its own size suggests.

use std::collections::BTreeMap;
use std::str::FromStr;

use tgsi::SemanticName;

use crate::error::{StateError, StateErrorKind};

mod levels;
mod read;

pub use levels::{TextureLevel, TextureLevels};

/// The largest number of invocations a state may ask for.
pub const MAX_INVOCATIONS: u32 = 1 << 24;

/// The largest width or height of a texture.
pub const MAX_TEXTURE_SIZE: u32 = 8192;

/// The largest number of layers of an image.
pub const MAX_IMAGE_LAYERS: u32 = 2048;

/// The most bytes the buffers and images of a state may hold together: a
/// run allocates each of them whole, so this bounds what a state can make
/// it allocate.
pub const MAX_MEMORY_BYTES: u64 = 1 << 26;

/// The directives of the input format, in the order the format lists them.
pub const DIRECTIVES: &[&str] = &[
    "invocations",
    "const",
    "input",
    "vinput",
    "texsize",
    "texel",
    "sampler",
    "sysval",
    "buffer",
    "bufdata",
    "image",
    "imgdata",
];

/// The filter words of a `sampler` line, in the order of [`Filter`].
pub const FILTERS: &[&str] = &["nearest", "linear"];

/// The wrap words of a `sampler` line, in the order of [`Wrap`].
pub const WRAPS: &[&str] = &["repeat", "clamp"];

/// How a sampler picks texels from a coordinate. All arithmetic is f32,
/// unfused, in the order given, so results are reproducible bit for bit.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Filter {
    /// The texel the coordinate falls in (`nearest`, the default): column
    /// `floor(s * W)` converted as C does on x86 (NaN and out of range give
    /// -2^31), then wrapped.
    #[default]
    Nearest,
    /// The four texels around the coordinate, weighted bilinearly
    /// (`linear`): `u = s * W - 0.5`, columns `floor(u)` and `floor(u) + 1`
    /// (each wrapped), `a = u - floor(u)`, rows and `b` likewise; each
    /// channel, read as an f32 whatever the texture holds, is
    /// `lerp(lerp(t00, t10, a), lerp(t01, t11, a), b)` with
    /// `lerp(x, y, f) = x + f * (y - x)`. A NaN or infinite coordinate gives
    /// NaN channels.
    Linear,
}

/// What a sampler does with texel indices outside the texture.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Wrap {
    /// The texture tiles the plane (`repeat`, the default).
    #[default]
    Repeat,
    /// Indices are clamped to the edge texels (`clamp`, clamp-to-edge).
    Clamp,
}

/// The sampler state of one unit: its filter and wrap mode, the same for
/// both coordinates. The default is the reference harness's `nearest
/// repeat`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Sampler {
    /// How texels are picked and weighted.
    pub filter: Filter,
    /// How indices outside the texture are brought back into it.
    pub wrap: Wrap,
}

/// The input state of a run. Values are kept as the bits of 32-bit
/// channels, so `0x` values and floats alike arrive exactly.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct State {
    invocations: u32,
    consts: BTreeMap<(u32, u32), [u32; 4]>,
    inputs: BTreeMap<u32, PerLane>,
    /// `IN[vertex][index]`, keyed by `(vertex, index)`.
    vertex_inputs: BTreeMap<(u32, u32), PerLane>,
    textures: BTreeMap<u32, Texture>,
    /// What the `sampler` lines say, also for units with no texture; each
    /// texture carries a copy of its unit's entry.
    samplers: BTreeMap<u32, Sampler>,
    sysvals: BTreeMap<SemanticName, PerLane>,
    buffers: BTreeMap<u32, Buffer>,
    images: BTreeMap<u32, Image>,
    /// The render target's sample positions while per-sample shading is
    /// in effect (none otherwise), as bits, see
    /// [`State::set_sample_positions`].
    sample_positions: Vec<[u32; 2]>,
}

/// The values of one register across lanes, with "later lines win"
/// applied: a `*` line replaces everything before it, so only the latest
/// `*` value and the per-lane lines after it are kept. Per-lane lines are
/// gathered as they come and sorted by lane once the state is read
/// ([`PerLane::finish`]), so reading many lanes is a walk over an array.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct PerLane {
    all: Option<[u32; 4]>,
    /// By lane, one entry per lane once finished.
    lanes: Vec<(u32, [u32; 4])>,
    /// Once finished, when every lane up to the last one the lines name
    /// has a value (its own, or the `*` line's): those values, so that a
    /// batch reads a run of lanes without a search. A lane with no value
    /// must stay apart from one set to zero (a system value then takes the
    /// stage's default, `IN[v][i]` reads `IN[i]`), so gaps keep it sparse.
    /// Kept by channel, as a batch reads them.
    dense: [Vec<u32>; 4],
}

impl PerLane {
    fn set(&mut self, lane: Option<u32>, value: [u32; 4]) {
        match lane {
            None => {
                self.all = Some(value);
                self.lanes.clear();
            }
            Some(lane) => self.lanes.push((lane, value)),
        }
    }

    /// Sorts the lines by lane, the latest line for a lane winning.
    fn finish(&mut self) {
        // A stable sort keeps each lane's lines in the order they came.
        self.lanes.sort_by_key(|&(lane, _)| lane);
        let mut kept: Vec<(u32, [u32; 4])> = Vec::with_capacity(self.lanes.len());
        for &(lane, v) in &self.lanes {
            match kept.last_mut() {
                Some(last) if last.0 == lane => last.1 = v,
                _ => kept.push((lane, v)),
            }
        }
        self.lanes = kept;
        let span = self.lanes.last().map_or(0, |&(lane, _)| lane as usize + 1);
        if span > 0 && (self.all.is_some() || span == self.lanes.len()) {
            let all = self.all.unwrap_or_default();
            self.dense = all.map(|v| vec![v; span]);
            for &(lane, v) in &self.lanes {
                for (column, v) in self.dense.iter_mut().zip(v) {
                    column[lane as usize] = v;
                }
            }
        }
    }

    fn get(&self, lane: u32) -> Option<[u32; 4]> {
        if (lane as usize) < self.dense[0].len() {
            return Some(self.dense.each_ref().map(|column| column[lane as usize]));
        }
        match self.lanes.binary_search_by_key(&lane, |&(l, _)| l) {
            Ok(i) => Some(self.lanes[i].1),
            Err(_) => self.all,
        }
    }

    /// Whether lanes `first..first + len` all have a value of their own
    /// or the `*` line's.
    fn covers(&self, first: u32, len: usize) -> bool {
        self.all.is_some() || first as usize + len <= self.dense[0].len()
    }

    /// Channel `chan` of lanes `first..first + out.len()` into `out`, with
    /// one search rather than one per lane; lanes nothing sets are left as
    /// they were.
    fn fill_column(&self, first: u32, chan: usize, out: &mut [u32]) {
        let dense = self.dense[chan].get(first as usize..).unwrap_or_default();
        if let Some(all) = self.all {
            out.get_mut(dense.len()..).unwrap_or_default().fill(all[chan]);
        }
        if !self.dense[chan].is_empty() {
            let n = dense.len().min(out.len());
            out[..n].copy_from_slice(&dense[..n]);
            return;
        }
        let end = first.saturating_add(out.len() as u32);
        let start = self.lanes.partition_point(|&(l, _)| l < first);
        for &(lane, v) in self.lanes[start..].iter().take_while(|&&(l, _)| l < end) {
            out[(lane - first) as usize] = v[chan];
        }
    }
}

/// Texels by position: row-major in an array for textures up to
/// [`DENSE_TEXELS`] texels, since sampling reads them per lane; sparse
/// above that, so that a large `texsize` alone allocates nothing.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Texels {
    Dense(Vec<[u32; 4]>),
    /// By (row, column).
    Sparse(BTreeMap<(u32, u32), [u32; 4]>),
}

/// The largest texture kept as an array (1 MiB of texels).
const DENSE_TEXELS: u32 = 1 << 16;

/// A 2D texture: its size and the texels the state sets (level 0), and
/// the smaller levels of a mipmapped one (built in code with
/// [`State::set_texture`]; the text format gives one level).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Texture {
    width: u32,
    height: u32,
    texels: Texels,
    // A copy of the unit's sampler so that sampling, done per lane, needs
    // one lookup.
    sampler: Sampler,
    /// Levels 1 and on, each half the one before (at least 1).
    mips: Vec<levels::Level>,
}

impl Texture {
    /// Width in texels.
    pub fn width(&self) -> u32 {
        self.width
    }

    /// Height in texels.
    pub fn height(&self) -> u32 {
        self.height
    }

    /// The texel at column `x`, row `y` as four channels of bits; zero when
    /// the state does not set it or it lies outside the texture.
    pub fn texel(&self, x: u32, y: u32) -> [u32; 4] {
        match &self.texels {
            Texels::Dense(texels) if x < self.width => {
                texels.get(y as usize * self.width as usize + x as usize).copied().unwrap_or_default()
            }
            Texels::Dense(_) => [0; 4],
            Texels::Sparse(texels) => texels.get(&(y, x)).copied().unwrap_or_default(),
        }
    }

    /// Level 0's texels, row-major, when the texture keeps them as an
    /// array (every texture of at most `DENSE_TEXELS` texels).
    pub(crate) fn dense_texels(&self) -> Option<&[[u32; 4]]> {
        match &self.texels {
            Texels::Dense(texels) => Some(texels),
            Texels::Sparse(_) => None,
        }
    }

    /// The sampler of the texture's unit: what its `sampler` line says, or
    /// `nearest repeat` when it has none.
    pub fn sampler(&self) -> Sampler {
        self.sampler
    }

    /// The number of levels, 1 unless the texture is mipmapped.
    pub fn levels(&self) -> u32 {
        self.mips.len() as u32 + 1
    }

    /// Width and height of `level`; `None` past the last one.
    pub fn level_size(&self, level: u32) -> Option<(u32, u32)> {
        match level {
            0 => Some((self.width, self.height)),
            _ => self.mips.get(level as usize - 1).map(|m| (m.width, m.height)),
        }
    }

    /// The texel at column `x`, row `y` of `level`, as [`Texture::texel`]
    /// reads level 0; zero outside the level or past the last one.
    pub fn level_texel(&self, level: u32, x: u32, y: u32) -> [u32; 4] {
        match level {
            0 => self.texel(x, y),
            _ => self.mips.get(level as usize - 1).map_or([0; 4], |m| m.texel(x, y)),
        }
    }
}

/// A shader storage buffer (`BUFFER[UNIT]`): its size and the words the
/// state sets.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Buffer {
    size: u32,
    /// By byte offset (a multiple of 4).
    words: BTreeMap<u32, u32>,
}

impl Buffer {
    /// Size in bytes, a multiple of 4.
    pub fn size(&self) -> u32 {
        self.size
    }

    /// The 32-bit word at byte `offset` (a multiple of 4); zero when the
    /// state does not set it.
    pub fn word(&self, offset: u32) -> u32 {
        self.words.get(&offset).copied().unwrap_or(0)
    }

    /// Every word the state sets, as `(byte offset, word)`, ascending.
    pub fn words(&self) -> impl Iterator<Item = (u32, u32)> + '_ {
        self.words.iter().map(|(&k, &v)| (k, v))
    }
}

/// An image (`IMAGE[UNIT]`): its size and the texels the state sets, four
/// 32-bit channels each.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Image {
    width: u32,
    height: u32,
    layers: u32,
    /// By (layer, row, column): memory order.
    texels: BTreeMap<(u32, u32, u32), [u32; 4]>,
}

impl Image {
    /// Width in texels.
    pub fn width(&self) -> u32 {
        self.width
    }

    /// Height in texels.
    pub fn height(&self) -> u32 {
        self.height
    }

    /// Number of layers (1 for a plain 2D image).
    pub fn layers(&self) -> u32 {
        self.layers
    }

    /// The texel at column `x`, row `y` of `layer`; zero when the state does
    /// not set it or it lies outside the image.
    pub fn texel(&self, x: u32, y: u32, layer: u32) -> [u32; 4] {
        self.texels.get(&(layer, y, x)).copied().unwrap_or_default()
    }

    /// Every texel the state sets, as `((x, y, layer), texel)`, by layer,
    /// row, then column.
    pub fn texels(&self) -> impl Iterator<Item = ((u32, u32, u32), [u32; 4])> + '_ {
        self.texels.iter().map(|(&(l, y, x), &v)| ((x, y, l), v))
    }

    /// Size in bytes.
    fn bytes(&self) -> u64 {
        self.width as u64 * self.height as u64 * self.layers as u64 * 16
    }
}

/// An invocation count a state cannot have: not 1 to [`MAX_INVOCATIONS`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("a state has 1 to {MAX_INVOCATIONS} invocations, not {0}")]
pub struct InvocationCount(pub u32);

impl PerLane {
    /// One value per lane `0..n`, channel by channel, `n` the shortest
    /// column's length; later lanes have none.
    fn from_columns(columns: [Vec<u32>; 4]) -> PerLane {
        let n = columns.iter().map(Vec::len).min().unwrap_or(0);
        let dense = columns.map(|mut column| {
            column.truncate(n);
            column
        });
        PerLane { all: None, lanes: Vec::new(), dense }
    }
}

/// Building a state in code, for callers that make many lanes (a render
/// of a million pixels) where text would cost more than the run. The
/// setters replace what the register had, as a later line does.
///
/// ```
/// let mut state = exec::State::new(4).unwrap();
/// state.set_input(0, [1, 2, 3, 4]);
/// state.set_input_lanes(1, [vec![10, 11], vec![0; 2], vec![0; 2], vec![0; 2]]);
/// assert_eq!(state.input(0, 3), [1, 2, 3, 4]);
/// assert_eq!((state.input(1, 1), state.input(1, 2)), ([11, 0, 0, 0], [0; 4]));
/// assert_eq!(state.input_for_every_lane(0), Some([1, 2, 3, 4]));
/// assert!(exec::State::new(0).is_err());
/// ```
impl State {
    /// A state of `invocations` lanes (1 to [`MAX_INVOCATIONS`]) that sets
    /// nothing.
    pub fn new(invocations: u32) -> Result<State, InvocationCount> {
        let mut state = State::default();
        state.set_invocations(invocations)?;
        Ok(state)
    }

    /// Changes the number of invocations (1 to [`MAX_INVOCATIONS`]),
    /// keeping everything else; lanes past the count are not run.
    pub fn set_invocations(&mut self, invocations: u32) -> Result<(), InvocationCount> {
        if !(1..=MAX_INVOCATIONS).contains(&invocations) {
            return Err(InvocationCount(invocations));
        }
        self.invocations = invocations;
        Ok(())
    }

    /// Sets `IN[index]` of every lane, as an `input INDEX *` line does.
    pub fn set_input(&mut self, index: u32, value: [u32; 4]) {
        let mut register = PerLane::default();
        register.set(None, value);
        self.inputs.insert(index, register);
    }

    /// Sets `IN[index]` of lanes `0..n` to one value each: channel `c` of
    /// lane `l` is `columns[c][l]`, `n` the shortest column's length.
    /// Lanes from `n` on read zero.
    pub fn set_input_lanes(&mut self, index: u32, columns: [Vec<u32>; 4]) {
        self.inputs.insert(index, PerLane::from_columns(columns));
    }

    /// Sets system value `name` of lanes `0..n` as
    /// [`State::set_input_lanes`] sets an input; lanes from `n` on take
    /// the stage's default.
    pub fn set_sysval_lanes(&mut self, name: SemanticName, columns: [Vec<u32>; 4]) {
        self.sysvals.insert(name, PerLane::from_columns(columns));
    }

    /// Removes every `IN[index]` and `IN[vertex][index]` value, so that
    /// every input reads zero.
    pub fn clear_inputs(&mut self) {
        self.inputs.clear();
        self.vertex_inputs.clear();
    }

    /// The value of the last `input INDEX *` line (or
    /// [`State::set_input`]) for `IN[index]`, whatever per-lane lines
    /// say; `None` when there is none.
    pub fn input_for_every_lane(&self, index: u32) -> Option<[u32; 4]> {
        self.inputs.get(&index).and_then(|p| p.all)
    }
}

impl State {
    /// Reads a state from its text form.
    pub fn parse(text: &str) -> Result<State, StateError> {
        read::read(text)
    }
    /// The number of invocations (lanes), at least 1.
    pub fn invocations(&self) -> u32 {
        self.invocations
    }

    /// `IN[index]` of invocation `lane`: the latest line that sets it, zero
    /// when none does (or `lane` is not below [`State::invocations`]).
    pub fn input(&self, index: u32, lane: u32) -> [u32; 4] {
        if lane >= self.invocations {
            return [0; 4];
        }
        self.inputs.get(&index).and_then(|p| p.get(lane)).unwrap_or_default()
    }

    /// Channel `chan` of `IN[index]` (or `IN[vertex][index]`) of
    /// invocations `first..first + out.len()`, as [`State::input`] and
    /// [`State::vertex_input`] give them, into `out`: one column of a batch.
    /// Channel `chan` of `IN[index]` (`IN[vertex][index]`) for lanes
    /// `0..len`, straight from the state's own lanes, when those are
    /// exactly what [`State::input_column`] gives every batch of a run of
    /// `len` lanes: every lane set, none past the invocations.
    #[cfg_attr(not(feature = "jit"), allow(dead_code))]
    pub(crate) fn input_lanes(&self, vertex: Option<u32>, index: u32, chan: u8, len: usize) -> Option<&[u32]> {
        if vertex.is_some_and(|v| self.vertex_inputs.contains_key(&(v, index))) {
            return None;
        }
        let dense = self.inputs.get(&index)?.dense[chan as usize & 3].as_slice();
        (len <= self.invocations as usize).then(|| dense.get(..len)).flatten()
    }

    pub(crate) fn input_column(&self, vertex: Option<u32>, index: u32, chan: u8, first: u32, out: &mut [u32]) {
        let valid = (self.invocations.saturating_sub(first) as usize).min(out.len());
        let chan = chan as usize & 3;
        let register = self.inputs.get(&index);
        // Lanes the register's lines do not reach read zero.
        if valid < out.len() || !register.is_some_and(|p| p.covers(first, valid)) {
            out.fill(0);
        }
        if let Some(p) = register {
            p.fill_column(first, chan, &mut out[..valid]);
        }
        if let Some(p) = vertex.and_then(|v| self.vertex_inputs.get(&(v, index))) {
            p.fill_column(first, chan, &mut out[..valid]);
        }
    }

    /// `IN[vertex][index]` of invocation `lane`: the latest `vinput` line
    /// that sets it for the lane, else `IN[index]` as [`State::input`]
    /// gives it (so 1-D states drive geometry shaders too).
    pub fn vertex_input(&self, vertex: u32, index: u32, lane: u32) -> [u32; 4] {
        if lane >= self.invocations {
            return [0; 4];
        }
        match self.vertex_inputs.get(&(vertex, index)).and_then(|p| p.get(lane)) {
            Some(v) => v,
            None => self.input(index, lane),
        }
    }

    /// The `(VERTEX, INDEX)` pairs `vinput` lines set for some lane,
    /// ascending.
    pub fn vertex_input_indices(&self) -> impl Iterator<Item = (u32, u32)> + '_ {
        self.vertex_inputs.keys().copied()
    }

    /// The `IN` indices the state sets for some lane, ascending.
    pub fn input_indices(&self) -> impl Iterator<Item = u32> + '_ {
        self.inputs.keys().copied()
    }

    /// `CONST[buf][index]`; zero when the state does not set it.
    pub fn constant(&self, buf: u32, index: u32) -> [u32; 4] {
        self.consts.get(&(buf, index)).copied().unwrap_or_default()
    }

    /// Every constant the state sets, as `((buf, index), value)`, ascending.
    pub fn constants(&self) -> impl Iterator<Item = ((u32, u32), [u32; 4])> + '_ {
        self.consts.iter().map(|(&k, &v)| (k, v))
    }

    /// The texture bound to sampler or view `unit`, if the state sizes one.
    pub fn texture(&self, unit: u32) -> Option<&Texture> {
        self.textures.get(&unit)
    }

    /// The sampler on `unit`: what its `sampler` line says, or `nearest
    /// repeat` when it has none (whether or not the unit has a texture).
    pub fn sampler(&self, unit: u32) -> Sampler {
        self.samplers.get(&unit).copied().unwrap_or_default()
    }

    /// The buffer on `BUFFER[unit]`, if the state sizes one.
    pub fn buffer(&self, unit: u32) -> Option<&Buffer> {
        self.buffers.get(&unit)
    }

    /// Every buffer the state sizes, by unit, ascending.
    pub fn buffers(&self) -> impl Iterator<Item = (u32, &Buffer)> + '_ {
        self.buffers.iter().map(|(&k, v)| (k, v))
    }

    /// The image on `IMAGE[unit]`, if the state sizes one.
    pub fn image(&self, unit: u32) -> Option<&Image> {
        self.images.get(&unit)
    }

    /// Every image the state sizes, by unit, ascending.
    pub fn images(&self) -> impl Iterator<Item = (u32, &Image)> + '_ {
        self.images.iter().map(|(&k, v)| (k, v))
    }

    /// The render target's sample count while per-sample shading is in
    /// effect, 0 otherwise (see [`State::set_sample_positions`]).
    pub fn sample_count(&self) -> u32 {
        self.sample_positions.len() as u32
    }

    /// The position of sample `index` of the render target while
    /// per-sample shading is in effect (see
    /// [`State::set_sample_positions`]).
    pub fn sample_position(&self, index: u32) -> Option<[f32; 2]> {
        self.sample_positions.get(index as usize).map(|p| p.map(f32::from_bits))
    }

    /// The value of system value `name` the state gives invocation `lane`,
    /// if any line does (`None` means the backend's default applies).
    pub fn sysval(&self, name: SemanticName, lane: u32) -> Option<[u32; 4]> {
        if lane >= self.invocations {
            return None;
        }
        self.sysvals.get(&name).and_then(|p| p.get(lane))
    }
}

impl FromStr for State {
    type Err = StateError;

    fn from_str(text: &str) -> Result<State, StateError> {
        State::parse(text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn per_lane_keeps_only_what_later_lines_leave() {
        let mut p = PerLane::default();
        p.set(Some(1), [1; 4]);
        p.set(None, [2; 4]);
        assert!(p.lanes.is_empty(), "a `*` line replaces the per-lane lines before it");
        p.set(Some(3), [3; 4]);
        p.set(Some(0), [4; 4]);
        p.set(Some(3), [5; 4]);
        p.finish();
        assert_eq!((p.get(0), p.get(1), p.get(3)), (Some([4; 4]), Some([2; 4]), Some([5; 4])));
        assert_eq!(p.lanes.len(), 2, "one entry per lane");
        assert!(!p.dense[0].is_empty(), "every lane up to the last one has a value: kept as an array");
        let mut out = [9; 3];
        p.fill_column(1, 2, &mut out);
        assert_eq!(out, [2, 2, 5]);
    }

    #[test]
    fn lanes_with_no_value_between_stay_sparse() {
        let mut p = PerLane::default();
        p.set(Some(0), [1; 4]);
        p.set(Some(100), [7, 8, 9, 10]);
        p.finish();
        assert!(p.dense[0].is_empty());
        assert_eq!((p.get(0), p.get(50), p.get(100)), (Some([1; 4]), None, Some([7, 8, 9, 10])));
        // One gap is enough: the lane in it has no value.
        let mut q = PerLane::default();
        for lane in [0, 1, 3] {
            q.set(Some(lane), [lane + 1; 4]);
        }
        q.finish();
        assert!(q.dense[0].is_empty());
        assert_eq!((q.get(1), q.get(2), q.get(3)), (Some([2; 4]), None, Some([4; 4])));
        let mut out = [5; 3];
        p.fill_column(99, 1, &mut out);
        assert_eq!(out, [5, 8, 5], "lanes nothing sets are left as they were");
    }

    #[test]
    fn texels_are_keyed_by_column_then_row() {
        // Small textures are dense, large ones sparse: both read the same.
        for (w, h) in [(3, 2), (8192, 2)] {
            let s = State::parse(&format!("invocations 1\ntexsize 0 {w} {h}\ntexel 0 2 1 1 2 3 4\n")).unwrap();
            let t = s.texture(0).unwrap();
            assert_eq!(matches!(t.texels, Texels::Dense(_)), w * h <= DENSE_TEXELS);
            assert_eq!(t.texel(2, 1), [0x3f80_0000, 0x4000_0000, 0x4040_0000, 0x4080_0000]);
            assert_eq!((t.texel(1, 2), t.texel(1, 1), t.texel(w, 0)), ([0; 4], [0; 4], [0; 4]));
        }
    }

    #[test]
    fn the_texture_carries_its_units_sampler_in_either_order() {
        let linear_clamp = Sampler { filter: Filter::Linear, wrap: Wrap::Clamp };
        for text in ["texsize 0 1 1\nsampler 0 linear clamp\n", "sampler 0 linear clamp\ntexsize 0 1 1\n"] {
            let s = State::parse(&format!("invocations 1\n{text}")).unwrap();
            assert_eq!(s.texture(0).unwrap().sampler(), linear_clamp, "{text:?}");
            assert_eq!(s.sampler(0), linear_clamp);
        }
    }
}
