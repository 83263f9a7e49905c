//! Deeply nested control flow goes through every stage (parse, SSA
//! construction, verification, printing, the CFG's dot rendering, emission,
//! re-parse and rebuild) on a thread with a 2 MB stack, so no stage may
//! recurse once per nesting level.

use std::fmt::Write as _;
use std::thread;

/// The stack of the thread the stages run on.
const STACK: usize = 2 << 20;

/// `depth` nested `IF`/`ENDIF`s, each level adding to `TEMP[0].x` before
/// its inner `IF`, so every `ENDIF` joins a different value.
fn nested_ifs(depth: usize) -> String {
    let mut body = vec!["MOV TEMP[0], IN[0]".to_string()];
    let mut open = Vec::new();
    for level in 0..depth {
        open.push(body.len());
        body.push(format!("IF TEMP[0].{0}{0}{0}{0}", ['x', 'y', 'z', 'w'][level % 4]));
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
fn nested_loops(depth: usize) -> String {
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

/// Runs every stage on `text`, on a thread with a [`STACK`]-byte stack.
fn all_stages(name: &'static str, text: String) {
    let worker = thread::Builder::new()
        .name(name.to_string())
        .stack_size(STACK)
        .spawn(move || {
            let shader = tgsi::parse(&text).unwrap_or_else(|e| panic!("{}", e.render(&text, name)));
            let module = ir::from_tgsi(&shader).unwrap_or_else(|e| panic!("{name}: {e}"));
            ir::verify::verify(&module.function).unwrap_or_else(|e| panic!("{name}: {e}"));
            let printed = ir::print::print_module(&module);
            assert!(printed.contains("phi"), "{name}: no phis in\n{printed}");
            let dot = ir::dot::function_to_dot(&module.function);
            assert!(dot.starts_with("digraph cfg {"), "{name}");
            let emitted = ir::to_tgsi(&module).unwrap_or_else(|e| panic!("{name}: {e}"));
            let emitted_text = tgsi::print(&emitted, tgsi::Style::Exact);
            let reparsed = tgsi::parse(&emitted_text).unwrap_or_else(|e| panic!("{}", e.render(&emitted_text, name)));
            assert_eq!(reparsed, emitted, "{name}: the emitted text does not read back");
            let again = ir::from_tgsi(&reparsed).unwrap_or_else(|e| panic!("{name}, emitted: {e}"));
            ir::verify::verify(&again.function).unwrap_or_else(|e| panic!("{name}, emitted: {e}"));
            (shader.instructions().count(), emitted.instructions().count())
        })
        .expect("spawning a thread");
    let (input, output) = worker.join().unwrap_or_else(|_| panic!("{name} failed"));
    assert!(output > 0 && input > 0, "{name}: {input} instructions in, {output} out");
}

#[test]
fn five_hundred_nested_ifs() {
    let text = nested_ifs(500);
    assert_eq!(text.matches(": IF ").count(), 500);
    all_stages("500 nested IFs", text);
}

#[test]
fn a_hundred_nested_loops() {
    let text = nested_loops(100);
    assert_eq!(text.matches(": BGNLOOP").count(), 100);
    all_stages("100 nested loops", text);
}

#[test]
fn generated_shaders_are_well_formed() {
    let ifs = nested_ifs(3);
    assert!(ifs.contains("  1: IF TEMP[0].xxxx :10\n"), "{ifs}");
    assert!(ifs.contains("  5: IF TEMP[0].zzzz :8\n"), "{ifs}");
    assert!(ifs.ends_with(" 11: MOV OUT[0], TEMP[0]\n 12: END\n"), "{ifs}");
    let loops = nested_loops(2);
    assert!(loops.contains("  3: IF TEMP[1].xxxx :5\n"), "{loops}");
    assert!(loops.contains("  9: IF TEMP[1].xxxx :11\n"), "{loops}");
    for text in [ifs, loops] {
        let shader = tgsi::parse(&text).unwrap_or_else(|e| panic!("{}", e.render(&text, "generated")));
        ir::from_tgsi(&shader).expect("builds");
    }
}
