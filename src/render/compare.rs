//! Two renders of one target compared pixel by pixel (`render
//! --compare`: before and after the passes).

use std::fmt;

use super::{ColorImage, Frame};

/// A pixel that differs between two renders.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PixelDifference {
    /// The colour buffer.
    pub buffer: u32,
    /// Column.
    pub x: u32,
    /// Row from the top.
    pub y: u32,
    /// The first render's RGBA.
    pub before: [u8; 4],
    /// The second render's RGBA.
    pub after: [u8; 4],
}

impl fmt::Display for PixelDifference {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (b, a) = (self.before, self.after);
        write!(f, "COLOR[{}] at ({}, {}): {b:?} before, {a:?} after", self.buffer, self.x, self.y)
    }
}

/// How two renders differ.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Comparison {
    /// One image per colour buffer: opaque black where the renders agree
    /// on all four channels, opaque white where they do not.
    pub differences: Vec<ColorImage>,
    /// How many pixels differ, over every buffer.
    pub differing: u64,
    /// The first pixel that differs, by buffer, then row, then column.
    pub first: Option<PixelDifference>,
}

/// Compares the colour buffers of two renders of the same target and
/// shader interface (`before` and `after` the passes).
pub fn compare(before: &Frame, after: &Frame) -> Comparison {
    let mut comparison = Comparison { differences: Vec::new(), differing: 0, first: None };
    for (b, a) in before.colors.iter().zip(&after.colors) {
        let mut pixels = Vec::with_capacity(b.pixels.len());
        for (k, (pb, pa)) in b.pixels.chunks_exact(4).zip(a.pixels.chunks_exact(4)).enumerate() {
            if pb == pa {
                pixels.extend([0, 0, 0, 255]);
                continue;
            }
            pixels.extend([255; 4]);
            comparison.differing += 1;
            if comparison.first.is_none() {
                let (x, y) = (k as u32 % b.width, k as u32 / b.width);
                let rgba = |p: &[u8]| [p[0], p[1], p[2], p[3]];
                let first = PixelDifference { buffer: b.buffer, x, y, before: rgba(pb), after: rgba(pa) };
                comparison.first = Some(first);
            }
        }
        comparison.differences.push(ColorImage { buffer: b.buffer, width: b.width, height: b.height, pixels });
    }
    comparison
}
