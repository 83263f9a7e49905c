//! What one instruction does to the checker's state: its reads checked
//! against the IR's operands, its writes, the markers before it, and the
//! outputs where they are observed.

use super::fact::{canonical, Fact, Mods};
use super::state::{Space, State};
use super::{CheckError, Checker, Failure, Site};
use crate::function::*;
use crate::to_tgsi::note::{At, Entry, Marker};
use tgsi::{File, Register};

impl Checker<'_> {
    /// What instruction `k` means (nothing, for an instruction with no
    /// note: it reads and writes nothing the IR names).
    fn note(&self, k: usize) -> &[Entry] {
        self.notes.of(k)
    }

    /// Applies the markers at instruction `k` (those on the false edge of
    /// the `IF` ending there, or the others) to `state`.
    pub(super) fn apply_markers(&self, k: usize, false_edge: bool, state: &mut State) -> Result<(), CheckError> {
        let (Some(&from), Some(&to)) = (self.first_marker.get(k), self.first_marker.get(k + 1)) else { return Ok(()) };
        let markers = self.notes.markers.get(from as usize..to as usize).unwrap_or_default();
        for placed in markers.iter().filter(|p| p.false_edge == false_edge) {
            match placed.marker {
                Marker::Relabel { chan, from, to } => {
                    let Some(slot) = self.space.slot(chan.file, chan.index as i64, chan.chan) else { continue };
                    if let Some(from) = from {
                        let expected = canonical(self.func, self.imms, from, chan.chan % 2 == 1);
                        let found = state.regs.get(slot);
                        if expected != Fact::Unknown && found != expected {
                            return Err(self.fail(k, Failure::LeftOutCopy { channel: chan, expected, found }));
                        }
                    }
                    state.regs.set(slot, canonical(self.func, self.imms, Operand::new(to), chan.chan % 2 == 1));
                }
                Marker::Store { chan, value } => {
                    if let Some(slot) = self.space.output_slot(chan.index as i64, chan.chan) {
                        state.outputs.set(slot, canonical(self.func, self.imms, value, chan.chan % 2 == 1));
                    }
                }
            }
        }
        Ok(())
    }

    /// Where outputs are observed: every output channel holds what the
    /// IR's stores left there.
    pub(super) fn outputs_observed(&self, k: usize, state: &State) -> Result<(), CheckError> {
        for (i, expected) in state.outputs.iter().enumerate() {
            if expected == Fact::Unknown {
                continue;
            }
            let (index, chan) = ((i / 4) as i64, (i % 4) as u8);
            let found = self.space.slot(File::Output, index, chan).map_or(Fact::Unknown, |s| state.regs.get(s));
            if found != expected {
                let channel = RegChannel { file: File::Output, index: index as u32, chan };
                return Err(self.fail(k, Failure::Output { channel, expected, found }));
            }
        }
        Ok(())
    }

    /// Checks every read of instruction `k` in `state`.
    pub(super) fn reads(&self, k: usize, state: &State) -> Result<(), CheckError> {
        let (inst, note) = (&self.out[k], self.note(k));
        let mut indices = note.iter().filter(|e| e.at() == At::Index).map(|e| e.operand());
        // The sources the note reads values from.
        let mut value_srcs = 0u32;
        for e in note {
            if let At::Src { operand, .. } = e.at() {
                value_srcs |= 1 << operand;
            }
        }
        for (i, src) in inst.src.iter().enumerate() {
            if value_srcs & (1 << i) == 0 {
                // Not a value: a resource, or a register the instruction
                // refers to; its indices are noted apart.
                self.indices(k, &src.reg, &mut indices, state)?;
                continue;
            }
            let sign_bit_read = semantics::sign_bit_modifiers(inst.opcode, i);
            let reads = note.iter().filter_map(|e| match e.at() {
                At::Src { operand, pos } if operand == i => Some((pos as usize, e.operand())),
                _ => None,
            });
            for (pos, o) in reads {
                let site = Site::Source { src: i, pos: pos as u8 };
                let chan = src.swizzle[pos];
                let mods = Mods::of(src.negate, src.absolute);
                let result = self.read(&src.reg, chan, mods, o, pos % 2 == 1, sign_bit_read, site, state);
                result.map_err(|f| self.fail(k, f))?;
            }
        }
        for dst in &inst.dst {
            self.indices(k, &dst.reg, &mut indices, state)?;
        }
        Ok(())
    }

    /// Checks the indirect indices of `reg` against the next noted
    /// operands.
    fn indices(
        &self,
        k: usize,
        reg: &Register,
        noted: &mut impl Iterator<Item = Operand>,
        state: &State,
    ) -> Result<(), CheckError> {
        let dim = reg.dimension.and_then(|d| d.indirect);
        for ind in reg.indirect.iter().chain(dim.iter()) {
            let Some(o) = noted.next() else { return Err(self.fail(k, Failure::UnnotedIndex)) };
            self.index(ind, o, state).map_err(|f| self.fail(k, f))?;
        }
        Ok(())
    }

    /// Checks that the index register channel of `ind` holds `o`.
    fn index(&self, ind: &tgsi::Indirect, o: Operand, state: &State) -> Result<(), Failure> {
        let reg = Register::new(ind.file, ind.index);
        self.read(&reg, ind.component, Mods::default(), o, false, false, Site::Index, state)
    }

    /// Whether the IR's value `v` is loaded from memory.
    fn is_load(&self, v: Value) -> bool {
        let def = self.func.values.get(v).and_then(|d| self.func.insts.get(d.def));
        def.is_some_and(|d| matches!(d.op, Op::LoadIndirect { .. } | Op::ArrayLoad { .. }))
    }

    /// Checks a read of channel `chan` of `reg` through `mods` against the
    /// IR's operand `o` (`odd`: at the second position of a pair).
    #[allow(clippy::too_many_arguments)]
    fn read(
        &self,
        reg: &Register,
        chan: u8,
        mods: Mods,
        o: Operand,
        odd: bool,
        sign_bit_read: bool,
        site: Site,
        state: &State,
    ) -> Result<(), Failure> {
        let direct = reg.indirect.is_none() && reg.dimension.is_none();
        let index = reg.index as i64;
        let channel = RegChannel { file: reg.file, index: reg.index.max(0) as u32, chan };
        let expected = canonical(self.func, self.imms, o, odd);
        if expected == Fact::Unknown {
            // An undefined value: anything will do.
            return Ok(());
        }
        if direct && Space::tracks(reg.file) && !self.space.in_array(reg.file, index) {
            let held = self.space.slot(reg.file, index, chan).map_or(Fact::Unknown, |s| state.regs.get(s));
            let got = held.read(mods, sign_bit_read);
            // A load of an output kept in memory (a tessellation control
            // shader's) reads the output itself, whose contents the IR
            // does not name: where it reads is checked below.
            let loaded_here = || self.is_load(o.value) && reg.file == File::Output;
            if (got != Some(expected) || held == Fact::Unknown) && !loaded_here() {
                return Err(Failure::Read { site, channel, expected, found: got.unwrap_or(held) });
            }
            if got == Some(expected) && held != Fact::Unknown {
                return Ok(());
            }
        }
        if direct && reg.file == File::Immediate {
            let bits = self.imms.get(index.max(0) as usize).map(|imm| imm.data[chan as usize & 3]);
            let held = bits.map_or(Fact::Unknown, |b| Fact::Bits(b, Mods::default()));
            if held.read(mods, sign_bit_read) != Some(expected) || held == Fact::Unknown {
                return Err(Failure::Read { site, channel, expected, found: held.read(mods, true).unwrap_or(held) });
            }
            return Ok(());
        }
        // An input, constant or system value the IR reads, or a register
        // it loads from: the register must be the one the IR names.
        let named = mods == Mods::of(o.neg, o.abs) && self.names(reg, chan, o.value, state)?;
        if !named {
            let definition = self.func.values.get(o.value).and_then(|d| self.func.insts.get(d.def));
            return Err(Failure::Register {
                site,
                register: format!("{}{}", register_name(reg), channel_suffix(chan, mods)),
                expected: o.value,
                definition: definition.map_or_else(|| "undefined".into(), |d| format!("{:?}", d.op)),
            });
        }
        Ok(())
    }

    /// Whether reading channel `chan` of `reg` (not a channel the state
    /// tracks) is the read or load that defines `v`; the indices of a load
    /// must hold its index operands.
    fn names(&self, reg: &Register, chan: u8, v: Value, state: &State) -> Result<bool, Failure> {
        let Some(data) = self.func.values.get(v).and_then(|d| self.func.insts.get(d.def)) else { return Ok(false) };
        let dim = reg.dimension.map(|d| d.index);
        match &data.op {
            Op::Read(s) => Ok(reg.indirect.is_none()
                && reg.dimension.is_none_or(|d| d.indirect.is_none())
                && (s.file, s.dim.map(|d| d as i32), s.index as i64, s.chan)
                    == (reg.file, dim, reg.index as i64, chan)),
            Op::LoadIndirect { reg: loaded, chan: c } => {
                let same_dim = match (loaded.dimension, reg.dimension) {
                    (None, None) => true,
                    (Some(a), Some(b)) => a.index == b.index && a.indirect.is_some() == b.indirect.is_some(),
                    _ => false,
                };
                let same = (loaded.file, loaded.index, loaded.indirect.is_some())
                    == (reg.file, reg.index, reg.indirect.is_some())
                    && same_dim
                    && *c == chan;
                if !same {
                    return Ok(false);
                }
                self.load_indices(reg, &data.args, state)?;
                Ok(true)
            }
            Op::ArrayLoad { array, offset, chan: c } => {
                let Some(a) = self.func.arrays.get(*array) else { return Ok(false) };
                let same = reg.file == a.file
                    && reg.index as i64 == a.first as i64 + *offset as i64
                    && reg.indirect.is_some() != data.args.is_empty()
                    && reg.dimension.is_none()
                    && *c == chan;
                if !same {
                    return Ok(false);
                }
                self.load_indices(reg, &data.args, state)?;
                Ok(true)
            }
            _ => Ok(false),
        }
    }

    /// Checks that the indices of `reg` hold a load's index operands.
    fn load_indices(&self, reg: &Register, args: &[Operand], state: &State) -> Result<(), Failure> {
        let dim = reg.dimension.and_then(|d| d.indirect);
        for (ind, &o) in reg.indirect.iter().chain(dim.iter()).zip(args) {
            self.index(ind, o, state)?;
        }
        Ok(())
    }

    /// Applies the writes of instruction `k` to `state`.
    pub(super) fn writes(&self, k: usize, state: &mut State) {
        let (inst, note) = (&self.out[k], self.note(k));
        for (d, dst) in inst.dst.iter().enumerate() {
            let reg = &dst.reg;
            if !Space::tracks(reg.file) {
                continue;
            }
            let chans = (0..4u8).filter(|c| dst.write_mask & (1 << c) != 0);
            if reg.indirect.is_some() || reg.dimension.is_some() {
                // It may write any register of its array (or file): the
                // checker knows nothing of them after, nor of what the
                // IR's outputs are there.
                let id = reg.indirect.map_or(0, |i| i.array_id);
                let (first, last) = self.space.reach(reg.file, reg.index as i64, id);
                for index in first..=last {
                    for c in chans.clone() {
                        if let Some(slot) = self.space.slot(reg.file, index as i64, c) {
                            state.regs.set(slot, Fact::Unknown);
                        }
                        if reg.file == File::Output {
                            if let Some(slot) = self.space.output_slot(index as i64, c) {
                                state.outputs.set(slot, Fact::Unknown);
                            }
                        }
                    }
                }
                continue;
            }
            for c in chans {
                let Some(slot) = self.space.slot(reg.file, reg.index as i64, c) else { continue };
                let holds = note.iter().find(|e| e.at() == At::Dst { operand: d, chan: c }).map(|e| e.operand());
                state.regs.set(slot, holds.map_or(Fact::Unknown, |o| canonical(self.func, self.imms, o, c % 2 == 1)));
            }
        }
    }
}

/// `CONST[ADDR[0].x+3]`, `IN[1][2]`.
fn register_name(reg: &Register) -> String {
    let index = |index: i32, ind: Option<tgsi::Indirect>| match ind {
        Some(i) => format!("[{}[{}].{}{:+}]", i.file.name(), i.index, super::channel_letter(i.component), index),
        None => format!("[{index}]"),
    };
    let dim = reg.dimension.map(|d| index(d.index, d.indirect)).unwrap_or_default();
    format!("{}{dim}{}", reg.file.name(), index(reg.index, reg.indirect))
}

/// `.y` with the modifiers around it shown as `-|..|`.
fn channel_suffix(chan: u8, mods: Mods) -> String {
    let c = super::channel_letter(chan);
    match (mods.neg, mods.abs) {
        (false, false) => format!(".{c}"),
        (true, false) => format!(".{c} (negated)"),
        (false, true) => format!(".{c} (absolute)"),
        (true, true) => format!(".{c} (negated absolute)"),
    }
}
