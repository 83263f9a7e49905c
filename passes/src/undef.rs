//! `undef`: reads of never-written register channels taken as undefined
//! (`--undef=any`), as NIR and hardware take them.
//!
//! The IR builder gives a channel read before any write the value
//! `initial`: the zero Mesa's interpreter starts registers with. Exact
//! passes keep that zero (emission writes it where a copy needs it:
//! `MOV OUT[1].w, IMM[0].xxxx`). This pass, which runs only when the
//! pipeline's [`Config`] says `undef: Undef::Any`, lets
//! each such read be whatever value is cheapest:
//!
//! - a store of `initial` to an output channel is removed (the channel
//!   keeps what it held);
//! - a phi whose other arguments are one value `v` defined in a block
//!   that dominates the phi becomes `v`; a phi argument that stays
//!   `initial` becomes `undef`, so emission copies nothing on that edge;
//! - an ALU operation with an `initial` operand that some choice of that
//!   operand reduces to another operand by an exact identity (`x * 1.0`,
//!   `x + -0.0`, `x | 0`, `x & ~0`, `CMP`/`UCMP` choosing between `x`
//!   and `initial`, ...) becomes that operand; one whose operands are
//!   all `initial` becomes `undef`.
//!
//! Everything else still reads zero (constant folding folds operations on
//! `initial` as zero, and indices and kept-whole instructions read it as
//! zero). The backend reads `undef` as zero, so a shader's results only
//! change where they depended on a never-written channel.

use ir::cfg::{Cfg, DomTree};
use ir::{Block, EntityRef, Function, Inst, InstData, Op, Origin, Ty, Value};
use rustc_hash::FxHashMap as HashMap;
use tgsi::Opcode;

use crate::constfold::{identity, Outcome, Pat};
use crate::rewrite::{apply, get_mut, Rewrites};
use crate::{Config, ConfigError, Pass, PassResult, Stats};

/// How passes read a register channel nothing wrote before.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Undef {
    /// As the zero Mesa's interpreter reads: every result stays
    /// bit-identical (the default).
    #[default]
    Exact,
    /// As any value: the `undef` pass may pick whichever is cheapest.
    Any,
}

impl Undef {
    /// The names `--undef` takes.
    pub const NAMES: &'static str = "exact, any";

    /// The mode called `name` (`exact` or `any`).
    pub fn parse(name: &str) -> Option<Undef> {
        match name {
            "exact" => Some(Undef::Exact),
            "any" => Some(Undef::Any),
            _ => None,
        }
    }
}

/// The `undef` pass; see the module documentation.
pub struct UndefReads;

impl Pass for UndefReads {
    fn name(&self) -> &'static str {
        "undef"
    }

    fn description(&self) -> &'static str {
        "With --undef=any: takes reads of never-written register channels as undefined (drops their stores to \
         outputs, their phi copies, and operations they make trivial)"
    }

    fn run(&self, module: &mut ir::Module) -> PassResult {
        let counts = undef_reads(&mut module.function, &module.immediates);
        PassResult { changed: counts.changed(), stats: counts.stats() }
    }

    fn configure(&self, config: &Config) -> Result<Option<std::sync::Arc<dyn Pass>>, ConfigError> {
        match config.undef {
            Undef::Any => Ok(None),
            Undef::Exact => Err(ConfigError::NeedsUndefAny { pass: "undef" }),
        }
    }
}

/// What one [`undef_reads`] did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    /// Stores of undefined values to outputs removed.
    pub stores: u64,
    /// Phis reduced to their one defined argument.
    pub phis: u64,
    /// Phi arguments made `undef` (no copy on that edge).
    pub phi_args: u64,
    /// ALU operations reduced to an operand or to `undef`.
    pub ops: u64,
}

impl Counts {
    /// Whether anything changed.
    pub fn changed(&self) -> bool {
        *self != Counts::default()
    }

    /// The counters, in a fixed order, zeros included.
    pub fn stats(&self) -> Stats {
        let mut s = Stats::default();
        s.add("stores removed", self.stores);
        s.add("phis resolved", self.phis);
        s.add("phi copies dropped", self.phi_args);
        s.add("ops resolved", self.ops);
        s
    }
}

/// Whether `v` is a never-written channel's value.
fn is_initial(func: &Function, v: Value) -> bool {
    func.values.get(v).and_then(|vd| func.insts.get(vd.def)).is_some_and(|d| d.op == Op::Initial)
}

fn is_undef(func: &Function, v: Value) -> bool {
    func.values.get(v).and_then(|vd| func.insts.get(vd.def)).is_some_and(|d| d.op == Op::Undef)
}

/// Undefined for the rules: `initial` or `undef`.
fn undefined(func: &Function, v: Value) -> bool {
    is_initial(func, v) || is_undef(func, v)
}

/// Values the undefined operand is tried as, to find an identity.
const CHOICES: [u64; 5] = [0, 0x8000_0000, 0x3f80_0000, 1, 0xffff_ffff];

/// Applies the rules until nothing changes; see the module documentation.
pub fn undef_reads(func: &mut Function, immediates: &[tgsi::Immediate]) -> Counts {
    let mut counts = Counts::default();
    for _ in 0..func.insts.len() + 1 {
        let before = counts;
        one_round(func, immediates, &mut counts);
        if counts == before {
            break;
        }
    }
    counts
}

fn one_round(func: &mut Function, immediates: &[tgsi::Immediate], counts: &mut Counts) {
    let cfg = Cfg::new(func);
    let dom = DomTree::new(&cfg);
    let blocks = func.blocks_in_order();
    let Some(&entry) = blocks.first() else { return };
    let mut undef: Option<Value> = None;
    let mut rw = Rewrites::default();
    let mut def_block: HashMap<Inst, Block> = HashMap::default();
    for &b in &blocks {
        for &i in func.blocks.get(b).map(|bd| bd.insts.as_slice()).unwrap_or_default() {
            def_block.insert(i, b);
        }
    }
    for &b in &blocks {
        let insts = func.blocks.get(b).map(|bd| bd.insts.clone()).unwrap_or_default();
        let mut kept = Vec::with_capacity(insts.len());
        for inst in insts {
            if let Some(d) = get_mut(&mut func.insts, inst) {
                for a in d.args.iter_mut() {
                    a.value = rw.value(a.value);
                }
            }
            let Some(d) = func.insts.get(inst) else { continue };
            match &d.op {
                Op::StoreOutput { .. } if d.args.first().is_some_and(|a| undefined(func, a.value)) => {
                    counts.stores += 1;
                    continue;
                }
                Op::Phi { .. } => {
                    if let Some(v) = resolved_phi(func, &dom, &def_block, b, inst) {
                        rw.replace_value(func.result(inst), v);
                        counts.phis += 1;
                        continue;
                    }
                    let initial_args: Vec<usize> =
                        d.args.iter().enumerate().filter(|(_, a)| is_initial(func, a.value)).map(|(k, _)| k).collect();
                    if !initial_args.is_empty() && func.values.get(func.result(inst)).is_some_and(|vd| vd.ty == Ty::B32)
                    {
                        let u = *undef.get_or_insert_with(|| new_undef(func));
                        if let Some(d) = get_mut(&mut func.insts, inst) {
                            for k in initial_args {
                                d.args[k].value = u;
                                counts.phi_args += 1;
                            }
                        }
                    }
                }
                Op::Alu { .. } => match resolved_alu(func, immediates, inst) {
                    Some(Resolved::Operand(v)) => {
                        rw.replace_value(func.result(inst), v);
                        counts.ops += 1;
                        continue;
                    }
                    Some(Resolved::Undef) => {
                        let u = *undef.get_or_insert_with(|| new_undef(func));
                        rw.replace_value(func.result(inst), u);
                        counts.ops += 1;
                        continue;
                    }
                    None => {}
                },
                _ => {}
            }
            kept.push(inst);
        }
        if let Some(bd) = get_mut(&mut func.blocks, b) {
            bd.insts = kept;
        }
    }
    // The undef value is placed first in the entry block, so it
    // dominates every use.
    if let Some(u) = undef {
        let def = func.values[u].def;
        if let Some(bd) = get_mut(&mut func.blocks, entry) {
            bd.insts.insert(0, def);
        }
    }
    apply(func, &rw);
}

/// A new 32-bit `undef` value (not yet placed).
fn new_undef(func: &mut Function) -> Value {
    let inst = func.add_inst(Op::Undef, &[], &[Ty::B32], Origin::default());
    func.result(inst)
}

/// The one defined argument of a phi whose other arguments are undefined
/// (or the phi itself), when its definition dominates the phi's block.
fn resolved_phi(
    func: &Function,
    dom: &DomTree,
    def_block: &HashMap<Inst, Block>,
    b: Block,
    inst: Inst,
) -> Option<Value> {
    let d: &InstData = func.insts.get(inst)?;
    let result = *d.results.first()?;
    // Copies are their operands (an arm's `MOV` of a value from before).
    let mut defined =
        d.args.iter().filter(|a| a.value != result && !undefined(func, a.value)).map(|a| (copied(func, a.value), a));
    let (first, a) = defined.next()?;
    if a.neg || a.abs || defined.any(|(v, a)| v != first || a.neg || a.abs) {
        return None;
    }
    if !d.args.iter().any(|a| undefined(func, a.value)) {
        return None;
    }
    let at = *def_block.get(&func.values.get(first)?.def)?;
    dom.dominates(at, b).then_some(first)
}

/// What `v` is a plain copy of, following copies (`v` itself if it is
/// none): a `MOV` without modifiers or `_SAT` copies its operand's bits.
fn copied(func: &Function, mut v: Value) -> Value {
    // Bounded: a copy's operand is defined before it.
    for _ in 0..func.insts.len() {
        let Some(d) = func.values.get(v).and_then(|vd| func.insts.get(vd.def)) else { break };
        match (&d.op, d.args.as_slice()) {
            (Op::Alu { opcode: Opcode::Mov, .. }, [a]) if !d.saturate && !a.neg && !a.abs => v = a.value,
            _ => break,
        }
    }
    v
}

enum Resolved {
    Operand(Value),
    Undef,
}

/// What an ALU operation with undefined operands reduces to, if anything.
fn resolved_alu(func: &Function, immediates: &[tgsi::Immediate], inst: Inst) -> Option<Resolved> {
    let d = func.insts.get(inst)?;
    let Op::Alu { opcode, .. } = d.op else { return None };
    let result = *d.results.first()?;
    if d.precise || func.values.get(result)?.ty != Ty::B32 || d.args.is_empty() {
        return None;
    }
    let info = opcode.info();
    let pure = info.flags
        & (tgsi::flags::SIDE_EFFECT
            | tgsi::flags::STORE
            | tgsi::flags::CONTROL_FLOW
            | tgsi::flags::TEX
            | tgsi::flags::SAMPLE
            | tgsi::flags::MEMORY)
        == 0;
    // An address register keeps its instruction (emission needs the index
    // in ADDR); derivatives read other invocations.
    if !pure
        || info.is_64bit()
        || d.origin.dst.is_some_and(|r| r.file == tgsi::File::Address)
        || matches!(opcode, Opcode::Ddx | Opcode::Ddy | Opcode::DdxFine | Opcode::DdyFine)
    {
        return None;
    }
    let undefined_args: Vec<usize> =
        d.args.iter().enumerate().filter(|(_, a)| undefined(func, a.value)).map(|(k, _)| k).collect();
    if undefined_args.is_empty() {
        return None;
    }
    if undefined_args.len() == d.args.len() {
        return Some(Resolved::Undef);
    }
    if d.saturate || !matches!(info.mode, tgsi::ChannelMode::Componentwise) {
        return None;
    }
    // CMP and UCMP choose: an undefined chosen operand can be the other
    // one, an undefined condition can choose the first.
    if let (Opcode::Cmp | Opcode::Ucmp, [c, a, b]) = (opcode, d.args.as_slice()) {
        let plain = |o: &ir::Operand| !o.neg && !o.abs && !undefined(func, o.value);
        let pick = match (undefined(func, c.value), undefined(func, a.value), undefined(func, b.value)) {
            (_, true, false) if plain(b) => Some(b.value),
            (_, false, true) if plain(a) => Some(a.value),
            (true, false, false) if plain(a) => Some(a.value),
            _ => None,
        };
        return pick.map(Resolved::Operand);
    }
    // Try each undefined operand as each choice; an identity that gives
    // a defined operand (unmodified, of the result's width) wins.
    let konst = |v: Value| match func.values.get(v).and_then(|vd| func.insts.get(vd.def)).map(|d| &d.op) {
        Some(Op::Const(bits)) => Some(*bits),
        _ => None,
    };
    for choice in CHOICES {
        let pats: Vec<Pat> = d
            .args
            .iter()
            .enumerate()
            .map(|(k, a)| match konst(a.value) {
                _ if undefined_args.contains(&k) => Pat::Known(choice),
                Some(bits) => Pat::Known(semantics::apply_modifiers(opcode.src_type(k), bits, a.neg, a.abs)),
                None => Pat::Unknown {
                    id: a.value.index(),
                    neg: a.neg,
                    abs: a.abs,
                    quiet: crate::constfold::is_quiet(func, immediates, a.value),
                },
            })
            .collect();
        if let Some(Outcome::Operand(k)) = identity(opcode, &pats) {
            let a = d.args.get(k)?;
            if !undefined_args.contains(&k) && !a.neg && !a.abs {
                return Some(Resolved::Operand(a.value));
            }
        }
    }
    None
}
