//! `tgsi-opt report`: statistics of shaders as written or after passes,
//! and the comparison of two sets in shader-db's form.

use std::path::{Path, PathBuf};

use rayon::prelude::*;

use tgsi_opt::report::{self, Comparison, Form, ShaderStats, Stats};

use crate::cli::{Format, ReportArgs, ReportFormat};
use crate::commands::opt::{build, emit_compacted, emit_options, run_pipeline};
use crate::diagnostics::Failure;
use crate::files::{write_output, Input};
use crate::progress::Progress;

/// What a shader is counted as: as written, or as emitted after passes.
enum Route {
    Input,
    Pipeline(passes::Pipeline),
}

/// One side of a comparison, or the one set of shaders reported.
enum Side {
    /// Shaders to count: (name, path).
    Shaders(Vec<(String, PathBuf)>),
    /// A report written before by `report --format csv`.
    Csv(Vec<ShaderStats>),
}

/// Runs `report`.
pub fn run(args: &ReportArgs) -> Result<(), Failure> {
    let form = match args.format {
        ReportFormat::Text => Form::Text,
        ReportFormat::Csv => Form::Csv,
        ReportFormat::Json => Form::Json,
    };
    let flags_route = flags_route(args)?;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(args.jobs)
        .build()
        .map_err(|e| Failure::Usage(format!("cannot start {} jobs: {e}", args.jobs)))?;
    let mut failures = Vec::new();
    let mut total = 0;
    let output = match (&args.before, &args.after) {
        (Some(before), Some(after)) => {
            if args.compare {
                return Err(Failure::Usage("--before/--after compare two pipelines: leave out --compare".into()));
            }
            if flags_route.is_some() {
                return Err(Failure::Usage("--before/--after name the pipelines: leave out -O and --passes".into()));
            }
            let (before, after) = (parse_route(before, args)?, parse_route(after, args)?);
            let files = find_shaders(&args.paths)?;
            total = files.len();
            let mut sides = pool.install(|| measure(&files, &[&before, &after]));
            failures.append(&mut sides.2);
            report::render_comparison(&Comparison::new(&sides.0, &sides.1), form, args.top)
        }
        (None, None) if args.compare => {
            let [first, second] = args.paths.as_slice() else {
                return Err(Failure::Usage("--compare takes two paths: BEFORE AFTER".into()));
            };
            let route = flags_route.unwrap_or(Route::Input);
            let mut sets = Vec::new();
            for path in [first, second] {
                let (stats, mut failed, count) = match read_side(path)? {
                    Side::Csv(stats) => (stats, Vec::new(), 0),
                    Side::Shaders(files) => {
                        let (stats, _, failed) = pool.install(|| measure(&files, &[&route]));
                        (stats, failed, files.len())
                    }
                };
                failures.append(&mut failed);
                total += count;
                sets.push(stats);
            }
            let (before, mut after) = (sets.remove(0), sets.remove(0));
            // Two shaders are compared whatever their names.
            let shader = |path: &PathBuf| !path.is_dir() && path.extension().is_none_or(|e| e != "csv");
            if before.len() == 1 && after.len() == 1 && shader(first) && shader(second) {
                after[0].file = before[0].file.clone();
            }
            report::render_comparison(&Comparison::new(&before, &after), form, args.top)
        }
        (None, None) => {
            let files = find_shaders(&args.paths)?;
            total = files.len();
            let route = flags_route.unwrap_or(Route::Input);
            let (stats, _, mut failed) = pool.install(|| measure(&files, &[&route]));
            failures.append(&mut failed);
            report::render_stats(&stats, form)
        }
        _ => return Err(Failure::Usage("--before and --after go together".into())),
    };
    write_output(args.output.as_deref(), output.as_bytes())?;
    if failures.is_empty() {
        Ok(())
    } else {
        Err(Failure::Files { failures, total })
    }
}

/// The route `-O` or `--passes` ask for, if either is given.
fn flags_route(args: &ReportArgs) -> Result<Option<Route>, Failure> {
    if args.pipeline.opt_level.is_none() && args.pipeline.passes.is_empty() {
        return Ok(None);
    }
    Ok(Some(Route::Pipeline(args.pipeline.pipeline()?)))
}

/// `--before`/`--after`: `input` (as written), `O0` (through the IR, no
/// pass), `O1` or `O`, or a comma-separated list of passes.
fn parse_route(spec: &str, args: &ReportArgs) -> Result<Route, Failure> {
    let config = args.pipeline.config()?;
    Ok(match spec.trim_start_matches('-') {
        "input" => Route::Input,
        "O0" => Route::Pipeline(passes::Pipeline::o0()),
        "O" | "O1" => Route::Pipeline(passes::Pipeline::opt_level_with(1, &config)),
        list => {
            let names: Vec<&str> = list.split(',').collect();
            Route::Pipeline(passes::Pipeline::named_with(&names, &config).map_err(crate::cli::pipeline_failure)?)
        }
    })
}

/// A side of `--compare`: a CSV report (`.csv`), a directory or a shader.
fn read_side(path: &Path) -> Result<Side, Failure> {
    if path.extension().is_some_and(|e| e == "csv") {
        let input = Input::File(path.to_path_buf());
        let text = input.read_text()?;
        let stats = report::read_csv(&text).map_err(|source| Failure::Csv { what: input.describe(), source })?;
        return Ok(Side::Csv(stats));
    }
    Ok(Side::Shaders(find_shaders(std::slice::from_ref(&path.to_path_buf()))?))
}

/// The shaders named: files as given, and every `*.tgsi` below each
/// directory (named by their path below it), in name order per directory.
fn find_shaders(paths: &[PathBuf]) -> Result<Vec<(String, PathBuf)>, Failure> {
    let mut found = Vec::new();
    for path in paths {
        if path.is_dir() {
            let mut files = Vec::new();
            walk(path, &mut files)?;
            files.sort();
            for file in files {
                let name = file.strip_prefix(path).unwrap_or(&file).display().to_string();
                found.push((name, file));
            }
        } else {
            found.push((path.display().to_string(), path.clone()));
        }
    }
    Ok(found)
}

/// Every `*.tgsi` file below `dir`. Links to directories are not
/// followed (a link to a parent would never end).
fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> Result<(), Failure> {
    let read_error = |source| Failure::Read { what: format!("`{}`", dir.display()), source };
    for entry in std::fs::read_dir(dir).map_err(read_error)? {
        let entry = entry.map_err(read_error)?;
        let path = entry.path();
        if entry.file_type().map_err(read_error)?.is_dir() {
            walk(&path, out)?;
        } else if path.extension().is_some_and(|e| e == "tgsi") && path.is_file() {
            out.push(path);
        }
    }
    Ok(())
}

/// Counts every file by each route (one or two), `--jobs` at a time:
/// the statistics of the first route, of the second (if any), and the
/// files that failed, each list in the files' order.
fn measure(files: &[(String, PathBuf)], routes: &[&Route]) -> (Vec<ShaderStats>, Vec<ShaderStats>, Vec<Failure>) {
    let progress = Progress::new(files.len() as u64, "shaders");
    let results: Vec<Result<Vec<ShaderStats>, Failure>> = files
        .par_iter()
        .map(|(name, path)| {
            let input = Input::File(path.clone());
            let result = routes.iter().map(|route| count(name, &input, route)).collect();
            progress.step();
            result
        })
        .collect();
    progress.finish();
    let (mut first, mut second, mut failures) = (Vec::new(), Vec::new(), Vec::new());
    for result in results {
        match result {
            Ok(mut stats) => {
                if stats.len() == 2 {
                    second.extend(stats.pop());
                }
                first.extend(stats.pop());
            }
            Err(failure) => failures.push(failure),
        }
    }
    (first, second, failures)
}

/// One shader's statistics by `route`.
fn count(name: &str, input: &Input, route: &Route) -> Result<ShaderStats, Failure> {
    let shader = match route {
        Route::Input => {
            let text = input.read_text()?;
            tgsi::parse(&text).map_err(|err| Failure::Located { rendered: err.render(&text, &input.file_name()) })?
        }
        Route::Pipeline(pipeline) => {
            let (mut module, _) = build(input, Format::Text)?;
            let options = passes::Options { compact: true, ..Default::default() };
            run_pipeline(pipeline, &mut module, options, input)?;
            let emit = emit_options(false, None, module.processor);
            emit_compacted(module, input, &emit)?
        }
    };
    Ok(ShaderStats { file: name.to_string(), stage: shader.processor, stats: Stats::of(&shader) })
}
