//! The branch labels Mesa's emitters (ureg) write and its interpreter
//! relies on: an `IF`/`UIF` names its `ELSE`, or its `ENDIF` when it has
//! none; an `ELSE` names its `ENDIF`. Indices count instructions from 0.

use crate::ast::Instruction;
use crate::opcode::Opcode;

/// The label Mesa gives each instruction of `insts` (in order): `Some`
/// for an `IF`, `UIF` or `ELSE` whose construct closes, `None` otherwise.
///
/// ```
/// let shader = tgsi::parse("FRAG\nIF IMM[0].xxxx\nELSE\nENDIF\nEND\nIMM[0] FLT32 {1, 1, 1, 1}\n").unwrap();
/// assert_eq!(tgsi::mesa_labels(shader.instructions()), [Some(1), Some(2), None, None]);
/// ```
pub fn mesa_labels<'a>(insts: impl IntoIterator<Item = &'a Instruction>) -> Vec<Option<u32>> {
    let mut labels = Vec::new();
    // The open IF, or its ELSE once seen: whichever the ENDIF's index goes to.
    let mut open: Vec<usize> = Vec::new();
    for (k, inst) in insts.into_iter().enumerate() {
        labels.push(None);
        match inst.opcode {
            Opcode::If | Opcode::Uif => open.push(k),
            Opcode::Else => {
                if let Some(top) = open.last_mut() {
                    labels[*top] = Some(k as u32);
                    *top = k;
                }
            }
            Opcode::Endif => {
                if let Some(top) = open.pop() {
                    labels[top] = Some(k as u32);
                }
            }
            _ => {}
        }
    }
    labels
}
