//! Arbitrary bytes as an execution state: reading never panics, and a
//! state that reads runs a fixed shader touching inputs, constants, a
//! texture and a system value without panicking, writing outputs that read
//! back as the outputs they are.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tgsi_opt::{exec, ir, tgsi};

const SHADER: &str = "FRAG\nDCL IN[0], GENERIC[0], PERSPECTIVE\nDCL IN[1], GENERIC[1], LINEAR\n\
    DCL SV[0], FACE\nDCL OUT[0], COLOR\nDCL OUT[1], COLOR[1]\nDCL CONST[0..3]\nDCL SAMP[0]\n\
    DCL SVIEW[0], 2D, FLOAT\nDCL TEMP[0..1]\n\
    ADD TEMP[0], IN[0], CONST[1]\nTEX TEMP[1], TEMP[0], SAMP[0], 2D\n\
    MAD OUT[0], TEMP[1], IN[1], SV[0].xxxx\nMOV OUT[1], CONST[3]\nEND\n";

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let Ok(state) = exec::State::parse(&text) else { return };
    if state.invocations() > 1024 {
        return;
    }
    let module = ir::from_tgsi(&tgsi::parse(SHADER).expect("the fixed shader parses")).expect("and builds");
    let options = exec::RunOptions { lanes: 8, ..exec::RunOptions::default() };
    let Ok(out) = exec::run(&module, &state, &options) else { return };
    let written = out.write();
    let again = exec::Outputs::parse(&written).expect("written outputs read back");
    assert_eq!(again.write(), written);
});
