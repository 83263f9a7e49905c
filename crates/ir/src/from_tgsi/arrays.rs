//! Which TEMP and OUT registers are kept in memory (those ever
//! indirectly addressed), and the memory array holding a register.

use super::{BuildError, Builder};
use crate::function::{Array, ArrayData};
use tgsi::File;

impl Builder<'_> {
    /// Decides which registers live in memory: those indirectly addressed.
    pub(super) fn find_arrays(
        &mut self,
        temp_decls: &[tgsi::Declaration],
        shader: &tgsi::Shader,
    ) -> Result<(), BuildError> {
        let mut whole_file = [false, false]; // TEMP, OUT
        let mut named: Vec<u16> = Vec::new();
        for inst in shader.instructions() {
            let regs = inst.dst.iter().map(|d| d.reg).chain(inst.src.iter().map(|s| s.reg));
            for reg in regs {
                let slot = match reg.file {
                    File::Temporary => 0,
                    // Outputs read and written in place by their own loads
                    // and stores.
                    File::Output if self.output_in_memory(&reg) => continue,
                    File::Output => 1,
                    _ => continue,
                };
                if let Some(ind) = reg.indirect {
                    if slot == 0 && ind.array_id != 0 {
                        if !named.contains(&ind.array_id) {
                            named.push(ind.array_id);
                        }
                    } else {
                        whole_file[slot] = true;
                    }
                }
            }
        }
        let add = |b: &mut Self, file: File, first: u32, last: u32, array_id: Option<u16>| {
            let array = b.func.arrays.push(ArrayData { file, first, len: last - first + 1, array_id });
            b.arrays.push((file, first, last, array));
        };
        if whole_file[0] {
            let first = temp_decls.iter().map(|d| d.first as u32).min().unwrap_or(0);
            let last = temp_decls.iter().map(|d| d.last as u32).max().unwrap_or(0);
            add(self, File::Temporary, first, last, None);
        } else {
            for id in named {
                let decl = temp_decls.iter().find(|d| d.array_id == Some(id)).ok_or_else(|| BuildError {
                    inst: None,
                    message: format!("an indirect access names TEMP array {id}, which is not declared"),
                    limit: None,
                })?;
                add(self, File::Temporary, decl.first as u32, decl.last as u32, Some(id));
            }
        }
        if whole_file[1] {
            let outs = shader.declarations().filter(|d| d.file == File::Output);
            let (first, last) = outs.fold((u32::MAX, 0), |(f, l), d| (f.min(d.first as u32), l.max(d.last as u32)));
            if first <= last {
                add(self, File::Output, first, last, None);
            }
        }
        self.arrays_sorted = sorted_disjoint(&self.arrays);
        Ok(())
    }

    /// The memory array holding `file[index]`, if it is kept in memory.
    pub(super) fn array_of(&self, file: File, index: i64) -> Option<(Array, u32)> {
        let holds = |&&(f, first, last, _): &&(File, u32, u32, Array)| {
            f == file && (first as i64..=last as i64).contains(&index)
        };
        let found = match &self.arrays_sorted {
            // Every register access asks: a scan of a thousand arrays for
            // each made building quadratic in the shader's size.
            Some(sorted) => {
                let after = sorted
                    .partition_point(|&(f, first, _, _)| (file_rank(f), first as i64) <= (file_rank(file), index));
                after.checked_sub(1).and_then(|k| sorted.get(k)).filter(holds)
            }
            None => self.arrays.iter().find(holds),
        };
        found.map(|&(_, first, _, a)| (a, first))
    }
}

/// An order of the files arrays are kept for.
fn file_rank(file: File) -> u8 {
    match file {
        File::Temporary => 0,
        File::Output => 1,
        _ => 2,
    }
}

/// `arrays` sorted by file and first register, or `None` when two of one
/// file overlap (a register in both belongs to the first declared).
fn sorted_disjoint(arrays: &[(File, u32, u32, Array)]) -> Option<Vec<(File, u32, u32, Array)>> {
    let mut sorted = arrays.to_vec();
    sorted.sort_by_key(|&(f, first, _, _)| (file_rank(f), first));
    let disjoint = sorted.windows(2).all(|w| file_rank(w[0].0) != file_rank(w[1].0) || w[0].2 < w[1].1);
    disjoint.then_some(sorted)
}
