//! Each bound of `tgsi::Limits` refuses what passes it, in the text parser
//! (located at the offending text) and in the token decoder (at the
//! offending item's first word), and lets through what is within it.

use tgsi::tokens::{decode_with_limits, encode, Problem};
use tgsi::{parse, parse_with_limits, Limit, Limits};

const DEFAULT: Limits = Limits::DEFAULT;

/// A fragment shader of `body` lines after a header.
fn shader(body: &[String]) -> String {
    format!("FRAG\nDCL IN[0]\nDCL OUT[0], COLOR\nDCL TEMP[0]\n{}\nEND\n", body.join("\n"))
}

fn lines(n: usize, line: &str) -> Vec<String> {
    vec![line.to_string(); n]
}

/// `n` IFs nested, each closed.
fn nested(n: usize) -> Vec<String> {
    let mut body = lines(n, "IF IN[0].xxxx");
    body.extend(lines(n, "ENDIF"));
    body
}

/// The error of parsing `text` within `limits`: the limit it names,
/// its line and column, and the message.
fn text_error(text: &str, limits: &Limits) -> (Option<Limit>, u32, u32, String) {
    let e = parse_with_limits(text, limits).expect_err("the limit refuses it");
    (e.limit.map(|l| l.limit), e.span.line, e.span.column, e.message)
}

/// The error of decoding the tokens of `text` within `limits`: the limit
/// and the word it names.
fn token_error(text: &str, limits: &Limits) -> (Option<Limit>, Option<usize>) {
    let words = encode(&parse(text).expect("parses with the defaults")).expect("encodes");
    let e = decode_with_limits(&words, limits).expect_err("the limit refuses it");
    let limit = match e.problem() {
        Some(Problem::Limit(l)) => Some(l.limit),
        _ => None,
    };
    (limit, e.word())
}

/// `text` parses and decodes within `limits`.
fn accepted(text: &str, limits: &Limits) {
    let shader = parse_with_limits(text, limits).unwrap_or_else(|e| panic!("{}", e.render(text, "t")));
    decode_with_limits(&encode(&shader).expect("encodes"), limits).expect("decodes");
}

#[test]
fn instructions() {
    let limits = Limits { max_instructions: 3, ..DEFAULT };
    accepted(&shader(&lines(2, "NOP")), &limits);
    let text = shader(&lines(3, "NOP"));
    let (limit, line, column, message) = text_error(&text, &limits);
    assert_eq!((limit, line, column), (Some(Limit::Instructions), 8, 1));
    assert_eq!(message, "more than 3 instructions (the limit)");
    // Words: 2 of header, declarations of 2, 3 (OUT has a semantic) and 2
    // words, then instructions of one word.
    assert_eq!(token_error(&text, &limits), (Some(Limit::Instructions), Some(2 + 7 + 3)));
}

#[test]
fn declarations() {
    let limits = Limits { max_declarations: 3, ..DEFAULT };
    accepted(&shader(&[]), &limits);
    let text = format!("{}DCL TEMP[1]\nEND\n", shader(&[]).trim_end_matches("END\n"));
    let (limit, line, column, message) = text_error(&text, &limits);
    assert_eq!((limit, line, column), (Some(Limit::Declarations), 6, 1));
    assert_eq!(message, "more than 3 declarations (the limit)");
    assert_eq!(token_error(&text, &limits), (Some(Limit::Declarations), Some(2 + 7)));
}

#[test]
fn immediates() {
    let limits = Limits { max_immediates: 2, ..DEFAULT };
    let imm = "IMM FLT32 { 1.0, 2.0, 3.0, 4.0 }";
    accepted(&shader(&lines(2, imm)), &limits);
    let text = shader(&lines(3, imm));
    let (limit, line, column, message) = text_error(&text, &limits);
    assert_eq!((limit, line, column), (Some(Limit::Immediates), 7, 1));
    assert_eq!(message, "more than 2 immediates (the limit)");
    assert_eq!(token_error(&text, &limits), (Some(Limit::Immediates), Some(2 + 7 + 10)));
}

#[test]
fn nesting() {
    let limits = Limits { max_nesting: 3, ..DEFAULT };
    accepted(&shader(&nested(3)), &limits);
    let text = shader(&nested(4));
    let (limit, line, column, message) = text_error(&text, &limits);
    assert_eq!((limit, line, column), (Some(Limit::Nesting), 8, 1));
    assert_eq!(message, "control flow nests more than 3 levels deep (the limit)");
    // Each IF is two words (instruction, source).
    assert_eq!(token_error(&text, &limits), (Some(Limit::Nesting), Some(2 + 7 + 6)));
    // Subroutines and loops nest too; ELSE stays at its IF's level.
    let limits = Limits { max_nesting: 2, ..DEFAULT };
    let body: Vec<String> =
        ["BGNSUB", "BGNLOOP", "IF IN[0].xxxx", "ELSE", "ENDIF", "ENDLOOP", "ENDSUB"].map(String::from).into();
    assert_eq!(text_error(&shader(&body), &limits).0, Some(Limit::Nesting));
    accepted(&shader(&body[1..6]), &limits);
}

#[test]
fn the_default_nesting_is_generous_but_bounded() {
    accepted(&shader(&nested(DEFAULT.max_nesting)), &DEFAULT);
    assert_eq!(text_error(&shader(&nested(DEFAULT.max_nesting + 1)), &DEFAULT).0, Some(Limit::Nesting));
}

/// Printing indents two spaces a level up to `print::MAX_INDENT_LEVELS`,
/// which the default nesting limit stays within, and no further: a shader
/// nested past it (accepted under raised limits) prints in text linear in
/// its size, and reads back the same.
#[test]
fn printing_indents_at_most_the_default_nesting() {
    use tgsi::print::MAX_INDENT_LEVELS;
    const { assert!(DEFAULT.max_nesting <= MAX_INDENT_LEVELS) };
    let deep = 3 * MAX_INDENT_LEVELS;
    let limits = Limits { max_nesting: deep, ..DEFAULT };
    let shader = parse_with_limits(&shader(&nested(deep)), &limits).expect("within raised limits");
    let text = tgsi::print(&shader, tgsi::Style::Mesa);
    let indents: Vec<usize> =
        text.lines().filter_map(|l| l.split_once(": ").map(|(_, rest)| rest.len() - rest.trim_start().len())).collect();
    assert_eq!(indents.iter().max(), Some(&(2 * MAX_INDENT_LEVELS)));
    // Within the bound, each level is two more spaces than the last.
    assert_eq!(&indents[..4], &[0, 2, 4, 6]);
    assert_eq!(parse_with_limits(&text, &limits).expect("reads back"), shader);
}

#[test]
fn tokens() {
    let text = shader(&lines(4, "NOP"));
    let words = encode(&parse(&text).unwrap()).unwrap();
    let body = words.len() - 2;
    decode_with_limits(&words, &Limits { max_tokens: body, ..DEFAULT }).expect("exactly at the limit");
    let e = decode_with_limits(&words, &Limits { max_tokens: body - 1, ..DEFAULT }).unwrap_err();
    assert_eq!(e.word(), Some(0));
    assert_eq!(
        e.to_string(),
        format!("word 0: the token stream has {body} body words, more than the limit of {}", body - 1)
    );
}

/// One rule for register indices, in every place one is written, with
/// one message.
#[test]
fn register_indices() {
    let limits = Limits { max_register_index: 9, ..DEFAULT };
    let cases = [
        ("DCL TEMP[1..10]", 5, 13),
        ("DCL CONST[10][0]", 5, 11),
        ("MOV TEMP[0], IN[10]", 5, 17),
        ("MOV TEMP[10], IN[0]", 5, 10),
        ("MOV TEMP[0], CONST[10][0]", 5, 20),
        ("MOV TEMP[0], CONST[ADDR[10].x+1]", 5, 25),
        ("MOV TEMP[0], CONST[1][ADDR[10].x]", 5, 28),
    ];
    for (line, at_line, at_column) in cases {
        let text = shader(&[line.to_string()]);
        let (limit, l, c, message) = text_error(&text, &limits);
        assert_eq!((limit, l, c), (Some(Limit::RegisterIndex), at_line, at_column), "{line}");
        assert_eq!(message, "register index 10 is out of range (at most 9)", "{line}");
        let word = token_error(&text, &limits);
        assert_eq!(word.0, Some(Limit::RegisterIndex), "{line}");
    }
    // An indirect access's offset is not an index.
    accepted(&shader(&["MOV TEMP[0], CONST[ADDR[0].x+100]".to_string()]), &limits);
    // The defaults: the token field's range, for declarations and
    // operands alike.
    for line in ["DCL TEMP[0..32768]", "MOV TEMP[32768], IN[0]"] {
        let (limit, _, _, message) = text_error(&shader(&[line.to_string()]), &DEFAULT);
        assert_eq!(limit, Some(Limit::RegisterIndex));
        assert_eq!(message, "register index 32768 is out of range (at most 32767)");
    }
    accepted(&shader(&["DCL TEMP[1..32767]".to_string(), "MOV TEMP[32767], IN[0]".to_string()]), &DEFAULT);
}

/// A declaration whose token holds an index the text could not say is
/// refused by the decoder with the same rule.
#[test]
fn the_decoder_refuses_a_declared_index_past_the_rule() {
    let words = encode(&parse("FRAG\nDCL TEMP[0..7]\nEND\n").unwrap()).unwrap();
    let mut words = words;
    // The range token: first 0, last 0xffff.
    words[3] = 0xffff_0000;
    let e = decode_with_limits(&words, &DEFAULT).unwrap_err();
    assert_eq!(e.to_string(), "word 2: register index 65535 is out of range (at most 32767)");
}

/// A limit can only tighten what a token holds.
#[test]
fn the_register_index_limit_never_passes_the_token_field() {
    let loose = Limits { max_register_index: u32::MAX, ..DEFAULT };
    assert!(loose.check_register_index(32767).is_ok());
    assert_eq!(loose.check_register_index(32768).unwrap_err().max, 32767);
}
