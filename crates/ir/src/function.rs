//! The IR: scalar SSA values in blocks, blocks in TGSI's structured
//! control flow.
//!
//! A [`Function`] owns three arenas (values, instructions, blocks) and a
//! [`Region`] tree: a list of [`Node`]s, each a block or a structured
//! construct (if, loop, switch) holding regions of its own. The tree is the
//! one source of truth for control flow; the control-flow graph is derived
//! from it ([`crate::cfg`]). Every region starts with a block and every
//! construct is followed by a block (its merge or exit block), so a region
//! also ends with a block.

use crate::entity::{entity, Arena};
use smallvec::SmallVec;
use tgsi::{File, Opcode};

entity!(
    /// A scalar SSA value.
    Value,
    "v"
);
entity!(
    /// An instruction.
    Inst,
    "i"
);
entity!(
    /// A basic block.
    Block,
    "b"
);
entity!(
    /// A register array kept in memory (indirectly addressed registers).
    Array,
    "a"
);

/// The width of a value's bit pattern. Registers are untyped: operations
/// interpret the bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Ty {
    /// 32 bits: one channel.
    B32,
    /// 64 bits: a channel pair (`xy` or `zw`) of a double or 64-bit integer.
    B64,
}

/// A use of a value, with TGSI's source modifiers: `|x|` then `-`. Their
/// meaning depends on how the instruction reads the operand (float, integer
/// or double negation and absolute value).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Operand {
    /// The value read.
    pub value: Value,
    /// Negate (after the absolute value).
    pub neg: bool,
    /// Absolute value.
    pub abs: bool,
}

impl Operand {
    /// A plain use of `value`.
    pub fn new(value: Value) -> Self {
        Operand { value, neg: false, abs: false }
    }
}

/// A register channel: where a value lived in the source program.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RegChannel {
    /// The register file.
    pub file: File,
    /// The register index.
    pub index: u32,
    /// The channel, 0..=3.
    pub chan: u8,
}

/// Where an instruction came from: the TGSI instruction (by index among
/// the instructions) and the register channel its result was written to.
/// Emission uses it to regroup channels and choose registers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Origin {
    /// Index of the source instruction, if any.
    pub inst: Option<u32>,
    /// The destination channel it was written to, if any.
    pub dst: Option<RegChannel>,
}

/// A direct register read that is not SSA-tracked: inputs, constants,
/// system values, immediates. Reads of these have no side effects.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Source {
    /// IN, CONST, SV, or IMM.
    pub file: File,
    /// The outer index of a 2-D register (`CONST[1][2]`, `IN[0][3]`).
    pub dim: Option<u32>,
    /// The register index.
    pub index: u32,
    /// The channel.
    pub chan: u8,
}

/// What an instruction does.
#[derive(Clone, Debug, PartialEq)]
pub enum Op {
    /// A constant bit pattern (32-bit constants use the low half).
    Const(u64),
    /// The zero a never-written register channel reads as (Mesa's
    /// interpreter starts registers at zero). It is a constant 0, kept
    /// apart so emission can skip writing it where the register still
    /// holds its initial zero.
    Initial,
    /// A value nothing reads: fills the channels of an operand of an
    /// instruction kept whole that the instruction ignores.
    Undef,
    /// A direct read of an input, constant, system value or immediate
    /// channel.
    Read(Source),
    /// One channel of a TGSI opcode, on scalar operands. `chan` is the
    /// formula computed ([`crate::channels::formula_chan`]), not where the
    /// result goes (the origin says that): 0 for component-wise,
    /// replicated-scalar and 64-bit opcodes, which compute one formula
    /// whatever the channel; the channel's formula for channel-dependent
    /// ones (LIT, EXP, LOG, DST, UP2H, ...). The operands are listed in
    /// [`InstData::args`].
    Alu {
        /// The opcode.
        opcode: Opcode,
        /// The formula computed.
        chan: u8,
    },
    /// Joins two 32-bit halves (low, high) into a 64-bit value.
    Pack,
    /// One 32-bit half of a 64-bit value.
    Split {
        /// The high half (the second channel of the pair).
        hi: bool,
    },
    /// A value that depends on the predecessor a block was entered from.
    /// `args[i]` flows in from `preds[i]`.
    Phi {
        /// The predecessor of each argument.
        preds: SmallVec<[Block; 2]>,
    },
    /// Reads a channel of an indirectly addressed register:
    /// `reg` with its indirect index (and 2-D index) taken from `args`.
    /// Arrays of TEMP registers are [`Op::ArrayLoad`] instead.
    LoadIndirect {
        /// The register as written, with its indirect parts.
        reg: tgsi::Register,
        /// The channel read.
        chan: u8,
    },
    /// Reads `array[offset + args[0]]` (or `array[offset]` without args),
    /// channel `chan`.
    ArrayLoad {
        /// The array.
        array: Array,
        /// Constant part of the element index.
        offset: i32,
        /// The channel read.
        chan: u8,
    },
    /// Writes `args[last]` to `array[offset + args[0]]` (or
    /// `array[offset]` when there is only the value), channel `chan`.
    ArrayStore {
        /// The array.
        array: Array,
        /// Constant part of the element index.
        offset: i32,
        /// The channel written.
        chan: u8,
    },
    /// Writes `args[last]` to a channel of a register that is memory rather
    /// than a value: a 2-D output (a tessellation control shader's
    /// per-vertex outputs, `OUT[vertex][i]`, which other invocations read).
    /// Like [`Op::LoadIndirect`], `reg` is the register as written and the
    /// first args are its indirect index, then its 2-D indirect index.
    StoreIndirect {
        /// The register as written, with its indirect parts.
        reg: tgsi::Register,
        /// The channel written.
        chan: u8,
    },
    /// Writes `args[0]` to an output channel: the value the output has when
    /// the invocation ends (or emits a vertex).
    StoreOutput {
        /// The output register.
        index: u32,
        /// The channel.
        chan: u8,
    },
    /// A TGSI instruction kept whole: textures, memory, atomics,
    /// interpolation, barriers, kills, emits and anything else the IR does
    /// not split into channels. Value sources (every register of a file
    /// the IR tracks) are replaced by four scalar arguments each, in
    /// operand order; then one argument per indirect index of the other
    /// operands (an indirectly addressed sampler, view, buffer or image,
    /// or a referenced input: `SAMP[ADDR[0].x]`), sources then
    /// destinations, each register's index before its 2-D index
    /// ([`opaque_address_operands`]); results are the destination channels in order
    /// (`results[4*d + c]` for destination `d`, channel `c`, only for
    /// written channels: absent channels have no value).
    Opaque {
        /// The instruction; its value sources and destinations are
        /// placeholders filled from `args` and results at emission.
        inst: Box<tgsi::Instruction>,
        /// Which source operands are values (bit per source).
        value_srcs: u8,
    },
}

/// One instruction: an operation, its operands and its results.
#[derive(Clone, Debug, PartialEq)]
pub struct InstData {
    /// The operation.
    pub op: Op,
    /// The operands.
    pub args: SmallVec<[Operand; 3]>,
    /// The values defined (most instructions define one).
    pub results: SmallVec<[Value; 1]>,
    /// Clamp float results to [0, 1] (`_SAT`).
    pub saturate: bool,
    /// `_PRECISE`: no value-changing rewrites.
    pub precise: bool,
    /// Where it came from.
    pub origin: Origin,
}

/// How a value is defined.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ValueData {
    /// The width.
    pub ty: Ty,
    /// The defining instruction.
    pub def: Inst,
}

/// How control leaves a block.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Exit {
    /// To whatever follows in the tree.
    #[default]
    Fallthrough,
    /// `BRK`: out of the innermost loop or switch.
    Break,
    /// `CONT`: to the head of the innermost loop.
    Continue,
    /// `RET` or `END`: the invocation ends.
    Return,
}

/// A basic block: instructions in order, and how control leaves it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct BlockData {
    /// The instructions, phis first.
    pub insts: Vec<Inst>,
    /// How control leaves the block.
    pub exit: Exit,
}

/// A list of nodes; see the module documentation for its shape.
pub type Region = Vec<Node>;

/// A node of the control-flow tree.
#[derive(Clone, Debug, PartialEq)]
pub enum Node {
    /// A basic block.
    Block(Block),
    /// `IF`/`UIF` ... `ELSE` ... `ENDIF`.
    If(Box<IfNode>),
    /// `BGNLOOP` ... `ENDLOOP`.
    Loop(Box<LoopNode>),
    /// `SWITCH` ... `ENDSWITCH`.
    Switch(Box<SwitchNode>),
}

/// A two-way branch.
#[derive(Clone, Debug, PartialEq)]
pub struct IfNode {
    /// The condition (the `.x` channel of the source).
    pub cond: Operand,
    /// `UIF` (integer test) rather than `IF` (float test).
    pub unsigned: bool,
    /// Taken when the condition is nonzero.
    pub then_region: Region,
    /// Taken otherwise (a single empty block when there is no `ELSE`).
    pub else_region: Region,
    /// Whether the source had an `ELSE`.
    pub has_else: bool,
}

/// A loop: the body runs until a `BRK` leaves it.
#[derive(Clone, Debug, PartialEq)]
pub struct LoopNode {
    /// The body; its first block is the loop header.
    pub body: Region,
}

/// One `CASE` or `DEFAULT` of a switch.
#[derive(Clone, Debug, PartialEq)]
pub struct Case {
    /// The value compared with the selector; `None` for `DEFAULT`.
    pub value: Option<Operand>,
    /// The body; control falls through to the next case unless it breaks.
    pub body: Region,
}

/// A multi-way branch on an unsigned selector.
#[derive(Clone, Debug, PartialEq)]
pub struct SwitchNode {
    /// The selector (the `.x` channel of the source).
    pub selector: Operand,
    /// The cases, in order.
    pub cases: Vec<Case>,
}

/// A register array kept in memory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ArrayData {
    /// The register file (TEMP or OUT).
    pub file: File,
    /// The first register.
    pub first: u32,
    /// The number of registers.
    pub len: u32,
    /// The array id of its declaration, if it had one.
    pub array_id: Option<u16>,
}

/// A shader's code.
#[derive(Clone, Debug, Default)]
pub struct Function {
    /// Every value.
    pub values: Arena<Value, ValueData>,
    /// Every instruction.
    pub insts: Arena<Inst, InstData>,
    /// Every block.
    pub blocks: Arena<Block, BlockData>,
    /// Register arrays kept in memory.
    pub arrays: Arena<Array, ArrayData>,
    /// The control-flow tree.
    pub body: Region,
}

/// A shader: its interface (everything of the source other than TEMP and
/// IMM declarations and instructions) and its code.
#[derive(Clone, Debug)]
pub struct Module {
    /// The stage.
    pub processor: tgsi::Processor,
    /// Properties and declarations of every file but TEMP and IMM, in
    /// source order.
    pub interface: Vec<tgsi::Item>,
    /// The source's TEMP declarations (emission keeps their `LOCAL` flag
    /// and array ids).
    pub temps: Vec<tgsi::Declaration>,
    /// The source's immediates: emission numbers constants like the source
    /// did where it can.
    pub immediates: Vec<tgsi::Immediate>,
    /// The code.
    pub function: Function,
    /// How many instructions the source shader had (END aside), when it
    /// was built from one: emission's bound ([`crate::to_tgsi()`] writes no
    /// more where it can help it).
    pub source_instructions: Option<usize>,
}

impl Function {
    /// The instruction defining `v`.
    pub fn def(&self, v: Value) -> &InstData {
        &self.insts[self.values[v].def]
    }

    /// The width of `v`.
    pub fn ty(&self, v: Value) -> Ty {
        self.values[v].ty
    }

    /// Adds an instruction (not yet in any block) with results of the
    /// given widths.
    pub fn add_inst(&mut self, op: Op, args: &[Operand], result_tys: &[Ty], origin: Origin) -> Inst {
        let inst = self.insts.push(InstData {
            op,
            args: args.iter().copied().collect(),
            results: SmallVec::new(),
            saturate: false,
            precise: false,
            origin,
        });
        for &ty in result_tys {
            let v = self.values.push(ValueData { ty, def: inst });
            self.insts[inst].results.push(v);
        }
        inst
    }

    /// The first result of `inst`.
    pub fn result(&self, inst: Inst) -> Value {
        self.insts[inst].results[0]
    }

    /// Every block in tree order (the order emission writes them).
    pub fn blocks_in_order(&self) -> Vec<Block> {
        let mut out = Vec::with_capacity(self.blocks.len());
        out.extend(crate::walk::blocks(&self.body));
        out
    }
}

/// Whether an [`Op::Opaque`] instruction's destination of `file` is
/// written as values (its results); the other files name resources and
/// memory, and writing them is an effect.
pub fn is_value_destination(file: File) -> bool {
    matches!(file, File::Temporary | File::Output | File::Address)
}

/// The operands of an [`Op::Opaque`] instruction whose indirect indices
/// are arguments (after the value sources' four each): the sources that
/// are not values (by `value_srcs`) and the destinations of files that
/// hold no values, in that order.
pub fn opaque_address_operands(
    template: &tgsi::Instruction,
    value_srcs: u8,
) -> impl Iterator<Item = &tgsi::Register> + '_ {
    let srcs = template.src.iter().enumerate().filter(move |(i, _)| *i >= 8 || value_srcs & (1 << i) == 0);
    let dsts = template.dst.iter().filter(|d| !is_value_destination(d.reg.file));
    srcs.map(|(_, s)| &s.reg).chain(dsts.map(|d| &d.reg))
}

/// How many indirect indices `reg` has (its index, its 2-D index): the
/// arguments an instruction reading or writing it takes for them.
pub fn indirect_parts(reg: &tgsi::Register) -> usize {
    usize::from(reg.indirect.is_some()) + usize::from(reg.dimension.is_some_and(|d| d.indirect.is_some()))
}
