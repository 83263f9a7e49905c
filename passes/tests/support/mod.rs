//! What the pass tests share: building modules, running before and after
//! (on `testkit`'s random states), and comparing outputs.

#![allow(dead_code)] // each test binary uses a part

use std::path::{Path, PathBuf};

use passes::Pass;
use testkit::{states, Rng};

/// Options for test runs: a small step budget, so a shader that never ends
/// fails fast (the same way before and after).
pub fn run_options() -> exec::RunOptions {
    exec::RunOptions { step_budget: 200_000, lanes: 16, ..exec::RunOptions::default() }
}

/// Whether two runs agree: the same results line for line (words equal or
/// both NaN, as `exec::Outputs::same_results` compares them), or both
/// failed with the same message.
pub fn same_results(a: &Result<exec::Outputs, exec::ExecError>, b: &Result<exec::Outputs, exec::ExecError>) -> bool {
    match (a, b) {
        (Ok(a), Ok(b)) => a.same_results(b),
        (Err(a), Err(b)) => a.to_string() == b.to_string(),
        _ => false,
    }
}

/// How many instructions the blocks of the tree hold.
pub fn placed_instructions(func: &ir::Function) -> usize {
    func.blocks_in_order().iter().filter_map(|&b| func.blocks.get(b)).map(|b| b.insts.len()).sum()
}

/// The TGSI instructions of a shader, END excluded.
pub fn tgsi_instructions(shader: &tgsi::Shader) -> usize {
    shader.instructions().filter(|i| i.opcode != tgsi::Opcode::End).count()
}

/// Builds `text`, runs `pass`, verifies, checks that a second run changes
/// nothing, and that the result (and the TGSI emitted from it, re-parsed)
/// computes what the input computes on three pseudo-random states.
pub fn check_case(name: &str, text: &str, pass: &dyn Pass) -> (ir::Module, passes::PassResult) {
    let pass_name = pass.name();
    let before = build_case(name, text);
    ir::verify::verify(&before.function).unwrap_or_else(|e| panic!("{name}: before: {e}"));
    let mut after = before.clone();
    let result = pass.run(&mut after);
    ir::verify::verify(&after.function)
        .unwrap_or_else(|e| panic!("{name}: after {pass_name}: {e}\n{}", ir::print::print_module(&after)));
    // Idempotent: a second run finds nothing.
    let mut again = after.clone();
    let second = pass.run(&mut again);
    assert!(!second.changed, "{name}: a second {pass_name} changed {:?}", second.stats);

    let emitted = ir::to_tgsi(&after).unwrap_or_else(|e| panic!("{name}: {e}"));
    let printed = tgsi::print(&emitted, tgsi::Style::Exact);
    let reparsed = tgsi::parse(&printed).unwrap_or_else(|e| panic!("{name}: {}", e.render(&printed, name)));
    let rebuilt = ir::from_tgsi(&reparsed).unwrap_or_else(|e| panic!("{name}: emitted: {e}"));
    for round in 0..3 {
        let state_text = states::for_module(&before, &mut Rng::from_name(name, round));
        let state =
            exec::State::parse(&state_text).unwrap_or_else(|e| panic!("{name}: {}", e.render(&state_text, name)));
        let a = exec::run(&before, &state, &run_options());
        let b = exec::run(&after, &state, &run_options());
        let c = exec::run(&rebuilt, &state, &run_options());
        assert!(
            same_results(&a, &b),
            "{name}: {pass_name} changed the results on\n{state_text}\nbefore {a:?}\nafter {b:?}"
        );
        assert!(same_results(&a, &c), "{name}: the emitted TGSI computes something else on\n{state_text}\n{printed}");
    }
    (after, result)
}

/// The module of a case: TGSI built, or (a `.ir` case) the IR's text form
/// read back, after the comment lines that open the file. IR inputs hold
/// what the builder does not make from TGSI, such as phis nothing reads.
fn build_case(name: &str, text: &str) -> ir::Module {
    if !name.ends_with(".ir") {
        let shader = tgsi::parse(text).unwrap_or_else(|e| panic!("{}", e.render(text, name)));
        return ir::from_tgsi(&shader).unwrap_or_else(|e| panic!("{name}: {e}"));
    }
    let body: String = text.lines().skip_while(|l| l.starts_with(';')).map(|l| format!("{l}\n")).collect();
    ir::parse(&body).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// Checks the `; expect` lines of an input against the counters; returns
/// the mismatches.
pub fn check_expectations(name: &str, text: &str, result: &passes::PassResult) -> Vec<String> {
    let mut wrong = Vec::new();
    let mut any = false;
    for line in text.lines() {
        let Some(rest) = line.trim().strip_prefix("; expect") else { continue };
        any = true;
        let rest = rest.trim();
        if rest == "unchanged" {
            if result.changed {
                wrong.push(format!("{name}: expected no change, got {:?}", result.stats));
            }
            continue;
        }
        let (counter, n) = rest.rsplit_once(':').unwrap_or_else(|| panic!("{name}: bad expect line `{line}`"));
        let n: u64 = n.trim().parse().unwrap_or_else(|_| panic!("{name}: bad count in `{line}`"));
        let got = result.stats.get(counter.trim()).unwrap_or_else(|| panic!("{name}: no counter `{counter}`"));
        if got != n {
            wrong.push(format!(
                "{name}: `{}` is {got}, expected {n}; all counters: {:?}",
                counter.trim(),
                result.stats
            ));
        }
    }
    if !any {
        wrong.push(format!("{name}: every input states what it expects (`; expect ...`)"));
    }
    wrong
}

/// The snapshot of a case: the non-zero counters, the IR after the pass
/// and the TGSI emitted from it.
pub fn snapshot_text(name: &str, pass: &str, after: &ir::Module, result: &passes::PassResult) -> String {
    let emitted = ir::to_tgsi(after).unwrap_or_else(|e| panic!("{name}: {e}"));
    let mut snap = String::from("; stats\n");
    for (k, v) in result.stats.iter().filter(|&(_, v)| v != 0) {
        snap.push_str(&format!(";   {k}: {v}\n"));
    }
    snap.push_str(&format!("; ir after {pass}\n"));
    snap.push_str(&ir::print::print_module(after));
    snap.push_str(&format!("; tgsi after {pass}\n"));
    snap.push_str(&tgsi::print(&emitted, tgsi::Style::Exact));
    snap
}

/// A corpus shader that parses, builds and verifies.
pub struct Built {
    pub name: String,
    pub shader: tgsi::Shader,
    pub module: ir::Module,
}

/// Corpus shaders (named as `testdata::case_name` names them) that do not
/// parse, build or verify, and why; every other one must.
const CORPUS_NOT_BUILT: &[(&str, &str)] = &[];

/// Corpus shaders built (of 538).
const CORPUS_FLOOR: usize = 500;

/// Every corpus shader, parsed, built and verified, and how many were
/// not (those [`CORPUS_NOT_BUILT`] lists) and how many files there are;
/// `None` when the corpus is absent (see [`testdata::corpus_files`]).
/// Panics when an unlisted shader fails to build, a listed one builds, or
/// fewer than [`CORPUS_FLOOR`] were built.
pub fn built_corpus() -> Option<(Vec<Built>, usize, usize)> {
    let paths = testdata::corpus_files()?;
    let mut built = Vec::new();
    let mut exceptions = testdata::Exceptions::new("built_corpus", CORPUS_NOT_BUILT);
    for p in &paths {
        let name = testdata::case_name(p);
        match build_corpus_shader(p) {
            Ok((shader, module)) => built.push(Built { name, shader, module }),
            Err(e) => exceptions.skip(&name, e),
        }
    }
    let skipped = paths.len() - built.len();
    exceptions.finish("corpus shaders built", built.len(), CORPUS_FLOOR);
    Some((built, skipped, paths.len()))
}

/// The shader at `path`, parsed, built and verified.
fn build_corpus_shader(path: &Path) -> Result<(tgsi::Shader, ir::Module), String> {
    let bytes = std::fs::read(path).map_err(|e| e.to_string())?;
    let text = String::from_utf8_lossy(&bytes).into_owned();
    let shader = tgsi::parse(&text).map_err(|e| e.to_string())?;
    let module = ir::from_tgsi(&shader).map_err(|e| e.to_string())?;
    ir::verify::verify(&module.function).map_err(|e| format!("verifier: {e}"))?;
    Ok((shader, module))
}

/// One snapshot case: reads `path`, runs `pass` over it with
/// [`check_case`], and returns the snapshot text and what its `; expect`
/// lines found wrong.
pub fn snapshot_case(path: &Path, pass: &dyn Pass) -> (String, Vec<String>) {
    let name = path.file_name().map_or_else(|| path.display().to_string(), |n| n.to_string_lossy().into_owned());
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
    let (after, result) = check_case(&name, &text, pass);
    let wrong = check_expectations(&name, &text, &result);
    (snapshot_text(&name, pass.name(), &after, &result), wrong)
}

/// The `.tgsi` and `.ir` files in `tests/inputs/<pass>/`, sorted.
pub fn case_paths(pass: &str) -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/inputs").join(pass);
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map(|d| {
            d.flatten().map(|e| e.path()).filter(|p| p.extension().is_some_and(|x| x == "tgsi" || x == "ir")).collect()
        })
        .unwrap_or_default();
    paths.sort();
    paths
}

/// The number of `.tgsi` and `.ir` files in `tests/inputs/<pass>/`.
pub fn case_count(pass: &str) -> usize {
    case_paths(pass).len()
}

/// The snapshot suite of a pass: `case` makes the snapshot text of each
/// `tests/inputs/<pass>/*.tgsi` and `*.ir` (at the workspace root), with what it found
/// wrong, and the text is compared with `snapshots/<pass>/<pass>@<file>.snap`.
/// Fails after every case has run if any found something wrong, or if
/// not every input was checked (all of them but under
/// `INSTA_GLOB_FILTER`, which chooses some).
pub fn snapshot_suite(pass: &str, case: impl Fn(&Path) -> (String, Vec<String>)) {
    let mut wrong = Vec::new();
    let mut checked = 0;
    // Both paths are relative to this file's folder.
    insta::glob!(format!("../../../tests/inputs/{pass}"), "*.{tgsi,ir}", |path| {
        let (snap, w) = case(path);
        wrong.extend(w);
        checked += 1;
        insta::with_settings!({
            snapshot_path => format!("../../../snapshots/{pass}"),
            prepend_module_to_snapshot => false,
            omit_expression => true,
        }, {
            insta::assert_snapshot!(pass, snap);
        });
    });
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    let floor = if std::env::var_os("INSTA_GLOB_FILTER").is_some() { 1 } else { case_count(pass) };
    testdata::assert_checked(&format!("{pass} snapshots"), "inputs", checked, floor.max(1));
}
