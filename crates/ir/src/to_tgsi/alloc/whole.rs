//! Values other than one 32-bit channel: whole instructions' results
//! (each destination in one register, in the channels it writes), 64-bit
//! pairs, and indirect loads read in place by their one user.

use super::*;

impl Allocator<'_> {
    /// Whether a load can be read in place by its only user: an operation
    /// (or a 2-D output store) of the same source instruction, with the
    /// index in an ADDR register.
    pub(super) fn foldable(&self, v: Value) -> bool {
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
    pub(super) fn read_later_unchanged(&self, load: Inst, user: Inst) -> bool {
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

    pub(super) fn place_pair(&mut self, v: Value) {
        let ranges = self.ranges(v);
        let data = self.func.def(v);
        let mut candidates: Vec<(File, u32, u8)> = Vec::new();
        if let Some(o) = data.origin.dst {
            if o.file == File::Temporary {
                candidates.push((o.file, o.index, o.chan / 2));
            }
        }
        // A pair is read as a whole: never from an output (emission reads
        // none), even where its instruction's results go to one.
        if let Some(src_inst) = data.origin.inst {
            if let Some(&(file, index)) = self.group_reg.get(&src_inst).filter(|g| g.0 == File::Temporary) {
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
    pub(super) fn place_opaque(&mut self, def: Inst) {
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
