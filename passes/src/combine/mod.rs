//! `combine`: exact instruction combining.
//!
//! Rewrites that read through the definition of an operand, each exact bit
//! for bit under the backend's semantics (NaNs, -0.0, infinities and
//! denormals included):
//!
//! - **modifier copies** (`modifiers`): `MOV t, -x` (or `|x|`, `-|x|`)
//!   whose every use is an ALU operand read as a float (or untyped, as
//!   `MOV` reads) is folded into those operands (`ADD y, t, z` becomes
//!   `ADD y, -x, z`; `-(-x)` becomes `x`). Float negation and absolute
//!   value only touch the sign bit, so composing them is exact;
//! - **multiply-add** (`mad`): `MUL t, a, b` whose one use is an operand
//!   of `ADD y, t, c` (or `ADD y, c, t`), read plain, negated or absolute,
//!   becomes `MAD y, a, b, c` with the modifier moved onto the factors:
//!   the backend's `MAD` rounds the product before the addition
//!   (unfused), addition commutes, and every NaN sum is the canonical
//!   NaN, so it is the same computation;
//! - **saturate** (`saturate`): `_SAT` on a value already in [+0.0, 1.0]
//!   (a set-on-compare result, a `_SAT` result, a constant in range, and
//!   `MOV`, `MIN`, `MAX`, `MUL`, `CMP`, `UCMP` of such values) is dropped;
//! - **integer negations** (`negation`): `INEG` of `INEG x`, or of `-x`,
//!   and `NOT` of `NOT x`, are `x` (wrapping negation is an involution).
//!
//! A rewrite that would make emission split a TGSI instruction (one
//! channel of a vector operand folded, another not) is not made: every
//! rule applies to all channels of an instruction or to none.

mod groups;
mod mad;
mod modifiers;
mod negation;
mod saturate;
mod uses;

use ir::Function;

use groups::Groups;
use uses::Uses;

use crate::{Pass, PassResult, Stats};

/// The `combine` pass; see the module documentation.
pub struct Combine;

impl Pass for Combine {
    fn name(&self) -> &'static str {
        "combine"
    }

    fn description(&self) -> &'static str {
        "Exact instruction combining: folds negated and absolute copies into their readers, MUL then ADD into \
         MAD, drops _SAT of values already in [0, 1], cancels double integer negations"
    }

    fn run(&self, module: &mut ir::Module) -> PassResult {
        let counts = combine(&mut module.function);
        PassResult { changed: counts.changed(), stats: counts.stats() }
    }
}

/// What one [`combine`] did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    /// Copies with modifiers folded into their readers.
    pub modifiers: u64,
    /// `MUL` and `ADD` pairs fused into `MAD`.
    pub mads: u64,
    /// `_SAT` flags dropped.
    pub saturates: u64,
    /// Double integer negations cancelled.
    pub negations: u64,
}

impl Counts {
    /// Whether anything changed.
    pub fn changed(&self) -> bool {
        *self != Counts::default()
    }

    /// The counters, in a fixed order, zeros included.
    pub fn stats(&self) -> Stats {
        let mut s = Stats::default();
        s.add("copies folded", self.modifiers);
        s.add("mads fused", self.mads);
        s.add("saturates dropped", self.saturates);
        s.add("negations cancelled", self.negations);
        s
    }

    fn add(&mut self, other: Counts) {
        self.modifiers += other.modifiers;
        self.mads += other.mads;
        self.saturates += other.saturates;
        self.negations += other.negations;
    }
}

/// Combines until nothing more changes.
///
/// ```
/// let text = "FRAG\nDCL IN[0]\nDCL OUT[0], COLOR\nDCL TEMP[0]\n\
///             MUL TEMP[0], IN[0], IN[0]\nADD OUT[0], TEMP[0], IN[0]\nEND\n";
/// let mut module = ir::from_tgsi(&tgsi::parse(text).unwrap()).unwrap();
/// let counts = passes::combine::combine(&mut module.function);
/// assert_eq!(counts.mads, 4);
/// ir::verify::verify(&module.function).unwrap();
/// ```
pub fn combine(func: &mut Function) -> Counts {
    let mut total = Counts::default();
    let mut analyses = Analyses::default();
    // Every round that changes something removes an instruction or a
    // flag for good; the bound only guards the loop.
    for _ in 0..func.insts.len() + 1 {
        let mut round = Counts::default();
        let saturates = saturate::drop_saturates(func, &mut analyses);
        round.saturates += analyses.after(saturates);
        round.negations += analyses.after(negation::cancel(func));
        let modifiers = modifiers::fold(func, &mut analyses);
        round.modifiers += analyses.after(modifiers);
        let mads = mad::fuse(func, &mut analyses);
        round.mads += analyses.after(mads);
        if !round.changed() {
            break;
        }
        total.add(round);
    }
    total
}

/// The uses and the instruction groups of the function as it is, built
/// when a rule first asks and shared by the next rules until one changes
/// the function: each is a walk over every placed instruction, and the
/// last round of every run, which changes nothing, needs each once.
#[derive(Default)]
struct Analyses {
    uses: Option<Uses>,
    groups: Option<Groups>,
}

impl Analyses {
    fn uses(&mut self, func: &Function) -> &Uses {
        self.uses.get_or_insert_with(|| Uses::new(func))
    }

    fn groups(&mut self, func: &Function) -> &Groups {
        self.groups.get_or_insert_with(|| Groups::new(func))
    }

    fn uses_and_groups(&mut self, func: &Function) -> (&Uses, &Groups) {
        let uses = self.uses.get_or_insert_with(|| Uses::new(func));
        let groups = self.groups.get_or_insert_with(|| Groups::new(func));
        (uses, groups)
    }

    /// Passes on what a rule changed (a rule that changed nothing returns
    /// 0), forgetting the analyses when it changed something.
    fn after(&mut self, changed: u64) -> u64 {
        if changed != 0 {
            *self = Analyses::default();
        }
        changed
    }
}

/// Takes the instructions `dead` (whose results nothing reads any more)
/// out of their blocks.
fn remove_placed(func: &mut Function, dead: &[ir::Inst]) {
    if dead.is_empty() {
        return;
    }
    let dead: rustc_hash::FxHashSet<ir::Inst> = dead.iter().copied().collect();
    for b in func.blocks_in_order() {
        if let Some(bd) = crate::rewrite::get_mut(&mut func.blocks, b) {
            bd.insts.retain(|i| !dead.contains(i));
        }
    }
}
