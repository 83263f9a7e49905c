//! What occupies each register channel, and when: the questions placement
//! asks (is a channel free over some ranges) and the answers it records.

use super::*;

impl Allocator<'_> {
    /// The value whose entry `v` shares in channel `chan`: `v` itself
    /// unless it aliases another there.
    pub(super) fn occupant(&self, v: Value, chan: u8) -> Value {
        self.alias_of.get(&(v, chan)).copied().unwrap_or(v)
    }

    /// Whether channel `chan` of a register is free over `ranges`,
    /// ignoring the occupants in `except` (values, or the values they
    /// alias).
    pub(super) fn free(&self, file: File, index: u32, chan: u8, ranges: &[Interval], except: &[Value]) -> bool {
        if self.is_reserved(file, index) {
            return false;
        }
        let excepted = |v: Value| except.iter().any(|&e| self.occupant(e, chan) == v);
        // Fast answers from a summary of the channel: everything in it ends
        // before the ranges start, or its latest occupant overlaps them.
        let Some(reg) = self.regs.get(file, index) else { return true };
        let Some(s) = reg.summary[chan as usize & 3] else { return true };
        if ranges.iter().all(|r| r.start > s.max_end) {
            return true;
        }
        if !excepted(s.last_value) && ranges.iter().any(|r| r.overlaps(s.last)) {
            return false;
        }
        let map = &reg.occupancy[chan as usize & 3];
        ranges.iter().all(|r| {
            // Occupants of one channel are disjoint, so the ones overlapping
            // `r` are the last ones starting before its end, up to the first
            // that ends before it starts.
            for (_, &(end, v)) in map.range(..=r.end).rev() {
                if end < r.start {
                    break;
                }
                if !excepted(v) {
                    return false;
                }
            }
            true
        })
    }

    /// Gives channel `chan` of a register to `v`, which aliases `of` there
    /// (a split of the pair `of`, or a pack with the half `of`): `v`'s
    /// ranges join the entries of the value `of` shares the channel with,
    /// so occupants stay disjoint.
    pub(super) fn take_alias(&mut self, file: File, index: u32, chan: u8, v: Value, of: Value) {
        let owner = self.occupant(of, chan);
        self.alias_of.insert((v, chan), owner);
        let ranges = self.ranges(v);
        let reg = self.regs.entry(file, index);
        let slot = &mut reg.occupancy[chan as usize & 3];
        for r in ranges {
            // The owner's entries overlapping or touching `r` merge with it.
            let (mut start, mut end) = (r.start, r.end);
            let touching: Vec<u32> = slot
                .range(..=r.end.saturating_add(1))
                .rev()
                .take_while(|(_, &(e, _))| e.saturating_add(1) >= r.start)
                .filter(|(_, &(_, o))| o == owner)
                .map(|(&s, _)| s)
                .collect();
            for s in touching {
                if let Some((e, _)) = slot.remove(&s) {
                    start = start.min(s);
                    end = end.max(e);
                }
            }
            slot.insert(start, (end, owner));
        }
        if let Some(s) = &mut reg.summary[chan as usize & 3] {
            s.max_end = s.max_end.max(ranges.iter().map(|r| r.end).max().unwrap_or(0));
        }
    }

    pub(super) fn take(&mut self, file: File, index: u32, chan: u8, v: Value) {
        let ranges = self.ranges(v);
        let reg = self.regs.entry(file, index);
        if let Some(&first) = ranges.first() {
            let s = reg.summary[chan as usize & 3].get_or_insert(Summary { max_end: 0, last: first, last_value: v });
            s.max_end = s.max_end.max(ranges.iter().map(|r| r.end).max().unwrap_or(0));
            s.last = first;
            s.last_value = v;
        }
        for r in ranges {
            let slot = &mut reg.occupancy[chan as usize & 3];
            // A phi sharing its argument's channel (`phi_coalesces`) has
            // points where the argument holds it already: entries stay
            // disjoint, which the packing's overlap test relies on.
            let covered =
                slot.range(..=r.start).next_back().is_some_and(|(&s, &(e, o))| o != v && s < r.start && r.end <= e);
            if covered {
                continue;
            }
            // Ranges of aliasing values may start at the same position.
            let entry = slot.entry(r.start).or_insert((r.end, v));
            entry.0 = entry.0.max(r.end);
        }
    }

    /// Extends `v`'s hold on `slot` up to position `at`.
    pub(super) fn occupy_until(&mut self, slot: RegChannel, v: Value, at: u32) {
        let v = self.occupant(v, slot.chan);
        if let Some(reg) = self.regs.get_mut(slot.file, slot.index) {
            if let Some(s) = &mut reg.summary[slot.chan as usize & 3] {
                s.max_end = s.max_end.max(at);
            }
            for (_, entry) in reg.occupancy[slot.chan as usize & 3].iter_mut() {
                if entry.1 == v {
                    entry.0 = entry.0.max(at);
                }
            }
        }
    }
}
