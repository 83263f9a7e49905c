//! Running a shader costs work linear in what it declares, on both
//! backends: each declaration shape (outputs, inputs, constants, TEMPs,
//! TEMP arrays, samplers, views, images, buffers, immediates, directly
//! and indirectly addressed) at 1,024 registers and at the register index
//! limit, compiled and run on a state of 64 invocations. Work is
//! measured in bytes allocated (`testkit::counting`), never timed: the
//! JIT's compile work shows in Cranelift's allocations, so code whose size
//! followed the declarations instead of the instructions (every declared
//! output channel kept in a variable and stored) fails here.

use tgsi_opt::{exec, ir, tgsi};

#[global_allocator]
static COUNTING: testkit::counting::Counting = testkit::counting::Counting;

/// A fragment shader of `shape` declaring `n` registers of its file.
fn shader(shape: &str, n: u32) -> String {
    let last = n - 1;
    let imm = "IMM[0] FLT32 { 1.0, 2.0, 3.0, 4.0 }\n";
    let addr = format!("DCL ADDR[0]\nIMM[1] UINT32 {{ {last}, 0, 0, 0 }}\nUARL ADDR[0].x, IMM[1].xxxx\n");
    let color = "DCL OUT[0], COLOR\n";
    let body = match shape {
        "outputs storing one" => format!("DCL OUT[0..{last}], GENERIC[0]\n{imm}MOV OUT[{last}], IMM[0]\n"),
        "outputs storing none" => format!("DCL OUT[0..{last}], GENERIC[0]\n"),
        "outputs indirect" => format!("DCL OUT[0..{last}], GENERIC[0]\n{imm}{addr}MOV OUT[ADDR[0].x], IMM[0]\n"),
        "inputs" => format!("DCL IN[0..{last}], GENERIC[0], PERSPECTIVE\n{color}MOV OUT[0], IN[{last}]\n"),
        "inputs indirect" => {
            format!("DCL IN[0..{last}], GENERIC[0], PERSPECTIVE\n{color}{imm}{addr}MOV OUT[0], IN[ADDR[0].x]\n")
        }
        "constants" => format!("DCL CONST[0..{last}]\n{color}MOV OUT[0], CONST[{last}]\n"),
        "constants indirect" => format!("DCL CONST[0..{last}]\n{color}{imm}{addr}MOV OUT[0], CONST[ADDR[0].x]\n"),
        "temps" => format!("DCL TEMP[0..{last}]\n{color}{imm}MOV TEMP[{last}], IMM[0]\nMOV OUT[0], TEMP[{last}]\n"),
        "temp array indirect" => format!(
            "DCL TEMP[0..{last}], ARRAY(1)\n{color}{imm}{addr}MOV TEMP[ADDR[0].x](1), IMM[0]\nMOV OUT[0], TEMP[ADDR[0].x](1)\n"
        ),
        "samplers" => format!("DCL SAMP[0..{last}]\n{color}{imm}MOV OUT[0], IMM[0]\n"),
        "sampler views" => format!("DCL SVIEW[0..{last}], 2D, FLOAT\n{color}{imm}MOV OUT[0], IMM[0]\n"),
        "images" => format!("DCL IMAGE[0..{last}], 2D, PIPE_FORMAT_R32_UINT, WR\n{color}{imm}MOV OUT[0], IMM[0]\n"),
        "buffers" => format!("DCL BUFFER[0..{last}]\n{color}{imm}MOV OUT[0], IMM[0]\n"),
        "immediates" => {
            let imms: String = (0..n).map(|i| format!("IMM[{i}] FLT32 {{ {i}.0, 1.0, 2.0, 3.0 }}\n")).collect();
            format!("{color}{imms}MOV OUT[0], IMM[{last}]\n")
        }
        _ => unreachable!("{shape}"),
    };
    format!("FRAG\n{body}END\n")
}

const SHAPES: [&str; 14] = [
    "outputs storing one",
    "outputs storing none",
    "outputs indirect",
    "inputs",
    "inputs indirect",
    "constants",
    "constants indirect",
    "temps",
    "temp array indirect",
    "samplers",
    "sampler views",
    "images",
    "buffers",
    "immediates",
];

/// Bytes allocated to compile `text` for `backend` and run it on
/// `state`.
fn work(text: &str, backend: exec::Backend, state: &exec::State) -> u64 {
    let module = ir::from_tgsi(&tgsi::parse(text).expect("parses")).expect("builds");
    let before = testkit::counting::allocated();
    let executable = exec::Executable::compile_with(&module, backend).expect("compiles");
    executable.run(state, &exec::RunOptions::default()).expect("runs");
    drop(executable);
    testkit::counting::allocated() - before
}

/// Bytes a run may allocate per declared register, beyond [`BASE`]: the
/// output table of 64 invocations holds 1 KiB of each output register,
/// and the state's columns of each input as much.
const PER_REGISTER: u64 = 4 << 10;
/// What compiling and running a small shader allocates, at most.
const BASE: u64 = 8 << 20;

#[test]
fn declarations_cost_work_linear_in_their_count_on_both_backends() {
    let state = exec::State::parse("invocations 64\n").expect("a state");
    let backends: Vec<exec::Backend> = exec::Backend::ALL.into_iter().filter(|b| b.available().is_ok()).collect();
    if backends.len() < exec::Backend::ALL.len() {
        eprintln!("skipped: the JIT ({:?})", exec::Backend::Jit.available());
    }
    let limit = tgsi::Limits::DEFAULT;
    for shape in SHAPES {
        let most = match shape {
            "immediates" => limit.max_immediates as u32,
            _ => limit.max_register_index + 1,
        };
        for n in [1024, most] {
            let text = shader(shape, n);
            let bytes: Vec<u64> = backends.iter().map(|&b| work(&text, b, &state)).collect();
            eprintln!("{shape} x{n}: {bytes:?} bytes ({backends:?})");
            for (&b, &w) in backends.iter().zip(&bytes) {
                assert!(
                    w <= PER_REGISTER * u64::from(n) + BASE,
                    "{shape}, {n} registers, {b}: {w} bytes ({} per register)",
                    w / u64::from(n)
                );
            }
        }
    }
}
