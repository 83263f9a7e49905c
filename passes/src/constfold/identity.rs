//! Algebraic identities on partly known operands: the rules that reduce
//! an ALU operation some of whose operands are not constants to one of
//! its operands or to a constant, each exact bit for bit under the
//! backend's semantics.

use semantics::eval;
use tgsi::Opcode;

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
        /// Known never to be a NaN other than the canonical one.
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

pub(super) const ONE: u32 = 0x3f80_0000;
pub(super) const NEG_ZERO: u32 = 0x8000_0000;

/// The identity that applies to a non-saturating 32-bit `opcode` (channel
/// 0) on operands `args`, if any. Every rule here holds bit for bit for
/// every value of the unknown operands under [`semantics::eval`]; the
/// float ones need the unknown operand to be quiet (no NaN but the canonical one).
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
                // fmin/fmax of a value and itself return it; a NaN comes
                // back canonical, so only for values that are no other NaN.
                Min | Max if a.plain_quiet() => return Some(Outcome::Operand(0)),
                Xor => return Some(Outcome::Const(0)),
                // Integer comparisons of a value with itself (float ones
                // are not: NaN is not equal to itself).
                Islt | Uslt | Usne => return Some(Outcome::Const(0)),
                Isge | Usge | Useq => return Some(Outcome::Const(u64::from(u32::MAX))),
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::constfold::is_other_nan;
    use semantics::apply_modifiers;
    use testkit::Rng;

    /// An operand of a rule under test: a constant, or unknown value `id`
    /// with modifiers.
    #[derive(Clone, Copy)]
    enum T {
        K(u32),
        X(usize, bool, bool),
    }

    /// Checks that `identity` fires on the pattern and that what it gives
    /// is what `eval` computes, for many values of the unknowns (NaNs other
    /// than the canonical one left out when `quiet`, since the rule then
    /// requires it).
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
            let xs = [testkit::special_or_random(&mut rng, 4), testkit::special_or_random(&mut rng, 4)];
            if quiet && xs.iter().any(|&x| is_other_nan(x)) {
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

    #[test]
    fn float_min_max_of_self() {
        holds(Opcode::Min, &[X0, X0], true);
        holds(Opcode::Max, &[X0, X0], true);
    }

    #[test]
    fn integer_comparisons_with_self() {
        for op in [Opcode::Islt, Opcode::Isge, Opcode::Uslt, Opcode::Usge, Opcode::Useq, Opcode::Usne] {
            holds(op, &[X0, X0], false);
            holds(op, &[X(0, true, true), X(0, true, true)], false);
        }
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
        never(Opcode::Min, &[q, Pat::Unknown { id: 0, neg: true, abs: false, quiet: true }]);
        never(Opcode::Min, &[x(false), x(false)]);
        never(Opcode::Fseq, &[q, q]);
        never(Opcode::Seq, &[q, q]);
        never(Opcode::Fsne, &[q, q]);
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
}
