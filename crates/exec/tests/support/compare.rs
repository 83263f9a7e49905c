//! Comparing the results of two runs.

/// Equal outputs of every lane, killed or not, bits equal or both NaN
/// (payloads aside), the same vertices and primitive ends emitted (values
/// compared alike), the same lanes killed, and the same final buffer
/// words and image texels (compared alike): [`exec::Outputs::same_results`],
/// which the differential tests of the passes use too.
pub fn same(a: &exec::Outputs, b: &exec::Outputs) -> bool {
    a.same_results(b)
}
