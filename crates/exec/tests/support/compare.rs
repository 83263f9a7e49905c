//! Comparing the results of two runs.

/// Equal outputs of every lane, killed or not, bits equal or both NaN
/// (payloads aside), the same vertices and primitive ends emitted (values
/// compared alike), the same lanes killed, and the same final buffer
/// words and image texels (compared alike).
pub fn same(a: &exec::Outputs, b: &exec::Outputs) -> bool {
    let nan = |x: u32| f32::from_bits(x).is_nan();
    let same_vec4 = |x: &[u32; 4], y: &[u32; 4]| x.iter().zip(y).all(|(&p, &q)| p == q || (nan(p) && nan(q)));
    let same_emitted = |lane: u32| {
        a.streams(lane).eq(b.streams(lane))
            && a.streams(lane).all(|s| match (a.emitted(lane, s), b.emitted(lane, s)) {
                (Some(x), Some(y)) => {
                    x.vertices() == y.vertices()
                        && x.primitive_ends() == y.primitive_ends()
                        && (0..x.vertices()).all(|v| {
                            let (p, q) = (x.vertex(v).unwrap_or_default(), y.vertex(v).unwrap_or_default());
                            p.len() == q.len() && p.iter().zip(q).all(|(p, q)| same_vec4(p, q))
                        })
                }
                _ => false,
            })
    };
    let same_words = |p: u32, q: u32| p == q || (nan(p) && nan(q));
    let same_memory = a.buffer_words().count() == b.buffer_words().count()
        && a.buffer_words().zip(b.buffer_words()).all(|(p, q)| (p.0, p.1) == (q.0, q.1) && same_words(p.2, q.2))
        && a.image_texels().count() == b.image_texels().count()
        && a.image_texels().zip(b.image_texels()).all(|(p, q)| (p.0, p.1) == (q.0, q.1) && same_vec4(&p.2, &q.2));
    same_memory
        && a.registers() == b.registers()
        && a.invocations() == b.invocations()
        && (0..a.invocations()).all(|lane| {
            a.is_killed(lane) == b.is_killed(lane)
                && same_emitted(lane)
                && a.registers().iter().all(|&r| {
                    let (x, y) = (a.get(r, lane).unwrap_or_default(), b.get(r, lane).unwrap_or_default());
                    same_vec4(&x, &y)
                })
        })
}
