//! SplitMix64: the small deterministic random numbers every generator,
//! test and tool draws from, the same on every platform and with no
//! dependency.

/// A seeded SplitMix64 generator, optionally steered by a tape of bytes.
///
/// The same seed gives the same numbers everywhere, so a failure found
/// from a seed reproduces from it. A generator made by [`Rng::from_tape`]
/// takes the top 16 bits of each number from the next two bytes of its
/// tape while the tape lasts, so a fuzzer mutating the tape steers every
/// bounded choice ([`Rng::below`] of up to 65,536 outcomes) of whatever
/// draws from it.
///
/// ```
/// let mut a = testkit::Rng::new(7);
/// let mut b = testkit::Rng::new(7);
/// assert_eq!(a.next_u64(), b.next_u64());
/// assert!(a.below(10) < 10);
/// assert_eq!(*a.pick(&["only"]), "only");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rng {
    state: u64,
    tape: Option<Box<[u8]>>,
    /// The next byte of `tape` to use.
    at: usize,
}

impl Rng {
    /// The generator seeded with `seed`.
    pub const fn new(seed: u64) -> Rng {
        Rng { state: seed, tape: None, at: 0 }
    }

    /// A generator whose draws follow `tape`: while two bytes are left,
    /// each number's top 16 bits are the next two bytes (big-endian) and
    /// its low bits SplitMix64's; then plain SplitMix64 from seed 0.
    ///
    /// ```
    /// let mut rng = testkit::Rng::from_tape(&[0x80, 0x00, 0xff, 0xff]);
    /// assert_eq!(rng.below(2), 1);
    /// assert_eq!(rng.below(1000), 999);
    /// let (mut a, mut b) = (testkit::Rng::from_tape(&[]), testkit::Rng::new(0));
    /// assert_eq!(a.next_u64(), b.next_u64());
    /// ```
    pub fn from_tape(tape: &[u8]) -> Rng {
        Rng { state: 0, tape: Some(tape.into()), at: 0 }
    }

    /// A generator seeded from a name (a test case's, a file's) and a round
    /// number, so that every input and round gets numbers of its own that do
    /// not change when other inputs come and go.
    pub fn from_name(name: &str, round: u64) -> Rng {
        // FNV-1a over the name, started from the round.
        let mut h: u64 = 0xcbf2_9ce4_8422_2325 ^ round.wrapping_mul(0x9e37_79b9_7f4a_7c15);
        for b in name.bytes() {
            h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
        Rng::new(h)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        let z = z ^ (z >> 31);
        match self.tape.as_deref().and_then(|t| t.get(self.at..self.at + 2)) {
            Some(&[hi, lo]) => {
                self.at += 2;
                (u64::from(u16::from_be_bytes([hi, lo])) << 48) | (z & 0x0000_ffff_ffff_ffff)
            }
            _ => z,
        }
    }

    /// The next 32 random bits (the high half of [`Rng::next_u64`]).
    pub fn next_u32(&mut self) -> u32 {
        (self.next_u64() >> 32) as u32
    }

    /// A number in `0..n` (0 when `n` is 0).
    pub fn below(&mut self, n: u32) -> u32 {
        ((u64::from(self.next_u32()) * u64::from(n)) >> 32) as u32
    }

    /// An index into something `len` long: a number in `0..len` (0 when
    /// `len` is 0). For lengths that fit in a `u32` it draws what
    /// [`Rng::below`] draws.
    pub fn index(&mut self, len: usize) -> usize {
        match u32::try_from(len) {
            Ok(n) => self.below(n) as usize,
            Err(_) => ((u128::from(self.next_u64()) * len as u128) >> 64) as usize,
        }
    }

    /// One of `items`, chosen uniformly.
    ///
    /// # Panics
    ///
    /// When `items` is empty.
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        assert!(!items.is_empty(), "Rng::pick from an empty slice");
        &items[self.index(items.len())]
    }

    /// True with probability `p` (never when `p <= 0`, always when `p >= 1`).
    pub fn chance(&mut self, p: f64) -> bool {
        self.unit_f64() < p
    }

    /// A number in `[0, 1)`, a multiple of 2^-53.
    pub fn unit_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splitmix64_reference_values() {
        // The first outputs of SplitMix64 seeded with 0 (Vigna's reference).
        let mut rng = Rng::new(0);
        assert_eq!(rng.next_u64(), 0xe220_a839_7b1d_cdaf);
        assert_eq!(rng.next_u64(), 0x6e78_9e6a_a1b9_65f4);
    }

    #[test]
    fn bounded_draws_stay_in_range() {
        let mut rng = Rng::new(1);
        for n in [0u32, 1, 2, 3, 10, 1000, u32::MAX] {
            for _ in 0..100 {
                let x = rng.below(n);
                assert!(x < n.max(1), "{x} of {n}");
            }
        }
        assert_eq!(rng.index(0), 0);
        assert!((0..1000).all(|_| rng.index(7) < 7));
        assert!((0..1000).all(|_| (0.0..1.0).contains(&rng.unit_f64())));
        assert!(!(0..100).any(|_| rng.chance(0.0)));
        assert!((0..100).all(|_| rng.chance(1.0)));
    }

    #[test]
    fn index_draws_what_below_draws() {
        let (mut a, mut b) = (Rng::new(5), Rng::new(5));
        for len in 1..200u32 {
            assert_eq!(a.index(len as usize), b.below(len) as usize);
        }
    }

    #[test]
    fn names_and_rounds_seed_apart() {
        let first = Rng::from_name("a.tgsi", 0).next_u64();
        assert_eq!(first, Rng::from_name("a.tgsi", 0).next_u64());
        assert_ne!(first, Rng::from_name("b.tgsi", 0).next_u64());
        assert_ne!(first, Rng::from_name("a.tgsi", 1).next_u64());
    }
}
