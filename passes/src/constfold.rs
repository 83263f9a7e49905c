//! `constfold`: constant folding, copy propagation, exact algebraic
//! identities, constant branches and constant indirect indices.
//!
//! Repeated until nothing changes:
//!
//! 1. **Constant operations.** An `Alu` whose operands are all constants
//!    becomes a constant with exactly the bits the backend computes at run
//!    time: each operand goes through [`semantics::apply_modifiers`]
//!    (with the opcode table's source type, as the backend does), then
//!    [`semantics::eval`], then [`semantics::saturate`] when the
//!    instruction saturates. No operation's semantics is written here. A
//!    `Pack` of two constants, a `Split` of a constant and a phi whose
//!    arguments are all the same constant become constants too (`Pack` and
//!    `Split` only move bits, as the backend's `Step::Pack`/`Step::Split`
//!    do). Constants are `Const`, `Initial` (a zero) and immediates.
//! 2. **Copies.** The result of a plain `MOV` (no modifiers, no `_SAT`) is
//!    replaced by its operand everywhere, as is a `Split` of a `Pack` by the
//!    half it picks, and a phi whose arguments are all one value (or the
//!    phi itself, around a loop) by that value. Swizzles need nothing: in
//!    the scalar IR a swizzle is just which value an operand names.
//! 3. **Identities** that hold bit for bit under the backend's semantics
//!    (each has a unit test running `eval` over random and special bit
//!    patterns): integer `UADD x, 0`, `UADD x, -x`, `UMUL x, 1`,
//!    `UMUL x, 0`, `AND x, 0`, `AND x, ~0`, `AND x, x`, `OR x, 0`,
//!    `OR x, ~0`, `OR x, x`, `XOR x, 0`, `XOR x, x`, `UMIN`/`UMAX`/`IMIN`/
//!    `IMAX x, x`, shifts by a multiple of 32 (the backend masks the count
//!    to 5 bits); `CMP`/`UCMP` with a constant condition, or with equal
//!    chosen operands, give the chosen operand; and the float identities
//!    `MUL x, 1.0`, `ADD x, -0.0`, `DIV x, 1.0`, only when
//!    `x` is known not to be a signalling NaN (see `is_quiet`): IEEE
//!    arithmetic returns a signalling NaN quieted (bit 22 set), which would
//!    change the bits an integer op reading `x` sees. Quiet NaNs keep their
//!    payload, -0.0, infinities and denormals come back unchanged (x86-64
//!    SSE arithmetic, no flush to zero). Never `x * 0.0`, `x + 0.0` (wrong
//!    for -0.0), or float `x - x` (NaN, infinities).
//! 4. **Constant branches.** An `IF`/`UIF` whose condition is a constant is
//!    replaced by the arm the backend takes (`UIF`: bits nonzero; `IF`: the
//!    float is not equal to 0.0, so NaN takes the `then` arm; modifiers do
//!    not change either test, and the backend reads the raw bits). The
//!    block before, the arm and the block after are merged; the phis after
//!    it keep the value from the taken arm; phis elsewhere lose the entries
//!    of blocks in the dropped arm (a `BRK` or `CONT` in it).
//! 5. **Constant indices.** A `LoadIndirect` of `IN` or `CONST` whose
//!    indices are constants becomes a direct read when the register is
//!    declared; of `IMM`, the immediate's bits; a negative index gives the
//!    constant 0 the backend gives. `ArrayLoad`/`ArrayStore` with a
//!    constant index get it folded into their offset; out of the array, a
//!    load is the constant 0 and a store is removed, exactly as the backend
//!    does.
//!
//! What it leaves: `SWITCH` with a constant selector; loops; an `IF` whose
//! taken arm ends in `BRK`, `CONT` or `RET`, or whose dropped arm holds the
//! only way into some block with phis; float identities on values that
//! may be signalling NaNs; derivatives of constants. Dead instructions are
//! left for `dce` (copies and identities are taken out of their blocks, so
//! a second run finds nothing).

use ir::walk::for_each_region_post_order_mut;
use ir::{Block, EntityRef, Function, Inst, Module, Node, Op, Operand, Region, Source, Ty, Value};
use semantics::{apply_modifiers, eval, saturate};
use std::collections::{HashMap, HashSet};
use tgsi::{File, Opcode};

use crate::rewrite::{apply, get_mut, merge_block, Rewrites};
use crate::{Pass, PassResult, Stats};

/// The `constfold` pass; see the module documentation.
pub struct Constfold;

impl Pass for Constfold {
    fn name(&self) -> &'static str {
        "constfold"
    }

    fn description(&self) -> &'static str {
        "Folds constant operations with the backend's own arithmetic, propagates copies, applies bit-exact \
         identities, folds constant IF conditions and constant indirect indices"
    }

    fn run(&self, module: &mut ir::Module) -> PassResult {
        let counts = fold(module);
        PassResult { changed: counts.changed(), stats: counts.stats() }
    }
}

/// What one [`fold`] did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    /// Operations (ALU, pack, split, phis of one constant) that became
    /// constants.
    pub folded: u64,
    /// Values replaced by the value they copy (plain MOVs, splits of
    /// packs, phis of one value).
    pub copies: u64,
    /// Algebraic identities applied.
    pub identities: u64,
    /// `IF`s replaced by the arm they take.
    pub branches: u64,
    /// Indirect loads and stores made direct (or folded to 0, or removed,
    /// out of range).
    pub indices: u64,
}

impl Counts {
    /// Whether anything changed.
    pub fn changed(&self) -> bool {
        *self != Counts::default()
    }

    /// The counters, in a fixed order, zeros included.
    pub fn stats(&self) -> Stats {
        let mut s = Stats::default();
        s.add("ops folded", self.folded);
        s.add("copies propagated", self.copies);
        s.add("identities applied", self.identities);
        s.add("branches folded", self.branches);
        s.add("indices made direct", self.indices);
        s
    }
}

/// Folds `module` until nothing more changes.
///
/// ```
/// let text = "FRAG\nDCL OUT[0], COLOR\nIMM[0] FLT32 { 2.0, 3.0, 0.0, 0.0 }\nDCL TEMP[0]\n\
///             MUL TEMP[0].x, IMM[0].xxxx, IMM[0].yyyy\nMOV OUT[0], TEMP[0].xxxx\nEND\n";
/// let mut module = ir::from_tgsi(&tgsi::parse(text).unwrap()).unwrap();
/// let counts = passes::constfold::fold(&mut module);
/// assert_eq!(counts.folded, 1);
/// ir::verify::verify(&module.function).unwrap();
/// ```
pub fn fold(module: &mut Module) -> Counts {
    let mut counts = Counts::default();
    // Every round that changes something removes or rewrites at least one
    // instruction or construct for good; the bound only guards the loop.
    let rounds = module.function.insts.len() + module.function.blocks.len() + 2;
    for _ in 0..rounds {
        let before = counts;
        fold_values(module, &mut counts);
        fold_branches(&mut module.function, &mut counts);
        if counts == before {
            break;
        }
    }
    counts
}

// ----- values -----

/// What to do with one instruction.
enum Action {
    Keep,
    /// Rewritten in place.
    Changed(Counter),
    /// Its result is `Value` everywhere; the instruction goes.
    Replace(Value, Counter),
    /// The instruction goes (a store that never happens).
    Remove(Counter),
    /// A phi that became a constant: it moves after the phis.
    PhiConst,
}

#[derive(Clone, Copy)]
enum Counter {
    Folded,
    Copies,
    Identities,
    Indices,
}

fn bump(counts: &mut Counts, c: Counter) {
    match c {
        Counter::Folded => counts.folded += 1,
        Counter::Copies => counts.copies += 1,
        Counter::Identities => counts.identities += 1,
        Counter::Indices => counts.indices += 1,
    }
}

fn fold_values(module: &mut Module, counts: &mut Counts) {
    let (immediates, interface, func) = (&module.immediates, &module.interface, &mut module.function);
    let mut rw = Rewrites::default();
    for b in func.blocks_in_order() {
        let insts = func.blocks.get(b).map(|bd| bd.insts.clone()).unwrap_or_default();
        let mut siblings: HashMap<u32, Vec<Inst>> = HashMap::new();
        for &inst in &insts {
            if let Some(d) = func.insts.get(inst).filter(|d| matches!(d.op, Op::Alu { .. })) {
                if let Some(origin) = d.origin.inst {
                    siblings.entry(origin).or_default().push(inst);
                }
            }
        }
        let mut kept = Vec::with_capacity(insts.len());
        let mut phi_consts = Vec::new();
        for inst in insts {
            if let Some(d) = get_mut(&mut func.insts, inst) {
                for a in d.args.iter_mut() {
                    a.value = rw.value(a.value);
                }
            }
            let ctx = Ctx { func: &mut *func, immediates, interface, siblings: &siblings };
            let action = ctx.simplify(inst);
            match action {
                Action::Keep => kept.push(inst),
                Action::Changed(c) => {
                    bump(counts, c);
                    kept.push(inst);
                }
                Action::Replace(v, c) => {
                    let result = func.insts.get(inst).and_then(|d| d.results.first().copied());
                    match result {
                        Some(r) if r != v => {
                            rw.values.insert(r, v);
                            bump(counts, c);
                        }
                        _ => kept.push(inst),
                    }
                }
                Action::Remove(c) => bump(counts, c),
                Action::PhiConst => {
                    counts.folded += 1;
                    phi_consts.push(inst);
                }
            }
        }
        // Phis come first in a block: constants made of phis go after them.
        let phis =
            kept.iter().take_while(|&&i| func.insts.get(i).is_some_and(|d| matches!(d.op, Op::Phi { .. }))).count();
        kept.splice(phis..phis, phi_consts);
        if let Some(bd) = get_mut(&mut func.blocks, b) {
            bd.insts = kept;
        }
    }
    apply(func, &rw);
}

/// What simplification reads besides the function.
struct Ctx<'a> {
    func: &'a mut Function,
    immediates: &'a [tgsi::Immediate],
    interface: &'a [tgsi::Item],
    /// The `Alu` instructions of the block by the TGSI instruction they
    /// came from.
    siblings: &'a HashMap<u32, Vec<Inst>>,
}

/// The bits of `v` when it is a constant: `Const`, `Initial` (zero) or a
/// direct immediate read.
fn const_of(func: &Function, immediates: &[tgsi::Immediate], v: Value) -> Option<u64> {
    let def = func.values.get(v)?.def;
    match &func.insts.get(def)?.op {
        Op::Const(bits) => Some(*bits),
        Op::Initial => Some(0),
        Op::Read(Source { file: File::Immediate, index, chan, .. }) => {
            // What the backend fills in: a missing immediate reads as 0.
            Some(immediates.get(*index as usize).map_or(0, |imm| imm.data[*chan as usize & 3]) as u64)
        }
        _ => None,
    }
}

/// The bits an `Alu` instruction whose operands are all constants
/// computes: the backend's own arithmetic, in the backend's order
/// (modifiers with the opcode's source type, `eval`, then `_SAT`).
fn alu_value(func: &Function, immediates: &[tgsi::Immediate], inst: Inst) -> Option<u64> {
    let data = func.insts.get(inst)?;
    let Op::Alu { opcode, chan } = data.op else { return None };
    let info = opcode.info();
    let args = data
        .args
        .iter()
        .enumerate()
        .map(|(i, a)| {
            const_of(func, immediates, a.value).map(|bits| apply_modifiers(opcode.src_type(i), bits, a.neg, a.abs))
        })
        .collect::<Option<Vec<u64>>>()?;
    let v = eval(opcode, chan, &args)?;
    Some(if data.saturate { saturate(info.dst_type, v) } else { v })
}

/// The value of an indirect index: a constant, or an address register
/// write of constants (kept as an instruction, see `Ctx::alu`).
fn index_of(func: &Function, immediates: &[tgsi::Immediate], v: Value) -> Option<u64> {
    const_of(func, immediates, v).or_else(|| alu_value(func, immediates, func.values.get(v)?.def))
}

/// Float results that are never a signalling NaN: IEEE arithmetic quiets
/// every NaN it returns, comparisons give 0.0 or 1.0, conversions from
/// integers and saturated results are never NaN. (A unit test checks each
/// opcode over random and special inputs.)
const QUIET_OPS: &[Opcode] = &[
    Opcode::Add,
    Opcode::Mul,
    Opcode::Mad,
    Opcode::Div,
    Opcode::Dp2,
    Opcode::Dp3,
    Opcode::Dp4,
    Opcode::Rcp,
    Opcode::Rsq,
    Opcode::Sqrt,
    Opcode::Lrp,
    Opcode::Slt,
    Opcode::Sge,
    Opcode::Seq,
    Opcode::Sne,
    Opcode::Sgt,
    Opcode::Sle,
    Opcode::I2f,
    Opcode::U2f,
];

/// Whether `bits` is a NaN of float type `ty`.
fn is_nan(ty: tgsi::OperandType, bits: u64) -> bool {
    match ty {
        tgsi::OperandType::Float => f32::from_bits(bits as u32).is_nan(),
        tgsi::OperandType::Double => f64::from_bits(bits).is_nan(),
        _ => false,
    }
}

/// Whether a 32-bit pattern is a signalling NaN (exponent all ones,
/// mantissa nonzero, quiet bit clear).
pub fn is_signalling_nan(bits: u32) -> bool {
    bits & 0x7f80_0000 == 0x7f80_0000 && bits & 0x007f_ffff != 0 && bits & 0x0040_0000 == 0
}

/// Whether `v` is known never to be a signalling NaN: a constant that is
/// not one, a saturated result, or the result of an opcode of
/// [`QUIET_OPS`].
fn is_quiet(func: &Function, immediates: &[tgsi::Immediate], v: Value) -> bool {
    if let Some(bits) = const_of(func, immediates, v) {
        return !is_signalling_nan(bits as u32);
    }
    let Some(data) = func.values.get(v).and_then(|vd| func.insts.get(vd.def)) else { return false };
    match data.op {
        Op::Alu { opcode, .. } => data.saturate || QUIET_OPS.contains(&opcode),
        _ => false,
    }
}

impl Ctx<'_> {
    fn simplify(self, inst: Inst) -> Action {
        let Some(data) = self.func.insts.get(inst) else { return Action::Keep };
        match &data.op {
            &Op::Alu { opcode, .. } => self.alu(inst, opcode),
            Op::Pack => {
                let (Some(lo), Some(hi)) = (data.args.first(), data.args.get(1)) else { return Action::Keep };
                let (lo, hi) = (self.konst(lo.value), self.konst(hi.value));
                match (lo, hi) {
                    // As the backend's Step::Pack.
                    (Some(lo), Some(hi)) => self.make_const(inst, (lo & 0xffff_ffff) | (hi << 32), Counter::Folded),
                    _ => Action::Keep,
                }
            }
            Op::Split { hi } => {
                let hi = *hi;
                let Some(src) = data.args.first().map(|a| a.value) else { return Action::Keep };
                if let Some(bits) = self.konst(src) {
                    // As the backend's Step::Split.
                    return self.make_const(inst, if hi { bits >> 32 } else { bits & 0xffff_ffff }, Counter::Folded);
                }
                // A split of a pack is the half packed (32-bit values have
                // their high bits clear, so the pack's masking is a no-op).
                let pack = self.func.values.get(src).and_then(|vd| self.func.insts.get(vd.def));
                match pack {
                    Some(p) if matches!(p.op, Op::Pack) => match p.args.get(usize::from(hi)) {
                        Some(a) if !a.neg && !a.abs && self.ty(a.value) == Some(Ty::B32) => {
                            Action::Replace(a.value, Counter::Copies)
                        }
                        _ => Action::Keep,
                    },
                    _ => Action::Keep,
                }
            }
            Op::Phi { .. } => self.phi(inst),
            Op::LoadIndirect { .. } => self.load_indirect(inst),
            Op::ArrayLoad { .. } | Op::ArrayStore { .. } => self.array_access(inst),
            _ => Action::Keep,
        }
    }

    fn konst(&self, v: Value) -> Option<u64> {
        const_of(self.func, self.immediates, v)
    }

    fn ty(&self, v: Value) -> Option<Ty> {
        self.func.values.get(v).map(|vd| vd.ty)
    }

    fn make_const(self, inst: Inst, bits: u64, counter: Counter) -> Action {
        match get_mut(&mut self.func.insts, inst) {
            Some(d) => {
                d.op = Op::Const(bits);
                d.args.clear();
                d.saturate = false;
                Action::Changed(counter)
            }
            None => Action::Keep,
        }
    }

    fn alu(self, inst: Inst, opcode: Opcode) -> Action {
        let Some(data) = self.func.insts.get(inst) else { return Action::Keep };
        let info = opcode.info();
        let args: Vec<Operand> = data.args.to_vec();
        let known: Vec<Option<u64>> = args
            .iter()
            .enumerate()
            .map(|(i, a)| self.konst(a.value).map(|bits| apply_modifiers(opcode.src_type(i), bits, a.neg, a.abs)))
            .collect();
        let sat = data.saturate;
        if known.iter().all(Option::is_some) {
            // An address register write stays: emission then keeps the
            // index in ADDR. Its value still folds the loads it indexes.
            if data.origin.dst.is_some_and(|d| d.file == File::Address) {
                return Action::Keep;
            }
            return match alu_value(self.func, self.immediates, inst) {
                // A NaN stays computed at run time: which operand's payload
                // a float operation passes on is up to how the compiler
                // ordered the operands in each build of it (the backend's
                // batch loop against `eval` here), and an integer op
                // reading the bits would see the difference.
                Some(v) if is_nan(info.dst_type, v) => Action::Keep,
                Some(v) => self.make_const(inst, v, Counter::Folded),
                None => Action::Keep,
            };
        }
        if sat {
            return Action::Keep;
        }
        if opcode == Opcode::Mov {
            let result_ty = data.results.first().and_then(|&r| self.ty(r));
            return match args.as_slice() {
                [a] if !a.neg && !a.abs && result_ty.is_some() && self.ty(a.value) == result_ty => {
                    Action::Replace(a.value, Counter::Copies)
                }
                _ => Action::Keep,
            };
        }
        let Some(outcome) = self.identity_of(inst) else { return Action::Keep };
        // A vector instruction some of whose channels stay would keep its
        // instruction and need copies (MOVs into outputs) for the others:
        // larger TGSI. So an identity applies only when it applies to
        // every channel the instruction computes.
        let siblings = data.origin.inst.and_then(|o| self.siblings.get(&o));
        let simplifies = |s: Inst| s == inst || self.all_constant(s) || self.identity_of(s).is_some();
        if siblings.is_some_and(|list| !list.iter().all(|&s| simplifies(s))) {
            return Action::Keep;
        }
        match outcome {
            Outcome::Operand(i) => match args.get(i) {
                Some(a) => Action::Replace(a.value, Counter::Identities),
                None => Action::Keep,
            },
            Outcome::Const(bits) => self.make_const(inst, bits, Counter::Identities),
        }
    }

    /// Whether every operand of `inst` is a constant (so it folds).
    fn all_constant(&self, inst: Inst) -> bool {
        self.func.insts.get(inst).is_some_and(|d| d.args.iter().all(|a| self.konst(a.value).is_some()))
    }

    /// The identity that applies to the `Alu` instruction `inst` (32-bit,
    /// not saturated, some operand not constant), if any.
    fn identity_of(&self, inst: Inst) -> Option<Outcome> {
        let data = self.func.insts.get(inst)?;
        let Op::Alu { opcode, .. } = data.op else { return None };
        if data.saturate {
            return None;
        }
        let result_ty = data.results.first().and_then(|&r| self.ty(r))?;
        if result_ty != Ty::B32 {
            return None;
        }
        let known: Vec<Option<u64>> = data
            .args
            .iter()
            .enumerate()
            .map(|(i, a)| self.konst(a.value).map(|bits| apply_modifiers(opcode.src_type(i), bits, a.neg, a.abs)))
            .collect();
        let pats: Vec<Pat> = data
            .args
            .iter()
            .zip(&known)
            .map(|(a, k)| match k {
                Some(bits) => Pat::Known(*bits),
                None => Pat::Unknown {
                    id: a.value.index(),
                    neg: a.neg,
                    abs: a.abs,
                    quiet: is_quiet(self.func, self.immediates, a.value),
                },
            })
            .collect();
        match identity(opcode, &pats)? {
            Outcome::Operand(i) if data.args.get(i).is_some_and(|a| self.ty(a.value) == Some(result_ty)) => {
                Some(Outcome::Operand(i))
            }
            Outcome::Operand(_) => None,
            c @ Outcome::Const(_) => Some(c),
        }
    }

    fn phi(self, inst: Inst) -> Action {
        let Some(data) = self.func.insts.get(inst) else { return Action::Keep };
        let Some(&result) = data.results.first() else { return Action::Keep };
        // Arguments that are the phi itself (around a loop) add nothing.
        let others: Vec<Value> = data.args.iter().map(|a| a.value).filter(|&v| v != result).collect();
        let Some(&first) = others.first() else { return Action::Keep };
        if others.iter().all(|&v| v == first) {
            // `first` dominates every predecessor, so it dominates the phi.
            return Action::Replace(first, Counter::Copies);
        }
        let Some(bits) = self.konst(first) else { return Action::Keep };
        if !others.iter().all(|&v| self.konst(v) == Some(bits)) {
            return Action::Keep;
        }
        match get_mut(&mut self.func.insts, inst) {
            Some(d) => {
                d.op = Op::Const(bits);
                d.args.clear();
                Action::PhiConst
            }
            None => Action::Keep,
        }
    }

    /// The constant index parts of a `LoadIndirect`: `None` when a part is
    /// not constant; the index and 2-D index as the backend adds them.
    fn load_indirect(self, inst: Inst) -> Action {
        let Some(data) = self.func.insts.get(inst) else { return Action::Keep };
        let Op::LoadIndirect { reg, chan } = &data.op else { return Action::Keep };
        let (reg, chan) = (*reg, *chan);
        let mut k = 0;
        let mut part = |indirect: bool| -> Option<i32> {
            if !indirect {
                return Some(0);
            }
            let a = data.args.get(k)?;
            k += 1;
            index_of(self.func, self.immediates, a.value).map(|bits| bits as u32 as i32)
        };
        let Some(index) = part(reg.indirect.is_some()) else { return Action::Keep };
        let dim = match &reg.dimension {
            Some(d) => match part(d.indirect.is_some()) {
                Some(i) => Some(d.index.wrapping_add(i)),
                None => return Action::Keep,
            },
            None => None,
        };
        let i = reg.index.wrapping_add(index);
        if i < 0 || dim.is_some_and(|d| d < 0) {
            // The backend reads 0 at a negative index.
            return self.make_const(inst, 0, Counter::Indices);
        }
        let (i, dim) = (i as u32, dim.map(|d| d as u32));
        match reg.file {
            File::Immediate => {
                let bits = self.immediates.get(i as usize).map_or(0, |imm| imm.data[chan as usize & 3]);
                self.make_const(inst, bits as u64, Counter::Indices)
            }
            File::Input | File::Constant if self.declared(reg.file, i, dim) => {
                match get_mut(&mut self.func.insts, inst) {
                    Some(d) => {
                        d.op = Op::Read(Source { file: reg.file, dim, index: i, chan });
                        d.args.clear();
                        Action::Changed(Counter::Indices)
                    }
                    None => Action::Keep,
                }
            }
            // Outputs and system values have no direct read; undeclared
            // registers would not be declared in the emitted text.
            _ => Action::Keep,
        }
    }

    /// Whether `file[index]` (of buffer `dim` for constants) is declared.
    fn declared(&self, file: File, index: u32, dim: Option<u32>) -> bool {
        self.interface.iter().any(|item| match item {
            tgsi::Item::Declaration(d) => {
                d.file == file
                    && u32::from(d.first) <= index
                    && index <= u32::from(d.last)
                    && (file != File::Constant || u32::from(d.dimension.unwrap_or(0)) == dim.unwrap_or(0))
            }
            _ => false,
        })
    }

    fn array_access(self, inst: Inst) -> Action {
        let Some(data) = self.func.insts.get(inst) else { return Action::Keep };
        let (array, offset, store) = match data.op {
            Op::ArrayLoad { array, offset, .. } => (array, offset, false),
            Op::ArrayStore { array, offset, .. } => (array, offset, true),
            _ => return Action::Keep,
        };
        // A load's index is its only operand; a store's comes before the value.
        let indexed = if store { data.args.len() == 2 } else { data.args.len() == 1 };
        if !indexed {
            return Action::Keep;
        }
        let Some(bits) = data.args.first().and_then(|a| index_of(self.func, self.immediates, a.value)) else {
            return Action::Keep;
        };
        let Some(len) = self.func.arrays.get(array).map(|a| i64::from(a.len)) else { return Action::Keep };
        // The element as the backend computes it.
        let i = i64::from(offset) + i64::from(bits as u32 as i32);
        let in_range = (0..len).contains(&i);
        if !in_range {
            // Out of the array the backend loads 0 and drops the store.
            return if store { Action::Remove(Counter::Indices) } else { self.make_const(inst, 0, Counter::Indices) };
        }
        let Ok(new_offset) = i32::try_from(i) else { return Action::Keep };
        match get_mut(&mut self.func.insts, inst) {
            Some(d) => {
                match &mut d.op {
                    Op::ArrayLoad { offset, .. } | Op::ArrayStore { offset, .. } => *offset = new_offset,
                    _ => return Action::Keep,
                }
                d.args.remove(0);
                Action::Changed(Counter::Indices)
            }
            None => Action::Keep,
        }
    }
}

// ----- identities -----

/// An ALU operand as the identities see it: a constant (source modifiers
/// applied), or an unknown value (`id` names the value: equal ids with
/// equal modifiers are equal operands).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pat {
    /// A constant, with the operand's modifiers applied.
    Known(u64),
    /// A value not known at compile time.
    Unknown {
        /// Which value (equal ids are the same value).
        id: usize,
        /// Negated.
        neg: bool,
        /// Absolute value.
        abs: bool,
        /// Known never to be a signalling NaN.
        quiet: bool,
    },
}

impl Pat {
    fn plain(self) -> bool {
        matches!(self, Pat::Unknown { neg: false, abs: false, .. })
    }

    fn plain_quiet(self) -> bool {
        matches!(self, Pat::Unknown { neg: false, abs: false, quiet: true, .. })
    }

    fn bits(self) -> Option<u32> {
        match self {
            Pat::Known(b) => Some(b as u32),
            Pat::Unknown { .. } => None,
        }
    }

    /// The same value with the same modifiers.
    fn same(self, other: Pat) -> bool {
        match (self, other) {
            (Pat::Unknown { id: a, neg: n, abs: b, .. }, Pat::Unknown { id: c, neg: m, abs: d, .. }) => {
                a == c && n == m && b == d
            }
            _ => false,
        }
    }
}

/// What an identity reduces an instruction to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// The (unmodified) operand at this index.
    Operand(usize),
    /// A constant.
    Const(u64),
}

const ONE: u32 = 0x3f80_0000;
const NEG_ZERO: u32 = 0x8000_0000;

/// The identity that applies to a non-saturating 32-bit `opcode` (channel
/// 0) on operands `args`, if any. Every rule here holds bit for bit for
/// every value of the unknown operands under [`semantics::eval`]; the
/// float ones need the unknown operand to be quiet (not a signalling NaN).
pub fn identity(opcode: Opcode, args: &[Pat]) -> Option<Outcome> {
    use Opcode::*;
    if let [a, b] = *args {
        // Commutative rules with a constant on either side: (x, c).
        for (x, xi, c) in [(a, 0, b), (b, 1, a)] {
            let k = c.bits();
            let rule = match opcode {
                Mul if k == Some(ONE) && x.plain_quiet() => Some(Outcome::Operand(xi)),
                Add if k == Some(NEG_ZERO) && x.plain_quiet() => Some(Outcome::Operand(xi)),
                Uadd if k == Some(0) && x.plain() => Some(Outcome::Operand(xi)),
                Umul if k == Some(1) && x.plain() => Some(Outcome::Operand(xi)),
                Umul | And if k == Some(0) => Some(Outcome::Const(0)),
                And if k == Some(u32::MAX) && x.plain() => Some(Outcome::Operand(xi)),
                Or | Xor if k == Some(0) && x.plain() => Some(Outcome::Operand(xi)),
                Or if k == Some(u32::MAX) => Some(Outcome::Const(u64::from(u32::MAX))),
                _ => None,
            };
            if rule.is_some() {
                return rule;
            }
        }
        // Non-commutative: a constant second operand.
        let k = b.bits();
        match opcode {
            Div if k == Some(ONE) && a.plain_quiet() => return Some(Outcome::Operand(0)),
            // The backend masks shift counts to 5 bits.
            Shl | Ushr | Ishr if k.is_some_and(|c| c & 31 == 0) && a.plain() => return Some(Outcome::Operand(0)),
            _ => {}
        }
        // Equal operands.
        if a.same(b) {
            match opcode {
                And | Or | Umin | Umax | Imin | Imax if a.plain() => return Some(Outcome::Operand(0)),
                Xor => return Some(Outcome::Const(0)),
                _ => {}
            }
        }
        // x + (-x) on unsigned integers (negation wraps; abs is a no-op
        // on uint operands but is required equal anyway).
        if opcode == Uadd {
            if let (Pat::Unknown { id: i, neg: n, abs: p, .. }, Pat::Unknown { id: j, neg: m, abs: q, .. }) = (a, b) {
                if i == j && n != m && p == q {
                    return Some(Outcome::Const(0));
                }
            }
        }
        return None;
    }
    if let [cond, x, y] = *args {
        if !matches!(opcode, Cmp | Ucmp) {
            return None;
        }
        let pick = |i: usize, p: Pat| match p {
            Pat::Known(bits) => Some(Outcome::Const(bits & 0xffff_ffff)),
            p if p.plain() => Some(Outcome::Operand(i)),
            _ => None,
        };
        if let Pat::Known(c) = cond {
            return match select(opcode, c)? {
                1 => pick(1, x),
                _ => pick(2, y),
            };
        }
        if x.same(y) {
            return pick(1, x);
        }
        if let (Pat::Known(p), Pat::Known(q)) = (x, y) {
            if p == q {
                return Some(Outcome::Const(p & 0xffff_ffff));
            }
        }
    }
    None
}

/// Which operand (1 or 2) `CMP`/`UCMP` picks for the condition `cond`,
/// asked of the backend's own `eval` with two distinct probes in both
/// orders (the choice depends on the condition alone).
fn select(opcode: Opcode, cond: u64) -> Option<usize> {
    const P: u64 = 0x1234_5678;
    const Q: u64 = 0x9abc_def0;
    let first = eval(opcode, 0, &[cond, P, Q])?;
    let second = eval(opcode, 0, &[cond, Q, P])?;
    match (first, second) {
        (P, Q) => Some(1),
        (Q, P) => Some(2),
        _ => None,
    }
}

// ----- branches -----

fn fold_branches(func: &mut Function, counts: &mut Counts) {
    let mut body = std::mem::take(&mut func.body);
    let mut rw = Rewrites::default();
    // Inner constructs first, so an arm that is kept is already folded.
    for_each_region_post_order_mut(&mut body, |region| {
        let mut i = 1;
        while i < region.len() {
            if try_fold_if(region, i, func, &mut rw) {
                counts.branches += 1;
            } else {
                i += 1;
            }
        }
    });
    func.body = body;
    apply(func, &rw);
}

/// Every block of a region, nested ones included.
fn blocks_of(region: &Region, out: &mut HashSet<Block>) {
    out.extend(ir::walk::blocks(region));
}

fn is_phi(func: &Function, inst: Inst) -> bool {
    func.insts.get(inst).is_some_and(|d| matches!(d.op, Op::Phi { .. }))
}

/// Replaces `region[i]`, an `IF` on a constant condition, by the arm it
/// takes; see the module documentation.
fn try_fold_if(region: &mut Region, i: usize, func: &mut Function, rw: &mut Rewrites) -> bool {
    // One IF replaced by one of its arms: not a walk.
    let (Some(Node::Block(bc)), Some(Node::If(n)), Some(Node::Block(bm))) =
        (region.get(i - 1), region.get(i), region.get(i + 1))
    else {
        return false;
    };
    let (bc, bm) = (*bc, *bm);
    let Some(bits) = const_of(func, &[], rw.value(n.cond.value)) else { return false };
    // Exactly the backend's test on the raw bits of the condition.
    let bits = bits as u32;
    let taken = if n.unsigned { bits != 0 } else { f32::from_bits(bits) != 0.0 };
    let (keep, drop) = if taken { (&n.then_region, &n.else_region) } else { (&n.else_region, &n.then_region) };
    let (Some(Node::Block(t0)), Some(Node::Block(tn))) = (keep.first(), keep.last()) else { return false };
    let (t0, tn) = (*t0, *tn);
    let falls = |b: Block| func.blocks.get(b).is_some_and(|bd| bd.exit == ir::Exit::Fallthrough);
    if !falls(bc) || !falls(tn) {
        return false;
    }
    // The first block of an arm has one predecessor and no phis.
    if func.blocks.get(t0).is_none_or(|bd| bd.insts.first().is_some_and(|&x| is_phi(func, x))) {
        return false;
    }
    let mut dropped = HashSet::new();
    blocks_of(drop, &mut dropped);
    // The phis after the IF keep the value from the taken arm.
    let Some(merge) = func.blocks.get(bm) else { return false };
    let mut resolved = Vec::new();
    for &inst in merge.insts.iter().take_while(|&&x| is_phi(func, x)) {
        let Some(data) = func.insts.get(inst) else { return false };
        let Op::Phi { preds } = &data.op else { return false };
        let from_tn = preds.iter().position(|&p| rw.block(p) == rw.block(tn));
        let (Some(k), Some(&result)) = (from_tn, data.results.first()) else { return false };
        let Some(arg) = data.args.get(k) else { return false };
        resolved.push((result, rw.value(arg.value)));
    }
    let phis = resolved.len();
    // Phis elsewhere lose the entries of dropped blocks (a BRK or CONT in
    // the dropped arm); give up if one would lose them all. Blocks in
    // arena order: deterministic.
    let mut trimmed: Vec<(Inst, Vec<bool>)> = Vec::new();
    for (b, bd) in func.blocks.iter() {
        if b == bm || dropped.contains(&b) {
            continue;
        }
        for &inst in bd.insts.iter().take_while(|&&x| is_phi(func, x)) {
            let Some(Op::Phi { preds }) = func.insts.get(inst).map(|d| &d.op) else { continue };
            let keep_entry: Vec<bool> = preds.iter().map(|&p| !dropped.contains(&rw.block(p))).collect();
            if keep_entry.iter().all(|&k| k) {
                continue;
            }
            if !keep_entry.iter().any(|&k| k) {
                return false;
            }
            trimmed.push((inst, keep_entry));
        }
    }
    // Commit.
    for (inst, keep_entry) in trimmed {
        if let Some(d) = get_mut(&mut func.insts, inst) {
            let Op::Phi { preds } = &mut d.op else { continue };
            let mut k = keep_entry.iter();
            preds.retain(|_| k.next().copied().unwrap_or(true));
            let mut k = keep_entry.iter();
            d.args.retain(|_| k.next().copied().unwrap_or(true));
        }
    }
    for (phi, value) in resolved {
        rw.values.insert(phi, value);
    }
    // The same IF, to take its arm out.
    let Some(Node::If(n)) = region.get_mut(i) else { return false };
    let mut kept = std::mem::take(if taken { &mut n.then_region } else { &mut n.else_region });
    // bc + t0 ... tn + bm: the taken arm's first block joins the block
    // before, the block after joins the arm's last block.
    merge_block(func, bc, t0, 0, rw);
    let last = rw.block(tn);
    merge_block(func, last, bm, phis, rw);
    kept.remove(0);
    region.splice(i..=i + 1, kept);
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use testkit::Rng;

    /// Special patterns: zeros, ones, infinities, quiet and signalling
    /// NaNs with payloads, denormals, extremes.
    const SPECIAL: &[u32] = &[
        0,
        0x8000_0000,
        ONE,
        0xbf80_0000,
        0x7f80_0000,
        0xff80_0000,
        0x7fc0_0000,
        0xffc0_0001,
        0x7fc1_2345,
        0x7f80_0001,
        0xff80_0001,
        0x7fbf_ffff,
        0x0000_0001,
        0x8000_0001,
        0x007f_ffff,
        0x807f_ffff,
        0x7f7f_ffff,
        0xff7f_ffff,
        0xffff_ffff,
        0x7fff_ffff,
        1,
        31,
        32,
        0x4000_0000,
    ];

    /// Special patterns a quarter of the time, random bits otherwise.
    fn bits(rng: &mut Rng) -> u32 {
        if rng.below(4) == 0 {
            *rng.pick(SPECIAL)
        } else {
            rng.next_u32()
        }
    }

    /// An operand of a rule under test: a constant, or unknown value `id`
    /// with modifiers.
    #[derive(Clone, Copy)]
    enum T {
        K(u32),
        X(usize, bool, bool),
    }

    /// Checks that `identity` fires on the pattern and that what it gives
    /// is what `eval` computes, for many values of the unknowns (signalling
    /// NaNs left out when `quiet`, since the rule then requires it).
    fn holds(opcode: Opcode, ops: &[T], quiet: bool) {
        let ty = opcode.info().src_type;
        let pats: Vec<Pat> = ops
            .iter()
            .map(|t| match *t {
                T::K(b) => Pat::Known(u64::from(b)),
                T::X(id, neg, abs) => Pat::Unknown { id, neg, abs, quiet },
            })
            .collect();
        let outcome = identity(opcode, &pats);
        assert!(outcome.is_some(), "{opcode:?} {pats:?}: the identity does not fire");
        let mut rng = Rng::new(0x9e37_79b9_7f4a_7c15 ^ opcode as u64);
        let mut checked = 0;
        for _ in 0..20_000 {
            let xs = [bits(&mut rng), bits(&mut rng)];
            if quiet && xs.iter().any(|&x| is_signalling_nan(x)) {
                continue;
            }
            let args: Vec<u64> = ops
                .iter()
                .map(|t| match *t {
                    T::K(b) => u64::from(b),
                    T::X(id, neg, abs) => apply_modifiers(ty, u64::from(xs[id]), neg, abs),
                })
                .collect();
            let got = eval(opcode, 0, &args).expect("eval covers the opcode");
            let want = match outcome {
                Some(Outcome::Operand(i)) => args[i],
                Some(Outcome::Const(c)) => c,
                None => unreachable!(),
            };
            assert_eq!(got, want, "{opcode:?} on {args:x?}");
            checked += 1;
        }
        assert!(checked > 10_000);
    }

    /// `identity` does not fire on the pattern.
    fn never(opcode: Opcode, ops: &[Pat]) {
        assert_eq!(identity(opcode, ops), None, "{opcode:?} {ops:?}");
    }

    fn x(quiet: bool) -> Pat {
        Pat::Unknown { id: 0, neg: false, abs: false, quiet }
    }

    use T::{K, X};
    const X0: T = X(0, false, false);

    #[test]
    fn mul_by_one() {
        holds(Opcode::Mul, &[X0, K(ONE)], true);
        holds(Opcode::Mul, &[K(ONE), X0], true);
    }

    #[test]
    fn add_negative_zero() {
        holds(Opcode::Add, &[X0, K(NEG_ZERO)], true);
        holds(Opcode::Add, &[K(NEG_ZERO), X0], true);
    }

    #[test]
    fn div_by_one() {
        holds(Opcode::Div, &[X0, K(ONE)], true);
    }

    #[test]
    fn uadd_zero() {
        holds(Opcode::Uadd, &[X0, K(0)], false);
        holds(Opcode::Uadd, &[K(0), X0], false);
    }

    #[test]
    fn uadd_negated_self() {
        holds(Opcode::Uadd, &[X0, X(0, true, false)], false);
        holds(Opcode::Uadd, &[X(0, true, false), X0], false);
    }

    #[test]
    fn umul_one_and_zero() {
        holds(Opcode::Umul, &[X0, K(1)], false);
        holds(Opcode::Umul, &[K(1), X0], false);
        holds(Opcode::Umul, &[X0, K(0)], false);
    }

    #[test]
    fn and_zero_all_ones_self() {
        holds(Opcode::And, &[X0, K(0)], false);
        holds(Opcode::And, &[K(0), X(0, true, true)], false);
        holds(Opcode::And, &[X0, K(u32::MAX)], false);
        holds(Opcode::And, &[X0, X0], false);
    }

    #[test]
    fn or_zero_all_ones_self() {
        holds(Opcode::Or, &[X0, K(0)], false);
        holds(Opcode::Or, &[K(u32::MAX), X0], false);
        holds(Opcode::Or, &[X0, X0], false);
    }

    #[test]
    fn xor_zero_and_self() {
        holds(Opcode::Xor, &[K(0), X0], false);
        holds(Opcode::Xor, &[X0, X0], false);
        holds(Opcode::Xor, &[X(0, true, false), X(0, true, false)], false);
    }

    #[test]
    fn shifts_by_multiples_of_32() {
        for op in [Opcode::Shl, Opcode::Ushr, Opcode::Ishr] {
            holds(op, &[X0, K(0)], false);
            holds(op, &[X0, K(32)], false);
            holds(op, &[X0, K(0xffff_ffe0)], false);
        }
    }

    #[test]
    fn min_max_of_self() {
        for op in [Opcode::Umin, Opcode::Umax, Opcode::Imin, Opcode::Imax] {
            holds(op, &[X0, X0], false);
        }
    }

    #[test]
    fn cmp_and_ucmp_with_constant_condition() {
        let y = X(1, false, false);
        for c in [0u32, NEG_ZERO, ONE, 0xbf80_0000, 0x7fc0_0000, 0xffc0_0000, 0xff80_0000, 1, 0x8000_0001] {
            holds(Opcode::Cmp, &[K(c), X0, y], false);
            holds(Opcode::Ucmp, &[K(c), X0, y], false);
            holds(Opcode::Cmp, &[K(c), K(0x1234), y], false);
        }
        holds(Opcode::Cmp, &[X(1, false, false), X0, X0], false);
        holds(Opcode::Ucmp, &[X(1, true, false), X0, X0], false);
    }

    /// Rules that must not fire, and values showing why.
    #[test]
    fn inexact_rules_do_not_fire() {
        let q = x(true);
        never(Opcode::Mul, &[q, Pat::Known(0)]);
        never(Opcode::Add, &[q, Pat::Known(0)]);
        never(Opcode::Add, &[q, Pat::Unknown { id: 0, neg: true, abs: false, quiet: true }]);
        never(Opcode::Mul, &[x(false), Pat::Known(u64::from(ONE))]);
        never(Opcode::Add, &[x(false), Pat::Known(u64::from(NEG_ZERO))]);
        never(Opcode::Min, &[q, q]);
        never(Opcode::Mul, &[Pat::Unknown { id: 0, neg: true, abs: false, quiet: true }, Pat::Known(u64::from(ONE))]);
        never(Opcode::Shl, &[x(false), Pat::Known(1)]);
        let f = |b: f32| u64::from(b.to_bits());
        let bits = |op, a: &[u64]| eval(op, 0, a).unwrap_or(0);
        // x * 0 is not 0 for -1, inf or NaN.
        assert_ne!(bits(Opcode::Mul, &[f(-1.0), 0]), 0);
        // x + 0.0 is +0.0 for x = -0.0.
        assert_eq!(bits(Opcode::Add, &[f(-0.0), 0]), 0);
        // x - x is NaN for infinities.
        assert!(f32::from_bits(bits(Opcode::Add, &[f(f32::INFINITY), f(f32::NEG_INFINITY)]) as u32).is_nan());
        // A signalling NaN times 1.0 comes back quieted: other bits.
        assert_ne!(bits(Opcode::Mul, &[0x7f80_0001, f(1.0)]), 0x7f80_0001);
    }

    /// Every opcode of QUIET_OPS never returns a signalling NaN, whatever
    /// its inputs (signalling NaNs included).
    #[test]
    fn quiet_ops_never_give_signalling_nans() {
        let mut rng = Rng::new(0x2545_f491_4f6c_dd1d);
        for &op in QUIET_OPS {
            let n = (1..=8).find(|&n| eval(op, 0, &vec![0; n]).is_some()).expect("eval covers the opcode");
            for _ in 0..20_000 {
                let args: Vec<u64> = (0..n).map(|_| u64::from(bits(&mut rng))).collect();
                let v = eval(op, 0, &args).unwrap_or(0);
                assert!(!is_signalling_nan(v as u32), "{op:?} {args:x?} gave {v:#x}");
            }
        }
    }

    #[test]
    fn signalling_nans() {
        assert!(is_signalling_nan(0x7f80_0001));
        assert!(is_signalling_nan(0xffbf_ffff));
        assert!(!is_signalling_nan(0x7fc0_0000));
        assert!(!is_signalling_nan(0x7f80_0000));
        assert!(!is_signalling_nan(0));
    }
}
