//! Lowering of `BGNLOOP` ... `ENDLOOP`. The header gets a phi for every
//! variable the body may write (found by scanning the body, and the
//! subroutines it calls, first); the `CONT` and latch edges fill them in
//! when the body is lowered, and the `BRK` edges join after the loop.

use super::flow::{Next, Open, Run};
use super::jumps::{Breakable, LoopInfo};
use super::vars::Var;
use super::{lower, BuildError, Builder};
use crate::function::{LoopNode, Node, Op, Operand, Origin, Ty};
use rustc_hash::FxHashMap as HashMap;
use smallvec::SmallVec;
use tgsi::{File, Opcode};

impl<'a> Builder<'a> {
    /// A `BGNLOOP` whose body starts at `pc`: makes the header with its
    /// phis; the body is next.
    pub(super) fn begin_loop(&mut self, pc: usize, main: bool) -> Result<Next<'a>, BuildError> {
        let preheader = self.cur;
        let written = self.written_in_loop(pc)?;
        let live = self.live_after(self.pc);
        let mark = self.vars.mark();
        let header = self.new_block();
        let mut phis = Vec::with_capacity(written.len());
        for &v in &written {
            if !Self::needed(live.as_ref(), v) {
                // Nothing reads it before writing it: no header phi. The
                // poison stands for its value from the previous round.
                if let Some(poison) = self.poison {
                    self.write_var(v, poison);
                }
                continue;
            }
            let origin = Origin { inst: None, dst: Some(self.vars.reg(v)) };
            let phi = self.func.add_inst(Op::Phi { preds: SmallVec::new() }, &[], &[Ty::B32], origin);
            self.func.blocks[header].insts.push(phi);
            self.phis.push(phi);
            let before = self.vars.get(v);
            let init = self.state_value(before);
            self.func.insts[phi].args.push(Operand::new(init));
            if let Op::Phi { preds } = &mut self.func.insts[phi].op {
                preds.push(preheader);
            }
            let value = self.func.result(phi);
            self.write_var(v, value);
            phis.push((v, phi));
        }
        self.breakables.push(Breakable {
            mark,
            breaks: Vec::new(),
            looping: Some(LoopInfo { phis, continues: Vec::new() }),
            subroutine: false,
        });
        self.open_region(header);
        Ok(Some((Open::Loop { mark }, Run { stops: &[Opcode::Endloop], main })))
    }

    /// The body of a loop ended: the loop is complete.
    pub(super) fn end_loop(&mut self, mark: usize) -> Result<Next<'a>, BuildError> {
        if self.reaches_end() {
            // The latch: the body's end flows back to the header.
            self.record_continue();
        }
        let body = self.close_region();
        let ctx = self.breakables.pop().ok_or_else(|| self.error("loop context lost"))?;
        self.finish_loop_phis(&ctx);
        self.vars.rollback(mark);
        // One loop built from its body: not a walk.
        let exit = self.push_construct(Node::Loop(Box::new(LoopNode { body })));
        self.join_after(exit, &ctx.breaks, self.pc);
        Ok(None)
    }

    /// Fills the header phis of a loop from its CONT and latch edges.
    fn finish_loop_phis(&mut self, ctx: &Breakable) {
        let Some(info) = &ctx.looping else { return };
        for &(v, phi) in &info.phis {
            let header_value = self.func.result(phi);
            for inc in &info.continues {
                let value = inc.state.iter().find(|&&(w, _)| w == v).map_or(Some(header_value), |&(_, val)| val);
                let value = self.state_value(value);
                self.func.insts[phi].args.push(Operand::new(value));
                if let Op::Phi { preds } = &mut self.func.insts[phi].op {
                    preds.push(inc.pred);
                }
            }
        }
    }

    /// The variables an instruction range starting at `pc` (a loop body up
    /// to its ENDLOOP) may write, including through subroutine calls.
    /// The first call scans the whole program once for every loop, so
    /// nested loops cost one scan, not one per level.
    fn written_in_loop(&mut self, pc: usize) -> Result<Vec<Var>, BuildError> {
        if self.loop_writes.is_none() {
            let table = self.scan_loop_writes()?;
            self.loop_writes = Some(table);
        }
        Ok(self.loop_writes.as_ref().and_then(|t| t.get(&pc)).cloned().unwrap_or_default())
    }

    /// For the body start (the instruction after `BGNLOOP`) of every loop,
    /// the variables the body up to its `ENDLOOP` (or the end) may write:
    /// its own writes and those of the loops inside it.
    fn scan_loop_writes(&mut self) -> Result<HashMap<usize, Vec<Var>>, BuildError> {
        struct Open {
            start: usize,
            writes: Vec<Var>,
            visited_subs: Vec<usize>,
        }
        let mut table = HashMap::default();
        let mut open: Vec<Open> = Vec::new();
        let close = |table: &mut HashMap<usize, Vec<Var>>, open: &mut Vec<Open>| {
            if let Some(mut done) = open.pop() {
                done.writes.sort();
                done.writes.dedup();
                if let Some(parent) = open.last_mut() {
                    parent.writes.extend_from_slice(&done.writes);
                }
                table.insert(done.start, done.writes);
            }
        };
        for i in 0..self.insts.len() {
            let inst = self.insts[i];
            match inst.opcode {
                Opcode::Bgnloop => {
                    if let Some(top) = open.last_mut() {
                        self.collect_writes(inst, &mut top.writes, &mut top.visited_subs)?;
                    }
                    open.push(Open { start: i + 1, writes: Vec::new(), visited_subs: Vec::new() });
                }
                Opcode::Endloop if !open.is_empty() => close(&mut table, &mut open),
                _ => {
                    if let Some(top) = open.last_mut() {
                        self.collect_writes(inst, &mut top.writes, &mut top.visited_subs)?;
                    }
                }
            }
        }
        while !open.is_empty() {
            close(&mut table, &mut open);
        }
        Ok(table)
    }

    /// Adds the variables `inst` writes to `out`, and for a `CAL` those of
    /// the subroutine (once per subroutine, in `visited_subs`).
    fn collect_writes(
        &mut self,
        inst: &tgsi::Instruction,
        out: &mut Vec<Var>,
        visited_subs: &mut Vec<usize>,
    ) -> Result<(), BuildError> {
        // Where the scan is in each subroutine called, innermost last:
        // nested calls need no recursion.
        let mut bodies: Vec<usize> = Vec::new();
        let mut next = Some(inst);
        while let Some(inst) = next {
            if inst.opcode == Opcode::Cal {
                let start = inst.label.unwrap_or(0) as usize;
                if !visited_subs.contains(&start) {
                    visited_subs.push(start);
                    bodies.push(start + 1);
                }
            } else {
                self.collect_dst_writes(inst, out);
            }
            next = None;
            while let Some(i) = bodies.last_mut() {
                match self.insts.get(*i) {
                    Some(&sub_inst) if sub_inst.opcode != Opcode::Endsub => {
                        *i += 1;
                        next = Some(sub_inst);
                        break;
                    }
                    _ => {
                        bodies.pop();
                    }
                }
            }
        }
        Ok(())
    }

    /// Adds the variables the destinations of `inst` write to `out`.
    fn collect_dst_writes(&mut self, inst: &tgsi::Instruction, out: &mut Vec<Var>) {
        for (d, dst) in inst.dst.iter().enumerate() {
            let reg = dst.reg;
            if !matches!(reg.file, File::Temporary | File::Output | File::Address) || reg.indirect.is_some() {
                continue;
            }
            if self.array_of(reg.file, reg.index as i64).is_some() {
                continue;
            }
            let mask = lower::written_channels(inst, d);
            for c in 0..4u8 {
                if mask & (1 << c) != 0 {
                    out.push(self.vars.var(reg.file, reg.index as u32, c));
                }
            }
        }
        // Outputs are stored before EMIT and at exits, which only read.
    }
}
