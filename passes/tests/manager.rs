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
