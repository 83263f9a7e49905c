//! The slots a step reads and writes, for the NaN analysis (`nan`) and
//! the steps the whole-program code runs through the interpreter.

use crate::program::Step;

/// Every slot read, once per read, by `step`; `None` when not known (a
/// memory access), and then every slot counts as read.
pub(super) fn reads(step: &Step, out: &mut Vec<u32>) -> Option<()> {
    // A 64-bit operand reads its high half too.
    let arg = |out: &mut Vec<u32>, slot: u32, wide: bool| {
        out.push(slot);
        if wide {
            out.push(slot + 1);
        }
    };
    match step {
        Step::Alu { width, broadcast, args, .. } => {
            for (i, a) in args.iter().enumerate() {
                let n = if broadcast & (1 << i) != 0 { 1 } else { *width };
                (0..n).for_each(|k| arg(out, a.slot + k, a.wide));
            }
        }
        Step::Deriv { arg: a, .. } => arg(out, a.slot, a.wide),
        Step::Move { src, .. } => out.push(*src),
        Step::LoadIndirect { index, dim, .. } => {
            out.extend(index);
            out.extend(dim.and_then(|(_, s)| s));
        }
        Step::ArrayLoad { index, .. } => out.extend(index),
        Step::ArrayStore { index, value, .. } => {
            out.extend(index);
            out.push(*value);
        }
        Step::StoreOutput { value, .. } => out.push(*value),
        Step::Texture { coords, .. } => coords.iter().for_each(|a| arg(out, a.slot, a.wide)),
        Step::Kill => {}
        Step::Emit { stream } | Step::EndPrimitive { stream } => out.extend(stream),
        Step::KillIf { args } => args.iter().for_each(|a| arg(out, a.slot, a.wide)),
        Step::Copies(pairs) => out.extend(pairs.iter().map(|&(_, src)| src)),
        Step::Memory(_) => return None,
    }
    Some(())
}

/// The slots an ALU step, a move or phi copies write.
fn writes(step: &Step) -> Vec<u32> {
    match step {
        Step::Alu { dst, width, .. } => (*dst..dst + width).collect(),
        Step::Move { dst, .. } => vec![*dst],
        Step::Copies(pairs) => pairs.iter().map(|&(dst, _)| dst).collect(),
        _ => Vec::new(),
    }
}

/// The slots any step writes (a memory access's are not listed:
/// programs with memory steps do not compile whole).
pub(super) fn writes_any(step: &Step) -> Vec<u32> {
    match step {
        Step::Alu { dst, wide: true, wide_dst, .. } => {
            if *wide_dst {
                vec![*dst, dst + 1]
            } else {
                vec![*dst]
            }
        }
        Step::Deriv { dst, .. } | Step::LoadIndirect { dst, .. } | Step::ArrayLoad { dst, .. } => vec![*dst],
        Step::Texture { dsts, .. } => dsts.iter().map(|&(_, slot)| slot).collect(),
        _ => writes(step),
    }
}
