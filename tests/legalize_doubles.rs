//! `legalize-doubles` over random programs (`testkit::random_program`):
//! for every target the emitted TGSI re-parses, every 64-bit instruction
//! writes `.xy`, `.zw` or `.xyzw` and reads channel pairs, and with
//! `one-double` none writes two doubles. That the results stay the same
//! is checked by the differential test (`tests/differential.rs`), which
//! runs `legalize-doubles` for every target.

use testkit::random_program;
use tgsi_opt::passes::legalize_doubles::{preset, presets, LegalizeDoubles, Wide64};
use tgsi_opt::passes::Pass;
use tgsi_opt::{ir, tgsi};

const SEEDS: u64 = 150;

/// The program of `seed` legalized for `caps`, emitted and re-parsed.
fn legalized(seed: u64, caps: &Wide64) -> (tgsi::Shader, tgsi_opt::passes::PassResult) {
    let program = random_program::program(seed);
    let shader = tgsi::parse(&program.text).unwrap_or_else(|e| panic!("seed {seed}: {e}"));
    let mut module = ir::from_tgsi(&shader).unwrap_or_else(|e| panic!("seed {seed}: {e}"));
    let result = LegalizeDoubles::new(caps.clone()).run(&mut module);
    ir::verify::verify(&module.function).unwrap_or_else(|e| panic!("seed {seed}: {e}"));
    let emitted = ir::to_tgsi(&module).unwrap_or_else(|e| panic!("seed {seed}: {e}"));
    let printed = tgsi::print(&emitted, tgsi::Style::Exact);
    let reparsed = tgsi::parse(&printed).unwrap_or_else(|e| panic!("seed {seed}: {}", e.render(&printed, "")));
    ir::from_tgsi(&reparsed).unwrap_or_else(|e| panic!("seed {seed}: the emitted TGSI does not build: {e}"));
    (reparsed, result)
}

/// Whether a swizzle reads channel pairs: `.xy` or `.zw` in each half.
fn reads_pairs(swizzle: [u8; 4]) -> bool {
    swizzle.chunks(2).all(|p| (p[0] == 0 && p[1] == 1) || (p[0] == 2 && p[1] == 3))
}

#[test]
fn every_double_instruction_writes_and_reads_channel_pairs() {
    for p in presets() {
        let caps = p.target().wide;
        for seed in 0..SEEDS {
            let (shader, _) = legalized(seed, &caps);
            for inst in shader.instructions() {
                let op = inst.opcode;
                if op.dst_type().is_64bit() {
                    let mask = inst.dst.first().map_or(0, |d| d.write_mask & 0xf);
                    assert!(
                        matches!(mask, 0b0011 | 0b1100 | 0b1111),
                        "seed {seed} {}: {op} writes {mask:#06b}",
                        p.name
                    );
                    assert!(!(caps.one_double && mask == 0b1111), "seed {seed} {}: {op} writes two doubles", p.name);
                }
                for (i, src) in inst.src.iter().enumerate() {
                    if op.src_type(i).is_64bit() && op.info().is_64bit() && op != tgsi::Opcode::Dfracexp {
                        assert!(reads_pairs(src.swizzle), "seed {seed} {}: {op} source {i} {:?}", p.name, src.swizzle);
                    }
                }
            }
        }
    }
}

/// Every 64-bit opcode of the random programs that a target lacks is
/// lowered, or counted as not lowered: never silently kept.
#[test]
fn what_is_left_is_counted() {
    for p in presets() {
        let caps = p.target().wide;
        for seed in 0..SEEDS {
            let (shader, result) = legalized(seed, &caps);
            let left = shader.instructions().filter(|i| !caps.is_native(i.opcode)).count() as u64;
            let counted = result.stats.get("ops not lowered").unwrap_or(0);
            // Emission may write two pairs with one instruction, and does
            // not write unused values: at most as many instructions as
            // operations counted.
            assert!(left <= counted, "seed {seed} {}: {left} instructions left, {counted} counted", p.name);
        }
    }
}

/// After `--target=no-fp64` no double or 64-bit integer opcode is left in
/// the emitted TGSI of random programs.
#[test]
fn no_fp64_leaves_no_64bit_opcode() {
    let caps = preset("no-fp64").expect("the no-fp64 preset").target().wide;
    for seed in 0..SEEDS {
        let (shader, _) = legalized(seed, &caps);
        let left: Vec<String> =
            shader.instructions().filter(|i| i.opcode.info().is_64bit()).map(|i| i.opcode.to_string()).collect();
        assert!(left.is_empty(), "seed {seed}: {left:?} left after no-fp64");
    }
}
