//! Targets written as lists (`--caps`): a preset to start from,
//! capabilities set by name, 64-bit opcodes added.

use crate::{presets, Cap, Caps, Target, Wide64};

/// A `--caps` list could not be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "unknown capability `{item}`: expected a target ({}), NAME=VALUE with a shader capability ({}), \
     a 64-bit opcode name or `one-double`",
    presets::names(),
    Cap::STAGE.map(Cap::name).join(", ")
)]
pub struct UnknownCapability {
    /// The item that is none of these.
    pub item: String,
}

impl Target {
    /// Reads a `--caps` list: items separated by commas, applied in order
    /// to every stage with every capability and no 64-bit opcode native:
    /// - a preset name: its stages and tuning replace those so far, its
    ///   64-bit opcodes are added;
    /// - `NAME=VALUE`: a capability of every stage (`MAX_TEMPS=16`,
    ///   `INTEGERS=0`; `PIPE_SHADER_CAP_` may prefix the name);
    /// - a 64-bit opcode name (any case): that opcode is native;
    /// - `one-double`: one double per instruction.
    ///
    /// ```
    /// use target::Target;
    /// use tgsi::{Opcode, Processor};
    /// let t = Target::parse("DADD,dmul,one-double").unwrap();
    /// assert!(t.wide.is_native(Opcode::Dmul) && !t.wide.is_native(Opcode::Ddiv) && t.wide.one_double);
    /// assert!(Target::parse("no-int64,U64ADD").unwrap().wide.is_native(Opcode::U64add));
    /// let t = Target::parse("i915,MAX_TEMPS=8").unwrap();
    /// assert_eq!(t.stage(Processor::Fragment).unwrap().max_temps, 8);
    /// assert!(t.tuning.whole_texture_writes); // i915's, as its preset has it
    /// assert!(Target::parse("ADD").is_err()); // not a 64-bit opcode
    /// assert!(Target::parse("MAX_TEMPS=many").is_err());
    /// ```
    pub fn parse(list: &str) -> Result<Target, UnknownCapability> {
        let mut target = Target::uniform(list, Caps::ALL, Wide64::none());
        for item in list.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            let unknown = || UnknownCapability { item: item.to_string() };
            if item == "one-double" {
                target.wide.one_double = true;
            } else if let Some(preset) = presets::find(item) {
                let t = preset.target();
                target.stages = t.stages;
                target.wide.add(&t.wide);
                target.tuning = t.tuning;
            } else if let Some((name, value)) = item.split_once('=') {
                let cap = Cap::from_name(name.trim()).filter(|c| Cap::STAGE.contains(c)).ok_or_else(unknown)?;
                let value: u32 = value.trim().parse().map_err(|_| unknown())?;
                if !cap.is_count() && value > 1 {
                    return Err(unknown());
                }
                target.set(cap, value);
            } else {
                let op = tgsi::Opcode::from_name(&item.to_ascii_uppercase()).ok_or_else(unknown)?;
                if !target.wide.add_opcode(op) {
                    return Err(unknown());
                }
            }
        }
        Ok(target)
    }
}
