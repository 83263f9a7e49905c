use super::*;
use crate::entity::EntityRef;
use crate::function::{Op, Ty, Value};
use crate::print::print_module;

fn round_trip(text: &str) -> Module {
    let module = parse(text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    assert_eq!(print_module(&module), text);
    module
}

#[test]
fn reads_the_printers_documented_example() {
    let text = crate::print::doc_text_block(include_str!("../print/mod.rs"));
    let module = round_trip(&text);
    crate::verify::verify(&module.function).expect("verifies");
}

/// Every construct and operation the printer writes, in one module.
const EVERYTHING: &str = "\
vert
interface:
    PROPERTY NEXT_SHADER FRAG
    DCL IN[0]
    DCL CONST[0..3]
    DCL ADDR[0]
    DCL OUT[0], POSITION
    DCL SAMP[0]
temps:
    DCL TEMP[0..1], LOCAL
    DCL TEMP[2..5], ARRAY(1), LOCAL
immediates:
    IMM[0] FLT32 {    1.0000,     0.0000,     0.0000,     0.0000}
    IMM[1] UINT32 {3, 0, 0, 0}
arrays:
    a0: TEMP[2..5] (array 1)
    a1: OUT[0]
    a2: TEMP[9] (empty)
b0:
    v0 = read IN[0].x
    v1 = read CONST[1][2].w
    v2 = const 0x3f800000 ; 1.0
    v3:64 = const 0x4000000000000000 ; 2.0
    v4 = initial
    v5 = undef
    v6 = add_sat_precise -v0, -|v2|
    v7:64 = dadd v3, v3
    v8 = split.hi v7
    v9:64 = pack v0, v8
    v10 = loadindirect CONST[v4 + 2].z
    v11 = arrayload a0[v4 - 1].y
    v12 = arrayload a0[2].x
    arraystore a0[|v4| + 3].w, v6
    arraystore a1[0].x, v6
    v13, v14 = TEX _.xy, (v0, v0, v2, v2), SAMP[0], 2D
    v15 = const 0x00000005 ; 5 args(v0)
    v17 = lit.w v0, v0, v2, v2
    v18 = loadindirect IN[v4 - 1][v0](2).y
    v19, v20, v21 = INTERP_OFFSET _.xyz, IN[0], -|(v0, v0, v2, v5)|
    v22, v23 = TEX _.xy, (v0, v0, v2, v2), SAMP[v4 + 1], 2D
    STORE BUFFER[v0](2).x, (v4, v4, v4, v4), (v2, v2, v2, v2)
uif -v4 {
  b1:
      continue
} else {  ; no ELSE
  b2:
}
b3:
    v16 = phi [b1: v13, b2: |v14|]
loop {
  b4:
  switch v4 {
  case v2:
    b5:
        break
  default:
    b6:
  }
  b7:
      break
}
b9:
    storeoutput OUT[0].x, v16
    return
";

#[test]
fn reads_every_construct_and_operation() {
    let module = round_trip(EVERYTHING);
    let f = &module.function;
    assert_eq!(module.processor, tgsi::Processor::Vertex);
    assert_eq!((module.interface.len(), module.temps.len(), module.immediates.len()), (6, 2, 2));
    assert_eq!(f.arrays.len(), 3);
    // b8 is named nowhere: an empty block outside the tree keeps b9's number.
    assert_eq!(f.blocks.len(), 10);
    let Some(Op::Opaque { value_srcs, .. }) =
        f.insts.iter().map(|(_, d)| &d.op).find(|o| matches!(o, Op::Opaque { .. }))
    else {
        panic!("no opaque instruction");
    };
    // The first source is a value, SAMP[0] a resource.
    assert_eq!(*value_srcs, 0b01);
    assert_eq!(f.values[Value::new(3)].ty, Ty::B64);
}

#[test]
fn numbering_gaps_are_kept() {
    let text = "frag\nb2:\n    v5 = const 0x00000001 ; 1\n    v7 = add v5, v5\n    return\n";
    let module = round_trip(text);
    assert_eq!(module.function.values.len(), 8);
    assert_eq!(module.function.blocks.len(), 3);
}

#[test]
fn origins_are_read_back() {
    let text = "frag\nb0:\n    v0 = const 0x3f800000 ; 1.0  ; from #3 TEMP[2].y\n    v1 = add v0, v0  ; from #4\n    \
                v2 = mul v1, v1  ; from OUT[0].w\n    return\n";
    let module = parse(text).unwrap_or_else(|e| panic!("{e}"));
    let origin = |i: usize| module.function.insts[crate::function::Inst::new(i)].origin;
    let temp = crate::function::RegChannel { file: tgsi::File::Temporary, index: 2, chan: 1 };
    assert_eq!((origin(0).inst, origin(0).dst), (Some(3), Some(temp)));
    assert_eq!((origin(1).inst, origin(1).dst), (Some(4), None));
    let out = crate::function::RegChannel { file: tgsi::File::Output, index: 0, chan: 3 };
    assert_eq!((origin(2).inst, origin(2).dst), (None, Some(out)));
    let opts = crate::print::PrintOptions { origins: true };
    assert_eq!(crate::print::print_module_with(&module, &opts), text);
}

fn error(text: &str) -> (String, u32, u32, String) {
    let e = parse(text).expect_err("refused");
    let offending = text.get(e.span.start..e.span.end).unwrap_or("").to_string();
    (e.message, e.span.line, e.span.column, offending)
}

/// An input and the error it gives: message, line, column, offending text.
type Case = (&'static str, (&'static str, u32, u32, &'static str));

#[test]
fn errors_are_located() {
    // (input, (message, line, column, offending text))
    let cases: &[Case] = &[
        ("", ("expected the stage (`frag`, `vert`, ...)", 1, 1, "")),
        ("FRAG\n", ("expected the stage (`frag`, `vert`, ...)", 1, 1, "FRAG")),
        ("frag\nb0:\n    v0 = add v1, v1\n", ("v1 is used but never defined", 3, 14, "v1")),
        ("frag\nb0:\n    v0 = frob\n", ("unknown operation `frob`", 3, 10, "frob")),
        (
            "frag\nb0:\n    v0 = lit v1, v1, v1, v1\n",
            ("`lit` computes a different formula on each channel: write `lit.x` .. `lit.w`", 3, 10, "lit"),
        ),
        ("frag\nb0:\n    v0 = add.q\n", ("expected a channel (`x`, `y`, `z` or `w`)", 3, 14, "q")),
        ("frag\nb0:\n    v0 = undef\n    v0 = undef\n", ("v0 is defined twice", 4, 5, "v0")),
        ("frag\nb0:\n    return\n    v0 = undef\n", ("an instruction after the block's exit", 4, 5, "v0 = undef")),
        (
            "frag\n    v0 = undef\n",
            ("an instruction outside a block (expected a label `bN:` first)", 2, 5, "v0 = undef"),
        ),
        ("frag\nb0:\nloop {\n  b1:\n", ("this construct is never closed with `}`", 3, 1, "l")),
        ("frag\nb0:\n}\n", ("`}` closes nothing", 3, 1, "}")),
        ("frag\nb0:\nif v0 {\n  b1:\n}\n", ("an if closes its then-part with `} else {`", 5, 1, "}")),
        ("frag\nb0:\nswitch v0 {\n  b1:\n", ("a block inside a switch needs a `case` first", 4, 3, "b1")),
        ("frag\ninterface:\n    DCL IN[0\n", ("expected `]` or `..`, found the end of the line", 3, 13, "")),
        ("frag\ntemps:\n    DCL IN[0]\n", ("this does not belong under `temps:`", 3, 5, "DCL IN[0]")),
        ("frag\nb0:\n    v0 = arrayload a3[0].x\n", ("a3 is not declared under `arrays:`", 3, 20, "a3")),
        ("frag\nb0:\n    v99999999 = undef\n", ("a value number too large (at most 1048576)", 3, 5, "v99999999")),
        (
            "frag\nb0:\n    v0, v1, v2, v3 = TEX _, TEMP[1], SAMP[0], 2D\n",
            (
                "source 0 of TEX is a value: write its four operands, `(v0, v1, v2, v3)`",
                3,
                22,
                "TEX _, TEMP[1], SAMP[0], 2D",
            ),
        ),
        (
            "frag\nb0:\n    v0 = undef\n    v1 = TEX _.x, (v0, v0), SAMP[0], 2D\n",
            ("a value source has four operands", 4, 20, "v0, v0"),
        ),
    ];
    let mut wrong = Vec::new();
    for (text, (message, line, column, offending)) in cases {
        let got = error(text);
        if got != (message.to_string(), *line, *column, offending.to_string()) {
            wrong.push(format!("{text:?}: {got:?}"));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
