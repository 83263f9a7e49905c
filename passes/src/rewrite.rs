//! Helpers the passes share for rewriting a function in place: replacing
//! values and blocks, merging blocks, and looking entities up without
//! panicking on dangling indices.

use ir::walk::for_each_region_post_order_mut;
use ir::{Arena, Block, EntityRef, Function, Node, Op, Value};
use rustc_hash::FxHashMap as HashMap;
use std::cell::RefCell;

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
///
/// Replacements chain (a block merged into one merged later); a lookup
/// points every entry of the chain it followed at the end, so folding
/// thousands of nested constructs does not follow ever longer chains.
#[derive(Default)]
pub(crate) struct Rewrites {
    values: RefCell<HashMap<Value, Value>>,
    blocks: RefCell<HashMap<Block, Block>>,
}

impl Rewrites {
    /// Whether nothing is replaced.
    pub fn is_empty(&self) -> bool {
        self.values.borrow().is_empty() && self.blocks.borrow().is_empty()
    }

    /// Replaces `v` by `by` from now on.
    pub fn replace_value(&mut self, v: Value, by: Value) {
        self.values.get_mut().insert(v, by);
    }

    /// What `v` is replaced by, following chains.
    pub fn value(&self, v: Value) -> Value {
        resolve(&mut self.values.borrow_mut(), v)
    }

    /// The block `b` was merged into, following chains.
    pub fn block(&self, b: Block) -> Block {
        resolve(&mut self.blocks.borrow_mut(), b)
    }
}

/// The end of `k`'s chain in `map`, with every entry on the way pointed
/// at it.
fn resolve<K: Copy + Eq + std::hash::Hash>(map: &mut HashMap<K, K>, k: K) -> K {
    let mut end = k;
    // The bound guards against a cycle.
    for _ in 0..=map.len() {
        match map.get(&end) {
            Some(&next) if next != end => end = next,
            _ => break,
        }
    }
    let mut at = k;
    while at != end {
        match map.insert(at, end) {
            Some(next) if next != end => at = next,
            _ => break,
        }
    }
    end
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
    rw.blocks.get_mut().insert(from, into);
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
