//! Random TGSI programs and random input states for them, for differential
//! testing of the passes (see [`crate::difftest`]).
//!
//! [`program`] writes, deterministically from a `u64` seed, a fragment,
//! vertex or compute shader in today's TGSI text syntax (what Mesa's
//! `tgsi_text` parser reads) that builds, verifies and runs on the backend
//! without error: declarations of inputs, outputs, constants, temporaries
//! and a temporary array with `ADDR` indirect access; FLT32, UINT32, INT32
//! and FLT64 immediates; float, integer, double and 64-bit integer
//! operations with swizzles, write masks, negation, absolute value and
//! `_SAT`; replicated operations; broadcast swizzles; sections that compute
//! only on immediates; dead code; IF/UIF/ELSE with Mesa's branch labels,
//! counted loops with BRK and CONT, SWITCH with fall-through, `KILL_IF`
//! and derivatives in fragment shaders. Every `OUT` is written at the end.
//!
//! The programs stay inside what every run defines, so that a pass is the
//! only thing that can change their results:
//! - every loop counts up to an immediate bound of at most 8 in a register
//!   the rest of the program never writes, and tests it first thing in the
//!   body, so loops end and `CONT` cannot skip the count;
//! - every `ADDR` value is masked to 0..3 before use, and every indirect
//!   offset leaves room for it, so indirect access stays in range;
//! - derivatives (`DDX`, `DDY`) run only outside control flow and before
//!   any `KILL_IF`, where every lane of a quad holds a defined value;
//! - no textures, memory, subroutines or geometry shaders.
//!
//! [`state`] writes a matching input state in the state exchange format:
//! 16 invocations (four quads), every input and constant with a mix of
//! small floats, integers as raw bits, special values (zeros of both
//! signs, infinities, NaNs, denormals, extremes) and double halves, with
//! per-lane exceptions.
//!
//! ```
//! let p = tgsi_opt::random_program::program(7);
//! assert_eq!(p.text, tgsi_opt::random_program::program(7).text);
//! let shader = tgsi_opt::tgsi::parse(&p.text).unwrap();
//! let module = tgsi_opt::ir::from_tgsi(&shader).unwrap();
//! let state = exec::State::parse(&tgsi_opt::random_program::state(&p, 1)).unwrap();
//! assert!(exec::run(&module, &state, &exec::RunOptions::default()).is_ok());
//! ```

use std::fmt::Write as _;

use crate::splitmix::Rng;
use crate::synth::{indirect, CHANNELS};

/// The shader stages the generator writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    /// `FRAG`: with `KILL_IF`, `DDX`/`DDY` and colour outputs.
    Fragment,
    /// `VERT`: a position and generic outputs.
    Vertex,
    /// `COMP`: with the `THREAD_ID` system value as an extra source.
    Compute,
}

/// A generated program and what its state needs to know about it.
#[derive(Clone, Debug)]
pub struct RandomProgram {
    /// The seed it was generated from.
    pub seed: u64,
    /// Its stage.
    pub stage: Stage,
    /// The TGSI text.
    pub text: String,
    /// How many `IN` registers it declares (`IN[0..inputs-1]`).
    pub inputs: u32,
    /// How many `CONST` registers it declares (`CONST[0..constants-1]`).
    pub constants: u32,
}

/// Invocations in every generated state: four 2x2 quads.
pub const INVOCATIONS: u32 = 16;

/// Highest bound of a loop counter.
const MAX_LOOP_BOUND: u32 = 8;
/// How deep IF, loops and SWITCH nest at most.
const MAX_DEPTH: usize = 3;
/// How deep loops nest at most (each level has its own counter register).
const MAX_LOOP_DEPTH: u32 = 2;
/// `ADDR` values are masked to `0..=ADDR_MAX`.
const ADDR_MAX: u32 = 3;

/// Generates the program of `seed`.
pub fn program(seed: u64) -> RandomProgram {
    let mut rng = seeded(seed);
    let stage = match rng.below(10) {
        0..=4 => Stage::Fragment,
        5..=7 => Stage::Vertex,
        _ => Stage::Compute,
    };
    let temps = 4 + rng.below(7);
    let layout = Layout {
        stage,
        temps,
        counters: temps,
        array_first: temps + MAX_LOOP_DEPTH,
        array_len: ADDR_MAX + 2 + rng.below(3),
        inputs: 1 + rng.below(4),
        outputs: 1 + rng.below(3),
        // Indirect constant reads need ADDR_MAX + 1 registers at least.
        constants: ADDR_MAX + 1 + rng.below(4),
    };
    let mut g = Generator {
        doubles: rng.below(3) == 0,
        int64: rng.below(4) == 0,
        rng,
        l: layout,
        imms: Vec::new(),
        lines: Vec::new(),
        depth: 0,
        breakable: Vec::new(),
        loop_depth: 0,
        killed: false,
    };
    let statements = 6 + g.rng.below(30) as usize;
    g.block(statements);
    g.write_outputs();
    g.push("END".to_string());
    let text = g.render();
    RandomProgram { seed, stage, text, inputs: layout.inputs, constants: layout.constants }
}

/// Generates an input state for `program` from `seed`: `invocations 16`,
/// every input for all lanes then per-lane exceptions, every constant.
pub fn state(program: &RandomProgram, seed: u64) -> String {
    // Mixed with the program's seed so that state 0 of two programs differs.
    let mut rng = seeded(seed ^ program.seed.rotate_left(32) ^ 0x5eed_5eed_5eed_5eed);
    let mut text = format!("# random state {seed} for program {}\ninvocations {INVOCATIONS}\n", program.seed);
    for index in 0..program.inputs {
        let _ = writeln!(text, "input {index} * {}", vec4(&mut rng));
        let lanes_chance = rng.below(4);
        for lane in 0..INVOCATIONS {
            if rng.below(4) < lanes_chance {
                let _ = writeln!(text, "input {index} {lane} {}", vec4(&mut rng));
            }
        }
    }
    for index in 0..program.constants {
        let _ = writeln!(text, "const 0 {index} {}", vec4(&mut rng));
    }
    text
}

/// Four state values; sometimes a pair of them is the halves of a double.
fn vec4(rng: &mut Rng) -> String {
    let mut words: [String; 4] = std::array::from_fn(|_| value(rng));
    if rng.below(4) == 0 {
        let pair = 2 * rng.below(2) as usize;
        let d = random_f64(rng).to_bits();
        words[pair] = format!("0x{:08x}", d as u32);
        words[pair + 1] = format!("0x{:08x}", (d >> 32) as u32);
    }
    words.join(" ")
}

/// One state value: a float literal or raw bits.
fn value(rng: &mut Rng) -> String {
    match rng.below(100) {
        0..=34 => format!("{}", (rng.below(65) as f32 - 32.0) / 4.0),
        35..=49 => {
            let n = rng.below(17) as i32 - 4;
            format!("0x{:08x}", n as u32)
        }
        50..=64 => {
            const SPECIAL: [&str; 16] = [
                "0",
                "-0",
                "inf",
                "-inf",
                "nan",
                "0x00000001",
                "0x807fffff",
                "0x7f7fffff",
                "0xff7fffff",
                "0x00800000",
                "0xffffffff",
                "0x80000000",
                "0x7fc00001",
                "0xffc00000",
                "1e-40",
                "0x4f000000",
            ];
            SPECIAL[rng.below(SPECIAL.len() as u32) as usize].to_string()
        }
        65..=74 => format!("0x{:08x}", rng.next() as u32),
        _ => format!("{}", (rng.next() as i32 as f32) / 1.0e6),
    }
}

/// A double: mostly small and exact, sometimes special.
fn random_f64(rng: &mut Rng) -> f64 {
    match rng.below(10) {
        0 => [0.0, -0.0, f64::INFINITY, f64::NEG_INFINITY, f64::NAN, 1e-310, f64::MAX, 0.1][rng.below(8) as usize],
        1 => (rng.next() as i64 as f64) / 1e9,
        _ => (rng.below(257) as f64 - 128.0) / 8.0,
    }
}

/// The register layout of one program.
#[derive(Clone, Copy)]
struct Layout {
    stage: Stage,
    /// General temporaries `TEMP[0..temps-1]`, which any instruction writes.
    temps: u32,
    /// Loop counters `TEMP[counters + loop depth]`, written only by loops.
    counters: u32,
    /// The array `TEMP[array_first..array_first+array_len-1], ARRAY(1)`.
    array_first: u32,
    array_len: u32,
    inputs: u32,
    outputs: u32,
    constants: u32,
}

/// An immediate: its type and four (or two double) values.
#[derive(Clone, Copy, PartialEq)]
enum Imm {
    F32([u32; 4]),
    U32([u32; 4]),
    I32([i32; 4]),
    F64([u64; 2]),
}

/// What an operand holds, which decides its immediates and modifiers.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
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
    fn is_64bit(self) -> bool {
        matches!(self, Kind::Double | Kind::Int64)
    }
}

/// How an instruction's channels relate to its operands.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Shape {
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
struct OpInfo {
    name: &'static str,
    dst: Kind,
    srcs: &'static [Kind],
    shape: Shape,
    sat: bool,
}

macro_rules! ops {
    ($($name:literal $dst:ident [$($src:ident),*] $shape:ident $sat:literal;)*) => {
        &[$(OpInfo { name: $name, dst: Kind::$dst, srcs: &[$(Kind::$src),*], shape: Shape::$shape, sat: $sat },)*]
    };
}

const FLOAT_OPS: &[OpInfo] = ops! {
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

const INT_OPS: &[OpInfo] = ops! {
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

const DOUBLE_OPS: &[OpInfo] = ops! {
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

const INT64_OPS: &[OpInfo] = ops! {
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

/// One instruction line: its nesting depth and its text.
struct Line {
    depth: usize,
    text: String,
}

/// What `BRK` leaves: a loop or a switch.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Breakable {
    Loop,
    Switch,
}

/// Where an operand may come from.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Sources {
    /// Any register.
    Any,
    /// Immediates only: a constant-only section.
    Immediates,
}

struct Generator {
    rng: Rng,
    l: Layout,
    /// Whether this program uses double and 64-bit integer operations.
    doubles: bool,
    int64: bool,
    imms: Vec<Imm>,
    lines: Vec<Line>,
    depth: usize,
    breakable: Vec<Breakable>,
    loop_depth: u32,
    /// A `KILL_IF` or `KILL` has been written: no derivatives after it.
    killed: bool,
}

impl Generator {
    /// Writes `count` statements at the current depth.
    fn block(&mut self, count: usize) {
        for _ in 0..count {
            if self.statement() {
                // A BRK or CONT ends the block: what follows could not run.
                return;
            }
        }
    }

    /// Writes one statement; true when it was an unconditional BRK/CONT.
    fn statement(&mut self) -> bool {
        let room = self.depth < MAX_DEPTH;
        let roll = self.rng.below(100);
        match roll {
            0..=5 if room => self.if_statement(),
            6..=8 if room && self.loop_depth < MAX_LOOP_DEPTH => self.loop_statement(),
            9..=10 if room => self.switch_statement(),
            11..=13 if !self.breakable.is_empty() && room => self.conditional_exit(),
            14 if !self.breakable.is_empty() && self.rng.below(3) == 0 => {
                let exit = self.exit_opcode();
                self.push(exit.to_string());
                return true;
            }
            15..=17 if self.l.stage == Stage::Fragment => self.kill(),
            18..=19 if self.l.stage == Stage::Fragment && self.depth == 0 && !self.killed => self.derivative(),
            20..=22 => self.set_address(),
            23..=25 => self.constant_section(),
            26..=27 => self.dead_section(),
            28..=31 => self.broadcast_op(),
            _ => self.alu(Sources::Any),
        }
        false
    }

    fn push(&mut self, text: String) -> usize {
        self.lines.push(Line { depth: self.depth, text });
        self.lines.len() - 1
    }

    /// Appends the label ` :target` to the branch at `line`.
    fn set_label(&mut self, line: usize, target: usize) {
        if let Some(l) = self.lines.get_mut(line) {
            let _ = write!(l.text, " :{target}");
        }
    }

    /// The header and the numbered instructions, as Mesa's dump lays them out.
    fn render(&mut self) -> String {
        let l = self.l;
        let mut text = String::new();
        let _ = writeln!(
            text,
            "{}",
            match l.stage {
                Stage::Fragment => "FRAG",
                Stage::Vertex => "VERT",
                Stage::Compute => "COMP",
            }
        );
        for i in 0..l.inputs {
            match l.stage {
                Stage::Fragment => {
                    let interp = ["PERSPECTIVE", "LINEAR", "CONSTANT"][(i % 3) as usize];
                    let _ = writeln!(text, "DCL IN[{i}], GENERIC[{i}], {interp}");
                }
                _ => {
                    let _ = writeln!(text, "DCL IN[{i}]");
                }
            }
        }
        if l.stage == Stage::Compute {
            text.push_str("DCL SV[0], THREAD_ID\n");
        }
        for i in 0..l.outputs {
            match (l.stage, i) {
                (Stage::Fragment, 0) => text.push_str("DCL OUT[0], COLOR\n"),
                (Stage::Fragment, _) => {
                    let _ = writeln!(text, "DCL OUT[{i}], COLOR[{i}]");
                }
                (Stage::Vertex, 0) => text.push_str("DCL OUT[0], POSITION\n"),
                (Stage::Vertex, _) => {
                    let _ = writeln!(text, "DCL OUT[{i}], GENERIC[{}]", i - 1);
                }
                (Stage::Compute, _) => {
                    let _ = writeln!(text, "DCL OUT[{i}], GENERIC[{i}]");
                }
            }
        }
        let _ = writeln!(text, "DCL CONST[0..{}]", l.constants - 1);
        let _ = writeln!(text, "DCL TEMP[0..{}]", l.array_first - 1);
        let _ = writeln!(text, "DCL TEMP[{}..{}], ARRAY(1)", l.array_first, l.array_first + l.array_len - 1);
        text.push_str("DCL ADDR[0]\n");
        for (i, imm) in self.imms.iter().enumerate() {
            let body = match imm {
                Imm::F32(v) => format!("FLT32 {{{}}}", join(v.iter().map(|&b| Exact32(f32::from_bits(b))))),
                Imm::U32(v) => format!("UINT32 {{{}}}", join(v.iter())),
                Imm::I32(v) => format!("INT32 {{{}}}", join(v.iter())),
                Imm::F64(v) => format!("FLT64 {{{}}}", join(v.iter().map(|&b| Exact64(f64::from_bits(b))))),
            };
            let _ = writeln!(text, "IMM[{i}] {body}");
        }
        for (index, line) in self.lines.iter().enumerate() {
            let _ = writeln!(text, "{index:>3}: {:indent$}{}", "", line.text, indent = 2 * line.depth);
        }
        text
    }

    // ---- control flow ----

    /// `IF`/`UIF` on a channel, then one or two arms.
    fn if_statement(&mut self) {
        let cond = self.condition();
        let if_line = self.push(cond);
        self.depth += 1;
        let n = 1 + self.rng.below(5) as usize;
        self.block(n);
        self.depth -= 1;
        if self.rng.below(2) == 0 {
            let else_line = self.push("ELSE".to_string());
            self.set_label(if_line, else_line);
            self.depth += 1;
            let n = 1 + self.rng.below(5) as usize;
            self.block(n);
            self.depth -= 1;
            let endif = self.push("ENDIF".to_string());
            self.set_label(else_line, endif);
        } else {
            let endif = self.push("ENDIF".to_string());
            self.set_label(if_line, endif);
        }
    }

    /// An `IF`/`UIF` head: on a computed comparison, any register channel,
    /// or an immediate (a branch constant folding can decide).
    fn condition(&mut self) -> String {
        let uif = self.rng.below(2) == 0;
        let opcode = if uif { "UIF" } else { "IF" };
        let chan = self.channel();
        match self.rng.below(10) {
            0..=3 => {
                // A comparison result in a general temporary.
                let ops = ["SLT", "SGE", "FSLT", "FSNE", "USLT", "ISGE", "USEQ", "AND"];
                let op = ops[self.rng.below(ops.len() as u32) as usize];
                let kind = match op {
                    "SLT" | "SGE" | "FSLT" | "FSNE" => Kind::Float,
                    "ISGE" => Kind::Int,
                    _ => Kind::Uint,
                };
                let t = self.rng.below(self.l.temps);
                let (a, b) = (self.src(kind, Sources::Any, false), self.src(kind, Sources::Any, false));
                self.push(format!("{op} TEMP[{t}].{chan}, {a}, {b}"));
                format!("{opcode} TEMP[{t}].{0}{0}{0}{0}", chan)
            }
            4..=7 => {
                let kind = if uif { Kind::Uint } else { Kind::Float };
                let src = self.src(kind, Sources::Any, true);
                format!("{opcode} {src}")
            }
            _ => {
                let src = self.src(if uif { Kind::Uint } else { Kind::Float }, Sources::Immediates, true);
                format!("{opcode} {src}")
            }
        }
    }

    /// A counted loop: the counter (its own register, written nowhere
    /// else) starts at 0 and is tested against a bound of at most 8 first
    /// thing in the body, then incremented, so the loop ends and `CONT`
    /// cannot skip the count.
    fn loop_statement(&mut self) {
        let c = self.l.counters + self.loop_depth;
        let zero = self.imm_channel(Imm::U32([0, 1, 0, 0]), 0);
        let one = self.imm_channel(Imm::U32([0, 1, 0, 0]), 1);
        let bound = self.rng.below(MAX_LOOP_BOUND + 1);
        let limit = self.imm_channel(Imm::U32([bound, bound, bound, bound]), 0);
        self.push(format!("MOV TEMP[{c}].x, {zero}"));
        self.push("BGNLOOP".to_string());
        self.depth += 1;
        self.push(format!("USGE TEMP[{c}].y, TEMP[{c}].xxxx, {limit}"));
        let if_line = self.push(format!("UIF TEMP[{c}].yyyy"));
        self.depth += 1;
        self.push("BRK".to_string());
        self.depth -= 1;
        let endif = self.push("ENDIF".to_string());
        self.set_label(if_line, endif);
        self.push(format!("UADD TEMP[{c}].x, TEMP[{c}].xxxx, {one}"));
        self.loop_depth += 1;
        self.breakable.push(Breakable::Loop);
        let n = 1 + self.rng.below(6) as usize;
        self.block(n);
        self.breakable.pop();
        self.loop_depth -= 1;
        self.depth -= 1;
        self.push("ENDLOOP".to_string());
    }

    /// `SWITCH` on a value masked to 0..3 (or raw bits, rarely matching a
    /// case), with distinct cases, an optional `DEFAULT`, and cases that
    /// end with `BRK` or fall through.
    fn switch_statement(&mut self) {
        let t = self.rng.below(self.l.temps);
        let selector = if self.rng.below(4) == 0 {
            self.src(Kind::Uint, Sources::Any, true)
        } else {
            let src = self.src(Kind::Uint, Sources::Any, false);
            let mask = self.imm_channel(Imm::U32([3, 1, 2, 0]), 0);
            self.push(format!("AND TEMP[{t}].x, {src}, {mask}"));
            format!("TEMP[{t}].xxxx")
        };
        self.push(format!("SWITCH {selector}"));
        let mut values: Vec<u32> = (0..4).collect();
        // A random order of distinct case values.
        for i in (1..values.len()).rev() {
            let j = self.rng.below(i as u32 + 1) as usize;
            values.swap(i, j);
        }
        let cases = 1 + self.rng.below(3) as usize;
        let default = self.rng.below(2) == 0;
        self.breakable.push(Breakable::Switch);
        for (k, &v) in values.iter().take(cases).enumerate() {
            let value = self.imm_channel(Imm::U32([0, 1, 2, 3]), v as usize);
            self.push(format!("CASE {value}"));
            self.depth += 1;
            let n = self.rng.below(4) as usize;
            self.block(n);
            let last = k + 1 == cases && !default;
            if last || self.rng.below(4) != 0 {
                self.push("BRK".to_string());
            }
            self.depth -= 1;
        }
        if default {
            self.push("DEFAULT".to_string());
            self.depth += 1;
            let n = self.rng.below(4) as usize;
            self.block(n);
            self.push("BRK".to_string());
            self.depth -= 1;
        }
        self.breakable.pop();
        self.push("ENDSWITCH".to_string());
    }

    /// `BRK` or `CONT` (only `CONT` directly inside a loop).
    fn exit_opcode(&mut self) -> &'static str {
        if self.breakable.last() == Some(&Breakable::Loop) && self.rng.below(3) == 0 {
            "CONT"
        } else {
            "BRK"
        }
    }

    /// `IF cond` ... `BRK`/`CONT` `ENDIF`.
    fn conditional_exit(&mut self) {
        let cond = self.condition();
        let if_line = self.push(cond);
        self.depth += 1;
        if self.rng.below(2) == 0 {
            self.alu(Sources::Any);
        }
        let exit = self.exit_opcode();
        self.push(exit.to_string());
        self.depth -= 1;
        let endif = self.push("ENDIF".to_string());
        self.set_label(if_line, endif);
    }

    // ---- fragment-only ----

    /// `KILL_IF src` (kills lanes where any channel is negative), or a
    /// plain `KILL` inside control flow.
    fn kill(&mut self) {
        if self.depth > 0 && self.rng.below(4) == 0 {
            self.push("KILL".to_string());
        } else {
            let src = self.src(Kind::Float, Sources::Any, false);
            self.push(format!("KILL_IF {src}"));
        }
        self.killed = true;
    }

    /// A derivative, where every lane of the quad holds a defined value.
    fn derivative(&mut self) {
        let op = ["DDX", "DDY", "DDX_FINE", "DDY_FINE"][self.rng.below(4) as usize];
        let dst = self.dst(Kind::Float);
        let src = self.src(Kind::Float, Sources::Any, false);
        self.push(format!("{op} {dst}, {src}"));
    }

    // ---- sections ----

    /// `ADDR[0].x` from a value masked to 0..3 (`UARL`), or from an
    /// immediate float in 0..3 (`ARL`).
    fn set_address(&mut self) {
        if self.rng.below(4) == 0 {
            let k = self.rng.below(ADDR_MAX + 1);
            let imm = self.imm_channel(
                Imm::F32([0.5f32.to_bits(), 1.75f32.to_bits(), 2.0f32.to_bits(), 3.25f32.to_bits()]),
                k as usize,
            );
            self.push(format!("ARL ADDR[0].x, {imm}"));
            return;
        }
        let t = self.rng.below(self.l.temps);
        let c = self.channel();
        let src = self.src(Kind::Uint, Sources::Any, false);
        let mask = self.imm_channel(Imm::U32([ADDR_MAX, 1, 2, 0]), 0);
        self.push(format!("AND TEMP[{t}].{c}, {src}, {mask}"));
        self.push(format!("UARL ADDR[0].x, TEMP[{t}].{0}{0}{0}{0}", c));
    }

    /// Operations on immediates only, for constant folding.
    fn constant_section(&mut self) {
        for _ in 0..1 + self.rng.below(3) {
            self.alu(Sources::Immediates);
        }
    }

    /// Values computed and overwritten before anyone reads them.
    fn dead_section(&mut self) {
        let t = self.rng.below(self.l.temps);
        for _ in 0..1 + self.rng.below(3) {
            let (a, b) = (self.src(Kind::Float, Sources::Any, false), self.src(Kind::Float, Sources::Any, false));
            let op = ["ADD", "MUL", "MAX", "RCP"][self.rng.below(4) as usize];
            if op == "RCP" {
                self.push(format!("RCP TEMP[{t}], {a}"));
            } else {
                self.push(format!("{op} TEMP[{t}], {a}, {b}"));
            }
        }
        let imm = self.src(Kind::Float, Sources::Immediates, false);
        self.push(format!("MOV TEMP[{t}], {imm}"));
    }

    /// A componentwise float op whose every source is a broadcast swizzle,
    /// or a replicated op, written to several channels: what `coalesce`
    /// looks for.
    fn broadcast_op(&mut self) {
        let ops = ["ADD", "MUL", "MAD", "MAX", "RCP", "RSQ", "EX2", "DP3", "POW", "SIN"];
        let op = ops[self.rng.below(ops.len() as u32) as usize];
        let nsrc = match op {
            "RCP" | "RSQ" | "EX2" | "SIN" => 1,
            "MAD" => 3,
            _ => 2,
        };
        let t = self.rng.below(self.l.temps);
        let mask = ["", ".xy", ".xyz", ".yzw", ".xw"][self.rng.below(5) as usize];
        let srcs: Vec<String> = (0..nsrc).map(|_| self.src(Kind::Float, Sources::Any, true)).collect();
        self.push(format!("{op} TEMP[{t}]{mask}, {}", srcs.join(", ")));
    }

    /// One random ALU instruction.
    fn alu(&mut self, sources: Sources) {
        let table = match self.rng.below(20) {
            0..=10 => FLOAT_OPS,
            11..=15 => INT_OPS,
            16..=18 if self.doubles => DOUBLE_OPS,
            19 if self.int64 => INT64_OPS,
            _ => FLOAT_OPS,
        };
        let op = &table[self.rng.below(table.len() as u32) as usize];
        let sat = op.sat && self.rng.below(5) == 0;
        let dst = match op.shape {
            Shape::Componentwise | Shape::Widen if op.dst.is_64bit() => self.dst64(),
            Shape::Compare64 => {
                let mask = [".x", ".z", ".xz", ".xy", ""][self.rng.below(5) as usize];
                self.dst_with_mask(mask.to_string())
            }
            Shape::Narrow => {
                let mask = [".x", ".y", ".xy", ".z", ".xz", ".yw"][self.rng.below(6) as usize];
                self.dst_with_mask(mask.to_string())
            }
            _ => self.dst(op.dst),
        };
        let srcs: Vec<String> = op.srcs.iter().map(|&k| self.src(k, sources, false)).collect();
        let suffix = if sat { "_SAT" } else { "" };
        self.push(format!("{}{suffix} {dst}, {}", op.name, srcs.join(", ")));
    }

    /// At the end: every `OUT` gets written (all channels, or some).
    fn write_outputs(&mut self) {
        for i in 0..self.l.outputs {
            let mask = if self.rng.below(3) == 0 { self.write_mask() } else { String::new() };
            let (a, b) = (self.src(Kind::Float, Sources::Any, false), self.src(Kind::Float, Sources::Any, false));
            match self.rng.below(3) {
                0 => self.push(format!("MOV OUT[{i}]{mask}, {a}")),
                1 => self.push(format!("ADD OUT[{i}]{mask}, {a}, {b}")),
                _ => {
                    let t = self.rng.below(self.l.temps);
                    self.push(format!("MAD OUT[{i}]{mask}, TEMP[{t}], {a}, {b}"))
                }
            };
        }
    }

    // ---- operands ----

    /// A destination register with a random write mask.
    fn dst(&mut self, _kind: Kind) -> String {
        let mask = self.write_mask();
        self.dst_with_mask(mask)
    }

    /// A destination for a 64-bit result: `.xy`, `.zw` or all four.
    fn dst64(&mut self) -> String {
        let mask = [".xy", ".zw", ""][self.rng.below(3) as usize];
        self.dst_with_mask(mask.to_string())
    }

    /// A general temporary (mostly), an output, or an array element.
    fn dst_with_mask(&mut self, mask: String) -> String {
        let l = self.l;
        match self.rng.below(20) {
            0..=13 => format!("TEMP[{}]{mask}", self.rng.below(l.temps)),
            14..=15 => format!("OUT[{}]{mask}", self.rng.below(l.outputs)),
            16 => format!("TEMP[{}]{mask}", l.array_first + self.rng.below(l.array_len)),
            _ => {
                let offset = l.array_first + self.rng.below(l.array_len - ADDR_MAX);
                format!("TEMP[{}](1){mask}", indirect(offset))
            }
        }
    }

    /// A source operand of `kind`. `broadcast` asks for a `.xxxx`-style
    /// swizzle.
    fn src(&mut self, kind: Kind, sources: Sources, broadcast: bool) -> String {
        let l = self.l;
        let roll = if sources == Sources::Immediates { 99 } else { self.rng.below(100) };
        let reg = match roll {
            0..=39 => format!("TEMP[{}]", self.rng.below(l.temps)),
            40..=44 if self.loop_depth > 0 => format!("TEMP[{}]", l.counters + self.rng.below(self.loop_depth)),
            45..=59 => format!("IN[{}]", self.rng.below(l.inputs)),
            60..=67 => format!("CONST[{}]", self.rng.below(l.constants)),
            68..=69 => format!("CONST[{}]", indirect(self.rng.below(l.constants - ADDR_MAX))),
            70..=71 => format!("TEMP[{}]", l.array_first + self.rng.below(l.array_len)),
            72..=74 => format!("TEMP[{}](1)", indirect(l.array_first + self.rng.below(l.array_len - ADDR_MAX))),
            75..=76 if l.stage == Stage::Compute => "SV[0]".to_string(),
            _ => return self.imm_src(kind, broadcast),
        };
        let swizzle = if broadcast { self.broadcast() } else { self.swizzle(kind) };
        self.modifiers(kind, format!("{reg}{swizzle}"))
    }

    /// An immediate of `kind` (new, or one already declared).
    fn imm_src(&mut self, kind: Kind, broadcast: bool) -> String {
        let imm = if !self.imms.is_empty() && self.rng.below(3) == 0 {
            // Reuse: any immediate is bits; the type only shapes the values.
            self.imms[self.rng.below(self.imms.len() as u32) as usize]
        } else {
            self.new_imm(kind)
        };
        let index = self.imm_index(imm);
        let swizzle = if broadcast {
            self.broadcast()
        } else if matches!(imm, Imm::F64(_)) || kind.is_64bit() {
            self.swizzle(Kind::Double)
        } else {
            self.swizzle(kind)
        };
        self.modifiers(kind, format!("IMM[{index}]{swizzle}"))
    }

    fn new_imm(&mut self, kind: Kind) -> Imm {
        match kind {
            Kind::Float => Imm::F32(std::array::from_fn(|_| self.imm_f32().to_bits())),
            Kind::Int => Imm::I32(std::array::from_fn(|_| self.rng.below(41) as i32 - 20)),
            Kind::Uint => Imm::U32(std::array::from_fn(|_| match self.rng.below(6) {
                0 => self.rng.next() as u32,
                1 => 0xffff_ffff,
                _ => self.rng.below(40),
            })),
            Kind::Double | Kind::Int64 if self.rng.below(3) == 0 => {
                let lo = self.rng.below(40);
                Imm::U32([lo, 0, self.rng.next() as u32, self.rng.below(2).wrapping_neg()])
            }
            Kind::Double | Kind::Int64 => Imm::F64(std::array::from_fn(|_| {
                let v = (self.rng.below(129) as f64 - 64.0) / 8.0;
                if self.rng.below(8) == 0 { 1.0e-300 } else { v }.to_bits()
            })),
        }
    }

    /// A float immediate: small and exact mostly; sometimes tiny, huge,
    /// denormal or negative zero (all finite: Mesa's parser reads no
    /// `inf` or `nan` immediates).
    fn imm_f32(&mut self) -> f32 {
        match self.rng.below(12) {
            0 => [-0.0, 1e-45, f32::MIN_POSITIVE, f32::MAX, -1e30, 0.1, 16777216.0, 1e-20][self.rng.below(8) as usize],
            1 => self.rng.next() as i32 as f32 / 65536.0,
            _ => (self.rng.below(65) as f32 - 32.0) / 4.0,
        }
    }

    /// The index of `imm`, declared on first use.
    fn imm_index(&mut self, imm: Imm) -> usize {
        match self.imms.iter().position(|&i| i == imm) {
            Some(i) => i,
            None => {
                self.imms.push(imm);
                self.imms.len() - 1
            }
        }
    }

    /// `IMM[n].cccc` for channel `c` of `imm`.
    fn imm_channel(&mut self, imm: Imm, c: usize) -> String {
        let index = self.imm_index(imm);
        format!("IMM[{index}].{0}{0}{0}{0}", CHANNELS[c % 4])
    }

    fn modifiers(&mut self, kind: Kind, operand: String) -> String {
        let (neg, abs) = match kind {
            Kind::Float | Kind::Double => (self.rng.below(8) == 0, self.rng.below(16) == 0),
            Kind::Int => (self.rng.below(10) == 0, false),
            Kind::Uint | Kind::Int64 => (false, false),
        };
        let operand = if abs { format!("|{operand}|") } else { operand };
        if neg {
            format!("-{operand}")
        } else {
            operand
        }
    }

    /// A swizzle for `kind`: channel pairs for 64-bit kinds.
    fn swizzle(&mut self, kind: Kind) -> String {
        if kind.is_64bit() {
            return ["", ".xyxy", ".zwzw", ".zwxy"][self.rng.below(4) as usize].to_string();
        }
        match self.rng.below(10) {
            0..=3 => String::new(),
            4..=6 => self.broadcast(),
            _ => {
                let s: String = (0..4).map(|_| self.channel()).collect();
                if s == "xyzw" {
                    String::new()
                } else {
                    format!(".{s}")
                }
            }
        }
    }

    fn broadcast(&mut self) -> String {
        format!(".{}", self.channel().to_string().repeat(4))
    }

    /// `` (all channels) or a random non-empty mask.
    fn write_mask(&mut self) -> String {
        if self.rng.below(3) == 0 {
            return String::new();
        }
        let mask = 1 + self.rng.below(14);
        let mut text = String::from(".");
        text.extend((0..4).filter(|c| mask & (1 << c) != 0).map(|c| CHANNELS[c as usize]));
        text
    }

    fn channel(&mut self) -> char {
        CHANNELS[self.rng.below(4) as usize]
    }
}

/// An f32 written with the shortest digits that read back to it (`1e-45`,
/// `0.25`, `-0.0`): what C's `strtof` reads exactly.
struct Exact32(f32);

impl std::fmt::Display for Exact32 {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:?}", self.0)
    }
}

/// An f64 written as [`Exact32`] writes an f32.
struct Exact64(f64);

impl std::fmt::Display for Exact64 {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:?}", self.0)
    }
}

fn join<T: std::fmt::Display>(values: impl Iterator<Item = T>) -> String {
    values.map(|v| v.to_string()).collect::<Vec<_>>().join(", ")
}

/// The generator seeded from `seed`.
fn seeded(seed: u64) -> Rng {
    Rng(seed ^ 0x243f_6a88_85a3_08d3)
}
