//! A byte cursor over the source text that knows lines and columns.
//!
//! Errors are boxed inside the parser so that its many small results stay
//! small; the public functions unbox them.

use super::error::{ParseError, Span};

/// Walks the source text byte by byte. Whitespace is where lines end, so
/// the cursor counts lines while skipping it.
pub(crate) struct Cursor<'a> {
    pub text: &'a str,
    pub bytes: &'a [u8],
    pub pos: usize,
    /// A known (position, line, line start), moved forward as spans are
    /// asked for in order, so locating them costs linear time in all.
    line_cache: std::cell::Cell<(usize, u32, usize)>,
}

pub(crate) fn is_ident_start(b: u8) -> bool {
    b.is_ascii_alphabetic() || b == b'_'
}

pub(crate) fn is_ident(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

impl<'a> Cursor<'a> {
    pub fn new(text: &'a str) -> Self {
        Cursor { text, bytes: text.as_bytes(), pos: 0, line_cache: std::cell::Cell::new((0, 1, 0)) }
    }

    pub fn at_end(&self) -> bool {
        self.pos >= self.bytes.len()
    }

    pub fn peek(&self) -> u8 {
        self.bytes.get(self.pos).copied().unwrap_or(0)
    }

    pub fn peek_at(&self, offset: usize) -> u8 {
        self.bytes.get(self.pos + offset).copied().unwrap_or(0)
    }

    /// Skips spaces, tabs, line ends (LF or CRLF) and `;` comments.
    /// Returns whether anything was skipped.
    pub fn skip_ws(&mut self) -> bool {
        let start = self.pos;
        while let Some(&b) = self.bytes.get(self.pos) {
            match b {
                b' ' | b'\t' | b'\r' | b'\n' => self.pos += 1,
                b';' => {
                    while self.pos < self.bytes.len() && self.bytes[self.pos] != b'\n' {
                        self.pos += 1;
                    }
                }
                _ => break,
            }
        }
        self.pos > start
    }

    /// Skips spaces and tabs only, staying on the current line.
    pub fn skip_inline_ws(&mut self) {
        while matches!(self.peek(), b' ' | b'\t' | b'\r') {
            self.pos += 1;
        }
    }

    /// Whether the rest of the current line is empty (or a comment).
    pub fn at_line_end(&self) -> bool {
        let mut p = self.pos;
        while let Some(&b) = self.bytes.get(p) {
            match b {
                b' ' | b'\t' | b'\r' => p += 1,
                b'\n' | b';' => return true,
                _ => return false,
            }
        }
        true
    }

    /// Consumes `b` if it is next.
    pub fn eat(&mut self, b: u8) -> bool {
        if self.peek() == b {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    /// Skips whitespace, then consumes `b` if it is next.
    pub fn eat_ws(&mut self, b: u8) -> bool {
        self.skip_ws();
        self.eat(b)
    }

    /// The identifier at the cursor (letters, digits, `_`, starting with a
    /// letter or `_`), without consuming it.
    pub fn peek_ident(&self) -> &'a str {
        let mut end = self.pos;
        if end < self.bytes.len() && is_ident_start(self.bytes[end]) {
            while end < self.bytes.len() && is_ident(self.bytes[end]) {
                end += 1;
            }
        }
        &self.text[self.pos..end]
    }

    /// The word at the cursor: a run of letters, digits and `_` (which may
    /// start with a digit, like `2D`), without consuming it.
    pub fn peek_word(&self) -> &'a str {
        let mut end = self.pos;
        while end < self.bytes.len() && is_ident(self.bytes[end]) {
            end += 1;
        }
        &self.text[self.pos..end]
    }

    /// Consumes `keyword` if the word at the cursor is exactly it (ignoring
    /// ASCII case).
    pub fn eat_keyword(&mut self, keyword: &str) -> bool {
        let word = self.peek_word();
        if word.eq_ignore_ascii_case(keyword) {
            self.pos += word.len();
            true
        } else {
            false
        }
    }

    /// A span from `start` to the cursor.
    pub fn span_from(&self, start: usize) -> Span {
        self.span(start, self.pos)
    }

    /// A span of `start..end`, located by line and column.
    pub fn span(&self, start: usize, end: usize) -> Span {
        let start = start.min(self.bytes.len());
        let (mut at, mut line, mut line_start) = self.line_cache.get();
        if start < at {
            (at, line, line_start) = (0, 1, 0);
        }
        let skipped = &self.bytes[at..start];
        if let Some(last) = skipped.iter().rposition(|&b| b == b'\n') {
            line += skipped.iter().filter(|&&b| b == b'\n').count() as u32;
            line_start = at + last + 1;
        }
        self.line_cache.set((start, line, line_start));
        let column = 1 + self.text.get(line_start..start).map_or(0, |s| s.chars().count()) as u32;
        Span { start, end: end.max(start), line, column }
    }

    /// The extent of the "thing" at `pos` for an error message: a word, or
    /// one character.
    fn offending(&self, pos: usize) -> (usize, usize) {
        let mut end = pos;
        while end < self.bytes.len() && is_ident(self.bytes[end]) {
            end += 1;
        }
        if end == pos && pos < self.bytes.len() {
            end = pos + self.text[pos..].chars().next().map_or(1, char::len_utf8);
        }
        (pos, end)
    }

    /// What is at `pos`, quoted for an error message.
    pub fn describe(&self, pos: usize) -> String {
        let (start, end) = self.offending(pos);
        match &self.text[start..end] {
            "" => "the end of the text".to_string(),
            "\n" | "\r" | ";" => "the end of the line".to_string(),
            s => format!("`{s}`"),
        }
    }

    /// An error about the thing at the cursor.
    pub fn error(&self, message: impl Into<String>) -> Box<ParseError> {
        self.error_at(self.pos, message)
    }

    /// An error about the thing at `pos`.
    pub fn error_at(&self, pos: usize, message: impl Into<String>) -> Box<ParseError> {
        let (start, end) = self.offending(pos);
        Box::new(ParseError { message: message.into(), span: self.span(start, end), limit: None })
    }

    /// An error about `start..end`.
    pub fn error_span(&self, start: usize, end: usize, message: impl Into<String>) -> Box<ParseError> {
        Box::new(ParseError { message: message.into(), span: self.span(start, end), limit: None })
    }

    /// "expected X, found Y" at the cursor. When only whitespace that
    /// crosses a line end separates the cursor from the text before it, the
    /// error points at that line end instead.
    pub fn expected(&self, what: &str) -> Box<ParseError> {
        let mut p = self.pos.min(self.bytes.len());
        while p > 0 && matches!(self.bytes[p - 1], b' ' | b'\t' | b'\r' | b'\n') {
            p -= 1;
        }
        if self.bytes[p..self.pos.min(self.bytes.len())].contains(&b'\n') {
            return self.error_span(p, p, format!("expected {what}, found the end of the line"));
        }
        self.error(format!("expected {what}, found {}", self.describe(self.pos)))
    }
}
