//! `legalize-doubles`: rewrites double-precision and 64-bit integer
//! operations into what a target supports ([`Wide64`]).
//!
//! The pass walks every block; each 64-bit ALU operation the target lacks
//! (and DFRACEXP, kept whole by the IR) is replaced, where it stands, by
//! its lowering ([`lower`]): the structured lowerings of [`newton`] and
//! [`bits`] where the target has double arithmetic, the emulation of
//! [`soft`] where it has not. A lowering may emit operations the target
//! lacks too (DFRAC emits DADD); they are lowered in the next round, and
//! the rounds stop after [`MAX_ROUNDS`] (every lowering only emits
//! operations of lower rank: soft emulation emits 32-bit operations,
//! `newton` and `bits` emit DFMA, DMUL, DADD and conversions), so the pass
//! always ends. What is left unlowered is counted in `ops not lowered`.
//!
//! With `one-double` every 64-bit operation of the second pair (`.zw`)
//! loses its source instruction in its origin, so emission writes it as
//! an instruction of its own instead of regrouping it with the first pair
//! into one `.xyzw` instruction.

pub mod bits;
pub mod emit;
pub mod halves;
pub mod newton;
pub mod soft;
mod soft_float;
mod soft_int64;

pub use target::{Preset, Wide64};

use ir::{Function, Inst, Op, Operand, Value};
use tgsi::{Opcode, OperandType};

use crate::rewrite::{apply, Rewrites};
use crate::{Pass, PassResult, Stats};
use emit::{Builder, Emit};
use halves::*;

/// How many times at most the pass lowers what the previous round emitted.
pub const MAX_ROUNDS: usize = 8;

/// The presets that are 64-bit opcode sets on softpipe's stages (`full`,
/// `one-double`, `no-fp64-div`, `fp64-basic`, `no-fp64`, `no-int64`): what
/// the pass's lowerings are checked against.
pub fn presets() -> impl Iterator<Item = &'static Preset> {
    target::PRESETS.iter().filter(|p| p.wide64_set)
}

/// The 64-bit opcode set preset called `name`.
pub fn preset(name: &str) -> Option<&'static Preset> {
    presets().find(|p| p.name == name)
}

/// The 64-bit opcode set presets' names, comma-separated.
pub fn preset_names() -> String {
    presets().map(|p| p.name).collect::<Vec<_>>().join(", ")
}

/// The `legalize-doubles` pass for one target.
#[derive(Clone, Debug)]
pub struct LegalizeDoubles {
    caps: Option<Wide64>,
}

impl LegalizeDoubles {
    /// The pass for a target with `caps`.
    pub fn new(caps: Wide64) -> Self {
        LegalizeDoubles { caps: Some(caps) }
    }

    /// The registered pass, not yet given a target: it must be configured
    /// (see [`crate::Config`]) before it runs.
    pub const fn unconfigured() -> Self {
        LegalizeDoubles { caps: None }
    }

    /// The target, if configured.
    pub fn caps(&self) -> Option<&Wide64> {
        self.caps.as_ref()
    }
}

impl Pass for LegalizeDoubles {
    fn name(&self) -> &'static str {
        "legalize-doubles"
    }

    fn description(&self) -> &'static str {
        "Rewrites double and 64-bit integer operations the target (--target or --caps) lacks into ones it has"
    }

    fn run(&self, module: &mut ir::Module) -> PassResult {
        // Unconfigured (a pipeline built without a target) changes nothing.
        let Some(caps) = &self.caps else { return PassResult::default() };
        let counts = legalize(&mut module.function, caps);
        let mut stats = Stats::default();
        stats.add("ops lowered", counts.lowered);
        stats.add("ops not lowered", counts.not_lowered);
        stats.add("pairs split", counts.split);
        PassResult { changed: counts.lowered + counts.split > 0, stats }
    }

    fn configure(&self, config: &crate::Config) -> Result<Option<std::sync::Arc<dyn Pass>>, crate::ConfigError> {
        match &config.target {
            Some(target) => Ok(Some(std::sync::Arc::new(LegalizeDoubles::new(target.wide.clone())))),
            None => Err(crate::ConfigError::NeedsTarget { pass: "legalize-doubles" }),
        }
    }
}

/// What [`legalize`] did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    /// Operations replaced by their lowering (over all rounds).
    pub lowered: u64,
    /// Operations the target lacks that are still there.
    pub not_lowered: u64,
    /// Second-pair operations made separate instructions (`one-double`).
    pub split: u64,
}

/// Rewrites `func` for `caps`; see the module documentation.
pub fn legalize(func: &mut Function, caps: &Wide64) -> Counts {
    let mut counts = Counts::default();
    for _ in 0..MAX_ROUNDS {
        let lowered = round(func, caps);
        counts.lowered += lowered;
        if lowered == 0 {
            break;
        }
    }
    counts.not_lowered = func
        .blocks_in_order()
        .iter()
        .flat_map(|&b| func.blocks[b].insts.clone())
        .filter(|&i| needs_lowering(func, i, caps).is_some())
        .count() as u64;
    if caps.one_double {
        counts.split = separate_pairs(func);
    }
    counts
}

/// The opcode of `inst` if it is an operation `caps` lacks.
fn needs_lowering(func: &Function, inst: Inst, caps: &Wide64) -> Option<Opcode> {
    match &func.insts[inst].op {
        Op::Alu { opcode, .. } if !caps.is_native(*opcode) => Some(*opcode),
        Op::Opaque { inst: t, .. } if t.opcode == Opcode::Dfracexp && !caps.is_native(Opcode::Dfracexp) => {
            Some(Opcode::Dfracexp)
        }
        _ => None,
    }
}

/// One pass over every block; returns how many operations it replaced.
fn round(func: &mut Function, caps: &Wide64) -> u64 {
    let mut rw = Rewrites::default();
    let mut lowered = 0;
    for block in func.blocks_in_order() {
        let insts = func.blocks[block].insts.clone();
        let mut out = Vec::with_capacity(insts.len());
        for inst in insts {
            let replaced = needs_lowering(func, inst, caps).and_then(|op| lower_inst(func, inst, op, caps, &mut rw));
            match replaced {
                Some(new) => {
                    out.extend(new);
                    lowered += 1;
                }
                None => out.push(inst),
            }
        }
        func.blocks[block].insts = out;
    }
    apply(func, &rw);
    lowered
}

/// Lowers one instruction: the new instructions in order, with the old
/// results mapped to the new values in `rw`; `None` when there is no
/// lowering (the instruction stays).
fn lower_inst(func: &mut Function, inst: Inst, opcode: Opcode, caps: &Wide64, rw: &mut Rewrites) -> Option<Vec<Inst>> {
    let data = func.insts[inst].clone();
    // The new instructions get no source instruction: emission would
    // regroup consecutive ones with equal opcodes into one vector
    // instruction, and a lowering's operations depend on each other.
    let mut b = Builder::new(func, ir::Origin::default());
    if opcode == Opcode::Dfracexp {
        // frexp is made of integer operations: it is lowered for every target.
        let Op::Opaque { inst: t, .. } = &data.op else { return None };
        let map = lower_dfracexp(&mut b, t, &data.args)?;
        // Results exist only for destinations in value files.
        if map.len() != data.results.len() {
            return None;
        }
        let insts = std::mem::take(&mut b.insts);
        for (old, new) in data.results.iter().zip(map) {
            rw.replace_value(*old, new);
        }
        return Some(insts);
    }
    let args: Vec<Value> = data.args.iter().enumerate().map(|(i, a)| modified(&mut b, opcode, i, *a)).collect();
    let mut v = lower(&mut b, opcode, &args, caps)?;
    let float_sat = data.saturate && matches!(opcode.dst_type(), OperandType::Float);
    if data.saturate && opcode.dst_type() == OperandType::Double {
        v = saturate(&mut b, v);
    } else if float_sat {
        // A saturated float result of a 64-bit operation (D2F_SAT) keeps
        // its clamp as a MOV_SAT. Integer results ignore `_SAT`.
        v = b.alu(Opcode::Mov, &[v]);
    }
    let insts = std::mem::take(&mut b.insts);
    if float_sat {
        let last = *insts.last()?;
        func.insts[last].saturate = true;
    }
    let old = *data.results.first()?;
    if func.ty(old) != func.ty(v) {
        return None;
    }
    rw.replace_value(old, v);
    Some(insts)
}

/// The lowering of one operation for `caps`: emulation where the target
/// has no double arithmetic (or for 64-bit integers), the structured
/// lowerings otherwise, and the other as a fallback.
pub fn lower<E: Emit>(e: &mut E, opcode: Opcode, args: &[E::V], caps: &Wide64) -> Option<E::V> {
    let structured = |e: &mut E| newton::lower(e, opcode, args).or_else(|| bits::lower(e, opcode, args));
    if !target::is_double_opcode(opcode) {
        soft::lower(e, opcode, args)
    } else if !caps.has_fp64_arithmetic() {
        // Emulation first; the bit-level lowerings serve what it does not
        // cover (DFRAC, DLDEXP, the rounding ops): the DADD or DMUL some of
        // them emit is emulated in the next round.
        soft::lower(e, opcode, args).or_else(|| bits::lower(e, opcode, args))
    } else {
        structured(e).or_else(|| soft::lower(e, opcode, args))
    }
}

/// Operand `i` of `opcode` with its source modifiers applied by explicit
/// operations, as `semantics::apply_modifiers` defines them.
fn modified(b: &mut Builder<'_>, opcode: Opcode, i: usize, a: Operand) -> Value {
    if !a.neg && !a.abs {
        return a.value;
    }
    let v = a.value;
    match opcode.src_type(i) {
        OperandType::Double => {
            let h = halves(b, v);
            let mut hi = h.hi;
            if a.abs {
                hi = opk(b, Opcode::And, hi, !SIGN);
            }
            if a.neg {
                hi = opk(b, Opcode::Xor, hi, SIGN);
            }
            b.pack(h.lo, hi)
        }
        OperandType::Float | OperandType::Untyped => {
            let mut x = v;
            if a.abs {
                x = opk(b, Opcode::And, x, 0x7fff_ffff);
            }
            if a.neg {
                x = opk(b, Opcode::Xor, x, 0x8000_0000);
            }
            x
        }
        OperandType::Int => {
            let x = if a.abs { b.alu(Opcode::Iabs, &[v]) } else { v };
            if a.neg {
                b.alu(Opcode::Ineg, &[x])
            } else {
                x
            }
        }
        OperandType::Uint => {
            if a.neg {
                b.alu(Opcode::Ineg, &[v])
            } else {
                v
            }
        }
        OperandType::Int64 => {
            let x = if a.abs { b.alu(Opcode::I64abs, &[v]) } else { v };
            if a.neg {
                b.alu(Opcode::I64neg, &[x])
            } else {
                x
            }
        }
        OperandType::Uint64 => {
            if a.neg {
                b.alu(Opcode::I64neg, &[v])
            } else {
                v
            }
        }
    }
}

/// `_SAT` on a double: NaN and values below zero (not -0.0) give +0.0,
/// values above one give 1.0, as `semantics::saturate`.
pub fn saturate<E: Emit>(e: &mut E, v: E::V) -> E::V {
    let x = halves(e, v);
    let c = classify(e, x);
    let nz = not(e, c.zero);
    let below = and(e, c.neg, nz);
    let to_zero = or(e, below, c.nan);
    let one = konst(e, 1f64.to_bits());
    let pos = not(e, c.neg);
    let above_one = ult(e, one, x);
    let above_one = and(e, pos, above_one);
    let zero = konst(e, 0);
    let r = select(e, above_one, one, x);
    let r = select(e, to_zero, zero, r);
    join(e, r)
}

/// DFRACEXP kept whole: its operand's four channels are `args[0..4]`, its
/// results the written channels of the significand (`dst0`) then of the
/// exponent (`dst1`). Pair `p` (`.xy`, `.zw`) of the significand gets
/// frexp's significand of pair `p` of the operand; the exponent of pair
/// `p` goes to the first written channel of `dst1` among `2p`, `2p + 1`
/// (as 64-bit comparisons write their 32-bit result). Other written
/// exponent channels get 0.
fn lower_dfracexp(b: &mut Builder<'_>, t: &tgsi::Instruction, args: &[Operand]) -> Option<Vec<Value>> {
    if t.dst.len() != 2 || args.len() < 4 || args.iter().any(|a| a.neg || a.abs) || t.saturate {
        return None;
    }
    let (m0, m1) = (t.dst[0].write_mask & 0xf, t.dst[1].write_mask & 0xf);
    let mut sig = [None; 4];
    let mut exp = [None; 4];
    for p in 0..2usize {
        let pair_mask = 0b11 << (2 * p);
        if (m0 | m1) & pair_mask == 0 {
            continue;
        }
        let x = b.pack(args[2 * p].value, args[2 * p + 1].value);
        let (s, e) = bits::dfracexp(b, x);
        let (lo, hi) = b.split(s);
        sig[2 * p] = Some(lo);
        sig[2 * p + 1] = Some(hi);
        let first = if m1 & (1 << (2 * p)) != 0 { 2 * p } else { 2 * p + 1 };
        exp[first] = Some(e);
    }
    let zero = b.k32(0);
    let mut out = Vec::new();
    for (c, s) in sig.iter().enumerate() {
        if m0 & (1 << c) != 0 {
            out.push((*s)?);
        }
    }
    for (c, x) in exp.iter().enumerate() {
        if m1 & (1 << c) != 0 {
            out.push(x.unwrap_or(zero));
        }
    }
    Some(out)
}

/// Clears the source instruction of every 64-bit ALU operation of the
/// second pair (the second one from one source instruction in a block), so
/// emission writes each double with an instruction of its own (operations
/// a lowering emitted for the second pair have none already). Returns how
/// many it changed.
fn separate_pairs(func: &mut Function) -> u64 {
    let mut n = 0;
    for block in func.blocks_in_order() {
        let mut first_pairs = std::collections::HashSet::new();
        for i in func.blocks[block].insts.clone() {
            let data = &mut func.insts[i];
            let (Op::Alu { opcode, .. }, Some(source)) = (&data.op, data.origin.inst) else { continue };
            if !opcode.info().is_64bit() {
                continue;
            }
            if !first_pairs.insert(source) {
                data.origin.inst = None;
                n += 1;
            }
        }
    }
    n
}
