//! The bit patterns the unit tests of folding draw their operands from:
//! special floats and integers a quarter of the time, random bits
//! otherwise.

use super::identity::ONE;
use testkit::Rng;

/// Special patterns: zeros, ones, infinities, quiet and signalling
/// NaNs with payloads, denormals, extremes.
pub(super) const SPECIAL: &[u32] = &[
    0,
    0x8000_0000,
    ONE,
    0xbf80_0000,
    0x7f80_0000,
    0xff80_0000,
    0x7fc0_0000,
    0xffc0_0001,
    0x7fc1_2345,
    0x7f80_0001,
    0xff80_0001,
    0x7fbf_ffff,
    0x0000_0001,
    0x8000_0001,
    0x007f_ffff,
    0x807f_ffff,
    0x7f7f_ffff,
    0xff7f_ffff,
    0xffff_ffff,
    0x7fff_ffff,
    1,
    31,
    32,
    0x4000_0000,
];

/// Special patterns a quarter of the time, random bits otherwise.
pub(super) fn bits(rng: &mut Rng) -> u32 {
    if rng.below(4) == 0 {
        *rng.pick(SPECIAL)
    } else {
        rng.next_u32()
    }
}
