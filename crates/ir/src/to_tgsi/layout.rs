//! Positions in emission order and the live interval of every value.
//!
//! Emission writes the tree in order, so a block's instructions get
//! increasing positions and a construct's blocks are contiguous; the
//! operations of a group (`groups`) that reads the register it writes,
//! written as one instruction, share one position. A value is
//! live from its definition to its last use, and a value live anywhere
//! inside a loop it was defined before is live through the whole loop.
//!
//! Phis are copied at the end of each predecessor (`block_end`): the
//! argument is read just before (`block_end - 1`), the phi's register is
//! written there (a one-position range), and the phi is live from the start
//! of its block. Between a predecessor's end and its successor's start no
//! instruction runs on that path, so this is exact even though other
//! blocks lie between them in the layout. Branch conditions and switch
//! selectors are read just after the block's end (`block_end + 1`), after
//! any copies.

mod splits;

use super::groups;
use crate::entity::SecondaryMap;
use crate::function::*;
use crate::walk::{walk, ConstructRef, Event, RegionKind};
use smallvec::{smallvec, SmallVec};
use splits::*;

/// A value's live ranges: most values have one or two, kept inline (a
/// heap vector per value was a large share of emission's allocations).
pub(crate) type Ranges = SmallVec<[Interval; 2]>;

/// A closed range of positions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Interval {
    pub start: u32,
    pub end: u32,
}

impl Interval {
    pub fn overlaps(self, other: Interval) -> bool {
        self.start <= other.end && other.start <= self.end
    }
}

/// Positions of blocks and instructions, and the intervals of values.
pub(crate) struct Layout {
    pub block_start: SecondaryMap<Block, u32>,
    pub block_end: SecondaryMap<Block, u32>,
    pub inst_pos: SecondaryMap<Inst, u32>,
    /// For each block: the then-arms of the ifs whose else-arm it is in
    /// (code no path to it runs through; none inside a loop, whose next
    /// round may run them first), and the end of the outermost loop
    /// around it.
    pub context: SecondaryMap<Block, (Vec<Interval>, Option<u32>)>,
    /// Every value's live range: its main interval first, then the points
    /// where a phi's register is written.
    pub ranges: SecondaryMap<Value, Ranges>,
    /// The instructions of the groups that share a position, each with
    /// the group's first one: emission writes a group as one instruction
    /// where it can, and joins it with no other.
    pub shared: SecondaryMap<Inst, Inst>,
}

impl Layout {
    /// Lays out every instruction of `func`'s blocks.
    pub fn new(func: &Function) -> Layout {
        let mut layout = Layout {
            block_start: SecondaryMap::default(),
            block_end: SecondaryMap::default(),
            inst_pos: SecondaryMap::with_capacity(func.insts.len()),
            context: SecondaryMap::default(),
            ranges: SecondaryMap::with_capacity(func.values.len()),
            shared: SecondaryMap::default(),
        };
        let mut pos = 0u32;
        let mut loops: Vec<Interval> = Vec::new();
        let mut tree_uses: Vec<(Value, Block)> = Vec::new();
        let mut ctx = Context::default();
        layout.number(func, &mut pos, &mut loops, &mut tree_uses, &mut ctx);
        let mut spans = layout.spans(func, tree_uses);
        loops.sort_by_key(|l| l.start);
        live_through_loops(&mut spans.main, &loops);
        let breaks_of = ctx.breaks_by_loop();
        let split = split_at_loop_exits(&spans, &ctx.loop_ranges, &breaks_of, &loops);
        let mut ifs = std::mem::take(&mut ctx.ifs);
        ifs.sort_by_key(|(_, e)| e.start);
        let jumps = ctx.jumps();
        let mut switches = std::mem::take(&mut ctx.switches);
        switches.sort_by_key(|s| s.whole.start);
        let cuts = Cuts { ifs: &ifs, switches: &switches, loops: &loops };
        layout.fill_ranges(spans, &split, &cuts, &breaks_of, &jumps);
        layout
    }

    /// Where each value is defined and read, from the numbered positions:
    /// the phi copies at the end of each predecessor and the branch
    /// conditions and switch selectors (`tree_uses`, with the block they
    /// are read after) included.
    fn spans(&self, func: &Function, tree_uses: Vec<(Value, Block)>) -> Spans {
        let mut spans = Spans::default();
        for (inst, &at) in self.inst_pos.iter() {
            let data = &func.insts[inst];
            match &data.op {
                Op::Phi { preds } => {
                    // Defined where its block starts; written at each
                    // predecessor's end.
                    let block_start = at.saturating_sub(1);
                    spans.cover(data.results[0], block_start);
                    for (arg, pred) in data.args.iter().zip(preds) {
                        if let Some(&end) = self.block_end.get(pred) {
                            spans.read(arg.value, end - 1);
                            spans.points.get_or_default(data.results[0]).push(Interval { start: end, end });
                        }
                    }
                }
                _ => {
                    // Results are written after the operands are read.
                    for &r in &data.results {
                        spans.cover(r, at + 1);
                    }
                    for arg in &data.args {
                        spans.read(arg.value, at);
                    }
                }
            }
        }
        for (v, b) in tree_uses {
            if let Some(&end) = self.block_end.get(&b) {
                spans.read(v, end + 1);
            }
        }
        spans
    }

    /// Sets every value's ranges: its main interval split at the loop it
    /// leaves (`split`) and at ifs whose else arm holds its last use, then
    /// the points where its phi register is written outside those.
    fn fill_ranges(
        &mut self,
        spans: Spans,
        split: &SecondaryMap<Value, LoopSplit>,
        cuts: &Cuts<'_>,
        breaks_of: &[Vec<u32>],
        jumps: &[Jump],
    ) {
        // Ifs: a value defined before an if whose last use is in the else
        // arm is dead on the then path after its last use there, so it
        // leaves the rest of the then arm free.
        let Spans { main, mut points, uses } = spans;
        for (v, iv) in main {
            let value_uses = uses.get(&v).map_or(&[][..], |u| u.as_slice());
            let (head, tail) = match split.get(&v) {
                // Breaks out of the loop carry the value to its uses after
                // it: on the then path they count as uses.
                Some(&(a, b, id)) => {
                    let mut reads: SmallVec<[u32; 8]> = value_uses.iter().copied().collect();
                    reads.extend(breaks_of[id].iter().copied().filter(|&at| at >= iv.start));
                    (cuts.split(a, &reads), cuts.split(b, value_uses))
                }
                None => (cuts.split(iv, value_uses), Ranges::new()),
            };
            let mut ranges = head;
            ranges.extend(tail);
            if let Some(p) = points.remove(&v) {
                let outside = |p: &Interval, ranges: &[Interval]| !ranges.iter().any(|r| r.overlaps(*p));
                let extra: Ranges = p.into_iter().filter(|p| outside(p, &ranges)).collect();
                ranges.extend(extra);
            }
            leave_out_jumps(&mut ranges, value_uses, jumps);
            self.ranges.insert(v, ranges);
        }
    }

    /// Numbers the blocks and instructions of `func` in emission order.
    fn number(
        &mut self,
        func: &Function,
        pos: &mut u32,
        loops: &mut Vec<Interval>,
        tree_uses: &mut Vec<(Value, Block)>,
        ctx: &mut Context,
    ) {
        // The last block met in each region being walked, innermost last.
        let mut prev_block: Vec<Option<Block>> = Vec::new();
        // What each construct being walked started with, innermost last.
        let mut open: Vec<Open> = Vec::new();
        for event in walk(&func.body) {
            match event {
                Event::EnterRegion(r) => {
                    prev_block.push(None);
                    if let (Some(_), Some(Open::Switch { cases, .. })) = (r.case(), open.last_mut()) {
                        cases.push((Interval { start: *pos + 1, end: *pos + 1 }, true));
                    }
                }
                Event::LeaveRegion(r) => {
                    let last = prev_block.pop().flatten();
                    if let (Some(_), Some(Open::Switch { cases, .. })) = (r.case(), open.last_mut()) {
                        if let Some(case) = cases.last_mut() {
                            case.0.end = *pos + 1;
                            case.1 = last.is_none_or(|b| func.blocks[b].exit == Exit::Fallthrough);
                        }
                    }
                    if let (RegionKind::Then, Some(Open::If { then_start })) = (r.kind, open.last()) {
                        let then_range = Interval { start: *then_start, end: *pos + 1 };
                        ctx.excluded.push(then_range);
                        open.push(Open::Else { then_range, else_start: *pos + 1 });
                    }
                }
                Event::Block(b, _) => {
                    self.number_block(func, b, pos, ctx);
                    if let Some(last) = prev_block.last_mut() {
                        *last = Some(b);
                    }
                }
                Event::Enter(construct, _) => {
                    let cond_block = prev_block.last().copied().flatten();
                    if let Some(b) = cond_block {
                        tree_uses.extend(construct.operands().map(|op| (op.value, b)));
                    }
                    open.push(match construct {
                        ConstructRef::If(_) => Open::If { then_start: *pos + 1 },
                        ConstructRef::Loop(_) => {
                            let start = *pos + 1;
                            let outer = !ctx.in_loop;
                            let mark = ctx.blocks_in_loop.len();
                            ctx.in_loop = true;
                            let id = ctx.loop_ranges.len();
                            ctx.loop_ranges.push(Interval { start, end: u32::MAX });
                            ctx.breakables.push(Some(id));
                            Open::Loop { start, outer, mark, id }
                        }
                        ConstructRef::Switch(_) => {
                            ctx.breakables.push(None);
                            Open::Switch { start: *pos + 1, cases: Vec::new() }
                        }
                    });
                }
                Event::Leave(..) => match open.pop() {
                    Some(Open::Else { then_range, else_start }) => {
                        // The if's own entry, under its else.
                        open.pop();
                        ctx.excluded.pop();
                        ctx.ifs.push((then_range, Interval { start: else_start, end: *pos + 1 }));
                    }
                    Some(Open::Loop { start, outer, mark, id }) => {
                        ctx.breakables.pop();
                        ctx.loop_ranges[id].end = *pos + 1;
                        loops.push(Interval { start, end: *pos + 1 });
                        if outer {
                            // Every block of the outermost loop learns its end;
                            // no arm of it is out of reach of its blocks, as
                            // the next round may run any.
                            for b in ctx.blocks_in_loop.drain(mark..) {
                                if let Some(c) = self.context.get_mut(&b) {
                                    c.0.clear();
                                    c.1 = Some(*pos + 1);
                                }
                            }
                            ctx.in_loop = false;
                        }
                    }
                    Some(Open::Switch { start, cases }) => {
                        ctx.breakables.pop();
                        ctx.switches.push(SwitchCases::new(Interval { start, end: *pos + 1 }, &cases));
                    }
                    Some(Open::If { .. }) | None => {}
                },
            }
        }
    }

    /// Numbers block `b` and its instructions.
    fn number_block(&mut self, func: &Function, b: Block, pos: &mut u32, ctx: &mut Context) {
        *pos += 2;
        self.block_start.insert(b, *pos);
        let insts = &func.blocks[b].insts;
        // The members of a group are read and written as one instruction:
        // the later ones take the first one's position.
        for run in groups::alu_runs(func, insts).into_iter().filter(|run| groups::reads_own_register(func, run)) {
            for &m in &run {
                self.shared.insert(m, run[0]);
            }
        }
        for &i in insts {
            let first = self.shared.get(&i).copied().filter(|&f| f != i);
            let at = match first.and_then(|f| self.inst_pos.get(&f)) {
                Some(&at) => at,
                None => {
                    *pos += 2;
                    *pos
                }
            };
            self.inst_pos.insert(i, at);
        }
        *pos += 2;
        self.block_end.insert(b, *pos);
        self.context.insert(b, (ctx.excluded.clone(), None));
        ctx.blocks_in_loop.push(b);
        let start = self.block_start.get(&b).copied().unwrap_or(*pos);
        match func.blocks[b].exit {
            Exit::Break => {
                if let Some(Some(l)) = ctx.breakables.last() {
                    ctx.breaks.push((*l, Interval { start, end: *pos }));
                }
            }
            Exit::Continue => {
                if let Some(l) = ctx.breakables.iter().rev().find_map(|&l| l) {
                    ctx.continues.push((l, Interval { start, end: *pos }));
                }
            }
            _ => {}
        }
    }
}

/// A construct the numbering walk is in, with what it started with.
enum Open {
    /// An if, in its then-region.
    If { then_start: u32 },
    /// An if in its else-region (above its [`Open::If`]): the then-arm's
    /// range and where the else-arm starts.
    Else { then_range: Interval, else_start: u32 },
    /// A loop: where it starts, whether it is outside every other loop,
    /// how many blocks of the outermost loop came before it, its id.
    Loop { start: u32, outer: bool, mark: usize, id: usize },
    /// A switch: where it starts, and its cases so far with whether each
    /// falls through into the next.
    Switch { start: u32, cases: Vec<(Interval, bool)> },
}

/// Where each value is defined and read, before loops and ifs are
/// accounted for.
#[derive(Default)]
struct Spans {
    /// From the first position the value is defined or read at to the last.
    main: SecondaryMap<Value, Interval>,
    /// The points where a phi's register is written (its predecessors'
    /// ends).
    points: SecondaryMap<Value, Ranges>,
    /// Every position the value is read at.
    uses: SecondaryMap<Value, SmallVec<[u32; 4]>>,
}

impl Spans {
    /// Extends `v`'s main interval to `at`.
    fn cover(&mut self, v: Value, at: u32) {
        let e = self.main.get_or_insert_with(v, || Interval { start: at, end: at });
        e.start = e.start.min(at);
        e.end = e.end.max(at);
    }

    /// Notes a read of `v` at `at`.
    fn read(&mut self, v: Value, at: u32) {
        self.cover(v, at);
        self.uses.get_or_default(v).push(at);
    }
}

/// What the numbering walk knows about where it is.
#[derive(Default)]
struct Context {
    /// Then-arms of the ifs whose else-arm the walk is in.
    excluded: Vec<Interval>,
    in_loop: bool,
    /// Blocks numbered inside the outermost loop so far.
    blocks_in_loop: Vec<Block>,
    /// The position ranges of each if's then and else arms.
    ifs: Vec<(Interval, Interval)>,
    /// Every loop's range, by the order loops open.
    loop_ranges: Vec<Interval>,
    /// The innermost loop (`Some`) or switch (`None`) a `BRK` leaves.
    breakables: Vec<Option<usize>>,
    /// (loop, the positions of a block that breaks out of it).
    breaks: Vec<(usize, Interval)>,
    /// (loop, the positions of a block that ends with `CONT` in it).
    continues: Vec<(usize, Interval)>,
    /// Every switch: its range and its cases' ranges, a case that falls
    /// through joined with the next.
    switches: Vec<SwitchCases>,
}

impl Context {
    /// For each loop (by id), the ends of the blocks that break out of it.
    fn breaks_by_loop(&self) -> Vec<Vec<u32>> {
        let mut breaks_of: Vec<Vec<u32>> = vec![Vec::new(); self.loop_ranges.len()];
        for &(id, block) in &self.breaks {
            breaks_of[id].push(block.end);
        }
        breaks_of
    }

    /// Every block that breaks out of a loop or continues it, with where
    /// control goes, sorted by position.
    fn jumps(&self) -> Vec<Jump> {
        let breaks = self
            .breaks
            .iter()
            .filter_map(|&(id, block)| Some(Jump { block, to: self.loop_ranges.get(id)?.end + 1, continues: false }));
        let continues = self
            .continues
            .iter()
            .filter_map(|&(id, block)| Some(Jump { block, to: self.loop_ranges.get(id)?.start, continues: true }));
        let mut jumps: Vec<Jump> = breaks.chain(continues).collect();
        jumps.sort_unstable_by_key(|x| x.block.start);
        jumps
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::entity::EntityRef;

    /// The walk over every loop starting inside, as it was.
    fn naive(iv: Interval, loops: &[Interval]) -> u32 {
        let mut end = iv.end;
        let mut i = loops.partition_point(|l| l.start <= iv.start);
        while i < loops.len() && loops[i].start <= end {
            end = end.max(loops[i].end);
            i += 1;
        }
        end
    }

    #[test]
    fn range_max_matches_a_scan() {
        let items: Vec<u32> = (0..100u32).map(|i| i.wrapping_mul(2_654_435_761) >> 20).collect();
        let table = RangeMax::new(items.clone());
        for from in 0..items.len() {
            for to in from..=items.len() {
                assert_eq!(table.max(from, to), items[from..to].iter().copied().max(), "{from}..{to}");
            }
        }
        assert_eq!(RangeMax::new(Vec::new()).max(0, 0), None);
    }

    #[test]
    fn live_through_loops_matches_the_walk() {
        // Nested and sequential loops, and overlapping ones the layout
        // never makes, against intervals everywhere.
        let mut loops = vec![
            Interval { start: 10, end: 100 },
            Interval { start: 20, end: 90 },
            Interval { start: 30, end: 40 },
            Interval { start: 50, end: 80 },
            Interval { start: 95, end: 130 },
            Interval { start: 120, end: 200 },
            Interval { start: 210, end: 220 },
        ];
        loops.sort_by_key(|l| l.start);
        let mut main: SecondaryMap<Value, Interval> = SecondaryMap::default();
        let mut expected = Vec::new();
        let mut k = 0;
        for start in (0..230).step_by(7) {
            for len in [0, 3, 15, 60] {
                let iv = Interval { start, end: start + len };
                main.insert(Value::new(k), iv);
                expected.push(naive(iv, &loops));
                k += 1;
            }
        }
        live_through_loops(&mut main, &loops);
        for (k, want) in expected.into_iter().enumerate() {
            assert_eq!(main.get(&Value::new(k)).map(|iv| iv.end), Some(want), "value {k}");
        }
    }
}
