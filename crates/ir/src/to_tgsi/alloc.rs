//! Register allocation for emission: each value gets a channel of a
//! register (or a channel pair for 64-bit values), chosen first where the
//! source program had it, then beside the values computed by the same
//! source instruction, then in the lowest free channel.
//!
//! Constants and direct reads of inputs, constants and system values need
//! no register: instructions read them where they are.

mod by_register;
mod group;
mod occupancy;
mod outputs;
mod pack;
mod reserved;
mod whole;

use super::groups;
use super::indirect::store_target;
use super::layout::{Interval, Layout};
use super::use_lists::UseLists;
use crate::channels::{formula_chan, replicated_reads};
use crate::entity::SecondaryMap;
use crate::from_tgsi::is_value_file;
use crate::function::*;
use by_register::ByRegister;
use outputs::OutputWrites;
use reserved::{in_ranges, merged_ranges, unreserved};
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
    /// The blocks that end by branching (before an `IF` or a `SWITCH`):
    /// a phi copy at their end runs on every way out.
    branching: rustc_hash::FxHashSet<Block>,
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
    /// Whether results may be written straight into the outputs they are
    /// stored to ([`crate::EmitOptions::outputs_through_temps`]).
    outputs_in_place: bool,
    /// Whether the values of one source instruction keep the channels the
    /// source computed them in ([`crate::EmitOptions::source_channels`]).
    source_channels: bool,
}

/// The blocks just before an `IF` or a `SWITCH`.
fn branching_blocks(func: &Function) -> rustc_hash::FxHashSet<Block> {
    let mut out = rustc_hash::FxHashSet::default();
    for event in crate::walk::walk(&func.body) {
        if let crate::walk::Event::Enter(construct, at) = event {
            if !matches!(construct, crate::walk::ConstructRef::Loop(_)) {
                out.extend(at.prev_block());
            }
        }
    }
    out
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

pub(crate) fn allocate(func: &Function, layout: &Layout, policy: Policy, options: &crate::EmitOptions) -> Allocation {
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
        branching: branching_blocks(func),
        group_reg: HashMap::default(),
        groups: groups::find_groups(func),
        store_runs: groups::find_store_runs(func),
        output_writes: OutputWrites::new(func, layout),
        origins_first: policy == Policy::Origins,
        outputs_in_place: !options.outputs_through_temps,
        source_channels: options.source_channels,
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
                    if l.file == File::Temporary
                        && l.file == h.file
                        && l.index == h.index
                        && l.chan % 2 == 0
                        && h.chan == l.chan + 1
                    {
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
                && (self.free(c.file, c.index, c.chan, ranges, except) || is_phi && self.phi_coalesces(v, c))
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

    /// Whether phi `v` may take channel `c`, which one of its arguments
    /// holds: its copies of that argument, at the ends of the predecessors
    /// it comes from, write what the channel holds already, so only the
    /// rest of the phi's range must find the channel free (and those
    /// points nothing in it but the argument).
    fn phi_coalesces(&self, v: Value, c: RegChannel) -> bool {
        let data = self.func.def(v);
        let Op::Phi { preds } = &data.op else { return false };
        let held = |a: &Operand| !a.neg && !a.abs && self.loc.get(&a.value) == Some(&Loc::Reg(c));
        let Some(a) = data.args.iter().find(|&a| held(a)).map(|a| a.value) else { return false };
        let copies: SmallVec<[u32; 4]> = data
            .args
            .iter()
            .zip(preds)
            .filter(|(x, _)| x.value == a)
            .filter_map(|(_, p)| self.layout.block_end.get(p).copied())
            .collect();
        // A copy at the end of a block that branches runs on the other
        // ways out too, where the argument is its own value.
        if data.args.iter().zip(preds).any(|(x, p)| x.value == a && self.branching.contains(p)) {
            return false;
        }
        let (points, rest): (Vec<Interval>, Vec<Interval>) =
            self.ranges(v).iter().partition(|r| r.start == r.end && copies.contains(&r.start));
        self.free(c.file, c.index, c.chan, &rest, &[]) && self.free(c.file, c.index, c.chan, &points, &[a])
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
}
