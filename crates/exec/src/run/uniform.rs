//! The steps every lane computes alike ([`Program::uniform`]), computed
//! once for a run on one lane, by the batch loops and the 64-bit
//! evaluation the interpreter runs them with: their results are the
//! run's constants after the constant reads.

use super::columns::{operand_columns, run_kernel};
use crate::kernel::MAX_ARGS;
use crate::program::{Fill, Program, Step, MAX_WIDTH};

/// Appends the results of `program`'s uniform steps to `constants`, which
/// holds the values of its constant reads.
pub(crate) fn compute(program: &Program, constants: &mut Vec<u32>) {
    if program.uniform.is_empty() {
        return;
    }
    // One lane a slot: the values the steps read, then those they write.
    let mut slots = vec![0u32; program.slots];
    for &(slot, fill) in &program.fills {
        let value = match fill {
            Fill::Bits(bits) => Some(bits),
            // The uniform steps' own fills are not known yet: they are
            // what this computes.
            Fill::Constant { k } => constants.get(k as usize).copied(),
            Fill::Input { .. } | Fill::SystemValue { .. } => None,
        };
        if let (Some(v), Some(s)) = (value, slots.get_mut(slot as usize)) {
            *s = v;
        }
    }
    let mut modified = [0u32; MAX_ARGS * MAX_WIDTH as usize];
    let mut out = [0u32; MAX_WIDTH as usize];
    for step in &program.uniform {
        if let Step::Move { dst, src } = *step {
            let v = slots.get(src as usize).copied().unwrap_or(0);
            if let Some(s) = slots.get_mut(dst as usize) {
                *s = v;
            }
            continue;
        }
        let Step::Alu { dst, width, broadcast, args, src_tys, sat, kernel, wide, wide_dst, .. } = step else {
            continue;
        };
        let (dst, n) = (*dst as usize, args.len().min(MAX_ARGS));
        if *wide {
            let mut values = [0u64; MAX_ARGS];
            for (a, v) in args[..n].iter().zip(&mut values) {
                let half = |h: u32| slots.get((a.slot + h) as usize).copied().unwrap_or(0) as u64;
                *v = if a.wide { half(0) | half(1) << 32 } else { half(0) };
            }
            let r = kernel.eval_wide(args[..n].iter().map(|a| (a.neg, a.abs)), src_tys, *sat, &mut values[..n]);
            let halves = 1 + *wide_dst as usize;
            for (h, s) in slots.iter_mut().skip(dst).take(halves).enumerate() {
                *s = (r >> (32 * h)) as u32;
            }
            continue;
        }
        let lanes = (*width as usize).min(MAX_WIDTH as usize);
        let mut columns: [&[u32]; MAX_ARGS] = [&[]; MAX_ARGS];
        operand_columns(&slots, &mut modified, (1, lanes), (&args[..n], *broadcast), |i| src_tys[i], &mut columns);
        run_kernel(*kernel, &columns[..n], *broadcast, 1, &mut out[..lanes]);
        if let Some(ty) = sat {
            out[..lanes].iter_mut().for_each(|v| *v = semantics::saturate(*ty, *v as u64) as u32);
        }
        for (s, &v) in slots.iter_mut().skip(dst).zip(&out[..lanes]) {
            *s = v;
        }
    }
    constants.extend(program.uniform_slots.iter().map(|&s| slots.get(s as usize).copied().unwrap_or(0)));
}
