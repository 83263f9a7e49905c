//! The OUT registers a batch writes: declared registers straight in the
//! run's outputs, stores to undeclared ones kept apart.

/// The OUT registers of a batch's lanes: the declared ones in the run's
/// outputs (lane-major, `values[lane * registers.len() + slot]`), any
/// other index a store names in `extra`. Unwritten channels read zero.
pub(super) struct OutputTable<'o> {
    pub(super) values: &'o mut [[u32; 4]],
    pub(super) registers: &'o [u32],
    /// Stores to undeclared registers, by (index, lane): rare, and kept
    /// sparse whatever the index (a vector: nothing to make or drop in the
    /// usual batch with none).
    pub(super) extra: Vec<((u32, usize), [u32; 4])>,
}

impl OutputTable<'_> {
    #[inline]
    pub(super) fn get(&self, index: u32, chan: u8, lane: usize) -> u32 {
        let c = chan as usize & 3;
        match self.registers.binary_search(&index) {
            Ok(r) => self.values.get(lane * self.registers.len() + r).map_or(0, |o| o[c]),
            Err(_) => self.extra.iter().find(|e| e.0 == (index, lane)).map_or(0, |e| e.1[c]),
        }
    }

    #[inline]
    pub(super) fn set(&mut self, index: u32, chan: u8, lane: usize, v: u32) {
        let c = chan as usize & 3;
        match self.registers.binary_search(&index) {
            Ok(r) => {
                if let Some(o) = self.values.get_mut(lane * self.registers.len() + r) {
                    o[c] = v;
                }
            }
            Err(_) => match self.extra.iter_mut().find(|e| e.0 == (index, lane)) {
                Some(e) => e.1[c] = v,
                None => {
                    let mut value = [0; 4];
                    value[c] = v;
                    self.extra.push(((index, lane), value));
                }
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Stores to a register no `DCL OUT` declares are kept apart and read
    /// back by lane and channel; declared ones land in the table.
    #[test]
    fn output_table_keeps_undeclared_registers_apart() {
        let mut values = [[0u32; 4]; 2];
        let registers = [3u32];
        let mut table = OutputTable { values: &mut values, registers: &registers, extra: Vec::new() };
        table.set(7, 1, 0, 11);
        table.set(7, 2, 1, 12);
        table.set(7, 3, 0, 13);
        table.set(3, 0, 1, 14);
        assert_eq!([0, 1, 2, 3].map(|c| table.get(7, c, 0)), [0, 11, 0, 13]);
        assert_eq!([0, 1, 2, 3].map(|c| table.get(7, c, 1)), [0, 0, 12, 0]);
        assert_eq!(table.get(5, 0, 0), 0, "never stored");
        assert_eq!(table.extra.len(), 2, "one entry a register and lane");
        assert_eq!(values, [[0; 4], [14, 0, 0, 0]]);
    }
}
