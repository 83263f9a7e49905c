//! Emission keeps meaning: every corpus shader and its re-emitted form
//! compute the same outputs on random inputs, run by a small reference
//! interpreter (`support/interp.rs`). Programs using something the
//! interpreter does not cover are counted and skipped. Skipped entirely when
//! `../shared` is absent.

mod support {
    pub mod interp;
}

use support::interp::{run, Inputs};
use testdata::corpus_files;

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u32 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 16) as u32
    }
    fn float(&mut self) -> u32 {
        ((self.next() % 4001) as f32 / 1000.0 - 2.0).to_bits()
    }
}

fn same(a: &[(u32, [u32; 4])], b: &[(u32, [u32; 4])]) -> bool {
    a.len() == b.len()
        && a.iter().zip(b).all(|((i, x), (j, y))| {
            i == j
                && x.iter().zip(y).all(|(&p, &q)| p == q || (f32::from_bits(p).is_nan() && f32::from_bits(q).is_nan()))
        })
}

#[test]
fn emitted_programs_compute_what_the_originals_compute() {
    let Some(paths) = corpus_files() else { return };
    let (mut checked, mut skipped) = (0, 0);
    let mut failures = Vec::new();
    for p in &paths {
        let text = String::from_utf8_lossy(&std::fs::read(p).unwrap()).into_owned();
        let original = tgsi::parse(&text).unwrap();
        let module = ir::from_tgsi(&original).unwrap();
        let emitted = ir::to_tgsi(&module).unwrap();
        let printed = tgsi::print(&emitted, tgsi::Style::Exact);
        let emitted = tgsi::parse(&printed).unwrap();
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15 ^ p.to_string_lossy().len() as u64);
        let mut ok_runs = 0;
        for _ in 0..8 {
            let input = Inputs {
                inputs: (0..32).map(|_| [rng.float(), rng.float(), rng.float(), rng.float()]).collect(),
                consts: (0..256).map(|_| [rng.float(), rng.float(), rng.float(), rng.float()]).collect(),
            };
            let (Ok(a), Ok(b)) = (run(&original, &input), run(&emitted, &input)) else { continue };
            ok_runs += 1;
            let emitted_same =
                a.emitted.len() == b.emitted.len() && a.emitted.iter().zip(&b.emitted).all(|(x, y)| same(x, y));
            if a.killed != b.killed || (!a.killed && (!same(&a.outputs, &b.outputs) || !emitted_same)) {
                failures.push(format!("{}:\n  original {a:?}\n  emitted  {b:?}\n{printed}", p.display()));
                break;
            }
        }
        if ok_runs > 0 {
            checked += 1;
        } else {
            skipped += 1;
            if std::env::var_os("SHOW_SKIPPED").is_some() {
                let input = Inputs { inputs: vec![[0; 4]; 32], consts: vec![[0; 4]; 256] };
                eprintln!("skipped {}: {:?}", p.display(), run(&original, &input).err());
            }
        }
    }
    eprintln!("{checked} shaders compared on random inputs, {skipped} skipped (not covered by the interpreter)");
    assert!(
        failures.is_empty(),
        "{} differ:\n{}",
        failures.len(),
        failures.iter().take(3).cloned().collect::<Vec<_>>().join("\n")
    );
}
