//! The interface every lowering is written against.
//!
//! A lowering turns one 64-bit operation into a sequence of simpler ones.
//! It is written once, generic over [`Emit`], and used two ways: with
//! [`Builder`] it adds IR instructions (what the pass does), and with
//! [`Evaluate`] it computes bits directly with the backend's scalar
//! functions, so the algorithms can be checked on millions of inputs
//! without building a shader for each.

use ir::{Function, Inst, Op, Operand, Origin, Ty};
use tgsi::Opcode;

/// Something lowerings emit operations into.
pub trait Emit {
    /// A value: an SSA value for [`Builder`], bits for [`Evaluate`].
    type V: Copy;

    /// A constant of width `ty`.
    fn konst(&mut self, ty: Ty, bits: u64) -> Self::V;

    /// One scalar operation of `opcode` (channel or pair 0) on `args`,
    /// which follow [`semantics::eval`]'s operand conventions. The
    /// result is 64-bit for 64-bit results, 32-bit otherwise (comparisons
    /// and narrowing conversions of 64-bit operands give 32 bits).
    fn alu(&mut self, opcode: Opcode, args: &[Self::V]) -> Self::V;

    /// The (low, high) 32-bit halves of a 64-bit value.
    fn split(&mut self, v: Self::V) -> (Self::V, Self::V);

    /// The 64-bit value with halves `lo` and `hi`.
    fn pack(&mut self, lo: Self::V, hi: Self::V) -> Self::V;

    /// A 32-bit constant.
    fn k32(&mut self, bits: u32) -> Self::V {
        self.konst(Ty::B32, u64::from(bits))
    }

    /// A 64-bit constant.
    fn k64(&mut self, bits: u64) -> Self::V {
        self.konst(Ty::B64, bits)
    }

    /// `cond != 0 ? a : b` on 32-bit values (UCMP).
    fn select(&mut self, cond: Self::V, a: Self::V, b: Self::V) -> Self::V {
        self.alu(Opcode::Ucmp, &[cond, a, b])
    }

    /// `cond != 0 ? a : b` on 64-bit values, half by half.
    fn select64(&mut self, cond: Self::V, a: Self::V, b: Self::V) -> Self::V {
        let (alo, ahi) = self.split(a);
        let (blo, bhi) = self.split(b);
        let lo = self.select(cond, alo, blo);
        let hi = self.select(cond, ahi, bhi);
        self.pack(lo, hi)
    }
}

/// The width of the result of one scalar operation of `opcode`.
pub fn result_ty(opcode: Opcode) -> Ty {
    if opcode.dst_type().is_64bit() {
        Ty::B64
    } else {
        Ty::B32
    }
}

/// Computes bits with the backend's scalar functions.
///
/// ```
/// use passes::legalize_doubles::emit::{Emit, Evaluate};
/// use tgsi::Opcode;
/// let mut e = Evaluate;
/// let (one, two) = (e.k64(1f64.to_bits()), e.k64(2f64.to_bits()));
/// assert_eq!(f64::from_bits(e.alu(Opcode::Dadd, &[one, two])), 3.0);
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct Evaluate;

impl Emit for Evaluate {
    type V = u64;

    fn konst(&mut self, ty: Ty, bits: u64) -> u64 {
        match ty {
            Ty::B32 => bits & 0xffff_ffff,
            Ty::B64 => bits,
        }
    }

    /// Panics when the backend does not evaluate `opcode` on `args`: a
    /// lowering only ever emits ALU operations.
    fn alu(&mut self, opcode: Opcode, args: &[u64]) -> u64 {
        semantics::eval(opcode, 0, args).unwrap_or_else(|| panic!("{opcode} on {} operands", args.len()))
    }

    fn split(&mut self, v: u64) -> (u64, u64) {
        (v & 0xffff_ffff, v >> 32)
    }

    fn pack(&mut self, lo: u64, hi: u64) -> u64 {
        (lo & 0xffff_ffff) | (hi << 32)
    }
}

/// Adds IR instructions to a function. They are collected in order, not
/// yet placed in a block: the pass puts them where the lowered
/// instruction was.
pub struct Builder<'a> {
    func: &'a mut Function,
    origin: Origin,
    /// The instructions added, in order.
    pub insts: Vec<Inst>,
}

impl<'a> Builder<'a> {
    /// A builder whose instructions carry `origin` (the source
    /// instruction of the lowered one, with no register channel, so
    /// emission neither regroups them with the original's other channels
    /// nor reuses its destination).
    pub fn new(func: &'a mut Function, origin: Origin) -> Self {
        Builder { func, origin: Origin { inst: origin.inst, dst: None }, insts: Vec::new() }
    }

    fn add(&mut self, op: Op, args: &[ir::Value], ty: Ty) -> ir::Value {
        let args: Vec<Operand> = args.iter().copied().map(Operand::new).collect();
        let inst = self.func.add_inst(op, &args, &[ty], self.origin);
        self.insts.push(inst);
        self.func.result(inst)
    }
}

impl Emit for Builder<'_> {
    type V = ir::Value;

    fn konst(&mut self, ty: Ty, bits: u64) -> ir::Value {
        let bits = if ty == Ty::B32 { bits & 0xffff_ffff } else { bits };
        self.add(Op::Const(bits), &[], ty)
    }

    fn alu(&mut self, opcode: Opcode, args: &[ir::Value]) -> ir::Value {
        self.add(Op::Alu { opcode, chan: 0 }, args, result_ty(opcode))
    }

    /// A constant is split into two constants (emission keeps 64-bit
    /// constants as immediates, not in a register pair a split could
    /// read), and a pack into its operands.
    fn split(&mut self, v: ir::Value) -> (ir::Value, ir::Value) {
        let constant = match self.func.def(v).op {
            Op::Const(bits) => Some(bits),
            Op::Initial => Some(0),
            _ => None,
        };
        if let Some(bits) = constant {
            return (self.k32(bits as u32), self.k32((bits >> 32) as u32));
        }
        // The halves of a pack are its operands.
        let def = self.func.def(v);
        if let (Op::Pack, [lo, hi]) = (&def.op, &def.args[..]) {
            if !(lo.neg || lo.abs || hi.neg || hi.abs) {
                return (lo.value, hi.value);
            }
        }
        let lo = self.add(Op::Split { hi: false }, &[v], Ty::B32);
        let hi = self.add(Op::Split { hi: true }, &[v], Ty::B32);
        (lo, hi)
    }

    fn pack(&mut self, lo: ir::Value, hi: ir::Value) -> ir::Value {
        self.add(Op::Pack, &[lo, hi], Ty::B64)
    }
}
