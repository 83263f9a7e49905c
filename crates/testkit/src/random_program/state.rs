//! Random input states for generated programs.

use std::fmt::Write as _;

use super::{seeded, RandomProgram, Stage, INVOCATIONS};
use crate::Rng;

/// Generates an input state for `program` from `seed`: `invocations 16`,
/// every input for all lanes then per-lane exceptions, every constant,
/// and for a compute shader its `THREAD_ID` system value in every lane
/// (small thread ids mostly, any bits sometimes, as the shader may use
/// them as floats, integers or addresses once masked).
pub fn state(program: &RandomProgram, seed: u64) -> String {
    // Mixed with the program's seed so that state 0 of two programs differs.
    let mut rng = seeded(seed ^ program.seed.rotate_left(32) ^ 0x5eed_5eed_5eed_5eed);
    let mut text = format!("# random state {seed} for program {}\ninvocations {INVOCATIONS}\n", program.seed);
    for index in 0..program.inputs {
        let _ = writeln!(text, "input {index} * {}", vec4(&mut rng));
        let lanes_chance = rng.below(4);
        for lane in 0..INVOCATIONS {
            if rng.below(4) < lanes_chance {
                let _ = writeln!(text, "input {index} {lane} {}", vec4(&mut rng));
            }
        }
    }
    for index in 0..program.constants {
        let _ = writeln!(text, "const 0 {index} {}", vec4(&mut rng));
    }
    if program.stage == Stage::Compute {
        for lane in 0..INVOCATIONS {
            let id = |rng: &mut Rng| match rng.below(4) {
                0 => format!("0x{:08x}", rng.next_u32()),
                _ => format!("0x{:08x}", rng.below(64)),
            };
            let _ = writeln!(
                text,
                "sysval THREAD_ID {lane} {} {} {} {}",
                id(&mut rng),
                id(&mut rng),
                id(&mut rng),
                id(&mut rng)
            );
        }
    }
    text
}

/// Four state values; sometimes a pair of them is the halves of a double.
fn vec4(rng: &mut Rng) -> String {
    let mut words: [String; 4] = std::array::from_fn(|_| value(rng));
    if rng.below(4) == 0 {
        let pair = 2 * rng.below(2) as usize;
        let d = random_f64(rng).to_bits();
        words[pair] = format!("0x{:08x}", d as u32);
        words[pair + 1] = format!("0x{:08x}", (d >> 32) as u32);
    }
    words.join(" ")
}

/// One state value: a float literal or raw bits.
fn value(rng: &mut Rng) -> String {
    match rng.below(100) {
        0..=34 => format!("{}", (rng.below(65) as f32 - 32.0) / 4.0),
        35..=49 => {
            let n = rng.below(17) as i32 - 4;
            format!("0x{:08x}", n as u32)
        }
        50..=64 => {
            const SPECIAL: [&str; 16] = [
                "0",
                "-0",
                "inf",
                "-inf",
                "nan",
                "0x00000001",
                "0x807fffff",
                "0x7f7fffff",
                "0xff7fffff",
                "0x00800000",
                "0xffffffff",
                "0x80000000",
                "0x7fc00001",
                "0xffc00000",
                "1e-40",
                "0x4f000000",
            ];
            SPECIAL[rng.below(SPECIAL.len() as u32) as usize].to_string()
        }
        65..=74 => format!("0x{:08x}", rng.next_u64() as u32),
        _ => format!("{}", (rng.next_u64() as i32 as f32) / 1.0e6),
    }
}

/// A double: mostly small and exact, sometimes special.
fn random_f64(rng: &mut Rng) -> f64 {
    match rng.below(10) {
        0 => [0.0, -0.0, f64::INFINITY, f64::NEG_INFINITY, f64::NAN, 1e-310, f64::MAX, 0.1][rng.below(8) as usize],
        1 => (rng.next_u64() as i64 as f64) / 1e9,
        _ => (rng.below(257) as f64 - 128.0) / 8.0,
    }
}
