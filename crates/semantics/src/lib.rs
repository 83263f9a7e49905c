//! Scalar semantics of TGSI's ALU opcodes: what one channel (or channel
//! pair) of an operation computes, as a pure function over bits. Constant
//! folding (the `passes` crate) and execution (the `exec` crate) both call
//! these functions, so a folded constant has exactly the bits a run would
//! compute.
//!
//! Results follow Mesa's `tgsi_exec` interpreter (the reference the
//! conformance data comes from) where it defines them, and the TGSI spec
//! where it does not (FMA, DFMA, DTRUNC, DCEIL, DROUND, DSSG, the
//! normalized pack/unpack opcodes). C conversions that are undefined for
//! NaN or out-of-range values follow what x86-64 code compiled from Mesa
//! does (`cvttss2si` and friends): 0x80000000 for `int`; for `unsigned`
//! what gcc -O2 makes of Mesa's `(uint)f` (see `F2U` in docs/semantics.md).
//!
//! ```
//! use semantics::eval;
//! use tgsi::Opcode;
//! let two = 2.0f32.to_bits() as u64;
//! assert_eq!(eval(Opcode::Add, 0, &[two, two]), Some(4.0f32.to_bits() as u64));
//! assert_eq!(eval(Opcode::Udiv, 0, &[7, 0]), Some(0xffff_ffff));
//! assert_eq!(eval(Opcode::Add, 0, &[two]), None);
//! ```

mod convert;
mod double;
mod facts;
mod float;
mod int;
mod int64;
mod layout;
mod pack;

pub use convert::{trunc_i32, trunc_u32};
pub use facts::{arg_nan_blind, facts, needs, sign_bit_modifiers, Facts, NanResult, Needs};
pub use float::{canonical, ceil, exp2, floor, fmax, fmin, lg2, round_ties_even, sign, trunc, CANONICAL_NAN};
pub use layout::{arg_count, arg_source, formula_chan, replicated_reads};

use tgsi::{Opcode, OperandType};

/// The result bits of one channel (or channel pair) of `opcode`.
///
/// `args` are the operand values exactly as the IR (`ir::function::Op::Alu`)
/// lists them, already with source modifiers applied:
/// - component-wise 32-bit ops: one u32 per source operand (in the low 32
///   bits of each u64);
/// - replicated-scalar ops: the operands [`replicated_reads`] lists, in
///   that order; `chan` is 0;
/// - channel-dependent ops (LIT, EXP, LOG, DST, UP2H, ...): all four channels
///   of every source (`4*s + c`), `chan` picks the result channel;
/// - 64-bit ops: one u64 per source for pair `chan`; 32-bit operands of
///   64-bit ops (widening conversions, DLDEXP's exponent, shift counts) in
///   the low bits. Results are 64-bit except comparisons and narrowing
///   conversions (32-bit), see `ir::channels`.
///
/// [`arg_count`] and [`arg_source`] give the layout; [`facts`] what the
/// passes and backends may rely on of each operation.
///
/// 32-bit results have their high 32 bits clear. Returns `None` for an
/// opcode (or operand count) this function does not evaluate: derivatives
/// (they need the quad), and everything that is not an ALU op.
pub fn eval(opcode: Opcode, chan: u8, args: &[u64]) -> Option<u64> {
    float::eval(opcode, chan, args)
        .or_else(|| int::eval(opcode, args))
        .or_else(|| convert::eval(opcode, args))
        .or_else(|| double::eval(opcode, args))
        .or_else(|| int64::eval(opcode, args))
        .or_else(|| pack::eval(opcode, chan, args))
}

/// Which group of opcodes defines an operation, so that code evaluating
/// it many times can skip asking the others ([`Family::of`], [`Family::eval`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Family {
    /// 32-bit float arithmetic, comparisons and the per-channel ops.
    Float,
    /// 32-bit integer and bit operations.
    Int,
    /// Conversions between floats and integers.
    Convert,
    /// Double precision.
    Double,
    /// 64-bit integers.
    Int64,
    /// Packing and unpacking.
    Pack,
}

impl Family {
    /// The family that evaluates `opcode` on channel `chan` with `args`
    /// operands, if any does (what [`eval`] would answer does not depend on
    /// the operands' values, only on their number).
    pub fn of(opcode: Opcode, chan: u8, args: usize) -> Option<Family> {
        let zeros = [0u64; 16];
        let args = zeros.get(..args)?;
        [Family::Float, Family::Int, Family::Convert, Family::Double, Family::Int64, Family::Pack]
            .into_iter()
            .find(|f| f.eval(opcode, chan, args).is_some())
    }

    /// [`eval`], asking only this family.
    pub fn eval(self, opcode: Opcode, chan: u8, args: &[u64]) -> Option<u64> {
        match self {
            Family::Float => float::eval(opcode, chan, args),
            Family::Int => int::eval(opcode, args),
            Family::Convert => convert::eval(opcode, args),
            Family::Double => double::eval(opcode, args),
            Family::Int64 => int64::eval(opcode, args),
            Family::Pack => pack::eval(opcode, chan, args),
        }
    }
}

/// Applies TGSI source modifiers (absolute value, then negation) to an
/// operand read as `ty`.
///
/// - float and untyped (MOV, UCMP's selected sources count as float, as
///   the spec says): `abs` clears the sign bit, `neg` flips it;
/// - int: wrapping absolute value, then wrapping negation;
/// - uint: `abs` changes nothing (the value is its own magnitude), `neg` is
///   the wrapping negation Mesa's interpreter applies to every non-float
///   operand;
/// - double: the same as float on the sign bit of the 64-bit value;
/// - int64 and uint64: as int and uint, on 64 bits.
pub fn apply_modifiers(ty: OperandType, bits: u64, neg: bool, abs: bool) -> u64 {
    match ty {
        OperandType::Float | OperandType::Untyped => {
            let mut v = bits as u32;
            if abs {
                v &= 0x7fff_ffff;
            }
            if neg {
                v ^= 0x8000_0000;
            }
            v as u64
        }
        OperandType::Int => {
            let mut v = bits as u32 as i32;
            if abs {
                v = v.wrapping_abs();
            }
            if neg {
                v = v.wrapping_neg();
            }
            v as u32 as u64
        }
        OperandType::Uint => {
            let v = bits as u32;
            (if neg { v.wrapping_neg() } else { v }) as u64
        }
        OperandType::Double => {
            let mut v = bits;
            if abs {
                v &= !(1 << 63);
            }
            if neg {
                v ^= 1 << 63;
            }
            v
        }
        OperandType::Int64 => {
            let mut v = bits as i64;
            if abs {
                v = v.wrapping_abs();
            }
            if neg {
                v = v.wrapping_neg();
            }
            v as u64
        }
        OperandType::Uint64 => {
            if neg {
                bits.wrapping_neg()
            } else {
                bits
            }
        }
    }
}

/// `_SAT` for a result of type `ty`.
///
/// Floats (and untyped results) are clamped as Mesa's
/// `fminf(fmaxf(x, 0.0f), 1.0f)` does with glibc: NaN and -0.0 give +0.0.
/// Doubles as Mesa's `store_double_channel`: NaN and values below zero give
/// 0.0, but -0.0 is not below zero and stays. Integer results are unchanged.
pub fn saturate(ty: OperandType, bits: u64) -> u64 {
    match ty {
        OperandType::Float | OperandType::Untyped => {
            let x = f32::from_bits(bits as u32);
            float::fmin(float::fmax(x, 0.0), 1.0).to_bits() as u64
        }
        OperandType::Double => {
            let x = f64::from_bits(bits);
            if x < 0.0 || x.is_nan() {
                0.0f64.to_bits()
            } else if x > 1.0 {
                1.0f64.to_bits()
            } else {
                bits
            }
        }
        OperandType::Int | OperandType::Uint | OperandType::Int64 | OperandType::Uint64 => bits,
    }
}

/// The f32 in the low 32 bits of an argument.
fn f32_of(bits: u64) -> f32 {
    f32::from_bits(bits as u32)
}

/// An f32 result as argument-sized bits.
fn f32_bits(x: f32) -> u64 {
    x.to_bits() as u64
}

/// The f64 of an argument.
fn f64_of(bits: u64) -> f64 {
    f64::from_bits(bits)
}

/// An integer comparison result: all ones or zero.
fn mask32(b: bool) -> u64 {
    if b {
        0xffff_ffff
    } else {
        0
    }
}
