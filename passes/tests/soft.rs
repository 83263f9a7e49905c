//! The software emulation of 64-bit operations (`legalize_doubles::soft`)
//! against the backend's scalar semantics, bit for bit, and a check that
//! it emits no 64-bit opcode.

use ir::Ty;
use passes::legalize_doubles::emit::{Emit, Evaluate};
use passes::legalize_doubles::soft;
use testkit::Rng;
use tgsi::Opcode::{self, *};

/// What one operand holds, for generating it.
#[derive(Clone, Copy, PartialEq)]
enum Kind {
    /// A double.
    D,
    /// A 64-bit integer.
    L,
    /// A single-precision float (32 bits).
    F,
    /// A 32-bit integer.
    U,
}

/// How results compare: NaN results of either width only need to be NaN
/// (payload differences are counted apart).
#[derive(Clone, Copy, PartialEq)]
enum Res {
    Double,
    Single,
    Bits,
}

use Kind::*;

fn ops() -> Vec<(Opcode, &'static [Kind], Res)> {
    let d = Res::Double;
    let b = Res::Bits;
    let f = Res::Single;
    vec![
        (Dadd, &[D, D], d),
        (Dmul, &[D, D], d),
        (Dfma, &[D, D, D], d),
        (Dmad, &[D, D, D], d),
        (Ddiv, &[D, D], d),
        (Drcp, &[D], d),
        (Dsqrt, &[D], d),
        (Drsq, &[D], d),
        (Dslt, &[D, D], b),
        (Dsge, &[D, D], b),
        (Dseq, &[D, D], b),
        (Dsne, &[D, D], b),
        (Dmin, &[D, D], d),
        (Dmax, &[D, D], d),
        (Dneg, &[D], d),
        (Dabs, &[D], d),
        (F2d, &[F], d),
        (D2f, &[D], f),
        (I2d, &[U], d),
        (U2d, &[U], d),
        (D2i, &[D], b),
        (D2u, &[D], b),
        (U64add, &[L, L], b),
        (U64mul, &[L, L], b),
        (U64shl, &[L, U], b),
        (U64shr, &[L, U], b),
        (I64shr, &[L, U], b),
        (U64div, &[L, L], b),
        (U64mod, &[L, L], b),
        (I64div, &[L, L], b),
        (I64mod, &[L, L], b),
        (U64seq, &[L, L], b),
        (U64sne, &[L, L], b),
        (U64slt, &[L, L], b),
        (U64sge, &[L, L], b),
        (I64slt, &[L, L], b),
        (I64sge, &[L, L], b),
        (U64min, &[L, L], b),
        (U64max, &[L, L], b),
        (I64min, &[L, L], b),
        (I64max, &[L, L], b),
        (I64abs, &[L], b),
        (I64neg, &[L], b),
        (I64ssg, &[L], b),
        (I2i64, &[U], b),
        (U2i64, &[U], b),
        (F2i64, &[F], b),
        (F2u64, &[F], b),
        (D2i64, &[D], b),
        (D2u64, &[D], b),
        (I642f, &[L], f),
        (U642f, &[L], f),
        (I642d, &[L], d),
        (U642d, &[L], d),
    ]
}

/// Doubles every operation should meet: zeros, denormal and normal
/// limits, infinities, NaNs, powers of two and their neighbours, and the
/// edges of the integer conversions.
fn special_doubles() -> Vec<u64> {
    let mut v: Vec<u64> = vec![
        0,
        1,
        2,
        0x000f_ffff_ffff_ffff,
        0x0008_0000_0000_0000,
        0x0010_0000_0000_0000,
        0x0010_0000_0000_0001,
        0x7fef_ffff_ffff_ffff,
        0x7fe0_0000_0000_0000,
        0x7ff0_0000_0000_0000,
        0x7ff8_0000_0000_0000,
        0x7ff0_0000_0000_0001,
        0x7ff4_0000_0000_0000,
        0x7fff_ffff_ffff_ffff,
        0x7ff8_dead_beef_0001,
    ];
    let pows = [
        0.0f64,
        1.0,
        2.0,
        0.5,
        3.0,
        0.75,
        1.5,
        2147483648.0,
        4294967296.0,
        9223372036854775808.0,
        18446744073709551616.0,
    ];
    for x in pows {
        let b = x.to_bits();
        v.extend([b, b.wrapping_add(1), b.wrapping_sub(1)]);
    }
    for x in [
        2147483647.0f64,
        2147483647.5,
        2147483648.5,
        2147483649.0,
        4294967295.0,
        4294967295.5,
        4294967296.5,
        0.25,
        0.99,
    ] {
        v.push(x.to_bits());
    }
    let neg: Vec<u64> = v.iter().map(|b| b ^ (1 << 63)).collect();
    v.extend(neg);
    v
}

/// A double with a significand of at most `bits` bits (products, squares
/// and quotients of these land exactly on or next to rounding boundaries).
fn short_double(rng: &mut Rng, bits: u32, exp: i32) -> u64 {
    let m = (rng.next_u64() >> (64 - bits)) | 1;
    let x = m as f64 * 2f64.powi(exp);
    let s = rng.next_u64() & (1 << 63);
    x.to_bits() | s
}

/// A double operand: random bits, a special value, a normal in a narrow
/// range, a short significand, a denormal, an extreme exponent, or a
/// neighbour of the previous operand (cancellation, rounding boundaries).
fn gen_double(rng: &mut Rng, specials: &[u64], prev: Option<u64>) -> u64 {
    let sign = rng.next_u64() & (1 << 63);
    let frac = rng.next_u64() & 0x000f_ffff_ffff_ffff;
    match rng.below(if prev.is_some() { 9 } else { 8 }) {
        0 => rng.next_u64(),
        1 => *rng.pick(specials),
        2 => sign | ((1023 - 70 + u64::from(rng.below(140))) << 52) | frac,
        3 => {
            let bits = 1 + rng.below(30);
            let exp = rng.below(120) as i32 - 60;
            short_double(rng, bits, exp)
        }
        4 => sign | frac,
        5 => sign | ((1 + u64::from(rng.below(60))) << 52) | frac,
        6 => sign | ((2046 - u64::from(rng.below(60))) << 52) | frac,
        7 => {
            // Exponents chosen so products and quotients underflow or
            // overflow: around +-511 and +-1022 unbiased.
            let centers = [1023 + 511, 1023 - 511, 1023 - 537, 1023 + 512, 1023 - 1000, 1023 + 1000];
            let c = *rng.pick(&centers);
            sign | ((c + u64::from(rng.below(40)) - 20) << 52) | frac
        }
        _ => {
            let p = prev.unwrap_or(0);
            let delta = u64::from(rng.below(5)).wrapping_sub(2);
            let q = p.wrapping_add(delta);
            match rng.below(4) {
                0 => q ^ (1 << 63),
                1 => q,
                2 => {
                    // Shifted by up to 60 binades either way.
                    let e = ((q >> 52) & 0x7ff) as i64 + rng.below(121) as i64 - 60;
                    (q & !(0x7ff << 52)) | ((e.clamp(0, 2047) as u64) << 52)
                }
                _ => {
                    let (bits, exp) = (1 + rng.below(30), rng.below(120) as i32 - 60);
                    short_double(rng, bits, exp) ^ (p & (1 << 63))
                }
            }
        }
    }
}

/// A single-precision operand.
fn gen_float(rng: &mut Rng) -> u64 {
    let specials: [f32; 12] = [
        0.0,
        1.0,
        f32::INFINITY,
        f32::NAN,
        f32::MIN_POSITIVE,
        f32::MAX,
        2147483648.0,
        4294967296.0,
        9223372036854775808.0,
        18446744073709551616.0,
        0.5,
        1.5,
    ];
    let sign = rng.next_u64() as u32 & 0x8000_0000;
    let x = match rng.below(5) {
        0 => rng.next_u64() as u32,
        1 => specials[rng.below(12) as usize].to_bits() ^ sign,
        2 => (specials[rng.below(12) as usize].to_bits().wrapping_add(rng.below(5)).wrapping_sub(2)) ^ sign,
        3 => sign | (rng.next_u64() as u32 & 0x007f_ffff),
        _ => sign | ((127 + rng.below(70)) << 23) | (rng.next_u64() as u32 & 0x007f_ffff),
    };
    u64::from(x)
}

/// A 64-bit integer operand: random, special, of random length, or near
/// the previous operand (divisors, equal values).
fn gen_long(rng: &mut Rng, prev: Option<u64>) -> u64 {
    let specials = [0u64, 1, 2, 3, u64::MAX, 1 << 63, (1 << 63) - 1, 1 << 32, (1 << 32) - 1, 0xffff_ffff_0000_0000];
    match rng.below(if prev.is_some() { 7 } else { 5 }) {
        0 => rng.next_u64(),
        1 => *rng.pick(&specials),
        2 => rng.next_u64() >> rng.below(64),
        3 => (rng.next_u64() >> rng.below(64)).wrapping_neg(),
        // 54 and 55 significant bits: halfway cases of the conversions.
        4 => (rng.next_u64() >> (9 + rng.below(2))) << rng.below(10),
        5 => prev.unwrap_or(0).wrapping_add(u64::from(rng.below(5))).wrapping_sub(2),
        _ => prev.unwrap_or(0) >> rng.below(64),
    }
}

/// A 32-bit integer operand (also shift counts).
fn gen_u32(rng: &mut Rng) -> u64 {
    match rng.below(4) {
        0 => rng.next_u64() & 0xffff_ffff,
        1 => u64::from(rng.below(70)),
        2 => [0u64, 1, 0x7fff_ffff, 0x8000_0000, 0xffff_ffff][rng.below(5) as usize],
        _ => (rng.next_u64() & 0xffff_ffff) >> rng.below(32),
    }
}

fn gen_args(rng: &mut Rng, kinds: &[Kind], specials: &[u64]) -> Vec<u64> {
    let mut args: Vec<u64> = Vec::new();
    for &k in kinds {
        let prev = args.last().copied();
        let v = match k {
            D => gen_double(rng, specials, prev),
            L => gen_long(rng, prev),
            F => gen_float(rng),
            U => gen_u32(rng),
        };
        args.push(v);
    }
    near_boundaries(rng, kinds, &mut args);
    args
}

/// A few ulps either way.
fn nudge(rng: &mut Rng, bits: u64) -> u64 {
    bits.wrapping_add(u64::from(rng.below(7))).wrapping_sub(3)
}

/// Sometimes replaces operands so the exact result sits on or next to a
/// rounding boundary, or cancels: a square near a short square, a
/// dividend near a short multiple of the divisor, an addend that cancels
/// most of the product.
fn near_boundaries(rng: &mut Rng, kinds: &[Kind], args: &mut [u64]) {
    if kinds.iter().any(|&k| k != D) || rng.below(4) != 0 {
        return;
    }
    let short = |rng: &mut Rng| {
        let (bits, exp) = (1 + rng.below(30), rng.below(40) as i32 - 20);
        f64::from_bits(short_double(rng, bits, exp))
    };
    match args.len() {
        1 => {
            let x = short(rng).abs();
            args[0] = nudge(rng, (x * x).to_bits());
        }
        2 => {
            let q = short(rng);
            args[0] = nudge(rng, (f64::from_bits(args[1]) * q).to_bits());
        }
        _ if rng.below(2) == 0 => {
            let p = f64::from_bits(args[0]) * f64::from_bits(args[1]);
            args[2] = nudge(rng, (-p).to_bits());
        }
        _ => {
            // A product of two 27-bit significands (54 bits: often a tie)
            // and an addend far below it, or far above.
            let (x, y) = (short_double(rng, 27, 0), short_double(rng, 27, -26));
            args[0] = x;
            args[1] = y;
            let p = f64::from_bits(x) * f64::from_bits(y);
            let scale = 2f64.powi(rng.below(240) as i32 - 120);
            args[2] = (p * scale).to_bits() ^ (rng.next_u64() & (1 << 63));
        }
    }
}

fn is_nan(res: Res, bits: u64) -> bool {
    match res {
        Res::Double => f64::from_bits(bits).is_nan(),
        Res::Single => f32::from_bits(bits as u32).is_nan(),
        Res::Bits => false,
    }
}

/// Per-op tallies.
#[derive(Default)]
struct Tally {
    cases: u64,
    exact: u64,
    payload: u64,
    wrong: u64,
    first_wrong: Option<(Vec<u64>, u64, u64)>,
    first_payload: Option<(Vec<u64>, u64, u64)>,
}

fn check(op: Opcode, res: Res, args: &[u64], t: &mut Tally) {
    let want = semantics::eval(op, 0, args).expect("the backend evaluates every emulated op");
    let got = soft::lower(&mut Evaluate, op, args).expect("every listed op is emulated");
    t.cases += 1;
    if got == want {
        t.exact += 1;
    } else if is_nan(res, got) && is_nan(res, want) {
        t.payload += 1;
        if t.first_payload.is_none() {
            t.first_payload = Some((args.to_vec(), want, got));
        }
    } else {
        t.wrong += 1;
        if t.first_wrong.is_none() {
            t.first_wrong = Some((args.to_vec(), want, got));
        }
    }
}

/// Runs `per_op` random cases of every op (after the special values) and
/// returns the report and whether every result matched.
fn run(per_op: u64, seed: u64) -> (String, bool) {
    let specials = special_doubles();
    let mut report = String::new();
    let mut ok = true;
    // SOFT_OPS=DDIV,DSQRT limits a run to some ops.
    let only = std::env::var("SOFT_OPS").ok();
    for (op, kinds, res) in ops() {
        if only.as_deref().is_some_and(|o| !o.split(',').any(|n| n == op.name())) {
            continue;
        }
        let mut rng = Rng::new(seed ^ (op as u64).wrapping_mul(0x1234_5678_9abc_def1));
        let mut t = Tally::default();
        // Every special value (and pair of them, for binary ops) once.
        if kinds.iter().all(|&k| k == D) {
            match kinds.len() {
                1 => specials.iter().for_each(|&a| check(op, res, &[a], &mut t)),
                2 => {
                    for &a in &specials {
                        for &b in &specials {
                            check(op, res, &[a, b], &mut t);
                        }
                    }
                }
                _ => {}
            }
        }
        // In a debug build, fewer cases of the long sequences.
        let cost = emitted(op, kinds).0 as u64;
        let n = if cfg!(debug_assertions) { per_op.min(per_op * 64 / cost.max(1)).max(500) } else { per_op };
        for _ in 0..n {
            let args = gen_args(&mut rng, kinds, &specials);
            check(op, res, &args, &mut t);
        }
        if t.wrong > 0 {
            ok = false;
        }
        report += &format!(
            "{:8} {:>9} cases {:>9} exact {:>6} NaN payload {:>6} wrong",
            op.name(),
            t.cases,
            t.exact,
            t.payload,
            t.wrong
        );
        if let Some((args, want, got)) = t.first_wrong {
            report += &format!("  first wrong: {args:x?} want {want:#x} got {got:#x}");
        }
        if let Some((args, want, got)) = t.first_payload {
            report += &format!("  first NaN payload: {args:x?} want {want:#x} got {got:#x}");
        }
        report += "\n";
    }
    (report, ok)
}

/// Records the opcodes a lowering emits.
#[derive(Default)]
struct Record {
    ops: Vec<Opcode>,
    moves: usize,
    consts: usize,
}

impl Emit for Record {
    type V = ();

    fn konst(&mut self, _: Ty, _: u64) {
        self.consts += 1;
    }

    fn alu(&mut self, opcode: Opcode, _: &[()]) {
        self.ops.push(opcode);
    }

    fn split(&mut self, _: ()) -> ((), ()) {
        self.moves += 2;
        ((), ())
    }

    fn pack(&mut self, _: (), _: ()) {
        self.moves += 1;
    }
}

/// The ALU operations, the splits and packs, and the constants one
/// lowering emits.
fn emitted(op: Opcode, kinds: &[Kind]) -> (usize, usize, usize, Vec<Opcode>) {
    let mut r = Record::default();
    let args = vec![(); kinds.len()];
    assert!(soft::lower(&mut r, op, &args).is_some(), "{op} is not emulated");
    (r.ops.len(), r.moves, r.consts, r.ops)
}

#[test]
fn soft_emits_no_64bit_opcode() {
    let mut counts = String::new();
    for (op, kinds, _) in ops() {
        let (n, moves, consts, emitted) = emitted(op, kinds);
        for o in emitted {
            let wide = o.info().is_64bit() || (0..4).any(|i| o.src_type(i).is_64bit());
            assert!(!wide, "{op} emits {o}");
        }
        counts += &format!("{:8} {n:5} ALU + {moves} split/pack + {consts} constants\n", op.name());
    }
    println!("{counts}");
}

#[test]
fn soft_unknown_op_is_none() {
    let mut e = Evaluate;
    assert_eq!(soft::lower(&mut e, Opcode::Add, &[0, 0]), None);
    assert_eq!(soft::lower(&mut e, Opcode::Dadd, &[0]), None);
}

#[test]
fn soft_matches_backend() {
    let (report, ok) = run(20_000, 1);
    println!("{report}");
    assert!(ok, "mismatches:\n{report}");
}

#[test]
#[ignore = "long: several million cases per op; run with --release"]
fn soft_matches_backend_long() {
    let per_op = std::env::var("SOFT_CASES").ok().and_then(|s| s.parse().ok()).unwrap_or(4_000_000);
    let (report, ok) = run(per_op, 0x5eed);
    println!("{report}");
    assert!(ok, "mismatches:\n{report}");
}

/// Lowered into IR with the `Builder`: every ALU instruction is a 32-bit
/// one reading 32-bit values, and the result has the op's width.
#[test]
fn soft_builds_32bit_ir() {
    use ir::function::{Function, Op, Origin};
    use passes::legalize_doubles::emit::{result_ty, Builder};
    for (op, kinds, _) in ops() {
        let mut f = Function::default();
        let mut b = Builder::new(&mut f, Origin::default());
        let args: Vec<_> =
            kinds.iter().map(|&k| b.konst(if matches!(k, D | L) { Ty::B64 } else { Ty::B32 }, 1)).collect();
        let r = soft::lower(&mut b, op, &args).expect("every listed op is emulated");
        let insts = std::mem::take(&mut b.insts);
        assert_eq!(f.ty(r), result_ty(op), "{op}");
        for inst in insts {
            let data = &f.insts[inst];
            if let Op::Alu { opcode, .. } = data.op {
                assert!(!opcode.info().is_64bit(), "{op} emits {opcode}");
                for a in &data.args {
                    assert_eq!(f.ty(a.value), Ty::B32, "{op}: {opcode} reads a 64-bit value");
                }
            }
        }
    }
}
