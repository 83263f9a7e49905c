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
//!
//! For a target whose compiler writes an output where the shader does
//! (`Tuning::early_output_stores`), each run of stores to one output
//! register outside a fragment shader then moves up to just after the last
//! instruction that defines or reads one of its values, so that store is
//! their last use rather than the end of the invocation. It never moves
//! past an instruction with an effect, nor before an earlier store to the
//! same register.

use std::collections::HashMap;
use std::sync::Arc;

use ir::{Function, Inst, Op, Value};

use crate::{Pass, PassResult, Stats};

/// The `group-stores` pass; see the module documentation.
pub struct GroupStores {
    early: bool,
}

impl GroupStores {
    /// The registered pass: stores stay where the invocation ends.
    pub const fn unconfigured() -> Self {
        GroupStores { early: false }
    }

    /// The pass for a target with `Tuning::early_output_stores`: stores
    /// outside fragment shaders move up.
    pub const fn early() -> Self {
        GroupStores { early: true }
    }
}

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
        let mut moved = 0;
        if self.early && module.processor != tgsi::Processor::Fragment {
            moved = store_outputs_early(&mut module.function);
            stats.add("store runs moved up", moved);
        }
        PassResult { changed: runs + moved > 0, stats }
    }

    /// A target whose compiler writes outputs where the shader does
    /// (`Tuning::early_output_stores`) gets its stores moved up.
    fn configure(&self, config: &crate::Config) -> Result<Option<Arc<dyn Pass>>, crate::ConfigError> {
        let early = config.target.as_ref().is_some_and(|t| t.tuning.early_output_stores);
        Ok(early.then(|| Arc::new(GroupStores::early()) as Arc<dyn Pass>))
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

/// Moves every run of consecutive stores to one output register up to
/// just after the last instruction of its block that defines or reads one
/// of its values (see the module documentation); returns how many runs
/// moved.
pub fn store_outputs_early(func: &mut Function) -> u64 {
    let mut moved = 0;
    for b in func.blocks_in_order() {
        let Some(block) = func.blocks.get(b) else { continue };
        if !block.insts.iter().any(|&i| matches!(func.insts[i].op, Op::StoreOutput { .. })) {
            continue;
        }
        // The other instructions in order, and each run with the number of
        // them it goes after.
        let mut rest: Vec<Inst> = Vec::with_capacity(block.insts.len());
        let mut runs: Vec<(usize, Vec<Inst>)> = Vec::new();
        let mut last_use: HashMap<Value, usize> = HashMap::new();
        let mut floor = 0;
        let mut after_register: HashMap<u32, usize> = HashMap::new();
        let mut i = 0;
        while i < block.insts.len() {
            let inst = block.insts[i];
            let data = &func.insts[inst];
            let Op::StoreOutput { index, .. } = data.op else {
                for v in data.args.iter().map(|a| a.value).chain(data.results.iter().copied()) {
                    last_use.insert(v, rest.len() + 1);
                }
                rest.push(inst);
                if !is_pure(&data.op) {
                    floor = rest.len();
                }
                i += 1;
                continue;
            };
            let len = block.insts[i..]
                .iter()
                .take_while(|&&s| matches!(func.insts[s].op, Op::StoreOutput { index: j, .. } if j == index))
                .count();
            let run = block.insts[i..i + len].to_vec();
            let earliest = floor.max(after_register.get(&index).copied().unwrap_or(0));
            let needs = run.iter().flat_map(|&s| func.insts[s].args.iter()).filter_map(|a| last_use.get(&a.value));
            let at = needs.copied().fold(earliest, usize::max);
            after_register.insert(index, at);
            if at < rest.len() {
                moved += 1;
            }
            runs.push((at, run));
            i += len;
        }
        // Stable: runs going after the same instruction keep their order.
        runs.sort_by_key(|&(at, _)| at);
        let mut insts = Vec::with_capacity(block.insts.len());
        let mut runs = runs.into_iter().peekable();
        for k in 0..=rest.len() {
            while let Some((_, run)) = runs.next_if(|(at, _)| *at == k) {
                insts.extend(run);
            }
            insts.extend(rest.get(k));
        }
        func.blocks[b].insts = insts;
    }
    moved
}

/// Whether an instruction of `op` neither has an effect nor reads an
/// output, so a store may move above it. Phis are not: they stay first.
fn is_pure(op: &Op) -> bool {
    matches!(
        op,
        Op::Const(_)
            | Op::Initial
            | Op::Undef
            | Op::Read(_)
            | Op::Alu { .. }
            | Op::Pack
            | Op::Split { .. }
            | Op::ArrayLoad { .. }
    )
}
