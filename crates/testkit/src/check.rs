//! Finding the pass that changes a program's results: the program runs on
//! states unoptimized, then after each pass of a pipeline in turn (and,
//! last, as the TGSI emitted from the result); the first step after which
//! any output differs from the unoptimized run is the culprit, reported
//! with the differing value and the IR that computes it before and after.
//!
//! `tgsi-opt check` is the command line of [`check`].
//!
//! ```
//! let text = "FRAG\nDCL IN[0], GENERIC[0], PERSPECTIVE\nDCL OUT[0], COLOR\nDCL TEMP[0]\n\
//!             IMM[0] FLT32 { 2.0, 0.0, 0.0, 0.0 }\n\
//!             MUL TEMP[0], IN[0], IMM[0].xxxx\nMOV OUT[0], TEMP[0]\nEND\n";
//! let module = ir::from_tgsi(&tgsi::parse(text).unwrap()).unwrap();
//! let states = testkit::check::random_states(&module, 4, 0).unwrap();
//! let pipeline = passes::Pipeline::o1();
//! let passes: Vec<&dyn passes::Pass> = pipeline.passes().collect();
//! let verdict = testkit::check::check(&module, &passes, pipeline.max_iterations(), &states).unwrap();
//! assert!(matches!(verdict, testkit::check::Verdict::Same { states: 4, .. }));
//! ```

use std::collections::BTreeSet;
use std::fmt::{self, Write as _};

use ir::{Function, Inst, Op};

use crate::{states, Rng};

/// What a check found.
#[derive(Clone, Debug)]
pub enum Verdict {
    /// Every step left every output of every state unchanged.
    Same {
        /// States run.
        states: usize,
        /// States skipped: the unoptimized shader does not run on them
        /// (it does not finish within the step budget, say).
        skipped: usize,
        /// Pass runs (a fixed-point pipeline runs its passes more than once).
        pass_runs: usize,
    },
    /// A step changed an output.
    Changed(Box<Culprit>),
}

/// The first step that changed an output, and how.
#[derive(Clone, Debug)]
pub struct Culprit {
    /// The pass, or `emission` for the TGSI emitted after the passes.
    pub step: String,
    /// The pipeline's round (1 for a plain pass list).
    pub iteration: usize,
    /// Which state (from 0).
    pub state: usize,
    /// The first output line that differs, before (unoptimized) and after.
    pub difference: exec::Difference,
    /// The output channel, when the line is a register output.
    pub channel: Option<ChannelDifference>,
    /// The IR computing that channel before the step.
    pub ir_before: String,
    /// ... and after it (for emission, the IR built from the emitted TGSI).
    pub ir_after: String,
}

/// One channel of one output register of one lane that differs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ChannelDifference {
    /// The output register (`OUT[index]`).
    pub index: u32,
    /// The invocation.
    pub lane: u32,
    /// The channel, 0..=3.
    pub chan: u8,
    /// The bits of the unoptimized run.
    pub before: u32,
    /// The bits after the step.
    pub after: u32,
}

/// Why a check could not decide.
#[derive(Debug, thiserror::Error)]
pub enum CheckError {
    /// No state to run: a check on none would pass vacuously.
    #[error("no state to run the shader on")]
    NoStates,
    /// The unoptimized program runs on none of the states.
    #[error("the unoptimized shader runs on none of the states; on state {state}: {source}")]
    Baseline {
        /// Which state.
        state: usize,
        /// Why.
        source: exec::ExecError,
    },
    /// A step left IR the verifier rejects.
    #[error("after {step} (iteration {iteration}) the IR is invalid: {source}")]
    Verify {
        /// The pass.
        step: String,
        /// Its round.
        iteration: usize,
        /// What the verifier says.
        source: ir::verify::VerifyError,
    },
    /// After a step the program no longer runs.
    #[error("after {step} (iteration {iteration}) the shader does not run on state {state}: {source}")]
    Run {
        /// The pass, or `emission`.
        step: String,
        /// Its round.
        iteration: usize,
        /// Which state.
        state: usize,
        /// Why.
        source: exec::ExecError,
    },
    /// The optimized IR could not be emitted, or what it emitted not read back.
    #[error("emission failed: {0}")]
    Emission(String),
}

/// `count` random states for `module` ([`states::for_module`]), from `seed`.
pub fn random_states(module: &ir::Module, count: usize, seed: u64) -> Result<Vec<exec::State>, exec::StateError> {
    let mut rng = Rng::new(seed);
    (0..count).map(|_| exec::State::parse(&states::for_module(module, &mut rng))).collect()
}

/// Steps one batch of lanes may take: a shader that loops on a random
/// float as a count would otherwise run for minutes.
pub const STEP_BUDGET: u64 = 5_000_000;

/// Runs `module` on `states` unoptimized, then after each of `passes` in
/// turn, the sequence again while a pass changes something (at most
/// `max_iterations` rounds, as [`passes::PassManager`] does), verifying
/// after each; then runs the TGSI emitted from the result. Returns the
/// first step after which an output differs from the unoptimized run.
/// States the unoptimized shader does not run on are skipped.
pub fn check(
    module: &ir::Module,
    passes: &[&dyn passes::Pass],
    max_iterations: usize,
    states: &[exec::State],
) -> Result<Verdict, CheckError> {
    check_with_budget(module, passes, max_iterations, states, STEP_BUDGET, exec::Backend::default())
}

/// [`check`] with runs stopped after `step_budget` steps per batch (a
/// fuzzer's inputs must each take little time), on `backend` (a fuzzer's
/// one-shot runs are cheaper in the interpreter than compiled).
pub fn check_with_budget(
    module: &ir::Module,
    passes: &[&dyn passes::Pass],
    max_iterations: usize,
    states: &[exec::State],
    step_budget: u64,
    backend: exec::Backend,
) -> Result<Verdict, CheckError> {
    if states.is_empty() {
        return Err(CheckError::NoStates);
    }
    let options = exec::RunOptions { threads: 1, step_budget, ..exec::RunOptions::default() };
    let mut baseline = Vec::with_capacity(states.len());
    let mut first_failure = None;
    for (state, s) in states.iter().enumerate() {
        match exec::Executable::compile_with(module, backend).and_then(|e| e.run(s, &options)) {
            Ok(outputs) => baseline.push((state, s, outputs)),
            Err(source) => {
                first_failure.get_or_insert(CheckError::Baseline { state, source });
            }
        }
    }
    if baseline.is_empty() {
        if let Some(failure) = first_failure {
            return Err(failure);
        }
    }
    let skipped = states.len() - baseline.len();
    let compare =
        |after: &ir::Module, step: &str, iteration: usize| -> Result<Option<(usize, exec::Difference)>, CheckError> {
            for &(state, s, ref want) in &baseline {
                let got = exec::Executable::compile_with(after, backend)
                    .and_then(|e| e.run(s, &options))
                    .map_err(|source| CheckError::Run { step: step.to_string(), iteration, state, source })?;
                if let Some(d) = want.first_difference(&got) {
                    return Ok(Some((state, d)));
                }
            }
            Ok(None)
        };
    let mut current = module.clone();
    let mut pass_runs = 0;
    let mut last_iteration = 1;
    for iteration in 1..=max_iterations.max(1) {
        last_iteration = iteration;
        let mut changed = false;
        for pass in passes {
            let before = current.clone();
            changed |= pass.run(&mut current).changed;
            pass_runs += 1;
            ir::verify::verify(&current.function).map_err(|source| CheckError::Verify {
                step: pass.name().to_string(),
                iteration,
                source,
            })?;
            if let Some((state, difference)) = compare(&current, pass.name(), iteration)? {
                return Ok(Verdict::Changed(Box::new(culprit(
                    pass.name(),
                    iteration,
                    state,
                    difference,
                    &before,
                    &current,
                ))));
            }
        }
        if !changed {
            break;
        }
    }
    let checked = ir::EmitOptions { check: true, ..Default::default() };
    let emitted = ir::to_tgsi_with(&current, &checked).map_err(|e| CheckError::Emission(e.to_string()))?;
    let text = tgsi::print(&emitted, tgsi::Style::Exact);
    let reread = tgsi::parse(&text).map_err(|e| CheckError::Emission(e.render(&text, "<emitted>")))?;
    let rebuilt = ir::from_tgsi(&reread).map_err(|e| CheckError::Emission(e.to_string()))?;
    if let Some((state, difference)) = compare(&rebuilt, "emission", last_iteration)? {
        return Ok(Verdict::Changed(Box::new(culprit(
            "emission",
            last_iteration,
            state,
            difference,
            &current,
            &rebuilt,
        ))));
    }
    Ok(Verdict::Same { states: baseline.len(), skipped, pass_runs })
}

fn culprit(
    step: &str,
    iteration: usize,
    state: usize,
    difference: exec::Difference,
    before: &ir::Module,
    after: &ir::Module,
) -> Culprit {
    let channel = channel_difference(&difference);
    let slice = |m: &ir::Module| match channel {
        Some(c) => output_slice(&m.function, c.index, c.chan),
        None => String::new(),
    };
    Culprit {
        step: step.to_string(),
        iteration,
        state,
        ir_before: slice(before),
        ir_after: slice(after),
        channel,
        difference,
    }
}

/// The first differing channel of two `output INDEX LANE x y z w` lines.
fn channel_difference(d: &exec::Difference) -> Option<ChannelDifference> {
    let words = |line: &Option<String>| -> Option<(u32, u32, [u32; 4])> {
        let fields: Vec<&str> = line.as_deref()?.split(' ').collect();
        let ["output", index, lane, x, y, z, w] = fields.as_slice() else { return None };
        let bits = |f: &str| u32::from_str_radix(f.strip_prefix("0x")?, 16).ok();
        Some((index.parse().ok()?, lane.parse().ok()?, [bits(x)?, bits(y)?, bits(z)?, bits(w)?]))
    };
    let (index, lane, before) = words(&d.left)?;
    let (index2, lane2, after) = words(&d.right)?;
    if (index, lane) != (index2, lane2) {
        return None;
    }
    let chan = (0..4).find(|&c| before[c] != after[c])?;
    Some(ChannelDifference { index, lane, chan: chan as u8, before: before[chan], after: after[chan] })
}

/// At most this many instructions in a slice.
const SLICE_LIMIT: usize = 16;

/// The instructions that compute what `OUT[index]` channel `chan` stores:
/// its stores and, going back through operands, the instructions they
/// read (at most [`SLICE_LIMIT`]), in program order, one per line.
fn output_slice(func: &Function, index: u32, chan: u8) -> String {
    let order: Vec<Inst> = func.blocks_in_order().into_iter().flat_map(|b| func.blocks[b].insts.clone()).collect();
    let mut wanted: BTreeSet<Inst> = BTreeSet::new();
    let mut work: Vec<Inst> = order
        .iter()
        .copied()
        .filter(|&i| matches!(func.insts[i].op, Op::StoreOutput { index: x, chan: c } if x == index && c == chan))
        .collect();
    while let Some(inst) = work.pop() {
        if wanted.len() >= SLICE_LIMIT || !wanted.insert(inst) {
            continue;
        }
        for arg in &func.insts[inst].args {
            if let Some(value) = func.values.get(arg.value) {
                work.push(value.def);
            }
        }
    }
    let mut out = String::new();
    for inst in order.into_iter().filter(|i| wanted.contains(i)) {
        let _ = writeln!(out, "    {}", ir::print::print_inst(func, inst));
    }
    out
}

impl fmt::Display for Culprit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "{} changed the results (iteration {}, state {})", self.step, self.iteration, self.state)?;
        match self.channel {
            Some(c) => {
                let name = ['x', 'y', 'z', 'w'][usize::from(c.chan & 3)];
                writeln!(
                    f,
                    "  OUT[{}].{name} of lane {}: 0x{:08x} ({:?}) before, 0x{:08x} ({:?}) after",
                    c.index,
                    c.lane,
                    c.before,
                    f32::from_bits(c.before),
                    c.after,
                    f32::from_bits(c.after)
                )?;
                writeln!(f, "  computed before {}:\n{}", self.step, self.ir_before.trim_end())?;
                write!(f, "  computed after {}:\n{}", self.step, self.ir_after.trim_end())
            }
            None => write!(f, "  first differing output line: {}", self.difference),
        }
    }
}
