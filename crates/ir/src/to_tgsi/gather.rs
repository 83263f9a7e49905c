//! Gathering an operand whose values are scattered over registers into
//! the TEMP register already holding most of them: the others are copied
//! into its channels that hold nothing live there (one MOV for all those
//! coming from one register), and initial zeros are read from a channel
//! that still holds its initial zero.

use super::copies::{same_register, PendingCopy};
use super::note::CopyNote;
use super::operands::fill_unused;
use super::*;
use tgsi::{Register, SrcOperand};

/// How one operand is gathered into a TEMP register.
pub(super) struct GatherPlan {
    index: u32,
    /// For each wanted position, the channel of the register read there.
    reads: SmallVec<[(usize, u8); 4]>,
    /// What to copy first: the channel, the value, where the value is.
    copies: SmallVec<[(u8, Value, Loc); 4]>,
    /// Channels still holding the copy an earlier gather made there.
    reused: SmallVec<[u8; 4]>,
    /// The channel read for initial zeros, and the position until which it
    /// must keep its zero.
    zero: Option<(u8, u32)>,
    /// How many channels were free for copies.
    free: usize,
}

impl GatherPlan {
    /// How many MOVs the copies take: one per register they come from.
    pub(super) fn moves(&self) -> usize {
        let mut batched: SmallVec<[Loc; 4]> = SmallVec::new();
        let mut moves = 0;
        for &(_, _, loc) in &self.copies {
            let batchable = matches!(loc, Loc::Reg(_) | Loc::Src(_) | Loc::Const(_));
            if !batchable || !batched.iter().any(|&b| same_register(b, loc)) {
                moves += 1;
                if batchable {
                    batched.push(loc);
                }
            }
        }
        moves
    }
}

impl Emitter<'_> {
    /// The cheapest way to gather `wanted` into a TEMP register holding
    /// some of its values, or else into free channels of any allocated
    /// register, if there is one.
    pub(super) fn gather_plan(&self, wanted: &[(usize, Operand)]) -> Result<Option<GatherPlan>, EmitError> {
        let Some(pos) = self.pos else { return Ok(None) };
        let locs: Vec<(usize, Value, Loc)> =
            wanted.iter().map(|&(p, o)| self.loc(o.value).map(|l| (p, o.value, l))).collect::<Result<_, _>>()?;
        let mut candidates: Vec<u32> = locs
            .iter()
            .filter_map(|&(_, _, l)| match l {
                Loc::Reg(r) if r.file == File::Temporary => Some(r.index),
                _ => None,
            })
            .collect();
        candidates.sort_unstable();
        candidates.dedup();
        let mut best: Option<GatherPlan> = None;
        for index in candidates {
            let Some(plan) = self.plan_into(index, pos, &locs) else { continue };
            let better = best.as_ref().is_none_or(|b| (plan.moves(), plan.free) < (b.moves(), b.free));
            if better {
                best = Some(plan);
            }
        }
        if best.is_none() {
            // No register holds any of them: the first whose free channels
            // take them all, rather than a scratch register past the others.
            best = (0..self.alloc.temp_count).find_map(|index| self.plan_into(index, pos, &locs));
        }
        Ok(best)
    }

    /// How to gather `locs` into TEMP register `index` at `pos`, if its
    /// free channels are enough.
    fn plan_into(&self, index: u32, pos: u32, locs: &[(usize, Value, Loc)]) -> Option<GatherPlan> {
        let slot = |chan: u8| RegChannel { file: File::Temporary, index, chan };
        let wants_zero = locs.iter().any(|&(_, v, _)| self.is_initial(v));
        let zero = if wants_zero { self.zero_channel(index) } else { None };
        let mut free: SmallVec<[u8; 4]> = (0..4u8)
            .filter(|&c| {
                // Not a channel whose zero a read at or after here still
                // needs (a phi copy of zero left out, or an operand of
                // this same instruction gathered already): the copies
                // come before the instruction.
                let trusted = self.zero_skips.iter().any(|&(s, before)| s == slot(c) && pos <= before);
                self.alloc.free_at(slot(c), pos)
                    && !self.gathered.contains(&slot(c))
                    && !self.written_here.contains(&slot(c))
                    && !trusted
                    && zero.is_none_or(|(z, _)| z != c)
            })
            .collect();
        let mut plan = GatherPlan {
            index,
            reads: SmallVec::new(),
            copies: SmallVec::new(),
            reused: SmallVec::new(),
            zero,
            free: free.len(),
        };
        for &(p, v, l) in locs {
            let chan = match l {
                Loc::Reg(r) if r == slot(r.chan) => r.chan,
                _ if zero.is_some() && self.is_initial(v) => zero.map_or(0, |(z, _)| z),
                _ => {
                    if let Some(&(c, _, _)) = plan.copies.iter().find(|&&(_, w, _)| w == v) {
                        c
                    } else if let Some(&c) = plan.reused.iter().find(|&&c| self.held_copy(slot(c), v)) {
                        c
                    } else if let Some(k) = free.iter().position(|&c| self.held_copy(slot(c), v)) {
                        let c = free.remove(k);
                        plan.reused.push(c);
                        c
                    } else {
                        if free.is_empty() {
                            return None;
                        }
                        let c = free.remove(0);
                        plan.copies.push((c, v, l));
                        c
                    }
                }
            };
            plan.reads.push((p, chan));
        }
        Some(plan)
    }

    /// Whether `v` is a register's initial zero (the source read a channel
    /// it never wrote).
    pub(super) fn is_initial(&self, v: Value) -> bool {
        matches!(self.func.def(v).op, Op::Initial) && self.func.ty(v) == Ty::B32
    }

    /// A channel of TEMP register `index` that still holds its initial zero
    /// here and, inside a loop, until the loop's end (a later write in the
    /// loop reaches here on the next round); with that position.
    pub(super) fn zero_channel(&self, index: u32) -> Option<(u8, u32)> {
        let (pos, block) = (self.pos?, self.cur_block?);
        let (excluded, loop_end) = self.layout.context.get(&block).cloned().unwrap_or_default();
        let before = loop_end.unwrap_or(pos).max(pos);
        let zero = |c: u8| {
            let slot = RegChannel { file: File::Temporary, index, chan: c };
            self.alloc.free_at(slot, pos)
                && self.alloc.untouched(slot, before, &excluded)
                && !self.gathered.contains(&slot)
                && !self.written_here.contains(&slot)
                && !self.gather_writes.iter().any(|&(s, at)| s == slot && at < before)
        };
        (0..4u8).find(|&c| zero(c)).map(|c| (c, before))
    }

    /// Gathers `wanted` into a TEMP register holding some of its values, as
    /// [`Self::gather_plan`] finds best; `None` when no register can.
    pub(super) fn gather_in_place(&mut self, wanted: &[(usize, Operand)]) -> Result<Option<SrcOperand>, EmitError> {
        let (Some(plan), Some(pos)) = (self.gather_plan(wanted)?, self.pos) else { return Ok(None) };
        let slot = |chan: u8| RegChannel { file: File::Temporary, index: plan.index, chan };
        self.gathered.extend(plan.reused.iter().map(|&c| slot(c)));
        let mut copies = plan.copies.to_vec();
        while !copies.is_empty() {
            let (_, _, first) = copies[0];
            let batchable = matches!(first, Loc::Reg(_) | Loc::Src(_) | Loc::Const(_));
            let (batch, rest): (Vec<_>, Vec<_>) = copies
                .iter()
                .enumerate()
                .partition(|&(k, &(_, _, l))| k == 0 || (batchable && same_register(first, l)));
            let batch: Vec<(u8, Value, Loc)> = batch.into_iter().map(|(_, &c)| c).collect();
            copies = rest.into_iter().map(|(_, &c)| c).collect();
            if batchable {
                let moves: Vec<PendingCopy> = batch.iter().map(|&(c, v, l)| (slot(c), l, CopyNote::of(v))).collect();
                self.copy_batch(&moves)?;
            } else {
                let (c, v, l) = batch[0];
                let s = self.single_src(l, c)?;
                self.mov_raw(slot(c), s, CopyNote::of(v))?;
            }
            for &(c, v, _) in &batch {
                self.gather_writes.push((slot(c), pos));
                self.gathered.push(slot(c));
                self.remember_copy(slot(c), v);
            }
        }
        if let Some((z, before)) = plan.zero {
            // Nothing may write the zero before the read is done with it.
            self.zero_skips.push((slot(z), before));
        }
        let mut swizzle = [0u8, 1, 2, 3];
        for &(p, c) in &plan.reads {
            swizzle[p] = c;
        }
        fill_unused(&mut swizzle, plan.reads.iter().copied());
        Ok(Some(SrcOperand {
            reg: Register::new(File::Temporary, plan.index as i32),
            swizzle,
            negate: false,
            absolute: false,
        }))
    }
}
