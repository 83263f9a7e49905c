//! `testkit::check`, the pass bisector behind `tgsi-opt check`: a pass
//! planted to break one operation must be named, with the first value it
//! changed; correct passes must not be.

use passes::{Pass, PassResult};
use testkit::check::{check, random_states, Verdict};

/// A wrong pass, for the tests only: the first `mul` becomes an `add`.
struct Planted;

impl Pass for Planted {
    fn name(&self) -> &'static str {
        "planted"
    }

    fn description(&self) -> &'static str {
        "turns the first mul into an add"
    }

    fn run(&self, module: &mut ir::Module) -> PassResult {
        let func = &mut module.function;
        for block in func.blocks_in_order() {
            for inst in func.blocks[block].insts.clone() {
                if let ir::Op::Alu { opcode: opcode @ tgsi::Opcode::Mul, .. } = &mut func.insts[inst].op {
                    *opcode = tgsi::Opcode::Add;
                    return PassResult { changed: true, ..PassResult::default() };
                }
            }
        }
        PassResult::default()
    }
}

const SHADER: &str = "FRAG
DCL IN[0], GENERIC[0], PERSPECTIVE
DCL IN[1], GENERIC[1], PERSPECTIVE
DCL OUT[0], COLOR
DCL TEMP[0]
IMM[0] FLT32 { 0.0, 1.0, 0.0, 0.0 }
ADD TEMP[0], IN[0], IMM[0].xxxx
MUL OUT[0], TEMP[0], IN[1]
END
";

fn module() -> ir::Module {
    ir::from_tgsi(&tgsi::parse(SHADER).expect("parses")).expect("builds")
}

/// IN[0] = (2, 3, 4, 5) and IN[1] = 10 on every lane: OUT[0].x is 20, and
/// 12 once its mul is an add.
fn known_state() -> exec::State {
    exec::State::parse("invocations 4\ninput 0 * 2 3 4 5\ninput 1 * 10 10 10 10\n").expect("a state")
}

#[test]
fn the_planted_pass_is_named_with_the_value_it_changed() {
    let pipeline: [&dyn Pass; 3] =
        [passes::find("constfold").expect("constfold"), &Planted, passes::find("dce").expect("dce")];
    let verdict = check(&module(), &pipeline, 1, &[known_state()]).expect("checks");
    let Verdict::Changed(culprit) = verdict else { panic!("the planted pass went unnoticed: {verdict:?}") };
    assert_eq!((culprit.step.as_str(), culprit.iteration, culprit.state), ("planted", 1, 0));
    let c = culprit.channel.expect("a register output");
    assert_eq!((c.index, c.lane, c.chan), (0, 0, 0));
    assert_eq!((f32::from_bits(c.before), f32::from_bits(c.after)), (20.0, 12.0));
    // The IR computing OUT[0].x: its mul became an add.
    let count = |text: &str, op: &str| text.matches(&format!(" = {op} ")).count();
    let (before, after) = (&culprit.ir_before, &culprit.ir_after);
    assert_eq!((count(before, "mul"), count(before, "add")), (1, 1), "{before}");
    assert_eq!((count(after, "mul"), count(after, "add")), (0, 2), "{after}");
    assert!(after.contains("storeoutput OUT[0].x"), "{after}");
    let report = culprit.to_string();
    assert!(report.contains("OUT[0].x of lane 0: 0x41a00000 (20.0) before, 0x41400000 (12.0) after"), "{report}");
}

#[test]
fn random_states_find_it_too() {
    let m = module();
    let states = random_states(&m, 8, 1).expect("states");
    let verdict = check(&m, &[&Planted], 1, &states).expect("checks");
    assert!(matches!(&verdict, Verdict::Changed(c) if c.step == "planted"), "{verdict:?}");
}

#[test]
fn correct_passes_change_nothing() {
    let m = module();
    let states = random_states(&m, 8, 1).expect("states");
    let o1 = passes::Pipeline::o1();
    let list: Vec<&dyn Pass> = o1.passes().collect();
    let verdict = check(&m, &list, o1.max_iterations(), &states).expect("checks");
    assert!(matches!(verdict, Verdict::Same { states: 8, skipped: 0, .. }), "{verdict:?}");
}

#[test]
fn a_shader_that_runs_on_no_state_is_an_error() {
    let endless = "FRAG\nDCL OUT[0], COLOR\nBGNLOOP\nENDLOOP\nEND\n";
    let m = ir::from_tgsi(&tgsi::parse(endless).expect("parses")).expect("builds");
    let states = random_states(&m, 2, 0).expect("states");
    let err = check(&m, &[], 1, &states).expect_err("no state runs");
    assert!(err.to_string().starts_with("the unoptimized shader runs on none of the states"), "{err}");
}

#[test]
fn no_state_is_an_error_not_a_pass() {
    let err = check(&module(), &[&Planted], 1, &[]).expect_err("nothing to run");
    assert_eq!(err.to_string(), "no state to run the shader on");
}

/// `fuzz-passes` reports name the culprit the same way: a difference found
/// by `difftest` carries the step and the value, as `check` prints them.
#[test]
fn a_differential_finding_names_its_culprit() {
    let m = module();
    let state = random_states(&m, 1, 0).expect("a state").remove(0);
    let report = testkit::difftest::culprit(&m, &[&Planted], 1, &state).expect("the planted pass is found");
    assert!(report.starts_with("planted changed the results"), "{report}");
    let constfold = passes::find("constfold").expect("constfold");
    assert_eq!(testkit::difftest::culprit(&m, &[constfold], 1, &state), None);
}
