//! The accuracy check of `legalize-doubles` (`tgsi-opt check-doubles`).
//!
//! For a target and each 64-bit opcode it lowers, a one-instruction
//! vertex shader (operands from `IN[0..3]`, the result to `OUT[0]`) is
//! built, legalized, and run through the SIMD backend on batches of
//! invocations whose inputs are random bit patterns, random normal
//! values, and edge cases (±0, denormals, the largest and smallest
//! normals, ±inf, NaNs, values at and next to rounding halfway points,
//! exact squares). Every result is compared with `semantics::eval` on
//! the same operands (Rust's own f64 arithmetic; for DFRACEXP, which the
//! backend does not run, C's `frexp`): the count, the largest error in
//! units in the last place, and the mismatches (a NaN matches any NaN).

use std::fmt::Write as _;

use rayon::prelude::*;
use tgsi::{Opcode, OperandType};

use passes::legalize_doubles::bits::frexp;
use passes::legalize_doubles::{Preset, Wide64};

use crate::Rng;

/// What to check.
#[derive(Clone, Debug)]
pub struct Options {
    /// Inputs per opcode.
    pub count: u64,
    /// The first seed of the inputs.
    pub seed: u64,
    /// Invocations per run of the backend.
    pub batch: u32,
}

impl Default for Options {
    fn default() -> Self {
        Options { count: 1 << 20, seed: 0, batch: 16384 }
    }
}

/// The result of one opcode on one target.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OpResult {
    /// The opcode.
    pub opcode: Opcode,
    /// Inputs checked.
    pub count: u64,
    /// The largest distance from the reference, in ulps of the result
    /// type (for integer results the integer difference).
    pub max_ulp: u64,
    /// Results that are not the reference's bits (NaN matching NaN).
    pub mismatches: u64,
    /// Operations the pass left unlowered in the shader (no lowering yet).
    pub not_lowered: u64,
    /// The first mismatch: operands, result, reference.
    pub example: Option<(Vec<u64>, u64, u64)>,
}

/// Why a check could not run.
#[derive(Debug, thiserror::Error)]
pub enum CheckError {
    /// The test shader did not build (a bug of this harness).
    #[error("the {opcode} test shader: {message}")]
    Shader {
        /// The opcode.
        opcode: Opcode,
        /// What failed.
        message: String,
    },
    /// The backend failed to run it.
    #[error("running the legalized {opcode}: {source}")]
    Exec {
        /// The opcode.
        opcode: Opcode,
        /// What the backend said.
        source: exec::ExecError,
    },
}

/// The opcodes a check covers for `caps`: every 64-bit ALU opcode it lacks
/// (and DFRACEXP).
pub fn checked_opcodes(caps: &Wide64) -> Vec<Opcode> {
    caps.lowered().into_iter().filter(|&op| reference(op, &[0, 0, 0]).is_some()).collect()
}

/// The opcode's result bits on `args` as the backend defines them.
fn reference(op: Opcode, args: &[u64]) -> Option<Vec<u64>> {
    if op == Opcode::Dfracexp {
        let (m, e) = frexp(f64::from_bits(*args.first()?));
        return Some(vec![m.to_bits(), e as u32 as u64]);
    }
    let n = op.info().num_src as usize;
    semantics::eval(op, 0, args.get(..n)?).map(|r| vec![r])
}

/// The test shader of `op`: sources from `IN[i]` (`.xyxy` for 64-bit
/// operands, `.xxxx` for 32-bit ones), the result in `TEMP[0].xy` (or
/// `.x`), DFRACEXP's exponent in `TEMP[0].z`.
pub fn shader(op: Opcode) -> String {
    let n = op.info().num_src as usize;
    let srcs: Vec<String> = (0..n)
        .map(|i| if op.src_type(i).is_64bit() { format!("IN[{i}].xyxy") } else { format!("IN[{i}].xxxx") })
        .collect();
    let dst = if op == Opcode::Dfracexp {
        "TEMP[0].xy, TEMP[1].x".to_string()
    } else if op.dst_type().is_64bit() {
        "TEMP[0].xy".to_string()
    } else {
        "TEMP[0].x".to_string()
    };
    let mut s = String::from("VERT\nDCL IN[0]\nDCL IN[1]\nDCL IN[2]\nDCL OUT[0], GENERIC[0]\nDCL OUT[1], GENERIC[1]\n");
    s.push_str("DCL TEMP[0..1]\nIMM[0] UINT32 {0, 0, 0, 0}\n");
    s.push_str("  0: MOV TEMP[0], IMM[0]\n  1: MOV TEMP[1], IMM[0]\n");
    let _ = writeln!(s, "  2: {} {}, {}", op.name(), dst, srcs.join(", "));
    s.push_str("  3: MOV OUT[0], TEMP[0]\n  4: MOV OUT[1], TEMP[1]\n  5: END\n");
    s
}

/// Builds and legalizes the shader of `op` for `caps`; returns the module
/// and how many operations stayed unlowered.
fn legalized(op: Opcode, caps: &Wide64) -> Result<(ir::Module, u64), CheckError> {
    let err = |message: String| CheckError::Shader { opcode: op, message };
    let shader = tgsi::parse(&shader(op)).map_err(|e| err(e.to_string()))?;
    let mut module = ir::from_tgsi(&shader).map_err(|e| err(e.to_string()))?;
    let counts = passes::legalize_doubles::legalize(&mut module.function, caps);
    ir::verify::verify(&module.function).map_err(|e| err(e.to_string()))?;
    Ok((module, counts.not_lowered))
}

/// Checks every opcode `preset` lowers.
pub fn check_preset(preset: &Preset, options: &Options) -> Result<Vec<OpResult>, CheckError> {
    let caps = preset.target().wide;
    checked_opcodes(&caps).into_iter().map(|op| check_op(op, &caps, options)).collect()
}

/// Checks one opcode for `caps` on `options.count` inputs, batches in
/// parallel (on rayon's current pool).
pub fn check_op(op: Opcode, caps: &Wide64, options: &Options) -> Result<OpResult, CheckError> {
    let (module, not_lowered) = legalized(op, caps)?;
    let exe = exec::Executable::compile(&module).map_err(|source| CheckError::Exec { opcode: op, source })?;
    let batch = u64::from(options.batch.clamp(4, 1 << 20));
    let batches = options.count.div_ceil(batch);
    let results: Vec<Result<OpResult, CheckError>> = (0..batches)
        .into_par_iter()
        .map(|i| {
            let n = batch.min(options.count - i * batch) as u32;
            let seed = options.seed ^ (i.wrapping_mul(0x9e37_79b9_7f4a_7c15)) ^ op as u64;
            run_batch(&exe, op, n, seed)
        })
        .collect();
    let mut total = OpResult { opcode: op, count: 0, max_ulp: 0, mismatches: 0, not_lowered, example: None };
    for r in results {
        let r = r?;
        total.count += r.count;
        total.max_ulp = total.max_ulp.max(r.max_ulp);
        total.mismatches += r.mismatches;
        if total.example.is_none() {
            total.example = r.example;
        }
    }
    Ok(total)
}

/// One run of `n` invocations.
fn run_batch(exe: &exec::Executable<'_>, op: Opcode, n: u32, seed: u64) -> Result<OpResult, CheckError> {
    let mut rng = Rng::new(seed);
    let nsrc = op.info().num_src as usize;
    let operands: Vec<[u64; 3]> = (0..n)
        .map(|lane| {
            let mut a = [0u64; 3];
            for (i, slot) in a.iter_mut().enumerate().take(nsrc) {
                *slot = operand(&mut rng, op.src_type(i), lane);
            }
            a
        })
        .collect();
    let mut text = format!("invocations {n}\n");
    for (lane, a) in operands.iter().enumerate() {
        for (i, v) in a.iter().enumerate().take(nsrc) {
            let _ = writeln!(text, "input {i} {lane} {:#010x} {:#010x} 0 0", *v as u32, (*v >> 32) as u32);
        }
    }
    let state = exec::State::parse(&text)
        .map_err(|e| CheckError::Shader { opcode: op, message: format!("state: {}", e.render(&text, "state")) })?;
    let options = exec::RunOptions { threads: 1, ..exec::RunOptions::default() };
    let out = exe.run(&state, &options).map_err(|source| CheckError::Exec { opcode: op, source })?;
    let mut r = OpResult { opcode: op, count: u64::from(n), max_ulp: 0, mismatches: 0, not_lowered: 0, example: None };
    let wide = op.dst_type().is_64bit();
    for (lane, a) in operands.iter().enumerate() {
        let Some(want) = reference(op, &a[..]) else { continue };
        let o0 = out.get(0, lane as u32).unwrap_or_default();
        let o1 = out.get(1, lane as u32).unwrap_or_default();
        let got0 = if wide { u64::from(o0[0]) | (u64::from(o0[1]) << 32) } else { u64::from(o0[0]) };
        let mut got = vec![got0];
        if op == Opcode::Dfracexp {
            got.push(u64::from(o1[0]));
        }
        for (k, (&g, &w)) in got.iter().zip(&want).enumerate() {
            let ty = if k == 0 { op.dst_type() } else { OperandType::Int };
            let d = distance(ty, g, w);
            r.max_ulp = r.max_ulp.max(d);
            if d != 0 {
                r.mismatches += 1;
                if r.example.is_none() {
                    r.example = Some((a[..nsrc].to_vec(), g, w));
                }
            }
        }
    }
    Ok(r)
}

/// The distance between two results of type `ty`: 0 when equal (any two
/// NaNs are), ulps for floats and doubles (a NaN against a number counts
/// as `u64::MAX`), the integer difference otherwise.
pub fn distance(ty: OperandType, a: u64, b: u64) -> u64 {
    match ty {
        OperandType::Double => {
            let (x, y) = (f64::from_bits(a), f64::from_bits(b));
            match (x.is_nan(), y.is_nan()) {
                (true, true) => 0,
                (false, false) => ordered64(a).abs_diff(ordered64(b)),
                _ => u64::MAX,
            }
        }
        OperandType::Float | OperandType::Untyped => {
            let (x, y) = (f32::from_bits(a as u32), f32::from_bits(b as u32));
            match (x.is_nan(), y.is_nan()) {
                (true, true) => 0,
                (false, false) => u64::from(ordered32(a as u32).abs_diff(ordered32(b as u32))),
                _ => u64::MAX,
            }
        }
        _ => a.abs_diff(b),
    }
}

/// Double bits mapped to integers in the order of their values (±0 both 0).
fn ordered64(bits: u64) -> i64 {
    let mag = (bits & !(1 << 63)) as i64;
    if bits >> 63 == 1 {
        -mag
    } else {
        mag
    }
}

fn ordered32(bits: u32) -> i32 {
    let mag = (bits & 0x7fff_ffff) as i32;
    if bits >> 31 == 1 {
        -mag
    } else {
        mag
    }
}

/// Doubles every lowering must get right.
const EDGES: &[u64] = &[
    0,
    1 << 63,
    1,                     // smallest denormal
    0x000f_ffff_ffff_ffff, // largest denormal
    0x0010_0000_0000_0000, // smallest normal
    0x7fef_ffff_ffff_ffff, // largest normal
    0x7ff0_0000_0000_0000,
    0xfff0_0000_0000_0000,
    0x7ff8_0000_0000_0000,
    0x7ff0_0000_0000_0001,
    0x3ff0_0000_0000_0000, // 1
    0x3fe0_0000_0000_0000, // 0.5
    0x4004_0000_0000_0000, // 2.5
    0x3fdf_ffff_ffff_ffff, // below 0.5
    0x4330_0000_0000_0000, // 2^52
    0x432f_ffff_ffff_ffff, // 2^52 - 0.5
    0x3ff0_0000_0000_0001, // 1 + ulp
    0x3fef_ffff_ffff_ffff, // 1 - ulp/2
];

/// One operand of type `ty` for lane `lane`: edge cases, random bits,
/// random normal values near 1 or anywhere, values near halfway points
/// and exact squares, in turn.
fn operand(rng: &mut Rng, ty: OperandType, lane: u32) -> u64 {
    let r = rng.next_u64();
    let sign = r & (1 << 63);
    match ty {
        OperandType::Double => match (lane + rng.below(7)) % 7 {
            0 => EDGES[rng.below(EDGES.len() as u32) as usize] ^ sign,
            1 => r,
            2 => sign | (u64::from(1023 - 40 + rng.below(80)) << 52) | (rng.next_u64() >> 12),
            3 => sign | (u64::from(1 + rng.below(2046)) << 52) | (rng.next_u64() >> 12),
            4 => {
                // k + 0.5 and its neighbours.
                let k = f64::from(rng.below(1 << 20)) + 0.5;
                let b = k.to_bits().wrapping_add(u64::from(rng.below(3))).wrapping_sub(1);
                b ^ sign
            }
            5 => {
                // A square (exact square root), scaled, or a neighbour.
                let m = f64::from(rng.below(1 << 26));
                let e = i32::try_from(rng.below(400)).unwrap_or(0) - 200;
                (m * m * 2f64.powi(2 * e)).to_bits().wrapping_add(u64::from(rng.below(3))).wrapping_sub(1)
            }
            _ => sign | u64::from(rng.below(64)) << 46 | (rng.next_u64() & 0xf_ffff_ffff), // denormal-ish and tiny
        },
        OperandType::Int64 | OperandType::Uint64 => match rng.below(3) {
            0 => r,
            1 => u64::from(rng.below(1000)).wrapping_sub(500),
            _ => r >> rng.below(64),
        },
        OperandType::Int | OperandType::Uint => match rng.below(3) {
            // Exponents for DLDEXP around the interesting ranges.
            0 => u64::from((i64::from(rng.below(4400)) - 2200) as u32),
            1 => u64::from(rng.below(64)),
            _ => r & 0xffff_ffff,
        },
        OperandType::Float | OperandType::Untyped => r & 0xffff_ffff,
    }
}

/// The report table of one target.
pub fn table(preset: &str, results: &[OpResult]) -> String {
    let mut s = format!("target {preset}\n");
    let _ = writeln!(s, "  {:<10} {:>12} {:>8} {:>11} {:>12}", "op", "count", "max ulp", "mismatches", "not lowered");
    for r in results {
        let ulp = if r.max_ulp == u64::MAX { "NaN".to_string() } else { r.max_ulp.to_string() };
        let _ = writeln!(
            s,
            "  {:<10} {:>12} {:>8} {:>11} {:>12}",
            r.opcode.name(),
            r.count,
            ulp,
            r.mismatches,
            r.not_lowered
        );
        if let Some((args, got, want)) = &r.example {
            let _ = writeln!(s, "    first mismatch: operands {args:#018x?} gave {got:#018x}, expected {want:#018x}");
        }
    }
    if results.is_empty() {
        s.push_str("  (nothing lowered)\n");
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_lowered_op_of_fp64_basic_is_exact_on_a_few_thousand_inputs() {
        let preset = passes::legalize_doubles::preset("fp64-basic").expect("a preset");
        let options = Options { count: 2048, seed: 1, batch: 1024 };
        let results = check_preset(preset, &options).expect("runs");
        assert!(results.iter().any(|r| r.opcode == Opcode::Ddiv));
        for r in &results {
            assert_eq!((r.mismatches, r.not_lowered, r.count), (0, 0, 2048), "{}", table(preset.name, &results));
        }
    }

    #[test]
    fn distances() {
        assert_eq!(distance(OperandType::Double, 1f64.to_bits(), 1f64.to_bits() + 2), 2);
        assert_eq!(distance(OperandType::Double, 0, 1 << 63), 0);
        assert_eq!(distance(OperandType::Double, f64::NAN.to_bits(), (-f64::NAN).to_bits()), 0);
        assert_eq!(distance(OperandType::Double, f64::NAN.to_bits(), 0), u64::MAX);
        assert_eq!(distance(OperandType::Double, (-1e-320f64).to_bits(), 1e-320f64.to_bits()), 2 * 1e-320f64.to_bits());
    }
}
