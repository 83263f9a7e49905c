//! `dce`: dead code elimination.
//!
//! What it removes, repeated until nothing more goes:
//!
//! 1. **Dead values.** A mark-and-sweep from the roots: every instruction
//!    with an effect in a reachable block ([`has_effect`]: output and array
//!    stores, except stores to a TEMP array nothing loads from, and whole
//!    TGSI instructions that kill, emit, store, do
//!    atomics, barriers or anything else the opcode table flags, or write
//!    a resource), and the condition, selector and case values of every
//!    construct left in the tree. Everything no root reaches through
//!    operands goes, phis included, so cycles of phis that only feed each
//!    other go too.
//! 2. **Code that never runs.** Instructions in blocks the CFG cannot reach
//!    (after an `IF` whose arms both return, after a loop that never
//!    breaks) are not roots, so their effects go with them; the blocks stay
//!    (the tree needs them) but are empty.
//! 3. **Dead channels of whole instructions.** A texture or sample
//!    instruction kept whole whose result channels are partly unused loses
//!    those channels from its writemask; for a target whose compiler pays
//!    for partial texture writes (`target::Tuning::whole_texture_writes`)
//!    it writes all four instead. ALU channels are separate values
//!    already, so their dead channels go with step 1, and emission writes
//!    only the channels whose values exist.
//! 4. **Empty structure.** An `IF` whose arms are empty blocks that fall
//!    through; a `SWITCH` whose cases are empty blocks that fall through or
//!    break; a loop whose body is one empty block ending in `BRK` (it runs
//!    once and does nothing). Each goes only when every phi after it gets
//!    the same value from every way in (then the phi is that value); the
//!    block after it is merged into the block before it.
//!
//! What it keeps: every instruction with an effect in reachable code, and
//! every loop it cannot show to end without effect. A loop with an empty
//! body that never breaks hangs, and removing it would make a program that
//! hangs finish; a counted loop whose counter feeds only its own exit test
//! would need a termination proof, so it stays too. Volatile memory loads
//! stay even when unused.

use ir::cfg::Cfg;
use ir::walk::{construct_operands, for_each_region_post_order_mut};
use ir::{EntityRef, Exit, Function, Inst, InstData, Node, Op, Region, Value};
use tgsi::{flags, MemoryQualifier};

use crate::rewrite::{apply, get_mut, merge_block, Rewrites};
use crate::{Pass, PassResult, Stats};

/// The `dce` pass; see the module documentation.
pub struct Dce {
    /// Unused texture channels go; else texture writes take all four.
    shrink_textures: bool,
}

impl Dce {
    /// The registered pass: drops unused texture channels.
    pub const fn unconfigured() -> Self {
        Dce { shrink_textures: true }
    }
}

impl Pass for Dce {
    fn name(&self) -> &'static str {
        "dce"
    }

    fn description(&self) -> &'static str {
        "Removes values that reach no output or side effect, dead phis, code that never runs, \
         unused texture channels, and empty IFs, SWITCHes and loops that run once"
    }

    fn run(&self, module: &mut ir::Module) -> PassResult {
        let counts = eliminate_with(&mut module.function, self.shrink_textures);
        PassResult { changed: counts.changed(), stats: counts.stats() }
    }

    /// A target whose compiler pays for partial texture writes
    /// (`Tuning::whole_texture_writes`) gets texture writes of all four
    /// channels.
    fn configure(&self, config: &crate::Config) -> Result<Option<std::sync::Arc<dyn Pass>>, crate::ConfigError> {
        let whole = config.target.as_ref().is_some_and(|t| t.tuning.whole_texture_writes);
        Ok(whole.then(|| std::sync::Arc::new(Dce { shrink_textures: false }) as std::sync::Arc<dyn Pass>))
    }
}

/// What one [`eliminate`] removed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    /// Results of removed instructions other than phis.
    pub values: u64,
    /// Removed phis (dead, or resolved to their one value).
    pub phis: u64,
    /// Instructions with effects removed from blocks that never run.
    pub unreachable: u64,
    /// Stores to TEMP arrays nothing loads from.
    pub array_stores: u64,
    /// Result channels dropped from texture and sample instructions.
    pub channels: u64,
    /// Result channels added to texture and sample instructions, for a
    /// target whose compiler writes them whole.
    pub channels_added: u64,
    /// Removed `IF` constructs.
    pub ifs: u64,
    /// Removed loops.
    pub loops: u64,
    /// Removed `SWITCH` constructs.
    pub switches: u64,
    /// Blocks taken out of the tree (the arms, cases and bodies of removed
    /// constructs, and the blocks after them, merged into the blocks
    /// before).
    pub blocks: u64,
}

impl Counts {
    /// Whether anything was removed.
    pub fn changed(&self) -> bool {
        *self != Counts::default()
    }

    /// The counters, in a fixed order, zeros included.
    pub fn stats(&self) -> Stats {
        let mut s = Stats::default();
        s.add("values removed", self.values);
        s.add("phis removed", self.phis);
        s.add("unreachable effects removed", self.unreachable);
        s.add("unread array stores removed", self.array_stores);
        s.add("texture channels removed", self.channels);
        s.add("texture channels added", self.channels_added);
        s.add("ifs removed", self.ifs);
        s.add("loops removed", self.loops);
        s.add("switches removed", self.switches);
        s.add("blocks removed", self.blocks);
        s
    }
}

/// Runs dead code elimination on `func` until nothing more goes.
///
/// ```
/// let text = "FRAG\nDCL IN[0]\nDCL OUT[0], COLOR\nDCL TEMP[0]\n\
///             IF IN[0].xxxx\n  ADD TEMP[0], IN[0], IN[0]\nENDIF\nMOV OUT[0], IN[0]\nEND\n";
/// let mut module = ir::from_tgsi(&tgsi::parse(text).unwrap()).unwrap();
/// let counts = passes::dce::eliminate(&mut module.function);
/// assert_eq!(counts.ifs, 1);
/// ir::verify::verify(&module.function).unwrap();
/// ```
pub fn eliminate(func: &mut Function) -> Counts {
    eliminate_with(func, true)
}

/// [`eliminate`], dropping unused channels of texture and sample
/// instructions only when `shrink_textures` (step 3).
pub fn eliminate_with(func: &mut Function, shrink_textures: bool) -> Counts {
    let mut counts = Counts::default();
    // Each round of structure removal takes at least one construct out of
    // the finite tree, so this ends.
    loop {
        // A sweep that removes the last load of an array makes its stores
        // dead: sweep again until nothing more goes. Otherwise a second
        // sweep finds what the first left (the same roots, all live).
        while sweep(func, &mut counts, shrink_textures) {}
        if !remove_structures(func, &mut counts) {
            break;
        }
    }
    counts
}

/// Whether an instruction has an effect beyond its results: no pass may
/// remove it from code that runs.
pub fn has_effect(data: &InstData) -> bool {
    match &data.op {
        Op::StoreOutput { .. } | Op::ArrayStore { .. } | Op::StoreIndirect { .. } => true,
        Op::Opaque { inst, .. } => {
            let info = inst.opcode.info();
            let volatile = inst.memory.is_some_and(|m| m.qualifier & (1 << MemoryQualifier::Volatile.index()) != 0);
            info.has(flags::SIDE_EFFECT)
                || info.has(flags::STORE)
                || info.has(flags::CONTROL_FLOW)
                || volatile
                // Kept whole for a reason even though it defines nothing.
                || data.results.is_empty()
                || inst.dst.iter().any(|d| !ir::is_value_destination(d.reg.file))
        }
        _ => false,
    }
}

// ----- mark and sweep -----

/// The TEMP arrays no placed instruction loads from: a TEMP array is
/// private to the invocation, so stores nothing can read are dead (arrays
/// of outputs are outputs, and stay).
fn unread_temp_arrays(func: &Function, order: &[ir::Block]) -> Vec<ir::Array> {
    // Most shaders have no TEMP array: skip the walk over every instruction.
    if !func.arrays.iter().any(|(_, d)| d.file == tgsi::File::Temporary) {
        return Vec::new();
    }
    let mut loaded = vec![false; func.arrays.len()];
    for &b in order {
        let Some(block) = func.blocks.get(b) else { continue };
        for data in block.insts.iter().filter_map(|&i| func.insts.get(i)) {
            if let Op::ArrayLoad { array, .. } = data.op {
                if let Some(l) = loaded.get_mut(array.index()) {
                    *l = true;
                }
            }
        }
    }
    func.arrays
        .iter()
        .filter(|(a, d)| d.file == tgsi::File::Temporary && !loaded.get(a.index()).copied().unwrap_or(true))
        .map(|(a, _)| a)
        .collect()
}

/// The mark of mark-and-sweep: which instructions are live and which values
/// used. One backward walk over the placed instructions marks what reads
/// reach, so each instruction's operands are read when the walk gets there
/// (in arena order, which the caches follow) rather than by chasing
/// definitions across the arena; only a definition the walk has already
/// passed (a loop's phi reading a value defined later) is followed at once.
struct Mark {
    live: Vec<bool>,
    used: Vec<bool>,
    /// Placed instructions the backward walk has not reached yet: marking
    /// one live is enough, the walk will read its operands.
    pending: Vec<bool>,
    /// Live instructions whose operands are still to be marked.
    work: Vec<Inst>,
}

impl Mark {
    fn value(&mut self, func: &Function, v: Value) {
        if !set(&mut self.used, v.index()) {
            return;
        }
        let Some(def) = func.values.get(v).map(|d| d.def) else { return };
        if set(&mut self.live, def.index()) && !self.pending.get(def.index()).copied().unwrap_or(false) {
            self.work.push(def);
        }
    }

    fn operands(&mut self, func: &Function, inst: Inst) {
        let Some(data) = func.insts.get(inst) else { return };
        for a in &data.args {
            self.value(func, a.value);
        }
        while let Some(i) = self.work.pop() {
            if let Some(data) = func.insts.get(i) {
                for a in &data.args {
                    self.value(func, a.value);
                }
            }
        }
    }
}

/// Whether [`shrink_channels`] may change `data`: a texture or sample
/// instruction kept whole without an effect.
fn may_shrink(data: &InstData) -> bool {
    let Op::Opaque { inst: template, .. } = &data.op else { return false };
    let info = template.opcode.info();
    (info.is_tex() || info.has(flags::SAMPLE)) && !has_effect(data)
}

/// One mark and sweep; whether it removed an array load (which can make
/// stores dead, so another sweep may remove more).
fn sweep(func: &mut Function, counts: &mut Counts, shrink_textures: bool) -> bool {
    let cfg = Cfg::new(func);
    let order = func.blocks_in_order();
    let unread = unread_temp_arrays(func, &order);
    let mut mark = Mark {
        live: vec![false; func.insts.len()],
        used: vec![false; func.values.len()],
        pending: vec![false; func.insts.len()],
        work: Vec::new(),
    };
    for &b in &order {
        for &inst in func.blocks.get(b).map(|bd| bd.insts.as_slice()).unwrap_or_default() {
            if let Some(p) = mark.pending.get_mut(inst.index()) {
                *p = true;
            }
        }
    }
    for op in construct_operands(&func.body) {
        mark.value(func, op.value);
    }
    // Texture instructions whose unused channels may go, in block order.
    let mut shrinkable = Vec::new();
    for &b in order.iter().rev() {
        let reachable = cfg.is_reachable(b);
        for &inst in func.blocks.get(b).map(|bd| bd.insts.as_slice()).unwrap_or_default().iter().rev() {
            if let Some(p) = mark.pending.get_mut(inst.index()) {
                *p = false;
            }
            let Some(data) = func.insts.get(inst) else { continue };
            if reachable && has_effect(data) {
                let unread_store = matches!(data.op, Op::ArrayStore { array, .. } if unread.contains(&array));
                if !unread_store {
                    set(&mut mark.live, inst.index());
                }
            }
            if mark.live.get(inst.index()).copied().unwrap_or(false) {
                mark.operands(func, inst);
                if may_shrink(data) {
                    shrinkable.push(inst);
                }
            }
        }
    }
    let Mark { live, used, .. } = mark;
    let mut removed_load = false;
    for &b in &order {
        let reachable = cfg.is_reachable(b);
        let Some(block) = get_mut(&mut func.blocks, b) else { continue };
        let insts = std::mem::take(&mut block.insts);
        let mut kept = Vec::with_capacity(insts.len());
        for inst in insts {
            if live.get(inst.index()).copied().unwrap_or(true) {
                kept.push(inst);
                continue;
            }
            let Some(data) = func.insts.get(inst) else { continue };
            if matches!(data.op, Op::Phi { .. }) {
                counts.phis += 1;
            } else if matches!(data.op, Op::ArrayStore { array, .. } if unread.contains(&array)) {
                counts.array_stores += 1;
            } else if has_effect(data) {
                debug_assert!(!reachable, "an effect in a reachable block is a root");
                counts.unreachable += 1;
            } else {
                counts.values += data.results.len() as u64;
            }
            removed_load |= matches!(data.op, Op::ArrayLoad { .. });
        }
        if let Some(block) = get_mut(&mut func.blocks, b) {
            block.insts = kept;
        }
    }
    for &inst in shrinkable.iter().rev() {
        if shrink_textures {
            counts.channels += shrink_channels(func, inst, &used);
        } else {
            counts.channels_added += widen_channels(func, inst);
        }
    }
    removed_load
}

/// Sets `bits[i]`; whether it was clear (out of range counts as set, so
/// dangling indices are never followed).
fn set(bits: &mut [bool], i: usize) -> bool {
    match bits.get_mut(i) {
        Some(b) if !*b => {
            *b = true;
            true
        }
        _ => false,
    }
}

/// Drops the unused result channels of a texture or sample instruction
/// kept whole (each destination keeps at least one channel); returns how
/// many went. Channels of these instructions are independent, so fewer
/// written channels change none of the others.
fn shrink_channels(func: &mut Function, inst: Inst, used: &[bool]) -> u64 {
    let Some(data) = func.insts.get(inst) else { return 0 };
    let Op::Opaque { inst: template, .. } = &data.op else { return 0 };
    let info = template.opcode.info();
    if has_effect(data) || !(info.is_tex() || info.has(flags::SAMPLE)) {
        return 0;
    }
    let is_used = |v: Value| used.get(v.index()).copied().unwrap_or(true);
    let mut masks = Vec::with_capacity(template.dst.len());
    let mut kept = smallvec_of(&[]);
    let mut dropped = Vec::new();
    let mut next = 0usize;
    for dst in &template.dst {
        if !ir::is_value_destination(dst.reg.file) {
            masks.push(dst.write_mask);
            continue;
        }
        let chans: Vec<u8> = (0..4u8).filter(|c| dst.write_mask & (1 << c) != 0).collect();
        let Some(vals) = data.results.get(next..next + chans.len()) else { return 0 };
        next += chans.len();
        let any_used = vals.iter().any(|&v| is_used(v));
        let mut mask = dst.write_mask & !0xf;
        for (&c, &v) in chans.iter().zip(vals) {
            if is_used(v) || !any_used {
                mask |= 1 << c;
                kept.push(v);
            } else {
                dropped.push(v);
            }
        }
        masks.push(mask);
    }
    if next != data.results.len() || dropped.is_empty() {
        return 0;
    }
    let origin = data.origin;
    if let Some(data) = get_mut(&mut func.insts, inst) {
        if let Op::Opaque { inst: template, .. } = &mut data.op {
            for (dst, mask) in template.dst.iter_mut().zip(masks) {
                dst.write_mask = mask;
            }
        }
        data.results = kept;
    }
    // A dropped value still needs a definition that lists it: an undef
    // that is placed nowhere (and so is dead).
    for &v in &dropped {
        let undef = func.insts.push(InstData {
            op: Op::Undef,
            args: Default::default(),
            results: smallvec_of(&[v]),
            saturate: false,
            precise: false,
            origin,
        });
        if let Some(vd) = get_mut(&mut func.values, v) {
            vd.def = undef;
        }
    }
    dropped.len() as u64
}

/// Makes a texture or sample instruction with one destination write all
/// four channels, with new results nothing reads for those its source
/// left out; returns how many it added. For a target whose compiler
/// writes a partial mask as a whole write and a `MOV` (i915's `texld`).
fn widen_channels(func: &mut Function, inst: Inst) -> u64 {
    let Some(data) = func.insts.get(inst) else { return 0 };
    let Op::Opaque { inst: template, .. } = &data.op else { return 0 };
    let info = template.opcode.info();
    let [dst] = template.dst.as_slice() else { return 0 };
    let mask = dst.write_mask & 0xf;
    let whole = mask == 0xf || !ir::is_value_destination(dst.reg.file) || has_effect(data);
    if whole || !(info.is_tex() || info.has(flags::SAMPLE)) || data.results.len() != mask.count_ones() as usize {
        return 0;
    }
    let old = data.results.clone();
    let mut results = smallvec_of(&[]);
    let mut old_values = old.iter();
    for c in 0..4u8 {
        if mask & (1 << c) != 0 {
            results.extend(old_values.next().copied());
        } else {
            results.push(func.values.push(ir::ValueData { ty: ir::Ty::B32, def: inst }));
        }
    }
    let Some(data) = get_mut(&mut func.insts, inst) else { return 0 };
    if let Op::Opaque { inst: template, .. } = &mut data.op {
        if let Some(dst) = template.dst.first_mut() {
            dst.write_mask |= 0xf;
        }
    }
    data.results = results;
    u64::from(4 - mask.count_ones())
}

fn smallvec_of(values: &[Value]) -> smallvec::SmallVec<[Value; 1]> {
    values.iter().copied().collect()
}

// ----- empty structure -----

fn remove_structures(func: &mut Function, counts: &mut Counts) -> bool {
    let mut body = std::mem::take(&mut func.body);
    let mut rw = Rewrites::default();
    let mut changed = false;
    // Inner constructs first: an IF holding only an empty IF is empty once
    // the inner one is gone.
    for_each_region_post_order_mut(&mut body, |region| {
        let mut i = 1;
        while i < region.len() {
            if try_remove(region, i, func, &mut rw, counts) {
                changed = true;
            } else {
                i += 1;
            }
        }
    });
    func.body = body;
    if changed {
        apply(func, &rw);
    }
    changed
}

#[derive(Clone, Copy)]
enum Kind {
    If,
    Loop,
    Switch,
}

/// Removes `region[i]` when it is an empty construct (see the module
/// documentation), merging the block after it into the block before it.
fn try_remove(region: &mut Region, i: usize, func: &mut Function, rw: &mut Rewrites, counts: &mut Counts) -> bool {
    let (Some(Node::Block(bc)), Some(node), Some(Node::Block(bm))) =
        (region.get(i - 1), region.get(i), region.get(i + 1))
    else {
        return false;
    };
    let (bc, bm) = (*bc, *bm);
    let Some((kind, inner_blocks)) = empty_construct(node, func) else { return false };
    if func.blocks.get(bc).is_none_or(|b| b.exit != Exit::Fallthrough) {
        return false;
    }
    // Every phi after the construct must get one value from every way in.
    let Some(merge) = func.blocks.get(bm) else { return false };
    let mut resolved = Vec::new();
    let mut phis = 0;
    for &inst in &merge.insts {
        let Some(data) = func.insts.get(inst) else { return false };
        if !matches!(data.op, Op::Phi { .. }) {
            break;
        }
        let mut args = data.args.iter().map(|a| rw.value(a.value));
        let Some(first) = args.next() else { return false };
        if !args.all(|a| a == first) {
            return false;
        }
        let Some(&result) = data.results.first() else { return false };
        resolved.push((result, first));
        phis += 1;
    }
    for (phi, value) in resolved {
        rw.replace_value(phi, value);
    }
    if !merge_block(func, bc, bm, phis, rw) {
        return false;
    }
    region.drain(i..=i + 1);
    counts.phis += phis as u64;
    counts.blocks += inner_blocks + 1;
    match kind {
        Kind::If => counts.ifs += 1,
        Kind::Loop => counts.loops += 1,
        Kind::Switch => counts.switches += 1,
    }
    true
}

/// The kind of an empty construct and how many blocks it holds; `None`
/// when it is not empty.
fn empty_construct(node: &Node, func: &Function) -> Option<(Kind, u64)> {
    // One construct and the blocks of its regions: not a walk.
    match node {
        Node::Block(_) => None,
        Node::If(n) => {
            let then = empty_blocks(&n.then_region, func)?;
            let els = empty_blocks(&n.else_region, func)?;
            let falls = |blocks: &[Exit]| blocks.iter().all(|&e| e == Exit::Fallthrough);
            (falls(&then) && falls(&els)).then_some((Kind::If, (then.len() + els.len()) as u64))
        }
        Node::Loop(n) => {
            // Runs once: the body is empty and ends in its only exit, a
            // break (no continue, no latch). Anything else may not end.
            let body = empty_blocks(&n.body, func)?;
            let (last, before) = body.split_last()?;
            (*last == Exit::Break && before.iter().all(|&e| e == Exit::Fallthrough))
                .then_some((Kind::Loop, body.len() as u64))
        }
        Node::Switch(n) => {
            let mut blocks = 0;
            for case in &n.cases {
                let exits = empty_blocks(&case.body, func)?;
                if !exits.iter().all(|&e| matches!(e, Exit::Fallthrough | Exit::Break)) {
                    return None;
                }
                blocks += exits.len() as u64;
            }
            Some((Kind::Switch, blocks))
        }
    }
}

/// The exits of a region's blocks when it holds only blocks without
/// instructions.
fn empty_blocks(region: &Region, func: &Function) -> Option<Vec<Exit>> {
    region
        .iter()
        .map(|node| match node {
            Node::Block(b) => func.blocks.get(*b).filter(|bd| bd.insts.is_empty()).map(|bd| bd.exit),
            _ => None,
        })
        .collect()
}
