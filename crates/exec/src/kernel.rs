//! Whole-batch loops for the ALU operations: for the common ones one pass
//! over every lane with no per-lane dispatch, so the compiler can vectorize
//! it; each computes exactly what [`semantics::eval`] computes for the
//! same opcode (a test checks this on random bits). Every other operation
//! is [`Kernel::Eval`]: `eval` lane by lane over the same columns.
//!
//! The loops are inlined into the code running a block of steps, which on
//! x86-64 processors with AVX2 runs in a build for AVX2, chosen at run
//! time (the baseline target has 128-bit vectors only); IEEE-754
//! arithmetic gives the same bits either way.

use tgsi::{Opcode, OperandType};

use semantics::{
    canonical, ceil, exp2, floor, fmax, fmin, lg2, round_ties_even, sign, trunc, trunc_i32, trunc_u32, Family,
};

/// An operation with a batch loop.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kernel {
    Add,
    Mul,
    Mad,
    Min,
    Max,
    Mov,
    /// DP2, DP3, DP4: `n` products summed in order.
    Dot(u8),
    Slt,
    Sge,
    Rcp,
    Rsq,
    Uadd,
    Umul,
    And,
    Or,
    Xor,
    Cmp,
    Ucmp,
    Lrp,
    Frc,
    Flr,
    Seq,
    Sne,
    Fslt,
    Fsge,
    Fseq,
    Fsne,
    Imin,
    Imax,
    Umin,
    Umax,
    Shl,
    Ishr,
    Ushr,
    Islt,
    Isge,
    Useq,
    Usne,
    Uslt,
    Usge,
    I2f,
    U2f,
    Div,
    Ceil,
    Trunc,
    Round,
    Sgt,
    Sle,
    Not,
    Uarl,
    Umad,
    Sqrt,
    Ssg,
    F2i,
    F2u,
    Iabs,
    Ineg,
    UmulHi,
    Udiv,
    Umod,
    Ex2,
    Lg2,
    Pow,
    Sin,
    Cos,
    Fma,
    /// Any other operation: [`semantics::eval`] per lane, asking only
    /// the family that defines it.
    Eval {
        opcode: Opcode,
        chan: u8,
        family: Family,
    },
}

impl Kernel {
    /// The kernel for `opcode` on channel `chan` with `args` operands;
    /// `None` when the scalar semantics do not cover it.
    pub fn of(opcode: Opcode, chan: u8, args: usize) -> Option<Kernel> {
        use Opcode::*;
        Some(match (opcode, args) {
            (Add, 2) => Kernel::Add,
            (Mul, 2) => Kernel::Mul,
            (Mad, 3) => Kernel::Mad,
            (Min, 2) => Kernel::Min,
            (Max, 2) => Kernel::Max,
            (Mov, 1) => Kernel::Mov,
            (Dp2, 4) => Kernel::Dot(2),
            (Dp3, 6) => Kernel::Dot(3),
            (Dp4, 8) => Kernel::Dot(4),
            (Slt, 2) => Kernel::Slt,
            (Sge, 2) => Kernel::Sge,
            (Rcp, 1) => Kernel::Rcp,
            (Rsq, 1) => Kernel::Rsq,
            (Uadd, 2) => Kernel::Uadd,
            (Umul, 2) => Kernel::Umul,
            (And, 2) => Kernel::And,
            (Or, 2) => Kernel::Or,
            (Xor, 2) => Kernel::Xor,
            (Cmp, 3) => Kernel::Cmp,
            (Ucmp, 3) => Kernel::Ucmp,
            (Lrp, 3) => Kernel::Lrp,
            (Frc, 1) => Kernel::Frc,
            (Flr, 1) => Kernel::Flr,
            (Seq, 2) => Kernel::Seq,
            (Sne, 2) => Kernel::Sne,
            (Fslt, 2) => Kernel::Fslt,
            (Fsge, 2) => Kernel::Fsge,
            (Fseq, 2) => Kernel::Fseq,
            (Fsne, 2) => Kernel::Fsne,
            (Imin, 2) => Kernel::Imin,
            (Imax, 2) => Kernel::Imax,
            (Umin, 2) => Kernel::Umin,
            (Umax, 2) => Kernel::Umax,
            (Shl, 2) => Kernel::Shl,
            (Ishr, 2) => Kernel::Ishr,
            (Ushr, 2) => Kernel::Ushr,
            (Islt, 2) => Kernel::Islt,
            (Isge, 2) => Kernel::Isge,
            (Useq, 2) => Kernel::Useq,
            (Usne, 2) => Kernel::Usne,
            (Uslt, 2) => Kernel::Uslt,
            (Usge, 2) => Kernel::Usge,
            (I2f, 1) => Kernel::I2f,
            (U2f, 1) => Kernel::U2f,
            (Div, 2) => Kernel::Div,
            (Ceil, 1) => Kernel::Ceil,
            (Trunc, 1) => Kernel::Trunc,
            (Round, 1) => Kernel::Round,
            (Sgt, 2) => Kernel::Sgt,
            (Sle, 2) => Kernel::Sle,
            (Not, 1) => Kernel::Not,
            (Uarl, 1) => Kernel::Uarl,
            (Umad, 3) => Kernel::Umad,
            (Sqrt, 1) => Kernel::Sqrt,
            (Ssg, 1) => Kernel::Ssg,
            (F2i, 1) => Kernel::F2i,
            (F2u, 1) => Kernel::F2u,
            (Iabs, 1) => Kernel::Iabs,
            (Ineg, 1) => Kernel::Ineg,
            (UmulHi, 2) => Kernel::UmulHi,
            (Udiv, 2) => Kernel::Udiv,
            (Umod, 2) => Kernel::Umod,
            (Ex2, 1) => Kernel::Ex2,
            (Lg2, 1) => Kernel::Lg2,
            (Pow, 2) => Kernel::Pow,
            (Sin, 1) => Kernel::Sin,
            (Cos, 1) => Kernel::Cos,
            (Fma, 3) => Kernel::Fma,
            _ => return Kernel::eval(opcode, chan, args),
        })
    }

    /// [`Kernel::Eval`] for `opcode`, whatever loop it may have of its own
    /// (64-bit values are computed lane by lane).
    pub fn eval(opcode: Opcode, chan: u8, args: usize) -> Option<Kernel> {
        if args > MAX_ARGS {
            return None;
        }
        Some(Kernel::Eval { opcode, chan, family: Family::of(opcode, chan, args)? })
    }

    /// A 64-bit operation on one lane: the one evaluation of the batch's
    /// lanes (`Batch::alu_wide`), the compiled code's quads
    /// (`wide_quad`) and the steps computed once a run alike. `values`
    /// the operands' whole values, which the operands' modifiers `mods`
    /// (negate, absolute value) rewrite (read as `src_tys`), the result
    /// saturated as `sat`. 0 for a kernel with a loop of its own.
    pub fn eval_wide(
        &self,
        mods: impl Iterator<Item = (bool, bool)>,
        src_tys: &[OperandType],
        sat: Option<OperandType>,
        values: &mut [u64],
    ) -> u64 {
        let Kernel::Eval { opcode, chan, family } = self else { return 0 };
        for (((neg, abs), ty), v) in mods.zip(src_tys).zip(values.iter_mut()) {
            if neg || abs {
                *v = semantics::apply_modifiers(*ty, *v, neg, abs);
            }
        }
        let r = family.eval(*opcode, *chan, values).unwrap_or(0);
        sat.map_or(r, |ty| semantics::saturate(ty, r))
    }

    /// Computes every lane of `out` from the operand columns `a` (each as
    /// long as `out`, modifiers already applied), all of 32-bit values. The
    /// loops zip slices, so they carry no bounds checks and vectorize.
    #[inline(always)]
    pub fn run(self, a: &[&[u32]], out: &mut [u32]) {
        let f = f32::from_bits;
        // Every float result's bits, a NaN made the canonical one as
        // `semantics::eval` makes it.
        let b = canonical;
        let one_if = |c: bool| if c { 1.0f32.to_bits() } else { 0 };
        let mask = |c: bool| if c { 0xffff_ffff } else { 0 };
        let i = |x: u32| x as i32;
        let u = |x: u32| x;
        match self {
            Kernel::Add => map2(out, a, |x, y| b(f(x) + f(y))),
            Kernel::Mul => map2(out, a, |x, y| b(f(x) * f(y))),
            Kernel::Mad => map3(out, a, |x, y, z| b(f(x) * f(y) + f(z))),
            Kernel::Min => map2(out, a, |x, y| b(fmin(f(x), f(y)))),
            Kernel::Max => map2(out, a, |x, y| b(fmax(f(x), f(y)))),
            Kernel::Mov => map1(out, a, |x| x),
            Kernel::Dot(k) => {
                // Products summed in order, rounding to f32 at each step.
                let k = k as usize;
                map2(out, &[a[0], a[k]], |x, y| b(f(x) * f(y)));
                for n in 1..k {
                    for ((o, &x), &y) in out.iter_mut().zip(a[n]).zip(a[k + n]) {
                        *o = b(f(*o) + f(x) * f(y));
                    }
                }
            }
            Kernel::Slt => map2(out, a, |x, y| one_if(f(x) < f(y))),
            Kernel::Sge => map2(out, a, |x, y| one_if(f(x) >= f(y))),
            Kernel::Rcp => map1(out, a, |x| b(1.0 / f(x))),
            Kernel::Rsq => map1(out, a, |x| b(1.0 / f(x).sqrt())),
            Kernel::Uadd => map2(out, a, |x, y| u(x).wrapping_add(u(y))),
            Kernel::Umul => map2(out, a, |x, y| u(x).wrapping_mul(u(y))),
            Kernel::And => map2(out, a, |x, y| x & y),
            Kernel::Or => map2(out, a, |x, y| x | y),
            Kernel::Xor => map2(out, a, |x, y| x ^ y),
            Kernel::Cmp => map3(out, a, |x, y, z| if f(x) < 0.0 { y } else { z }),
            Kernel::Ucmp => map3(out, a, |x, y, z| if u(x) != 0 { y } else { z }),
            Kernel::Lrp => map3(out, a, |x, y, z| b(f(x) * (f(y) - f(z)) + f(z))),
            Kernel::Frc => map1(out, a, |x| b(f(x) - floor(f(x)))),
            Kernel::Flr => map1(out, a, |x| b(floor(f(x)))),
            Kernel::Seq => map2(out, a, |x, y| one_if(f(x) == f(y))),
            Kernel::Sne => map2(out, a, |x, y| one_if(f(x) != f(y))),
            Kernel::Fslt => map2(out, a, |x, y| mask(f(x) < f(y))),
            Kernel::Fsge => map2(out, a, |x, y| mask(f(x) >= f(y))),
            Kernel::Fseq => map2(out, a, |x, y| mask(f(x) == f(y))),
            Kernel::Fsne => map2(out, a, |x, y| mask(f(x) != f(y))),
            Kernel::Imin => map2(out, a, |x, y| i(x).min(i(y)) as u32),
            Kernel::Imax => map2(out, a, |x, y| i(x).max(i(y)) as u32),
            Kernel::Umin => map2(out, a, |x, y| u(x).min(u(y))),
            Kernel::Umax => map2(out, a, |x, y| u(x).max(u(y))),
            Kernel::Shl => map2(out, a, |x, y| u(x) << (u(y) & 31)),
            Kernel::Ishr => map2(out, a, |x, y| (i(x) >> (u(y) & 31)) as u32),
            Kernel::Ushr => map2(out, a, |x, y| u(x) >> (u(y) & 31)),
            Kernel::Islt => map2(out, a, |x, y| mask(i(x) < i(y))),
            Kernel::Isge => map2(out, a, |x, y| mask(i(x) >= i(y))),
            Kernel::Useq => map2(out, a, |x, y| mask(u(x) == u(y))),
            Kernel::Usne => map2(out, a, |x, y| mask(u(x) != u(y))),
            Kernel::Uslt => map2(out, a, |x, y| mask(u(x) < u(y))),
            Kernel::Usge => map2(out, a, |x, y| mask(u(x) >= u(y))),
            Kernel::I2f => map1(out, a, |x| b(i(x) as f32)),
            Kernel::U2f => map1(out, a, |x| b(u(x) as f32)),
            Kernel::Div => map2(out, a, |x, y| b(f(x) / f(y))),
            Kernel::Ceil => map1(out, a, |x| b(ceil(f(x)))),
            Kernel::Trunc => map1(out, a, |x| b(trunc(f(x)))),
            Kernel::Round => map1(out, a, |x| b(round_ties_even(f(x)))),
            Kernel::Sgt => map2(out, a, |x, y| one_if(f(x) > f(y))),
            Kernel::Sle => map2(out, a, |x, y| one_if(f(x) <= f(y))),
            Kernel::Not => map1(out, a, |x| !u(x)),
            Kernel::Uarl => map1(out, a, u),
            Kernel::Umad => map3(out, a, |x, y, z| u(x).wrapping_mul(u(y)).wrapping_add(u(z))),
            Kernel::Sqrt => map1(out, a, |x| b(f(x).sqrt())),
            Kernel::Ssg => map1(out, a, |x| b(sign(f(x)))),
            Kernel::F2i => map1(out, a, |x| trunc_i32(f(x) as f64) as u32),
            Kernel::F2u => map1(out, a, |x| trunc_u32(f(x) as f64)),
            Kernel::Iabs => map1(out, a, |x| i(x).wrapping_abs() as u32),
            Kernel::Ineg => map1(out, a, |x| i(x).wrapping_neg() as u32),
            Kernel::UmulHi => map2(out, a, |x, y| ((u(x) as u64 * u(y) as u64) >> 32) as u32),
            Kernel::Udiv => map2(out, a, |x, y| u(x).checked_div(u(y)).unwrap_or(u32::MAX)),
            Kernel::Umod => map2(out, a, |x, y| u(x).checked_rem(u(y)).unwrap_or(u32::MAX)),
            _ => self.run_library(a, out),
        }
    }

    /// [`Kernel::run`] for the library calls and [`Kernel::Eval`].
    #[inline(always)]
    fn run_library(self, a: &[&[u32]], out: &mut [u32]) {
        let f = f32::from_bits;
        let b = canonical;
        match self {
            // Library calls lane by lane, but without asking which
            // operation each time.
            Kernel::Ex2 => map1(out, a, |x| b(exp2(f(x)))),
            Kernel::Lg2 => map1(out, a, |x| b(lg2(f(x)))),
            Kernel::Pow => map2(out, a, |x, y| b(f(x).powf(f(y)))),
            Kernel::Sin => map1(out, a, |x| b(f(x).sin())),
            Kernel::Cos => map1(out, a, |x| b(f(x).cos())),
            Kernel::Fma => map3(out, a, |x, y, z| b(f(x).mul_add(f(y), f(z)))),
            // `of` checked that the family covers the operation.
            Kernel::Eval { opcode, chan, family } if a.len() == 1 => {
                map1(out, a, |x| family.eval(opcode, chan, &[x as u64]).unwrap_or(0) as u32)
            }
            Kernel::Eval { opcode, chan, family } if a.len() == 2 => {
                map2(out, a, |x, y| family.eval(opcode, chan, &[x as u64, y as u64]).unwrap_or(0) as u32)
            }
            Kernel::Eval { opcode, chan, family } if a.len() == 3 => {
                map3(out, a, |x, y, z| family.eval(opcode, chan, &[x as u64, y as u64, z as u64]).unwrap_or(0) as u32)
            }
            Kernel::Eval { opcode, chan, family } => {
                let mut args = [0u64; MAX_ARGS];
                let n = a.len().min(MAX_ARGS);
                for (l, o) in out.iter_mut().enumerate() {
                    for (arg, column) in args.iter_mut().zip(&a[..n]) {
                        *arg = column.get(l).copied().unwrap_or(0) as u64;
                    }
                    *o = family.eval(opcode, chan, &args[..n]).unwrap_or(0) as u32;
                }
            }
            _ => {}
        }
    }
}

/// The most operands an ALU operation may have here (DP4 has 8).
pub(crate) const MAX_ARGS: usize = 12;

#[inline(always)]
fn map1(out: &mut [u32], a: &[&[u32]], op: impl Fn(u32) -> u32) {
    for (o, &x) in out.iter_mut().zip(a[0]) {
        *o = op(x);
    }
}

#[inline(always)]
fn map2(out: &mut [u32], a: &[&[u32]], op: impl Fn(u32, u32) -> u32) {
    for ((o, &x), &y) in out.iter_mut().zip(a[0]).zip(a[1]) {
        *o = op(x, y);
    }
}

#[inline(always)]
fn map3(out: &mut [u32], a: &[&[u32]], op: impl Fn(u32, u32, u32) -> u32) {
    for (((o, &x), &y), &z) in out.iter_mut().zip(a[0]).zip(a[1]).zip(a[2]) {
        *o = op(x, y, z);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use semantics::eval;
    use testkit::Rng;

    /// Random bits, many of them interesting floats.
    fn values(rng: &mut Rng, n: usize) -> Vec<u32> {
        (0..n).map(|_| testkit::special_or_random(rng, 4)).collect()
    }

    /// [`Kernel::run`] built for AVX2, as blocks run on such processors
    /// (else the plain build).
    fn run_avx2(kernel: Kernel, a: &[&[u32]], out: &mut [u32]) {
        #[cfg(target_arch = "x86_64")]
        #[target_feature(enable = "avx2")]
        fn avx2(kernel: Kernel, a: &[&[u32]], out: &mut [u32]) {
            kernel.run(a, out)
        }
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the processor has AVX2, checked just now.
            return unsafe { avx2(kernel, a, out) };
        }
        kernel.run(a, out)
    }

    /// Bit for bit, NaN payloads included.
    #[test]
    fn kernels_compute_what_eval_computes() {
        let mut rng = Rng::new(0x9e37_79b9_7f4a_7c15);
        // Every operation with a loop of its own, found from the opcode
        // table and its argument layout.
        let ops: Vec<(Opcode, usize, Kernel)> = Opcode::ALL
            .iter()
            .filter_map(|&op| {
                let args = semantics::arg_count(op)?;
                let kernel = Kernel::of(op, 0, args)?;
                (!matches!(kernel, Kernel::Eval { .. })).then_some((op, args, kernel))
            })
            .collect();
        // 68 today: a kernel dropped from `Kernel::of` shows here.
        assert!(ops.len() >= 68, "{} operations with a loop of their own", ops.len());
        eprintln!("kernels: {} operations with a loop of their own", ops.len());
        for (op, args, kernel) in ops {
            for _ in 0..200 {
                let cols: Vec<Vec<u32>> = (0..args).map(|_| values(&mut rng, 64)).collect();
                let refs: Vec<&[u32]> = cols.iter().map(Vec::as_slice).collect();
                // Both builds of the loops: for any processor, and for AVX2
                // when this one has it.
                let (mut out, mut out_any) = (vec![0; 64], vec![0; 64]);
                kernel.run(&refs, &mut out_any);
                run_avx2(kernel, &refs, &mut out);
                for l in 0..64 {
                    let lane: Vec<u64> = cols.iter().map(|c| c[l] as u64).collect();
                    let want = eval(op, 0, &lane).unwrap();
                    assert!(want <= u32::MAX as u64, "{op:?}: a 32-bit result");
                    let want = want as u32;
                    // Bit for bit, NaNs included: every float result
                    // that is NaN is the canonical one.
                    for got in [out[l], out_any[l]] {
                        assert_eq!(got, want, "{op:?} on {lane:x?}: {got:x} vs {want:x}");
                    }
                }
            }
        }
    }
}
