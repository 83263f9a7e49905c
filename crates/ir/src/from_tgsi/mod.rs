//! SSA construction from a parsed TGSI shader.
//!
//! The builder walks the instructions once, in order. Channels of TEMP, OUT
//! and ADDR registers become SSA variables (`vars`); structured control
//! flow becomes the tree of [`crate::function::Node`]s, with phis where arms
//! join, at loop headers and loop exits. Loop headers get a phi for every
//! variable the loop body writes (found by scanning the body first). A join
//! of the main program gets phis only for the variables live there (`live`
//! finds them before the build: pruned SSA); phis that turn out trivial,
//! and phis whose values reach no other instruction or construct, are
//! removed at the end.
//!
//! Choices worth knowing:
//! - Immediates become constants; direct reads of IN, CONST and SV become
//!   [`Op::Read`]s; both are placed once in the entry block.
//! - Registers that are ever indirectly addressed are kept in memory as
//!   [`crate::function::ArrayData`]: the declared `ARRAY(n)` a TEMP access
//!   names, or every TEMP (or OUT) register when an indirect access names
//!   no array.
//! - Outputs are variables too; their values are stored
//!   ([`Op::StoreOutput`]) where the invocation ends and before `EMIT`
//!   (geometry shaders: before `EMIT` only).
//! - Subroutines are inlined at each `CAL`, once the size that makes is
//!   known to be within [`tgsi::Limits::inline_budget`] (`inline_size`).
//!   A subroutine with a `RET` before its end is inlined inside a loop
//!   that runs once, with `RET` as `BRK`. `BGNSUB`/`ENDSUB` met in sequential flow are no-ops, and a
//!   `RET` of the main program ends it, as in Mesa's interpreter.
//! - Reads of never-written TEMP channels are zero, as in Mesa's
//!   interpreter.
//! - Removed opcodes of the 2010 reference that the corpus uses (SUB, ABS,
//!   CLAMP, XPD, KILP, ...) are rewritten into today's opcodes here.
//!
//! The builder's parts: `arrays` decides which registers live in memory;
//! `flow` walks the instructions with an explicit stack of open
//! constructs, each lowered by its module (`if_else`, `loops`, `switch`,
//! `calls` for inlined subroutines, `jumps` for `BRK` and `CONT`); `lower`
//! and `legacy` turn one instruction into ops; `vars` tracks the
//! variables, `live` finds which are live at each join, and `ssa` joins
//! them with phis; `blocks` and `hoisted` place
//! the ops.

mod arrays;
mod blocks;
mod calls;
mod flow;
mod hoisted;
mod if_else;
mod inline_size;
mod jumps;
mod legacy;
mod live;
mod loops;
pub(crate) mod lower;
mod ssa;
mod switch;
mod vars;
pub(crate) use lower::is_value_file;

use crate::entity::EntityRef;
use crate::function::*;
use flow::Stop;
use hoisted::HoistKey;
use jumps::Breakable;
use rustc_hash::FxHashMap as HashMap;
use tgsi::{File, Item};
use vars::{Var, Vars};

/// Why a shader could not be turned into IR.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{}{message}", .inst.map(|i| format!("instruction {i}: ")).unwrap_or_default())]
pub struct BuildError {
    /// The index of the offending instruction, when there is one.
    pub inst: Option<usize>,
    /// What is wrong.
    pub message: String,
    /// The bound of [`tgsi::Limits`] the shader exceeds, when that is what
    /// is wrong.
    pub limit: Option<tgsi::LimitExceeded>,
}

/// Builds the IR of `shader`, within [`tgsi::Limits::default()`].
///
/// ```
/// let shader = tgsi::parse("FRAG\nDCL IN[0]\nDCL OUT[0]\nMOV OUT[0], IN[0]\nEND\n").unwrap();
/// let module = ir::from_tgsi(&shader).unwrap();
/// assert_eq!(module.processor, tgsi::Processor::Fragment);
/// ```
pub fn from_tgsi(shader: &tgsi::Shader) -> Result<Module, BuildError> {
    from_tgsi_with_limits(shader, &tgsi::Limits::default())
}

/// Builds the IR of `shader`, refusing one past `limits` before building
/// anything: its counts, nesting and register indices, and the size that
/// inlining its subroutines would make. Nesting is checked again as the
/// subroutines are inlined (each call being inlined is one level).
///
/// ```
/// let text = "FRAG\nDCL TEMP[0]\nCAL :2\nEND\nBGNSUB\nNOP\nNOP\nNOP\nENDSUB\n";
/// let shader = tgsi::parse(text).unwrap();
/// let limits = tgsi::Limits { inline_factor: 0, inline_floor: 3, ..Default::default() };
/// let err = ir::from_tgsi_with_limits(&shader, &limits).unwrap_err();
/// assert_eq!(err.inst, Some(0));
/// assert_eq!(err.limit.map(|l| (l.limit, l.value)), Some((tgsi::Limit::InlinedInstructions, 4)));
/// ```
pub fn from_tgsi_with_limits(shader: &tgsi::Shader, limits: &tgsi::Limits) -> Result<Module, BuildError> {
    check_limits(shader, limits)?;
    let mut pruned = Builder::new(shader, limits)?;
    pruned.prune_by_liveness();
    match pruned.build()? {
        Built::Done(module) => Ok(*module),
        // The liveness was wrong somewhere (it must not be): build the
        // unpruned SSA, which is right whatever it says.
        Built::PrunedTooMuch => match Builder::new(shader, limits)?.build()? {
            Built::Done(module) => Ok(*module),
            Built::PrunedTooMuch => Err(BuildError {
                inst: None,
                message: "a variable read where nothing wrote it".to_string(),
                limit: None,
            }),
        },
    }
}

/// What a build made.
enum Built {
    Done(Box<Module>),
    /// A variable pruned at a join was read after it.
    PrunedTooMuch,
}

/// The checks of [`from_tgsi_with_limits`] made before building.
fn check_limits(shader: &tgsi::Shader, limits: &tgsi::Limits) -> Result<(), BuildError> {
    if let Err((item, e)) = tgsi::limits::check(shader, limits) {
        let inst = match shader.items.get(item) {
            Some(Item::Instruction(_)) => {
                Some(shader.items[..item].iter().filter(|i| matches!(i, Item::Instruction(_))).count())
            }
            _ => None,
        };
        let message = if inst.is_some() { e.to_string() } else { format!("item {item}: {e}") };
        return Err(BuildError { inst, message, limit: Some(e) });
    }
    let insts: Vec<&tgsi::Instruction> = shader.instructions().collect();
    let budget = limits.inline_budget(insts.len()) as u64;
    if let Err((call, size)) = inline_size::check(&insts, budget) {
        let e = tgsi::LimitExceeded { limit: tgsi::Limit::InlinedInstructions, value: size, max: budget };
        let what = match insts.get(call) {
            Some(i) if i.opcode == tgsi::Opcode::Cal => format!("this CAL :{}", i.label.unwrap_or_default()),
            _ => "the program".to_string(),
        };
        // A doubling chain of 64 subroutines saturates the count.
        let size_text = if size == u64::MAX { "2^64 - 1 or more".to_string() } else { size.to_string() };
        let message = format!(
            "{what} brings the program to {size_text} instructions with its subroutines inlined, \
             more than the limit of {budget} (Limits::inline_factor {} times the {} input instructions, \
             at least Limits::inline_floor {})",
            limits.inline_factor,
            insts.len(),
            limits.inline_floor
        );
        return Err(BuildError { inst: Some(call), message, limit: Some(e) });
    }
    Ok(())
}

/// The state of building one shader's IR. Each module of the builder
/// adds the methods of its part.
struct Builder<'a> {
    insts: Vec<&'a tgsi::Instruction>,
    imms: Vec<tgsi::Immediate>,
    temp_decls: Vec<tgsi::Declaration>,
    func: Function,
    interface: Vec<Item>,
    processor: tgsi::Processor,
    vars: Vars,
    /// Instructions hoisted to the start of the entry block.
    hoisted: Vec<Inst>,
    hoist_cache: HashMap<HoistKey, Value>,
    /// The block being filled.
    cur: Block,
    /// The regions being built, innermost last.
    regions: Vec<Region>,
    /// The constructs `BRK` and `CONT` leave, innermost last.
    breakables: Vec<Breakable>,
    /// TEMP and OUT registers kept in memory.
    arrays: Vec<(File, u32, u32, Array)>,
    /// `arrays` by file and first register, for a binary search per
    /// register access (`None` when two arrays of a file overlap: then
    /// the first declared that holds a register is searched for in order).
    arrays_sorted: Option<Vec<(File, u32, u32, Array)>>,
    /// Output variables, in first-write order.
    outputs: Vec<Var>,
    /// Subroutines being inlined (their BGNSUB index), to refuse recursion.
    calls: Vec<usize>,
    /// Every phi created, for the clean-up at the end.
    phis: Vec<Inst>,
    /// Index of the instruction being lowered.
    pc: usize,
    /// How deep constructs and inlined calls may nest.
    max_nesting: usize,
    /// What each loop's body may write, by the index of its first
    /// instruction: found for every loop at the first `BGNLOOP`.
    loop_writes: Option<HashMap<usize, Vec<Var>>>,
    /// The live variables at the joins of the main program, when the
    /// joins are pruned to them.
    live: Option<live::JoinLiveness>,
    /// The value a variable holds after a join pruned it: an index no
    /// value of the function has, never read unless the liveness is
    /// wrong (and then never put in the function).
    poison: Option<Value>,
    /// Whether a pruned variable was read.
    pruned_too_much: bool,
    /// Phi arguments made so far, and the most there may be
    /// ([`tgsi::Limits::inline_budget`]): a SWITCH's join gives a phi an
    /// argument per case, so cases each writing another register would
    /// make the SSA form quadratic in the input.
    phi_args: usize,
    phi_budget: usize,
    /// Set when a join would pass the budget: it made no phi, and the
    /// walk stops with the error.
    phi_overflow: Option<usize>,
}

impl<'a> Builder<'a> {
    fn new(shader: &'a tgsi::Shader, limits: &tgsi::Limits) -> Result<Self, BuildError> {
        let mut insts = Vec::new();
        let mut imms = Vec::new();
        let mut interface = Vec::new();
        let mut temp_decls = Vec::new();
        for item in &shader.items {
            match item {
                Item::Instruction(i) => insts.push(i),
                Item::Immediate(imm) => imms.push(*imm),
                Item::Declaration(d) if d.file == File::Temporary => temp_decls.push(d.clone()),
                other => interface.push(other.clone()),
            }
        }
        let mut func = Function::default();
        let entry = func.blocks.push(BlockData::default());
        let mut b = Builder {
            insts,
            imms,
            temp_decls: temp_decls.clone(),
            func,
            interface,
            processor: shader.processor,
            vars: Vars::default(),
            hoisted: Vec::new(),
            hoist_cache: HashMap::default(),
            cur: entry,
            regions: vec![vec![Node::Block(entry)]],
            breakables: Vec::new(),
            arrays: Vec::new(),
            arrays_sorted: None,
            outputs: Vec::new(),
            calls: Vec::new(),
            phis: Vec::new(),
            pc: 0,
            max_nesting: limits.max_nesting,
            loop_writes: None,
            live: None,
            poison: None,
            pruned_too_much: false,
            phi_args: 0,
            phi_budget: limits.inline_budget(shader.instructions().count()),
            phi_overflow: None,
        };
        b.find_arrays(&temp_decls, shader)?;
        Ok(b)
    }

    fn error(&self, message: impl Into<String>) -> BuildError {
        BuildError { inst: Some(self.pc), message: message.into(), limit: None }
    }

    /// Prunes the joins of the main program to the variables live there.
    fn prune_by_liveness(&mut self) {
        self.live = Some(self.join_liveness());
        // No value of the function: the numbering stays as without pruning.
        self.poison = Some(Value::new(u32::MAX as usize));
    }

    fn build(mut self) -> Result<Built, BuildError> {
        let stop = self.walk_program()?;
        debug_assert_eq!(stop, Stop::End);
        if self.func.blocks[self.cur].exit == Exit::Fallthrough {
            self.end_invocation();
        }
        if let Some(value) = self.phi_overflow {
            return Err(self.phi_budget_error(value));
        }
        let body = self.regions.pop().unwrap_or_default();
        self.func.body = body;
        // Hoisted reads and constants go first in the entry block.
        let entry = self.first_block();
        let mut insts = std::mem::take(&mut self.hoisted);
        insts.append(&mut self.func.blocks[entry].insts);
        self.func.blocks[entry].insts = insts;
        if self.pruned_too_much {
            return Ok(Built::PrunedTooMuch);
        }
        self.remove_trivial_phis();
        self.remove_dead_phis();
        let source_instructions = self.insts.iter().filter(|i| i.opcode != tgsi::Opcode::End).count();
        Ok(Built::Done(Box::new(Module {
            processor: self.processor,
            interface: self.interface,
            temps: self.temp_decls,
            immediates: self.imms,
            function: self.func,
            source_instructions: Some(source_instructions),
        })))
    }

    fn first_block(&self) -> Block {
        match self.func.body.first() {
            Some(Node::Block(b)) => *b,
            _ => Block::new(0),
        }
    }
}
