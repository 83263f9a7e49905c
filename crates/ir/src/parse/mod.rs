//! Reads the IR's text form back: exactly what [`crate::print::print_module`]
//! writes, so a printed module can be edited, stored as a test input, and
//! fed to the optimizer again.
//!
//! ```text
//! module  := stage NL section* ["arrays:" NL array*] line*
//! stage   := "frag" | "vert" | "geom" | "tess_ctrl" | "tess_eval" | "comp"
//! section := ("interface:" | "temps:" | "immediates:") NL ("    " TGSI-line NL)*
//! array   := "aN: " FILE "[" first ["..." last] "]" [" (empty)"] [" (array " id ")"]
//! line    := "bN:"                         a block; the lines below are its own
//!          | inst | "break" | "continue" | "return"
//!          | ("if" | "uif") operand " {"  |  "} else {" ["  ; no ELSE"]  |  "}"
//!          | "loop {"  |  "switch " operand " {"  |  "case " operand ":"  |  "default:"
//! inst    := [result (", " result)* " = "] operation [origin]
//! origin  := "  ; from" [" #" N] [" " FILE "[" i "]." chan]   (PrintOptions::origins)
//! result  := "vN" [":64"]
//! operand := ["-"] ["|"] "vN" ["|"]
//! ```
//!
//! Indentation is not significant (braces are); values and blocks keep the
//! numbers they are written with, so printing a parsed module gives back
//! the text it was read from. Errors name the line and column and the text
//! they are about; no input makes the parser panic.

mod cursor;
mod header;
mod inst;
mod tree;

use crate::entity::EntityRef;
use crate::function::{BlockData, Function, InstData, Module, Op, Ty, Value, ValueData};
use cursor::Cursor;
use std::collections::BTreeMap;
use tgsi::Span;

/// Why a text is not the IR's text form, and where.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{line}:{column}: {message}", line = span.line, column = span.column)]
pub struct ParseIrError {
    /// What is wrong (`expected `]``).
    pub message: String,
    /// The offending text.
    pub span: Span,
}

impl ParseIrError {
    /// Renders the error as a caret diagnostic, like TGSI parse errors:
    /// `error: ...`, ` --> file:line:col`, the line and a caret under the
    /// offending text.
    pub fn render(&self, source: &str, file_name: &str) -> String {
        tgsi::ParseError { message: self.message.clone(), span: self.span, limit: None }.render(source, file_name)
    }
}

/// Entity numbers above this are refused: they would only allocate.
const MAX_ENTITY: u32 = 1 << 20;

/// Parses the IR's text form into a module. The module is not verified:
/// run [`crate::verify::verify`] on its function before using it.
pub fn parse(text: &str) -> Result<Module, ParseIrError> {
    let mut lines = Lines::new(text);
    let header::Header { processor, source_instructions, interface, temps, immediates } = header::sections(&mut lines)?;
    let mut code = Code::default();
    header::arrays(&mut lines, &mut code)?;
    let body = tree::body(&mut lines, &mut code, processor)?;
    let function = code.finish(body)?;
    Ok(Module { processor, interface, temps, immediates, function, source_instructions })
}

/// The input's lines, with where each starts.
pub(crate) struct Lines<'a> {
    text: &'a str,
    /// Byte offset of the next line.
    next: usize,
    /// 1-based number of the next line.
    number: u32,
}

impl<'a> Lines<'a> {
    fn new(text: &'a str) -> Self {
        Lines { text, next: 0, number: 1 }
    }

    /// The next line without consuming it.
    fn peek(&self) -> Option<Cursor<'a>> {
        let rest = self.text.get(self.next..)?;
        if rest.is_empty() {
            return None;
        }
        let end = rest.find('\n').unwrap_or(rest.len());
        let line = rest.get(..end).unwrap_or("");
        Some(Cursor::new(line.strip_suffix('\r').unwrap_or(line), self.next, self.number))
    }

    /// The next line.
    fn next_line(&mut self) -> Option<Cursor<'a>> {
        let line = self.peek()?;
        let rest = self.text.get(self.next..).unwrap_or("");
        self.next += rest.find('\n').map_or(rest.len(), |i| i + 1);
        self.number += 1;
        Some(line)
    }

    /// A point just past the end of the input.
    fn end_span(&self) -> Span {
        let last_line = self.text.get(..self.text.len()).map_or(0, |t| t.rfind('\n').map_or(0, |i| i + 1));
        let column = self.text.get(last_line..).map_or(0, |l| l.chars().count()) as u32 + 1;
        let line = self.text.matches('\n').count() as u32 + 1;
        Span { start: self.text.len(), end: self.text.len(), line, column }
    }
}

/// A value's definition: its width and the instruction (by position in
/// the text) that defines it.
struct Def {
    ty: Ty,
    inst: usize,
}

/// What the code lines define, before the function is assembled.
#[derive(Default)]
pub(crate) struct Code {
    arrays: crate::entity::Arena<crate::function::Array, crate::function::ArrayData>,
    insts: Vec<InstData>,
    values: BTreeMap<u32, Def>,
    /// Every value used, with where, to check each is defined.
    uses: Vec<(u32, Span)>,
    blocks: BTreeMap<u32, BlockData>,
    /// The highest block number named (labels and phi predecessors).
    max_block: Option<u32>,
}

impl Code {
    /// Assembles the function: every entity keeps its number; numbers
    /// that nothing defines are filled with entities no block holds (as
    /// passes leave behind), so the arenas stay dense.
    fn finish(self, body: crate::function::Region) -> Result<Function, ParseIrError> {
        for &(v, span) in &self.uses {
            if !self.values.contains_key(&v) {
                return Err(ParseIrError { message: format!("v{v} is used but never defined"), span });
            }
        }
        let mut func = Function { arrays: self.arrays, body, ..Function::default() };
        for data in self.insts {
            func.insts.push(data);
        }
        let value_count = self.values.keys().next_back().map_or(0, |&v| v + 1);
        let gaps: Vec<u32> = (0..value_count).filter(|v| !self.values.contains_key(v)).collect();
        let filler = (!gaps.is_empty()).then(|| {
            let data = InstData {
                op: Op::Undef,
                args: Default::default(),
                results: gaps.iter().map(|&v| Value::new(v as usize)).collect(),
                saturate: false,
                precise: false,
                origin: Default::default(),
            };
            func.insts.push(data)
        });
        for v in 0..value_count {
            let value = match (self.values.get(&v), filler) {
                (Some(def), _) => ValueData { ty: def.ty, def: crate::function::Inst::new(def.inst) },
                (None, Some(filler)) => ValueData { ty: Ty::B32, def: filler },
                // Every gap has the filler.
                (None, None) => continue,
            };
            func.values.push(value);
        }
        let block_count = self.max_block.map_or(0, |b| b + 1);
        let mut blocks = self.blocks;
        for b in 0..block_count {
            func.blocks.push(blocks.remove(&b).unwrap_or_default());
        }
        Ok(func)
    }

    /// Records a block number named somewhere.
    fn name_block(&mut self, b: u32) {
        self.max_block = Some(self.max_block.map_or(b, |m| m.max(b)));
    }
}

/// `<prefix>N`: an entity number.
fn entity(c: &mut Cursor<'_>, prefix: &str, what: &str) -> Result<u32, ParseIrError> {
    let at = c.pos();
    if !c.eat(prefix) {
        return Err(c.error(format!("expected {what} (`{prefix}N`)")));
    }
    let n = c.number()?;
    if n > MAX_ENTITY {
        return Err(c.error_at(at, c.pos() - at, format!("{what} number too large (at most {MAX_ENTITY})")));
    }
    Ok(n)
}

#[cfg(test)]
mod tests;
