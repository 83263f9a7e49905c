//! The pass manager's fixed point: `-O1` never runs a pass again on a
//! module that pass left unchanged, and stops once every pass has run on
//! the module as it is without changing it. Work is counted in pass runs.

use testkit::shapes::{Shape, LIMITS};

/// Every run of `-O1` on the shape's shader, in order: (pass, changed).
fn runs(shape: Shape, instructions: usize) -> Vec<(&'static str, bool)> {
    let text = shape.generate(instructions);
    let shader =
        tgsi::parse_with_limits(&text, &LIMITS).unwrap_or_else(|e| panic!("{}", e.render(&text, shape.name())));
    let mut module = ir::from_tgsi_with_limits(&shader, &LIMITS).unwrap_or_else(|e| panic!("{}: {e}", shape.name()));
    let mut manager = passes::PassManager::new(passes::Options { verify_each: true, ..Default::default() });
    let report = manager.run(&passes::Pipeline::o1(), &mut module).unwrap_or_else(|e| panic!("{e}"));
    report.runs.iter().map(|r| (r.pass, r.changed)).collect()
}

#[test]
fn no_pass_runs_twice_on_a_module_it_left_unchanged() {
    let distinct = {
        let mut names = passes::Pipeline::o1().names();
        names.sort_unstable();
        names.dedup();
        names.len()
    };
    for shape in Shape::ALL {
        let runs = runs(shape, 300);
        for (k, &(pass, _)) in runs.iter().enumerate() {
            let earlier_unchanged = runs[..k].iter().rposition(|&(p, changed)| p == pass && !changed);
            if let Some(j) = earlier_unchanged {
                assert!(
                    runs[j + 1..k].iter().any(|&(_, changed)| changed),
                    "{}: {pass} ran again on the module it left unchanged: {runs:?}",
                    shape.name()
                );
            }
        }
        // The last runs are every pass once, none changing anything.
        let tail = &runs[runs.len().saturating_sub(distinct)..];
        assert!(tail.iter().all(|&(_, changed)| !changed), "{}: {runs:?}", shape.name());
    }
}

/// The TGSI `-O1` emits for `text`, with or without compacting the
/// function between passes.
fn emitted(text: &str, compact: bool, name: &str) -> String {
    let shader = tgsi::parse_with_limits(text, &LIMITS).unwrap_or_else(|e| panic!("{}", e.render(text, name)));
    let mut module = ir::from_tgsi_with_limits(&shader, &LIMITS).unwrap_or_else(|e| panic!("{name}: {e}"));
    let options = passes::Options { verify_each: true, compact, ..Default::default() };
    passes::PassManager::new(options).run(&passes::Pipeline::o1(), &mut module).unwrap_or_else(|e| panic!("{e}"));
    let emitted = ir::to_tgsi(&module).unwrap_or_else(|e| panic!("{name}: {e}"));
    tgsi::print(&emitted, tgsi::Style::Exact)
}

/// `Options::compact` drops what passes took out of the blocks and
/// renumbers what stays, in order: no pass may decide differently for it,
/// so the emitted shader is the same, on every shape, on random programs
/// and on the conformance shaders.
#[test]
fn compacting_between_passes_changes_no_output() {
    let mut compared = 0;
    for shape in Shape::ALL {
        let text = shape.generate(2000);
        assert_eq!(emitted(&text, true, shape.name()), emitted(&text, false, shape.name()), "{}", shape.name());
        compared += 1;
    }
    for seed in 0..300 {
        let program = testkit::random_program::program(seed);
        let name = format!("random program {seed}");
        assert_eq!(emitted(&program.text, true, &name), emitted(&program.text, false, &name), "{name}");
        compared += 1;
    }
    // The conformance shaders hold the one case found where a pass read
    // the garbage (coalesce, on gen__prog-133), when the folder is there.
    if let Some((dir, cases)) = testdata::conformance_cases() {
        for case in &cases {
            let Ok(text) = std::fs::read_to_string(dir.join(format!("{case}.tgsi"))) else { continue };
            let Ok(shader) = tgsi::parse(&text) else { continue };
            if ir::from_tgsi(&shader).is_err() {
                continue;
            }
            assert_eq!(emitted(&text, true, case), emitted(&text, false, case), "{case}");
            compared += 1;
        }
        assert!(compared > Shape::ALL.len() + 300 + 400, "{compared} compared");
    }
}
