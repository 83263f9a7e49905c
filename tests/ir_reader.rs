//! The IR's text form reads back: for every shader of the shared corpus
//! and every hand-written shader under `tests/inputs/`, the IR built from
//! it (and the IR `-O1` leaves, whose numbering has gaps) prints, parses
//! and prints again to the same text; the parsed module verifies, emits
//! TGSI where the original does, and executes the same on random states;
//! printed with origins, it reads back to IR that emits the same TGSI, byte
//! for byte. Mutated IR texts
//! are refused with an error, never a panic. The corpus part is skipped,
//! visibly, when `../shared` is absent.

use std::path::{Path, PathBuf};

use testdata::Exceptions;
use testkit::{states, Rng};
use tgsi_opt::{exec, ir, passes, tgsi};

/// Random states each parsed module runs on.
const STATES: u64 = 2;

/// Hand-written shaders checked (181 under `tests/inputs/`, all built).
const HAND_WRITTEN_FLOOR: usize = 170;

/// Hand-written shaders the IR is not built from, and why.
const HAND_WRITTEN_NOT_BUILT: &[(&str, &str)] = &[];

/// Corpus shaders checked (of 538; every one builds).
const CORPUS_FLOOR: usize = 500;

/// What checking one shader found.
#[derive(Default)]
struct Counts {
    round_trips: usize,
    /// Modules whose IR, printed with origins and read back, emits the
    /// same TGSI as the module itself.
    same_emission: usize,
    executed: usize,
    /// Shaders the IR cannot be built from (nothing to print).
    unbuilt: usize,
    /// Shaders built and checked.
    checked: usize,
    failures: Vec<String>,
}

fn run_options() -> exec::RunOptions {
    exec::RunOptions { lanes: 8, step_budget: 200_000, threads: 1 }
}

/// Print → parse → print gives the same text; the parsed module verifies
/// and emits the same TGSI as the original.
fn round_trip(name: &str, module: &ir::Module, counts: &mut Counts) -> Option<ir::Module> {
    let text = ir::print::print_module(module);
    let parsed = match ir::parse(&text) {
        Ok(m) => m,
        Err(e) => {
            let line = text.lines().nth(e.span.line.saturating_sub(1) as usize).unwrap_or("");
            counts.failures.push(format!("{name}: does not parse back: {e}\n    {line}"));
            return None;
        }
    };
    let again = ir::print::print_module(&parsed);
    if again != text {
        let diff = text.lines().zip(again.lines()).find(|(a, b)| a != b);
        counts.failures.push(format!("{name}: prints differently after parsing: {diff:?}"));
        return None;
    }
    if let Err(e) = ir::verify::verify(&parsed.function) {
        counts.failures.push(format!("{name}: the parsed IR does not verify: {e}"));
        return None;
    }
    // Emission may lay registers out differently (origins are not
    // printed by default), but it succeeds where it did.
    if ir::to_tgsi(module).is_ok() != ir::to_tgsi(&parsed).is_ok() {
        counts.failures.push(format!("{name}: emission succeeds on one of the original and the parsed IR only"));
        return None;
    }
    counts.round_trips += 1;
    Some(parsed)
}

/// Printed with its origins (`--origins`), the IR reads back to the same
/// text, and TGSI emitted from what was read is the TGSI emitted from the
/// module itself, byte for byte: emission chooses registers from origins.
fn same_emission_with_origins(name: &str, module: &ir::Module, counts: &mut Counts) {
    let opts = ir::print::PrintOptions { origins: true };
    let text = ir::print::print_module_with(module, &opts);
    let parsed = match ir::parse(&text) {
        Ok(m) => m,
        Err(e) => return counts.failures.push(format!("{name}: with origins, does not parse back: {e}")),
    };
    if ir::print::print_module_with(&parsed, &opts) != text {
        return counts.failures.push(format!("{name}: with origins, prints differently after parsing"));
    }
    let emitted = |m: &ir::Module| ir::to_tgsi(m).ok().map(|s| tgsi::print(&s, tgsi::Style::Exact));
    if emitted(module) != emitted(&parsed) {
        return counts.failures.push(format!("{name}: with origins, the read IR emits other TGSI"));
    }
    counts.same_emission += 1;
}

/// Both modules give the same outputs (or the same error) on random
/// states.
fn same_execution(name: &str, original: &ir::Module, parsed: &ir::Module, counts: &mut Counts) {
    for round in 0..STATES {
        let state = states::for_module(original, &mut Rng::from_name(name, round));
        let Ok(state) = exec::State::parse(&state) else { continue };
        let a = exec::run(original, &state, &run_options()).map_err(|e| e.to_string());
        let b = exec::run(parsed, &state, &run_options()).map_err(|e| e.to_string());
        if a != b {
            counts.failures.push(format!("{name}: the parsed IR executes differently on state {round}"));
            return;
        }
    }
    counts.executed += 1;
}

/// The name of a shader in messages and exception lists: its path below
/// the workspace (`tests/inputs/...`) or below `../shared`.
fn short_name(path: &Path) -> String {
    match path.strip_prefix(env!("CARGO_MANIFEST_DIR")) {
        Ok(below) => below.display().to_string(),
        Err(_) => testdata::case_name(path),
    }
}

/// Checks one shader; a shader the IR cannot be built from is skipped,
/// which `exceptions` must allow.
fn check_shader(path: &Path, counts: &mut Counts, exceptions: &mut Exceptions) {
    let name = short_name(path);
    let Ok(bytes) = std::fs::read(path) else {
        counts.failures.push(format!("{name}: unreadable"));
        return;
    };
    let text = String::from_utf8_lossy(&bytes);
    let module = match tgsi::parse(&text) {
        Ok(shader) => ir::from_tgsi(&shader).map_err(|e| e.to_string()),
        Err(e) => Err(e.to_string()),
    };
    let module = match module {
        Ok(m) => m,
        Err(e) => {
            counts.unbuilt += 1;
            return exceptions.skip(&name, format!("not built: {e}"));
        }
    };
    counts.checked += 1;
    if let Some(parsed) = round_trip(&name, &module, counts) {
        same_execution(&name, &module, &parsed, counts);
    }
    same_emission_with_origins(&name, &module, counts);
    let mut optimized = module.clone();
    let run = passes::PassManager::new(passes::Options::default()).run(&passes::Pipeline::o1(), &mut optimized);
    if run.is_ok() {
        if let Some(parsed) = round_trip(&format!("{name} (-O1)"), &optimized, counts) {
            same_execution(&format!("{name} (-O1)"), &optimized, &parsed, counts);
        }
        same_emission_with_origins(&format!("{name} (-O1)"), &optimized, counts);
    }
}

/// Checks every file of `files`; `floor` is how many must be built and
/// checked, and `not_built` the shaders allowed not to build, with why.
fn check_all(files: &[PathBuf], what: &'static str, floor: usize, not_built: &'static [(&'static str, &'static str)]) {
    let mut counts = Counts::default();
    let mut exceptions = Exceptions::new(what, not_built);
    for f in files {
        check_shader(f, &mut counts, &mut exceptions);
    }
    eprintln!(
        "{what}: {} shaders; {} IR texts round-trip (built and -O1), {} executed the same, {} emit the same TGSI \
         when read back with origins, {} not buildable",
        files.len(),
        counts.round_trips,
        counts.executed,
        counts.same_emission,
        counts.unbuilt
    );
    assert!(
        counts.failures.is_empty(),
        "{} failures:\n{}",
        counts.failures.len(),
        counts.failures.iter().take(5).cloned().collect::<Vec<_>>().join("\n")
    );
    exceptions.finish("shaders", counts.checked, floor);
}

/// Every `.tgsi` file under `tests/inputs/`.
fn hand_written() -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut dirs = vec![Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/inputs")];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "tgsi") {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

#[test]
fn hand_written_shaders_round_trip() {
    check_all(&hand_written(), "tests/inputs", HAND_WRITTEN_FLOOR, HAND_WRITTEN_NOT_BUILT);
}

#[test]
fn corpus_shaders_round_trip() {
    // testdata says it skipped (or fails under TGSI_OPT_REQUIRE_SHARED).
    let Some(files) = testdata::corpus_files() else { return };
    check_all(&files, "corpus", CORPUS_FLOOR, &[]);
}

/// Truncations and byte flips of printed IR never panic the parser.
#[test]
fn mutated_ir_never_panics() {
    let mut texts = Vec::new();
    // Printed corpus IR where there is a corpus, and hand-written shaders'
    // (which use every construct) in any case.
    let corpus = testdata::corpus_files().unwrap_or_default();
    for path in corpus.iter().step_by(8).chain(hand_written().iter()) {
        let Ok(text) = std::fs::read_to_string(path) else { continue };
        if let Some(module) = tgsi::parse(&text).ok().and_then(|s| ir::from_tgsi(&s).ok()) {
            texts.push(ir::print::print_module(&module));
        }
    }
    assert!(!texts.is_empty());
    let mut rng = Rng::new(19);
    let bytes_to_try: &[u8] = b" \n-|:,[]{}.;0123456789vbaxyzwp_=()ABCIN";
    let mut refused = 0;
    for round in 0..2000 {
        let text = rng.pick(&texts).as_bytes();
        let mut bytes = text.to_vec();
        match round % 4 {
            0 => bytes.truncate(rng.index(bytes.len() + 1)),
            1 => {
                let i = rng.index(bytes.len());
                bytes[i] = *rng.pick(bytes_to_try);
            }
            2 => {
                let i = rng.index(bytes.len());
                bytes.remove(i);
            }
            _ => {
                for _ in 0..3 {
                    let i = rng.index(bytes.len());
                    bytes[i] = rng.next_u32() as u8;
                }
            }
        }
        let mutated = String::from_utf8_lossy(&bytes);
        match ir::parse(&mutated) {
            Err(e) => {
                refused += 1;
                // The error points into the text.
                assert!(e.span.start <= mutated.len() && e.span.line >= 1, "{e:?}");
                let _ = e.render(&mutated, "mutated.ir");
            }
            Ok(module) => {
                // Whatever parses prints, verifies or not, without panicking.
                let _ = ir::print::print_module(&module);
                let _ = ir::verify::verify(&module.function);
            }
        }
    }
    assert!(refused > 500, "only {refused} of 2000 mutations were refused");
}
