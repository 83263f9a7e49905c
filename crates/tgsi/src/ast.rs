//! The syntax tree of a TGSI shader.
//!
//! It holds exactly what Mesa's binary tokens hold, in the same order, so
//! text, tokens and the tree convert into one another without loss. Register
//! indices are `i32` but always fit the 16-bit token fields; the parser and
//! the token decoder guarantee it.

use crate::names::*;
use crate::opcode::Opcode;
use smallvec::SmallVec;

/// A whole shader: its stage and its items in program order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Shader {
    /// The stage.
    pub processor: Processor,
    /// Properties, declarations, immediates and instructions, in order.
    pub items: Vec<Item>,
}

/// One top-level item of a shader.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Item {
    /// `PROPERTY NAME value`
    Property(Property),
    /// `DCL ...`
    Declaration(Declaration),
    /// `IMM[n] TYPE {...}`
    Immediate(Immediate),
    /// An instruction.
    Instruction(Instruction),
}

/// `PROPERTY NAME value`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Property {
    /// The property.
    pub name: PropertyName,
    /// Its value, as stored in the token (an enum index for named values).
    pub value: u32,
}

/// The semantic of a declaration: `, COLOR[1]`, and for geometry outputs
/// their vertex streams.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Semantic {
    /// The semantic name.
    pub name: SemanticName,
    /// The semantic index (`GENERIC[3]` has index 3).
    pub index: u16,
    /// The vertex stream of each channel (`STREAM(x, y, z, w)`), each 0..=3.
    pub streams: [u8; 4],
}

/// Interpolation of an input: mode and location.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Interpolation {
    /// `CONSTANT`, `LINEAR`, `PERSPECTIVE` or `COLOR`.
    pub mode: InterpolateMode,
    /// `CENTER` (the default), `CENTROID` or `SAMPLE`.
    pub location: InterpolateLocation,
}

/// The resource part of an `IMAGE` declaration.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ImageDecl {
    /// The image target.
    pub target: TextureTarget,
    /// `RAW`
    pub raw: bool,
    /// `WR`
    pub writable: bool,
    /// A `PIPE_FORMAT_*` number (see [`crate::format`]).
    pub format: u16,
}

/// The resource part of an `SVIEW` declaration.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SamplerViewDecl {
    /// The view target.
    pub target: TextureTarget,
    /// The return type of each channel.
    pub return_types: [ReturnType; 4],
}

/// `DCL FILE[first..last]` with everything that may follow it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Declaration {
    /// The register file.
    pub file: File,
    /// The outer index of a 2-D declaration (`CONST[1][0..3]` has 1).
    pub dimension: Option<u16>,
    /// First register of the range.
    pub first: u16,
    /// Last register of the range (inclusive).
    pub last: u16,
    /// Channels used (`.xy`), a 4-bit mask; 0xf when not written.
    pub usage_mask: u8,
    /// `ARRAY(n)`
    pub array_id: Option<u16>,
    /// `LOCAL`
    pub local: bool,
    /// `, NAME[index]`
    pub semantic: Option<Semantic>,
    /// `, PERSPECTIVE, CENTROID`
    pub interpolation: Option<Interpolation>,
    /// `, INVARIANT`
    pub invariant: bool,
    /// `IMAGE` target, format and flags.
    pub image: Option<ImageDecl>,
    /// `SVIEW` target and return types.
    pub sampler_view: Option<SamplerViewDecl>,
    /// `BUFFER ..., ATOMIC`
    pub atomic: bool,
    /// The kind of a `MEMORY` declaration (GLOBAL by default).
    pub memory_type: MemoryType,
}

impl Declaration {
    /// A plain declaration of `file[first..=last]` with nothing else.
    pub fn new(file: File, first: u16, last: u16) -> Self {
        Declaration {
            file,
            dimension: None,
            first,
            last,
            usage_mask: 0xf,
            array_id: None,
            local: false,
            semantic: None,
            interpolation: None,
            invariant: false,
            image: None,
            sampler_view: None,
            atomic: false,
            memory_type: MemoryType::Global,
        }
    }
}

/// `IMM[n] TYPE { v0, v1, v2, v3 }`: four 32-bit words (a 64-bit value
/// takes two, low word first).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Immediate {
    /// How the words are interpreted.
    pub ty: ImmediateType,
    /// The raw bits.
    pub data: [u32; 4],
}

/// An indirect index: `ADDR[0].x` inside a register bracket.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Indirect {
    /// The file of the index register (usually ADDR, sometimes TEMP).
    pub file: File,
    /// The index register.
    pub index: i32,
    /// The channel of the index register, 0..=3.
    pub component: u8,
    /// The declared array this access stays within (`(n)`), 0 for any.
    pub array_id: u16,
}

/// The outer index of a 2-D register (`CONST[1][3]`, `IN[ADDR[0].x][2]`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Dimension {
    /// The index, or the offset added to the indirect one.
    pub index: i32,
    /// The indirect part, if any.
    pub indirect: Option<Indirect>,
}

/// A register reference: `FILE[dim][index]` with optional indirection.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Register {
    /// The register file.
    pub file: File,
    /// The index, or the offset added to the indirect one.
    pub index: i32,
    /// `[ADDR[0].x+index]`
    pub indirect: Option<Indirect>,
    /// The outer index of a 2-D register.
    pub dimension: Option<Dimension>,
}

impl Register {
    /// A direct 1-D register `file[index]`.
    pub fn new(file: File, index: i32) -> Self {
        Register { file, index, indirect: None, dimension: None }
    }
}

/// A destination operand: a register and a write mask.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DstOperand {
    /// The register written.
    pub reg: Register,
    /// The channels written, a 4-bit mask.
    pub write_mask: u8,
}

/// The identity swizzle `.xyzw`.
pub const IDENTITY_SWIZZLE: [u8; 4] = [0, 1, 2, 3];

/// A source operand: a register with swizzle and modifiers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SrcOperand {
    /// The register read.
    pub reg: Register,
    /// Which channel feeds each result channel (0..=3 for x..w).
    pub swizzle: [u8; 4],
    /// `-` (applied after `|...|`).
    pub negate: bool,
    /// `|...|`
    pub absolute: bool,
}

/// A texture offset operand: `IMM[0].xyz` after a texture instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TexOffset {
    /// The register file.
    pub file: File,
    /// The register.
    pub index: i32,
    /// The three components used.
    pub swizzle: [u8; 3],
}

/// The texture part of an instruction.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TextureInfo {
    /// The texture target (UNKNOWN for the SAMPLE family).
    pub target: TextureTarget,
    /// Up to four texel offsets.
    pub offsets: SmallVec<[TexOffset; 1]>,
}

/// The memory part of a LOAD/STORE/atomic/RESQ instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MemoryInfo {
    /// A mask of `1 << MemoryQualifier::index()` bits.
    pub qualifier: u8,
    /// The image target, for images (BUFFER = 0 means none).
    pub texture: TextureTarget,
    /// The image format, a `PIPE_FORMAT_*` number (0 means none).
    pub format: u16,
}

/// One instruction.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Instruction {
    /// The operation.
    pub opcode: Opcode,
    /// `_SAT`: clamp results to [0, 1].
    pub saturate: bool,
    /// `_PRECISE`: no value-changing optimizations.
    pub precise: bool,
    /// Destination operands.
    pub dst: SmallVec<[DstOperand; 1]>,
    /// Source operands.
    pub src: SmallVec<[SrcOperand; 3]>,
    /// The texture target and offsets, for texture and sample opcodes.
    pub texture: Option<TextureInfo>,
    /// Memory qualifiers, for memory opcodes.
    pub memory: Option<MemoryInfo>,
    /// The branch target (`:N`), an instruction index.
    pub label: Option<u32>,
}

impl Instruction {
    /// An instruction with no operands or extras.
    pub fn new(opcode: Opcode) -> Self {
        Instruction {
            opcode,
            saturate: false,
            precise: false,
            dst: SmallVec::new(),
            src: SmallVec::new(),
            texture: None,
            memory: None,
            label: None,
        }
    }
}

impl Shader {
    /// The instructions, in order.
    pub fn instructions(&self) -> impl Iterator<Item = &Instruction> {
        self.items.iter().filter_map(|item| match item {
            Item::Instruction(inst) => Some(inst),
            _ => None,
        })
    }

    /// The declarations, in order.
    pub fn declarations(&self) -> impl Iterator<Item = &Declaration> {
        self.items.iter().filter_map(|item| match item {
            Item::Declaration(decl) => Some(decl),
            _ => None,
        })
    }

    /// The immediates, in order (their position is their `IMM[n]` index).
    pub fn immediates(&self) -> impl Iterator<Item = &Immediate> {
        self.items.iter().filter_map(|item| match item {
            Item::Immediate(imm) => Some(imm),
            _ => None,
        })
    }

    /// How many instructions the shader has, `END` aside: the size that
    /// "no larger than the input" compares.
    ///
    /// ```
    /// let shader = tgsi::parse("FRAG\nDCL OUT[0]\nMOV OUT[0], IMM[0]\nIMM[0] FLT32 {1, 1, 1, 1}\nEND\n").unwrap();
    /// assert_eq!(shader.instruction_count(), 1);
    /// ```
    pub fn instruction_count(&self) -> usize {
        self.instructions().filter(|i| i.opcode != Opcode::End).count()
    }

    /// How many TEMP registers the shader declares (arrays included).
    pub fn temp_registers(&self) -> u32 {
        self.declarations().filter(|d| d.file == File::Temporary).map(|d| d.last as u32 - d.first as u32 + 1).sum()
    }
}
