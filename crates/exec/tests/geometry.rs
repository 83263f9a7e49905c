//! Running hand-written geometry shaders: 2-D inputs, the vertices `EMIT`
//! appends and the primitive ends `ENDPRIM` records, per lane and stream,
//! with lanes that diverge, the `GS_MAX_OUTPUT_VERTICES` cap, and the text
//! the results print as.

use exec::{Outputs, RunOptions, State};

fn f(x: f32) -> u32 {
    x.to_bits()
}

fn run_with(text: &str, state: &str, lanes: usize, threads: usize) -> Outputs {
    let shader = tgsi::parse(text).unwrap_or_else(|e| panic!("{}", e.render(text, "test")));
    let module = ir::from_tgsi(&shader).unwrap();
    let state = State::parse(state).unwrap_or_else(|e| panic!("{}", e.render(state, "state")));
    exec::run(&module, &state, &RunOptions { lanes, threads, ..RunOptions::default() }).unwrap()
}

/// Runs with 64 lanes a batch on one thread, and checks that 4 lanes a
/// batch and two threads give the same text.
fn run(text: &str, state: &str) -> Outputs {
    let out = run_with(text, state, 64, 1);
    for (lanes, threads) in [(4, 1), (4, 2), (64, 2)] {
        assert_eq!(run_with(text, state, lanes, threads).write(), out.write(), "{lanes} lanes, {threads} threads");
    }
    assert_eq!(Outputs::parse(&out.write()), Ok(out.clone()), "the text reads back");
    out
}

/// The vertex counts of every lane on `stream`.
fn counts(out: &Outputs, stream: u32) -> Vec<u32> {
    (0..out.invocations()).map(|l| out.emitted(l, stream).map_or(0, |e| e.vertices())).collect()
}

/// A triangle in, a triangle out: vertex k at `IN[k][0] * 2 + (0, 0, 0, 1)`,
/// its `GENERIC[0]` the vertex number read from a constant.
const TRIANGLE: &str = "GEOM\n\
    PROPERTY GS_INPUT_PRIMITIVE TRIANGLES\n\
    PROPERTY GS_OUTPUT_PRIMITIVE TRIANGLE_STRIP\n\
    PROPERTY GS_MAX_OUTPUT_VERTICES 3\n\
    DCL IN[][0], POSITION\n\
    DCL OUT[0], POSITION\n\
    DCL OUT[1], GENERIC[0]\n\
    DCL CONST[0]\n\
    IMM[0] FLT32 { 2.0, 0.0, 0.0, 1.0 }\n\
    IMM[1] INT32 { 0, 1, 0, 0 }\n\
    MAD OUT[0], IN[0][0], IMM[0].xxxx, IMM[0].yyyw\n\
    MOV OUT[1], CONST[0].xxxx\n\
    EMIT IMM[1].xxxx\n\
    MAD OUT[0], IN[1][0], IMM[0].xxxx, IMM[0].yyyw\n\
    MOV OUT[1], CONST[0].yyyy\n\
    EMIT IMM[1].xxxx\n\
    MAD OUT[0], IN[2][0], IMM[0].xxxx, IMM[0].yyyw\n\
    MOV OUT[1], CONST[0].zzzz\n\
    EMIT IMM[1].xxxx\n\
    ENDPRIM IMM[1].xxxx\n\
    END\n";

#[test]
fn a_triangle_emits_three_vertices_from_its_input_vertices() {
    let state = "invocations 2\nconst 0 0 0 1 2 0\n\
                 vinput 0 0 * 1 2 3 4\nvinput 1 0 * 5 6 7 8\nvinput 2 0 * -1 -2 -3 -4\n\
                 vinput 1 0 1 0.5 0.25 0 -0\n";
    let out = run(TRIANGLE, state);
    let want = |x: f32, y: f32, z: f32, w: f32| [f(2.0 * x), f(2.0 * y), f(2.0 * z), f(2.0 * w + 1.0)];
    for lane in 0..2 {
        let e = out.emitted(lane, 0).unwrap();
        assert_eq!(e.vertices(), 3, "lane {lane}");
        assert_eq!(e.primitive_ends(), [3]);
        assert_eq!(out.emitted_output(0, lane, 0, 0), Some(want(1.0, 2.0, 3.0, 4.0)));
        assert_eq!(out.emitted_output(0, lane, 0, 2), Some(want(-1.0, -2.0, -3.0, -4.0)));
        for k in 0..3 {
            assert_eq!(out.emitted_output(1, lane, 0, k), Some([f(k as f32); 4]), "vertex {k}");
        }
        assert_eq!(out.emitted_output(0, lane, 0, 3), None);
        assert_eq!(out.streams(lane).collect::<Vec<_>>(), [0]);
        // OUT keeps its last values after EMIT.
        assert_eq!(out.get(0, lane), out.emitted_output(0, lane, 0, 2));
    }
    assert_eq!(out.emitted_output(0, 0, 0, 1), Some(want(5.0, 6.0, 7.0, 8.0)));
    assert_eq!(out.emitted_output(0, 1, 0, 1), Some([f(1.0), f(0.5), 0, f(1.0)]), "lane 1's own IN[1][0]");
    let text = out.write();
    let lane0: Vec<&str> = text.lines().take(10).collect();
    assert_eq!(
        lane0,
        [
            "output 0 0 0xc0000000 0xc0800000 0xc0c00000 0xc0e00000",
            "output 1 0 0x40000000 0x40000000 0x40000000 0x40000000",
            "emit 0 0 0 0 0x40000000 0x40800000 0x40c00000 0x41100000",
            "emit 0 0 0 1 0x00000000 0x00000000 0x00000000 0x00000000",
            "emit 0 0 1 0 0x41200000 0x41400000 0x41600000 0x41880000",
            "emit 0 0 1 1 0x3f800000 0x3f800000 0x3f800000 0x3f800000",
            "emit 0 0 2 0 0xc0000000 0xc0800000 0xc0c00000 0xc0e00000",
            "emit 0 0 2 1 0x40000000 0x40000000 0x40000000 0x40000000",
            "endprim 0 0 3",
            "output 0 1 0xc0000000 0xc0800000 0xc0c00000 0xc0e00000",
        ]
    );
}

#[test]
fn two_d_reads_fall_back_to_the_plain_input_of_the_lane() {
    // No `vinput` at all: every vertex reads `input 0`; a `vinput` for one
    // lane replaces it there only.
    let state = "invocations 3\ninput 0 * 1 1 1 1\ninput 0 2 3 3 3 3\nvinput 2 0 0 7 7 7 7\n";
    let out = run(TRIANGLE, state);
    let v = |x: f32| [f(2.0 * x), f(2.0 * x), f(2.0 * x), f(2.0 * x + 1.0)];
    let first: Vec<_> = (0..3).map(|l| out.emitted_output(0, l, 0, 0)).collect();
    assert_eq!(first, [Some(v(1.0)), Some(v(1.0)), Some(v(3.0))]);
    let third: Vec<_> = (0..3).map(|l| out.emitted_output(0, l, 0, 2)).collect();
    assert_eq!(third, [Some(v(7.0)), Some(v(1.0)), Some(v(3.0))]);
}

#[test]
fn an_indirect_vertex_index_reads_each_lanes_vertex() {
    let text = "GEOM\nPROPERTY GS_INPUT_PRIMITIVE TRIANGLES\nPROPERTY GS_OUTPUT_PRIMITIVE POINTS\n\
                DCL IN[][0], GENERIC[0]\nDCL IN[][1], GENERIC[1]\nDCL OUT[0], POSITION\nDCL ADDR[0]\n\
                ARL ADDR[0].x, IN[0][1].xxxx\nMOV OUT[0], IN[ADDR[0].x][0]\nEMIT\nEND\n";
    let state = "invocations 3\nvinput 0 0 * 10 0 0 0\nvinput 1 0 * 11 0 0 0\nvinput 2 0 * 12 0 0 0\n\
                 input 1 0 2 0 0 0\ninput 1 1 0 0 0 0\ninput 1 2 1 0 0 0\n";
    let out = run(text, state);
    let got: Vec<u32> = (0..3).map(|l| out.emitted_output(0, l, 0, 0).unwrap()[0]).collect();
    assert_eq!(got, [f(12.0), f(10.0), f(11.0)]);
    assert!(out.emitted(0, 0).unwrap().primitive_ends().is_empty(), "no ENDPRIM, no primitive end");
}

#[test]
fn a_loop_emits_a_number_of_vertices_of_its_own_per_lane() {
    // Lane l emits IN[0][0].x vertices (an integer), vertex i at x = i,
    // ending a primitive after every second vertex and once at the end.
    let text = "GEOM\nPROPERTY GS_INPUT_PRIMITIVE POINTS\nPROPERTY GS_OUTPUT_PRIMITIVE LINE_STRIP\n\
                PROPERTY GS_MAX_OUTPUT_VERTICES 64\n\
                DCL IN[][0], GENERIC[0]\nDCL OUT[0], POSITION\nDCL TEMP[0..1]\n\
                IMM[0] INT32 { 0, 1, 2, 0 }\n\
                MOV TEMP[0].x, IMM[0].xxxx\n\
                BGNLOOP\n\
                  ISGE TEMP[1].x, TEMP[0].xxxx, IN[0][0].xxxx\n\
                  UIF TEMP[1].xxxx\n BRK\n ENDIF\n\
                  MOV OUT[0], TEMP[0].xxxx\n\
                  EMIT IMM[0].xxxx\n\
                  AND TEMP[1].y, TEMP[0].xxxx, IMM[0].yyyy\n\
                  UIF TEMP[1].yyyy\n ENDPRIM IMM[0].xxxx\n ENDIF\n\
                  UADD TEMP[0].x, TEMP[0].xxxx, IMM[0].yyyy\n\
                ENDLOOP\n\
                ENDPRIM IMM[0].xxxx\n\
                END\n";
    let ns = [0u32, 1, 5, 2, 9, 3];
    let mut state = format!("invocations {}\n", ns.len());
    for (lane, n) in ns.iter().enumerate() {
        state += &format!("vinput 0 0 {lane} 0x{n:x} 0 0 0\n");
    }
    let out = run(text, &state);
    assert_eq!(counts(&out, 0), ns);
    for (lane, &n) in ns.iter().enumerate() {
        let e = out.emitted(lane as u32, 0).unwrap();
        let mut ends: Vec<u32> = (1..=n).filter(|k| k % 2 == 0).collect();
        ends.push(n);
        assert_eq!(e.primitive_ends(), ends, "lane {lane}");
        for i in 0..n {
            assert_eq!(e.vertex(i).unwrap(), [[i; 4]], "lane {lane} vertex {i}");
        }
    }
    assert_eq!(out.write().lines().filter(|l| l.starts_with("endprim 4 0 ")).count(), 5);
}

#[test]
fn max_output_vertices_caps_the_emits_of_each_lane() {
    let text = "GEOM\nPROPERTY GS_INPUT_PRIMITIVE POINTS\nPROPERTY GS_OUTPUT_PRIMITIVE POINTS\n\
                PROPERTY GS_MAX_OUTPUT_VERTICES 2\n\
                DCL IN[][0], GENERIC[0]\nDCL OUT[0], POSITION\n\
                IMM[0] FLT32 { 1.0, 2.0, 3.0, 4.0 }\n\
                MOV OUT[0], IMM[0].xxxx\nEMIT\nMOV OUT[0], IMM[0].yyyy\nEMIT\nENDPRIM\n\
                MOV OUT[0], IMM[0].zzzz\nEMIT\nMOV OUT[0], IMM[0].wwww\nEMIT\nENDPRIM\nEND\n";
    let out = run(text, "invocations 5\n");
    assert_eq!(counts(&out, 0), [2; 5]);
    let e = out.emitted(3, 0).unwrap();
    assert_eq!((e.vertex(0).unwrap(), e.vertex(1).unwrap()), (&[[f(1.0); 4]][..], &[[f(2.0); 4]][..]));
    assert_eq!(e.primitive_ends(), [2, 2], "ENDPRIM still counts, after no new vertex");
    assert_eq!(out.get(0, 3), Some([f(4.0); 4]), "the outputs are written all the same");
}

#[test]
fn without_a_cap_emits_stop_at_the_backend_limit() {
    let text = "GEOM\nPROPERTY GS_INPUT_PRIMITIVE POINTS\nPROPERTY GS_OUTPUT_PRIMITIVE POINTS\n\
                DCL OUT[0], POSITION\nDCL TEMP[0]\nIMM[0] INT32 { 0, 1, 2000, 0 }\n\
                MOV TEMP[0].x, IMM[0].xxxx\n\
                BGNLOOP\n USEQ TEMP[0].y, TEMP[0].xxxx, IMM[0].zzzz\n UIF TEMP[0].yyyy\n BRK\n ENDIF\n\
                EMIT\n UADD TEMP[0].x, TEMP[0].xxxx, IMM[0].yyyy\nENDLOOP\nEND\n";
    let out = run_with(text, "invocations 1\n", 4, 1);
    assert_eq!(counts(&out, 0), [exec::geometry::MAX_VERTICES]);
}

#[test]
fn emit_and_endprim_on_stream_1_leave_stream_0_alone() {
    let text = "GEOM\nPROPERTY GS_INPUT_PRIMITIVE POINTS\nPROPERTY GS_OUTPUT_PRIMITIVE POINTS\n\
                DCL IN[][0], GENERIC[0]\nDCL OUT[0], POSITION\nDCL OUT[1], GENERIC[0]\n\
                IMM[0] INT32 { 0, 1, 7, 0 }\n\
                MOV OUT[0], IN[0][0]\nEMIT IMM[0].yyyy\nENDPRIM IMM[0].yyyy\n\
                MOV OUT[1], IN[0][0]\nEMIT IMM[0].xxxx\nEMIT IMM[0].yyyy\n\
                EMIT IMM[0].zzzz\nENDPRIM IMM[0].zzzz\nEND\n";
    let out = run(text, "invocations 2\ninput 0 * 1 2 3 4\ninput 0 1 5 6 7 8\n");
    assert_eq!((counts(&out, 0), counts(&out, 1)), (vec![1, 1], vec![2, 2]));
    assert_eq!(out.streams(1).collect::<Vec<_>>(), [0, 1], "stream 7 does not exist: ignored");
    let s1 = out.emitted(1, 1).unwrap();
    assert_eq!(s1.primitive_ends(), [1]);
    let v = [f(5.0), f(6.0), f(7.0), f(8.0)];
    assert_eq!(s1.vertex(0).unwrap(), [v, [0; 4]]);
    assert_eq!(s1.vertex(1).unwrap(), [v, v]);
    assert_eq!(out.emitted(1, 0).unwrap().vertex(0).unwrap(), [v, v]);
    assert!(out.emitted(1, 0).unwrap().primitive_ends().is_empty());
    let text = out.write();
    let lane1: Vec<&str> = text.lines().filter(|l| l.starts_with("emit 1 ") || l.starts_with("endprim 1 ")).collect();
    assert_eq!(
        lane1,
        [
            "emit 1 0 0 0 0x40a00000 0x40c00000 0x40e00000 0x41000000",
            "emit 1 0 0 1 0x40a00000 0x40c00000 0x40e00000 0x41000000",
            "emit 1 1 0 0 0x40a00000 0x40c00000 0x40e00000 0x41000000",
            "emit 1 1 0 1 0x00000000 0x00000000 0x00000000 0x00000000",
            "endprim 1 1 1",
            "emit 1 1 1 0 0x40a00000 0x40c00000 0x40e00000 0x41000000",
            "emit 1 1 1 1 0x40a00000 0x40c00000 0x40e00000 0x41000000",
        ]
    );
}

#[test]
fn only_the_lanes_that_take_a_branch_emit_in_it() {
    let text = "GEOM\nPROPERTY GS_INPUT_PRIMITIVE POINTS\nPROPERTY GS_OUTPUT_PRIMITIVE POINTS\n\
                DCL IN[][0], GENERIC[0]\nDCL OUT[0], POSITION\nIMM[0] FLT32 { 1.0, 2.0, 0.0, 0.0 }\n\
                IF IN[0][0].xxxx\n MOV OUT[0], IMM[0].xxxx\n EMIT\nELSE\n MOV OUT[0], IMM[0].yyyy\n EMIT\n EMIT\n ENDPRIM\nENDIF\n\
                END\n";
    let mut state = String::from("invocations 70\n");
    for lane in (0..70).step_by(3) {
        state += &format!("input 0 {lane} 1 0 0 0\n");
    }
    let out = run(text, &state);
    for lane in 0..70 {
        let e = out.emitted(lane, 0).unwrap();
        let (n, value, ends) = if lane % 3 == 0 { (1, 1.0, vec![]) } else { (2, 2.0, vec![2]) };
        assert_eq!((e.vertices(), e.primitive_ends()), (n, &ends[..]), "lane {lane}");
        assert_eq!(e.vertex(n - 1).unwrap(), [[f(value); 4]]);
    }
}

#[test]
fn indirect_output_writes_are_in_the_emitted_vertex() {
    let text = "GEOM\nPROPERTY GS_INPUT_PRIMITIVE POINTS\nPROPERTY GS_OUTPUT_PRIMITIVE POINTS\n\
                DCL IN[][0], GENERIC[0]\nDCL OUT[0], POSITION\nDCL OUT[1], GENERIC[0]\nDCL ADDR[0]\n\
                IMM[0] FLT32 { 1.0, 2.0, 3.0, 0.0 }\n\
                ARL ADDR[0].x, IN[0][0].xxxx\nMOV OUT[ADDR[0].x], IMM[0].xxxx\nEMIT\n\
                MOV OUT[ADDR[0].x], IMM[0].yyyy\nEMIT\nEND\n";
    let out = run(text, "invocations 2\ninput 0 0 0 0 0 0\ninput 0 1 1 0 0 0\n");
    assert_eq!(out.get(1, 1), Some([f(2.0); 4]), "final");
    let e = out.emitted(1, 0).unwrap();
    assert_eq!(e.vertex(0).unwrap(), [[0; 4], [f(1.0); 4]]);
    assert_eq!(e.vertex(1).unwrap(), [[0; 4], [f(2.0); 4]]);
    assert_eq!(out.get(1, 1), Some([f(2.0); 4]));
}
