//! The module's header: its stage, the TGSI sections (interface, temps,
//! immediates) and the arrays.

use super::{entity, Code, Lines, ParseIrError};
use crate::function::ArrayData;
use tgsi::{File, Item, Processor};

/// The stage, the source's instruction count and the sections, as the
/// module's fields.
pub(super) struct Header {
    pub processor: Processor,
    pub source_instructions: Option<usize>,
    pub interface: Vec<Item>,
    pub temps: Vec<tgsi::Declaration>,
    pub immediates: Vec<tgsi::Immediate>,
}

/// Reads the stage line and the TGSI sections.
pub(super) fn sections(lines: &mut Lines<'_>) -> Result<Header, ParseIrError> {
    let Some(mut first) = lines.next_line() else {
        return Err(ParseIrError {
            message: "expected the stage (`frag`, `vert`, ...)".into(),
            span: lines.end_span(),
        });
    };
    let word = first.take_while(|c| !c.is_whitespace());
    let processor = match Processor::from_name(word) {
        Some(p) if word == p.name().to_ascii_lowercase() => p,
        _ => return Err(first.error_at(0, word.len(), "expected the stage (`frag`, `vert`, ...)")),
    };
    first.end()?;
    let source_instructions = source_instructions(lines)?;
    let mut interface = Vec::new();
    let mut temps = Vec::new();
    let mut immediates = Vec::new();
    for title in ["interface:", "temps:", "immediates:"] {
        if lines.peek().is_none_or(|l| l.rest() != title) {
            continue;
        }
        lines.next_line();
        let items = section(lines, processor)?;
        for (item, line) in items {
            match (title, item) {
                ("interface:", Item::Declaration(d)) if d.file != File::Temporary && d.file != File::Immediate => {
                    interface.push(Item::Declaration(d));
                }
                ("interface:", Item::Property(p)) => interface.push(Item::Property(p)),
                ("temps:", Item::Declaration(d)) if d.file == File::Temporary => temps.push(d),
                ("immediates:", Item::Immediate(i)) => immediates.push(i),
                _ => {
                    let len = line.rest().len();
                    return Err(line.error_at(line.pos(), len, format!("this does not belong under `{title}`")));
                }
            }
        }
    }
    Ok(Header { processor, source_instructions, interface, temps, immediates })
}

/// The `source: N instructions` line, if there is one.
fn source_instructions(lines: &mut Lines<'_>) -> Result<Option<usize>, ParseIrError> {
    if lines.peek().is_none_or(|l| !l.rest().starts_with("source:")) {
        return Ok(None);
    }
    let Some(mut line) = lines.next_line() else { return Ok(None) };
    line.eat("source:");
    line.skip_spaces();
    let n = line.number()?;
    line.skip_spaces();
    if !line.eat("instructions") {
        return Err(line.error("expected `instructions`"));
    }
    line.end()?;
    Ok(Some(n as usize))
}

/// The indented TGSI lines of a section, parsed together by TGSI's parser
/// (immediates are numbered in order); each item comes with its line.
fn section<'a>(
    lines: &mut Lines<'a>,
    processor: Processor,
) -> Result<Vec<(Item, super::cursor::Cursor<'a>)>, ParseIrError> {
    let mut section_lines = Vec::new();
    let mut source = format!("{}\n", processor.name());
    // Where each line starts in `source`.
    let mut starts = Vec::new();
    while let Some(mut line) = lines.peek() {
        if !line.eat("    ") {
            break;
        }
        lines.next_line();
        starts.push(source.len());
        source.push_str(line.rest());
        source.push('\n');
        section_lines.push(line);
    }
    // TGSI line L (1-based, after the stage line) is section line L - 2.
    let line_of = |span: tgsi::Span| (span.line as usize).checked_sub(2).filter(|&i| i < section_lines.len());
    let (shader, spans) = match tgsi::parse_with_spans(&source) {
        Ok(parsed) => parsed,
        Err(err) => {
            return Err(match line_of(err.span) {
                Some(i) => {
                    let at = err.span.start.saturating_sub(starts[i]);
                    let len = err.span.end.saturating_sub(err.span.start).max(1);
                    section_lines[i].error_at(4 + at, len, err.message)
                }
                None => ParseIrError { message: err.message, span: lines.end_span() },
            });
        }
    };
    let mut out = Vec::new();
    for (item, span) in shader.items.into_iter().zip(spans) {
        let Some(i) = line_of(span) else {
            return Err(ParseIrError { message: "unexpected TGSI item".into(), span: lines.end_span() });
        };
        out.push((item, section_lines[i].clone()));
    }
    Ok(out)
}

/// Reads the `arrays:` section, if there is one: `a0: TEMP[4..7] (array 1)`.
pub(super) fn arrays(lines: &mut Lines<'_>, code: &mut Code) -> Result<(), ParseIrError> {
    if lines.peek().is_none_or(|l| l.rest() != "arrays:") {
        return Ok(());
    }
    lines.next_line();
    while let Some(mut c) = lines.peek() {
        if !c.eat("    ") {
            break;
        }
        lines.next_line();
        let at = c.pos();
        let n = entity(&mut c, "a", "an array")?;
        if n as usize != code.arrays.len() {
            return Err(c.error_at(
                at,
                c.pos() - at,
                format!("expected a{} (arrays are numbered in order)", code.arrays.len()),
            ));
        }
        c.expect(": ")?;
        let file_at = c.pos();
        let name = c.word();
        let file = File::from_name(name)
            .filter(|f| f.name() == name)
            .ok_or_else(|| c.error_at(file_at, name.len(), format!("unknown register file `{name}`")))?;
        c.expect("[")?;
        let first = c.number()?;
        let mut len = 1;
        if c.eat("..") {
            let last_at = c.pos();
            let last = c.number()?;
            len =
                last.checked_sub(first).and_then(|d| d.checked_add(1)).filter(|&l| l > 1).ok_or_else(|| {
                    c.error_at(last_at, c.pos() - last_at, "the last register must come after the first")
                })?;
        }
        c.expect("]")?;
        if c.eat(" (empty)") {
            len = 0;
        }
        let mut array_id = None;
        if c.eat(" (array ") {
            let id_at = c.pos();
            let id = c.number()?;
            array_id =
                Some(u16::try_from(id).map_err(|_| c.error_at(id_at, c.pos() - id_at, "array id out of range"))?);
            c.expect(")")?;
        }
        c.end()?;
        code.arrays.push(ArrayData { file, first, len, array_id });
    }
    Ok(())
}
