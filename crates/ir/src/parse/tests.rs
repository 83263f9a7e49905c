use super::*;
use crate::print::print_module;

fn round_trip(text: &str) -> Module {
    let module = parse(text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    assert_eq!(print_module(&module), text);
    module
}

#[test]
fn reads_the_printers_documented_example() {
    let text = crate::print::doc_text_block(include_str!("../print.rs"));
    let module = round_trip(&text);
    crate::verify::verify(&module.function).expect("verifies");
}
