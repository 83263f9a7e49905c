//! `select`: if-conversion of small `IF`/`ELSE` diamonds into selects.
//!
//! An `IF`/`UIF` whose arms are single blocks that fall through and hold
//! only operations that may run where the arm would not (constants, reads
//! of inputs, constants and system values, pure ALU operations other than
//! derivatives) becomes straight-line code: both arms run, and every phi
//! after the construct becomes `UCMP cond, then, else`, which copies the
//! chosen bit pattern exactly (NaN payloads, `-0.0` and denormals
//! included). Output stores after the construct read the selects, so arms
//! that wrote the same output channels (or one arm writing, the other
//! keeping the previous value) convert too: the IR builder already joined
//! those writes in phis.
//!
//! The condition: `UIF c` takes the then arm when `c.x` has any bit set,
//! which is `UCMP`'s own test. `IF c` takes it when `c.x != 0.0` as a
//! float: `-0.0` goes to the else arm, NaN and denormals to the then arm.
//! `FSNE c, 0.0` computes exactly that as `~0` or `0`; it is skipped when
//! `c` comes from a comparison, whose results (`1.0`/`0.0` or `~0`/`0`)
//! are nonzero as bits exactly when they are as floats. Source modifiers
//! of an `IF` condition change only its sign, not whether it is zero; a
//! `UIF` condition with modifiers is left alone.
//!
//! Targets without integers (`INTEGERS` 0, such as r300, i915 and
//! etnaviv of that time) take no `UCMP` and no `FSNE`: there each phi
//! becomes `CMP -c, then, else` where `c` is a float comparison (`SLT`,
//! `SGE`, `SEQ`, `SNE`, `SGT`, `SLE`: exactly `1.0` or `0.0`), or `CMP
//! -|c|, then, else` where `c` comes from another operation that never
//! gives a NaN (`semantics::facts`); `-|c| < 0` exactly when `c != 0.0`
//! for every `c` but NaN, which `IF` takes and `CMP` does not. `CMP`
//! copies the chosen bits as `UCMP` does. Any other `IF` (and every
//! `UIF`) stays a branch there.
//!
//! An `IF c` whose only arm is a lone `KILL` becomes `KILL_IF -c` (a float
//! comparison's 1.0/0.0) or `KILL_IF -|c|` (a value never a NaN): it kills
//! exactly the lanes the branch kills, in one instruction and without
//! flow control, whatever the target.
//!
//! Arms are small: ALU operations from at most two source instructions
//! each (both arms run on every invocation afterwards). For a target
//! whose compiler predicates short arms itself (nouveau:
//! `Tuning::predicated_branches`), arms compute nothing at all: only
//! copies and constants, which the selects replace; an arm that computes
//! costs such a driver more as a select than as its predicated branch.
//!
//! What never moves: derivatives (`DDX`/`DDY` read other invocations of
//! the quad, whose control flow differs), instructions kept whole
//! (textures, kills, memory, barriers), loads and stores, nested
//! constructs (inner ones are converted first), 64-bit phis (`UCMP` selects
//! 32 bits).
//!
//! When: where it does not make the shader larger, judged on the IR by
//! counting the TGSI instructions each form takes (no emission, no
//! copy of the module): the branch takes `IF` and `ENDIF`, an `ELSE` when
//! the else arm computes or copies anything, and in each arm a `MOV` per
//! register whose phi there gets a value computed elsewhere (a constant,
//! an input, a value of another register); the selects take one `UCMP`
//! per register the phis join, and an `FSNE` when the condition needs
//! one. The arms' own operations are the same in both. A construct
//! converts when the selects take no more instructions than the branch.

use crate::rewrite::{apply, get_mut, merge_block, Rewrites};
use crate::{Pass, PassResult, Stats};
use std::sync::Arc;

use ir::{Block, Exit, Function, InstData, Node, Op, Operand, Origin, Region, Ty, Value};
use semantics::NanResult;
use smallvec::smallvec;
use target::Target;
use tgsi::{flags, ChannelMode, File, Opcode};

/// The `select` pass; see the module documentation.
pub struct Select {
    target: Option<Arc<Target>>,
}

impl Select {
    /// The registered pass, for no target in particular: `UCMP` allowed.
    pub const fn unconfigured() -> Self {
        Select { target: None }
    }

    /// The pass for a shader to run on `target`.
    pub fn new(target: Target) -> Self {
        Select { target: Some(Arc::new(target)) }
    }
}

impl Pass for Select {
    fn name(&self) -> &'static str {
        "select"
    }

    fn description(&self) -> &'static str {
        "Turns IF/ELSE diamonds with small pure arms into UCMP (or, without integers, CMP) selects where the \
         emitted shader is no larger, and an IF holding a lone KILL into KILL_IF"
    }

    fn run(&self, module: &mut ir::Module) -> PassResult {
        let integers = self.target.as_ref().is_none_or(|t| t.caps_for(module.processor).integers);
        let copies_only = self.target.as_ref().is_some_and(|t| t.tuning.predicated_branches);
        let counts = select(module, Arms { integers, copies_only });
        let mut stats = Stats::default();
        stats.add("IFs converted", counts.converted);
        stats.add("selects made", counts.selects);
        stats.add("kills made conditional", counts.kills);
        PassResult { changed: counts.converted + counts.kills > 0, stats }
    }

    fn configure(&self, config: &crate::Config) -> Result<Option<Arc<dyn Pass>>, crate::ConfigError> {
        Ok(config.target.clone().map(|t| Arc::new(Select::new(t)) as Arc<dyn Pass>))
    }
}

/// What one [`select`] did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    /// Constructs turned into straight-line code.
    pub converted: u64,
    /// Phis turned into `UCMP` selects.
    pub selects: u64,
    /// `IF c` / `KILL` / `ENDIF` turned into `KILL_IF`.
    pub kills: u64,
}

/// The most scalar operations an arm may hold.
const MAX_ARM_OPS: usize = 16;

/// The most source instructions the ALU operations of an arm may come
/// from (about the TGSI instructions it takes): both arms run on every
/// invocation after the conversion, which pays for one or two
/// instructions, not for longer arms a uniform branch would skip.
const MAX_ARM_INSTRUCTIONS: usize = 2;

/// The most channels a conversion may hold beside what the branch held
/// (both arms' values of a phi, the test's result): one register's worth,
/// so that the selects rarely need a register the shader did not.
const MAX_EXTRA_CHANNELS: usize = 4;

/// The most phis a converted construct may join.
const MAX_PHIS: usize = 16;

/// How a converted construct selects, by what the target has.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Selector {
    /// `UCMP`, on the condition or on `FSNE c, 0.0`.
    Integer,
    /// `CMP -c` on a float comparison's `1.0`/`0.0`.
    Comparison,
    /// `CMP -|c|` on a value that is never a NaN.
    NeverNan,
}

/// What a target lets [`select`] do.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Arms {
    /// The target has integers: `UCMP` selects on any condition.
    pub integers: bool,
    /// Only arms that compute nothing (copies and constants) are
    /// converted: the target's compiler predicates an arm that computes
    /// (`Tuning::predicated_branches`).
    pub copies_only: bool,
}

/// Converts every eligible diamond of `module` whose conversion does not
/// make the emitted shader larger, innermost first, in one walk over the
/// tree. Without integers, it makes float selects only (see the module
/// documentation).
pub fn select(module: &mut ir::Module, arms: Arms) -> Counts {
    let func = &mut module.function;
    let mut counts = Counts::default();
    let mut rw = Rewrites::default();
    let mut next_source = fresh_source(func);
    let mut body = std::mem::take(&mut func.body);
    ir::walk::for_each_region_post_order_mut(&mut body, |region| {
        let mut i = 0;
        while i < region.len() {
            if kill_if_at(region, i, func, &mut rw, &mut next_source) {
                counts.kills += 1;
                continue;
            }
            let converted = matches!(region[i], Node::If(_))
                && eligible(region, i, func, &rw, arms)
                    .is_some_and(|(blocks, selector)| pays(func, region, i, blocks, selector, &rw))
                && convert_at(region, i, func, &mut rw, &mut next_source, arms)
                    .map(|selects| {
                        counts.converted += 1;
                        counts.selects += selects;
                    })
                    .is_some();
            // A conversion merges the construct into the block before it:
            // the next node is the one after the merged block.
            if !converted {
                i += 1;
            }
        }
    });
    func.body = body;
    apply(func, &rw);
    counts
}

/// Whether converting the eligible `region[i]`, with blocks `(before, then,
/// else, merge)`, takes no more TGSI instructions than the branch (see
/// the module documentation).
fn pays(
    func: &Function,
    region: &Region,
    i: usize,
    blocks: (Block, Block, Block, Block),
    selector: Selector,
    rw: &Rewrites,
) -> bool {
    let (_, bt, be, bm) = blocks;
    let Some(Node::If(n)) = region.get(i) else { return false };
    let Some(merge) = func.blocks.get(bm) else { return false };
    let phis: Vec<&InstData> = merge
        .insts
        .iter()
        .filter_map(|&inst| func.insts.get(inst))
        .take_while(|d| matches!(d.op, Op::Phi { .. }))
        .collect();
    // One select per register the phis join (each phi without one alone).
    let register = |d: &InstData, k: usize| d.origin.dst.map_or((None, k), |r| (Some((r.file, r.index)), 0));
    let mut registers: Vec<(Option<(File, u32)>, usize)> =
        phis.iter().enumerate().map(|(k, d)| register(d, k)).collect();
    registers.sort_unstable();
    registers.dedup();
    let test = usize::from(selector == Selector::Integer && !n.unsigned && !is_comparison(func, n.cond.value));
    let selects = registers.len() + test;
    // The copies an arm writes into the phis' registers, one per register.
    let copies = |arm: Block| {
        let mut regs: Vec<(Option<(File, u32)>, usize)> = Vec::new();
        for (k, d) in phis.iter().enumerate() {
            let Op::Phi { preds } = &d.op else { continue };
            let Some(arg) = preds.iter().position(|&p| rw.block(p) == arm).and_then(|j| d.args.get(j)) else {
                continue;
            };
            if needs_copy(func, d, arg.value, arm) && !regs.contains(&register(d, k)) {
                regs.push(register(d, k));
            }
        }
        regs.len()
    };
    let computes = |arm: Block| {
        func.blocks
            .get(arm)
            .is_some_and(|b| b.insts.iter().any(|&x| func.insts.get(x).is_some_and(|d| matches!(d.op, Op::Alu { .. }))))
    };
    let (then_copies, else_copies) = (copies(bt), copies(be));
    let has_else = computes(be) || else_copies > 0;
    let branch = 2 + usize::from(has_else) + then_copies + else_copies;
    // Registers: both arms' values live at once, where the branch could
    // keep them in one register, and the test's result.
    let in_register = |v: Value| {
        func.values
            .get(v)
            .and_then(|d| func.insts.get(d.def))
            .is_some_and(|d| !matches!(d.op, Op::Const(_) | Op::Read(_) | Op::Initial | Op::Undef))
    };
    let both = phis.iter().filter(|d| d.args.iter().all(|a| in_register(a.value))).count();
    let extra = both + test;
    selects < branch && extra <= MAX_EXTRA_CHANNELS || selects == branch && extra == 0
}

/// Whether the phi `phi` needs a copy of `arg` on the edge from `arm`:
/// unless `arg` is computed in the arm (into the phi's register) or is
/// the value the phi's register already holds (the same source channel),
/// emission writes a `MOV`.
fn needs_copy(func: &Function, phi: &InstData, arg: Value, arm: Block) -> bool {
    let Some(def) = func.values.get(arg).and_then(|d| func.insts.get(d.def)) else { return true };
    let computed = matches!(def.op, Op::Alu { .. })
        && func.blocks.get(arm).is_some_and(|b| b.insts.contains(&func.values[arg].def));
    let held = matches!(def.op, Op::Alu { .. } | Op::Opaque { .. } | Op::Phi { .. })
        && def.origin.dst.is_some()
        && def.origin.dst == phi.origin.dst;
    !computed && !held
}

/// The blocks of `region[i]`, an eligible `IF`, and its neighbours:
/// (before, then, else, merge), and how it would select.
fn eligible(
    region: &Region,
    i: usize,
    func: &Function,
    rw: &Rewrites,
    arms: Arms,
) -> Option<((Block, Block, Block, Block), Selector)> {
    let (Some(Node::Block(bc)), Some(Node::If(n)), Some(Node::Block(bm))) =
        (region.get(i.checked_sub(1)?), region.get(i), region.get(i + 1))
    else {
        return None;
    };
    if n.unsigned && (n.cond.neg || n.cond.abs) {
        return None;
    }
    let selector = match (arms.integers, n.unsigned) {
        (true, _) => Selector::Integer,
        (false, true) => return None,
        (false, false) => float_selector(func, n.cond.value)?,
    };
    let single = |r: &Region| match r.as_slice() {
        [Node::Block(b)] => Some(*b),
        _ => None,
    };
    let (bt, be) = (single(&n.then_region)?, single(&n.else_region)?);
    for b in [*bc, bt, be] {
        if func.blocks.get(b)?.exit != Exit::Fallthrough {
            return None;
        }
    }
    for b in [bt, be] {
        let insts = &func.blocks.get(b)?.insts;
        if insts.len() > MAX_ARM_OPS || !insts.iter().all(|&i| func.insts.get(i).is_some_and(speculable)) {
            return None;
        }
        if arms.copies_only && insts.iter().any(|&i| func.insts.get(i).is_some_and(computes)) {
            return None;
        }
        let mut sources: Vec<Option<u32>> = insts
            .iter()
            .filter_map(|&i| func.insts.get(i))
            .filter(|d| matches!(d.op, Op::Alu { .. }))
            .map(|d| d.origin.inst)
            .collect();
        sources.sort_unstable();
        sources.dedup();
        // Operations of no known source instruction count one each.
        let unknown = insts
            .iter()
            .filter_map(|&i| func.insts.get(i))
            .filter(|d| matches!(d.op, Op::Alu { .. }) && d.origin.inst.is_none())
            .count();
        if sources.iter().filter(|s| s.is_some()).count() + unknown > MAX_ARM_INSTRUCTIONS {
            return None;
        }
    }
    let mut phis = 0;
    for &inst in &func.blocks.get(*bm)?.insts {
        let data = func.insts.get(inst)?;
        let Op::Phi { preds } = &data.op else { break };
        phis += 1;
        let preds: Vec<Block> = preds.iter().map(|&p| rw.block(p)).collect();
        let ok = preds.len() == 2
            && preds.contains(&bt)
            && preds.contains(&be)
            && data.results.iter().all(|&v| func.values.get(v).is_some_and(|d| d.ty == Ty::B32));
        if !ok || phis > MAX_PHIS {
            return None;
        }
    }
    Some(((*bc, bt, be, *bm), selector))
}

/// Whether `data` computes something: an ALU operation other than a
/// plain copy.
fn computes(data: &InstData) -> bool {
    matches!(data.op, Op::Alu { opcode, .. } if opcode != Opcode::Mov || data.saturate)
}

/// How a float test can stand for `IF c` (not `UIF`): `None` when none
/// is exact (a `c` that may be a NaN).
fn float_selector(func: &Function, c: Value) -> Option<Selector> {
    let opcode = alu_opcode(func, c)?;
    if is_float_comparison(opcode) {
        Some(Selector::Comparison)
    } else {
        semantics::facts(opcode).filter(|f| f.nan == NanResult::Never).map(|_| Selector::NeverNan)
    }
}

/// Whether an operation may run where the program would not run it: it
/// has no effect and its value depends on its operands alone.
fn speculable(data: &InstData) -> bool {
    match &data.op {
        Op::Const(_) | Op::Initial | Op::Undef | Op::Read(_) | Op::Pack | Op::Split { .. } => true,
        Op::Alu { opcode, .. } => {
            let info = opcode.info();
            let impure =
                flags::SIDE_EFFECT | flags::STORE | flags::CONTROL_FLOW | flags::TEX | flags::SAMPLE | flags::MEMORY;
            info.flags & impure == 0
                && matches!(
                    info.mode,
                    ChannelMode::Componentwise | ChannelMode::Replicate | ChannelMode::ChannelDependent
                )
                && !matches!(opcode, Opcode::Ddx | Opcode::Ddy | Opcode::DdxFine | Opcode::DdyFine)
        }
        _ => false,
    }
}

/// The opcode defining `v`, when an `Alu` instruction defines it.
fn alu_opcode(func: &Function, v: Value) -> Option<Opcode> {
    match func.values.get(v).and_then(|d| func.insts.get(d.def))?.op {
        Op::Alu { opcode, .. } => Some(opcode),
        _ => None,
    }
}

/// The float comparisons: their results are exactly `1.0` or `0.0`.
fn is_float_comparison(opcode: Opcode) -> bool {
    matches!(opcode, Opcode::Slt | Opcode::Sge | Opcode::Seq | Opcode::Sne | Opcode::Sgt | Opcode::Sle)
}

/// Whether `v` is always `0` or a value nonzero both as bits and as a
/// float: a comparison's result (`1.0`/`0.0` or `~0`/`0`).
fn is_comparison(func: &Function, v: Value) -> bool {
    alu_opcode(func, v).is_some_and(|opcode| {
        is_float_comparison(opcode)
            || matches!(
                opcode,
                Opcode::Fslt
                    | Opcode::Fsge
                    | Opcode::Fseq
                    | Opcode::Fsne
                    | Opcode::Useq
                    | Opcode::Usne
                    | Opcode::Usge
                    | Opcode::Uslt
                    | Opcode::Isge
                    | Opcode::Islt
            )
    })
}

/// Converts the eligible `region[i]`; returns how many selects it made.
fn convert_at(
    region: &mut Region,
    i: usize,
    func: &mut Function,
    rw: &mut Rewrites,
    next_source: &mut u32,
    arms: Arms,
) -> Option<u64> {
    let ((bc, bt, be, bm), selector) = eligible(region, i, func, rw, arms)?;
    let Some(Node::If(n)) = region.get(i) else { return None };
    let (cond, unsigned) = (n.cond, n.unsigned);
    // The arms run unconditionally, after the block before the construct.
    for b in [bt, be] {
        let insts = std::mem::take(&mut get_mut(&mut func.blocks, b)?.insts);
        get_mut(&mut func.blocks, bc)?.insts.extend(insts);
    }
    let (opcode, selector) = match selector {
        Selector::Comparison => (Opcode::Cmp, Operand { value: cond.value, neg: true, abs: false }),
        Selector::NeverNan => (Opcode::Cmp, Operand { value: cond.value, neg: true, abs: true }),
        Selector::Integer => (Opcode::Ucmp, integer_selector(func, bc, cond.value, unsigned, next_source)?),
    };
    // Each phi becomes the select of its two incoming values, in place:
    // its result, and so every use, stays.
    let phis: Vec<_> = func.blocks.get(bm)?.insts.clone();
    let mut selects = 0;
    // Selects into one register share a made-up source instruction, so
    // emission can write them as one vector `UCMP`, as it writes the
    // channels of one source instruction.
    let mut sources: Vec<(Option<(tgsi::File, u32)>, u32)> = Vec::new();
    for inst in phis {
        if !matches!(func.insts.get(inst)?.op, Op::Phi { .. }) {
            break;
        }
        let reg = func.insts.get(inst)?.origin.dst.map(|d| (d.file, d.index));
        let source = match sources.iter().find(|(r, _)| reg.is_some() && *r == reg) {
            Some(&(_, source)) => source,
            None => {
                let source = take_source(next_source);
                sources.push((reg, source));
                source
            }
        };
        let data = get_mut(&mut func.insts, inst)?;
        data.origin.inst = Some(source);
        let Op::Phi { preds } = &data.op else { break };
        let args = &data.args;
        let arg = |b: Block| preds.iter().position(|&p| rw.block(p) == b).and_then(|k| args.get(k).copied());
        let (then_value, else_value) = (arg(bt)?, arg(be)?);
        data.op = Op::Alu { opcode, chan: 0 };
        data.args = smallvec![selector, then_value, else_value];
        selects += 1;
    }
    if !merge_block(func, bc, bm, 0, rw) {
        return None;
    }
    region.drain(i..=i + 1);
    Some(selects)
}

/// The `UCMP` selector of `IF`/`UIF c`: `c` for a `UIF` or a comparison,
/// else `FSNE c, 0.0`, added to the block `bc`.
fn integer_selector(
    func: &mut Function,
    bc: Block,
    c: Value,
    unsigned: bool,
    next_source: &mut u32,
) -> Option<Operand> {
    if unsigned || is_comparison(func, c) {
        return Some(Operand::new(c));
    }
    let origin = Origin { inst: Some(take_source(next_source)), dst: None };
    let zero = func.add_inst(Op::Const(0), &[], &[Ty::B32], origin);
    let zero_value = func.result(zero);
    let test = func.add_inst(
        Op::Alu { opcode: Opcode::Fsne, chan: 0 },
        &[Operand::new(c), Operand::new(zero_value)],
        &[Ty::B32],
        origin,
    );
    let test_value = func.result(test);
    get_mut(&mut func.blocks, bc)?.insts.extend([zero, test]);
    Some(Operand::new(test_value))
}

/// Turns `region[i]`, an `IF c` whose then arm is a lone `KILL` and which
/// has no else arm, into `KILL_IF -c` (a comparison's 1.0/0.0) or `KILL_IF
/// -|c|` (a value never a NaN): the lane is killed exactly when `c != 0.0`,
/// as the branch kills it. One instruction instead of three, and no flow
/// control (which i915 and r300's fragment shaders lack).
fn kill_if_at(region: &mut Region, i: usize, func: &mut Function, rw: &mut Rewrites, next_source: &mut u32) -> bool {
    let (Some(Node::Block(bc)), Some(Node::If(n)), Some(Node::Block(bm))) =
        (region.get(i.wrapping_sub(1)), region.get(i), region.get(i + 1))
    else {
        return false;
    };
    let (bc, bm) = (*bc, *bm);
    let ([Node::Block(bt)], [Node::Block(be)]) = (n.then_region.as_slice(), n.else_region.as_slice()) else {
        return false;
    };
    let is_kill = |d: &InstData| matches!(&d.op, Op::Opaque { inst, .. } if inst.opcode == Opcode::Kill);
    let (Some(then_block), Some(else_block)) = (func.blocks.get(*bt), func.blocks.get(*be)) else { return false };
    let kills = matches!(then_block.insts.as_slice(), [k] if func.insts.get(*k).is_some_and(is_kill));
    let falls = then_block.exit == Exit::Fallthrough && else_block.exit == Exit::Fallthrough;
    // The arms define no value, so no phi joins them; the check keeps the
    // merge below honest.
    let phi_after = func.blocks.get(bm).and_then(|d| d.insts.first()).and_then(|&x| func.insts.get(x));
    if n.unsigned || n.has_else || !kills || !falls || !else_block.insts.is_empty() {
        return false;
    }
    if func.blocks.get(bm).is_none() || phi_after.is_some_and(|d| matches!(d.op, Op::Phi { .. })) {
        return false;
    }
    let abs = match float_selector(func, n.cond.value) {
        Some(Selector::Comparison) => false,
        Some(Selector::NeverNan) => true,
        _ => return false,
    };
    let mut template = tgsi::Instruction::new(Opcode::KillIf);
    template.src.push(tgsi::SrcOperand {
        reg: tgsi::Register::new(File::Temporary, 0),
        swizzle: tgsi::IDENTITY_SWIZZLE,
        negate: true,
        absolute: abs,
    });
    let c = Operand::new(n.cond.value);
    let origin = Origin { inst: Some(take_source(next_source)), dst: None };
    let kill = func.add_inst(Op::Opaque { inst: Box::new(template), value_srcs: 1 }, &[c, c, c, c], &[], origin);
    let Some(before) = get_mut(&mut func.blocks, bc) else { return false };
    before.insts.push(kill);
    for b in [*bt, *be] {
        if let Some(data) = get_mut(&mut func.blocks, b) {
            data.insts.clear();
        }
    }
    if !merge_block(func, bc, bm, 0, rw) {
        return false;
    }
    region.drain(i..=i + 1);
    true
}

/// A fresh source instruction number, from `next`.
fn take_source(next: &mut u32) -> u32 {
    let source = *next;
    *next = next.saturating_add(1);
    source
}

/// A source instruction number no instruction of `func` has as its
/// origin (`Origin::inst` groups the channels of one instruction).
fn fresh_source(func: &Function) -> u32 {
    let last = func.insts.iter().filter_map(|(_, d)| d.origin.inst).max();
    last.map_or(0, |l| l.saturating_add(1))
}
