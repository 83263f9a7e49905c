//! The three forms of a report: a table for people, CSV and JSON for
//! scripts.

use std::fmt::Write;

use super::compare::percent;
use super::csv::field;
use super::{totals, Comparison, ShaderStats, Stat};

/// How a report is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Form {
    /// Aligned columns (one set) or shader-db's lines (a comparison).
    Text,
    /// One row per shader, a header first.
    Csv,
    /// One object: the shaders and the totals.
    Json,
}

/// The statistics of `shaders`, in `form`.
pub fn render_stats(shaders: &[ShaderStats], form: Form) -> String {
    match form {
        Form::Text => stats_text(shaders),
        Form::Csv => stats_csv(shaders),
        Form::Json => stats_json(shaders),
    }
}

/// The comparison in `form`; the text lists the `top` most helped and
/// hurt shaders of each statistic that changed.
pub fn render_comparison(cmp: &Comparison, form: Form, top: usize) -> String {
    match form {
        Form::Text => comparison_text(cmp, top),
        Form::Csv => comparison_csv(cmp),
        Form::Json => comparison_json(cmp),
    }
}

/// A table: a row per statistic, a column for all shaders and one per stage.
fn stats_text(shaders: &[ShaderStats]) -> String {
    let (all, stages) = totals(shaders);
    let mut out = format!("{} shader(s)", shaders.len());
    for (stage, count, _) in &stages {
        let _ = write!(out, ", {count} {stage}");
    }
    out.push_str("\n\n");
    let mut columns = vec![("all".to_string(), all)];
    columns.extend(stages.iter().map(|(stage, _, stats)| (stage.name().to_string(), *stats)));
    let width = |i: usize| {
        let (name, stats) = &columns[i];
        Stat::ALL.iter().map(|&s| stats[s].to_string().len()).max().unwrap_or(0).max(name.len())
    };
    let widths: Vec<usize> = (0..columns.len()).map(width).collect();
    let _ = write!(out, "{:<12}", "");
    for ((name, _), w) in columns.iter().zip(&widths) {
        let _ = write!(out, "  {name:>w$}");
    }
    out.push('\n');
    for stat in Stat::ALL {
        let _ = write!(out, "{:<12}", stat.name());
        for ((_, stats), w) in columns.iter().zip(&widths) {
            let _ = write!(out, "  {:>w$}", stats[stat]);
        }
        out.push('\n');
    }
    out
}

/// `file,stage,instructions,temps,...`: one row per shader.
fn stats_csv(shaders: &[ShaderStats]) -> String {
    let mut out = String::from("file,stage");
    for stat in Stat::ALL {
        let _ = write!(out, ",{}", stat.name());
    }
    out.push('\n');
    for shader in shaders {
        let _ = write!(out, "{},{}", field(&shader.file), shader.stage);
        for stat in Stat::ALL {
            let _ = write!(out, ",{}", shader.stats[stat]);
        }
        out.push('\n');
    }
    out
}

/// A JSON string literal.
fn json_string(text: &str) -> String {
    let mut out = String::from("\"");
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// `{"instructions": 3, ...}`.
fn json_stats(stats: &super::Stats) -> String {
    let fields: Vec<String> = Stat::ALL.iter().map(|&s| format!("\"{}\": {}", s.name(), stats[s])).collect();
    format!("{{{}}}", fields.join(", "))
}

/// The entries of a JSON list or object, one a line at the second level
/// of indentation, separated by commas.
fn json_entries(entries: impl Iterator<Item = String>) -> String {
    entries.map(|entry| format!("\n    {entry}")).collect::<Vec<_>>().join(",")
}

/// `{"shaders": [...], "totals": {...}}`.
fn stats_json(shaders: &[ShaderStats]) -> String {
    let (all, stages) = totals(shaders);
    let shaders = json_entries(shaders.iter().map(|shader| {
        let (file, stats) = (json_string(&shader.file), json_stats(&shader.stats));
        format!("{{\"file\": {file}, \"stage\": \"{}\", \"stats\": {stats}}}", shader.stage)
    }));
    let stages_text = json_entries(stages.iter().map(|(stage, count, stats)| {
        format!("\"{stage}\": {{\"shaders\": {count}, \"totals\": {}}}", json_stats(stats))
    }));
    let close = if stages.is_empty() { "" } else { "\n  " };
    format!(
        "{{\n  \"shaders\": [{shaders}\n  ],\n  \"totals\": {},\n  \"stages\": {{{stages_text}{close}}}\n}}\n",
        json_stats(&all)
    )
}

/// shader-db's lines for every statistic, then the most helped and hurt
/// shaders of each one that changed.
fn comparison_text(cmp: &Comparison, top: usize) -> String {
    let mut out = String::new();
    let mut unchanged = Vec::new();
    for stat in Stat::ALL {
        let c = cmp.change(stat);
        let name = stat.name();
        if c.helped == 0 && c.hurt == 0 {
            unchanged.push(format!("{name} ({})", c.shared.0));
            continue;
        }
        let (b, a) = c.shared;
        let _ = writeln!(out, "total {name} in shared programs: {b} -> {a} ({})", percent(b, a));
        let (b, a) = c.affected;
        let _ = writeln!(out, "{name} in affected programs: {b} -> {a} ({})", percent(b, a));
        let _ = writeln!(out, "helped: {}\nHURT: {}\n", c.helped, c.hurt);
    }
    if !unchanged.is_empty() {
        let _ = writeln!(out, "unchanged: {}\n", unchanged.join(", "));
    }
    let _ = writeln!(out, "shared programs: {}", cmp.shared.len());
    for (what, files) in [("only in the first set", &cmp.only_before), ("only in the second set", &cmp.only_after)] {
        if !files.is_empty() {
            let _ = writeln!(out, "{what}: {} ({})", files.len(), files.join(", "));
        }
    }
    for stat in Stat::ALL {
        for (label, hurt) in [("most helped", false), ("most hurt", true)] {
            let moved = cmp.extremes(stat, hurt, top);
            if moved.is_empty() {
                continue;
            }
            let _ = writeln!(out, "\n{label} ({}):", stat.name());
            for (file, b, a) in moved {
                let diff = a as i64 - b as i64;
                let _ = writeln!(out, "  {diff:>+6}  {b:>5} -> {a:<5}  {file}");
            }
        }
    }
    out
}

/// `file,stage,instructions_before,instructions_after,...`: one row per
/// shared shader.
fn comparison_csv(cmp: &Comparison) -> String {
    let mut out = String::from("file,stage");
    for stat in Stat::ALL {
        let _ = write!(out, ",{0}_before,{0}_after", stat.name());
    }
    out.push('\n');
    for (old, new) in &cmp.shared {
        let _ = write!(out, "{},{}", field(&old.file), old.stage);
        for stat in Stat::ALL {
            let _ = write!(out, ",{},{}", old.stats[stat], new[stat]);
        }
        out.push('\n');
    }
    out
}

/// `{"stats": [...], "shaders": [...], "only_before": [...], "only_after": [...]}`.
fn comparison_json(cmp: &Comparison) -> String {
    let stats = json_entries(Stat::ALL.into_iter().map(|stat| {
        let c = cmp.change(stat);
        format!(
            "{{\"stat\": \"{}\", \"shared\": [{}, {}], \"affected\": [{}, {}], \"helped\": {}, \"hurt\": {}}}",
            stat.name(),
            c.shared.0,
            c.shared.1,
            c.affected.0,
            c.affected.1,
            c.helped,
            c.hurt
        )
    }));
    let shaders = json_entries(cmp.shared.iter().map(|(old, new)| {
        let (file, before, after) = (json_string(&old.file), json_stats(&old.stats), json_stats(new));
        format!("{{\"file\": {file}, \"stage\": \"{}\", \"before\": {before}, \"after\": {after}}}", old.stage)
    }));
    let names = |files: &[String]| files.iter().map(|f| json_string(f)).collect::<Vec<_>>().join(", ");
    format!(
        "{{\n  \"stats\": [{stats}\n  ],\n  \"shaders\": [{shaders}\n  ],\n  \"only_before\": [{}],\n  \"only_after\": [{}]\n}}\n",
        names(&cmp.only_before),
        names(&cmp.only_after)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_strings_are_escaped() {
        assert_eq!(json_string("a\"b\\c\n"), "\"a\\\"b\\\\c\\u000a\"");
    }
}
