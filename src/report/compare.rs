//! Two sets of shaders compared stat by stat, as shader-db's `report.py`
//! does: totals over the shaders both sets have, totals over the shaders
//! a change affects, and how many it helped and hurt.

use std::collections::BTreeMap;

use super::{ShaderStats, Stat, Stats};

/// The comparison of a set of shaders before and after a change.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Comparison {
    /// The shaders both sets have (matched by file name), in name order,
    /// with their statistics before and after.
    pub shared: Vec<(ShaderStats, Stats)>,
    /// Files only the first set has.
    pub only_before: Vec<String>,
    /// Files only the second set has.
    pub only_after: Vec<String>,
}

/// What a change did to one statistic.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StatChange {
    /// The statistic.
    pub stat: Stat,
    /// Its totals before and after over the shared shaders.
    pub shared: (u64, u64),
    /// Its totals before and after over the shaders whose count changed.
    pub affected: (u64, u64),
    /// Shaders whose count went down.
    pub helped: usize,
    /// Shaders whose count went up.
    pub hurt: usize,
}

impl Comparison {
    /// Matches `before` and `after` by file name.
    pub fn new(before: &[ShaderStats], after: &[ShaderStats]) -> Comparison {
        let after_by_name: BTreeMap<&str, &ShaderStats> = after.iter().map(|s| (s.file.as_str(), s)).collect();
        let before_by_name: BTreeMap<&str, &ShaderStats> = before.iter().map(|s| (s.file.as_str(), s)).collect();
        let mut shared = Vec::new();
        let mut only_before = Vec::new();
        for (name, old) in &before_by_name {
            match after_by_name.get(name) {
                Some(new) => shared.push(((*old).clone(), new.stats)),
                None => only_before.push(name.to_string()),
            }
        }
        let only_after =
            after_by_name.keys().filter(|name| !before_by_name.contains_key(*name)).map(|n| n.to_string()).collect();
        Comparison { shared, only_before, only_after }
    }

    /// What the change did to `stat`.
    pub fn change(&self, stat: Stat) -> StatChange {
        let mut change = StatChange { stat, shared: (0, 0), affected: (0, 0), helped: 0, hurt: 0 };
        for (old, new) in &self.shared {
            let (b, a) = (old.stats[stat], new[stat]);
            change.shared.0 += b;
            change.shared.1 += a;
            if a != b {
                change.affected.0 += b;
                change.affected.1 += a;
            }
            change.helped += usize::from(a < b);
            change.hurt += usize::from(a > b);
        }
        change
    }

    /// The `count` shaders `stat` went down most for (helped) or up most
    /// for (hurt), largest change first, then by name: (file, before, after).
    pub fn extremes(&self, stat: Stat, hurt: bool, count: usize) -> Vec<(&str, u64, u64)> {
        let mut moved: Vec<(&str, u64, u64)> = self
            .shared
            .iter()
            .map(|(old, new)| (old.file.as_str(), old.stats[stat], new[stat]))
            .filter(|&(_, b, a)| if hurt { a > b } else { a < b })
            .collect();
        moved.sort_by(|x, y| x.2.abs_diff(x.1).cmp(&y.2.abs_diff(y.1)).reverse().then(x.0.cmp(y.0)));
        moved.truncate(count);
        moved
    }
}

/// `after` against `before` in percent, as report.py prints it
/// (`-23.40%`); `0.00%` when both are zero.
pub(super) fn percent(before: u64, after: u64) -> String {
    if before == after {
        return "0.00%".to_string();
    }
    if before == 0 {
        return "+inf%".to_string();
    }
    let change = (after as f64 - before as f64) * 100.0 / before as f64;
    format!("{change:+.2}%")
}

#[cfg(test)]
mod tests {
    use super::*;
    use tgsi::Processor;

    fn shader(file: &str, instructions: u64, temps: u64) -> ShaderStats {
        let mut stats = Stats::default();
        stats[Stat::Instructions] = instructions;
        stats[Stat::Temps] = temps;
        ShaderStats { file: file.to_string(), stage: Processor::Fragment, stats }
    }

    #[test]
    fn shared_affected_helped_and_hurt() {
        let before = [shader("a", 10, 2), shader("b", 5, 1), shader("c", 7, 3), shader("gone", 1, 1)];
        let after = [shader("c", 9, 3), shader("a", 6, 2), shader("b", 5, 2), shader("new", 4, 0)];
        let cmp = Comparison::new(&before, &after);
        assert_eq!(cmp.only_before, ["gone"]);
        assert_eq!(cmp.only_after, ["new"]);
        let insts = cmp.change(Stat::Instructions);
        assert_eq!((insts.shared, insts.affected, insts.helped, insts.hurt), ((22, 20), (17, 15), 1, 1));
        let temps = cmp.change(Stat::Temps);
        assert_eq!((temps.shared, temps.affected, temps.helped, temps.hurt), ((6, 7), (1, 2), 0, 1));
        assert_eq!(cmp.extremes(Stat::Instructions, false, 5), [("a", 10, 6)]);
        assert_eq!(cmp.extremes(Stat::Instructions, true, 5), [("c", 7, 9)]);
    }

    #[test]
    fn percentages() {
        assert_eq!(percent(200, 150), "-25.00%");
        assert_eq!(percent(3, 4), "+33.33%");
        assert_eq!(percent(0, 0), "0.00%");
        assert_eq!(percent(7, 7), "0.00%");
        assert_eq!(percent(0, 2), "+inf%");
    }
}
