//! `coalesce`: replicated-scalar coalescing.
//!
//! A TGSI vector instruction becomes up to four scalar operations. When its
//! sources are broadcasts (`ADD TEMP[0], IN[0].xxxx, IN[1].xxxx`) the four
//! compute the same thing; a replicated-scalar opcode (RCP, RSQ, DP3, POW,
//! ...) computes one scalar that every written channel reads; and a shader
//! often computes the same value twice. This pass computes each such value
//! once: every later equal computation is replaced by the first, and
//! emission reads it through a broadcast swizzle (`TEMP[0].xxxx`), writing
//! it with one instruction (and the union writemask when it goes straight
//! to an output).
//!
//! It is global value numbering over the dominator tree: blocks are visited
//! in dominator-tree preorder with a scoped table of the computations seen
//! on the way from the entry, so the value an operation is merged into is
//! always defined before it (earlier in the same block or in a dominating
//! block). Two operations are equal when they have
//!
//! - the same operation: the same opcode, the same saturate and precise
//!   flags and the same result width, and for channel-dependent opcodes the
//!   same formula (the channel an ALU op records is its formula, see
//!   [`ir::channels::formula_chan`]: LIT's `.x` and `.w` are both 1, UP2H's
//!   `.x` and `.z` both unpack the low half; EXP, LOG, DST, UP4B and UP4UB
//!   have one formula per channel);
//! - the same operands, modifiers included, in the same order (after the
//!   operands themselves were merged);
//! - for results that go to an address register, both go to one (ADDR
//!   channels are not general sources).
//!
//! What it merges: ALU operations without effects, direct reads of inputs,
//! constants, system values and immediates (they do not change during an
//! invocation), constants, packs and splits of 64-bit values, and phis of
//! one block with the same value from every predecessor.
//!
//! What it does not merge: anything kept whole (textures, sampling, memory,
//! atomics, interpolation, cross-invocation operations), loads of register
//! arrays and indirectly addressed registers, operations with effects,
//! operations in blocks neither of which dominates the other (the two arms
//! of an `IF`), and derivatives (DDX, DDY) in different blocks: they read
//! the operand in the other invocations of the quad, which may not run the
//! same code. Sources 0 and 1 of the opcodes the table of operations says
//! commute (`semantics::Facts::commutes`: float `ADD`, `MUL` and `MAD`,
//! whose NaN results are canonical whichever operand
//! was a NaN; `UADD`, `AND`, the integer minima, ...) are compared in
//! either order.

use ir::cfg::{Cfg, DomTree};
use ir::{Block, EntityRef, Function, Inst, InstData, Op, Operand, Source, Ty, Value};
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};
use smallvec::SmallVec;
use tgsi::{flags, ChannelMode, File, Opcode};

use crate::rewrite::{apply, Rewrites};
use crate::{Pass, PassResult, Stats};

/// The `coalesce` pass; see the module documentation.
pub struct Coalesce;

impl Pass for Coalesce {
    fn name(&self) -> &'static str {
        "coalesce"
    }

    fn description(&self) -> &'static str {
        "Computes replicated scalars and other equal computations once (global value numbering over the \
         dominator tree); readers use broadcast swizzles"
    }

    fn run(&self, module: &mut ir::Module) -> PassResult {
        let counts = coalesce(&mut module.function);
        PassResult { changed: counts.changed(), stats: counts.stats() }
    }
}

/// What one [`coalesce`] merged.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    /// Values replaced by an equal value computed earlier (phis included).
    pub values: u64,
    /// Scalar ALU operations removed from the IR (a subset of `values`).
    pub alu: u64,
    /// Phis replaced by an equal phi of the same block (a subset of
    /// `values`).
    pub phis: u64,
}

impl Counts {
    /// Whether anything was merged.
    pub fn changed(&self) -> bool {
        self.values != 0
    }

    /// The counters, in a fixed order, zeros included.
    pub fn stats(&self) -> Stats {
        let mut s = Stats::default();
        s.add("values merged", self.values);
        s.add("scalar ALU ops saved", self.alu);
        s.add("phis merged", self.phis);
        s
    }
}

/// Whether an ALU opcode computes a function of its operands alone, so two
/// operations on the same operands may share one result. Derivatives are
/// pure only within one block (see the module documentation).
fn pure_alu(opcode: Opcode) -> bool {
    let info = opcode.info();
    let impure = flags::SIDE_EFFECT | flags::STORE | flags::CONTROL_FLOW | flags::TEX | flags::SAMPLE | flags::MEMORY;
    info.flags & impure == 0
        && matches!(info.mode, ChannelMode::Componentwise | ChannelMode::Replicate | ChannelMode::ChannelDependent)
}

/// Derivatives read the operand in the neighbouring invocations of the
/// quad: equal only under the same execution mask, that is in one block.
fn is_derivative(opcode: Opcode) -> bool {
    matches!(opcode, Opcode::Ddx | Opcode::Ddy | Opcode::DdxFine | Opcode::DdyFine)
}

/// What makes two computations equal.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Key {
    Const(u64, Ty),
    Read(Source),
    Pack(SmallVec<[Operand; 3]>),
    Split(bool, SmallVec<[Operand; 3]>),
    Alu {
        opcode: Opcode,
        chan: u8,
        args: SmallVec<[Operand; 3]>,
        saturate: bool,
        precise: bool,
        ty: Ty,
        /// The result goes to an address register.
        address: bool,
        /// The block, for derivatives.
        block: Option<Block>,
    },
    /// A phi: its block and its (predecessor, argument) pairs, sorted.
    Phi(Block, SmallVec<[(Block, Operand); 2]>),
}

/// The key of a placed instruction whose operands were already rewritten,
/// or `None` when it must not be merged.
fn key_of(func: &Function, block: Block, data: &InstData) -> Option<Key> {
    let [result] = data.results.as_slice() else { return None };
    let ty = func.values.get(*result)?.ty;
    match &data.op {
        Op::Const(bits) => Some(Key::Const(*bits, ty)),
        Op::Read(s) => Some(Key::Read(*s)),
        Op::Pack => Some(Key::Pack(data.args.clone())),
        Op::Split { hi } => Some(Key::Split(*hi, data.args.clone())),
        Op::Alu { opcode, chan } if pure_alu(*opcode) => Some(Key::Alu {
            opcode: *opcode,
            chan: *chan,
            args: ordered_args(*opcode, &data.args),
            saturate: data.saturate,
            precise: data.precise,
            ty,
            address: data.origin.dst.is_some_and(|d| d.file == File::Address),
            block: is_derivative(*opcode).then_some(block),
        }),
        Op::Phi { preds } if preds.len() == data.args.len() => {
            let mut pairs: SmallVec<[(Block, Operand); 2]> =
                preds.iter().copied().zip(data.args.iter().copied()).collect();
            pairs.sort_by_key(|&(b, _)| b.index());
            // A predecessor listed twice would make the pairing ambiguous.
            if pairs.windows(2).any(|w| w[0].0 == w[1].0) {
                return None;
            }
            Some(Key::Phi(block, pairs))
        }
        _ => None,
    }
}

/// The operands as the key compares them: for a commuting opcode whose
/// first two arguments are its sources 0 and 1, those two in a fixed
/// order, so `ADD a, b` and `ADD b, a` are one computation.
fn ordered_args(opcode: Opcode, args: &SmallVec<[Operand; 3]>) -> SmallVec<[Operand; 3]> {
    let mut args = args.clone();
    let commutes = semantics::facts(opcode).is_some_and(|f| f.commutes);
    let sources_first = semantics::arg_source(opcode, 0) == Some(0) && semantics::arg_source(opcode, 1) == Some(1);
    if commutes && sources_first && args.len() >= 2 {
        let key = |a: &Operand| (a.value.index(), a.neg, a.abs);
        if key(&args[1]) < key(&args[0]) {
            args.swap(0, 1);
        }
    }
    args
}

/// Merges equal computations of `func` (see the module documentation).
///
/// ```
/// let text = "FRAG\nDCL IN[0]\nDCL IN[1]\nDCL OUT[0], COLOR\nDCL TEMP[0]\n\
///             ADD TEMP[0], IN[0].xxxx, IN[1].xxxx\nMOV OUT[0], TEMP[0]\nEND\n";
/// let mut module = ir::from_tgsi(&tgsi::parse(text).unwrap()).unwrap();
/// let counts = passes::coalesce::coalesce(&mut module.function);
/// // The ADD's four equal channels are one, and so are the four copies of it.
/// assert_eq!(counts.alu, 6);
/// ir::verify::verify(&module.function).unwrap();
/// ```
pub fn coalesce(func: &mut Function) -> Counts {
    let mut counts = Counts::default();
    let cfg = Cfg::new(func);
    let dom = DomTree::new(&cfg);
    let Some(entry) = cfg.entry().filter(|&e| dom.is_reachable(e)) else { return counts };
    let mut rw = Rewrites::default();
    let mut phi_uses = phi_uses(func);
    let mut stored = stored_values(func);
    let mut readers = alu_readers(func);
    // The scoped table: a key is removed again when the walk leaves the
    // block that added it, so only dominating computations are found.
    let mut table: HashMap<Key, Value> = HashMap::default();
    let mut added: Vec<Key> = Vec::new();
    // (block, Some(mark)) leaves a block, restoring the table to `mark`.
    let mut stack: Vec<(Block, Option<usize>)> = vec![(entry, None)];
    while let Some((b, leave)) = stack.pop() {
        if let Some(mark) = leave {
            for k in added.drain(mark..) {
                table.remove(&k);
            }
            continue;
        }
        stack.push((b, Some(added.len())));
        for &c in dom.children(b).iter().rev() {
            stack.push((c, None));
        }
        let uses = Uses { phis: &mut phi_uses, stored: &mut stored, readers: &mut readers };
        visit_block(func, b, &mut rw, &mut table, &mut added, uses, &mut counts);
    }
    if counts.changed() {
        apply(func, &rw);
    }
    counts
}

/// Numbers the instructions of one block, dropping those merged into an
/// earlier equal one.
fn visit_block(
    func: &mut Function,
    b: Block,
    rw: &mut Rewrites,
    table: &mut HashMap<Key, Value>,
    added: &mut Vec<Key>,
    uses: Uses,
    counts: &mut Counts,
) {
    let Some(insts) = func.blocks.get(b).map(|bd| bd.insts.clone()) else { return };
    let mut siblings: HashMap<u32, SmallVec<[Inst; 4]>> = HashMap::default();
    for &inst in &insts {
        if let Some(origin) =
            func.insts.get(inst).filter(|d| matches!(d.op, Op::Alu { .. })).and_then(|d| d.origin.inst)
        {
            siblings.entry(origin).or_default().push(inst);
        }
    }
    let mut kept = Vec::with_capacity(insts.len());
    for inst in insts {
        if !func.insts.contains(inst) {
            kept.push(inst);
            continue;
        }
        // Operands defined in dominating blocks are final already (phi
        // arguments from later blocks are rewritten at the end).
        let data = &mut func.insts[inst];
        for a in data.args.iter_mut() {
            a.value = rw.value(a.value);
        }
        let data = &func.insts[inst];
        let Some(key) = key_of(func, b, data) else {
            kept.push(inst);
            continue;
        };
        let result = data.results[0];
        match table.get(&key) {
            // Two values that flow into phis of one block need registers
            // of their own there: merged, emission would copy one of them
            // back out (more instructions, not fewer).
            Some(&first)
                if !whole_instruction_merges(func, b, rw, table, &siblings, inst, first)
                    && uses.would_copy(func, first, result) =>
            {
                kept.push(inst)
            }
            Some(&first) => {
                move_uses(uses.phis, result, first);
                if flag(uses.stored, result) {
                    if let Some(s) = uses.stored.get_mut(first.index()) {
                        *s = true;
                    }
                }
                move_uses(uses.readers, result, first);
                rw.replace_value(result, first);
                counts.values += 1;
                match key {
                    Key::Alu { .. } => counts.alu += 1,
                    Key::Phi(..) => counts.phis += 1,
                    _ => {}
                }
            }
            None => {
                table.insert(key.clone(), result);
                added.push(key);
                kept.push(inst);
            }
        }
    }
    if let Some(bd) = func.blocks.get(b) {
        if bd.insts.len() != kept.len() {
            func.blocks[b].insts = kept;
        }
    }
}

/// The blocks whose phis read a value (few: inline, as a heap vector per
/// value was a large share of the pass's time).
type PhiBlocks = SmallVec<[Block; 2]>;

/// The ALU instructions reading a value (most values have a few).
type Readers = SmallVec<[Inst; 4]>;

/// A list per value, indexed by value: these tables cover every value
/// read, and hashing each was a large share of the pass's time.
type PerValue<T> = Vec<T>;

/// Moves `from`'s list to the end of `to`'s (`from` is merged into `to`).
fn move_uses<T: smallvec::Array>(lists: &mut PerValue<SmallVec<T>>, from: Value, to: Value) {
    let Some(moved) = lists.get_mut(from.index()).map(std::mem::take) else { return };
    if let Some(list) = lists.get_mut(to.index()) {
        list.extend(moved);
    }
}

/// Whether `v` is set in a per-value flag table (out of range: not).
fn flag(flags: &[bool], v: Value) -> bool {
    flags.get(v.index()).copied().unwrap_or(false)
}

/// The list of `v` in a per-value table (out of range: empty).
fn list_of<T: smallvec::Array>(lists: &PerValue<SmallVec<T>>, v: Value) -> &[T::Item] {
    lists.get(v.index()).map_or(&[][..], |l| l.as_slice())
}

/// The blocks whose phis read each value.
fn phi_uses(func: &Function) -> PerValue<PhiBlocks> {
    let mut uses: PerValue<PhiBlocks> = vec![SmallVec::new(); func.values.len()];
    for (b, inst) in placed(func) {
        if let Some(data) = func.insts.get(inst).filter(|d| matches!(d.op, Op::Phi { .. })) {
            for a in &data.args {
                if let Some(list) = uses.get_mut(a.value.index()) {
                    list.push(b);
                }
            }
        }
    }
    uses
}

/// The instructions in the function's blocks, with their block: what
/// earlier passes took out stays in the arena and must not count.
fn placed(func: &Function) -> impl Iterator<Item = (Block, Inst)> + '_ {
    ir::walk::blocks(&func.body)
        .filter_map(move |b| func.blocks.get(b).map(|bd| (b, bd)))
        .flat_map(|(b, bd)| bd.insts.iter().map(move |&i| (b, i)))
}

/// Whether every other channel of the TGSI instruction `inst` came from
/// is `first` or also equal to a computation already numbered, so that the
/// whole instruction goes and no copy is needed whatever reads it.
fn whole_instruction_merges(
    func: &Function,
    b: Block,
    rw: &Rewrites,
    table: &HashMap<Key, Value>,
    siblings: &HashMap<u32, SmallVec<[Inst; 4]>>,
    inst: Inst,
    first: Value,
) -> bool {
    let Some(origin) = func.insts.get(inst).and_then(|d| d.origin.inst) else { return false };
    let Some(group) = siblings.get(&origin) else { return false };
    group.iter().filter(|&&s| s != inst).all(|&s| {
        let Some(data) = func.insts.get(s) else { return false };
        if data.results.first() == Some(&first) {
            return true;
        }
        let mut data = data.clone();
        data.args.iter_mut().for_each(|a| a.value = rw.value(a.value));
        // Equal to a computation numbered before it (not just numbered
        // itself, as an earlier sibling is).
        let own = data.results.first().copied();
        key_of(func, b, &data).and_then(|k| table.get(&k).copied()).is_some_and(|v| Some(v) != own)
    })
}

/// The values stored to OUT registers.
fn stored_values(func: &Function) -> PerValue<bool> {
    let mut stored = vec![false; func.values.len()];
    let stores = placed(func).filter_map(|(_, i)| func.insts.get(i)).filter(|d| matches!(d.op, Op::StoreOutput { .. }));
    for a in stores.flat_map(|d| d.args.iter()) {
        if let Some(s) = stored.get_mut(a.value.index()) {
            *s = true;
        }
    }
    stored
}

/// The ALU instructions reading each value.
fn alu_readers(func: &Function) -> PerValue<Readers> {
    let mut readers: PerValue<Readers> = vec![SmallVec::new(); func.values.len()];
    for (_, inst) in placed(func) {
        let Some(data) = func.insts.get(inst).filter(|d| matches!(d.op, Op::Alu { .. })) else { continue };
        for a in &data.args {
            if let Some(list) = readers.get_mut(a.value.index()) {
                list.push(inst);
            }
        }
    }
    readers
}

/// The uses that decide whether a merge pays.
struct Uses<'a> {
    /// The blocks whose phis read each value.
    phis: &'a mut PerValue<PhiBlocks>,
    /// The values stored to outputs.
    stored: &'a mut PerValue<bool>,
    /// The ALU instructions reading each value.
    readers: &'a mut PerValue<Readers>,
}

impl Uses<'_> {
    /// Whether merging `b` into `a` would make emission copy the merged
    /// value out again, costing an instruction rather than saving one:
    /// when phis of one block read both (each phi web needs a register of
    /// its own), or when one is stored to an output and the two do not
    /// come from one TGSI instruction (whose channels emission writes to
    /// the output together), or when one TGSI instruction that writes the
    /// register `a` or `b` came from reads both (an in-place update such as
    /// `ADD TEMP[0], TEMP[0], ...`: its channels could no longer reuse the
    /// channels they read, and emission would shuffle them with copies).
    fn would_copy(&self, func: &Function, a: Value, b: Value) -> bool {
        let shares_phi_block = {
            let (x, y) = (list_of(self.phis, a), list_of(self.phis, b));
            x.iter().any(|blk| y.contains(blk))
        };
        let origin = |v: Value| func.values.get(v).and_then(|vd| func.insts.get(vd.def)).and_then(|d| d.origin.inst);
        let stored = flag(self.stored, a) || flag(self.stored, b);
        let register = |v: Value| {
            let d = func.values.get(v).and_then(|vd| func.insts.get(vd.def)).and_then(|d| d.origin.dst);
            d.map(|d| (d.file, d.index))
        };
        let readers = |v: Value| list_of(self.readers, v);
        // Values written to no register (constants, reads) have no in-place
        // update; else one pass over each list of readers, not one over
        // b's per reader of a (quadratic for a constant read everywhere).
        let (reg_a, reg_b) = (register(a), register(b));
        let in_place = (reg_a.is_some() || reg_b.is_some()) && {
            let b_sources: HashSet<Option<u32>> =
                readers(b).iter().filter_map(|&rb| func.insts.get(rb)).map(|o| o.origin.inst).collect();
            readers(a).iter().any(|&ra| {
                let Some(user) = func.insts.get(ra) else { return false };
                let writes = user.origin.dst.map(|d| (d.file, d.index));
                let updates = writes.is_some() && (writes == reg_a || writes == reg_b);
                updates && b_sources.contains(&user.origin.inst)
            })
        };
        shares_phi_block || in_place || (stored && (origin(a).is_none() || origin(a) != origin(b)))
    }
}
