//! Results of whole instructions that one operand reads together, copied
//! beside each other as they are computed.
//!
//! A texture instruction writes each result in its own channel: four
//! `TEX TEMP[n].x` whose results an `ADD` reads as one operand leave four
//! values that can only be in channel `x`, each in a register of its own
//! until the `ADD`. Copied right after each `TEX` into one register (the
//! first result stays where its instruction writes it, the others join it
//! in its free channels), the operand is one register and each `TEX` can
//! reuse the register of the one before:
//!
//! ```text
//! TEX TEMP[0].x, IN[1], SAMP[0], 2D
//! TEX TEMP[1].x, IN[2], SAMP[0], 2D
//! MOV TEMP[0].y, TEMP[1].xxxx
//! TEX TEMP[1].x, IN[3], SAMP[0], 2D
//! MOV TEMP[0].z, TEMP[1].xxxx
//! ADD TEMP[0].xyz, IN[0], -TEMP[0]
//! ```
//!
//! The copies cost what the operand's gathering would have cost, often
//! less; emission keeps this form only when it is no larger.

use super::live_instructions;
use crate::channels::replicated_reads;
use crate::function::*;
use std::collections::HashSet;
use tgsi::{ChannelMode, Opcode};

/// A copy of `func` where the results of whole instructions read together
/// in one operand are copied as they are computed, or `None` when no
/// operand reads such results of two instructions or more.
pub(crate) fn early_copies(func: &Function) -> Option<Function> {
    let live = live_instructions(func);
    // Tree order: (block's rank, index in the block).
    let mut position: crate::entity::SecondaryMap<Inst, (usize, usize)> = crate::entity::SecondaryMap::default();
    for (rank, b) in func.blocks_in_order().into_iter().enumerate() {
        for (k, &inst) in func.blocks[b].insts.iter().enumerate() {
            position.insert(inst, (rank, k));
        }
    }
    let mut copied: HashSet<Value> = HashSet::new();
    // (reader, argument) -> the value it reads through a copy.
    let mut rewrites: Vec<(Inst, usize, Value)> = Vec::new();
    for set in operand_sets(func, &live) {
        let whole = |v: Value| {
            let def = func.values[v].def;
            matches!(func.insts[def].op, Op::Opaque { .. }) && func.ty(v) == Ty::B32
        };
        let mut defs: Vec<Inst> = Vec::new();
        for &(_, _, v) in &set {
            let def = func.values[v].def;
            if whole(v) && !defs.contains(&def) {
                defs.push(def);
            }
        }
        if defs.len() < 2 {
            continue;
        }
        // The first instruction's results stay where it writes them.
        let first = defs.iter().copied().min_by_key(|d| position.get(d).copied());
        for &(reader, k, v) in &set {
            if whole(v) && Some(func.values[v].def) != first {
                rewrites.push((reader, k, v));
                copied.insert(v);
            }
        }
    }
    if rewrites.is_empty() {
        return None;
    }
    let mut out = func.clone();
    let mut copy_of: std::collections::HashMap<Value, Value> = std::collections::HashMap::new();
    for b in func.blocks_in_order() {
        let mut insts = Vec::with_capacity(func.blocks[b].insts.len());
        for &inst in &func.blocks[b].insts {
            insts.push(inst);
            for &r in &func.insts[inst].results {
                if copied.contains(&r) {
                    let mov = out.add_inst(
                        Op::Alu { opcode: Opcode::Mov, chan: 0 },
                        &[Operand::new(r)],
                        &[Ty::B32],
                        Origin::default(),
                    );
                    insts.push(mov);
                    copy_of.insert(r, out.result(mov));
                }
            }
        }
        out.blocks[b].insts = insts;
    }
    for (reader, k, v) in rewrites {
        if let Some(&c) = copy_of.get(&v) {
            out.insts[reader].args[k].value = c;
        }
    }
    Some(out)
}

/// The values each emitted source operand reads, as (reader, argument,
/// value): for consecutive live operations of one source instruction
/// with one opcode (which emission writes as one instruction), the same
/// argument of each; for a replicated-scalar operation, the arguments of
/// one source operand.
fn operand_sets(func: &Function, live: &crate::entity::SecondaryMap<Inst, ()>) -> Vec<Vec<(Inst, usize, Value)>> {
    let mut out = Vec::new();
    for b in func.blocks_in_order() {
        let insts: Vec<Inst> = func.blocks[b].insts.iter().copied().filter(|i| live.contains_key(i)).collect();
        let mut i = 0;
        while i < insts.len() {
            let data = &func.insts[insts[i]];
            let Op::Alu { opcode, .. } = data.op else {
                i += 1;
                continue;
            };
            let info = opcode.info();
            if info.is_64bit() {
                i += 1;
                continue;
            }
            match info.mode {
                ChannelMode::Componentwise => {
                    let same = |other: &InstData| {
                        matches!(other.op, Op::Alu { opcode: o, .. } if o == opcode)
                            && other.origin.inst.is_some()
                            && other.origin.inst == data.origin.inst
                    };
                    let mut j = i + 1;
                    while j < insts.len() && j - i < 4 && same(&func.insts[insts[j]]) {
                        j += 1;
                    }
                    for k in 0..data.args.len() {
                        let set: Vec<(Inst, usize, Value)> = insts[i..j]
                            .iter()
                            .filter_map(|&m| func.insts[m].args.get(k).map(|a| (m, k, a.value)))
                            .collect();
                        out.push(set);
                    }
                    i = j;
                }
                ChannelMode::Replicate => {
                    let reads = replicated_reads(opcode);
                    for src in 0..4u8 {
                        let set: Vec<(Inst, usize, Value)> = reads
                            .iter()
                            .zip(data.args.iter().enumerate())
                            .filter(|((s, _), _)| *s == src)
                            .map(|(_, (k, a))| (insts[i], k, a.value))
                            .collect();
                        if !set.is_empty() {
                            out.push(set);
                        }
                    }
                    i += 1;
                }
                _ => i += 1,
            }
        }
    }
    out
}
