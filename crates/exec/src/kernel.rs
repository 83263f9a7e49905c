//! Whole-batch loops for the most common ALU operations: one pass over
//! every lane with no per-lane dispatch, so the compiler can vectorize it.
//! Each computes exactly what [`crate::scalar::eval`] computes for the same
//! opcode (a test checks this on random bits); every other operation goes
//! through `eval` lane by lane.

use tgsi::Opcode;

use crate::scalar::{fmax, fmin};

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
}

impl Kernel {
    /// The kernel for `opcode` with `args` operands, if it has one.
    pub fn of(opcode: Opcode, args: usize) -> Option<Kernel> {
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
            _ => return None,
        })
    }

    /// Computes every lane of `out` from the operand columns `a` (each as
    /// long as `out`, modifiers already applied).
    pub fn run(self, a: &[&[u64]], out: &mut [u64]) {
        let f = |x: u64| f32::from_bits(x as u32);
        let b = |x: f32| x.to_bits() as u64;
        let one_if = |c: bool| if c { 1.0f32.to_bits() as u64 } else { 0 };
        let mask = |c: bool| if c { 0xffff_ffff } else { 0 };
        let i = |x: u64| x as u32 as i32;
        let u = |x: u64| x as u32;
        let n = out.len();
        match self {
            Kernel::Add => (0..n).for_each(|l| out[l] = b(f(a[0][l]) + f(a[1][l]))),
            Kernel::Mul => (0..n).for_each(|l| out[l] = b(f(a[0][l]) * f(a[1][l]))),
            Kernel::Mad => (0..n).for_each(|l| out[l] = b(f(a[0][l]) * f(a[1][l]) + f(a[2][l]))),
            Kernel::Min => (0..n).for_each(|l| out[l] = b(fmin(f(a[0][l]), f(a[1][l])))),
            Kernel::Max => (0..n).for_each(|l| out[l] = b(fmax(f(a[0][l]), f(a[1][l])))),
            Kernel::Mov => (0..n).for_each(|l| out[l] = a[0][l] & 0xffff_ffff),
            Kernel::Dot(k) => {
                let k = k as usize;
                for l in 0..n {
                    let mut acc = f(a[0][l]) * f(a[k][l]);
                    for i in 1..k {
                        acc += f(a[i][l]) * f(a[k + i][l]);
                    }
                    out[l] = b(acc);
                }
            }
            Kernel::Slt => (0..n).for_each(|l| out[l] = one_if(f(a[0][l]) < f(a[1][l]))),
            Kernel::Sge => (0..n).for_each(|l| out[l] = one_if(f(a[0][l]) >= f(a[1][l]))),
            Kernel::Rcp => (0..n).for_each(|l| out[l] = b(1.0 / f(a[0][l]))),
            Kernel::Rsq => (0..n).for_each(|l| out[l] = b(1.0 / f(a[0][l]).sqrt())),
            Kernel::Uadd => (0..n).for_each(|l| out[l] = (a[0][l] as u32).wrapping_add(a[1][l] as u32) as u64),
            Kernel::Umul => (0..n).for_each(|l| out[l] = (a[0][l] as u32).wrapping_mul(a[1][l] as u32) as u64),
            Kernel::And => (0..n).for_each(|l| out[l] = (a[0][l] & a[1][l]) & 0xffff_ffff),
            Kernel::Or => (0..n).for_each(|l| out[l] = (a[0][l] | a[1][l]) & 0xffff_ffff),
            Kernel::Xor => (0..n).for_each(|l| out[l] = (a[0][l] ^ a[1][l]) & 0xffff_ffff),
            Kernel::Cmp => {
                (0..n).for_each(|l| out[l] = (if f(a[0][l]) < 0.0 { a[1][l] } else { a[2][l] }) & 0xffff_ffff)
            }
            Kernel::Ucmp => {
                (0..n).for_each(|l| out[l] = (if u(a[0][l]) != 0 { a[1][l] } else { a[2][l] }) & 0xffff_ffff)
            }
            Kernel::Lrp => (0..n).for_each(|l| out[l] = b(f(a[0][l]) * (f(a[1][l]) - f(a[2][l])) + f(a[2][l]))),
            Kernel::Frc => (0..n).for_each(|l| out[l] = b(f(a[0][l]) - f(a[0][l]).floor())),
            Kernel::Flr => (0..n).for_each(|l| out[l] = b(f(a[0][l]).floor())),
            Kernel::Seq => (0..n).for_each(|l| out[l] = one_if(f(a[0][l]) == f(a[1][l]))),
            Kernel::Sne => (0..n).for_each(|l| out[l] = one_if(f(a[0][l]) != f(a[1][l]))),
            Kernel::Fslt => (0..n).for_each(|l| out[l] = mask(f(a[0][l]) < f(a[1][l]))),
            Kernel::Fsge => (0..n).for_each(|l| out[l] = mask(f(a[0][l]) >= f(a[1][l]))),
            Kernel::Fseq => (0..n).for_each(|l| out[l] = mask(f(a[0][l]) == f(a[1][l]))),
            Kernel::Fsne => (0..n).for_each(|l| out[l] = mask(f(a[0][l]) != f(a[1][l]))),
            Kernel::Imin => (0..n).for_each(|l| out[l] = i(a[0][l]).min(i(a[1][l])) as u32 as u64),
            Kernel::Imax => (0..n).for_each(|l| out[l] = i(a[0][l]).max(i(a[1][l])) as u32 as u64),
            Kernel::Umin => (0..n).for_each(|l| out[l] = u(a[0][l]).min(u(a[1][l])) as u64),
            Kernel::Umax => (0..n).for_each(|l| out[l] = u(a[0][l]).max(u(a[1][l])) as u64),
            Kernel::Shl => (0..n).for_each(|l| out[l] = (u(a[0][l]) << (u(a[1][l]) & 31)) as u64),
            Kernel::Ishr => (0..n).for_each(|l| out[l] = (i(a[0][l]) >> (u(a[1][l]) & 31)) as u32 as u64),
            Kernel::Ushr => (0..n).for_each(|l| out[l] = (u(a[0][l]) >> (u(a[1][l]) & 31)) as u64),
            Kernel::Islt => (0..n).for_each(|l| out[l] = mask(i(a[0][l]) < i(a[1][l]))),
            Kernel::Isge => (0..n).for_each(|l| out[l] = mask(i(a[0][l]) >= i(a[1][l]))),
            Kernel::Useq => (0..n).for_each(|l| out[l] = mask(u(a[0][l]) == u(a[1][l]))),
            Kernel::Usne => (0..n).for_each(|l| out[l] = mask(u(a[0][l]) != u(a[1][l]))),
            Kernel::Uslt => (0..n).for_each(|l| out[l] = mask(u(a[0][l]) < u(a[1][l]))),
            Kernel::Usge => (0..n).for_each(|l| out[l] = mask(u(a[0][l]) >= u(a[1][l]))),
            Kernel::I2f => (0..n).for_each(|l| out[l] = b(i(a[0][l]) as f32)),
            Kernel::U2f => (0..n).for_each(|l| out[l] = b(u(a[0][l]) as f32)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scalar::eval;

    /// Random bits, many of them interesting floats.
    fn values(seed: &mut u64, n: usize) -> Vec<u64> {
        let special =
            [0u32, 0x8000_0000, 0x3f80_0000, 0xbf80_0000, 0x7f80_0000, 0xff80_0000, 0x7fc0_0000, 1, 0x0080_0000];
        (0..n)
            .map(|_| {
                *seed ^= *seed << 13;
                *seed ^= *seed >> 7;
                *seed ^= *seed << 17;
                let r = *seed;
                (if r.is_multiple_of(4) { special[(r >> 8) as usize % special.len()] } else { (r >> 16) as u32 }) as u64
            })
            .collect()
    }

    #[test]
    fn kernels_compute_what_eval_computes() {
        use Opcode::*;
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let ops = [
            (Add, 2),
            (Mul, 2),
            (Mad, 3),
            (Min, 2),
            (Max, 2),
            (Mov, 1),
            (Dp2, 4),
            (Dp3, 6),
            (Dp4, 8),
            (Slt, 2),
            (Sge, 2),
            (Rcp, 1),
            (Rsq, 1),
            (Uadd, 2),
            (Umul, 2),
            (And, 2),
            (Or, 2),
            (Xor, 2),
            (Cmp, 3),
            (Ucmp, 3),
            (Lrp, 3),
            (Frc, 1),
            (Flr, 1),
            (Seq, 2),
            (Sne, 2),
            (Fslt, 2),
            (Fsge, 2),
            (Fseq, 2),
            (Fsne, 2),
            (Imin, 2),
            (Imax, 2),
            (Umin, 2),
            (Umax, 2),
            (Shl, 2),
            (Ishr, 2),
            (Ushr, 2),
            (Islt, 2),
            (Isge, 2),
            (Useq, 2),
            (Usne, 2),
            (Uslt, 2),
            (Usge, 2),
            (I2f, 1),
            (U2f, 1),
        ];
        for (op, args) in ops {
            let kernel = Kernel::of(op, args).unwrap();
            for _ in 0..200 {
                let cols: Vec<Vec<u64>> = (0..args).map(|_| values(&mut seed, 64)).collect();
                let refs: Vec<&[u64]> = cols.iter().map(Vec::as_slice).collect();
                let mut out = vec![0; 64];
                kernel.run(&refs, &mut out);
                for l in 0..64 {
                    let lane: Vec<u64> = cols.iter().map(|c| c[l]).collect();
                    assert_eq!(Some(out[l]), eval(op, 0, &lane), "{op:?} on {lane:x?}");
                }
            }
        }
    }
}
