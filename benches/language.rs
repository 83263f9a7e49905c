//! Throughput of the language crate on a synthetic shader of 100,000
//! instructions (about 4.5 MB of text): parsing, printing in both styles,
//! and encoding and decoding Mesa's token stream.
//!
//! Run with `cargo bench --bench language`. A stage whose input cannot be
//! produced (because parsing or encoding fails) is skipped with a message.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use testkit::synth::synthetic_shader;
use tgsi_opt::tgsi::{self, tokens, Style};

/// Instructions in the benchmarked shader.
const INSTRUCTIONS: usize = 100_000;

fn language(c: &mut Criterion) {
    let text = synthetic_shader(INSTRUCTIONS);
    let mut group = c.benchmark_group("language");
    group.sample_size(10);

    let shader = match tgsi::parse(&text) {
        Ok(shader) => shader,
        Err(err) => {
            eprintln!(
                "skipping all language benchmarks: the synthetic shader does not parse:\n{}",
                err.render(&text, "<synthetic>")
            );
            return;
        }
    };
    group.throughput(Throughput::Bytes(text.len() as u64));
    group.bench_function("parse", |b| b.iter(|| tgsi::parse(black_box(&text))));

    for (name, style) in [("print_exact", Style::Exact), ("print_mesa", Style::Mesa)] {
        let printed = tgsi::print(&shader, style);
        group.throughput(Throughput::Bytes(printed.len() as u64));
        group.bench_function(name, |b| b.iter(|| tgsi::print(black_box(&shader), style)));
    }

    let words = match tokens::encode(&shader) {
        Ok(words) => words,
        Err(err) => {
            eprintln!("skipping token benchmarks: the synthetic shader does not encode: {err}");
            return;
        }
    };
    group.throughput(Throughput::Bytes(4 * words.len() as u64));
    group.bench_function("encode", |b| b.iter(|| tokens::encode(black_box(&shader))));
    group.bench_function("decode", |b| b.iter(|| tokens::decode(black_box(&words))));
    group.finish();
}

criterion_group!(benches, language);
criterion_main!(benches);
