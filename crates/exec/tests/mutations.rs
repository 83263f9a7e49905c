//! Deterministic mutations of valid states and outputs: truncated,
//! duplicated, deleted, garbled and swapped tokens and lines. Parsing must
//! never panic, errors must render, and whatever parses must answer its
//! accessors (and outputs must round-trip through `write`).

use exec::{Outputs, State};
use testkit::Rng;
use tgsi::SemanticName;

const STATE: &str = "\
# a valid state
invocations 4
const 0 0 1 2 3 4
const 1 3 0x3f800000 -0 inf nan
input 0 * 0.5 -0.5 1e-3 -2
input 0 2 1 2 3 4
texsize 0 2 2
texel 0 1 1 1 0.5 0.25 0x7fc00000
sysval THREAD_ID * 1 2 3 4
sysval VERTEXID 3 7 0 0 0
";

const OUTPUTS: &str = "\
output 0 0 0x00000000 0x3f800000 0x00000000 0x00000000
output 2 0 0x00000001 0x00000002 0x00000003 0x00000004
output 0 1 0x7fc00000 0x00000000 0x00000000 0x00000000
output 2 1 0x00000000 0x00000000 0x00000000 0xffffffff
kill 1
";

const GARBLE: &[&str] = &[
    "",
    "*",
    "-1",
    "0x",
    "0X",
    "0xfffffffff",
    "4294967296",
    "99999999999999999999",
    "16777217",
    "8193",
    "0",
    "nan",
    "-inf",
    "1e99",
    "#",
    "\t",
    "\r",
    "é",
    "∞",
    "1.5",
    "texel",
    "invocations",
    "input",
    "kill",
    "output",
    "THREAD_ID",
    "\n",
    "  ",
    "0x7f800000",
];

fn check_state(text: &str) {
    match State::parse(text) {
        Ok(s) => {
            for lane in 0..s.invocations().min(8) + 1 {
                for index in 0..4 {
                    let _ = s.input(index, lane);
                }
                let _ = s.sysval(SemanticName::ThreadId, lane);
            }
            let _ = s.constant(1, 3);
            if let Some(t) = s.texture(0) {
                let _ = t.texel(t.width(), t.height());
                let _ = t.texel(0, 0);
            }
        }
        Err(e) => {
            let rendered = e.render(text, "m.state");
            assert!(rendered.starts_with("error: "), "{rendered}");
            let _ = e.render("", "m.state");
        }
    }
}

fn check_outputs(text: &str) {
    match Outputs::parse(text) {
        Ok(o) => {
            let written = o.write();
            let again = Outputs::parse(&written).unwrap_or_else(|e| panic!("{text:?} -> {written:?}: {e}"));
            assert_eq!(again, o, "{text:?}");
        }
        Err(e) => {
            let _ = e.render(text, "m.expected");
        }
    }
}

/// Every token-level and line-level mutation of `text`.
fn mutations(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for (i, _) in text.char_indices() {
        out.push(text[..i].to_string());
    }
    // Token boundaries: (start, end) byte ranges of non-whitespace runs.
    let mut tokens = Vec::new();
    let mut start = None;
    for (i, c) in text.char_indices().chain(std::iter::once((text.len(), ' '))) {
        match (c.is_whitespace(), start) {
            (true, Some(s)) => {
                tokens.push((s, i));
                start = None;
            }
            (false, None) => start = Some(i),
            _ => {}
        }
    }
    for &(s, e) in &tokens {
        let (before, tok, after) = (&text[..s], &text[s..e], &text[e..]);
        out.push(format!("{before}{after}"));
        out.push(format!("{before}{tok} {tok}{after}"));
        out.push(format!("{before}{tok}{tok}{after}"));
        for g in GARBLE {
            out.push(format!("{before}{g}{after}"));
        }
    }
    let lines: Vec<&str> = text.lines().collect();
    for i in 0..lines.len() {
        let mut dup = lines.clone();
        dup.insert(i, lines[i]);
        out.push(dup.join("\n"));
        let mut del = lines.clone();
        del.remove(i);
        out.push(del.join("\n"));
        if i + 1 < lines.len() {
            let mut swap = lines.clone();
            swap.swap(i, i + 1);
            out.push(swap.join("\n"));
        }
    }
    out
}

/// Random byte edits, kept as valid UTF-8 by editing ASCII only.
fn random_edits(text: &str, count: usize, seed: u64) -> Vec<String> {
    let mut rng = Rng::new(seed);
    let alphabet = b" \t\n#*-+.0123456789xXeEabcdefinINF";
    (0..count)
        .map(|_| {
            let mut bytes = text.as_bytes().to_vec();
            for _ in 0..1 + rng.below(4) {
                let at = rng.index(bytes.len() + 1);
                let b = *rng.pick(alphabet);
                match rng.below(3) {
                    0 if at < bytes.len() => bytes[at] = b,
                    1 if at < bytes.len() => {
                        bytes.remove(at);
                    }
                    _ => bytes.insert(at, b),
                }
            }
            String::from_utf8(bytes).expect("ASCII edits of a UTF-8 text")
        })
        .collect()
}

#[test]
fn the_unmutated_texts_parse() {
    State::parse(STATE).unwrap();
    assert_eq!(Outputs::parse(OUTPUTS).unwrap().write(), OUTPUTS);
}

#[test]
fn mutated_states_never_panic() {
    let all: Vec<String> =
        mutations(STATE).into_iter().chain(random_edits(STATE, 3000, 0x9e37_79b9_7f4a_7c15)).collect();
    assert!(all.len() > 3000);
    let mut accepted = 0;
    for text in &all {
        check_state(text);
        accepted += usize::from(State::parse(text).is_ok());
    }
    // Some mutations keep the state valid, most do not.
    assert!(accepted > 0 && accepted < all.len(), "{accepted} of {}", all.len());
}

#[test]
fn mutated_outputs_never_panic() {
    let all: Vec<String> =
        mutations(OUTPUTS).into_iter().chain(random_edits(OUTPUTS, 3000, 0x2545_f491_4f6c_dd1d)).collect();
    let mut accepted = 0;
    for text in &all {
        check_outputs(text);
        accepted += usize::from(Outputs::parse(text).is_ok());
    }
    assert!(accepted > 0 && accepted < all.len(), "{accepted} of {}", all.len());
}
