//! The `coalesce` pass on hand-written cases and on the shared corpus.
//!
//! Every `tests/inputs/coalesce/*.tgsi` (at the workspace root) is built, run
//! through `coalesce` and verified; the IR and the TGSI emitted after the pass
//! are snapshotted in `snapshots/coalesce/` (review with `cargo insta review`).
//! Each case also runs before and after on three pseudo-random states and
//! must give the same outputs bit for bit, so a wrong transform cannot be
//! blessed. Lines `; expect COUNTER: N` in an input check the pass's
//! counters (`; expect unchanged` checks that nothing changed).

mod support;

use ir::channels::formula_chan;
use support::*;
use testkit::{states, Rng};

#[test]
fn coalesce_snapshots() {
    snapshot_suite("coalesce", |path| snapshot_case(path, &passes::coalesce::Coalesce));
}

/// There are at least 20 hand-written cases.
#[test]
fn enough_cases() {
    let n = case_count("coalesce");
    assert!(n >= 20, "{n} cases in tests/inputs/coalesce");
}

/// How many scalar ALU operations the blocks of the tree hold.
fn alu_ops(func: &ir::Function) -> usize {
    func.blocks_in_order()
        .iter()
        .filter_map(|&b| func.blocks.get(b))
        .flat_map(|b| b.insts.iter())
        .filter(|&&i| func.insts.get(i).is_some_and(|d| matches!(d.op, ir::Op::Alu { .. })))
        .count()
}

/// Runs passes by name on a copy of `module`; the copy and the merged
/// counters, or what went wrong.
fn run_passes(module: &ir::Module, names: &[&str]) -> Result<(ir::Module, passes::Stats), String> {
    let mut out = module.clone();
    let mut stats = passes::Stats::default();
    for name in names {
        let pass = passes::find(name).ok_or_else(|| format!("no pass {name}"))?;
        let result = pass.run(&mut out);
        stats.merge(&result.stats);
        ir::verify::verify(&out.function).map_err(|e| format!("invalid after {name}: {e}"))?;
    }
    Ok((out, stats))
}

/// `coalesce`, `coalesce,dce` and `dce` over every corpus shader: the
/// verifier passes, the emitted text parses and builds, and where the
/// backend runs a shader its outputs (and those of the re-emitted text) do
/// not change. Prints emitted TGSI instructions and scalar ALU operations
/// of `dce` alone against `coalesce,dce` (`--nocapture`).
#[test]
fn coalesce_on_the_corpus() {
    let Some((corpus, skipped, files)) = built_corpus() else { return };
    let built = corpus.len();
    let (mut alu_source, mut alu_dce, mut alu_both) = (0usize, 0usize, 0usize);
    let (mut tgsi_source, mut tgsi_dce, mut tgsi_both) = (0usize, 0usize, 0usize);
    let (mut shorter, mut longer) = (0, 0);
    let (mut ran, mut unchanged, mut not_run) = (0, 0, 0);
    let mut totals = passes::Stats::default();
    let mut failures = Vec::new();
    for Built { name, shader, module: before } in &corpus {
        let runs =
            [run_passes(before, &["coalesce"]), run_passes(before, &["coalesce", "dce"]), run_passes(before, &["dce"])];
        let [Ok((only, stats)), Ok((both, _)), Ok((dce, _))] = runs else {
            let errors: Vec<String> = runs.into_iter().filter_map(|r| r.err()).collect();
            failures.push(format!("{name}: {}", errors.join("; ")));
            continue;
        };
        totals.merge(&stats);
        let mut rebuilt = Vec::new();
        let mut emitted = Vec::new();
        for m in [&only, &both, &dce] {
            let Ok(out) = ir::to_tgsi(m) else {
                failures.push(format!("{name}: emission failed"));
                break;
            };
            let printed = tgsi::print(&out, tgsi::Style::Exact);
            match tgsi::parse(&printed).map(|s| ir::from_tgsi(&s)) {
                Ok(Ok(r)) => rebuilt.push(r),
                _ => {
                    failures.push(format!("{name}: the emitted text does not parse and build:\n{printed}"));
                    break;
                }
            }
            emitted.push(out);
        }
        if emitted.len() != 3 {
            continue;
        }
        alu_source += alu_ops(&before.function);
        alu_both += alu_ops(&both.function);
        alu_dce += alu_ops(&dce.function);
        tgsi_source += tgsi_instructions(shader);
        tgsi_both += tgsi_instructions(&emitted[1]);
        tgsi_dce += tgsi_instructions(&emitted[2]);
        let (n_both, n_dce) = (tgsi_instructions(&emitted[1]), tgsi_instructions(&emitted[2]));
        shorter += usize::from(n_both < n_dce);
        longer += usize::from(n_both > n_dce);

        let state_text = states::for_module(before, &mut Rng::from_name(name, 0));
        let Ok(state) = exec::State::parse(&state_text) else {
            not_run += 1;
            continue;
        };
        let a = exec::run(before, &state, &run_options());
        if a.is_err() {
            not_run += 1;
            continue;
        }
        ran += 1;
        let others = [&only, &both, &rebuilt[0], &rebuilt[1]].map(|m| exec::run(m, &state, &run_options()));
        if others.iter().all(|b| same_results(&a, b)) {
            unchanged += 1;
        } else {
            failures.push(format!("{name}: outputs changed on\n{state_text}"));
        }
    }
    eprintln!(
        "coalesce over the corpus: {} files, {built} built ({skipped} skipped: no parse or build)\n\
         scalar ALU ops: {alu_source} before, {alu_dce} after dce, {alu_both} after coalesce,dce\n\
         TGSI instructions: {tgsi_source} in the sources, {tgsi_dce} emitted after dce, {tgsi_both} after coalesce,dce \
         ({shorter} shaders shorter, {longer} longer)\n\
         run: {ran} ({unchanged} unchanged), not run by the backend: {not_run}\n{totals}",
        files
    );
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n"));
}

/// `formula_chan` against the executor: for every opcode `semantics::eval`
/// evaluates, two channels of one opcode on the same operands give the same
/// bits for all inputs (checked on random and special inputs) exactly when
/// `formula_chan` maps them to one formula, and evaluating the formula
/// channel gives the channel's bits (the IR records only the formula).
#[test]
fn formula_chans_match_the_executor() {
    let specials: [u64; 12] = [
        0,
        0x8000_0000,
        0x3f80_0000,
        0xbf80_0000,
        0x3f00_0000,
        0x4100_0000,
        0x7f80_0000,
        0x7fc0_0000,
        0xffff_ffff,
        0x1234_5678,
        0x4049_0fdb,
        0x3ff0_0000_0000_0000,
    ];
    let mut checked = 0;
    let mut wrong = Vec::new();
    for &op in tgsi::Opcode::ALL {
        for n in 0..=16usize {
            let zeros = vec![0u64; n];
            if semantics::eval(op, 0, &zeros).is_none() {
                continue;
            }
            checked += 1;
            let mut rng = Rng::from_name(op.info().name, n as u64);
            let inputs: Vec<Vec<u64>> = (0..400)
                .map(|k| {
                    (0..n)
                        .map(|_| match k % 4 {
                            0 => *rng.pick(&specials),
                            1 => rng.next_u64(),
                            2 => u64::from(rng.next_u32()),
                            _ => u64::from((states::value(&mut rng).parse::<f32>().unwrap_or(0.0)).to_bits()),
                        })
                        .collect()
                })
                .collect();
            for c in 0..4u8 {
                let f = formula_chan(op, c);
                if !inputs.iter().all(|args| semantics::eval(op, c, args) == semantics::eval(op, f, args)) {
                    wrong.push(format!(
                        "{} with {n} operands: channel {c} differs from its formula {f}",
                        op.info().name
                    ));
                }
            }
            for c1 in 0..4u8 {
                for c2 in c1 + 1..4u8 {
                    let same_bits =
                        inputs.iter().all(|args| semantics::eval(op, c1, args) == semantics::eval(op, c2, args));
                    let same_class = formula_chan(op, c1) == formula_chan(op, c2);
                    if same_bits != same_class {
                        wrong.push(format!(
                            "{} with {n} operands, channels {c1} and {c2}: equal results {same_bits}, one class {same_class}",
                            op.info().name
                        ));
                    }
                }
            }
        }
    }
    assert!(checked > 100, "only {checked} opcodes evaluated");
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
