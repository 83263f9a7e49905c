//! Where a function's values live in a batch: a slot of 32-bit lanes per
//! value (two for a 64-bit value), the channels of one ALU opcode placed
//! side by side so they join into one step, and operands as slots with
//! their source modifiers.

use ir::function::{Function, InstData, Op, Operand, Ty, Value};
use ir::EntityRef;
use smallvec::SmallVec;
use tgsi::OperandType;

use super::MAX_WIDTH;

/// An operand: a slot with TGSI's source modifiers.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Arg {
    pub slot: u32,
    pub neg: bool,
    pub abs: bool,
    /// A 64-bit value: `slot` holds its low half, `slot + 1` its high half.
    pub wide: bool,
}

impl Arg {
    /// The slots the operand reads: one, or two for a 64-bit value.
    pub fn slots(&self) -> std::ops::Range<u32> {
        self.slot..self.slot + 1 + self.wide as u32
    }

    /// The operand's value in `lane` of a batch's `slots` (slot-major, `w`
    /// lanes a slot), read as `ty` with its modifiers; both halves of a
    /// 64-bit value. A slot outside the batch reads zero.
    pub fn lane_value(&self, slots: &[u32], w: usize, ty: OperandType, lane: usize) -> u64 {
        let get = |slot: u32| slots.get(slot as usize * w + lane).copied().unwrap_or(0) as u64;
        let v = if self.wide { get(self.slot) | get(self.slot + 1) << 32 } else { get(self.slot) };
        if self.neg || self.abs {
            semantics::apply_modifiers(ty, v, self.neg, self.abs)
        } else {
            v
        }
    }
}

/// Where each value's lanes are kept: one slot of 32-bit lanes per value,
/// two in a row for a 64-bit value (low half, then high half). 32-bit
/// columns let the batch loops do twice the lanes per vector instruction.
///
/// The operands and results of a run of one ALU opcode (the channels of a
/// TGSI instruction) get slots side by side where they can, so that the
/// run is one step over consecutive slots (see
/// [`join_channels`](super::join::join_channels)).
#[derive(Debug)]
pub(crate) struct Slots {
    first: Vec<u32>,
    wide: Vec<bool>,
    pub(super) count: u32,
}

impl Slots {
    pub fn new(func: &Function) -> Slots {
        let wide: Vec<bool> = func.values.iter().map(|(_, data)| data.ty == Ty::B64).collect();
        let mut placed: Vec<Option<u32>> = vec![None; wide.len()];
        let mut count = 0;
        for (_, block) in func.blocks.iter() {
            let insts: SmallVec<[&InstData; 16]> = block.insts.iter().map(|&i| &func.insts[i]).collect();
            let runs = insts.chunk_by(|a, b| same_alu(a, b)).flat_map(|run| run.chunks(MAX_WIDTH as usize));
            for run in runs.filter(|run| run.len() > 1) {
                // Each operand's values across the run, then its results.
                let operands = (0..run[0].args.len()).map(|k| run.iter().map(|d| Some(d.args.get(k)?.value)).collect());
                let results = run.iter().map(|d| d.results.first().copied()).collect();
                for values in operands.chain([results]) {
                    let Some(values): Option<SmallVec<[Value; 4]>> = values else { continue };
                    // Side by side only when none has a slot yet, all are
                    // 32-bit and no two are the same value.
                    let free = |v: &Value| placed.get(v.index()) == Some(&None) && !wide[v.index()];
                    let distinct = values.iter().enumerate().all(|(i, v)| !values[..i].contains(v));
                    if values.iter().all(free) && distinct {
                        for v in values {
                            placed[v.index()] = Some(count);
                            count += 1;
                        }
                    }
                }
            }
        }
        // Every other value after them, in order.
        let first = placed
            .iter()
            .zip(&wide)
            .map(|(slot, &w)| {
                slot.unwrap_or_else(|| {
                    count += 1 + w as u32;
                    count - 1 - w as u32
                })
            })
            .collect();
        Slots { first, wide, count }
    }

    /// The (first) slot of `v`.
    pub fn of(&self, v: Value) -> u32 {
        self.first.get(v.index()).copied().unwrap_or(0)
    }

    pub fn is_wide(&self, v: Value) -> bool {
        self.wide.get(v.index()).copied().unwrap_or(false)
    }

    /// `op` as an operand, with its own modifiers.
    pub fn arg(&self, op: &Operand) -> Arg {
        Arg { slot: self.of(op.value), neg: op.neg, abs: op.abs, wide: self.is_wide(op.value) }
    }

    /// `op` as an operand of an instruction the IR keeps whole, with the
    /// negate and absolute value of the TGSI source it reads added.
    pub fn source_arg(&self, op: &Operand, (neg, abs): (bool, bool)) -> Arg {
        let a = self.arg(op);
        Arg { neg: neg || a.neg, abs: abs || a.abs, ..a }
    }

    /// The channels of `write_mask`, each with the slot of its result
    /// (`results` holds one value per written channel, in channel order).
    pub fn written(&self, write_mask: u8, results: &[Value]) -> SmallVec<[(u8, u32); 4]> {
        (0..4u8).filter(|c| write_mask & (1 << c) != 0).zip(results.iter().map(|&v| self.of(v))).collect()
    }
}

/// Whether `a` and `b` are the same ALU operation on the same number of
/// operands, each with one result.
fn same_alu(a: &InstData, b: &InstData) -> bool {
    matches!((&a.op, &b.op), (Op::Alu { opcode: x, .. }, Op::Alu { opcode: y, .. }) if x == y)
        && a.args.len() == b.args.len()
        && a.results.len() == 1
        && b.results.len() == 1
}
