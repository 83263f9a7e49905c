//! Which double-precision and 64-bit integer opcodes a target runs as they
//! are, and whether one instruction may compute two doubles: what
//! `legalize-doubles` rewrites for.

use std::collections::BTreeSet;
use std::fmt;

use tgsi::Opcode;

/// What a target can execute of the double-precision and 64-bit integer
/// opcodes. Opcodes that neither read nor write 64-bit values are not
/// listed: [`Wide64::is_native`] is true of them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Wide64 {
    native: BTreeSet<Opcode>,
    /// At most one double (or 64-bit integer) per instruction: every
    /// 64-bit operation writes `.xy` or `.zw`, never `.xyzw`.
    pub one_double: bool,
}

/// Every opcode that reads or writes a 64-bit value (DFRACEXP included).
pub fn wide_opcodes() -> Vec<Opcode> {
    Opcode::ALL.iter().copied().filter(|op| op.info().is_64bit()).collect()
}

/// Whether `op` is a double-precision opcode (its result or an operand is
/// a double), conversions between doubles and 64-bit integers included.
pub fn is_double_opcode(op: Opcode) -> bool {
    let info = op.info();
    matches!(info.dst_type, tgsi::OperandType::Double) || matches!(info.src_type, tgsi::OperandType::Double)
}

/// The 64-bit integer opcodes: arithmetic, comparisons and conversions
/// between 64-bit integers and 32-bit values or floats (not doubles).
pub fn int64_opcodes() -> Vec<Opcode> {
    wide_opcodes().into_iter().filter(|&op| !is_double_opcode(op)).collect()
}

/// The conversions between doubles and other types.
fn double_conversions() -> Vec<Opcode> {
    use Opcode::*;
    vec![F2d, D2f, I2d, D2i, U2d, D2u, D2i64, D2u64, I642d, U642d]
}

impl Wide64 {
    /// Every 64-bit opcode native, two doubles per instruction allowed.
    pub fn full() -> Wide64 {
        Wide64 { native: wide_opcodes().into_iter().collect(), one_double: false }
    }

    /// No 64-bit opcode native.
    pub fn none() -> Wide64 {
        Wide64 { native: BTreeSet::new(), one_double: false }
    }

    /// Doubles native, 64-bit integer opcodes not.
    pub fn doubles_only() -> Wide64 {
        Wide64::full().without(&int64_opcodes())
    }

    /// 64-bit integer opcodes native, doubles not.
    pub fn int64_only() -> Wide64 {
        Wide64 { native: int64_opcodes().into_iter().collect(), one_double: false }
    }

    /// DADD, DMUL, DFMA, the four comparisons and the double conversions
    /// native, and every 64-bit integer opcode.
    pub fn fp64_basic() -> Wide64 {
        use Opcode::*;
        let mut native: BTreeSet<Opcode> = [Dadd, Dmul, Dfma, Dslt, Dsge, Dseq, Dsne].into_iter().collect();
        native.extend(double_conversions());
        native.extend(int64_opcodes());
        Wide64 { native, one_double: false }
    }

    /// These capabilities without `ops`.
    pub fn without(mut self, ops: &[Opcode]) -> Wide64 {
        for op in ops {
            self.native.remove(op);
        }
        self
    }

    /// These capabilities with `other`'s native opcodes added (and its
    /// one-double restriction, if it has one).
    pub fn add(&mut self, other: &Wide64) {
        self.native.extend(other.native.iter().copied());
        self.one_double |= other.one_double;
    }

    /// Adds `op`, if it is a 64-bit opcode; returns whether it is.
    pub fn add_opcode(&mut self, op: Opcode) -> bool {
        if !op.info().is_64bit() {
            return false;
        }
        self.native.insert(op);
        true
    }

    /// Whether the target runs `op` as it is. Opcodes without 64-bit
    /// operands or results always are.
    pub fn is_native(&self, op: Opcode) -> bool {
        !op.info().is_64bit() || self.native.contains(&op)
    }

    /// Whether any double opcode is native (`PIPE_SHADER_CAP_DOUBLES`).
    pub fn doubles(&self) -> bool {
        self.native.iter().any(|&op| is_double_opcode(op))
    }

    /// Whether any 64-bit integer opcode is native (`PIPE_CAP_INT64`).
    pub fn int64(&self) -> bool {
        self.native.iter().any(|&op| !is_double_opcode(op))
    }

    /// Whether double arithmetic is native enough for the structured
    /// lowerings (which emit DADD, DMUL and DFMA); without it doubles are
    /// emulated with integer operations.
    pub fn has_fp64_arithmetic(&self) -> bool {
        [Opcode::Dadd, Opcode::Dmul, Opcode::Dfma, Opcode::D2f, Opcode::F2d].iter().all(|&op| self.is_native(op))
    }

    /// The native 64-bit opcodes, in table order.
    pub fn native(&self) -> impl Iterator<Item = Opcode> + '_ {
        self.native.iter().copied()
    }

    /// The 64-bit opcodes this target lacks, in table order.
    pub fn lowered(&self) -> Vec<Opcode> {
        wide_opcodes().into_iter().filter(|op| !self.native.contains(op)).collect()
    }
}

impl fmt::Display for Wide64 {
    /// The opcode names and `one-double`, comma-separated, as a `--caps`
    /// list takes them.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut items: Vec<&str> = self.native.iter().map(|op| op.name()).collect();
        if self.one_double {
            items.push("one-double");
        }
        f.write_str(&items.join(","))
    }
}
