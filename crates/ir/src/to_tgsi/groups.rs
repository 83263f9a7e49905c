//! The scalar operations emission means to write as one TGSI instruction
//! (the channels of one source instruction), and the runs of output
//! stores it means to write with one `MOV`.
//!
//! A group is read as one vector instruction reads: every operand before
//! any result is written. Where the source instruction read the register
//! it wrote (`ADD TEMP[0], TEMP[0], TEMP[0].yxwz`), the layout gives the
//! group's members one position, so a member's result may take the
//! channel of a value another member reads, as in the source, and
//! emission writes the group as one instruction (or keeps what a later
//! part reads, where it cannot).

use crate::entity::SecondaryMap;
use crate::function::*;
use std::rc::Rc;

/// Groups of values computed by consecutive ALU operations of one source
/// instruction (skipping operations that write no register), by member.
pub(super) fn find_groups(func: &Function) -> SecondaryMap<Value, Rc<Vec<Value>>> {
    let mut out = SecondaryMap::default();
    for (_, block) in func.blocks.iter() {
        for run in alu_runs(func, &block.insts).into_iter().filter(|run| run.len() > 1) {
            let group = Rc::new(run.iter().map(|&i| func.insts[i].results[0]).collect::<Vec<_>>());
            for &m in group.iter() {
                out.insert(m, Rc::clone(&group));
            }
        }
    }
    out
}

/// The runs of `insts` (a block's instructions) that emission can write
/// as one instruction: at most four consecutive 32-bit ALU operations of
/// one source instruction with the same opcode and flags, none reading
/// another's result (an instruction reads every operand first), skipping
/// what writes no register. Runs of one are included.
pub(super) fn alu_runs(func: &Function, insts: &[Inst]) -> Vec<Vec<Inst>> {
    let key = |data: &InstData| match (&data.op, data.origin.inst) {
        (Op::Alu { opcode, .. }, Some(src)) if data.results.len() == 1 && func.ty(data.results[0]) == Ty::B32 => {
            Some((src, *opcode, data.saturate, data.precise, data.args.len()))
        }
        _ => None,
    };
    let mut out = Vec::new();
    let mut run: Vec<Inst> = Vec::new();
    let mut run_key = None;
    for &inst in insts {
        let data = &func.insts[inst];
        if writes_nothing(data) {
            continue;
        }
        let k = key(data);
        let reads_run = data.args.iter().any(|a| run.iter().any(|&m| func.insts[m].results.contains(&a.value)));
        if k.is_none() || k != run_key || run.len() == 4 || reads_run {
            if !run.is_empty() {
                out.push(std::mem::take(&mut run));
            }
            run_key = None;
        }
        if k.is_some() {
            run.push(inst);
            run_key = k;
        }
    }
    if !run.is_empty() {
        out.push(run);
    }
    out
}

/// Whether a member of `run` reads a value the source kept in the register
/// the run writes (other than the run's own results): the source
/// instruction read that register before writing it.
pub(super) fn reads_own_register(func: &Function, run: &[Inst]) -> bool {
    let register = |i: Inst| func.insts[i].origin.dst.map(|d| (d.file, d.index));
    let Some(dst) = run.first().and_then(|&i| register(i)) else { return false };
    run.iter().flat_map(|&m| func.insts[m].args.iter()).any(|a| {
        let def = func.values[a.value].def;
        !run.contains(&def) && register(def) == Some(dst)
    })
}

/// For each output store, the values stored by its run of consecutive
/// stores to the same output register.
pub(super) fn find_store_runs(func: &Function) -> SecondaryMap<Inst, Rc<Vec<Value>>> {
    let mut out = SecondaryMap::default();
    for (_, block) in func.blocks.iter() {
        let mut run: Vec<Inst> = Vec::new();
        let mut run_index = None;
        let mut flush = |run: &mut Vec<Inst>| {
            let values = Rc::new(run.iter().filter_map(|&i| func.insts[i].args.first()).map(|a| a.value).collect());
            for &inst in run.iter() {
                out.insert(inst, Rc::clone(&values));
            }
            run.clear();
        };
        for &inst in &block.insts {
            let data = &func.insts[inst];
            if writes_nothing(data) {
                continue;
            }
            let index = match (&data.op, data.args.first()) {
                (Op::StoreOutput { index, .. }, Some(_)) => Some(*index),
                _ => None,
            };
            if index.is_none() || index != run_index {
                flush(&mut run);
            }
            if index.is_some() {
                run.push(inst);
            }
            run_index = index;
        }
        flush(&mut run);
    }
    out
}

/// Whether emission writes no instruction for `data`: constants, reads,
/// register initial values and phis (copied at their predecessors' ends).
pub(super) fn writes_nothing(data: &InstData) -> bool {
    matches!(data.op, Op::Const(_) | Op::Initial | Op::Undef | Op::Read(_) | Op::Phi { .. })
}
