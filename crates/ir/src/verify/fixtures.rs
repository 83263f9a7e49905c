//! Test fixtures of the verifier's tests: small functions to break, and
//! assertions over the issues found.

use super::verify;
use crate::cfg::build::*;
use crate::function::*;
use smallvec::smallvec;
use tgsi::Opcode;

pub(super) fn issues(f: &Function) -> Vec<String> {
    match verify(f) {
        Ok(()) => Vec::new(),
        Err(e) => e.issues.iter().map(|i| i.to_string()).collect(),
    }
}

#[track_caller]
pub(super) fn assert_valid(f: &Function) {
    if let Err(e) = verify(f) {
        panic!("{e}\n{}", crate::print::print_function(f));
    }
}

#[track_caller]
pub(super) fn assert_issue(f: &Function, expected: &str) {
    let all = issues(f);
    assert!(all.iter().any(|i| i.contains(expected)), "no issue contains {expected:?}; issues: {all:#?}");
}

/// b0: x, c; if c { b1: y = add x x } else { b2: z = mul x x }; b3: p = phi [b1: y, b2: z]; store p
pub(super) fn diamond() -> (Builder, [Block; 4], [Value; 5]) {
    let mut t = Builder::default();
    let [b0, b1, b2, b3] = [t.block(), t.block(), t.block(), t.block()];
    let x = t.konst(b0, 0x3f80_0000);
    let c = t.konst(b0, 1);
    let y = t.alu(b1, Opcode::Add, &[x, x]);
    let z = t.alu(b2, Opcode::Mul, &[x, x]);
    let p = t.phi(b3, &[(b1, y), (b2, z)]);
    t.store(b3, 0, p);
    t.f.body = vec![blk(b0), if_(c, vec![blk(b1)], vec![blk(b2)]), blk(b3)];
    (t, [b0, b1, b2, b3], [x, c, y, z, p])
}

/// b0: x, c
/// loop { b1: i = phi [b0: x, b2: i, b5: j]; if c { b2 continue } else { b3 };
///        b4; if c { b5: j = add i x } else { b6 break }; b7 }
/// b8: store i
pub(super) fn looped() -> (Builder, Vec<Block>, Inst) {
    let mut t = Builder::default();
    let b: Vec<Block> = (0..9).map(|_| t.block()).collect();
    let x = t.konst(b[0], 1);
    let c = t.konst(b[0], 2);
    let phi = t.inst(b[1], Op::Phi { preds: smallvec![b[0], b[2], b[7]] }, &[x, x, x], &[Ty::B32]);
    let i = t.f.result(phi);
    let j = t.alu(b[5], Opcode::Add, &[i, x]);
    let k = t.phi(b[7], &[(b[5], j)]);
    t.f.insts[phi].args[1].value = i;
    t.f.insts[phi].args[2].value = k;
    t.store(b[8], 0, i);
    t.exit(b[2], Exit::Continue);
    t.exit(b[6], Exit::Break);
    t.f.body = vec![
        blk(b[0]),
        loop_(vec![
            blk(b[1]),
            if_(c, vec![blk(b[2])], vec![blk(b[3])]),
            blk(b[4]),
            if_(c, vec![blk(b[5])], vec![blk(b[6])]),
            blk(b[7]),
        ]),
        blk(b[8]),
    ];
    (t, b, phi)
}
