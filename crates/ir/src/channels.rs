//! How scalar operations relate to the channels of TGSI operands.

use tgsi::Opcode;

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
