//! The steps that compute slots from slots: ALU operations (batch loops
//! over whole columns, or lane by lane on 64-bit values), derivatives
//! across a quad, moves, phi copies and texture sampling. Each is inlined
//! into both builds of the hot loop ([`super::block`]).

use tgsi::OperandType;

use super::batch::Batch;
use super::columns::{operand_columns, run_kernel, sign_masks};
use super::mask::{write_lanes, Lanes};
use crate::error::ExecError;
use crate::kernel::{Kernel, MAX_ARGS};
use crate::program::{Arg, Deriv, TexOp, TEX_OPERANDS};
use crate::sampler;

impl Batch<'_> {
    /// A 64-bit ALU step: the operands of `args` (read as `src_tys`) into
    /// `dst`, lane by lane on whole 64-bit values (both halves of `dst`
    /// when `wide_dst`), saturated as `sat`.
    #[inline(always)]
    pub(super) fn alu_wide(
        &mut self,
        dst: u32,
        (args, src_tys): (&[Arg], &[OperandType]),
        sat: Option<OperandType>,
        kernel: &Kernel,
        wide_dst: bool,
        active: u64,
    ) -> Result<(), ExecError> {
        // Lane by lane on whole 64-bit values: only the double
        // and 64-bit integer operations, which have no batch loop.
        if !matches!(kernel, Kernel::Eval { .. }) {
            return Err(ExecError::Malformed("a 64-bit operation with a 32-bit loop".into()));
        }
        let (w, n) = (self.w, args.len().min(MAX_ARGS));
        let work = &mut **self.work;
        let (slots, joined, out) = (&mut work.slots, &mut work.joined, &mut work.joined_out);
        // Each operand as one column of whole values.
        for (a, column) in args[..n].iter().zip(joined.chunks_exact_mut(w)) {
            let at = a.slot as usize * w;
            let lo = &slots[at..at + w];
            if a.wide {
                let hi = &slots[at + w..at + 2 * w];
                for ((c, &lo), &hi) in column.iter_mut().zip(lo).zip(hi) {
                    *c = lo as u64 | (hi as u64) << 32;
                }
            } else {
                column.iter_mut().zip(lo).for_each(|(c, &lo)| *c = lo as u64);
            }
        }
        let mut values = [0u64; MAX_ARGS];
        // The lanes of the quads with an active lane: one quad when
        // compiled code has the step run for a quad.
        let (lo, hi) = quad_span(active, w);
        for (l, r) in out[..w].iter_mut().enumerate().take(hi).skip(lo) {
            for (v, column) in values[..n].iter_mut().zip(joined.chunks_exact(w)) {
                *v = column[l];
            }
            *r = kernel.eval_wide(args[..n].iter().map(|a| (a.neg, a.abs)), src_tys, sat, &mut values[..n]);
        }
        let at = dst as usize * w;
        for l in Lanes(active & self.all) {
            slots[at + l] = out[l] as u32;
            if wide_dst {
                slots[at + w + l] = (out[l] >> 32) as u32;
            }
        }
        Ok(())
    }

    /// An ALU step with every lane active, no modifier and no saturation:
    /// the batch loop writes `width` slots from `dst` on in place, reading
    /// the operands of `args` (one slot for those in `broadcast`) where
    /// they are.
    #[inline(always)]
    pub(super) fn alu_in_place(&mut self, (dst, width, broadcast): (u32, u32, u32), args: &[Arg], kernel: Kernel) {
        // Every lane straight into the result slots.
        let w = self.w;
        let (out, other) = self.write_beside(dst, width);
        let mut columns: [&[u32]; MAX_ARGS] = [&[]; MAX_ARGS];
        for (i, (a, column)) in args.iter().zip(&mut columns).enumerate() {
            let n = if broadcast & (1 << i) != 0 { 1 } else { width as usize };
            *column = other.columns(a.slot, n);
        }
        run_kernel(kernel, &columns[..args.len().min(MAX_ARGS)], broadcast, w, out);
    }

    /// Any other 32-bit ALU step: the batch loop over every lane into a
    /// scratch column (operands with modifiers, read as `src_tys`,
    /// rewritten first), saturated as `sat`, then the lanes of `active`
    /// written to `width` slots from `dst` on.
    #[inline(always)]
    pub(super) fn alu_masked(
        &mut self,
        (dst, width, broadcast): (u32, u32, u32),
        (args, src_tys): (&[Arg], &[OperandType]),
        sat: Option<OperandType>,
        kernel: Kernel,
        active: u64,
    ) {
        let (w, lanes) = (self.w, width as usize * self.w);
        // Operands with modifiers are rewritten into a scratch
        // column; the others are read in place. Every lane is
        // computed (the operations are pure), then the active
        // ones written.
        let work = &mut **self.work;
        let (slots, out) = (&mut work.slots, &mut work.out);
        {
            let mut columns: [&[u32]; MAX_ARGS] = [&[]; MAX_ARGS];
            let n = args.len().min(MAX_ARGS);
            let modified = &mut work.modified;
            let operands = (&args[..n], broadcast);
            operand_columns(slots, modified, (w, lanes), operands, |i| src_tys[i], &mut columns);
            run_kernel(kernel, &columns[..n], broadcast, w, &mut out[..lanes]);
        }
        if let Some(ty) = sat {
            out[..lanes].iter_mut().for_each(|v| *v = semantics::saturate(ty, *v as u64) as u32);
        }
        let at = dst as usize * w;
        write_lanes(&mut slots[at..at + lanes], &out[..lanes], active, w);
    }

    /// A derivative of `arg` across each quad into `dst`, saturated when
    /// `sat`.
    #[inline(always)]
    pub(super) fn deriv(&mut self, dst: u32, arg: &Arg, kind: Deriv, sat: bool, active: u64) {
        // Quad by quad: each lane's result is the difference of
        // two lanes of its quad, `pairs[lane % 4]`.
        let pairs: [(usize, usize); 4] = match kind {
            Deriv::X => [(3, 2); 4],
            Deriv::Y => [(2, 0); 4],
            Deriv::XFine => [(1, 0), (1, 0), (3, 2), (3, 2)],
            Deriv::YFine => [(2, 0), (3, 1), (2, 0), (3, 1)],
        };
        let (w, (clear, flip)) = (self.w, sign_masks(arg));
        let work = &mut **self.work;
        let (slots, out) = (&mut work.slots, &mut work.out);
        let at = arg.slot as usize * w;
        // The quads with an active lane: one when compiled code has the
        // step run for a quad.
        let (lo, hi) = quad_span(active, w);
        let quads = slots[at + lo..at + hi].chunks_exact(4).zip(out[lo..hi].chunks_exact_mut(4));
        for (quad, results) in quads {
            let value = |k: usize| f32::from_bits((quad[k] & clear) ^ flip);
            for (r, &(a, b)) in results.iter_mut().zip(&pairs) {
                let d = semantics::canonical(value(a) - value(b));
                *r = if sat { semantics::saturate(OperandType::Float, d as u64) as u32 } else { d };
            }
        }
        write_lanes(&mut slots[dst as usize * w..(dst as usize + 1) * w], &out[..w], active, w);
    }

    /// A copy of slot `src` into `dst`.
    #[inline(always)]
    pub(super) fn move_slot(&mut self, dst: u32, src: u32, active: u64) {
        let w = self.w;
        let (out, other) = self.write_beside(dst, 1);
        write_lanes(out, other.columns(src, 1), active, w);
    }

    /// Phi copies, `(dst, src)` slot pairs.
    #[inline(always)]
    pub(super) fn copies(&mut self, pairs: &[(u32, u32)], active: u64) {
        // All sources are read before any destination is written.
        let w = self.w;
        let work = &mut **self.work;
        work.copies.clear();
        for &(_, src) in pairs {
            let at = src as usize * w;
            work.copies.extend_from_slice(&work.slots[at..at + w]);
        }
        for (k, &(dst, _)) in pairs.iter().enumerate() {
            let at = dst as usize * w;
            write_lanes(&mut work.slots[at..at + w], &work.copies[k * w..(k + 1) * w], active, w);
        }
    }

    /// A texture step: `op` on texture `unit` at `coords` (and its other
    /// operands), the texel's channels by `swizzle` into the slots of
    /// `dsts`, saturated when `sat`.
    #[inline(always)]
    pub(super) fn texture(
        &mut self,
        (op, unit): (TexOp, u32),
        coords: &[Arg; TEX_OPERANDS],
        swizzle: &[u8; 4],
        dsts: &[(u8, u32)],
        sat: bool,
        active: u64,
    ) {
        // Every lane of the quads with an active lane is sampled
        // (sampling is pure), then the active ones written: one quad
        // when compiled code has the step run for a quad.
        let w = self.w;
        let (lo, hi) = quad_span(active, w);
        let work = &mut **self.work;
        let (slots, texels) = (&mut work.slots, &mut work.texels);
        let mut columns: [&[u32]; TEX_OPERANDS] = [&[]; TEX_OPERANDS];
        // Only the operands `op` reads: the others are placeholders.
        let used = sampler::operands_read(op);
        let operands = (&coords[..used], 0);
        operand_columns(slots, &mut work.modified, (w, w), operands, |_| OperandType::Float, &mut columns[..used]);
        for column in &mut columns[..used] {
            *column = column.get(lo..hi).unwrap_or_default();
        }
        sampler::sample_lanes(self.env.state, unit, op, columns, &mut texels[lo..hi]);
        let out = &mut work.out;
        for &(chan, dst) in dsts {
            let c = swizzle[chan as usize & 3] as usize & 3;
            for (o, texel) in out[lo..hi].iter_mut().zip(&texels[lo..hi]) {
                let v = texel[c];
                *o = if sat { semantics::saturate(OperandType::Float, v as u64) as u32 } else { v };
            }
            write_lanes(&mut slots[dst as usize * w..(dst as usize + 1) * w], &out[..w], active, w);
        }
    }
}

/// The lanes from the first quad with an active lane of `active` to the
/// end of the last one, within a batch of `w`.
#[inline(always)]
fn quad_span(active: u64, w: usize) -> (usize, usize) {
    if active == 0 {
        return (0, 0);
    }
    let lo = active.trailing_zeros() as usize / 4 * 4;
    let hi = (64 - active.leading_zeros() as usize).div_ceil(4) * 4;
    (lo.min(w), hi.min(w))
}
