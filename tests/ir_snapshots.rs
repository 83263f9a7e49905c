//! Snapshots of SSA construction and emission on hand-written shaders.
//!
//! Every `tests/inputs/ir/*.tgsi` is parsed, built into IR and verified; the
//! IR's text form is snapshotted as `snapshots/ir/ir@NAME.tgsi.snap` and the
//! TGSI emitted back from it as `snapshots/ir/tgsi@NAME.tgsi.snap` (each
//! snapshot names its input file). The emitted text must parse back to the
//! emitted shader and build and verify again, and compute what the input
//! computes: both run on the backend on a few random states and must give
//! the same outputs (`testkit::difftest::check_emission`).
//!
//! Review changes with `cargo insta review` before accepting them.

use std::fs;
use std::path::Path;

use testkit::{difftest, states, Rng};
use tgsi_opt::ir;
use tgsi_opt::tgsi::{self, Style};

/// Random states each input and its emitted TGSI run on.
const STATES: u64 = 3;

/// Inputs that run on a state of their own instead: random inputs rarely
/// end their loops, or miss the case they are about.
const OWN_STATES: &[(&str, &str)] = &[
    (
        "whole_temp_file_indirect.tgsi",
        // Lane 3 addresses one past the TEMP file.
        "invocations 4\ninput 1 * 1.5 2 3 4\ninput 0 0 0 1 0 0\ninput 0 1 1 0 0 0\ninput 0 2 2 1 0 0\ninput 0 3 3 0 0 0\n",
    ),
    (
    "undefined_temp_reads.tgsi",
    // IN[0].w counts up to IN[0].x: a few steps in every lane.
    "invocations 4\ninput 0 0 1 2 3 0.5\ninput 0 1 -1 0.25 0 1\ninput 0 2 3.5 -2 1 0.75\ninput 0 3 0 0 0 2\n",
)];

/// Inputs whose emitted TGSI is known to compute something else than the
/// input: only their IR is snapshotted, and nothing is run, until emission
/// is fixed.
const KNOWN_EMISSION_BUGS: &[(&str, &str)] = &[];

#[test]
fn ir_and_emitted_tgsi() {
    insta::glob!("inputs/ir/*.tgsi", |path| {
        let name = file_name(path);
        let text = fs::read_to_string(path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
        let shader = tgsi::parse(&text).unwrap_or_else(|e| panic!("{}", e.render(&text, &name)));
        let module = ir::from_tgsi(&shader).unwrap_or_else(|e| panic!("{name}: {e}"));
        ir::verify::verify(&module.function).unwrap_or_else(|e| panic!("{name}: {e}"));
        let ir_text = ir::print::print_module(&module);

        let emitted = ir::to_tgsi(&module).unwrap_or_else(|e| panic!("{name}: {e}"));
        let emitted_text = tgsi::print(&emitted, Style::Exact);
        let reparsed = tgsi::parse(&emitted_text)
            .unwrap_or_else(|e| panic!("{name}: the emitted text does not parse:\n{}", e.render(&emitted_text, &name)));
        assert_eq!(reparsed, emitted, "{name}: the emitted text does not parse back to the emitted shader");
        let again =
            ir::from_tgsi(&reparsed).unwrap_or_else(|e| panic!("{name}: the emitted shader does not build: {e}"));
        ir::verify::verify(&again.function).unwrap_or_else(|e| panic!("{name}: the rebuilt IR: {e}"));

        insta::with_settings!({
            snapshot_path => "../snapshots/ir",
            prepend_module_to_snapshot => false,
            omit_expression => true,
        }, {
            insta::assert_snapshot!("ir", ir_text);
        });
        if let Some((_, why)) = KNOWN_EMISSION_BUGS.iter().find(|(bad, _)| *bad == name) {
            eprintln!("{name}: emitted TGSI not snapshotted (known emission bug: {why})");
            return;
        }
        // The input and its emitted TGSI compute the same.
        let report = difftest::check_emission(0, &text, &states_for(&name, &module));
        if let Some(finding) = report.findings.first() {
            panic!("{name}: {finding}");
        }
        insta::with_settings!({
            snapshot_path => "../snapshots/ir",
            prepend_module_to_snapshot => false,
            omit_expression => true,
        }, {
            insta::assert_snapshot!("tgsi", emitted_text);
        });
    });
}

/// The states an input runs on: its own, or [`STATES`] random ones.
fn states_for(name: &str, module: &ir::Module) -> Vec<String> {
    match OWN_STATES.iter().find(|(input, _)| *input == name) {
        Some((_, state)) => vec![state.to_string()],
        None => (0..STATES).map(|round| states::for_module(module, &mut Rng::from_name(name, round))).collect(),
    }
}

/// Every known emission bug and every input with a state of its own names
/// an input that exists.
#[test]
fn known_emission_bugs_name_inputs() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/inputs/ir");
    for name in KNOWN_EMISSION_BUGS.iter().chain(OWN_STATES).map(|(name, _)| name) {
        assert!(dir.join(name).is_file(), "no input {name}");
    }
}

fn file_name(path: &Path) -> String {
    path.file_name().map_or_else(|| path.display().to_string(), |n| n.to_string_lossy().into_owned())
}
