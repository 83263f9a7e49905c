//! `check-target`, and `opt --target`: what a driver lacks, found under
//! its line; passes that make only what the driver takes.

use super::*;

/// A fragment shader with an IF on a comparison, which `-O` turns into
/// selects, and a SQRT.
const BRANCHY: &str = "FRAG
DCL IN[0], GENERIC[0], LINEAR
DCL OUT[0], COLOR
DCL TEMP[0..1]
IMM[0] FLT32 { 0.5, 1.0, 0.0, 2.0 }
SLT TEMP[0].x, IN[0].xxxx, IMM[0].xxxx
IF TEMP[0].xxxx
  MUL TEMP[1], IN[0], IMM[0].wwww
ELSE
  SQRT TEMP[1], IN[0].xxxx
ENDIF
MOV OUT[0], TEMP[1]
END
";

#[test]
fn check_target_finds_each_lack_under_its_line() {
    let output = run(&["check-target", "--target", "r300", "-"], BRANCHY.as_bytes());
    assert_eq!(output.status.code(), Some(1));
    let err = stderr(&output);
    // r300's fragment stage has no flow control and no SQRT.
    assert!(err.contains("error: control flow nested 1 deep; the target allows 0 (MAX_CONTROL_FLOW_DEPTH)"), "{err}");
    assert!(err.contains("--> <stdin>:7:1\n  |\n7 | IF TEMP[0].xxxx\n  | ^^\n"), "{err}");
    assert!(err.contains("error: SQRT needs TGSI_SQRT_SUPPORTED, which the target lacks (target `r300`)"), "{err}");
    assert!(err.contains("--> <stdin>:10:3\n   |\n10 |   SQRT TEMP[1], IN[0].xxxx\n   |   ^^^^"), "{err}");
    assert!(err.ends_with("error: <stdin> needs what target `r300` lacks\n"), "{err}");
    assert_eq!(stdout(&output), "<stdin>: 2 finding(s)\n");
    // r500 has both; nvc0 has everything this shader needs.
    let out = success(&["check-target", "--target", "nvc0", "-"], BRANCHY.as_bytes());
    assert_eq!(out, "<stdin>: target `nvc0` takes it\n");
    let output = run(&["check-target", "--target", "r500", "-"], BRANCHY.as_bytes());
    assert_eq!(output.status.code(), Some(1), "r500 has no SQRT either");
    assert!(!stderr(&output).contains("MAX_CONTROL_FLOW_DEPTH"), "{}", stderr(&output));
}

#[test]
fn check_target_usage_errors() {
    let output = run(&["check-target", "-"], BRANCHY.as_bytes());
    assert_eq!(output.status.code(), Some(2));
    let output = run(&["check-target", "--target", "gpu", "-"], BRANCHY.as_bytes());
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("unknown target `gpu`; targets: softpipe, llvmpipe"), "{}", stderr(&output));
    let output = run(&["check-target", "--caps", "MAX_TEMPS=lots", "-"], BRANCHY.as_bytes());
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("unknown capability `MAX_TEMPS=lots`"), "{}", stderr(&output));
}

#[test]
fn opt_for_a_float_only_driver_selects_with_cmp() {
    let shader = BRANCHY.replace("SQRT TEMP[1], IN[0].xxxx", "ADD TEMP[1], IN[0], IMM[0].yyyy");
    let softpipe = success(&["opt", "-O", "--target", "softpipe", "-"], shader.as_bytes());
    assert!(softpipe.contains("UCMP OUT[0], TEMP[0].xxxx, TEMP[1], TEMP[2]"), "{softpipe}");
    // The condition is SLT's 1.0 or 0.0: -1.0 < 0 selects the then arm.
    let output = run(&["opt", "-O", "--target", "r300", "-"], shader.as_bytes());
    assert!(output.status.success());
    assert!(stdout(&output).contains("CMP OUT[0], -TEMP[0].xxxx, TEMP[1], TEMP[2]"), "{}", stdout(&output));
    assert_eq!(stderr(&output), "", "the IF is gone: the output is within r300's caps");
    // On an input, which may be a NaN, no float select is exact: the IF
    // stays, beyond r300's fragment caps as in the input, and is a
    // warning under the input's line (the driver's compiler emulates such
    // branches).
    let shader = shader.replace("IF TEMP[0].xxxx", "IF IN[0].yyyy");
    let output = run(&["opt", "-O", "--target", "r300", "-"], shader.as_bytes());
    assert!(output.status.success());
    assert!(stdout(&output).contains("IF IN[0].yyyy"), "{}", stdout(&output));
    let err = stderr(&output);
    assert!(err.starts_with("warning: control flow nested 1 deep"), "{err}");
    assert!(err.contains("--> <stdin>:7:1"), "{err}");
}

#[test]
fn opt_fails_naming_the_budget_the_optimized_shader_exceeds() {
    let shader = BRANCHY.replace("SQRT TEMP[1], IN[0].xxxx", "ADD TEMP[1], IN[0], IMM[0].yyyy");
    let output = run(&["opt", "-O", "--caps", "r500,MAX_TEMPS=2", "-"], shader.as_bytes());
    assert_eq!(output.status.code(), Some(1));
    let err = stderr(&output);
    assert!(
        err.starts_with("error: 3 TEMP registers; the target has 2 (MAX_TEMPS) (target `r500,MAX_TEMPS=2`)"),
        "{err}"
    );
    assert!(err.contains("--> <optimized>: `DCL TEMP[0..2]`"), "{err}");
}

#[test]
fn opt_for_etnaviv_writes_outputs_through_temps() {
    let shader = "FRAG\nDCL IN[0], COLOR, COLOR\nDCL IN[1], BCOLOR\nDCL IN[2], FACE\nDCL OUT[0], COLOR\n\
                  DCL TEMP[0]\nCMP TEMP[0], IN[2].xxxx, IN[0], IN[1]\nMOV OUT[0], TEMP[0]\nEND\n";
    // etnaviv's compiler folds a MOV from a TEMP into the output, and
    // gives an output written by an operation a register of its own: the
    // result stays in its TEMP there, and goes straight to OUT elsewhere.
    let etnaviv = success(&["opt", "-O", "--target", "etnaviv-gc2000", "-"], shader.as_bytes());
    assert!(etnaviv.contains("CMP TEMP[0], IN[2].xxxx, IN[0], IN[1]\n  1: MOV OUT[0], TEMP[0]"), "{etnaviv}");
    let r300 = success(&["opt", "-O", "--target", "r300", "-"], shader.as_bytes());
    assert!(r300.contains("CMP OUT[0], IN[2].xxxx, IN[0], IN[1]"), "{r300}");
}
