//! The checker's state: a fact per channel of every TEMP, OUT and ADDR
//! register the emitted code names, and the IR's view of each output
//! channel (what the stores on the path so far left there), in dense
//! vectors indexed by register channel.
//!
//! A state is kept for every open branch, so the vectors are chunks
//! shared until written: keeping one costs a pointer per chunk, and an
//! arm copies only the chunks it writes.

use super::fact::{Fact, Mods};
use std::rc::Rc;
use tgsi::File;

/// Facts per chunk: four registers.
const CHUNK: usize = 16;

/// A vector of facts in chunks shared between states until written.
#[derive(Clone, Debug)]
pub(super) struct Facts {
    chunks: Vec<Rc<[Fact; CHUNK]>>,
    len: usize,
}

impl Facts {
    /// `len` copies of `fact`, all in one shared chunk.
    fn new(len: usize, fact: Fact) -> Facts {
        let chunk = Rc::new([fact; CHUNK]);
        Facts { chunks: vec![chunk; len.div_ceil(CHUNK)], len }
    }

    /// How many facts there are.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Fact `i` (unknown past the end).
    pub fn get(&self, i: usize) -> Fact {
        if i >= self.len {
            return Fact::Unknown;
        }
        self.chunks.get(i / CHUNK).map_or(Fact::Unknown, |c| c[i % CHUNK])
    }

    /// Sets fact `i`, copying its chunk if another state shares it.
    pub fn set(&mut self, i: usize, fact: Fact) {
        if i >= self.len || self.get(i) == fact {
            return;
        }
        if let Some(chunk) = self.chunks.get_mut(i / CHUNK) {
            Rc::make_mut(chunk)[i % CHUNK] = fact;
        }
    }

    /// The facts in order.
    pub fn iter(&self) -> impl Iterator<Item = Fact> + '_ {
        self.chunks.iter().flat_map(|c| c.iter().copied()).take(self.len)
    }

    /// Keeps the facts `other` agrees with; the others become unknown.
    fn meet(&mut self, other: &Facts) {
        for (mine, theirs) in self.chunks.iter_mut().zip(&other.chunks) {
            if Rc::ptr_eq(mine, theirs) || **mine == **theirs {
                continue;
            }
            let mine = Rc::make_mut(mine);
            for (a, b) in mine.iter_mut().zip(theirs.iter()) {
                if a != b {
                    *a = Fact::Unknown;
                }
            }
        }
    }
}

impl PartialEq for Facts {
    fn eq(&self, other: &Facts) -> bool {
        self.len == other.len && self.chunks.iter().zip(&other.chunks).all(|(a, b)| Rc::ptr_eq(a, b) || **a == **b)
    }
}

impl Eq for Facts {}

/// Where each register file's channels are in a [`State`], and which
/// registers arrays hold.
pub(super) struct Space {
    temps: u32,
    outputs: u32,
    addrs: u32,
    /// Every array of TEMP or OUT registers.
    arrays: Vec<ArrayRange>,
}

/// The registers of an array, and the id its accesses are written with
/// (0 for none).
#[derive(Clone, Copy)]
pub(super) struct ArrayRange {
    pub file: File,
    pub first: u32,
    pub last: u32,
    pub id: u16,
}

impl Space {
    /// A space of `temps` TEMP, `outputs` OUT and `addrs` ADDR registers.
    pub fn new(temps: u32, outputs: u32, addrs: u32, arrays: Vec<ArrayRange>) -> Space {
        Space { temps, outputs, addrs, arrays }
    }

    /// Whether the checker keeps facts of `file`'s registers.
    pub fn tracks(file: File) -> bool {
        matches!(file, File::Temporary | File::Output | File::Address)
    }

    /// The slot of a register channel, if the space has it.
    pub fn slot(&self, file: File, index: i64, chan: u8) -> Option<usize> {
        let (base, count) = match file {
            File::Temporary => (0, self.temps),
            File::Output => (self.temps, self.outputs),
            File::Address => (self.temps + self.outputs, self.addrs),
            _ => return None,
        };
        let index = u32::try_from(index).ok().filter(|&i| i < count)?;
        Some(4 * (base + index) as usize + (chan as usize & 3))
    }

    /// The output slot (in [`State::outputs`]) of OUT channel `index.chan`.
    pub fn output_slot(&self, index: i64, chan: u8) -> Option<usize> {
        let index = u32::try_from(index).ok().filter(|&i| i < self.outputs)?;
        Some(4 * index as usize + (chan as usize & 3))
    }

    /// Whether register `index` of `file` is an element of an array (its
    /// contents are memory, which the IR reads with loads).
    pub fn in_array(&self, file: File, index: i64) -> bool {
        self.array_at(file, index).is_some()
    }

    /// The array register `index` of `file` is an element of.
    fn array_at(&self, file: File, index: i64) -> Option<&ArrayRange> {
        self.arrays.iter().find(|a| a.file == file && (a.first as i64..=a.last as i64).contains(&index))
    }

    /// The registers an indirect access based at `index` of `file` with
    /// array id `id` may reach: the array of that id (an access out of
    /// its range writes nothing, as the IR's array stores), else the array
    /// `index` is in, else the whole file.
    pub fn reach(&self, file: File, index: i64, id: u16) -> (u32, u32) {
        let all = match file {
            File::Temporary => self.temps,
            File::Output => self.outputs,
            _ => self.addrs,
        };
        let by_id = self.arrays.iter().find(|a| id != 0 && a.file == file && a.id == id);
        by_id.or_else(|| self.array_at(file, index)).map_or((0, all.saturating_sub(1)), |a| (a.first, a.last))
    }

    /// The register file of slot `slot`.
    pub fn channel_file(&self, slot: usize) -> File {
        let reg = (slot / 4) as u32;
        if reg < self.temps {
            File::Temporary
        } else if reg < self.temps + self.outputs {
            File::Output
        } else {
            File::Address
        }
    }

    /// Registers start as zero (Mesa's interpreter clears them), and the
    /// IR's outputs too.
    pub fn initial(&self) -> State {
        let zero = Fact::Bits(0, Mods::default());
        State {
            regs: Facts::new(4 * (self.temps + self.outputs + self.addrs) as usize, zero),
            outputs: Facts::new(4 * self.outputs as usize, zero),
        }
    }
}

/// The facts on one path through the emitted code.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct State {
    /// By [`Space::slot`].
    pub regs: Facts,
    /// What the IR's stores left in each output channel, by
    /// [`Space::output_slot`].
    pub outputs: Facts,
}

impl State {
    /// Keeps the facts `other` agrees with; the others become unknown.
    fn meet(&mut self, other: &State) {
        self.regs.meet(&other.regs);
        self.outputs.meet(&other.outputs);
    }
}

/// The state where paths `a` and `b` (either of which may not exist)
/// meet.
pub(super) fn join(a: Option<State>, b: Option<&State>) -> Option<State> {
    match (a, b) {
        (Some(mut a), Some(b)) => {
            a.meet(b);
            Some(a)
        }
        (Some(a), None) => Some(a),
        (None, b) => b.cloned(),
    }
}
