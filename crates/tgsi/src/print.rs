//! The canonical printer.
use crate::ast::Shader;

/// How immediates are written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Style {
    /// Mesa's layout, but every immediate reads back to the same bits.
    #[default]
    Exact,
    /// Byte for byte what Mesa's `tgsi_dump` prints (lossy floats).
    Mesa,
}

/// Prints a shader as canonical text.
pub fn print(_shader: &Shader, _style: Style) -> String {
    String::new()
}
