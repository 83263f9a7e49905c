//! The operations the generator writes, and the kinds of their operands.

/// An immediate: its type and four (or two double) values.
#[derive(Clone, Copy, PartialEq)]
pub(super) enum Imm {
    F32([u32; 4]),
    U32([u32; 4]),
    I32([i32; 4]),
    F64([u64; 2]),
}

/// What an operand holds, which decides its immediates and modifiers.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    /// f32; negation and absolute value allowed.
    Float,
    /// Signed integer; negation allowed.
    Int,
    /// Unsigned or bits; no modifiers.
    Uint,
    /// A double in a channel pair; negation and absolute value allowed.
    Double,
    /// A 64-bit integer in a channel pair; no modifiers.
    Int64,
}

impl Kind {
    pub(super) fn is_64bit(self) -> bool {
        matches!(self, Kind::Double | Kind::Int64)
    }
}

/// How an instruction's channels relate to its operands.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Shape {
    /// Channel by channel (or pair by pair for 64-bit kinds).
    Componentwise,
    /// One scalar result replicated to every written channel.
    Replicate,
    /// 64-bit sources, one 32-bit result per pair (comparisons).
    Compare64,
    /// 32-bit sources into 64-bit pairs: dst.xy from src.x, dst.zw from src.y.
    Widen,
    /// 64-bit sources into 32-bit channels: the first written from xy, the
    /// second from zw.
    Narrow,
}

/// An ALU opcode the generator uses: name, destination kind, source kinds,
/// shape, and whether `_SAT` applies.
pub(super) struct OpInfo {
    pub(super) name: &'static str,
    pub(super) dst: Kind,
    pub(super) srcs: &'static [Kind],
    pub(super) shape: Shape,
    pub(super) sat: bool,
}

impl OpInfo {
    /// Whether every operand is a float: what a driver without integers
    /// takes.
    pub(super) fn is_float(&self) -> bool {
        self.dst == Kind::Float && self.srcs.iter().all(|&k| k == Kind::Float)
    }
}

macro_rules! ops {
    ($($name:literal $dst:ident [$($src:ident),*] $shape:ident $sat:literal;)*) => {
        &[$(OpInfo { name: $name, dst: Kind::$dst, srcs: &[$(Kind::$src),*], shape: Shape::$shape, sat: $sat },)*]
    };
}

pub(super) const FLOAT_OPS: &[OpInfo] = ops! {
    "MOV" Float [Float] Componentwise true;
    "ADD" Float [Float, Float] Componentwise true;
    "MUL" Float [Float, Float] Componentwise true;
    "MAD" Float [Float, Float, Float] Componentwise true;
    "FMA" Float [Float, Float, Float] Componentwise false;
    "MIN" Float [Float, Float] Componentwise false;
    "MAX" Float [Float, Float] Componentwise true;
    "SLT" Float [Float, Float] Componentwise false;
    "SGE" Float [Float, Float] Componentwise false;
    "SEQ" Float [Float, Float] Componentwise false;
    "SNE" Float [Float, Float] Componentwise false;
    "SGT" Float [Float, Float] Componentwise false;
    "SLE" Float [Float, Float] Componentwise false;
    "LRP" Float [Float, Float, Float] Componentwise true;
    "CMP" Float [Float, Float, Float] Componentwise false;
    "DIV" Float [Float, Float] Componentwise false;
    "FRC" Float [Float] Componentwise false;
    "FLR" Float [Float] Componentwise false;
    "CEIL" Float [Float] Componentwise false;
    "TRUNC" Float [Float] Componentwise false;
    "ROUND" Float [Float] Componentwise false;
    "SSG" Float [Float] Componentwise false;
    "LDEXP" Float [Float, Int] Componentwise false;
    "RCP" Float [Float] Replicate true;
    "RSQ" Float [Float] Replicate false;
    "SQRT" Float [Float] Replicate false;
    "EX2" Float [Float] Replicate true;
    "LG2" Float [Float] Replicate false;
    "POW" Float [Float, Float] Replicate false;
    "SIN" Float [Float] Replicate true;
    "COS" Float [Float] Replicate false;
    "DP2" Float [Float, Float] Replicate true;
    "DP3" Float [Float, Float] Replicate false;
    "DP4" Float [Float, Float] Replicate true;
    "LIT" Float [Float] Componentwise false;
    "DST" Float [Float, Float] Componentwise false;
    "EXP" Float [Float] Componentwise false;
    "LOG" Float [Float] Componentwise false;
    "I2F" Float [Int] Componentwise false;
    "U2F" Float [Uint] Componentwise false;
    "FSLT" Uint [Float, Float] Componentwise false;
    "FSGE" Uint [Float, Float] Componentwise false;
    "FSEQ" Uint [Float, Float] Componentwise false;
    "FSNE" Uint [Float, Float] Componentwise false;
    "F2I" Int [Float] Componentwise false;
    "F2U" Uint [Float] Componentwise false;
};

pub(super) const INT_OPS: &[OpInfo] = ops! {
    "UADD" Int [Int, Int] Componentwise false;
    "UMUL" Uint [Uint, Uint] Componentwise false;
    "UMAD" Uint [Uint, Uint, Uint] Componentwise false;
    "IMAX" Int [Int, Int] Componentwise false;
    "IMIN" Int [Int, Int] Componentwise false;
    "UMAX" Uint [Uint, Uint] Componentwise false;
    "UMIN" Uint [Uint, Uint] Componentwise false;
    "INEG" Int [Int] Componentwise false;
    "IABS" Int [Int] Componentwise false;
    "ISSG" Int [Int] Componentwise false;
    "ISGE" Uint [Int, Int] Componentwise false;
    "ISLT" Uint [Int, Int] Componentwise false;
    "USEQ" Uint [Uint, Uint] Componentwise false;
    "USNE" Uint [Uint, Uint] Componentwise false;
    "USGE" Uint [Uint, Uint] Componentwise false;
    "USLT" Uint [Uint, Uint] Componentwise false;
    "AND" Uint [Uint, Uint] Componentwise false;
    "OR" Uint [Uint, Uint] Componentwise false;
    "XOR" Uint [Uint, Uint] Componentwise false;
    "NOT" Uint [Uint] Componentwise false;
    "SHL" Uint [Uint, Uint] Componentwise false;
    "ISHR" Int [Int, Uint] Componentwise false;
    "USHR" Uint [Uint, Uint] Componentwise false;
    "IDIV" Int [Int, Int] Componentwise false;
    "UDIV" Uint [Uint, Uint] Componentwise false;
    "MOD" Int [Int, Int] Componentwise false;
    "UMOD" Uint [Uint, Uint] Componentwise false;
    "IMUL_HI" Int [Int, Int] Componentwise false;
    "UMUL_HI" Uint [Uint, Uint] Componentwise false;
    "IBFE" Int [Int, Uint, Uint] Componentwise false;
    "UBFE" Uint [Uint, Uint, Uint] Componentwise false;
    "BFI" Uint [Uint, Uint, Uint, Uint] Componentwise false;
    "BREV" Uint [Uint] Componentwise false;
    "POPC" Uint [Uint] Componentwise false;
    "LSB" Uint [Uint] Componentwise false;
    "IMSB" Int [Int] Componentwise false;
    "UMSB" Uint [Uint] Componentwise false;
    "UCMP" Uint [Uint, Uint, Uint] Componentwise false;
};

pub(super) const DOUBLE_OPS: &[OpInfo] = ops! {
    "DADD" Double [Double, Double] Componentwise false;
    "DMUL" Double [Double, Double] Componentwise false;
    "DMAD" Double [Double, Double, Double] Componentwise false;
    "DFMA" Double [Double, Double, Double] Componentwise false;
    "DMIN" Double [Double, Double] Componentwise false;
    "DMAX" Double [Double, Double] Componentwise false;
    "DDIV" Double [Double, Double] Componentwise false;
    "DABS" Double [Double] Componentwise false;
    "DNEG" Double [Double] Componentwise false;
    "DRCP" Double [Double] Componentwise false;
    "DSQRT" Double [Double] Componentwise false;
    "DRSQ" Double [Double] Componentwise false;
    "DFRAC" Double [Double] Componentwise false;
    "DFLR" Double [Double] Componentwise false;
    "DCEIL" Double [Double] Componentwise false;
    "DROUND" Double [Double] Componentwise false;
    "DTRUNC" Double [Double] Componentwise false;
    "DSSG" Double [Double] Componentwise false;
    "DLDEXP" Double [Double, Int] Componentwise false;
    "DSLT" Uint [Double, Double] Compare64 false;
    "DSGE" Uint [Double, Double] Compare64 false;
    "DSEQ" Uint [Double, Double] Compare64 false;
    "DSNE" Uint [Double, Double] Compare64 false;
    "F2D" Double [Float] Widen false;
    "I2D" Double [Int] Widen false;
    "U2D" Double [Uint] Widen false;
    "D2F" Float [Double] Narrow false;
    "D2I" Int [Double] Narrow false;
    "D2U" Uint [Double] Narrow false;
};

pub(super) const INT64_OPS: &[OpInfo] = ops! {
    "U64ADD" Int64 [Int64, Int64] Componentwise false;
    "U64MUL" Int64 [Int64, Int64] Componentwise false;
    "I64MIN" Int64 [Int64, Int64] Componentwise false;
    "U64MIN" Int64 [Int64, Int64] Componentwise false;
    "I64MAX" Int64 [Int64, Int64] Componentwise false;
    "U64MAX" Int64 [Int64, Int64] Componentwise false;
    "I64DIV" Int64 [Int64, Int64] Componentwise false;
    "U64DIV" Int64 [Int64, Int64] Componentwise false;
    "I64MOD" Int64 [Int64, Int64] Componentwise false;
    "U64MOD" Int64 [Int64, Int64] Componentwise false;
    "I64ABS" Int64 [Int64] Componentwise false;
    "I64NEG" Int64 [Int64] Componentwise false;
    "I64SSG" Int64 [Int64] Componentwise false;
    "U64SHL" Int64 [Int64, Uint] Componentwise false;
    "I64SHR" Int64 [Int64, Uint] Componentwise false;
    "U64SHR" Int64 [Int64, Uint] Componentwise false;
    "I642D" Double [Int64] Componentwise false;
    "U642D" Double [Int64] Componentwise false;
    "D2I64" Int64 [Double] Componentwise false;
    "D2U64" Int64 [Double] Componentwise false;
    "U64SEQ" Uint [Int64, Int64] Compare64 false;
    "U64SNE" Uint [Int64, Int64] Compare64 false;
    "I64SLT" Uint [Int64, Int64] Compare64 false;
    "U64SLT" Uint [Int64, Int64] Compare64 false;
    "I64SGE" Uint [Int64, Int64] Compare64 false;
    "U64SGE" Uint [Int64, Int64] Compare64 false;
    "U2I64" Int64 [Uint] Widen false;
    "I2I64" Int64 [Int] Widen false;
    "F2I64" Int64 [Float] Widen false;
    "F2U64" Int64 [Float] Widen false;
    "I642F" Float [Int64] Narrow false;
    "U642F" Float [Int64] Narrow false;
};
