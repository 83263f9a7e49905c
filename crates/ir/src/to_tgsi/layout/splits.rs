//! Live ranges cut where a value is dead on some path: at the loop a
//! value is defined in and used after, at the ifs whose else arm holds
//! its last use, and at the breaks out of a loop after its last read.

use super::*;

/// A value's interval split at the loop it is defined in and used after:
/// the part inside the loop, the part after it, and the loop's id.
pub(super) type LoopSplit = (Interval, Interval, usize);

/// Loops: live at a loop's start, defined before it => live throughout it
/// (`loops` sorted by start).
///
/// A value reaching into a loop lives to the loop's end, which may reach
/// into further loops: the end grows to the latest end of the loops
/// starting inside, until none starts inside and ends later. One range
/// maximum answers each step (loops nest, so there are at most two), not
/// a walk over every loop inside (quadratic in nested loops).
pub(super) fn live_through_loops(main: &mut SecondaryMap<Value, Interval>, loops: &[Interval]) {
    let ends = RangeMax::new(loops.iter().map(|l| l.end).collect());
    for iv in main.values_mut() {
        let first = loops.partition_point(|l| l.start <= iv.start);
        loop {
            let last = loops.partition_point(|l| l.start <= iv.end);
            match ends.max(first, last) {
                Some(end) if end > iv.end => iv.end = end,
                _ => break,
            }
        }
    }
}

/// Maxima of the ranges of a list in constant time (a sparse table:
/// `levels[k][i]` is the maximum of the `2^k` items from `i`).
pub(super) struct RangeMax {
    pub(super) levels: Vec<Vec<u32>>,
}

impl RangeMax {
    pub(super) fn new(items: Vec<u32>) -> RangeMax {
        let mut levels = vec![items];
        let mut width = 1;
        // Level k has an item for each of the `len - 2^k + 1` starts.
        while let Some(prev) = levels.last() {
            if prev.len() <= width {
                break;
            }
            let next: Vec<u32> = (0..prev.len() - width).map(|i| prev[i].max(prev[i + width])).collect();
            levels.push(next);
            width *= 2;
        }
        RangeMax { levels }
    }

    /// The maximum of items `from..to`; `None` when the range is empty.
    pub(super) fn max(&self, from: usize, to: usize) -> Option<u32> {
        if from >= to {
            return None;
        }
        let k = (to - from).ilog2() as usize;
        let level = self.levels.get(k)?;
        Some(*level.get(from)?.max(level.get(to - (1 << k))?))
    }
}

/// Loops: a value defined inside a loop and used after it is dead on the
/// path round the loop after its last use inside (SSA: the next iteration
/// computes a new one), so inside the loop it lives only to its last use
/// there or the last exit that carries it. `loop_ranges` are the loops in
/// opening order, `breaks_of` the ends of the blocks breaking out of each.
pub(super) fn split_at_loop_exits(
    spans: &Spans,
    loop_ranges: &[Interval],
    breaks_of: &[Vec<u32>],
    loops: &[Interval],
) -> SecondaryMap<Value, LoopSplit> {
    let mut split: SecondaryMap<Value, LoopSplit> = SecondaryMap::default();
    // Loops in opening order have increasing starts; the innermost one
    // holding a position is among the last few starting before it (a
    // bounded look keeps this linear; missing a case only costs a copy).
    let starts: Vec<u32> = loop_ranges.iter().map(|l| l.start).collect();
    for (v, iv) in spans.main.iter() {
        let first_after = starts.partition_point(|&s| s <= iv.start);
        let inner = (first_after.saturating_sub(64)..first_after)
            .rev()
            .map(|id| (id, loop_ranges[id]))
            .find(|(_, l)| iv.start <= l.end);
        let Some((id, l)) = inner else { continue };
        if iv.end <= l.end {
            continue;
        }
        // Uses after the loop must come before the next loop around it
        // ends (a value leaving two loops at once keeps its interval).
        let enclosing_end = (id.saturating_sub(64)..id)
            .rev()
            .map(|o| loop_ranges[o])
            .find(|o| o.start < l.start && l.end < o.end)
            .map_or(u32::MAX, |o| o.end);
        if iv.end >= enclosing_end {
            continue;
        }
        let in_loop_uses = spans.uses.get(&v).into_iter().flatten().filter(|&&u| u <= l.end).max().copied();
        let exits = breaks_of[id].iter().copied().filter(|&at| at >= iv.start).max();
        let inner_end = in_loop_uses.into_iter().chain(exits).max().unwrap_or(iv.start).max(iv.start);
        // A last use inside a loop nested in this one (and entered
        // after the definition) is read again on that loop's next round.
        let inner_end = extend_through_loops(loops, iv.start, inner_end);
        if inner_end < l.end {
            split.insert(
                v,
                (Interval { start: iv.start, end: inner_end }, Interval { start: l.end + 1, end: iv.end }, id),
            );
        }
    }
    split
}

/// The intervals of a value live over `iv` and read at `reads`: a value
/// defined before an if whose last read is in the else arm is dead on the
/// then path after its last read there, so that part of the then arm is
/// left out. Applied again to what remains: the last read on the then path
/// may itself be in the else arm of an if nested there. `ifs` are the
/// (then, else) arms of every if, sorted by the start of the else arm.
pub(super) fn split_at_ifs(iv: Interval, reads: &[u32], ifs: &[(Interval, Interval)], loops: &[Interval]) -> Ranges {
    let mut main_part = iv;
    let mut else_parts = Ranges::new();
    let first_after = ifs.partition_point(|(_, e)| e.start <= iv.end);
    for &(t, e) in ifs[first_after.saturating_sub(64)..first_after].iter().rev() {
        if e.start <= iv.start {
            break;
        }
        if e.start <= main_part.end && main_part.end <= e.end && iv.start < t.start {
            let last_in_then =
                reads.iter().copied().filter(|&u| t.start <= u && u <= t.end).max().unwrap_or(t.start - 1);
            // A read inside a loop the value was defined before keeps it
            // live to that loop's end (the next round reads it again).
            let last_in_then = extend_through_loops(loops, iv.start, last_in_then);
            else_parts.push(Interval { start: e.start, end: main_part.end });
            main_part.end = last_in_then.max(iv.start);
        }
    }
    let mut ranges: Ranges = smallvec![main_part];
    ranges.extend(else_parts);
    ranges
}

/// A block that ends with `BRK` out of a loop, or with `CONT`.
#[derive(Clone, Copy, Debug)]
pub(super) struct Jump {
    /// The block's positions.
    pub(super) block: Interval,
    /// Where control goes: the first position after the loop for a
    /// break, the loop's start for a continue.
    pub(super) to: u32,
    /// The block ends with `CONT`: the copies at its end write the phis
    /// of the loop's head, the next round's values.
    pub(super) continues: bool,
}

/// Jumps: on the path through a block that leaves a loop with `BRK`, a
/// value live into the block and not live where the break goes (after
/// the loop) is dead after its last read in the block, so the rest of
/// the block is cut out of its ranges. Whatever is written there (the
/// copies into the phis after the loop, above all) may then take its
/// register: a value kept in one register through the loop needs no
/// copy into another at each break, and none back after the loop. The
/// same holds for a block that ends with `CONT` and a value not live at
/// the loop's start: a phi of the loop's head is rewritten by the copy at
/// the block's end (which stays in its ranges), so what it is computed
/// from may take its register.
///
/// Only the blocks jumping (at most [`MAX_JUMP_LOOK`] of them per
/// range, which keeps this linear: missing one only costs a copy) are
/// looked at; `jumps` are sorted by position.
pub(super) fn leave_out_jumps(ranges: &mut Ranges, reads: &[u32], jumps: &[Jump]) {
    let Some(live_from) = ranges.iter().map(|r| r.start).min() else { return };
    let live_at = |ranges: &Ranges, at: u32| ranges.iter().any(|r| r.start <= at && at <= r.end);
    let mut holes: SmallVec<[Interval; 2]> = SmallVec::new();
    for r in ranges.iter() {
        let first = jumps.partition_point(|x| x.block.start < r.start);
        for x in jumps[first..].iter().take_while(|x| x.block.end <= r.end).take(MAX_JUMP_LOOK) {
            // Live into the block (not written in it but by the copy into
            // a loop head's phi at a continue), dead where control goes.
            let end = if x.continues { x.block.end - 1 } else { x.block.end };
            let written_in = ranges.iter().any(|q| x.block.start < q.start && q.start <= end);
            if live_from >= x.block.start || written_in || live_at(ranges, x.to) {
                continue;
            }
            let last_read = reads.iter().copied().filter(|&u| x.block.start <= u && u <= end).max();
            let from = last_read.unwrap_or(x.block.start) + 1;
            if from <= end {
                holes.push(Interval { start: from, end });
            }
        }
    }
    for hole in holes {
        let mut out = Ranges::new();
        for r in ranges.iter().copied() {
            if !r.overlaps(hole) {
                out.push(r);
                continue;
            }
            if r.start < hole.start {
                out.push(Interval { start: r.start, end: hole.start - 1 });
            }
            if hole.end < r.end {
                out.push(Interval { start: hole.end + 1, end: r.end });
            }
        }
        *ranges = out;
    }
}

/// How many blocks ending with `BRK` or `CONT` [`leave_out_jumps`] looks at in
/// one range of a value.
const MAX_JUMP_LOOK: usize = 64;

/// `at`, or the end of the outermost loop holding `at` that starts after
/// `defined` (`loops` sorted by start).
pub(super) fn extend_through_loops(loops: &[Interval], defined: u32, at: u32) -> u32 {
    let (from, to) = (loops.partition_point(|l| l.start <= defined), loops.partition_point(|l| l.start <= at));
    loops[from..to.max(from)].iter().filter(|l| at <= l.end).map(|l| l.end).max().map_or(at, |end| end.max(at))
}

/// A switch's range and the ranges of its cases, each case that falls
/// through joined with the cases it falls into: a path through one such
/// chain leaves the switch without running the others.
pub(super) struct SwitchCases {
    pub(super) whole: Interval,
    pub(super) chains: Vec<Interval>,
}

impl SwitchCases {
    /// From the cases in order, each with whether it falls through.
    pub(super) fn new(whole: Interval, cases: &[(Interval, bool)]) -> SwitchCases {
        let mut chains: Vec<Interval> = Vec::new();
        let mut open = false;
        for &(case, falls_through) in cases {
            match chains.last_mut() {
                Some(chain) if open => chain.end = case.end,
                _ => chains.push(case),
            }
            open = falls_through;
        }
        SwitchCases { whole, chains }
    }
}

/// Where a value's main interval may be cut: the ifs (then and else arm),
/// the switches and the loops of the function, each sorted by start.
pub(super) struct Cuts<'a> {
    pub(super) ifs: &'a [(Interval, Interval)],
    pub(super) switches: &'a [SwitchCases],
    pub(super) loops: &'a [Interval],
}

impl Cuts<'_> {
    /// `iv` cut at the ifs ([`split_at_ifs`]), then its main part at the
    /// switch its last read is in ([`split_at_switch`]).
    pub(super) fn split(&self, iv: Interval, reads: &[u32]) -> Ranges {
        let ranges = split_at_ifs(iv, reads, self.ifs, self.loops);
        let main = ranges[0];
        let parts = split_at_switch(main, reads, self.switches, self.loops);
        if parts.len() == 1 {
            return ranges;
        }
        let mut out = parts;
        out.extend(ranges.into_iter().skip(1));
        out
    }
}

/// A value defined before a switch whose last read is in one of its cases
/// is dead on the paths through the earlier cases after its last read
/// there (each leaves the switch, and the value is read no more after
/// it): its interval keeps the part up to the switch's cases and, in each
/// earlier chain of cases, up to its last read there.
pub(super) fn split_at_switch(iv: Interval, reads: &[u32], switches: &[SwitchCases], loops: &[Interval]) -> Ranges {
    let after = switches.partition_point(|s| s.whole.start <= iv.end);
    // The innermost switch holding the last read, opened after the value.
    let holding = switches[..after].iter().rev().take(64).find(|s| {
        s.whole.start > iv.start && iv.end < s.whole.end && s.chains.first().is_some_and(|c| c.start <= iv.end)
    });
    let Some(sw) = holding else { return smallvec![iv] };
    let Some(k) = sw.chains.iter().position(|c| c.start <= iv.end && iv.end <= c.end) else { return smallvec![iv] };
    if k == 0 {
        return smallvec![iv];
    }
    let mut out: Ranges =
        smallvec![Interval { start: iv.start, end: sw.chains[0].start.saturating_sub(1).max(iv.start) }];
    for chain in &sw.chains[..k] {
        let last = reads.iter().copied().filter(|&u| chain.start <= u && u <= chain.end).max();
        if let Some(last) = last {
            let end = extend_through_loops(loops, iv.start, last);
            out.push(Interval { start: chain.start, end });
        }
    }
    out.push(Interval { start: sw.chains[k].start, end: iv.end });
    out
}
