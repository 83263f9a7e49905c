//! The text parser.
mod error;
pub use error::{ParseError, Span};
use crate::ast::Shader;

/// Parses TGSI text.
pub fn parse(text: &str) -> Result<Shader, ParseError> {
    parse_with_spans(text).map(|(s, _)| s)
}

/// Parses TGSI text, also returning the span of each item of `Shader::items`.
pub fn parse_with_spans(_text: &str) -> Result<(Shader, Vec<Span>), ParseError> {
    Err(ParseError { message: "not implemented".into(), span: Span::default() })
}
