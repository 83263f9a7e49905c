//! Differential testing of the passes on random programs
//! (`testkit::random_program`): every registered pass alone and `-O1`,
//! verified after every pass, must give bit-identical results (NaN
//! payloads aside) on random states, and so must the TGSI emitted after
//! them. `tgsi-opt fuzz-passes` runs the same check over many more seeds.

use testkit::difftest::{self, FindingKind};
use testkit::random_program::{self, Stage};

/// Seeds for the differential test (the file takes about 80 s of CPU in a
/// debug build).
const SEEDS: u64 = 300;

/// Seeds whose programs must be valid.
const VALID_SEEDS: u64 = 300;

#[test]
fn generated_programs_parse_build_verify_and_run() {
    for seed in 0..VALID_SEEDS {
        let p = random_program::program(seed);
        let shader =
            tgsi_opt::tgsi::parse(&p.text).unwrap_or_else(|e| panic!("seed {seed}:\n{}", e.render(&p.text, "")));
        let module = tgsi_opt::ir::from_tgsi(&shader).unwrap_or_else(|e| panic!("seed {seed}: {e}\n{}", p.text));
        tgsi_opt::ir::verify::verify(&module.function).unwrap_or_else(|e| panic!("seed {seed}: {e}\n{}", p.text));
        for i in 0..difftest::STATES {
            let text = random_program::state(&p, i);
            let state = exec::State::parse(&text).unwrap_or_else(|e| panic!("seed {seed} state {i}: {e}\n{text}"));
            let options = exec::RunOptions { lanes: 16, ..exec::RunOptions::default() };
            exec::run(&module, &state, &options).unwrap_or_else(|e| panic!("seed {seed} state {i}: {e}\n{}", p.text));
        }
    }
}

/// A lane's results do not depend on the lanes it shares a batch with:
/// batch widths change which lanes run together (whole batches take the
/// backend's full-batch loops, diverged lanes the masked ones).
#[test]
fn results_do_not_depend_on_the_batch_width() {
    for seed in 0..100 {
        let p = random_program::program(seed);
        let shader = tgsi_opt::tgsi::parse(&p.text).unwrap_or_else(|e| panic!("seed {seed}: {e:?}"));
        let module = tgsi_opt::ir::from_tgsi(&shader).unwrap_or_else(|e| panic!("seed {seed}: {e}\n{}", p.text));
        let text = random_program::state(&p, 0);
        let state = exec::State::parse(&text).unwrap_or_else(|e| panic!("seed {seed}: {e}\n{text}"));
        let run = |lanes| exec::run(&module, &state, &exec::RunOptions { lanes, ..exec::RunOptions::default() });
        let wide = run(16).unwrap_or_else(|e| panic!("seed {seed}: {e}\n{}", p.text));
        for lanes in [4, 8] {
            let narrow = run(lanes).unwrap_or_else(|e| panic!("seed {seed}, {lanes} lanes: {e}\n{}", p.text));
            assert!(narrow.same_results(&wide), "seed {seed}: {lanes} lanes per batch differ from 16\n{}", p.text);
        }
    }
}

#[test]
fn generator_is_deterministic() {
    for seed in [0, 1, 42, u64::MAX] {
        let (a, b) = (random_program::program(seed), random_program::program(seed));
        assert_eq!(a.text, b.text);
        assert_eq!(random_program::state(&a, 3), random_program::state(&b, 3));
    }
    assert_ne!(random_program::program(1).text, random_program::program(2).text);
}

#[test]
fn generator_covers_its_features() {
    let programs: Vec<_> = (0..VALID_SEEDS).map(random_program::program).collect();
    let all: String = programs.iter().map(|p| p.text.as_str()).collect();
    for needle in [
        "FRAG\n",
        "VERT\n",
        "COMP\n",
        "DCL SV[0], THREAD_ID",
        "ARRAY(1)",
        "TEMP[ADDR[0].x+",
        "CONST[ADDR[0].x",
        "UARL ADDR[0].x",
        "ARL ADDR[0].x",
        " FLT32 {",
        " UINT32 {",
        " INT32 {",
        " FLT64 {",
        "_SAT ",
        "|",
        "-TEMP",
        ".xxxx",
        "RCP ",
        "RSQ ",
        "EX2 ",
        "LG2 ",
        "POW ",
        "DP2 ",
        "DP3 ",
        "DP4 ",
        "SIN ",
        "COS ",
        "UADD ",
        "IDIV ",
        "IF ",
        "UIF ",
        "ELSE :",
        "ENDIF",
        "BGNLOOP",
        "ENDLOOP",
        "BRK",
        "CONT",
        "SWITCH ",
        "CASE ",
        "DEFAULT",
        "ENDSWITCH",
        "KILL_IF ",
        "DDX",
        "DADD ",
        "DMUL ",
        "DMAD ",
        "DMIN ",
        "DMAX ",
        "F2D ",
        "D2F ",
        "DSLT ",
        "U64ADD ",
        "I64SLT ",
        "BGNSUB\n",
        "CAL :",
        "ENDSUB\n",
    ] {
        assert!(all.contains(needle), "no program has `{needle}`");
    }
    let stages = |s| programs.iter().filter(|p| p.stage == s).count();
    assert!(stages(Stage::Fragment) > 50 && stages(Stage::Vertex) > 50 && stages(Stage::Compute) > 20);
    let state: String = programs.iter().take(50).map(|p| random_program::state(p, 0)).collect();
    let state: String = state
        + &programs
            .iter()
            .filter(|p| p.stage == Stage::Compute)
            .map(|p| random_program::state(p, 0))
            .collect::<String>();
    for needle in [
        "invocations 16\n",
        "input 0 * ",
        "input 0 15 ",
        "const 0 0 ",
        " -0 ",
        " inf",
        " nan",
        " 0x",
        "sysval THREAD_ID 15 ",
    ] {
        assert!(state.contains(needle), "no state has `{needle}`");
    }
}

/// Checks the seeds `0..SEEDS` with `check`, failing on any finding.
fn check_seeds(check: fn(u64) -> difftest::SeedReport) -> difftest::Summary {
    let start = std::time::Instant::now();
    let mut summary = difftest::Summary::default();
    let mut failures = Vec::new();
    for seed in 0..SEEDS {
        let report = check(seed);
        summary.add(&report);
        failures.extend(report.findings);
    }
    eprintln!("{summary:?} in {:.1} s", start.elapsed().as_secs_f64());
    if let Some(first) = failures.first() {
        let seeds: Vec<String> = failures.iter().map(|f| format!("{} ({}, {})", f.seed, f.pipeline, f.kind)).collect();
        panic!("{} finding(s), seeds: {}\n\nthe first:\n{first}", failures.len(), seeds.join(", "));
    }
    summary
}

#[test]
fn passes_leave_random_programs_unchanged() {
    let summary = check_seeds(difftest::check_seed);
    assert_eq!(summary.pass_runs, SEEDS * difftest::pipelines().len() as u64);
}

/// Float-only programs under a target without integers: `select` makes
/// `CMP` selects (exact only on a condition that is never a NaN) or
/// leaves the branch, and nothing emitted needs integers.
#[test]
fn passes_for_a_target_without_integers_leave_float_programs_unchanged() {
    let summary = check_seeds(difftest::check_float_seed);
    assert_eq!(summary.pass_runs, SEEDS * difftest::float_pipelines().len() as u64);
    // The programs are float-only, and select converts some of their IFs
    // into CMP selects (none would make the test hollow).
    let mut cmp_selects = 0;
    for seed in 0..SEEDS {
        let program = random_program::float_program(seed);
        let shader = tgsi::parse(&program.text).expect("a float program parses");
        assert!(shader.instructions().all(|i| !semantics::needs(i.opcode).integers), "{}", program.text);
        let mut module = ir::from_tgsi(&shader).expect("it builds");
        let config = passes::Config { target: Some(difftest::float_target()), ..passes::Config::default() };
        let pipeline = passes::Pipeline::named_with(&["select"], &config).expect("select");
        passes::PassManager::new(passes::Options::default()).run(&pipeline, &mut module).expect("select runs");
        let emitted = ir::to_tgsi(&module).expect("it emits");
        let cmps = |s: &tgsi::Shader| s.instructions().filter(|i| i.opcode == tgsi::Opcode::Cmp).count();
        cmp_selects += cmps(&emitted).saturating_sub(cmps(&shader));
        assert!(emitted.instructions().all(|i| !semantics::needs(i.opcode).integers));
    }
    assert!(cmp_selects > 0, "select made no CMP select in {SEEDS} float programs");
}

/// Seeds `fuzz-passes` once found differences or errors for. 20311351
/// and 20281730: an operand gathered into a register read an initial zero
/// from a channel that the next operand's gathering, for the same
/// instruction, then wrote (the zero was kept only for positions before
/// the read). 20300797: a 64-bit operand was gathered into a pair of the
/// output its instruction writes, which was read and left holding the
/// value. 20287361 and 20317553: the allocation checker refused a float
/// read of a half of a 64-bit value that a MOV had negated.
#[test]
fn seeds_fuzz_passes_found_stay_fixed() {
    for seed in [20_281_730, 20_311_351, 20_300_797, 20_287_361, 20_317_553] {
        let report = difftest::check_seed(seed);
        if let Some(first) = report.findings.first() {
            panic!("seed {seed}: {} finding(s), the first:\n{first}", report.findings.len());
        }
    }
}

#[test]
fn a_broken_program_is_reported_with_its_seed() {
    let report = difftest::check_program(99, "FRAG\nDCL OUT[0], COLOR\nBRK\nEND\n", &[]);
    assert_eq!(report.findings.len(), 1);
    let f = &report.findings[0];
    assert_eq!((f.kind, f.seed, f.pipeline.as_str()), (FindingKind::Error, 99, "generator"));
    assert!(f.to_string().contains("seed 99"), "{f}");
}

/// A program that addresses an array with an address register nothing
/// wrote: the round trip copies the zero index into a scratch register
/// (and the stored value into a TEMP of its own), so its TGSI is larger;
/// `-O1` folds the index and is not.
#[test]
fn output_larger_than_the_program_is_reported() {
    let text = "FRAG\nDCL IN[0], GENERIC[0], CONSTANT\nDCL OUT[0], COLOR\nDCL TEMP[0..1], ARRAY(1)\nDCL ADDR[0]\n\
                MOV TEMP[ADDR[0].x](1), IN[0]\nMOV OUT[0], TEMP[1]\nEND\n";
    let report = difftest::check_program(5, text, &[]);
    assert!(report.findings.is_empty(), "{:?}", report.findings);
    assert_eq!(report.larger, ["-O0"]);
    let mut summary = difftest::Summary::default();
    summary.add(&report);
    assert_eq!(summary.larger, [1, 0]);
}

#[test]
fn every_registered_pass_is_checked() {
    let names: Vec<String> = difftest::pipelines().into_iter().map(|(n, _)| n).collect();
    assert_eq!(names.first().map(String::as_str), Some("-O0"));
    assert!(names.iter().any(|n| n == "-O1"));
    // A driver's tuning changes -O1 (nouveau's: selects of copies only,
    // stores moved up).
    assert_eq!(names.last().map(String::as_str), Some("-O1 --target=nvc0"));
    for pass in tgsi_opt::passes::registry() {
        // `undef` may change what reads of never-written channels give (it
        // runs only with --undef=any); passes/tests/undef.rs checks it.
        if pass.name() == "undef" {
            continue;
        }
        let checked = |n: &String| n.split(' ').next() == Some(pass.name());
        assert!(names.iter().any(checked), "{} is not checked", pass.name());
    }
}
