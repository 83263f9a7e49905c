//! Running hand-written shaders: control flow with lanes that diverge,
//! quads, kills, arrays, textures, system values, and the errors a run can
//! end with.

use exec::{Backend, ExecError, Executable, RunOptions, State};

fn f(x: f32) -> u32 {
    x.to_bits()
}

/// Runs `text` on `state` with `lanes` lanes a batch; the outputs' text.
fn run_with(text: &str, state: &str, lanes: usize) -> Result<exec::Outputs, ExecError> {
    let shader = tgsi::parse(text).unwrap_or_else(|e| panic!("{}", e.render(text, "test")));
    let module = ir::from_tgsi(&shader).unwrap();
    let state = State::parse(state).unwrap();
    exec::run(&module, &state, &RunOptions { lanes, ..RunOptions::default() })
}

fn run(text: &str, state: &str) -> exec::Outputs {
    let out = run_with(text, state, 64).unwrap();
    for lanes in [4, 8, 16] {
        assert_eq!(run_with(text, state, lanes).unwrap().write(), out.write(), "{lanes} lanes");
    }
    out
}

#[test]
fn if_else_runs_each_arm_for_its_lanes() {
    let text = "FRAG\nDCL IN[0]\nDCL OUT[0], COLOR\nDCL TEMP[0]\nIMM[0] FLT32 { 1.0, 2.0, 0.0, 0.0 }\n\
                IF IN[0].xxxx\nMOV TEMP[0], IMM[0].xxxx\nELSE\nMOV TEMP[0], IMM[0].yyyy\nENDIF\n\
                MOV OUT[0], TEMP[0]\nEND\n";
    let out = run(text, "invocations 3\ninput 0 * 0 0 0 0\ninput 0 1 5 0 0 0\ninput 0 2 -0.0 0 0 0\n");
    assert_eq!(out.get(0, 0), Some([f(2.0); 4]));
    assert_eq!(out.get(0, 1), Some([f(1.0); 4]));
    assert_eq!(out.get(0, 2), Some([f(2.0); 4]), "-0.0 is false for IF");
}

#[test]
fn loops_count_per_lane_with_break_and_continue() {
    // Sum of i for i in 0..n, skipping i == 2: each lane has its own n.
    let text = "FRAG\nDCL IN[0]\nDCL OUT[0], COLOR\nDCL TEMP[0..1]\nIMM[0] INT32 { 0, 1, 2, 0 }\n\
                MOV TEMP[0].xy, IMM[0].xxxx\n\
                BGNLOOP\n\
                  ISGE TEMP[1].x, TEMP[0].xxxx, IN[0].xxxx\n\
                  UIF TEMP[1].xxxx\n BRK\n ENDIF\n\
                  UADD TEMP[0].x, TEMP[0].xxxx, IMM[0].yyyy\n\
                  USEQ TEMP[1].y, TEMP[0].xxxx, IMM[0].zzzz\n\
                  UIF TEMP[1].yyyy\n CONT\n ENDIF\n\
                  UADD TEMP[0].y, TEMP[0].yyyy, TEMP[0].xxxx\n\
                ENDLOOP\n\
                MOV OUT[0], TEMP[0]\nEND\n";
    let out = run(
        text,
        "invocations 4\ninput 0 0 0x0 0 0 0\ninput 0 1 0x1 0 0 0\ninput 0 2 0x3 0 0 0\ninput 0 3 0x5 0 0 0\n",
    );
    // Lane n: x = n, y = sum of 1..=n without 2.
    let sums = [0, 1, 1 + 3, 1 + 3 + 4 + 5];
    for (lane, n) in [0u32, 1, 3, 5].into_iter().enumerate() {
        let got = out.get(0, lane as u32).unwrap();
        assert_eq!((got[0], got[1]), (n, sums[lane]), "lane {lane}");
    }
}

#[test]
fn switch_falls_through_and_skips_without_default() {
    let text = "FRAG\nDCL IN[0]\nDCL OUT[0], COLOR\nDCL TEMP[0]\nIMM[0] UINT32 { 1, 2, 10, 20 }\n\
                MOV TEMP[0], IMM[0].zzzz\n\
                SWITCH IN[0].xxxx\n\
                CASE IMM[0].xxxx\n UADD TEMP[0].x, TEMP[0].xxxx, IMM[0].xxxx\n\
                CASE IMM[0].yyyy\n UADD TEMP[0].y, TEMP[0].yyyy, IMM[0].wwww\n BRK\n\
                ENDSWITCH\n\
                MOV OUT[0], TEMP[0]\nEND\n";
    let out = run(text, "invocations 3\ninput 0 0 0x1 0 0 0\ninput 0 1 0x2 0 0 0\ninput 0 2 0x7 0 0 0\n");
    assert_eq!(out.get(0, 0).unwrap()[..2], [11, 30], "case 1 falls into case 2");
    assert_eq!(out.get(0, 1).unwrap()[..2], [10, 30]);
    assert_eq!(out.get(0, 2).unwrap()[..2], [10, 10], "no case, no default: skipped");
}

#[test]
fn derivatives_use_the_quad() {
    let text = "FRAG\nDCL IN[0]\nDCL OUT[0], COLOR\nDCL OUT[1], COLOR[1]\n\
                DDX OUT[0], IN[0]\nDDY_FINE OUT[1], IN[0]\nEND\n";
    let out = run(text, "invocations 4\ninput 0 0 1 0 0 0\ninput 0 1 2 0 0 0\ninput 0 2 4 0 0 0\ninput 0 3 8 0 0 0\n");
    for lane in 0..4 {
        assert_eq!(out.get(0, lane).unwrap()[0], f(8.0 - 4.0), "coarse DDX is the bottom row");
    }
    let fine: Vec<u32> = (0..4).map(|l| out.get(1, l).unwrap()[0]).collect();
    assert_eq!(fine, [f(3.0), f(6.0), f(3.0), f(6.0)]);
}

#[test]
fn kill_if_marks_lanes() {
    let text = "FRAG\nDCL IN[0]\nDCL OUT[0], COLOR\nKILL_IF IN[0]\nMOV OUT[0], IN[0]\nEND\n";
    let out = run(text, "invocations 2\ninput 0 * 1 1 1 1\ninput 0 1 1 1 -1 1\n");
    assert!(!out.is_killed(0));
    assert!(out.is_killed(1));
    assert!(out.write().ends_with("kill 1\n"));
}

/// The source's modifiers apply, as in Mesa's interpreter (`tgsi-ref
/// run` kills lane 0 of `KILL_IF -IN[0].xxxx` on 1.0, none of -1.0, 0.0
/// and -0.0), on both tiers.
#[test]
fn kill_if_reads_through_its_modifiers() {
    let state = "invocations 4\ninput 0 0 1 0 0 0\ninput 0 1 -1 0 0 0\ninput 0 2 0 0 0 0\ninput 0 3 -0.0 0 0 0\n";
    for (source, killed) in [
        ("-IN[0].xxxx", [true, false, false, false]),
        ("IN[0].xxxx", [false, true, false, false]),
        ("-|IN[0].xxxx|", [true, true, false, false]),
    ] {
        let text = format!("FRAG\nDCL IN[0]\nDCL OUT[0], COLOR\nKILL_IF {source}\nMOV OUT[0], IN[0]\nEND\n");
        let module = ir::from_tgsi(&tgsi::parse(&text).unwrap()).unwrap();
        let state = State::parse(state).unwrap();
        for backend in Backend::ALL.into_iter().filter(|b| b.available().is_ok()) {
            let out = Executable::compile_with(&module, backend).unwrap().run(&state, &RunOptions::default()).unwrap();
            let got: Vec<bool> = (0..4).map(|l| out.is_killed(l)).collect();
            assert_eq!(got, killed, "KILL_IF {source} on {backend}");
        }
    }
}

#[test]
fn indirect_arrays_and_constants_read_per_lane() {
    let text = "VERT\nDCL IN[0]\nDCL OUT[0], POSITION\nDCL CONST[0..3]\nDCL ADDR[0]\nDCL TEMP[0..3], ARRAY(1)\n\
                IMM[0] FLT32 { 7.0, 0.0, 0.0, 0.0 }\n\
                ARL ADDR[0].x, IN[0].xxxx\n\
                MOV TEMP[ADDR[0].x](1), IMM[0].xxxx\n\
                ADD OUT[0], TEMP[2], CONST[ADDR[0].x+1]\nEND\n";
    let state = "invocations 2\ninput 0 0 2 0 0 0\ninput 0 1 1 0 0 0\nconst 0 2 10 10 10 10\nconst 0 3 20 20 20 20\n";
    let out = run(text, state);
    assert_eq!(out.get(0, 0).unwrap()[0], f(7.0 + 20.0), "lane 0 wrote TEMP[2] and reads CONST[3]");
    assert_eq!(out.get(0, 1).unwrap()[0], f(0.0 + 10.0), "lane 1 wrote TEMP[1] and reads CONST[2]");
}

#[test]
fn textures_sample_nearest_with_repeat() {
    let text = "FRAG\nDCL IN[0]\nDCL OUT[0], COLOR\nDCL SAMP[0]\nTEX OUT[0], IN[0], SAMP[0], 2D\nEND\n";
    let state = "invocations 3\ntexsize 0 2 2\ntexel 0 0 0 1 0 0 1\ntexel 0 1 1 0 1 0 1\n\
                 input 0 0 0.25 0.25 0 0\ninput 0 1 0.75 0.75 0 0\ninput 0 2 -0.25 -0.25 0 0\n";
    let out = run(text, state);
    assert_eq!(out.get(0, 0), Some([f(1.0), 0, 0, f(1.0)]));
    assert_eq!(out.get(0, 1), Some([0, f(1.0), 0, f(1.0)]));
    assert_eq!(out.get(0, 2), Some([0, f(1.0), 0, f(1.0)]), "repeat wraps -0.25 to 0.75");
}

#[test]
fn system_values_default_by_stage() {
    let text =
        "COMP\nPROPERTY CS_FIXED_BLOCK_WIDTH 2\nPROPERTY CS_FIXED_BLOCK_HEIGHT 2\nPROPERTY CS_FIXED_BLOCK_DEPTH 1\n\
                DCL SV[0], THREAD_ID\nDCL OUT[0]\nMOV OUT[0], SV[0]\nEND\n";
    let out = run(text, "invocations 4\n");
    let ids: Vec<[u32; 4]> = (0..4).map(|l| out.get(0, l).unwrap()).collect();
    assert_eq!(ids, [[0, 0, 0, 0], [1, 0, 0, 0], [0, 1, 0, 0], [1, 1, 0, 0]]);
    let text = "VERT\nDCL SV[0], VERTEXID\nDCL OUT[0], POSITION\nMOV OUT[0], SV[0]\nEND\n";
    let out = run(text, "invocations 2\nsysval VERTEXID 1 0x9 0 0 0\n");
    assert_eq!((out.get(0, 0).unwrap()[0], out.get(0, 1).unwrap()[0]), (0, 9), "lane, or the state's value");
    let state =
        "invocations 4\nsysval VERTEXID 0 0x7 0 0 0\nsysval VERTEXID 1 0x8 0 0 0\nsysval VERTEXID 3 0x9 0 0 0\n";
    let ids: Vec<u32> = (0..4).map(|l| run(text, state).get(0, l).unwrap()[0]).collect();
    assert_eq!(ids, [7, 8, 2, 9], "a lane the state leaves out between others takes the default");
}

#[test]
fn an_endless_loop_runs_out_of_steps() {
    let text = "FRAG\nDCL OUT[0], COLOR\nBGNLOOP\nENDLOOP\nEND\n";
    let shader = tgsi::parse(text).unwrap();
    let module = ir::from_tgsi(&shader).unwrap();
    let state = State::parse("invocations 1\n").unwrap();
    let err = exec::run(&module, &state, &RunOptions { step_budget: 10_000, ..RunOptions::default() }).unwrap_err();
    assert!(matches!(err, ExecError::StepBudget(10_000)), "{err}");
    assert!(err.to_string().contains("does not finish"), "{err}");
}

#[test]
fn lane_counts_other_than_quads_up_to_64_are_refused() {
    let text = "FRAG\nDCL OUT[0], COLOR\nEND\n";
    for lanes in [0, 3, 65, 128] {
        assert!(matches!(run_with(text, "invocations 1\n", lanes), Err(ExecError::Lanes(n)) if n == lanes));
    }
}

#[test]
fn every_declared_output_is_printed_even_unwritten() {
    let text = "VERT\nDCL OUT[0], POSITION\nDCL OUT[1..2], GENERIC[0]\nEND\n";
    let out = run(text, "invocations 1\n");
    assert_eq!(out.registers(), [0, 1, 2]);
    assert_eq!(out.write().lines().count(), 3);
}

#[test]
fn an_early_return_keeps_the_outputs_written_before_it() {
    let text = "FRAG\nDCL IN[0]\nDCL OUT[0], COLOR\nIMM[0] FLT32 { 1.0, 2.0, 0.0, 0.0 }\n\
                IF IN[0].xxxx\nMOV OUT[0], IMM[0].xxxx\nRET\nENDIF\nMOV OUT[0], IMM[0].yyyy\nEND\n";
    let out = run(text, "invocations 2\ninput 0 0 1 0 0 0\ninput 0 1 0 0 0 0\n");
    assert_eq!(out.get(0, 0), Some([f(1.0); 4]));
    assert_eq!(out.get(0, 1), Some([f(2.0); 4]));
}

#[test]
fn sample_queries_answer_for_single_sampled_resources() {
    // The 2015 sample-query rules: one sample, position (0, 0, 0, 0), the
    // resource operand's swizzle applied to the result.
    let text = "FRAG\nDCL IN[0]\nDCL OUT[0], COLOR\nDCL OUT[1], COLOR[1]\nDCL OUT[2], COLOR[2]\nDCL SAMP[0]\n\
                DCL SVIEW[0], 2D, FLOAT\n\
                TXQS OUT[0], SAMP[0], 2D\nSAMPLE_INFO OUT[1], SVIEW[0].yxxx, IN[0]\nSAMPLE_POS OUT[2], SVIEW[0], IN[0].xxxx\nEND\n";
    let out = run(text, "invocations 1\ntexsize 0 2 2\n");
    assert_eq!(out.get(0, 0), Some([1, 0, 0, 0]));
    assert_eq!(out.get(1, 0), Some([0, 1, 1, 1]));
    assert_eq!(out.get(2, 0), Some([0, 0, 0, 0]));
}

#[test]
fn indirectly_written_outputs_reach_the_results() {
    let text = "VERT\nDCL IN[0]\nDCL OUT[0], POSITION\nDCL OUT[1], GENERIC[0]\nDCL ADDR[0]\n\
                IMM[0] FLT32 { 3.0, 0.0, 0.0, 0.0 }\n\
                ARL ADDR[0].x, IN[0].xxxx\nMOV OUT[ADDR[0].x], IMM[0].xxxx\nEND\n";
    let out = run(text, "invocations 2\ninput 0 0 0 0 0 0\ninput 0 1 1 0 0 0\n");
    assert_eq!((out.get(0, 0), out.get(1, 0)), (Some([f(3.0); 4]), Some([0; 4])));
    assert_eq!((out.get(0, 1), out.get(1, 1)), (Some([0; 4]), Some([f(3.0); 4])));
}

/// The exponent of LDEXP and DLDEXP is an integer operand (Mesa's
/// `tgsi_opcode_infer_src_type`): `-` negates it and `|...|` takes its
/// absolute value as integers, whatever the opcode's own type.
#[test]
fn ldexp_exponent_modifiers_are_integer() {
    let text = "FRAG\nDCL IN[0]\nDCL IN[1]\nDCL OUT[0], COLOR\nDCL OUT[1], COLOR[1]\n\
                LDEXP OUT[0].x, IN[0].xxxx, -IN[1].xxxx\nLDEXP OUT[0].y, IN[0].xxxx, |IN[1].yyyy|\n\
                DLDEXP OUT[1].xy, IN[0].zwzw, -IN[1].xxxx\nDLDEXP OUT[1].zw, IN[0].zwzw, |IN[1].yyyy|\nEND\n";
    // IN[0]: 1.0f, then 1.0 as a double in zw; IN[1]: 3 and -3.
    let state = "invocations 1\ninput 0 * 1.0 0 0x00000000 0x3ff00000\ninput 1 * 0x00000003 0xfffffffd 0 0\n";
    let out = run(text, state);
    let [x, y, _, _] = out.get(0, 0).unwrap();
    assert_eq!((x, y), (f(0.125), f(8.0)));
    assert_eq!(out.get(1, 0), Some([0, 0x3fc0_0000, 0, 0x4020_0000]));
}

#[test]
fn whole_register_operations_match_channel_by_channel_ones() {
    // The same arithmetic on whole registers and one channel at a time,
    // with modifiers, saturation, broadcast operands and lanes that
    // diverge.
    let whole = "FRAG\nDCL IN[0]\nDCL IN[1]\nDCL OUT[0], COLOR\nDCL TEMP[0..1]\n\
                 MUL TEMP[0], IN[0], -IN[1]\nMAD TEMP[0], TEMP[0], IN[1].yyyy, IN[0]\n\
                 IF IN[0].xxxx\nADD_SAT TEMP[1], TEMP[0], |IN[1].zzzz|\nELSE\n\
                 MAD TEMP[1], TEMP[0], IN[1], IN[0]\nENDIF\nMOV OUT[0], TEMP[1]\nEND\n";
    let mut split = String::from("FRAG\nDCL IN[0]\nDCL IN[1]\nDCL OUT[0], COLOR\nDCL TEMP[0..1]\n");
    for c in ["x", "y", "z", "w"] {
        split += &format!("MUL TEMP[0].{c}, IN[0].{c}, -IN[1].{c}\n");
    }
    for c in ["z", "x", "w", "y"] {
        split += &format!("MAD TEMP[0].{c}, TEMP[0].{c}, IN[1].yyyy, IN[0].{c}\n");
    }
    split += "IF IN[0].xxxx\n";
    for c in ["w", "z", "y", "x"] {
        split += &format!("ADD_SAT TEMP[1].{c}, TEMP[0].{c}, |IN[1].zzzz|\n");
    }
    split += "ELSE\n";
    for c in ["y", "x", "w", "z"] {
        split += &format!("MAD TEMP[1].{c}, TEMP[0].{c}, IN[1].{c}, IN[0].{c}\n");
    }
    split += "ENDIF\nMOV OUT[0], TEMP[1]\nEND\n";
    let mut state = String::from("invocations 21\n");
    for lane in 0..21 {
        let v = |k: i32| (lane * 7 + k * 3) % 11 - 5;
        state += &format!("input 0 {lane} {} {} {} {}\n", v(0) * (lane % 2), v(1), v(2), v(3));
        state += &format!("input 1 {lane} {}.5 {} -{} {}.25\n", v(4), v(5), v(6).abs(), v(7));
    }
    assert_eq!(run(whole, &state).write(), run(&split, &state).write());
}

#[test]
fn one_output_table_serves_runs_of_any_shader() {
    // Buffers, kills, several registers and batches, emitted vertices:
    // each run into the shared table gives what a run of its own gives.
    let compute = "COMP\nDCL SV[0], THREAD_ID\nDCL BUFFER[0]\nDCL TEMP[0]\nIMM[0] UINT32 { 4, 0, 0, 0 }\n\
                   UMUL TEMP[0].x, SV[0].xxxx, IMM[0].xxxx\nSTORE BUFFER[0].x, TEMP[0].xxxx, SV[0].xxxx\nEND\n";
    let fragment = "FRAG\nDCL IN[0]\nDCL OUT[0], COLOR\nDCL OUT[3], COLOR[1]\n\
                    KILL_IF IN[0].xxxx\nMOV OUT[0], IN[0]\nADD OUT[3], IN[0], IN[0]\nEND\n";
    let geometry = "GEOM\nPROPERTY GS_INPUT_PRIMITIVE POINTS\nPROPERTY GS_OUTPUT_PRIMITIVE POINTS\n\
                    PROPERTY GS_MAX_OUTPUT_VERTICES 2\nDCL IN[][0], POSITION\nDCL OUT[0], POSITION\n\
                    MOV OUT[0], IN[0][0]\nEMIT\nEMIT\nENDPRIM\nEND\n";
    let mut fragment_state = String::from("invocations 70\n");
    for lane in 0..70 {
        fragment_state += &format!("input 0 {lane} {} 1 2 3\n", lane % 3);
    }
    let runs = [
        (compute, "invocations 8\nbuffer 0 64\n".to_string()),
        (fragment, fragment_state),
        (geometry, "invocations 3\nvinput 0 0 * 1 2 3 4\n".to_string()),
        (compute, "invocations 5\nbuffer 0 32\n".to_string()),
    ];
    for threads in [1, 2] {
        let options = RunOptions { threads, ..RunOptions::default() };
        let mut shared = exec::Outputs::new(0, []);
        for (text, state) in &runs {
            let module = ir::from_tgsi(&tgsi::parse(text).unwrap()).unwrap();
            let executable = exec::Executable::compile(&module).unwrap();
            let state = State::parse(state).unwrap();
            executable.run_into(&state, &options, &mut shared).unwrap();
            assert_eq!(shared, executable.run(&state, &options).unwrap(), "{text}");
            assert!(!shared.write().is_empty(), "{text}");
        }
    }
}

#[test]
fn a_state_built_in_code_runs_as_its_text_does() {
    let text = "FRAG\nDCL IN[0]\nDCL IN[1]\nDCL SV[0], FACE\nDCL OUT[0], COLOR\nDCL OUT[1], COLOR[1]\n\
                DCL CONST[0]\nADD OUT[0], IN[0], IN[1]\nADD OUT[1], SV[0], CONST[0]\nEND\n";
    let module = ir::from_tgsi(&tgsi::parse(text).unwrap()).unwrap();
    let lanes = 70u32;
    let column = |k: u32| (0..lanes).map(|lane| lane * 4 + k).collect::<Vec<u32>>();
    // The text form: one line per lane (IN[1] and SV[0]), and `*` lines.
    let mut lines = format!("invocations {lanes}\ninput 0 * 1 2 3 4\nconst 0 0 5 6 7 8\n");
    for lane in 0..lanes {
        let v: Vec<String> = (0..4).map(|k| (lane * 4 + k).to_string()).collect();
        lines += &format!(
            "input 1 {lane} 0x{:x} 0x{:x} 0x{:x} 0x{:x}\n",
            lane * 4,
            lane * 4 + 1,
            lane * 4 + 2,
            lane * 4 + 3
        );
        lines += &format!("sysval FACE {lane} {}\n", v.join(" "));
    }
    let parsed = State::parse(&lines).unwrap();

    // Built: a larger state cut down, with inputs set before and cleared.
    let mut built = State::parse("invocations 200\ninput 5 3 1 1 1 1\nconst 0 0 5 6 7 8\n").unwrap();
    built.clear_inputs();
    assert_eq!(built.input(5, 3), [0; 4]);
    built.set_invocations(lanes).unwrap();
    built.set_input(0, [f(1.0), f(2.0), f(3.0), f(4.0)]);
    built.set_input_lanes(1, [column(0), column(1), column(2), column(3)]);
    built.set_sysval_lanes(
        tgsi::SemanticName::Face,
        [0, 1, 2, 3].map(column).map(|c| c.iter().map(|&v| f(v as f32)).collect()),
    );
    assert_eq!(built.input_for_every_lane(0), Some([f(1.0), f(2.0), f(3.0), f(4.0)]));
    assert_eq!(built.input_for_every_lane(1), None, "per-lane values only");
    assert!(built.set_invocations(0).is_err() && built.set_invocations(exec::state::MAX_INVOCATIONS + 1).is_err());
    assert_eq!(built.invocations(), lanes, "a refused count changes nothing");

    for lanes_per_batch in [4, 64] {
        let options = RunOptions { lanes: lanes_per_batch, ..RunOptions::default() };
        let (a, b) = (exec::run(&module, &parsed, &options).unwrap(), exec::run(&module, &built, &options).unwrap());
        assert_eq!(a.write(), b.write());
    }
}
