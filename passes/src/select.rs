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
//! Arms are small: ALU operations from at most two source instructions
//! each (both arms run on every invocation afterwards).
//!
//! What never moves: derivatives (`DDX`/`DDY` read other invocations of
//! the quad, whose control flow differs), instructions kept whole
//! (textures, kills, memory, barriers), loads and stores, nested
//! constructs (inner ones are converted first), 64-bit phis (`UCMP` selects
//! 32 bits).
//!
//! When: only where it does not make the shader larger. Each candidate is
//! converted on a copy of the module, and the copy is kept when its
//! emitted TGSI has no more instructions than the current module's, and
//! no more TEMP registers than the current module's or the source's (more
//! than the current one only for fewer instructions): `IF`, `ELSE` and
//! `ENDIF` go, and one select per written register plus possibly an
//! `FSNE` come in, which pays for arms of one or two instructions.

use crate::rewrite::{apply, get_mut, merge_block, Rewrites};
use crate::{Pass, PassResult, Stats};
use ir::{Block, Exit, Function, InstData, Node, Op, Operand, Origin, Region, Ty, Value};
use smallvec::smallvec;
use tgsi::{flags, ChannelMode, File, Opcode};

/// The `select` pass; see the module documentation.
pub struct Select;

impl Pass for Select {
    fn name(&self) -> &'static str {
        "select"
    }

    fn description(&self) -> &'static str {
        "Turns IF/ELSE diamonds with small pure arms into UCMP selects where the emitted shader is no larger"
    }

    fn run(&self, module: &mut ir::Module) -> PassResult {
        let counts = select(module);
        let mut stats = Stats::default();
        stats.add("IFs converted", counts.converted);
        stats.add("selects made", counts.selects);
        PassResult { changed: counts.converted > 0, stats }
    }
}

/// What one [`select`] did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    /// Constructs turned into straight-line code.
    pub converted: u64,
    /// Phis turned into `UCMP` selects.
    pub selects: u64,
}

/// The most scalar operations an arm may hold.
const MAX_ARM_OPS: usize = 16;

/// The most source instructions the ALU operations of an arm may come
/// from (about the TGSI instructions it takes): both arms run on every
/// invocation after the conversion, which pays for one or two
/// instructions, not for longer arms a uniform branch would skip.
const MAX_ARM_INSTRUCTIONS: usize = 2;

/// The most phis a converted construct may join.
const MAX_PHIS: usize = 16;

/// The most candidates one run tries (each costs a copy and an emission
/// of the shader): work stays linear in the shader on shaders with many
/// branches.
const MAX_TRIALS: usize = 8;

/// The most instructions a function may have for the pass to try
/// anything: the trials' emissions cost a multiple of the shader's size.
const MAX_INSTRUCTIONS: usize = 1024;

/// Converts every eligible diamond of `module` whose conversion does not
/// make the emitted shader larger, innermost first.
pub fn select(module: &mut ir::Module) -> Counts {
    let mut counts = Counts::default();
    let mut tried: Vec<Block> = Vec::new();
    if module.function.insts.len() > MAX_INSTRUCTIONS {
        return counts;
    }
    let Some(mut current) = emitted_size(module) else { return counts };
    let source_temps: u32 = module.temps.iter().map(|d| d.last as u32 - d.first as u32 + 1).sum();
    while tried.len() < MAX_TRIALS {
        let Some(then_block) = candidates(&module.function).into_iter().find(|b| !tried.contains(b)) else {
            break;
        };
        tried.push(then_block);
        let mut trial = module.clone();
        let Some(selects) = convert(&mut trial.function, then_block) else { continue };
        let Some(size) = emitted_size(&trial) else { continue };
        if no_larger(size, current, source_temps) {
            *module = trial;
            current = size;
            counts.converted += 1;
            counts.selects += selects;
        }
    }
    counts
}

/// Whether a conversion emitting `size` (instructions, TEMPs) is kept over
/// the current `current`: no more instructions, and no more TEMPs than the
/// current emission or the source declared (a select may hold both arms'
/// values at once; trading a TEMP for instructions is fine within what the
/// input used), and fewer instructions when it takes more TEMPs.
fn no_larger(size: (usize, u32), current: (usize, u32), source_temps: u32) -> bool {
    size.0 <= current.0 && size.1 <= current.1.max(source_temps) && (size.0 < current.0 || size.1 <= current.1)
}

/// Instructions, then TEMP registers, of the emitted shader; `None` when
/// it cannot be emitted. Only measured, so not checked: the emission a
/// caller keeps is.
fn emitted_size(module: &ir::Module) -> Option<(usize, u32)> {
    let shader = ir::to_tgsi_with(module, &ir::EmitOptions { check: false }).ok()?;
    let temps =
        shader.declarations().filter(|d| d.file == File::Temporary).map(|d| d.last as u32 - d.first as u32 + 1).sum();
    Some((shader.instructions().count(), temps))
}

/// The then blocks of the eligible constructs.
fn candidates(func: &Function) -> Vec<Block> {
    let mut out = Vec::new();
    collect(&func.body, func, &mut out);
    out
}

fn collect(body: &Region, func: &Function, out: &mut Vec<Block>) {
    // A stack, not recursion: constructs may nest thousands deep. The
    // order does not matter: an IF holding another is not eligible.
    let mut stack: Vec<&Region> = vec![body];
    while let Some(region) = stack.pop() {
        for (i, node) in region.iter().enumerate() {
            stack.extend(node_regions(node));
            if let Node::If(n) = node {
                if i > 0 && eligible(region, i, func).is_some() {
                    if let Some(Node::Block(bt)) = n.then_region.first() {
                        out.push(*bt);
                    }
                }
            }
        }
    }
}

fn node_regions(node: &Node) -> Vec<&Region> {
    match node {
        Node::Block(_) => Vec::new(),
        Node::If(n) => vec![&n.then_region, &n.else_region],
        Node::Loop(n) => vec![&n.body],
        Node::Switch(n) => n.cases.iter().map(|c| &c.body).collect(),
    }
}

/// The blocks of `region[i]`, an eligible `IF`, and its neighbours:
/// (before, then, else, merge).
fn eligible(region: &Region, i: usize, func: &Function) -> Option<(Block, Block, Block, Block)> {
    let (Some(Node::Block(bc)), Some(Node::If(n)), Some(Node::Block(bm))) =
        (region.get(i.checked_sub(1)?), region.get(i), region.get(i + 1))
    else {
        return None;
    };
    if n.unsigned && (n.cond.neg || n.cond.abs) {
        return None;
    }
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
        let ok = preds.len() == 2
            && preds.contains(&bt)
            && preds.contains(&be)
            && data.results.iter().all(|&v| func.values.get(v).is_some_and(|d| d.ty == Ty::B32));
        if !ok || phis > MAX_PHIS {
            return None;
        }
    }
    Some((*bc, bt, be, *bm))
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

/// Whether `v` is always `0` or a value nonzero both as bits and as a
/// float: a comparison's result (`1.0`/`0.0` or `~0`/`0`).
fn is_comparison(func: &Function, v: Value) -> bool {
    let Some(def) = func.values.get(v).and_then(|d| func.insts.get(d.def)) else { return false };
    matches!(
        def.op,
        Op::Alu {
            opcode: Opcode::Slt
                | Opcode::Sge
                | Opcode::Seq
                | Opcode::Sne
                | Opcode::Sgt
                | Opcode::Sle
                | Opcode::Fslt
                | Opcode::Fsge
                | Opcode::Fseq
                | Opcode::Fsne
                | Opcode::Useq
                | Opcode::Usne
                | Opcode::Usge
                | Opcode::Uslt
                | Opcode::Isge
                | Opcode::Islt,
            ..
        }
    )
}

/// Converts the eligible construct whose then block is `then_block`;
/// returns how many selects it made, `None` when there is no such
/// construct.
fn convert(func: &mut Function, then_block: Block) -> Option<u64> {
    let mut body = std::mem::take(&mut func.body);
    let mut done = None;
    ir::walk::for_each_region_post_order_mut(&mut body, |region| {
        if done.is_some() {
            return;
        }
        let at = region.iter().enumerate().position(|(i, node)| {
            matches!(node, Node::If(n) if n.then_region.first() == Some(&Node::Block(then_block)))
                && eligible(region, i, func).is_some()
        });
        if let Some(i) = at {
            done = convert_at(region, i, func);
        }
    });
    func.body = body;
    done
}

fn convert_at(region: &mut Region, i: usize, func: &mut Function) -> Option<u64> {
    let (bc, bt, be, bm) = eligible(region, i, func)?;
    let Some(Node::If(n)) = region.get(i) else { return None };
    let (cond, unsigned) = (n.cond, n.unsigned);
    // The arms run unconditionally, after the block before the construct.
    for b in [bt, be] {
        let insts = std::mem::take(&mut get_mut(&mut func.blocks, b)?.insts);
        get_mut(&mut func.blocks, bc)?.insts.extend(insts);
    }
    let selector = if unsigned || is_comparison(func, cond.value) {
        Operand::new(cond.value)
    } else {
        let origin = Origin { inst: Some(fresh_source(func)), dst: None };
        let zero = func.add_inst(Op::Const(0), &[], &[Ty::B32], origin);
        let plain = Operand::new(cond.value);
        let zero_value = func.result(zero);
        let test = func.add_inst(
            Op::Alu { opcode: Opcode::Fsne, chan: 0 },
            &[plain, Operand::new(zero_value)],
            &[Ty::B32],
            origin,
        );
        let test_value = func.result(test);
        get_mut(&mut func.blocks, bc)?.insts.extend([zero, test]);
        Operand::new(test_value)
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
        let reg = func.insts.get(inst)?.origin.dst.map(|d| (d.file, d.index));
        let source = match sources.iter().find(|(r, _)| reg.is_some() && *r == reg) {
            Some(&(_, source)) => source,
            None => {
                let source = fresh_source(func);
                sources.push((reg, source));
                source
            }
        };
        let data = get_mut(&mut func.insts, inst)?;
        data.origin.inst = Some(source);
        let Op::Phi { preds } = &data.op else { break };
        let args = &data.args;
        let arg = |b: Block| preds.iter().position(|&p| p == b).and_then(|k| args.get(k).copied());
        let (then_value, else_value) = (arg(bt)?, arg(be)?);
        data.op = Op::Alu { opcode: Opcode::Ucmp, chan: 0 };
        data.args = smallvec![selector, then_value, else_value];
        selects += 1;
    }
    let mut rw = Rewrites::default();
    if !merge_block(func, bc, bm, 0, &mut rw) {
        return None;
    }
    region.drain(i..=i + 1);
    apply(func, &rw);
    Some(selects)
}

/// A source instruction number no instruction of `func` has as its
/// origin (`Origin::inst` groups the channels of one instruction).
fn fresh_source(func: &Function) -> u32 {
    let last = func.insts.iter().filter_map(|(_, d)| d.origin.inst).max();
    last.map_or(0, |l| l.saturating_add(1))
}
