//! Lane masks: a bit per lane of a batch, the lanes they hold, and writes
//! of a batch loop's results into the lanes of a mask.

/// `values` into the lanes that `active` has of each slot of `columns`
/// (consecutive slots of `w` lanes): one copy when every lane is active.
#[inline]
pub(super) fn write_lanes(columns: &mut [u32], values: &[u32], active: u64, w: usize) {
    if active == full(w) {
        columns.copy_from_slice(values);
    } else {
        for (column, values) in columns.chunks_exact_mut(w).zip(values.chunks_exact(w)) {
            for l in Lanes(active) {
                column[l] = values[l];
            }
        }
    }
}

/// The lanes of a mask, lowest first.
pub(super) struct Lanes(pub(super) u64);

impl Iterator for Lanes {
    type Item = usize;

    #[inline]
    fn next(&mut self) -> Option<usize> {
        if self.0 == 0 {
            return None;
        }
        let l = self.0.trailing_zeros() as usize;
        self.0 &= self.0 - 1;
        Some(l)
    }
}

/// The mask of every lane of a batch of `w`.
#[inline]
pub(super) fn full(w: usize) -> u64 {
    if w == 64 {
        u64::MAX
    } else {
        (1 << w) - 1
    }
}
