//! Direct3D's standard multisample patterns
//! (`D3D11_STANDARD_MULTISAMPLE_PATTERN`): where each sample of a pixel
//! lies, in sixteenths of a pixel from its centre, x to the right and y
//! downwards.

/// The sample counts a render target may have.
pub const SAMPLE_COUNTS: [u32; 5] = [1, 2, 4, 8, 16];

const ONE: [(i8, i8); 1] = [(0, 0)];
const TWO: [(i8, i8); 2] = [(4, 4), (-4, -4)];
const FOUR: [(i8, i8); 4] = [(-2, -6), (6, -2), (-6, 2), (2, 6)];
const EIGHT: [(i8, i8); 8] = [(1, -3), (-1, 3), (5, 1), (-3, -5), (-5, 5), (-7, -1), (3, 7), (7, -7)];
const SIXTEEN: [(i8, i8); 16] = [
    (1, 1),
    (-1, -3),
    (-3, 2),
    (4, -1),
    (-5, -2),
    (2, 5),
    (5, 3),
    (3, -5),
    (-2, 6),
    (0, -7),
    (-4, -6),
    (-6, 4),
    (-8, 0),
    (7, -4),
    (6, 7),
    (-7, -8),
];

/// The standard pattern of `count` samples as offsets in sixteenths of a
/// pixel from its centre, by sample index; `None` for a count that has
/// none (not in [`SAMPLE_COUNTS`]).
pub fn standard_offsets(count: u32) -> Option<&'static [(i8, i8)]> {
    match count {
        1 => Some(&ONE),
        2 => Some(&TWO),
        4 => Some(&FOUR),
        8 => Some(&EIGHT),
        16 => Some(&SIXTEEN),
        _ => None,
    }
}

/// The standard pattern of `count` samples as positions in the pixel, as
/// `SAMPLEPOS` and `SAMPLE_POS` give them: x, y in [0, 1], 0.5 the centre,
/// y downwards.
pub fn standard_positions(count: u32) -> Option<Vec<[f32; 2]>> {
    let offsets = standard_offsets(count)?;
    Some(offsets.iter().map(|&(x, y)| [0.5 + f32::from(x) / 16.0, 0.5 + f32::from(y) / 16.0]).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_count_has_that_many_distinct_samples_inside_the_pixel() {
        for count in SAMPLE_COUNTS {
            let offsets = standard_offsets(count).expect("a pattern");
            assert_eq!(offsets.len(), count as usize);
            let mut sorted = offsets.to_vec();
            sorted.sort_unstable();
            sorted.dedup();
            assert_eq!(sorted.len(), count as usize);
            assert!(offsets.iter().all(|&(x, y)| (-8..8).contains(&x) && (-8..8).contains(&y)));
        }
        assert_eq!(standard_offsets(3), None);
        assert_eq!(standard_positions(2), Some(vec![[0.75, 0.75], [0.25, 0.25]]));
    }
}
