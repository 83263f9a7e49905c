//! Malformed states and outputs and the errors they get: the message, the
//! line and column of the offending token, and the rendered diagnostic.

use exec::{Outputs, State, StateErrorKind};

const KNOWN: &str = "`invocations`, `const`, `input`, `vinput`, `texsize`, `texel`, `sampler`, `sysval`, `buffer`, \
                     `bufdata`, `image` or `imgdata`";

/// (input, expected message, line, column)
fn state_cases() -> Vec<(&'static str, String, usize, usize)> {
    // A table of test cases, one per malformed state: long by nature.
    let value_msg = |found: &str| {
        format!(
            "expected a value (a decimal float such as `1.5`, `-2`, `1e-3`, `inf`, `nan`, or raw bits `0xXXXXXXXX`), found `{found}`"
        )
    };
    vec![
        ("invocations 4\nfoo 1 2\n", format!("unknown directive `foo` (expected {KNOWN})"), 2, 1),
        ("invocations 4\nINPUT 0 0 1 2 3 4\n", format!("unknown directive `INPUT` (expected {KNOWN})"), 2, 1),
        ("invocations\n", "`invocations` takes 1 operand (invocations N), found 0".into(), 1, 1),
        ("invocations 4 5\n", "`invocations` takes 1 operand (invocations N), found 2".into(), 1, 15),
        (
            "invocations 4\nconst 0 0 1 2 3\n",
            "`const` takes 6 operands (const BUF INDEX x y z w), found 5".into(),
            2,
            1,
        ),
        (
            "invocations 4\ninput 0 0 1 2 3 4 5\n",
            "`input` takes 6 operands (input INDEX LANE x y z w), found 7".into(),
            2,
            19,
        ),
        (
            "invocations 4\nvinput 0 0 1 2 3 4\n",
            "`vinput` takes 7 operands (vinput VERTEX INDEX LANE x y z w), found 6".into(),
            2,
            1,
        ),
        (
            "invocations 4\nvinput 0 0 0 1 2 3 4 5\n",
            "`vinput` takes 7 operands (vinput VERTEX INDEX LANE x y z w), found 8".into(),
            2,
            22,
        ),
        (
            "invocations 4\nvinput x 0 0 1 2 3 4\n",
            "expected an input vertex (a decimal integer), found `x`".into(),
            2,
            8,
        ),
        (
            "invocations 4\nvinput 0 -1 0 1 2 3 4\n",
            "expected an input index (a decimal integer), found `-1`".into(),
            2,
            10,
        ),
        (
            "invocations 4\nvinput 0 0 4 1 2 3 4\n",
            "lane 4 is out of range (`invocations 4` allows lanes 0 to 3)".into(),
            2,
            12,
        ),
        ("invocations 4\nvinput 2 0 * 1 2 q 4\n", value_msg("q"), 2, 18),
        (
            "vinput 0 0 * 1 2 3 4\ninvocations 4\n",
            "`vinput` comes before `invocations`: the number of invocations must be set first".into(),
            1,
            1,
        ),
        ("invocations 4\ntexsize 0 4\n", "`texsize` takes 3 operands (texsize UNIT W H), found 2".into(), 2, 1),
        (
            "invocations 4\ntexsize 0 4 4\ntexel 0 1 1 1 1 1\n",
            "`texel` takes 7 operands (texel UNIT X Y r g b a), found 6".into(),
            3,
            1,
        ),
        (
            "invocations 4\nsysval THREAD_ID 0 1 2 3\n",
            "`sysval` takes 6 operands (sysval NAME LANE x y z w), found 5".into(),
            2,
            1,
        ),
        ("invocations four\n", "expected the number of invocations (a decimal integer), found `four`".into(), 1, 13),
        ("invocations -1\n", "expected the number of invocations (a decimal integer), found `-1`".into(), 1, 13),
        (
            "invocations 4\nconst x 0 1 2 3 4\n",
            "expected a constant buffer (a decimal integer), found `x`".into(),
            2,
            7,
        ),
        (
            "invocations 4\nconst 0 1.5 1 2 3 4\n",
            "expected a constant index (a decimal integer), found `1.5`".into(),
            2,
            9,
        ),
        ("invocations 4\ninput +1 0 1 2 3 4\n", "expected an input index (a decimal integer), found `+1`".into(), 2, 7),
        ("invocations 4\ninput 0 ** 1 2 3 4\n", "expected a lane (a decimal integer), found `**`".into(), 2, 9),
        ("invocations 4\ninput 0 0 1 2 three 4\n", value_msg("three"), 2, 15),
        ("invocations 4\nconst 0 0 1 2 3 0x1234567890\n", value_msg("0x1234567890"), 2, 17),
        ("invocations 4\nconst 0 0 0x 2 3 4\n", value_msg("0x"), 2, 11),
        ("invocations 4\nconst 0 0 1.0f 2 3 4\n", value_msg("1.0f"), 2, 11),
        ("invocations 4\ntexsize 0 2 2\ntexel 0 0 0 1 2 3 0xzz\n", value_msg("0xzz"), 3, 19),
        (
            "invocations 4\ninput 0 4 1 2 3 4\n",
            "lane 4 is out of range (`invocations 4` allows lanes 0 to 3)".into(),
            2,
            9,
        ),
        (
            "invocations 1\nsysval VERTEXID 1 1 2 3 4\n",
            "lane 1 is out of range (`invocations 1` allows lanes 0 to 0)".into(),
            2,
            17,
        ),
        (
            "input 0 * 1 2 3 4\ninvocations 4\n",
            "`input` comes before `invocations`: the number of invocations must be set first".into(),
            1,
            1,
        ),
        (
            "const 0 0 1 2 3 4\nsysval THREAD_ID * 1 2 3 4\ninvocations 4\n",
            "`sysval` comes before `invocations`: the number of invocations must be set first".into(),
            2,
            1,
        ),
        ("const 0 0 1 2 3 4\n", "the state has no `invocations` line".into(), 2, 1),
        ("", "the state has no `invocations` line".into(), 1, 1),
        ("# nothing\nconst 0 0 1 2 3 4", "the state has no `invocations` line".into(), 2, 18),
        ("invocations 4\ninvocations 4\n", "`invocations` is set twice (first on line 1)".into(), 2, 1),
        ("invocations 0\n", "`invocations` must be at least 1".into(), 1, 13),
        ("invocations 16777217\n", "the number of invocations 16777217 is too large (at most 16777216)".into(), 1, 13),
        (
            "invocations 99999999999999999999\n",
            "the number of invocations 99999999999999999999 is too large (at most 16777216)".into(),
            1,
            13,
        ),
        ("invocations 4\ntexsize 0 8193 1\n", "a texture width 8193 is too large (at most 8192)".into(), 2, 11),
        ("invocations 4\ntexsize 0 1 9000\n", "a texture height 9000 is too large (at most 8192)".into(), 2, 13),
        ("invocations 4\ntexsize 0 0 4\n", "a texture must be at least 1x1, found 0x4".into(), 2, 11),
        ("invocations 4\ntexsize 0 4 0\n", "a texture must be at least 1x1, found 4x0".into(), 2, 13),
        (
            "invocations 4\ntexsize 1 4 4\ntexsize 1 2 2\n",
            "texture unit 1 is sized twice (first on line 2)".into(),
            3,
            1,
        ),
        (
            "invocations 4\ntexel 0 0 0 1 1 1 1\ntexsize 0 4 4\n",
            "texel for texture unit 0, which has no `texsize` line before it".into(),
            2,
            7,
        ),
        (
            "invocations 4\ntexsize 0 4 2\ntexel 0 4 0 1 1 1 1\n",
            "texel (4, 0) is outside texture unit 0, which is 4x2".into(),
            3,
            9,
        ),
        (
            "invocations 4\ntexsize 0 4 2\ntexel 0 3 2 1 1 1 1\n",
            "texel (3, 2) is outside texture unit 0, which is 4x2".into(),
            3,
            11,
        ),
        (
            "invocations 4\nsampler 0 linear\n",
            "`sampler` takes 3 operands (sampler UNIT FILTER WRAP), found 2".into(),
            2,
            1,
        ),
        (
            "invocations 4\nsampler 0 linear clamp edge\n",
            "`sampler` takes 3 operands (sampler UNIT FILTER WRAP), found 4".into(),
            2,
            24,
        ),
        (
            "invocations 4\nsampler x linear clamp\n",
            "expected a texture unit (a decimal integer), found `x`".into(),
            2,
            9,
        ),
        (
            "invocations 4\nsampler 0 bilinear clamp\n",
            "unknown filter `bilinear` (expected `nearest` or `linear`)".into(),
            2,
            11,
        ),
        (
            "invocations 4\nsampler 0 LINEAR clamp\n",
            "unknown filter `LINEAR` (expected `nearest` or `linear`)".into(),
            2,
            11,
        ),
        (
            "invocations 4\nsampler 0 linear mirror\n",
            "unknown wrap mode `mirror` (expected `repeat` or `clamp`)".into(),
            2,
            18,
        ),
        (
            "invocations 4\nsampler 0 nearest clamp_to_edge\n",
            "unknown wrap mode `clamp_to_edge` (expected `repeat` or `clamp`)".into(),
            2,
            19,
        ),
        (
            "invocations 4\nsampler 1 linear clamp\ntexsize 1 2 2\nsampler 1 nearest repeat\n",
            "texture unit 1 has its sampler set twice (first on line 2)".into(),
            4,
            1,
        ),
        (
            "invocations 4\nsampler 3 linear clamp\nsampler 3 linear clamp\n",
            "texture unit 3 has its sampler set twice (first on line 2)".into(),
            3,
            1,
        ),
        (
            "invocations 4\nsysval THREADID * 1 2 3 4\n",
            "unknown system value `THREADID` (expected a TGSI semantic name such as THREAD_ID or VERTEXID)".into(),
            2,
            8,
        ),
        ("invocations 1\nbuffer 0\n", "`buffer` takes 2 operands (buffer UNIT SIZE), found 1".into(), 2, 1),
        ("invocations 1\nbuffer 0 6\n", "a buffer size must be a multiple of 4, found 6".into(), 2, 10),
        ("invocations 1\nbuffer 0 67108868\n", "a buffer size 67108868 is too large (at most 67108864)".into(), 2, 10),
        ("invocations 1\nbuffer 0 4\nbuffer 0 8\n", "buffer unit 0 is sized twice (first on line 2)".into(), 3, 1),
        (
            "invocations 1\nbufdata 3 0 1\n",
            "`bufdata` for buffer unit 3, which has no `buffer` line before it".into(),
            2,
            9,
        ),
        (
            "invocations 1\nbuffer 0 8\nbufdata 0 0\n",
            "`bufdata` takes 3 operands (bufdata UNIT OFFSET v0 v1 ...), found 2".into(),
            3,
            1,
        ),
        ("invocations 1\nbuffer 0 8\nbufdata 0 2 1\n", "a byte offset must be a multiple of 4, found 2".into(), 3, 11),
        (
            "invocations 1\nbuffer 0 8\nbufdata 0 4 1 2\n",
            "words from byte 4 to byte 12 do not fit in buffer unit 0, which is 8 bytes".into(),
            3,
            11,
        ),
        ("invocations 1\nbuffer 0 8\nbufdata 0 0 1 x\n", value_msg("x"), 3, 15),
        ("invocations 1\nimage 0 4\n", "`image` takes 3 operands (image UNIT W H [LAYERS]), found 2".into(), 2, 1),
        (
            "invocations 1\nimage 0 4 4 1 1\n",
            "`image` takes 4 operands (image UNIT W H [LAYERS]), found 5".into(),
            2,
            15,
        ),
        ("invocations 1\nimage 0 4 0\n", "an image must be at least 1x1 with 1 layer, found 4x0 with 1".into(), 2, 11),
        ("invocations 1\nimage 0 4 4 2049\n", "a layer count 2049 is too large (at most 2048)".into(), 2, 13),
        (
            "invocations 1\nimage 0 1024 1024 16\n",
            "buffers and images would hold 268435456 bytes together (at most 67108864)".into(),
            2,
            19,
        ),
        (
            "invocations 1\nbuffer 0 67108864\nimage 0 1 1\n",
            "buffers and images would hold 67108880 bytes together (at most 67108864)".into(),
            3,
            11,
        ),
        ("invocations 1\nimage 1 1 1\nimage 1 2 2\n", "image unit 1 is sized twice (first on line 2)".into(), 3, 1),
        (
            "invocations 1\nimgdata 0 0 0 0 1 2 3 4\n",
            "`imgdata` for image unit 0, which has no `image` line before it".into(),
            2,
            9,
        ),
        (
            "invocations 1\nimage 0 2 2 2\nimgdata 0 1 1 2 1 2 3 4\n",
            "texel (1, 1) of layer 2 is outside image unit 0, which is 2x2 with 2 layer(s)".into(),
            3,
            15,
        ),
        (
            "invocations 1\nimage 0 2 2\nimgdata 0 0 0 0 1 2 3\n",
            "`imgdata` takes 8 operands (imgdata UNIT X Y LAYER r g b a), found 7".into(),
            3,
            1,
        ),
    ]
}

#[test]
fn state_errors() {
    for (input, message, line, column) in state_cases() {
        let err = State::parse(input).expect_err(input);
        assert_eq!(err.kind.to_string(), message, "{input:?}");
        assert_eq!((err.line, err.column), (line, column), "{input:?}: {err}");
        assert_eq!(err.to_string(), format!("{line}:{column}: {message}"));
    }
}

#[test]
fn errors_point_at_the_offending_token() {
    let err = State::parse("invocations 4\ntexsize 0 4 4\ntexel 0 0 0 1 2 3 abc\n").unwrap_err();
    assert_eq!(err.text, "abc");
    assert!(matches!(err.kind, StateErrorKind::BadValue { .. }));
    let err = State::parse("invocations 4\n").and_then(|_| State::parse("")).unwrap_err();
    assert_eq!(err.text, "");
}

#[test]
fn render_matches_the_tgsi_parser_style() {
    let source = "invocations 4\n# quad 0\ninput 0 9 1 2 3 4\n";
    let err = State::parse(source).unwrap_err();
    assert_eq!(
        err.render(source, "case.state"),
        "error: lane 9 is out of range (`invocations 4` allows lanes 0 to 3)\n\
         \x20--> case.state:3:9\n\
         \x20 |\n\
         3 | input 0 9 1 2 3 4\n\
         \x20 |         ^\n"
    );

    // The caret spans the token; tabs before it keep their width.
    let source = "invocations 4\r\n\tconst 0 0 1 2 3 bogus\r\n";
    let err = State::parse(source).unwrap_err();
    assert_eq!(
        err.render(source, "s"),
        format!("error: {}\n --> s:2:18\n  |\n2 | \tconst 0 0 1 2 3 bogus\n  | \t                ^^^^^\n", err.kind)
    );

    // An error at the end of the text shows an empty line.
    let err = State::parse("const 0 0 1 2 3 4\n").unwrap_err();
    assert_eq!(
        err.render("const 0 0 1 2 3 4\n", "s"),
        "error: the state has no `invocations` line\n --> s:2:1\n  |\n2 | \n  | ^\n"
    );

    // A `sampler` word gets the same caret.
    let source = "invocations 1\nsampler 0 linaer clamp\n";
    let err = State::parse(source).unwrap_err();
    assert_eq!(
        err.render(source, "s"),
        "error: unknown filter `linaer` (expected `nearest` or `linear`)\n --> s:2:11\n  |\n\
         2 | sampler 0 linaer clamp\n  |           ^^^^^^\n"
    );

    // Rendering against unrelated text never panics.
    let _ = err.render("", "s");
}

/// (input, expected message, line, column)
const OUTPUT_CASES: &[(&str, &str, usize, usize)] = &[
    ("out 0 0 0 0 0 0\n", "unknown directive `out` (expected `output`, `emit`, `endprim`, `kill`, `bufdata` or `imgdata`)", 1, 1),
    ("output 0 0 0 0 0\n", "`output` takes 6 operands (output INDEX LANE x y z w), found 5", 1, 1),
    ("kill\n", "`kill` takes 1 operand (kill LANE), found 0", 1, 1),
    ("kill 1 2\n", "`kill` takes 1 operand (kill LANE), found 2", 1, 8),
    ("kill x\n", "expected a lane (a decimal integer), found `x`", 1, 6),
    ("kill 16777216\n", "a lane 16777216 is too large (at most 16777215)", 1, 6),
    ("output 0 0 0 0 0 zz\n", "expected a value (a decimal float such as `1.5`, `-2`, `1e-3`, `inf`, `nan`, or raw bits `0xXXXXXXXX`), found `zz`", 1, 18),
    ("output 0 0 0 0 0 0\noutput 0 0 1 1 1 1\n", "output 0 of lane 0 is given twice (first on line 1)", 2, 1),
    ("kill 0\nkill 0\n", "lane 0 is killed twice (first on line 1)", 2, 1),
    ("output 0 0 0 0 0 0\noutput 0 2 0 0 0 0\n", "output 0 is given for some lanes but not for lane 1", 1, 8),
    ("output 0 0 0 0 0 0\noutput 0 1 0 0 0 0\noutput 1 0 0 0 0 0\n", "output 1 is given for some lanes but not for lane 1", 3, 8),
    ("output 3 0 0 0 0 0\nkill 1\n", "output 3 is given for some lanes but not for lane 1", 1, 8),
    ("output 3 1 0 0 0 0\n", "output 3 is given for some lanes but not for lane 0", 1, 8),
    ("output 0 0 0 0 0 0\nemit 0 0 0 0 1 2 3\n", "`emit` takes 8 operands (emit LANE STREAM VERTEX INDEX x y z w), found 7", 2, 1),
    ("output 0 0 0 0 0 0\nendprim 0 0\n", "`endprim` takes 3 operands (endprim LANE STREAM COUNT), found 2", 2, 1),
    ("output 0 0 0 0 0 0\nendprim 0 0 1 2\n", "`endprim` takes 3 operands (endprim LANE STREAM COUNT), found 4", 2, 15),
    ("output 0 0 0 0 0 0\nemit 0 4 0 0 1 2 3 4\n", "a vertex stream 4 is too large (at most 3)", 2, 8),
    ("output 0 0 0 0 0 0\nemit 0 0 1024 0 1 2 3 4\n", "a vertex 1024 is too large (at most 1023)", 2, 10),
    ("output 0 0 0 0 0 0\nemit 0 0 x 0 1 2 3 4\n", "expected a vertex (a decimal integer), found `x`", 2, 10),
    ("output 0 0 0 0 0 0\nemit 0 0 0 0 1 2 3 zz\n", "expected a value (a decimal float such as `1.5`, `-2`, `1e-3`, `inf`, `nan`, or raw bits `0xXXXXXXXX`), found `zz`", 2, 20),
    ("output 0 0 0 0 0 0\nendprim 0 0 1025\n", "a vertex count 1025 is too large (at most 1024)", 2, 13),
    ("output 0 0 0 0 0 0\nendprim 0 * 1\n", "expected a vertex stream (a decimal integer), found `*`", 2, 11),
    ("output 0 0 0 0 0 0\nemit 0 0 0 0 1 2 3 4\nemit 0 0 0 0 1 2 3 4\n", "output 0 of vertex 0 of lane 0 on stream 0 is given twice (first on line 2)", 3, 1),
    ("output 0 0 0 0 0 0\nemit 0 0 0 1 1 2 3 4\n", "`emit` gives output 1, which no `output` line gives", 2, 12),
    ("output 0 0 0 0 0 0\noutput 1 0 0 0 0 0\nemit 0 1 0 1 1 2 3 4\n", "vertex 0 of lane 0 on stream 1 lacks output 0", 3, 6),
    ("output 0 0 0 0 0 0\nemit 0 0 1 0 1 2 3 4\n", "vertex 0 of lane 0 on stream 0 lacks output 0", 2, 6),
    ("output 0 0 0 0 0 0\nendprim 0 2 1\nemit 0 2 0 0 1 2 3 4\nendprim 0 2 2\n", "vertex 1 of lane 0 on stream 2 lacks output 0", 2, 9),
    ("output 0 0 0 0 0 0\nemit 1 0 0 0 1 2 3 4\n", "output 0 is given for some lanes but not for lane 1", 1, 8),
    ("bufdata 0 4\n", "`bufdata` takes 3 operands (bufdata UNIT OFFSET v0 v1 ...), found 2", 1, 1),
    ("bufdata 0 6 1\n", "a byte offset must be a multiple of 4, found 6", 1, 11),
    ("bufdata 0 4294967292 1 2\n", "a byte offset 4294967292 is too large (at most 4294967288)", 1, 11),
    ("bufdata 0 0 1 2\nbufdata 0 4 3\n", "word 4 of buffer 0 is given twice (first on line 1)", 2, 1),
    ("imgdata 0 1 2 3 1 2 3 4\nimgdata 0 1 2 3 0 0 0 0\n", "texel (1, 2) of layer 3 of image 0 is given twice (first on line 1)", 2, 1),
    ("imgdata 0 1 2 1 2 3 4\n", "`imgdata` takes 8 operands (imgdata UNIT X Y LAYER r g b a), found 7", 1, 1),
];

#[test]
fn output_errors() {
    for &(input, message, line, column) in OUTPUT_CASES {
        let err = Outputs::parse(input).expect_err(input);
        assert_eq!(err.kind.to_string(), message, "{input:?}");
        assert_eq!((err.line, err.column), (line, column), "{input:?}: {err}");
    }
}
