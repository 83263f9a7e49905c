//! `-O1` for a driver: on every conformance case (whose unoptimized runs
//! give Mesa's outputs, `exec`'s `conformance_cases_match_mesa`), the
//! outputs stay bit-identical for every preset, with its passes and its
//! emission, and the emitted TGSI needs nothing of the preset that the
//! case did not.

mod support;

use support::*;

/// The emitted TGSI of `before` after `-O1` for `target` and with its
/// emission, and whether it computes what `before` computes on `state`.
fn optimized(before: &ir::Module, target: &target::Target, state: &exec::State) -> Result<tgsi::Shader, String> {
    let config = passes::Config { target: Some(target.clone()), ..passes::Config::default() };
    let mut after = before.clone();
    let options = passes::Options { verify_each: true, ..passes::Options::default() };
    passes::PassManager::new(options)
        .run(&passes::Pipeline::o1_with(&config), &mut after)
        .map_err(|e| e.to_string())?;
    let emit = passes::emit_options(Some(target), before.processor, true);
    let emitted = ir::to_tgsi_with(&after, &emit).map_err(|e| e.to_string())?;
    let rebuilt = ir::from_tgsi(&emitted).map_err(|e| e.to_string())?;
    let (a, b) = (exec::run(before, state, &run_options()), exec::run(&rebuilt, state, &run_options()));
    if !same_results(&a, &b) {
        return Err("the outputs differ".to_string());
    }
    Ok(emitted)
}

#[test]
fn o1_for_each_preset_on_the_conformance_cases() {
    let Some((dir, names)) = testdata::conformance_cases() else { return };
    let presets: Vec<target::Target> = target::PRESETS.iter().map(|p| p.target()).collect();
    let (mut cases, mut runs, mut failures) = (0, 0, Vec::new());
    let mut cmp_selects = 0;
    for name in &names {
        let read = |ext: &str| std::fs::read_to_string(dir.join(format!("{name}.{ext}")));
        let (Ok(text), Ok(state)) = (read("tgsi"), read("state")) else { continue };
        let (Ok(shader), Ok(state)) = (tgsi::parse(&text), exec::State::parse(&state)) else { continue };
        let Ok(before) = ir::from_tgsi(&shader) else { continue };
        cases += 1;
        // -O1 looks at a target's integers and tuning only: presets alike
        // in both share a run.
        let mut done: Vec<((bool, target::Tuning), Result<tgsi::Shader, String>)> = Vec::new();
        for target in &presets {
            let key = (target.caps_for(shader.processor).integers, target.tuning);
            let emitted = match done.iter().find(|(k, _)| *k == key) {
                Some((_, emitted)) => emitted,
                None => {
                    runs += 1;
                    done.push((key, optimized(&before, target, &state)));
                    &done[done.len() - 1].1
                }
            };
            match emitted {
                Ok(emitted) => {
                    let new = target::introduced(&target::check(&shader, target), target::check(emitted, target));
                    if let Some(f) = new.first() {
                        failures.push(format!("{name}: -O1 --target {}: {}", target.name(), f.lack));
                    }
                    if target.name() == "r300" {
                        let cmps =
                            |s: &tgsi::Shader| s.instructions().filter(|i| i.opcode == tgsi::Opcode::Cmp).count();
                        cmp_selects += cmps(emitted).saturating_sub(cmps(&shader));
                    }
                }
                Err(e) => failures.push(format!("{name}: -O1 --target {}: {e}", target.name())),
            }
        }
    }
    eprintln!("-O1 for each preset: {cases} conformance cases, {runs} runs, {cmp_selects} CMP selects for r300");
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n"));
    testdata::assert_checked("o1_for_each_preset_on_the_conformance_cases", "cases", cases, 430);
}

/// i915's compiler writes a texture result with a partial write mask as a
/// whole write and a `MOV`: for it (`Tuning::whole_texture_writes`) `dce`
/// makes every texture write take all four channels, the source's
/// `.xyz` too; for the others it drops the unused ones.
#[test]
fn texture_write_masks_follow_the_target() {
    let tex = |target: &str, mask: &str| {
        let text = format!(
            "FRAG\nDCL IN[0], GENERIC[0], LINEAR\nDCL SAMP[0]\nDCL SVIEW[0], 2D, FLOAT\nDCL OUT[0], COLOR\n\
             DCL TEMP[0]\nTEX TEMP[0]{mask}, IN[0], SAMP[0], 2D\nMOV OUT[0], TEMP[0].xxxx\nEND\n"
        );
        let mut module = ir::from_tgsi(&tgsi::parse(&text).expect("parses")).expect("builds");
        let config = passes::Config { target: target::Target::preset(target), ..passes::Config::default() };
        let options = passes::Options { verify_each: true, ..passes::Options::default() };
        passes::PassManager::new(options).run(&passes::Pipeline::o1_with(&config), &mut module).expect("-O1 runs");
        let emitted = ir::to_tgsi(&module).expect("emits");
        let inst = emitted.instructions().find(|i| i.opcode == tgsi::Opcode::Tex).expect("a TEX");
        inst.dst[0].write_mask
    };
    assert_eq!(tex("i915", ""), 0xf);
    assert_eq!(tex("i915", ".xyz"), 0xf);
    assert_eq!(tex("r300", ""), 0x1);
    assert_eq!(tex("nvc0", ".xyz"), 0x1);
}

/// Vertex outputs stored from an input and from channels the source
/// never wrote: for nouveau and etnaviv (`Tuning::zeros_from_temps`) the
/// zeros are read from a TEMP channel nothing writes, as the source had
/// them, instead of written from an immediate (which costs nouveau a move
/// and two exports); the results are the same. A channel once read as a
/// zero is never written: the second output, whose values would go
/// there, is written as before.
#[test]
fn initial_zeros_come_from_a_temp_for_nouveau() {
    let text = "VERT\nDCL IN[0]\nDCL OUT[0], POSITION\nDCL OUT[1], GENERIC[0]\nDCL OUT[2], GENERIC[1]\n\
                DCL TEMP[0..2]\nMUL TEMP[0], IN[0], IN[0].xxxx\nMOV TEMP[1].xy, IN[0]\nMOV OUT[1], TEMP[1].xyzz\n\
                MOV TEMP[2].zw, IN[0]\nMOV OUT[2], TEMP[2].xxzw\nMOV OUT[0], TEMP[0]\nEND\n";
    let before = ir::from_tgsi(&tgsi::parse(text).expect("parses")).expect("builds");
    let state = exec::State::parse("invocations 4\ninput 0 * 1 -2 3 5\ninput 0 2 0 -0 inf 1\n").expect("state");
    let movs = |preset: &str| {
        let target = target::Target::preset(preset).expect("a preset");
        let emitted = optimized(&before, &target, &state).expect("same results");
        let printed = tgsi::print(&emitted, tgsi::Style::Exact);
        let movs = printed.lines().filter_map(|l| l.split_once(": MOV ").map(|(_, m)| m));
        movs.collect::<Vec<_>>().join("\n")
    };
    assert_eq!(movs("nvc0"), "TEMP[0].xy, IN[0]\nOUT[1], TEMP[0].xyzz\nOUT[2].xy, IMM[0].xxxx\nOUT[2].zw, IN[0]");
    assert_eq!(movs("llvmpipe"), "OUT[1].xy, IN[0]\nOUT[1].zw, IMM[0].xxxx\nOUT[2].xy, IMM[0].xxxx\nOUT[2].zw, IN[0]");
}
