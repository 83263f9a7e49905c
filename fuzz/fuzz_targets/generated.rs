//! The random program generator behind `fuzz-passes`, driven by the
//! fuzzer's bytes (`testkit::random_program::program_from_tape`): every
//! choice it makes (statements, nesting, subroutine chains, SWITCH,
//! arrays, operands) follows the input, so coverage guidance steers it to
//! shapes that byte mutations of TGSI text rarely reach. Each program must
//! give the same results under every pass alone and `-O1`, also from the
//! TGSI emitted (`testkit::difftest`).
#![no_main]

use libfuzzer_sys::fuzz_target;
use testkit::{difftest, random_program};

fuzz_target!(|data: &[u8]| {
    let program = random_program::program_from_tape(data);
    let states: Vec<String> = (0..2).map(|i| random_program::state(&program, i)).collect();
    let report = difftest::check_program(0, &program.text, &states);
    if let Some(finding) = report.findings.first() {
        panic!("{} finding(s); the first:\n{}", report.findings.len(), finding);
    }
});
