//! Which steps compile, and the segments they form: maximal runs of
//! consecutive compilable steps of a block.

use std::ops::Range;

use tgsi::OperandType;

use super::SegmentFn;
use crate::kernel::MAX_ARGS;
use crate::program::{Step, MAX_WIDTH};

/// What a block runs, in order.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Piece {
    /// A segment's compiled code.
    Segment(SegmentFn),
    /// The block's steps from the first index up to the second, run by
    /// the interpreter (as it runs a block: the same build of its loop).
    Steps(u32, u32),
}

/// The segments of `steps`, a program's block over `slots` slots.
pub(super) fn segments(steps: &[Step], slots: usize) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, step) in steps.iter().enumerate() {
        match (compiles(step, slots), start) {
            (true, None) => start = Some(i),
            (false, Some(s)) => {
                out.push(s..i);
                start = None;
            }
            _ => {}
        }
    }
    if let Some(s) = start {
        out.push(s..steps.len());
    }
    out
}

/// Whether `step` compiles: 32-bit ALU steps whose modifiers are sign
/// bits or 32-bit integer arithmetic, moves and phi copies, every slot
/// within the batch's `slots` (the code does not check bounds).
pub(super) fn compiles(step: &Step, slots: usize) -> bool {
    let within = |slot: u32, n: u32| (slot as usize).saturating_add(n as usize) <= slots;
    match step {
        Step::Alu { dst, width, broadcast, args, src_tys, sat, wide: false, wide_dst: false, .. } => {
            let modifiable = |ty: &OperandType| {
                matches!(ty, OperandType::Float | OperandType::Untyped | OperandType::Int | OperandType::Uint)
            };
            (1..=MAX_WIDTH).contains(width)
                && within(*dst, *width)
                && args.len() <= MAX_ARGS
                && src_tys.len() >= args.len()
                && sat.is_none_or(|ty| modifiable(&ty))
                && args.iter().zip(src_tys).enumerate().all(|(i, (a, ty))| {
                    let n = if broadcast & (1 << i) != 0 { 1 } else { *width };
                    !a.wide && within(a.slot, n) && (!(a.neg || a.abs) || modifiable(ty))
                })
        }
        Step::Move { dst, src } => within(*dst, 1) && within(*src, 1),
        Step::Copies(pairs) => pairs.iter().all(|&(d, s)| within(d, 1) && within(s, 1)),
        _ => false,
    }
}
