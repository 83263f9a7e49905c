//! Target capabilities: which 64-bit opcodes a target runs natively, and
//! whether one instruction may compute two doubles.

use std::collections::BTreeSet;
use std::fmt;

use tgsi::Opcode;

/// What a target can execute of the double-precision and 64-bit integer
/// opcodes. Opcodes that neither read nor write 64-bit values are always
/// native and never listed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Caps {
    native: BTreeSet<Opcode>,
    /// At most one double (or 64-bit integer) per instruction: every
    /// 64-bit operation writes `.xy` or `.zw`, never `.xyzw`.
    pub one_double: bool,
}

/// A named target in [`PRESETS`].
#[derive(Clone, Copy, Debug)]
pub struct Preset {
    /// The name `--target` takes.
    pub name: &'static str,
    /// One line for help and errors.
    pub description: &'static str,
    build: fn() -> Caps,
}

impl Preset {
    /// The capabilities of this target.
    pub fn caps(&self) -> Caps {
        (self.build)()
    }
}

/// Every preset, in the order help texts list them.
pub const PRESETS: &[Preset] = &[
    Preset { name: "full", description: "every 64-bit opcode native: nothing changes", build: Caps::full },
    Preset {
        name: "one-double",
        description: "every 64-bit opcode native, one double per instruction",
        build: || Caps { one_double: true, ..Caps::full() },
    },
    Preset {
        name: "no-fp64-div",
        description: "no DDIV, DRCP, DSQRT, DRSQ (Newton-Raphson from an f32 seed)",
        build: || Caps::full().without(&[Opcode::Ddiv, Opcode::Drcp, Opcode::Dsqrt, Opcode::Drsq]),
    },
    Preset {
        name: "fp64-basic",
        description: "only DADD, DMUL, DFMA, DSLT, DSGE, DSEQ, DSNE and the double conversions are native doubles",
        build: Caps::fp64_basic,
    },
    Preset { name: "no-fp64", description: "no double and no 64-bit integer opcode", build: Caps::none },
    Preset {
        name: "no-int64",
        description: "doubles native, 64-bit integer opcodes emulated with 32-bit ones",
        build: || Caps::full().without(&int64_opcodes()),
    },
];

/// The preset called `name`.
pub fn preset(name: &str) -> Option<&'static Preset> {
    PRESETS.iter().find(|p| p.name == name)
}

/// The preset names, comma-separated (for error messages).
pub fn preset_names() -> String {
    PRESETS.iter().map(|p| p.name).collect::<Vec<_>>().join(", ")
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

/// A `--caps` list could not be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown capability `{item}`: expected a target ({}), a 64-bit opcode name or `one-double`", preset_names())]
pub struct UnknownCapability {
    /// The item that is neither a preset, an opcode nor a flag.
    pub item: String,
}

impl Caps {
    /// Every 64-bit opcode native, two doubles per instruction allowed.
    pub fn full() -> Caps {
        Caps { native: wide_opcodes().into_iter().collect(), one_double: false }
    }

    /// No 64-bit opcode native.
    pub fn none() -> Caps {
        Caps { native: BTreeSet::new(), one_double: false }
    }

    /// `fp64-basic`: DADD, DMUL, DFMA, the four comparisons and the double
    /// conversions native, and every 64-bit integer opcode.
    pub fn fp64_basic() -> Caps {
        use Opcode::*;
        let mut native: BTreeSet<Opcode> = [Dadd, Dmul, Dfma, Dslt, Dsge, Dseq, Dsne].into_iter().collect();
        native.extend(double_conversions());
        native.extend(int64_opcodes());
        Caps { native, one_double: false }
    }

    /// These capabilities without `ops`.
    pub fn without(mut self, ops: &[Opcode]) -> Caps {
        for op in ops {
            self.native.remove(op);
        }
        self
    }

    /// Reads a `--caps` list: comma-separated presets (their opcodes are
    /// added), 64-bit opcode names (case-insensitive) and `one-double`.
    ///
    /// ```
    /// use passes::legalize_doubles::Caps;
    /// use tgsi::Opcode;
    /// let caps = Caps::parse("DADD,dmul,one-double").unwrap();
    /// assert!(caps.is_native(Opcode::Dmul) && !caps.is_native(Opcode::Ddiv) && caps.one_double);
    /// assert!(Caps::parse("no-int64,U64ADD").unwrap().is_native(Opcode::U64add));
    /// assert!(Caps::parse("ADD").is_err()); // not a 64-bit opcode
    /// ```
    pub fn parse(list: &str) -> Result<Caps, UnknownCapability> {
        let mut caps = Caps::none();
        for item in list.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            if item == "one-double" {
                caps.one_double = true;
            } else if let Some(p) = preset(item) {
                let c = p.caps();
                caps.native.extend(c.native);
                caps.one_double |= c.one_double;
            } else {
                match Opcode::from_name(&item.to_ascii_uppercase()) {
                    Some(op) if op.info().is_64bit() => {
                        caps.native.insert(op);
                    }
                    _ => return Err(UnknownCapability { item: item.to_string() }),
                }
            }
        }
        Ok(caps)
    }

    /// Whether the target runs `op` as it is. Opcodes without 64-bit
    /// operands or results always are.
    pub fn is_native(&self, op: Opcode) -> bool {
        !op.info().is_64bit() || self.native.contains(&op)
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

impl fmt::Display for Caps {
    /// The `--caps` list that reads back to these capabilities.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut items: Vec<&str> = self.native.iter().map(|op| op.name()).collect();
        if self.one_double {
            items.push("one-double");
        }
        f.write_str(&items.join(","))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn presets_are_what_the_readme_says() {
        let caps = |n: &str| preset(n).map(Preset::caps).unwrap_or_else(Caps::none);
        assert!(caps("full").lowered().is_empty());
        assert!(caps("one-double").one_double && caps("one-double").lowered().is_empty());
        assert_eq!(caps("no-fp64-div").lowered(), [Opcode::Drcp, Opcode::Dsqrt, Opcode::Drsq, Opcode::Ddiv]);
        assert!(caps("no-fp64").native().next().is_none());
        assert!(caps("no-int64").lowered().iter().all(|&op| !is_double_opcode(op)));
        assert!(caps("no-int64").is_native(Opcode::Ddiv) && !caps("no-int64").is_native(Opcode::U64add));
        let basic = caps("fp64-basic");
        assert!(basic.has_fp64_arithmetic() && !basic.is_native(Opcode::Dabs) && basic.is_native(Opcode::I64div));
        assert!(!caps("no-fp64").has_fp64_arithmetic());
        assert!(Opcode::ALL.iter().filter(|op| !op.info().is_64bit()).all(|&op| caps("no-fp64").is_native(op)));
    }

    #[test]
    fn caps_lists_read_back() {
        for p in PRESETS {
            assert_eq!(Caps::parse(&p.caps().to_string()), Ok(p.caps()), "{}", p.name);
        }
        assert_eq!(Caps::parse("DADD,bogus").unwrap_err().item, "bogus");
    }
}
