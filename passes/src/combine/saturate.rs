//! `_SAT` on a float value already in [+0.0, 1.0] changes nothing (the
//! backend's saturate is `fmin(fmax(x, 0), 1)`, which returns such an `x`
//! bit for bit; -0.0 and NaN are not in the range: they become +0.0).

use ir::{Function, Inst, Op, Operand, Value};
use tgsi::{Opcode, OperandType};

use super::Analyses;

/// How deep the range of an operand is looked for.
const DEPTH: u32 = 6;

/// Whether `v` is always in [+0.0, 1.0].
fn unit(func: &Function, v: Value, depth: u32) -> bool {
    let Some(d) = func.values.get(v).and_then(|vd| func.insts.get(vd.def)) else { return false };
    match d.op {
        Op::Const(bits) => bits <= 0x3f80_0000,
        Op::Initial => true,
        Op::Alu { opcode, .. } if d.saturate => matches!(opcode.dst_type(), OperandType::Float | OperandType::Untyped),
        Op::Alu { .. } => unsaturated_unit(func, d, depth),
        _ => false,
    }
}

/// Whether the ALU operation `d` computes, before any `_SAT`, a value in
/// [+0.0, 1.0] whatever its operands hold.
fn unsaturated_unit(func: &Function, d: &ir::InstData, depth: u32) -> bool {
    let Op::Alu { opcode, .. } = d.op else { return false };
    let operand = |o: &Operand| depth > 0 && !o.neg && unit(func, o.value, depth - 1);
    use Opcode::*;
    match (opcode, d.args.as_slice()) {
        // 1.0 or +0.0.
        (Slt | Sge | Seq | Sne | Sgt | Sle, _) => true,
        (Mov, [a]) => operand(a),
        // fmin/fmax of two values in range is one of them; the product of
        // two is in range (and +0.0 when it underflows).
        (Min | Max | Mul, [a, b]) => operand(a) && operand(b),
        (Cmp | Ucmp, [_, a, b]) => operand(a) && operand(b),
        _ => false,
    }
}

/// Whether the `_SAT` of the placed instruction `inst` can go.
fn droppable(func: &Function, inst: Inst) -> bool {
    func.insts.get(inst).is_some_and(|d| d.saturate && !d.precise && unsaturated_unit(func, d, DEPTH))
}

/// Drops every `_SAT` that changes nothing; returns how many. A `MOV`
/// drops it channel by channel (the channel becomes a copy); another
/// opcode only when every channel of its instruction can.
pub(super) fn drop_saturates(func: &mut Function, analyses: &mut Analyses) -> u64 {
    let mut drop = Vec::new();
    for b in func.blocks_in_order() {
        let Some(bd) = func.blocks.get(b) else { continue };
        for &inst in &bd.insts {
            if !droppable(func, inst) {
                continue;
            }
            let is_mov = matches!(func.insts.get(inst).map(|d| &d.op), Some(Op::Alu { opcode: Opcode::Mov, .. }));
            if is_mov || analyses.groups(func).of(&inst).iter().all(|&m| droppable(func, m)) {
                drop.push(inst);
            }
        }
    }
    for &inst in &drop {
        if let Some(d) = crate::rewrite::get_mut(&mut func.insts, inst) {
            d.saturate = false;
        }
    }
    drop.len() as u64
}
