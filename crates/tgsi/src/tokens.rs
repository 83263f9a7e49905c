//! Mesa's binary token stream (`struct tgsi_token`, 32-bit words).

use crate::ast::Shader;

/// Why a shader cannot be written as tokens.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum EncodeError {
    /// Not written yet.
    #[error("token encoding is not implemented yet")]
    Unimplemented,
}

/// Why a word sequence is not a valid token stream.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum DecodeError {
    /// Not written yet.
    #[error("token decoding is not implemented yet")]
    Unimplemented,
}

/// Encodes a shader as Mesa's token words.
pub fn encode(_shader: &Shader) -> Result<Vec<u32>, EncodeError> {
    Err(EncodeError::Unimplemented)
}

/// Decodes Mesa's token words.
pub fn decode(_words: &[u32]) -> Result<Shader, DecodeError> {
    Err(DecodeError::Unimplemented)
}
