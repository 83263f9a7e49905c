//! `target::check` finds each kind of lack at the item that needs it, and
//! nothing in a shader the target takes.

use target::{check, Cap, Lack, Target};

fn findings(text: &str, caps: &str) -> Vec<(Option<usize>, Lack)> {
    let shader = tgsi::parse(text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    let target = Target::parse(caps).unwrap_or_else(|e| panic!("{e}"));
    check(&shader, &target).into_iter().map(|f| (f.item, f.lack)).collect()
}

const BRANCHY: &str = "FRAG
DCL IN[0], GENERIC[0], LINEAR
DCL OUT[0], COLOR
DCL TEMP[0..2]
IMM[0] FLT32 { 0.5, 1.0, 0.0, 2.0 }
SLT TEMP[0].x, IN[0].xxxx, IMM[0].xxxx
IF TEMP[0].xxxx
  IF IN[0].yyyy
    MOV TEMP[1], IMM[0].yyyy
  ENDIF
ENDIF
MOV OUT[0], TEMP[1]
END
";

#[test]
fn a_shader_within_the_target_has_no_finding() {
    assert_eq!(findings(BRANCHY, "softpipe"), []);
    assert_eq!(findings(BRANCHY, "INTEGERS=0,MAX_CONTROL_FLOW_DEPTH=2,MAX_TEMPS=3"), []);
}

#[test]
fn control_flow_deeper_than_the_bound_is_found_at_each_opening() {
    // Items: 0-2 declarations, 3 the immediate, 4 SLT, 5 IF, 6 IF.
    assert_eq!(findings(BRANCHY, "MAX_CONTROL_FLOW_DEPTH=1"), [(Some(6), Lack::Depth { depth: 2, max: 1 })]);
    assert_eq!(
        findings(BRANCHY, "MAX_CONTROL_FLOW_DEPTH=0"),
        [(Some(5), Lack::Depth { depth: 1, max: 0 }), (Some(6), Lack::Depth { depth: 2, max: 0 })]
    );
}

#[test]
fn temps_past_the_bound_are_found_at_the_declaration() {
    assert_eq!(findings(BRANCHY, "MAX_TEMPS=2"), [(Some(2), Lack::Temps { count: 3, max: 2 })]);
}

#[test]
fn instructions_past_the_bound_are_found_at_the_first_one_over() {
    // Seven instructions before END; the fourth (item 7, MOV) is one too many.
    assert_eq!(findings(BRANCHY, "MAX_INSTRUCTIONS=3"), [(Some(7), Lack::Instructions { count: 7, max: 3 })]);
}

#[test]
fn opcodes_needing_a_capability_are_found_with_it() {
    let text = "VERT
DCL IN[0]
DCL OUT[0], POSITION
DCL TEMP[0..1]
USEQ TEMP[0].x, IN[0].xxxx, IN[0].yyyy
SQRT TEMP[1].x, IN[0].xxxx
DADD TEMP[1].xy, IN[0].xyxy, IN[0].zwzw
U64ADD TEMP[1].xy, IN[0].xyxy, IN[0].zwzw
DDIV TEMP[1].xy, IN[0].xyxy, IN[0].zwzw
MOV OUT[0], TEMP[1]
END
";
    let opcode = |opcode, cap| Lack::Opcode { opcode, cap };
    use tgsi::Opcode::*;
    assert_eq!(
        findings(text, "INTEGERS=0,TGSI_SQRT_SUPPORTED=0"),
        [
            (Some(3), opcode(Useq, Cap::Integers)),
            (Some(4), opcode(Sqrt, Cap::TgsiSqrtSupported)),
            (Some(5), opcode(Dadd, Cap::Doubles)),
            (Some(6), opcode(U64add, Cap::Int64)),
            (Some(7), opcode(Ddiv, Cap::Doubles)),
        ]
    );
    // Doubles without DDIV: legalize-doubles rewrites it.
    assert_eq!(findings(text, "no-fp64-div"), [(Some(7), Lack::NotNative(Ddiv))]);
}

#[test]
fn indirect_addressing_output_reads_and_subroutines_are_found() {
    let text = "VERT
DCL IN[0..1]
DCL OUT[0], POSITION
DCL CONST[0..3]
DCL TEMP[0..1], ARRAY(1)
DCL ADDR[0]
ARL ADDR[0].x, IN[0].xxxx
MOV TEMP[ADDR[0].x](1), CONST[ADDR[0].x]
MOV OUT[0], IN[ADDR[0].x]
ADD OUT[0], OUT[0], TEMP[0]
CAL :12
END
BGNSUB
RET
ENDSUB
";
    let lack = |file, cap| Lack::Indirect { file, cap };
    use tgsi::File::*;
    assert_eq!(
        findings(
            text,
            "INDIRECT_TEMP_ADDR=0,INDIRECT_CONST_ADDR=0,INDIRECT_INPUT_ADDR=0,TGSI_CAN_READ_OUTPUTS=0,SUBROUTINES=0"
        ),
        [
            (Some(6), lack(Temporary, Cap::IndirectTempAddr)),
            (Some(6), lack(Constant, Cap::IndirectConstAddr)),
            (Some(7), lack(Input, Cap::IndirectInputAddr)),
            (Some(8), Lack::OutputRead),
            (Some(9), Lack::Subroutine(tgsi::Opcode::Cal)),
            (Some(11), Lack::Subroutine(tgsi::Opcode::Bgnsub)),
        ]
    );
}

#[test]
fn a_stage_the_driver_does_not_run_is_one_finding() {
    let text = "GEOM\nEND\n";
    assert_eq!(findings(text, "r300"), [(None, Lack::Stage(tgsi::Processor::Geometry))]);
}
