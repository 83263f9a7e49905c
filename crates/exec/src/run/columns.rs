//! Operands as columns of lanes for the batch loops: modifiers applied
//! into scratch columns, a kernel run over whole columns or slot by slot
//! for one-slot (broadcast) operands, and the slots an operation reads
//! beside the ones it writes in place.

use tgsi::OperandType;

use crate::kernel::{Kernel, MAX_ARGS};
use crate::program::Arg;

/// A float operand's absolute value and negate as sign-bit masks: the
/// bits to keep, then the bits to flip.
#[inline]
pub(super) fn sign_masks(a: &Arg) -> (u32, u32) {
    (if a.abs { 0x7fff_ffff } else { 0xffff_ffff }, if a.neg { 0x8000_0000 } else { 0 })
}

/// `source` with `a`'s negate and absolute value applied, into `column`.
#[inline]
fn apply_modifiers(ty: OperandType, a: &Arg, column: &mut [u32], source: &[u32]) {
    match ty {
        // Sign-bit operations: one mask for the whole column.
        OperandType::Float | OperandType::Untyped => {
            let (clear, flip) = sign_masks(a);
            for (m, &v) in column.iter_mut().zip(source) {
                *m = (v & clear) ^ flip;
            }
        }
        _ => {
            for (m, &v) in column.iter_mut().zip(source) {
                *m = semantics::apply_modifiers(ty, v as u64, a.neg, a.abs) as u32;
            }
        }
    }
}

/// The lanes of each operand of `args` for a batch loop, into `columns`:
/// `lanes` lanes from the operand's slot on (slots of `w` lanes), or one
/// slot's for an operand in `broadcast`, read in place, or, for an
/// operand with modifiers, rewritten into column `i` of `modified`
/// (operand `i` read as `ty(i)`). Inlined, so that it is built into the
/// AVX2 build of a block.
#[inline(always)]
pub(super) fn operand_columns<'c>(
    slots: &'c [u32],
    modified: &'c mut [u32],
    (w, lanes): (usize, usize),
    (args, broadcast): (&[Arg], u32),
    ty: impl Fn(usize) -> OperandType,
    columns: &mut [&'c [u32]],
) {
    let len = |i: usize| if broadcast & (1 << i) != 0 { w } else { lanes };
    for (i, a) in args.iter().enumerate().filter(|(_, a)| a.neg || a.abs) {
        let at = a.slot as usize * w;
        apply_modifiers(ty(i), a, &mut modified[i * lanes..i * lanes + len(i)], &slots[at..at + len(i)]);
    }
    let modified: &'c [u32] = modified;
    for ((i, a), column) in args.iter().enumerate().zip(columns) {
        let at = a.slot as usize * w;
        *column = if a.neg || a.abs { &modified[i * lanes..i * lanes + len(i)] } else { &slots[at..at + len(i)] };
    }
}

/// Runs `kernel` over `out`: at once, or, with operands in `broadcast`
/// (whose columns are one slot's `w` lanes), slot by slot, the other
/// operands' columns taken slot by slot too.
#[inline(always)]
pub(super) fn run_kernel(kernel: Kernel, columns: &[&[u32]], broadcast: u32, w: usize, out: &mut [u32]) {
    if broadcast == 0 {
        return kernel.run(columns, out);
    }
    for (k, out) in out.chunks_exact_mut(w).enumerate() {
        let mut chunk: [&[u32]; MAX_ARGS] = [&[]; MAX_ARGS];
        for (i, (c, column)) in chunk.iter_mut().zip(columns).enumerate() {
            *c = if broadcast & (1 << i) != 0 { column } else { &column[k * w..(k + 1) * w] };
        }
        kernel.run(&chunk[..columns.len()], out);
    }
}

/// Every slot's lanes but those of the slots being written (SSA: an
/// operation never reads its own results).
pub(super) struct Beside<'s> {
    pub(super) below: &'s [u32],
    pub(super) above: &'s [u32],
    /// The first slot written, and how many are.
    pub(super) dst: usize,
    pub(super) width: usize,
    pub(super) w: usize,
}

impl Beside<'_> {
    /// The lanes of `n` slots from `slot` on; none when they reach a slot
    /// being written, which the program never reads there (compiling
    /// rejects an operation that reads its own result).
    #[inline]
    pub(super) fn columns(&self, slot: u32, n: usize) -> &[u32] {
        let (s, w) = (slot as usize, self.w);
        if s + n <= self.dst {
            &self.below[s * w..(s + n) * w]
        } else if s >= self.dst + self.width {
            let s = s - self.dst - self.width;
            &self.above[s * w..(s + n) * w]
        } else {
            &[]
        }
    }
}
