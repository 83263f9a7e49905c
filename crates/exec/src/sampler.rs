//! The built-in sampler the texture instructions use.
//!
//! 2D, RGBA texels as the state gives them. Sampling (`TEX`, `TXP`,
//! `TXB`, `TXL`, `TXD`, ...) uses the unit's [`Sampler`]: `nearest repeat`
//! unless the state says otherwise, exactly as the reference harness
//! sampled. `TXF` fetches and the queries ignore filter and wrap. An
//! unbound unit samples as (0, 0, 0, 1).
//!
//! A texture of one level (every texture the text format makes) ignores
//! the level of detail, level operands and biases. A mipmapped one
//! ([`State::set_texture`]) filters within one level, the nearest to the
//! level of detail (nearest-mip, Mesa's `mip_filter_nearest`): level
//! `int(lambda + 0.5)` clamped to the levels, where `lambda` is
//! - implicit (`TEX`, `TXP`, `SAMPLE` in a fragment shader): `log2(rho)`,
//!   `rho = max(max(|ds/dx|, |ds/dy|) * W, max(|dt/dx|, |dt/dy|) * H)` with
//!   W, H level 0's size and the differences taken across the lane's 2x2
//!   quad as coarse `DDX`/`DDY` take them (softpipe's `compute_lambda_2d`);
//!   0 outside fragment shaders;
//! - that plus the bias (`TXB`: the coordinate's w; `SAMPLE_B`);
//! - the level given (`TXL`: the coordinate's w; `SAMPLE_L`);
//! - `log2(rho)` of the derivatives given (`TXD`, `SAMPLE_D`).
//!
//! `TXF` reads the level in its coordinate's w (zeros past the last level)
//! and `TXQ` answers `(width, height, 0, levels)` of the level in its
//! operand's x (`(0, 0, 0, levels)` past the last). `TXQS` is 1 (textures
//! have one sample); `SAMPLE_INFO` and `SAMPLE_POS` on the render target
//! answer from [`State::set_sample_positions`].
//!
//! With `s`, `t` the coordinates (divided by `q` first for `TXP`, in f32)
//! and `W`, `H` the texture size, all arithmetic in f32 with round to
//! nearest and no fused operations:
//!
//! - nearest: column `i = int(floor(s * W))`, row likewise with `t * H`,
//!   where `int` is C's conversion on x86 (`i32::MIN` for NaN and values out
//!   of the `i32` range); `repeat` takes `i mod W` (Euclidean, so -1 is
//!   `W - 1`), `clamp` takes `clamp(i, 0, W - 1)`.
//! - linear: `u = s * W - 0.5`, `i0 = int(floor(u))`, `i1 = i0 + 1`,
//!   `a = u - floor(u)`; `v`, `j0`, `j1`, `b` likewise from `t * H`. Each of
//!   `i0`, `i1`, `j0`, `j1` is wrapped as for nearest. With `tXY` the texel at
//!   column `iX`, row `jY` read as four f32 channels, each channel is
//!   `lerp(lerp(t00, t10, a), lerp(t01, t11, a), b)` where
//!   `lerp(x, y, f) = x + f * (y - x)`, in that order. Texels are filtered
//!   as floats whatever they hold (integer textures are not filtered apart).
//!
//! So a NaN coordinate reads, with nearest filtering, the texel at index
//! `i32::MIN` wrapped (`-2^31 mod W` for repeat, 0 for clamp), as does an
//! infinite one; with linear filtering its fraction is NaN and every channel
//! is NaN.

use crate::program::{Lod, TexOp, TEX_OPERANDS};
use crate::state::{Filter, Sampler, State, Texture, Wrap};

/// How many of a texture step's operands `op` reads (the others are
/// placeholders).
pub(crate) fn operands_read(op: TexOp) -> usize {
    match op {
        TexOp::Sample(Lod::Gradients) | TexOp::Project(Lod::Gradients) => 8,
        TexOp::Sample(Lod::Bias { .. } | Lod::Explicit) | TexOp::Project(Lod::Bias { .. } | Lod::Explicit) => 5,
        TexOp::Sample(_) | TexOp::Project(_) | TexOp::Fetch { .. } => 4,
        TexOp::Query | TexOp::SamplePosition { .. } => 1,
        TexOp::SampleCount { .. } => 0,
    }
}

/// Runs one texture instruction of lane `lane` on the unit's texture
/// (`None` when the state binds none): `operands[k][lane]` are the
/// coordinates (or the integer texel position of a fetch) as bits, then
/// the level of detail's operands or a query's level or sample index; the
/// result is four channels of bits. No allocation: it is called per lane.
fn sample(
    state: &State,
    texture: Option<&Texture>,
    op: TexOp,
    operands: &[&[u32]; TEX_OPERANDS],
    lane: usize,
) -> [u32; 4] {
    let c = |k: usize| operands[k].get(lane).copied().unwrap_or(0);
    match (op, texture) {
        (TexOp::SampleCount { target }, _) => {
            let n = if target { state.sample_count().max(1) } else { 1 };
            [n, 0, 0, 0]
        }
        (TexOp::SamplePosition { target: true }, _) => match state.sample_position(c(0)) {
            Some([x, y]) => [x.to_bits(), y.to_bits(), 0, 0],
            None => [0; 4],
        },
        (TexOp::SamplePosition { target: false }, _) => [0; 4],
        (TexOp::Query | TexOp::Fetch { .. }, None) => [0; 4],
        (TexOp::Sample(_) | TexOp::Project(_), None) => [0, 0, 0, 1.0f32.to_bits()],
        (TexOp::Query, Some(tex)) if tex.levels() == 1 => [tex.width(), tex.height(), 0, 1],
        (TexOp::Query, Some(tex)) => match tex.level_size(c(0)) {
            Some((w, h)) => [w, h, 0, tex.levels()],
            None => [0, 0, 0, tex.levels()],
        },
        (TexOp::Fetch { level }, Some(tex)) => {
            let level = if level && tex.levels() > 1 { c(3) } else { 0 };
            let Some((w, h)) = tex.level_size(level) else { return [0; 4] };
            let (x, y) = (c(0) as i32, c(1) as i32);
            if (0..w as i64).contains(&(x as i64)) && (0..h as i64).contains(&(y as i64)) {
                Surface::of(tex, level).texel(x as u32, y as u32)
            } else {
                [0; 4]
            }
        }
        (TexOp::Sample(lod) | TexOp::Project(lod), Some(tex)) => {
            let project = matches!(op, TexOp::Project(_));
            let (s, t) = coordinate(operands, lane, project);
            let level = if tex.levels() == 1 { 0 } else { pick_level(tex, lod, project, operands, lane) };
            filter(Surface::of(tex, level), tex.sampler(), s, t)
        }
    }
}

/// Lane `lane`'s (s, t), divided by q first when `project`.
fn coordinate(operands: &[&[u32]; TEX_OPERANDS], lane: usize, project: bool) -> (f32, f32) {
    let c = |k: usize| f32::from_bits(operands[k].get(lane).copied().unwrap_or(0));
    match project {
        true => (c(0) / c(3), c(1) / c(3)),
        false => (c(0), c(1)),
    }
}

/// The level a lane samples from a texture of several levels: the level
/// of detail `lambda` as `lod` says, then the nearest level,
/// `int(lambda + 0.5)` clamped to the texture's levels (Mesa's
/// `mip_filter_nearest`; NaN gives level 0).
fn pick_level(tex: &Texture, lod: Lod, project: bool, operands: &[&[u32]; TEX_OPERANDS], lane: usize) -> u32 {
    let f = |k: usize| f32::from_bits(operands[k].get(lane).copied().unwrap_or(0));
    let lambda = match lod {
        Lod::Zero => 0.0,
        Lod::Implicit => implicit_lambda(tex, project, operands, lane),
        Lod::Bias { implicit: true } => implicit_lambda(tex, project, operands, lane) + f(4),
        Lod::Bias { implicit: false } | Lod::Explicit => f(4),
        Lod::Gradients => lambda(tex, (f(4), f(6)), (f(5), f(7))),
    };
    let nearest = lambda + 0.5;
    if nearest >= 1.0 {
        // Saturating: +inf is the last level.
        (nearest as u32).min(tex.levels() - 1)
    } else {
        0
    }
}

/// The level of detail from the lane's quad (lanes `4k..4k + 3`: top
/// left, top right, bottom left, bottom right): the coordinates'
/// differences along the bottom row and the left column, as `DDX` and
/// `DDY` take them and as softpipe's `compute_lambda_2d` does.
fn implicit_lambda(tex: &Texture, project: bool, operands: &[&[u32]; TEX_OPERANDS], lane: usize) -> f32 {
    let quad = lane & !3;
    let (s0, t0) = coordinate(operands, quad, project);
    let (s2, t2) = coordinate(operands, quad + 2, project);
    let (s3, t3) = coordinate(operands, quad + 3, project);
    lambda(tex, (s3 - s2, s0 - s2), (t3 - t2, t0 - t2))
}

/// `log2(rho)`, `rho` the larger of `max(|ds/dx|, |ds/dy|) * W` and
/// `max(|dt/dx|, |dt/dy|) * H`, with W and H level 0's size (softpipe's
/// rule; `-inf` when the coordinates do not change).
fn lambda(tex: &Texture, (dsdx, dsdy): (f32, f32), (dtdx, dtdy): (f32, f32)) -> f32 {
    let max_x = dsdx.abs().max(dsdy.abs()) * tex.width() as f32;
    let max_y = dtdx.abs().max(dtdy.abs()) * tex.height() as f32;
    max_x.max(max_y).log2()
}

/// [`sample`] for every lane of a batch: lane `l` reads its operands from
/// `operands[k][l]` and gets `out[l]`. The choices that do not depend on
/// the lane are made once.
#[inline(always)]
pub(crate) fn sample_lanes(
    state: &State,
    unit: u32,
    op: TexOp,
    operands: [&[u32]; TEX_OPERANDS],
    out: &mut [[u32; 4]],
) {
    sample_chunks::<MAX_LANES>(state, state.texture(unit), op, operands, out);
}

/// [`sample_lanes`] for one quad, as compiled code calls it: the same
/// per-lane rules, with room for four lanes only, and the texture already
/// looked up (`None` when the unit has none).
#[inline(always)]
pub(crate) fn sample_quad(
    state: &State,
    texture: Option<&Texture>,
    op: TexOp,
    operands: [&[u32]; TEX_OPERANDS],
    out: &mut [[u32; 4]; 4],
) {
    sample_chunks::<4>(state, texture, op, operands, out);
}

/// [`sample_lanes`] in chunks of `N` lanes (the room its nearest path's
/// positions take on the stack).
#[inline(always)]
fn sample_chunks<'a, const N: usize>(
    state: &State,
    texture: Option<&Texture>,
    op: TexOp,
    operands: [&'a [u32]; TEX_OPERANDS],
    out: &mut [[u32; 4]],
) {
    let [s, t, _, q, ..] = operands;
    let f = f32::from_bits;
    match (op, texture) {
        (TexOp::Sample(_) | TexOp::Project(_), Some(tex))
            if tex.sampler().filter == Filter::Nearest && tex.levels() == 1 =>
        {
            let project = matches!(op, TexOp::Project(_));
            // Floored positions first, in loops with no lookups and no
            // conversions to integers (so they vectorize), then the lookups.
            let (w, h) = (tex.width() as f32, tex.height() as f32);
            let (mut xs, mut ys) = ([0f32; N], [0f32; N]);
            for (k, out) in out.chunks_mut(N).enumerate() {
                let from = |c: &'a [u32]| c.get(k * N..).unwrap_or_default();
                let (s, t, q) = (from(s), from(t), from(q));
                if project {
                    for ((x, &s), &q) in xs.iter_mut().zip(s).zip(q) {
                        *x = semantics::floor(f(s) / f(q) * w);
                    }
                    for ((y, &t), &q) in ys.iter_mut().zip(t).zip(q) {
                        *y = semantics::floor(f(t) / f(q) * h);
                    }
                } else {
                    xs.iter_mut().zip(s).for_each(|(x, &s)| *x = semantics::floor(f(s) * w));
                    ys.iter_mut().zip(t).for_each(|(y, &t)| *y = semantics::floor(f(t) * h));
                }
                let (width, height) = (tex.width(), tex.height());
                match nearest_repeat_texels(tex) {
                    // The common case, decided once: `wrap_index` of a
                    // power-of-two size is the low bits, and the index is
                    // then inside the array.
                    Some(texels) => {
                        let (mx, my) = (width as i32 - 1, height as i32 - 1);
                        let mut at = [0usize; N];
                        for ((i, &x), &y) in at.iter_mut().zip(&xs).zip(&ys) {
                            *i = (int_of_integral(y) & my) as usize * width as usize
                                + (int_of_integral(x) & mx) as usize;
                        }
                        for (o, &i) in out.iter_mut().zip(&at) {
                            *o = texels.get(i).copied().unwrap_or_default();
                        }
                    }
                    None => {
                        let surface = Surface::of(tex, 0);
                        for ((o, &x), &y) in out.iter_mut().zip(&xs).zip(&ys) {
                            *o = nearest_texel(surface, tex.sampler().wrap, int_of_integral(x), int_of_integral(y));
                        }
                    }
                }
            }
        }
        _ => {
            for (l, o) in out.iter_mut().enumerate() {
                *o = sample(state, texture, op, &operands, l);
            }
        }
    }
}

/// The texels of `tex` when sampling it is the common case, whose
/// lanes compute their texel's index alone: one level of dense texels,
/// sampled nearest, REPEAT on power-of-two sizes (`wrap_index` is then
/// the low bits). A lane at (s, t) (divided by q first for TXP) reads
/// texel `(int(floor(t * H)) & (H - 1)) * W + (int(floor(s * W)) & (W -
/// 1))`, `int` as `x86_int` converts. The whole-program code samples such
/// textures itself (`jit::texture`).
pub(crate) fn nearest_repeat_texels(tex: &Texture) -> Option<&[[u32; 4]]> {
    let sampler = tex.sampler();
    let pow2 = tex.width().is_power_of_two() && tex.height().is_power_of_two();
    let common = sampler.filter == Filter::Nearest && sampler.wrap == Wrap::Repeat && tex.levels() == 1 && pow2;
    common.then(|| tex.dense_texels()).flatten()
}

/// Lanes [`sample_lanes`] takes at a time (a batch has at most 64).
const MAX_LANES: usize = 64;

/// One level of a texture, as filtering reads it.
#[derive(Clone, Copy)]
struct Surface<'a> {
    tex: &'a Texture,
    level: u32,
    width: u32,
    height: u32,
}

impl<'a> Surface<'a> {
    /// Level `level` of `tex` (an empty surface past the last level, which
    /// callers never ask for).
    #[inline(always)]
    fn of(tex: &'a Texture, level: u32) -> Surface<'a> {
        let (width, height) = tex.level_size(level).unwrap_or((1, 1));
        Surface { tex, level, width, height }
    }

    #[inline(always)]
    fn texel(&self, x: u32, y: u32) -> [u32; 4] {
        match self.level {
            0 => self.tex.texel(x, y),
            level => self.tex.level_texel(level, x, y),
        }
    }
}

/// The texel of `surface` nearest to `(s, t)`, with `wrap`.
fn nearest(surface: Surface<'_>, wrap: Wrap, s: f32, t: f32) -> [u32; 4] {
    // `s * W` then floor, as the reference harness computed it.
    nearest_texel(surface, wrap, x86_int(s * surface.width as f32), x86_int(t * surface.height as f32))
}

/// The texel at column `x`, row `y` of `surface` once wrapped.
#[inline(always)]
fn nearest_texel(surface: Surface<'_>, wrap: Wrap, x: i32, y: i32) -> [u32; 4] {
    let (w, h) = (surface.width as i64, surface.height as i64);
    surface.texel(wrap_index(x as i64, w, wrap), wrap_index(y as i64, h, wrap))
}

/// Samples `surface` at `(s, t)` with `sampler`'s filter and wrap.
fn filter(surface: Surface<'_>, sampler: Sampler, s: f32, t: f32) -> [u32; 4] {
    let (w, h) = (surface.width as i64, surface.height as i64);
    let wrap = sampler.wrap;
    match sampler.filter {
        Filter::Nearest => nearest(surface, wrap, s, t),
        Filter::Linear => {
            let (i0, i1, a) = linear_axis(s, w, wrap);
            let (j0, j1, b) = linear_axis(t, h, wrap);
            let (t00, t10) = (surface.texel(i0, j0), surface.texel(i1, j0));
            let (t01, t11) = (surface.texel(i0, j1), surface.texel(i1, j1));
            let f = f32::from_bits;
            let mut out = [0; 4];
            for (k, slot) in out.iter_mut().enumerate() {
                let top = lerp(f(t00[k]), f(t10[k]), a);
                let bottom = lerp(f(t01[k]), f(t11[k]), a);
                *slot = lerp(top, bottom, b).to_bits();
            }
            out
        }
    }
}

/// One axis of bilinear filtering: the two wrapped indices and the weight
/// of the second.
fn linear_axis(coord: f32, size: i64, wrap: Wrap) -> (u32, u32, f32) {
    let u = coord * size as f32 - 0.5;
    // i64, so that `i0 + 1` cannot overflow whatever `x86_int` gives.
    let i0 = x86_int(u) as i64;
    // Exact: the fractional part of an f32 is an f32. NaN and infinities
    // give NaN.
    let frac = u - semantics::floor(u);
    (wrap_index(i0, size, wrap), wrap_index(i0 + 1, size, wrap), frac)
}

/// `x + f * (y - x)`: unfused, in this order, so results are reproducible
/// bit for bit.
fn lerp(x: f32, y: f32, f: f32) -> f32 {
    x + f * (y - x)
}

/// An index brought into `0..size` (`size` is at least 1).
fn wrap_index(i: i64, size: i64, wrap: Wrap) -> u32 {
    match wrap {
        // Most coordinates fall inside: no division for them.
        Wrap::Repeat if (0..size).contains(&i) => i as u32,
        // A power of two: the remainder is the low bits (negative `i`
        // included, in two's complement), no division.
        Wrap::Repeat if size & (size - 1) == 0 => (i & (size - 1)) as u32,
        Wrap::Repeat => i.rem_euclid(size) as u32,
        Wrap::Clamp => i.clamp(0, size - 1) as u32,
    }
}

/// `floor(v)` converted to an integer as C does on x86: NaN and values out
/// of range give `i32::MIN`.
fn x86_int(v: f32) -> i32 {
    int_of_integral(semantics::floor(v))
}

/// An integral `f` (or NaN) converted as C does on x86, see [`x86_int`].
#[inline(always)]
fn int_of_integral(f: f32) -> i32 {
    // False for NaN too.
    if f >= i32::MIN as f32 && f < 2147483648.0 {
        f as i32
    } else {
        i32::MIN
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn indices_wrap_and_clamp() {
        assert_eq!((wrap_index(-1, 4, Wrap::Repeat), wrap_index(-1, 4, Wrap::Clamp)), (3, 0));
        assert_eq!((wrap_index(5, 4, Wrap::Repeat), wrap_index(5, 4, Wrap::Clamp)), (1, 3));
        let min = i32::MIN as i64;
        assert_eq!((wrap_index(min, 3, Wrap::Repeat), wrap_index(min, 3, Wrap::Clamp)), (1, 0));
        assert_eq!(wrap_index(i32::MAX as i64 + 1, 8192, Wrap::Clamp), 8191);
    }

    #[test]
    fn repeat_of_a_power_of_two_size_is_the_euclidean_remainder() {
        let min = i32::MIN as i64;
        let indices = [0, 1, -1, 3, 4, 5, -4, -5, 1023, -1025, min, min - 1, i32::MAX as i64 + 1];
        for size in [1i64, 2, 4, 8, 64, 4096] {
            for i in indices {
                assert_eq!(wrap_index(i, size, Wrap::Repeat), i.rem_euclid(size) as u32, "{i} wrapped to {size}");
            }
        }
    }

    /// The batch path's nearest sampling (floored positions first, the
    /// power-of-two repeat case apart) gives the per-lane rule's texels.
    #[test]
    fn nearest_batch_path_matches_the_per_lane_rule() {
        let odd = [0.0f32, -0.0, 0.3, -0.3, 0.999, 1.0, -1.0, 7.49, -7.51, 1e30, -1e30, 3e9, f32::NAN, f32::INFINITY];
        let lanes = 64;
        let column = |salt: usize| -> Vec<u32> {
            (0..lanes).map(|l| odd[(l * 7 + salt * 3 + l / 5) % odd.len()].to_bits()).collect()
        };
        let (s, t, q) = (column(0), column(1), column(2));
        let empty: &[u32] = &[];
        let operands = [&s[..], &t[..], empty, &q[..], empty, empty, empty, empty];
        for (w, h) in [(8, 4), (4, 8), (1, 2), (3, 4), (6, 5)] {
            for wrap in [Wrap::Repeat, Wrap::Clamp] {
                let mut state = State::new(lanes as u32).unwrap();
                let texels = (0..w * h).map(|i| [i, i * 3, 7, 9]).collect();
                state.set_texture(0, vec![crate::TextureLevel { width: w, height: h, texels }]).unwrap();
                state.set_sampler(0, Sampler { filter: Filter::Nearest, wrap });
                for op in [TexOp::Sample(Lod::Zero), TexOp::Project(Lod::Zero)] {
                    let mut out = vec![[0; 4]; lanes];
                    sample_lanes(&state, 0, op, operands, &mut out);
                    for (l, got) in out.iter().enumerate() {
                        let want = sample(&state, state.texture(0), op, &operands, l);
                        assert_eq!(*got, want, "{w}x{h} {wrap:?} {op:?} lane {l}");
                    }
                }
            }
        }
    }

    #[test]
    fn linear_axis_of_odd_coordinates() {
        assert_eq!(linear_axis(0.5, 2, Wrap::Repeat), (0, 1, 0.5));
        assert_eq!(linear_axis(-0.25, 4, Wrap::Repeat), (2, 3, 0.5));
        assert_eq!(linear_axis(1.25, 4, Wrap::Clamp), (3, 3, 0.5));
        let (i0, i1, a) = linear_axis(f32::NAN, 3, Wrap::Repeat);
        assert_eq!((i0, i1), (1, 2));
        assert!(a.is_nan());
        let (i0, i1, a) = linear_axis(f32::INFINITY, 3, Wrap::Clamp);
        assert_eq!((i0, i1), (0, 0));
        assert!(a.is_nan());
        assert_eq!(linear_axis(1e30, 4, Wrap::Clamp), (0, 0, 0.0), "huge: integral, index i32::MIN");
    }
}
