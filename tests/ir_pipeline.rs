//! The shaders the `ir` benchmark measures go through the whole pipeline
//! (parse, SSA construction, verification, emission, re-parse): 100,000
//! instructions with and without control flow. No timing is asserted.

use testkit::synth::{straight_line_shader, synthetic_shader};
use tgsi_opt::ir;
use tgsi_opt::tgsi::{self, Style};

fn run_pipeline(name: &str, text: &str) {
    let shader = tgsi::parse(text).unwrap_or_else(|e| panic!("{}", e.render(text, name)));
    let module = ir::from_tgsi(&shader).unwrap_or_else(|e| panic!("{name}: {e}"));
    ir::verify::verify(&module.function).unwrap_or_else(|e| panic!("{name}: {e}"));
    let emitted = ir::to_tgsi(&module).unwrap_or_else(|e| panic!("{name}: {e}"));
    let printed = tgsi::print(&emitted, Style::Exact);
    let reparsed = tgsi::parse(&printed).unwrap_or_else(|e| panic!("{}", e.render(&printed, name)));
    assert_eq!(reparsed, emitted, "{name}: the emitted text does not read back");
    assert!(emitted.instructions().count() > 0, "{name}: nothing emitted");
}

#[test]
fn straight_line_100k() {
    run_pipeline("straight_line_shader(100000)", &straight_line_shader(100_000));
}

#[test]
fn synthetic_100k() {
    run_pipeline("synthetic_shader(100000)", &synthetic_shader(100_000));
}
