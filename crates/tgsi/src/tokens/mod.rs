//! Mesa's binary token stream (`struct tgsi_token`, 32-bit words), bit for
//! bit.
//!
//! A stream is a header word (`HeaderSize:8 BodySize:24`, HeaderSize 2), a
//! processor word (`Processor:4`, Mesa's `MESA_SHADER_*` numbering) and the
//! body: one item after another, each starting with `Type:4 NrTokens:8`.
//! All fields are C bitfields, least significant bit first
//! (`p_shader_tokens.h`); the order of the words of an item is the one of
//! `tgsi_build.c` and `tgsi_parse.c`.
//!
//! Two quirks worth knowing:
//! - `NrTokens` counts every word of a declaration, immediate or property,
//!   but for an instruction it counts the words *after* the instruction
//!   token (Mesa's builder starts it at 0).
//! - An instruction's texture offsets follow its texture token, and come
//!   before its memory token; a register's indirect token comes before its
//!   2-D dimension token, which is followed by the dimension's own indirect
//!   token.
//!
//! [`decode`] never panics. Padding bits are ignored, as Mesa ignores them;
//! anything the syntax tree cannot hold (unknown opcode, file or enum value,
//! a wrong `NrTokens`, a nested 2-D dimension, an immediate that is not four
//! words, trailing words) is an error naming the word where it is. [`encode`]
//! refuses values that do not fit their field instead of wrapping them.
//!
//! ```
//! let words = tgsi::tokens::parse_hex("0x00000102\n0x00000004\n0x00075002\n").unwrap();
//! let shader = tgsi::tokens::decode(&words).unwrap();
//! assert_eq!(shader.processor, tgsi::Processor::Fragment);
//! assert_eq!(shader.instructions().next().map(|i| i.opcode), Some(tgsi::Opcode::End));
//! assert_eq!(tgsi::tokens::encode(&shader).unwrap(), words);
//! assert_eq!(tgsi::tokens::to_hex(&words), "0x00000102\n0x00000004\n0x00075002\n");
//! ```

mod decode;
mod encode;
mod hex;

pub use decode::{decode, decode_with_limits};
pub use encode::encode;
pub use hex::{parse_hex, to_hex};

use crate::opcode::Opcode;

/// Why a shader cannot be written as tokens.
#[derive(Clone, Debug, thiserror::Error, PartialEq, Eq)]
pub enum EncodeError {
    /// The opcode has no number in today's token stream (a legacy opcode
    /// of the 2010 reference).
    #[error("item {item}: {} has no opcode number in Mesa's token stream", .opcode.name())]
    NoMesaOpcode {
        /// Index of the item in [`crate::Shader::items`].
        item: usize,
        /// The opcode.
        opcode: Opcode,
    },
    /// A value does not fit the token field that holds it.
    #[error("item {item}: {what} {value} is outside {min}..={max}, the range of its token field")]
    OutOfRange {
        /// Index of the item in [`crate::Shader::items`].
        item: usize,
        /// What the value is ("register index", "array id", ...).
        what: &'static str,
        /// The value.
        value: i64,
        /// The smallest value the field holds.
        min: i64,
        /// The largest value the field holds.
        max: i64,
    },
    /// The item carries a part its register file cannot have.
    #[error("item {item}: {what}")]
    Inconsistent {
        /// Index of the item in [`crate::Shader::items`].
        item: usize,
        /// What is wrong.
        what: &'static str,
    },
    /// The body is longer than the header's 24-bit `BodySize` can count.
    #[error("the shader body has {words} words; the header's BodySize holds at most 16777215")]
    TooLong {
        /// Number of body words.
        words: usize,
    },
}

/// Why a word sequence is not a valid token stream.
#[derive(Clone, Debug, thiserror::Error, PartialEq, Eq)]
pub enum DecodeError {
    /// A line of hex text is not a `0x` word (see [`parse_hex`]).
    #[error("line {line}: {text:?} is not a 32-bit word written 0x followed by 1 to 8 hex digits")]
    Hex {
        /// 1-based line number.
        line: usize,
        /// The offending line, trimmed.
        text: String,
    },
    /// Something is wrong at a word of the stream.
    #[error("word {word}: {problem}")]
    Token {
        /// 0-based index of the word where the problem is.
        word: usize,
        /// What is wrong there.
        problem: Problem,
    },
}

impl DecodeError {
    /// The word index of a token error (`None` for a hex text error).
    pub fn word(&self) -> Option<usize> {
        match self {
            DecodeError::Token { word, .. } => Some(*word),
            DecodeError::Hex { .. } => None,
        }
    }

    /// The problem of a token error (`None` for a hex text error).
    pub fn problem(&self) -> Option<&Problem> {
        match self {
            DecodeError::Token { problem, .. } => Some(problem),
            DecodeError::Hex { .. } => None,
        }
    }
}

/// What is wrong at a word of a token stream.
#[derive(Clone, Debug, thiserror::Error, PartialEq, Eq)]
pub enum Problem {
    /// The item breaks a rule of the language (see [`mod@crate::validate`]).
    #[error("{0}")]
    Invalid(String),
    /// The stream ends where a word was expected.
    #[error("the stream ends inside the {0}")]
    Truncated(&'static str),
    /// The header's `HeaderSize` is not 2 (header and processor words).
    #[error("header size is {0}, expected 2")]
    HeaderSize(u32),
    /// The header's `BodySize` claims more words than the stream has.
    #[error("the header says {declared} body words follow, but only {actual} do")]
    BodyTooShort {
        /// `BodySize` from the header.
        declared: usize,
        /// Words after the header.
        actual: usize,
    },
    /// Words follow the end of the body the header declares.
    #[error("{0} words follow the end of the body the header declares")]
    TrailingWords(usize),
    /// A field holds a number that names nothing.
    #[error("unknown {what} {value}")]
    Unknown {
        /// What the field is ("opcode", "register file", ...).
        what: &'static str,
        /// The number found.
        value: u32,
    },
    /// An item's `NrTokens` disagrees with the words its flags call for.
    #[error("{item} token says NrTokens {declared}, but its flags make it {expected}")]
    NrTokens {
        /// The kind of item.
        item: &'static str,
        /// The `NrTokens` field.
        declared: u32,
        /// What it should be given the item's flags.
        expected: usize,
    },
    /// An immediate that is not exactly four data words (its `NrTokens`).
    #[error("immediate says NrTokens {0}; only 5 (four data words) is supported")]
    ImmediateSize(u32),
    /// A property that is not exactly one data word (its `NrTokens`).
    #[error("property says NrTokens {0}; only 2 (one data word) is supported")]
    PropertySize(u32),
    /// The stream is past a bound of [`crate::Limits`].
    #[error("{0}")]
    Limit(crate::LimitExceeded),
    /// A 2-D dimension token with its own nested `Dimension` bit set.
    #[error("2-D dimension token has its nested Dimension bit set (Mesa has no 3-D registers)")]
    NestedDimension,
}

/// A bitfield of a token word, least significant bit first.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Field {
    shift: u32,
    width: u32,
}

impl Field {
    const fn new(shift: u32, width: u32) -> Self {
        Field { shift, width }
    }

    const fn mask(self) -> u32 {
        if self.width >= 32 {
            u32::MAX
        } else {
            (1u32 << self.width) - 1
        }
    }

    /// The largest unsigned value the field holds.
    const fn max(self) -> u32 {
        self.mask()
    }

    /// The field's bits as an unsigned number.
    fn get(self, word: u32) -> u32 {
        (word >> self.shift) & self.mask()
    }

    /// The field's single bit.
    fn flag(self, word: u32) -> bool {
        self.get(word) != 0
    }

    /// The field's bits as a two's-complement number.
    fn get_signed(self, word: u32) -> i32 {
        let raw = self.get(word);
        let unused = 32 - self.width;
        ((raw << unused) as i32) >> unused
    }

    /// Places `value` (already known to fit) in the field.
    fn put(self, value: u32) -> u32 {
        (value & self.mask()) << self.shift
    }

    /// Places a bool in a one-bit field.
    fn put_flag(self, value: bool) -> u32 {
        self.put(u32::from(value))
    }
}

/// Field layouts of `p_shader_tokens.h`.
pub(crate) mod layout {
    use super::Field;

    /// `tgsi_header`
    pub mod header {
        use super::Field;
        pub const HEADER_SIZE: Field = Field::new(0, 8);
        pub const BODY_SIZE: Field = Field::new(8, 24);
    }

    /// `tgsi_processor`
    pub mod processor {
        use super::Field;
        pub const PROCESSOR: Field = Field::new(0, 4);
    }

    /// `tgsi_token`: the start of every item.
    pub mod token {
        use super::Field;
        pub const TYPE: Field = Field::new(0, 4);
        pub const NR_TOKENS: Field = Field::new(4, 8);
        pub const DECLARATION: u32 = 0;
        pub const IMMEDIATE: u32 = 1;
        pub const INSTRUCTION: u32 = 2;
        pub const PROPERTY: u32 = 3;
    }

    /// `tgsi_declaration` and the tokens that follow it.
    pub mod decl {
        use super::Field;
        pub const FILE: Field = Field::new(12, 4);
        pub const USAGE_MASK: Field = Field::new(16, 4);
        pub const DIMENSION: Field = Field::new(20, 1);
        pub const SEMANTIC: Field = Field::new(21, 1);
        pub const INTERPOLATE: Field = Field::new(22, 1);
        pub const INVARIANT: Field = Field::new(23, 1);
        pub const LOCAL: Field = Field::new(24, 1);
        pub const ARRAY: Field = Field::new(25, 1);
        pub const ATOMIC: Field = Field::new(26, 1);
        pub const MEM_TYPE: Field = Field::new(27, 2);

        pub const RANGE_FIRST: Field = Field::new(0, 16);
        pub const RANGE_LAST: Field = Field::new(16, 16);
        pub const INDEX_2D: Field = Field::new(0, 16);
        pub const INTERP_MODE: Field = Field::new(0, 4);
        pub const INTERP_LOCATION: Field = Field::new(4, 2);
        pub const SEMANTIC_NAME: Field = Field::new(0, 8);
        pub const SEMANTIC_INDEX: Field = Field::new(8, 16);
        pub const STREAM: [Field; 4] = [Field::new(24, 2), Field::new(26, 2), Field::new(28, 2), Field::new(30, 2)];
        pub const IMAGE_RESOURCE: Field = Field::new(0, 8);
        pub const IMAGE_RAW: Field = Field::new(8, 1);
        pub const IMAGE_WRITABLE: Field = Field::new(9, 1);
        pub const IMAGE_FORMAT: Field = Field::new(10, 10);
        pub const SVIEW_RESOURCE: Field = Field::new(0, 8);
        pub const SVIEW_RETURN: [Field; 4] =
            [Field::new(8, 6), Field::new(14, 6), Field::new(20, 6), Field::new(26, 6)];
        pub const ARRAY_ID: Field = Field::new(0, 10);
    }

    /// `tgsi_immediate`
    pub mod imm {
        use super::Field;
        pub const NR_TOKENS: Field = Field::new(4, 14);
        pub const DATA_TYPE: Field = Field::new(18, 4);
    }

    /// `tgsi_property`
    pub mod prop {
        use super::Field;
        pub const NAME: Field = Field::new(12, 8);
    }

    /// `tgsi_instruction` and the tokens that follow it.
    pub mod inst {
        use super::Field;
        pub const OPCODE: Field = Field::new(12, 8);
        pub const SATURATE: Field = Field::new(20, 1);
        pub const NUM_DST: Field = Field::new(21, 2);
        pub const NUM_SRC: Field = Field::new(23, 4);
        pub const LABEL: Field = Field::new(27, 1);
        pub const TEXTURE: Field = Field::new(28, 1);
        pub const MEMORY: Field = Field::new(29, 1);
        pub const PRECISE: Field = Field::new(30, 1);

        pub const LABEL_VALUE: Field = Field::new(0, 24);
        pub const TEX_TARGET: Field = Field::new(0, 8);
        pub const TEX_NUM_OFFSETS: Field = Field::new(8, 4);
        pub const OFFSET_INDEX: Field = Field::new(0, 16);
        pub const OFFSET_FILE: Field = Field::new(16, 4);
        pub const OFFSET_SWIZZLE: [Field; 3] = [Field::new(20, 2), Field::new(22, 2), Field::new(24, 2)];
        pub const MEM_QUALIFIER: Field = Field::new(0, 4);
        pub const MEM_TEXTURE: Field = Field::new(4, 8);
        pub const MEM_FORMAT: Field = Field::new(12, 10);
    }

    /// `tgsi_dst_register`
    pub mod dst {
        use super::Field;
        pub const FILE: Field = Field::new(0, 4);
        pub const WRITE_MASK: Field = Field::new(4, 4);
        pub const INDIRECT: Field = Field::new(8, 1);
        pub const DIMENSION: Field = Field::new(9, 1);
        pub const INDEX: Field = Field::new(10, 16);
    }

    /// `tgsi_src_register`
    pub mod src {
        use super::Field;
        pub const FILE: Field = Field::new(0, 4);
        pub const INDIRECT: Field = Field::new(4, 1);
        pub const DIMENSION: Field = Field::new(5, 1);
        pub const INDEX: Field = Field::new(6, 16);
        pub const SWIZZLE: [Field; 4] = [Field::new(22, 2), Field::new(24, 2), Field::new(26, 2), Field::new(28, 2)];
        pub const ABSOLUTE: Field = Field::new(30, 1);
        pub const NEGATE: Field = Field::new(31, 1);
    }

    /// `tgsi_ind_register`
    pub mod ind {
        use super::Field;
        pub const FILE: Field = Field::new(0, 4);
        pub const INDEX: Field = Field::new(4, 16);
        pub const SWIZZLE: Field = Field::new(20, 2);
        pub const ARRAY_ID: Field = Field::new(22, 10);
    }

    /// `tgsi_dimension`
    pub mod dim {
        use super::Field;
        pub const INDIRECT: Field = Field::new(0, 1);
        pub const DIMENSION: Field = Field::new(1, 1);
        pub const INDEX: Field = Field::new(16, 16);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields() {
        let f = Field::new(10, 16);
        assert_eq!(f.get(0xffff_fc00), 0xffff);
        assert_eq!(f.get_signed(0xffff_fc00), -1);
        assert_eq!(f.get_signed(f.put(0x7fff)), 0x7fff);
        assert_eq!(f.get_signed(f.put(0x8000)), -0x8000);
        assert_eq!(Field::new(0, 32).max(), u32::MAX);
        assert_eq!(Field::new(4, 8).max(), 255);
        assert!(Field::new(31, 1).flag(0x8000_0000));
    }

    #[test]
    fn error_messages_locate_the_problem() {
        let e = DecodeError::Token { word: 7, problem: Problem::Unknown { what: "opcode", value: 67 } };
        assert_eq!(e.to_string(), "word 7: unknown opcode 67");
        assert_eq!(e.word(), Some(7));
        let e = EncodeError::NoMesaOpcode { item: 3, opcode: Opcode::Sub };
        assert_eq!(e.to_string(), "item 3: SUB has no opcode number in Mesa's token stream");
    }
}
