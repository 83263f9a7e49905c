//! Facts: what a register channel holds, in the IR's terms, in one
//! canonical form, so that every way of naming the same bits compares
//! equal (a split's half and the half of its pair, a constant and an
//! immediate holding its bits).

use crate::function::*;
use std::fmt;
use tgsi::File;

/// Source modifiers a fact carries: the absolute value, then negation.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Mods {
    /// Negated (after the absolute value).
    pub neg: bool,
    /// Absolute value.
    pub abs: bool,
}

impl Mods {
    /// The modifiers of a source operand.
    pub fn of(negate: bool, absolute: bool) -> Mods {
        Mods { neg: negate, abs: absolute }
    }

    fn plain(self) -> bool {
        !self.neg && !self.abs
    }

    /// `inner` read through these modifiers: an absolute value clears
    /// what `inner` did to the sign, else the negations add up.
    fn over(self, inner: Mods) -> Mods {
        if self.abs {
            self
        } else {
            Mods { neg: self.neg ^ inner.neg, abs: inner.abs }
        }
    }
}

/// Which part of a value a 32-bit channel holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Half {
    /// A 32-bit value.
    Whole,
    /// The low half (the first channel of a pair) of a 64-bit value.
    Lo,
    /// The high half of a 64-bit value.
    Hi,
}

/// What a register channel holds, as far as the checker knows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Fact {
    /// Nothing the IR names: scratch, paths that disagree, an indirect
    /// write that may have reached it.
    Unknown,
    /// These bits (a constant, an immediate's word, a register's initial
    /// zero), through modifiers.
    Bits(u32, Mods),
    /// A value, or a half of a 64-bit value, through modifiers.
    Value(Value, Half, Mods),
}

impl Fact {
    fn mods(self) -> Mods {
        match self {
            Fact::Unknown => Mods::default(),
            Fact::Bits(_, m) | Fact::Value(_, _, m) => m,
        }
    }

    fn with_mods(self, mods: Mods) -> Fact {
        match self {
            Fact::Unknown => Fact::Unknown,
            Fact::Bits(b, _) => Fact::Bits(b, mods),
            Fact::Value(v, h, _) => Fact::Value(v, h, mods),
        }
    }

    /// What a read through `mods` of a channel holding this fact gets, if
    /// the read means what the IR's operand means: modifiers a copy
    /// applied (a 32-bit MOV's, on the sign bit of the channel, a half of
    /// a 64-bit value too) count only for a 32-bit operand read as a float
    /// or untyped value; an integer reader negates in two's complement and
    /// a 64-bit one the whole value.
    pub fn read(self, mods: Mods, sign_bit_read: bool) -> Option<Fact> {
        let held = self.mods();
        if held.plain() {
            return Some(self.with_mods(mods));
        }
        sign_bit_read.then(|| self.with_mods(mods.over(held)))
    }
}

impl fmt::Display for Fact {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (inner, mods) = match self {
            Fact::Unknown => return f.write_str("nothing known"),
            Fact::Bits(b, m) => (format!("{b:#010x}"), *m),
            Fact::Value(v, Half::Whole, m) => (v.to_string(), *m),
            Fact::Value(v, Half::Lo, m) => (format!("{v}.lo"), *m),
            Fact::Value(v, Half::Hi, m) => (format!("{v}.hi"), *m),
        };
        let inner = if mods.abs { format!("|{inner}|") } else { inner };
        write!(f, "{}{inner}", if mods.neg { "-" } else { "" })
    }
}

/// The canonical fact of the IR operand `o` in a channel: `odd` says the
/// channel is the second of a pair (the high half of a 64-bit value).
/// Splits and packs are followed to the value whose half they name;
/// constants, initial zeros and reads of immediates are their bits; an
/// undefined value is [`Fact::Unknown`], which any read satisfies.
pub(super) fn canonical(func: &Function, imms: &[tgsi::Immediate], o: Operand, odd: bool) -> Fact {
    let mods = Mods::of(o.neg, o.abs);
    let mut v = o.value;
    let Some(data) = func.values.get(v) else { return Fact::Unknown };
    let mut half = match data.ty {
        Ty::B64 if odd => Half::Hi,
        Ty::B64 => Half::Lo,
        Ty::B32 => Half::Whole,
    };
    // Each step follows an argument to an earlier definition; the bound
    // only guards against an IR the verifier would reject.
    for _ in 0..64 {
        let Some(data) = func.values.get(v).and_then(|d| func.insts.get(d.def)) else { break };
        let plain = |k: usize| data.args.get(k).filter(|a| !a.neg && !a.abs).map(|a| a.value);
        match (&data.op, half) {
            (Op::Const(bits), Half::Hi) => return Fact::Bits((bits >> 32) as u32, mods),
            (Op::Const(bits), _) => return Fact::Bits(*bits as u32, mods),
            (Op::Initial, _) => return Fact::Bits(0, mods),
            // Any bits will do.
            (Op::Undef, _) => return Fact::Unknown,
            (Op::Read(s), Half::Whole) if s.file == File::Immediate && s.dim.is_none() => {
                if let Some(imm) = imms.get(s.index as usize) {
                    return Fact::Bits(imm.data[s.chan as usize & 3], mods);
                }
                break;
            }
            (Op::Split { hi }, Half::Whole) => match plain(0) {
                Some(whole) => {
                    v = whole;
                    half = if *hi { Half::Hi } else { Half::Lo };
                }
                None => break,
            },
            (Op::Pack, Half::Lo | Half::Hi) => match plain(usize::from(half == Half::Hi)) {
                Some(part) => {
                    v = part;
                    half = Half::Whole;
                }
                None => break,
            },
            _ => break,
        }
    }
    Fact::Value(v, half, mods)
}
