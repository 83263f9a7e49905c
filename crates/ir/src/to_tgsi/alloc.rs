//! Register allocation for emission: each value gets a channel of a
//! register (or a channel pair for 64-bit values), chosen first where the
//! source program had it, then beside the values computed by the same
//! source instruction, then in the lowest free channel.
//!
//! Constants and direct reads of inputs, constants and system values need
//! no register: instructions read them where they are.

mod by_register;
mod pack;

use super::groups;
use super::indirect::store_target;
use super::layout::{Interval, Layout};
use super::use_lists::UseLists;
use crate::channels::{formula_chan, replicated_reads};
use crate::entity::SecondaryMap;
use crate::from_tgsi::is_value_file;
use crate::function::*;
use by_register::ByRegister;
use rustc_hash::FxHashMap as HashMap;
use smallvec::SmallVec;
use std::collections::BTreeMap;
use tgsi::File;

/// Where a value is during emission.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Loc {
    /// One channel of a register.
    Reg(RegChannel),
    /// A channel pair (0 = xy, 1 = zw) of a register.
    Pair { file: File, index: u32, pair: u8 },
    /// A 32-bit constant.
    Const(u32),
    /// A 64-bit constant.
    Const64(u64),
    /// A channel of an input, constant or system value.
    Src(Source),
    /// Anything: the channel is not read.
    Any,
    /// A load from an indirectly addressed register that its only user,
    /// from the same source instruction, reads in place.
    Folded(Inst),
}

/// The occupants of each channel of a register: start -> (end, value).
/// Occupants of one channel never overlap: a value that aliases another
/// (a split of a pair, a pack of two halves) widens that value's entry
/// instead of adding its own (see `Allocator::take_alias`), so a search
/// may stop at the first occupant that ends before what it looks for.
type Occupancy = [BTreeMap<u32, (u32, Value)>; 4];

/// The register channels chosen for a group's members (at most four).
type Slots = SmallVec<[RegChannel; 4]>;

/// What `free` can answer from without searching a channel.
#[derive(Clone, Copy)]
struct Summary {
    /// The latest end of anything in the channel.
    max_end: u32,
    /// The main range of the latest value placed in it.
    last: Interval,
    /// That value (the value it aliases, if it aliases one).
    last_value: Value,
}

/// What the allocator keeps of a register.
#[derive(Default)]
struct Reg {
    occupancy: Occupancy,
    summary: [Option<Summary>; 4],
}

pub(crate) struct Allocation {
    pub loc: SecondaryMap<Value, Loc>,
    /// Further channels of the same register a replicated-scalar result is
    /// also written to (outputs it is stored to).
    pub also: SecondaryMap<Value, u8>,
    /// One past the highest TEMP register used.
    pub temp_count: u32,
    /// What occupies each channel of each register, and when.
    occupancy: ByRegister<[Occupants; 4]>,
    /// TEMP registers holding arrays.
    reserved: Vec<(u32, u32)>,
}

/// The occupants of one channel once allocation is done, by start, with
/// the latest end so far: what the questions of emission need, each in
/// a few binary searches.
#[derive(Default)]
struct Occupants {
    starts: Vec<u32>,
    ends: Vec<u32>,
    /// `max_end[k]`: the latest end of occupants `0..=k`.
    max_end: Vec<u32>,
}

impl Occupants {
    fn new(map: &BTreeMap<u32, (u32, Value)>) -> Occupants {
        let mut o = Occupants {
            starts: Vec::with_capacity(map.len()),
            ends: Vec::with_capacity(map.len()),
            max_end: Vec::with_capacity(map.len()),
        };
        let mut latest = 0;
        for (&start, &(end, _)) in map {
            latest = latest.max(end);
            o.starts.push(start);
            o.ends.push(end);
            o.max_end.push(latest);
        }
        o
    }

    /// How many occupants start before `pos`.
    fn starting_before(&self, pos: u32) -> usize {
        self.starts.partition_point(|&s| s < pos)
    }
}

impl Allocation {
    /// Whether `slot` holds no live value at `pos`.
    pub fn free_at(&self, slot: RegChannel, pos: u32) -> bool {
        let reserved = in_ranges(&self.reserved, slot.index);
        if slot.file == File::Temporary && (slot.index >= self.temp_count || reserved) {
            return false;
        }
        let Some(occ) = self.occupancy.get(slot.file, slot.index) else { return true };
        let occ = &occ[slot.chan as usize & 3];
        // Every occupant starting at or before `pos` that ends at or after
        // it holds the channel there.
        match occ.starting_before(pos.saturating_add(1)) {
            0 => true,
            n => occ.max_end[n - 1] < pos,
        }
    }

    /// Whether `slot` is never written before `before` (on paths that do not
    /// run through `excluded` positions): it still holds its initial zero
    /// there. Writes of the phi the question is asked for count too: around
    /// a loop its register holds the last round's value, not zero.
    ///
    /// Every occupant starting before `before` must lie inside one of the
    /// `excluded` intervals; they are taken outermost first, so the answer
    /// costs a few binary searches per interval, not a scan of the
    /// occupants (which made emission quadratic in nested IFs). Partly
    /// overlapping intervals (which the layout does not make) only make the
    /// answer `false`, which costs a copy, never a wrong result.
    pub fn untouched(&self, slot: RegChannel, before: u32, excluded: &[Interval]) -> bool {
        let Some(occ) = self.occupancy.get(slot.file, slot.index) else { return true };
        let occ = &occ[slot.chan as usize & 3];
        let n = occ.starting_before(before);
        let mut outer: Vec<Interval> = excluded.to_vec();
        outer.sort_by_key(|x| (x.start, std::cmp::Reverse(x.end)));
        // Occupants `0..i` are known to lie inside the intervals seen.
        let mut i = 0;
        let mut covered_to: Option<u32> = None;
        for x in outer {
            if i == n {
                break;
            }
            if covered_to.is_some_and(|c| x.end <= c) {
                continue; // inside an interval seen already
            }
            // Occupants starting before `x` are in no interval.
            if occ.starting_before(x.start).min(n) > i {
                return false;
            }
            let inside = occ.starting_before(x.end.saturating_add(1)).min(n);
            if inside > i {
                if occ.max_end[inside - 1] > x.end {
                    return false;
                }
                i = inside;
            }
            covered_to = Some(x.end);
        }
        i == n
    }
}

struct Allocator<'a> {
    func: &'a Function,
    layout: &'a Layout,
    regs: ByRegister<Reg>,
    /// The value whose channel an aliasing value shares, by (value,
    /// channel): a split's whole, a pack's half (followed to the first).
    alias_of: HashMap<(Value, u8), Value>,
    reserved: Vec<(u32, u32)>,
    loc: SecondaryMap<Value, Loc>,
    also: SecondaryMap<Value, u8>,
    uses: UseLists,
    /// The values branch conditions and switch selectors read (no
    /// instruction reads them there).
    construct_reads: rustc_hash::FxHashSet<Value>,
    /// Register chosen for each source instruction's results.
    group_reg: HashMap<u32, (File, u32)>,
    /// The values computed by consecutive ALU operations of one source
    /// instruction: emission writes them as one instruction when they share
    /// a register, so they are placed together.
    groups: SecondaryMap<Value, std::rc::Rc<Vec<Value>>>,
    /// The values stored by each run of consecutive stores to one output
    /// (emission writes such a run as one MOV when it can).
    store_runs: SecondaryMap<Inst, std::rc::Rc<Vec<Value>>>,
    /// What writing an output early must not pass: [`OutputWrites`].
    output_writes: OutputWrites,
    /// [`Policy::Origins`].
    origins_first: bool,
}

/// How values are placed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Policy {
    /// Where the fewest instructions and registers are needed: beside the
    /// values read with it, straight into outputs, registers packed into
    /// the free channels of others.
    Packed,
    /// In the source's own register channel first (the IR keeps each
    /// value's origin), as the source had it: emission's fallback when
    /// the packed allocation comes out larger than the source.
    Origins,
}

pub(crate) fn allocate(func: &Function, layout: &Layout, policy: Policy) -> Allocation {
    let placed: Vec<Inst> = layout.inst_pos.keys().collect();
    let uses = UseLists::new(func, &placed);
    drop(placed);
    let reserved = merged_ranges(
        func.arrays
            .iter()
            .filter(|(_, a)| a.file == File::Temporary)
            .map(|(_, a)| (a.first, a.first + a.len - 1))
            .collect(),
    );
    let mut a = Allocator {
        func,
        layout,
        regs: ByRegister::default(),
        alias_of: HashMap::default(),
        reserved,
        loc: SecondaryMap::with_capacity(func.values.len()),
        also: SecondaryMap::default(),
        uses,
        construct_reads: crate::walk::construct_operands(&func.body).map(|o| o.value).collect(),
        group_reg: HashMap::default(),
        groups: groups::find_groups(func),
        store_runs: groups::find_store_runs(func),
        output_writes: OutputWrites::new(func, layout),
        origins_first: policy == Policy::Origins,
    };
    let mut order: Vec<(u32, Value)> =
        layout.ranges.iter().map(|(v, r)| (r.first().map_or(0, |i| i.start), v)).collect();
    order.sort();
    for (_, v) in order {
        if !a.loc.contains_key(&v) {
            a.place(v);
        }
    }
    if policy == Policy::Packed {
        a.pack_registers();
    }
    let temp_count = a
        .regs
        .indices(File::Temporary)
        .map(|i| i + 1)
        .chain(a.reserved.iter().map(|&(_, last)| last + 1))
        .max()
        .unwrap_or(0);
    let occupancy = a.regs.map(|reg| reg.occupancy.each_ref().map(Occupants::new));
    Allocation { loc: a.loc, also: a.also, temp_count, occupancy, reserved: a.reserved }
}

impl<'a> Allocator<'a> {
    fn ranges(&self, v: Value) -> &'a [Interval] {
        self.layout.ranges.get(&v).map_or(&[], |r| r.as_slice())
    }

    /// TEMP indices from 0 up, skipping the ranges arrays hold (no value
    /// may take them).
    fn unreserved_temps(&self) -> impl Iterator<Item = u32> + '_ {
        unreserved(&self.reserved)
    }

    fn is_reserved(&self, file: File, index: u32) -> bool {
        file == File::Temporary && in_ranges(&self.reserved, index)
    }

    /// The value whose entry `v` shares in channel `chan`: `v` itself
    /// unless it aliases another there.
    fn occupant(&self, v: Value, chan: u8) -> Value {
        self.alias_of.get(&(v, chan)).copied().unwrap_or(v)
    }

    /// Whether channel `chan` of a register is free over `ranges`,
    /// ignoring the occupants in `except` (values, or the values they
    /// alias).
    fn free(&self, file: File, index: u32, chan: u8, ranges: &[Interval], except: &[Value]) -> bool {
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
    fn take_alias(&mut self, file: File, index: u32, chan: u8, v: Value, of: Value) {
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

    fn take(&mut self, file: File, index: u32, chan: u8, v: Value) {
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
            // Ranges of aliasing values may start at the same position.
            let entry = slot.entry(r.start).or_insert((r.end, v));
            entry.0 = entry.0.max(r.end);
        }
    }

    /// Whether every use of `v` stores it to output channel `index.chan`:
    /// enough for a value the source itself wrote there.
    fn only_stored_to(&self, v: Value, index: u32, chan: u8) -> bool {
        let uses = self.uses.get(&v).unwrap_or_default();
        !uses.is_empty() && uses.iter().all(|&i| {
            let plain = self.func.insts[i].args.first() == Some(&Operand::new(v));
            plain
                && matches!(self.func.insts[i].op, Op::StoreOutput { index: oi, chan: oc } if oi == index && oc == chan)
        })
    }

    /// Whether nothing writes channels `mask` of output `index`, or reads
    /// outputs, while `v` would be there: from the first write of its
    /// register to the end of its life, its own stores aside.
    fn output_clear(&self, v: Value, index: u32, mask: u8) -> bool {
        let def = self.func.values[v].def;
        let Some(&def_pos) = self.layout.inst_pos.get(&def) else { return false };
        let ranges = self.ranges(v);
        let from = ranges.iter().map(|r| r.start).fold(def_pos, u32::min);
        let uses = self.uses.get(&v).unwrap_or_default();
        let last = uses.iter().filter_map(|u| self.layout.inst_pos.get(u)).copied().fold(def_pos, u32::max);
        let to = ranges.iter().map(|r| r.end).fold(last, u32::max);
        let own = |pos: u32| uses.iter().any(|u| self.layout.inst_pos.get(u) == Some(&pos));
        self.output_writes.clear_between(index, mask, from, to, own)
    }

    /// The output register and channels `v` can be computed straight into:
    /// every use of `v` stores it, unmodified, to channels of one output,
    /// later in the region defining it, and nothing from the first write of its
    /// register (a phi's is at the ends of its predecessors) to the end of
    /// its life writes those channels or reads outputs (another store, an
    /// indirect output access, an EMIT or other side effect), so on every
    /// path the output holds what the stores would leave.
    fn output_home(&self, v: Value) -> Option<(u32, u8)> {
        let def = self.func.values[v].def;
        let &def_pos = self.layout.inst_pos.get(&def)?;
        let uses = self.uses.get(&v)?;
        let mut index = None;
        let mut mask = 0u8;
        for &u in uses {
            let data = &self.func.insts[u];
            let Op::StoreOutput { index: i, chan } = data.op else { return None };
            if index.is_some_and(|j| j != i) || data.args.first() != Some(&Operand::new(v)) {
                return None;
            }
            let &at = self.layout.inst_pos.get(&u)?;
            if at <= def_pos || self.region_of(u) != self.region_of(def) {
                return None;
            }
            index = Some(i);
            mask |= 1 << chan;
        }
        let index = index?;
        self.output_clear(v, index, mask).then_some((index, mask))
    }

    /// The output channel `v` can be computed straight into as the
    /// argument of a phi that is stored there ([`Self::output_home`]):
    /// `v`'s only use is that phi, from predecessors that are the block
    /// defining `v`, and nothing over `v`'s life writes that channel or
    /// reads outputs.
    fn phi_output_home(&self, v: Value) -> Option<(u32, u8)> {
        let home = self.phi_argument_home(v)?;
        let &phi = self.uses.get(&v)?.first()?;
        let phi_value = self.func.insts[phi].results[0];
        (self.phi_args_fit_output(phi) && self.store_run_fits_output(phi_value)).then_some(home)
    }

    /// Whether every argument of `phi` can be in its output channel with
    /// it, or needs a copy whatever the phi's register: otherwise the
    /// phi is better coalesced with the arguments in registers.
    fn phi_args_fit_output(&self, phi: Inst) -> bool {
        self.func.insts[phi].args.iter().all(|arg| match self.loc.get(&arg.value) {
            Some(Loc::Reg(r)) => r.file == File::Output,
            Some(Loc::Pair { .. } | Loc::Folded(_)) => false,
            Some(_) => true,
            None => self.phi_argument_home(arg.value).is_some(),
        })
    }

    /// Whether the other values stored with `v` (its run of stores to one
    /// output) can be in the output too: else the run needs a MOV anyway,
    /// and a phi is better left with its arguments.
    fn store_run_fits_output(&self, v: Value) -> bool {
        let Some(&store) = self.uses.get(&v).and_then(|u| u.first()) else { return false };
        let Some(run) = self.store_runs.get(&store) else { return true };
        run.iter().all(|&w| match self.loc.get(&w) {
            Some(Loc::Reg(r)) => r.file == File::Output,
            Some(Loc::Pair { .. } | Loc::Folded(_)) => false,
            Some(_) => true,
            None => {
                let def = self.func.values[w].def;
                let phi = matches!(self.func.insts[def].op, Op::Phi { .. });
                self.output_channels(w).is_some() && (!phi || self.phi_args_fit_output(def))
            }
        })
    }

    /// [`Self::phi_output_home`] apart from the phi's other arguments.
    fn phi_argument_home(&self, v: Value) -> Option<(u32, u8)> {
        let uses = self.uses.get(&v)?;
        let &phi = uses.first()?;
        if uses.iter().any(|&u| u != phi) {
            return None;
        }
        let data = &self.func.insts[phi];
        let Op::Phi { preds } = &data.op else { return None };
        let (index, mask) = self.output_home(data.results[0])?;
        let def = self.func.values[v].def;
        let def_block = self.block_of(def)?;
        let from_own_block =
            data.args.iter().zip(preds).filter(|(a, _)| a.value == v).all(|(a, &p)| !a.neg && !a.abs && p == def_block);
        if !from_own_block || mask.count_ones() != 1 || matches!(self.func.insts[def].op, Op::Phi { .. }) {
            return None;
        }
        let &def_pos = self.layout.inst_pos.get(&def)?;
        let to = self.ranges(v).iter().map(|r| r.end).fold(def_pos, u32::max);
        self.output_writes.clear_between(index, mask, def_pos, to, |_| false).then_some((index, mask))
    }

    /// Where `v` can be computed straight into an output: the output it
    /// is stored to, or the one the phi it feeds is stored to.
    fn output_channels(&self, v: Value) -> Option<(u32, u8)> {
        self.output_home(v).or_else(|| self.phi_output_home(v))
    }

    fn block_of(&self, inst: Inst) -> Option<Block> {
        self.output_writes.block.get(&inst).copied()
    }

    /// The region (list of nodes) holding `inst`'s block.
    fn region_of(&self, inst: Inst) -> Option<u32> {
        self.output_writes.region.get(&self.block_of(inst)?).copied()
    }

    fn allowed(&self, v: Value, reg: RegChannel) -> bool {
        match reg.file {
            File::Temporary => !self.is_reserved(reg.file, reg.index),
            File::Output => {
                // Only where the value is stored: stored to other channels
                // too, they would be copied from the output, which a
                // driver may not read.
                self.output_channels(v).is_some_and(|(i, m)| i == reg.index && m == 1 << reg.chan)
                    || (self.func.def(v).origin.dst == Some(reg)
                        && self.only_stored_to(v, reg.index, reg.chan)
                        && self.output_clear(v, reg.index, 1 << reg.chan))
                    || self.overwritten_output(v, reg)
            }
            File::Address => true,
            _ => false,
        }
    }

    /// Whether `v`, which nothing reads, may be written into output
    /// channel `reg`, where the source wrote it: a later store of its
    /// block writes the channel again before anything reads or emits the
    /// outputs, so no one sees it there.
    fn overwritten_output(&self, v: Value, reg: RegChannel) -> bool {
        let def = self.func.values[v].def;
        let (Some(&at), Some(block)) = (self.layout.inst_pos.get(&def), self.block_of(def)) else { return false };
        if self.func.def(v).origin.dst != Some(reg) || !self.uses.get(&v).unwrap_or_default().is_empty() {
            return false;
        }
        let w = &self.output_writes;
        let Some(stores) = w.stores.get(&(reg.index, reg.chan)) else { return false };
        let Some(&(next, _)) = stores.iter().find(|&&(p, b)| p > at && b == block) else { return false };
        let k = w.barriers.partition_point(|&(p, _, _)| p <= at);
        w.barriers[k..].iter().take_while(|&&(p, _, _)| p < next).next().is_none()
    }

    fn place(&mut self, v: Value) {
        let def = self.func.values[v].def;
        let data = &self.func.insts[def];
        match &data.op {
            Op::Initial => {
                self.loc.insert(v, Loc::Const(0));
            }
            Op::Undef => {
                self.loc.insert(v, Loc::Any);
            }
            Op::Const(bits) => {
                let loc =
                    if self.func.values[v].ty == Ty::B64 { Loc::Const64(*bits) } else { Loc::Const(*bits as u32) };
                self.loc.insert(v, loc);
            }
            Op::Read(s) => {
                self.loc.insert(v, Loc::Src(*s));
            }
            Op::Opaque { .. } => self.place_opaque(def),
            Op::LoadIndirect { .. } | Op::ArrayLoad { .. } if self.foldable(v) => {
                self.loc.insert(v, Loc::Folded(def));
                // The index must stay in its register until the user reads.
                let user = self.uses.of(v)[0];
                let at = self.layout.inst_pos.get(&user).copied().unwrap_or(0);
                for arg in self.func.insts[def].args.clone() {
                    if let Some(Loc::Reg(r)) = self.loc.get(&arg.value).copied() {
                        self.occupy_until(r, arg.value, at);
                    }
                }
            }
            Op::Split { hi } => {
                let hi = *hi;
                let whole = data.args[0].value;
                if let Some(Loc::Pair { file, index, pair }) = self.loc.get(&whole).copied() {
                    let chan = 2 * pair + hi as u8;
                    let ranges = self.ranges(v);
                    if self.free(file, index, chan, ranges, &[whole]) {
                        self.take_alias(file, index, chan, v, whole);
                        self.loc.insert(v, Loc::Reg(RegChannel { file, index, chan }));
                        return;
                    }
                }
                self.place_scalar(v);
            }
            Op::Pack => {
                let (lo, hi) = (data.args[0].value, data.args[1].value);
                if let (Some(Loc::Reg(l)), Some(Loc::Reg(h))) = (self.loc.get(&lo).copied(), self.loc.get(&hi).copied())
                {
                    if l.file == h.file && l.index == h.index && l.chan % 2 == 0 && h.chan == l.chan + 1 {
                        let ranges = self.ranges(v);
                        if self.free(l.file, l.index, l.chan, ranges, &[lo])
                            && self.free(l.file, l.index, h.chan, ranges, &[hi])
                        {
                            self.take_alias(l.file, l.index, l.chan, v, lo);
                            self.take_alias(l.file, l.index, h.chan, v, hi);
                            self.loc.insert(v, Loc::Pair { file: l.file, index: l.index, pair: l.chan / 2 });
                            return;
                        }
                    }
                }
                self.place_pair(v);
            }
            _ if self.func.values[v].ty == Ty::B64 => self.place_pair(v),
            _ => self.place_scalar(v),
        }
    }

    /// Whether a load can be read in place by its only user: an operation
    /// (or a 2-D output store) of the same source instruction, with the
    /// index in an ADDR register.
    fn foldable(&self, v: Value) -> bool {
        let def = self.func.def(v);
        let Some(uses) = self.uses.get(&v) else { return false };
        // A branch condition reading it too would read it where the index
        // may have changed.
        let [user] = uses else { return false };
        if self.construct_reads.contains(&v) {
            return false;
        }
        let u = &self.func.insts[*user];
        let same_source = u.origin.inst.is_some() && u.origin.inst == def.origin.inst;
        // A store reads it too, unless it may write what it loads: the
        // channels of one instruction can be written by several.
        let store_of_other_memory = matches!(u.op, Op::StoreIndirect { .. })
            && matches!(def.op, Op::LoadIndirect { reg, .. } if reg.file != File::Output);
        let reads_it = matches!(u.op, Op::Alu { .. } | Op::Opaque { .. }) || store_of_other_memory;
        let index_in_addr =
            def.args.iter().all(|a| matches!(self.loc.get(&a.value), Some(Loc::Reg(r)) if r.file == File::Address));
        let read_later = !same_source && reads_it && self.read_later_unchanged(self.func.values[v].def, *user);
        (same_source || read_later) && reads_it && index_in_addr && self.layout.inst_pos.contains_key(user)
    }

    /// Whether a load of a file nothing writes (constants, inputs,
    /// immediates, system values) reads the same at `user`, later in its
    /// block, as where it is: no address register is written between.
    fn read_later_unchanged(&self, load: Inst, user: Inst) -> bool {
        let Op::LoadIndirect { reg, .. } = self.func.insts[load].op else { return false };
        let read_only = matches!(reg.file, File::Constant | File::Input | File::Immediate | File::SystemValue);
        let (Some(block), Some(user_block)) = (self.block_of(load), self.block_of(user)) else { return false };
        if !read_only || block != user_block {
            return false;
        }
        let insts = &self.func.blocks[block].insts;
        let (Some(from), Some(to)) = (insts.iter().position(|&i| i == load), insts.iter().position(|&i| i == user))
        else {
            return false;
        };
        from < to
            && insts[from + 1..to].iter().all(|&i| {
                let d = &self.func.insts[i];
                d.origin.dst.is_none_or(|o| o.file != File::Address)
                    && !matches!(
                        d.op,
                        Op::Alu { opcode: tgsi::Opcode::Arl | tgsi::Opcode::Uarl | tgsi::Opcode::Arr, .. }
                    )
            })
    }

    /// Extends `v`'s hold on `slot` up to position `at`.
    fn occupy_until(&mut self, slot: RegChannel, v: Value, at: u32) {
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

    /// Channels a 32-bit result may go to: any, but for an opcode whose
    /// channels compute different formulas (DST, LIT, EXP, LOG, ...) only
    /// those computing its own, since the instruction computes the formula
    /// of the channel it writes.
    fn allowed_chans(&self, v: Value) -> u8 {
        match self.func.def(v).op {
            Op::Alu { opcode, chan } if opcode.info().mode == tgsi::ChannelMode::ChannelDependent => {
                (0..4u8).filter(|&c| formula_chan(opcode, c) == formula_chan(opcode, chan)).fold(0, |m, c| m | 1 << c)
            }
            _ => 0b1111,
        }
    }

    /// The output register and channels a result can be written to
    /// directly by its instruction, with every channel it is stored to: a
    /// replicated-scalar result stored only to channels of one output, or
    /// a 32-bit component-wise result stored only to several channels of
    /// one output (one scalar broadcast, as `coalesce` leaves them; its
    /// instruction reads each operand through a broadcast swizzle).
    ///
    /// A channel-dependent result (LIT, UP2H, ...) qualifies like a
    /// component-wise one when every channel it is stored to computes the
    /// same formula as its own ([`formula_chan`]).
    fn broadcast_output(&self, v: Value) -> Option<(u32, u8)> {
        let data = self.func.def(v);
        let Op::Alu { opcode, chan } = data.op else { return None };
        let info = opcode.info();
        let componentwise = info.mode == tgsi::ChannelMode::Componentwise && !info.is_64bit();
        let dependent = info.mode == tgsi::ChannelMode::ChannelDependent && !info.is_64bit();
        if info.mode != tgsi::ChannelMode::Replicate && !componentwise && !dependent {
            return None;
        }
        let uses = self.uses.get(&v).unwrap_or_default();
        let mut index = None;
        let mut mask = 0u8;
        for &u in uses {
            // A store with modifiers writes another value than `v`.
            let plain = self.func.insts[u].args.first() == Some(&Operand::new(v));
            match self.func.insts[u].op {
                Op::StoreOutput { index: i, chan } if plain && index.is_none_or(|j| j == i) => {
                    index = Some(i);
                    mask |= 1 << chan;
                }
                _ => return None,
            }
        }
        // One channel is an ordinary component-wise result: placed with the
        // rest of its instruction.
        if (componentwise || dependent) && mask.count_ones() < 2 {
            return None;
        }
        if dependent && (0..4u8).any(|c| mask & (1 << c) != 0 && formula_chan(opcode, c) != formula_chan(opcode, chan))
        {
            return None;
        }
        index.map(|i| (i, mask))
    }

    /// Places a result [`Self::broadcast_output`] allows in its output
    /// channels, when they are free.
    fn place_replicated_output(&mut self, v: Value) -> bool {
        let Some((index, mask)) = self.broadcast_output(v) else { return false };
        if !self.output_clear(v, index, mask) {
            return false;
        }
        let ranges = self.ranges(v);
        let chans: Vec<u8> = (0..4).filter(|c| mask & (1 << c) != 0).collect();
        let Some(&first) = chans.first() else { return false };
        if !chans.iter().all(|&c| self.free(File::Output, index, c, ranges, &[])) {
            return false;
        }
        for &c in &chans {
            self.take(File::Output, index, c, v);
        }
        self.loc.insert(v, Loc::Reg(RegChannel { file: File::Output, index, chan: first }));
        self.also.insert(v, mask & !(1 << first));
        true
    }

    /// The TEMP registers that, for some use of `v`, hold every already
    /// placed register value read in the same operand as `v`: placed
    /// there too, `v` needs no gathering copy for that use.
    fn partner_registers(&self, v: Value) -> Vec<u32> {
        let mut out: Vec<u32> = Vec::new();
        for &u in self.uses.get(&v).unwrap_or_default() {
            let mut regs: Vec<u32> = Vec::new();
            for p in self.operand_partners(u, v) {
                match self.loc.get(&p) {
                    Some(Loc::Reg(r)) if r.file == File::Temporary => regs.push(r.index),
                    Some(Loc::Reg(_) | Loc::Pair { .. }) => regs.push(u32::MAX),
                    _ => {}
                }
            }
            regs.sort_unstable();
            regs.dedup();
            if let [index] = regs[..] {
                if index != u32::MAX && !out.contains(&index) {
                    out.push(index);
                }
            }
        }
        out
    }

    /// The values instruction `u` reads in the same source operand as `v`
    /// (with the other operations written with it as one instruction).
    fn operand_partners(&self, u: Inst, v: Value) -> Vec<Value> {
        let data = &self.func.insts[u];
        let positions = || data.args.iter().enumerate().filter(|(_, a)| a.value == v).map(|(k, _)| k);
        let mut out = Vec::new();
        match &data.op {
            Op::Alu { opcode, .. } if !opcode.info().is_64bit() => match opcode.info().mode {
                tgsi::ChannelMode::Componentwise => {
                    let members = data.results.first().and_then(|r| self.groups.get(r));
                    let members: Vec<Inst> =
                        members.map_or(vec![u], |g| g.iter().map(|&m| self.func.values[m].def).collect());
                    for k in positions() {
                        out.extend(members.iter().filter_map(|&m| self.func.insts[m].args.get(k)).map(|a| a.value));
                    }
                }
                tgsi::ChannelMode::Replicate => {
                    let reads = replicated_reads(*opcode);
                    for k in positions() {
                        let Some(&(src, _)) = reads.get(k) else { continue };
                        let same_src = reads.iter().zip(&data.args).filter(|((s, _), _)| *s == src);
                        out.extend(same_src.map(|(_, a)| a.value));
                    }
                }
                // Every channel of every source, four arguments a source.
                tgsi::ChannelMode::ChannelDependent => {
                    for k in positions() {
                        out.extend(data.args.iter().skip(k / 4 * 4).take(4).map(|a| a.value));
                    }
                }
                _ => {}
            },
            Op::Opaque { .. } => {
                for k in positions() {
                    out.extend(data.args.iter().skip(k / 4 * 4).take(4).map(|a| a.value));
                }
            }
            Op::StoreOutput { .. } => {
                if let Some(run) = self.store_runs.get(&u) {
                    out.extend(run.iter().copied());
                }
            }
            _ => {}
        }
        out.retain(|&p| p != v);
        out
    }

    fn place_scalar(&mut self, v: Value) {
        if self.origins_first && self.place_at_origin(v) {
            return;
        }
        let whole = self.groups.get(&v).is_some_and(|g| !self.split_pays(g));
        if !whole && self.place_replicated_output(v) {
            return;
        }
        if self.place_group(v, whole) {
            return;
        }
        let ranges = self.ranges(v);
        let data = self.func.def(v);
        let chans = self.allowed_chans(v);
        let mut candidates: Vec<RegChannel> = Vec::new();
        let is_phi = matches!(data.op, Op::Phi { .. });
        // Coalescing: a phi with its arguments (first one in the source's
        // register), an argument with its phi.
        if let Op::Phi { .. } = data.op {
            for arg in &data.args {
                if let Some(Loc::Reg(r)) = self.loc.get(&arg.value) {
                    candidates.push(*r);
                }
            }
            candidates.sort_by_key(|&r| Some(r) != data.origin.dst);
        }
        // Computed straight into the output it is stored to: no copy. A
        // phi only when its arguments need no register of their own (a
        // phi coalesced with them costs fewer copies).
        let def = self.func.values[v].def;
        let phi_fits = |a: &Self| a.phi_args_fit_output(def) && a.store_run_fits_output(v);
        if let Some((index, mask)) = self.output_channels(v).filter(|_| !is_phi || phi_fits(self)) {
            if mask.count_ones() == 1 {
                candidates.insert(0, RegChannel { file: File::Output, index, chan: mask.trailing_zeros() as u8 });
            }
        }
        // Beside the values an operand reads with it: no gathering then.
        let preferred = data.origin.dst.map_or(0, |o| o.chan);
        for index in self.partner_registers(v) {
            candidates.extend((0..4).map(|k| RegChannel { file: File::Temporary, index, chan: (preferred + k) % 4 }));
        }
        if let Some(o) = data.origin.dst {
            candidates.push(o);
        }
        for &u in self.uses.get(&v).unwrap_or_default() {
            if let Op::Phi { .. } = self.func.insts[u].op {
                if let Some(Loc::Reg(r)) = self.loc.get(&self.func.insts[u].results[0]) {
                    candidates.push(*r);
                }
            }
        }
        if let Some(src_inst) = data.origin.inst {
            if let Some(&(file, index)) = self.group_reg.get(&src_inst) {
                let preferred = data.origin.dst.map_or(0, |o| o.chan);
                for k in 0..4 {
                    candidates.push(RegChannel { file, index, chan: (preferred + k) % 4 });
                }
            }
        }
        // Arguments computed into the phi's output for it end where the
        // phi's copies are: they share the channel.
        let mut args_in_output: Vec<Value> = Vec::new();
        if let Op::Phi { .. } = data.op {
            args_in_output.extend(data.args.iter().map(|a| a.value).filter(|&a| self.phi_output_home(a).is_some()));
        }
        for c in candidates {
            let except = if c.file == File::Output { &args_in_output[..] } else { &[] };
            if chans & (1 << c.chan) != 0
                && self.allowed(v, c)
                && self.free(c.file, c.index, c.chan, ranges, except)
                && !self.clobbers_group_read(v, c)
            {
                return self.assign(v, c);
            }
        }
        let file =
            if data.origin.dst.is_some_and(|o| o.file == File::Address) { File::Address } else { File::Temporary };
        // TEMP registers that arrays hold are never free: stepped over, not
        // asked about one by one (a thousand arrays made this quadratic).
        let indices: Box<dyn Iterator<Item = u32>> = match file {
            File::Temporary => Box::new(self.unreserved_temps()),
            _ => Box::new(0..),
        };
        let first = self.stored_chan(v).unwrap_or(0);
        let found = indices.flat_map(|index| (0..4u8).map(move |k| (index, (first + k) % 4))).find(|&(index, chan)| {
            chans & (1 << chan) != 0
                && self.free(file, index, chan, ranges, &[])
                && !self.clobbers_group_read(v, RegChannel { file, index, chan })
        });
        if let Some((index, chan)) = found {
            self.assign(v, RegChannel { file, index, chan });
        }
    }

    /// Places `v`, and the rest of its group, in the source's register
    /// channels ([`Policy::Origins`]), when they are free.
    fn place_at_origin(&mut self, v: Value) -> bool {
        let group = self.groups.get(&v).cloned();
        let members: &[Value] = group.as_deref().map_or(std::slice::from_ref(&v), |g| g.as_slice());
        if members.iter().any(|m| self.loc.contains_key(m)) {
            return false;
        }
        let mut slots = Slots::new();
        for &m in members {
            let Some(o) = self.func.def(m).origin.dst else { return false };
            let fits = self.allowed_chans(m) & (1 << o.chan) != 0
                && !slots.contains(&o)
                && self.allowed(m, o)
                && self.free(o.file, o.index, o.chan, self.ranges(m), &[]);
            if !fits {
                return false;
            }
            slots.push(o);
        }
        for (&m, r) in members.iter().zip(slots) {
            self.assign(m, r);
        }
        true
    }

    /// Whether `v`, a member of a group, placed in `r` would overwrite a
    /// value another member reads where emission may not write the group
    /// as one instruction. The members share a position (an instruction
    /// reads every operand first), so `r` is free for `v` there; but a
    /// group whose operands are not each in one register is written in
    /// parts, and a later part would read what an earlier one wrote.
    fn clobbers_group_read(&self, v: Value, r: RegChannel) -> bool {
        let Some(group) = self.groups.get(&v) else { return false };
        let reads = |m: Value| self.func.def(m).args.iter().map(|a| a.value);
        let clobbered = group
            .iter()
            .filter(|&&m| m != v)
            .flat_map(|&m| reads(m))
            .any(|w| matches!(self.loc.get(&w), Some(Loc::Reg(x)) if *x == r));
        clobbered && !self.group_operands_in_one_register(group)
    }

    /// Whether each operand the members of `group` read is in one place:
    /// one register, one source register, or constants.
    fn group_operands_in_one_register(&self, group: &[Value]) -> bool {
        let args = self.func.def(group[0]).args.len();
        (0..args).all(|k| {
            let mut key = None;
            group.iter().all(|&m| {
                let Some(arg) = self.func.def(m).args.get(k) else { return false };
                let here = match self.loc.get(&arg.value) {
                    Some(Loc::Reg(r)) => Some((0, r.file, r.index, None)),
                    Some(Loc::Src(s)) => Some((1, s.file, s.index, s.dim)),
                    Some(Loc::Const(_)) => Some((2, File::Immediate, 0, None)),
                    _ => None,
                };
                here.is_some() && *key.get_or_insert(here) == here
            })
        })
    }

    /// The channel of the element of an indirectly addressed register
    /// (an array, or a register kept in memory) that `v` is only stored
    /// to: placed in that channel, its instruction writes the element
    /// itself.
    fn stored_chan(&self, v: Value) -> Option<u8> {
        match self.uses.get(&v)? {
            [store] => store_target(&self.func.insts[*store]).map(|(_, chan)| chan),
            _ => None,
        }
    }

    /// Places every member of `v`'s group in one register: the source's
    /// register and channels when free, else the lowest register where the
    /// source's channels, or any channels, are free.
    fn place_group(&mut self, v: Value, whole: bool) -> bool {
        let Some(group) = self.groups.get(&v).cloned() else { return false };
        if group.iter().any(|m| self.loc.contains_key(m)) {
            return false;
        }
        // A member written straight to several output channels is placed
        // on its own, and the others beside it where they can, when that
        // split pays ([`Self::split_pays`]).
        if !whole && group.iter().any(|&m| self.broadcast_output(m).is_some()) {
            return false;
        }
        let origins: Vec<Option<RegChannel>> = group.iter().map(|&m| self.func.def(m).origin.dst).collect();
        let same_origin_reg = origins
            .iter()
            .all(|o| o.is_some_and(|o| origins[0].is_some_and(|f| (f.file, f.index) == (o.file, o.index))));
        let try_reg = |a: &Self, file: File, index: u32, keep_chans: bool| -> Option<Slots> {
            let mut taken = 0u8;
            let mut out = Slots::new();
            for (k, &m) in group.iter().enumerate() {
                let ranges = a.ranges(m);
                let allowed = a.allowed_chans(m);
                let preferred = origins[k].map(|o| o.chan).or_else(|| a.stored_chan(m));
                // Tried for every register scanned: kept off the heap.
                let chans: SmallVec<[u8; 5]> = match (keep_chans, preferred) {
                    (true, Some(c)) => smallvec::smallvec![c],
                    (true, None) => return None,
                    (false, p) => p.into_iter().chain(0..4).collect(),
                };
                let c = chans.into_iter().find(|&c| {
                    taken & (1 << c) == 0
                        && allowed & (1 << c) != 0
                        && a.allowed(m, RegChannel { file, index, chan: c })
                        && a.free(file, index, c, ranges, &[])
                        && !a.clobbers_group_read(m, RegChannel { file, index, chan: c })
                })?;
                taken |= 1 << c;
                out.push(RegChannel { file, index, chan: c });
            }
            Some(out)
        };
        let home = self.group_output_home(&group);
        let mut choice = None;
        let mut partners: Vec<u32> = group.iter().flat_map(|&m| self.partner_registers(m)).collect();
        partners.dedup();
        for index in partners {
            choice =
                try_reg(self, File::Temporary, index, true).or_else(|| try_reg(self, File::Temporary, index, false));
            if choice.is_some() {
                break;
            }
        }
        // The output the group is stored to, when no partner's register
        // has room: a copy saved all the same.
        let mut choice = choice.or(home);
        if choice.is_none() && same_origin_reg {
            if let Some(o) = origins[0] {
                choice = try_reg(self, o.file, o.index, true);
            }
        }
        if choice.is_none() {
            let max = self.max_scan();
            for index in self.unreserved_temps().take_while(|&i| i < max) {
                if let Some(c) =
                    try_reg(self, File::Temporary, index, true).or_else(|| try_reg(self, File::Temporary, index, false))
                {
                    choice = Some(c);
                    break;
                }
            }
        }
        let Some(slots) = choice else { return false };
        for (&m, r) in group.iter().zip(slots) {
            self.assign(m, r);
        }
        true
    }

    /// Whether writing the members of `group` that have an output of their
    /// own ([`Self::broadcast_output`], [`Self::output_channels`]) straight
    /// into it, splitting the source instruction, takes fewer instructions
    /// than writing the group whole into one register and copying from it:
    /// whole, one instruction and a MOV for each run of output stores
    /// reading a member; split, one instruction per output register homed
    /// members go to, one for the others, and a MOV for each run of stores
    /// reading one of those.
    fn split_pays(&self, group: &[Value]) -> bool {
        let home = |m: Value| self.broadcast_output(m).or_else(|| self.output_channels(m)).map(|(i, _)| i);
        if group.iter().all(|&m| home(m).is_none()) {
            return false;
        }
        // The store runs reading a member, by the first value each stores.
        let runs = |members: &mut dyn Iterator<Item = Value>| {
            let mut out: SmallVec<[Value; 4]> = SmallVec::new();
            for m in members {
                for &u in self.uses.get(&m).unwrap_or_default() {
                    if let Some(first) = self.store_runs.get(&u).and_then(|r| r.first()) {
                        if !out.contains(first) {
                            out.push(*first);
                        }
                    }
                }
            }
            out.len()
        };
        let whole = 1 + runs(&mut group.iter().copied());
        let mut outputs: SmallVec<[u32; 4]> = group.iter().filter_map(|&m| home(m)).collect();
        outputs.sort_unstable();
        outputs.dedup();
        let mut rest = group.iter().copied().filter(|&m| home(m).is_none()).peekable();
        let others = usize::from(rest.peek().is_some());
        outputs.len() + others + runs(&mut rest) < whole
    }

    /// The output channels a group can be computed straight into: each
    /// member's [`Self::output_channels`], one channel of one output register,
    /// when they are free.
    fn group_output_home(&self, group: &[Value]) -> Option<Slots> {
        let mut out = Slots::new();
        let mut taken = 0u8;
        for &m in group {
            let (index, mask) = self.output_channels(m)?;
            let chan = mask.trailing_zeros() as u8;
            let same_reg = out.first().is_none_or(|r: &RegChannel| r.index == index);
            let ok = mask.count_ones() == 1
                && same_reg
                && taken & mask == 0
                && self.allowed_chans(m) & mask != 0
                && self.free(File::Output, index, chan, self.ranges(m), &[]);
            if !ok {
                return None;
            }
            taken |= mask;
            out.push(RegChannel { file: File::Output, index, chan });
        }
        Some(out)
    }

    /// How far to look for a register before giving a value a fresh one.
    fn max_scan(&self) -> u32 {
        self.regs.last_index(File::Temporary).map_or(1, |i| i + 2)
            + self.reserved.iter().map(|&(_, l)| l + 1).max().unwrap_or(0)
    }

    fn assign(&mut self, v: Value, r: RegChannel) {
        self.take(r.file, r.index, r.chan, v);
        self.loc.insert(v, Loc::Reg(r));
        // An output taken as a value's home is no register for the rest
        // of its source instruction to follow.
        let home = r.file == File::Output && self.func.def(v).origin.dst.is_none_or(|o| o.file != File::Output);
        if let Some(src_inst) = self.func.def(v).origin.inst.filter(|_| !home) {
            self.group_reg.entry(src_inst).or_insert((r.file, r.index));
        }
    }

    fn place_pair(&mut self, v: Value) {
        let ranges = self.ranges(v);
        let data = self.func.def(v);
        let mut candidates: Vec<(File, u32, u8)> = Vec::new();
        if let Some(o) = data.origin.dst {
            if o.file == File::Temporary {
                candidates.push((o.file, o.index, o.chan / 2));
            }
        }
        if let Some(src_inst) = data.origin.inst {
            if let Some(&(file, index)) = self.group_reg.get(&src_inst) {
                candidates.extend([(file, index, 0), (file, index, 1)]);
            }
        }
        let fits = |a: &Self, (file, index, pair): (File, u32, u8)| {
            a.free(file, index, 2 * pair, ranges, &[]) && a.free(file, index, 2 * pair + 1, ranges, &[])
        };
        let choice =
            candidates.into_iter().find(|&c| !self.is_reserved(c.0, c.1) && fits(self, c)).unwrap_or_else(|| {
                self.unreserved_temps()
                    .flat_map(|i| [(File::Temporary, i, 0u8), (File::Temporary, i, 1)])
                    .find(|&c| fits(self, c))
                    .unwrap_or((File::Temporary, 0, 0))
            });
        let (file, index, pair) = choice;
        self.take(file, index, 2 * pair, v);
        self.take(file, index, 2 * pair + 1, v);
        self.loc.insert(v, Loc::Pair { file, index, pair });
        if let Some(src_inst) = data.origin.inst {
            self.group_reg.entry(src_inst).or_insert((file, index));
        }
    }

    /// All results of a whole-instruction op: each destination's results
    /// in one register, in the channels the instruction writes.
    fn place_opaque(&mut self, def: Inst) {
        let data = &self.func.insts[def];
        let Op::Opaque { inst, .. } = &data.op else { return };
        let mut results = data.results.iter().copied();
        // The template's value registers are placeholders; the origin says
        // where the first destination was written in the source.
        let mut hint = data.origin.dst;
        for dst in inst.dst.iter() {
            if !is_value_file(dst.reg.file) {
                continue;
            }
            let (file, origin_reg) = match hint.take() {
                Some(r) => (r.file, Some(r.index)),
                None => (File::Temporary, None),
            };
            let chans: Vec<u8> = (0..4u8).filter(|c| dst.write_mask & (1 << c) != 0).collect();
            let vals: Vec<Value> = results.by_ref().take(chans.len()).collect();
            let fits = |a: &Self, f: File, index: u32| {
                chans.iter().zip(&vals).all(|(&c, &v)| {
                    let r = RegChannel { file: f, index, chan: c };
                    a.allowed(v, r) && a.free(f, index, c, a.ranges(v), &[])
                })
            };
            let out_file = if file == File::Address { File::Address } else { File::Temporary };
            // Beside the values an operand reads with them, first.
            let partners: Vec<u32> = vals.iter().flat_map(|&v| self.partner_registers(v)).collect();
            let beside = partners.into_iter().find(|&i| file == File::Temporary && fits(self, File::Temporary, i));
            // Straight into the output every result is stored to, first.
            let home = vals.first().and_then(|&v| self.output_channels(v)).map(|(i, _)| i);
            let home = home.filter(|&i| fits(self, File::Output, i));
            let choice = match (home, beside, origin_reg) {
                (Some(i), _, _) => (File::Output, i),
                (None, beside, origin_reg) => match (beside, origin_reg) {
                    (Some(i), _) => (File::Temporary, i),
                    (None, Some(i))
                        if matches!(file, File::Temporary | File::Output | File::Address) && fits(self, file, i) =>
                    {
                        (file, i)
                    }
                    _ => {
                        let any: Box<dyn Iterator<Item = u32>> = match out_file {
                            File::Temporary => Box::new(self.unreserved_temps()),
                            _ => Box::new(0..),
                        };
                        any.map(|i| (out_file, i)).find(|&(f, i)| fits(self, f, i)).unwrap_or((out_file, 0))
                    }
                },
            };
            for (&c, &v) in chans.iter().zip(&vals) {
                self.take(choice.0, choice.1, c, v);
                self.loc.insert(v, Loc::Reg(RegChannel { file: choice.0, index: choice.1, chan: c }));
            }
        }
    }
}

/// Where outputs are written or read other than by a value computed into
/// them: what a value written to an output early must not pass.
struct OutputWrites {
    /// Positions of stores to each output channel, with their blocks.
    stores: BTreeMap<(u32, u8), Vec<(u32, Block)>>,
    /// The ends of the blocks that end the invocation (`RET`, `END`).
    returns: Vec<(u32, Block)>,
    /// Positions of everything else that writes or reads outputs, or
    /// leaves the straight path: indirect output accesses, instructions
    /// with side effects (`EMIT`, `KILL`, barriers, ...), `BRK`, `CONT` and
    /// `RET`; with their blocks and whether they write outputs.
    barriers: Vec<(u32, Block, bool)>,
    /// The block of each instruction.
    block: SecondaryMap<Inst, Block>,
    /// The region holding each block: a store later in the region of a
    /// value's definition is reached on every path from it that does not
    /// leave early (a `BRK`, `CONT` or `RET` between them, a barrier).
    region: SecondaryMap<Block, u32>,
}

impl OutputWrites {
    fn new(func: &Function, layout: &Layout) -> OutputWrites {
        let mut w = OutputWrites {
            stores: BTreeMap::new(),
            returns: Vec::new(),
            barriers: Vec::new(),
            block: SecondaryMap::default(),
            region: SecondaryMap::default(),
        };
        let mut next_region = 0;
        number_regions(&func.body, &mut next_region, &mut w.region);
        let output_array = |a: &Array| func.arrays.get(*a).is_some_and(|d| d.file == File::Output);
        for (b, block) in func.blocks.iter() {
            if let Some(&end) = layout.block_end.get(&b) {
                match block.exit {
                    Exit::Fallthrough => {}
                    Exit::Return => {
                        w.returns.push((end, b));
                        w.barriers.push((end, b, false));
                    }
                    Exit::Break | Exit::Continue => w.barriers.push((end, b, false)),
                }
            }
            for &inst in &block.insts {
                w.block.insert(inst, b);
                let Some(&at) = layout.inst_pos.get(&inst) else { continue };
                let data = &func.insts[inst];
                // (a barrier, one that writes outputs)
                let (barrier, writes) = match &data.op {
                    Op::StoreOutput { index, chan } => {
                        w.stores.entry((*index, *chan)).or_default().push((at, b));
                        (false, false)
                    }
                    Op::StoreIndirect { reg, .. } => (reg.file == File::Output, true),
                    Op::LoadIndirect { reg, .. } => (reg.file == File::Output, false),
                    Op::ArrayStore { array, .. } => (output_array(array), true),
                    Op::ArrayLoad { array, .. } => (output_array(array), false),
                    Op::Opaque { inst: t, .. } => {
                        let writes = t.dst.iter().any(|d| d.reg.file == File::Output);
                        let other = t.dst.iter().any(|d| !is_value_destination(d.reg.file));
                        (t.opcode.info().has(tgsi::flags::SIDE_EFFECT) || other || writes, writes)
                    }
                    _ => (false, false),
                };
                if barrier {
                    w.barriers.push((at, b, writes));
                }
            }
        }
        w.barriers.sort_unstable_by_key(|&(at, _, _)| at);
        w.returns.sort_unstable_by_key(|&(at, _)| at);
        for list in w.stores.values_mut() {
            list.sort_unstable_by_key(|&(at, _)| at);
        }
        w
    }

    /// Whether nothing after `from` and before `to` writes a channel of
    /// `mask` of output `index` (apart from stores at positions `own`) or
    /// reads or writes outputs otherwise, on a path that goes on to need
    /// the value there: a path that ends the invocation (`RET`) after
    /// storing each channel, and no own store after that, leaves the
    /// outputs as the source does.
    fn clear_between(&self, index: u32, mask: u8, from: u32, to: u32, own: impl Fn(u32) -> bool) -> bool {
        let chans = || (0..4u8).filter(|c| mask & (1 << c) != 0);
        let stores_in = |c: u8, b: Block| {
            self.stores.get(&(index, c)).into_iter().flatten().filter(move |&&(p, sb)| sb == b && p > from)
        };
        let ends = |b: Block| self.returns.iter().any(|&(_, r)| r == b);
        // A barrier that only reads outputs or leaves (EMIT, BRK, RET, ...)
        // sees what the source has when its block stored each channel
        // before it (outputs keep their values after EMIT).
        let k = self.barriers.partition_point(|&(p, _, _)| p <= from);
        let barriers_ok = self.barriers[k..]
            .iter()
            .take_while(|&&(p, _, _)| p < to)
            .all(|&(at, b, writes)| !writes && chans().all(|c| stores_in(c, b).any(|&(q, _)| q < at)));
        barriers_ok
            && chans().all(|c| {
                let list = self.stores.get(&(index, c)).map_or(&[][..], |l| l.as_slice());
                let k = list.partition_point(|&(p, _)| p <= from);
                list[k..]
                    .iter()
                    .take_while(|&&(p, _)| p <= to)
                    .all(|&(p, b)| own(p) || (ends(b) && !stores_in(c, b).any(|&(q, _)| q > p && own(q))))
            })
    }
}

/// Numbers the regions of `region`'s tree, each block with its own.
fn number_regions(region: &Region, next: &mut u32, out: &mut SecondaryMap<Block, u32>) {
    let id = *next;
    *next += 1;
    for node in region {
        match node {
            Node::Block(b) => {
                out.insert(*b, id);
            }
            Node::If(n) => {
                number_regions(&n.then_region, next, out);
                number_regions(&n.else_region, next, out);
            }
            Node::Loop(n) => number_regions(&n.body, next, out),
            Node::Switch(n) => {
                for case in &n.cases {
                    number_regions(&case.body, next, out);
                }
            }
        }
    }
}

/// `ranges` (first, last) sorted and with overlapping ones merged, for
/// [`in_ranges`].
fn merged_ranges(mut ranges: Vec<(u32, u32)>) -> Vec<(u32, u32)> {
    ranges.sort_unstable();
    let mut out: Vec<(u32, u32)> = Vec::with_capacity(ranges.len());
    for (first, last) in ranges {
        match out.last_mut() {
            Some(prev) if first <= prev.1.saturating_add(1) => prev.1 = prev.1.max(last),
            _ => out.push((first, last)),
        }
    }
    out
}

/// Indices from 0 up outside `ranges` (merged, sorted): a search for a
/// free register steps over a thousand arrays at once rather than trying
/// each of their registers.
fn unreserved(ranges: &[(u32, u32)]) -> impl Iterator<Item = u32> + '_ {
    let mut next = Some(0u32);
    std::iter::from_fn(move || {
        let mut i = next?;
        let after = ranges.partition_point(|&(first, _)| first <= i);
        if let Some(&(_, last)) = after.checked_sub(1).and_then(|k| ranges.get(k)).filter(|r| r.1 >= i) {
            i = last.checked_add(1)?;
        }
        next = i.checked_add(1);
        Some(i)
    })
}

/// Whether `index` is in one of the sorted, disjoint `ranges`: a binary
/// search, since a shader may hold a thousand arrays and every register
/// the allocator considers is checked.
fn in_ranges(ranges: &[(u32, u32)], index: u32) -> bool {
    let after = ranges.partition_point(|&(first, _)| first <= index);
    after > 0 && ranges[after - 1].1 >= index
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_search_for_a_register_tries_none_an_array_holds() {
        let merged = merged_ranges(vec![(10, 12), (11, 20), (30, 30), (21, 22), (40, 43)]);
        let tried: Vec<u32> = unreserved(&merged).take_while(|&i| i < 50).collect();
        let scan: Vec<u32> = (0..50).filter(|&i| !in_ranges(&merged, i)).collect();
        assert_eq!(tried, scan);
        // A thousand arrays of four registers from TEMP[0]: the first
        // register tried is the first free one.
        let arrays = merged_ranges((0..1000).map(|k| (4 * k, 4 * k + 3)).collect());
        let tried: Vec<u32> = unreserved(&arrays).take_while(|&i| i < 4004).collect();
        assert_eq!(tried, [4000, 4001, 4002, 4003]);
        assert_eq!(unreserved(&[(0, u32::MAX)]).next(), None);
    }

    #[test]
    fn reserved_ranges_answer_as_a_scan_does() {
        let ranges = vec![(40, 43), (10, 12), (11, 20), (30, 30), (21, 22), (50, 49 + 4)];
        let merged = merged_ranges(ranges.clone());
        assert_eq!(merged, vec![(10, 22), (30, 30), (40, 43), (50, 53)]);
        for index in 0..60 {
            let scan = ranges.iter().any(|&(f, l)| (f..=l).contains(&index));
            assert_eq!(in_ranges(&merged, index), scan, "{index}");
        }
        assert!(!in_ranges(&[], 0));
    }
}
