//! Deeply nested shaders, for the tests that put them through every stage
//! on a small stack (`crates/ir/tests/nesting.rs`, and the workspace's
//! `tests/nesting.rs` for the passes and the executor).

use std::fmt::Write as _;

/// `depth` nested `IF`/`ENDIF`s, each level adding to `TEMP[0].x` before
/// its inner `IF`, so every `ENDIF` joins a different value.
pub fn nested_ifs(depth: usize) -> String {
    ifs(depth, |level| format!("TEMP[0].{0}{0}{0}{0}", ['x', 'y', 'z', 'w'][level % 4]))
}

/// [`nested_ifs`] on a constant condition (`IMM[0].x`, 1.0): constant
/// folding keeps every then-arm.
pub fn nested_constant_ifs(depth: usize) -> String {
    let text = ifs(depth, |_| "IMM[0].xxxx".to_string());
    text.replacen("LOCAL\n", "LOCAL\nIMM[0] FLT32 {    1.0000,     0.0000,     0.0000,     0.0000}\n", 1)
}

/// `depth` nested `IF`/`ENDIF`s on the conditions `cond` gives each level.
fn ifs(depth: usize, cond: impl Fn(usize) -> String) -> String {
    let mut body = vec!["MOV TEMP[0], IN[0]".to_string()];
    let mut open = Vec::new();
    for level in 0..depth {
        open.push(body.len());
        body.push(format!("IF {}", cond(level)));
        body.push("ADD TEMP[0].x, TEMP[0].xxxx, IN[0].yyyy".to_string());
    }
    body.push("MUL TEMP[0].y, TEMP[0].xxxx, IN[0].zzzz".to_string());
    while let Some(if_line) = open.pop() {
        let endif_line = body.len();
        let _ = write!(body[if_line], " :{endif_line}");
        body.push("ENDIF".to_string());
    }
    body.push("MOV OUT[0], TEMP[0]".to_string());
    shader(&body)
}

/// `depth` nested loops, each leaving on a test of a counter it
/// increments, with the next loop inside.
pub fn nested_loops(depth: usize) -> String {
    let mut body = vec!["MOV TEMP[0], IN[0]".to_string()];
    for _ in 0..depth {
        body.push("BGNLOOP".to_string());
        body.push("SGE TEMP[1].x, TEMP[0].xxxx, IN[0].wwww".to_string());
        let endif_line = body.len() + 2;
        body.push(format!("IF TEMP[1].xxxx :{endif_line}"));
        body.push("BRK".to_string());
        body.push("ENDIF".to_string());
        body.push("ADD TEMP[0].x, TEMP[0].xxxx, IN[0].yyyy".to_string());
    }
    body.push("MUL TEMP[0].y, TEMP[0].yyyy, IN[0].zzzz".to_string());
    for _ in 0..depth {
        body.push("ENDLOOP".to_string());
    }
    body.push("MOV OUT[0], TEMP[0]".to_string());
    shader(&body)
}

/// A fragment shader around `body` (without its `END`).
fn shader(body: &[String]) -> String {
    let mut text = String::from("FRAG\nDCL IN[0], GENERIC[0], PERSPECTIVE\nDCL OUT[0], COLOR\nDCL TEMP[0..1], LOCAL\n");
    for (i, line) in body.iter().chain(std::iter::once(&"END".to_string())).enumerate() {
        let _ = writeln!(text, "{i:>3}: {line}");
    }
    text
}
