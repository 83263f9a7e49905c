//! `Executable::prepare`: runs of a prepared state give exactly what
//! `Executable::run` gives on it, on either tier, run after run, with
//! other states run in between.

use exec::{Backend, Executable, Outputs, RunOptions, State};

/// The tiers this build runs.
fn backends() -> Vec<Backend> {
    let mut backends = vec![Backend::Interpreter];
    if Backend::Jit.available().is_ok() {
        backends.push(Backend::Jit);
    }
    backends
}

/// Failures of `module` on `state`: the prepared runs (three into one
/// table, one fresh) against the plain run, for every tier and the
/// batch widths `widths`. Errors must match too.
fn compare(name: &str, module: &ir::function::Module, state: &State, other: &State, widths: &[usize]) -> Vec<String> {
    let mut failures = Vec::new();
    for backend in backends() {
        let Ok(executable) = Executable::compile_with(module, backend) else { continue };
        for &lanes in widths {
            let options = RunOptions { lanes, ..RunOptions::default() };
            let plain = executable.run(state, &options).map_err(|e| e.to_string());
            let prepared = match executable.prepare(state) {
                Ok(prepared) => prepared,
                Err(e) => {
                    if plain.as_ref().err() != Some(&e.to_string()) {
                        failures.push(format!("{name} ({backend}, {lanes} lanes): prepare failed: {e}"));
                    }
                    continue;
                }
            };
            let mut kept = Outputs::new(0, []);
            for turn in 0..3 {
                let got = prepared.run_into(&options, &mut kept).map(|()| kept.clone()).map_err(|e| e.to_string());
                if got != plain {
                    failures.push(format!("{name} ({backend}, {lanes} lanes): prepared run {turn} differs"));
                }
                // A plain run of another state between prepared runs takes
                // the thread's working memory; the prepared layout is its own.
                // (Its results do not matter: a short budget stops a loop
                // its values make long.)
                let _ = executable.run(other, &RunOptions { step_budget: 10_000, ..options });
            }
            if prepared.run(&options).map_err(|e| e.to_string()) != plain {
                failures.push(format!("{name} ({backend}, {lanes} lanes): a fresh prepared run differs"));
            }
        }
    }
    failures
}

fn module(text: &str) -> ir::function::Module {
    ir::from_tgsi(&tgsi::parse(text).unwrap()).unwrap()
}

/// A state of `lanes` invocations with distinct inputs 0..3, constants
/// 0..1 and a system value in every lane.
fn state(lanes: u32) -> State {
    let mut text = format!("invocations {lanes}\nconst 0 0 1.5 -2 0.25 3\nconst 0 1 0x7fc00001 4 -0.5 2\n");
    for index in 0..4 {
        for lane in 0..lanes {
            let v = |k: u32| (lane as f32 * 0.75 - index as f32 * 1.25 + k as f32).to_string();
            text += &format!("input {index} {lane} {} {} {} {}\n", v(0), v(1), v(2), v(3));
        }
    }
    State::parse(&text).unwrap()
}

const SHADERS: &[&str] = &[
    // Straight line: inputs, constants and immediates.
    "VERT\nDCL IN[0]\nDCL IN[1]\nDCL OUT[0], POSITION\nDCL OUT[1], GENERIC[0]\nDCL CONST[0..1]\n\
     IMM[0] FLT32 { 0.5, 2.0, -1.0, 0.0 }\nMAD OUT[0], IN[0], CONST[0], IN[1]\n\
     MUL OUT[1], IN[1].yxzw, IMM[0]\nEND\n",
    // A system value, a branch and a loop.
    "VERT\nDCL IN[0]\nDCL SV[0], VERTEXID\nDCL OUT[0], GENERIC[0]\nDCL TEMP[0..1]\nDCL CONST[0..1]\n\
     IMM[0] FLT32 { 1.0, 0.0, 0.0, 0.0 }\nU2F TEMP[0].x, SV[0].xxxx\nMOV TEMP[1], IN[0]\n\
     IF TEMP[0].xxxx :3\n  ADD TEMP[1], TEMP[1], CONST[1]\nENDIF\nBGNLOOP :6\n  ADD TEMP[0].x, TEMP[0].xxxx, -IMM[0].xxxx\n\
       SLT TEMP[0].y, TEMP[0].xxxx, IMM[0].yyyy\n  IF TEMP[0].yyyy :9\n    BRK\n  ENDIF\n\
       MAD TEMP[1], TEMP[1], CONST[0], IMM[0].xxxx\nENDLOOP :6\nMOV OUT[0], TEMP[1]\nEND\n",
    // Kills and a derivative.
    "FRAG\nDCL IN[0], GENERIC[0], PERSPECTIVE\nDCL IN[2], GENERIC[2], PERSPECTIVE\nDCL OUT[0], COLOR\nDCL TEMP[0]\n\
     DDX TEMP[0], IN[0]\nADD OUT[0], TEMP[0], IN[2]\nKILL_IF IN[2].xyzw\nEND\n",
    // An undeclared output register.
    "FRAG\nDCL IN[0]\nDCL OUT[0], COLOR\nMOV OUT[0], IN[0]\nMOV OUT[3], IN[0].wzyx\nEND\n",
];

#[test]
fn prepared_runs_match_plain_runs_of_project_shaders() {
    let mut failures = Vec::new();
    let mut compared = 0;
    for (i, text) in SHADERS.iter().enumerate() {
        let module = module(text);
        // Within one quad, whole quads, quads and a part, several batches.
        for lanes in [1, 3, 4, 15, 16, 17, 64, 65, 130] {
            failures.extend(compare(
                &format!("shader {i}, {lanes} invocations"),
                &module,
                &state(lanes),
                &state(7),
                &[64, 16, 4],
            ));
            compared += 1;
        }
    }
    assert_eq!(compared, SHADERS.len() * 9);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn prepared_runs_match_plain_runs_of_the_examples() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples");
    let mut failures = Vec::new();
    let mut compared = 0;
    for entry in std::fs::read_dir(root.join("states")).unwrap() {
        let path = entry.unwrap().path();
        let shader = root.join("shaders").join(path.with_extension("tgsi").file_name().unwrap());
        let module = module(&std::fs::read_to_string(&shader).unwrap());
        let state = State::parse(&std::fs::read_to_string(&path).unwrap()).unwrap();
        failures.extend(compare(&path.display().to_string(), &module, &state, &self::state(5), &[64]));
        compared += 1;
    }
    assert!(compared >= 3, "the examples have states");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Two prepared states of one executable, run in turn, each give their
/// own state's results.
#[test]
fn prepared_states_of_one_executable_stay_apart() {
    let module = module(SHADERS[0]);
    for backend in backends() {
        let executable = Executable::compile_with(&module, backend).unwrap();
        let options = RunOptions::default();
        let (a, b) = (state(16), state(20));
        let (pa, pb) = (executable.prepare(&a).unwrap(), executable.prepare(&b).unwrap());
        let mut out = Outputs::new(0, []);
        for _ in 0..2 {
            pa.run_into(&options, &mut out).unwrap();
            assert_eq!(out, executable.run(&a, &options).unwrap(), "{backend}");
            pb.run_into(&options, &mut out).unwrap();
            assert_eq!(out, executable.run(&b, &options).unwrap(), "{backend}");
        }
        assert_ne!(pa.run(&options).unwrap(), pb.run(&options).unwrap(), "the states differ");
    }
}

#[test]
fn prepared_runs_match_plain_runs_on_conformance_states() {
    let Some((dir, names)) = testdata::conformance_cases() else { return };
    let mut failures = Vec::new();
    let mut compared = 0;
    let other = state(9);
    for name in &names {
        let read = |ext: &str| std::fs::read_to_string(dir.join(format!("{name}.{ext}")));
        let (Ok(text), Ok(state)) = (read("tgsi"), read("state")) else { continue };
        let Ok(module) = ir::from_tgsi(&tgsi::parse(&text).unwrap()) else { continue };
        let state = State::parse(&state).unwrap();
        failures.extend(compare(name, &module, &state, &other, &[64]));
        compared += 1;
    }
    eprintln!("prepared: {compared} conformance cases compared");
    assert!(compared > 400, "the conformance cases run");
    assert!(failures.is_empty(), "{} differ:\n{}", failures.len(), failures.join("\n"));
}
