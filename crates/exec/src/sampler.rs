//! The built-in sampler the texture instructions use.

use crate::program::TexOp;
use crate::State;

/// The built-in sampler: 2D, one level, nearest filtering, repeat
/// wrapping, as the reference harness sampled. An unbound unit samples
/// as (0, 0, 0, 1).
pub(crate) fn sample(state: &State, op: TexOp, unit: u32, c: [u32; 4]) -> [u32; 4] {
    match (op, state.texture(unit)) {
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
            let (w, h) = (tex.width() as i64, tex.height() as i64);
            let x = (x86_int(s * w as f32) as i64).rem_euclid(w);
            let y = (x86_int(t * h as f32) as i64).rem_euclid(h);
            tex.texel(x as u32, y as u32)
        }
    }
}

/// `floor(v)` converted to an integer as C does on x86: NaN and values out
/// of range give `i32::MIN`.
fn x86_int(v: f32) -> i32 {
    let f = v.floor();
    if f.is_nan() || f < i32::MIN as f32 || f >= 2147483648.0 {
        i32::MIN
    } else {
        f as i32
    }
}
