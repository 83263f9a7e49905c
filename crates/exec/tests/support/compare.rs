//! Comparing the results of two runs.

/// Equal outputs of every lane, killed or not, bits equal or both NaN
/// (payloads aside), and the same lanes killed.
pub fn same(a: &exec::Outputs, b: &exec::Outputs) -> bool {
    let nan = |x: u32| f32::from_bits(x).is_nan();
    a.registers() == b.registers()
        && a.invocations() == b.invocations()
        && (0..a.invocations()).all(|lane| {
            a.is_killed(lane) == b.is_killed(lane)
                && a.registers().iter().all(|&r| {
                    let (x, y) = (a.get(r, lane).unwrap_or_default(), b.get(r, lane).unwrap_or_default());
                    x.iter().zip(&y).all(|(&p, &q)| p == q || (nan(p) && nan(q)))
                })
        })
}
