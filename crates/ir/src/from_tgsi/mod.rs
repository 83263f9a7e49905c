//! SSA construction from a parsed TGSI shader.
//!
//! The builder walks the instructions once, in order. Channels of TEMP, OUT
//! and ADDR registers become SSA variables (`vars`); structured control
//! flow becomes the tree of [`crate::function::Node`]s, with phis where arms
//! join, at loop headers and loop exits. Loop headers get a phi for every
//! variable the loop body writes (found by scanning the body first); phis
//! that turn out trivial are removed at the end.
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
//! - Subroutines are inlined at each `CAL`. A subroutine with a `RET`
//!   before its end is inlined inside a loop that runs once, with `RET`
//!   as `BRK`. `BGNSUB`/`ENDSUB` met in sequential flow are no-ops, and a
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
//! variables and `ssa` joins them with phis; `blocks` and `hoisted` place
//! the ops.

mod arrays;
mod blocks;
mod calls;
mod flow;
mod hoisted;
mod if_else;
mod jumps;
mod legacy;
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
}

/// Builds the IR of `shader`.
///
/// ```
/// let shader = tgsi::parse("FRAG\nDCL IN[0]\nDCL OUT[0]\nMOV OUT[0], IN[0]\nEND\n").unwrap();
/// let module = ir::from_tgsi(&shader).unwrap();
/// assert_eq!(module.processor, tgsi::Processor::Fragment);
/// ```
pub fn from_tgsi(shader: &tgsi::Shader) -> Result<Module, BuildError> {
    Builder::new(shader)?.build()
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
    /// Output variables, in first-write order.
    outputs: Vec<Var>,
    /// Subroutines being inlined (their BGNSUB index), to refuse recursion.
    calls: Vec<usize>,
    /// Every phi created, for the clean-up at the end.
    phis: Vec<Inst>,
    /// Index of the instruction being lowered.
    pc: usize,
    /// What each loop's body may write, by the index of its first
    /// instruction: found for every loop at the first `BGNLOOP`.
    loop_writes: Option<HashMap<usize, Vec<Var>>>,
}

impl<'a> Builder<'a> {
    fn new(shader: &'a tgsi::Shader) -> Result<Self, BuildError> {
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
            outputs: Vec::new(),
            calls: Vec::new(),
            phis: Vec::new(),
            pc: 0,
            loop_writes: None,
        };
        b.find_arrays(&temp_decls, shader)?;
        Ok(b)
    }

    fn error(&self, message: impl Into<String>) -> BuildError {
        BuildError { inst: Some(self.pc), message: message.into() }
    }

    fn build(mut self) -> Result<Module, BuildError> {
        let stop = self.walk_program()?;
        debug_assert_eq!(stop, Stop::End);
        if self.func.blocks[self.cur].exit == Exit::Fallthrough {
            self.end_invocation();
        }
        let body = self.regions.pop().unwrap_or_default();
        self.func.body = body;
        // Hoisted reads and constants go first in the entry block.
        let entry = self.first_block();
        let mut insts = std::mem::take(&mut self.hoisted);
        insts.append(&mut self.func.blocks[entry].insts);
        self.func.blocks[entry].insts = insts;
        self.remove_trivial_phis();
        Ok(Module {
            processor: self.processor,
            interface: self.interface,
            temps: self.temp_decls,
            immediates: self.imms,
            function: self.func,
        })
    }

    fn first_block(&self) -> Block {
        match self.func.body.first() {
            Some(Node::Block(b)) => *b,
            _ => Block::new(0),
        }
    }
}
