//! Which SSA values are live at the start and end of each block of the
//! CFG, by backward dataflow.

use crate::bitset::BitSet;
use crate::cfg::Cfg;
use crate::entity::EntityRef;
use crate::function::{Block, Function, Op, Value};

/// Which values are live at the start and end of each block.
///
/// The sets follow Boissinot et al.'s definitions for SSA form: a phi's
/// result is live-in at its block (it is defined on entry), a phi's
/// argument is live-out of the predecessor it comes from (and not live-in
/// at the phi's block), and the values a construct reads at the end of its
/// condition block ([`Cfg::branch_uses`]) are used there:
///
/// ```text
/// live_out(b) = ∪ over successors s of (live_in(s) − phi_defs(s))  ∪  phi_uses(b)
/// live_in(b)  = phi_defs(b)  ∪  upward_exposed(b)  ∪  (live_out(b) − defs(b))
/// ```
#[derive(Clone, Debug)]
pub struct Liveness {
    live_in: Vec<BitSet<Value>>,
    live_out: Vec<BitSet<Value>>,
    empty: BitSet<Value>,
}

impl Liveness {
    /// The values live on entry to `b` (phi results of `b` included).
    pub fn live_in(&self, b: Block) -> &BitSet<Value> {
        self.live_in.get(b.index()).unwrap_or(&self.empty)
    }

    /// The values live on exit from `b` (arguments of successor phis for
    /// the edge from `b` included).
    pub fn live_out(&self, b: Block) -> &BitSet<Value> {
        self.live_out.get(b.index()).unwrap_or(&self.empty)
    }
}

/// Computes liveness by backward dataflow iterated to a fixed point over
/// every block of the tree (blocks outside the tree have empty sets).
pub fn liveness(func: &Function, cfg: &Cfg) -> Liveness {
    let nv = func.values.len();
    let nb = cfg.num_blocks();
    let empty = BitSet::new(nv);
    // Postorder of the reachable blocks first (fast convergence), then the
    // unreachable ones in reverse program order.
    let mut order: Vec<Block> = cfg.rpo().iter().rev().copied().collect();
    order.extend(cfg.blocks().iter().rev().copied().filter(|&b| !cfg.is_reachable(b)));
    // Local facts, as sparse lists (only the live sets are dense).
    let mut upward = vec![Vec::new(); nb];
    let mut defs = vec![Vec::new(); nb];
    let mut phi_defs = vec![Vec::new(); nb];
    let mut phi_uses: Vec<Vec<Value>> = vec![Vec::new(); nb];
    let mut defined = empty.clone();
    for &b in &order {
        let bi = b.index();
        let insts = func.blocks.get(b).map_or(&[][..], |data| &data.insts);
        for &inst in insts {
            let Some(data) = func.insts.get(inst) else { continue };
            if let Op::Phi { preds } = &data.op {
                for (p, arg) in preds.iter().zip(&data.args) {
                    if let Some(list) = phi_uses.get_mut(p.index()) {
                        list.push(arg.value);
                    }
                }
                phi_defs[bi].extend(data.results.iter().copied());
            } else {
                for arg in &data.args {
                    if !defined.contains(arg.value) {
                        upward[bi].push(arg.value);
                    }
                }
            }
            for &r in &data.results {
                defined.insert(r);
                defs[bi].push(r);
            }
        }
        for &v in cfg.branch_uses(b) {
            if !defined.contains(v) {
                upward[bi].push(v);
            }
        }
        for &r in &defs[bi] {
            defined.remove(r);
        }
    }
    let mut live_in: Vec<BitSet<Value>> = vec![empty.clone(); nb];
    let mut live_out: Vec<BitSet<Value>> = vec![empty.clone(); nb];
    let (mut out, mut inn) = (empty.clone(), empty.clone());
    let mut changed = true;
    while changed {
        changed = false;
        for &b in &order {
            let bi = b.index();
            out.clear();
            for &v in &phi_uses[bi] {
                out.insert(v);
            }
            for &s in cfg.succs(b) {
                out.union_with(&live_in[s.index()]);
                // A successor's phi results are defined on its entry edge.
                for &v in &phi_defs[s.index()] {
                    if !phi_uses[bi].contains(&v) {
                        out.remove(v);
                    }
                }
            }
            inn.clone_from(&out);
            for &v in &defs[bi] {
                inn.remove(v);
            }
            for &v in upward[bi].iter().chain(&phi_defs[bi]) {
                inn.insert(v);
            }
            if inn != live_in[bi] {
                live_in[bi].clone_from(&inn);
                changed = true;
            }
            if out != live_out[bi] {
                live_out[bi].clone_from(&out);
                changed = true;
            }
        }
    }
    Liveness { live_in, live_out, empty }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cfg::build::*;
    use crate::function::{Exit, Ty};
    use tgsi::Opcode;

    fn bs(v: &[Block]) -> Vec<Block> {
        v.to_vec()
    }

    #[test]
    fn liveness_across_if_with_phi() {
        // b0: x = 1, c = 2; if c { b1: y = add x x } else { b2: z = mul x x }; b3: p = phi [b1: y, b2: z]; store p, x
        let mut t = Builder::default();
        let [b0, b1, b2, b3] = [t.block(), t.block(), t.block(), t.block()];
        let x = t.konst(b0, 1);
        let c = t.konst(b0, 2);
        let y = t.alu(b1, Opcode::Add, &[x, x]);
        let z = t.alu(b2, Opcode::Mul, &[x, x]);
        let p = t.phi(b3, &[(b1, y), (b2, z)]);
        t.store(b3, 0, p);
        t.store(b3, 1, x);
        t.f.body = vec![blk(b0), if_(c, vec![blk(b1)], vec![blk(b2)]), blk(b3)];
        let cfg = Cfg::new(&t.f);
        let live = liveness(&t.f, &cfg);
        let set = |s: &BitSet<Value>| s.iter().collect::<Vec<_>>();
        assert_eq!(set(live.live_in(b0)), vec![]);
        assert_eq!(set(live.live_out(b0)), vec![x]);
        assert_eq!(set(live.live_in(b1)), vec![x]);
        assert_eq!(set(live.live_out(b1)), vec![x, y]);
        assert_eq!(set(live.live_out(b2)), vec![x, z]);
        assert_eq!(set(live.live_in(b3)), vec![x, p]);
        assert_eq!(set(live.live_out(b3)), vec![]);
    }

    #[test]
    fn liveness_around_a_loop() {
        // b0: x, c
        // loop { b1: i = phi [b0: x, b4: j]; if c { b2 break } else { b3: j = add i x }; b4 }
        // b5: store i
        let mut t = Builder::default();
        let b: Vec<Block> = (0..6).map(|_| t.block()).collect();
        let x = t.konst(b[0], 1);
        let c = t.konst(b[0], 2);
        let phi = t.inst(b[1], Op::Phi { preds: [b[0], b[4]].into_iter().collect() }, &[x, x], &[Ty::B32]);
        let i = t.f.result(phi);
        let j = t.alu(b[3], Opcode::Add, &[i, x]);
        t.f.insts[phi].args[1].value = j;
        t.store(b[5], 0, i);
        t.exit(b[2], Exit::Break);
        t.f.body =
            vec![blk(b[0]), loop_(vec![blk(b[1]), if_(c, vec![blk(b[2])], vec![blk(b[3])]), blk(b[4])]), blk(b[5])];
        let cfg = Cfg::new(&t.f);
        assert_eq!(bs(cfg.preds(b[1])), vec![b[0], b[4]]);
        let live = liveness(&t.f, &cfg);
        let set = |s: &BitSet<Value>| s.iter().collect::<Vec<_>>();
        assert_eq!(set(live.live_out(b[0])), vec![x, c]);
        assert_eq!(set(live.live_in(b[1])), vec![x, c, i]);
        assert_eq!(set(live.live_out(b[1])), vec![x, c, i]);
        assert_eq!(set(live.live_out(b[3])), vec![x, c, j]);
        assert_eq!(set(live.live_in(b[4])), vec![x, c, j]);
        assert_eq!(set(live.live_out(b[4])), vec![x, c, j]);
        assert_eq!(set(live.live_out(b[2])), vec![i]);
        assert_eq!(set(live.live_in(b[5])), vec![i]);
    }
}
