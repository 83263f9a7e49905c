//! The table of operations: per opcode, what passes and backends may rely
//! on besides the formula itself ([`eval`](crate::eval)), and what it
//! needs from a driver. `tests/facts.rs` checks every row against the
//! formula on random and special inputs, both ways: a fact stated that the
//! formula breaks fails it, and so does a fact the formula shows that the
//! row does not state.
//!
//! A new opcode is one row here, one formula in its family's `eval`, and
//! the backends' code where speed needs it.

use tgsi::{Opcode, OperandType};

/// What a NaN result of an operation is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NanResult {
    /// Never a NaN (conversions from integers, the 0.0/1.0 comparisons).
    Never,
    /// A NaN result is always [`CANONICAL_NAN`](crate::CANONICAL_NAN),
    /// whatever NaN an operand was (float arithmetic).
    Canonical,
    /// Any bits may come out, NaNs of any payload among them (moves,
    /// selections, integer results, doubles).
    Bits,
}

/// The facts of one operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Facts {
    /// What a NaN result is (results read as floats of the result's width).
    pub nan: NanResult,
    /// The 32-bit float sources (bit `s` for source `s`) whose NaNs give
    /// the same result whatever their bits: the operation gives a NaN for
    /// any NaN there, made canonical, or decides by whether it is one.
    pub nan_blind: u8,
    /// Sources 0 and 1 swap with the same bits for every input (for
    /// floats too: every NaN the operation gives is the canonical one).
    pub commutes: bool,
}

impl Facts {
    const fn new(nan: NanResult, nan_blind: u8, commutes: bool) -> Facts {
        Facts { nan, nan_blind, commutes }
    }
}

/// Every float source blind to NaN payloads (the mask covers more sources
/// than an opcode has; only float sources count).
const ALL: u8 = 0b111;

/// The facts of `opcode`, for the opcodes [`eval`](crate::eval)
/// evaluates; `None` for the others.
///
/// ```
/// use semantics::{facts, NanResult};
/// use tgsi::Opcode;
/// let add = facts(Opcode::Add).unwrap();
/// assert_eq!(add.nan, NanResult::Canonical);
/// assert!(add.commutes);
/// assert_eq!(facts(Opcode::Cmp).unwrap().nan_blind, 0b001); // only the tested operand
/// assert_eq!(facts(Opcode::Tex), None);
/// ```
pub fn facts(opcode: Opcode) -> Option<Facts> {
    use NanResult::*;
    use Opcode::*;
    Some(match opcode {
        // Float arithmetic: a NaN result is the canonical one.
        Add | Mul | Mad | Fma | Dp2 | Dp3 | Dp4 => Facts::new(Canonical, ALL, true),
        Div | Min | Max | Lrp | Rcp | Rsq | Sqrt | Ex2 | Lg2 | Sin | Cos | Exp | Log | Dst | Frc | Flr | Ceil
        | Trunc | Round | Ldexp => Facts::new(Canonical, ALL, false),
        // C's powf gives 1.0 for a quiet NaN raised to 0 and a NaN for a
        // signalling one: the bits of a NaN base matter.
        Pow => Facts::new(Canonical, 0, false),
        // Float-valued tests and the sign: 0.0, 1.0 or -1.0.
        Seq | Sne => Facts::new(Never, ALL, true),
        Slt | Sge | Sgt | Sle | Ssg | Lit => Facts::new(Never, ALL, false),
        // Integer-valued float tests and conversions from floats.
        Fseq | Fsne => Facts::new(Bits, ALL, true),
        Fslt | Fsge | F2i | F2u | Arl | Arr | F2i64 | F2u64 | Pk2us | Pk4b | Pk4ub => Facts::new(Bits, ALL, false),
        // Selections: only the tested operand is read as a number.
        Cmp | Ucmp => Facts::new(Bits, 0b001, false),
        // Conversions to floats that never give a NaN.
        I2f | U2f | U642f | I642f | I2d | U2d | U642d | I642d | Up2us | Up4b | Up4ub | Dssg => {
            Facts::new(Never, 0, false)
        }
        // Bits copied or converted with their payload.
        Mov | Pk2h | Up2h | F2d | D2f => Facts::new(Bits, 0, false),
        // Integer operations that commute.
        Uadd | Umul | Umad | And | Or | Xor | Imin | Imax | Umin | Umax | Useq | Usne | ImulHi | UmulHi | U64add
        | U64mul | I64min | I64max | U64min | U64max | U64seq | U64sne | Dseq | Dsne => Facts::new(Bits, 0, true),
        // The other integer, bit and 64-bit operations. Doubles keep a
        // NaN operand's payload, so their arithmetic does not commute.
        Not | Shl | Ishr | Ushr | Mod | Idiv | Udiv | Umod | Ineg | Iabs | Issg | Islt | Isge | Uslt | Usge | Uarl
        | Ibfe | Ubfe | Bfi | Brev | Popc | Lsb | Imsb | Umsb | Dabs | Dneg | Dadd | Dmul | Dmax | Dmin | Dslt
        | Dsge | Drcp | Dsqrt | Drsq | Dmad | Dfma | Ddiv | Dfrac | Dldexp | Dtrunc | Dceil | Dflr | Dround | D2i
        | D2u | D2i64 | D2u64 | U2i64 | I2i64 | I64slt | U64slt | I64sge | U64sge | I64abs | I64ssg | I64neg
        | U64shl | I64shr | U64shr | I64div | U64div | I64mod | U64mod => Facts::new(Bits, 0, false),
        _ => return None,
    })
}

/// Whether argument `arg` of `opcode` (as [`eval`](crate::eval) lays
/// them out) reads a source whose NaNs the result is blind to
/// ([`Facts::nan_blind`]).
pub fn arg_nan_blind(opcode: Opcode, arg: usize) -> bool {
    let (Some(f), Some(s)) = (facts(opcode), crate::arg_source(opcode, arg)) else { return false };
    f.nan_blind & (1 << s) != 0 && opcode.src_type(s) == OperandType::Float
}

/// Whether `-` and `|x|` on source `src` of `opcode` flip and clear the
/// sign bit of a 32-bit value (float and untyped reads), so that a copy
/// with modifiers can be folded into the operand; on integer sources they
/// are the wrapping negation and absolute value
/// ([`apply_modifiers`](crate::apply_modifiers)).
pub fn sign_bit_modifiers(opcode: Opcode, src: usize) -> bool {
    matches!(opcode.src_type(src), OperandType::Float | OperandType::Untyped)
}

/// A driver capability an opcode needs, named as Gallium's
/// `PIPE_SHADER_CAP_*` values.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Needs {
    /// `PIPE_SHADER_CAP_INTEGERS`: an integer source or result.
    pub integers: bool,
    /// `PIPE_SHADER_CAP_DOUBLES`: a double source or result.
    pub doubles: bool,
    /// `PIPE_CAP_INT64`: a 64-bit integer source or result.
    pub int64: bool,
    /// `PIPE_SHADER_CAP_TGSI_SQRT_SUPPORTED`.
    pub sqrt: bool,
}

/// What `opcode` needs from a driver, from the types of its operands:
/// `MOV`'s untyped bits need nothing, `UCMP`'s test is an integer, and
/// `ARL` and `ARR` write the address register, which every driver has.
///
/// ```
/// use semantics::needs;
/// use tgsi::Opcode;
/// assert!(needs(Opcode::Ucmp).integers);
/// assert!(needs(Opcode::F2d).doubles);
/// assert!(needs(Opcode::Sqrt).sqrt);
/// assert!(!needs(Opcode::Arl).integers);
/// assert_eq!(needs(Opcode::Add), Default::default());
/// ```
pub fn needs(opcode: Opcode) -> Needs {
    let info = opcode.info();
    let mut types: Vec<OperandType> = (0..usize::from(info.num_src)).map(|s| opcode.src_type(s)).collect();
    if info.num_dst > 0 {
        types.push(info.dst_type);
    }
    let has = |t: &[OperandType]| types.iter().any(|ty| t.contains(ty));
    Needs {
        integers: (has(&[OperandType::Int, OperandType::Uint]) && !matches!(opcode, Opcode::Arl | Opcode::Arr))
            || opcode == Opcode::Ucmp,
        doubles: has(&[OperandType::Double]),
        int64: has(&[OperandType::Int64, OperandType::Uint64]),
        sqrt: opcode == Opcode::Sqrt,
    }
}
