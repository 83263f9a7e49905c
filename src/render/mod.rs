//! Rendering a fragment shader: run it once per pixel of a target, in 2x2
//! quads as a rasterizer would, and keep its `COLOR` outputs as 8-bit RGBA
//! images.
//!
//! What each pixel's invocation sees (the founding TGSI text's
//! conventions, `FS_COORD_ORIGIN`, `FS_COORD_PIXEL_CENTER`, `FACE` and
//! `FS_COLOR0_WRITES_ALL_CBUFS`):
//! - `POSITION` (an input or a system value) is `(x, y, z, w)`: `x` the
//!   pixel's column, `y` its row counted from the top (`UPPER_LEFT`, the
//!   default) or from the bottom (`LOWER_LEFT`: `H - row - 1`), each plus
//!   0.5 (`HALF_INTEGER`, the default) or 0 (`INTEGER`); `z` and `w` from
//!   [`RenderOptions`];
//! - a `FACE` input is `(F, 0, 0, 1)` with `F` +1.0 (front) or -1.0
//!   (back); a `FACE` system value `(F, 0, 0, 1)` with `F` 0xffffffff or 0,
//!   as today's TGSI text says;
//! - without a state, every other input is a gradient with `u = (column +
//!   0.5) / W` and `v = (row + 0.5) / H` (row 0 at the top): `COLOR[i]` and
//!   `BCOLOR[i]` are `(u, v, 0, 1)`, any other semantic with index `i`
//!   (`GENERIC[i]`, `TEXCOORD[i]`, ...) is `(u, v, i/8, 1)`; constants are
//!   zero;
//! - with a state, every other input is the state's `input INDEX *` value
//!   (per-lane lines are ignored: lanes are pixels here), and constants,
//!   textures, samplers, system values, buffers and images are the
//!   state's.
//!
//! A quad's lanes are its pixels in the order the backend's derivatives
//! read them: top left, top right, bottom left, bottom right (rows counted
//! from the top of the image), so `DDX` is the change to the right and
//! `DDY` the change downwards. Quads that hang over the right or bottom
//! edge of an odd-sized target run whole; the pixels outside are
//! discarded. Large targets run in bands of at most [`BAND_LANES`]
//! invocations, each a run of its own: memory a shader writes starts
//! afresh in each band.
//!
//! Textures come from images ([`texture`]: the founding text's formats,
//! mipmaps). With several samples ([`samples`]: Direct3D's standard
//! positions), a shader that reads `SAMPLEID` or `SAMPLEPOS` (or any,
//! with [`RenderOptions::per_sample`]) runs once per sample index over the
//! whole target, with `POSITION` and the gradients at the sample; any
//! other runs once at pixel centres and its colour covers every sample.
//! Each sample's colour is converted to 8 bits and a pixel is the rounded
//! mean of its samples. A `POSITION` output's z is the depth image.

use std::io::Write;

use tgsi::{CoordOrigin, File, Item, PixelCenter, Processor, PropertyName, SemanticName};

pub mod compare;
pub mod samples;
pub mod texture;

pub use compare::{compare, Comparison};
pub use samples::SAMPLE_COUNTS;
pub use texture::{BoundTexture, RgbaImage, TextureError, TextureFormat};

/// The largest width or height of a target.
pub const MAX_SIZE: u32 = 8192;

/// The most colour buffers a target has (Gallium's `PIPE_MAX_COLOR_BUFS`).
pub const MAX_CBUFS: u32 = 8;

/// The most invocations one run of the backend gets; larger targets run in
/// bands of whole quad rows.
pub const BAND_LANES: u32 = 1 << 20;

/// Which way the rendered primitive faces.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Face {
    /// Front-facing (the default).
    #[default]
    Front,
    /// Back-facing.
    Back,
}

/// How to render.
#[derive(Clone, Debug, PartialEq)]
pub struct RenderOptions {
    /// The target's width in pixels, 1 to [`MAX_SIZE`].
    pub width: u32,
    /// The target's height in pixels, 1 to [`MAX_SIZE`].
    pub height: u32,
    /// `POSITION.z` of every pixel.
    pub z: f32,
    /// `POSITION.w` of every pixel.
    pub w: f32,
    /// What `FACE` says.
    pub face: Face,
    /// The colour buffers bound, 1 to [`MAX_CBUFS`]: with
    /// `FS_COLOR0_WRITES_ALL_CBUFS`, `COLOR[0]` goes to each of them.
    pub cbufs: u32,
    /// The colour of killed pixels, as floats (converted like outputs).
    pub clear: [f32; 4],
    /// Threads running batches; 0 uses one per core. Results do not
    /// depend on it.
    pub threads: usize,
    /// The execution tier.
    pub backend: exec::Backend,
    /// Samples per pixel, one of [`SAMPLE_COUNTS`], at Direct3D's standard
    /// positions.
    pub samples: u32,
    /// Shade every sample apart even when the shader reads neither
    /// `SAMPLEID` nor `SAMPLEPOS` (which make it so).
    pub per_sample: bool,
    /// Textures bound from images, replacing a state's on their units.
    pub textures: Vec<BoundTexture>,
    /// Samplers set on units, replacing a state's.
    pub samplers: Vec<(u32, exec::Sampler)>,
}

impl RenderOptions {
    /// A `width` x `height` target with the defaults: z 0.5, w 1, front
    /// facing, one colour buffer, clear colour (0, 0, 0, 0), one thread,
    /// one sample, no textures or samplers beyond a state's, the default
    /// tier.
    pub fn new(width: u32, height: u32) -> Self {
        RenderOptions {
            width,
            height,
            z: 0.5,
            w: 1.0,
            face: Face::Front,
            cbufs: 1,
            clear: [0.0; 4],
            threads: 1,
            backend: exec::Backend::default(),
            samples: 1,
            per_sample: false,
            textures: Vec::new(),
            samplers: Vec::new(),
        }
    }
}

/// Why a render failed.
#[derive(Debug, thiserror::Error)]
pub enum RenderError {
    /// The shader is not a fragment shader.
    #[error("render runs fragment shaders (FRAG), not {0} shaders")]
    NotFragment(&'static str),
    /// A width or height of 0 or above [`MAX_SIZE`].
    #[error("a target is 1 to {MAX_SIZE} pixels wide and high, not {0}x{1}")]
    Size(u32, u32),
    /// A colour buffer count of 0 or above [`MAX_CBUFS`].
    #[error("a target has 1 to {MAX_CBUFS} colour buffers, not {0}")]
    Cbufs(u32),
    /// The shader declares no `COLOR` output: there is nothing to draw.
    #[error("the shader declares no COLOR output, so there is no image to write")]
    NoColor,
    /// A band's invocation count a state does not take (none is: bands
    /// hold at most [`BAND_LANES`] lanes).
    #[error(transparent)]
    Invocations(#[from] exec::InvocationCount),
    /// The backend could not run the shader.
    #[error(transparent)]
    Exec(#[from] exec::ExecError),
    /// A depth image was asked of a shader that writes no depth.
    #[error("the shader declares no POSITION output, so there is no depth to write")]
    NoDepth,
    /// A sample count with no standard pattern.
    #[error("a target has 1, 2, 4, 8 or 16 samples, not {0}")]
    Samples(u32),
    /// A texture the backend does not take (none is: images are checked
    /// when read).
    #[error(transparent)]
    Texture(#[from] exec::TextureLevels),
}

/// A rendered target: its colour buffers and, when the shader writes
/// `POSITION` (depth), its depth as a grey image.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Frame {
    /// One image per colour buffer, by buffer index.
    pub colors: Vec<ColorImage>,
    /// The depth output's z, converted as a colour channel is, in red,
    /// green and blue (alpha 255); 1.0 (white) where a pixel was killed.
    pub depth: Option<ColorImage>,
}

/// One colour buffer of a rendered target: 8-bit RGBA pixels, row by row
/// from the top.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ColorImage {
    /// The colour buffer's index (`COLOR[i]` without
    /// `FS_COLOR0_WRITES_ALL_CBUFS`).
    pub buffer: u32,
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// `width * height * 4` bytes: R, G, B, A of each pixel, row 0 first.
    pub pixels: Vec<u8>,
}

impl ColorImage {
    /// The pixel at column `x` of row `y` (row 0 at the top); `None`
    /// outside the image.
    pub fn pixel(&self, x: u32, y: u32) -> Option<[u8; 4]> {
        if x >= self.width || y >= self.height {
            return None;
        }
        let at = (y as usize * self.width as usize + x as usize) * 4;
        self.pixels.get(at..at + 4).and_then(|p| p.try_into().ok())
    }

    /// Writes the image as an 8-bit RGBA PNG (no colour-space chunk).
    pub fn write_png<W: Write>(&self, writer: W) -> Result<(), png::EncodingError> {
        let mut encoder = png::Encoder::new(writer, self.width, self.height);
        encoder.set_color(png::ColorType::Rgba);
        encoder.set_depth(png::BitDepth::Eight);
        let mut writer = encoder.write_header()?;
        writer.write_image_data(&self.pixels)?;
        writer.finish()
    }
}

/// One channel as an 8-bit value: clamped to [0, 1], times 255, rounded
/// to nearest (halves away from zero); NaN is 0.
pub fn channel_to_u8(value: f32) -> u8 {
    if value.is_nan() {
        return 0;
    }
    (value.clamp(0.0, 1.0) * 255.0).round() as u8
}

/// What the shader's declarations and properties say a render needs.
struct Interface {
    origin: CoordOrigin,
    center: PixelCenter,
    color0_all: bool,
    /// Each input register with its semantic (name, index).
    inputs: Vec<(u32, SemanticName, u32)>,
    /// System values the render sets per pixel.
    sysvals: Vec<SemanticName>,
    /// `(colour buffer, OUT register)`, by buffer.
    colors: Vec<(u32, u32)>,
    /// The `POSITION` output (depth in z).
    depth: Option<u32>,
}

impl Interface {
    fn of(module: &ir::Module) -> Interface {
        let mut interface = Interface {
            origin: CoordOrigin::UpperLeft,
            center: PixelCenter::HalfInteger,
            color0_all: false,
            inputs: Vec::new(),
            sysvals: Vec::new(),
            colors: Vec::new(),
            depth: None,
        };
        for item in &module.interface {
            match item {
                Item::Property(p) => match p.name {
                    PropertyName::FsCoordOrigin => {
                        interface.origin = CoordOrigin::from_index(p.value).unwrap_or(CoordOrigin::UpperLeft)
                    }
                    PropertyName::FsCoordPixelCenter => {
                        interface.center = PixelCenter::from_index(p.value).unwrap_or(PixelCenter::HalfInteger)
                    }
                    PropertyName::FsColor0WritesAllCbufs => interface.color0_all = p.value != 0,
                    _ => {}
                },
                // 2-D declarations are for other stages' vertices.
                Item::Declaration(d) if d.dimension.is_none() => {
                    let Some(semantic) = d.semantic else { continue };
                    // A range's registers take consecutive semantic indices.
                    for (k, register) in (d.first..=d.last).enumerate() {
                        let index = u32::from(semantic.index) + k as u32;
                        match d.file {
                            File::Input => interface.inputs.push((register.into(), semantic.name, index)),
                            File::SystemValue => interface.sysvals.push(semantic.name),
                            File::Output if semantic.name == SemanticName::Color => {
                                interface.colors.push((index, register.into()))
                            }
                            File::Output if semantic.name == SemanticName::Position => {
                                interface.depth = interface.depth.or(Some(register.into()))
                            }
                            _ => {}
                        }
                    }
                }
                _ => {}
            }
        }
        interface.colors.sort_unstable();
        interface.colors.dedup_by_key(|&mut (buffer, _)| buffer);
        interface
    }

    /// Whether the shader reads a per-sample system value, which makes
    /// shading per sample.
    fn reads_samples(&self) -> bool {
        self.sysvals.iter().any(|name| matches!(name, SemanticName::SampleId | SemanticName::SamplePos))
    }

    /// `(colour buffer, OUT register)` of each image to write.
    fn buffers(&self, cbufs: u32) -> Vec<(u32, u32)> {
        match self.colors.first() {
            Some(&(0, register)) if self.color0_all => (0..cbufs).map(|buffer| (buffer, register)).collect(),
            _ => self.colors.clone(),
        }
    }
}

/// Where each lane of a band is on the target.
struct Band {
    /// The first quad row of the band.
    first_quad_row: u32,
    /// Quads per row of the target.
    quads_per_row: u32,
    lanes: u32,
}

impl Band {
    /// Column and row (from the top) of `lane`, which may lie outside the
    /// target in quads over its edge.
    fn pixel(&self, lane: u32) -> (u32, u32) {
        let (quad, corner) = (lane / 4, lane % 4);
        let column = (quad % self.quads_per_row) * 2 + (corner & 1);
        let row = (self.first_quad_row + quad / self.quads_per_row) * 2 + (corner >> 1);
        (column, row)
    }

    /// One column of values per channel, `f(column, row)` for each lane.
    fn columns(&self, f: impl Fn(u32, u32) -> [u32; 4]) -> [Vec<u32>; 4] {
        let mut columns: [Vec<u32>; 4] = Default::default();
        for column in &mut columns {
            column.reserve_exact(self.lanes as usize);
        }
        for lane in 0..self.lanes {
            let (x, y) = self.pixel(lane);
            for (column, value) in columns.iter_mut().zip(f(x, y)) {
                column.push(value);
            }
        }
        columns
    }
}

/// Renders `module` (a fragment shader) over a target as [`RenderOptions`]
/// says, with the inputs and resources the module docs describe.
///
/// ```
/// use tgsi_opt::{ir, render, tgsi};
///
/// let text = "FRAG\nDCL IN[0], POSITION, LINEAR\nDCL OUT[0], COLOR\nIMM[0] FLT32 { 0.25, 0.0, 0.0, 1.0 }\n\
///             MUL OUT[0], IN[0].xxxw, IMM[0]\nEND\n";
/// let module = ir::from_tgsi(&tgsi::parse(text)?)?;
/// let frame = render::render(&module, None, &render::RenderOptions::new(2, 1))?;
/// // x = 0.5 and 1.5: red 0.125 and 0.375 of 255, rounded.
/// assert_eq!(frame.colors[0].pixel(0, 0), Some([32, 0, 0, 255]));
/// assert_eq!(frame.colors[0].pixel(1, 0), Some([96, 0, 0, 255]));
/// assert_eq!(frame.depth, None);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn render(module: &ir::Module, state: Option<&exec::State>, options: &RenderOptions) -> Result<Frame, RenderError> {
    render_in_bands(module, state, options, BAND_LANES)
}

/// One shading of every pixel: at the pixel's centre, or at one sample.
#[derive(Clone, Copy)]
struct Shading {
    /// The sample's index and position (x, y in [0, 1], y downwards), when
    /// shading per sample.
    sample: Option<(u32, [f32; 2])>,
}

impl Shading {
    /// The sample's offset from the pixel's centre.
    fn offset(self) -> (f32, f32) {
        self.sample.map_or((0.0, 0.0), |(_, [x, y])| (x - 0.5, y - 0.5))
    }
}

/// What the samples of each pixel add up to, channel by channel, before
/// the resolve divides by their count.
struct Sums {
    colors: Vec<Vec<u32>>,
    depth: Option<Vec<u32>>,
}

/// [`render`] in bands of at most `band_lanes` invocations (at least one
/// quad row each).
fn render_in_bands(
    module: &ir::Module,
    state: Option<&exec::State>,
    options: &RenderOptions,
    band_lanes: u32,
) -> Result<Frame, RenderError> {
    if module.processor != Processor::Fragment {
        return Err(RenderError::NotFragment(module.processor.name()));
    }
    let (width, height) = (options.width, options.height);
    if !(1..=MAX_SIZE).contains(&width) || !(1..=MAX_SIZE).contains(&height) {
        return Err(RenderError::Size(width, height));
    }
    if !(1..=MAX_CBUFS).contains(&options.cbufs) {
        return Err(RenderError::Cbufs(options.cbufs));
    }
    let positions = samples::standard_positions(options.samples).ok_or(RenderError::Samples(options.samples))?;
    let interface = Interface::of(module);
    let buffers = interface.buffers(options.cbufs);
    if buffers.is_empty() {
        return Err(RenderError::NoColor);
    }
    let executable = crate::compile_cache::executable(module, options.backend)?;
    let run_options = exec::RunOptions { threads: options.threads, ..exec::RunOptions::default() };

    // Everything but the inputs comes from the caller's state and the
    // options; the `*` values are read before the inputs are replaced.
    let mut band_state = state.cloned().unwrap_or_default();
    let every_lane: Vec<(u32, [u32; 4])> = interface
        .inputs
        .iter()
        .map(|&(register, ..)| (register, state.and_then(|s| s.input_for_every_lane(register)).unwrap_or_default()))
        .collect();
    band_state.clear_inputs();
    for texture in &options.textures {
        band_state.set_texture(texture.unit, texture.levels())?;
    }
    for &(unit, sampler) in &options.samplers {
        band_state.set_sampler(unit, sampler);
    }
    // Per sample, each pixel is shaded once for every sample; otherwise
    // once at its centre, and that colour covers every sample.
    let shadings: Vec<Shading> = if options.per_sample || interface.reads_samples() {
        band_state.set_sample_positions(positions.clone());
        (0..).zip(positions).map(|(k, p)| Shading { sample: Some((k, p)) }).collect()
    } else {
        band_state.set_sample_positions(Vec::new());
        vec![Shading { sample: None }]
    };

    let pixels = width as usize * height as usize * 4;
    let mut sums =
        Sums { colors: vec![vec![0; pixels]; buffers.len()], depth: interface.depth.map(|_| vec![0; pixels]) };
    let run = Run { executable: &executable, run_options: &run_options, interface: &interface, buffers: &buffers };
    for &shading in &shadings {
        let inputs = BandInputs { from_state: state.is_some(), every_lane: &every_lane, shading };
        run.shade(&mut band_state, &inputs, options, band_lanes, &mut sums)?;
    }
    // The resolve: the mean of the samples' 8-bit values, rounded.
    let n = shadings.len() as u32;
    let resolve = |sum: Vec<u32>| sum.into_iter().map(|v| ((v + n / 2) / n) as u8).collect::<Vec<u8>>();
    let colors = buffers
        .iter()
        .zip(sums.colors)
        .map(|(&(buffer, _), sum)| ColorImage { buffer, width, height, pixels: resolve(sum) })
        .collect();
    let depth = sums.depth.map(|sum| ColorImage { buffer: 0, width, height, pixels: resolve(sum) });
    Ok(Frame { colors, depth })
}

/// What every shading of a render shares.
struct Run<'a> {
    executable: &'a exec::Executable<'a>,
    run_options: &'a exec::RunOptions,
    interface: &'a Interface,
    /// `(colour buffer, OUT register)` of each image.
    buffers: &'a [(u32, u32)],
}

impl Run<'_> {
    /// Shades every pixel once as `inputs.shading` says, band by band,
    /// adding each pixel's 8-bit values to `sums`.
    fn shade(
        &self,
        state: &mut exec::State,
        inputs: &BandInputs<'_>,
        options: &RenderOptions,
        band_lanes: u32,
        sums: &mut Sums,
    ) -> Result<(), RenderError> {
        let (width, height) = (options.width, options.height);
        let quads_per_row = width.div_ceil(2);
        let quad_rows = height.div_ceil(2);
        let rows_per_band = (band_lanes / (4 * quads_per_row)).max(1);
        let clear = options.clear.map(channel_to_u8);
        // Killed pixels keep the cleared depth, 1.0.
        let clear_depth = [255, 255, 255, 255];
        let mut outputs = exec::Outputs::new(0, []);
        let mut first_quad_row = 0;
        while first_quad_row < quad_rows {
            let rows = rows_per_band.min(quad_rows - first_quad_row);
            let band = Band { first_quad_row, quads_per_row, lanes: 4 * quads_per_row * rows };
            // At most BAND_LANES lanes, or one quad row of 4 * 4096: always a
            // count a state takes.
            state.set_invocations(band.lanes)?;
            set_band_inputs(state, &band, self.interface, inputs, options);
            self.executable.run_into(state, self.run_options, &mut outputs)?;
            for lane in 0..band.lanes {
                let (x, y) = band.pixel(lane);
                if x >= width || y >= height {
                    continue;
                }
                let at = (y as usize * width as usize + x as usize) * 4;
                let killed = outputs.is_killed(lane);
                let output = |register: u32| outputs.get(register, lane).unwrap_or_default();
                for (sum, &(_, register)) in sums.colors.iter_mut().zip(self.buffers) {
                    let rgba = match killed {
                        true => clear,
                        false => output(register).map(|v| channel_to_u8(f32::from_bits(v))),
                    };
                    add(&mut sum[at..at + 4], rgba);
                }
                if let (Some(sum), Some(register)) = (sums.depth.as_mut(), self.interface.depth) {
                    let grey = match killed {
                        true => clear_depth,
                        false => {
                            let z = channel_to_u8(f32::from_bits(output(register)[2]));
                            [z, z, z, 255]
                        }
                    };
                    add(&mut sum[at..at + 4], grey);
                }
            }
            first_quad_row += rows;
        }
        Ok(())
    }
}

fn add(sum: &mut [u32], rgba: [u8; 4]) {
    for (s, v) in sum.iter_mut().zip(rgba) {
        *s += u32::from(v);
    }
}

/// Where a band's inputs come from.
struct BandInputs<'a> {
    /// Whether inputs other than POSITION and FACE are the state's.
    from_state: bool,
    /// The state's `input INDEX *` value of each input register.
    every_lane: &'a [(u32, [u32; 4])],
    shading: Shading,
}

/// Sets the inputs and per-pixel system values of `band`'s lanes.
fn set_band_inputs(
    state: &mut exec::State,
    band: &Band,
    interface: &Interface,
    inputs: &BandInputs<'_>,
    options: &RenderOptions,
) {
    let (width, height) = (options.width as f32, options.height as f32);
    let center = match interface.center {
        PixelCenter::HalfInteger => 0.5,
        PixelCenter::Integer => 0.0,
    };
    // Shading a sample: positions and gradients are the sample's.
    let (dx, dy) = inputs.shading.offset();
    let origin = interface.origin;
    let position = |x: u32, y: u32| {
        let y = match origin {
            CoordOrigin::UpperLeft => y as f32 + (center + dy),
            // Rows of quads over the bottom edge go below zero; y grows
            // upwards, so a sample below the centre is lower.
            CoordOrigin::LowerLeft => (i64::from(options.height) - i64::from(y) - 1) as f32 + (center - dy),
        };
        [x as f32 + (center + dx), y, options.z, options.w].map(f32::to_bits)
    };
    let gradient = |x: u32, y: u32, z: f32| {
        [(x as f32 + (0.5 + dx)) / width, (y as f32 + (0.5 + dy)) / height, z, 1.0].map(f32::to_bits)
    };
    let face = match options.face {
        Face::Front => 1.0f32,
        Face::Back => -1.0,
    };
    for (&(register, name, index), &(_, value)) in interface.inputs.iter().zip(inputs.every_lane) {
        let columns = match name {
            SemanticName::Position => band.columns(position),
            SemanticName::Face => band.columns(|_, _| [face, 0.0, 0.0, 1.0].map(f32::to_bits)),
            _ if inputs.from_state => {
                state.set_input(register, value);
                continue;
            }
            SemanticName::Color | SemanticName::BColor => band.columns(|x, y| gradient(x, y, 0.0)),
            _ => band.columns(|x, y| gradient(x, y, index as f32 / 8.0)),
        };
        state.set_input_lanes(register, columns);
    }
    for &name in &interface.sysvals {
        let columns = match (name, inputs.shading.sample) {
            (SemanticName::Position, _) => band.columns(position),
            (SemanticName::Face, _) => {
                let front = if options.face == Face::Front { u32::MAX } else { 0 };
                band.columns(|_, _| [front, 0, 0, 1])
            }
            (SemanticName::SampleId, Some((k, _))) => band.columns(|_, _| [k, 0, 0, 0]),
            (SemanticName::SamplePos, Some((_, [x, y]))) => band.columns(|_, _| [x.to_bits(), y.to_bits(), 0, 0]),
            _ => continue,
        };
        state.set_sysval_lanes(name, columns);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn channels_clamp_round_and_zero_nan() {
        assert_eq!(channel_to_u8(f32::NAN), 0);
        assert_eq!(channel_to_u8(-1.0), 0);
        assert_eq!(channel_to_u8(2.0), 255);
        assert_eq!(channel_to_u8(f32::INFINITY), 255);
        assert_eq!(channel_to_u8(0.5), 128, "127.5 rounds away from zero");
        assert_eq!(channel_to_u8(1.0 / 255.0), 1);
    }

    #[test]
    fn bands_give_the_picture_one_run_gives() {
        let text = "FRAG\nPROPERTY FS_COORD_ORIGIN LOWER_LEFT\nDCL IN[0], POSITION, LINEAR\n\
                    DCL IN[1], GENERIC[0], PERSPECTIVE\nDCL OUT[0], COLOR\nDCL TEMP[0]\n\
                    IMM[0] FLT32 { 0.1, 0.0, 0.0, 0.0 }\nDDY TEMP[0].x, IN[1].yyyy\n\
                    MUL OUT[0].xy, IN[0].xyyy, IMM[0].xxxx\nMOV OUT[0].z, IN[1].xxxx\n\
                    ADD OUT[0].w, TEMP[0].xxxx, IN[1].yyyy\nEND\n";
        let module = ir::from_tgsi(&tgsi::parse(text).expect("parses")).expect("builds");
        let options = RenderOptions::new(5, 7);
        let whole = render(&module, None, &options).expect("renders");
        // 3 quads a row: bands of 8 lanes are one quad row each.
        for band_lanes in [8, 24, 36] {
            assert_eq!(render_in_bands(&module, None, &options, band_lanes).expect("renders"), whole);
        }
    }

    #[test]
    fn lanes_are_quads_row_by_row() {
        let band = Band { first_quad_row: 1, quads_per_row: 2, lanes: 16 };
        let pixels: Vec<_> = (0..8).map(|lane| band.pixel(lane)).collect();
        assert_eq!(pixels, [(0, 2), (1, 2), (0, 3), (1, 3), (2, 2), (3, 2), (2, 3), (3, 3)]);
        assert_eq!(band.pixel(8), (0, 4));
    }
}
