//! Emission's allocation checker over every shader of the shared corpus
//! and of the backend's conformance cases (`../shared/corpus`,
//! `../shared/conformance/exec`; skipped when absent), emitted with no
//! pass and after `-O1` (also with results going to the outputs through
//! TEMPs, as for etnaviv, with values in their source channels, as for
//! r300, and with initial zeros read from a TEMP, as for nouveau): no
//! emission may fail the check. Each failure is listed with
//! its shader.

use testdata::{corpus_files, shared, tgsi_files};
use tgsi_opt::{ir, passes, tgsi};

/// The checked emissions of `text`, with no pass and after `-O1`: the
/// first failure, if any.
fn check(text: &str) -> Result<(), String> {
    let shader = tgsi::parse(text).map_err(|e| e.render(text, "input"))?;
    let module = ir::from_tgsi(&shader).map_err(|e| e.to_string())?;
    let checked = ir::EmitOptions { check: true, ..Default::default() };
    ir::to_tgsi_with(&module, &checked).map_err(|e| format!("no pass: {e}"))?;
    let mut optimized = module;
    let options = passes::Options { verify_each: true, ..passes::Options::default() };
    passes::PassManager::new(options).run(&passes::Pipeline::o1(), &mut optimized).map_err(|e| e.to_string())?;
    ir::to_tgsi_with(&optimized, &checked).map_err(|e| format!("-O1: {e}"))?;
    let through_temps = ir::EmitOptions { outputs_through_temps: true, ..checked };
    ir::to_tgsi_with(&optimized, &through_temps).map_err(|e| format!("-O1, outputs through TEMPs: {e}"))?;
    let source_channels = ir::EmitOptions { source_channels: true, ..checked };
    ir::to_tgsi_with(&optimized, &source_channels).map_err(|e| format!("-O1, source channels: {e}"))?;
    let zeros_from_temps = ir::EmitOptions { zeros_from_temps: true, ..checked };
    ir::to_tgsi_with(&optimized, &zeros_from_temps).map_err(|e| format!("-O1, zeros from TEMPs: {e}"))?;
    Ok(())
}

#[test]
fn corpus_and_conformance_shaders_check_with_and_without_passes() {
    let Some(mut paths) = corpus_files() else { return };
    let Some(conformance) = shared("conformance/exec") else { return };
    paths.extend(tgsi_files(&conformance));
    let (mut failures, mut checked) = (Vec::new(), 0);
    for path in &paths {
        let text = String::from_utf8_lossy(&std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display())))
            .into_owned();
        match check(&text) {
            Ok(()) => checked += 1,
            Err(e) => failures.push(format!("{}: {e}", path.display())),
        }
    }
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n"));
    // 538 corpus shaders and 438 conformance cases.
    testdata::assert_checked("emission_check", "corpus and conformance shaders", checked, 950);
}
