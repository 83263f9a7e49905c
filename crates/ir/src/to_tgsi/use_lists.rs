//! The instructions reading each value, in one flat array.
//!
//! A vector per value was one allocation per value read (hundreds of
//! thousands in a large shader); here every list sits in one array,
//! indexed by offsets per value (compressed sparse rows).

use crate::entity::EntityRef;
use crate::function::{Function, Inst, Value};

/// For every value, the instructions reading it, each once per operand, in
/// the order the readers were given.
pub(crate) struct UseLists {
    /// `readers[start[v]..start[v + 1]]` read value `v`.
    start: Vec<u32>,
    readers: Vec<Inst>,
}

impl UseLists {
    /// The uses by the operands of `insts` (each an instruction of `func`).
    pub(crate) fn new(func: &Function, insts: &[Inst]) -> Self {
        let values = func.values.len();
        let mut start = vec![0u32; values + 1];
        let args = |i: Inst| func.insts.get(i).into_iter().flat_map(|d| d.args.iter().map(|a| a.value.index()));
        for &i in insts {
            for v in args(i).filter(|&v| v < values) {
                start[v + 1] += 1;
            }
        }
        for k in 1..start.len() {
            start[k] += start[k - 1];
        }
        let mut fill = start.clone();
        let mut readers = vec![Inst::new(0); start[values] as usize];
        for &i in insts {
            for v in args(i).filter(|&v| v < values) {
                readers[fill[v] as usize] = i;
                fill[v] += 1;
            }
        }
        UseLists { start, readers }
    }

    /// The readers of `v`, or `None` when nothing reads it.
    pub(crate) fn get(&self, v: &Value) -> Option<&[Inst]> {
        let list = self.of(*v);
        (!list.is_empty()).then_some(list)
    }

    /// The readers of `v` (empty when nothing reads it).
    pub(crate) fn of(&self, v: Value) -> &[Inst] {
        let (Some(&a), Some(&b)) = (self.start.get(v.index()), self.start.get(v.index() + 1)) else { return &[] };
        self.readers.get(a as usize..b as usize).unwrap_or(&[])
    }
}
