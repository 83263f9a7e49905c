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
//!    do). Constants are `Const`, `Initial` (a zero) and immediates. A
//!    derivative (`DDX`, `DDY` and their fine forms) of a constant is
//!    `c - c` (+0.0 for a finite `c`): the backend fills a constant into
//!    every lane of a quad, so the lanes it subtracts are equal.
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
//!    `x` is known not to be a NaN other than the canonical one (see
//!    `is_quiet`), or when every reader of the result is float arithmetic
//!    or a float comparison, which do not tell one NaN from another: float
//!    arithmetic gives the canonical NaN for every NaN, which would change
//!    the bits an integer op or a store reading `x` sees. The
//!    canonical NaN, -0.0, infinities and denormals come back unchanged
//!    (x86-64 SSE arithmetic, no flush to zero). Never `x * 0.0`, `x + 0.0` (wrong
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
//! 6. **Constant loops.** A loop whose every value follows from constants
//!    (a counted loop over constants) is run here with the backend's
//!    arithmetic, at most 16,384 operations, and replaced by the values it
//!    leaves (see `loops.rs`).
//!
//! What it leaves: `SWITCH` with a constant selector; other loops; an `IF` whose
//! taken arm ends in `BRK`, `CONT` or `RET`, or whose dropped arm holds the
//! only way into some block with phis; float identities on values that
//! may be signalling NaNs read by something that tells NaNs apart. Dead
//! instructions are
//! left for `dce` (copies and identities are taken out of their blocks, so
//! a second run finds nothing).
//!
//! The parts: `values` folds instruction by instruction (1 to 3), with
//! `known` (what is known of a value: constant bits, quietness) and
//! `identity` (the rules of 3); `indices` does 5 and `branches` does 4.

mod branches;
mod identity;
mod indices;
mod known;
mod loops;
mod values;

pub use identity::{identity, Outcome, Pat};
pub(crate) use known::is_quiet;
pub use known::{is_other_nan, is_signalling_nan};

use ir::Module;

use crate::{Pass, PassResult, Stats};
use branches::fold_branches;
use loops::fold_loops;
use values::fold_values;

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
    /// Loops whose every value follows from constants, replaced by the
    /// values they leave.
    pub loops: u64,
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
        s.add("loops evaluated", self.loops);
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
        fold_loops(&mut module.function, &module.immediates, &mut counts);
        if counts == before {
            break;
        }
    }
    counts
}
