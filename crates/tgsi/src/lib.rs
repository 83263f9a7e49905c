//! The TGSI shader language: the opcode table, the syntax tree, the text
//! parser, the canonical printer and Mesa's binary token stream.
//!
//! ```
//! let text = "FRAG\nDCL IN[0], COLOR, LINEAR\nDCL OUT[0], COLOR\n  0: MOV OUT[0], IN[0]\n  1: END\n";
//! let shader = tgsi::parse(text).unwrap();
//! assert_eq!(tgsi::print(&shader, tgsi::Style::Exact), text);
//! let words = tgsi::tokens::encode(&shader).unwrap();
//! assert_eq!(tgsi::tokens::decode(&words).unwrap(), shader);
//! ```

pub mod ast;
pub mod declared;
pub mod format;
pub mod labels;
pub mod limits;
pub mod names;
pub mod opcode;
pub mod parse;
pub mod print;
pub mod tokens;
pub mod validate;

pub use ast::*;
pub use declared::{undeclared, RegisterName, Undeclared};
pub use labels::mesa_labels;
pub use limits::{Limit, LimitCounter, LimitExceeded, Limits};
pub use names::*;
pub use opcode::{flags, ChannelMode, Opcode, OpcodeInfo, OperandType};
pub use parse::{parse, parse_with_limits, parse_with_spans, ParseError, Span};
pub use print::{print, Style};
pub use validate::{validate, ValidationError};
