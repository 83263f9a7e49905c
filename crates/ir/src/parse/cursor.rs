//! A cursor over one line of IR text, with the spans its errors need.

use super::ParseIrError;
use tgsi::Span;

/// One line: its text, where it starts in the whole input, and the
/// position read up to.
#[derive(Clone)]
pub(super) struct Cursor<'a> {
    text: &'a str,
    /// Byte offset of the line in the input.
    base: usize,
    /// 1-based line number.
    line: u32,
    /// Byte offset read up to, within the line.
    pos: usize,
}

impl<'a> Cursor<'a> {
    pub(super) fn new(text: &'a str, base: usize, line: u32) -> Self {
        Cursor { text, base, line, pos: 0 }
    }

    /// The span of `len` bytes at byte `at` of the line.
    pub(super) fn span_at(&self, at: usize, len: usize) -> Span {
        let at = at.min(self.text.len());
        let end = (at + len).min(self.text.len());
        let column = self.text.get(..at).map_or(at, |s| s.chars().count()) as u32 + 1;
        Span { start: self.base + at, end: self.base + end, line: self.line, column }
    }

    /// An error at byte `at` of the line, spanning `len` bytes.
    pub(super) fn error_at(&self, at: usize, len: usize, message: impl Into<String>) -> ParseIrError {
        ParseIrError { message: message.into(), span: self.span_at(at, len) }
    }

    /// An error at the current position, spanning the next word (or the
    /// end of the line).
    pub(super) fn error(&self, message: impl Into<String>) -> ParseIrError {
        let rest = self.rest();
        let len = rest.find(|c: char| c.is_whitespace() || c == ',').unwrap_or(rest.len()).max(1);
        self.error_at(self.pos, len, message)
    }

    /// What is left of the line.
    pub(super) fn rest(&self) -> &'a str {
        self.text.get(self.pos..).unwrap_or("")
    }

    pub(super) fn pos(&self) -> usize {
        self.pos
    }

    pub(super) fn skip_spaces(&mut self) {
        let rest = self.rest();
        self.pos += rest.len() - rest.trim_start_matches(' ').len();
    }

    pub(super) fn at_end(&self) -> bool {
        self.pos >= self.text.len()
    }

    /// Consumes `s` if the line continues with it.
    pub(super) fn eat(&mut self, s: &str) -> bool {
        if self.rest().starts_with(s) {
            self.pos += s.len();
            true
        } else {
            false
        }
    }

    /// Consumes `s` or fails.
    pub(super) fn expect(&mut self, s: &str) -> Result<(), ParseIrError> {
        if self.eat(s) {
            Ok(())
        } else {
            Err(self.error(format!("expected `{s}`")))
        }
    }

    /// Consumes `n` bytes and returns them.
    pub(super) fn take(&mut self, n: usize) -> &'a str {
        let rest = self.rest();
        let n = n.min(rest.len());
        self.pos += n;
        rest.get(..n).unwrap_or("")
    }

    /// A run of characters satisfying `f` (maybe empty).
    pub(super) fn take_while(&mut self, f: impl Fn(char) -> bool) -> &'a str {
        let rest = self.rest();
        let n = rest.find(|c: char| !f(c)).unwrap_or(rest.len());
        self.take(n)
    }

    /// An identifier-like word: letters, digits and `_`.
    pub(super) fn word(&mut self) -> &'a str {
        self.take_while(|c| c.is_ascii_alphanumeric() || c == '_')
    }

    /// A decimal `u32`.
    pub(super) fn number(&mut self) -> Result<u32, ParseIrError> {
        let at = self.pos;
        let digits = self.take_while(|c| c.is_ascii_digit());
        if digits.is_empty() {
            return Err(self.error("expected a number"));
        }
        digits.parse().map_err(|_| self.error_at(at, digits.len(), "number out of range"))
    }

    /// A decimal `i32`, maybe negative.
    pub(super) fn signed(&mut self) -> Result<i32, ParseIrError> {
        let at = self.pos;
        let neg = self.eat("-");
        let n = i64::from(self.number()?);
        let n = if neg { -n } else { n };
        i32::try_from(n).map_err(|_| self.error_at(at, self.pos - at, "number out of range"))
    }

    /// Fails unless the line is over.
    pub(super) fn end(&mut self) -> Result<(), ParseIrError> {
        self.skip_spaces();
        if self.at_end() {
            Ok(())
        } else {
            Err(self.error("unexpected text"))
        }
    }
}
