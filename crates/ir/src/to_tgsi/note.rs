//! What the emitter meant by each instruction it writes, in the IR's
//! terms: the notes the allocation checker (`check`) proves the written
//! code against.
//!
//! Every instruction goes into the output through [`Emitter::push`] with
//! a [`Note`]: for each destination channel the IR operand it holds
//! afterwards, for each source position the IR operand read there. What
//! the IR does where no instruction is written (a phi copy left out
//! because the argument is already in place, an output store whose value
//! was computed into the output) is a [`Marker`] between instructions.

use super::*;

/// For each channel or swizzle position, the IR operand there (`None`:
/// nothing the IR names, such as scratch, or a position nothing reads).
pub(super) type Channels = [Option<Operand>; 4];

/// What one emitted instruction means, as the emitter builds it (kept
/// as [`Entry`]s).
#[derive(Clone, Debug, Default)]
pub(super) struct Note {
    /// Per destination operand, per channel: what the channel holds after
    /// the instruction.
    pub dst: SmallVec<[Channels; 1]>,
    /// Per source operand, per swizzle position: what is read there.
    pub src: SmallVec<[Channels; 3]>,
    /// The indirect indices of the registers that are not values (a
    /// resource, a store's target), in operand order: sources, then
    /// destinations, each register's index before its 2-D index.
    pub indirect: SmallVec<[Operand; 1]>,
}

impl Note {
    /// A note of one destination and one source operand, with `channels`
    /// read at the same positions as they are written (a MOV).
    pub fn copy(channels: Channels) -> Note {
        Note { dst: smallvec::smallvec![channels], src: smallvec::smallvec![channels], indirect: SmallVec::new() }
    }

    /// A note of an instruction reading `cond` in position x of its one
    /// source and writing nothing (IF, UIF, SWITCH, CASE).
    pub fn condition(cond: Operand) -> Note {
        let mut reads = [None; 4];
        reads[0] = Some(cond);
        Note { dst: SmallVec::new(), src: smallvec::smallvec![reads], indirect: SmallVec::new() }
    }
}

/// A copy as the emitter means it: the operand read and the one the
/// destination holds after (a phi copy reads an argument and holds the
/// phi).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct CopyNote {
    pub read: Option<Operand>,
    pub holds: Option<Operand>,
}

impl CopyNote {
    /// A copy of `v` that holds `v`.
    pub fn of(v: Value) -> CopyNote {
        CopyNote { read: Some(Operand::new(v)), holds: Some(Operand::new(v)) }
    }
}

/// What the IR does where emission writes no instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Marker {
    /// A phi copy left out: `chan` holds `from` already (`None`: an
    /// undefined argument, anything will do) and is the phi `to` from here.
    Relabel { chan: RegChannel, from: Option<Operand>, to: Value },
    /// An output store: output channel `chan` is `value` from here, as the
    /// IR sees it.
    Store { chan: RegChannel, value: Operand },
}

/// A marker and where it applies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Placed {
    /// Before the instruction of this index, on the path falling into it.
    pub at: usize,
    /// On the path from an `IF` without `ELSE` to its `ENDIF` at `at`
    /// instead: what an else arm that wrote no instruction did.
    pub false_edge: bool,
    pub marker: Marker,
}

/// One IR operand a note names, and where in the instruction: eight
/// bytes, as an emission writes one for about every channel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Entry {
    pub value: Value,
    /// Bits 6-7: 0 a destination channel, 1 a source position, 2 an
    /// indirect index; bits 2-5 the operand; bits 0-1 the channel.
    at: u8,
    /// Bit 0 negated, bit 1 absolute.
    mods: u8,
}

/// Where an [`Entry`] is in its instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum At {
    /// What channel `chan` of destination `operand` holds after.
    Dst { operand: usize, chan: u8 },
    /// What source `operand` reads at swizzle position `pos`.
    Src { operand: usize, pos: u8 },
    /// The next indirect index of a register that is not a value.
    Index,
}

impl Entry {
    fn new(o: Operand, at: At) -> Entry {
        let at = match at {
            At::Dst { operand, chan } => (operand as u8 & 15) << 2 | (chan & 3),
            At::Src { operand, pos } => 1 << 6 | (operand as u8 & 15) << 2 | (pos & 3),
            At::Index => 2 << 6,
        };
        Entry { value: o.value, at, mods: u8::from(o.neg) | u8::from(o.abs) << 1 }
    }

    /// The IR operand.
    pub fn operand(self) -> Operand {
        Operand { value: self.value, neg: self.mods & 1 != 0, abs: self.mods & 2 != 0 }
    }

    /// Where it is.
    pub fn at(self) -> At {
        let (operand, chan) = ((self.at >> 2 & 15) as usize, self.at & 3);
        match self.at >> 6 {
            0 => At::Dst { operand, chan },
            1 => At::Src { operand, pos: chan },
            _ => At::Index,
        }
    }
}

/// The notes of one emission, kept only when it is checked.
#[derive(Default)]
pub(super) struct Notes {
    pub enabled: bool,
    /// The entries of every instruction's note, in order.
    entries: Vec<Entry>,
    /// Where each instruction's entries start in `entries`.
    start: Vec<u32>,
    /// In the order of `at`.
    pub markers: Vec<Placed>,
    /// The copies left out of an else arm whose other copies were written
    /// before its `IF`, marked when the arm is written.
    deferred: Vec<(Block, Vec<Marker>)>,
}

impl Notes {
    /// Notes the next instruction.
    fn push(&mut self, note: &Note) {
        self.start.push(self.entries.len() as u32);
        for (operand, channels) in note.dst.iter().enumerate() {
            for (chan, o) in channels.iter().enumerate() {
                if let Some(o) = o {
                    self.entries.push(Entry::new(*o, At::Dst { operand, chan: chan as u8 }));
                }
            }
        }
        for (operand, channels) in note.src.iter().enumerate() {
            for (pos, o) in channels.iter().enumerate() {
                if let Some(o) = o {
                    self.entries.push(Entry::new(*o, At::Src { operand, pos: pos as u8 }));
                }
            }
        }
        self.entries.extend(note.indirect.iter().map(|&o| Entry::new(o, At::Index)));
    }

    /// Forgets the last instruction's note.
    fn pop(&mut self) {
        if let Some(start) = self.start.pop() {
            self.entries.truncate(start as usize);
        }
    }

    /// The entries of instruction `k`'s note.
    pub fn of(&self, k: usize) -> &[Entry] {
        let start = self.start.get(k).map_or(self.entries.len(), |&s| s as usize);
        let end = self.start.get(k + 1).map_or(self.entries.len(), |&s| s as usize);
        self.entries.get(start..end).unwrap_or_default()
    }

    /// The last instruction, rewritten to write its first destination
    /// into a store's target: it holds `stored` there, and the target's
    /// indirect indices read `indices`. `moved`: its operands' swizzle
    /// positions were permuted, each (new position, old position), and
    /// positions not listed are no longer read.
    pub fn retarget_last(&mut self, stored: Channels, indices: &[Operand], moved: Option<&[(u8, u8)]>) {
        let Some(&start) = self.start.last() else { return };
        let mut kept: Vec<Entry> = self.entries.drain(start as usize..).collect();
        kept.retain(|e| !matches!(e.at(), At::Dst { .. }));
        if let Some(moved) = moved {
            let mut permuted = Vec::with_capacity(kept.len());
            for e in &kept {
                match e.at() {
                    At::Src { operand, pos } => permuted.extend(
                        moved
                            .iter()
                            .filter(|m| m.1 == pos)
                            .map(|m| Entry::new(e.operand(), At::Src { operand, pos: m.0 })),
                    ),
                    _ => permuted.push(*e),
                }
            }
            kept = permuted;
        }
        let note = Note { dst: smallvec::smallvec![stored], ..Note::default() };
        self.start.pop();
        self.push(&note);
        self.entries.extend(kept);
        self.entries.extend(indices.iter().map(|&o| Entry::new(o, At::Index)));
    }

    /// Keeps `markers` for when block `b` is written.
    pub fn defer(&mut self, b: Block, markers: Vec<Marker>) {
        if self.enabled && !markers.is_empty() {
            self.deferred.push((b, markers));
        }
    }

    /// The markers kept for block `b`.
    pub fn take_deferred(&mut self, b: Block) -> Vec<Marker> {
        match self.deferred.iter().position(|(d, _)| *d == b) {
            Some(k) => self.deferred.swap_remove(k).1,
            None => Vec::new(),
        }
    }
}

impl Emitter<'_> {
    /// Appends `inst` to the output with what it means.
    pub(super) fn push(&mut self, inst: tgsi::Instruction, note: Note) {
        #[cfg(test)]
        if let Some(extra) = self.planted_clobber(&inst) {
            self.out.push(extra);
            if self.notes.enabled {
                self.notes.push(&Note::default());
            }
        }
        // What the group being written wrote so far (`written_here`).
        for d in inst.dst.iter().filter(|d| d.reg.indirect.is_none() && d.reg.dimension.is_none()) {
            for chan in (0..4u8).filter(|c| d.write_mask & (1 << c) != 0) {
                let index = d.reg.index as u32;
                self.written_here.push(RegChannel { file: d.reg.file, index, chan });
            }
        }
        self.out.push(inst);
        if self.notes.enabled {
            self.notes.push(&note);
        }
    }

    /// Notes what the IR does here without an instruction.
    pub(super) fn mark(&mut self, marker: Marker) {
        if self.notes.enabled {
            self.notes.markers.push(Placed { at: self.out.len(), false_edge: false, marker });
        }
    }

    /// Takes back the `ELSE` just written, whose arm wrote no instruction:
    /// what that arm did happens on the `IF`'s false edge, at the `ENDIF`
    /// that comes next.
    pub(super) fn pop_else(&mut self) {
        self.out.pop();
        if !self.notes.enabled {
            return;
        }
        self.notes.pop();
        let endif = self.out.len();
        for placed in self.notes.markers.iter_mut().rev().take_while(|p| p.at > endif) {
            placed.at = endif;
            placed.false_edge = true;
        }
    }

    /// The IR operands of `wanted` by swizzle position, leaving out those
    /// nothing reads (values placed nowhere).
    pub(super) fn reads(&self, wanted: &[(usize, Operand)]) -> Channels {
        let mut reads = [None; 4];
        for &(pos, o) in wanted {
            if self.alloc.loc.get(&o.value) != Some(&Loc::Any) {
                reads[pos & 3] = Some(o);
            }
        }
        reads
    }

    /// Notes the output stores among `stores` (the IR's view of the
    /// outputs changes there, whatever instructions wrote them).
    pub(super) fn mark_output_stores(&mut self, stores: &[Inst]) {
        if !self.notes.enabled {
            return;
        }
        for &inst in stores {
            if !self.layout.inst_pos.contains_key(&inst) {
                continue;
            }
            let data = &self.func.insts[inst];
            let Some(&value) = data.args.last() else { continue };
            let chan = match &data.op {
                Op::StoreOutput { index, chan } => RegChannel { file: File::Output, index: *index, chan: *chan },
                // A direct store to an element of an array of outputs, or
                // to an output kept in memory, is a store to that output
                // channel; indirect ones leave the checker knowing nothing
                // of the outputs they may write.
                Op::ArrayStore { array, offset, chan } if data.args.len() == 1 => {
                    let Some(a) = self.func.arrays.get(*array) else { continue };
                    if a.file != File::Output {
                        continue;
                    }
                    let Ok(index) = u32::try_from(a.first as i64 + *offset as i64) else { continue };
                    RegChannel { file: File::Output, index, chan: *chan }
                }
                Op::StoreIndirect { reg, chan }
                    if reg.file == File::Output && reg.indirect.is_none() && reg.dimension.is_none() =>
                {
                    let Ok(index) = u32::try_from(reg.index) else { continue };
                    RegChannel { file: File::Output, index, chan: *chan }
                }
                _ => continue,
            };
            self.mark(Marker::Store { chan, value });
        }
    }
}
