//! The lexical layer shared by state and outputs texts: lines of
//! whitespace-separated tokens, `#` comments, integers and channel values.

use crate::error::{StateError, StateErrorKind};

/// One word of a line, with its 1-based position.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Token<'a> {
    pub text: &'a str,
    pub line: usize,
    pub column: usize,
}

impl Token<'_> {
    /// An error pointing at this token.
    pub fn error(&self, kind: StateErrorKind) -> StateError {
        StateError { line: self.line, column: self.column, text: self.text.to_string(), kind }
    }
}

/// The non-empty lines of `text` as tokens, comments removed.
pub(crate) fn lines(text: &str) -> impl Iterator<Item = Vec<Token<'_>>> {
    text.split('\n').enumerate().filter_map(|(i, raw)| {
        let code = raw.split('#').next().unwrap_or("");
        let mut tokens = Vec::new();
        let mut start: Option<(usize, usize)> = None;
        // Columns count characters, as the TGSI parser's do.
        for (column, (byte, c)) in code.char_indices().enumerate() {
            match (c.is_whitespace(), start) {
                (true, Some((b, col))) => {
                    tokens.push(Token { text: &code[b..byte], line: i + 1, column: col });
                    start = None;
                }
                (false, None) => start = Some((byte, column + 1)),
                _ => {}
            }
        }
        if let Some((b, col)) = start {
            tokens.push(Token { text: &code[b..], line: i + 1, column: col });
        }
        (!tokens.is_empty()).then_some(tokens)
    })
}

/// An error at the position just past the end of `text`, for what is missing.
pub(crate) fn end_of_text(text: &str, kind: StateErrorKind) -> StateError {
    let line = text.split('\n').count();
    let column = text.split('\n').next_back().map_or(0, |l| l.trim_end_matches('\r').chars().count()) + 1;
    StateError { line, column, text: String::new(), kind }
}

/// Checks a line's operand count; `tokens[0]` is the directive.
pub(crate) fn expect_operands(
    tokens: &[Token<'_>],
    directive: &'static str,
    syntax: &'static str,
    expected: usize,
) -> Result<(), StateError> {
    let found = tokens.len() - 1;
    if found == expected {
        return Ok(());
    }
    // Too many: point at the first extra operand; too few: at the directive.
    let at = if found > expected { tokens[expected + 1] } else { tokens[0] };
    Err(at.error(StateErrorKind::OperandCount { directive, expected, syntax, found }))
}

/// A decimal integer no larger than `max`.
pub(crate) fn integer(token: &Token<'_>, what: &'static str, max: u32) -> Result<u32, StateError> {
    if token.text.is_empty() || !token.text.bytes().all(|b| b.is_ascii_digit()) {
        return Err(token.error(StateErrorKind::BadNumber { what, found: token.text.to_string() }));
    }
    match token.text.parse::<u32>() {
        Ok(n) if n <= max => Ok(n),
        _ => Err(token.error(StateErrorKind::TooLarge { what, found: token.text.to_string(), max: max.into() })),
    }
}

/// A lane: `*` (`None`, every lane) or a number below `invocations`.
pub(crate) fn lane(token: &Token<'_>, invocations: u32) -> Result<Option<u32>, StateError> {
    if token.text == "*" {
        return Ok(None);
    }
    let lane = integer(token, "a lane", u32::MAX)?;
    if lane >= invocations {
        return Err(token.error(StateErrorKind::LaneOutOfRange { lane, invocations }));
    }
    Ok(Some(lane))
}

/// One channel value as bits: `0x` and 1 to 8 hex digits taken as they are,
/// or a decimal float read as an `f32` (correctly rounded; `inf`,
/// `infinity` and `nan` in any case, with an optional sign). A NaN is the
/// quiet NaN `0x7fc00000`, with the sign bit set when written `-nan`.
pub(crate) fn value(token: &Token<'_>) -> Result<u32, StateError> {
    let text = token.text;
    let bad = || token.error(StateErrorKind::BadValue { found: text.to_string() });
    if let Some(hex) = text.strip_prefix("0x").or_else(|| text.strip_prefix("0X")) {
        if hex.is_empty() || hex.len() > 8 || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(bad());
        }
        return u32::from_str_radix(hex, 16).map_err(|_| bad());
    }
    let f: f32 = text.parse().map_err(|_| bad())?;
    if f.is_nan() {
        // The sign of a parsed NaN is not something to rely on; spell it out.
        return Ok(if text.starts_with('-') { 0xffc0_0000 } else { 0x7fc0_0000 });
    }
    Ok(f.to_bits())
}

/// Four channel values from four tokens.
pub(crate) fn vec4(tokens: &[Token<'_>]) -> Result<[u32; 4], StateError> {
    let mut out = [0; 4];
    for (slot, token) in out.iter_mut().zip(tokens) {
        *slot = value(token)?;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tok(text: &str) -> Token<'_> {
        Token { text, line: 1, column: 1 }
    }

    #[test]
    fn values() {
        let v = |s| value(&tok(s));
        assert_eq!(v("1.5"), Ok(1.5f32.to_bits()));
        assert_eq!(v("-2"), Ok((-2.0f32).to_bits()));
        assert_eq!(v("1e-3"), Ok(1e-3f32.to_bits()));
        assert_eq!(v("inf"), Ok(0x7f80_0000));
        assert_eq!(v("-inf"), Ok(0xff80_0000));
        assert_eq!(v("nan"), Ok(0x7fc0_0000));
        assert_eq!(v("-nan"), Ok(0xffc0_0000));
        assert_eq!(v("0xfffffffa"), Ok(0xffff_fffa));
        assert_eq!(v("0X7F800001"), Ok(0x7f80_0001));
        assert_eq!(v("0x1"), Ok(1));
        assert_eq!(v("-0"), Ok(0x8000_0000));
        for bad in ["0x", "0x123456789", "0xg", "1.0f", "one", "--1", "0x-1", "1,5"] {
            assert!(v(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn integers() {
        assert_eq!(integer(&tok("42"), "a lane", 100), Ok(42));
        assert!(matches!(integer(&tok("+1"), "a lane", 100).unwrap_err().kind, StateErrorKind::BadNumber { .. }));
        assert!(matches!(integer(&tok("101"), "a lane", 100).unwrap_err().kind, StateErrorKind::TooLarge { .. }));
        assert!(matches!(
            integer(&tok("99999999999999999999"), "a lane", u32::MAX).unwrap_err().kind,
            StateErrorKind::TooLarge { .. }
        ));
    }

    #[test]
    fn tokens_and_columns() {
        let text = "a b\t c # d e\n\n   # only a comment\r\n x#y\r\n";
        let got: Vec<Vec<(&str, usize, usize)>> =
            lines(text).map(|l| l.iter().map(|t| (t.text, t.line, t.column)).collect()).collect();
        assert_eq!(got, vec![vec![("a", 1, 1), ("b", 1, 3), ("c", 1, 6)], vec![("x", 4, 2)]]);
    }
}
