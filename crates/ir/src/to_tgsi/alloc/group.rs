//! The channels of one source instruction placed together, so emission
//! writes them as one instruction again, and the values an operand reads
//! placed beside each other.

use super::*;

impl Allocator<'_> {
    /// The TEMP registers that, for some use of `v`, hold every already
    /// placed register value read in the same operand as `v`: placed
    /// there too, `v` needs no gathering copy for that use.
    pub(super) fn partner_registers(&self, v: Value) -> Vec<u32> {
        let mut out: Vec<u32> = Vec::new();
        for &u in self.uses.get(&v).unwrap_or_default() {
            let mut regs: SmallVec<[u32; 8]> = SmallVec::new();
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
    pub(super) fn operand_partners(&self, u: Inst, v: Value) -> SmallVec<[Value; 8]> {
        let data = &self.func.insts[u];
        let positions = || data.args.iter().enumerate().filter(|(_, a)| a.value == v).map(|(k, _)| k);
        let mut out = SmallVec::new();
        match &data.op {
            Op::Alu { opcode, .. } if !opcode.info().is_64bit() => match opcode.info().mode {
                tgsi::ChannelMode::Componentwise => {
                    let group = data.results.first().and_then(|r| self.groups.get(r));
                    for k in positions() {
                        match group {
                            Some(g) => out.extend(
                                g.iter()
                                    .filter_map(|&m| self.func.insts[self.func.values[m].def].args.get(k))
                                    .map(|a| a.value),
                            ),
                            None => out.extend(data.args.get(k).map(|a| a.value)),
                        }
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
        out.retain(|p| *p != v);
        out
    }

    /// Places `v`, and the rest of its group, in the source's register
    /// channels ([`Policy::Origins`]), when they are free.
    pub(super) fn place_at_origin(&mut self, v: Value) -> bool {
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
                && (self.free(o.file, o.index, o.chan, self.ranges(m), &[]) || self.phi_coalesces(m, o));
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
    pub(super) fn clobbers_group_read(&self, v: Value, r: RegChannel) -> bool {
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
    pub(super) fn group_operands_in_one_register(&self, group: &[Value]) -> bool {
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
    pub(super) fn stored_chan(&self, v: Value) -> Option<u8> {
        match self.uses.get(&v)? {
            [store] => store_target(&self.func.insts[*store]).map(|(_, chan)| chan),
            _ => None,
        }
    }

    /// Places every member of `v`'s group in one register: the source's
    /// register and channels when free, else the lowest register where the
    /// source's channels, or any channels, are free.
    pub(super) fn place_group(&mut self, v: Value, whole: bool) -> bool {
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
        // The source's channels first; others only where the target takes
        // them at no cost.
        let try_temp = |a: &Self, index: u32| {
            try_reg(a, File::Temporary, index, true)
                .or_else(|| (!a.source_channels).then(|| try_reg(a, File::Temporary, index, false)).flatten())
        };
        for index in partners {
            choice = try_temp(self, index);
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
                if let Some(c) = try_temp(self, index) {
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
    pub(super) fn split_pays(&self, group: &[Value]) -> bool {
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
    pub(super) fn group_output_home(&self, group: &[Value]) -> Option<Slots> {
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
}
