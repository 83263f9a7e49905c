//! How the operands of [`eval`](crate::eval) are laid out: which TGSI
//! source (and channel) each argument is, and which formula a result
//! channel computes. The IR lists an ALU op's operands in this order.

use tgsi::{ChannelMode, Opcode};

/// The formula result channel `chan` of `opcode` computes: two operations
/// of `opcode` on the same operands give the same bits exactly when their
/// formula channels are equal. Component-wise, replicated-scalar and
/// 64-bit opcodes compute one formula whatever the channel (0); LIT's w
/// is its x (both 1.0), UP2H's z and w are its x and y.
///
/// ```
/// use semantics::formula_chan;
/// use tgsi::Opcode;
/// assert_eq!(formula_chan(Opcode::Add, 3), 0);
/// assert_eq!(formula_chan(Opcode::Lit, 3), 0); // x and w are both 1.0
/// assert_eq!(formula_chan(Opcode::Dst, 2), 2);
/// ```
pub fn formula_chan(opcode: Opcode, chan: u8) -> u8 {
    use Opcode::*;
    match opcode {
        // (1, max(x, 0), ..., 1): x and w are the constant 1.
        Lit if chan == 3 => 0,
        // The low half for x and z, the high half for y and w.
        Up2h | Up2us => chan & 1,
        _ if opcode.info().mode == ChannelMode::ChannelDependent => chan,
        _ => 0,
    }
}

/// The (source, channel) pairs a replicated-scalar opcode reads, in
/// argument order.
pub fn replicated_reads(op: Opcode) -> &'static [(u8, u8)] {
    use Opcode::*;
    match op {
        Dp2 => &[(0, 0), (0, 1), (1, 0), (1, 1)],
        Dp3 => &[(0, 0), (0, 1), (0, 2), (1, 0), (1, 1), (1, 2)],
        Dp4 => &[(0, 0), (0, 1), (0, 2), (0, 3), (1, 0), (1, 1), (1, 2), (1, 3)],
        Pow => &[(0, 0), (1, 0)],
        Pk2h | Pk2us => &[(0, 0), (0, 1)],
        Pk4b | Pk4ub => &[(0, 0), (0, 1), (0, 2), (0, 3)],
        _ => &[(0, 0)],
    }
}

/// How many arguments `eval` takes for `opcode`: one per source for
/// component-wise and 64-bit opcodes, the [`replicated_reads`] of a
/// replicated scalar, all four channels of every source for a
/// channel-dependent opcode. `None` for opcodes that do not work channel
/// by channel.
pub fn arg_count(opcode: Opcode) -> Option<usize> {
    let info = opcode.info();
    let n = usize::from(info.num_src);
    match info.mode {
        _ if info.is_64bit() => Some(n),
        ChannelMode::Componentwise => Some(n),
        ChannelMode::Replicate => Some(replicated_reads(opcode).len()),
        ChannelMode::ChannelDependent => Some(4 * n),
        ChannelMode::Other | ChannelMode::None => None,
    }
}

/// The TGSI source operand argument `arg` of `opcode` reads.
///
/// ```
/// use semantics::arg_source;
/// use tgsi::Opcode;
/// assert_eq!(arg_source(Opcode::Mad, 2), Some(2));
/// assert_eq!(arg_source(Opcode::Dp3, 4), Some(1)); // the second vector's y
/// assert_eq!(arg_source(Opcode::Dst, 5), Some(1)); // 4 * source + channel
/// ```
pub fn arg_source(opcode: Opcode, arg: usize) -> Option<usize> {
    let info = opcode.info();
    if arg >= arg_count(opcode)? {
        return None;
    }
    Some(match info.mode {
        _ if info.is_64bit() => arg,
        ChannelMode::Replicate => usize::from(replicated_reads(opcode).get(arg)?.0),
        ChannelMode::ChannelDependent => arg / 4,
        _ => arg,
    })
}
