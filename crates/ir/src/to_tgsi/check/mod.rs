//! The allocation checker: a static walk over the emitted instructions
//! that proves every read finds the value the IR reads there and no
//! value's channel is overwritten while the IR still reads it.
//!
//! Emission notes what it means by each instruction (`note`): the IR
//! operand each destination channel holds afterwards, the one each source
//! position reads. The walk interprets the emitted code abstractly over
//! its structured control flow (`walk`), keeping for every TEMP, OUT and
//! ADDR channel the fact it holds ([`Fact`], `state`): a written channel
//! holds what the note says, joins keep the facts every incoming path
//! agrees on, and loops are walked again until their head's facts stop
//! changing. Each read is checked against the fact of its channel, an
//! immediate's bits, or the input, constant or load the IR names
//! (`access`); where outputs are observed (`END`, `RET`, `EMIT`), each
//! output channel must hold what the IR's stores left there.
//!
//! The walk trusts the instructions for where they read and write and the
//! notes only for what the IR means, so a wrong register, a channel
//! overwritten early, a copy left out or a join whose paths disagree all
//! show as a read that finds something else. It is linear in the emitted
//! code times the rounds of each loop (a round only turns facts unknown,
//! so there are few).

mod access;
mod fact;
mod loops;
mod state;
mod walk;

#[cfg(test)]
mod tests;

use super::layout::Layout;
use super::note::Notes;
use crate::function::*;
use state::Space;
use tgsi::File;

pub use fact::{Fact, Half, Mods};

/// The emitted code does not do what the IR says.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("instruction {at} `{instruction}`: {failure}")]
pub struct CheckError {
    /// The index of the emitted instruction (counted from 0, as branch
    /// labels count), before which a failure of a left-out copy is.
    pub at: usize,
    /// The instruction, printed with the registers as allocated (before
    /// the TEMP registers in use are numbered densely).
    pub instruction: String,
    /// What is wrong.
    pub failure: Failure,
}

/// What the checker found wrong.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Failure {
    /// A read finds something other than the IR's operand.
    #[error("{site} reads {}, which holds {found}, expecting {expected}", channel_name(*.channel))]
    Read {
        /// Where in the instruction.
        site: Site,
        /// The channel read (an immediate's word for `IMM`).
        channel: RegChannel,
        /// The IR's operand there.
        expected: Fact,
        /// What the channel holds.
        found: Fact,
    },
    /// A read of an input, constant, system value or indirectly addressed
    /// register that is not the one the IR's operand is a read or load of.
    #[error("{site} reads {register}, which is not {expected} (`{definition}`)")]
    Register {
        /// Where in the instruction.
        site: Site,
        /// The register channel read, printed.
        register: String,
        /// The IR's value there.
        expected: Value,
        /// How the IR defines it, printed.
        definition: String,
    },
    /// A phi copy left out (its argument already in the phi's channel)
    /// finds something else in that channel.
    #[error("a phi copy left out here expects {} to hold {expected}, which holds {found}", channel_name(*.channel))]
    LeftOutCopy {
        /// The phi's channel.
        channel: RegChannel,
        /// The phi's argument.
        expected: Fact,
        /// What the channel holds.
        found: Fact,
    },
    /// Where outputs are observed, an output channel does not hold what
    /// the IR's stores left there.
    #[error("{} holds {found} where the IR's stores left {expected}", channel_name(*.channel))]
    Output {
        /// The output channel.
        channel: RegChannel,
        /// What the IR stored (or zero, when it stored nothing).
        expected: Fact,
        /// What the channel holds.
        found: Fact,
    },
    /// An indirect index of a register that is not a value, with no IR
    /// operand noted for it.
    #[error("an indirect index with no operand noted for it")]
    UnnotedIndex,
    /// Control flow the walk cannot follow (unbalanced constructs,
    /// subroutines, which the IR inlines).
    #[error("{0}")]
    Structure(&'static str),
}

/// Where in an instruction a read is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Site {
    /// Source operand `src` at swizzle position `pos`.
    Source {
        /// The source operand, from 0.
        src: usize,
        /// The swizzle position, 0..=3 for x..w.
        pos: u8,
    },
    /// An indirect index (`[ADDR[0].x+k]`) of an operand.
    Index,
}

impl std::fmt::Display for Site {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Site::Source { src, pos } => write!(f, "source {src} at .{}", channel_letter(*pos)),
            Site::Index => f.write_str("an indirect index"),
        }
    }
}

fn channel_letter(chan: u8) -> char {
    ['x', 'y', 'z', 'w'][chan as usize & 3]
}

/// `TEMP[3].y`.
fn channel_name(c: RegChannel) -> String {
    format!("{}[{}].{}", c.file.name(), c.index, channel_letter(c.chan))
}

/// Checks `out` (with `notes`, what the emitter meant by each instruction
/// and between them) against `func`; `imms` are the immediates `out`
/// names.
pub(super) fn check(
    func: &Function,
    layout: &Layout,
    out: &[tgsi::Instruction],
    notes: &Notes,
    imms: &[tgsi::Immediate],
    processor: tgsi::Processor,
) -> Result<(), CheckError> {
    let checker = Checker::new(func, layout, out, notes, imms, processor);
    checker.run()
}

/// What the walk reads.
struct Checker<'a> {
    func: &'a Function,
    layout: &'a Layout,
    loops: loops::Loops,
    out: &'a [tgsi::Instruction],
    notes: &'a Notes,
    imms: &'a [tgsi::Immediate],
    processor: tgsi::Processor,
    space: Space,
    /// `first_marker[k]`: the first of `notes.markers` at instruction `k`
    /// or later.
    first_marker: Vec<u32>,
}

impl<'a> Checker<'a> {
    fn new(
        func: &'a Function,
        layout: &'a Layout,
        out: &'a [tgsi::Instruction],
        notes: &'a Notes,
        imms: &'a [tgsi::Immediate],
        processor: tgsi::Processor,
    ) -> Checker<'a> {
        // The registers the code names, the arrays' and the markers'.
        let mut count = [0u32; 3];
        let mut see = |file: File, index: i64| {
            let k = match file {
                File::Temporary => 0,
                File::Output => 1,
                File::Address => 2,
                _ => return,
            };
            if let Ok(i) = u32::try_from(index) {
                count[k] = count[k].max(i.saturating_add(1));
            }
        };
        for inst in out {
            let regs = inst.src.iter().map(|s| &s.reg).chain(inst.dst.iter().map(|d| &d.reg));
            for reg in regs {
                see(reg.file, reg.index as i64);
                let dim = reg.dimension.and_then(|d| d.indirect);
                for ind in reg.indirect.iter().chain(dim.iter()) {
                    see(ind.file, ind.index as i64);
                }
            }
        }
        for placed in &notes.markers {
            let chan = match placed.marker {
                super::note::Marker::Relabel { chan, .. } | super::note::Marker::Store { chan, .. } => chan,
            };
            see(chan.file, chan.index as i64);
        }
        let mut arrays = Vec::new();
        for (_, a) in func.arrays.iter() {
            if a.len > 0 {
                see(a.file, a.first as i64 + a.len as i64 - 1);
                let id = super::indirect::emitted_array_id(func, a);
                arrays.push(state::ArrayRange { file: a.file, first: a.first, last: a.first + a.len - 1, id });
            }
        }
        let space = Space::new(count[0], count[1], count[2], arrays);
        let mut first_marker = Vec::with_capacity(out.len() + 1);
        let mut m = 0;
        for k in 0..=out.len() {
            while notes.markers.get(m).is_some_and(|p| p.at < k) {
                m += 1;
            }
            first_marker.push(m as u32);
        }
        let loops = loops::Loops::new(func, out, layout, imms);
        Checker { func, layout, loops, out, notes, imms, processor, space, first_marker }
    }

    /// Instruction `k` printed.
    fn printed(&self, k: usize) -> String {
        let Some(inst) = self.out.get(k) else { return "(past the end)".into() };
        let shader = tgsi::Shader { processor: self.processor, items: vec![tgsi::Item::Instruction(inst.clone())] };
        let text = tgsi::print(&shader, tgsi::Style::Exact);
        let line = text.lines().nth(1).unwrap_or_default();
        line.split_once(": ").map_or(line, |(_, rest)| rest).trim().to_string()
    }

    fn fail(&self, at: usize, failure: Failure) -> CheckError {
        CheckError { at, instruction: self.printed(at), failure }
    }
}
