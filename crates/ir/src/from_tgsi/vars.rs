//! The registers tracked as SSA variables and their current values while
//! the builder walks the program.
//!
//! Every channel of a TEMP, OUT or ADDR register that is not kept in memory
//! is a variable. Writes are logged so a structured construct can roll the
//! state back to where it started (to build its other arm) and learn which
//! variables its arms changed.

use crate::function::{RegChannel, Value};
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};
use tgsi::File;

/// A dense index of a tracked register channel.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) struct Var(pub u32);

/// The variables and their current values.
#[derive(Default)]
pub(crate) struct Vars {
    ids: HashMap<(File, u32, u8), Var>,
    regs: Vec<RegChannel>,
    current: Vec<Option<Value>>,
    /// (variable, value before the write), in write order.
    log: Vec<(Var, Option<Value>)>,
}

impl Vars {
    /// The variable of a register channel, created on first use.
    pub fn var(&mut self, file: File, index: u32, chan: u8) -> Var {
        if let Some(&v) = self.ids.get(&(file, index, chan)) {
            return v;
        }
        let v = Var(self.regs.len() as u32);
        self.ids.insert((file, index, chan), v);
        self.regs.push(RegChannel { file, index, chan });
        self.current.push(None);
        v
    }

    /// How many variables there are.
    pub fn len(&self) -> usize {
        self.regs.len()
    }

    /// The register channel of a variable.
    pub fn reg(&self, v: Var) -> RegChannel {
        self.regs[v.0 as usize]
    }

    /// The current value; `None` when never written (it reads as zero).
    pub fn get(&self, v: Var) -> Option<Value> {
        self.current[v.0 as usize]
    }

    /// Sets the current value, logging the old one.
    pub fn set(&mut self, v: Var, value: Value) {
        let old = self.current[v.0 as usize].replace(value);
        self.log.push((v, old));
    }

    /// A point to roll back to.
    pub fn mark(&self) -> usize {
        self.log.len()
    }

    /// The variables written since `mark`, each once, in first-write order.
    pub fn changed_since(&self, mark: usize) -> Vec<Var> {
        let mut seen = HashSet::default();
        self.log[mark..].iter().map(|&(v, _)| v).filter(|v| seen.insert(*v)).collect()
    }

    /// Undoes every write since `mark`.
    pub fn rollback(&mut self, mark: usize) {
        while self.log.len() > mark {
            let Some((v, old)) = self.log.pop() else { break };
            self.current[v.0 as usize] = old;
        }
    }
}
