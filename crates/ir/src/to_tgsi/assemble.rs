//! The emitted shader put together: branch labels, TEMP declarations, the
//! immediates in use (renumbered) and the instructions.

use super::renumber::TempArray;
use super::*;

impl Emitter<'_> {
    /// Sets IF/UIF labels to their ELSE or ENDIF and ELSE labels to their
    /// ENDIF, as Mesa's emitters do.
    pub(super) fn fix_labels(&mut self) {
        let labels = tgsi::mesa_labels(&self.out);
        for (inst, label) in self.out.iter_mut().zip(labels) {
            if label.is_some() {
                inst.label = label;
            }
        }
    }

    pub(super) fn assemble(self, module: &Module) -> tgsi::Shader {
        let (imms, map) = self.imms.finish();
        let mut items = interface::todays_interface(module.processor, &module.interface);
        // TEMP declarations: arrays as declared, plain registers as ranges.
        let local = !module.temps.is_empty() && module.temps.iter().all(|d| d.local);
        let temp_count = self.alloc.temp_count + self.out_scratch_count();
        let arrays: Vec<TempArray> = self
            .func
            .arrays
            .iter()
            .filter(|(_, a)| a.file == File::Temporary)
            .map(|(_, a)| {
                let id = Some(indirect::emitted_array_id(self.func, a)).filter(|&id| id != 0);
                TempArray { first: a.first, last: a.first + a.len - 1, id }
            })
            .collect();
        let mut out = self.out;
        let layout = renumber::renumber_temps(&mut out, &arrays, temp_count);
        let temp_count = layout.count;
        let mut next = 0u32;
        let mut decls = Vec::new();
        let plain = |from: u32, to: u32, decls: &mut Vec<tgsi::Declaration>| {
            if from < to {
                let mut d = tgsi::Declaration::new(File::Temporary, from as u16, (to - 1) as u16);
                d.local = local;
                decls.push(d);
            }
        };
        for &TempArray { first, last, id } in &layout.arrays {
            plain(next, first, &mut decls);
            let mut d = tgsi::Declaration::new(File::Temporary, first as u16, last as u16);
            d.array_id = id;
            d.local = local;
            decls.push(d);
            next = last + 1;
        }
        plain(next, temp_count.max(next), &mut decls);
        let decl_end =
            items.iter().rposition(|i| matches!(i, tgsi::Item::Declaration(_))).map_or(items.len(), |p| p + 1);
        let mut tail = items.split_off(decl_end);
        items.extend(decls.into_iter().map(tgsi::Item::Declaration));
        items.extend(imms.into_iter().map(tgsi::Item::Immediate));
        items.append(&mut tail);
        for inst in &mut out {
            remap_immediates(inst, &map);
        }
        // The instructions become the items in their own buffer (an item
        // is the size of an instruction, so the collect reuses it), with
        // room made first for the declarations before them: a large
        // shader's instructions are never held twice.
        out.reserve_exact(items.len());
        let mut all: Vec<tgsi::Item> = out.into_iter().map(tgsi::Item::Instruction).collect();
        all.splice(0..0, items);
        tgsi::Shader { processor: module.processor, items: all }
    }

    /// How many scratch registers the output uses beyond the allocation.
    fn out_scratch_count(&self) -> u32 {
        let mut max = 0;
        for inst in &self.out {
            for d in &inst.dst {
                if d.reg.file == File::Temporary && d.reg.index >= 0 {
                    max = max.max(d.reg.index as u32 + 1);
                }
            }
        }
        max.saturating_sub(self.alloc.temp_count)
    }
}

/// Renumbers immediates after unused ones were dropped.
fn remap_immediates(inst: &mut tgsi::Instruction, map: &[Option<u32>]) {
    let fix = |index: &mut i32| {
        if let Some(Some(n)) = map.get(*index as usize) {
            *index = *n as i32;
        }
    };
    for s in &mut inst.src {
        if s.reg.file == File::Immediate && s.reg.indirect.is_none() {
            fix(&mut s.reg.index);
        }
    }
    if let Some(tex) = &mut inst.texture {
        for off in &mut tex.offsets {
            if off.file == File::Immediate {
                fix(&mut off.index);
            }
        }
    }
}
