//! The scalar operations of one TGSI instruction: emission writes them as
//! one instruction only while they agree on opcode, saturation and each
//! source operand's modifiers, so a rule applies to a whole group or not
//! at all.

use ir::{Function, Inst, Op};
use rustc_hash::FxHashMap as HashMap;
use tgsi::{ChannelMode, Opcode};

/// The ALU operations of each block by the TGSI instruction they came
/// from (operations with no source instruction are their own group).
pub(super) struct Groups {
    by_origin: HashMap<(ir::Block, u32), Vec<Inst>>,
    home: HashMap<Inst, (ir::Block, u32)>,
}

impl Groups {
    /// The groups of every placed ALU operation of `func`.
    pub(super) fn new(func: &Function) -> Groups {
        let mut by_origin: HashMap<(ir::Block, u32), Vec<Inst>> = HashMap::default();
        let mut home = HashMap::default();
        for b in func.blocks_in_order() {
            let Some(bd) = func.blocks.get(b) else { continue };
            for &inst in &bd.insts {
                let Some(d) = func.insts.get(inst) else { continue };
                if let (Op::Alu { .. }, Some(origin)) = (&d.op, d.origin.inst) {
                    by_origin.entry((b, origin)).or_default().push(inst);
                    home.insert(inst, (b, origin));
                }
            }
        }
        Groups { by_origin, home }
    }

    /// `inst` and the operations that came from the same TGSI instruction
    /// in its block.
    pub(super) fn of(&self, inst: Inst) -> Vec<Inst> {
        match self.home.get(&inst).and_then(|k| self.by_origin.get(k)) {
            Some(list) => list.clone(),
            None => vec![inst],
        }
    }
}

/// The TGSI source operand that argument `arg` of an ALU operation with
/// `opcode` reads, for the opcodes whose arguments map to sources simply
/// (component-wise: one argument per source; replicated: see
/// [`ir::channels::replicated_reads`]); `None` for the others.
pub(super) fn source_of(opcode: Opcode, arg: usize) -> Option<usize> {
    let info = opcode.info();
    if info.is_64bit() {
        return None;
    }
    match info.mode {
        ChannelMode::Componentwise => Some(arg),
        ChannelMode::Replicate => ir::channels::replicated_reads(opcode).get(arg).map(|&(s, _)| usize::from(s)),
        _ => None,
    }
}
