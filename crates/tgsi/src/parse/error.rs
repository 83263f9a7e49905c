//! Parse errors, located in the source text.

/// A region of the source text: byte offsets plus the 1-based line and
/// column (in characters) of its start.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Span {
    /// Byte offset of the first byte.
    pub start: usize,
    /// Byte offset one past the last byte (equal to `start` for a point).
    pub end: usize,
    /// 1-based line of `start`.
    pub line: u32,
    /// 1-based column of `start`, counted in characters.
    pub column: u32,
}

/// Why a text is not valid TGSI, and where.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{line}:{column}: {message}", line = span.line, column = span.column)]
pub struct ParseError {
    /// What is wrong, in a sentence fragment (`expected `]``).
    pub message: String,
    /// The offending text.
    pub span: Span,
    /// The bound of [`crate::Limits`] the text exceeds, when that is what
    /// is wrong.
    pub limit: Option<crate::LimitExceeded>,
}

impl ParseError {
    /// The full line of `source` the error is on, without its line end.
    pub fn source_line<'a>(&self, source: &'a str) -> &'a str {
        let start = source[..self.span.start.min(source.len())].rfind('\n').map_or(0, |i| i + 1);
        let rest = &source[start..];
        let end = rest.find('\n').unwrap_or(rest.len());
        rest[..end].trim_end_matches('\r')
    }

    /// Renders the error as a caret diagnostic:
    ///
    /// ```text
    /// error: expected `]`
    ///  --> shader.tgsi:3:12
    ///   |
    /// 3 | MOV TEMP[0, IN[0]
    ///   |           ^
    /// ```
    pub fn render(&self, source: &str, file_name: &str) -> String {
        let line_text = self.source_line(source);
        let line_no = self.span.line.to_string();
        let pad = " ".repeat(line_no.len());
        let col = self.span.column.max(1) as usize;
        // Tabs before the caret keep their width so the caret lines up.
        let lead: String = line_text.chars().take(col - 1).map(|c| if c == '\t' { '\t' } else { ' ' }).collect();
        let width = source
            .get(self.span.start..self.span.end)
            .map_or(1, |s| s.chars().take_while(|&c| c != '\n').count().max(1));
        format!(
            "error: {msg}\n{pad}--> {file_name}:{line}:{col}\n{pad} |\n{line_no} | {line_text}\n{pad} | {lead}{carets}\n",
            msg = self.message,
            line = self.span.line,
            carets = "^".repeat(width),
        )
    }
}
