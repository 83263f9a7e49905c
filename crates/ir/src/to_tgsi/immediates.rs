//! The immediates of the emitted shader: the source's first, so constants
//! keep their `IMM[n]` where they can, then new ones as needed; unused ones
//! are dropped when the shader is assembled.

use tgsi::{Immediate, ImmediateType};

pub(crate) struct ImmediatePool {
    pub imms: Vec<Immediate>,
    pub used: Vec<bool>,
}

impl ImmediatePool {
    pub fn new(source: &[Immediate]) -> Self {
        // Mesa's parser rejects 64-bit immediates: keep their words as UINT32.
        let imms = source
            .iter()
            .map(|imm| if imm.ty.is_64bit() { Immediate { ty: ImmediateType::Uint32, data: imm.data } } else { *imm })
            .collect();
        ImmediatePool { imms, used: vec![false; source.len()] }
    }

    /// An immediate holding the 32-bit words `want` (position -> bits), and
    /// for each position the channel holding it.
    pub fn find_or_add(&mut self, want: &[(usize, u32)]) -> (u32, [u8; 4]) {
        let mut swizzle = [0u8; 4];
        for (k, imm) in self.imms.iter().enumerate() {
            let mut ok = true;
            for &(pos, bits) in want {
                match imm.data.iter().position(|&d| d == bits) {
                    Some(c) => swizzle[pos] = c as u8,
                    None => {
                        ok = false;
                        break;
                    }
                }
            }
            if ok {
                self.used[k] = true;
                return (k as u32, swizzle);
            }
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
        self.imms.push(Immediate { ty, data: [data[0], data[1], data[2], data[3]] });
        self.used.push(true);
        ((self.imms.len() - 1) as u32, swizzle)
    }

    /// An immediate holding the 64-bit values `want` (pair position ->
    /// bits) in channel pairs; the pair holding each.
    pub fn find_or_add_64(&mut self, want: &[(usize, u64)]) -> (u32, [u8; 2]) {
        let mut pairs = [0u8; 2];
        let words = |bits: u64| (bits as u32, (bits >> 32) as u32);
        for (k, imm) in self.imms.iter().enumerate() {
            let mut ok = true;
            for &(pos, bits) in want {
                let (lo, hi) = words(bits);
                match (0..2).find(|&p| imm.data[2 * p] == lo && imm.data[2 * p + 1] == hi) {
                    Some(p) => pairs[pos] = p as u8,
                    None => {
                        ok = false;
                        break;
                    }
                }
            }
            if ok {
                self.used[k] = true;
                return (k as u32, pairs);
            }
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
        self.imms.push(Immediate { ty: ImmediateType::Uint32, data });
        self.used.push(true);
        ((self.imms.len() - 1) as u32, pairs)
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
