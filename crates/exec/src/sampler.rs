//! The built-in sampler the texture instructions use.
//!
//! 2D, one level, RGBA texels as the state gives them. Sampling (`TEX`,
//! `TXP`, `TXB`, `TXL`, `TXD`, ...; level of detail is ignored) uses the
//! unit's [`Sampler`]: `nearest repeat` unless the state says otherwise,
//! exactly as the reference harness sampled. `TXF` fetches and the queries
//! ignore filter and wrap. An unbound unit samples as (0, 0, 0, 1).
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

use crate::program::TexOp;
use crate::state::{Filter, Sampler, Texture, Wrap};

/// Runs one texture instruction of one lane on the unit's texture (`None`
/// when the state binds none): `c` are the coordinates (or
/// the integer texel position of a fetch) as bits, the result is four
/// channels of bits. No allocation: it is called per lane.
pub(crate) fn sample(texture: Option<&Texture>, op: TexOp, c: [u32; 4]) -> [u32; 4] {
    match (op, texture) {
        (TexOp::SampleCount, _) => [1, 0, 0, 0],
        (TexOp::SamplePosition, _) => [0; 4],
        (TexOp::Query | TexOp::Fetch, None) => [0; 4],
        (TexOp::Sample | TexOp::Project, None) => [0, 0, 0, 1.0f32.to_bits()],
        (TexOp::Query, Some(tex)) => [tex.width(), tex.height(), 0, 1],
        (TexOp::Fetch, Some(tex)) => {
            let (x, y) = (c[0] as i32, c[1] as i32);
            if (0..tex.width() as i64).contains(&(x as i64)) && (0..tex.height() as i64).contains(&(y as i64)) {
                tex.texel(x as u32, y as u32)
            } else {
                [0; 4]
            }
        }
        (TexOp::Sample | TexOp::Project, Some(tex)) => {
            let (mut s, mut t) = (f32::from_bits(c[0]), f32::from_bits(c[1]));
            if op == TexOp::Project {
                let q = f32::from_bits(c[3]);
                s /= q;
                t /= q;
            }
            filter(tex, tex.sampler(), s, t)
        }
    }
}

/// [`sample`] for every lane of a batch: lane `l` reads its coordinates
/// from `coords[k][l]` and gets `out[l]`. The choices that do not depend
/// on the lane are made once.
#[inline(always)]
pub(crate) fn sample_lanes<'a>(texture: Option<&Texture>, op: TexOp, coords: [&'a [u32]; 4], out: &mut [[u32; 4]]) {
    let [s, t, _, q] = coords;
    let f = f32::from_bits;
    match (op, texture) {
        (TexOp::Sample | TexOp::Project, Some(tex)) if tex.sampler().filter == Filter::Nearest => {
            // Floored positions first, in loops with no lookups and no
            // conversions to integers (so they vectorize), then the lookups.
            let (w, h) = (tex.width() as f32, tex.height() as f32);
            let (mut xs, mut ys) = ([0f32; MAX_LANES], [0f32; MAX_LANES]);
            for (k, out) in out.chunks_mut(MAX_LANES).enumerate() {
                let from = |c: &'a [u32]| c.get(k * MAX_LANES..).unwrap_or_default();
                let (s, t, q) = (from(s), from(t), from(q));
                if op == TexOp::Project {
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
                for ((o, &x), &y) in out.iter_mut().zip(&xs).zip(&ys) {
                    *o = nearest_texel(tex, int_of_integral(x), int_of_integral(y));
                }
            }
        }
        _ => {
            for (l, o) in out.iter_mut().enumerate() {
                *o = sample(texture, op, coords.map(|c| c.get(l).copied().unwrap_or(0)));
            }
        }
    }
}

/// Lanes [`sample_lanes`] takes at a time (a batch has at most 64).
const MAX_LANES: usize = 64;

/// The texel of `tex` nearest to `(s, t)`, with its sampler's wrap.
fn nearest(tex: &Texture, s: f32, t: f32) -> [u32; 4] {
    // `s * W` then floor, as the reference harness computed it.
    nearest_texel(tex, x86_int(s * tex.width() as f32), x86_int(t * tex.height() as f32))
}

/// The texel at column `x`, row `y` of `tex` once wrapped.
#[inline(always)]
fn nearest_texel(tex: &Texture, x: i32, y: i32) -> [u32; 4] {
    let wrap = tex.sampler().wrap;
    tex.texel(wrap_index(x as i64, tex.width() as i64, wrap), wrap_index(y as i64, tex.height() as i64, wrap))
}

/// Samples `tex` at `(s, t)` with `sampler`'s filter and wrap.
fn filter(tex: &Texture, sampler: Sampler, s: f32, t: f32) -> [u32; 4] {
    let (w, h) = (tex.width() as i64, tex.height() as i64);
    let wrap = sampler.wrap;
    match sampler.filter {
        Filter::Nearest => nearest(tex, s, t),
        Filter::Linear => {
            let (i0, i1, a) = linear_axis(s, w, wrap);
            let (j0, j1, b) = linear_axis(t, h, wrap);
            let (t00, t10) = (tex.texel(i0, j0), tex.texel(i1, j0));
            let (t01, t11) = (tex.texel(i0, j1), tex.texel(i1, j1));
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
