//! The `.hex` text form of a token stream: one `0x%08x` word a line.

use super::DecodeError;
use std::fmt::Write;

/// Writes words one a line as `0x%08x`, each line ending in `\n` (the
/// layout of the conformance `.hex` files).
pub fn to_hex(words: &[u32]) -> String {
    let mut out = String::with_capacity(words.len() * 11);
    for w in words {
        // Writing to a String cannot fail.
        let _ = writeln!(out, "0x{w:08x}");
    }
    out
}

/// Reads words written one a line as `0x` and 1 to 8 hex digits (either
/// case). Blank lines and whitespace around a word are accepted; anything
/// else is an error with its 1-based line number.
pub fn parse_hex(text: &str) -> Result<Vec<u32>, DecodeError> {
    let mut words = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let t = line.trim();
        if t.is_empty() {
            continue;
        }
        let bad = || DecodeError::Hex { line: i + 1, text: t.to_string() };
        let digits = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")).ok_or_else(bad)?;
        if digits.is_empty() || digits.len() > 8 || !digits.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(bad());
        }
        words.push(u32::from_str_radix(digits, 16).map_err(|_| bad())?);
    }
    Ok(words)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip() {
        let words = [0, 1, 0xdead_beef, u32::MAX];
        let text = to_hex(&words);
        assert_eq!(text, "0x00000000\n0x00000001\n0xdeadbeef\n0xffffffff\n");
        assert_eq!(parse_hex(&text).unwrap(), words);
        assert_eq!(to_hex(&[]), "");
    }

    #[test]
    fn lenient_on_blanks_and_whitespace() {
        assert_eq!(parse_hex("\n  0x1 \r\n\n\t0XABCDEF01\n\n").unwrap(), [1, 0xabcd_ef01]);
        assert_eq!(parse_hex("").unwrap(), Vec::<u32>::new());
    }

    #[test]
    fn errors_name_the_line() {
        for (text, line) in
            [("0x1\n12\n", 2), ("0x1\n\n0x\n", 3), ("0x123456789\n", 1), ("0x+1\n", 1), ("0x1 0x2\n", 1), ("0xg\n", 1)]
        {
            match parse_hex(text) {
                Err(DecodeError::Hex { line: l, .. }) => assert_eq!(l, line, "{text:?}"),
                other => panic!("{text:?}: {other:?}"),
            }
        }
    }
}
