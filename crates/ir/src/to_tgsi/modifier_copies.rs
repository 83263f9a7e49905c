//! Copies with modifiers read through their readers' own modifiers.
//!
//! `MOV TEMP[3].xyz, -CONST[5]` then `ADD OUT[0], TEMP[0], TEMP[3]` is
//! `ADD OUT[0], TEMP[0], -CONST[5]`: no copy and no register for it. A
//! reader takes the copy's modifiers when it reads that operand as a float
//! or untyped value (MOV, stores), where negation flips and absolute value
//! clears the sign bit, as the copy's own modifiers do; an integer reader
//! negates in two's complement and keeps its copy. Modifiers compose on
//! the sign bit: the reader's absolute value clears whatever the copy did,
//! else the negations add up.

use crate::channels::replicated_reads;
use crate::function::*;
use tgsi::{Opcode, OperandType};

/// A copy of `func` whose modifier copies every reader can take are read
/// through their source, or `None` when there are none.
pub(crate) fn fold_modifier_copies(func: &Function) -> Option<Function> {
    let mut uses: crate::entity::SecondaryMap<Value, Vec<(Inst, usize)>> = crate::entity::SecondaryMap::default();
    for b in func.blocks_in_order() {
        for &inst in &func.blocks[b].insts {
            for (k, arg) in func.insts[inst].args.iter().enumerate() {
                uses.get_or_default(arg.value).push((inst, k));
            }
        }
    }
    // Values that a construct reads (branch conditions, selectors) keep
    // their copies: those read `.x` plainly.
    let tree_reads: std::collections::HashSet<Value> =
        crate::walk::construct_operands(&func.body).map(|op| op.value).collect();
    let mut out: Option<Function> = None;
    for b in func.blocks_in_order() {
        for &copy in &func.blocks[b].insts {
            let f = out.as_ref().unwrap_or(func);
            let data = &f.insts[copy];
            let Op::Alu { opcode: Opcode::Mov, .. } = data.op else { continue };
            let ([v], [source]) = (data.results.as_slice(), data.args.as_slice()) else { continue };
            let (v, source) = (*v, *source);
            if data.saturate || f.ty(v) != Ty::B32 || !(source.neg || source.abs) || tree_reads.contains(&v) {
                continue;
            }
            let readers = uses.get(&v).map_or(&[][..], |u| u.as_slice());
            if readers.is_empty() || !readers.iter().all(|&(u, k)| takes_sign_modifiers(f, u, k)) {
                continue;
            }
            let target = out.get_or_insert_with(|| func.clone());
            for &(u, k) in readers {
                let arg = &mut target.insts[u].args[k];
                let (neg, abs) = if arg.abs { (arg.neg, true) } else { (arg.neg ^ source.neg, source.abs) };
                *arg = Operand { value: source.value, neg, abs };
            }
            // The source is read where the copy was.
            let moved: Vec<(Inst, usize)> = readers.to_vec();
            uses.get_or_default(source.value).extend(moved);
        }
    }
    out
}

/// Whether argument `k` of `u` applies modifiers to the sign bit only:
/// a float or untyped source of a 32-bit ALU operation, or the value an
/// output or array store writes (a MOV).
fn takes_sign_modifiers(func: &Function, u: Inst, k: usize) -> bool {
    let data = &func.insts[u];
    let sign_only = |t: OperandType| matches!(t, OperandType::Float | OperandType::Untyped);
    match &data.op {
        Op::Alu { opcode, .. } => {
            let info = opcode.info();
            if info.is_64bit() {
                return false;
            }
            match info.mode {
                tgsi::ChannelMode::Componentwise => sign_only(opcode.src_type(k)),
                tgsi::ChannelMode::Replicate => {
                    replicated_reads(*opcode).get(k).is_some_and(|&(src, _)| sign_only(opcode.src_type(src as usize)))
                }
                _ => false,
            }
        }
        Op::StoreOutput { .. } => k == 0,
        Op::ArrayStore { .. } | Op::StoreIndirect { .. } => k + 1 == data.args.len(),
        _ => false,
    }
}
