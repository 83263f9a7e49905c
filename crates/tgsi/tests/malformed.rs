//! Malformed inputs and the errors they get: the message, and the line and
//! column of the offending text.

use tgsi::parse;

/// (input, expected message, line, column)
const CASES: &[(&str, &str, u32, u32)] = &[
    ("", "expected a processor (FRAG, VERT, GEOM, TESS_CTRL, TESS_EVAL or COMP), found the end of the text", 1, 1),
    ("PIXEL\nEND", "expected a processor (FRAG, VERT, GEOM, TESS_CTRL, TESS_EVAL or COMP), found `PIXEL`", 1, 1),
    ("FRAG\nMOV TEMP[0], -1.0\n", "expected a register file (IN, OUT, TEMP, CONST, IMM, ...), found `1`", 2, 15),
    ("FRAG\nMOV TEMP[0, IN[0]\n", "expected `]`, found `,`", 2, 11),
    (
        "FRAG\nFOO TEMP[0]\n",
        "unknown opcode `FOO` (expected `DCL`, `IMM`, `PROPERTY`, a label or an instruction)",
        2,
        1,
    ),
    ("FRAG\n3: FOO\n", "unknown opcode `FOO`", 2, 4),
    ("FRAG\nMOV TEMP[0] IN[0]\n", "expected `,`, found `IN`", 2, 13),
    ("FRAG\nMOV TEMP[0].xq, IN[0]\n", "expected a write mask (a subset of `xyzw`, in that order), found `q`", 2, 14),
    ("FRAG\nMOV TEMP[0].yx, IN[0]\n", "expected a write mask (a subset of `xyzw`, in that order), found `x`", 2, 14),
    ("FRAG\nMOV TEMP[0], IN[0].xy\n", "expected a swizzle of 4 letters from `xyzw`, found the end of the line", 2, 22),
    ("FRAG\nMOV TEMP[0], |IN[0]\n", "expected `|`, found the end of the line", 2, 20),
    ("FRAG\nMOV TEMP[40000], IN[0]\n", "register index 40000 is out of range (at most 32767)", 2, 10),
    // One rule for every register index: declarations too.
    ("FRAG\nDCL TEMP[0..32768]\n", "register index 32768 is out of range (at most 32767)", 2, 13),
    ("FRAG\nDCL TEMP[70000]\n", "register index 70000 is out of range (at most 32767)", 2, 10),
    (
        "FRAG\nMOV TEMP[ADDR[99999999999999999999].x], IN[0]\n",
        "register index 99999999999999999999 is out of range (at most 32767)",
        2,
        15,
    ),
    ("FRAG\nDCL TEMP[3..1]\n", "the range 3..1 ends before it starts", 2, 10),
    ("FRAG\nMOV TEMP[ADDR[0].x+40000], IN[0]\n", "an offset +40000 is out of range (-32768 to 32767)", 2, 19),
    ("FRAG\nIMM[1] FLT32 { 1, 2, 3, 4 }\n", "immediates must be numbered in order: this one is IMM[0]", 2, 5),
    ("FRAG\nIMM FLT32 { 1, 2, 3 }\n", "expected `,`, found `}`", 2, 21),
    ("FRAG\nIMM FLT32 { 1, 2, 3, 4, 5 }\n", "expected `}`: a FLT32 immediate has 4 values, found `,`", 2, 23),
    ("FRAG\nIMM FLT32 { 1.0f, 2, 3, 4 }\n", "malformed number `1.0f`", 2, 13),
    ("FRAG\nIMM FLT32 { 1.0.0, 2, 3, 4 }\n", "malformed number `1.0.0`", 2, 13),
    (
        "FRAG\nIMM UINT32 { 4294967296, 0, 0, 0 }\n",
        "an unsigned integer 4294967296 is out of range (at most 4294967295)",
        2,
        14,
    ),
    ("FRAG\nIMM UINT32 { -1, 0, 0, 0 }\n", "expected an unsigned integer, found `-`", 2, 14),
    (
        "FRAG\nIMM INT32 { 2147483648, 0, 0, 0 }\n",
        "an integer 2147483648 is out of range (-2147483648 to 2147483647)",
        2,
        13,
    ),
    ("FRAG\nIMM INT64 { 9223372036854775808, 0 }\n", "9223372036854775808 is out of range for INT64", 2, 13),
    ("FRAG\nIMM UINT64 { -1, 0 }\n", "-1 is out of range for UINT64", 2, 14),
    (
        "FRAG\nIMM FLT32 { 0, 1e999, 0, 0 }\n",
        "1e999 is too large for FLT32: it would become infinity; write `inf` if that is what is meant",
        2,
        16,
    ),
    (
        "FRAG\nIMM FLT32 { -3.5e38, 0, 0, 0 }\n",
        "-3.5e38 is too large for FLT32: it would become infinity; write `-inf` if that is what is meant",
        2,
        13,
    ),
    (
        "FRAG\nIMM FLT64 { 1e400, 0 }\n",
        "1e400 is too large for FLT64: it would become infinity; write `inf` if that is what is meant",
        2,
        13,
    ),
    (
        "FRAG\nIMM FLT16 { 1, 2, 3, 4 }\n",
        "expected an immediate type (FLT32, UINT32, INT32, FLT64, UINT64 or INT64), found `FLT16`",
        2,
        5,
    ),
    (
        "FRAG\nDCL IN[0], BOGUS\n",
        "expected a semantic, an interpolation attribute or `INVARIANT`, found `BOGUS`",
        2,
        12,
    ),
    (
        "FRAG\nDCL IN[0], GENERIC[0], CENTROID\n",
        "the interpolation location `CENTROID` needs an interpolation mode before it",
        2,
        22,
    ),
    ("FRAG\nDCL SVIEW[0], 2D, FLOAT, UINT\n", "a sampler view has one return type or four, not 2", 2, 30),
    ("FRAG\nDCL SVIEW[0], 9D, FLOAT\n", "expected a texture target, found `9D`", 2, 15),
    ("FRAG\nTEX TEMP[0], IN[0], SAMP[0]\n", "expected `,`, found the end of the line", 2, 28),
    (
        "FRAG\nTEX TEMP[0], IN[0], SAMP[0], 5D\n",
        "expected a texture target (2D, CUBE, SHADOW2D, ...), found `5D`",
        2,
        30,
    ),
    ("FRAG\nPROPERTY NO_SUCH_THING 1\n", "expected a property name, found `NO_SUCH_THING`", 2, 10),
    ("FRAG\nPROPERTY FS_COORD_ORIGIN MIDDLE\n", "expected `UPPER_LEFT` or `LOWER_LEFT`, found `MIDDLE`", 2, 26),
    ("FRAG\nMOV TEMP[0], IN[0]END\n", "expected a line end or space, found `END`", 2, 19),
    ("FRAG\nMOV TEMP[0], IN[0]\r\n\tMUL TEMP[0] TEMP[1], IN[0]\n", "expected `,`, found `TEMP`", 3, 14),
    ("FRAG\nIF TEMP[0].x :a\n", "expected a label, found `a`", 2, 15),
    ("FRAG\nMOV TEMP[2](1), IN[0]\n", "an array id `(1)` needs an indirect index", 2, 15),
    ("FRAG\nADD TEMPX[0][0], IN[0], IN[0]\n", "TEMPX[0] is not declared", 2, 5),
    ("FRAG\nMOV TEMP[0], IN[0]\u{00e9}\n", "expected a line end or space, found `\u{00e9}`", 2, 19),
    (
        "COMP\nLOAD TEMP[0], BUFFER[0], TEMP[0], SOMETIMES\n",
        "expected a memory qualifier, texture target or format, found `SOMETIMES`",
        2,
        35,
    ),
];

#[test]
fn each_malformed_input_gets_its_message_and_location() {
    let mut wrong = Vec::new();
    for &(input, message, line, column) in CASES {
        match parse(input) {
            Ok(_) => wrong.push(format!("{input:?}: parsed, expected error {message:?}")),
            Err(e) => {
                if (e.message.as_str(), e.span.line, e.span.column) != (message, line, column) {
                    wrong.push(format!(
                        "{input:?}:\n   got {}:{}: {}\n  want {line}:{column}: {message}",
                        e.span.line, e.span.column, e.message
                    ));
                }
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn errors_render_with_a_caret_under_the_offending_text() {
    let text = "FRAG\nDCL IN[0]\nMOV TEMP[0], IN[0].xy\n";
    let err = parse(text).unwrap_err();
    assert_eq!(
        err.render(text, "shader.tgsi"),
        "error: expected a swizzle of 4 letters from `xyzw`, found the end of the line\n \
         --> shader.tgsi:3:22\n  |\n3 | MOV TEMP[0], IN[0].xy\n  |                      ^\n"
    );
    let text = "FRAG\nIMM FLT32 { 1.0f, 2, 3, 4 }\n";
    let rendered = parse(text).unwrap_err().render(text, "f.tgsi");
    assert!(rendered.ends_with("2 | IMM FLT32 { 1.0f, 2, 3, 4 }\n  |             ^^^^\n"), "{rendered}");
}

#[test]
fn no_input_makes_the_parser_panic() {
    // Every prefix of a shader that uses most of the syntax, and every
    // single-byte change to it, parses or fails cleanly.
    let text = "GEOM\nPROPERTY GS_INPUT_PRIMITIVE TRIANGLES\nDCL IN[][0], POSITION\nDCL CONST[1][0..3]\n\
                DCL TEMP[0..3], ARRAY(1)\nIMM[0] FLT64 { 1.5, -2 }\n 0: MOV_SAT TEMP[ADDR[0].x+1](1).xy, -|CONST[1][ADDR[0].y-2].wzyx|\n\
                 1: TXF TEMP[0], IN[0][0], SAMP[0], 2D, IMM[0].xyz\n 2: IF TEMP[0].xxxx :4\n 3: EMIT\n 4: ENDIF\n 5: END\n";
    for end in 0..=text.len() {
        if text.is_char_boundary(end) {
            let _ = parse(&text[..end]);
        }
    }
    let bytes = text.as_bytes();
    for i in 0..bytes.len() {
        for b in [b'[', b']', b'.', b',', b'-', b'9', b'\n', b' ', b'x', b'{', b'|', b':', b'(', b';'] {
            let mut changed = bytes.to_vec();
            changed[i] = b;
            if let Ok(s) = std::str::from_utf8(&changed) {
                let _ = parse(s);
            }
        }
    }
}

#[test]
fn infinity_written_as_such_and_the_largest_finite_values_are_not_overflow() {
    let text = "FRAG\nIMM[0] FLT32 { inf, -Infinity, 3.4028235e38, -3.40282356e38 }\n\
                IMM[1] FLT64 { -inf, 1.7976931348623157e308 }\nIMM[2] FLT32 { 1e-999, 0x7f800000, nan, 0 }\nEND\n";
    let shader = parse(text).unwrap_or_else(|e| panic!("{}", e.render(text, "limits.tgsi")));
    let bits: Vec<[u32; 4]> = shader
        .items
        .iter()
        .filter_map(|item| match item {
            tgsi::Item::Immediate(imm) => Some(imm.data),
            _ => None,
        })
        .collect();
    assert_eq!(bits[0], [0x7f80_0000, 0xff80_0000, 0x7f7f_ffff, 0xff7f_ffff]);
    assert_eq!(bits[1], [0, 0xfff0_0000, 0xffff_ffff, 0x7fef_ffff]);
    // A hexadecimal literal is a number (2139095040.0), not the bits of inf.
    assert_eq!(bits[2][..2], [0, 2_139_095_040f32.to_bits()]);
}
