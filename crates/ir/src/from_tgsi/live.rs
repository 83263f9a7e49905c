//! Which variables are live where the main program's constructs join,
//! found by one backward walk over the instructions before anything is
//! built, so that a join gets a phi only for a variable some path from it
//! may still read (pruned SSA). A random 100,000-instruction fragment
//! shader otherwise builds half of its phis for register channels that
//! are written again, or never read, after the join.
//!
//! The sets may hold more than the live variables, never fewer: a loop's
//! back edges take every variable the loop reads or its exit needs (one
//! walk, however deep the loops nest), and a `CAL` every variable. Joins
//! inside inlined subroutines are not pruned. What the builder does when
//! a set is wrong after all is in `ssa`: a pruned variable holds a poison
//! value, and reading it makes the builder start again without pruning.

use super::lower::{is_cross_lane, is_value_file};
use super::vars::Var;
use super::Builder;
use crate::channels::{read_mask, replicated_reads};
use rustc_hash::FxHashMap as HashMap;
use tgsi::{ChannelMode, File, Opcode};

/// A set of variables, one bit each.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct VarSet(Vec<u64>);

impl VarSet {
    fn insert(&mut self, v: Var) {
        let (word, bit) = (v.0 as usize / 64, v.0 % 64);
        if self.0.len() <= word {
            self.0.resize(word + 1, 0);
        }
        self.0[word] |= 1 << bit;
    }

    /// Whether `v` is in the set.
    pub(super) fn contains(&self, v: Var) -> bool {
        self.0.get(v.0 as usize / 64).is_some_and(|w| w & (1 << (v.0 % 64)) != 0)
    }

    fn union_with(&mut self, other: &VarSet) {
        if self.0.len() < other.0.len() {
            self.0.resize(other.0.len(), 0);
        }
        for (w, o) in self.0.iter_mut().zip(&other.0) {
            *w |= o;
        }
    }
}

/// The live variables at each join of the main program, by the index of
/// the instruction the join follows: `ENDIF`, `ENDLOOP` and `ENDSWITCH`
/// (after the construct), `BGNLOOP` (the loop's header), `CASE` and
/// `DEFAULT` (the start of the case).
#[derive(Default)]
pub(super) struct JoinLiveness {
    at: HashMap<usize, VarSet>,
}

impl JoinLiveness {
    /// The live variables at the join after instruction `index`.
    pub(super) fn at(&self, index: usize) -> Option<&VarSet> {
        self.at.get(&index)
    }
}

/// An open construct of the backward walk (met at its end first).
enum Frame {
    If { after: VarSet, else_start: Option<VarSet> },
    Loop { exit: VarSet, back: VarSet },
    Switch { after: VarSet, starts: VarSet, has_default: bool },
}

/// What is live where a `BRK` or `CONT` (`opcode`) goes, in the
/// innermost construct it leaves: a loop's exit or a switch's end for
/// `BRK`, a loop's back edge for `CONT`; `None` outside one.
fn jump_target(frames: &[Frame], opcode: Opcode) -> Option<&VarSet> {
    frames.iter().rev().find_map(|f| match f {
        Frame::Loop { exit, .. } if opcode == Opcode::Brk => Some(exit),
        Frame::Loop { back, .. } => Some(back),
        Frame::Switch { after, .. } if opcode == Opcode::Brk => Some(after),
        _ => None,
    })
}

impl Builder<'_> {
    /// The live variables at each join of the main program (the
    /// instructions up to its top-level `END`).
    pub(super) fn join_liveness(&mut self) -> JoinLiveness {
        let main_end = self.main_end();
        let (all, outputs) = self.all_and_outputs();
        let loop_reads = self.loop_reads(main_end, &all, &outputs);

        let mut result = JoinLiveness::default();
        let mut frames: Vec<Frame> = Vec::new();
        // An invocation that runs off the end stores its outputs.
        let mut live = outputs.clone();
        for i in (0..main_end).rev() {
            let inst = self.insts[i];
            match inst.opcode {
                Opcode::Endif => {
                    result.at.insert(i, live.clone());
                    frames.push(Frame::If { after: live.clone(), else_start: None });
                }
                Opcode::Else => {
                    if let Some(Frame::If { after, else_start }) = frames.last_mut() {
                        *else_start = Some(std::mem::replace(&mut live, after.clone()));
                    }
                }
                Opcode::If | Opcode::Uif => {
                    if let Some(Frame::If { after, else_start }) = frames.pop() {
                        live.union_with(else_start.as_ref().unwrap_or(&after));
                    }
                    self.add_reads(inst, &mut live);
                }
                Opcode::Endloop => {
                    result.at.insert(i, live.clone());
                    let mut back = loop_reads.get(&i).cloned().unwrap_or_else(|| all.clone());
                    back.union_with(&live);
                    frames.push(Frame::Loop { exit: live.clone(), back: back.clone() });
                    live = back;
                }
                Opcode::Bgnloop => {
                    if matches!(frames.last(), Some(Frame::Loop { .. })) {
                        frames.pop();
                    }
                    result.at.insert(i, live.clone());
                }
                Opcode::Endswitch => {
                    result.at.insert(i, live.clone());
                    frames.push(Frame::Switch { after: live.clone(), starts: VarSet::default(), has_default: false });
                }
                Opcode::Case | Opcode::Default => {
                    result.at.insert(i, live.clone());
                    if let Some(Frame::Switch { starts, has_default, .. }) = frames.last_mut() {
                        starts.union_with(&live);
                        *has_default |= inst.opcode == Opcode::Default;
                    }
                }
                Opcode::Switch => {
                    if let Some(Frame::Switch { after, starts, has_default }) = frames.pop() {
                        live = starts;
                        if !has_default {
                            live.union_with(&after);
                        }
                    }
                    self.add_reads(inst, &mut live);
                }
                Opcode::Brk | Opcode::Cont => {
                    live = jump_target(&frames, inst.opcode).cloned().unwrap_or_else(|| all.clone());
                }
                Opcode::End | Opcode::Ret => live = outputs.clone(),
                Opcode::Cal => live = all.clone(),
                Opcode::Emit => {
                    live.union_with(&outputs);
                    self.add_reads(inst, &mut live);
                }
                _ => {
                    let mut kills = VarSet::default();
                    self.add_kills(inst, &mut kills);
                    for (w, k) in live.0.iter_mut().zip(&kills.0) {
                        *w &= !k;
                    }
                    self.add_reads(inst, &mut live);
                }
            }
        }
        result
    }

    /// Every variable, and every variable of the `OUT` file. Every
    /// variable the program names is made first, so that the sets hold
    /// them all.
    fn all_and_outputs(&mut self) -> (VarSet, VarSet) {
        let mut scratch = VarSet::default();
        for i in 0..self.insts.len() {
            let inst = self.insts[i];
            self.add_reads(inst, &mut scratch);
            self.add_kills(inst, &mut scratch);
        }
        let all = (0..self.vars.len() as u32).map(Var).fold(VarSet::default(), |mut s, v| {
            s.insert(v);
            s
        });
        let outputs = (0..self.vars.len() as u32).map(Var).filter(|&v| self.vars.reg(v).file == File::Output).fold(
            VarSet::default(),
            |mut s, v| {
                s.insert(v);
                s
            },
        );
        (all, outputs)
    }

    /// Where the main program ends: its top-level `END`, or the end of
    /// the list (the builder stops there too).
    fn main_end(&self) -> usize {
        let mut depth = 0usize;
        for (i, inst) in self.insts.iter().enumerate() {
            match inst.opcode {
                op if op.opens_construct() => depth += 1,
                op if op.closes_construct() => depth = depth.saturating_sub(1),
                Opcode::End if depth == 0 => return i,
                _ => {}
            }
        }
        self.insts.len()
    }

    /// Every variable each loop of the main program (by its `ENDLOOP`) may
    /// read, with the outputs where it may end the invocation or emit,
    /// and everything where it calls a subroutine. One pass: an inner
    /// loop's set is added to the enclosing one when it closes.
    fn loop_reads(&mut self, main_end: usize, all: &VarSet, outputs: &VarSet) -> HashMap<usize, VarSet> {
        let mut table = HashMap::default();
        let mut open: Vec<VarSet> = Vec::new();
        for i in 0..main_end {
            let inst = self.insts[i];
            match inst.opcode {
                Opcode::Bgnloop => open.push(VarSet::default()),
                Opcode::Endloop => {
                    if let Some(done) = open.pop() {
                        if let Some(parent) = open.last_mut() {
                            parent.union_with(&done);
                        }
                        table.insert(i, done);
                    }
                }
                _ => {
                    let Some(top) = open.last_mut() else { continue };
                    match inst.opcode {
                        Opcode::Cal => top.union_with(all),
                        Opcode::End | Opcode::Ret | Opcode::Emit => top.union_with(outputs),
                        _ => {}
                    }
                    self.add_reads(inst, top);
                }
            }
        }
        table
    }

    /// The variable of a register channel, if it is one (not kept in
    /// memory).
    fn var_of(&mut self, file: File, index: i32, chan: u8) -> Option<Var> {
        if !matches!(file, File::Temporary | File::Output | File::Address) || index < 0 {
            return None;
        }
        if file == File::Output && self.processor == tgsi::Processor::TessCtrl {
            return None;
        }
        if self.array_of(file, index as i64).is_some() {
            return None;
        }
        Some(self.vars.var(file, index as u32, chan & 3))
    }

    /// The variable an indirect index reads.
    fn add_indirect(&mut self, ind: Option<tgsi::Indirect>, out: &mut VarSet) {
        if let Some(ind) = ind {
            if let Some(v) = self.var_of(ind.file, ind.index, ind.component) {
                out.insert(v);
            }
        }
    }

    /// Adds the variables `inst` reads: the channels of its sources that
    /// its written channels read, and the index registers of its operands.
    fn add_reads(&mut self, inst: &tgsi::Instruction, out: &mut VarSet) {
        for (i, src) in inst.src.iter().enumerate() {
            let reg = src.reg;
            self.add_indirect(reg.indirect, out);
            self.add_indirect(reg.dimension.and_then(|d| d.indirect), out);
            if reg.indirect.is_some() || reg.dimension.is_some() {
                continue;
            }
            let mask = source_read_mask(inst, i);
            for c in 0..4 {
                if mask & (1 << c) != 0 {
                    if let Some(v) = self.var_of(reg.file, reg.index, src.swizzle[c]) {
                        out.insert(v);
                    }
                }
            }
        }
        for dst in &inst.dst {
            self.add_indirect(dst.reg.indirect, out);
            self.add_indirect(dst.reg.dimension.and_then(|d| d.indirect), out);
        }
        if let Some(texture) = &inst.texture {
            for offset in &texture.offsets {
                for &c in &offset.swizzle {
                    if let Some(v) = self.var_of(offset.file, offset.index, c) {
                        out.insert(v);
                    }
                }
            }
        }
    }

    /// Adds the variables `inst` writes: the written channels of its
    /// direct destinations.
    fn add_kills(&mut self, inst: &tgsi::Instruction, out: &mut VarSet) {
        for (d, dst) in inst.dst.iter().enumerate() {
            let reg = dst.reg;
            if reg.indirect.is_some() || reg.dimension.is_some() {
                continue;
            }
            let mask = super::lower::written_channels(inst, d);
            for c in 0..4u8 {
                if mask & (1 << c) != 0 {
                    if let Some(v) = self.var_of(reg.file, reg.index, c) {
                        out.insert(v);
                    }
                }
            }
        }
    }
}

/// The swizzle positions of source `src` that the builder reads for
/// `inst`: those of the written channels for a component-wise operation,
/// the fixed ones of a replicated one, and otherwise [`read_mask`]'s.
fn source_read_mask(inst: &tgsi::Instruction, src: usize) -> u8 {
    let op = inst.opcode;
    let info = op.info();
    let simple = inst.dst.len() == 1
        && inst.src.iter().all(|s| is_value_file(s.reg.file))
        && !is_cross_lane(op)
        && !info.is_legacy()
        && !info.is_64bit();
    let write_mask = inst.dst.first().map_or(0, |d| d.write_mask & 0xf);
    match info.mode {
        ChannelMode::Componentwise if simple => write_mask,
        ChannelMode::Replicate if simple && write_mask == 0 => 0,
        ChannelMode::Replicate if simple => {
            replicated_reads(op).iter().filter(|&&(s, _)| s as usize == src).fold(0, |m, &(_, c)| m | 1 << c)
        }
        _ => read_mask(inst, src),
    }
}

#[cfg(test)]
mod tests {
    use super::super::{check_limits, Builder, Built};
    use crate::function::{Module, Op};

    /// Builds `text` with pruned joins, without the unpruned fallback:
    /// `None` when a pruned variable was read.
    fn build_pruned(text: &str) -> Option<Module> {
        let shader = tgsi::parse(text).expect("parses");
        let limits = tgsi::Limits::default();
        check_limits(&shader, &limits).expect("within the limits");
        let mut b = Builder::new(&shader, &limits).expect("builds");
        b.prune_by_liveness();
        match b.build().expect("builds") {
            Built::Done(module) => Some(*module),
            Built::PrunedTooMuch => None,
        }
    }

    fn shader(body: &str) -> String {
        format!("FRAG\nDCL IN[0]\nDCL OUT[0], COLOR\nDCL TEMP[0..1]\n{body}END\n")
    }

    /// Every phi made, placed or not (the clean-up at the end only takes
    /// phis out of their blocks).
    fn phis_made(module: &Module) -> usize {
        module.function.insts.iter().filter(|(_, d)| matches!(d.op, Op::Phi { .. })).count()
    }

    /// A register written in both arms of an IF and again before any
    /// read: no phi is made at all.
    #[test]
    fn a_join_overwritten_before_any_read_makes_no_phi() {
        let text = shader(
            "IF IN[0].xxxx\n  MOV TEMP[0].x, IN[0].yyyy\nELSE\n  MOV TEMP[0].x, IN[0].zzzz\nENDIF\n\
             MOV TEMP[0].x, IN[0].wwww\nMOV OUT[0], TEMP[0].xxxx\n",
        );
        let module = build_pruned(&text).expect("no pruned variable read");
        assert_eq!(phis_made(&module), 0);
    }

    /// Only the channels an instruction reads count: `MOV TEMP[1].x,
    /// TEMP[0].xyzw` reads TEMP[0].x, so the join of TEMP[0].y gets no
    /// phi, and that of TEMP[0].x one.
    #[test]
    fn only_the_channels_read_keep_their_phis() {
        let text = shader(
            "IF IN[0].xxxx\n  MOV TEMP[0].xy, IN[0]\nELSE\n  MOV TEMP[0].xy, IN[0].yxzw\nENDIF\n\
             MOV TEMP[1].x, TEMP[0]\nMOV OUT[0], TEMP[1].xxxx\n",
        );
        let module = build_pruned(&text).expect("no pruned variable read");
        assert_eq!(phis_made(&module), 1);
    }

    /// A loop counter read at the loop's head keeps its header phi; a
    /// register the body writes before reading it gets none, nor a phi
    /// where the loop's breaks join when nothing reads it after.
    #[test]
    fn a_loop_gets_phis_only_for_what_its_head_or_exit_reads() {
        let text = shader(
            "MOV TEMP[0].x, IN[0].xxxx\nBGNLOOP\n  ADD TEMP[1].x, TEMP[0].xxxx, IN[0].yyyy\n\
               IF TEMP[1].xxxx\n    BRK\n  ENDIF\n  ADD TEMP[0].x, TEMP[1].xxxx, IN[0].zzzz\nENDLOOP\n\
             MOV OUT[0], TEMP[0].xxxx\n",
        );
        let module = build_pruned(&text).expect("no pruned variable read");
        // TEMP[0].x at the header; TEMP[1].x is written first each round.
        assert_eq!(phis_made(&module), 1);
    }

    /// Outputs are read where the invocation ends: a join of an output
    /// keeps its phi though no instruction reads it.
    #[test]
    fn outputs_are_live_at_the_end() {
        let text = shader("IF IN[0].xxxx\n  MOV OUT[0], IN[0]\nELSE\n  MOV OUT[0], IN[0].yxwz\nENDIF\n");
        let module = build_pruned(&text).expect("no pruned variable read");
        assert_eq!(phis_made(&module), 4);
    }

    /// If the liveness missed a read, the pruned variable's poison is
    /// read and the build says so (and `from_tgsi` builds again without
    /// pruning): here every set is emptied on purpose.
    #[test]
    fn a_read_of_a_pruned_variable_is_caught() {
        let text = shader(
            "IF IN[0].xxxx\n  MOV TEMP[0].x, IN[0].yyyy\nELSE\n  MOV TEMP[0].x, IN[0].zzzz\nENDIF\n\
             MOV OUT[0], TEMP[0].xxxx\n",
        );
        let shader = tgsi::parse(&text).expect("parses");
        let limits = tgsi::Limits::default();
        let mut b = Builder::new(&shader, &limits).expect("builds");
        b.prune_by_liveness();
        if let Some(live) = &mut b.live {
            live.at.values_mut().for_each(|s| s.0.clear());
        }
        assert!(matches!(b.build(), Ok(Built::PrunedTooMuch)));
        let module = crate::from_tgsi(&shader).expect("builds without pruning");
        assert_eq!(phis_made(&module), 1);
    }

    /// Over the shared corpus, no shader reads a variable its joins
    /// pruned: the liveness holds every variable read (skipped without
    /// the corpus).
    #[test]
    fn the_corpus_builds_pruned_without_reading_a_pruned_variable() {
        let Some(paths) = testdata::corpus_files() else {
            eprintln!("skipped: no shared corpus");
            return;
        };
        let (mut failed, mut checked) = (Vec::new(), 0);
        for path in &paths {
            // Every corpus shader reads, parses and builds (other tests
            // check that too): one that does not is a failure here.
            let text = std::fs::read_to_string(path).unwrap_or_default();
            let Ok(shader) = tgsi::parse(&text) else {
                failed.push(format!("{}: does not parse", path.display()));
                continue;
            };
            let limits = tgsi::Limits::default();
            let builder = check_limits(&shader, &limits).ok().and_then(|()| Builder::new(&shader, &limits).ok());
            let Some(mut b) = builder else {
                failed.push(format!("{}: does not build", path.display()));
                continue;
            };
            b.prune_by_liveness();
            if let Ok(Built::PrunedTooMuch) = b.build() {
                failed.push(format!("{}: pruned too much", path.display()));
            }
            checked += 1;
        }
        assert!(failed.is_empty(), "{failed:?}");
        testdata::assert_checked("the_corpus_builds_pruned", "corpus shaders", checked, 500);
    }
}
