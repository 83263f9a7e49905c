//! The round-trip properties of the language crate, checked on any input:
//! what the fuzz targets (`fuzz/`) assert, and what the tests check on the
//! bundled examples and the conformance corpus.
//!
//! Inputs that are rejected (parse or decode errors) satisfy every
//! property; only accepted inputs must round-trip. A panic inside the
//! language crate is a failure too: the fuzzers report it, and tests see it.

use std::fmt;

use tgsi::{tokens, Shader, Style};

/// A broken property, with what was seen.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Violation {
    /// Which property: `exact text re-parses`, `decode(encode(x)) == x`, ...
    pub property: &'static str,
    /// The evidence.
    pub detail: String,
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "property `{}` broken:\n{}", self.property, self.detail)
    }
}

impl std::error::Error for Violation {}

/// Checks text: when it parses, printing it in both styles works, and the
/// exact printing parses back to an equal shader.
pub fn check_text(text: &str) -> Result<(), Violation> {
    let Ok(shader) = tgsi::parse(text) else {
        return Ok(());
    };
    check_printing(&shader)
}

/// Checks token words: when they decode, the shader prints in both styles,
/// its exact printing parses back to it, encoding it does not panic, and
/// when it encodes the words decode back to an equal shader.
pub fn check_tokens(words: &[u32]) -> Result<(), Violation> {
    let Ok(shader) = tokens::decode(words) else {
        return Ok(());
    };
    check_printing(&shader)?;
    let Ok(encoded) = tokens::encode(&shader) else {
        return Ok(());
    };
    match tokens::decode(&encoded) {
        Ok(again) if again == shader => Ok(()),
        Ok(again) => Err(Violation {
            property: "decode(encode(x)) == x",
            detail: format!("decoded:\n{shader:#?}\nafter encode and decode:\n{again:#?}"),
        }),
        Err(err) => {
            Err(Violation { property: "encoded words decode", detail: format!("{err}\nwords: {encoded:08x?}") })
        }
    }
}

/// Prints `shader` in both styles; the exact text must parse back to it.
fn check_printing(shader: &Shader) -> Result<(), Violation> {
    let _mesa = tgsi::print(shader, Style::Mesa);
    let exact = tgsi::print(shader, Style::Exact);
    match tgsi::parse(&exact) {
        Ok(again) if again == *shader => Ok(()),
        Ok(again) => Err(Violation {
            property: "parse(print_exact(x)) == x",
            detail: format!("printed:\n{exact}\nparsed:\n{shader:#?}\nre-parsed:\n{again:#?}"),
        }),
        Err(err) => Err(Violation { property: "exact text re-parses", detail: err.render(&exact, "<printed>") }),
    }
}

/// Reads bytes as little-endian 32-bit words; a trailing partial word is
/// dropped. This is how the token fuzz target sees its input.
pub fn words_from_bytes(bytes: &[u8]) -> Vec<u32> {
    bytes.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_are_little_endian() {
        assert_eq!(words_from_bytes(&[1, 0, 0, 0, 0xff, 0xee, 0xdd, 0xcc, 7]), [1, 0xccdd_eeff]);
        assert_eq!(words_from_bytes(&[1, 2, 3]), Vec::<u32>::new());
    }

    #[test]
    fn rejected_inputs_hold_every_property() {
        assert_eq!(check_text("this is not TGSI"), Ok(()));
        assert_eq!(check_tokens(&[]), Ok(()));
    }
}
