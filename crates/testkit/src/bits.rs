//! The bit patterns tests draw operands from: the floats and integers at
//! which operations behave apart from the rest, and random bits.

use crate::Rng;

/// Zeros, ones, halves, infinities, NaNs with payloads (quiet and
/// signalling, of both signs), denormals, extremes, the edges of
/// rounding and of conversions to integers, and small integers (shift
/// counts among them).
pub const SPECIAL_BITS: &[u32] = &[
    // Zeros, ones, halves.
    0x0000_0000,
    0x8000_0000,
    0x3f80_0000,
    0xbf80_0000,
    0x3f00_0000,
    0xbf00_0000,
    0x3fc0_0000,
    0x4000_0000,
    // Infinities and NaNs.
    0x7f80_0000,
    0xff80_0000,
    0x7fc0_0000,
    0xffc0_0001,
    0x7fc1_2345,
    0x7fc0_1234,
    0xffc5_4321,
    0x7f80_0001,
    0xff80_0001,
    0xff80_7777,
    0x7fbf_ffff,
    0x7fff_ffff,
    0xffff_ffff,
    // Denormals, the smallest normal, the largest finite.
    0x0000_0001,
    0x8000_0001,
    0x007f_ffff,
    0x807f_ffff,
    0x0080_0000,
    0x7f7f_ffff,
    0xff7f_ffff,
    // Where rounding has no fraction bits left (2^23), and where
    // conversions to 32-bit integers leave their range (2^31, 2^32).
    0x4b00_0000,
    0x4b7f_ffff,
    0xcb00_0001,
    0x4eff_ffff,
    0x4f00_0000,
    0xcf00_0000,
    0xcf00_0001,
    0x4f80_0000,
    // Small integers and shift counts.
    2,
    31,
    32,
    33,
];

/// A pattern of [`SPECIAL_BITS`] with chance `1 / one_in`, random bits
/// otherwise.
///
/// ```
/// let mut rng = testkit::Rng::new(7);
/// let v: Vec<u32> = (0..100).map(|_| testkit::special_or_random(&mut rng, 3)).collect();
/// assert!(v.iter().any(|x| testkit::SPECIAL_BITS.contains(x)));
/// ```
pub fn special_or_random(rng: &mut Rng, one_in: u32) -> u32 {
    if rng.below(one_in) == 0 {
        *rng.pick(SPECIAL_BITS)
    } else {
        rng.next_u32()
    }
}
