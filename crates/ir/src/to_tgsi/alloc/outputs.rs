//! Values computed straight into the outputs they are stored to: where
//! nothing else writes or reads the output meanwhile, so no output is
//! read that the source did not read, and no store needs a MOV.

use super::*;

impl Allocator<'_> {
    /// Whether every use of `v` stores it to output channel `index.chan`:
    /// enough for a value the source itself wrote there.
    pub(super) fn only_stored_to(&self, v: Value, index: u32, chan: u8) -> bool {
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
    pub(super) fn output_clear(&self, v: Value, index: u32, mask: u8) -> bool {
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
    pub(super) fn output_home(&self, v: Value) -> Option<(u32, u8)> {
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
    pub(super) fn phi_output_home(&self, v: Value) -> Option<(u32, u8)> {
        let home = self.phi_argument_home(v)?;
        let &phi = self.uses.get(&v)?.first()?;
        let phi_value = self.func.insts[phi].results[0];
        (self.phi_args_fit_output(phi) && self.store_run_fits_output(phi_value)).then_some(home)
    }

    /// Whether every argument of `phi` can be in its output channel with
    /// it, or needs a copy whatever the phi's register: otherwise the
    /// phi is better coalesced with the arguments in registers.
    pub(super) fn phi_args_fit_output(&self, phi: Inst) -> bool {
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
    pub(super) fn store_run_fits_output(&self, v: Value) -> bool {
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
    pub(super) fn phi_argument_home(&self, v: Value) -> Option<(u32, u8)> {
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
    pub(super) fn output_channels(&self, v: Value) -> Option<(u32, u8)> {
        if !self.outputs_in_place {
            return None;
        }
        self.output_home(v).or_else(|| self.phi_output_home(v))
    }

    pub(super) fn block_of(&self, inst: Inst) -> Option<Block> {
        self.output_writes.block.get(&inst).copied()
    }

    /// The region (list of nodes) holding `inst`'s block.
    pub(super) fn region_of(&self, inst: Inst) -> Option<u32> {
        self.output_writes.region.get(&self.block_of(inst)?).copied()
    }

    /// Whether `v`, which nothing reads, may be written into output
    /// channel `reg`, where the source wrote it: a later store of its
    /// block writes the channel again before anything reads or emits the
    /// outputs, so no one sees it there.
    pub(super) fn overwritten_output(&self, v: Value, reg: RegChannel) -> bool {
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
    pub(super) fn broadcast_output(&self, v: Value) -> Option<(u32, u8)> {
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
    pub(super) fn place_replicated_output(&mut self, v: Value) -> bool {
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
}

/// Where outputs are written or read other than by a value computed into
/// them: what a value written to an output early must not pass.
pub(super) struct OutputWrites {
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
    pub(super) fn new(func: &Function, layout: &Layout) -> OutputWrites {
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
    pub(super) fn clear_between(&self, index: u32, mask: u8, from: u32, to: u32, own: impl Fn(u32) -> bool) -> bool {
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
