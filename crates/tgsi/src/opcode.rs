//! The opcode table: every opcode of today's Mesa and every opcode of the
//! 2010 reference that was later removed, with the facts a compiler needs.
//!
//! This table is the one source of truth for opcode names, operand counts,
//! channel behaviour, operand types and flags. The parser, the printer and
//! the token codec all read it.
//!
//! ```
//! use tgsi::{Opcode, ChannelMode};
//! let dp3 = Opcode::from_name("dp3").unwrap();
//! assert_eq!(dp3.info().num_src, 2);
//! assert_eq!(dp3.info().mode, ChannelMode::Replicate);
//! assert_eq!(Opcode::from_mesa(9), Some(dp3));
//! ```

/// How an instruction's result channels relate to its source channels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChannelMode {
    /// Each written channel is computed from the same channel of the
    /// sources (`TGSI_OUTPUT_COMPONENTWISE`). For 64-bit ops a "channel" is
    /// a pair `xy` or `zw`.
    Componentwise,
    /// One scalar result is written to every enabled channel
    /// (`TGSI_OUTPUT_REPLICATE`).
    Replicate,
    /// Each channel has its own formula (LIT, EXP, LOG, DST, XPD, ...).
    ChannelDependent,
    /// Anything else: textures, memory, queries, ...
    Other,
    /// No destination.
    None,
}

/// How an operand's bits are interpreted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OperandType {
    /// 32-bit IEEE float.
    Float,
    /// 32-bit two's-complement integer.
    Int,
    /// 32-bit unsigned integer.
    Uint,
    /// 64-bit IEEE float on a channel pair.
    Double,
    /// 64-bit signed integer on a channel pair.
    Int64,
    /// 64-bit unsigned integer on a channel pair.
    Uint64,
    /// Bits moved without interpretation (MOV, UCMP's selected sources).
    Untyped,
}

impl OperandType {
    /// Whether values of this type occupy a channel pair.
    pub fn is_64bit(self) -> bool {
        matches!(self, Self::Double | Self::Int64 | Self::Uint64)
    }
}

/// Flags of an opcode.
pub mod flags {
    /// Takes a texture target operand after its sources (Mesa's `is_tex`).
    pub const TEX: u16 = 1 << 0;
    /// Takes an optional `:label` (Mesa's `is_branch`).
    pub const BRANCH: u16 = 1 << 1;
    /// Writes memory through its destination (Mesa's `is_store`).
    pub const STORE: u16 = 1 << 2;
    /// Dedents before printing (ELSE, ENDIF, ENDLOOP, ENDSUB).
    pub const PRE_DEDENT: u16 = 1 << 3;
    /// Indents after printing (IF, UIF, ELSE, BGNLOOP, BGNSUB).
    pub const POST_INDENT: u16 = 1 << 4;
    /// Has an effect beyond its destination: no pass may drop it or move
    /// anything across it.
    pub const SIDE_EFFECT: u16 = 1 << 5;
    /// Carries a memory-qualifier token: Mesa's parser sets it for every
    /// opcode numbered LOAD..ATOMIMAX (which includes IMG2HND, SAMP2HND and
    /// BARRIER) and for RESQ.
    pub const MEMORY: u16 = 1 << 6;
    /// A resource-sampling opcode (SAMPLE..GATHER4): carries a texture token
    /// with target UNKNOWN but takes no target operand in text.
    pub const SAMPLE: u16 = 1 << 7;
    /// Changes control flow.
    pub const CONTROL_FLOW: u16 = 1 << 8;
    /// Removed from Mesa after the 2010 reference; accepted in text.
    pub const LEGACY: u16 = 1 << 9;
    /// Its source operands may be omitted (2010 syntax: `EMIT`, `ENDPRIM`).
    pub const OPTIONAL_SRC: u16 = 1 << 10;
}

/// The facts about one opcode.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OpcodeInfo {
    /// The mnemonic.
    pub name: &'static str,
    /// The opcode number in Mesa's token stream, if it has one.
    pub mesa: Option<u8>,
    /// Number of destination operands.
    pub num_dst: u8,
    /// Number of source operands.
    pub num_src: u8,
    /// How result channels relate to source channels.
    pub mode: ChannelMode,
    /// The type of the destination.
    pub dst_type: OperandType,
    /// The type of the sources (see [`Opcode::src_type`] for the exceptions).
    pub src_type: OperandType,
    /// A combination of [`flags`].
    pub flags: u16,
}

impl OpcodeInfo {
    /// Whether every flag in `f` is set.
    pub fn has(&self, f: u16) -> bool {
        self.flags & f == f
    }
    /// Whether this opcode takes a texture target operand (`is_tex`).
    pub fn is_tex(&self) -> bool {
        self.has(flags::TEX)
    }
    /// Whether this opcode takes an optional `:label` (`is_branch`).
    pub fn is_branch(&self) -> bool {
        self.has(flags::BRANCH)
    }
    /// Whether this opcode was removed from Mesa after 2010.
    pub fn is_legacy(&self) -> bool {
        self.has(flags::LEGACY)
    }
    /// Whether any operand is 64-bit (works on channel pairs).
    pub fn is_64bit(&self) -> bool {
        self.dst_type.is_64bit() || self.src_type.is_64bit()
    }
}

macro_rules! opcodes {
    ($($variant:ident $name:literal $mesa:tt $dst:literal $src:literal $mode:ident $dty:ident $sty:ident [$($flag:ident)*];)*) => {
        /// A TGSI opcode. Discriminants are indices into the table, not Mesa
        /// numbers: use [`Opcode::mesa`] for those.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[allow(non_camel_case_types, clippy::upper_case_acronyms)]
        pub enum Opcode { $($variant,)* }

        static TABLE: &[OpcodeInfo] = &[$(OpcodeInfo {
            name: $name,
            mesa: opcodes!(@mesa $mesa),
            num_dst: $dst,
            num_src: $src,
            mode: ChannelMode::$mode,
            dst_type: OperandType::$dty,
            src_type: OperandType::$sty,
            flags: 0 $(| flags::$flag)*,
        },)*];

        impl Opcode {
            /// Every opcode, in table order.
            pub const ALL: &'static [Opcode] = &[$(Opcode::$variant,)*];
        }
    };
    (@mesa -) => { None };
    (@mesa $n:literal) => { Some($n) };
}

// name, Mesa number (- for none), dsts, srcs, channel mode, dst type, src type, flags
opcodes! {
    Arl "ARL" 0 1 1 Componentwise Int Float [];
    Mov "MOV" 1 1 1 Componentwise Untyped Untyped [];
    Lit "LIT" 2 1 1 ChannelDependent Float Float [];
    Rcp "RCP" 3 1 1 Replicate Float Float [];
    Rsq "RSQ" 4 1 1 Replicate Float Float [];
    Exp "EXP" 5 1 1 ChannelDependent Float Float [];
    Log "LOG" 6 1 1 ChannelDependent Float Float [];
    Mul "MUL" 7 1 2 Componentwise Float Float [];
    Add "ADD" 8 1 2 Componentwise Float Float [];
    Dp3 "DP3" 9 1 2 Replicate Float Float [];
    Dp4 "DP4" 10 1 2 Replicate Float Float [];
    Dst "DST" 11 1 2 ChannelDependent Float Float [];
    Min "MIN" 12 1 2 Componentwise Float Float [];
    Max "MAX" 13 1 2 Componentwise Float Float [];
    Slt "SLT" 14 1 2 Componentwise Float Float [];
    Sge "SGE" 15 1 2 Componentwise Float Float [];
    Mad "MAD" 16 1 3 Componentwise Float Float [];
    TexLz "TEX_LZ" 17 1 2 Other Float Float [TEX];
    Lrp "LRP" 18 1 3 Componentwise Float Float [];
    Fma "FMA" 19 1 3 Componentwise Float Float [];
    Sqrt "SQRT" 20 1 1 Replicate Float Float [];
    Ldexp "LDEXP" 21 1 2 Componentwise Float Float [];
    F2u64 "F2U64" 22 1 1 Componentwise Uint64 Float [];
    F2i64 "F2I64" 23 1 1 Componentwise Int64 Float [];
    Frc "FRC" 24 1 1 Componentwise Float Float [];
    TxfLz "TXF_LZ" 25 1 2 Other Float Float [TEX];
    Flr "FLR" 26 1 1 Componentwise Float Float [];
    Round "ROUND" 27 1 1 Componentwise Float Float [];
    Ex2 "EX2" 28 1 1 Replicate Float Float [];
    Lg2 "LG2" 29 1 1 Replicate Float Float [];
    Pow "POW" 30 1 2 Replicate Float Float [];
    Demote "DEMOTE" 31 0 0 None Float Float [SIDE_EFFECT];
    U2i64 "U2I64" 32 1 1 Componentwise Int64 Uint [];
    Clock "CLOCK" 33 1 0 Other Float Float [SIDE_EFFECT];
    I2i64 "I2I64" 34 1 1 Componentwise Int64 Int [];
    ReadHelper "READ_HELPER" 35 1 0 Componentwise Float Float [];
    Cos "COS" 36 1 1 Replicate Float Float [];
    Ddx "DDX" 37 1 1 Componentwise Float Float [];
    Ddy "DDY" 38 1 1 Componentwise Float Float [];
    Kill "KILL" 39 0 0 None Float Float [SIDE_EFFECT];
    Pk2h "PK2H" 40 1 1 Replicate Float Float [];
    Pk2us "PK2US" 41 1 1 Replicate Float Float [];
    Pk4b "PK4B" 42 1 1 Replicate Float Float [];
    Pk4ub "PK4UB" 43 1 1 Replicate Float Float [];
    D2u64 "D2U64" 44 1 1 Componentwise Uint64 Double [];
    Seq "SEQ" 45 1 2 Componentwise Float Float [];
    D2i64 "D2I64" 46 1 1 Componentwise Int64 Double [];
    Sgt "SGT" 47 1 2 Componentwise Float Float [];
    Sin "SIN" 48 1 1 Replicate Float Float [];
    Sle "SLE" 49 1 2 Componentwise Float Float [];
    Sne "SNE" 50 1 2 Componentwise Float Float [];
    U642d "U642D" 51 1 1 Componentwise Double Uint64 [];
    Tex "TEX" 52 1 2 Other Float Float [TEX];
    Txd "TXD" 53 1 4 Other Float Float [TEX];
    Txp "TXP" 54 1 2 Other Float Float [TEX];
    Up2h "UP2H" 55 1 1 ChannelDependent Float Uint [];
    Up2us "UP2US" 56 1 1 ChannelDependent Float Float [];
    Up4b "UP4B" 57 1 1 ChannelDependent Float Float [];
    Up4ub "UP4UB" 58 1 1 ChannelDependent Float Float [];
    U642f "U642F" 59 1 1 Componentwise Float Uint64 [];
    I642f "I642F" 60 1 1 Componentwise Float Int64 [];
    Arr "ARR" 61 1 1 Componentwise Int Float [];
    I642d "I642D" 62 1 1 Componentwise Double Int64 [];
    Cal "CAL" 63 0 0 None Float Float [BRANCH CONTROL_FLOW];
    Ret "RET" 64 0 0 None Float Float [CONTROL_FLOW];
    Ssg "SSG" 65 1 1 Componentwise Float Float [];
    Cmp "CMP" 66 1 3 Componentwise Float Float [];
    Txb "TXB" 68 1 2 Other Float Float [TEX];
    Fbfetch "FBFETCH" 69 1 1 Other Float Float [];
    Div "DIV" 70 1 2 Componentwise Float Float [];
    Dp2 "DP2" 71 1 2 Replicate Float Float [];
    Txl "TXL" 72 1 2 Other Float Float [TEX];
    Brk "BRK" 73 0 0 None Float Float [CONTROL_FLOW];
    If "IF" 74 0 1 None Float Float [BRANCH POST_INDENT CONTROL_FLOW];
    Uif "UIF" 75 0 1 None Float Uint [BRANCH POST_INDENT CONTROL_FLOW];
    ReadInvoc "READ_INVOC" 76 1 2 Componentwise Float Float [];
    Else "ELSE" 77 0 0 None Float Float [BRANCH PRE_DEDENT POST_INDENT CONTROL_FLOW];
    Endif "ENDIF" 78 0 0 None Float Float [PRE_DEDENT CONTROL_FLOW];
    DdxFine "DDX_FINE" 79 1 1 Componentwise Float Float [];
    DdyFine "DDY_FINE" 80 1 1 Componentwise Float Float [];
    Ceil "CEIL" 83 1 1 Componentwise Float Float [];
    I2f "I2F" 84 1 1 Componentwise Float Int [];
    Not "NOT" 85 1 1 Componentwise Uint Uint [];
    Trunc "TRUNC" 86 1 1 Componentwise Float Float [];
    Shl "SHL" 87 1 2 Componentwise Uint Uint [];
    Ballot "BALLOT" 88 1 1 Other Float Float [];
    And "AND" 89 1 2 Componentwise Uint Uint [];
    Or "OR" 90 1 2 Componentwise Uint Uint [];
    Mod "MOD" 91 1 2 Componentwise Int Int [];
    Xor "XOR" 92 1 2 Componentwise Uint Uint [];
    Txf "TXF" 94 1 2 Other Float Uint [TEX];
    Txq "TXQ" 95 1 2 Other Uint Uint [TEX];
    Cont "CONT" 96 0 0 None Float Float [CONTROL_FLOW];
    Emit "EMIT" 97 0 1 None Float Float [SIDE_EFFECT OPTIONAL_SRC];
    Endprim "ENDPRIM" 98 0 1 None Float Float [SIDE_EFFECT OPTIONAL_SRC];
    Bgnloop "BGNLOOP" 99 0 0 None Float Float [BRANCH POST_INDENT CONTROL_FLOW];
    Bgnsub "BGNSUB" 100 0 0 None Float Float [POST_INDENT CONTROL_FLOW];
    Endloop "ENDLOOP" 101 0 0 None Float Float [BRANCH PRE_DEDENT CONTROL_FLOW];
    Endsub "ENDSUB" 102 0 0 None Float Float [PRE_DEDENT CONTROL_FLOW];
    Atomfadd "ATOMFADD" 103 1 3 Other Float Float [STORE SIDE_EFFECT];
    Txqs "TXQS" 104 1 1 Other Uint Uint [TEX];
    Resq "RESQ" 105 1 1 Other Float Float [MEMORY];
    ReadFirst "READ_FIRST" 106 1 1 Componentwise Float Float [];
    Nop "NOP" 107 0 0 None Float Float [];
    Fseq "FSEQ" 108 1 2 Componentwise Int Float [];
    Fsge "FSGE" 109 1 2 Componentwise Int Float [];
    Fslt "FSLT" 110 1 2 Componentwise Int Float [];
    Fsne "FSNE" 111 1 2 Componentwise Int Float [];
    Membar "MEMBAR" 112 0 1 Other Float Uint [SIDE_EFFECT];
    KillIf "KILL_IF" 116 0 1 None Float Float [SIDE_EFFECT];
    End "END" 117 0 0 None Float Float [CONTROL_FLOW];
    Dfma "DFMA" 118 1 3 Componentwise Double Double [];
    F2i "F2I" 119 1 1 Componentwise Int Float [];
    Idiv "IDIV" 120 1 2 Componentwise Int Int [];
    Imax "IMAX" 121 1 2 Componentwise Int Int [];
    Imin "IMIN" 122 1 2 Componentwise Int Int [];
    Ineg "INEG" 123 1 1 Componentwise Int Int [];
    Isge "ISGE" 124 1 2 Componentwise Int Int [];
    Ishr "ISHR" 125 1 2 Componentwise Int Int [];
    Islt "ISLT" 126 1 2 Componentwise Int Int [];
    F2u "F2U" 127 1 1 Componentwise Uint Float [];
    U2f "U2F" 128 1 1 Componentwise Float Uint [];
    Uadd "UADD" 129 1 2 Componentwise Int Uint [];
    Udiv "UDIV" 130 1 2 Componentwise Uint Uint [];
    Umad "UMAD" 131 1 3 Componentwise Uint Uint [];
    Umax "UMAX" 132 1 2 Componentwise Uint Uint [];
    Umin "UMIN" 133 1 2 Componentwise Uint Uint [];
    Umod "UMOD" 134 1 2 Componentwise Uint Uint [];
    Umul "UMUL" 135 1 2 Componentwise Uint Uint [];
    Useq "USEQ" 136 1 2 Componentwise Uint Uint [];
    Usge "USGE" 137 1 2 Componentwise Uint Uint [];
    Ushr "USHR" 138 1 2 Componentwise Uint Uint [];
    Uslt "USLT" 139 1 2 Componentwise Uint Uint [];
    Usne "USNE" 140 1 2 Componentwise Uint Uint [];
    Switch "SWITCH" 141 0 1 None Float Uint [CONTROL_FLOW];
    Case "CASE" 142 0 1 None Float Uint [CONTROL_FLOW];
    Default "DEFAULT" 143 0 0 None Float Float [CONTROL_FLOW];
    Endswitch "ENDSWITCH" 144 0 0 None Float Float [CONTROL_FLOW];
    Sample "SAMPLE" 145 1 3 Other Float Float [SAMPLE];
    SampleI "SAMPLE_I" 146 1 2 Other Float Uint [SAMPLE];
    SampleIMs "SAMPLE_I_MS" 147 1 3 Other Float Uint [SAMPLE];
    SampleB "SAMPLE_B" 148 1 4 Other Float Float [SAMPLE];
    SampleC "SAMPLE_C" 149 1 4 Other Float Float [SAMPLE];
    SampleCLz "SAMPLE_C_LZ" 150 1 4 Other Float Float [SAMPLE];
    SampleD "SAMPLE_D" 151 1 5 Other Float Float [SAMPLE];
    SampleL "SAMPLE_L" 152 1 4 Other Float Float [SAMPLE];
    Gather4 "GATHER4" 153 1 3 Other Float Float [SAMPLE];
    Sviewinfo "SVIEWINFO" 154 1 2 Other Uint Uint [];
    SamplePos "SAMPLE_POS" 155 1 2 Other Float Float [];
    SampleInfo "SAMPLE_INFO" 156 1 2 Other Float Float [];
    Uarl "UARL" 157 1 1 Componentwise Int Int [];
    Ucmp "UCMP" 158 1 3 Componentwise Untyped Float [];
    Iabs "IABS" 159 1 1 Componentwise Int Int [];
    Issg "ISSG" 160 1 1 Componentwise Int Int [];
    Load "LOAD" 161 1 2 Other Float Float [MEMORY];
    Store "STORE" 162 1 2 Other Float Float [STORE MEMORY SIDE_EFFECT];
    Img2hnd "IMG2HND" 163 1 1 Other Float Float [MEMORY];
    Samp2hnd "SAMP2HND" 164 1 1 Other Float Float [TEX MEMORY];
    Barrier "BARRIER" 166 0 0 Other Float Float [MEMORY SIDE_EFFECT];
    Atomuadd "ATOMUADD" 167 1 3 Other Float Float [STORE MEMORY SIDE_EFFECT];
    Atomxchg "ATOMXCHG" 168 1 3 Other Float Float [STORE MEMORY SIDE_EFFECT];
    Atomcas "ATOMCAS" 169 1 4 Other Float Float [STORE MEMORY SIDE_EFFECT];
    Atomand "ATOMAND" 170 1 3 Other Float Float [STORE MEMORY SIDE_EFFECT];
    Atomor "ATOMOR" 171 1 3 Other Float Float [STORE MEMORY SIDE_EFFECT];
    Atomxor "ATOMXOR" 172 1 3 Other Float Float [STORE MEMORY SIDE_EFFECT];
    Atomumin "ATOMUMIN" 173 1 3 Other Float Float [STORE MEMORY SIDE_EFFECT];
    Atomumax "ATOMUMAX" 174 1 3 Other Float Float [STORE MEMORY SIDE_EFFECT];
    Atomimin "ATOMIMIN" 175 1 3 Other Float Float [STORE MEMORY SIDE_EFFECT];
    Atomimax "ATOMIMAX" 176 1 3 Other Float Float [STORE MEMORY SIDE_EFFECT];
    Tex2 "TEX2" 177 1 3 Other Float Float [TEX];
    Txb2 "TXB2" 178 1 3 Other Float Float [TEX];
    Txl2 "TXL2" 179 1 3 Other Float Float [TEX];
    ImulHi "IMUL_HI" 180 1 2 Componentwise Int Int [];
    UmulHi "UMUL_HI" 181 1 2 Componentwise Uint Uint [];
    Tg4 "TG4" 182 1 3 Other Float Float [TEX];
    Lodq "LODQ" 183 1 2 Other Float Float [TEX];
    Ibfe "IBFE" 184 1 3 Componentwise Int Int [];
    Ubfe "UBFE" 185 1 3 Componentwise Uint Uint [];
    Bfi "BFI" 186 1 4 Componentwise Uint Uint [];
    Brev "BREV" 187 1 1 Componentwise Uint Uint [];
    Popc "POPC" 188 1 1 Componentwise Int Int [];
    Lsb "LSB" 189 1 1 Componentwise Int Int [];
    Imsb "IMSB" 190 1 1 Componentwise Int Int [];
    Umsb "UMSB" 191 1 1 Componentwise Int Uint [];
    InterpCentroid "INTERP_CENTROID" 192 1 1 Other Float Float [];
    InterpSample "INTERP_SAMPLE" 193 1 2 Other Float Float [];
    InterpOffset "INTERP_OFFSET" 194 1 2 Other Float Float [];
    F2d "F2D" 195 1 1 Componentwise Double Float [];
    D2f "D2F" 196 1 1 Componentwise Float Double [];
    Dabs "DABS" 197 1 1 Componentwise Double Double [];
    Dneg "DNEG" 198 1 1 Componentwise Double Double [];
    Dadd "DADD" 199 1 2 Componentwise Double Double [];
    Dmul "DMUL" 200 1 2 Componentwise Double Double [];
    Dmax "DMAX" 201 1 2 Componentwise Double Double [];
    Dmin "DMIN" 202 1 2 Componentwise Double Double [];
    Dslt "DSLT" 203 1 2 Componentwise Int Double [];
    Dsge "DSGE" 204 1 2 Componentwise Int Double [];
    Dseq "DSEQ" 205 1 2 Componentwise Int Double [];
    Dsne "DSNE" 206 1 2 Componentwise Int Double [];
    Drcp "DRCP" 207 1 1 Componentwise Double Double [];
    Dsqrt "DSQRT" 208 1 1 Componentwise Double Double [];
    Dmad "DMAD" 209 1 3 Componentwise Double Double [];
    Dfrac "DFRAC" 210 1 1 Componentwise Double Double [];
    Dldexp "DLDEXP" 211 1 2 Componentwise Double Double [];
    Dfracexp "DFRACEXP" 212 2 1 Replicate Double Double [LEGACY];
    D2i "D2I" 213 1 1 Componentwise Int Double [];
    I2d "I2D" 214 1 1 Componentwise Double Int [];
    D2u "D2U" 215 1 1 Componentwise Uint Double [];
    U2d "U2D" 216 1 1 Componentwise Double Uint [];
    Drsq "DRSQ" 217 1 1 Componentwise Double Double [];
    Dtrunc "DTRUNC" 218 1 1 Componentwise Double Double [];
    Dceil "DCEIL" 219 1 1 Componentwise Double Double [];
    Dflr "DFLR" 220 1 1 Componentwise Double Double [];
    Dround "DROUND" 221 1 1 Componentwise Double Double [];
    Dssg "DSSG" 222 1 1 Componentwise Double Double [];
    VoteAny "VOTE_ANY" 223 1 1 Componentwise Float Float [];
    VoteAll "VOTE_ALL" 224 1 1 Componentwise Float Float [];
    VoteEq "VOTE_EQ" 225 1 1 Componentwise Float Float [];
    U64seq "U64SEQ" 226 1 2 Componentwise Int Uint64 [];
    U64sne "U64SNE" 227 1 2 Componentwise Int Uint64 [];
    I64slt "I64SLT" 228 1 2 Componentwise Int Int64 [];
    U64slt "U64SLT" 229 1 2 Componentwise Int Uint64 [];
    I64sge "I64SGE" 230 1 2 Componentwise Int Int64 [];
    U64sge "U64SGE" 231 1 2 Componentwise Int Uint64 [];
    I64min "I64MIN" 232 1 2 Componentwise Int64 Int64 [];
    U64min "U64MIN" 233 1 2 Componentwise Uint64 Uint64 [];
    I64max "I64MAX" 234 1 2 Componentwise Int64 Int64 [];
    U64max "U64MAX" 235 1 2 Componentwise Uint64 Uint64 [];
    I64abs "I64ABS" 236 1 1 Componentwise Int64 Int64 [];
    I64ssg "I64SSG" 237 1 1 Componentwise Int64 Int64 [];
    I64neg "I64NEG" 238 1 1 Componentwise Int64 Int64 [];
    U64add "U64ADD" 239 1 2 Componentwise Uint64 Uint64 [];
    U64mul "U64MUL" 240 1 2 Componentwise Uint64 Uint64 [];
    U64shl "U64SHL" 241 1 2 Componentwise Uint64 Uint64 [];
    I64shr "I64SHR" 242 1 2 Componentwise Int64 Int64 [];
    U64shr "U64SHR" 243 1 2 Componentwise Uint64 Uint64 [];
    I64div "I64DIV" 244 1 2 Componentwise Int64 Int64 [];
    U64div "U64DIV" 245 1 2 Componentwise Uint64 Uint64 [];
    I64mod "I64MOD" 246 1 2 Componentwise Int64 Int64 [];
    U64mod "U64MOD" 247 1 2 Componentwise Uint64 Uint64 [];
    Ddiv "DDIV" 248 1 2 Componentwise Double Double [];
    Lod "LOD" 249 1 3 Other Float Float [];
    AtomincWrap "ATOMINC_WRAP" 250 1 3 Other Float Float [STORE SIDE_EFFECT];
    AtomdecWrap "ATOMDEC_WRAP" 251 1 3 Other Float Float [STORE SIDE_EFFECT];

    // Opcodes of the 2010 reference that today's Mesa no longer has. They
    // have no number in today's token stream.
    Sub "SUB" - 1 2 Componentwise Float Float [LEGACY];
    Cnd "CND" - 1 3 Componentwise Float Float [LEGACY];
    Dp2a "DP2A" - 1 3 Replicate Float Float [LEGACY];
    Clamp "CLAMP" - 1 3 Componentwise Float Float [LEGACY];
    Xpd "XPD" - 1 2 ChannelDependent Float Float [LEGACY];
    Abs "ABS" - 1 1 Componentwise Float Float [LEGACY];
    Rcc "RCC" - 1 1 Replicate Float Float [LEGACY];
    Dph "DPH" - 1 2 Replicate Float Float [LEGACY];
    Kilp "KILP" - 0 0 None Float Float [LEGACY SIDE_EFFECT];
    Rfl "RFL" - 1 2 ChannelDependent Float Float [LEGACY];
    Sfl "SFL" - 1 2 Replicate Float Float [LEGACY];
    Str "STR" - 1 2 Replicate Float Float [LEGACY];
    X2d "X2D" - 1 3 ChannelDependent Float Float [LEGACY];
    Ara "ARA" - 1 1 Other Int Int [LEGACY];
    Bra "BRA" - 0 1 None Float Float [LEGACY BRANCH CONTROL_FLOW];
    Kil "KIL" - 0 1 None Float Float [LEGACY SIDE_EFFECT];
    Scs "SCS" - 1 1 ChannelDependent Float Float [LEGACY];
    Nrm "NRM" - 1 1 ChannelDependent Float Float [LEGACY];
    Nrm4 "NRM4" - 1 1 Replicate Float Float [LEGACY];
    Shr "SHR" - 1 2 Componentwise Int Int [LEGACY];
    Pusha "PUSHA" - 0 1 Other Float Int [LEGACY SIDE_EFFECT];
    Popa "POPA" - 1 0 Other Int Float [LEGACY SIDE_EFFECT];
    Sad "SAD" - 1 3 Componentwise Uint Uint [LEGACY];
    Callnz "CALLNZ" - 0 1 None Float Float [LEGACY BRANCH CONTROL_FLOW];
    Ifc "IFC" - 0 1 None Float Float [LEGACY BRANCH POST_INDENT CONTROL_FLOW];
    Breakc "BREAKC" - 0 1 None Float Float [LEGACY CONTROL_FLOW];
}

/// Older spellings that name an opcode of the table.
const ALIASES: &[(&str, Opcode)] = &[("EMIT_VERTEX", Opcode::Emit), ("END_PRIMITIVE", Opcode::Endprim)];

/// Mesa's opcode numbers that are holes in today's table (printed `UNK<n>`).
pub const MESA_GAPS: &[u8] = &[67, 81, 82, 93, 113, 114, 115, 165, 212];

/// One past the largest opcode number in today's Mesa (`TGSI_OPCODE_LAST`).
pub const MESA_OPCODE_LAST: u8 = 252;

impl Opcode {
    /// The facts about this opcode.
    pub fn info(self) -> &'static OpcodeInfo {
        &TABLE[self as usize]
    }

    /// The mnemonic.
    pub fn name(self) -> &'static str {
        self.info().name
    }

    /// Mesa's opcode number, if today's token stream has one.
    pub fn mesa(self) -> Option<u8> {
        self.info().mesa
    }

    /// The opcode with Mesa number `n`.
    pub fn from_mesa(n: u32) -> Option<Opcode> {
        static BY_NUMBER: std::sync::OnceLock<[Option<Opcode>; 256]> = std::sync::OnceLock::new();
        let map = BY_NUMBER.get_or_init(|| {
            let mut map = [None; 256];
            for &op in Opcode::ALL {
                if let Some(n) = op.mesa() {
                    map[n as usize] = Some(op);
                }
            }
            map
        });
        map.get(n as usize).copied().flatten()
    }

    /// Looks a mnemonic up, ignoring ASCII case (older aliases included).
    pub fn from_name(name: &str) -> Option<Opcode> {
        Opcode::ALL
            .iter()
            .copied()
            .find(|op| op.name().eq_ignore_ascii_case(name))
            .or_else(|| ALIASES.iter().find(|(a, _)| a.eq_ignore_ascii_case(name)).map(|&(_, op)| op))
    }

    /// The type of source operand `index`, with Mesa's per-operand
    /// exceptions (`tgsi_opcode_infer_src_type`).
    pub fn src_type(self, index: usize) -> OperandType {
        use Opcode::*;
        match (self, index) {
            (Ldexp | Dldexp, 1) => OperandType::Int,
            // The shift count of a 64-bit shift is one 32-bit channel.
            (U64shl | I64shr | U64shr, 1) => OperandType::Uint,
            (Load, 1) | (Store, 0) => OperandType::Uint,
            (
                Atomuadd | Atomxchg | Atomcas | Atomand | Atomor | Atomxor | Atomumin | Atomumax | Atomimin | Atomimax,
                1,
            ) => OperandType::Uint,
            _ => self.info().src_type,
        }
    }

    /// The type of the destination operands.
    pub fn dst_type(self) -> OperandType {
        self.info().dst_type
    }

    /// Whether the opcode opens a construct of a function's body that
    /// [`closes_construct`](Self::closes_construct) ends: `IF`, `UIF`,
    /// `BGNLOOP`, `SWITCH`.
    pub fn opens_construct(self) -> bool {
        matches!(self, Opcode::If | Opcode::Uif | Opcode::Bgnloop | Opcode::Switch)
    }

    /// Whether the opcode ends a construct: `ENDIF`, `ENDLOOP`,
    /// `ENDSWITCH`.
    pub fn closes_construct(self) -> bool {
        matches!(self, Opcode::Endif | Opcode::Endloop | Opcode::Endswitch)
    }
}

impl std::fmt::Display for Opcode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mesa_numbers_are_unique_and_cover_everything_but_the_gaps() {
        let mut seen = [false; 256];
        for &op in Opcode::ALL {
            if let Some(n) = op.mesa() {
                assert!(!seen[n as usize], "{} reuses number {n}", op.name());
                seen[n as usize] = true;
            }
        }
        for n in 0..MESA_OPCODE_LAST {
            // DFRACEXP keeps its old number 212, which today is a gap.
            let expected = !MESA_GAPS.contains(&n) || n == 212;
            assert_eq!(seen[n as usize], expected, "opcode number {n}");
        }
    }

    #[test]
    fn names_are_unique() {
        for (i, a) in Opcode::ALL.iter().enumerate() {
            for b in &Opcode::ALL[i + 1..] {
                assert_ne!(a.name(), b.name());
            }
        }
    }

    #[test]
    fn replicated_scalar_opcodes_match_mesa() {
        let repl: Vec<&str> = Opcode::ALL
            .iter()
            .filter(|op| op.info().mode == ChannelMode::Replicate && !op.info().is_legacy())
            .map(|op| op.name())
            .collect();
        assert_eq!(
            repl,
            [
                "RCP", "RSQ", "DP3", "DP4", "SQRT", "EX2", "LG2", "POW", "COS", "PK2H", "PK2US", "PK4B", "PK4UB",
                "SIN", "DP2"
            ]
        );
    }

    #[test]
    fn lookups() {
        assert_eq!(Opcode::from_name("kill_if"), Some(Opcode::KillIf));
        assert_eq!(Opcode::from_name("EMIT_VERTEX"), Some(Opcode::Emit));
        assert_eq!(Opcode::from_mesa(117), Some(Opcode::End));
        assert_eq!(Opcode::from_mesa(67), None);
        assert_eq!(Opcode::Ldexp.src_type(1), OperandType::Int);
        assert!(Opcode::Dadd.info().is_64bit());
        assert!(Opcode::Sub.info().is_legacy());
    }
}
