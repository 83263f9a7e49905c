//! Every shader of the shared corpus goes through SSA and back: built,
//! emitted, and the emitted text parses and builds again; emission is
//! compact. Every shader of it and of the backend's conformance cases
//! passes emission's allocation checker. Skipped when `../shared` is
//! absent.

use testdata::{corpus_files, shared, tgsi_files};

/// Instructions (END excluded) and TEMP registers, counted as the shared
/// `tgsistat.py` counts them.
fn stats(shader: &tgsi::Shader) -> (usize, usize) {
    let insts = shader.instructions().filter(|i| i.opcode != tgsi::Opcode::End).count();
    let temps = shader
        .declarations()
        .filter(|d| d.file == tgsi::File::Temporary)
        .map(|d| (d.last - d.first) as usize + 1)
        .sum();
    (insts, temps)
}

#[test]
fn every_corpus_shader_goes_through_ssa_and_back() {
    let Some(paths) = corpus_files() else { return };
    let mut failures = Vec::new();
    let (mut in_insts, mut out_insts, mut in_temps, mut out_temps) = (0, 0, 0, 0);
    let mut worst: Vec<(f64, String, usize, usize, usize, usize)> = Vec::new();
    for p in &paths {
        let text = String::from_utf8_lossy(&std::fs::read(p).unwrap()).into_owned();
        let shader = tgsi::parse(&text).unwrap();
        let result = ir::from_tgsi(&shader)
            .map_err(|e| e.to_string())
            .and_then(|m| ir::verify::verify(&m.function).map(|_| m).map_err(|e| format!("verifier: {e}")))
            .and_then(|m| {
                ir::to_tgsi_with(&m, &ir::EmitOptions { check: true, ..Default::default() }).map_err(|e| e.to_string())
            })
            .and_then(|out| {
                let printed = tgsi::print(&out, tgsi::Style::Exact);
                let again =
                    tgsi::parse(&printed).map_err(|e| format!("{}\n{printed}", e.render(&printed, "emitted")))?;
                ir::from_tgsi(&again).map_err(|e| format!("re-build: {e}\n{printed}"))?;
                Ok(out)
            });
        match result {
            Ok(out) => {
                let (i0, t0) = stats(&shader);
                let (i1, t1) = stats(&out);
                in_insts += i0;
                out_insts += i1;
                in_temps += t0;
                out_temps += t1;
                worst.push((i1 as f64 / i0.max(1) as f64, p.display().to_string(), i0, i1, t0, t1));
            }
            Err(e) => failures.push(format!("{}: {e}", p.display())),
        }
    }
    worst.sort_by(|a, b| b.0.total_cmp(&a.0));
    for w in worst.iter().take(10) {
        eprintln!("{:.3} {} instrs {} -> {} temps {} -> {}", w.0, w.1, w.2, w.3, w.4, w.5);
    }
    eprintln!(
        "{} of {} round-trip; instructions {in_insts} -> {out_insts}; temps {in_temps} -> {out_temps}",
        paths.len() - failures.len(),
        paths.len()
    );
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n"));
    // Of 538; `worst` holds one entry for each shader that went through.
    testdata::assert_checked("every_corpus_shader_goes_through_ssa_and_back", "corpus shaders", worst.len(), 500);
}

/// The backend's conformance cases (`../shared/conformance/exec`) emit
/// through the allocation checker.
#[test]
fn every_conformance_shader_passes_the_allocation_checker() {
    let Some(dir) = shared("conformance/exec") else { return };
    let paths = tgsi_files(&dir);
    let mut failures = Vec::new();
    for p in &paths {
        let text = String::from_utf8_lossy(&std::fs::read(p).unwrap()).into_owned();
        let module = ir::from_tgsi(&tgsi::parse(&text).unwrap()).unwrap();
        if let Err(e) = ir::to_tgsi_with(&module, &ir::EmitOptions { check: true, ..Default::default() }) {
            failures.push(format!("{}: {e}", p.display()));
        }
    }
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n"));
    // Of 438.
    testdata::assert_checked("every_conformance_shader_passes_the_allocation_checker", "cases", paths.len(), 430);
}
