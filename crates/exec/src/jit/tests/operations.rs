//! Every lowered operation against `semantics::eval`: one operation in a
//! program compiled whole, on random bits and special values.

use super::*;
use tgsi::Opcode::{self, *};

/// Lowered to vector code (no helper call).
const LOWERED: &[Opcode] = &[
    Add, Mul, Mad, Min, Max, Mov, Dp2, Dp3, Dp4, Slt, Sge, Sgt, Sle, Seq, Sne, Fslt, Fsge, Fseq, Fsne, Rcp, Rsq, Sqrt,
    Div, Uadd, Umul, Umad, And, Or, Xor, Not, Ineg, Iabs, Imin, Imax, Umin, Umax, Islt, Isge, Useq, Usne, Uslt, Usge,
    Cmp, Ucmp, Lrp, Flr, Ceil, Trunc, Round, Frc, Ssg, I2f, U2f, F2i, F2u, Uarl, Shl, Ishr, Ushr, UmulHi, ImulHi, Udiv,
    Umod, Idiv, Mod, Issg, Arl, Arr,
];

/// Through the helper (the interpreter's batch loop, lane by lane).
const HELPED: &[Opcode] = &[Ex2, Lg2, Pow, Sin, Cos, Fma];
/// Channel-dependent: (operation, channel), and whether lowered.
const BY_CHANNEL: &[((Opcode, u8), bool)] = &[
    ((Dst, 0), true),
    ((Dst, 1), true),
    ((Dst, 2), true),
    ((Dst, 3), true),
    ((Lit, 0), true),
    ((Lit, 1), true),
    ((Lit, 2), false),
    ((Lit, 3), true),
];

/// Runs the ALU operation `op` (channel `chan`) compiled whole, its
/// `eval` arguments `columns[k]` one value a lane, on as many lanes as a
/// column holds; its result by lane, and whether the code calls the
/// helper for it. The program reads `IN[k].x` for argument `k`; the
/// operation is put in place of an `ADD` in its IR, so that any argument
/// count and channel can be given.
fn run_op(op: Opcode, chan: u8, columns: &[Vec<u32>]) -> (Vec<u32>, bool) {
    use ir::{Op, Source};
    let n = columns.len();
    let lanes = columns[0].len();
    let mut text = String::from("FRAG\n");
    (0..n).for_each(|k| text += &format!("DCL IN[{k}]\n"));
    text += &format!("DCL OUT[0..{n}], GENERIC[0]\n");
    (0..n).for_each(|k| text += &format!("MOV OUT[{k}].x, IN[{k}].xxxx\n"));
    text += &format!("ADD OUT[{n}].x, IN[0].xxxx, IN[0].xxxx\nEND\n");
    let mut module = ir::from_tgsi(&tgsi::parse(&text).unwrap()).unwrap();
    let f = &mut module.function;
    let read = |f: &ir::Function, k: usize| {
        f.insts.iter().find_map(|(_, d)| match d.op {
            Op::Read(Source { file: tgsi::File::Input, index, chan: 0, .. }) if index as usize == k => {
                d.results.first().copied()
            }
            _ => None,
        })
    };
    let args: Vec<ir::Operand> = (0..n).map(|k| ir::Operand::new(read(f, k).unwrap())).collect();
    let add = f.insts.iter().find_map(|(i, d)| matches!(d.op, Op::Alu { opcode: Add, .. }).then_some(i)).unwrap();
    f.insts[add].op = Op::Alu { opcode: op, chan };
    f.insts[add].args = args.into_iter().collect();

    let program = crate::program::Program::compile(&module).unwrap();
    let compiled = crate::jit::compile(&program, crate::run::compiled::CALLBACKS).unwrap().unwrap();
    let called = !compiled._kernels.is_empty();
    let mut state = State::new(lanes as u32).unwrap();
    for (k, column) in columns.iter().enumerate() {
        state.set_input_lanes(k as u32, [column.clone(), vec![0; lanes], vec![0; lanes], vec![0; lanes]]);
    }
    let out = Executable::compile_with(&module, Backend::Jit).unwrap().run(&state, &RunOptions::default()).unwrap();
    let results = (0..lanes).map(|l| out.get(n as u32, l as u32).unwrap()[0]).collect();
    (results, called)
}

/// Every operation with a batch loop of its own, compiled (lowered to
/// vector code or through the helper), computes what `semantics::eval`
/// computes, bit for bit, on random bits and special values, in whole
/// and partial quads.
#[test]
fn compiled_operations_compute_what_eval_computes() {
    let mut rng = testkit::Rng::new(0x005e_ed0f_7e57);
    let ops = LOWERED
        .iter()
        .map(|&o| ((o, 0), true))
        .chain(HELPED.iter().map(|&o| ((o, 0), false)))
        .chain(BY_CHANNEL.iter().copied());
    let mut checked = 0;
    for ((op, chan), inline) in ops {
        let n = semantics::arg_count(op).unwrap();
        // 61 lanes: the last quad partial.
        let columns: Vec<Vec<u32>> =
            (0..n).map(|_| (0..61 * 8).map(|_| testkit::special_or_random(&mut rng, 3)).collect()).collect();
        let (got, called) = run_op(op, chan, &columns);
        assert_eq!(called, !inline, "{op:?}.{chan}: lowered to vector code {inline}");
        for (l, got) in got.into_iter().enumerate() {
            let lane: Vec<u64> = columns.iter().map(|c| c[l] as u64).collect();
            let want = semantics::eval(op, chan, &lane).unwrap() as u32;
            assert_eq!(got, want, "{op:?}.{chan} lane {l} of {lane:x?}: {got:#x} vs {want:#x}");
        }
        checked += 1;
    }
    assert_eq!(checked, LOWERED.len() + HELPED.len() + BY_CHANNEL.len());
}

/// The integer operations computed lane by lane in scalar registers give
/// `semantics::eval`'s results on every pair of edge values: division by
/// 0 and of `i32::MIN` by -1, shift counts of 32 and more, products whose
/// high half is all ones.
#[test]
fn scalar_lane_integer_operations_match_eval_on_edge_values() {
    let edges = [
        0u32,
        1,
        2,
        7,
        31,
        32,
        33,
        64,
        0xffff,
        0x7fff_ffff,
        0x8000_0000,
        0x8000_0001,
        (-7i32) as u32,
        (-2i32) as u32,
        u32::MAX,
        0xdead_beef,
    ];
    let pairs: Vec<(u32, u32)> = edges.iter().flat_map(|&x| edges.iter().map(move |&y| (x, y))).collect();
    let (xs, ys): (Vec<u32>, Vec<u32>) = pairs.into_iter().unzip();
    for op in [Shl, Ishr, Ushr, UmulHi, ImulHi, Udiv, Umod, Idiv, Mod] {
        let (got, called) = run_op(op, 0, &[xs.clone(), ys.clone()]);
        assert!(!called, "{op:?} calls the helper");
        for ((&x, &y), got) in xs.iter().zip(&ys).zip(got) {
            let want = semantics::eval(op, 0, &[x as u64, y as u64]).unwrap() as u32;
            assert_eq!(got, want, "{op:?} {x:#x}, {y:#x}");
        }
    }
}

/// `ADD a, -b` and `MAD a, b, -c` compile to subtractions: the same bits
/// as the sign flip and the sum, on zeros of both signs, infinities and
/// NaNs of any payload too.
#[test]
fn a_negated_addend_is_subtracted_with_the_same_bits() {
    let text = "FRAG\nDCL IN[0]\nDCL IN[1]\nDCL OUT[0], COLOR\nDCL OUT[1], GENERIC[0]\n\
                ADD OUT[0], IN[0], -IN[1]\nMAD OUT[1], IN[0], IN[1].wzyx, -IN[1].yxwz\nEND\n";
    let mut state = String::from("invocations 12\n");
    let values = ["0", "-0", "inf", "-inf", "nan", "0xffc00001", "1", "-1.5", "1e-45", "3e38", "-3e38", "0x7f800001"];
    for (l, x) in values.iter().enumerate() {
        let y = values[(l * 5 + 3) % values.len()];
        let z = values[(l * 7 + 1) % values.len()];
        state += &format!("input 0 {l} {x} {y} {z} {x}\ninput 1 {l} {x} {z} {y} {x}\n");
    }
    both(text, &state, 64);
}

/// The code leaves a NaN's payload as the processor computes it where
/// only arithmetic, comparisons, MIN/MAX and tests read the value, and
/// makes it the canonical NaN wherever its bits can be seen: stored to
/// an output, moved, selected by CMP, read as an integer, switched on.
/// Inputs with NaN payloads of both signs drive every such reader.
#[test]
fn nan_payloads_are_canonical_wherever_their_bits_can_be_seen() {
    let text = "FRAG\nDCL IN[0]\nDCL IN[1]\nDCL OUT[0], COLOR\nDCL OUT[1], GENERIC[0]\nDCL OUT[2], GENERIC[1]\n\
                DCL OUT[3], GENERIC[2]\nDCL TEMP[0..4]\nIMM[0] UINT32 { 1, 2, 0, 0 }\n\
                MUL TEMP[0], IN[0], IN[1]\n\
                ADD TEMP[1], TEMP[0], IN[1].wzyx\n\
                MIN TEMP[2], TEMP[0], TEMP[1].yxwz\n\
                SLT TEMP[3], TEMP[1], TEMP[2]\n\
                MOV OUT[0], TEMP[2]\n\
                CMP OUT[1], TEMP[1], TEMP[0], TEMP[2].wzyx\n\
                UADD OUT[2], TEMP[1], IMM[0].xxxx\n\
                IF TEMP[1].xxxx\n  MAX TEMP[4], TEMP[0], TEMP[3]\nELSE\n  MOV TEMP[4], TEMP[3]\nENDIF\n\
                SWITCH TEMP[0].yyyy\nCASE IMM[0].xxxx\n  MOV TEMP[4].x, TEMP[1].zzzz\n  BRK\n\
                DEFAULT\n  ADD TEMP[4].y, TEMP[4].yyyy, TEMP[0].xxxx\n  BRK\nENDSWITCH\n\
                MOV OUT[3], TEMP[4]\nEND\n";
    let mut state = String::from("invocations 12\n");
    let values =
        ["0x7f800001", "0xffc00123", "nan", "1", "-0", "inf", "-inf", "0x7fbfffff", "2.5", "0", "-1", "0x00000001"];
    for (l, x) in values.iter().enumerate() {
        let y = values[(l * 5 + 3) % values.len()];
        let z = values[(l * 7 + 1) % values.len()];
        state += &format!("input 0 {l} {x} {y} {z} {x}\ninput 1 {l} {z} {x} {y} {y}\n");
    }
    both(text, &state, 64);
}
