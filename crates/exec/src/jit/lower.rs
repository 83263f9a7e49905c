//! Operations lowered to vector code, each giving exactly the bits of
//! [`semantics::eval`] on every input (tests check this on random bits
//! and the special values); `None` leaves an operation to the helper.

use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::{InstBuilder, Value};
use cranelift_frontend::FunctionBuilder;

use super::codegen::{as_bits, as_f32, vector};
use crate::kernel::Kernel;

/// `kernel` on the quads `a` (i32x4 each, modifiers applied), as i32x4.
pub(super) fn op(_b: &mut FunctionBuilder, _kernel: Kernel, _a: &[Value]) -> Option<Value> {
    None
}

/// `_SAT` of a float result as `semantics::saturate` computes it,
/// `fminf(fmaxf(x, 0), 1)`: NaN and -0.0 give +0.0.
pub(super) fn saturate(b: &mut FunctionBuilder, v: Value) -> Value {
    let x = as_f32(b, v);
    let zero = vector(b, [0; 4]);
    let zero_f = as_f32(b, zero);
    let one = vector(b, [1.0f32.to_bits(); 4]);
    let one_f = as_f32(b, one);
    // fmaxf(x, 0): x when x > 0 (false for NaN), else +0.
    let above = b.ins().fcmp(FloatCC::GreaterThan, x, zero_f);
    let low = b.ins().bitselect(above, v, zero);
    // fminf(., 1): never NaN here.
    let low_f = as_f32(b, low);
    let below = b.ins().fcmp(FloatCC::LessThan, low_f, one_f);
    b.ins().bitselect(below, low, one)
}

/// Wrapping absolute value of i32 lanes.
pub(super) fn iabs(b: &mut FunctionBuilder, v: Value) -> Value {
    let zero = vector(b, [0; 4]);
    let negative = b.ins().icmp(IntCC::SignedLessThan, v, zero);
    let negated = b.ins().ineg(v);
    b.ins().bitselect(negative, negated, v)
}

#[allow(dead_code)]
fn _bits(b: &mut FunctionBuilder, v: Value) -> Value {
    as_bits(b, v)
}
