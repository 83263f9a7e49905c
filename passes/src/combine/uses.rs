//! Who reads each value: instruction operands by position, and anything
//! else (construct conditions and selectors) as a use no rule rewrites.
//!
//! Built once per rule application as one flat array grouped by value
//! (counted, then filled), not a map of vectors: on a 100,000-instruction
//! shader the map's hashing and its hundreds of thousands of small vectors
//! were most of the pass's time.

use ir::{EntityRef, Function, Inst, Value};

/// One read of a value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Use {
    /// Operand `1` of the placed instruction `0`.
    Arg(Inst, u32),
    /// An `IF` condition, `SWITCH` selector or `CASE` value.
    Construct,
}

/// The uses of every value read by placed instructions or constructs.
pub(super) struct Uses {
    /// Where each value's uses start in `list` (by value index; one more
    /// entry than values, so the end of the last is there too).
    start: Vec<u32>,
    list: Vec<Use>,
}

impl Uses {
    /// The uses of `func`'s values as it is now.
    pub(super) fn new(func: &Function) -> Uses {
        // One walk of the function (the instructions are scattered in
        // memory), then a counting sort of what it found.
        let mut found: Vec<(Value, Use)> = Vec::new();
        let mut count = vec![0u32; func.values.len() + 1];
        for_each_use(func, |v, u| {
            if let Some(c) = count.get_mut(v.index()) {
                *c += 1;
                found.push((v, u));
            }
        });
        // Exclusive prefix sums: `start[v]` is where `v`'s uses begin.
        let mut start = Vec::with_capacity(count.len());
        let mut total = 0u32;
        for c in &count {
            start.push(total);
            total += c;
        }
        let mut next = start.clone();
        let mut list = vec![Use::Construct; total as usize];
        for (v, u) in found {
            if let Some(slot) = next.get_mut(v.index()) {
                if let Some(entry) = list.get_mut(*slot as usize) {
                    *entry = u;
                }
                *slot += 1;
            }
        }
        Uses { start, list }
    }

    /// The uses of `v` (none for a value nothing reads).
    pub(super) fn of(&self, v: Value) -> &[Use] {
        let i = v.index();
        match (self.start.get(i), self.start.get(i + 1)) {
            (Some(&a), Some(&b)) => self.list.get(a as usize..b as usize).unwrap_or_default(),
            _ => &[],
        }
    }
}

/// Calls `f` with every read of a value, in program order: the operands of
/// placed instructions, then the operands of constructs.
fn for_each_use(func: &Function, mut f: impl FnMut(Value, Use)) {
    for b in func.blocks_in_order() {
        let Some(bd) = func.blocks.get(b) else { continue };
        for &inst in &bd.insts {
            let Some(d) = func.insts.get(inst) else { continue };
            for (k, a) in d.args.iter().enumerate() {
                f(a.value, Use::Arg(inst, k as u32));
            }
        }
    }
    for op in ir::walk::construct_operands(&func.body) {
        f(op.value, Use::Construct);
    }
}
