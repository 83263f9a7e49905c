//! The scalar operations of one TGSI instruction: emission writes them as
//! one instruction only while they agree on opcode, saturation and each
//! source operand's modifiers, so a rule applies to a whole group or not
//! at all.

use ir::{EntityRef, Function, Inst, Op};
use rustc_hash::FxHashMap as HashMap;
use tgsi::{ChannelMode, Opcode};

/// The ALU operations of each block by the TGSI instruction they came
/// from (operations with no source instruction are their own group).
///
/// Flat arrays indexed by instruction, not maps of vectors: the groups are
/// built several times a round, on every operation of the function.
pub(super) struct Groups {
    /// The group of each instruction, by index (`NONE` for its own).
    group_of: Vec<u32>,
    /// Where each group starts in `members`, and one past the last group.
    start: Vec<u32>,
    /// Each group's operations in program order, group after group.
    members: Vec<Inst>,
}

/// No group: the operation is alone.
const NONE: u32 = u32::MAX;

impl Groups {
    /// The groups of every placed ALU operation of `func`.
    pub(super) fn new(func: &Function) -> Groups {
        let mut group_of = vec![NONE; func.insts.len()];
        let mut sizes: Vec<u32> = Vec::new();
        // The grouped operations in program order, then sorted by group
        // (counting): one walk of the scattered instructions.
        let mut grouped: Vec<Inst> = Vec::new();
        // Which group each origin has in the block being read.
        let mut in_block: HashMap<u32, u32> = HashMap::default();
        for b in func.blocks_in_order() {
            let Some(bd) = func.blocks.get(b) else { continue };
            in_block.clear();
            for &inst in &bd.insts {
                let Some(d) = func.insts.get(inst) else { continue };
                if let (Op::Alu { .. }, Some(origin)) = (&d.op, d.origin.inst) {
                    let Some(slot) = group_of.get_mut(inst.index()) else { continue };
                    let g = *in_block.entry(origin).or_insert_with(|| {
                        sizes.push(0);
                        sizes.len() as u32 - 1
                    });
                    sizes[g as usize] += 1;
                    *slot = g;
                    grouped.push(inst);
                }
            }
        }
        let mut start = Vec::with_capacity(sizes.len() + 1);
        let mut total = 0u32;
        for s in &sizes {
            start.push(total);
            total += s;
        }
        start.push(total);
        let mut next = start.clone();
        let mut members = vec![Inst::new(0); total as usize];
        for inst in grouped {
            let g = group_of.get(inst.index()).copied().unwrap_or(NONE);
            if let Some(slot) = next.get_mut(g as usize) {
                if let Some(m) = members.get_mut(*slot as usize) {
                    *m = inst;
                }
                *slot += 1;
            }
        }
        Groups { group_of, start, members }
    }

    /// `inst` and the operations that came from the same TGSI instruction
    /// in its block.
    pub(super) fn of<'s>(&'s self, inst: &'s Inst) -> &'s [Inst] {
        let g = self.group_of.get(inst.index()).copied().unwrap_or(NONE) as usize;
        match (self.start.get(g), self.start.get(g + 1)) {
            (Some(&a), Some(&b)) => self.members.get(a as usize..b as usize).unwrap_or(std::slice::from_ref(inst)),
            _ => std::slice::from_ref(inst),
        }
    }
}

/// The TGSI source operand that argument `arg` of an ALU operation with
/// `opcode` reads ([`semantics::arg_source`]), for the 32-bit opcodes
/// that are component-wise or replicated scalars: a channel-dependent or
/// 64-bit opcode's operand is not one channel's.
pub(super) fn source_of(opcode: Opcode, arg: usize) -> Option<usize> {
    let info = opcode.info();
    let simple = matches!(info.mode, ChannelMode::Componentwise | ChannelMode::Replicate);
    if info.is_64bit() || !simple {
        return None;
    }
    semantics::arg_source(opcode, arg)
}
