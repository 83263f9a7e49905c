//! The CFG, dominators, liveness, verifier and printer on large, deep and
//! random functions.

use ir::cfg::{Cfg, DomTree};
use ir::liveness::liveness;
use ir::print::print_function;
use ir::verify::verify;
use ir::*;
use smallvec::smallvec;
use testkit::Rng;

fn block(f: &mut Function) -> Block {
    f.blocks.push(BlockData::default())
}

fn konst(f: &mut Function, b: Block, bits: u64) -> Value {
    let i = f.add_inst(Op::Const(bits), &[], &[Ty::B32], Origin::default());
    f.blocks[b].insts.push(i);
    f.result(i)
}

fn phi(f: &mut Function, b: Block, incoming: &[(Block, Value)]) -> Value {
    let args: Vec<Operand> = incoming.iter().map(|&(_, v)| Operand::new(v)).collect();
    let preds = incoming.iter().map(|&(p, _)| p).collect();
    let i = f.add_inst(Op::Phi { preds }, &args, &[Ty::B32], Origin::default());
    f.blocks[b].insts.push(i);
    f.result(i)
}

// These build one node each: not walks.
fn if_(cond: Value, then_region: Region, else_region: Region) -> Node {
    Node::If(Box::new(IfNode { cond: Operand::new(cond), unsigned: false, then_region, else_region, has_else: true }))
}

fn loop_(body: Region) -> Node {
    Node::Loop(Box::new(LoopNode { body }))
}

/// The last block of a region (regions end with a block).
fn last_block(region: &Region) -> Block {
    match region.last() {
        Some(Node::Block(b)) => *b,
        _ => panic!("region does not end with a block"),
    }
}

/// Runs `f` on a thread with a 2 MB stack.
fn small_stack(f: impl FnOnce() + Send + 'static) {
    std::thread::Builder::new().stack_size(2 << 20).spawn(f).expect("spawn").join().expect("no panic");
}

/// Runs every analysis, the verifier and the printer.
fn analyze(f: &Function) -> (Cfg, DomTree, String) {
    let cfg = Cfg::new(f);
    let dom = DomTree::new(&cfg);
    let _ = liveness(f, &cfg);
    if let Err(e) = verify(f) {
        panic!("{e}");
    }
    let text = print_function(f);
    (cfg, dom, text)
}

/// entry; if c { if c { ... } else {e} ; m } else {e}; m -- `depth` levels,
/// each merge block with a phi of the two arms.
fn nested_ifs(depth: usize) -> (Function, Vec<Block>) {
    let mut f = Function::default();
    let entry = block(&mut f);
    let c = konst(&mut f, entry, 1);
    let inner = block(&mut f);
    let mut region: Region = vec![Node::Block(inner)];
    let mut merges = Vec::new();
    for _ in 0..depth {
        let pre = block(&mut f);
        let els = block(&mut f);
        let merge = block(&mut f);
        let then_last = last_block(&region);
        phi(&mut f, merge, &[(then_last, c), (els, c)]);
        region = vec![Node::Block(pre), if_(c, region, vec![Node::Block(els)]), Node::Block(merge)];
        merges.push(merge);
    }
    f.body = vec![Node::Block(entry), loop_(region), Node::Block(block(&mut f))];
    // The loop never ends: make the outermost merge break.
    let outer = *merges.last().expect("depth > 0");
    f.blocks[outer].exit = Exit::Break;
    (f, merges)
}

#[test]
fn five_hundred_nested_ifs_on_a_small_stack() {
    small_stack(|| {
        let (f, merges) = nested_ifs(500);
        let (cfg, dom, text) = analyze(&f);
        assert!(text.lines().count() > 3 * 500);
        let innermost = merges[0];
        let outermost = merges[499];
        assert_eq!(cfg.loop_depth(innermost), 1);
        assert!(dom.dominates(cfg.entry().expect("entry"), innermost));
        assert!(!dom.dominates(innermost, outermost));
        assert_eq!(cfg.preds(outermost).len(), 2);
        // Printing indents by depth.
        let deepest = text.lines().map(|l| l.len() - l.trim_start().len()).max().unwrap_or(0);
        assert!(deepest >= 2 * 500);
    });
}

#[test]
fn a_hundred_nested_loops_on_a_small_stack() {
    small_stack(|| {
        let mut f = Function::default();
        let entry = block(&mut f);
        let c = konst(&mut f, entry, 1);
        let mut inner: Option<Node> = None;
        let mut headers = Vec::new();
        for _ in 0..100 {
            let h = block(&mut f);
            let brk = block(&mut f);
            let els = block(&mut f);
            let m = block(&mut f);
            f.blocks[brk].exit = Exit::Break;
            let mut body = vec![Node::Block(h), if_(c, vec![Node::Block(brk)], vec![Node::Block(els)]), Node::Block(m)];
            if let Some(node) = inner.take() {
                body.push(node);
                body.push(Node::Block(block(&mut f)));
            }
            inner = Some(loop_(body));
            headers.push(h);
        }
        let exit = block(&mut f);
        f.body = vec![Node::Block(entry), inner.expect("loops"), Node::Block(exit)];
        let (cfg, dom, _) = analyze(&f);
        assert_eq!(cfg.loop_depth(headers[0]), 100);
        assert_eq!(cfg.loop_depth(headers[99]), 1);
        assert_eq!(cfg.loop_depth(exit), 0);
        assert!(dom.dominates(headers[99], headers[0]));
        assert!(cfg.is_reachable(exit));
    });
}

#[test]
fn a_hundred_thousand_blocks_in_a_chain() {
    small_stack(|| {
        let mut f = Function::default();
        let entry = block(&mut f);
        let c = konst(&mut f, entry, 1);
        let mut body = vec![Node::Block(entry)];
        while f.blocks.len() < 100_000 {
            let (t, e, m) = (block(&mut f), block(&mut f), block(&mut f));
            body.push(if_(c, vec![Node::Block(t)], vec![Node::Block(e)]));
            body.push(Node::Block(m));
        }
        let last = last_block(&body);
        f.body = body;
        let (cfg, dom, text) = analyze(&f);
        assert_eq!(cfg.rpo().len(), f.blocks.len());
        assert!(dom.dominates(entry, last));
        // Per if: `if`, two labels, `} else {`, `}` and the merge label.
        assert_eq!(text.lines().count(), 2 + 2 * (f.blocks.len() - 1));
    });
}

/// A random structured function: regions of blocks and constructs, exits
/// only where they are allowed.
fn random_function(rng: &mut Rng, max_blocks: usize) -> Function {
    let mut f = Function::default();
    let entry = block(&mut f);
    let c = konst(&mut f, entry, 1);
    f.body = random_region(rng, &mut f, c, entry, false, false, 0, max_blocks);
    f
}

#[allow(clippy::too_many_arguments)]
fn random_region(
    rng: &mut Rng,
    f: &mut Function,
    c: Value,
    first: Block,
    in_loop: bool,
    in_brk: bool,
    depth: u32,
    max: usize,
) -> Region {
    let mut region = vec![Node::Block(first)];
    let len = rng.below(4);
    for _ in 0..len {
        if f.blocks.len() >= max || depth > 6 {
            break;
        }
        let node = match rng.below(3) {
            0 => {
                let (t, e) = (block(f), block(f));
                let then_region = random_region(rng, f, c, t, in_loop, in_brk, depth + 1, max);
                let else_region = random_region(rng, f, c, e, in_loop, in_brk, depth + 1, max);
                if_(c, then_region, else_region)
            }
            1 => {
                let h = block(f);
                loop_(random_region(rng, f, c, h, true, true, depth + 1, max))
            }
            _ => {
                let n = rng.below(4);
                let default_at = rng.below(5);
                let cases = (0..n)
                    .map(|k| {
                        let b = block(f);
                        Case {
                            value: if k == default_at { None } else { Some(Operand::new(c)) },
                            body: random_region(rng, f, c, b, in_loop, true, depth + 1, max),
                        }
                    })
                    .collect();
                Node::Switch(Box::new(SwitchNode { selector: Operand::new(c), cases }))
            }
        };
        region.push(node);
        region.push(Node::Block(block(f)));
    }
    let last = last_block(&region);
    let mut exits = vec![Exit::Fallthrough, Exit::Fallthrough, Exit::Return];
    if in_brk {
        exits.push(Exit::Break);
    }
    if in_loop {
        exits.push(Exit::Continue);
    }
    f.blocks[last].exit = *rng.pick(&exits);
    region
}

/// Dominator sets by the textbook iterative dataflow.
fn naive_dominators(cfg: &Cfg, n: usize) -> Vec<Vec<bool>> {
    let entry = cfg.entry().expect("entry");
    let mut dom = vec![vec![true; n]; n];
    dom[entry.index()] = (0..n).map(|i| i == entry.index()).collect();
    let mut changed = true;
    while changed {
        changed = false;
        for &b in cfg.rpo() {
            if b == entry {
                continue;
            }
            let mut new = vec![true; n];
            for &p in cfg.preds(b).iter().filter(|&&p| cfg.is_reachable(p)) {
                for (x, d) in new.iter_mut().zip(&dom[p.index()]) {
                    *x &= *d;
                }
            }
            new[b.index()] = true;
            if new != dom[b.index()] {
                dom[b.index()] = new;
                changed = true;
            }
        }
    }
    dom
}

#[test]
fn random_functions_agree_with_naive_dominators() {
    let mut rng = Rng::new(0x9e37_79b9_7f4a_7c15);
    for _ in 0..300 {
        let f = random_function(&mut rng, 60);
        let (cfg, dom, text) = analyze(&f);
        let n = f.blocks.len();
        assert_eq!(cfg.blocks().len(), n, "{text}");
        // Edges are symmetric.
        for b in f.blocks.keys() {
            for &s in cfg.succs(b) {
                assert!(cfg.preds(s).contains(&b));
            }
            for &p in cfg.preds(b) {
                assert!(cfg.succs(p).contains(&b));
            }
        }
        // Dominance matches the naive sets; every retreating edge of the
        // reverse postorder goes to a dominating loop header.
        let naive = naive_dominators(&cfg, n);
        let mut rpo_index = vec![usize::MAX; n];
        for (i, &b) in cfg.rpo().iter().enumerate() {
            rpo_index[b.index()] = i;
        }
        for &b in cfg.rpo() {
            for &a in cfg.rpo() {
                assert_eq!(dom.dominates(a, b), naive[b.index()][a.index()], "{a} dom {b}?\n{text}");
            }
            for &s in cfg.succs(b) {
                if rpo_index[s.index()] <= rpo_index[b.index()] {
                    assert!(dom.dominates(s, b), "{b} -> {s} retreats to a non-dominator\n{text}");
                    assert!(cfg.loop_depth(s) > 0);
                }
            }
        }
        // Every phi-free block's idom is a strict dominator.
        for &b in cfg.rpo() {
            if let Some(d) = dom.idom(b) {
                assert!(dom.strictly_dominates(d, b));
            }
        }
    }
}

#[test]
fn liveness_of_a_loop_carried_value() {
    // entry: c, x; loop { h: i = phi [entry: x, latch: i]; if c { brk: break } else { e }; latch } exit: use i
    let mut f = Function::default();
    let entry = block(&mut f);
    let c = konst(&mut f, entry, 1);
    let x = konst(&mut f, entry, 2);
    let (h, brk, e, latch, exit) = (block(&mut f), block(&mut f), block(&mut f), block(&mut f), block(&mut f));
    let i = f.add_inst(
        Op::Phi { preds: smallvec![entry, latch] },
        &[Operand::new(x), Operand::new(x)],
        &[Ty::B32],
        Origin::default(),
    );
    f.blocks[h].insts.push(i);
    let iv = f.result(i);
    f.insts[i].args[1] = Operand::new(iv);
    let st = f.add_inst(Op::StoreOutput { index: 0, chan: 0 }, &[Operand::new(iv)], &[], Origin::default());
    f.blocks[exit].insts.push(st);
    f.blocks[brk].exit = Exit::Break;
    f.body = vec![
        Node::Block(entry),
        loop_(vec![Node::Block(h), if_(c, vec![Node::Block(brk)], vec![Node::Block(e)]), Node::Block(latch)]),
        Node::Block(exit),
    ];
    let (cfg, _, _) = analyze(&f);
    let live = liveness(&f, &cfg);
    let set = |s: &ir::bitset::BitSet<Value>| s.iter().collect::<Vec<_>>();
    assert_eq!(set(live.live_out(entry)), vec![c, x]);
    assert_eq!(set(live.live_in(h)), vec![c, iv]);
    assert_eq!(set(live.live_out(latch)), vec![c, iv]);
    assert_eq!(set(live.live_in(exit)), vec![iv]);
    assert_eq!(set(live.live_out(exit)), vec![]);
}
