//! Scalar semantics of the ALU opcodes, checked against hand-computed bits.

use semantics::{apply_modifiers, eval, saturate};
use tgsi::{flags, ChannelMode, Opcode, OperandType};

fn f(x: f32) -> u64 {
    x.to_bits() as u64
}

fn d(x: f64) -> u64 {
    x.to_bits()
}

/// Evaluates a 32-bit float op on float operands, channel 0.
fn ff(op: Opcode, args: &[f32]) -> f32 {
    let a: Vec<u64> = args.iter().map(|&x| f(x)).collect();
    f32::from_bits(eval(op, 0, &a).unwrap_or_else(|| panic!("{op} not evaluated")) as u32)
}

/// Evaluates an op on raw operands, channel 0.
fn ev(op: Opcode, args: &[u64]) -> u64 {
    eval(op, 0, args).unwrap_or_else(|| panic!("{op} not evaluated"))
}

/// Evaluates a channel-dependent op, every channel.
fn chans(op: Opcode, args: &[u64]) -> [u64; 4] {
    [0, 1, 2, 3].map(|c| eval(op, c, args).unwrap_or_else(|| panic!("{op}.{c} not evaluated")))
}

const NAN: u64 = 0x7fc0_0000;
const T: u64 = 0xffff_ffff;

/// Opcodes that reach `Op::Alu` but need more than one lane.
fn needs_quad(op: Opcode) -> bool {
    matches!(op, Opcode::Ddx | Opcode::Ddy | Opcode::DdxFine | Opcode::DdyFine)
}

/// Opcodes the table calls component-wise that the IR keeps whole, as they
/// read other invocations or the machine.
fn cross_lane(op: Opcode) -> bool {
    use Opcode::*;
    matches!(op, ReadInvoc | ReadFirst | VoteAny | VoteAll | VoteEq | Ballot | Clock | ReadHelper)
}

#[test]
fn every_alu_opcode_of_the_table_is_evaluated() {
    let mut checked = 0;
    for &op in Opcode::ALL {
        let info = op.info();
        let alu_mode =
            matches!(info.mode, ChannelMode::Componentwise | ChannelMode::Replicate | ChannelMode::ChannelDependent);
        let resource = info.has(flags::TEX) || info.has(flags::SAMPLE) || info.has(flags::MEMORY);
        if !alu_mode || info.is_legacy() || resource || cross_lane(op) {
            continue;
        }
        let one32 = f(1.0);
        let one64 = d(1.0);
        let n = info.num_src as usize;
        let args: Vec<u64> = if info.is_64bit() {
            (0..n).map(|i| if op.src_type(i).is_64bit() { one64 } else { one32 }).collect()
        } else {
            match info.mode {
                ChannelMode::Replicate => vec![one32; semantics::replicated_reads(op).len()],
                ChannelMode::ChannelDependent => vec![one32; 4 * n],
                _ => vec![one32; n],
            }
        };
        let channels = if info.mode == ChannelMode::ChannelDependent { 0..4 } else { 0..1 };
        for c in channels {
            let r = eval(op, c, &args);
            if needs_quad(op) {
                assert_eq!(r, None, "{op} needs a quad");
            } else {
                assert!(r.is_some(), "{op}.{c} is not evaluated");
                checked += 1;
            }
        }
    }
    assert!(checked > 150, "{checked}");
}

#[test]
fn wrong_operand_counts_give_none() {
    for &op in Opcode::ALL {
        for n in [0usize, 5, 7, 9] {
            let args = vec![f(1.0); n];
            // Only an exact count is accepted; no argument list panics.
            let info = op.info();
            let expected_n = match info.mode {
                ChannelMode::Replicate if !info.is_legacy() => semantics::replicated_reads(op).len(),
                ChannelMode::ChannelDependent => 4 * info.num_src as usize,
                _ => info.num_src as usize,
            };
            if n != expected_n {
                assert_eq!(eval(op, 0, &args), None, "{op} with {n} operands");
            }
        }
    }
    assert_eq!(eval(Opcode::Lit, 4, &[f(1.0); 4]), None);
    assert_eq!(eval(Opcode::Up2h, 9, &[0; 4]), None);
    assert_eq!(eval(Opcode::Kill, 0, &[]), None);
    assert_eq!(eval(Opcode::Tex, 0, &[0, 0]), None);
}

#[test]
fn float_arithmetic() {
    use Opcode::*;
    assert_eq!(ff(Add, &[1.5, 2.25]), 3.75);
    assert_eq!(ff(Mul, &[-3.0, 0.5]), -1.5);
    assert_eq!(ff(Div, &[1.0, 0.0]), f32::INFINITY);
    assert!(ff(Div, &[0.0, 0.0]).is_nan());
    assert_eq!(ff(Lrp, &[0.25, 4.0, 0.0]), 1.0);
    // MAD rounds the product: (1 + 2^-12)^2 - 1 loses its 2^-24 term.
    let a = 1.0 + f32::EPSILON * 2048.0;
    assert_eq!(ff(Mad, &[a, a, -1.0]).to_bits(), (2.0 * f32::EPSILON * 2048.0).to_bits());
    assert_eq!(ff(Fma, &[a, a, -1.0]), 2.0 * f32::EPSILON * 2048.0 + f32::EPSILON * f32::EPSILON * 2048.0 * 2048.0);
    assert_eq!(ff(Ldexp, &[1.5, 0.0]), 1.5);
    assert_eq!(ev(Ldexp, &[f(1.5), 3]), f(12.0));
    assert_eq!(ev(Ldexp, &[f(1.0), (-149i32) as u32 as u64]), 1);
    assert_eq!(ev(Ldexp, &[f(1.0), 200]), f(f32::INFINITY));
    assert_eq!(ev(Ldexp, &[f(3.0), (-150i32) as u32 as u64]), 2); // 1.5 * 2^-149 rounds to even
    assert_eq!(ev(Ldexp, &[1, 149]), f(1.0)); // a subnormal scaled up
}

#[test]
fn float_rounding() {
    use Opcode::*;
    assert_eq!(ff(Flr, &[-1.5]), -2.0);
    assert_eq!(ff(Ceil, &[-1.5]).to_bits(), (-1.0f32).to_bits());
    assert_eq!(ff(Ceil, &[-0.5]).to_bits(), (-0.0f32).to_bits());
    assert_eq!(ff(Trunc, &[-1.75]), -1.0);
    assert_eq!(ff(Round, &[2.5]), 2.0);
    assert_eq!(ff(Round, &[3.5]), 4.0);
    assert_eq!(ff(Round, &[-0.5]).to_bits(), (-0.0f32).to_bits());
    assert_eq!(ff(Frc, &[-0.25]), 0.75);
    assert_eq!(ff(Frc, &[5.5]), 0.5);
    assert!(ff(Frc, &[f32::INFINITY]).is_nan());
}

#[test]
fn float_min_max_sign_and_compare() {
    use Opcode::*;
    assert_eq!(ff(Min, &[f32::NAN, 2.0]), 2.0);
    assert_eq!(ff(Max, &[3.0, f32::NAN]), 3.0);
    // Equal operands: the second one, as glibc.
    assert_eq!(ff(Max, &[-0.0, 0.0]).to_bits(), 0);
    assert_eq!(ff(Max, &[0.0, -0.0]).to_bits(), 0x8000_0000);
    assert_eq!(ff(Min, &[0.0, -0.0]).to_bits(), 0x8000_0000);
    assert_eq!(ff(Ssg, &[-3.0]), -1.0);
    assert_eq!(ff(Ssg, &[7.0]), 1.0);
    assert_eq!(ff(Ssg, &[-0.0]).to_bits(), 0);
    assert_eq!(ff(Ssg, &[f32::NAN]).to_bits(), 0);

    assert_eq!(ff(Slt, &[1.0, 2.0]), 1.0);
    assert_eq!(ff(Sge, &[1.0, 2.0]), 0.0);
    assert_eq!(ff(Seq, &[0.0, -0.0]), 1.0);
    assert_eq!(ff(Sne, &[f32::NAN, f32::NAN]), 1.0);
    assert_eq!(ff(Sgt, &[f32::NAN, 0.0]), 0.0);
    assert_eq!(ff(Sle, &[2.0, 2.0]), 1.0);
    assert_eq!(ev(Fslt, &[f(-1.0), f(0.0)]), T);
    assert_eq!(ev(Fsge, &[NAN, f(0.0)]), 0);
    assert_eq!(ev(Fseq, &[f(1.0), f(1.0)]), T);
    assert_eq!(ev(Fsne, &[NAN, NAN]), T);
}

#[test]
fn selections_copy_bits() {
    use Opcode::*;
    assert_eq!(ev(Mov, &[0x7f80_0001]), 0x7f80_0001);
    assert_eq!(ev(Cmp, &[f(-1.0), 11, 22]), 11);
    assert_eq!(ev(Cmp, &[f(-0.0), 11, 22]), 22);
    assert_eq!(ev(Cmp, &[NAN, 11, 22]), 22);
    assert_eq!(ev(Ucmp, &[0x8000_0000, 11, 22]), 11);
    assert_eq!(ev(Ucmp, &[0, 11, 22]), 22);
}

#[test]
fn replicated_scalars() {
    use Opcode::*;
    assert_eq!(ff(Rcp, &[4.0]), 0.25);
    assert_eq!(ff(Rcp, &[-0.0]), f32::NEG_INFINITY);
    assert_eq!(ff(Rsq, &[16.0]), 0.25);
    assert!(ff(Rsq, &[-1.0]).is_nan());
    assert_eq!(ff(Sqrt, &[2.25]), 1.5);
    assert_eq!(ff(Ex2, &[3.0]), 8.0);
    assert_eq!(ff(Ex2, &[f32::NEG_INFINITY]), 0.0);
    assert_eq!(ff(Lg2, &[8.0]), 8.0f32.ln() * f32::from_bits(0x3fb8_aa3b));
    assert_eq!(ff(Lg2, &[0.0]), f32::NEG_INFINITY);
    assert!(ff(Lg2, &[-1.0]).is_nan());
    assert_eq!(ff(Pow, &[2.0, 10.0]), 1024.0);
    assert_eq!(ff(Pow, &[0.0, 0.0]), 1.0);
    assert_eq!(ff(Sin, &[0.0]), 0.0);
    assert_eq!(ff(Cos, &[0.0]), 1.0);
    assert_eq!(ff(Dp2, &[1.0, 2.0, 3.0, 4.0]), 11.0);
    assert_eq!(ff(Dp3, &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]), 32.0);
    assert_eq!(ff(Dp4, &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]), 70.0);
    // Accumulated unfused in channel order: x*y first, then the big terms.
    assert_eq!(ff(Dp3, &[1e-8, 1.0, -1.0, 1.0, 1.0, 1.0]), 0.0);
    assert_eq!(ff(Dp3, &[1.0, 1.0, 1e-8, 1.0, -1.0, 1.0]), 1e-8);
}

#[test]
fn lit() {
    let l = |x: f32, y: f32, w: f32| chans(Opcode::Lit, &[f(x), f(y), f(0.0), f(w)]).map(|b| f32::from_bits(b as u32));
    assert_eq!(l(0.5, 2.0, 3.0), [1.0, 0.5, 8.0, 1.0]);
    // x <= 0: no specular term.
    assert_eq!(l(-0.5, 2.0, 3.0), [1.0, 0.0, 0.0, 1.0]);
    assert_eq!(l(0.0, 2.0, 3.0), [1.0, 0.0, 0.0, 1.0]);
    // Negative y is clamped to 0: 0^w.
    assert_eq!(l(1.0, -2.0, 3.0), [1.0, 1.0, 0.0, 1.0]);
    assert_eq!(l(1.0, -2.0, 0.0), [1.0, 1.0, 1.0, 1.0]);
    // The power is clamped to [-128, 128].
    assert_eq!(l(1.0, 2.0, 200.0)[2], 2.0f32.powf(128.0));
    assert_eq!(l(1.0, 2.0, -200.0)[2], 2.0f32.powf(-128.0));
    assert_eq!(l(1.0, 2.0, f32::NAN)[2], 2.0f32.powf(128.0));
    assert_eq!(l(f32::NAN, 2.0, 1.0), [1.0, 0.0, 0.0, 1.0]);
}

#[test]
fn exp_log_dst() {
    let e = chans(Opcode::Exp, &[f(2.5), f(9.0), f(9.0), f(9.0)]).map(|b| f32::from_bits(b as u32));
    assert_eq!(e, [4.0, 0.5, 2.0f32.powf(2.5), 1.0]);
    let e = chans(Opcode::Exp, &[f(-1.25), 0, 0, 0]).map(|b| f32::from_bits(b as u32));
    assert_eq!(e, [0.25, 0.75, 2.0f32.powf(-1.25), 1.0]);
    // LOG works on |x|.
    let l = chans(Opcode::Log, &[f(-12.0), 0, 0, 0]).map(|b| f32::from_bits(b as u32));
    let lg = 12.0f32.ln() * f32::from_bits(0x3fb8_aa3b); // Mesa's 1.442695f
    assert_eq!(l, [3.0, 1.5, lg, 1.0]);
    let l = chans(Opcode::Log, &[f(0.0), 0, 0, 0]).map(|b| f32::from_bits(b as u32));
    assert_eq!(l[0], f32::NEG_INFINITY);
    assert_eq!(l[2], f32::NEG_INFINITY);
    assert_eq!(l[3], 1.0);

    let a = [f(9.0), f(2.0), f(3.0), f(9.0)];
    let b = [f(9.0), f(5.0), f(9.0), f(7.0)];
    let args: Vec<u64> = a.iter().chain(&b).copied().collect();
    assert_eq!(chans(Opcode::Dst, &args), [f(1.0), f(10.0), f(3.0), f(7.0)]);
}

#[test]
fn integer_arithmetic() {
    use Opcode::*;
    let m = |x: i32| x as u32 as u64;
    assert_eq!(ev(Uadd, &[0xffff_ffff, 2]), 1);
    assert_eq!(ev(Umul, &[0x1_0000, 0x1_0000]), 0);
    assert_eq!(ev(Umad, &[3, 4, 5]), 17);
    assert_eq!(ev(ImulHi, &[m(-2), 0x8000_0000]), 1);
    assert_eq!(ev(ImulHi, &[m(-1), 1]), T);
    assert_eq!(ev(UmulHi, &[T, T]), 0xffff_fffe);
    assert_eq!(ev(Udiv, &[7, 2]), 3);
    assert_eq!(ev(Udiv, &[7, 0]), T);
    assert_eq!(ev(Umod, &[7, 0]), T);
    assert_eq!(ev(Umod, &[7, 4]), 3);
    assert_eq!(ev(Idiv, &[m(-7), 2]), m(-3));
    assert_eq!(ev(Idiv, &[m(-7), 0]), 0);
    assert_eq!(ev(Idiv, &[m(i32::MIN), m(-1)]), m(i32::MIN));
    assert_eq!(ev(Mod, &[m(-7), 2]), m(-1));
    assert_eq!(ev(Mod, &[5, 0]), T);
    assert_eq!(ev(Mod, &[m(i32::MIN), m(-1)]), 0);
    assert_eq!(ev(Ineg, &[m(i32::MIN)]), m(i32::MIN));
    assert_eq!(ev(Iabs, &[m(-5)]), 5);
    assert_eq!(ev(Iabs, &[m(i32::MIN)]), m(i32::MIN));
    assert_eq!(ev(Issg, &[m(-5)]), T);
    assert_eq!(ev(Issg, &[0]), 0);
    assert_eq!(ev(Issg, &[9]), 1);
    assert_eq!(ev(Imin, &[m(-1), 1]), T);
    assert_eq!(ev(Imax, &[m(-1), 1]), 1);
    assert_eq!(ev(Umin, &[T, 1]), 1);
    assert_eq!(ev(Umax, &[T, 1]), T);
    assert_eq!(ev(Islt, &[m(-1), 0]), T);
    assert_eq!(ev(Isge, &[m(-1), 0]), 0);
    assert_eq!(ev(Uslt, &[T, 0]), 0);
    assert_eq!(ev(Usge, &[T, 0]), T);
    assert_eq!(ev(Useq, &[3, 3]), T);
    assert_eq!(ev(Usne, &[3, 3]), 0);
    assert_eq!(ev(Uarl, &[0xdead_beef]), 0xdead_beef);
}

#[test]
fn logic_and_shifts() {
    use Opcode::*;
    assert_eq!(ev(And, &[0b1100, 0b1010]), 0b1000);
    assert_eq!(ev(Or, &[0b1100, 0b1010]), 0b1110);
    assert_eq!(ev(Xor, &[0b1100, 0b1010]), 0b0110);
    assert_eq!(ev(Not, &[0]), T);
    assert_eq!(ev(Shl, &[1, 31]), 0x8000_0000);
    assert_eq!(ev(Shl, &[1, 32]), 1);
    assert_eq!(ev(Shl, &[1, 33]), 2);
    assert_eq!(ev(Ishr, &[0x8000_0000, 31]), T);
    assert_eq!(ev(Ishr, &[0x8000_0000, 32]), 0x8000_0000);
    assert_eq!(ev(Ushr, &[0x8000_0000, 31]), 1);
    assert_eq!(ev(Ushr, &[0x8000_0000, 36]), 0x0800_0000);
}

#[test]
fn bit_fields() {
    use Opcode::*;
    // IBFE/UBFE: value, offset, width.
    assert_eq!(ev(Ubfe, &[0xabcd_1234, 8, 8]), 0x12);
    assert_eq!(ev(Ibfe, &[0xabcd_1234, 28, 4]), 0xffff_fffa);
    assert_eq!(ev(Ibfe, &[0x0000_0070, 4, 3]), T);
    assert_eq!(ev(Ubfe, &[0x0000_0070, 4, 3]), 7);
    assert_eq!(ev(Ubfe, &[0xabcd_1234, 8, 0]), 0);
    assert_eq!(ev(Ibfe, &[0xabcd_1234, 8, 0]), 0);
    assert_eq!(ev(Ubfe, &[0xabcd_1234, 0, 32]), 0xabcd_1234);
    assert_eq!(ev(Ibfe, &[0xabcd_1234, 0, 32]), 0xabcd_1234);
    // offset + width > 32: the value shifted right by the offset.
    assert_eq!(ev(Ubfe, &[0xabcd_1234, 16, 20]), 0xabcd);
    assert_eq!(ev(Ibfe, &[0xabcd_1234, 16, 20]), 0xffff_abcd);
    // Offsets are taken modulo 32.
    assert_eq!(ev(Ubfe, &[0xabcd_1234, 40, 8]), 0x12);
    // BFI: base, insert, offset, width.
    assert_eq!(ev(Bfi, &[0xffff_ffff, 0, 8, 8]), 0xffff_00ff);
    assert_eq!(ev(Bfi, &[0, 0x1ff, 4, 4]), 0xf0);
    assert_eq!(ev(Bfi, &[0x1234, 0x5678, 0, 0]), 0x1234);
    assert_eq!(ev(Bfi, &[0x1234, 0x5678, 0, 32]), 0x5678);
    assert_eq!(ev(Bfi, &[0, T, 28, 8]), 0xf000_0000);

    assert_eq!(ev(Brev, &[1]), 0x8000_0000);
    assert_eq!(ev(Brev, &[0x0000_00f0]), 0x0f00_0000);
    assert_eq!(ev(Popc, &[0xf0f0_0001]), 9);
    assert_eq!(ev(Lsb, &[0]), T);
    assert_eq!(ev(Lsb, &[0x80]), 7);
    assert_eq!(ev(Umsb, &[0]), T);
    assert_eq!(ev(Umsb, &[0x8000_0000]), 31);
    assert_eq!(ev(Umsb, &[1]), 0);
    assert_eq!(ev(Imsb, &[0]), T);
    assert_eq!(ev(Imsb, &[T]), T);
    assert_eq!(ev(Imsb, &[0x7fff_ffff]), 30);
    assert_eq!(ev(Imsb, &[(-2i32) as u32 as u64]), 0);
    assert_eq!(ev(Imsb, &[0x8000_0000]), 30);
    assert_eq!(ev(Imsb, &[0x10]), 4);
}

#[test]
fn conversions_32bit() {
    use Opcode::*;
    let m = |x: i32| x as u32 as u64;
    assert_eq!(ev(I2f, &[m(-3)]), f(-3.0));
    assert_eq!(ev(I2f, &[m(16_777_217)]), f(16_777_216.0));
    assert_eq!(ev(U2f, &[T]), f(4_294_967_296.0));
    assert_eq!(ev(F2i, &[f(-2.75)]), m(-2));
    assert_eq!(ev(F2i, &[NAN]), 0x8000_0000);
    assert_eq!(ev(F2i, &[f(3e9)]), 0x8000_0000);
    assert_eq!(ev(F2i, &[f(-3e9)]), 0x8000_0000);
    assert_eq!(ev(F2i, &[f(-2147483648.0)]), 0x8000_0000);
    assert_eq!(ev(F2u, &[f(3e9)]), 3_000_000_000);
    assert_eq!(ev(F2u, &[f(2.9)]), 2);
    // As gcc -O2 vectorizes Mesa's `(uint)f`: [2^31, 2^32) exact, negatives
    // wrap down to -2^31, NaN and below give 0x80000000, 2^32 and above 0.
    assert_eq!(ev(F2u, &[f(2_147_483_648.0)]), 0x8000_0000);
    assert_eq!(ev(F2u, &[f(4_294_967_040.0)]), 0xffff_ff00, "the largest f32 below 2^32");
    assert_eq!(ev(F2u, &[f(-0.75)]), 0);
    assert_eq!(ev(F2u, &[f(-1.0)]), T);
    assert_eq!(ev(F2u, &[f(-20.0)]), m(-20));
    assert_eq!(ev(F2u, &[f(-2_147_483_648.0)]), 0x8000_0000);
    assert_eq!(ev(F2u, &[f(-3e9)]), 0x8000_0000);
    assert_eq!(ev(F2u, &[f(f32::NEG_INFINITY)]), 0x8000_0000);
    assert_eq!(ev(F2u, &[NAN]), 0x8000_0000);
    assert_eq!(ev(F2u, &[0xffc0_0000]), 0x8000_0000, "-nan");
    assert_eq!(ev(F2u, &[0x7f80_0001]), 0x8000_0000, "signalling NaN");
    assert_eq!(ev(F2u, &[f(4_294_967_296.0)]), 0);
    assert_eq!(ev(F2u, &[f(5e9)]), 0);
    assert_eq!(ev(F2u, &[f(1e20)]), 0);
    assert_eq!(ev(F2u, &[f(f32::INFINITY)]), 0);
    // ARL floors, ARR rounds halves up.
    assert_eq!(ev(Arl, &[f(-0.5)]), T);
    assert_eq!(ev(Arl, &[f(2.99)]), 2);
    assert_eq!(ev(Arl, &[NAN]), 0x8000_0000);
    assert_eq!(ev(Arr, &[f(2.5)]), 3);
    assert_eq!(ev(Arr, &[f(-2.5)]), m(-2));
    assert_eq!(ev(Arr, &[f(0.49999997)]), 1);
}

#[test]
fn conversions_64bit() {
    use Opcode::*;
    let m = |x: i32| x as u32 as u64;
    assert_eq!(ev(F2d, &[f(0.1)]), d(0.1f32 as f64));
    assert_eq!(ev(I2d, &[m(-7)]), d(-7.0));
    assert_eq!(ev(U2d, &[T]), d(4_294_967_295.0));
    assert_eq!(ev(I2i64, &[m(-1)]), u64::MAX);
    assert_eq!(ev(U2i64, &[T]), 0xffff_ffff);
    assert_eq!(ev(F2i64, &[f(-1.5)]), u64::MAX);
    assert_eq!(ev(F2i64, &[NAN]), 1 << 63);
    assert_eq!(ev(F2u64, &[f(-1.0)]), u64::MAX);
    assert_eq!(ev(F2u64, &[NAN]), 1 << 63);
    assert_eq!(ev(F2u64, &[f(1.5e19)]), 15_000_000_520_515_485_696);
    assert_eq!(ev(F2u64, &[f(1e20)]), 0);
    assert_eq!(ev(F2u64, &[f(-1e20)]), 1 << 63);
    assert_eq!(ev(D2f, &[d(0.1)]), f(0.1));
    assert_eq!(ev(D2f, &[d(1e300)]), f(f32::INFINITY));
    assert_eq!(ev(D2i, &[d(-2.5)]), m(-2));
    assert_eq!(ev(D2i, &[d(3e9)]), 0x8000_0000);
    assert_eq!(ev(D2u, &[d(3e9)]), 3_000_000_000);
    // D2U is converted as F2U is (see `conversions_32bit`).
    assert_eq!(ev(D2u, &[d(4_294_967_295.5)]), T);
    assert_eq!(ev(D2u, &[d(-1.0)]), T);
    assert_eq!(ev(D2u, &[d(-2_147_483_648.9)]), 0x8000_0000);
    assert_eq!(ev(D2u, &[d(-2_147_483_649.0)]), 0x8000_0000);
    assert_eq!(ev(D2u, &[d(f64::NAN)]), 0x8000_0000);
    assert_eq!(ev(D2u, &[d(4_294_967_296.0)]), 0);
    assert_eq!(ev(D2u, &[d(f64::INFINITY)]), 0);
    assert_eq!(ev(D2u, &[d(f64::NEG_INFINITY)]), 0x8000_0000);
    assert_eq!(ev(D2i64, &[d(-3.9)]), (-3i64) as u64);
    assert_eq!(ev(D2i64, &[d(1e19)]), 1 << 63);
    assert_eq!(ev(D2u64, &[d(1e19)]), 10_000_000_000_000_000_000);
    assert_eq!(ev(D2u64, &[d(2e19)]), 0);
    assert_eq!(ev(U642f, &[u64::MAX]), f(18_446_744_073_709_551_616.0));
    assert_eq!(ev(I642f, &[u64::MAX]), f(-1.0));
    assert_eq!(ev(U642d, &[(1 << 53) + 1]), d(9_007_199_254_740_992.0));
    assert_eq!(ev(I642d, &[(-5i64) as u64]), d(-5.0));
}

#[test]
fn doubles() {
    use Opcode::*;
    assert_eq!(ev(Dadd, &[d(0.1), d(0.2)]), d(0.1 + 0.2));
    assert_eq!(ev(Dmul, &[d(3.0), d(-0.5)]), d(-1.5));
    assert_eq!(ev(Ddiv, &[d(1.0), d(0.0)]), d(f64::INFINITY));
    let a = 1.0 + f64::EPSILON;
    // DMAD rounds twice, DFMA once.
    assert_eq!(ev(Dmad, &[d(a), d(a), d(-1.0)]), d(2.0 * f64::EPSILON));
    assert_eq!(ev(Dfma, &[d(a), d(a), d(-1.0)]), d(2.0 * f64::EPSILON + f64::EPSILON * f64::EPSILON));
    assert_eq!(ev(Dmin, &[d(f64::NAN), d(1.0)]), d(1.0));
    assert_eq!(ev(Dmax, &[d(-0.0), d(0.0)]), d(0.0));
    assert_eq!(ev(Dneg, &[d(0.0)]), d(-0.0));
    assert_eq!(ev(Dabs, &[d(-2.0)]), d(2.0));
    assert_eq!(ev(Dabs, &[d(-0.0)]), d(-0.0));
    assert_eq!(ev(Drcp, &[d(4.0)]), d(0.25));
    assert_eq!(ev(Dsqrt, &[d(2.25)]), d(1.5));
    assert_eq!(ev(Drsq, &[d(0.25)]), d(2.0));
    assert_eq!(ev(Dfrac, &[d(-1.25)]), d(0.75));
    assert_eq!(ev(Dflr, &[d(-1.25)]), d(-2.0));
    assert_eq!(ev(Dceil, &[d(-1.25)]), d(-1.0));
    assert_eq!(ev(Dtrunc, &[d(-1.75)]), d(-1.0));
    assert_eq!(ev(Dround, &[d(2.5)]), d(2.0));
    assert_eq!(ev(Dround, &[d(-3.5)]), d(-4.0));
    assert_eq!(ev(Dssg, &[d(-7.0)]), d(-1.0));
    assert_eq!(ev(Dssg, &[d(f64::NAN)]), d(0.0));
    assert_eq!(ev(Dldexp, &[d(1.5), 4]), d(24.0));
    assert_eq!(ev(Dldexp, &[d(1.0), (-1074i32) as u32 as u64]), 1);
    assert_eq!(ev(Dldexp, &[d(1.0), 5000]), d(f64::INFINITY));
    assert_eq!(ev(Dldexp, &[1, 1074]), d(1.0));
    assert_eq!(ev(Dslt, &[d(1.0), d(2.0)]), T);
    assert_eq!(ev(Dsge, &[d(f64::NAN), d(2.0)]), 0);
    assert_eq!(ev(Dseq, &[d(0.0), d(-0.0)]), T);
    assert_eq!(ev(Dsne, &[d(f64::NAN), d(f64::NAN)]), T);
}

#[test]
fn int64() {
    use Opcode::*;
    let m = |x: i64| x as u64;
    assert_eq!(ev(U64add, &[u64::MAX, 2]), 1);
    assert_eq!(ev(U64mul, &[1 << 32, 1 << 32]), 0);
    assert_eq!(ev(I64abs, &[m(-5)]), 5);
    assert_eq!(ev(I64abs, &[m(i64::MIN)]), m(i64::MIN));
    assert_eq!(ev(I64neg, &[5]), m(-5));
    assert_eq!(ev(I64ssg, &[m(-9)]), u64::MAX);
    assert_eq!(ev(I64ssg, &[0]), 0);
    assert_eq!(ev(U64shl, &[1, 63]), 1 << 63);
    assert_eq!(ev(U64shl, &[1, 64]), 1);
    // The count is the low channel of its pair.
    assert_eq!(ev(U64shl, &[1, 0xffff_ffff_0000_0001]), 2);
    assert_eq!(ev(I64shr, &[1 << 63, 63]), u64::MAX);
    assert_eq!(ev(U64shr, &[1 << 63, 63]), 1);
    assert_eq!(ev(I64min, &[m(-1), 1]), m(-1));
    assert_eq!(ev(I64max, &[m(-1), 1]), 1);
    assert_eq!(ev(U64min, &[u64::MAX, 1]), 1);
    assert_eq!(ev(U64max, &[u64::MAX, 1]), u64::MAX);
    assert_eq!(ev(U64div, &[7, 0]), u64::MAX);
    assert_eq!(ev(U64mod, &[7, 0]), u64::MAX);
    assert_eq!(ev(I64div, &[m(-7), 0]), 0);
    assert_eq!(ev(I64div, &[m(-7), 2]), m(-3));
    assert_eq!(ev(I64div, &[m(i64::MIN), m(-1)]), m(i64::MIN));
    assert_eq!(ev(I64mod, &[m(-7), 0]), u64::MAX);
    assert_eq!(ev(I64mod, &[m(-7), 2]), m(-1));
    assert_eq!(ev(U64seq, &[5, 5]), T);
    assert_eq!(ev(U64sne, &[5, 5]), 0);
    assert_eq!(ev(U64slt, &[1, u64::MAX]), T);
    assert_eq!(ev(I64slt, &[1, u64::MAX]), 0);
    assert_eq!(ev(U64sge, &[1, u64::MAX]), 0);
    assert_eq!(ev(I64sge, &[1, u64::MAX]), T);
}

#[test]
fn half_floats() {
    use Opcode::*;
    assert_eq!(ev(Pk2h, &[f(1.0), f(-2.0)]), 0xc000_3c00);
    assert_eq!(ev(Pk2h, &[f(65504.0), f(65520.0)]), 0x7c00_7bff);
    assert_eq!(ev(Pk2h, &[f(f32::INFINITY), NAN]), 0x7e00_7c00);
    assert_eq!(ev(Pk2h, &[f(-0.0), f(5.960_464_5e-8)]), 0x0001_8000);
    // Halfway between 2^-24 and 0 rounds to even (0); just above rounds up.
    assert_eq!(ev(Pk2h, &[f(2.980_232_2e-8), f(2.980_233e-8)]), 0x0001_0000);
    // 1 + 2^-11 is a tie between 1 and 1 + 2^-10: to even.
    assert_eq!(ev(Pk2h, &[f(1.0 + 1.0 / 2048.0), f(1.0 + 3.0 / 2048.0)]), 0x3c02_3c00);
    assert_eq!(ev(Pk2h, &[f(6.103_515_6e-5), f(1e-10)]), 0x0000_0400);

    let up = |x: u64| chans(Up2h, &[x, 0, 0, 0]);
    assert_eq!(up(0xc000_3c00), [f(1.0), f(-2.0), f(1.0), f(-2.0)]);
    assert_eq!(up(0x0001_7bff)[..2], [f(65504.0), f(5.960_464_5e-8)]);
    assert_eq!(up(0x7c00_fc00)[..2], [f(f32::NEG_INFINITY), f(f32::INFINITY)]);
    assert!(f32::from_bits(up(0x7e00)[0] as u32).is_nan());
    assert_eq!(up(0x8000)[0], f(-0.0));
}

#[test]
fn normalized_packing() {
    use Opcode::*;
    assert_eq!(ev(Pk2us, &[f(1.0), f(0.5)]), 0x8000_ffff);
    assert_eq!(ev(Pk2us, &[f(-1.0), NAN]), 0);
    assert_eq!(ev(Pk4ub, &[f(1.0), f(0.0), f(0.5), f(2.0)]), 0xff80_00ff);
    assert_eq!(ev(Pk4b, &[f(1.0), f(-1.0), f(0.0), f(-2.0)]), 0x8100_817f);
    let up = |op: Opcode, x: u64| chans(op, &[x, 0, 0, 0]).map(|b| f32::from_bits(b as u32));
    assert_eq!(up(Up2us, 0x0000_ffff), [1.0, 0.0, 1.0, 0.0]);
    assert_eq!(up(Up4ub, 0xff00_33ff), [1.0, 51.0 / 255.0, 0.0, 1.0]);
    assert_eq!(up(Up4b, 0x8081_7f00), [0.0, 1.0, -1.0, -1.0]);
}

#[test]
fn source_modifiers() {
    use OperandType::*;
    assert_eq!(apply_modifiers(Float, f(2.0), true, false), f(-2.0));
    assert_eq!(apply_modifiers(Float, f(-2.0), false, true), f(2.0));
    assert_eq!(apply_modifiers(Float, f(2.0), true, true), f(-2.0));
    assert_eq!(apply_modifiers(Float, f(0.0), true, false), f(-0.0));
    assert_eq!(apply_modifiers(Float, 0xffc0_0000, false, true), 0x7fc0_0000);
    assert_eq!(apply_modifiers(Untyped, 1, true, false), 0x8000_0001);
    assert_eq!(apply_modifiers(Int, (-5i32) as u32 as u64, false, true), 5);
    assert_eq!(apply_modifiers(Int, 5, true, true), (-5i32) as u32 as u64);
    assert_eq!(apply_modifiers(Int, 0x8000_0000, true, true), 0x8000_0000);
    assert_eq!(apply_modifiers(Uint, 1, true, false), T);
    assert_eq!(apply_modifiers(Uint, T, false, true), T);
    assert_eq!(apply_modifiers(Double, d(1.5), true, false), d(-1.5));
    assert_eq!(apply_modifiers(Double, d(-1.5), true, true), d(-1.5));
    assert_eq!(apply_modifiers(Double, d(-1.5), false, true), d(1.5));
    assert_eq!(apply_modifiers(Int64, (-3i64) as u64, false, true), 3);
    assert_eq!(apply_modifiers(Int64, 3, true, false), (-3i64) as u64);
    assert_eq!(apply_modifiers(Uint64, 1, true, false), u64::MAX);
    assert_eq!(apply_modifiers(Float, f(3.0), false, false), f(3.0));
}

#[test]
fn saturation() {
    use OperandType::*;
    assert_eq!(saturate(Float, f(1.5)), f(1.0));
    assert_eq!(saturate(Float, f(-1.5)), f(0.0));
    assert_eq!(saturate(Float, f(0.25)), f(0.25));
    assert_eq!(saturate(Float, NAN), f(0.0));
    assert_eq!(saturate(Float, f(-0.0)), f(0.0));
    assert_eq!(saturate(Float, f(f32::INFINITY)), f(1.0));
    assert_eq!(saturate(Untyped, f(7.0)), f(1.0));
    assert_eq!(saturate(Double, d(2.0)), d(1.0));
    assert_eq!(saturate(Double, d(-2.0)), d(0.0));
    assert_eq!(saturate(Double, d(f64::NAN)), d(0.0));
    assert_eq!(saturate(Double, d(-0.0)), d(-0.0));
    assert_eq!(saturate(Double, d(0.5)), d(0.5));
    assert_eq!(saturate(Int, T), T);
    assert_eq!(saturate(Uint, 7), 7);
    assert_eq!(saturate(Int64, u64::MAX), u64::MAX);
}
