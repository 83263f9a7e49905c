//! What a block compiles to: the steps a batch runs over slots, the values
//! it fills in when it starts, and what texture and derivative steps ask.

use smallvec::SmallVec;
use tgsi::{File, Opcode, OperandType, SemanticName};

use super::memory::Access;
use super::slots::Arg;
use crate::kernel::Kernel;

/// A value that does not depend on the path a lane takes: a constant, a
/// direct read of an input, constant or system value, or the result of
/// an operation every lane computes alike. A batch sets all
/// of them for every lane when it starts, so the blocks never do.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Fill {
    Bits(u32),
    /// The `k`-th of a run's constants, each found once a run: the
    /// entries of [`Program::const_reads`](super::Program::const_reads),
    /// then the results of [`Program::uniform`](super::Program::uniform).
    Constant {
        k: u32,
    },
    /// `IN[index]`, or `IN[vertex][index]` in a geometry shader.
    Input {
        vertex: Option<u32>,
        index: u32,
        chan: u8,
    },
    /// A system value register, by its declared semantic.
    SystemValue {
        name: Option<SemanticName>,
        chan: u8,
    },
}

/// What a texture instruction asks of the sampler. The operands of a
/// [`Step::Texture`] are the coordinate's four channels, then what `Lod`,
/// a fetch's level or a sample index needs (see each variant).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum TexOp {
    /// Sample at (s, t): TEX, TXB, TXL, TXD and the SAMPLE family, at the
    /// level `Lod` picks (a texture of one level ignores it).
    Sample(Lod),
    /// TXP: sample at (s/q, t/q), the level as for `Sample`.
    Project(Lod),
    /// TXF: the texel at integer (x, y), of the level in operand 3 when
    /// `level` (TXF; TXF_LZ reads level 0) and the texture has several.
    Fetch { level: bool },
    /// TXQ, SVIEWINFO: (width, height, 0, levels), of the level in operand
    /// 0 when the texture has several.
    Query,
    /// TXQS, SAMPLE_INFO: the sample count, `(n, 0, 0, 0)`: 1 for a
    /// texture; the render target's when `target` (a TEMP operand) and
    /// per-sample shading is in effect, else 1.
    SampleCount { target: bool },
    /// SAMPLE_POS: the position of the sample in operand 0 on the render
    /// target (`target`) while per-sample shading is in effect, else
    /// (0, 0, 0, 0).
    SamplePosition { target: bool },
}

/// How a sampling instruction gets its level of detail.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Lod {
    /// From the coordinates' differences across the 2x2 quad (fragment
    /// shaders: TEX, TXP, SAMPLE).
    Implicit,
    /// Level 0: no quads outside fragment shaders, and TEX_LZ.
    Zero,
    /// Implicit plus the bias in operand 4 (TXB, SAMPLE_B); the bias alone
    /// outside fragment shaders.
    Bias { implicit: bool },
    /// The level in operand 4 (TXL, SAMPLE_L).
    Explicit,
    /// From the derivatives in operands 4 to 7: ds/dx, dt/dx, ds/dy,
    /// dt/dy (TXD, SAMPLE_D).
    Gradients,
}

/// Which derivative, over a 2x2 quad.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Deriv {
    X,
    Y,
    XFine,
    YFine,
}

#[derive(Clone, Debug)]
pub(crate) enum Step {
    /// Computes `width` consecutive slots from `dst` on, slot `dst + k`
    /// from operand slots `slot + k`, or from `slot` itself for the
    /// operands in `broadcast` (bit `i` for operand `i`; see
    /// [`join_channels`](super::join::join_channels)).
    Alu {
        dst: u32,
        width: u32,
        broadcast: u32,
        args: SmallVec<[Arg; 4]>,
        /// How each operand's modifiers read it (the opcode's source
        /// type, with Mesa's per-operand exceptions: LDEXP's and DLDEXP's
        /// exponent is an integer).
        src_tys: SmallVec<[OperandType; 4]>,
        sat: Option<OperandType>,
        /// The batch loop computing it.
        kernel: Kernel,
        /// The operation, for its facts ([`semantics::facts`]).
        opcode: Opcode,
        /// No operand has modifiers and the result is not saturated: the
        /// batch loop writes `dst` in place.
        plain: bool,
        /// The result or an operand is a 64-bit value: computed lane by
        /// lane on the joined halves.
        wide: bool,
        /// The result is a 64-bit value (in `dst` and `dst + 1`).
        wide_dst: bool,
    },
    Deriv {
        dst: u32,
        arg: Arg,
        kind: Deriv,
        sat: bool,
    },
    /// A copy of one slot: what joining two halves into a 64-bit value
    /// and taking a half of one come to.
    Move {
        dst: u32,
        src: u32,
    },
    /// A load from a register file, its index (and 2-D index) adding the
    /// values of `index` and `dim_index` when present.
    LoadIndirect {
        dst: u32,
        file: File,
        base: i32,
        index: Option<u32>,
        dim: Option<(i32, Option<u32>)>,
        chan: u8,
    },
    ArrayLoad {
        dst: u32,
        array: u32,
        offset: i32,
        index: Option<u32>,
        chan: u8,
    },
    ArrayStore {
        array: u32,
        offset: i32,
        index: Option<u32>,
        value: u32,
        chan: u8,
    },
    StoreOutput {
        index: u32,
        chan: u8,
        value: u32,
        /// The register's place among the declared ones (in
        /// [`Program::outputs`](super::Program::outputs)); `None` for an
        /// undeclared index.
        declared: Option<u32>,
    },
    Texture {
        op: TexOp,
        unit: u32,
        /// The coordinate's channels, then `op`'s other operands (boxed:
        /// steps stay small).
        coords: Box<[Arg; TEX_OPERANDS]>,
        /// Applied to the result before it is written.
        swizzle: [u8; 4],
        /// The destination channels written, with their slots.
        dsts: SmallVec<[(u8, u32); 4]>,
        sat: bool,
    },
    Kill,
    /// `EMIT`: a vertex on the stream in `stream` (0 without one).
    Emit {
        stream: Option<u32>,
    },
    /// `ENDPRIM`: a primitive ends on the stream in `stream`.
    EndPrimitive {
        stream: Option<u32>,
    },
    KillIf {
        args: SmallVec<[Arg; 4]>,
    },
    /// Phi copies at the end of a predecessor, slot by slot: all read,
    /// then all written.
    Copies(Vec<(u32, u32)>),
    /// A load, store, atomic or query of memory (see [`crate::memory`]).
    Memory(Box<Access>),
}

impl Step {
    /// The operands `self` reads in lanes of the quad other than their
    /// own: a derivative's, and a texture's coordinates (its level of
    /// detail compares the quad's lanes). A lane that did not compute
    /// such an operand must still hold what the interpreter's would.
    pub(crate) fn cross_lane_operands(&self) -> &[Arg] {
        match self {
            Step::Deriv { arg, .. } => std::slice::from_ref(arg),
            Step::Texture { coords, .. } => &coords[..],
            _ => &[],
        }
    }
}

/// The operands of a texture step: a coordinate and up to four more.
pub(crate) const TEX_OPERANDS: usize = 8;

/// The most slots one ALU step computes: a whole TGSI register.
pub(crate) const MAX_WIDTH: u32 = 4;
