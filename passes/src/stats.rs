//! Named counters a pass reports.

use std::fmt;

/// A small ordered list of named counters, such as `("values removed", 12)`.
/// Counters keep the order they were first added in, so printed statistics
/// are deterministic.
///
/// ```
/// let mut s = passes::Stats::default();
/// s.add("values removed", 3);
/// s.add("phis removed", 0);
/// s.add("values removed", 2);
/// assert_eq!(s.get("values removed"), Some(5));
/// assert_eq!(s.iter().collect::<Vec<_>>(), [("values removed", 5), ("phis removed", 0)]);
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    counters: Vec<(&'static str, u64)>,
}

impl Stats {
    /// Adds `n` to the counter `name`, creating it (after the others) if
    /// it is new.
    pub fn add(&mut self, name: &'static str, n: u64) {
        match self.counters.iter_mut().find(|(k, _)| *k == name) {
            Some((_, v)) => *v = v.saturating_add(n),
            None => self.counters.push((name, n)),
        }
    }

    /// Adds every counter of `other`.
    pub fn merge(&mut self, other: &Stats) {
        for (k, v) in other.iter() {
            self.add(k, v);
        }
    }

    /// The counter `name`, if it was ever added.
    pub fn get(&self, name: &str) -> Option<u64> {
        self.counters.iter().find(|(k, _)| *k == name).map(|&(_, v)| v)
    }

    /// Every counter, in the order first added.
    pub fn iter(&self) -> impl Iterator<Item = (&'static str, u64)> + '_ {
        self.counters.iter().copied()
    }

    /// Whether every counter is zero (or there are none).
    pub fn is_zero(&self) -> bool {
        self.counters.iter().all(|&(_, v)| v == 0)
    }
}

impl fmt::Display for Stats {
    /// One `name: value` pair per line, names padded to one width.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let width = self.counters.iter().map(|(k, _)| k.len()).max().unwrap_or(0);
        for (k, v) in &self.counters {
            writeln!(f, "{k:<width$}  {v:>8}")?;
        }
        Ok(())
    }
}
