//! TEMP registers renumbered densely once the instructions are written.
//!
//! Allocation keeps a value in its source register when it can, so a
//! program whose passes removed work keeps gaps between the registers it
//! still uses (and arrays nothing reads or writes any more). Renaming whole
//! registers changes no interference, so the registers and arrays in use
//! are numbered from zero in their order, without the gaps.

use tgsi::{File, Instruction, Register};

/// A TEMP array of the emitted shader: its registers and id.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct TempArray {
    pub first: u32,
    pub last: u32,
    pub id: Option<u16>,
}

/// The TEMP declarations of a renumbered shader.
pub(super) struct TempLayout {
    /// One past the highest register.
    pub count: u32,
    /// The arrays; every other register below `count` is a plain one.
    pub arrays: Vec<TempArray>,
}

/// Renumbers the TEMP registers `out` uses densely from zero: plain
/// registers (those outside `arrays`) and the arrays `out` accesses, in
/// their order. Nothing is
/// renumbered when an array has no id (it stands for the whole file, which
/// indirect accesses may read anywhere) or arrays overlap; the layout then
/// declares what it did before.
pub(super) fn renumber_temps(out: &mut [Instruction], arrays: &[TempArray], temp_count: u32) -> TempLayout {
    let mut sorted = arrays.to_vec();
    sorted.sort_by_key(|a| a.first);
    let overlapping = sorted.windows(2).any(|w| w[1].first <= w[0].last);
    if overlapping || sorted.iter().any(|a| a.id.is_none()) {
        return unchanged(&sorted, temp_count);
    }
    let array_of = |index: i32| sorted.iter().position(|a| (a.first as i64..=a.last as i64).contains(&(index as i64)));
    let by_id = |id: u16| sorted.iter().position(|a| a.id == Some(id));
    // Which plain registers and arrays are used.
    let mut plain_used: Vec<u32> = Vec::new();
    let mut array_used = vec![false; sorted.len()];
    let mut note = |reg: &Register| match target(reg, &array_of, &by_id) {
        Some(Target::Plain(i)) => plain_used.push(i),
        Some(Target::Array(k)) => array_used[k] = true,
        None => {}
    };
    for inst in out.iter() {
        visit(inst, &mut note);
    }
    if out.iter().any(|inst| has_unknown_temp(inst, &array_of, &by_id)) {
        return unchanged(&sorted, temp_count);
    }
    plain_used.sort_unstable();
    plain_used.dedup();
    // Registers and arrays in use keep their order, without the gaps.
    let mut units: Vec<(u32, Option<usize>)> = plain_used.iter().map(|&i| (i, None)).collect();
    units.extend(sorted.iter().enumerate().filter(|&(k, _)| array_used[k]).map(|(k, a)| (a.first, Some(k))));
    units.sort_unstable();
    let mut plain_new: Vec<u32> = Vec::with_capacity(plain_used.len());
    let mut shift: Vec<Option<i64>> = vec![None; sorted.len()];
    let mut kept = Vec::new();
    let mut next = 0u32;
    for (first, array) in units {
        match array {
            None => {
                plain_new.push(next);
                next += 1;
            }
            Some(k) => {
                let len = sorted[k].last - sorted[k].first;
                shift[k] = Some(next as i64 - first as i64);
                kept.push(TempArray { first: next, last: next + len, id: sorted[k].id });
                next += len + 1;
            }
        }
    }
    let plain_map = |i: u32| plain_used.binary_search(&i).map(|k| plain_new[k]);
    let rename = |reg: &mut Register| match target(reg, &array_of, &by_id) {
        Some(Target::Plain(i)) => {
            if let Ok(n) = plain_map(i) {
                reg.index = n as i32;
            }
        }
        Some(Target::Array(k)) => {
            if let Some(d) = shift[k] {
                reg.index = (reg.index as i64 + d) as i32;
            }
        }
        None => {}
    };
    for inst in out.iter_mut() {
        visit_mut(inst, &rename);
    }
    TempLayout { count: next, arrays: kept }
}

fn unchanged(sorted: &[TempArray], temp_count: u32) -> TempLayout {
    TempLayout { count: temp_count, arrays: sorted.to_vec() }
}

enum Target {
    Plain(u32),
    Array(usize),
}

/// What a TEMP register reference names: a plain register or an array.
fn target(
    reg: &Register,
    array_of: &impl Fn(i32) -> Option<usize>,
    by_id: &impl Fn(u16) -> Option<usize>,
) -> Option<Target> {
    if reg.file != File::Temporary {
        return None;
    }
    match reg.indirect {
        Some(ind) if ind.array_id != 0 => by_id(ind.array_id).map(Target::Array),
        Some(_) => None,
        None => match array_of(reg.index) {
            Some(k) => Some(Target::Array(k)),
            None => u32::try_from(reg.index).ok().map(Target::Plain),
        },
    }
}

/// Whether `inst` refers to a TEMP register this renumbering cannot place
/// (an indirect access without an array id, a negative index).
fn has_unknown_temp(
    inst: &Instruction,
    array_of: &impl Fn(i32) -> Option<usize>,
    by_id: &impl Fn(u16) -> Option<usize>,
) -> bool {
    let mut unknown = false;
    visit(inst, &mut |reg: &Register| {
        if reg.file == File::Temporary && target(reg, array_of, by_id).is_none() {
            unknown = true;
        }
    });
    unknown
}

/// The TEMP-capable registers an instruction names: its operands' registers
/// and the registers their indirect indices read.
fn visit(inst: &Instruction, f: &mut impl FnMut(&Register)) {
    let regs = inst.dst.iter().map(|d| &d.reg).chain(inst.src.iter().map(|s| &s.reg));
    for reg in regs {
        f(reg);
        for ind in reg.indirect.iter().chain(reg.dimension.iter().filter_map(|d| d.indirect.as_ref())) {
            f(&Register::new(ind.file, ind.index));
        }
    }
    if let Some(tex) = &inst.texture {
        for off in &tex.offsets {
            f(&Register::new(off.file, off.index));
        }
    }
}

fn visit_mut(inst: &mut Instruction, f: &impl Fn(&mut Register)) {
    let regs = inst.dst.iter_mut().map(|d| &mut d.reg).chain(inst.src.iter_mut().map(|s| &mut s.reg));
    for reg in regs {
        f(reg);
        let dim = reg.dimension.as_mut().and_then(|d| d.indirect.as_mut());
        for ind in reg.indirect.iter_mut().chain(dim) {
            let mut r = Register::new(ind.file, ind.index);
            f(&mut r);
            ind.index = r.index;
        }
    }
    if let Some(tex) = &mut inst.texture {
        for off in &mut tex.offsets {
            let mut r = Register::new(off.file, off.index);
            f(&mut r);
            off.index = r.index;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shader_insts(text: &str) -> Vec<Instruction> {
        tgsi::parse(text).unwrap().instructions().cloned().collect()
    }

    #[test]
    fn registers_and_arrays_close_gaps_in_their_order() {
        let mut out = shader_insts(
            "FRAG\nDCL IN[0]\nDCL OUT[0]\nDCL TEMP[0..9]\nDCL TEMP[10..11], ARRAY(1)\nDCL ADDR[0]\n\
             MOV TEMP[3], IN[0]\nARL ADDR[0].x, TEMP[3].xxxx\nMOV TEMP[ADDR[0].x+10](1), TEMP[3]\n\
             MOV TEMP[7].x, TEMP[11].yyyy\nMOV OUT[0], TEMP[7].xxxx\nEND\n",
        );
        let arrays = [TempArray { first: 10, last: 11, id: Some(1) }];
        let layout = renumber_temps(&mut out, &arrays, 10);
        assert_eq!(layout.count, 4);
        assert_eq!(layout.arrays, vec![TempArray { first: 2, last: 3, id: Some(1) }]);
        assert_eq!(out[0].dst[0].reg.index, 0);
        assert_eq!(out[2].dst[0].reg.index, 2, "the indirect base moves with its array");
        assert_eq!(out[3].dst[0].reg.index, 1);
        assert_eq!(out[3].src[0].reg.index, 3, "a direct element moves with its array");
    }

    #[test]
    fn an_array_nothing_accesses_is_dropped_and_earlier_ones_stay_first() {
        let mut out = shader_insts(
            "FRAG\nDCL IN[0]\nDCL OUT[0]\nDCL TEMP[0..1], ARRAY(1)\nDCL TEMP[2..3], ARRAY(2)\nDCL TEMP[4..6]\n\
             DCL ADDR[0]\nARL ADDR[0].x, IN[0].xxxx\nMOV TEMP[6], TEMP[ADDR[0].x](1)\nMOV OUT[0], TEMP[6]\nEND\n",
        );
        let arrays = [TempArray { first: 0, last: 1, id: Some(1) }, TempArray { first: 2, last: 3, id: Some(2) }];
        let layout = renumber_temps(&mut out, &arrays, 7);
        assert_eq!(layout.count, 3);
        assert_eq!(layout.arrays, vec![TempArray { first: 0, last: 1, id: Some(1) }]);
        assert_eq!(out[1].dst[0].reg.index, 2);
        assert_eq!(out[1].src[0].reg.index, 0);
    }

    #[test]
    fn a_whole_file_array_keeps_every_number() {
        let mut out = shader_insts(
            "FRAG\nDCL OUT[0]\nDCL TEMP[0..4]\nDCL ADDR[0]\nMOV TEMP[ADDR[0].x+1], OUT[0]\nMOV TEMP[4], TEMP[1]\nEND\n",
        );
        let arrays = [TempArray { first: 0, last: 4, id: None }];
        let layout = renumber_temps(&mut out, &arrays, 5);
        assert_eq!(layout.count, 5);
        assert_eq!(out[1].dst[0].reg.index, 4);
    }
}
