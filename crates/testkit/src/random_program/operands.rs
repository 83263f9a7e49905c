//! Operands: destinations, sources, immediates, modifiers, swizzles and
//! write masks.

use super::ops::{Imm, Kind};
use super::{Generator, Sources, Stage, ADDR_MAX};
use crate::synth::{indirect, CHANNELS};

impl Generator {
    /// A destination register with a random write mask.
    pub(super) fn dst(&mut self, _kind: Kind) -> String {
        let mask = self.write_mask();
        self.dst_with_mask(mask)
    }

    /// A destination for a 64-bit result: `.xy`, `.zw` or all four.
    pub(super) fn dst64(&mut self) -> String {
        let mask = [".xy", ".zw", ""][self.rng.below(3) as usize];
        self.dst_with_mask(mask.to_string())
    }

    /// A general temporary (mostly), an output, or an array element.
    pub(super) fn dst_with_mask(&mut self, mask: String) -> String {
        let l = self.l;
        match self.rng.below(20) {
            0..=13 => format!("TEMP[{}]{mask}", self.rng.below(l.temps)),
            14..=15 => format!("OUT[{}]{mask}", self.rng.below(l.outputs)),
            16 => format!("TEMP[{}]{mask}", l.array_first + self.rng.below(l.array_len)),
            _ => {
                let offset = l.array_first + self.rng.below(l.array_len - ADDR_MAX);
                format!("TEMP[{}](1){mask}", indirect(offset))
            }
        }
    }

    /// A source operand of `kind`. `broadcast` asks for a `.xxxx`-style
    /// swizzle.
    pub(super) fn src(&mut self, kind: Kind, sources: Sources, broadcast: bool) -> String {
        let l = self.l;
        let roll = if sources == Sources::Immediates { 99 } else { self.rng.below(100) };
        let reg = match roll {
            0..=39 => format!("TEMP[{}]", self.rng.below(l.temps)),
            40..=44 if self.loop_depth > 0 => format!("TEMP[{}]", l.counters + self.rng.below(self.loop_depth)),
            45..=59 => format!("IN[{}]", self.rng.below(l.inputs)),
            60..=67 => format!("CONST[{}]", self.rng.below(l.constants)),
            68..=69 => format!("CONST[{}]", indirect(self.rng.below(l.constants - ADDR_MAX))),
            70..=71 => format!("TEMP[{}]", l.array_first + self.rng.below(l.array_len)),
            72..=74 => format!("TEMP[{}](1)", indirect(l.array_first + self.rng.below(l.array_len - ADDR_MAX))),
            75..=76 if l.stage == Stage::Compute => "SV[0]".to_string(),
            _ => return self.imm_src(kind, broadcast),
        };
        let swizzle = if broadcast { self.broadcast() } else { self.swizzle(kind) };
        self.modifiers(kind, format!("{reg}{swizzle}"))
    }

    /// An immediate of `kind` (new, or one already declared).
    fn imm_src(&mut self, kind: Kind, broadcast: bool) -> String {
        let imm = if !self.imms.is_empty() && self.rng.below(3) == 0 {
            // Reuse: any immediate is bits; the type only shapes the values.
            self.imms[self.rng.below(self.imms.len() as u32) as usize]
        } else {
            self.new_imm(kind)
        };
        let index = self.imm_index(imm);
        let swizzle = if broadcast {
            self.broadcast()
        } else if matches!(imm, Imm::F64(_)) || kind.is_64bit() {
            self.swizzle(Kind::Double)
        } else {
            self.swizzle(kind)
        };
        self.modifiers(kind, format!("IMM[{index}]{swizzle}"))
    }

    fn new_imm(&mut self, kind: Kind) -> Imm {
        match kind {
            Kind::Float => Imm::F32(std::array::from_fn(|_| self.imm_f32().to_bits())),
            Kind::Int => Imm::I32(std::array::from_fn(|_| self.rng.below(41) as i32 - 20)),
            Kind::Uint => Imm::U32(std::array::from_fn(|_| match self.rng.below(6) {
                0 => self.rng.next_u64() as u32,
                1 => 0xffff_ffff,
                _ => self.rng.below(40),
            })),
            Kind::Double | Kind::Int64 if self.rng.below(3) == 0 => {
                let lo = self.rng.below(40);
                Imm::U32([lo, 0, self.rng.next_u64() as u32, self.rng.below(2).wrapping_neg()])
            }
            Kind::Double | Kind::Int64 => Imm::F64(std::array::from_fn(|_| {
                let v = (self.rng.below(129) as f64 - 64.0) / 8.0;
                if self.rng.below(8) == 0 { 1.0e-300 } else { v }.to_bits()
            })),
        }
    }

    /// A float immediate: small and exact mostly; sometimes tiny, huge,
    /// denormal or negative zero (all finite: Mesa's parser reads no
    /// `inf` or `nan` immediates).
    fn imm_f32(&mut self) -> f32 {
        match self.rng.below(12) {
            0 => [-0.0, 1e-45, f32::MIN_POSITIVE, f32::MAX, -1e30, 0.1, 16777216.0, 1e-20][self.rng.below(8) as usize],
            1 => self.rng.next_u64() as i32 as f32 / 65536.0,
            _ => (self.rng.below(65) as f32 - 32.0) / 4.0,
        }
    }

    /// The index of `imm`, declared on first use.
    fn imm_index(&mut self, imm: Imm) -> usize {
        match self.imms.iter().position(|&i| i == imm) {
            Some(i) => i,
            None => {
                self.imms.push(imm);
                self.imms.len() - 1
            }
        }
    }

    /// `IMM[n].cccc` for channel `c` of `imm`.
    pub(super) fn imm_channel(&mut self, imm: Imm, c: usize) -> String {
        let index = self.imm_index(imm);
        format!("IMM[{index}].{0}{0}{0}{0}", CHANNELS[c % 4])
    }

    fn modifiers(&mut self, kind: Kind, operand: String) -> String {
        let (neg, abs) = match kind {
            Kind::Float | Kind::Double => (self.rng.below(8) == 0, self.rng.below(16) == 0),
            Kind::Int => (self.rng.below(10) == 0, false),
            Kind::Uint | Kind::Int64 => (false, false),
        };
        let operand = if abs { format!("|{operand}|") } else { operand };
        if neg {
            format!("-{operand}")
        } else {
            operand
        }
    }

    /// A swizzle for `kind`: channel pairs for 64-bit kinds.
    fn swizzle(&mut self, kind: Kind) -> String {
        if kind.is_64bit() {
            return ["", ".xyxy", ".zwzw", ".zwxy"][self.rng.below(4) as usize].to_string();
        }
        match self.rng.below(10) {
            0..=3 => String::new(),
            4..=6 => self.broadcast(),
            _ => {
                let s: String = (0..4).map(|_| self.channel()).collect();
                if s == "xyzw" {
                    String::new()
                } else {
                    format!(".{s}")
                }
            }
        }
    }

    fn broadcast(&mut self) -> String {
        format!(".{}", self.channel().to_string().repeat(4))
    }

    /// `` (all channels) or a random non-empty mask.
    pub(super) fn write_mask(&mut self) -> String {
        if self.rng.below(3) == 0 {
            return String::new();
        }
        let mask = 1 + self.rng.below(14);
        let mut text = String::from(".");
        text.extend((0..4).filter(|c| mask & (1 << c) != 0).map(|c| CHANNELS[c as usize]));
        text
    }

    pub(super) fn channel(&mut self) -> char {
        CHANNELS[self.rng.below(4) as usize]
    }
}
