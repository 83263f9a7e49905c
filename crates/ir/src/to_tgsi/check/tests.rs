//! The checker on hand-written and real shaders, and on bugs planted in
//! emission: each planted bug must be caught, with the failure it causes.

use super::super::plant::Plant;
use super::super::*;
use super::{Fact, Failure, Half, Mods};

fn module(text: &str) -> Module {
    let shader = tgsi::parse(text).unwrap_or_else(|e| panic!("{}", e.render(text, "test")));
    crate::from_tgsi(&shader).unwrap()
}

/// Emits `module` checked, with `plant`.
fn emit_planted(module: &Module, plant: Plant) -> Result<tgsi::Shader, EmitError> {
    to_tgsi_with(module, &EmitOptions { check: true, plant, ..Default::default() })
}

/// Emits `text` checked, with nothing planted.
fn emit_checked(text: &str) -> Result<tgsi::Shader, EmitError> {
    emit_planted(&module(text), Plant::default())
}

/// The checker's failure, which there must be.
fn check_failure(result: Result<tgsi::Shader, EmitError>) -> CheckError {
    match result {
        Err(EmitError::Check(e)) => *e,
        Err(e) => panic!("emission failed otherwise: {e}"),
        Ok(shader) => panic!("the checker caught nothing:\n{}", tgsi::print(&shader, tgsi::Style::Exact)),
    }
}

/// The value an instruction of the source (by index) computes in `chan`.
fn value_from(module: &Module, inst: u32, chan: u8) -> Value {
    let func = &module.function;
    func.insts
        .iter()
        .find(|(_, d)| d.origin.inst == Some(inst) && d.origin.dst.is_some_and(|o| o.chan == chan))
        .map(|(_, d)| d.results[0])
        .unwrap_or_else(|| panic!("no value of instruction {inst}.{chan}"))
}

fn plain(v: Value) -> Fact {
    Fact::Value(v, Half::Whole, Mods::default())
}

/// Shaders that exercise each way emission writes code: every one must
/// check.
const HAND_WRITTEN: &[&str] = &[
    // Outputs stored negated, absolute, from immediates and straight.
    "FRAG\nDCL IN[0]\nDCL OUT[0]\nDCL OUT[1]\nDCL TEMP[0]\nIMM[0] FLT32 { 1.0, -2.0, 0.5, 0.0 }\n\
     ADD TEMP[0], IN[0], IMM[0]\nMOV OUT[0], -TEMP[0].wzyx\nMOV OUT[1].xy, |IN[0]|\nMOV OUT[1].zw, IMM[0].xxxy\nEND\n",
    // Phis of an IF with and without ELSE; a value kept through both.
    "FRAG\nDCL IN[0]\nDCL OUT[0]\nDCL TEMP[0..2]\nIMM[0] FLT32 { 1.0, 2.0, 0.0, 0.0 }\n\
     MUL TEMP[1], IN[0], IN[0]\nIF IN[0].xxxx\nMOV TEMP[0].x, IMM[0].xxxx\nADD TEMP[2].y, TEMP[1].xxxx, IN[0].yyyy\n\
     ELSE\nMOV TEMP[0].x, IMM[0].yyyy\nENDIF\nIF IN[0].yyyy\nADD TEMP[0].x, TEMP[0].xxxx, TEMP[1].yyyy\nENDIF\n\
     ADD OUT[0], TEMP[0].xxxx, TEMP[1]\nMOV OUT[0].w, TEMP[2].yyyy\nEND\n",
    // A loop with BRK and CONT, a counter and a value kept through it.
    "FRAG\nDCL IN[0]\nDCL OUT[0]\nDCL TEMP[0..2]\nIMM[0] FLT32 { 1.0, 0.0, 0.5, 8.0 }\n\
     MUL TEMP[0], IN[0], IMM[0].zzzz\nMOV TEMP[1].x, IMM[0].yyyy\nBGNLOOP\n\
     SGE TEMP[2].x, TEMP[1].xxxx, IMM[0].wwww\nIF TEMP[2].xxxx\nBRK\nENDIF\n\
     ADD TEMP[1].x, TEMP[1].xxxx, IMM[0].xxxx\nSLT TEMP[2].x, TEMP[0].yyyy, TEMP[1].xxxx\n\
     IF TEMP[2].xxxx\nMOV TEMP[0].x, IMM[0].zzzz\nCONT\nENDIF\nADD TEMP[0].y, TEMP[0].yyyy, IMM[0].xxxx\n\
     ENDLOOP\nMOV OUT[0], TEMP[0]\nEND\n",
    // A SWITCH with fallthrough, a DEFAULT and a BRK.
    "FRAG\nDCL IN[0], CONSTANT\nDCL OUT[0]\nDCL TEMP[0..1]\nIMM[0] UINT32 { 0, 1, 2, 3 }\n\
     MOV TEMP[0], IN[0]\nF2U TEMP[1].x, IN[0].xxxx\nSWITCH TEMP[1].xxxx\nCASE IMM[0].xxxx\n\
     ADD TEMP[0].x, TEMP[0].xxxx, TEMP[0].yyyy\nCASE IMM[0].yyyy\nMUL TEMP[0].y, TEMP[0].yyyy, TEMP[0].yyyy\nBRK\n\
     DEFAULT\nMOV TEMP[0].z, TEMP[0].wwww\nBRK\nENDSWITCH\nMOV OUT[0], TEMP[0]\nEND\n",
    // Doubles: pairs, splits and packs.
    "VERT\nDCL IN[0]\nDCL OUT[0], POSITION\nDCL TEMP[0..1]\n\
     F2D TEMP[0], IN[0]\nDADD TEMP[1], TEMP[0], TEMP[0].zwxy\nDMUL TEMP[1].xy, TEMP[1], -TEMP[0]\n\
     D2F TEMP[0].x, TEMP[1]\nD2F TEMP[0].y, TEMP[1].zwzw\nMOV OUT[0], TEMP[0].xyxy\nEND\n",
    // Indirect constants read in place and through copies; an array of
    // TEMP registers stored and loaded indirectly.
    "FRAG\nDCL IN[0]\nDCL OUT[0]\nDCL OUT[1]\nDCL CONST[0..7]\nDCL TEMP[0..1]\nDCL TEMP[2..5], ARRAY(1)\nDCL ADDR[0]\n\
     ARL ADDR[0].x, IN[0].xxxx\nMOV TEMP[0], CONST[ADDR[0].x+3]\nMUL TEMP[1], IN[0], IN[0]\n\
     MOV TEMP[ADDR[0].x+2](1), TEMP[1]\nADD OUT[0], TEMP[0], TEMP[1]\nMOV OUT[1], TEMP[ADDR[0].x+3](1)\nEND\n",
    // A texture, a kill and a RET inside an IF; initial zeros read.
    "FRAG\nDCL IN[0]\nDCL OUT[0]\nDCL SAMP[0]\nDCL SVIEW[0], 2D, FLOAT\nDCL TEMP[0..1]\n\
     TEX TEMP[0], IN[0], SAMP[0], 2D\nKILL_IF -TEMP[0].wwww\nIF TEMP[0].xxxx\nMOV OUT[0], TEMP[1]\nRET\nENDIF\n\
     MOV OUT[0].xy, TEMP[0]\nMOV OUT[0].zw, TEMP[1].xxxx\nEND\n",
    // Geometry: outputs observed at each EMIT.
    "GEOM\nPROPERTY GS_INPUT_PRIMITIVE POINTS\nPROPERTY GS_OUTPUT_PRIMITIVE POINTS\n\
     PROPERTY GS_MAX_OUTPUT_VERTICES 2\nDCL IN[][0], POSITION\nDCL OUT[0], POSITION\nDCL TEMP[0]\n\
     IMM[0] UINT32 { 0, 0, 0, 0 }\nMOV OUT[0], IN[0][0]\nEMIT IMM[0].xxxx\n\
     ADD TEMP[0], IN[0][0], IN[0][0]\nMOV OUT[0], TEMP[0]\nEMIT IMM[0].xxxx\nEND\n",
];

#[test]
fn hand_written_shaders_check() {
    for text in HAND_WRITTEN {
        if let Err(e) = emit_checked(text) {
            panic!("{e}\n{text}");
        }
    }
}

/// Every shader of the repository's test inputs (`tests/inputs`) checks.
#[test]
fn repository_shaders_check() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/inputs");
    let mut stack = vec![root];
    let mut count = 0;
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            if path.extension().is_none_or(|e| e != "tgsi") {
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap();
            let Ok(shader) = tgsi::parse(&text) else { continue };
            let Ok(module) = crate::from_tgsi(&shader) else { continue };
            if let Err(e) = emit_planted(&module, Plant::default()) {
                panic!("{}: {e}", path.display());
            }
            count += 1;
        }
    }
    assert!(count > 100, "only {count} shaders found");
}

/// Two values live at once, their registers swapped after allocation: the
/// channel the first leaves is taken by a later value while the second,
/// now there, is still to be read.
#[test]
fn a_swapped_allocation_is_caught() {
    let text = "FRAG\nDCL IN[0]\nDCL OUT[0]\nDCL TEMP[0]\n\
                MUL TEMP[0].x, IN[0].xxxx, IN[0].yyyy\nMUL TEMP[0].y, IN[0].zzzz, IN[0].wwww\n\
                ADD TEMP[0].z, TEMP[0].xxxx, TEMP[0].yyyy\nMUL TEMP[0].x, TEMP[0].zzzz, TEMP[0].zzzz\n\
                ADD TEMP[0].w, TEMP[0].xxxx, TEMP[0].yyyy\nMOV OUT[0], TEMP[0].wwww\nEND\n";
    let m = module(text);
    emit_planted(&m, Plant::default()).unwrap();
    let (a, b, c) = (value_from(&m, 0, 0), value_from(&m, 1, 1), value_from(&m, 3, 0));
    let e = check_failure(emit_planted(&m, Plant { swap: Some((a, b)), ..Plant::default() }));
    // The last ADD reads the second product where the square now is.
    assert!(e.instruction.starts_with("ADD"), "{e}");
    let Failure::Read { expected, found, .. } = e.failure else { panic!("{e}") };
    assert_eq!((expected, found), (plain(b), plain(c)), "{e}");
}

/// A MOV of other bits into a channel the next instruction reads.
#[test]
fn an_overwritten_live_channel_is_caught() {
    let text = HAND_WRITTEN[1];
    let m = module(text);
    let clean = emit_planted(&m, Plant::default()).unwrap();
    // The first instruction reading a TEMP channel.
    let k = clean
        .instructions()
        .position(|inst| inst.src.iter().any(|s| s.reg.file == File::Temporary))
        .expect("an instruction reading a TEMP");
    let e = check_failure(emit_planted(&m, Plant { clobber: Some(k), ..Plant::default() }));
    assert_eq!(e.at, k + 1, "{e}");
    let Failure::Read { found, expected, .. } = e.failure else { panic!("{e}") };
    assert_eq!(found, Fact::Unknown, "{e}");
    assert!(matches!(expected, Fact::Value(..)), "{e}");
}

/// A phi copy left out of the then arm: after the ENDIF the phi's channel
/// holds the phi on one path only.
#[test]
fn a_dropped_phi_copy_is_caught() {
    // A phi of two values that stay live after it: at least one arm
    // copies its value into the phi's register.
    let text = "frag\ninterface:\n    DCL IN[0]\n    DCL OUT[0]\nb0:\n    v0 = read IN[0].x\n    v1 = read IN[0].y\n\
                \x20   v2 = add v0, v1\n    v3 = mul v0, v1\nif v0 {\n  b1:\n} else {\n  b2:\n}\nb3:\n\
                \x20   v4 = phi [b1: v2, b2: v3]\n    v5 = add v4, v2\n    v6 = add v4, v3\n\
                \x20   storeoutput OUT[0].x, v5\n    storeoutput OUT[0].y, v6\n    return\n";
    let m = crate::parse(text).unwrap_or_else(|e| panic!("{e}"));
    crate::verify::verify(&m.function).unwrap();
    emit_planted(&m, Plant::default()).unwrap();
    let e = check_failure(emit_planted(&m, Plant { drop_phi_copy: true, ..Plant::default() }));
    assert!(e.instruction.starts_with("ADD"), "{e}");
    let Failure::Read { expected: Fact::Value(phi, Half::Whole, _), .. } = e.failure else { panic!("{e}") };
    assert!(matches!(m.function.def(phi).op, Op::Phi { .. }), "{e}");
}

/// Names that alias check equal: a split's half and the half of its pair,
/// a pack's half and its argument, a constant and its bits.
#[test]
fn facts_are_canonical() {
    let text = "VERT\nDCL IN[0]\nDCL OUT[0]\nDCL TEMP[0]\nIMM[0] FLT32 { 1.0, 2.0, 0.0, 0.0 }\n\
                F2D TEMP[0], IN[0]\nDADD TEMP[0].xy, TEMP[0], TEMP[0]\nMOV OUT[0], TEMP[0]\nEND\n";
    let m = module(text);
    let func = &m.function;
    let canon = |v: Value, odd: bool| super::fact::canonical(func, &m.immediates, Operand::new(v), odd);
    for (_, data) in func.insts.iter() {
        let v = data.results.first().copied();
        match (&data.op, v) {
            (Op::Split { hi }, Some(v)) => {
                assert_eq!(canon(v, false), canon(data.args[0].value, *hi), "a split names its pair's half");
            }
            (Op::Pack, Some(v)) => {
                assert_eq!(canon(v, false), canon(data.args[0].value, false));
                assert_eq!(canon(v, true), canon(data.args[1].value, false));
            }
            (Op::Const(bits), Some(v)) => assert_eq!(canon(v, false), Fact::Bits(*bits as u32, Mods::default())),
            (Op::Initial, Some(v)) => assert_eq!(canon(v, false), Fact::Bits(0, Mods::default())),
            _ => {}
        }
    }
}

/// A texture result that only a branch condition reads is written: the
/// allocator counted the readers among instructions only, so with another
/// channel of the texture read, the condition's channel was left unwritten
/// and the `UIF` read a zero immediate instead.
#[test]
fn a_texture_channel_only_a_condition_reads_is_written() {
    let text = "FRAG\nDCL IN[0]\nDCL OUT[0]\nDCL SAMP[0]\nDCL SVIEW[0], 2D, FLOAT\nDCL TEMP[0]\n\
                TEX TEMP[0], IN[0], SAMP[0], 2D\nUIF TEMP[0].wwww\nMOV OUT[0], TEMP[0].xxxx\nENDIF\nEND\n";
    let shader = emit_checked(text).unwrap_or_else(|e| panic!("{e}"));
    let printed = tgsi::print(&shader, tgsi::Style::Exact);
    let uif = shader.instructions().find(|i| i.opcode == Opcode::Uif).expect("a UIF");
    assert_eq!(uif.src[0].reg.file, File::Temporary, "{printed}");
}

/// A load read by one instruction and by a branch condition is not read
/// in place by the instruction: the condition would read it again where
/// the address register holds another index.
#[test]
fn a_load_a_condition_reads_is_not_folded() {
    let text = "FRAG\nDCL IN[0]\nDCL OUT[0]\nDCL CONST[0..7]\nDCL TEMP[0..1]\nDCL ADDR[0]\n\
                ARL ADDR[0].x, IN[0].xxxx\nMOV TEMP[0].x, CONST[ADDR[0].x+1].xxxx\n\
                ADD TEMP[1].x, TEMP[0].xxxx, IN[0].yyyy\nARL ADDR[0].x, IN[0].zzzz\n\
                MOV OUT[0].y, CONST[ADDR[0].x+2].xxxx\nIF TEMP[0].xxxx\nMOV OUT[0].x, TEMP[1].xxxx\nENDIF\nEND\n";
    let shader = emit_checked(text).unwrap_or_else(|e| panic!("{e}"));
    let printed = tgsi::print(&shader, tgsi::Style::Exact);
    let cond = shader.instructions().find(|i| i.opcode == Opcode::If).expect("an IF");
    assert!(cond.src[0].reg.indirect.is_none(), "{printed}");
}
