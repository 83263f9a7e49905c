//! Programs compiled whole against the interpreter: arrays, indirect
//! loads, 64-bit operations, textures, control flow and kills.

use super::*;
use crate::{Filter, Sampler, TextureLevel, Wrap};

/// Two arrays, written and read at per-lane indices (negative and past
/// the end among them) inside a loop and under IFs, and one read at a
/// fixed index; lanes leave the loop at different turns.
const ARRAYS: &str = "FRAG\nDCL IN[0]\nDCL OUT[0], COLOR\nDCL OUT[1], GENERIC[0]\nDCL TEMP[0..2]\n\
    DCL TEMP[3..7], ARRAY(1)\nDCL TEMP[8..10], ARRAY(2)\nDCL ADDR[0..1]\n\
    IMM[0] FLT32 {1.0, 0.5, 3.0, 0.0}\nIMM[1] INT32 {1, 5, -2, 7}\n\
    MOV TEMP[0], IMM[0].wwww\nMOV TEMP[4], IN[0]\nMOV TEMP[9].y, IN[0].wwww\n\
    BGNLOOP\n\
      SGE TEMP[1].x, TEMP[0].xxxx, IN[0].wwww\n  IF TEMP[1].xxxx\n    BRK\n  ENDIF\n\
      F2I TEMP[1].y, TEMP[0].xxxx\n  UADD TEMP[1].z, TEMP[1].yyyy, IMM[1].zzzz\n\
      UARL ADDR[0].x, TEMP[1].zzzz\n  UARL ADDR[1].x, TEMP[1].yyyy\n\
      MOV TEMP[ADDR[0].x+3].xz, TEMP[0].xxxx\n\
      FRC TEMP[2].x, IN[0].yyyy\n  SLT TEMP[2].x, TEMP[2].xxxx, IMM[0].yyyy\n\
      IF TEMP[2].xxxx\n    ADD TEMP[ADDR[1].x+8].y, TEMP[ADDR[1].x+8].yyyy, IMM[0].xxxx\n  ELSE\n\
        MOV TEMP[ADDR[1].x+5], IN[0].zwxy\n  ENDIF\n\
      ADD TEMP[0].x, TEMP[0].xxxx, IMM[0].xxxx\n\
    ENDLOOP\n\
    UARL ADDR[0].x, IMM[1].wwww\n\
    ADD TEMP[2], TEMP[ADDR[0].x+3], TEMP[4]\nADD TEMP[2], TEMP[2], TEMP[6]\n\
    MOV OUT[0], TEMP[2]\nADD OUT[1], TEMP[ADDR[1].x+8], TEMP[10]\nEND\n";

/// Indirect CONST (buffer 0, and buffer 1 by a 2-D index), IMM and IN
/// loads at per-lane indices, negative and past every table among them,
/// some under an IF.
const INDIRECT_LOADS: &str = "VERT\nDCL IN[0]\nDCL IN[1]\nDCL IN[2]\nDCL OUT[0], POSITION\nDCL OUT[1], GENERIC[0]\n\
    DCL CONST[0][0..3]\nDCL CONST[1][0..2]\nDCL TEMP[0..2]\nDCL ADDR[0..1]\n\
    IMM[0] FLT32 {1.0, 0.5, 3.0, 0.0}\nIMM[1] INT32 {1, 5, -2, 7}\nIMM[2] FLT32 {9.0, 8.0, 7.0, 6.0}\n\
    IMM[3] INT32 {3000, 34000, 0, 0}\n\
    F2I TEMP[0].x, IN[0].xxxx\nUMAD TEMP[0].y, TEMP[0].xxxx, IMM[3].xxxx, IMM[3].yyyy\nUARL ADDR[1].x, TEMP[0].yyyy\nUADD TEMP[0].x, TEMP[0].xxxx, IMM[1].zzzz\nUARL ADDR[0].x, TEMP[0].xxxx\n\
    MOV TEMP[1], CONST[0][ADDR[0].x+1]\nADD TEMP[1], TEMP[1], CONST[1][ADDR[0].x+2].wzyx\n\
    ADD TEMP[1], TEMP[1], IMM[ADDR[0].x+1]\n\
    SLT TEMP[2].x, IN[0].yyyy, IMM[0].zzzz\nIF TEMP[2].xxxx\n  ADD TEMP[1], TEMP[1], IN[ADDR[0].x+1]\nENDIF\n\
    MOV OUT[0], TEMP[1]\nMOV OUT[1], CONST[0][ADDR[1].x+4]\nEND\n";

/// `n` lanes of IN[0] = (lane / 2 % 13, lane / 3, -lane, lane / 4 % 5),
/// IN[1] and IN[2] per lane, and constants of two buffers, one far past
/// the others.
fn indexed_state(n: u32) -> String {
    let mut s = format!("invocations {n}\n");
    for l in 0..n {
        let x = l as f32;
        s += &format!("input 0 {l} {} {} {} {}\n", (l / 2 % 13) as f32, x / 3.0, -x, (l / 4 % 5) as f32);
        s += &format!("input 1 {l} {} 1 2 3\ninput 2 {l} 4 {} 5 6\n", x * 0.5, x * 0.25);
    }
    for i in 0..6 {
        s += &format!("const 0 {i} {i} 0.5 {} 2\nconst 1 {i} 3 {} 1 {i}\n", i * 2, i + 7);
    }
    s += "const 0 70004 11 12 13 14\nconst 0 67004 15 16 17 18\n";
    s
}

/// Doubles and 64-bit integers, some saturated or negated, in a loop
/// lanes leave at different turns and under an IF.
const WIDE: &str = "FRAG\nDCL IN[0]\nDCL OUT[0], COLOR\nDCL TEMP[0..4]\n\
    IMM[0] FLT32 {1.0, 0.5, 3.0, 0.0}\nIMM[1] UINT32 {4294967295, 1, 7, 0}\n\
    MOV TEMP[0], IMM[0].wwww\nF2D TEMP[1], IN[0].xxyy\nU2I64 TEMP[2], IMM[1].xxzz\n\
    BGNLOOP\n\
      SGE TEMP[3].x, TEMP[0].xxxx, IN[0].wwww\n  IF TEMP[3].xxxx\n    BRK\n  ENDIF\n\
      DMUL TEMP[1].xy, TEMP[1].xyxy, -TEMP[1].zwzw\n  DADD TEMP[1].zw, TEMP[1].xyxy, |TEMP[1].zwzw|\n\
      FRC TEMP[3].y, IN[0].yyyy\n  SLT TEMP[3].y, TEMP[3].yyyy, IMM[0].yyyy\n\
      IF TEMP[3].yyyy\n    U64ADD TEMP[2].xy, TEMP[2].xyxy, TEMP[2].zwzw\n  ENDIF\n\
      ADD TEMP[0].x, TEMP[0].xxxx, IMM[0].xxxx\n\
    ENDLOOP\n\
    D2F TEMP[4].x, TEMP[1].xyxy\nD2F TEMP[4].y, TEMP[1].zwzw\nDSLT TEMP[4].z, TEMP[1].xyxy, TEMP[1].zwzw\n\
    MOV TEMP[4].w, TEMP[2].yyyy\nMOV_SAT OUT[0], TEMP[4]\nEND\n";

#[test]
fn wide_operations_in_loops_and_ifs_match_the_interpreter_whole() {
    for lanes in [4, 64] {
        for n in [37, 130] {
            both(WIDE, &indexed_state(n), lanes);
        }
    }
}

#[test]
fn arrays_in_loops_and_ifs_match_the_interpreter_whole() {
    for lanes in [4, 64] {
        for n in [37, 130] {
            let out = both(ARRAYS, &indexed_state(n), lanes);
            assert_ne!(out.write(), "", "the shader writes outputs");
        }
    }
}

#[test]
fn indirect_loads_match_the_interpreter_whole() {
    for lanes in [4, 64] {
        for n in [37, 130] {
            both(INDIRECT_LOADS, &indexed_state(n), lanes);
        }
    }
}

/// Every texture instruction's kind, compiled whole, against the
/// interpreter: in both arms of an IF and in a loop (partial quads), on
/// several units (a mipmapped nearest-repeat texture, linear clamp and
/// linear repeat ones of sizes that are not powers of two, a nearest
/// clamp one, a nearest repeat one of one level, an unbound unit), with NaN, infinite, huge, negative and
/// ordinary coordinates, biases, levels and gradients.
/// Every texture opcode, in both arms of an IF and in a loop.
const TEXTURES: &str = "FRAG\nDCL IN[0]\nDCL IN[1]\nDCL IN[2]\n\
            DCL OUT[0], GENERIC[0]\nDCL OUT[1], GENERIC[1]\nDCL OUT[2], GENERIC[2]\nDCL OUT[3], GENERIC[3]\n\
            DCL OUT[4], GENERIC[4]\nDCL OUT[5], GENERIC[5]\nDCL OUT[6], GENERIC[6]\nDCL OUT[7], GENERIC[7]\n\
            DCL OUT[8], GENERIC[8]\nDCL OUT[9], GENERIC[9]\nDCL OUT[10], GENERIC[10]\nDCL OUT[11], GENERIC[11]\n\
            DCL OUT[12], GENERIC[12]\nDCL OUT[13], GENERIC[13]\nDCL OUT[14], GENERIC[14]\nDCL OUT[15], GENERIC[15]\n\
            DCL SAMP[0]\nDCL SAMP[1]\nDCL SAMP[2]\nDCL SAMP[3]\nDCL SAMP[4]\nDCL SAMP[5]\n\
            DCL SVIEW[0], 2D, FLOAT\nDCL SVIEW[1], 2D, FLOAT\nDCL TEMP[0..4]\n\
            IMM[0] FLT32 {0.5, 1.0, 0.0, 3.0}\n\
            SLT TEMP[0].x, IN[1].wwww, IMM[0].xxxx\n\
            IF TEMP[0].xxxx\n\
              TEX OUT[0], IN[0], SAMP[0], 2D\n\
              TXP OUT[1].xzw, IN[0].yxzw, SAMP[1], 2D\n\
              TXB_SAT OUT[2], -IN[0], SAMP[0], 2D\n\
              TXP OUT[15], IN[0], SAMP[5], 2D\n\
            ELSE\n\
              TXL OUT[3], |IN[0]|, SAMP[0], 2D\n\
              TXD OUT[4].yw, IN[0], IN[1], IN[2], SAMP[0], 2D\n\
              TEX OUT[2], IN[0].wzyx, SAMP[2], 2D\n\
              TEX OUT[15].yw, IN[1], SAMP[5], 2D\n\
            ENDIF\n\
            F2I TEMP[1], IN[1]\n\
            TXF OUT[5], TEMP[1], SAMP[0], 2D\n\
            TXQ OUT[6], TEMP[1].wwww, SAMP[0], 2D\n\
            TXQS OUT[7], SAMP[0], 2D\n\
            SAMPLE OUT[8], IN[0], SVIEW[1], SAMP[3]\n\
            SAMPLE_B OUT[9], IN[0], SVIEW[0], SAMP[0], IN[1].xxxx\n\
            SAMPLE_D OUT[10], IN[0], SVIEW[0], SAMP[0], IN[1], IN[2]\n\
            SAMPLE_POS OUT[11], TEMP[4], TEMP[1].xxxx\n\
            SAMPLE_INFO OUT[12].yzw, TEMP[4], IN[0]\nSAMPLE_INFO OUT[12].x, SVIEW[1].yxxx, IN[0]\n\
            TEX OUT[13], IN[0], SAMP[4], 2D\n\
            MOV TEMP[2], IMM[0].zzzz\n\
            MOV TEMP[3], IN[0]\n\
            BGNLOOP\n\
              SGE TEMP[0].y, TEMP[2].xxxx, IN[1].zzzz\n\
              IF TEMP[0].yyyy\n    BRK\n  ENDIF\n\
              TXF_LZ TEMP[1], TEMP[1], SAMP[1], 2D\n\
              SAMPLE_L TEMP[3], TEMP[3].yxzw, SVIEW[0], SAMP[0], TEMP[2].xxxx\n\
              ADD TEMP[2].x, TEMP[2].xxxx, IMM[0].yyyy\n\
              SGE TEMP[0].z, TEMP[2].xxxx, IMM[0].wwww\n\
              IF TEMP[0].zzzz\n    BRK\n  ENDIF\n\
            ENDLOOP\n\
            ADD OUT[14], TEMP[3], TEMP[1]\nEND\n";

/// 157 lanes of inputs that move smoothly within most quads and jump in
/// some, odd values among them, and textures of several sizes and levels.
fn texture_state() -> State {
    // Odd values, picked lane by lane by a simple hash.
    let odd = [
        0.0,
        -0.0,
        0.25,
        0.5,
        0.75,
        1.0,
        -1.0,
        1.5,
        -0.3,
        2.7,
        7.9,
        -13.1,
        1e-3,
        1e30,
        -1e30,
        3.0e9,
        f32::NAN,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::MIN_POSITIVE,
        0.126,
        0.874,
        4.0,
        0.0625,
    ];
    let n = 157u32;
    let mut state = State::new(n).unwrap();
    for input in 0..3u32 {
        let column = |c: u32| {
            (0..n)
                .map(|l| {
                    let h = (l.wrapping_mul(2654435761) ^ (input * 97 + c * 31)).wrapping_mul(40503) >> 7;
                    // Most lanes in a quad move smoothly, some jump.
                    let v = if h.is_multiple_of(3) {
                        odd[(h as usize / 3) % odd.len()]
                    } else {
                        (l % 8) as f32 * 0.13 - 0.2
                    };
                    v.to_bits()
                })
                .collect::<Vec<u32>>()
        };
        state.set_input_lanes(input, [column(0), column(1), column(2), column(3)]);
    }
    let level = |w: u32, h: u32, seed: u32| TextureLevel {
        width: w,
        height: h,
        texels: (0..w * h)
            .map(|i| [(i + seed) as f32, (i * 7 + seed) as f32 * 0.25, -(i as f32), 1.0].map(f32::to_bits))
            .collect(),
    };
    state.set_texture(0, vec![level(8, 8, 1), level(4, 4, 100), level(2, 2, 200), level(1, 1, 300)]).unwrap();
    state.set_texture(1, vec![level(3, 5, 7)]).unwrap();
    state.set_texture(2, vec![level(6, 3, 9)]).unwrap();
    state.set_texture(3, vec![level(4, 2, 11)]).unwrap();
    // Nearest repeat on a power-of-two size, one level: the sampler's
    // fast path, which the compiled code takes itself (no call).
    state.set_texture(5, vec![level(8, 4, 13)]).unwrap();
    state.set_sampler(0, Sampler { filter: Filter::Nearest, wrap: Wrap::Repeat });
    state.set_sampler(1, Sampler { filter: Filter::Linear, wrap: Wrap::Clamp });
    state.set_sampler(2, Sampler { filter: Filter::Linear, wrap: Wrap::Repeat });
    state.set_sampler(3, Sampler { filter: Filter::Nearest, wrap: Wrap::Clamp });
    state
}

#[test]
fn texture_steps_compiled_whole_match_the_interpreter() {
    let module = ir::from_tgsi(&tgsi::parse(TEXTURES).unwrap()).unwrap();
    let program = crate::program::Program::compile(&module).unwrap();
    assert!(crate::jit::compile(&program, crate::run::compiled::CALLBACKS).unwrap().is_some(), "compiled whole");

    let mut state = texture_state();
    for positions in [Vec::new(), vec![[0.25, 0.75], [0.875, 0.5], [0.5, 0.125]]] {
        state.set_sample_positions(positions);
        for lanes in [4, 16, 64] {
            let options = RunOptions { lanes, ..RunOptions::default() };
            let interp =
                Executable::compile_with(&module, Backend::Interpreter).unwrap().run(&state, &options).unwrap();
            let jit = Executable::compile_with(&module, Backend::Jit).unwrap().run(&state, &options).unwrap();
            assert_eq!(jit.write(), interp.write(), "{lanes} lanes");
        }
    }
}

#[test]
fn switches_returns_kills_and_derivatives_match_the_interpreter() {
    // Lanes sorted by a SWITCH on lane % 4 (case 1 falls through into
    // case 2, case 3 breaks early), some returning inside an IF, some
    // killed; a derivative of a value written only in some lanes, and
    // an indirect load from the outputs through the interpreter.
    let text = "FRAG\nDCL IN[0]\nDCL OUT[0], COLOR\nDCL OUT[1], GENERIC[0]\nDCL TEMP[0..3]\nDCL ADDR[0]\n\
                IMM[0] INT32 {0, 1, 2, 3}\nIMM[1] FLT32 {0.5, 2.0, 4.0, 0.0}\n\
                F2I TEMP[0].x, IN[0].xxxx\nAND TEMP[0].x, TEMP[0].xxxx, IMM[0].wwww\n\
                MOV TEMP[1], IN[0].wzyx\n\
                SWITCH TEMP[0].xxxx\n\
                CASE IMM[0].yyyy\n  MUL TEMP[1], TEMP[1], IMM[1].yyyy\n\
                CASE IMM[0].zzzz\n  ADD TEMP[1], TEMP[1], IMM[1].zzzz\n  BRK\n\
                CASE IMM[0].wwww\n  SLT TEMP[2].x, IN[0].yyyy, IMM[1].yyyy\n  IF TEMP[2].xxxx\n    BRK\n  ENDIF\n  MAD TEMP[1], TEMP[1], IN[0], IMM[1].xxxx\n  BRK\n\
                DEFAULT\n  MOV TEMP[1].x, IMM[1].wwww\n  BRK\n\
                ENDSWITCH\n\
                MOV OUT[1], TEMP[1]\n\
                DDX TEMP[3], TEMP[1]\n\
                SGE TEMP[2].y, IN[0].xxxx, IMM[1].zzzz\n\
                IF TEMP[2].yyyy\n  KILL\nENDIF\n\
                UARL ADDR[0].x, IMM[0].yyyy\n\
                MOV TEMP[2], OUT[ADDR[0].x]\n\
                SGE TEMP[2].z, IN[0].yyyy, IMM[1].yyyy\n\
                IF TEMP[2].zzzz\n  MOV OUT[0], TEMP[3]\n  RET\nENDIF\n\
                ADD OUT[0], TEMP[2], TEMP[3]\nEND\n";
    // Without the OUT load, the code stores the outputs itself.
    let direct = text.replace("MOV TEMP[2], OUT[ADDR[0].x]\n", "MOV TEMP[2], IN[0]\n");
    // With it, the interpreter runs the program (and must agree).
    for (text, tier) in [(text, Backend::Interpreter), (direct.as_str(), Backend::Jit)] {
        for lanes in [4, 64] {
            assert_eq!(run_both(text, &lanes_state(37), lanes).1, tier);
            assert_eq!(run_both(text, &lanes_state(130), lanes).1, tier);
        }
    }
}

#[test]
fn a_runaway_loop_stops_at_the_step_budget_in_compiled_code() {
    let text =
        "FRAG\nDCL OUT[0], COLOR\nBGNLOOP\nENDLOOP\nMOV OUT[0], IMM[0]\nIMM[0] FLT32 {1.0, 1.0, 1.0, 1.0}\nEND\n";
    let text = text.replace("MOV OUT[0], IMM[0]\nIMM[0] FLT32 {1.0, 1.0, 1.0, 1.0}\n", "");
    let module = ir::from_tgsi(&tgsi::parse(&text).unwrap()).unwrap();
    let state = State::parse("invocations 5\n").unwrap();
    let options = RunOptions { step_budget: 1000, ..RunOptions::default() };
    let jit = Executable::compile_with(&module, Backend::Jit).unwrap();
    let err = jit.run(&state, &options).unwrap_err();
    assert!(matches!(err, crate::ExecError::StepBudget(1000)), "{err}");
}

#[test]
fn derivatives_in_compiled_code_match_the_interpreter() {
    // Coarse and fine, with modifiers and saturation, of a value some
    // lanes of a quad wrote in an IF (the others read what they left).
    let text = "FRAG\nDCL IN[0]\nDCL OUT[0], COLOR\nDCL OUT[1], GENERIC[0]\nDCL TEMP[0..2]\n\
                IMM[0] FLT32 {0.5, 3.0, 0.0, 0.0}\n\
                MUL TEMP[0], IN[0], IN[0].yxwz\n\
                SLT TEMP[1].x, IN[0].xxxx, IMM[0].yyyy\n\
                IF TEMP[1].xxxx\n  ADD TEMP[0].xy, TEMP[0], IMM[0].xxxx\nENDIF\n\
                DDX TEMP[2].xy, -|TEMP[0]|\nDDY_SAT TEMP[2].zw, TEMP[0]\n\
                MOV OUT[0], TEMP[2]\n\
                DDX_FINE TEMP[2].xy, TEMP[0].zwzw\nDDY_FINE TEMP[2].zw, -TEMP[0].xyxy\n\
                MOV OUT[1], TEMP[2]\nEND\n";
    for n in [13, 64, 70] {
        both(text, &lanes_state(n), 64);
    }
}

/// Compiled whole, the code writes every declared OUT channel of every
/// lane it runs, so a run into a reused table does not zero it first: a
/// channel no lane stores must still read zero, not what the table held.
#[test]
fn outputs_reused_from_another_run_read_as_a_fresh_run_s() {
    let fill = "FRAG\nDCL IN[0]\nDCL OUT[0], COLOR\nADD OUT[0], IN[0], IN[0].wzyx\nEND\n";
    // Only some lanes store OUT[0].x, and no lane stores .yzw.
    let sparse = "FRAG\nDCL IN[0]\nDCL OUT[0], COLOR\nDCL TEMP[0]\n\
                  FRC TEMP[0].x, IN[0].yyyy\nIF TEMP[0].xxxx\n  MOV OUT[0].x, IN[0].zzzz\nENDIF\nEND\n";
    let state = State::parse(&lanes_state(70)).unwrap();
    let options = RunOptions::default();
    let module = |text: &str| ir::from_tgsi(&tgsi::parse(text).unwrap()).unwrap();
    let (first, second) = (module(fill), module(sparse));
    let mut outputs = Outputs::new(0, []);
    let jit = |m| Executable::compile_with(m, Backend::Jit).unwrap();
    jit(&first).run_into(&state, &options, &mut outputs).unwrap();
    assert!(outputs.get(0, 5).is_some_and(|v| v != [0; 4]), "the first run leaves values behind");
    jit(&second).run_into(&state, &options, &mut outputs).unwrap();
    let fresh = Executable::compile_with(&second, Backend::Interpreter).unwrap().run(&state, &options).unwrap();
    assert_eq!(outputs.write(), fresh.write());
    assert_eq!(outputs.get(0, 5).map(|v| v[1..].to_vec()), Some(vec![0; 3]));
}

/// The code loads its fills from a table laid out once a run: inputs the
/// state gives lane by lane (here past the first batch, and not a whole
/// number of batches), inputs with lanes the state leaves out (zero), an
/// input every lane shares, constants, immediates and system values; a
/// kill the interpreter runs reads an input directly.
#[test]
fn fills_read_from_the_run_s_layout_match_the_batches_fills() {
    let text = "VERT\nDCL IN[0]\nDCL IN[1]\nDCL IN[2]\nDCL SV[0], VERTEXID\nDCL OUT[0], POSITION\n\
                DCL OUT[1], GENERIC[0]\nDCL CONST[0..1]\nDCL TEMP[0]\n\
                IMM[0] FLT32 { 0.5, 2.0, -1.0, 3.0 }\n\
                MAD TEMP[0], IN[0], CONST[1], IN[1]\nADD OUT[0], TEMP[0], IN[2].wzyx\n\
                U2F TEMP[0].x, SV[0].xxxx\nMAD OUT[1], TEMP[0].xxxx, IMM[0], CONST[0]\nEND\n";
    let mut state = lanes_state(150);
    state += "input 1 3 1 2 3 4\ninput 1 90 5 6 7 8\ninput 2 * 0.25 0.5 0.75 1\n";
    state += "const 0 0 1 2 3 4\nconst 0 1 -1 0.5 8 0\n";
    for lanes in [16, 64] {
        both(text, &state, lanes);
    }
    let kill = "FRAG\nDCL IN[0]\nDCL OUT[0], COLOR\nKILL_IF IN[0].zzzz\nMOV OUT[0], IN[0]\nEND\n";
    let out = both(kill, &lanes_state(70), 64);
    assert!(out.write().contains("kill"), "the lanes with a negative IN[0].z are killed");
}

/// `KILL_IF` compiled: a lane is killed when any operand channel is below
/// zero after its modifiers (not -0.0, not NaN), and only if active;
/// `KILL` kills the active lanes.
#[test]
fn kills_compiled_whole_match_the_interpreter() {
    let text = "FRAG\nDCL IN[0]\nDCL IN[1]\nDCL OUT[0], COLOR\n\
                KILL_IF -IN[1].xyxy\n\
                IF IN[0].wwww\n  KILL_IF |IN[0]|\n  KILL_IF IN[0].yzwx\nELSE\n  \
                  SLT OUT[0].x, IN[1].zzzz, IN[0].xxxx\n  IF OUT[0].xxxx\n    KILL\n  ENDIF\nENDIF\n\
                MOV OUT[0], IN[0]\nEND\n";
    let mut state = String::from("invocations 23\n");
    let values = ["-0", "0", "nan", "-nan", "-1", "2", "-inf", "inf", "0x00000001", "0x80000001", "0.5"];
    for l in 0..23usize {
        let v = |k: usize| values[(l * 7 + k * 3) % values.len()];
        state += &format!("input 0 {l} {} {} {} {}\n", v(0), v(1), v(2), v(3));
        state += &format!("input 1 {l} {} {} {} {}\n", v(4), v(5), v(6), v(7));
    }
    let out = both(text, &state, 64);
    let killed = out.write().matches("kill").count();
    assert!(killed > 0 && killed < 23, "some lanes killed, some not: {killed}");
    both(text, &state, 4);
}

#[test]
fn conformance_shaders_without_memory_or_output_loads_compile_whole() {
    let Some(dir) = testdata::shared("conformance/exec") else { return };
    let (mut whole, mut others) = (0, 0);
    let mut paths: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).collect();
    paths.sort();
    for path in paths.iter().filter(|p| p.extension().is_some_and(|e| e == "tgsi")) {
        let module = ir::from_tgsi(&tgsi::parse(&std::fs::read_to_string(path).unwrap()).unwrap()).unwrap();
        let program = crate::program::Program::compile(&module).unwrap();
        let outside = program.memory.accesses
            || program.memory.writes
            || program.memory.barrier
            || !crate::jit::native_outputs(&program)
            || program.steps.iter().flatten().any(|s| {
                use crate::program::Step;
                matches!(s, Step::Texture { .. } if !crate::jit::texture::compiles(s, program.slots))
                    || matches!(s, Step::Deriv { arg, .. } if arg.wide)
                    || matches!(s, Step::ArrayLoad { array, .. } | Step::ArrayStore { array, .. }
                        if program.geometry.output_arrays.iter().any(|&(a, _, _)| a == *array))
            });
        if outside {
            others += 1;
            continue;
        }
        assert!(
            crate::jit::compile(&program, crate::run::compiled::CALLBACKS).unwrap().is_some(),
            "{} is not compiled whole",
            path.display()
        );
        whole += 1;
    }
    eprintln!("{whole} conformance shaders compile whole, {others} may not");
    // 438 today, every one.
    assert!(whole >= 430, "{whole} conformance shaders compiled whole");
}

#[test]
fn programs_without_memory_or_output_loads_compile_whole_the_others_are_interpreted() {
    let compiled = |text: &str| {
        let module = ir::from_tgsi(&tgsi::parse(text).unwrap()).unwrap();
        let program = crate::program::Program::compile(&module).unwrap();
        crate::jit::compile(&program, crate::run::compiled::CALLBACKS).unwrap().is_some()
    };
    assert!(compiled("FRAG\nDCL IN[0]\nDCL OUT[0], COLOR\nADD OUT[0], IN[0], IN[0]\nEND\n"));
    let store = "COMP\nDCL BUFFER[0]\nDCL TEMP[0]\nIMM[0] UINT32 {0, 7, 0, 0}\n\
                 STORE BUFFER[0].x, IMM[0].xxxx, IMM[0].yyyy\nEND\n";
    assert!(!compiled(store), "stores keep the interpreter's order of lanes: interpreted");
    let deep = format!(
        "FRAG\nDCL IN[0]\nDCL OUT[0], COLOR\n{}MOV OUT[0], IN[0]\n{}END\n",
        "IF IN[0].xxxx\n".repeat(40),
        "ENDIF\n".repeat(40)
    );
    assert!(!compiled(&deep), "constructs nested deeper than Cranelift's limits allow: interpreted");
    let tex = "FRAG\nDCL IN[0]\nDCL OUT[0], COLOR\nDCL SAMP[0]\nTEX OUT[0], IN[0], SAMP[0], 2D\nEND\n";
    assert!(compiled(tex), "sampling by a call a quad: whole");
    assert!(compiled(ARRAYS), "arrays in the function's stack frame: whole");
    assert!(compiled(INDIRECT_LOADS), "indirect loads as native code: whole");
    assert!(compiled(WIDE), "64-bit operations by a call a quad: whole");
    let output_load = "FRAG\nDCL IN[0]\nDCL OUT[0], COLOR\nDCL ADDR[0]\nDCL TEMP[0]\n\
                       ARL ADDR[0].x, IN[0].xxxx\nMOV OUT[0], IN[0]\nMOV TEMP[0], OUT[ADDR[0].x]\n\
                       ADD OUT[0], TEMP[0], IN[0]\nEND\n";
    assert!(!compiled(output_load), "an indirect OUT load reads the batch's outputs: interpreted");
}
