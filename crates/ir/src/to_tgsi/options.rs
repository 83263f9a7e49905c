//! How emission runs, and why it fails.

use super::check::CheckError;

/// Why a module could not be written as TGSI.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum EmitError {
    /// The IR holds something emission cannot write.
    #[error("cannot emit TGSI: {0}")]
    Unwritable(String),
    /// The emitted code does not do what the IR says
    /// ([`EmitOptions::check`]).
    #[error("the emitted TGSI fails the allocation check: {0}")]
    Check(Box<CheckError>),
}

/// How a module is emitted.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct EmitOptions {
    /// Prove the emitted code against the IR with the allocation checker
    /// ([`super::check`]): every read finds the value the IR reads there,
    /// and outputs hold what the IR stored where they are observed. A
    /// failure is [`EmitError::Check`]. It costs a walk over the emitted
    /// code (about a tenth of emission's time).
    pub check: bool,
    /// Results stay in TEMPs and stores copy them into the outputs: no
    /// result is moved into the output register it is stored to (one the
    /// source computed in an output stays there), except a replicated
    /// scalar stored to several channels of one output, which is written
    /// there with their mask. For a driver whose compiler gives an output
    /// written by an operation a register of its own, but folds a `MOV`
    /// from a TEMP into the TEMP (etnaviv): more TGSI, fewer registers
    /// there (a replicated scalar kept in a TEMP costs etnaviv more
    /// instructions than it saves registers).
    pub outputs_through_temps: bool,
    /// The values of one vector instruction stay in the channels the
    /// source computed them in (any register): they are neither placed
    /// nor packed into other channels. For a driver whose
    /// ALU splits a vector instruction by channels (r300's RGB and alpha
    /// units), where a result moved from `.xyz` to `.yzw` costs an
    /// instruction more.
    pub source_channels: bool,
    /// Initial zeros an output is stored with, beside values of a
    /// register that is not a TEMP, are read from a TEMP channel nothing
    /// writes, the values copied beside them (`MOV TEMP[n].xy, IN[1]`,
    /// `MOV OUT[1], TEMP[n].xyzz`, as sources that read a channel they
    /// never wrote have it) rather than written from an immediate zero.
    /// For a driver whose compiler takes a never-written channel as
    /// undefined and writes nothing for it, where an immediate zero costs
    /// it a move and a write (nouveau), or that folds a `MOV` from a TEMP
    /// into the output (etnaviv).
    pub zeros_from_temps: bool,
    /// Bugs planted on purpose, for the checker's tests.
    #[cfg(test)]
    pub(crate) plant: super::plant::Plant,
}

impl EmitOptions {
    /// Checked in builds with debug assertions (every test's), not in
    /// release builds.
    pub fn checked_in_debug() -> EmitOptions {
        EmitOptions {
            check: cfg!(debug_assertions),
            outputs_through_temps: false,
            source_channels: false,
            zeros_from_temps: false,
            #[cfg(test)]
            plant: super::plant::Plant::default(),
        }
    }
}
