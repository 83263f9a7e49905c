//! The table of operations ([`semantics::facts`]) checked against the
//! formulas ([`semantics::eval`]): every fact the table states holds on
//! random and special inputs, and every fact those inputs show is stated.

use semantics::{arg_count, arg_source, eval, facts, NanResult};
use testkit::Rng;
use tgsi::{ChannelMode, Opcode, OperandType};

/// NaNs of different payloads and signs, quiet and signalling.
const NANS: &[u32] = &[0x7fc0_0000, 0xffc0_0000, 0x7fc1_2345, 0xffff_ffff, 0x7f80_0001, 0xffbf_ffff, 0x7fa0_0000];

const TRIALS: usize = 3_000;

/// One argument of type `ty`: a special pattern half the time.
fn arg(rng: &mut Rng, ty: OperandType) -> u64 {
    let half = |rng: &mut Rng| testkit::special_or_random(rng, 2);
    if ty.is_64bit() {
        match rng.below(4) {
            0 => f64::NAN.to_bits() ^ u64::from(rng.next_u32()),
            1 => f64::from(f32::from_bits(half(rng))).to_bits(),
            _ => rng.next_u64(),
        }
    } else {
        u64::from(half(rng))
    }
}

/// Every opcode `eval` evaluates, with its argument count and channels.
fn operations() -> Vec<(Opcode, usize, Vec<u8>)> {
    let mut ops = Vec::new();
    for &op in Opcode::ALL {
        let Some(n) = arg_count(op) else { continue };
        let chans: Vec<u8> = if op.info().mode == ChannelMode::ChannelDependent { (0..4).collect() } else { vec![0] };
        if chans.iter().all(|&c| eval(op, c, &vec![0; n]).is_some()) {
            ops.push((op, n, chans));
        }
    }
    ops
}

/// The type argument `k` of `op` is read as.
fn arg_ty(op: Opcode, k: usize) -> OperandType {
    op.src_type(arg_source(op, k).unwrap_or(0))
}

fn random_args(rng: &mut Rng, op: Opcode, n: usize) -> Vec<u64> {
    let mut args: Vec<u64> = (0..n).map(|k| arg(rng, arg_ty(op, k))).collect();
    // Equal operands now and then, for comparisons and minima to see ties.
    if n >= 2 && arg_ty(op, 0) == arg_ty(op, 1) && rng.below(4) == 0 {
        args[1] = args[0];
    }
    args
}

/// What the formula shows of one operation.
#[derive(Debug, Default)]
struct Seen {
    /// A result was a NaN.
    any_nan: bool,
    /// A result was a NaN other than the canonical one.
    other_nan: bool,
    /// By source: a NaN's bits there changed a result.
    payload_matters: u8,
    /// Swapping sources 0 and 1 changed a result.
    order_matters: bool,
    /// Sources 0 and 1 can be swapped at all.
    swappable: bool,
}

/// Whether a result is a NaN, and one other than the canonical NaN (for
/// doubles, every NaN counts as other: no double operation makes NaNs
/// canonical).
fn is_nan(op: Opcode, bits: u64) -> (bool, bool) {
    if op.dst_type().is_64bit() {
        let x = f64::from_bits(bits);
        (x.is_nan(), x.is_nan())
    } else {
        let x = f32::from_bits(bits as u32);
        (x.is_nan(), x.is_nan() && bits as u32 != semantics::CANONICAL_NAN)
    }
}

/// The arguments with sources 0 and 1 swapped, when both have one type.
fn swapped(op: Opcode, args: &[u64]) -> Option<Vec<u64>> {
    let info = op.info();
    if info.num_src < 2 || op.src_type(0) != op.src_type(1) {
        return None;
    }
    let of = |s: usize| (0..args.len()).filter(move |&k| arg_source(op, k) == Some(s)).collect::<Vec<_>>();
    let (a, b) = (of(0), of(1));
    if a.len() != b.len() {
        return None;
    }
    let mut out = args.to_vec();
    for (&i, &j) in a.iter().zip(&b) {
        out.swap(i, j);
    }
    Some(out)
}

/// Runs `op` on [`TRIALS`] random argument lists, and on every pair of
/// special patterns in sources 0 and 1 of a 32-bit operation (so that
/// pairs such as -0.0 and +0.0 are always tried); every channel, each
/// float argument replaced by two different NaNs, and swapped.
fn observe(op: Opcode, n: usize, chans: &[u8], rng: &mut Rng) -> Seen {
    let mut seen = Seen { swappable: swapped(op, &vec![0; n]).is_some(), ..Seen::default() };
    for _ in 0..TRIALS {
        let args = random_args(rng, op, n);
        check(op, chans, &args, rng, &mut seen);
    }
    if !op.info().is_64bit() {
        for &x in testkit::SPECIAL_BITS {
            for &y in testkit::SPECIAL_BITS {
                let mut args = random_args(rng, op, n);
                for (k, a) in args.iter_mut().enumerate() {
                    match arg_source(op, k) {
                        Some(0) => *a = u64::from(x),
                        Some(1) => *a = u64::from(y),
                        _ => {}
                    }
                }
                check(op, chans, &args, rng, &mut seen);
            }
        }
    }
    seen
}

/// What `op` on `args` shows, every channel, added to `seen`.
fn check(op: Opcode, chans: &[u8], args: &[u64], rng: &mut Rng, seen: &mut Seen) {
    for &c in chans {
        let Some(r) = eval(op, c, args) else { continue };
        let (nan, other) = is_nan(op, r);
        seen.any_nan |= nan;
        seen.other_nan |= other;
        for k in 0..args.len() {
            if arg_ty(op, k) != OperandType::Float {
                continue;
            }
            let (mut x, mut y) = (args.to_vec(), args.to_vec());
            x[k] = u64::from(*rng.pick(NANS));
            y[k] = u64::from(*rng.pick(NANS));
            if eval(op, c, &x) != eval(op, c, &y) {
                seen.payload_matters |= 1 << arg_source(op, k).unwrap_or(0);
            }
        }
        if let Some(s) = swapped(op, args) {
            if eval(op, c, &s) != Some(r) {
                seen.order_matters = true;
            }
        }
    }
}

/// What the row of `op` states that the formula breaks, or misses that
/// the formula shows.
fn disagreements(op: Opcode, seen: &Seen) -> Vec<String> {
    let Some(row) = facts(op) else { return vec![format!("{op}: evaluated but has no row")] };
    let mut out = Vec::new();
    let floats =
        (0..op.info().num_src as usize).filter(|&s| op.src_type(s) == OperandType::Float).fold(0u8, |m, s| m | 1 << s);
    let blind = floats & !seen.payload_matters;
    if row.nan_blind & floats != blind {
        out.push(format!("{op}: NaN-blind sources {:#05b} stated, {blind:#05b} seen", row.nan_blind & floats));
    }
    let commutes = seen.swappable && !seen.order_matters;
    if row.commutes != commutes {
        out.push(format!("{op}: commutes {} stated, {commutes} seen", row.commutes));
    }
    // NaN results are facts of float results; integer results are bits.
    let float_result = matches!(op.dst_type(), OperandType::Float | OperandType::Double | OperandType::Untyped);
    let nan = if seen.other_nan {
        NanResult::Bits
    } else if seen.any_nan {
        NanResult::Canonical
    } else {
        NanResult::Never
    };
    if (float_result && row.nan != nan) || (!float_result && row.nan != NanResult::Bits) {
        out.push(format!("{op}: NaN results {:?} stated, {nan:?} seen", row.nan));
    }
    out
}

#[test]
fn every_fact_of_the_table_is_what_the_formula_computes() {
    let mut rng = Rng::new(0x5eed_f00d);
    let ops = operations();
    let mut wrong = Vec::new();
    for (op, n, chans) in &ops {
        wrong.extend(disagreements(*op, &observe(*op, *n, chans, &mut rng)));
    }
    assert!(wrong.is_empty(), "the table and the formulas disagree:\n{}", wrong.join("\n"));
    // Every operation eval covers was checked (156 today).
    assert!(ops.len() >= 156, "checked {} operations", ops.len());
    eprintln!("facts: checked {} operations", ops.len());
}

#[test]
fn the_table_has_no_row_for_what_eval_does_not_evaluate() {
    let evaluated: Vec<Opcode> = operations().into_iter().map(|(op, _, _)| op).collect();
    for &op in Opcode::ALL {
        if facts(op).is_some() && !evaluated.contains(&op) {
            panic!("{op} has a row but no formula");
        }
    }
}
