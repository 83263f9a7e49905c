//! The results of a run: every declared `OUT` register of every lane, and
//! which lanes were killed.
//!
//! The text format, ordered by lane, then register index, with a lane's
//! `kill` line after its outputs (as the reference harness prints it):
//!
//! ```text
//! output INDEX LANE 0xXXXXXXXX 0xXXXXXXXX 0xXXXXXXXX 0xXXXXXXXX
//! kill LANE
//! ```

use std::collections::BTreeMap;
use std::fmt::Write as _;

use crate::error::{StateError, StateErrorKind};
use crate::state::MAX_INVOCATIONS;
use crate::syntax::{expect_operands, integer, lines, vec4};

/// The directives of the outputs format.
pub const OUTPUT_DIRECTIVES: &[&str] = &["output", "kill"];

/// Every declared `OUT` register of every lane, as the bits of its four
/// channels, and a kill flag per lane. Outputs start as zero bits.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outputs {
    invocations: u32,
    /// Declared OUT indices, ascending, without repeats.
    registers: Vec<u32>,
    /// Lane-major: lane `l`, register slot `r` is at `l * registers.len() + r`.
    values: Vec<[u32; 4]>,
    killed: Vec<bool>,
}

impl Outputs {
    /// Zeroed outputs for `invocations` lanes and the declared OUT indices
    /// `registers` (in any order; repeats are dropped).
    pub fn new(invocations: u32, registers: impl IntoIterator<Item = u32>) -> Outputs {
        let mut registers: Vec<u32> = registers.into_iter().collect();
        registers.sort_unstable();
        registers.dedup();
        let lanes = invocations as usize;
        Outputs { invocations, values: vec![[0; 4]; lanes * registers.len()], registers, killed: vec![false; lanes] }
    }

    /// The number of lanes.
    pub fn invocations(&self) -> u32 {
        self.invocations
    }

    /// The declared OUT indices, ascending.
    pub fn registers(&self) -> &[u32] {
        &self.registers
    }

    fn slot(&self, index: u32, lane: u32) -> Option<usize> {
        let r = self.registers.binary_search(&index).ok()?;
        (lane < self.invocations).then(|| lane as usize * self.registers.len() + r)
    }

    /// `OUT[index]` of `lane`; `None` when the register is not declared or
    /// the lane is out of range.
    pub fn get(&self, index: u32, lane: u32) -> Option<[u32; 4]> {
        self.slot(index, lane).map(|s| self.values[s])
    }

    /// `OUT[index]` of `lane`, to write; `None` when the register is not
    /// declared or the lane is out of range.
    pub fn get_mut(&mut self, index: u32, lane: u32) -> Option<&mut [u32; 4]> {
        self.slot(index, lane).map(|s| &mut self.values[s])
    }

    /// The values, lane-major (`lane * registers().len() + register slot`),
    /// and the kill flags, for a run to fill in.
    pub(crate) fn lanes_mut(&mut self) -> (&mut [[u32; 4]], &mut [bool]) {
        (&mut self.values, &mut self.killed)
    }

    /// Whether `lane` was killed (false for a lane out of range).
    pub fn is_killed(&self, lane: u32) -> bool {
        self.killed.get(lane as usize).copied().unwrap_or(false)
    }

    /// Marks `lane` killed; returns false (and does nothing) when the lane
    /// is out of range.
    pub fn kill(&mut self, lane: u32) -> bool {
        match self.killed.get_mut(lane as usize) {
            Some(k) => {
                *k = true;
                true
            }
            None => false,
        }
    }

    /// The text form: per lane, its outputs by register index, then `kill`
    /// if it was killed.
    pub fn write(&self) -> String {
        let mut out = String::new();
        let n = self.registers.len();
        for lane in 0..self.invocations as usize {
            for (r, index) in self.registers.iter().enumerate() {
                let [x, y, z, w] = self.values[lane * n + r];
                // Writing to a String cannot fail.
                let _ = writeln!(out, "output {index} {lane} 0x{x:08x} 0x{y:08x} 0x{z:08x} 0x{w:08x}");
            }
            if self.killed[lane] {
                let _ = writeln!(out, "kill {lane}");
            }
        }
        out
    }

    /// Reads outputs from their text form (a `.expected` file). Lines may
    /// come in any order, and `#` comments and blank lines are skipped. The
    /// lanes are 0 up to the highest lane named; the registers are the
    /// indices named by `output` lines, and every one of them must be given
    /// exactly once for every lane.
    pub fn parse(text: &str) -> Result<Outputs, StateError> {
        // (index, lane) -> (value, line, column of the index token), kept
        // sparse until the set is known to be complete.
        let mut given: BTreeMap<(u32, u32), ([u32; 4], usize, usize)> = BTreeMap::new();
        let mut kills: BTreeMap<u32, usize> = BTreeMap::new();
        let mut lanes: u32 = 0;
        for tokens in lines(text) {
            let head = tokens[0];
            let ops = &tokens[1..];
            match head.text {
                "output" => {
                    expect_operands(&tokens, "output", "INDEX LANE x y z w", 6)?;
                    let index = integer(&ops[0], "an output index", u32::MAX)?;
                    let lane = integer(&ops[1], "a lane", MAX_INVOCATIONS - 1)?;
                    let value = vec4(&ops[2..])?;
                    if let Some(&(_, first_line, _)) = given.get(&(index, lane)) {
                        return Err(head.error(StateErrorKind::DuplicateOutput { index, lane, first_line }));
                    }
                    given.insert((index, lane), (value, head.line, ops[0].column));
                    lanes = lanes.max(lane + 1);
                }
                "kill" => {
                    expect_operands(&tokens, "kill", "LANE", 1)?;
                    let lane = integer(&ops[0], "a lane", MAX_INVOCATIONS - 1)?;
                    if let Some(&first_line) = kills.get(&lane) {
                        return Err(head.error(StateErrorKind::DuplicateKill { lane, first_line }));
                    }
                    kills.insert(lane, head.line);
                    lanes = lanes.max(lane + 1);
                }
                other => {
                    return Err(head.error(StateErrorKind::UnknownDirective {
                        found: other.to_string(),
                        known: OUTPUT_DIRECTIVES,
                    }))
                }
            }
        }
        let mut registers: Vec<u32> = given.keys().map(|&(index, _)| index).collect();
        registers.dedup();
        // Check completeness before allocating, so the allocation is no
        // larger than the text.
        for &index in &registers {
            // The lanes given for `index` come ascending, so the first lane
            // that differs from its position is the first one missing.
            let mut expected_lane = 0;
            for &(_, lane) in given.range((index, 0)..=(index, u32::MAX)).map(|(k, _)| k) {
                if lane != expected_lane {
                    break;
                }
                expected_lane += 1;
            }
            if expected_lane < lanes {
                return Err(missing(&given, index, expected_lane));
            }
        }
        let mut outputs = Outputs::new(lanes, registers);
        for (&(index, lane), &(value, _, _)) in &given {
            if let Some(slot) = outputs.get_mut(index, lane) {
                *slot = value;
            }
        }
        for &lane in kills.keys() {
            outputs.kill(lane);
        }
        Ok(outputs)
    }
}

/// The error for `OUT[index]` missing on `lane`, pointing at the first line
/// that gives the register.
fn missing(given: &BTreeMap<(u32, u32), ([u32; 4], usize, usize)>, index: u32, lane: u32) -> StateError {
    let (line, column) = given.range((index, 0)..).next().map_or((1, 1), |(_, &(_, line, column))| (line, column));
    StateError { line, column, text: index.to_string(), kind: StateErrorKind::MissingOutput { index, lane } }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn new_sorts_and_dedups_registers() {
        let o = Outputs::new(2, [3, 1, 3]);
        assert_eq!(o.registers(), &[1, 3]);
        assert_eq!(o.get(2, 0), None);
        assert_eq!(o.get(3, 2), None);
        assert_eq!(o.get(3, 1), Some([0; 4]));
    }
}
