//! Constant branches: an `IF`/`UIF` on a constant condition replaced by
//! the arm the backend takes, inner constructs first.

use ir::walk::for_each_region_post_order_mut;
use ir::{Block, Function, Inst, Node, Op, Region, Value};
use rustc_hash::FxHashSet as HashSet;

use super::known::const_of;
use super::Counts;
use crate::rewrite::{apply, get_mut, merge_block, Rewrites};

/// Folds every `IF` on a constant condition in `func`'s tree.
pub(super) fn fold_branches(func: &mut Function, counts: &mut Counts) {
    let mut body = std::mem::take(&mut func.body);
    let mut rw = Rewrites::default();
    // Inner constructs first, so an arm that is kept is already folded.
    for_each_region_post_order_mut(&mut body, |region| {
        let mut i = 1;
        while i < region.len() {
            if try_fold_if(region, i, func, &mut rw) {
                counts.branches += 1;
            } else {
                i += 1;
            }
        }
    });
    func.body = body;
    apply(func, &rw);
}

fn is_phi(func: &Function, inst: Inst) -> bool {
    func.insts.get(inst).is_some_and(|d| matches!(d.op, Op::Phi { .. }))
}

/// Replaces `region[i]`, an `IF` on a constant condition, by the arm it
/// takes; see the module documentation.
fn try_fold_if(region: &mut Region, i: usize, func: &mut Function, rw: &mut Rewrites) -> bool {
    // One IF replaced by one of its arms: not a walk.
    let (Some(Node::Block(bc)), Some(Node::If(n)), Some(Node::Block(bm))) =
        (region.get(i - 1), region.get(i), region.get(i + 1))
    else {
        return false;
    };
    let (bc, bm) = (*bc, *bm);
    let Some(bits) = const_of(func, &[], rw.value(n.cond.value)) else { return false };
    // Exactly the backend's test on the raw bits of the condition.
    let bits = bits as u32;
    let taken = if n.unsigned { bits != 0 } else { f32::from_bits(bits) != 0.0 };
    let (keep, drop) = if taken { (&n.then_region, &n.else_region) } else { (&n.else_region, &n.then_region) };
    let (Some(Node::Block(t0)), Some(Node::Block(tn))) = (keep.first(), keep.last()) else { return false };
    let (t0, tn) = (*t0, *tn);
    let falls = |b: Block| func.blocks.get(b).is_some_and(|bd| bd.exit == ir::Exit::Fallthrough);
    if !falls(bc) || !falls(tn) {
        return false;
    }
    // The first block of an arm has one predecessor and no phis.
    if func.blocks.get(t0).is_none_or(|bd| bd.insts.first().is_some_and(|&x| is_phi(func, x))) {
        return false;
    }
    let dropped: Vec<Block> = ir::walk::blocks(drop).collect();
    // The phis after the IF keep the value from the taken arm.
    let Some(merge) = func.blocks.get(bm) else { return false };
    let mut resolved = Vec::new();
    for &inst in merge.insts.iter().take_while(|&&x| is_phi(func, x)) {
        let Some(data) = func.insts.get(inst) else { return false };
        let Op::Phi { preds } = &data.op else { return false };
        let from_tn = preds.iter().position(|&p| rw.block(p) == rw.block(tn));
        let (Some(k), Some(&result)) = (from_tn, data.results.first()) else { return false };
        let Some(arg) = data.args.get(k) else { return false };
        resolved.push((result, rw.value(arg.value)));
    }
    let phis = resolved.len();
    // Phis elsewhere lose the entries of dropped blocks (a BRK or CONT in
    // the dropped arm); give up if one would lose them all. Without a BRK
    // or CONT there none: no scan of every block per folded IF.
    let leaves = dropped
        .iter()
        .any(|&b| func.blocks.get(b).is_some_and(|bd| matches!(bd.exit, ir::Exit::Break | ir::Exit::Continue)));
    let trimmed = if leaves {
        let dropped: HashSet<Block> = dropped.into_iter().collect();
        // An arm that leaves its loop may hold the loop's only way out,
        // and its values may be read after the loop: dropping them would
        // leave those reads without a definition.
        if read_outside(func, rw, &dropped) {
            return false;
        }
        let Some(trimmed) = phis_losing_entries(func, rw, bm, &dropped) else { return false };
        trimmed
    } else {
        Vec::new()
    };
    // Commit.
    trim_phis(func, trimmed);
    for (phi, value) in resolved {
        rw.replace_value(phi, value);
    }
    // The same IF, to take its arm out.
    let Some(Node::If(n)) = region.get_mut(i) else { return false };
    let mut kept = std::mem::take(if taken { &mut n.then_region } else { &mut n.else_region });
    // bc + t0 ... tn + bm: the taken arm's first block joins the block
    // before, the block after joins the arm's last block.
    merge_block(func, bc, t0, 0, rw);
    let last = rw.block(tn);
    merge_block(func, last, bm, phis, rw);
    kept.remove(0);
    region.splice(i..=i + 1, kept);
    true
}

/// Whether a value defined in the `dropped` blocks is read outside them
/// (other than by a phi entry from a dropped block, which is trimmed).
fn read_outside(func: &Function, rw: &Rewrites, dropped: &HashSet<Block>) -> bool {
    let defined: HashSet<Value> = dropped
        .iter()
        .filter_map(|&b| func.blocks.get(b))
        .flat_map(|bd| bd.insts.iter())
        .filter_map(|&inst| func.insts.get(inst))
        .flat_map(|d| d.results.iter().copied())
        .collect();
    if defined.is_empty() {
        return false;
    }
    func.blocks.iter().filter(|(b, _)| !dropped.contains(b)).flat_map(|(_, bd)| bd.insts.iter()).any(|&inst| {
        let Some(d) = func.insts.get(inst) else { return false };
        match &d.op {
            Op::Phi { preds } => d
                .args
                .iter()
                .zip(preds)
                .any(|(a, p)| !dropped.contains(&rw.block(*p)) && defined.contains(&rw.value(a.value))),
            _ => d.args.iter().any(|a| defined.contains(&rw.value(a.value))),
        }
    })
}

/// The phis outside the merge block `bm` and the `dropped` blocks that
/// have entries from dropped blocks, each with which of its entries it
/// keeps; `None` when one would lose them all. Blocks in arena order:
/// deterministic.
fn phis_losing_entries(
    func: &Function,
    rw: &Rewrites,
    bm: Block,
    dropped: &HashSet<Block>,
) -> Option<Vec<(Inst, Vec<bool>)>> {
    let mut trimmed: Vec<(Inst, Vec<bool>)> = Vec::new();
    for (b, bd) in func.blocks.iter() {
        if b == bm || dropped.contains(&b) {
            continue;
        }
        for &inst in bd.insts.iter().take_while(|&&x| is_phi(func, x)) {
            let Some(Op::Phi { preds }) = func.insts.get(inst).map(|d| &d.op) else { continue };
            let keep_entry: Vec<bool> = preds.iter().map(|&p| !dropped.contains(&rw.block(p))).collect();
            if keep_entry.iter().all(|&k| k) {
                continue;
            }
            if !keep_entry.iter().any(|&k| k) {
                return None;
            }
            trimmed.push((inst, keep_entry));
        }
    }
    Some(trimmed)
}

/// Takes out of each phi the entries (predecessor and argument) its
/// `keep_entry` marks false.
fn trim_phis(func: &mut Function, trimmed: Vec<(Inst, Vec<bool>)>) {
    for (inst, keep_entry) in trimmed {
        if let Some(d) = get_mut(&mut func.insts, inst) {
            let Op::Phi { preds } = &mut d.op else { continue };
            let mut k = keep_entry.iter();
            preds.retain(|_| k.next().copied().unwrap_or(true));
            let mut k = keep_entry.iter();
            d.args.retain(|_| k.next().copied().unwrap_or(true));
        }
    }
}
