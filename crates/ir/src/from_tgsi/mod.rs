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

mod legacy;
mod lower;
mod vars;
pub(crate) use lower::is_value_file;

use crate::entity::{EntityRef, SecondaryMap};
use crate::function::*;
use rustc_hash::FxHashMap as HashMap;
use smallvec::SmallVec;
use tgsi::{File, Item, Opcode};
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

/// A saved set of variable values: those changed since a construct began.
type State = Vec<(Var, Option<Value>)>;

/// An edge into a join point, with the variable values along it.
struct Incoming {
    pred: Block,
    state: State,
}

/// A construct that `BRK` leaves.
struct Breakable {
    /// `vars.mark()` when the construct began.
    mark: usize,
    /// The states at each `BRK`.
    breaks: Vec<Incoming>,
    /// For loops: the header phis (variable, phi) and the states at
    /// each `CONT`.
    looping: Option<LoopInfo>,
    /// Whether this is the once-loop of an inlined subroutine (`RET`
    /// breaks out of it).
    subroutine: bool,
}

struct LoopInfo {
    phis: Vec<(Var, Inst)>,
    continues: Vec<Incoming>,
}

/// What ended a walk over a run of instructions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Stop {
    /// One of the opcodes the walk was told to stop at (consumed).
    At(Opcode),
    /// The end of the instruction list, or the main program's END.
    End,
}

/// A walk over a run of instructions: where it stops.
#[derive(Clone, Copy, Debug)]
struct Run {
    /// The opcodes it stops at (consumed).
    stops: &'static [Opcode],
    /// Whether it is in the main program rather than an inlined subroutine.
    main: bool,
}

/// A construct, or an inlined call, being lowered while the walk is in
/// one of its parts. The walk keeps them on an explicit stack, so nesting
/// depth is bounded only by memory.
enum Open<'a> {
    /// The then-arm of an `IF` or `UIF`.
    Then { inst: &'a tgsi::Instruction, cond: Operand, mark: usize },
    /// The else-arm.
    Else(Box<IfArms>),
    /// A loop's body; `mark` is `vars.mark()` when it began.
    Loop { mark: usize },
    /// A case of a switch.
    Switch(Box<Switching>),
    /// The body of an inlined subroutine.
    Call(Call),
}

/// An if whose then-arm is lowered.
struct IfArms {
    unsigned: bool,
    cond: Operand,
    mark: usize,
    then_end: Option<Block>,
    then_state: State,
    then_region: Region,
    has_else: bool,
}

/// A switch being lowered.
struct Switching {
    selector: Operand,
    /// The block the switch leaves.
    dispatch: Block,
    mark: usize,
    /// The cases lowered so far.
    cases: Vec<Case>,
    /// The edge falling out of the last case lowered, if it does.
    fallthrough: Option<Incoming>,
    /// The value of the case being lowered (`None` for `DEFAULT`).
    value: Option<Operand>,
}

/// A subroutine call being inlined.
struct Call {
    /// `vars.mark()` at the call, when the body is inlined inside a
    /// once-loop (it returns early).
    once_loop: Option<usize>,
    /// Where the caller's walk goes on after the call.
    caller_pc: usize,
    /// The index of the `CAL`.
    call_pc: usize,
}

/// The next part of a construct to walk, if it has one left.
type Next<'a> = Option<(Open<'a>, Run)>;

/// Where a walk over a run of instructions came to.
enum Walked<'a> {
    /// The run ended.
    Stopped(Stop),
    /// A construct or call began; the walk goes on in this part of it.
    Opened(Open<'a>, Run),
}

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
}

#[derive(Clone, Copy, PartialEq, Eq, Hash)]
enum HoistKey {
    Initial,
    Undef,
    Const(u64, bool),
    Read(Source),
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
        };
        b.find_arrays(&temp_decls, shader)?;
        Ok(b)
    }

    fn error(&self, message: impl Into<String>) -> BuildError {
        BuildError { inst: Some(self.pc), message: message.into() }
    }

    /// Decides which registers live in memory: those indirectly addressed.
    fn find_arrays(&mut self, temp_decls: &[tgsi::Declaration], shader: &tgsi::Shader) -> Result<(), BuildError> {
        let mut whole_file = [false, false]; // TEMP, OUT
        let mut named: Vec<u16> = Vec::new();
        for inst in shader.instructions() {
            let regs = inst.dst.iter().map(|d| d.reg).chain(inst.src.iter().map(|s| s.reg));
            for reg in regs {
                let slot = match reg.file {
                    File::Temporary => 0,
                    File::Output => 1,
                    _ => continue,
                };
                if let Some(ind) = reg.indirect {
                    if slot == 0 && ind.array_id != 0 {
                        if !named.contains(&ind.array_id) {
                            named.push(ind.array_id);
                        }
                    } else {
                        whole_file[slot] = true;
                    }
                }
            }
        }
        let add = |b: &mut Self, file: File, first: u32, last: u32, array_id: Option<u16>| {
            let array = b.func.arrays.push(ArrayData { file, first, len: last - first + 1, array_id });
            b.arrays.push((file, first, last, array));
        };
        if whole_file[0] {
            let first = temp_decls.iter().map(|d| d.first as u32).min().unwrap_or(0);
            let last = temp_decls.iter().map(|d| d.last as u32).max().unwrap_or(0);
            add(self, File::Temporary, first, last, None);
        } else {
            for id in named {
                let decl = temp_decls.iter().find(|d| d.array_id == Some(id)).ok_or_else(|| BuildError {
                    inst: None,
                    message: format!("an indirect access names TEMP array {id}, which is not declared"),
                })?;
                add(self, File::Temporary, decl.first as u32, decl.last as u32, Some(id));
            }
        }
        if whole_file[1] {
            let outs = shader.declarations().filter(|d| d.file == File::Output);
            let (first, last) = outs.fold((u32::MAX, 0), |(f, l), d| (f.min(d.first as u32), l.max(d.last as u32)));
            if first <= last {
                add(self, File::Output, first, last, None);
            }
        }
        Ok(())
    }

    /// The memory array holding `file[index]`, if it is kept in memory.
    fn array_of(&self, file: File, index: i64) -> Option<(Array, u32)> {
        self.arrays
            .iter()
            .find(|&&(f, first, last, _)| f == file && (first as i64..=last as i64).contains(&index))
            .map(|&(_, first, _, a)| (a, first))
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

    // ----- blocks and regions -----

    fn append(&mut self, inst: Inst) {
        self.func.blocks[self.cur].insts.push(inst);
    }

    /// Adds an instruction to the current block; returns its first result.
    fn emit(&mut self, op: Op, args: &[Operand], ty: Ty) -> Value {
        let origin = Origin { inst: Some(self.pc as u32), dst: None };
        let inst = self.func.add_inst(op, args, &[ty], origin);
        self.append(inst);
        self.func.result(inst)
    }

    /// A constant, placed once in the entry block.
    fn constant(&mut self, bits: u64, ty: Ty) -> Value {
        let key = HoistKey::Const(bits, ty == Ty::B64);
        if let Some(&v) = self.hoist_cache.get(&key) {
            return v;
        }
        let inst = self.func.add_inst(Op::Const(bits), &[], &[ty], Origin::default());
        self.hoisted.push(inst);
        let v = self.func.result(inst);
        self.hoist_cache.insert(key, v);
        v
    }

    fn zero(&mut self) -> Value {
        self.constant(0, Ty::B32)
    }

    /// The value of a never-written register channel.
    fn initial(&mut self) -> Value {
        self.hoisted_value(HoistKey::Initial, Op::Initial)
    }

    /// The value of a channel nothing reads.
    pub(super) fn undef(&mut self) -> Value {
        self.hoisted_value(HoistKey::Undef, Op::Undef)
    }

    fn hoisted_value(&mut self, key: HoistKey, op: Op) -> Value {
        if let Some(&v) = self.hoist_cache.get(&key) {
            return v;
        }
        let inst = self.func.add_inst(op, &[], &[Ty::B32], Origin::default());
        self.hoisted.push(inst);
        let v = self.func.result(inst);
        self.hoist_cache.insert(key, v);
        v
    }

    /// A direct read of an input, constant or system value, placed once.
    fn read(&mut self, source: Source) -> Value {
        let key = HoistKey::Read(source);
        if let Some(&v) = self.hoist_cache.get(&key) {
            return v;
        }
        let inst = self.func.add_inst(Op::Read(source), &[], &[Ty::B32], Origin::default());
        self.hoisted.push(inst);
        let v = self.func.result(inst);
        self.hoist_cache.insert(key, v);
        v
    }

    fn new_block(&mut self) -> Block {
        self.func.blocks.push(BlockData::default())
    }

    /// Starts a new region whose first block is `b`.
    fn open_region(&mut self, b: Block) {
        self.regions.push(vec![Node::Block(b)]);
        self.cur = b;
    }

    fn close_region(&mut self) -> Region {
        self.regions.pop().unwrap_or_default()
    }

    /// Appends a construct and the block that follows it; the new block
    /// becomes current.
    fn push_construct(&mut self, node: Node) -> Block {
        let next = self.new_block();
        if let Some(region) = self.regions.last_mut() {
            region.push(node);
            region.push(Node::Block(next));
        }
        self.cur = next;
        next
    }

    fn reaches_end(&self) -> bool {
        self.func.blocks[self.cur].exit == Exit::Fallthrough
    }

    // ----- variables -----

    /// The variables changed since `mark`, with their current values.
    fn capture(&self, mark: usize) -> State {
        self.vars.changed_since(mark).into_iter().map(|v| (v, self.vars.get(v))).collect()
    }

    fn var_value(&mut self, v: Var) -> Value {
        match self.vars.get(v) {
            Some(value) => value,
            None => self.initial(),
        }
    }

    fn write_var(&mut self, v: Var, value: Value) {
        let reg = self.vars.reg(v);
        if reg.file == File::Output && !self.outputs.contains(&v) {
            self.outputs.push(v);
        }
        self.vars.set(v, value);
    }

    /// Joins `incoming` states at block `at` (the state must already be
    /// rolled back to where the construct began). Sets every changed
    /// variable to its joined value, adding phis where the edges disagree.
    fn join(&mut self, at: Block, incoming: &[Incoming]) {
        if incoming.is_empty() {
            return;
        }
        let mut vars: Vec<Var> = Vec::new();
        for inc in incoming {
            for &(v, _) in &inc.state {
                if !vars.contains(&v) {
                    vars.push(v);
                }
            }
        }
        vars.sort();
        for v in vars {
            let before = self.vars.get(v);
            let values: SmallVec<[Option<Value>; 4]> = incoming
                .iter()
                .map(|inc| inc.state.iter().find(|&&(w, _)| w == v).map_or(before, |&(_, val)| val))
                .collect();
            let first = values[0];
            let joined = if values.iter().all(|&x| x == first) {
                first
            } else {
                let args: SmallVec<[Operand; 3]> = values
                    .iter()
                    .map(|&x| {
                        let value = match x {
                            Some(val) => val,
                            None => self.initial(),
                        };
                        Operand::new(value)
                    })
                    .collect();
                let preds = incoming.iter().map(|inc| inc.pred).collect();
                let origin = Origin { inst: None, dst: Some(self.vars.reg(v)) };
                let phi = self.func.add_inst(Op::Phi { preds }, &args, &[Ty::B32], origin);
                let position = self.phi_count(at);
                self.func.blocks[at].insts.insert(position, phi);
                self.phis.push(phi);
                Some(self.func.result(phi))
            };
            match joined {
                Some(val) if Some(val) != before => self.write_var(v, val),
                _ => {}
            }
        }
    }

    fn phi_count(&self, b: Block) -> usize {
        self.func.blocks[b].insts.iter().take_while(|&&i| matches!(self.func.insts[i].op, Op::Phi { .. })).count()
    }

    // ----- the walk -----

    /// Lowers the program: walks its instructions, and each part of each
    /// construct and inlined call met, keeping the constructs being lowered
    /// on a stack rather than recursing.
    fn walk_program(&mut self) -> Result<Stop, BuildError> {
        let mut pc = 0;
        let mut run = Run { stops: &[], main: true };
        // The constructs being lowered, innermost last, each with the run
        // it is in.
        let mut open: Vec<(Open<'a>, Run)> = Vec::new();
        loop {
            let stop = match self.walk(&mut pc, run)? {
                Walked::Stopped(stop) => stop,
                Walked::Opened(construct, inner) => {
                    open.push((construct, run));
                    run = inner;
                    continue;
                }
            };
            let Some((construct, outer)) = open.pop() else { return Ok(stop) };
            let next = match construct {
                Open::Then { inst, cond, mark } => self.end_then(inst, cond, mark, stop, outer.main)?,
                Open::Else(arms) => self.end_if(*arms),
                Open::Loop { mark } => self.end_loop(mark)?,
                Open::Switch(switching) => self.end_case(switching, stop, outer.main)?,
                Open::Call(call) => self.end_call(call, &mut pc)?,
            };
            run = match next {
                Some((construct, inner)) => {
                    open.push((construct, outer));
                    inner
                }
                None => outer,
            };
        }
    }

    /// Lowers instructions from `*pc` until one of the run's stops
    /// (consumed), the end of the list, or (in the main program) its END:
    /// [`Walked::Stopped`]. At a construct or call, lowers its start and
    /// returns the part of it to walk next.
    fn walk(&mut self, pc: &mut usize, run: Run) -> Result<Walked<'a>, BuildError> {
        let Run { stops, main } = run;
        while *pc < self.insts.len() {
            let inst = self.insts[*pc];
            self.pc = *pc;
            *pc += 1;
            let op = inst.opcode;
            if stops.contains(&op) {
                return Ok(Walked::Stopped(Stop::At(op)));
            }
            let next = match op {
                Opcode::If | Opcode::Uif => self.begin_if(inst, main)?,
                Opcode::Else | Opcode::Endif | Opcode::Endloop | Opcode::Case | Opcode::Default | Opcode::Endswitch => {
                    return Err(self.error(format!("{} without a matching opening instruction", op.name())));
                }
                Opcode::Bgnloop => self.begin_loop(*pc, main)?,
                Opcode::Switch => self.begin_switch(inst, pc, main)?,
                Opcode::Brk => {
                    self.lower_break()?;
                    return self.skip_unreachable(pc, stops).map(Walked::Stopped);
                }
                Opcode::Cont => {
                    self.lower_continue()?;
                    return self.skip_unreachable(pc, stops).map(Walked::Stopped);
                }
                Opcode::Ret if !self.calls.is_empty() => {
                    let Some(top) = self.breakables.last() else {
                        return Err(self.error("RET outside any subroutine loop"));
                    };
                    if !top.subroutine {
                        return Err(self.error("RET inside a loop or switch of a subroutine is not supported"));
                    }
                    self.lower_break()?;
                    return self.skip_unreachable(pc, stops).map(Walked::Stopped);
                }
                Opcode::End | Opcode::Ret => {
                    self.end_invocation();
                    if main && self.regions.len() == 1 && self.calls.is_empty() {
                        return Ok(Walked::Stopped(Stop::End));
                    }
                    return self.skip_unreachable(pc, stops).map(Walked::Stopped);
                }
                Opcode::Cal => self.begin_call(inst, pc)?,
                Opcode::Bgnsub | Opcode::Endsub | Opcode::Nop => None,
                _ => {
                    self.lower_instruction(inst)?;
                    None
                }
            };
            if let Some((construct, inner)) = next {
                return Ok(Walked::Opened(construct, inner));
            }
        }
        if stops.is_empty() {
            Ok(Walked::Stopped(Stop::End))
        } else {
            Err(BuildError {
                inst: None,
                message: format!(
                    "the program ends inside a construct (expected {})",
                    stops.iter().map(|o| o.name()).collect::<Vec<_>>().join(" or ")
                ),
            })
        }
    }

    /// After a jump, skips the unreachable rest of the current region up to
    /// one of `stops` (consumed), keeping nesting balanced.
    fn skip_unreachable(&mut self, pc: &mut usize, stops: &[Opcode]) -> Result<Stop, BuildError> {
        let mut depth = 0usize;
        while *pc < self.insts.len() {
            let op = self.insts[*pc].opcode;
            self.pc = *pc;
            *pc += 1;
            if depth == 0 && stops.contains(&op) {
                return Ok(Stop::At(op));
            }
            match op {
                Opcode::If | Opcode::Uif | Opcode::Bgnloop | Opcode::Switch => depth += 1,
                Opcode::Endif | Opcode::Endloop | Opcode::Endswitch => {
                    if depth == 0 {
                        return Err(self.error(format!("{} without a matching opening instruction", op.name())));
                    }
                    depth -= 1;
                }
                _ => {}
            }
        }
        Ok(Stop::End)
    }

    /// Stores the outputs and ends the invocation here. A geometry
    /// shader's outputs reach nothing but the vertices it emits (what it
    /// writes after its last `EMIT` goes to a vertex that is never
    /// emitted), so they are stored before each `EMIT` only.
    fn end_invocation(&mut self) {
        if self.processor != tgsi::Processor::Geometry {
            self.store_outputs();
        }
        self.func.blocks[self.cur].exit = Exit::Return;
    }

    /// Stores the current value of every output written so far.
    fn store_outputs(&mut self) {
        for v in self.outputs.clone() {
            let Some(value) = self.vars.get(v) else { continue };
            let reg = self.vars.reg(v);
            let origin = Origin { inst: Some(self.pc as u32), dst: Some(reg) };
            let inst = self.func.add_inst(
                Op::StoreOutput { index: reg.index, chan: reg.chan },
                &[Operand::new(value)],
                &[],
                origin,
            );
            self.append(inst);
        }
    }

    fn begin_if(&mut self, inst: &'a tgsi::Instruction, main: bool) -> Result<Next<'a>, BuildError> {
        let src = inst.src.first().ok_or_else(|| self.error("IF needs a condition"))?;
        let cond = self.src_scalar(src, 0, false)?;
        let mark = self.vars.mark();
        let then_start = self.new_block();
        self.open_region(then_start);
        Ok(Some((Open::Then { inst, cond, mark }, Run { stops: &[Opcode::Else, Opcode::Endif], main })))
    }

    /// The then-arm ended at `stop`: the else-arm is next.
    fn end_then(
        &mut self,
        inst: &tgsi::Instruction,
        cond: Operand,
        mark: usize,
        stop: Stop,
        main: bool,
    ) -> Result<Next<'a>, BuildError> {
        let then_end = (self.reaches_end()).then_some(self.cur);
        let then_state = self.capture(mark);
        self.vars.rollback(mark);
        let then_region = self.close_region();

        let else_start = self.new_block();
        self.open_region(else_start);
        let has_else = stop == Stop::At(Opcode::Else);
        let unsigned = inst.opcode == Opcode::Uif;
        let arms = IfArms { unsigned, cond, mark, then_end, then_state, then_region, has_else };
        if has_else {
            return Ok(Some((Open::Else(Box::new(arms)), Run { stops: &[Opcode::Endif], main })));
        }
        Ok(self.end_if(arms))
    }

    /// The else-arm ended (or there is none): the if is complete.
    fn end_if(&mut self, arms: IfArms) -> Next<'a> {
        let IfArms { unsigned, cond, mark, then_end, then_state, then_region, has_else } = arms;
        let else_end = (self.reaches_end()).then_some(self.cur);
        let else_state = self.capture(mark);
        self.vars.rollback(mark);
        let else_region = self.close_region();

        // One if built from its arms: not a walk.
        let node = IfNode { cond, unsigned, then_region, else_region, has_else };
        let merge = self.push_construct(Node::If(Box::new(node)));
        let mut incoming = Vec::new();
        if let Some(pred) = then_end {
            incoming.push(Incoming { pred, state: then_state });
        }
        if let Some(pred) = else_end {
            incoming.push(Incoming { pred, state: else_state });
        }
        self.join(merge, &incoming);
        None
    }

    fn begin_loop(&mut self, pc: usize, main: bool) -> Result<Next<'a>, BuildError> {
        let preheader = self.cur;
        let written = self.written_in_loop(pc)?;
        let mark = self.vars.mark();
        let header = self.new_block();
        let mut phis = Vec::with_capacity(written.len());
        for &v in &written {
            let origin = Origin { inst: None, dst: Some(self.vars.reg(v)) };
            let phi = self.func.add_inst(Op::Phi { preds: SmallVec::new() }, &[], &[Ty::B32], origin);
            self.func.blocks[header].insts.push(phi);
            self.phis.push(phi);
            let before = self.vars.get(v);
            let init = match before {
                Some(val) => val,
                None => self.initial(),
            };
            self.func.insts[phi].args.push(Operand::new(init));
            if let Op::Phi { preds } = &mut self.func.insts[phi].op {
                preds.push(preheader);
            }
            let value = self.func.result(phi);
            self.write_var(v, value);
            phis.push((v, phi));
        }
        self.breakables.push(Breakable {
            mark,
            breaks: Vec::new(),
            looping: Some(LoopInfo { phis, continues: Vec::new() }),
            subroutine: false,
        });
        self.open_region(header);
        Ok(Some((Open::Loop { mark }, Run { stops: &[Opcode::Endloop], main })))
    }

    /// The body of a loop ended: the loop is complete.
    fn end_loop(&mut self, mark: usize) -> Result<Next<'a>, BuildError> {
        if self.reaches_end() {
            // The latch: the body's end flows back to the header.
            self.record_continue();
        }
        let body = self.close_region();
        let ctx = self.breakables.pop().ok_or_else(|| self.error("loop context lost"))?;
        self.finish_loop_phis(&ctx);
        self.vars.rollback(mark);
        // One loop built from its body: not a walk.
        let exit = self.push_construct(Node::Loop(Box::new(LoopNode { body })));
        self.join(exit, &ctx.breaks);
        Ok(None)
    }

    /// Fills the header phis of a loop from its CONT and latch edges.
    fn finish_loop_phis(&mut self, ctx: &Breakable) {
        let Some(info) = &ctx.looping else { return };
        for &(v, phi) in &info.phis {
            let header_value = self.func.result(phi);
            for inc in &info.continues {
                let value = inc.state.iter().find(|&&(w, _)| w == v).map_or(Some(header_value), |&(_, val)| val);
                let value = match value {
                    Some(val) => val,
                    None => self.initial(),
                };
                self.func.insts[phi].args.push(Operand::new(value));
                if let Op::Phi { preds } = &mut self.func.insts[phi].op {
                    preds.push(inc.pred);
                }
            }
        }
    }

    /// Records the current block as an edge back to the innermost loop's
    /// header.
    fn record_continue(&mut self) {
        let cur = self.cur;
        let Some(idx) = self.breakables.iter().rposition(|b| b.looping.is_some()) else { return };
        let mark = self.breakables[idx].mark;
        let state = self.capture(mark);
        if let Some(info) = &mut self.breakables[idx].looping {
            info.continues.push(Incoming { pred: cur, state });
        }
    }

    fn lower_break(&mut self) -> Result<(), BuildError> {
        let cur = self.cur;
        let Some(top) = self.breakables.last() else {
            return Err(self.error("BRK outside a loop or switch"));
        };
        if top.subroutine && self.insts[self.pc].opcode == Opcode::Brk {
            return Err(self.error("BRK outside a loop or switch of its subroutine"));
        }
        let state = self.capture(top.mark);
        if let Some(top) = self.breakables.last_mut() {
            top.breaks.push(Incoming { pred: cur, state });
        }
        self.func.blocks[cur].exit = Exit::Break;
        Ok(())
    }

    fn lower_continue(&mut self) -> Result<(), BuildError> {
        match self.breakables.iter().rev().find(|b| b.looping.is_some()) {
            None => return Err(self.error("CONT outside a loop")),
            Some(b) if b.subroutine => return Err(self.error("CONT outside a loop of its subroutine")),
            Some(_) => {}
        }
        if self.breakables.last().is_some_and(|b| b.looping.is_none()) {
            return Err(self.error("CONT inside a switch is not supported"));
        }
        self.record_continue();
        self.func.blocks[self.cur].exit = Exit::Continue;
        Ok(())
    }

    /// The variables an instruction range starting at `pc` (a loop body up
    /// to its ENDLOOP) may write, including through subroutine calls.
    fn written_in_loop(&mut self, pc: usize) -> Result<Vec<Var>, BuildError> {
        let mut out = Vec::new();
        let mut depth = 0usize;
        let mut i = pc;
        let mut visited_subs = Vec::new();
        while i < self.insts.len() {
            let inst = self.insts[i];
            match inst.opcode {
                Opcode::Bgnloop => depth += 1,
                Opcode::Endloop if depth == 0 => break,
                Opcode::Endloop => depth -= 1,
                _ => {}
            }
            self.collect_writes(inst, &mut out, &mut visited_subs)?;
            i += 1;
        }
        out.sort();
        out.dedup();
        Ok(out)
    }

    /// Adds the variables `inst` writes to `out`, and for a `CAL` those of
    /// the subroutine (once per subroutine, in `visited_subs`).
    fn collect_writes(
        &mut self,
        inst: &tgsi::Instruction,
        out: &mut Vec<Var>,
        visited_subs: &mut Vec<usize>,
    ) -> Result<(), BuildError> {
        // Where the scan is in each subroutine called, innermost last:
        // nested calls need no recursion.
        let mut bodies: Vec<usize> = Vec::new();
        let mut next = Some(inst);
        while let Some(inst) = next {
            if inst.opcode == Opcode::Cal {
                let start = inst.label.unwrap_or(0) as usize;
                if !visited_subs.contains(&start) {
                    visited_subs.push(start);
                    bodies.push(start + 1);
                }
            } else {
                self.collect_dst_writes(inst, out);
            }
            next = None;
            while let Some(i) = bodies.last_mut() {
                match self.insts.get(*i) {
                    Some(&sub_inst) if sub_inst.opcode != Opcode::Endsub => {
                        *i += 1;
                        next = Some(sub_inst);
                        break;
                    }
                    _ => {
                        bodies.pop();
                    }
                }
            }
        }
        Ok(())
    }

    /// Adds the variables the destinations of `inst` write to `out`.
    fn collect_dst_writes(&mut self, inst: &tgsi::Instruction, out: &mut Vec<Var>) {
        for (d, dst) in inst.dst.iter().enumerate() {
            let reg = dst.reg;
            if !matches!(reg.file, File::Temporary | File::Output | File::Address) || reg.indirect.is_some() {
                continue;
            }
            if self.array_of(reg.file, reg.index as i64).is_some() {
                continue;
            }
            let mask = lower::written_channels(inst, d);
            for c in 0..4u8 {
                if mask & (1 << c) != 0 {
                    out.push(self.vars.var(reg.file, reg.index as u32, c));
                }
            }
        }
        // Outputs are stored before EMIT and at exits, which only read.
    }

    fn begin_switch(&mut self, inst: &tgsi::Instruction, pc: &mut usize, main: bool) -> Result<Next<'a>, BuildError> {
        let src = inst.src.first().ok_or_else(|| self.error("SWITCH needs a selector"))?;
        let selector = self.src_scalar(src, 0, false)?;
        let dispatch = self.cur;
        let mark = self.vars.mark();
        self.breakables.push(Breakable { mark, breaks: Vec::new(), looping: None, subroutine: false });

        // The first CASE or DEFAULT.
        let label = loop {
            let Some(&next) = self.insts.get(*pc) else {
                return Err(self.error("SWITCH without ENDSWITCH"));
            };
            self.pc = *pc;
            *pc += 1;
            match next.opcode {
                Opcode::Case | Opcode::Default | Opcode::Endswitch => break next,
                Opcode::Nop => {}
                other => return Err(self.error(format!("{} before the first CASE of a SWITCH", other.name()))),
            }
        };
        let switching = Switching { selector, dispatch, mark, cases: Vec::new(), fallthrough: None, value: None };
        self.next_case(Box::new(switching), label, main)
    }

    /// Starts the case `label` opens, or completes the switch at its
    /// `ENDSWITCH`.
    fn next_case(
        &mut self,
        mut switching: Box<Switching>,
        label: &tgsi::Instruction,
        main: bool,
    ) -> Result<Next<'a>, BuildError> {
        if label.opcode == Opcode::Endswitch {
            self.end_switch(*switching)?;
            return Ok(None);
        }
        let value = if label.opcode == Opcode::Case {
            let src = label.src.first().ok_or_else(|| self.error("CASE needs a value"))?;
            if matches!(src.reg.file, File::Temporary | File::Output | File::Address) {
                return Err(self.error("a CASE value from a register is not supported (use an immediate)"));
            }
            Some(self.src_scalar(src, 0, false)?)
        } else {
            None
        };
        let start = self.new_block();
        self.open_region(start);
        let mut incoming = vec![Incoming { pred: switching.dispatch, state: Vec::new() }];
        if let Some(f) = switching.fallthrough.take() {
            incoming.push(f);
        }
        self.join(start, &incoming);
        switching.value = value;
        Ok(Some((Open::Switch(switching), Run { stops: &[Opcode::Case, Opcode::Default, Opcode::Endswitch], main })))
    }

    /// A case ended at `stop`: the next case is next.
    fn end_case(&mut self, mut switching: Box<Switching>, stop: Stop, main: bool) -> Result<Next<'a>, BuildError> {
        if self.reaches_end() {
            switching.fallthrough = Some(Incoming { pred: self.cur, state: self.capture(switching.mark) });
        }
        self.vars.rollback(switching.mark);
        let body = self.close_region();
        switching.cases.push(Case { value: switching.value.take(), body });
        let label = match stop {
            Stop::At(_) => self.insts[self.pc],
            Stop::End => return Err(self.error("SWITCH without ENDSWITCH")),
        };
        self.next_case(switching, label, main)
    }

    /// Every case is lowered: the switch is complete.
    fn end_switch(&mut self, switching: Switching) -> Result<(), BuildError> {
        let Switching { selector, dispatch, cases, fallthrough, .. } = switching;
        let ctx = self.breakables.pop().ok_or_else(|| self.error("switch context lost"))?;
        let has_default = cases.iter().any(|c| c.value.is_none());
        // One switch built from its cases: not a walk.
        let exit = self.push_construct(Node::Switch(Box::new(SwitchNode { selector, cases })));
        let mut incoming = ctx.breaks;
        if let Some(f) = fallthrough {
            incoming.push(f);
        }
        if !has_default {
            incoming.push(Incoming { pred: dispatch, state: Vec::new() });
        }
        self.join(exit, &incoming);
        Ok(())
    }

    fn begin_call(&mut self, inst: &tgsi::Instruction, pc: &mut usize) -> Result<Next<'a>, BuildError> {
        let start = inst.label.ok_or_else(|| self.error("CAL needs a label"))? as usize;
        if self.insts.get(start).map(|i| i.opcode) != Some(Opcode::Bgnsub) {
            return Err(self.error(format!("CAL :{start} does not name a BGNSUB")));
        }
        if self.calls.contains(&start) {
            return Err(self.error("recursive subroutine calls cannot be inlined"));
        }
        // Where the body ends, and whether it returns early.
        let mut end = start + 1;
        let mut early_return = false;
        while end < self.insts.len() && self.insts[end].opcode != Opcode::Endsub {
            let next_is_end = self.insts.get(end + 1).is_some_and(|i| i.opcode == Opcode::Endsub);
            if self.insts[end].opcode == Opcode::Ret && !next_is_end {
                early_return = true;
            }
            end += 1;
        }
        let call_pc = self.pc;
        self.calls.push(start);
        // The body is walked from its start; the caller goes on after.
        let caller_pc = std::mem::replace(pc, start + 1);
        if !early_return {
            let call = Call { once_loop: None, caller_pc, call_pc };
            return Ok(Some((Open::Call(call), Run { stops: &[Opcode::Endsub, Opcode::Ret], main: false })));
        }
        let mark = self.vars.mark();
        let header = self.new_block();
        // A loop that never loops: it needs no header phis.
        let looping = Some(LoopInfo { phis: Vec::new(), continues: Vec::new() });
        self.breakables.push(Breakable { mark, breaks: Vec::new(), looping, subroutine: true });
        self.open_region(header);
        let call = Call { once_loop: Some(mark), caller_pc, call_pc };
        Ok(Some((Open::Call(call), Run { stops: &[Opcode::Endsub], main: false })))
    }

    /// The body of an inlined subroutine ended: the call is complete.
    fn end_call(&mut self, call: Call, pc: &mut usize) -> Result<Next<'a>, BuildError> {
        *pc = call.caller_pc;
        if let Some(mark) = call.once_loop {
            if self.reaches_end() {
                self.lower_break()?;
            }
            let body = self.close_region();
            let ctx = self.breakables.pop().ok_or_else(|| self.error("subroutine context lost"))?;
            self.vars.rollback(mark);
            // One loop built from the body: not a walk.
            let exit = self.push_construct(Node::Loop(Box::new(LoopNode { body })));
            self.join(exit, &ctx.breaks);
        }
        self.calls.pop();
        self.pc = call.call_pc;
        Ok(None)
    }

    /// Replaces phis whose arguments are all one value (or the phi itself)
    /// by that value, until none is left, and rewrites every use.
    fn remove_trivial_phis(&mut self) {
        let mut replace: SecondaryMap<Value, Value> = SecondaryMap::default();
        fn resolve(map: &SecondaryMap<Value, Value>, mut v: Value) -> Value {
            while let Some(&next) = map.get(&v) {
                v = next;
            }
            v
        }
        loop {
            let mut changed = false;
            for &phi in &self.phis {
                let result = self.func.result(phi);
                if replace.contains_key(&result) {
                    continue;
                }
                let mut same: Option<Value> = None;
                let mut trivial = true;
                for arg in &self.func.insts[phi].args {
                    let a = resolve(&replace, arg.value);
                    if a == result || Some(a) == same {
                        continue;
                    }
                    if same.is_some() {
                        trivial = false;
                        break;
                    }
                    same = Some(a);
                }
                if trivial {
                    if let Some(s) = same {
                        replace.insert(result, s);
                        changed = true;
                    }
                }
            }
            if !changed {
                break;
            }
        }
        if replace.is_empty() {
            return;
        }
        for (_, data) in self.func.insts.iter_mut() {
            for arg in &mut data.args {
                arg.value = resolve(&replace, arg.value);
            }
        }
        let mut dead: SecondaryMap<Inst, ()> = SecondaryMap::default();
        for &p in self.phis.iter().filter(|&&p| replace.contains_key(&self.func.result(p))) {
            dead.insert(p, ());
        }
        for (_, block) in self.func.blocks.iter_mut() {
            block.insts.retain(|i| !dead.contains_key(i));
        }
        replace_in_tree(&mut self.func.body, &replace, resolve);
    }
}

/// Rewrites the operands held by the tree (conditions, selectors, cases).
fn replace_in_tree(
    region: &mut Region,
    map: &SecondaryMap<Value, Value>,
    resolve: fn(&SecondaryMap<Value, Value>, Value) -> Value,
) {
    crate::walk::for_each_region_post_order_mut(region, |r| {
        for op in r.iter_mut().flat_map(Node::operands_mut) {
            op.value = resolve(map, op.value);
        }
    });
}
