//! Stores to one output register brought together.
//!
//! SSA construction stores every output at the end in the order the
//! outputs were first written, so `MOV OUT[1].yw, ...`, `MOV OUT[0], ...`,
//! `MOV OUT[1].xz, ...` give stores to `OUT[1]` on both sides of those to
//! `OUT[0]`, and emission writes each stretch with its own `MOV`. A store
//! sets the value an output has when the invocation ends (or emits), so
//! within a run of consecutive stores only stores of one channel must keep
//! their order: sorting the run stably by output register keeps that and
//! lets one `MOV` write all the channels of a register it can read from one
//! source (immediates included).

use crate::function::*;

/// A copy of `func` with every run of consecutive output stores ordered
/// by output register, or `None` when every run is ordered already.
pub(crate) fn group_output_stores(func: &Function) -> Option<Function> {
    let index = |f: &Function, i: Inst| match f.insts[i].op {
        Op::StoreOutput { index, .. } => Some(index),
        _ => None,
    };
    let unordered = func.blocks_in_order().into_iter().any(|b| {
        func.blocks[b]
            .insts
            .windows(2)
            .any(|w| matches!((index(func, w[0]), index(func, w[1])), (Some(a), Some(b)) if a > b))
    });
    if !unordered {
        return None;
    }
    let mut out = func.clone();
    for b in func.blocks_in_order() {
        let insts = &mut out.blocks[b].insts;
        let mut start = 0;
        while start < insts.len() {
            let len = insts[start..].iter().take_while(|&&i| index(func, i).is_some()).count();
            // Stable: stores of one channel keep their order.
            insts[start..start + len].sort_by_key(|&i| index(func, i));
            start += len.max(1);
        }
    }
    Some(out)
}
