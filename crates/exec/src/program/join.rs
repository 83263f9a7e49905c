//! Joining the one-channel ALU steps of a TGSI instruction into one step
//! over consecutive slots, so that an operation on whole registers runs
//! one batch loop.

use super::steps::{Step, MAX_WIDTH};

/// Joins runs of ALU steps that run one batch loop over consecutive
/// slots into one step over all of them. The channels of a TGSI
/// instruction are such a run when [`Slots::new`](super::Slots::new)
/// could put their values side by side, so an `ADD` of whole registers
/// loops once over four slots' lanes instead of four times over one's.
pub(super) fn join_channels(steps: &mut Vec<Step>) {
    let mut joined: Vec<Step> = Vec::with_capacity(steps.len());
    for step in steps.drain(..) {
        if !joined.last_mut().is_some_and(|last| join(last, &step)) {
            joined.push(step);
        }
    }
    *steps = joined;
}

/// Joins `next` to `group` when `next` computes the slot after the
/// group's with the same loop and modifiers, each operand from the slot
/// after the group's operand, or from the same slot (a broadcast operand,
/// such as `IMM[0].xxxx`), and reads none of the group's results (the
/// joined step reads every operand before it writes). Returns whether it
/// did.
fn join(group: &mut Step, next: &Step) -> bool {
    let (
        Step::Alu { dst, width, broadcast, args, src_tys, sat, kernel, wide: false, .. },
        Step::Alu {
            dst: next_dst,
            width: 1,
            args: next_args,
            src_tys: next_tys,
            sat: next_sat,
            kernel: next_kernel,
            wide: false,
            ..
        },
    ) = (group, next)
    else {
        return false;
    };
    if *width >= MAX_WIDTH
        || *next_dst != *dst + *width
        || (&*kernel, &*sat, &*src_tys) != (next_kernel, next_sat, next_tys)
        || args.len() != next_args.len()
        // `broadcast` has a bit per operand.
        || args.len() > 32
    {
        return false;
    }
    let results = *dst..*dst + *width + 1;
    let mut joined = *broadcast;
    for (i, (a, b)) in args.iter().zip(next_args).enumerate() {
        // A second channel may start a broadcast; a broadcast operand
        // must stay one.
        let same = b.slot == a.slot && (*width == 1 || *broadcast & (1 << i) != 0);
        let next = b.slot == a.slot + *width && *broadcast & (1 << i) == 0;
        let read = if same { a.slot..a.slot + 1 } else { a.slot..a.slot + *width + 1 };
        let overlaps = read.start < results.end && results.start < read.end;
        if (a.neg, a.abs) != (b.neg, b.abs) || !(same || next) || overlaps {
            return false;
        }
        if same {
            joined |= 1 << i;
        }
    }
    *width += 1;
    *broadcast = joined;
    true
}

#[cfg(test)]
mod tests {
    use smallvec::SmallVec;
    use tgsi::OperandType;

    use super::*;
    use crate::kernel::Kernel;
    use crate::program::Arg;

    fn add(dst: u32, a: u32, b: u32) -> Step {
        let arg = |slot| Arg { slot, neg: false, abs: false, wide: false };
        Step::Alu {
            dst,
            width: 1,
            broadcast: 0,
            args: SmallVec::from_slice(&[arg(a), arg(b)]),
            src_tys: SmallVec::from_slice(&[OperandType::Float; 2]),
            sat: None,
            kernel: Kernel::Add,
            opcode: tgsi::Opcode::Add,
            plain: true,
            wide: false,
            wide_dst: false,
        }
    }

    fn widths(mut steps: Vec<Step>) -> Vec<u32> {
        join_channels(&mut steps);
        steps.iter().map(|s| if let Step::Alu { width, .. } = s { *width } else { 0 }).collect()
    }

    #[test]
    fn channels_on_consecutive_slots_join_up_to_a_register() {
        // Slots 20.. = slots 0.. + slots 10.., five channels: four, then one.
        let steps = (0..5).map(|k| add(20 + k, k, 10 + k)).collect();
        assert_eq!(widths(steps), [4, 1]);
    }

    #[test]
    fn one_slot_read_by_every_channel_joins_as_a_broadcast() {
        // Slot 10 for every channel, as `IMM[0].xxxx` reads.
        let mut steps: Vec<Step> = (0..4).map(|k| add(20 + k, k, 10)).collect();
        join_channels(&mut steps);
        assert!(matches!(steps.as_slice(), [Step::Alu { width: 4, broadcast: 0b10, .. }]));
        // A broadcast operand stays one: slot 11 after 10, 10 does not join.
        assert_eq!(widths(vec![add(5, 0, 10), add(6, 1, 10), add(7, 2, 11)]), [2, 1]);
    }

    #[test]
    fn a_channel_reading_a_joined_result_does_not_join() {
        // The second reads slot 5, the first's result.
        assert_eq!(widths(vec![add(5, 4, 10), add(6, 5, 11)]), [1, 1]);
        // Operands that are not the next slots, or another loop, do not join.
        assert_eq!(widths(vec![add(5, 0, 10), add(6, 2, 11)]), [1, 1]);
        let mul = match add(6, 1, 11) {
            Step::Alu { dst, width, broadcast, args, src_tys, sat, plain, wide, wide_dst, .. } => {
                let (kernel, opcode) = (Kernel::Mul, tgsi::Opcode::Mul);
                Step::Alu { dst, width, broadcast, args, src_tys, sat, kernel, opcode, plain, wide, wide_dst }
            }
            other => other,
        };
        assert_eq!(widths(vec![add(5, 0, 10), mul]), [1, 1]);
    }
}
