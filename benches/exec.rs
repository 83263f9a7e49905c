//! Speed of the backend (`exec::Executable::run`), single-threaded:
//!
//! - `conformance`: every case of `../shared/conformance/exec/` (skipped
//!   when absent), each run once on its own state, throughput in TGSI
//!   instructions times invocations;
//! - `alu_heavy`: a chain of MAD/MUL/ADD/DP4/RSQ over 4 inputs for 65,536
//!   invocations, and the same computation written as plain Rust over the
//!   same arrays (`native`): compare the two times for the interpreter's
//!   overhead;
//! - `branchy`: a loop whose trip count differs per lane, with an IF
//!   inside, for 65,536 invocations.
//!
//! Run with `cargo bench --bench exec`.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use testkit::synth::alu_heavy_shader;
use tgsi_opt::{exec, ir, tgsi};

const INVOCATIONS: u32 = 65_536;

/// Rounds of the ALU chain; each is 5 instructions.
const ROUNDS: usize = 20;

/// The ALU chain in plain Rust, one invocation at a time.
fn alu_heavy_native(in0: &[[f32; 4]], in1: &[[f32; 4]], out: &mut [[f32; 4]]) {
    let imm = [0.5f32, 0.25, 1.5, 0.125];
    for ((a, b), o) in in0.iter().zip(in1).zip(out.iter_mut()) {
        let mut t0 = *a;
        for _ in 0..ROUNDS {
            let t1: [f32; 4] = std::array::from_fn(|c| t0[c] * imm[c] + b[c]);
            let t2: [f32; 4] = std::array::from_fn(|c| t1[c] * imm[1]);
            t0 = std::array::from_fn(|c| t2[c] + a[c]);
            let dot = t0[0] * b[0] + t0[1] * b[1] + t0[2] * b[2] + t0[3] * b[3];
            t0[3] = 1.0 / dot.abs().sqrt();
        }
        *o = t0;
    }
}

fn branchy_shader() -> String {
    "FRAG\nDCL IN[0]\nDCL OUT[0], COLOR\nDCL TEMP[0..2]\nIMM[0] FLT32 { 0.0, 1.0, 0.5, 3.0 }\n\
     MOV TEMP[0], IMM[0].xxxx\nMOV TEMP[1].x, IMM[0].xxxx\n\
     BGNLOOP\n SGE TEMP[2].x, TEMP[1].xxxx, IN[0].xxxx\n IF TEMP[2].xxxx\n BRK\n ENDIF\n\
     SLT TEMP[2].y, IN[0].yyyy, IMM[0].zzzz\n IF TEMP[2].yyyy\n MAD TEMP[0], TEMP[0], IMM[0].zzzz, IN[0]\n\
     ELSE\n ADD TEMP[0], TEMP[0], IMM[0].yyyy\n ENDIF\n ADD TEMP[1].x, TEMP[1].xxxx, IMM[0].yyyy\nENDLOOP\n\
     MOV OUT[0], TEMP[0]\nEND\n"
        .to_string()
}

/// A state of `INVOCATIONS` lanes: IN[0] and IN[1] vary per lane in a
/// pattern of 16, so every batch diverges the same way.
fn state() -> exec::State {
    let mut s = format!("invocations {INVOCATIONS}\ninput 0 * 1 2 3 4\ninput 1 * 0.5 0.25 0.125 1\n");
    for lane in (0..INVOCATIONS).step_by(13) {
        let k = (lane % 16) as f32;
        s += &format!("input 0 {lane} {} {} {} {}\n", k * 0.5, k * 0.0625, k, -k);
    }
    exec::State::parse(&s).expect("the benchmark's state parses")
}

fn module(text: &str) -> ir::Module {
    ir::from_tgsi(&tgsi::parse(text).expect("the benchmark's shader parses")).expect("it builds")
}

fn instructions(text: &str) -> u64 {
    tgsi::parse(text).map_or(0, |s| s.instructions().filter(|i| i.opcode != tgsi::Opcode::End).count() as u64)
}

fn synthetic(c: &mut Criterion) {
    let state = state();
    let options = exec::RunOptions::default();
    let mut group = c.benchmark_group("exec");
    group.sample_size(10);
    for (name, text) in [("alu_heavy", alu_heavy_shader(ROUNDS)), ("branchy", branchy_shader())] {
        let module = module(&text);
        let executable = exec::Executable::compile(&module).expect("it compiles");
        group.throughput(Throughput::Elements(instructions(&text) * INVOCATIONS as u64));
        group.bench_function(name, |b| b.iter(|| executable.run(black_box(&state), &options).expect("it runs")));
    }
    let lanes = INVOCATIONS as usize;
    let in0: Vec<[f32; 4]> = (0..lanes).map(|l| [1.0 + (l % 16) as f32 * 0.5, 2.0, 3.0, 4.0]).collect();
    let in1: Vec<[f32; 4]> = vec![[0.5, 0.25, 0.125, 1.0]; lanes];
    let mut out = vec![[0.0f32; 4]; lanes];
    group.throughput(Throughput::Elements(instructions(&alu_heavy_shader(ROUNDS)) * INVOCATIONS as u64));
    group.bench_function("alu_heavy_native", |b| b.iter(|| alu_heavy_native(black_box(&in0), &in1, &mut out)));
    group.finish();
}

fn conformance(c: &mut Criterion) {
    let Some((dir, names)) = testdata::conformance_cases() else { return };
    let mut cases = Vec::new();
    let mut work = 0u64;
    for name in &names {
        let read = |ext: &str| std::fs::read_to_string(dir.join(format!("{name}.{ext}")));
        let (Ok(text), Ok(state)) = (read("tgsi"), read("state")) else { continue };
        let Ok(state) = exec::State::parse(&state) else { continue };
        work += instructions(&text) * state.invocations() as u64;
        cases.push((module(&text), state));
    }
    let executables: Vec<_> =
        cases.iter().map(|(m, s)| (exec::Executable::compile(m).expect("it compiles"), s)).collect();
    let options = exec::RunOptions::default();
    let mut group = c.benchmark_group("exec");
    group.sample_size(10);
    group.throughput(Throughput::Elements(work));
    group.bench_function("conformance", |b| {
        b.iter(|| {
            for (e, s) in &executables {
                black_box(e.run(s, &options).expect("it runs"));
            }
        })
    });
    group.finish();
}

criterion_group!(benches, synthetic, conformance);
criterion_main!(benches);
