//! `tgsi-opt run` and `tgsi-opt bench`: execute a shader for every
//! invocation of a state, and print its outputs or how fast it ran.

use std::time::Instant;

use crate::cli::{BackendArg, BenchArgs, RunArgs, RunCommandArgs, WordFormat};
use crate::commands::opt::{build, run_pipeline};
use crate::diagnostics::Failure;
use crate::files::{read_state, write_output, Input};

/// The shader's IR, the state and the options a run needs.
struct Prepared {
    input: Input,
    module: ir::Module,
    instructions: usize,
    state: exec::State,
    options: exec::RunOptions,
    backend: exec::Backend,
}

fn prepare(args: &RunArgs) -> Result<Prepared, Failure> {
    let pipeline = args.pipeline.pipeline()?;
    let input = Input::from_arg(Some(&args.file));
    let (mut module, instructions) = build(&input, args.input_format)?;
    // Always verified: a broken pass must not give plausible wrong outputs.
    let options = passes::Options { verify_each: true, ..passes::Options::default() };
    run_pipeline(&pipeline, &mut module, options, &input)?;
    let state = read_state(&args.state)?;
    let options = exec::RunOptions { lanes: args.lanes, threads: args.threads, ..exec::RunOptions::default() };
    Ok(Prepared { input, module, instructions, state, options, backend: BackendArg::tier(args.backend) })
}

impl Prepared {
    fn compile(&self) -> Result<exec::Executable<'_>, Failure> {
        tgsi_opt::compile_cache::executable(&self.module, self.backend).map_err(|source| self.failure(source))
    }

    fn failure(&self, source: exec::ExecError) -> Failure {
        Failure::Exec { what: self.input.describe(), source }
    }
}

/// Runs `run`.
pub fn run(args: &RunCommandArgs) -> Result<(), Failure> {
    let prepared = prepare(&args.run)?;
    let outputs = prepared.compile()?.run(&prepared.state, &prepared.options).map_err(|e| prepared.failure(e))?;
    let text = match args.format {
        // The exchange format, untouched.
        WordFormat::Hex => outputs.write(),
        format => outputs.write().lines().map(|line| readable_line(line, format) + "\n").collect(),
    };
    write_output(args.run.output.as_deref(), text.as_bytes())
}

/// A line of the exchange format with every `0x%08x` word shown as
/// `format` asks; the other fields (indices, lanes, keywords) unchanged.
fn readable_line(line: &str, format: WordFormat) -> String {
    let fields: Vec<String> = line
        .split(' ')
        .map(|field| match word(field) {
            Some(bits) => {
                let value = f32::from_bits(bits);
                match format {
                    WordFormat::Hex => field.to_string(),
                    WordFormat::Float => format!("{value:?}"),
                    WordFormat::Both => format!("{field} ({value:?})"),
                }
            }
            None => field.to_string(),
        })
        .collect();
    fields.join(" ")
}

/// The value of a `0x` word of exactly eight hex digits, as the exchange
/// format writes them.
fn word(field: &str) -> Option<u32> {
    let digits = field.strip_prefix("0x")?;
    if digits.len() != 8 {
        return None;
    }
    u32::from_str_radix(digits, 16).ok()
}

/// The least time `bench` times at once, in seconds.
const MIN_SAMPLE: f64 = 20e-6;

/// Runs `bench`: every invocation of the state `--repeat` times; prints
/// invocations per second, nanoseconds per invocation, and nanoseconds per
/// source instruction per invocation, then the tier that ran, how long
/// compiling for it took (apart from the runs), and how long compiling it
/// again took with the code in the process's cache.
pub fn bench(args: &BenchArgs) -> Result<(), Failure> {
    let prepared = prepare(&args.run)?;
    let compile_start = Instant::now();
    let executable = prepared.compile()?;
    let compile_seconds = compile_start.elapsed().as_secs_f64();
    // Compiled again, as a caller running the shader again would: the
    // program is built, its native code found in the process's cache.
    let cached_start = Instant::now();
    drop(prepared.compile()?);
    let cached_seconds = cached_start.elapsed().as_secs_f64();
    // The runs share one output table and the state's layout, as a driver
    // drawing again with the same shader and state would: a run then pays
    // for neither fresh memory nor looking up its constants and inputs.
    let on_state = executable.prepare(&prepared.state).map_err(|e| prepared.failure(e))?;
    let mut outputs = exec::Outputs::new(0, []);
    let mut run = || on_state.run_into(&prepared.options, &mut outputs).map_err(|e| prepared.failure(e));
    // One untimed run: errors surface before timing, caches are warm.
    run()?;
    // Runs are timed in groups of at least `MIN_SAMPLE`: reading the clock
    // costs tens of nanoseconds, as much as a whole run of a few lanes.
    // The group is as many runs as the first `MIN_SAMPLE` holds (untimed).
    let calibration = Instant::now();
    let mut group = 0u32;
    while group < args.repeat && calibration.elapsed().as_secs_f64() < MIN_SAMPLE {
        run()?;
        group += 1;
    }
    let group = group.max(1);
    let start = Instant::now();
    // The fastest and the median run too: on a shared machine the mean
    // drifts with what else runs, those two much less.
    let mut runs = Vec::new();
    let mut left = args.repeat;
    while left > 0 {
        let n = group.min(left);
        let sample_start = Instant::now();
        for _ in 0..n {
            std::hint::black_box(run()?);
        }
        runs.push(sample_start.elapsed().as_secs_f64() / n as f64);
        left -= n;
    }
    let seconds = start.elapsed().as_secs_f64();
    runs.sort_by(f64::total_cmp);
    let fastest = runs.first().copied().unwrap_or(0.0);
    let median = match runs.len() {
        0 => 0.0,
        n if n % 2 == 1 => runs[n / 2],
        n => (runs[n / 2 - 1] + runs[n / 2]) / 2.0,
    };
    let run_invocations = (prepared.state.invocations() as f64).max(1.0);
    let invocations = args.repeat as f64 * prepared.state.invocations() as f64;
    let ns_per_invocation = seconds * 1e9 / invocations.max(1.0);
    let report = format!(
        "invocations_per_second {:.0}\nns_per_invocation {:.2}\nns_per_instruction {:.3}\n\
         fastest_ns_per_invocation {:.2}\nmedian_ns_per_invocation {:.2}\nbackend {}\ncompile_us {:.0}\n\
         compile_cached_us {:.0}\n",
        invocations / seconds.max(f64::MIN_POSITIVE),
        ns_per_invocation,
        ns_per_invocation / prepared.instructions.max(1) as f64,
        fastest * 1e9 / run_invocations,
        median * 1e9 / run_invocations,
        executable.backend(),
        compile_seconds * 1e6,
        cached_seconds * 1e6,
    );
    write_output(args.run.output.as_deref(), report.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_read_as_floats() {
        let line = "output 0 3 0x3f800000 0xbf000000 0x7f800000 0x00000000";
        assert_eq!(readable_line(line, WordFormat::Hex), line);
        assert_eq!(readable_line(line, WordFormat::Float), "output 0 3 1.0 -0.5 inf 0.0");
        assert_eq!(
            readable_line(line, WordFormat::Both),
            "output 0 3 0x3f800000 (1.0) 0xbf000000 (-0.5) 0x7f800000 (inf) 0x00000000 (0.0)"
        );
        assert_eq!(readable_line("bufdata 0 16 0x7fc00000", WordFormat::Float), "bufdata 0 16 NaN");
        // Indices and lanes are never words, even when they look like one.
        assert_eq!(readable_line("kill 12", WordFormat::Float), "kill 12");
        assert_eq!(readable_line("output 0x1 2 0x40000000", WordFormat::Float), "output 0x1 2 2.0");
    }
}
