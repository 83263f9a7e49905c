//! Bounds on the size and shape of an input shader, for hosts that compile
//! shaders from untrusted sources (a virglrenderer-style host decoding a
//! guest's tokens): with them, the work and memory of parsing, decoding and
//! building the IR stay proportional to the input, and an input past a
//! bound is refused with a [`LimitExceeded`] instead of a blow-up.
//!
//! The text parser ([`crate::parse_with_limits`]), the token decoder
//! ([`crate::tokens::decode_with_limits`]) and the IR builder (`ir`'s
//! `from_tgsi_with_limits`) each check them; their plain forms use
//! [`Limits::default()`], which every real shader we know is far below.
//!
//! ```
//! let text = "FRAG\nDCL TEMP[0..40000]\nEND\n";
//! let err = tgsi::parse(text).unwrap_err();
//! assert_eq!(err.message, "register index 40000 is out of range (at most 32767)");
//! let tight = tgsi::Limits { max_instructions: 1, ..tgsi::Limits::default() };
//! let err = tgsi::parse_with_limits("FRAG\nNOP\nEND\n", &tight).unwrap_err();
//! assert_eq!(err.limit.map(|l| l.limit), Some(tgsi::Limit::Instructions));
//! assert_eq!(err.span.line, 3);
//! ```

use crate::ast::*;

/// The bounds an input shader must keep. [`Limits::default()`] is generous
/// (tens of times what the largest real shaders we know need); a host may
/// tighten any of them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Words of a token stream after its two header words.
    pub max_tokens: usize,
    /// Instructions (`END` included).
    pub max_instructions: usize,
    /// Declarations (`DCL`).
    pub max_declarations: usize,
    /// Immediates (`IMM`).
    pub max_immediates: usize,
    /// How deep control flow nests: `IF`/`UIF`, `BGNLOOP`, `SWITCH` and
    /// `BGNSUB` each open a level. The IR builder also counts each
    /// subroutine call being inlined as one.
    pub max_nesting: usize,
    /// The largest register index anywhere: a declared range's ends, an
    /// operand's index, 2-D index and index register, a texture offset.
    /// At most [`Limits::REGISTER_INDEX_FIELD`], what a token holds.
    pub max_register_index: u32,
    /// How far the IR may outgrow the input. The IR builder inlines every
    /// subroutine at each call, and gives a register a phi with an
    /// argument per joining edge where the edges disagree (a SWITCH's
    /// join has an edge per case). The program with its calls inlined may
    /// have at most `inline_factor` times the input's instructions, and
    /// its phis as many arguments ...
    pub inline_factor: usize,
    /// ... or `inline_floor`, whichever is more.
    pub inline_floor: usize,
}

impl Limits {
    /// The defaults. The largest shader of the corpus and the conformance
    /// shaders has 1,556 instructions (about 8,000 words), 26
    /// declarations, 41 immediates, 8 levels of nesting and register index
    /// 4,095, and inlining its subroutines at most multiplies a program's
    /// size by 1.3: the defaults leave a wide margin over all of them
    /// (262,144 instructions and 4 Mi words also take the project's
    /// 100,000-instruction synthetic benchmarks). Nesting is kept low
    /// because building the IR of nested constructs costs, per
    /// instruction, up to the depth (phis at each level); inlining may
    /// grow a program 64-fold, or to 4,096 instructions (as if it had 64).
    pub const DEFAULT: Limits = Limits {
        max_tokens: 1 << 22,
        max_instructions: 1 << 18,
        max_declarations: 1 << 14,
        max_immediates: 1 << 14,
        max_nesting: 64,
        max_register_index: Self::REGISTER_INDEX_FIELD,
        inline_factor: 64,
        inline_floor: 1 << 12,
    };

    /// The largest register index an operand token holds (a signed 16-bit
    /// field); no limit goes beyond it.
    pub const REGISTER_INDEX_FIELD: u32 = i16::MAX as u32;

    /// The most instructions the program of `instructions` input
    /// instructions may have once its subroutines are inlined.
    pub fn inline_budget(&self, instructions: usize) -> usize {
        self.inline_factor.saturating_mul(instructions).max(self.inline_floor)
    }

    /// The one rule of register indices: `index` is at most
    /// `max_register_index` (and what a token holds).
    pub fn check_register_index(&self, index: i64) -> Result<(), LimitExceeded> {
        let max = self.max_register_index.min(Self::REGISTER_INDEX_FIELD);
        if index > i64::from(max) {
            return Err(LimitExceeded { limit: Limit::RegisterIndex, value: index as u64, max: u64::from(max) });
        }
        Ok(())
    }
}

impl Default for Limits {
    fn default() -> Self {
        Self::DEFAULT
    }
}

/// Which bound of [`Limits`] an input exceeds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Limit {
    /// [`Limits::max_tokens`]
    Tokens,
    /// [`Limits::max_instructions`]
    Instructions,
    /// [`Limits::max_declarations`]
    Declarations,
    /// [`Limits::max_immediates`]
    Immediates,
    /// [`Limits::max_nesting`]
    Nesting,
    /// [`Limits::max_register_index`]
    RegisterIndex,
    /// [`Limits::inline_budget`]
    InlinedInstructions,
    /// [`Limits::inline_budget`], for the arguments of the IR's phis.
    PhiArguments,
}

/// An input past one of the bounds of [`Limits`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{}", self.describe())]
pub struct LimitExceeded {
    /// The bound.
    pub limit: Limit,
    /// What the input has: a count, a depth, an index (at least `max + 1`
    /// for counts found one item at a time).
    pub value: u64,
    /// The bound's value.
    pub max: u64,
}

impl LimitExceeded {
    fn describe(&self) -> String {
        let (value, max) = (self.value, self.max);
        match self.limit {
            Limit::Tokens => format!("the token stream has {value} body words, more than the limit of {max}"),
            Limit::Instructions => format!("more than {max} instructions (the limit)"),
            Limit::Declarations => format!("more than {max} declarations (the limit)"),
            Limit::Immediates => format!("more than {max} immediates (the limit)"),
            Limit::Nesting => format!("control flow nests more than {max} levels deep (the limit)"),
            Limit::RegisterIndex => format!("register index {value} is out of range (at most {max})"),
            Limit::InlinedInstructions => {
                format!("inlining the subroutines would make {value} instructions, more than the limit of {max}")
            }
            Limit::PhiArguments => format!("the SSA form needs over {max} phi arguments (the limit)"),
        }
    }
}

/// Checks items one at a time, in program order, against [`Limits`]:
/// counts, the nesting of control flow, and register indices. The parser,
/// the token decoder and the IR builder all use it, so the rules are one.
#[derive(Clone, Debug)]
pub struct LimitCounter {
    limits: Limits,
    instructions: usize,
    declarations: usize,
    immediates: usize,
    depth: usize,
}

impl LimitCounter {
    /// A counter of nothing yet.
    pub fn new(limits: &Limits) -> Self {
        LimitCounter { limits: *limits, instructions: 0, declarations: 0, immediates: 0, depth: 0 }
    }

    /// Counts `item`, and checks it and the counts so far.
    pub fn item(&mut self, item: &Item) -> Result<(), LimitExceeded> {
        let l = &self.limits;
        match item {
            Item::Property(_) => Ok(()),
            Item::Immediate(_) => count(&mut self.immediates, l.max_immediates, Limit::Immediates),
            Item::Declaration(d) => {
                count(&mut self.declarations, l.max_declarations, Limit::Declarations)?;
                for index in [Some(d.first), Some(d.last), d.dimension].into_iter().flatten() {
                    l.check_register_index(i64::from(index))?;
                }
                Ok(())
            }
            Item::Instruction(inst) => {
                count(&mut self.instructions, l.max_instructions, Limit::Instructions)?;
                let info = inst.opcode.info();
                if info.has(crate::flags::PRE_DEDENT) {
                    self.depth = self.depth.saturating_sub(1);
                }
                if info.has(crate::flags::POST_INDENT) {
                    self.depth += 1;
                    if self.depth > l.max_nesting {
                        let (value, max) = (self.depth as u64, l.max_nesting as u64);
                        return Err(LimitExceeded { limit: Limit::Nesting, value, max });
                    }
                }
                let regs = inst.dst.iter().map(|d| &d.reg).chain(inst.src.iter().map(|s| &s.reg));
                for reg in regs {
                    check_register(l, reg)?;
                }
                for offset in inst.texture.iter().flat_map(|t| &t.offsets) {
                    l.check_register_index(i64::from(offset.index))?;
                }
                Ok(())
            }
        }
    }
}

/// One more of a kind of item, at most `max` of them.
fn count(n: &mut usize, max: usize, limit: Limit) -> Result<(), LimitExceeded> {
    *n += 1;
    if *n > max {
        return Err(LimitExceeded { limit, value: *n as u64, max: max as u64 });
    }
    Ok(())
}

/// The indices of an operand's register; an indirect one's offset is not
/// an index.
fn check_register(l: &Limits, reg: &Register) -> Result<(), LimitExceeded> {
    if reg.indirect.is_none() {
        l.check_register_index(i64::from(reg.index))?;
    }
    if let Some(dim) = &reg.dimension {
        if dim.indirect.is_none() {
            l.check_register_index(i64::from(dim.index))?;
        }
    }
    let indirects = reg.indirect.iter().chain(reg.dimension.as_ref().and_then(|d| d.indirect.as_ref()));
    for ind in indirects {
        l.check_register_index(i64::from(ind.index))?;
    }
    Ok(())
}

/// Checks every item of `shader`; the error comes with the index of the
/// item in [`Shader::items`].
pub fn check(shader: &Shader, limits: &Limits) -> Result<(), (usize, LimitExceeded)> {
    let mut counter = LimitCounter::new(limits);
    for (i, item) in shader.items.iter().enumerate() {
        counter.item(item).map_err(|e| (i, e))?;
    }
    Ok(())
}
