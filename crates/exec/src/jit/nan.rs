//! Which float results the whole-program code must make canonical when
//! NaN. The interpreter makes every NaN an operation computes the
//! canonical one; the code need only do so where the bits can be seen.
//! A NaN read only by operands the table of operations calls NaN-blind
//! (`semantics::Facts::nan_blind`: arithmetic, which gives the canonical
//! NaN for any NaN, and what decides by whether it is one: comparisons,
//! MIN and MAX, conversions to integers), by `IF`'s test or by
//! derivatives gives those the interpreter's results whatever its
//! payload: such a reader is *blind* to it. Every other reader (outputs,
//! moves and phi copies, integer and bit operations, the values CMP
//! selects, `SWITCH`, the steps the interpreter runs) sees the bits, and
//! the value's producer keeps the canonical NaN for it.
//!
//! By induction over the program, each value of the code is then the
//! interpreter's, or both are NaN where only blind readers read it.

use tgsi::OperandType;

use super::liveness;
use crate::program::{Control, Program, Step};

/// By slot: whether a NaN in it must be the canonical one (some reader
/// sees its bits).
pub(super) fn seen_slots(program: &Program) -> Vec<bool> {
    let mut seen = vec![false; program.slots];
    let mut mark = |slot: u32| {
        if let Some(s) = seen.get_mut(slot as usize) {
            *s = true;
        }
    };
    let mut reads = Vec::new();
    for step in program.steps.iter().flatten() {
        match step {
            Step::Alu { width, broadcast, args, src_tys, opcode, wide: false, .. } => {
                for (i, (a, ty)) in args.iter().zip(src_tys).enumerate() {
                    if semantics::arg_nan_blind(*opcode, i) && *ty == OperandType::Float && !a.wide {
                        continue;
                    }
                    let n = if broadcast & (1 << i) != 0 { 1 } else { *width };
                    (0..n).for_each(|k| mark(a.slot + k));
                }
            }
            Step::Deriv { arg, .. } if !arg.wide => {}
            _ => {
                reads.clear();
                if liveness::reads(step, &mut reads).is_none() {
                    // A step of unknown reads: every value is seen.
                    return vec![true; program.slots];
                }
                reads.iter().for_each(|&s| mark(s));
            }
        }
    }
    for node in &program.control {
        match node {
            Control::If { cond, unsigned: true, .. } => mark(*cond),
            Control::Switch { selector, values, .. } => {
                mark(*selector);
                values.iter().flatten().for_each(|&v| mark(v));
            }
            _ => {}
        }
    }
    seen
}
