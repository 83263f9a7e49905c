//! The text parser.
//!
//! It accepts what Mesa's `tgsi_text` parser accepts, the older syntax of
//! the 2010 reference (see `legacy`), CRLF line ends and `;` comments,
//! and rejects with a located error what Mesa would silently wrap or drop.
//!
//! ```
//! let shader = tgsi::parse("VERT\nDCL IN[0]\nDCL OUT[0], POSITION\nMOV OUT[0], IN[0]\nEND\n").unwrap();
//! assert_eq!(shader.instructions().count(), 2);
//! let err = tgsi::parse("VERT\nMOV OUT[0, IN[0]\n").unwrap_err();
//! assert_eq!((err.span.line, err.span.column), (2, 10));
//! assert_eq!(err.message, "expected `]`, found `,`");
//! ```

mod cursor;
mod declaration;
mod error;
mod immediate;
mod instruction;
mod legacy;
pub(crate) mod number;
mod operand;

pub use error::{ParseError, Span};

use crate::ast::*;
use crate::format;
use crate::limits::{LimitCounter, LimitExceeded, Limits};
use crate::names::*;
use crate::opcode::{flags, Opcode};
use cursor::{is_ident, Cursor};
use legacy::Legacy;
use operand::{component, file_from_name, FileName};
use smallvec::SmallVec;

/// Parses TGSI text, within [`Limits::default()`].
pub fn parse(text: &str) -> Result<Shader, ParseError> {
    parse_with_limits(text, &Limits::default())
}

/// Parses TGSI text, refusing at the offending item (or register index)
/// a text past `limits` (the error's `limit` says which bound).
pub fn parse_with_limits(text: &str, limits: &Limits) -> Result<Shader, ParseError> {
    Parser::new(text, false, limits).run().map(|(shader, _)| shader).map_err(|e| *e)
}

/// Parses TGSI text, also returning the span of each item of
/// [`Shader::items`] (same length, same order).
pub fn parse_with_spans(text: &str) -> Result<(Shader, Vec<Span>), ParseError> {
    Parser::new(text, true, &Limits::default()).run().map_err(|e| *e)
}

/// Results inside the parser: the error is boxed to keep them small.
type PResult<T> = Result<T, Box<ParseError>>;

struct Parser<'a> {
    c: Cursor<'a>,
    processor: Processor,
    /// Size of a `[]` declaration bracket (GS input vertices, or 32 for
    /// tessellation); 0 when unknown.
    implied_array_size: u32,
    items: Vec<Item>,
    spans: Vec<Span>,
    num_immediates: u32,
    legacy: Legacy,
    /// Whether to locate every item (errors are located either way).
    want_spans: bool,
    limits: Limits,
    /// Counts and nesting so far, against `limits`.
    counter: LimitCounter,
}

impl<'a> Parser<'a> {
    fn new(text: &'a str, want_spans: bool, limits: &Limits) -> Self {
        // Canonical text has about one item per 40 bytes.
        let lines = text.len() / 32 + 16;
        Parser {
            c: Cursor::new(text),
            processor: Processor::Vertex,
            implied_array_size: 0,
            items: Vec::with_capacity(lines),
            spans: Vec::with_capacity(if want_spans { lines } else { 0 }),
            num_immediates: 0,
            legacy: Legacy::default(),
            want_spans,
            limits: *limits,
            counter: LimitCounter::new(limits),
        }
    }

    fn run(mut self) -> PResult<(Shader, Vec<Span>)> {
        self.c.skip_ws();
        self.parse_header()?;
        loop {
            let had_ws = self.c.skip_ws();
            if self.c.at_end() {
                break;
            }
            if !had_ws {
                return Err(self.c.expected("a line end or space"));
            }
            let start = self.c.pos;
            let item = self.parse_item()?;
            if let Some(item) = item {
                self.push(item, start)?;
            }
        }
        self.legacy.finish(&mut self.items, &mut self.spans);
        Ok((Shader { processor: self.processor, items: self.items }, self.spans))
    }

    /// Adds an item that starts at `start`, within the limits.
    fn push(&mut self, item: Item, start: usize) -> PResult<()> {
        if let Err(e) = self.counter.item(&item) {
            return Err(self.limit_error(start, self.c.pos, e));
        }
        self.items.push(item);
        if self.want_spans {
            self.spans.push(self.c.span_from(start));
        }
        Ok(())
    }

    /// The error of text at `start..end` past a limit.
    fn limit_error(&self, start: usize, end: usize, e: LimitExceeded) -> Box<ParseError> {
        let mut error = self.c.error_span(start, end, e.to_string());
        error.limit = Some(e);
        error
    }

    /// A register index: one rule everywhere ([`Limits::check_register_index`]).
    fn register_index(&mut self) -> PResult<u32> {
        self.c.skip_ws();
        let start = self.c.pos;
        while self.c.peek().is_ascii_digit() {
            self.c.pos += 1;
        }
        if start == self.c.pos {
            return Err(self.c.expected("a register index"));
        }
        let digits = &self.c.bytes[start..self.c.pos];
        let value = digits.iter().fold(0i64, |v, &d| v.saturating_mul(10).saturating_add((d - b'0') as i64));
        match self.limits.check_register_index(value) {
            Ok(()) => Ok(value as u32),
            Err(e) => {
                let mut error = self.limit_error(start, self.c.pos, e);
                // The number as written, not as saturated.
                error.message = error.message.replacen(&value.to_string(), &self.c.text[start..self.c.pos], 1);
                Err(error)
            }
        }
    }

    fn parse_header(&mut self) -> PResult<()> {
        let start = self.c.pos;
        let word = self.c.peek_ident();
        let (name, version) = legacy::split_header_version(word);
        match Processor::ALL.iter().find(|p| p.name().eq_ignore_ascii_case(name)) {
            Some(&p) => {
                self.processor = p;
                self.c.pos += word.len();
                if version {
                    // `FRAG1.1`: the identifier ended at the `.`.
                    legacy::skip_version_fraction(&mut self.c);
                }
            }
            None => {
                return Err(self.c.error_at(
                    start,
                    format!(
                        "expected a processor (FRAG, VERT, GEOM, TESS_CTRL, TESS_EVAL or COMP), found {}",
                        self.c.describe(start)
                    ),
                ))
            }
        }
        if matches!(self.processor, Processor::TessCtrl | Processor::TessEval) {
            self.implied_array_size = 32;
        }
        Ok(())
    }

    /// One item; `None` for items that only set parser state.
    fn parse_item(&mut self) -> PResult<Option<Item>> {
        if let Some(label_end) = self.label_end() {
            self.c.pos = label_end;
            self.c.skip_ws();
            return self.parse_instruction(true).map(|i| Some(Item::Instruction(i)));
        }
        if self.c.eat_keyword("DCL") {
            return self.parse_declaration();
        }
        if self.c.eat_keyword("IMM") {
            return self.parse_immediate().map(|i| Some(Item::Immediate(i)));
        }
        if self.c.eat_keyword("PROPERTY") {
            return self.parse_property().map(|p| Some(Item::Property(p)));
        }
        self.parse_instruction(false).map(|i| Some(Item::Instruction(i)))
    }

    /// If an `N:` instruction label is at the cursor, the position after it.
    fn label_end(&self) -> Option<usize> {
        let bytes = self.c.bytes;
        let mut p = self.c.pos;
        if !bytes.get(p).is_some_and(u8::is_ascii_digit) {
            return None;
        }
        while bytes.get(p).is_some_and(u8::is_ascii_digit) {
            p += 1;
        }
        while matches!(bytes.get(p), Some(b' ' | b'\t' | b'\r' | b'\n')) {
            p += 1;
        }
        (bytes.get(p) == Some(&b':')).then_some(p + 1)
    }

    // ----- small pieces -----

    fn expect(&mut self, b: u8) -> PResult<()> {
        if self.c.eat(b) {
            return Ok(());
        }
        self.c.skip_ws();
        if self.c.eat(b) {
            Ok(())
        } else {
            Err(self.c.expected(&format!("`{}`", b as char)))
        }
    }

    /// An unsigned decimal literal (Mesa's `parse_uint`), at most `max`.
    fn uint(&mut self, what: &str, max: u32) -> PResult<u32> {
        // Fast path: a short run of digits right here.
        let bytes = self.c.bytes;
        let p = self.c.pos;
        if let Some(&d0) = bytes.get(p) {
            if d0.is_ascii_digit() {
                let mut v = (d0 - b'0') as u32;
                let mut q = p + 1;
                while q < bytes.len() && q - p < 9 && bytes[q].is_ascii_digit() {
                    v = v * 10 + (bytes[q] - b'0') as u32;
                    q += 1;
                }
                if !bytes.get(q).is_some_and(u8::is_ascii_digit) && v <= max {
                    self.c.pos = q;
                    return Ok(v);
                }
            }
        }
        self.c.skip_ws();
        let start = self.c.pos;
        while self.c.peek().is_ascii_digit() {
            self.c.pos += 1;
        }
        if start == self.c.pos {
            return Err(self.c.expected(what));
        }
        let digits = &self.c.bytes[start..self.c.pos];
        let value = digits.iter().try_fold(0u64, |v, &d| v.checked_mul(10)?.checked_add((d - b'0') as u64));
        match value {
            Some(v) if v <= max as u64 => Ok(v as u32),
            _ => {
                let text = &self.c.text[start..self.c.pos];
                Err(self.c.error_span(start, self.c.pos, format!("{what} {text} is out of range (at most {max})")))
            }
        }
    }

    /// A signed decimal literal (Mesa's `parse_int`) within `min..=max`.
    fn int(&mut self, what: &str, min: i64, max: i64) -> PResult<i64> {
        self.c.skip_ws();
        let start = self.c.pos;
        let negative = self.c.peek() == b'-';
        if matches!(self.c.peek(), b'+' | b'-') {
            self.c.pos += 1;
            self.c.skip_inline_ws();
        }
        let digits = self.c.pos;
        while self.c.peek().is_ascii_digit() {
            self.c.pos += 1;
        }
        if digits == self.c.pos {
            return Err(self.c.expected(what));
        }
        let text = &self.c.text[digits..self.c.pos];
        let value = text.parse::<i64>().ok().map(|v| if negative { -v } else { v });
        match value {
            Some(v) if (min..=max).contains(&v) => Ok(v),
            _ => Err(self.c.error_span(
                start,
                self.c.pos,
                format!("{what} {} is out of range ({min} to {max})", &self.c.text[start..self.c.pos]),
            )),
        }
    }

    /// A name from an enumeration, matched as a whole word.
    fn name_of<T: Copy>(&mut self, all: &[T], name: impl Fn(T) -> &'static str) -> Option<T> {
        let word = self.c.peek_word();
        let found = all.iter().copied().find(|&v| name(v).eq_ignore_ascii_case(word))?;
        self.c.pos += word.len();
        Some(found)
    }

    fn texture_target(&mut self) -> Option<TextureTarget> {
        self.name_of(TextureTarget::ALL, TextureTarget::name)
    }

    /// A register file name, including the legacy ones.
    fn file(&mut self) -> PResult<FileName> {
        self.c.skip_ws();
        let start = self.c.pos;
        let word = self.c.peek_word();
        let file = match file_from_name(word) {
            Some(f) => FileName::Plain(f),
            None => match legacy::LegacyFile::from_name(word) {
                Some(l) => FileName::Legacy(l),
                None => {
                    return Err(self.c.error_at(
                        start,
                        format!(
                            "expected a register file (IN, OUT, TEMP, CONST, IMM, ...), found {}",
                            self.c.describe(start)
                        ),
                    ))
                }
            },
        };
        self.c.pos += word.len();
        Ok(file)
    }

    /// `.xyzw`-style mask after a `.`; at least one letter, in order.
    fn writemask(&mut self) -> PResult<u8> {
        let save = self.c.pos;
        self.c.skip_ws();
        if !self.c.eat(b'.') {
            self.c.pos = save;
            return Ok(0xf);
        }
        self.c.skip_ws();
        let mut mask = 0u8;
        for (bit, letter) in SWIZZLE_NAMES.iter().enumerate() {
            if self.c.peek().to_ascii_lowercase() == *letter as u8 {
                self.c.pos += 1;
                mask |= 1 << bit;
            }
        }
        if mask == 0 || is_ident(self.c.peek()) {
            return Err(self.c.expected("a write mask (a subset of `xyzw`, in that order)"));
        }
        Ok(mask)
    }

    /// An optional `.xyzw` swizzle of exactly `n` letters.
    fn swizzle<const N: usize>(&mut self, default: [u8; N]) -> PResult<[u8; N]> {
        let save = self.c.pos;
        self.c.skip_ws();
        if !self.c.eat(b'.') {
            self.c.pos = save;
            return Ok(default);
        }
        self.c.skip_ws();
        let start = self.c.pos;
        let mut out = default;
        let word = self.c.peek_word();
        if word.len() == 1 && N == 4 {
            // 2010 syntax: a one-letter swizzle broadcasts.
            if let Some(ch) = component(word.as_bytes()[0]) {
                self.c.pos += 1;
                return Ok([ch; N]);
            }
        }
        for slot in out.iter_mut() {
            match component(self.c.peek()) {
                Some(ch) => {
                    *slot = ch;
                    self.c.pos += 1;
                }
                None => return Err(self.c.expected(&format!("a swizzle of {N} letters from `xyzw`"))),
            }
        }
        if is_ident(self.c.peek()) {
            return Err(self.c.error_span(start, start + word.len(), format!("a swizzle has {N} letters from `xyzw`")));
        }
        Ok(out)
    }
}
