//! Channel packing: once every value has a place, the values of a TEMP
//! register move, all together, into the free channels of a lower one
//! when nothing there is live at the same time.
//!
//! Placement prefers the source's register and the channels beside the
//! values read with it, which keeps vector instructions whole but spreads
//! scalars over registers of their own. Moving a whole register keeps its
//! values together (what is regrouped stays regrouped, what one operand
//! reads stays in one register), and operands are written from the final
//! places, so swizzles follow. The channels move as a permutation when
//! every value in the register may take any channel; otherwise they stay.

use super::*;

/// How many lower registers a register is tried against: enough for
/// every shader of the corpus, and a bound on the work for huge ones.
const MAX_TRIES: usize = 64;

/// The 24 permutations of four channels, identity first.
fn permutations() -> Vec<[u8; 4]> {
    let mut out = Vec::with_capacity(24);
    for a in 0..4u8 {
        for b in 0..4u8 {
            for c in 0..4u8 {
                for d in 0..4u8 {
                    let p = [a, b, c, d];
                    let distinct = (0..4).all(|i| (i + 1..4).all(|j| p[i] != p[j]));
                    if distinct {
                        out.push(p);
                    }
                }
            }
        }
    }
    out.sort_by_key(|p| *p != [0, 1, 2, 3]);
    out
}

/// A read where emission gathers values into a register's free channels.
struct Gather {
    /// The position of the reading instruction.
    at: u32,
    /// How many channels it copies into.
    channels: usize,
}

/// Whether two channels' occupants (disjoint, by start) overlap anywhere.
fn overlap(a: &BTreeMap<u32, (u32, Value)>, b: &BTreeMap<u32, (u32, Value)>) -> bool {
    let (small, big) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    small.iter().any(|(&start, &(end, _))| {
        // The occupant of `big` starting last at or before `end` is the
        // only one that can reach into [start, end], apart from ones
        // starting inside it.
        big.range(..=end).next_back().is_some_and(|(_, &(e, _))| e >= start)
    })
}

impl Allocator<'_> {
    /// Moves TEMP registers into the free channels of lower ones.
    pub(super) fn pack_registers(&mut self) {
        let mut by_reg: HashMap<u32, Vec<Value>> = HashMap::default();
        for (v, loc) in self.loc.iter() {
            match *loc {
                Loc::Reg(r) if r.file == File::Temporary => by_reg.entry(r.index).or_default().push(v),
                Loc::Pair { file: File::Temporary, index, .. } => by_reg.entry(index).or_default().push(v),
                _ => {}
            }
        }
        let temps: Vec<u32> =
            self.regs.indices(File::Temporary).filter(|&i| !self.is_reserved(File::Temporary, i)).collect();
        let perms = permutations();
        let aliased: std::collections::HashSet<Value> = self.alias_of.iter().flat_map(|(&(w, _), &o)| [w, o]).collect();
        let mut gathers: HashMap<u32, Vec<Gather>> = HashMap::default();
        let mut kept: Vec<u32> = Vec::new();
        for b in temps {
            let values = by_reg.get(&b).cloned().unwrap_or_default();
            let Some(needs) = self.gathers_into(b, &values) else {
                // Neither moved nor moved into.
                continue;
            };
            gathers.insert(b, needs);
            let movable = values.iter().all(|&v| !aliased.contains(&v) && self.may_change_channel(v));
            let fit =
                kept.iter().take(MAX_TRIES).find_map(|&a| self.fit(a, b, movable, &perms, &gathers).map(|p| (a, p)));
            match fit {
                Some((a, perm)) => {
                    self.move_register(b, a, perm, &values);
                    by_reg.entry(a).or_default().extend(values);
                    let moved = gathers.remove(&b).unwrap_or_default();
                    gathers.entry(a).or_default().extend(moved);
                }
                None => kept.push(b),
            }
        }
    }

    /// Where emission will gather other values beside `values` (the values
    /// of TEMP register `register`), as it does for an operand reading some of them
    /// with values from elsewhere: at each such read, how many channels it
    /// copies into. `None` when an operand reads them with a register's
    /// initial zero, which emission reads from a channel of the register
    /// that nothing wrote yet: a register moved, or moved into, rarely
    /// still has one.
    fn gathers_into(&self, register: u32, values: &[Value]) -> Option<Vec<Gather>> {
        let initial = |p: Value| matches!(self.func.def(p).op, Op::Initial) && self.func.ty(p) == Ty::B32;
        let mut out = Vec::new();
        for &v in values {
            for &u in self.uses.get(&v).unwrap_or_default() {
                let mut others: SmallVec<[Value; 4]> = SmallVec::new();
                for p in self.operand_partners(u, v) {
                    if initial(p) {
                        return None;
                    }
                    let here = match self.loc.get(&p) {
                        Some(Loc::Reg(r)) => r.file == File::Temporary && r.index == register,
                        Some(Loc::Pair { file, index, .. }) => *file == File::Temporary && *index == register,
                        _ => false,
                    };
                    if !here && !others.contains(&p) {
                        others.push(p);
                    }
                }
                let Some(&at) = self.layout.inst_pos.get(&u) else { continue };
                if !others.is_empty() {
                    out.push(Gather { at, channels: others.len() });
                }
            }
        }
        Some(out)
    }

    /// Whether `v` may be given another channel of its register: a 32-bit
    /// value (not a pair; aliases are the caller's to exclude), computed by
    /// an operation whose channels all compute the same formula, and not
    /// one of several values of a source instruction that keep its
    /// channels ([`crate::EmitOptions::source_channels`]).
    fn may_change_channel(&self, v: Value) -> bool {
        let data = self.func.def(v);
        let keeps = self.source_channels && self.groups.get(&v).is_some_and(|g| g.len() > 1);
        !keeps
            && matches!(self.loc.get(&v), Some(Loc::Reg(_)))
            && self.func.ty(v) == Ty::B32
            && !matches!(data.op, Op::Opaque { .. } | Op::Split { .. } | Op::Pack)
            && self.allowed_chans(v) == 0b1111
            && !self.also.contains_key(&v)
    }

    /// The permutation taking register `b`'s channels into free channels of
    /// register `a`, if there is one (only the identity unless `movable`).
    ///
    /// Gathering into either register must still find the channels it
    /// copies into free where it reads.
    fn fit(
        &self,
        a: u32,
        b: u32,
        movable: bool,
        perms: &[[u8; 4]],
        gathers: &HashMap<u32, Vec<Gather>>,
    ) -> Option<[u8; 4]> {
        let empty = Occupancy::default();
        let occ_a = self.regs.get(File::Temporary, a).map_or(&empty, |r| &r.occupancy);
        let occ_b = &self.regs.get(File::Temporary, b)?.occupancy;
        // free[cb][ca]: channel cb of b fits into channel ca of a.
        let mut free = [[false; 4]; 4];
        for (cb, row) in free.iter_mut().enumerate() {
            for (ca, cell) in row.iter_mut().enumerate() {
                *cell = occ_b[cb].is_empty() || !overlap(&occ_b[cb], &occ_a[ca]);
                if !movable && ca != cb {
                    *cell = false;
                }
            }
        }
        let needs: Vec<&Gather> = [a, b].iter().filter_map(|r| gathers.get(r)).flatten().collect();
        let free_at = |occ: &BTreeMap<u32, (u32, Value)>, at: u32| {
            occ.range(..=at).next_back().is_none_or(|(_, &(end, _))| end < at)
        };
        perms.iter().copied().find(|p| {
            (0..4).all(|cb| free[cb][p[cb] as usize])
                && needs.iter().all(|g| {
                    let free_channels = (0..4usize)
                        .filter(|&ca| {
                            let cb = p.iter().position(|&c| c as usize == ca).unwrap_or(ca);
                            free_at(&occ_a[ca], g.at) && free_at(&occ_b[cb], g.at)
                        })
                        .count();
                    free_channels >= g.channels
                })
        })
    }

    /// Moves every occupant and value of register `b` into register `a`,
    /// channel `c` to channel `perm[c]`.
    fn move_register(&mut self, b: u32, a: u32, perm: [u8; 4], values: &[Value]) {
        let Some(reg_b) = self.regs.remove(File::Temporary, b) else { return };
        let occ_a = &mut self.regs.entry(File::Temporary, a).occupancy;
        for (cb, entries) in reg_b.occupancy.into_iter().enumerate() {
            occ_a[perm[cb] as usize].extend(entries);
        }
        for &v in values {
            let moved = match self.loc.get(&v) {
                Some(Loc::Reg(r)) => Loc::Reg(RegChannel { file: r.file, index: a, chan: perm[r.chan as usize & 3] }),
                // Pairs only move with the identity.
                Some(&Loc::Pair { file, pair, .. }) => Loc::Pair { file, index: a, pair },
                _ => continue,
            };
            self.loc.insert(v, moved);
        }
    }
}
