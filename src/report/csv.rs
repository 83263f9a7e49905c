//! The CSV form of a report: written by `report --format csv`, read back
//! as one side of `report --compare`, so that a report saved before a
//! change can be compared with one made after it.

use tgsi::Processor;

use super::{ShaderStats, Stat, Stats};

/// A CSV report that cannot be read.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[error("line {line}: {message}")]
pub struct CsvError {
    /// The line (1-based).
    pub line: usize,
    /// What is wrong.
    pub message: String,
}

/// `field` as a CSV field: quoted when it holds a comma, a quote or a
/// line break.
pub(super) fn field(text: &str) -> String {
    if text.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text.to_string()
    }
}

/// The fields of one line.
fn fields(line: &str, number: usize) -> Result<Vec<String>, CsvError> {
    let mut out = Vec::new();
    let mut chars = line.chars().peekable();
    loop {
        let mut value = String::new();
        if chars.peek() == Some(&'"') {
            chars.next();
            loop {
                match chars.next() {
                    Some('"') if chars.peek() == Some(&'"') => {
                        chars.next();
                        value.push('"');
                    }
                    Some('"') => break,
                    Some(c) => value.push(c),
                    None => return Err(CsvError { line: number, message: "a quoted field is not closed".into() }),
                }
            }
        } else {
            while let Some(&c) = chars.peek() {
                if c == ',' {
                    break;
                }
                value.push(c);
                chars.next();
            }
        }
        out.push(value);
        match chars.next() {
            Some(',') => continue,
            None => return Ok(out),
            Some(c) => return Err(CsvError { line: number, message: format!("`{c}` after a quoted field") }),
        }
    }
}

/// Reads a report written by `report --format csv`: a header naming
/// `file`, `stage` and any of the statistics, then one shader a line.
/// Statistics the header does not name count as zero.
pub fn read_csv(text: &str) -> Result<Vec<ShaderStats>, CsvError> {
    let mut lines = text.lines().enumerate().map(|(i, l)| (i + 1, l)).filter(|(_, l)| !l.is_empty());
    let Some((number, header)) = lines.next() else {
        return Err(CsvError { line: 1, message: "empty: no header".into() });
    };
    let header = fields(header, number)?;
    let column = |name: &str| header.iter().position(|h| h == name);
    let (Some(file_at), Some(stage_at)) = (column("file"), column("stage")) else {
        return Err(CsvError { line: number, message: "the header names no `file` or no `stage` column".into() });
    };
    let stat_at: Vec<(Stat, usize)> = Stat::ALL.iter().filter_map(|&s| Some((s, column(s.name())?))).collect();
    let mut shaders = Vec::new();
    for (number, line) in lines {
        let row = fields(line, number)?;
        if row.len() != header.len() {
            let message = format!("{} fields where the header has {}", row.len(), header.len());
            return Err(CsvError { line: number, message });
        }
        let stage = Processor::from_name(&row[stage_at])
            .ok_or_else(|| CsvError { line: number, message: format!("unknown stage `{}`", row[stage_at]) })?;
        let mut stats = Stats::default();
        for &(stat, at) in &stat_at {
            stats[stat] = row[at].parse().map_err(|_| CsvError {
                line: number,
                message: format!("{} `{}` is not a whole number", stat.name(), row[at]),
            })?;
        }
        shaders.push(ShaderStats { file: row[file_at].clone(), stage, stats });
    }
    Ok(shaders)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_are_quoted_where_needed() {
        assert_eq!(field("a.tgsi"), "a.tgsi");
        assert_eq!(field("a,b \"c\""), "\"a,b \"\"c\"\"\"");
        assert_eq!(fields(&format!("{},FRAG,3", field("a,b \"c\"")), 1).unwrap(), ["a,b \"c\"", "FRAG", "3"]);
    }

    #[test]
    fn errors_name_the_line() {
        assert_eq!(read_csv("").unwrap_err().message, "empty: no header");
        let err = read_csv("file,stage,instructions\na,FRAG,x\n").unwrap_err();
        assert_eq!(err.to_string(), "line 2: instructions `x` is not a whole number");
        let err = read_csv("file,stage\n\"a,FRAG\n").unwrap_err();
        assert_eq!(err.to_string(), "line 2: a quoted field is not closed");
        let err = read_csv("file,stage\na,PIXEL\n").unwrap_err();
        assert_eq!(err.to_string(), "line 2: unknown stage `PIXEL`");
        let err = read_csv("name,instructions\n").unwrap_err();
        assert_eq!(err.line, 1);
    }
}
