//! Operations lowered to vector code, each giving exactly the bits of
//! [`semantics::eval`] on every input (tests check this on random bits
//! and the special values); `None` leaves an operation to the helper.
//! The integer operations SSE has no vector instruction for (per-lane
//! shifts, the high half of a product, division) are computed lane by
//! lane in scalar registers, which is still a fraction of a helper call.

use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::types::{F32X4, I32, I32X4, I64, I8X16};
use cranelift_codegen::ir::{Endianness, InstBuilder, MemFlags, Value};
use cranelift_frontend::FunctionBuilder;

use super::codegen::{as_bits, as_f32, vector};
use crate::kernel::Kernel;
use tgsi::Opcode;

/// `kernel` on the quads `a` (i32x4 each, modifiers applied), as i32x4;
/// `None` for an operation left to the helper (the library functions,
/// FMA, LIT's power, the rest of [`Kernel::Eval`]).
/// A NaN result is made the canonical one where `canonical`: the caller
/// asks for it where the operation's NaN results are canonical
/// (`semantics::NanResult::Canonical`) and their bits can be seen (see
/// `nan`); of any payload otherwise.
pub(super) fn op(b: &mut FunctionBuilder, kernel: Kernel, a: &[Value], canonical: bool) -> Option<Value> {
    let v = compute(b, kernel, a)?;
    Some(if canonical { canonical_nan(b, v) } else { v })
}

/// `kernel` (ADD or MAD) whose last operand `a` holds without its
/// negate, as a subtraction of it: IEEE defines `x - y` as `x + (-y)`,
/// so the bits are the same (NaN made canonical either way), one sign
/// flip less. `None` for other operations.
pub(super) fn op_negated_last(b: &mut FunctionBuilder, kernel: Kernel, a: &[Value], canonical: bool) -> Option<Value> {
    let mut l = Lower { b };
    let v = match (kernel, a) {
        (Kernel::Add, &[x, y]) => l.float2(x, y, |b, x, y| b.ins().fsub(x, y)),
        (Kernel::Mad, &[x, y, z]) => {
            let p = l.float2(x, y, |b, x, y| b.ins().fmul(x, y));
            l.float2(p, z, |b, x, y| b.ins().fsub(x, y))
        }
        _ => return None,
    };
    Some(if canonical { canonical_nan(b, v) } else { v })
}

/// `v` (i32x4 bits of floats) with every NaN lane the canonical NaN.
pub(super) fn canonical_nan(b: &mut FunctionBuilder, v: Value) -> Value {
    let x = as_f32(b, v);
    let nan = b.ins().fcmp(FloatCC::Unordered, x, x);
    let canonical = vector(b, [semantics::CANONICAL_NAN; 4]);
    b.ins().bitselect(nan, canonical, v)
}

/// `kernel` on the quads `a`, as vector code; `None` for an operation
/// left to the helper.
fn compute(b: &mut FunctionBuilder, kernel: Kernel, a: &[Value]) -> Option<Value> {
    let mut l = Lower { b };
    arithmetic(&mut l, kernel, a).or_else(|| selections(&mut l, kernel, a)).or_else(|| rounding(&mut l, kernel, a))
}

/// Arithmetic, bit operations and moves.
fn arithmetic(l: &mut Lower<'_, '_>, kernel: Kernel, a: &[Value]) -> Option<Value> {
    let arg = |i: usize| a.get(i).copied();
    let (x, y, z) = (arg(0)?, arg(1), arg(2));
    Some(match kernel {
        Kernel::Mov | Kernel::Uarl => x,
        Kernel::Add => l.float2(x, y?, |b, x, y| b.ins().fadd(x, y)),
        Kernel::Mul => l.float2(x, y?, |b, x, y| b.ins().fmul(x, y)),
        Kernel::Div => l.float2(x, y?, |b, x, y| b.ins().fdiv(x, y)),
        // Unfused: the product rounds, then the sum.
        Kernel::Mad => {
            let p = l.float2(x, y?, |b, x, y| b.ins().fmul(x, y));
            l.float2(p, z?, |b, x, y| b.ins().fadd(x, y))
        }
        Kernel::Min => l.min_max(x, y?, FloatCC::LessThan),
        Kernel::Max => l.min_max(x, y?, FloatCC::GreaterThan),
        Kernel::Dot(k) => {
            // Products summed in order, rounding at each step.
            let k = k as usize;
            let mut sum = l.float2(x, arg(k)?, |b, x, y| b.ins().fmul(x, y));
            for n in 1..k {
                let p = l.float2(arg(n)?, arg(k + n)?, |b, x, y| b.ins().fmul(x, y));
                sum = l.float2(sum, p, |b, x, y| b.ins().fadd(x, y));
            }
            sum
        }
        Kernel::Slt => l.one_if(FloatCC::LessThan, x, y?),
        Kernel::Sge => l.one_if(FloatCC::GreaterThanOrEqual, x, y?),
        Kernel::Sgt => l.one_if(FloatCC::GreaterThan, x, y?),
        Kernel::Sle => l.one_if(FloatCC::LessThanOrEqual, x, y?),
        Kernel::Seq => l.one_if(FloatCC::Equal, x, y?),
        Kernel::Sne => l.one_if(FloatCC::NotEqual, x, y?),
        Kernel::Fslt => l.fcmp(FloatCC::LessThan, x, y?),
        Kernel::Fsge => l.fcmp(FloatCC::GreaterThanOrEqual, x, y?),
        Kernel::Fseq => l.fcmp(FloatCC::Equal, x, y?),
        Kernel::Fsne => l.fcmp(FloatCC::NotEqual, x, y?),
        Kernel::Rcp => {
            let one = l.splat(1.0f32.to_bits());
            l.float2(one, x, |b, x, y| b.ins().fdiv(x, y))
        }
        Kernel::Sqrt => l.float1(x, |b, x| b.ins().sqrt(x)),
        Kernel::Rsq => {
            let root = l.float1(x, |b, x| b.ins().sqrt(x));
            let one = l.splat(1.0f32.to_bits());
            l.float2(one, root, |b, x, y| b.ins().fdiv(x, y))
        }
        Kernel::Uadd => l.b.ins().iadd(x, y?),
        Kernel::Umul => l.b.ins().imul(x, y?),
        Kernel::Umad => {
            let p = l.b.ins().imul(x, y?);
            l.b.ins().iadd(p, z?)
        }
        Kernel::And => l.b.ins().band(x, y?),
        Kernel::Or => l.b.ins().bor(x, y?),
        Kernel::Xor => l.b.ins().bxor(x, y?),
        Kernel::Not => l.b.ins().bnot(x),
        Kernel::Ineg => l.b.ins().ineg(x),
        Kernel::Iabs => iabs(l.b, x),
        // Clamped to [-1, 1].
        Kernel::Eval { opcode: Opcode::Issg, .. } => {
            let (minus, one) = (l.splat(u32::MAX), l.splat(1));
            let low = l.b.ins().smax(x, minus);
            l.b.ins().smin(low, one)
        }
        // Shift counts modulo 32, as Cranelift's scalar shifts take them.
        Kernel::Shl => per_lane(l.b, x, y?, |b, x, y| b.ins().ishl(x, y)),
        Kernel::Ishr => per_lane(l.b, x, y?, |b, x, y| b.ins().sshr(x, y)),
        Kernel::Ushr => per_lane(l.b, x, y?, |b, x, y| b.ins().ushr(x, y)),
        Kernel::UmulHi => per_lane(l.b, x, y?, |b, x, y| mul_high(b, x, y, false)),
        Kernel::Eval { opcode: Opcode::ImulHi, .. } => per_lane(l.b, x, y?, |b, x, y| mul_high(b, x, y, true)),
        Kernel::Udiv => per_lane(l.b, x, y?, |b, x, y| divide(b, x, y, Division::Udiv)),
        Kernel::Umod => per_lane(l.b, x, y?, |b, x, y| divide(b, x, y, Division::Umod)),
        Kernel::Eval { opcode: Opcode::Idiv, .. } => per_lane(l.b, x, y?, |b, x, y| divide(b, x, y, Division::Idiv)),
        Kernel::Eval { opcode: Opcode::Mod, .. } => per_lane(l.b, x, y?, |b, x, y| divide(b, x, y, Division::Mod)),
        _ => return None,
    })
}

/// Address loads, DST and LIT's simple channels, integer tests and selections.
fn selections(l: &mut Lower<'_, '_>, kernel: Kernel, a: &[Value]) -> Option<Value> {
    let arg = |i: usize| a.get(i).copied();
    let (x, y, z) = (arg(0)?, arg(1), arg(2));
    Some(match kernel {
        // Address loads: floor (ARR: of x + 0.5), converted as F2I.
        Kernel::Eval { opcode: Opcode::Arl, .. } => floor_to_int(l.b, x),
        Kernel::Eval { opcode: Opcode::Arr, .. } => {
            let half = l.splat(0.5f32.to_bits());
            let s = l.float2(x, half, |b, x, y| b.ins().fadd(x, y));
            let f = l.floor(s);
            l.f2i(f)
        }
        // DST (a0..a3, b0..b3): (1, a1 * b1, a2, b3).
        Kernel::Eval { opcode: Opcode::Dst, chan, .. } => match chan {
            0 => l.splat(1.0f32.to_bits()),
            1 => l.float2(arg(1)?, arg(5)?, |b, x, y| b.ins().fmul(x, y)),
            2 => arg(2)?,
            3 => arg(7)?,
            _ => return None,
        },
        // LIT's channels but the power: (1, fmax(x, 0), -, 1).
        Kernel::Eval { opcode: Opcode::Lit, chan, .. } => match chan {
            0 | 3 => l.splat(1.0f32.to_bits()),
            1 => {
                let zero = l.splat(0);
                l.min_max(x, zero, FloatCC::GreaterThan)
            }
            _ => return None,
        },
        Kernel::Imin => l.b.ins().smin(x, y?),
        Kernel::Imax => l.b.ins().smax(x, y?),
        Kernel::Umin => l.b.ins().umin(x, y?),
        Kernel::Umax => l.b.ins().umax(x, y?),
        Kernel::Islt => l.b.ins().icmp(IntCC::SignedLessThan, x, y?),
        Kernel::Isge => l.b.ins().icmp(IntCC::SignedGreaterThanOrEqual, x, y?),
        Kernel::Useq => l.b.ins().icmp(IntCC::Equal, x, y?),
        Kernel::Usne => l.b.ins().icmp(IntCC::NotEqual, x, y?),
        Kernel::Uslt => l.b.ins().icmp(IntCC::UnsignedLessThan, x, y?),
        Kernel::Usge => l.b.ins().icmp(IntCC::UnsignedGreaterThanOrEqual, x, y?),
        // x < 0.0 (false for -0.0 and NaN) picks y.
        Kernel::Cmp => {
            let zero = l.splat(0);
            let negative = l.fcmp(FloatCC::LessThan, x, zero);
            l.b.ins().bitselect(negative, y?, z?)
        }
        Kernel::Ucmp => {
            let zero = l.splat(0);
            let set = l.b.ins().icmp(IntCC::NotEqual, x, zero);
            l.b.ins().bitselect(set, y?, z?)
        }
        // x * (y - z) + z, in that order.
        Kernel::Lrp => {
            let (y, z) = (y?, z?);
            let d = l.float2(y, z, |b, x, y| b.ins().fsub(x, y));
            let p = l.float2(x, d, |b, x, y| b.ins().fmul(x, y));
            l.float2(p, z, |b, x, y| b.ins().fadd(x, y))
        }
        _ => return None,
    })
}

/// Rounding, the sign and conversions.
fn rounding(l: &mut Lower<'_, '_>, kernel: Kernel, a: &[Value]) -> Option<Value> {
    let arg = |i: usize| a.get(i).copied();
    let x = arg(0)?;
    Some(match kernel {
        Kernel::Round => l.round_ties_even(x),
        Kernel::Flr => l.floor(x),
        Kernel::Ceil => {
            let sign = l.splat(0x8000_0000);
            let negated = l.b.ins().bxor(x, sign);
            let f = l.floor(negated);
            l.b.ins().bxor(f, sign)
        }
        Kernel::Trunc => {
            let magnitude = l.splat(0x7fff_ffff);
            let ax = l.b.ins().band(x, magnitude);
            let f = l.floor(ax);
            l.copysign(f, x)
        }
        Kernel::Frc => {
            let f = l.floor(x);
            l.float2(x, f, |b, x, y| b.ins().fsub(x, y))
        }
        Kernel::Ssg => {
            let zero = l.splat(0);
            let below = l.fcmp(FloatCC::LessThan, x, zero);
            let above = l.fcmp(FloatCC::GreaterThan, x, zero);
            let minus = l.splat((-1.0f32).to_bits());
            let plus = l.splat(1.0f32.to_bits());
            let below = l.b.ins().band(below, minus);
            let above = l.b.ins().band(above, plus);
            l.b.ins().bor(below, above)
        }
        Kernel::I2f => {
            let f = l.b.ins().fcvt_from_sint(F32X4, x);
            as_bits(l.b, f)
        }
        Kernel::U2f => {
            let f = l.b.ins().fcvt_from_uint(F32X4, x);
            as_bits(l.b, f)
        }
        Kernel::F2i => l.f2i(x),
        // `semantics::trunc_u32`: from 2^31 on, 2^31 less (exact below
        // 2^32, and far from range above), converted, top bit flipped.
        Kernel::F2u => {
            let two31 = l.splat(0x4f00_0000);
            let high = l.fcmp(FloatCC::GreaterThanOrEqual, x, two31);
            let less = l.float2(x, two31, |b, x, y| b.ins().fsub(x, y));
            let converted = l.f2i(less);
            let top = l.splat(0x8000_0000);
            let flipped = l.b.ins().bxor(converted, top);
            let low = l.f2i(x);
            l.b.ins().bitselect(high, flipped, low)
        }
        _ => return None,
    })
}

/// `f` of each lane of `x` and `y` (i32x4), in scalar registers.
fn per_lane(
    b: &mut FunctionBuilder,
    x: Value,
    y: Value,
    f: impl Fn(&mut FunctionBuilder, Value, Value) -> Value,
) -> Value {
    let mut r = x;
    for lane in 0..4u8 {
        let (xl, yl) = (b.ins().extractlane(x, lane), b.ins().extractlane(y, lane));
        let v = f(b, xl, yl);
        r = b.ins().insertlane(r, v, lane);
    }
    r
}

/// The high 32 bits of the 64-bit product of i32 `x` and `y`, as signed
/// or unsigned numbers.
fn mul_high(b: &mut FunctionBuilder, x: Value, y: Value, signed: bool) -> Value {
    let widen = |b: &mut FunctionBuilder, v| if signed { b.ins().sextend(I64, v) } else { b.ins().uextend(I64, v) };
    let (x, y) = (widen(b, x), widen(b, y));
    let p = b.ins().imul(x, y);
    let high = b.ins().ushr_imm(p, 32);
    b.ins().ireduce(I32, high)
}

/// The integer divisions, with `semantics`' results where the machine's
/// would trap.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Division {
    Udiv,
    Umod,
    Idiv,
    Mod,
}

/// `x / y` or `x % y` of i32 lanes: by zero, UDIV, UMOD and MOD give all
/// ones and IDIV 0; `i32::MIN / -1` wraps (and its remainder is 0). The
/// machine divides by 1 instead of 0 (or of -1, signed), and the result
/// is chosen after.
fn divide(b: &mut FunctionBuilder, x: Value, y: Value, op: Division) -> Value {
    let zero = b.ins().icmp_imm(IntCC::Equal, y, 0);
    let one = b.ins().iconst(I32, 1);
    let ones = b.ins().iconst(I32, -1);
    match op {
        Division::Udiv | Division::Umod => {
            let safe = b.ins().select(zero, one, y);
            let r = if op == Division::Udiv { b.ins().udiv(x, safe) } else { b.ins().urem(x, safe) };
            b.ins().select(zero, ones, r)
        }
        Division::Idiv | Division::Mod => {
            let minus = b.ins().icmp_imm(IntCC::Equal, y, -1);
            let trapping = b.ins().bor(zero, minus);
            let safe = b.ins().select(trapping, one, y);
            if op == Division::Idiv {
                let q = b.ins().sdiv(x, safe);
                let negated = b.ins().ineg(x);
                let q = b.ins().select(minus, negated, q);
                let nothing = b.ins().iconst(I32, 0);
                b.ins().select(zero, nothing, q)
            } else {
                // By 1 (for -1 too) the remainder is 0, as it is by -1.
                let r = b.ins().srem(x, safe);
                b.ins().select(zero, ones, r)
            }
        }
    }
}

/// Vector code for the operations, on i32x4 bits.
struct Lower<'a, 'b> {
    b: &'a mut FunctionBuilder<'b>,
}

impl Lower<'_, '_> {
    fn splat(&mut self, bits: u32) -> Value {
        vector(self.b, [bits; 4])
    }

    fn float1(&mut self, x: Value, f: impl FnOnce(&mut FunctionBuilder, Value) -> Value) -> Value {
        let x = as_f32(self.b, x);
        let r = f(self.b, x);
        as_bits(self.b, r)
    }

    fn float2(&mut self, x: Value, y: Value, f: impl FnOnce(&mut FunctionBuilder, Value, Value) -> Value) -> Value {
        let (x, y) = (as_f32(self.b, x), as_f32(self.b, y));
        let r = f(self.b, x, y);
        as_bits(self.b, r)
    }

    /// All ones where `x cc y`, as floats.
    fn fcmp(&mut self, cc: FloatCC, x: Value, y: Value) -> Value {
        let (x, y) = (as_f32(self.b, x), as_f32(self.b, y));
        self.b.ins().fcmp(cc, x, y)
    }

    /// 1.0 where `x cc y`, else 0.0.
    fn one_if(&mut self, cc: FloatCC, x: Value, y: Value) -> Value {
        let m = self.fcmp(cc, x, y);
        let one = self.splat(1.0f32.to_bits());
        self.b.ins().band(m, one)
    }

    /// `semantics::fmin` (`cc` less than) or `fmax` (greater than): x
    /// when `x cc y`, else y; a NaN operand yields the other one, and
    /// two NaNs the second.
    fn min_max(&mut self, x: Value, y: Value, cc: FloatCC) -> Value {
        let pick_x = self.fcmp(cc, x, y);
        let r = self.b.ins().bitselect(pick_x, x, y);
        let y_nan = self.fcmp(FloatCC::Unordered, y, y);
        let r = self.b.ins().bitselect(y_nan, x, r);
        let x_nan = self.fcmp(FloatCC::Unordered, x, x);
        self.b.ins().bitselect(x_nan, y, r)
    }

    /// The magnitude of `m` with the sign of `s`.
    fn copysign(&mut self, m: Value, s: Value) -> Value {
        let magnitude = self.splat(0x7fff_ffff);
        let sign = self.splat(0x8000_0000);
        let m = self.b.ins().band(m, magnitude);
        let s = self.b.ins().band(s, sign);
        self.b.ins().bor(m, s)
    }

    /// `semantics::round_ties_even`: below 2^23 in magnitude, 2^23 added
    /// and taken away again rounds away the fraction; the sign kept.
    fn round_ties_even(&mut self, x: Value) -> Value {
        let magnitude = self.splat(0x7fff_ffff);
        let ax = self.b.ins().band(x, magnitude);
        let integral = self.splat(0x4b00_0000); // 2^23
        let small = self.fcmp(FloatCC::LessThan, ax, integral);
        let up = self.float2(ax, integral, |b, x, y| b.ins().fadd(x, y));
        let rounded = self.float2(up, integral, |b, x, y| b.ins().fsub(x, y));
        let rounded = self.copysign(rounded, x);
        self.b.ins().bitselect(small, rounded, x)
    }

    /// `semantics::floor`: the nearest integer, less one when that is
    /// above `x` (large values and NaN stay as they are).
    fn floor(&mut self, x: Value) -> Value {
        let r = self.round_ties_even(x);
        let above = self.fcmp(FloatCC::GreaterThan, r, x);
        let one = self.splat(1.0f32.to_bits());
        let less = self.float2(r, one, |b, x, y| b.ins().fsub(x, y));
        self.b.ins().bitselect(above, less, r)
    }

    /// `semantics::trunc_i32` of an f32: truncation from -2^31 up to below
    /// 2^31, `i32::MIN` otherwise (NaN included), as `cvttps2dq`.
    fn f2i(&mut self, x: Value) -> Value {
        let low = self.splat(0xcf00_0000); // -2^31
        let high = self.splat(0x4f00_0000); // 2^31
        let above = self.fcmp(FloatCC::GreaterThanOrEqual, x, low);
        let below = self.fcmp(FloatCC::LessThan, x, high);
        let fits = self.b.ins().band(above, below);
        let xf = as_f32(self.b, x);
        let converted = self.b.ins().fcvt_to_sint_sat(I32X4, xf);
        let min = self.splat(0x8000_0000);
        self.b.ins().bitselect(fits, converted, min)
    }
}

/// `floor` of the floats of `x` converted to integers as `cvttps2dq`
/// does (`i32::MIN` out of range and for NaN): ARL, and the texel a lane
/// samples (`sampler::nearest_repeat_texels`).
pub(super) fn floor_to_int(b: &mut FunctionBuilder, x: Value) -> Value {
    let mut l = Lower { b };
    let f = l.floor(x);
    l.f2i(f)
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

/// A derivative across the quad `v` (i32x4 float bits, modifiers
/// applied), as the interpreter's `deriv` computes it: each lane the
/// difference of two lanes of the quad, its NaN made canonical.
pub(super) fn derivative(b: &mut FunctionBuilder, v: Value, kind: crate::program::Deriv) -> Value {
    use crate::program::Deriv;
    let pairs: [(u8, u8); 4] = match kind {
        Deriv::X => [(3, 2); 4],
        Deriv::Y => [(2, 0); 4],
        Deriv::XFine => [(1, 0), (1, 0), (3, 2), (3, 2)],
        Deriv::YFine => [(2, 0), (3, 1), (2, 0), (3, 1)],
    };
    let lanes = |b: &mut FunctionBuilder, pick: [u8; 4]| {
        let bytes: Vec<u8> = pick.iter().flat_map(|&l| (0..4).map(move |k| l * 4 + k)).collect();
        let mask = b.func.dfg.immediates.push(bytes.as_slice().into());
        let v8 = b.ins().bitcast(I8X16, MemFlags::new().with_endianness(Endianness::Little), v);
        let picked = b.ins().shuffle(v8, v8, mask);
        b.ins().bitcast(I32X4, MemFlags::new().with_endianness(Endianness::Little), picked)
    };
    let first = lanes(b, pairs.map(|p| p.0));
    let second = lanes(b, pairs.map(|p| p.1));
    let mut l = Lower { b };
    let d = l.float2(first, second, |b, x, y| b.ins().fsub(x, y));
    canonical_nan(l.b, d)
}

/// All ones where the float lanes of `v` are not 0.0 (NaN included, -0.0
/// not), as the interpreter tests an IF's condition.
pub(super) fn float_not_zero(b: &mut FunctionBuilder, v: Value) -> Value {
    let x = as_f32(b, v);
    let zero = vector(b, [0; 4]);
    let zero = as_f32(b, zero);
    // Cranelift's `NotEqual` is unordered or not equal.
    b.ins().fcmp(FloatCC::NotEqual, x, zero)
}

/// Wrapping absolute value of i32 lanes.
pub(super) fn iabs(b: &mut FunctionBuilder, v: Value) -> Value {
    let zero = vector(b, [0; 4]);
    let negative = b.ins().icmp(IntCC::SignedLessThan, v, zero);
    let negated = b.ins().ineg(v);
    b.ins().bitselect(negative, negated, v)
}
