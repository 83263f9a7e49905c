//! A module's code compiled once into steps over value slots, so running it
//! looks nothing up: every value is a slot of 32-bit lanes (a 64-bit value
//! two, its low half then its high half, see [`Slots`]), every block a
//! list of steps, and phis become copies at the end of their predecessors.
//! The control-flow tree becomes a flat list ([`Control`]).

use ir::function::{Block, Exit, Function, InstData, Module, Op, Operand, Source, Ty, Value};
use ir::walk::{walk, ConstructRef, Event, RegionKind};
use ir::EntityRef;
use smallvec::SmallVec;
use tgsi::{File, Opcode, OperandType, Processor, PropertyName, SemanticName};

use crate::geometry::Layout;
use crate::kernel::Kernel;
use crate::memory::{self, Access, Usage};
use crate::run::ExecError;

/// An operand: a slot with TGSI's source modifiers.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Arg {
    pub slot: u32,
    pub neg: bool,
    pub abs: bool,
    /// A 64-bit value: `slot` holds its low half, `slot + 1` its high half.
    pub wide: bool,
}

impl Arg {
    /// The operand's value in `lane` of a batch's `slots` (slot-major, `w`
    /// lanes a slot), read as `ty` with its modifiers; both halves of a
    /// 64-bit value. A slot outside the batch reads zero.
    pub fn lane_value(&self, slots: &[u32], w: usize, ty: OperandType, lane: usize) -> u64 {
        let get = |slot: u32| slots.get(slot as usize * w + lane).copied().unwrap_or(0) as u64;
        let v = if self.wide { get(self.slot) | get(self.slot + 1) << 32 } else { get(self.slot) };
        if self.neg || self.abs {
            semantics::apply_modifiers(ty, v, self.neg, self.abs)
        } else {
            v
        }
    }
}

/// Where each value's lanes are kept: one slot of 32-bit lanes per value,
/// two in a row for a 64-bit value (low half, then high half). 32-bit
/// columns let the batch loops do twice the lanes per vector instruction.
///
/// The operands and results of a run of one ALU opcode (the channels of a
/// TGSI instruction) get slots side by side where they can, so that the
/// run is one step over consecutive slots (see [`join_channels`]).
#[derive(Debug)]
pub(crate) struct Slots {
    first: Vec<u32>,
    wide: Vec<bool>,
    count: u32,
}

impl Slots {
    pub fn new(func: &Function) -> Slots {
        let wide: Vec<bool> = func.values.iter().map(|(_, data)| data.ty == Ty::B64).collect();
        let mut placed: Vec<Option<u32>> = vec![None; wide.len()];
        let mut count = 0;
        for (_, block) in func.blocks.iter() {
            let insts: SmallVec<[&InstData; 16]> = block.insts.iter().map(|&i| &func.insts[i]).collect();
            let runs = insts.chunk_by(|a, b| same_alu(a, b)).flat_map(|run| run.chunks(MAX_WIDTH as usize));
            for run in runs.filter(|run| run.len() > 1) {
                // Each operand's values across the run, then its results.
                let operands = (0..run[0].args.len()).map(|k| run.iter().map(|d| Some(d.args.get(k)?.value)).collect());
                let results = run.iter().map(|d| d.results.first().copied()).collect();
                for values in operands.chain([results]) {
                    let Some(values): Option<SmallVec<[Value; 4]>> = values else { continue };
                    // Side by side only when none has a slot yet, all are
                    // 32-bit and no two are the same value.
                    let free = |v: &Value| placed.get(v.index()) == Some(&None) && !wide[v.index()];
                    let distinct = values.iter().enumerate().all(|(i, v)| !values[..i].contains(v));
                    if values.iter().all(free) && distinct {
                        for v in values {
                            placed[v.index()] = Some(count);
                            count += 1;
                        }
                    }
                }
            }
        }
        // Every other value after them, in order.
        let first = placed
            .iter()
            .zip(&wide)
            .map(|(slot, &w)| {
                slot.unwrap_or_else(|| {
                    count += 1 + w as u32;
                    count - 1 - w as u32
                })
            })
            .collect();
        Slots { first, wide, count }
    }

    /// The (first) slot of `v`.
    pub fn of(&self, v: Value) -> u32 {
        self.first.get(v.index()).copied().unwrap_or(0)
    }

    pub fn is_wide(&self, v: Value) -> bool {
        self.wide.get(v.index()).copied().unwrap_or(false)
    }

    /// `op` as an operand, with its own modifiers.
    pub fn arg(&self, op: &Operand) -> Arg {
        Arg { slot: self.of(op.value), neg: op.neg, abs: op.abs, wide: self.is_wide(op.value) }
    }

    /// `op` as an operand of an instruction the IR keeps whole, with the
    /// negate and absolute value of the TGSI source it reads added.
    pub fn source_arg(&self, op: &Operand, (neg, abs): (bool, bool)) -> Arg {
        let a = self.arg(op);
        Arg { neg: neg || a.neg, abs: abs || a.abs, ..a }
    }

    /// The channels of `write_mask`, each with the slot of its result
    /// (`results` holds one value per written channel, in channel order).
    pub fn written(&self, write_mask: u8, results: &[Value]) -> SmallVec<[(u8, u32); 4]> {
        (0..4u8).filter(|c| write_mask & (1 << c) != 0).zip(results.iter().map(|&v| self.of(v))).collect()
    }
}

/// A value that does not depend on the path a lane takes: a constant or
/// a direct read of an input, constant or system value. A batch sets all
/// of them for every lane when it starts, so the blocks never do.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Fill {
    Bits(u32),
    /// The `k`-th entry of [`Program::const_reads`], looked up once per run.
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

/// What a texture instruction asks of the sampler.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum TexOp {
    /// Sample at (s, t): TEX, TXB, TXL, TXD and the SAMPLE family (one
    /// level, so bias, level and derivatives do not change the result).
    Sample,
    /// TXP: sample at (s/q, t/q).
    Project,
    /// TXF: the texel at integer (x, y).
    Fetch,
    /// TXQ, SVIEWINFO: (width, height, 0, levels).
    Query,
    /// TXQS, SAMPLE_INFO: the sample count, (1, 0, 0, 0): every texture and
    /// render target here has one sample.
    SampleCount,
    /// SAMPLE_POS: (0, 0, 0, 0) without per-sample shading.
    SamplePosition,
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
    /// [`join_channels`]).
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
        /// [`Program::outputs`]); `None` for an undeclared index.
        declared: Option<u32>,
    },
    Texture {
        op: TexOp,
        unit: u32,
        coords: [Arg; 4],
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

/// One step of a module's control flow. The tree is compiled to a flat
/// list that a batch runs with a program counter and stacks of lane masks,
/// so nesting costs no call stack. A `skip` is where control goes when no
/// lane is active at the node: the end of its region.
#[derive(Clone, Debug)]
pub(crate) enum Control {
    /// Runs a block, then leaves it by its exit.
    Block { block: Block, skip: usize },
    /// An if: the lanes taking the else-arm wait while the then-arm runs.
    If { cond: u32, unsigned: bool, skip: usize },
    /// The then-arm ended: its lanes wait while the else-arm's run.
    Else,
    /// The else-arm ended: the lanes leaving both arms go on together.
    EndIf,
    /// A loop starts.
    Loop { skip: usize },
    /// A loop body ended: the lanes reaching its end or continuing run it
    /// again from `body`; once none do, those that broke out go on.
    EndLoop { body: usize },
    /// A switch sorts the lanes into its cases (a `None` value is
    /// `DEFAULT`); none runs until the first case starts.
    Switch { selector: u32, values: Vec<Option<u32>>, skip: usize },
    /// A case starts: the lanes entering it join those falling through.
    Case,
    /// A switch ended: the lanes falling out of the last case, those that
    /// broke out and those no case took (without `DEFAULT`) go on.
    EndSwitch,
}

impl Control {
    fn set_skip(&mut self, to: usize) {
        match self {
            Control::Block { skip, .. }
            | Control::If { skip, .. }
            | Control::Loop { skip, .. }
            | Control::Switch { skip, .. } => *skip = to,
            _ => {}
        }
    }
}

/// Compiles the tree of `func` into a [`Control`] list, and marks the
/// blocks it holds in `in_tree`.
fn compile_control(func: &Function, slots: &Slots, in_tree: &mut [bool]) -> Vec<Control> {
    let mut code: Vec<Control> = Vec::new();
    // The nodes of each region being walked, to skip to its end.
    let mut nodes: Vec<Vec<usize>> = Vec::new();
    // Where each loop body being walked starts.
    let mut bodies: Vec<usize> = Vec::new();
    for event in walk(&func.body) {
        match event {
            Event::EnterRegion(r) => {
                match r.kind {
                    RegionKind::Case(_) => code.push(Control::Case),
                    RegionKind::LoopBody => bodies.push(code.len()),
                    _ => {}
                }
                nodes.push(Vec::new());
            }
            Event::Block(block, _) => {
                if let Some(m) = in_tree.get_mut(block.index()) {
                    *m = true;
                }
                if let Some(n) = nodes.last_mut() {
                    n.push(code.len());
                }
                code.push(Control::Block { block, skip: 0 });
            }
            Event::Enter(construct, _) => {
                if let Some(n) = nodes.last_mut() {
                    n.push(code.len());
                }
                code.push(match construct {
                    ConstructRef::If(n) => Control::If { cond: slots.of(n.cond.value), unsigned: n.unsigned, skip: 0 },
                    ConstructRef::Loop(_) => Control::Loop { skip: 0 },
                    ConstructRef::Switch(n) => Control::Switch {
                        selector: slots.of(n.selector.value),
                        values: n.cases.iter().map(|c| c.value.map(|v| slots.of(v.value))).collect(),
                        skip: 0,
                    },
                });
            }
            Event::LeaveRegion(r) => {
                let end = code.len();
                for i in nodes.pop().unwrap_or_default() {
                    code[i].set_skip(end);
                }
                match r.kind {
                    RegionKind::Then => code.push(Control::Else),
                    RegionKind::Else => code.push(Control::EndIf),
                    RegionKind::LoopBody => code.push(Control::EndLoop { body: bodies.pop().unwrap_or(end) }),
                    RegionKind::Root | RegionKind::Case(_) => {}
                }
            }
            Event::Leave(construct, _) => {
                if let ConstructRef::Switch(_) = construct {
                    code.push(Control::EndSwitch);
                }
            }
        }
    }
    code
}

/// A compiled module.
#[derive(Debug)]
pub(crate) struct Program {
    /// The control flow.
    pub control: Vec<Control>,
    pub steps: Vec<Vec<Step>>,
    pub exits: Vec<Exit>,
    /// The slots set when a batch starts.
    pub fills: Vec<(u32, Fill)>,
    pub slots: usize,
    /// Slots a batch clears when it starts: the operands of derivatives,
    /// which read lanes that may not have written them.
    pub cleared: Vec<u32>,
    /// Length in registers of each array.
    pub arrays: Vec<u32>,
    /// The immediates, for indirect reads.
    pub immediates: Vec<[u32; 4]>,
    /// Every direct constant read: (buffer, index, channel).
    pub const_reads: Vec<(u32, u32, u8)>,
    /// The declared semantic of each system value register, for indirect
    /// reads.
    pub sv_names: Vec<Option<SemanticName>>,
    /// Every declared OUT index, ascending.
    pub outputs: Vec<u32>,
    pub processor: Processor,
    /// The compute block size the CS_FIXED_BLOCK_* properties fix.
    pub block_size: Option<[u32; 3]>,
    /// What `EMIT` snapshots, and how many vertices it may add.
    pub geometry: Layout,
    /// Whether the module touches or writes memory or waits at barriers.
    pub memory: Usage,
}

impl Program {
    pub fn compile(module: &Module) -> Result<Program, ExecError> {
        let func = &module.function;
        let slots = Slots::new(func);
        let sv_names = system_value_names(module);
        let outputs = output_registers(module);
        let mut steps: Vec<Vec<Step>> = vec![Vec::new(); func.blocks.len()];
        let mut copies: Vec<Vec<(u32, u32)>> = vec![Vec::new(); func.blocks.len()];
        let mut in_tree = vec![false; func.blocks.len()];
        let mut const_reads = Vec::new();
        let mut fills = Vec::new();
        let control = compile_control(func, &slots, &mut in_tree);
        for (b, block) in func.blocks.iter() {
            if !in_tree[b.index()] {
                continue;
            }
            for &inst in &block.insts {
                let data = &func.insts[inst];
                if let Op::Phi { preds } = &data.op {
                    let dst = data.results[0];
                    for (arg, pred) in data.args.iter().zip(preds) {
                        if let Some(list) = copies.get_mut(pred.index()) {
                            let (d, a) = (slots.of(dst), slots.of(arg.value));
                            list.push((d, a));
                            if slots.is_wide(dst) {
                                list.push((d + 1, a + 1));
                            }
                        }
                    }
                    continue;
                }
                match compile_inst(module, func, &slots, inst, &sv_names, &outputs, &mut const_reads)? {
                    Compiled::Steps(list) => steps[b.index()].extend(list),
                    Compiled::Fills(list) => fills.extend(list),
                    Compiled::Nothing => {}
                }
            }
        }
        steps.iter_mut().for_each(join_channels);
        for (b, list) in copies.into_iter().enumerate() {
            if !list.is_empty() {
                steps[b].push(Step::Copies(list));
            }
        }
        let memory =
            Usage { accesses: steps.iter().flatten().any(|s| matches!(s, Step::Memory(_))), ..Usage::of(module) };
        let mut cleared: Vec<u32> = steps
            .iter()
            .flatten()
            .filter_map(|step| match step {
                Step::Deriv { arg, .. } => Some(arg.slot),
                _ => None,
            })
            .collect();
        cleared.sort_unstable();
        cleared.dedup();
        Ok(Program {
            control,
            steps,
            fills,
            exits: func.blocks.iter().map(|(_, d)| d.exit).collect(),
            slots: slots.count as usize,
            cleared,
            arrays: func.arrays.iter().map(|(_, a)| a.len).collect(),
            immediates: module.immediates.iter().map(|imm| imm.data).collect(),
            const_reads,
            sv_names,
            geometry: Layout::new(module, outputs.clone()),
            outputs,
            processor: module.processor,
            block_size: block_size(module),
            memory,
        })
    }

    pub fn block(&self, b: Block) -> &[Step] {
        &self.steps[b.index()]
    }

    pub fn exit(&self, b: Block) -> Exit {
        self.exits[b.index()]
    }
}

/// The most slots one ALU step computes: a whole TGSI register.
pub(crate) const MAX_WIDTH: u32 = 4;

/// Joins runs of ALU steps that run one batch loop over consecutive
/// slots into one step over all of them. The channels of a TGSI
/// instruction are such a run when [`Slots::new`] could put their values
/// side by side, so an `ADD` of whole registers loops once over four
/// slots' lanes instead of four times over one's.
fn join_channels(steps: &mut Vec<Step>) {
    let mut joined: Vec<Step> = Vec::with_capacity(steps.len());
    for step in steps.drain(..) {
        if !joined.last_mut().is_some_and(|last| join(last, &step)) {
            joined.push(step);
        }
    }
    *steps = joined;
}

/// Joins `next` to `group` when `next` computes the slot after the
/// group's with the same loop and modifiers, each operand from the slot
/// after the group's operand, or from the same slot (a broadcast operand,
/// such as `IMM[0].xxxx`), and reads none of the group's results (the
/// joined step reads every operand before it writes). Returns whether it
/// did.
fn join(group: &mut Step, next: &Step) -> bool {
    let (
        Step::Alu { dst, width, broadcast, args, src_tys, sat, kernel, wide: false, .. },
        Step::Alu {
            dst: next_dst,
            width: 1,
            args: next_args,
            src_tys: next_tys,
            sat: next_sat,
            kernel: next_kernel,
            wide: false,
            ..
        },
    ) = (group, next)
    else {
        return false;
    };
    if *width >= MAX_WIDTH
        || *next_dst != *dst + *width
        || (&*kernel, &*sat, &*src_tys) != (next_kernel, next_sat, next_tys)
        || args.len() != next_args.len()
        // `broadcast` has a bit per operand.
        || args.len() > 32
    {
        return false;
    }
    let results = *dst..*dst + *width + 1;
    let mut joined = *broadcast;
    for (i, (a, b)) in args.iter().zip(next_args).enumerate() {
        // A second channel may start a broadcast; a broadcast operand
        // must stay one.
        let same = b.slot == a.slot && (*width == 1 || *broadcast & (1 << i) != 0);
        let next = b.slot == a.slot + *width && *broadcast & (1 << i) == 0;
        let read = if same { a.slot..a.slot + 1 } else { a.slot..a.slot + *width + 1 };
        let overlaps = read.start < results.end && results.start < read.end;
        if (a.neg, a.abs) != (b.neg, b.abs) || !(same || next) || overlaps {
            return false;
        }
        if same {
            joined |= 1 << i;
        }
    }
    *width += 1;
    *broadcast = joined;
    true
}

/// Whether `a` and `b` are the same ALU operation on the same number of
/// operands, each with one result.
fn same_alu(a: &InstData, b: &InstData) -> bool {
    matches!((&a.op, &b.op), (Op::Alu { opcode: x, .. }, Op::Alu { opcode: y, .. }) if x == y)
        && a.args.len() == b.args.len()
        && a.results.len() == 1
        && b.results.len() == 1
}

/// Every declared OUT register index, ascending.
fn output_registers(module: &Module) -> Vec<u32> {
    let mut regs: Vec<u32> = module
        .interface
        .iter()
        .filter_map(|item| match item {
            tgsi::Item::Declaration(d) if d.file == File::Output => Some(d.first as u32..=d.last as u32),
            _ => None,
        })
        .flatten()
        .collect();
    regs.sort_unstable();
    regs.dedup();
    regs
}

/// The block size CS_FIXED_BLOCK_WIDTH/HEIGHT/DEPTH fix, when all three
/// are given.
fn block_size(module: &Module) -> Option<[u32; 3]> {
    let mut fixed = [None; 3];
    for item in &module.interface {
        if let tgsi::Item::Property(p) = item {
            match p.name {
                PropertyName::CsFixedBlockWidth => fixed[0] = Some(p.value),
                PropertyName::CsFixedBlockHeight => fixed[1] = Some(p.value),
                PropertyName::CsFixedBlockDepth => fixed[2] = Some(p.value),
                _ => {}
            }
        }
    }
    match fixed {
        [Some(w), Some(h), Some(d)] => Some([w.max(1), h.max(1), d.max(1)]),
        _ => None,
    }
}

/// The semantic of every system value register, by index.
fn system_value_names(module: &Module) -> Vec<Option<SemanticName>> {
    let mut names = Vec::new();
    for item in &module.interface {
        if let tgsi::Item::Declaration(d) = item {
            if d.file == File::SystemValue {
                for i in d.first..=d.last {
                    let i = i as usize;
                    if names.len() <= i {
                        names.resize(i + 1, None);
                    }
                    names[i] = d.semantic.map(|s| s.name);
                }
            }
        }
    }
    names
}

/// What an instruction compiles to.
enum Compiled {
    Steps(SmallVec<[Step; 2]>),
    /// Slots set when a batch starts (two for a 64-bit constant).
    Fills(SmallVec<[(u32, Fill); 2]>),
    /// Phis (copies at the ends of their predecessors instead), and
    /// barriers, which a batch's lanes honour by running together.
    Nothing,
}

fn compile_inst(
    module: &Module,
    func: &Function,
    slots: &Slots,
    inst: ir::function::Inst,
    sv_names: &[Option<SemanticName>],
    outputs: &[u32],
    const_reads: &mut Vec<(u32, u32, u8)>,
) -> Result<Compiled, ExecError> {
    let data = &func.insts[inst];
    // Batch loops write a result's slot while they read the operands'.
    if data.args.iter().any(|a| data.results.contains(&a.value)) {
        return Err(ExecError::Malformed(format!("{inst} reads its own result")));
    }
    let slot = |v: Value| slots.of(v);
    let dst = data.results.first().map(|&v| slot(v));
    let wide_dst = data.results.first().is_some_and(|&v| slots.is_wide(v));
    let need_dst = || dst.ok_or_else(|| ExecError::Malformed(format!("{inst} has no result")));
    let arg = |i: usize| {
        data.args.get(i).map(|a| slot(a.value)).ok_or_else(|| ExecError::Malformed(format!("{inst} lacks operand {i}")))
    };
    // A value set when a batch starts; the high half of a 64-bit one too.
    let fill = |fill: Fill, hi: u32| -> Result<Compiled, ExecError> {
        let dst = need_dst()?;
        let mut list = SmallVec::from_slice(&[(dst, fill)]);
        if wide_dst {
            list.push((dst + 1, Fill::Bits(hi)));
        }
        Ok(Compiled::Fills(list))
    };
    let step = match &data.op {
        Op::Const(bits) => return fill(Fill::Bits(*bits as u32), (*bits >> 32) as u32),
        Op::Initial | Op::Undef => return fill(Fill::Bits(0), 0),
        Op::Read(s) => return fill(read_fill(module, s, sv_names, const_reads), 0),
        Op::Alu { opcode, chan } => {
            let info = opcode.info();
            let kind = match opcode {
                Opcode::Ddx => Some(Deriv::X),
                Opcode::Ddy => Some(Deriv::Y),
                Opcode::DdxFine => Some(Deriv::XFine),
                Opcode::DdyFine => Some(Deriv::YFine),
                _ => None,
            };
            if let Some(kind) = kind {
                let a = data.args.first().ok_or_else(|| ExecError::Malformed(format!("{inst} lacks its operand")))?;
                Step::Deriv { dst: need_dst()?, arg: slots.arg(a), kind, sat: data.saturate }
            } else {
                let n = data.args.len();
                let dst = need_dst()?;
                let args: SmallVec<[Arg; 4]> = data.args.iter().map(|a| slots.arg(a)).collect();
                let plain = !data.saturate && args.iter().all(|a| !a.neg && !a.abs);
                let wide = wide_dst || args.iter().any(|a| a.wide);
                let kernel = if wide { Kernel::eval(*opcode, *chan, n) } else { Kernel::of(*opcode, *chan, n) };
                let kernel = kernel.ok_or(ExecError::UnsupportedAlu { opcode: info.name, chan: *chan, args: n })?;
                Step::Alu {
                    dst,
                    width: 1,
                    broadcast: 0,
                    args,
                    src_tys: (0..n).map(|i| opcode.src_type(i)).collect(),
                    sat: data.saturate.then_some(info.dst_type),
                    kernel,
                    plain,
                    wide,
                    wide_dst,
                }
            }
        }
        Op::Pack => {
            let dst = need_dst()?;
            let moves = [Step::Move { dst, src: arg(0)? }, Step::Move { dst: dst + 1, src: arg(1)? }];
            return Ok(Compiled::Steps(SmallVec::from_iter(moves)));
        }
        Op::Split { hi } => Step::Move { dst: need_dst()?, src: arg(0)? + *hi as u32 },
        Op::LoadIndirect { reg, chan } => {
            let mut k = 0;
            let index = if reg.indirect.is_some() {
                k += 1;
                Some(arg(0)?)
            } else {
                None
            };
            let dim = match &reg.dimension {
                Some(d) => Some((d.index, if d.indirect.is_some() { Some(arg(k)?) } else { None })),
                None => None,
            };
            Step::LoadIndirect { dst: need_dst()?, file: reg.file, base: reg.index, index, dim, chan: *chan }
        }
        Op::ArrayLoad { array, offset, chan } => Step::ArrayLoad {
            dst: need_dst()?,
            array: array.index() as u32,
            offset: *offset,
            index: data.args.first().map(|a| slot(a.value)),
            chan: *chan,
        },
        Op::ArrayStore { array, offset, chan } => {
            let value = data
                .args
                .last()
                .map(|a| slot(a.value))
                .ok_or_else(|| ExecError::Malformed(format!("{inst} stores no value")))?;
            Step::ArrayStore {
                array: array.index() as u32,
                offset: *offset,
                index: if data.args.len() > 1 { Some(arg(0)?) } else { None },
                value,
                chan: *chan,
            }
        }
        Op::StoreOutput { index, chan } => {
            let declared = outputs.binary_search(index).ok().map(|r| r as u32);
            Step::StoreOutput { index: *index, chan: *chan, value: arg(0)?, declared }
        }
        Op::Opaque { inst: t, .. } => match t.opcode {
            Opcode::Kill | Opcode::Demote => Step::Kill,
            Opcode::KillIf => Step::KillIf { args: data.args.iter().take(4).map(|a| slots.arg(a)).collect() },
            // The stream is the first channel of the operand, when there is one.
            Opcode::Emit => Step::Emit { stream: data.args.first().map(|a| slot(a.value)) },
            Opcode::Endprim => Step::EndPrimitive { stream: data.args.first().map(|a| slot(a.value)) },
            op @ (Opcode::Tex
            | Opcode::TexLz
            | Opcode::TxfLz
            | Opcode::Txb
            | Opcode::Txl
            | Opcode::Txd
            | Opcode::Txp
            | Opcode::Txf
            | Opcode::Txq
            | Opcode::Sample
            | Opcode::SampleB
            | Opcode::SampleL
            | Opcode::SampleD
            | Opcode::Sviewinfo
            | Opcode::Txqs
            | Opcode::SampleInfo
            | Opcode::SamplePos) => texture_step(data, slots, t, op, inst)?,
            op if memory::handles(op) => match memory::compile(module, data, slots, t, inst)? {
                Some(access) => Step::Memory(Box::new(access)),
                None => return Ok(Compiled::Nothing),
            },
            other => return Err(ExecError::Unsupported(other.info().name.to_string())),
        },
        Op::Phi { .. } => return Ok(Compiled::Nothing),
    };
    Ok(Compiled::Steps(SmallVec::from_iter([step])))
}

/// A texture instruction: its unit (the sampler, or the view for the
/// SAMPLE family), the first value operand's four channels (with the
/// operand's modifiers) and the written channels.
fn texture_step(
    data: &ir::function::InstData,
    slots: &Slots,
    t: &tgsi::Instruction,
    op: Opcode,
    inst: ir::function::Inst,
) -> Result<Step, ExecError> {
    let unit_file = if t.src.iter().any(|s| s.reg.file == File::SamplerView) && op != Opcode::Txq {
        File::SamplerView
    } else {
        File::Sampler
    };
    let unit = t.src.iter().find(|s| s.reg.file == unit_file).map_or(0, |s| s.reg.index.max(0) as u32);
    let first = t.src.iter().find(|s| !matches!(s.reg.file, File::Sampler | File::SamplerView));
    let (neg, abs) = first.map_or((false, false), |s| (s.negate, s.absolute));
    let arg = |k: usize| -> Result<Arg, ExecError> {
        let a = data.args.get(k).ok_or_else(|| ExecError::Malformed(format!("{inst} lacks coordinate {k}")))?;
        Ok(slots.source_arg(a, (neg, abs)))
    };
    let op = match op {
        Opcode::Txp => TexOp::Project,
        Opcode::Txf | Opcode::TxfLz => TexOp::Fetch,
        Opcode::Txq | Opcode::Sviewinfo => TexOp::Query,
        Opcode::Txqs | Opcode::SampleInfo => TexOp::SampleCount,
        Opcode::SamplePos => TexOp::SamplePosition,
        _ => TexOp::Sample,
    };
    let coords = match op {
        TexOp::Sample | TexOp::Project | TexOp::Fetch => [arg(0)?, arg(1)?, arg(2)?, arg(3)?],
        // Queries read no coordinates (a level or a sample index at most).
        _ => [Arg { slot: 0, neg: false, abs: false, wide: false }; 4],
    };
    // The sample queries apply the resource operand's swizzle to their
    // result.
    let swizzle = match (op, t.src.first()) {
        (TexOp::SampleCount | TexOp::SamplePosition, Some(s)) if s.reg.file == File::SamplerView => s.swizzle,
        _ => tgsi::IDENTITY_SWIZZLE,
    };
    let mask = t.dst.first().map_or(0, |d| d.write_mask);
    let dsts = slots.written(mask, &data.results);
    Ok(Step::Texture { op, unit, coords, swizzle, dsts, sat: data.saturate })
}

fn read_fill(
    module: &Module,
    s: &Source,
    sv_names: &[Option<SemanticName>],
    const_reads: &mut Vec<(u32, u32, u8)>,
) -> Fill {
    match s.file {
        File::Input => Fill::Input { vertex: s.dim, index: s.index, chan: s.chan },
        File::Constant => {
            const_reads.push((s.dim.unwrap_or(0), s.index, s.chan));
            Fill::Constant { k: const_reads.len() as u32 - 1 }
        }
        File::SystemValue => {
            Fill::SystemValue { name: sv_names.get(s.index as usize).copied().flatten(), chan: s.chan }
        }
        File::Immediate => {
            Fill::Bits(module.immediates.get(s.index as usize).map_or(0, |imm| imm.data[s.chan as usize & 3]))
        }
        _ => Fill::Bits(0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn add(dst: u32, a: u32, b: u32) -> Step {
        let arg = |slot| Arg { slot, neg: false, abs: false, wide: false };
        Step::Alu {
            dst,
            width: 1,
            broadcast: 0,
            args: SmallVec::from_slice(&[arg(a), arg(b)]),
            src_tys: SmallVec::from_slice(&[OperandType::Float; 2]),
            sat: None,
            kernel: Kernel::Add,
            plain: true,
            wide: false,
            wide_dst: false,
        }
    }

    fn widths(mut steps: Vec<Step>) -> Vec<u32> {
        join_channels(&mut steps);
        steps.iter().map(|s| if let Step::Alu { width, .. } = s { *width } else { 0 }).collect()
    }

    #[test]
    fn channels_on_consecutive_slots_join_up_to_a_register() {
        // Slots 20.. = slots 0.. + slots 10.., five channels: four, then one.
        let steps = (0..5).map(|k| add(20 + k, k, 10 + k)).collect();
        assert_eq!(widths(steps), [4, 1]);
    }

    #[test]
    fn one_slot_read_by_every_channel_joins_as_a_broadcast() {
        // Slot 10 for every channel, as `IMM[0].xxxx` reads.
        let mut steps: Vec<Step> = (0..4).map(|k| add(20 + k, k, 10)).collect();
        join_channels(&mut steps);
        assert!(matches!(steps.as_slice(), [Step::Alu { width: 4, broadcast: 0b10, .. }]));
        // A broadcast operand stays one: slot 11 after 10, 10 does not join.
        assert_eq!(widths(vec![add(5, 0, 10), add(6, 1, 10), add(7, 2, 11)]), [2, 1]);
    }

    #[test]
    fn a_channel_reading_a_joined_result_does_not_join() {
        // The second reads slot 5, the first's result.
        assert_eq!(widths(vec![add(5, 4, 10), add(6, 5, 11)]), [1, 1]);
        // Operands that are not the next slots, or another loop, do not join.
        assert_eq!(widths(vec![add(5, 0, 10), add(6, 2, 11)]), [1, 1]);
        let mul = match add(6, 1, 11) {
            Step::Alu { dst, width, broadcast, args, src_tys, sat, plain, wide, wide_dst, .. } => {
                Step::Alu { dst, width, broadcast, args, src_tys, sat, kernel: Kernel::Mul, plain, wide, wide_dst }
            }
            other => other,
        };
        assert_eq!(widths(vec![add(5, 0, 10), mul]), [1, 1]);
    }

    #[test]
    fn a_whole_register_operation_is_one_step() {
        let text = "FRAG\nDCL IN[0]\nDCL IN[1]\nDCL OUT[0], COLOR\nDCL TEMP[0]\n\
                    MUL TEMP[0], IN[0], IN[1]\nADD OUT[0], TEMP[0], -IN[0].xxxx\nEND\n";
        let module = ir::from_tgsi(&tgsi::parse(text).unwrap()).unwrap();
        let program = Program::compile(&module).unwrap();
        let alu: Vec<u32> = program
            .steps
            .iter()
            .flatten()
            .filter_map(|s| if let Step::Alu { width, .. } = s { Some(*width) } else { None })
            .collect();
        assert_eq!(alu, [4, 4]);
    }
}
