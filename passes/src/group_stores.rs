//! `group-stores`: the stores to one output register brought together.
//!
//! SSA construction stores every output at the end in the order the
//! outputs were first written, so `MOV OUT[1].yw, ...`, `MOV OUT[0], ...`,
//! `MOV OUT[1].xz, ...` give stores to `OUT[1]` on both sides of those to
//! `OUT[0]`, and emission writes each stretch with its own `MOV`. A store
//! sets the value an output has when the invocation ends (or emits), so
//! within a run of consecutive stores only stores of one channel must keep
//! their order: sorting the run stably by output register keeps that, and
//! emission can then write all the channels of a register it reads from
//! one source (immediates included) with one `MOV`.

use ir::{Function, Inst, Op};

use crate::{Pass, PassResult, Stats};

/// The `group-stores` pass; see the module documentation.
pub struct GroupStores;

impl Pass for GroupStores {
    fn name(&self) -> &'static str {
        "group-stores"
    }

    fn description(&self) -> &'static str {
        "Orders each run of consecutive output stores by output register, so each register is stored at once"
    }

    fn run(&self, module: &mut ir::Module) -> PassResult {
        let runs = group_output_stores(&mut module.function);
        let mut stats = Stats::default();
        stats.add("store runs reordered", runs);
        PassResult { changed: runs > 0, stats }
    }
}

/// Orders every run of consecutive output stores of `func` by output
/// register; returns how many runs changed.
pub fn group_output_stores(func: &mut Function) -> u64 {
    let index = |f: &Function, i: Inst| match f.insts.get(i).map(|d| &d.op) {
        Some(Op::StoreOutput { index, .. }) => Some(*index),
        _ => None,
    };
    let mut reordered = 0;
    for b in func.blocks_in_order() {
        let Some(block) = func.blocks.get(b) else { continue };
        let mut insts = block.insts.clone();
        let mut changed = false;
        let mut start = 0;
        while start < insts.len() {
            let len = insts[start..].iter().take_while(|&&i| index(func, i).is_some()).count();
            let run = &mut insts[start..start + len];
            if run.windows(2).any(|w| index(func, w[0]) > index(func, w[1])) {
                // Stable: stores of one channel keep their order.
                run.sort_by_key(|&i| index(func, i));
                reordered += 1;
                changed = true;
            }
            start += len.max(1);
        }
        if changed {
            func.blocks[b].insts = insts;
        }
    }
    reordered
}
