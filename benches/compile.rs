//! Compile throughput over the shared corpus (`../shared/corpus`, skipped
//! when absent): every shader parsed, built into SSA, run through `-O1` and
//! emitted as text, as `tgsi-opt opt -O` does; one thread, then rayon over
//! the files (as `opt -O --jobs 0 FILES... --out-dir DIR`). Throughput is
//! in shaders per second. Then emission alone, of the modules `-O1` made,
//! without and with the allocation checker: what the check costs.
//!
//! Run with `cargo bench --bench compile`.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use rayon::prelude::*;
use tgsi_opt::{ir, passes, tgsi};

fn corpus() -> Vec<String> {
    let paths = testdata::corpus_files().unwrap_or_default();
    paths.iter().filter_map(|p| std::fs::read_to_string(p).ok()).collect()
}

/// What `opt -O` does to one shader; `None` when it does not build.
fn compile(text: &str) -> Option<String> {
    let mut module = ir::from_tgsi(&tgsi::parse(text).ok()?).ok()?;
    passes::PassManager::new(passes::Options::default()).run(&passes::Pipeline::o1(), &mut module).ok()?;
    Some(tgsi::print(&ir::to_tgsi(&module).ok()?, tgsi::Style::Exact))
}

fn throughput(c: &mut Criterion) {
    let shaders = corpus();
    if shaders.is_empty() {
        eprintln!("skipping: no corpus beside the checkout");
        return;
    }
    let mut group = c.benchmark_group("compile");
    group.sample_size(10);
    group.throughput(Throughput::Elements(shaders.len() as u64));
    group.bench_function("corpus_o1_one_thread", |b| {
        b.iter(|| shaders.iter().filter_map(|s| black_box(compile(s))).count())
    });
    group.bench_function("corpus_o1_rayon", |b| {
        b.iter(|| shaders.par_iter().filter_map(|s| black_box(compile(s))).count())
    });
    group.finish();
}

fn emission(c: &mut Criterion) {
    let modules: Vec<ir::Module> = corpus()
        .iter()
        .filter_map(|text| {
            let mut module = ir::from_tgsi(&tgsi::parse(text).ok()?).ok()?;
            passes::PassManager::new(passes::Options::default()).run(&passes::Pipeline::o1(), &mut module).ok()?;
            Some(module)
        })
        .collect();
    if modules.is_empty() {
        return;
    }
    let mut group = c.benchmark_group("emission");
    group.sample_size(10);
    group.throughput(Throughput::Elements(modules.len() as u64));
    for (name, check) in [("corpus_o1_emit", false), ("corpus_o1_emit_checked", true)] {
        let options = ir::EmitOptions { check, ..Default::default() };
        group.bench_function(name, |b| {
            b.iter(|| modules.iter().filter_map(|m| black_box(ir::to_tgsi_with(m, &options).ok())).count())
        });
    }
    group.finish();
}

criterion_group!(benches, throughput, emission);
criterion_main!(benches);
