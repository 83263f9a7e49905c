//! `tgsi-opt reduce`: shrink a shader while a test command still finds it
//! interesting.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use tgsi_opt::reduce::{self, ReduceError};

use crate::cli::ReduceArgs;
use crate::commands::opt::to_stderr;
use crate::diagnostics::Failure;
use crate::files::{write_output, Input};

/// Runs `reduce`.
pub fn run(args: &ReduceArgs) -> Result<(), Failure> {
    let timeout = match args.timeout {
        Some(s) if !(s.is_finite() && s > 0.0) => {
            return Err(Failure::Usage(format!("--timeout {s}: seconds are a number above 0")))
        }
        other => other.map(Duration::from_secs_f64),
    };
    let input = Input::from_arg(Some(&args.file));
    let text = input.read_text()?;
    let shader =
        tgsi::parse(&text).map_err(|err| Failure::Located { rendered: err.render(&text, &input.file_name()) })?;
    let scratch = Scratch::new()?;
    let test = Tester { command: &args.test, dir: &scratch.0, next: AtomicU64::new(0), timeout };
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(args.jobs)
        .build()
        .map_err(|e| Failure::Usage(format!("cannot start {} jobs: {e}", args.jobs)))?;
    let batch = pool.current_num_threads();
    let start = Instant::now();
    let before = shader.instruction_count();
    let result = pool.install(|| {
        reduce::reduce(
            &shader,
            batch,
            |text| test.run(text),
            |step| {
                to_stderr(&format!(
                    "reduce: {}: {} instructions left ({} tests)\n",
                    step.pass.name(),
                    step.instructions,
                    step.tests
                ));
            },
        )
    });
    let reduction = result.map_err(|err| match err {
        ReduceError::NotInteresting => Failure::Reduce(format!(
            "the test does not find {} interesting: `{} FILE` must exit with status 0 on it",
            input.describe(),
            args.test
        )),
        ReduceError::Invalid(message) => Failure::Reduce(format!("{} does not build: {message}", input.describe())),
        ReduceError::Test(failure) => failure,
    })?;
    to_stderr(&format!(
        "reduce: {before} -> {} instructions, {} edits kept, {} tests, {:.1} s\n",
        reduction.shader.instruction_count(),
        reduction.kept,
        reduction.tests + 1,
        start.elapsed().as_secs_f64()
    ));
    write_output(args.output.as_deref(), reduction.text.as_bytes())
}

/// A directory of candidate files, removed when dropped.
struct Scratch(PathBuf);

impl Scratch {
    fn new() -> Result<Scratch, Failure> {
        let dir = std::env::temp_dir().join(format!("tgsi-opt-reduce-{}", std::process::id()));
        std::fs::create_dir_all(&dir)
            .map_err(|source| Failure::Write { what: format!("`{}`", dir.display()), source })?;
        Ok(Scratch(dir))
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Runs the test command on candidates, each in its own file.
struct Tester<'a> {
    command: &'a str,
    dir: &'a Path,
    next: AtomicU64,
    timeout: Option<Duration>,
}

impl Tester<'_> {
    /// Whether the command exits 0 on `text`.
    fn run(&self, text: &str) -> Result<bool, Failure> {
        let path = self.dir.join(format!("candidate-{}.tgsi", self.next.fetch_add(1, Ordering::Relaxed)));
        write_output(Some(&path), text.as_bytes())?;
        let spawned = Command::new("sh")
            .arg("-c")
            .arg(format!("{} \"$@\"", self.command))
            .arg("tgsi-opt-reduce")
            .arg(&path)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn();
        let mut child = spawned.map_err(|e| Failure::Reduce(format!("cannot run the test `{}`: {e}", self.command)))?;
        let status = match self.timeout {
            None => child.wait().ok(),
            Some(limit) => {
                let start = Instant::now();
                loop {
                    match child.try_wait() {
                        Ok(Some(status)) => break Some(status),
                        Ok(None) if start.elapsed() < limit => std::thread::sleep(Duration::from_millis(2)),
                        _ => {
                            let _ = child.kill();
                            let _ = child.wait();
                            break None;
                        }
                    }
                }
            }
        };
        let _ = std::fs::remove_file(&path);
        Ok(status.is_some_and(|s| s.success()))
    }
}
