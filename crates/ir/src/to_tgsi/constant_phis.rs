//! Constants stored beside phis of constants, made phis themselves.
//!
//! After `IF c { MOV TEMP[0], IMM.xyxy } ELSE { MOV TEMP[0], IMM.yxxy }`
//! and `MOV OUT[0], TEMP[0]`, channels z and w are the same constant on
//! both paths, so SSA construction gives them no phi. Emitted as they are,
//! the phis' copies write `TEMP[0].xy` in each arm and the output takes two
//! `MOV`s: `OUT[0].xy` from the register, `OUT[0].zw` from the immediate.
//! Made a phi of that constant, each arm copies it with the others (one
//! `MOV` from the immediate either way) and the output is one `MOV`.

use crate::function::*;
use std::collections::HashSet;
use tgsi::File;

/// A copy of `func` with such constants turned into phis, or `None` when
/// there are none.
pub(crate) fn constant_phis(func: &Function) -> Option<Function> {
    let entry = func.blocks_in_order().first().copied()?;
    let in_entry: HashSet<Inst> = func.blocks[entry].insts.iter().copied().collect();
    // A constant defined in the entry block: it dominates every block.
    let is_constant = |v: Value| {
        let def = func.values[v].def;
        func.ty(v) == Ty::B32
            && in_entry.contains(&def)
            && matches!(func.insts[def].op, Op::Const(_) | Op::Read(Source { file: File::Immediate, .. }))
    };
    let mut changes: Vec<(Block, Inst, Inst)> = Vec::new(); // (block, store, sibling phi)
    for b in func.blocks_in_order() {
        let insts = &func.blocks[b].insts;
        let phis: Vec<Inst> =
            insts.iter().copied().take_while(|&i| matches!(func.insts[i].op, Op::Phi { .. })).collect();
        // Phis of this block whose arguments are all constants.
        let constant_phi = |v: Value| {
            let def = func.values[v].def;
            phis.contains(&def) && func.insts[def].args.iter().all(|a| !a.neg && !a.abs && is_constant(a.value))
        };
        for &store in &insts[phis.len()..] {
            let Op::StoreOutput { index, .. } = func.insts[store].op else { continue };
            let Some(arg) = func.insts[store].args.first() else { continue };
            if arg.neg || arg.abs || !is_constant(arg.value) {
                continue;
            }
            // A phi of constants of this block stored to the same output.
            let sibling = insts[phis.len()..].iter().find_map(|&other| match func.insts[other].op {
                Op::StoreOutput { index: i, .. } if i == index => func.insts[other]
                    .args
                    .first()
                    .filter(|a| !a.neg && !a.abs && constant_phi(a.value))
                    .map(|a| func.values[a.value].def),
                _ => None,
            });
            if let Some(phi) = sibling {
                changes.push((b, store, phi));
            }
        }
    }
    if changes.is_empty() {
        return None;
    }
    let mut func = func.clone();
    for (b, store, sibling) in changes {
        let Op::StoreOutput { chan, .. } = func.insts[store].op else { continue };
        let value = func.insts[store].args[0].value;
        let sib = &func.insts[sibling];
        let op = sib.op.clone();
        let args: Vec<Operand> = sib.args.iter().map(|_| Operand::new(value)).collect();
        let origin = Origin { inst: sib.origin.inst, dst: sib.origin.dst.map(|d| RegChannel { chan, ..d }) };
        let phi = func.add_inst(op, &args, &[Ty::B32], origin);
        let result = func.result(phi);
        func.insts[store].args[0].value = result;
        let at = func.blocks[b].insts.iter().take_while(|&&i| matches!(func.insts[i].op, Op::Phi { .. })).count();
        func.blocks[b].insts.insert(at, phi);
    }
    Some(func)
}
