//! Differential testing of the passes: every registered pass alone, and
//! `-O1`, must leave the results of random programs on random states
//! bit for bit unchanged (NaN payloads aside), and so must the TGSI
//! emitted after them, read back and run again. Each program also runs
//! on both execution tiers (the JIT and the interpreter), which must
//! agree (a finding of pipeline `tiers`).
//!
//! Where each stage runs, for speed (compiling with the JIT costs far
//! more than running these small programs on the interpreter): the
//! program itself on both tiers; each pipeline's IR on the interpreter
//! (the baseline it is compared with is the same on both tiers, so a pass
//! that changes the results differs there as well); the TGSI emitted after
//! each pipeline, what a driver would compile, on the default tier (the
//! JIT where there is one). Every distinct program is compiled once per
//! check ([`exec::CompileCache`]): most pipelines leave most programs as
//! they were, and equal IR emits equal TGSI.
//!
//! [`check_seed`] does it for the program [`random_program::program`]
//! writes from one seed; `tests/differential.rs` runs it over a few hundred
//! seeds and `tgsi-opt fuzz-passes` over as many as asked, in parallel.
//! Each problem is a [`Finding`] that carries everything needed to
//! reproduce it: the seed, the program, the state and the pipeline.
//! [`check_program_with`] checks any program under chosen pipelines, and
//! [`check_emission`] the round trip through emission alone (what the IR
//! snapshot tests run on their inputs).

use std::fmt;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};

use crate::random_program;

/// How many random states each program runs on.
pub const STATES: u64 = 2;

/// How many distinct programs' code one program's check keeps: more than
/// its stages (the baseline, and each pipeline's IR and emitted TGSI).
const CACHED_PROGRAMS: usize = 64;

/// What went wrong.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FindingKind {
    /// A pipeline changed the results.
    Difference,
    /// The verifier rejected the IR after a pass (or the re-emitted IR).
    Verify,
    /// Something failed that must not: the generated program did not
    /// parse, build or run, a pass panicked, emission failed, or the
    /// emitted text did not parse or build or run.
    Error,
}

impl fmt::Display for FindingKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            FindingKind::Difference => "difference",
            FindingKind::Verify => "verifier failure",
            FindingKind::Error => "error",
        })
    }
}

/// One problem, with what reproduces it.
#[derive(Clone, Debug)]
pub struct Finding {
    /// What kind of problem.
    pub kind: FindingKind,
    /// The generator seed.
    pub seed: u64,
    /// The pipeline: `-O0` (emission only), a pass name, or `-O1`; or
    /// `generator` for a program that failed before any pass ran.
    pub pipeline: String,
    /// Where: `the pass's IR`, `re-emitted TGSI`, ...
    pub stage: &'static str,
    /// The first differing line of the results, or the error message.
    pub detail: String,
    /// The program's text.
    pub program: String,
    /// The state it ran on, when one was involved.
    pub state: Option<String>,
    /// The TGSI emitted after the pipeline, when there was one.
    pub emitted: Option<String>,
    /// For a difference: which pass (or emission) changed which value, and
    /// the IR computing it before and after ([`crate::check`], what
    /// `tgsi-opt check` prints).
    pub culprit: Option<String>,
}

impl Finding {
    /// The `tgsi-opt` flags that select this finding's pipeline.
    pub fn pipeline_flags(&self) -> String {
        match self.pipeline.as_str() {
            "-O0" | "-O1" => self.pipeline.clone(),
            "generator" => String::new(),
            // "legalize-doubles --target=T": the pass and its target.
            name => format!("--passes={name}"),
        }
    }

    /// Writes the program, the state, the emitted TGSI and a report into
    /// a new directory under `dir`, named after the seed and pipeline;
    /// returns the directory.
    pub fn write_to(&self, dir: &Path) -> std::io::Result<PathBuf> {
        let name: String = self.pipeline.chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '_' }).collect();
        let case = dir.join(format!("seed-{}-{name}", self.seed));
        std::fs::create_dir_all(&case)?;
        std::fs::write(case.join("program.tgsi"), &self.program)?;
        if let Some(state) = &self.state {
            std::fs::write(case.join("input.state"), state)?;
        }
        if let Some(emitted) = &self.emitted {
            std::fs::write(case.join("emitted.tgsi"), emitted)?;
        }
        std::fs::write(case.join("report.txt"), self.to_string())?;
        Ok(case)
    }
}

impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "{} for seed {} with {} ({}): {}", self.kind, self.seed, self.pipeline, self.stage, self.detail)?;
        if self.state.is_some() {
            writeln!(
                f,
                "reproduce: tgsi-opt run program.tgsi --state input.state {} and compare with no passes",
                self.pipeline_flags()
            )?;
        }
        writeln!(f, "--- program (seed {}) ---\n{}", self.seed, self.program.trim_end())?;
        if let Some(state) = &self.state {
            writeln!(f, "--- state ---\n{}", state.trim_end())?;
        }
        if let Some(emitted) = &self.emitted {
            writeln!(f, "--- emitted after {} ---\n{}", self.pipeline, emitted.trim_end())?;
        }
        if let Some(culprit) = &self.culprit {
            writeln!(f, "--- the step that changed the results ---\n{}", culprit.trim_end())?;
        }
        Ok(())
    }
}

/// What checking one seed found.
#[derive(Clone, Debug, Default)]
pub struct SeedReport {
    /// Pipelines run over the program (each on every state, and its
    /// emitted TGSI too).
    pub pass_runs: usize,
    /// The problems, at most one per pipeline.
    pub findings: Vec<Finding>,
    /// The pipelines of [`SIZE_CHECKED`] whose emitted TGSI has more
    /// instructions or TEMP registers than the program: reported, not a
    /// finding (emission does not guarantee it yet; see docs/testing.md).
    pub larger: Vec<String>,
}

/// The pipelines whose output [`SeedReport::larger`] compares with the
/// program: the round trip through emission and `-O1`.
pub const SIZE_CHECKED: [&str; 2] = ["-O0", "-O1"];

/// The pipelines checked: `-O0` (the round trip through emission alone),
/// every registered pass alone (`legalize-doubles` once per target, named
/// `legalize-doubles --target=T`), `-O1`, and `-O1 --target=nvc0`.
pub fn pipelines() -> Vec<(String, passes::Pipeline)> {
    let mut list = vec![("-O0".to_string(), passes::Pipeline::o0())];
    for pass in passes::registry() {
        if let Ok(p) = passes::Pipeline::named(&[pass.name()]) {
            list.push((pass.name().to_string(), p));
        } else {
            for preset in passes::legalize_doubles::presets() {
                let config = passes::Config { target: Some(preset.target()), ..passes::Config::default() };
                if let Ok(p) = passes::Pipeline::named_with(&[pass.name()], &config) {
                    list.push((format!("{} --target={}", pass.name(), preset.name), p));
                }
            }
        }
    }
    list.push(("-O1".to_string(), passes::Pipeline::o1()));
    // nouveau's tuning: selects of copies only, stores moved up.
    let nvc0 = passes::Config { target: target::Target::preset("nvc0"), ..passes::Config::default() };
    list.push(("-O1 --target=nvc0".to_string(), passes::Pipeline::o1_with(&nvc0)));
    list
}

/// The target float-only programs are checked for: no integers, every
/// other capability, and every tuning of the presets (so the stores,
/// selects, texture writes and emission of each driver's `-O` meet
/// random programs).
pub fn float_target() -> target::Target {
    let mut t = target::Target::parse("INTEGERS=0").expect("a valid list");
    t.tuning = target::Tuning {
        whole_texture_writes: true,
        outputs_through_temps: true,
        early_output_stores: true,
        predicated_branches: true,
        source_channels: true,
        zeros_from_temps: true,
    };
    t
}

/// The pipelines a float-only program ([`random_program::float_program`])
/// is checked under, for [`float_target`]: `select` alone and `-O1`
/// (named `select --caps=INTEGERS=0`, `-O1 --caps=INTEGERS=0`).
pub fn float_pipelines() -> Vec<(String, passes::Pipeline)> {
    let config = passes::Config { target: Some(float_target()), ..passes::Config::default() };
    let select = passes::Pipeline::named_with(&["select"], &config).expect("select takes any target");
    vec![
        ("select --caps=INTEGERS=0".to_string(), select),
        ("-O1 --caps=INTEGERS=0".to_string(), passes::Pipeline::o1_with(&config)),
    ]
}

/// Checks the float-only program of `seed` on [`STATES`] random states
/// under [`float_pipelines`]; the TGSI emitted after each must need
/// nothing of [`float_target`] that the program did not (a finding of
/// stage `target`).
pub fn check_float_seed(seed: u64) -> SeedReport {
    let program = random_program::float_program(seed);
    let states: Vec<String> = (0..STATES).map(|i| random_program::state(&program, i)).collect();
    check_program_for(seed, &program.text, &states, &float_pipelines(), Some(&float_target()))
}

/// How the runs go: one thread (callers run seeds in parallel), and a
/// step budget small enough that a pass that makes a loop endless fails
/// fast (generated loops run at most 8 times each).
fn run_options() -> exec::RunOptions {
    exec::RunOptions { lanes: 16, step_budget: 2_000_000, threads: 1 }
}

/// Checks the program of `seed` on [`STATES`] random states under every
/// pipeline of [`pipelines`].
pub fn check_seed(seed: u64) -> SeedReport {
    let program = random_program::program(seed);
    let states: Vec<String> = (0..STATES).map(|i| random_program::state(&program, i)).collect();
    check_program(seed, &program.text, &states)
}

/// Checks `text` on `states` under every pipeline of [`pipelines`]; `seed`
/// only labels the findings.
pub fn check_program(seed: u64, text: &str, states: &[String]) -> SeedReport {
    check_program_with(seed, text, states, &pipelines())
}

/// Checks emission alone: `text` and the TGSI emitted from its IR, read
/// back, must compute the same on `states` (the `-O0` pipeline of
/// [`pipelines`]); `seed` only labels the findings.
pub fn check_emission(seed: u64, text: &str, states: &[String]) -> SeedReport {
    check_program_with(seed, text, states, &[("-O0".to_string(), passes::Pipeline::o0())])
}

/// Checks `text` on `states` under each of `pipelines` (a name, as
/// findings give it, and the pipeline); `seed` only labels the findings.
/// The program must parse, build, verify and run on every state; each
/// pipeline's IR and the TGSI emitted from it must then give the same
/// results.
pub fn check_program_with(
    seed: u64,
    text: &str,
    states: &[String],
    pipelines: &[(String, passes::Pipeline)],
) -> SeedReport {
    check_program_for(seed, text, states, pipelines, None)
}

/// [`check_program_with`], and with a target the TGSI emitted after each
/// pipeline must need nothing the target lacks that the program did not
/// ([`target::introduced`]).
pub fn check_program_for(
    seed: u64,
    text: &str,
    states: &[String],
    pipelines: &[(String, passes::Pipeline)],
    target: Option<&target::Target>,
) -> SeedReport {
    let mut report = SeedReport::default();
    let finding =
        |kind, pipeline: &str, stage, detail: String, state: Option<&String>, emitted: Option<String>| Finding {
            kind,
            seed,
            pipeline: pipeline.to_string(),
            stage,
            detail,
            program: text.to_string(),
            state: state.cloned(),
            emitted,
            culprit: None,
        };
    let generator = |stage, detail: String, state: Option<&String>| {
        finding(FindingKind::Error, "generator", stage, detail, state, None)
    };
    let shader = match tgsi::parse(text) {
        Ok(shader) => shader,
        Err(e) => {
            report.findings.push(generator("parsing", e.render(text, "<program>"), None));
            return report;
        }
    };
    let program_size = (shader.instruction_count(), shader.temp_registers());
    let target = target.map(|t| (t, target::check(&shader, t)));
    let module = match ir::from_tgsi(&shader) {
        Ok(module) => module,
        Err(e) => {
            report.findings.push(generator("IR construction", e.to_string(), None));
            return report;
        }
    };
    if let Err(e) = ir::verify::verify(&module.function) {
        report.findings.push(finding(FindingKind::Verify, "generator", "IR construction", e.to_string(), None, None));
        return report;
    }
    // Most pipelines leave most programs as they were, and the TGSI
    // emitted from equal IR is equal: each distinct program is compiled
    // once.
    let cache = exec::CompileCache::new(CACHED_PROGRAMS);
    let executable = match cache.compile(&module, exec::Backend::default()) {
        Ok(e) => e,
        Err(e) => {
            report.findings.push(generator("unoptimized run", e.to_string(), states.first()));
            return report;
        }
    };
    let (parsed, baseline) = match baseline_runs(&executable, states) {
        Ok(runs) => runs,
        Err((stage, detail, state)) => {
            report.findings.push(generator(stage, detail, Some(state)));
            return report;
        }
    };
    if let Some(detail) = compare_tiers(&module, &parsed, &baseline) {
        report.findings.push(finding(FindingKind::Difference, "tiers", "JIT vs interpreter", detail, None, None));
    }
    // Emitted as for the target, with its tuning.
    let emit = passes::emit_options(target.as_ref().map(|(t, _)| *t), module.processor, true);
    for (name, pipeline) in pipelines {
        report.pass_runs += 1;
        let mut reread = None;
        let check = catch_unwind(AssertUnwindSafe(|| {
            check_pipeline(&module, pipeline, &emit, &parsed, &baseline, &cache, &mut reread)
        }));
        let size = reread.as_ref().map(|s: &tgsi::Shader| (s.instruction_count(), s.temp_registers()));
        if let Some((instructions, temps)) = size.filter(|_| SIZE_CHECKED.contains(&name.as_str())) {
            if instructions > program_size.0 || temps > program_size.1 {
                report.larger.push(name.clone());
            }
        }
        let check = check.map(|problem| {
            problem.or_else(|| {
                target.as_ref().zip(reread.as_ref()).and_then(|((t, before), after)| outside(t, before, after))
            })
        });
        let problem = match check {
            Ok(problem) => problem,
            Err(panic) => Some(Problem {
                kind: FindingKind::Error,
                stage: "panic",
                detail: panic_message(panic.as_ref()),
                state: None,
                emitted: None,
            }),
        };
        if let Some(p) = problem {
            let culprit = match (p.kind, p.state) {
                (FindingKind::Difference, Some(i)) => {
                    let passes: Vec<&dyn passes::Pass> = pipeline.passes().collect();
                    culprit(&module, &passes, pipeline.max_iterations(), &parsed[i])
                }
                _ => None,
            };
            let mut f = finding(p.kind, name, p.stage, p.detail, p.state.map(|i| &states[i]), p.emitted);
            f.culprit = culprit;
            report.findings.push(f);
        }
    }
    report
}

/// Where running a program first failed: the stage, the error, the state.
type Failed<'s> = (&'static str, String, &'s String);

/// `states` parsed, and what `executable` (the program before any pass)
/// computes on each; or where that failed: the stage, the error and the
/// state.
fn baseline_runs<'s>(
    executable: &exec::Executable<'_>,
    states: &'s [String],
) -> Result<(Vec<exec::State>, Vec<exec::Outputs>), Failed<'s>> {
    let mut parsed = Vec::new();
    let mut baseline = Vec::new();
    for state in states {
        let s = exec::State::parse(state).map_err(|e| ("state", e.to_string(), state))?;
        let out = executable.run(&s, &run_options()).map_err(|e| ("unoptimized run", e.to_string(), state))?;
        baseline.push(out);
        parsed.push(s);
    }
    Ok((parsed, baseline))
}

/// What a caught panic said, when it said it as text.
fn panic_message(panic: &(dyn std::any::Any + Send)) -> String {
    panic
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_default()
}

/// The pass of `passes` (run as a pipeline of `max_iterations` rounds), or
/// emission, after which `module`'s results on `state` first change, as
/// [`crate::check::check`] reports it; `None` when none does.
pub fn culprit(
    module: &ir::Module,
    passes: &[&dyn passes::Pass],
    max_iterations: usize,
    state: &exec::State,
) -> Option<String> {
    let states = std::slice::from_ref(state);
    let budget = run_options().step_budget;
    match crate::check::check_with_budget(module, passes, max_iterations, states, budget, exec::Backend::default()) {
        Ok(crate::check::Verdict::Changed(culprit)) => Some(culprit.to_string()),
        _ => None,
    }
}

/// One pipeline's first problem, before it is labelled.
struct Problem {
    kind: FindingKind,
    stage: &'static str,
    detail: String,
    /// Which state.
    state: Option<usize>,
    emitted: Option<String>,
}

/// What `after`, the TGSI emitted after a pipeline, needs that `target`
/// lacks and the program (whose findings are `before`) did not.
fn outside(target: &target::Target, before: &[target::Finding], after: &tgsi::Shader) -> Option<Problem> {
    let new = target::introduced(before, target::check(after, target));
    let first = new.first()?;
    let printed = tgsi::print(after, tgsi::Style::Exact);
    let line = first.item.and_then(|k| tgsi::print::item_line(&printed, k)).unwrap_or("");
    let detail = format!("the emitted TGSI needs what target `{}` lacks: {} (`{line}`)", target.name(), first.lack);
    Some(Problem { kind: FindingKind::Error, stage: "target", detail, state: None, emitted: Some(printed) })
}

/// Runs `pipeline` on a copy of `module` with verification after every
/// pass, runs the result and its emitted TGSI on every state, and returns
/// the first problem. `reread` receives the emitted TGSI, parsed.
fn check_pipeline(
    module: &ir::Module,
    pipeline: &passes::Pipeline,
    emit: &ir::EmitOptions,
    states: &[exec::State],
    baseline: &[exec::Outputs],
    cache: &exec::CompileCache,
    reread: &mut Option<tgsi::Shader>,
) -> Option<Problem> {
    let problem = |kind, stage, detail: String, state, emitted| Some(Problem { kind, stage, detail, state, emitted });
    let mut optimized = module.clone();
    let mut manager = passes::PassManager::new(passes::Options { verify_each: true, ..passes::Options::default() });
    if let Err(e) = manager.run(pipeline, &mut optimized) {
        return problem(FindingKind::Verify, "after the pass", e.to_string(), None, None);
    }
    let emitted = match ir::to_tgsi_with(&optimized, emit) {
        Ok(shader) => tgsi::print(&shader, tgsi::Style::Exact),
        Err(e) => return problem(FindingKind::Error, "emission", e.to_string(), None, None),
    };
    if let Some(p) = compare_runs(&optimized, "the pass's IR", states, baseline, &emitted, Tier::Interpreter) {
        return Some(p);
    }
    let shader = match tgsi::parse(&emitted) {
        Ok(shader) => shader,
        Err(e) => {
            let detail = e.render(&emitted, "<emitted>");
            return problem(FindingKind::Error, "re-parsing emitted TGSI", detail, None, Some(emitted));
        }
    };
    let built = ir::from_tgsi(&shader);
    *reread = Some(shader);
    let rebuilt = match built {
        Ok(m) => m,
        Err(e) => return problem(FindingKind::Error, "building emitted TGSI", e.to_string(), None, Some(emitted)),
    };
    if let Err(e) = ir::verify::verify(&rebuilt.function) {
        return problem(FindingKind::Verify, "building emitted TGSI", e.to_string(), None, Some(emitted));
    }
    compare_runs(&rebuilt, "re-emitted TGSI", states, baseline, &emitted, Tier::Default(cache))
}

/// Which tier runs a stage of a pipeline.
#[derive(Clone, Copy)]
enum Tier<'c> {
    /// The interpreter, which compiles nothing native.
    Interpreter,
    /// The default tier (the JIT where there is one), through the check's
    /// cache of compiled programs.
    Default(&'c exec::CompileCache),
}

/// Runs `module` on `tier` on every state and compares with `baseline`.
fn compare_runs(
    module: &ir::Module,
    stage: &'static str,
    states: &[exec::State],
    baseline: &[exec::Outputs],
    emitted: &str,
    tier: Tier<'_>,
) -> Option<Problem> {
    let compiled = match tier {
        Tier::Interpreter => exec::Executable::compile_with(module, exec::Backend::Interpreter),
        Tier::Default(cache) => cache.compile(module, exec::Backend::default()),
    };
    let executable = match compiled {
        Ok(e) => e,
        Err(e) => {
            let detail = format!("it does not compile: {e}");
            return Some(Problem {
                kind: FindingKind::Error,
                stage,
                detail,
                state: None,
                emitted: Some(emitted.to_string()),
            });
        }
    };
    for (i, (state, want)) in states.iter().zip(baseline).enumerate() {
        let (kind, detail) = match executable.run(state, &run_options()) {
            Ok(got) => match want.first_difference(&got) {
                None => continue,
                Some(d) => {
                    (FindingKind::Difference, format!("state {i}, first differing output {d} (before vs after)"))
                }
            },
            Err(e) => (FindingKind::Error, format!("state {i}: run failed: {e}")),
        };
        return Some(Problem { kind, stage, detail, state: Some(i), emitted: Some(emitted.to_string()) });
    }
    None
}

/// Where the default tier is not the interpreter (the JIT), runs `module`
/// on the interpreter too and says where its results first differ from
/// `baseline` (the default tier's): the tiers must agree bit for bit, NaNs
/// included (every float operation yields one canonical NaN).
fn compare_tiers(module: &ir::Module, states: &[exec::State], baseline: &[exec::Outputs]) -> Option<String> {
    if exec::Backend::default() == exec::Backend::Interpreter {
        return None;
    }
    let interpreter = match exec::Executable::compile_with(module, exec::Backend::Interpreter) {
        Ok(e) => e,
        Err(e) => return Some(format!("the interpreter does not compile it: {e}")),
    };
    for (i, (state, want)) in states.iter().zip(baseline).enumerate() {
        match interpreter.run(state, &run_options()) {
            Ok(got) => {
                if *want != got {
                    let (jit, interp) = (want.write(), got.write());
                    let line = jit.lines().zip(interp.lines()).find(|(a, b)| a != b);
                    let (a, b) = line.unwrap_or(("(a line past the other's end)", ""));
                    return Some(format!("state {i}: the JIT gives `{a}`, the interpreter `{b}`"));
                }
            }
            Err(e) => return Some(format!("state {i}: the interpreter failed: {e}")),
        }
    }
    None
}

/// Totals over many seeds.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Summary {
    /// Programs checked.
    pub programs: u64,
    /// Pipelines run over them.
    pub pass_runs: u64,
    /// Findings of each kind.
    pub differences: u64,
    /// Verifier failures.
    pub verifier_failures: u64,
    /// Errors.
    pub errors: u64,
    /// Programs whose emitted TGSI after each pipeline of
    /// [`SIZE_CHECKED`] is larger than the program, in that order.
    pub larger: [u64; SIZE_CHECKED.len()],
}

impl Summary {
    /// Counts one seed's report.
    pub fn add(&mut self, report: &SeedReport) {
        self.programs += 1;
        self.pass_runs += report.pass_runs as u64;
        for (count, name) in self.larger.iter_mut().zip(SIZE_CHECKED) {
            *count += u64::from(report.larger.iter().any(|l| l == name));
        }
        for f in &report.findings {
            match f.kind {
                FindingKind::Difference => self.differences += 1,
                FindingKind::Verify => self.verifier_failures += 1,
                FindingKind::Error => self.errors += 1,
            }
        }
    }

    /// Whether nothing was found.
    pub fn clean(&self) -> bool {
        self.differences == 0 && self.verifier_failures == 0 && self.errors == 0
    }
}
