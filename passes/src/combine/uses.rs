//! Who reads each value: instruction operands by position, and anything
//! else (construct conditions and selectors) as a use no rule rewrites.

use ir::{Function, Inst, Value};
use rustc_hash::FxHashMap as HashMap;

/// One read of a value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Use {
    /// Operand `1` of the placed instruction `0`.
    Arg(Inst, usize),
    /// An `IF` condition, `SWITCH` selector or `CASE` value.
    Construct,
}

/// The uses of every value read by placed instructions or constructs.
pub(super) fn uses(func: &Function) -> HashMap<Value, Vec<Use>> {
    let mut map: HashMap<Value, Vec<Use>> = HashMap::default();
    for b in func.blocks_in_order() {
        let Some(bd) = func.blocks.get(b) else { continue };
        for &inst in &bd.insts {
            let Some(d) = func.insts.get(inst) else { continue };
            for (k, a) in d.args.iter().enumerate() {
                map.entry(a.value).or_default().push(Use::Arg(inst, k));
            }
        }
    }
    for op in ir::walk::construct_operands(&func.body) {
        map.entry(op.value).or_default().push(Use::Construct);
    }
    map
}
