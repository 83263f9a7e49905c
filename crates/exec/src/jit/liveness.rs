//! Which slots a segment must store: those read after it by anything
//! else (steps outside it, the control list), or read in it before its
//! write (by the next turn of a loop). A value only the segment's later
//! steps read stays in a register, never written to the batch's slots.

use crate::program::{Control, Program, Step};

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

/// Reads of every slot over the whole program; `None` when some step's
/// reads are not known.
pub(super) fn read_counts(program: &Program) -> Option<Vec<u32>> {
    let mut counts = vec![0u32; program.slots];
    let mut list = Vec::new();
    for step in program.steps.iter().flatten() {
        reads(step, &mut list)?;
    }
    for control in &program.control {
        match control {
            Control::If { cond, .. } => list.push(*cond),
            Control::Switch { selector, values, .. } => {
                list.push(*selector);
                list.extend(values.iter().flatten());
            }
            _ => {}
        }
    }
    for slot in list {
        // Out of range: a slot the segments never write (they are checked).
        if let Some(c) = counts.get_mut(slot as usize) {
            *c += 1;
        }
    }
    Some(counts)
}

/// For the segment `steps`, whether each slot it writes must be stored,
/// given the program's `counts` of reads (all, without them).
pub(super) fn stored(steps: &[Step], counts: Option<&[u32]>) -> impl Fn(u32) -> bool {
    let mut after_write: Vec<(u32, u32)> = Vec::new();
    if counts.is_some() {
        let mut written: Vec<u32> = Vec::new();
        let mut list = Vec::new();
        for step in steps {
            list.clear();
            // A segment's steps have known reads.
            let _ = reads(step, &mut list);
            for &slot in list.iter().filter(|s| written.contains(s)) {
                match after_write.iter_mut().find(|(s, _)| *s == slot) {
                    Some((_, n)) => *n += 1,
                    None => after_write.push((slot, 1)),
                }
            }
            written.extend(writes(step));
        }
    }
    let counts: Option<Vec<u32>> = counts.map(<[u32]>::to_vec);
    move |slot| {
        let Some(counts) = &counts else { return true };
        let total = counts.get(slot as usize).copied().unwrap_or(u32::MAX);
        let inside = after_write.iter().find(|(s, _)| *s == slot).map_or(0, |&(_, n)| n);
        total > inside
    }
}

/// The slots a compilable step writes.
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
