//! The pass manager: runs a [`Pipeline`] with verification, printing,
//! timing and statistics.

use std::fmt::Write as _;
use std::time::{Duration, Instant};

use crate::{Pass, Pipeline, Stats};

/// How printed modules are written.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum PrintFormat {
    /// The IR's text form ([`ir::print::print_module`]).
    #[default]
    Ir,
    /// TGSI text emitted from the IR ([`ir::to_tgsi()`], exact style).
    Tgsi,
}

impl PrintFormat {
    /// `module` in this format. A module that cannot be emitted as TGSI
    /// prints the emission error instead (printing never fails a run).
    pub fn render(self, module: &ir::Module) -> String {
        match self {
            PrintFormat::Ir => ir::print::print_module(module),
            PrintFormat::Tgsi => match ir::to_tgsi(module) {
                Ok(shader) => tgsi::print(&shader, tgsi::Style::Exact),
                Err(e) => format!("; {e}\n"),
            },
        }
    }
}

/// Which modules to print, around which passes.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PrintOptions {
    /// Print the module before every run of these passes.
    pub before: Vec<String>,
    /// Print the module after every run of these passes.
    pub after: Vec<String>,
    /// Print the module after every pass.
    pub after_all: bool,
    /// How to print it.
    pub format: PrintFormat,
}

impl PrintOptions {
    fn any(&self) -> bool {
        self.after_all || !self.before.is_empty() || !self.after.is_empty()
    }
}

/// How the manager runs a pipeline.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Options {
    /// Run [`ir::verify::verify`] after every pass; a failure stops the
    /// run with [`RunError::Verify`] naming the pass.
    pub verify_each: bool,
    /// What to print, handed to the print hook.
    pub print: PrintOptions,
    /// After a pass that changed the module, drop what it took out of the
    /// blocks ([`ir::Function::compact`]) once that is over a quarter of
    /// the instruction arena: the next passes then walk dense arenas in
    /// order instead of skipping garbage. It renumbers values and
    /// instructions (keeping their order, so nothing ordered by index
    /// changes), so it is for callers that do not show the IR between
    /// passes or after them.
    pub compact: bool,
}

/// A pass broke the IR.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RunError {
    /// The verifier rejected the module after a pass.
    #[error("the IR is invalid after pass `{pass}`: {source}")]
    Verify {
        /// The pass that ran last.
        pass: &'static str,
        /// What the verifier found.
        source: ir::verify::VerifyError,
    },
}

/// One run of one pass.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PassRun {
    /// The pass.
    pub pass: &'static str,
    /// The iteration of the pipeline it ran in (from 1).
    pub iteration: usize,
    /// How long the pass took (verification and printing excluded).
    pub time: Duration,
    /// Whether it changed the module.
    pub changed: bool,
    /// Its counters.
    pub stats: Stats,
}

/// The time spent in one pass over all its runs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Timing {
    /// The pass.
    pub pass: &'static str,
    /// How many times it ran.
    pub runs: usize,
    /// The total time.
    pub time: Duration,
}

/// What a pipeline run did: every pass run, in order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Report {
    /// Every run of every pass, in order.
    pub runs: Vec<PassRun>,
    /// How many times the pipeline's sequence ran.
    pub iterations: usize,
}

impl Report {
    /// Whether any pass changed the module.
    pub fn changed(&self) -> bool {
        self.runs.iter().any(|r| r.changed)
    }

    /// Total time per pass, in the order passes first ran.
    pub fn timings(&self) -> Vec<Timing> {
        let mut out: Vec<Timing> = Vec::new();
        for r in &self.runs {
            match out.iter_mut().find(|t| t.pass == r.pass) {
                Some(t) => {
                    t.runs += 1;
                    t.time += r.time;
                }
                None => out.push(Timing { pass: r.pass, runs: 1, time: r.time }),
            }
        }
        out
    }

    /// Counters summed per pass, in the order passes first ran.
    pub fn stats(&self) -> Vec<(&'static str, Stats)> {
        let mut out: Vec<(&'static str, Stats)> = Vec::new();
        for r in &self.runs {
            match out.iter_mut().find(|(p, _)| *p == r.pass) {
                Some((_, s)) => s.merge(&r.stats),
                None => out.push((r.pass, r.stats.clone())),
            }
        }
        out
    }

    /// The `--time-passes` table: pass, runs, time in milliseconds and
    /// share of the total, then the total.
    pub fn time_table(&self) -> String {
        let timings = self.timings();
        let total: Duration = timings.iter().map(|t| t.time).sum();
        let width = timings.iter().map(|t| t.pass.len()).max().unwrap_or(0).max("total".len()).max("pass".len());
        let mut s = format!("{:<width$}  {:>4}  {:>10}  {:>6}\n", "pass", "runs", "time (ms)", "share");
        for t in &timings {
            let share = if total.is_zero() { 0.0 } else { 100.0 * t.time.as_secs_f64() / total.as_secs_f64() };
            let _ = writeln!(s, "{:<width$}  {:>4}  {:>10.3}  {:>5.1}%", t.pass, t.runs, ms(t.time), share);
        }
        let runs: usize = timings.iter().map(|t| t.runs).sum();
        let _ = writeln!(s, "{:<width$}  {:>4}  {:>10.3}  {:>5.1}%", "total", runs, ms(total), 100.0);
        s
    }

    /// The `--stats` text, as LLVM prints it: one aligned table of the
    /// non-zero counters summed per pass (`   8  dce  - values removed`),
    /// passes in the order they first ran. Zero counters would bury the
    /// few that say what happened; when every counter is zero, one line
    /// says so instead.
    ///
    /// ```
    /// use passes::{PassRun, Report, Stats};
    /// let mut stats = Stats::default();
    /// stats.add("values removed", 12);
    /// stats.add("phis removed", 0);
    /// let run = PassRun { pass: "dce", iteration: 1, time: Default::default(), changed: true, stats };
    /// let report = Report { runs: vec![run], iterations: 1 };
    /// assert_eq!(report.stats_text(), "  12  dce  - values removed\n");
    /// ```
    pub fn stats_text(&self) -> String {
        let rows: Vec<(u64, &'static str, &'static str)> = self
            .stats()
            .into_iter()
            .flat_map(|(pass, stats)| {
                stats.iter().filter(|&(_, n)| n != 0).map(move |(name, n)| (n, pass, name)).collect::<Vec<_>>()
            })
            .collect();
        if rows.is_empty() {
            return match (self.runs.is_empty(), self.changed()) {
                (true, _) => "no pass ran\n".to_string(),
                (false, false) => "every counter is 0: no pass changed the shader\n".to_string(),
                (false, true) => "every counter is 0\n".to_string(),
            };
        }
        let number = rows.iter().map(|(n, _, _)| n.to_string().len()).max().unwrap_or(0).max(4);
        let pass = rows.iter().map(|(_, p, _)| p.len()).max().unwrap_or(0);
        let mut s = String::new();
        for (n, p, name) in rows {
            let _ = writeln!(s, "{n:>number$}  {p:<pass$}  - {name}");
        }
        s
    }
}

/// Whether over a quarter of `func`'s instruction arena is in no block
/// (counting the blocks' lists only, not the instructions).
fn mostly_garbage(func: &ir::Function) -> bool {
    let placed: usize = ir::walk::blocks(&func.body).filter_map(|b| func.blocks.get(b)).map(|b| b.insts.len()).sum();
    placed < func.insts.len() - func.insts.len() / 4
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// Runs pipelines.
///
/// ```
/// use passes::{Options, PassManager, Pipeline, PrintFormat, PrintOptions};
/// let text = "VERT\nDCL IN[0]\nDCL OUT[0], POSITION\nDCL CONST[0]\nMUL OUT[0], IN[0], CONST[0]\nEND\n";
/// let mut module = ir::from_tgsi(&tgsi::parse(text).unwrap()).unwrap();
/// let print = PrintOptions { after_all: true, format: PrintFormat::Tgsi, ..Default::default() };
/// let mut printed = String::new();
/// let report = PassManager::new(Options { verify_each: true, print, ..Default::default() })
///     .on_print(|text| printed.push_str(text))
///     .run(&Pipeline::o1(), &mut module)
///     .unwrap();
/// assert!(!report.changed());
/// assert!(printed.starts_with("; *** after constfold (iteration 1) ***\nVERT\n"));
/// assert!(printed.contains("; *** after dce (iteration 1) ***\nVERT\n"));
/// ```
pub struct PassManager<'h> {
    options: Options,
    printer: Option<PrintHook<'h>>,
}

/// Receives printed modules.
type PrintHook<'h> = Box<dyn FnMut(&str) + 'h>;

impl<'h> PassManager<'h> {
    /// A manager with these options and no print hook.
    pub fn new(options: Options) -> Self {
        PassManager { options, printer: None }
    }

    /// Sets the hook that receives printed modules (each with a header
    /// line `; *** before|after PASS (iteration N) ***`). Without a hook
    /// nothing is printed.
    pub fn on_print(mut self, hook: impl FnMut(&str) + 'h) -> Self {
        self.printer = Some(Box::new(hook));
        self
    }

    /// Runs `pipeline` over `module`: each pass in order, the sequence
    /// again while some pass changes something (up to the pipeline's
    /// iteration cap). An iterated pipeline stops as soon as every one of
    /// its passes has run on the module as it is now and changed nothing
    /// (the fixed point), and skips a pass that already did: run again on
    /// the same module it would change nothing again.
    pub fn run(&mut self, pipeline: &Pipeline, module: &mut ir::Module) -> Result<Report, RunError> {
        let mut report = Report::default();
        let iterated = pipeline.max_iterations() > 1;
        let mut distinct: Vec<&str> = pipeline.passes().map(|p| p.name()).collect();
        distinct.sort_unstable();
        distinct.dedup();
        // The passes that ran on the module as it is and changed nothing.
        let mut settled: Vec<&str> = Vec::new();
        'rounds: for iteration in 1..=pipeline.max_iterations() {
            report.iterations = iteration;
            let mut changed = false;
            for pass in pipeline.passes() {
                let name = pass.name();
                if iterated && settled.contains(&name) {
                    continue;
                }
                if self.run_one(pass, iteration, module, &mut report)? {
                    changed = true;
                    settled.clear();
                } else {
                    settled.push(name);
                    if iterated && settled.len() == distinct.len() {
                        break 'rounds;
                    }
                }
            }
            if !changed {
                break;
            }
        }
        Ok(report)
    }

    fn run_one(
        &mut self,
        pass: &dyn Pass,
        iteration: usize,
        module: &mut ir::Module,
        report: &mut Report,
    ) -> Result<bool, RunError> {
        let name = pass.name();
        if self.options.print.before.iter().any(|p| p == name) {
            self.print("before", name, iteration, module);
        }
        let start = Instant::now();
        let result = pass.run(module);
        if result.changed && self.options.compact && mostly_garbage(&module.function) {
            module.function.compact();
        }
        let time = start.elapsed();
        if self.options.verify_each {
            ir::verify::verify(&module.function).map_err(|source| RunError::Verify { pass: name, source })?;
        }
        let print = &self.options.print;
        if print.after_all || print.after.iter().any(|p| p == name) {
            self.print("after", name, iteration, module);
        }
        report.runs.push(PassRun { pass: name, iteration, time, changed: result.changed, stats: result.stats });
        Ok(result.changed)
    }

    fn print(&mut self, when: &str, pass: &str, iteration: usize, module: &ir::Module) {
        if !self.options.print.any() {
            return;
        }
        let format = self.options.print.format;
        if let Some(hook) = self.printer.as_mut() {
            let mut text = format!("; *** {when} {pass} (iteration {iteration}) ***\n");
            text.push_str(&format.render(module));
            hook(&text);
        }
    }
}

#[cfg(test)]
mod stats_text_tests {
    use super::*;

    fn run(pass: &'static str, changed: bool, counters: &[(&'static str, u64)]) -> PassRun {
        let mut stats = Stats::default();
        for &(name, n) in counters {
            stats.add(name, n);
        }
        PassRun { pass, iteration: 1, time: Duration::ZERO, changed, stats }
    }

    #[test]
    fn only_non_zero_counters_in_one_aligned_table() {
        let report = Report {
            runs: vec![
                run("constfold", true, &[("ops folded", 3), ("copies propagated", 0)]),
                run("dce", true, &[("values removed", 12), ("phis removed", 0)]),
                run("constfold", false, &[("ops folded", 0), ("copies propagated", 0)]),
                run("dce", true, &[("values removed", 1000), ("phis removed", 2)]),
            ],
            iterations: 2,
        };
        assert_eq!(
            report.stats_text(),
            "   3  constfold  - ops folded\n\
             1012  dce        - values removed\n\
             \x20  2  dce        - phis removed\n"
        );
    }

    #[test]
    fn nothing_changed_is_one_line() {
        let report = Report { runs: vec![run("dce", false, &[("values removed", 0)])], iterations: 1 };
        assert_eq!(report.stats_text(), "every counter is 0: no pass changed the shader\n");
        assert_eq!(Report::default().stats_text(), "no pass ran\n");
    }
}
