//! Source operands: the operand reading a value at each wanted swizzle
//! position, from one register when they are in one, else gathered into a
//! scratch register (or reading again copies an earlier gathering left
//! there).

use super::note::Note;
use super::*;
use tgsi::{DstOperand, Register, SrcOperand};

/// How many instructions back a gathered copy is still looked for: checking
/// one reads every instruction written since.
const HELD_WINDOW: usize = 64;

impl Emitter<'_> {
    /// A source operand reading, at each wanted swizzle position, the given
    /// value: one register with a swizzle, or a scratch register filled
    /// first when the values are scattered.
    pub(super) fn operand(&mut self, wanted: &[(usize, Operand)]) -> Result<SrcOperand, EmitError> {
        // Positions nothing reads take whatever the others leave there.
        let wanted: Wanted = wanted.iter().filter(|(_, o)| self.loc(o.value).ok() != Some(Loc::Any)).copied().collect();
        let wanted = &wanted[..];
        if wanted.is_empty() {
            let (k, _) = self.imms.find_or_add(&[(0, 0)]);
            return Ok(reg_src(RegChannel { file: File::Immediate, index: k, chan: 0 }));
        }
        let Some(&(_, first)) = wanted.first() else {
            return Ok(reg_src(RegChannel { file: File::Immediate, index: 0, chan: 0 }));
        };
        let same_mods = wanted.iter().all(|(_, o)| o.neg == first.neg && o.abs == first.abs);
        if same_mods {
            if let Some(mut s) = self.direct_operand(wanted)? {
                s.negate = first.neg;
                s.absolute = first.abs;
                return Ok(s);
            }
        }
        if wanted.len() == 1 {
            return Err(self.err("a single value that cannot be read"));
        }
        if same_mods {
            if let Some(s) = self.held_operand(wanted) {
                return Ok(SrcOperand { negate: first.neg, absolute: first.abs, ..s });
            }
            if let Some(s) = self.gather_in_place(wanted)? {
                return Ok(SrcOperand { negate: first.neg, absolute: first.abs, ..s });
            }
        }
        // Gather into a scratch register, one MOV per position, unless one
        // still holds what an earlier operand gathered there.
        let plain = |o: &Operand| !o.neg && !o.abs;
        let slot = |index: u32, pos: usize| RegChannel { file: File::Temporary, index, chan: pos as u8 };
        let mut scratches: Vec<u32> =
            self.held.iter().map(|&(s, _, _)| s.index).filter(|&i| i >= self.alloc.temp_count).collect();
        scratches.sort_unstable();
        scratches.dedup();
        let holding = scratches
            .into_iter()
            .find(|&index| wanted.iter().all(|&(pos, o)| plain(&o) && self.held_copy(slot(index, pos), o.value)));
        if let Some(index) = holding {
            // Later operands of this instruction must not take it.
            self.scratch_used = self.scratch_used.max(index - self.alloc.temp_count + 1);
            let mut swizzle = [0u8, 1, 2, 3];
            fill_unused(&mut swizzle, wanted.iter().map(|&(p, _)| (p, p as u8)));
            return Ok(SrcOperand {
                reg: Register::new(File::Temporary, index as i32),
                swizzle,
                negate: false,
                absolute: false,
            });
        }
        let index = self.scratch();
        // One MOV for the positions read from one register with the same
        // modifiers.
        let mut movs: Vec<(tgsi::Instruction, Note)> = Vec::new();
        for &(pos, o) in wanted {
            let s = self.operand(&[(pos, o)])?;
            let same = |m: &tgsi::Instruction| {
                let t = &m.src[0];
                (t.reg, t.negate, t.absolute) == (s.reg, s.negate, s.absolute) && t.reg.indirect.is_none()
            };
            if let Some((m, note)) = movs.iter_mut().find(|(m, _)| same(m)) {
                m.dst[0].write_mask |= 1 << pos;
                m.src[0].swizzle[pos & 3] = s.swizzle[pos & 3];
                note.dst[0][pos & 3] = Some(o);
                note.src[0][pos & 3] = Some(o);
            } else {
                let mut inst = tgsi::Instruction::new(Opcode::Mov);
                inst.dst.push(DstOperand { reg: Register::new(File::Temporary, index as i32), write_mask: 1 << pos });
                inst.src.push(s);
                let mut channels = [None; 4];
                channels[pos & 3] = Some(o);
                movs.push((inst, Note::copy(channels)));
            }
        }
        for (m, note) in movs {
            self.push(m, note);
            let written = self.out.len();
            for &(pos, o) in wanted {
                if plain(&o) && self.out[written - 1].dst[0].write_mask & (1 << pos) != 0 {
                    self.remember_copy(slot(index, pos), o.value);
                }
            }
        }
        let mut swizzle = [0u8, 1, 2, 3];
        fill_unused(&mut swizzle, wanted.iter().map(|&(p, _)| (p, p as u8)));
        Ok(SrcOperand { reg: Register::new(File::Temporary, index as i32), swizzle, negate: false, absolute: false })
    }

    /// The operand reading `wanted` (modifiers aside) from one TEMP
    /// register where earlier gathering left copies of every value, if
    /// one still holds them all.
    fn held_operand(&mut self, wanted: &[(usize, Operand)]) -> Option<SrcOperand> {
        let mut registers: Vec<u32> =
            self.held.iter().filter(|&&(s, _, _)| s.file == File::Temporary).map(|&(s, _, _)| s.index).collect();
        registers.sort_unstable();
        registers.dedup();
        for index in registers {
            let slot = |chan: u8| RegChannel { file: File::Temporary, index, chan };
            let reads: Option<SmallVec<[(usize, u8); 4]>> = wanted
                .iter()
                .map(|&(pos, o)| (0..4u8).find(|&c| self.held_copy(slot(c), o.value)).map(|c| (pos, c)))
                .collect();
            let Some(reads) = reads else { continue };
            // Later operands of this instruction must not take a scratch
            // register read here.
            if index >= self.alloc.temp_count {
                self.scratch_used = self.scratch_used.max(index - self.alloc.temp_count + 1);
            }
            let mut swizzle = [0u8, 1, 2, 3];
            for &(p, c) in &reads {
                swizzle[p & 3] = c;
            }
            fill_unused(&mut swizzle, reads.iter().copied());
            return Some(SrcOperand {
                reg: Register::new(File::Temporary, index as i32),
                swizzle,
                negate: false,
                absolute: false,
            });
        }
        None
    }

    /// Notes that the instruction just written copied `v` into `slot`.
    pub(super) fn remember_copy(&mut self, slot: RegChannel, v: Value) {
        let now = self.out.len();
        self.held.retain(|&(_, _, since)| now - since <= HELD_WINDOW);
        self.held.push((slot, v, now));
    }

    /// Whether `slot` still holds the copy of `v` gathering put there: no
    /// instruction written since writes it, and no control flow came
    /// between (a join could bring a path that did not copy).
    pub(super) fn held_copy(&self, slot: RegChannel, v: Value) -> bool {
        self.held.iter().rev().any(|&(s, w, since)| {
            s == slot
                && w == v
                && self.out.len() - since <= HELD_WINDOW
                && self.out[since..].iter().all(|inst| {
                    !inst.opcode.info().has(tgsi::flags::CONTROL_FLOW)
                        && inst.dst.iter().all(|d| {
                            d.reg.file != slot.file
                                || (d.reg.indirect.is_none()
                                    && (d.reg.index != slot.index as i32 || d.write_mask & (1 << slot.chan) == 0))
                        })
                })
        })
    }

    /// The operand when every wanted value is in one register.
    fn direct_operand(&mut self, wanted: &[(usize, Operand)]) -> Result<Option<SrcOperand>, EmitError> {
        let locs: Vec<(usize, Loc)> =
            wanted.iter().map(|&(p, o)| self.loc(o.value).map(|l| (p, l))).collect::<Result<_, _>>()?;
        let mut swizzle = [0u8, 1, 2, 3];
        let mut used: SmallVec<[(usize, u8); 4]> = SmallVec::new();
        let reg = match locs[0].1 {
            Loc::Any => return Ok(None),
            Loc::Folded(load) => match self.folded_register(load, &locs, &mut used)? {
                Some(reg) => reg,
                None => return Ok(None),
            },
            Loc::Const(_) => match self.immediate_register(&locs, &mut used) {
                Some(reg) => reg,
                None => return Ok(None),
            },
            Loc::Const64(_) => match self.immediate_register_64(&locs, &mut used) {
                Some(reg) => reg,
                None => return Ok(None),
            },
            Loc::Src(s0) => {
                for &(p, l) in &locs {
                    match l {
                        Loc::Src(s) if (s.file, s.index, s.dim) == (s0.file, s0.index, s0.dim) => {
                            used.push((p, s.chan))
                        }
                        _ => return Ok(None),
                    }
                }
                let mut reg = Register::new(s0.file, s0.index as i32);
                reg.dimension = s0.dim.map(|d| tgsi::Dimension { index: d as i32, indirect: None });
                reg
            }
            Loc::Reg(r0) => {
                for &(p, l) in &locs {
                    match l {
                        Loc::Reg(r) if (r.file, r.index) == (r0.file, r0.index) => used.push((p, r.chan)),
                        _ => return Ok(None),
                    }
                }
                Register::new(r0.file, r0.index as i32)
            }
            Loc::Pair { file, index, .. } => {
                for &(p, l) in &locs {
                    match l {
                        Loc::Pair { file: f, index: i, pair } if (f, i) == (file, index) => {
                            used.push((p - p % 2, 2 * pair));
                            used.push((p - p % 2 + 1, 2 * pair + 1));
                        }
                        _ => return Ok(None),
                    }
                }
                Register::new(file, index as i32)
            }
        };
        for &(p, c) in &used {
            swizzle[p & 3] = c;
        }
        fill_unused(&mut swizzle, used.iter().copied());
        Ok(Some(SrcOperand { reg, swizzle, negate: false, absolute: false }))
    }

    /// For [`Self::direct_operand`], when the first value is a load folded
    /// into its readers: the register the loads read when every value is
    /// a load of it, noting the channel read at each position in `used`.
    fn folded_register(
        &mut self,
        load: Inst,
        locs: &[(usize, Loc)],
        used: &mut SmallVec<[(usize, u8); 4]>,
    ) -> Result<Option<Register>, EmitError> {
        let key = |f: &Function, i: Inst| {
            let d = &f.insts[i];
            let k = match &d.op {
                Op::ArrayLoad { array, offset, .. } => (Some((*array, *offset)), None),
                Op::LoadIndirect { reg, .. } => (None, Some(*reg)),
                _ => (None, None),
            };
            (k, d.args.clone())
        };
        let k0 = key(self.func, load);
        for &(p, l) in locs {
            match l {
                Loc::Folded(i) if key(self.func, i) == k0 => {
                    let chan = match self.func.insts[i].op {
                        Op::ArrayLoad { chan, .. } | Op::LoadIndirect { chan, .. } => chan,
                        _ => 0,
                    };
                    used.push((p, chan));
                }
                _ => return Ok(None),
            }
        }
        Ok(Some(self.load_register(load)?))
    }

    /// For [`Self::direct_operand`]: the immediate holding the values when
    /// every one is a 32-bit constant, noting the channel read at each
    /// position in `used`.
    fn immediate_register(&mut self, locs: &[(usize, Loc)], used: &mut SmallVec<[(usize, u8); 4]>) -> Option<Register> {
        let mut want = Vec::new();
        for &(p, l) in locs {
            match l {
                Loc::Const(bits) => want.push((p, bits)),
                _ => return None,
            }
        }
        let (k, sw) = self.imms.find_or_add(&want);
        for &(p, _) in &want {
            used.push((p, sw[p]));
        }
        Some(Register::new(File::Immediate, k as i32))
    }

    /// For [`Self::direct_operand`]: the immediate holding the values when
    /// every one is a 64-bit constant, noting the channel pair read at each
    /// position in `used`.
    fn immediate_register_64(
        &mut self,
        locs: &[(usize, Loc)],
        used: &mut SmallVec<[(usize, u8); 4]>,
    ) -> Option<Register> {
        let mut want = Vec::new();
        for &(p, l) in locs {
            match l {
                Loc::Const64(bits) => want.push((p / 2, bits)),
                _ => return None,
            }
        }
        let (k, pairs) = self.imms.find_or_add_64(&want);
        for &(p, _) in locs {
            let q = pairs[p / 2];
            used.push((p - p % 2, 2 * q));
            used.push((p - p % 2 + 1, 2 * q + 1));
        }
        Some(Register::new(File::Immediate, k as i32))
    }
}

pub(super) fn reg_src(r: RegChannel) -> SrcOperand {
    SrcOperand { reg: Register::new(r.file, r.index as i32), swizzle: [r.chan; 4], negate: false, absolute: false }
}

/// Reads channel x of `s` in every position (conditions read `.x`).
pub(super) fn broadcast(mut s: SrcOperand) -> SrcOperand {
    s.swizzle = [s.swizzle[0]; 4];
    s
}

/// Fills the swizzle positions nothing reads: with the one channel read
/// when every read position reads the same, else with the identity.
pub(super) fn fill_unused(swizzle: &mut [u8; 4], used: impl Iterator<Item = (usize, u8)>) {
    let used: SmallVec<[(usize, u8); 4]> = used.collect();
    let single = used.first().map(|&(_, c)| c).filter(|&c| used.iter().all(|&(_, d)| d == c));
    for (p, slot) in swizzle.iter_mut().enumerate() {
        if !used.iter().any(|&(q, _)| q == p) {
            *slot = single.unwrap_or(p as u8);
        }
    }
}
