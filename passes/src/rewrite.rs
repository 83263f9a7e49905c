//! Helpers the passes share for rewriting a function in place: replacing
//! values and blocks, merging blocks, and looking entities up without
//! panicking on dangling indices.

use ir::walk::for_each_region_post_order_mut;
use ir::{Arena, Block, EntityRef, Function, Node, Op, Value};
use std::collections::HashMap;

/// The entry of `k`, if `k` is a key of `arena`.
pub(crate) fn get_mut<K: EntityRef, V>(arena: &mut Arena<K, V>, k: K) -> Option<&mut V> {
    if arena.contains(k) {
        Some(&mut arena[k])
    } else {
        None
    }
}

/// Values and blocks replaced while a pass rewrites: a value by another
/// with the same bits (a resolved phi, a copy), a merged block by the block
/// it was merged into. Lookups only: nothing iterates the maps, so they
/// cannot make output depend on hash order.
#[derive(Default)]
pub(crate) struct Rewrites {
    pub values: HashMap<Value, Value>,
    pub blocks: HashMap<Block, Block>,
}

impl Rewrites {
    /// Whether nothing is replaced.
    pub fn is_empty(&self) -> bool {
        self.values.is_empty() && self.blocks.is_empty()
    }

    /// What `v` is replaced by, following chains.
    pub fn value(&self, mut v: Value) -> Value {
        // Chains are short; the bound guards against a cycle.
        for _ in 0..=self.values.len() {
            match self.values.get(&v) {
                Some(&w) => v = w,
                None => break,
            }
        }
        v
    }

    /// The block `b` was merged into, following chains.
    pub fn block(&self, mut b: Block) -> Block {
        for _ in 0..=self.blocks.len() {
            match self.blocks.get(&b) {
                Some(&c) => b = c,
                None => break,
            }
        }
        b
    }
}

/// Moves the instructions of `from` after its first `skip` (its phis,
/// already resolved by the caller) to the end of `into`, and gives `into`
/// the exit of `from`; records the merge in `rw`. `from` is left empty.
pub(crate) fn merge_block(func: &mut Function, into: Block, from: Block, skip: usize, rw: &mut Rewrites) -> bool {
    let (rest, exit) = match get_mut(&mut func.blocks, from) {
        Some(m) if m.insts.len() >= skip => (m.insts.split_off(skip), std::mem::take(&mut m.exit)),
        _ => return false,
    };
    if let Some(m) = get_mut(&mut func.blocks, from) {
        m.insts.clear();
    }
    if let Some(c) = get_mut(&mut func.blocks, into) {
        c.insts.extend(rest);
        c.exit = exit;
    }
    rw.blocks.insert(from, into);
    true
}

/// Applies the rewrites to every operand, phi predecessor and construct
/// operand.
pub(crate) fn apply(func: &mut Function, rw: &Rewrites) {
    if rw.is_empty() {
        return;
    }
    for (_, data) in func.insts.iter_mut() {
        for a in data.args.iter_mut() {
            a.value = rw.value(a.value);
        }
        if let Op::Phi { preds } = &mut data.op {
            for p in preds.iter_mut() {
                *p = rw.block(*p);
            }
        }
    }
    for_each_region_post_order_mut(&mut func.body, |r| {
        for op in r.iter_mut().flat_map(Node::operands_mut) {
            op.value = rw.value(op.value);
        }
    });
}
