//! The immediates of the emitted shader: the source's first, so constants
//! keep their `IMM[n]` where they can, then new ones as needed; unused ones
//! are dropped when the shader is assembled.

use rustc_hash::FxHashMap as HashMap;
use tgsi::{Immediate, ImmediateType};

pub(crate) struct ImmediatePool {
    pub imms: Vec<Immediate>,
    pub used: Vec<bool>,
    /// The immediates holding each 32-bit word, in ascending order: a
    /// search looks only at those holding the rarest word it wants, not
    /// at every immediate (quadratic with thousands of them).
    by_word: HashMap<u32, Vec<u32>>,
    /// The immediates holding each 64-bit value in a channel pair.
    by_pair: HashMap<u64, Vec<u32>>,
}

impl ImmediatePool {
    pub fn new(source: &[Immediate]) -> Self {
        let mut pool = ImmediatePool {
            imms: Vec::with_capacity(source.len()),
            used: vec![false; source.len()],
            by_word: HashMap::default(),
            by_pair: HashMap::default(),
        };
        for imm in source {
            // Mesa's parser rejects 64-bit immediates: keep their words as UINT32.
            let imm = if imm.ty.is_64bit() { Immediate { ty: ImmediateType::Uint32, data: imm.data } } else { *imm };
            pool.push(imm);
        }
        pool
    }

    /// Appends `imm` to the list and the indices; its index.
    fn push(&mut self, imm: Immediate) -> u32 {
        let k = self.imms.len() as u32;
        let note = |list: &mut Vec<u32>| {
            if list.last() != Some(&k) {
                list.push(k);
            }
        };
        for &word in &imm.data {
            note(self.by_word.entry(word).or_default());
        }
        for p in 0..2 {
            let pair = u64::from(imm.data[2 * p]) | u64::from(imm.data[2 * p + 1]) << 32;
            note(self.by_pair.entry(pair).or_default());
        }
        self.imms.push(imm);
        k
    }

    /// The first immediate (lowest index) holding every key of `want`,
    /// among those `index` lists for them; `None` when `want` is empty.
    fn first_holding<K: Copy + Eq + std::hash::Hash>(
        index: &HashMap<K, Vec<u32>>,
        want: impl Iterator<Item = K> + Clone,
        holds: impl Fn(u32) -> bool,
    ) -> Option<Option<u32>> {
        let mut rarest: Option<&[u32]> = None;
        for key in want.clone() {
            let list = index.get(&key).map_or(&[][..], |l| l.as_slice());
            if rarest.is_none_or(|r| list.len() < r.len()) {
                rarest = Some(list);
            }
        }
        Some(rarest?.iter().copied().find(|&k| holds(k)))
    }

    /// An immediate holding the 32-bit words `want` (position -> bits), and
    /// for each position the channel holding it.
    pub fn find_or_add(&mut self, want: &[(usize, u32)]) -> (u32, [u8; 4]) {
        let mut swizzle = [0u8; 4];
        let holds = |k: u32| want.iter().all(|&(_, bits)| self.imms[k as usize].data.contains(&bits));
        let found = match Self::first_holding(&self.by_word, want.iter().map(|&(_, bits)| bits), holds) {
            Some(found) => found,
            // Nothing wanted: any immediate serves.
            None => (!self.imms.is_empty()).then_some(0),
        };
        if let Some(k) = found {
            let imm = &self.imms[k as usize];
            for &(pos, bits) in want {
                swizzle[pos] = imm.data.iter().position(|&d| d == bits).unwrap_or(0) as u8;
            }
            self.used[k as usize] = true;
            return (k, swizzle);
        }
        // A new one: distinct words in order, padded with the first.
        let mut data: Vec<u32> = Vec::with_capacity(4);
        for &(pos, bits) in want {
            let c = match data.iter().position(|&d| d == bits) {
                Some(c) => c,
                None => {
                    data.push(bits);
                    data.len() - 1
                }
            };
            swizzle[pos] = c as u8;
        }
        let pad = data.first().copied().unwrap_or(0);
        while data.len() < 4 {
            data.push(pad);
        }
        let float_like = |d: u32| d & 0x7fff_ffff == 0 || (d >> 23 & 0xff != 0 && d >> 23 & 0xff != 0xff);
        let ty = if data.iter().all(|&d| float_like(d)) { ImmediateType::Float32 } else { ImmediateType::Uint32 };
        let k = self.push(Immediate { ty, data: [data[0], data[1], data[2], data[3]] });
        self.used.push(true);
        (k, swizzle)
    }

    /// An immediate holding the 64-bit values `want` (pair position ->
    /// bits) in channel pairs; the pair holding each.
    pub fn find_or_add_64(&mut self, want: &[(usize, u64)]) -> (u32, [u8; 2]) {
        let mut pairs = [0u8; 2];
        let words = |bits: u64| (bits as u32, (bits >> 32) as u32);
        let pair_of = |imm: &Immediate, bits: u64| {
            let (lo, hi) = words(bits);
            (0..2).find(|&p| imm.data[2 * p] == lo && imm.data[2 * p + 1] == hi)
        };
        let holds = |k: u32| want.iter().all(|&(_, bits)| pair_of(&self.imms[k as usize], bits).is_some());
        let found = match Self::first_holding(&self.by_pair, want.iter().map(|&(_, bits)| bits), holds) {
            Some(found) => found,
            None => (!self.imms.is_empty()).then_some(0),
        };
        if let Some(k) = found {
            for &(pos, bits) in want {
                pairs[pos] = pair_of(&self.imms[k as usize], bits).unwrap_or(0) as u8;
            }
            self.used[k as usize] = true;
            return (k, pairs);
        }
        let mut data = [0u32; 4];
        let mut n = 0;
        for &(pos, bits) in want {
            let (lo, hi) = words(bits);
            let p = match (0..n).find(|&p| data[2 * p] == lo && data[2 * p + 1] == hi) {
                Some(p) => p,
                None => {
                    data[2 * n] = lo;
                    data[2 * n + 1] = hi;
                    n += 1;
                    n - 1
                }
            };
            pairs[pos] = p as u8;
        }
        if n == 1 {
            data[2] = data[0];
            data[3] = data[1];
        }
        // Mesa's parser rejects 64-bit immediates, so they are written as
        // pairs of 32-bit words.
        let k = self.push(Immediate { ty: ImmediateType::Uint32, data });
        self.used.push(true);
        (k, pairs)
    }

    /// Marks source immediate `k` used (texture offsets keep their index).
    pub fn keep(&mut self, k: u32) {
        if let Some(u) = self.used.get_mut(k as usize) {
            *u = true;
        }
    }

    /// The used immediates, and the new index of each old one.
    pub fn finish(&self) -> (Vec<Immediate>, Vec<Option<u32>>) {
        let mut out = Vec::new();
        let mut map = Vec::with_capacity(self.imms.len());
        for (imm, &used) in self.imms.iter().zip(&self.used) {
            if used {
                map.push(Some(out.len() as u32));
                out.push(*imm);
            } else {
                map.push(None);
            }
        }
        (out, map)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::Cell;

    #[test]
    fn a_search_looks_only_at_immediates_holding_the_rarest_word() {
        let mut pool = ImmediatePool::new(&[]);
        for i in 0..10_000u32 {
            let (k, swizzle) = pool.find_or_add(&[(0, 100_000 + i), (1, 7)]);
            assert_eq!((k, swizzle), (i, [0, 1, 0, 0]));
        }
        // Found again: 7 is in every immediate, 104,321 in one; one look.
        let looks = Cell::new(0);
        let holds = |k: u32| {
            looks.set(looks.get() + 1);
            pool.imms[k as usize].data.contains(&104_321)
        };
        let found = ImmediatePool::first_holding(&pool.by_word, [7u32, 104_321].into_iter(), holds);
        assert_eq!((found, looks.get()), (Some(Some(4321)), 1));
        assert_eq!(pool.find_or_add(&[(2, 7), (0, 104_321)]), (4321, [0, 0, 1, 0]));
    }

    #[test]
    fn the_first_immediate_holding_every_word_wins() {
        let imm = |data: [u32; 4]| Immediate { ty: ImmediateType::Uint32, data };
        let mut pool = ImmediatePool::new(&[imm([1, 2, 3, 4]), imm([5, 1, 2, 6]), imm([2, 1, 9, 9])]);
        assert_eq!(pool.find_or_add(&[(0, 2), (1, 1)]), (0, [1, 0, 0, 0]));
        assert_eq!(pool.find_or_add(&[(0, 6), (1, 2)]), (1, [3, 2, 0, 0]));
        assert_eq!(pool.find_or_add(&[(0, 9)]), (2, [2, 0, 0, 0]));
        assert_eq!(pool.find_or_add(&[]), (0, [0; 4]));
        assert_eq!(pool.find_or_add(&[(0, 10)]).0, 3);
        assert_eq!(pool.find_or_add_64(&[(0, 2 << 32 | 1)]), (0, [0, 0]));
        assert_eq!(pool.find_or_add_64(&[(0, 4 << 32 | 3)]), (0, [1, 0]));
        assert_eq!(pool.find_or_add_64(&[(0, 8 << 32 | 7)]).0, 4);
    }
}
