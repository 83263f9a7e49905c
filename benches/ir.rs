//! Throughput of the pipeline `tgsi-opt opt --passes=` runs: parse the
//! text, build SSA (`ir::from_tgsi`), verify it, emit TGSI again
//! (`ir::to_tgsi`) and print it, on synthetic shaders of 1,000 and 100,000
//! instructions, one with nested control flow (`synth::synthetic_shader`)
//! and one without (`synth::straight_line_shader`). Reported in
//! instructions per second.
//!
//! Run with `cargo bench --bench ir`. A shader the pipeline rejects is
//! skipped with a message.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use testkit::synth::{straight_line_shader, synthetic_shader};
use tgsi_opt::{ir, tgsi};

/// Shader sizes, in instructions.
const SIZES: [usize; 2] = [1_000, 100_000];

/// A shader generator of `synth`: instructions in, text out.
type Generator = fn(usize) -> String;

/// The shapes measured, by name.
const GENERATORS: [(&str, Generator); 2] =
    [("control_flow", synthetic_shader), ("straight_line", straight_line_shader)];

/// Parse, build, verify, emit, print: what `opt --passes=` does.
fn pipeline(text: &str) -> Result<String, String> {
    let shader = tgsi::parse(text).map_err(|e| e.render(text, "<synthetic>"))?;
    let module = ir::from_tgsi(&shader).map_err(|e| e.to_string())?;
    ir::verify::verify(&module.function).map_err(|e| e.to_string())?;
    let emitted = ir::to_tgsi(&module).map_err(|e| e.to_string())?;
    Ok(tgsi::print(&emitted, tgsi::Style::Exact))
}

fn opt_no_passes(c: &mut Criterion) {
    let mut group = c.benchmark_group("opt_no_passes");
    group.sample_size(10);
    for (name, generate) in GENERATORS {
        for n in SIZES {
            let text = generate(n);
            if let Err(err) = pipeline(&text) {
                eprintln!("skipping {name}/{n}: {err}");
                continue;
            }
            group.throughput(Throughput::Elements(n as u64));
            group.bench_with_input(BenchmarkId::new(name, n), &text, |b, text| b.iter(|| pipeline(black_box(text))));
        }
    }
    group.finish();
}

criterion_group!(benches, opt_no_passes);
criterion_main!(benches);
