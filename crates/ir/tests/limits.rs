//! The IR builder within `tgsi::Limits`: subroutine inlining bounded by a
//! size known before anything is built, nesting counted through inlined
//! calls, phis bounded in arguments, and the input limits checked on trees
//! that did not come from the parser.

use testkit::shapes::{call_chain, switch_of_writes};
use tgsi::{Limit, Limits};

fn build(text: &str, limits: &Limits) -> Result<ir::Module, ir::BuildError> {
    let shader = tgsi::parse(text).unwrap_or_else(|e| panic!("{}", e.render(text, "chain")));
    ir::from_tgsi_with_limits(&shader, limits)
}

fn adds(module: &ir::Module) -> usize {
    let printed = ir::print::print_module(module);
    printed.matches(" = add ").count()
}

#[test]
fn a_doubling_chain_is_refused_at_its_call_before_anything_is_built() {
    for k in [20, 1000] {
        let err = build(&call_chain(k, 2), &Limits::DEFAULT).unwrap_err();
        assert_eq!(err.inst, Some(1), "k = {k}: the CAL of the main program");
        let limit = err.limit.expect("a limit error");
        let input = 4 + 4 * k + 3;
        let budget = (64 * input).max(1 << 12);
        assert_eq!((limit.limit, limit.max), (Limit::InlinedInstructions, budget as u64));
        let size = if k == 20 { "1048577" } else { "2^64 - 1 or more" };
        assert_eq!(
            err.to_string(),
            format!(
                "instruction 1: this CAL :4 brings the program to {size} instructions with its subroutines \
                 inlined, more than the limit of {budget} (Limits::inline_factor 64 times the {input} input \
                 instructions, at least Limits::inline_floor 4096)"
            )
        );
    }
}

#[test]
fn a_chain_within_the_budget_is_inlined_in_full() {
    let module = build(&call_chain(10, 2), &Limits::DEFAULT).expect("1,027 instructions inlined");
    assert_eq!(adds(&module), 4 * 1024, "every channel of every inlined ADD");
    // The same chain, with a budget below what it makes.
    let tight = Limits { inline_floor: 1000, inline_factor: 1, ..Limits::DEFAULT };
    let err = build(&call_chain(10, 2), &tight).unwrap_err();
    assert_eq!(err.limit.map(|l| (l.limit, l.value, l.max)), Some((Limit::InlinedInstructions, 1025, 1000)));
}

#[test]
fn the_budget_grows_with_the_input() {
    // 3 calls of a 10-instruction subroutine: 16 instructions in, 31
    // inlined.
    let mut lines = vec!["CAL :4".to_string(); 3];
    lines.push("END".into());
    lines.push("BGNSUB".into());
    lines.extend(vec!["ADD TEMP[0], TEMP[0], IN[0]".to_string(); 10]);
    lines.push("ENDSUB".into());
    let text = format!("FRAG\nDCL IN[0]\nDCL TEMP[0]\n{}\n", lines.join("\n"));
    let per_input = |factor| Limits { inline_factor: factor, inline_floor: 0, ..Limits::DEFAULT };
    assert!(build(&text, &per_input(2)).is_ok());
    let err = build(&text, &per_input(1)).unwrap_err();
    assert_eq!(err.limit.map(|l| (l.value, l.max)), Some((20, 16)), "found at the second call");
    assert_eq!(err.inst, Some(1));
}

fn phi_arguments(module: &ir::Module) -> usize {
    let f = &module.function;
    f.blocks_in_order()
        .iter()
        .flat_map(|&b| &f.blocks[b].insts)
        .map(|&i| &f.insts[i])
        .filter(|i| matches!(i.op, ir::Op::Phi { .. }))
        .map(|i| i.args.len())
        .sum()
}

#[test]
fn a_switch_whose_cases_write_other_registers_is_refused_past_the_phi_budget() {
    // n cases: n phis of n + 1 arguments (the cases and the dispatch).
    let module = build(&switch_of_writes(200), &Limits::DEFAULT).expect("within the budget");
    assert_eq!(phi_arguments(&module), 200 * 201);
    for n in [300, 4000] {
        let err = build(&switch_of_writes(n), &Limits::DEFAULT).unwrap_err();
        let limit = err.limit.expect("a limit error");
        let budget = 64 * (4 * n + 6);
        assert_eq!((limit.limit, limit.max), (Limit::PhiArguments, budget as u64), "n = {n}");
        assert!(limit.value > limit.max);
        assert_eq!(err.inst, Some(2 + 3 * n), "n = {n}: at the ENDSWITCH");
        assert!(err.to_string().contains(&format!("the SSA form needs over {budget} phi arguments")), "{err}");
    }
    // A budget that allows it builds it.
    let loose = Limits { inline_factor: 1 << 12, ..Limits::DEFAULT };
    let module = build(&switch_of_writes(300), &loose).expect("within the loose budget");
    assert_eq!(phi_arguments(&module), 300 * 301);
}

#[test]
fn inlined_calls_count_as_nesting() {
    // A chain of single calls makes a linear program, but nests as deep
    // as the chain is long.
    let deep = Limits::DEFAULT.max_nesting;
    let module = build(&call_chain(deep - 1, 1), &Limits::DEFAULT).expect("within the nesting limit");
    assert_eq!(adds(&module), 4);
    let err = build(&call_chain(deep, 1), &Limits::DEFAULT).unwrap_err();
    let limit = err.limit.expect("a limit error");
    assert_eq!((limit.limit, limit.value, limit.max), (Limit::Nesting, deep as u64 + 1, deep as u64));
    assert!(err.message.ends_with("counting the subroutine calls being inlined"), "{err}");
}

#[test]
fn the_builder_checks_trees_that_did_not_come_from_the_parser() {
    let mut shader = tgsi::parse("FRAG\nDCL IN[0]\nDCL TEMP[0]\nMOV TEMP[0], IN[0]\nEND\n").unwrap();
    let tgsi::Item::Instruction(mov) = &mut shader.items[2] else { unreachable!() };
    mov.dst[0].reg.index = 40_000;
    let err = ir::from_tgsi(&shader).unwrap_err();
    assert_eq!(err.inst, Some(0));
    assert_eq!(err.to_string(), "instruction 0: register index 40000 is out of range (at most 32767)");
    let tgsi::Item::Declaration(decl) = &mut shader.items[1] else { unreachable!() };
    decl.last = 60_000;
    let err = ir::from_tgsi(&shader).unwrap_err();
    assert_eq!(err.to_string(), "item 1: register index 60000 is out of range (at most 32767)");
    assert_eq!(err.limit.map(|l| l.limit), Some(Limit::RegisterIndex));
}

#[test]
fn ordinary_subroutines_are_unaffected() {
    let text = "FRAG\nDCL IN[0]\nDCL OUT[0], COLOR\nDCL TEMP[0]\n\
                MOV TEMP[0], IN[0]\nCAL :6\nCAL :6\nCAL :6\nMOV OUT[0], TEMP[0]\nEND\n\
                BGNSUB\nMUL TEMP[0], TEMP[0], IN[0]\nRET\nENDSUB\n";
    let module = build(text, &Limits::DEFAULT).expect("builds");
    ir::verify::verify(&module.function).expect("verifies");
}
