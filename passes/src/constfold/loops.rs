//! Constant loops: a loop whose every value follows from constants runs
//! here, with the backend's arithmetic, and is replaced by the values it
//! leaves behind.
//!
//! The body is interpreted as the backend runs it: phis take the argument
//! of the block control came from, `IF`/`UIF` take the arm their constant
//! condition selects, `BRK` leaves, `CONT` and the end of the body go back
//! to the header. Every operation must be a 32-bit `Alu` (or a constant)
//! whose operands are constants or values of the loop, and no result may
//! be a NaN (which payload a float operation passes on is the compiler's
//! choice at run time, see the module documentation). A loop with
//! anything else (a read of an input, memory, a nested loop or switch, a
//! `RET`), or that runs more than [`MAX_STEPS`] operations and blocks,
//! stays.
//!
//! What the loop leaves: each of its values read after it had its last
//! value when the loop ended (a read outside the loop is dominated by its
//! definition, which ran in the last iteration before the `BRK` taken),
//! and each phi after the loop takes the argument of the block that broke.

use ir::walk::for_each_region_post_order_mut;
use ir::{Block, Exit, Function, Inst, LoopNode, Node, Op, Origin, Region, Ty, Value};
use rustc_hash::FxHashMap as HashMap;
use tgsi::Opcode;

use super::known::{alu_value_of, const_of, is_nan};
use super::Counts;
use crate::rewrite::{apply, get_mut, merge_block, Rewrites};

/// The most operations the interpretation of one loop runs.
pub const MAX_STEPS: usize = 1 << 14;

/// Replaces every constant loop of `func` by what it computes.
pub(super) fn fold_loops(func: &mut Function, immediates: &[tgsi::Immediate], counts: &mut Counts) {
    let mut body = std::mem::take(&mut func.body);
    let mut rw = Rewrites::default();
    for_each_region_post_order_mut(&mut body, |region| {
        let mut i = 1;
        while i + 1 < region.len() {
            if try_fold_loop(region, i, func, immediates, &mut rw) {
                counts.loops += 1;
            } else {
                i += 1;
            }
        }
    });
    func.body = body;
    apply(func, &rw);
}

/// Replaces `region[i]`, a loop between two blocks, when it is constant.
fn try_fold_loop(
    region: &mut Region,
    i: usize,
    func: &mut Function,
    immediates: &[tgsi::Immediate],
    rw: &mut Rewrites,
) -> bool {
    let (Some(Node::Block(before)), Some(Node::Loop(l)), Some(Node::Block(after))) =
        (region.get(i - 1), region.get(i), region.get(i + 1))
    else {
        return false;
    };
    let (before, after) = (*before, *after);
    let mut run = Run { func, immediates, env: HashMap::default(), steps: 0 };
    let Some(broke) = run.run_loop(l, before) else { return false };
    let Run { env, .. } = run;
    // The loop's values become constants in the block before it (in
    // value order: the output must not depend on the map's).
    let mut values: Vec<(Value, u64)> = env.into_iter().collect();
    values.sort_unstable();
    let mut consts = Vec::new();
    for (v, bits) in values {
        let c = func.add_inst(Op::Const(bits), &[], &[Ty::B32], Origin::default());
        consts.push(c);
        rw.replace_value(v, func.result(c));
    }
    // The phis after the loop take what the block that broke gave them.
    let phis: Vec<Inst> = func.blocks.get(after).map(|b| b.insts.clone()).unwrap_or_default();
    for inst in phis {
        let Some(data) = get_mut(&mut func.insts, inst) else { continue };
        let Op::Phi { preds } = &data.op else { break };
        let Some(arg) = preds.iter().position(|&p| p == broke).and_then(|k| data.args.get(k).copied()) else {
            return false;
        };
        data.op = Op::Alu { opcode: Opcode::Mov, chan: 0 };
        data.args = smallvec::smallvec![arg];
    }
    let Some(Node::Loop(l)) = region.get(i) else { return false };
    let blocks: Vec<Block> = ir::walk::blocks(&l.body).collect();
    for b in blocks {
        if let Some(data) = get_mut(&mut func.blocks, b) {
            data.insts.clear();
        }
    }
    if let Some(data) = get_mut(&mut func.blocks, before) {
        data.insts.extend(consts);
    }
    if !merge_block(func, before, after, 0, rw) {
        return false;
    }
    region.drain(i..=i + 1);
    true
}

/// How control left a region.
enum Flow {
    /// Past its end, from this block.
    Fallthrough(Block),
    /// By `BRK`, from this block.
    Break(Block),
    /// By `CONT`, from this block.
    Continue(Block),
}

/// The interpretation of one loop.
struct Run<'f> {
    func: &'f Function,
    immediates: &'f [tgsi::Immediate],
    /// The last value of each of the loop's values.
    env: HashMap<Value, u64>,
    steps: usize,
}

impl Run<'_> {
    /// Runs the loop entered from `before`; the block that broke out.
    fn run_loop(&mut self, l: &LoopNode, before: Block) -> Option<Block> {
        let mut pred = before;
        loop {
            match self.region(&l.body, pred)? {
                Flow::Break(b) => return Some(b),
                Flow::Continue(b) | Flow::Fallthrough(b) => pred = b,
            }
        }
    }

    /// Runs `region`, entered from `pred`.
    fn region(&mut self, region: &Region, mut pred: Block) -> Option<Flow> {
        for node in region {
            match node {
                Node::Block(b) => {
                    self.block(*b, pred)?;
                    match self.func.blocks.get(*b)?.exit {
                        Exit::Fallthrough => pred = *b,
                        Exit::Break => return Some(Flow::Break(*b)),
                        Exit::Continue => return Some(Flow::Continue(*b)),
                        Exit::Return => return None,
                    }
                }
                Node::If(n) => {
                    if n.unsigned && (n.cond.neg || n.cond.abs) {
                        return None;
                    }
                    let bits = self.value(n.cond.value)? as u32;
                    // UIF: any bit set; IF: not 0.0 as a float (NaN is).
                    let taken = if n.unsigned { bits != 0 } else { f32::from_bits(bits) != 0.0 };
                    let arm = if taken { &n.then_region } else { &n.else_region };
                    match self.region(arm, pred)? {
                        Flow::Fallthrough(b) => pred = b,
                        exit => return Some(exit),
                    }
                }
                Node::Loop(_) | Node::Switch(_) => return None,
            }
        }
        Some(Flow::Fallthrough(pred))
    }

    /// Runs block `b`, entered from `pred`. Entering a block is a step
    /// too: a loop of empty blocks that never ends runs out of steps.
    fn block(&mut self, b: Block, pred: Block) -> Option<()> {
        self.step()?;
        let insts = &self.func.blocks.get(b)?.insts;
        // Phis read the values from before the block, all at once.
        let mut phis = Vec::new();
        for &inst in insts {
            let data = self.func.insts.get(inst)?;
            let Op::Phi { preds } = &data.op else { break };
            let k = preds.iter().position(|&p| p == pred)?;
            phis.push((*data.results.first()?, self.value(data.args.get(k)?.value)?));
        }
        let first = phis.len();
        self.env.extend(phis);
        for &inst in &insts[first..] {
            self.step()?;
            let data = self.func.insts.get(inst)?;
            let &[result] = data.results.as_slice() else { return None };
            if self.func.values.get(result).map(|d| d.ty) != Some(Ty::B32) {
                return None;
            }
            let bits = match data.op {
                Op::Const(bits) => bits,
                // A derivative reads other lanes, which a loop inside
                // divergent flow leaves holding other values: not folded.
                Op::Alu { opcode, .. }
                    if !matches!(opcode, Opcode::Ddx | Opcode::Ddy | Opcode::DdxFine | Opcode::DdyFine) =>
                {
                    let v = alu_value_of(data, |v| self.value(v))?;
                    if is_nan(opcode.info().dst_type, v) || f32::from_bits(v as u32).is_nan() {
                        return None;
                    }
                    v
                }
                _ => return None,
            };
            self.env.insert(result, bits);
        }
        Some(())
    }

    /// Counts one step; `None` past [`MAX_STEPS`].
    fn step(&mut self) -> Option<()> {
        self.steps += 1;
        (self.steps <= MAX_STEPS).then_some(())
    }

    /// The bits of `v`: a value of the loop, or a constant.
    fn value(&self, v: Value) -> Option<u64> {
        self.env.get(&v).copied().or_else(|| const_of(self.func, self.immediates, v))
    }
}
