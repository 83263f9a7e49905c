//! A map from registers (file and index) to state, held in dense vectors:
//! the allocator asks about every register it scans for every value it
//! places, and a hash lookup per question was most of its time.

use tgsi::File;

/// State per register, by file and index. Behaves as a map: a register
/// has an entry once [`ByRegister::entry`] made one, until it is removed.
pub(super) struct ByRegister<T> {
    files: Vec<Vec<Option<T>>>,
}

impl<T> Default for ByRegister<T> {
    fn default() -> Self {
        ByRegister { files: (0..File::ALL.len()).map(|_| Vec::new()).collect() }
    }
}

impl<T: Default> ByRegister<T> {
    /// The entry of `file[index]`, if it has one.
    pub fn get(&self, file: File, index: u32) -> Option<&T> {
        self.files[file as usize].get(index as usize)?.as_ref()
    }

    pub fn get_mut(&mut self, file: File, index: u32) -> Option<&mut T> {
        self.files[file as usize].get_mut(index as usize)?.as_mut()
    }

    /// The entry of `file[index]`, made empty if it has none.
    pub fn entry(&mut self, file: File, index: u32) -> &mut T {
        let regs = &mut self.files[file as usize];
        let i = index as usize;
        if regs.len() <= i {
            regs.resize_with(i + 1, || None);
        }
        regs[i].get_or_insert_with(T::default)
    }

    /// Takes the entry of `file[index]` out.
    pub fn remove(&mut self, file: File, index: u32) -> Option<T> {
        self.files[file as usize].get_mut(index as usize)?.take()
    }

    /// The indices of `file` that have entries, in increasing order.
    pub fn indices(&self, file: File) -> impl Iterator<Item = u32> + '_ {
        self.files[file as usize].iter().enumerate().filter(|(_, e)| e.is_some()).map(|(i, _)| i as u32)
    }

    /// The highest index of `file` that has an entry.
    pub fn last_index(&self, file: File) -> Option<u32> {
        self.files[file as usize].iter().rposition(Option::is_some).map(|i| i as u32)
    }

    /// Every entry as `f` maps it, under the same registers.
    pub fn map<U>(&self, mut f: impl FnMut(&T) -> U) -> ByRegister<U> {
        ByRegister {
            files: self.files.iter().map(|regs| regs.iter().map(|e| e.as_ref().map(&mut f)).collect()).collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_behave_as_a_map_does() {
        let mut regs: ByRegister<u32> = ByRegister::default();
        assert_eq!(regs.get(File::Temporary, 5), None);
        *regs.entry(File::Temporary, 5) += 2;
        *regs.entry(File::Output, 1) += 1;
        assert_eq!(regs.get(File::Temporary, 5), Some(&2));
        // The registers below 5 got room, not entries.
        assert_eq!(regs.get(File::Temporary, 3), None);
        assert_eq!(regs.indices(File::Temporary).collect::<Vec<_>>(), [5]);
        assert_eq!(regs.last_index(File::Temporary), Some(5));
        assert_eq!(regs.remove(File::Temporary, 5), Some(2));
        assert_eq!(regs.get(File::Temporary, 5), None);
        assert_eq!(regs.last_index(File::Temporary), None);
        assert_eq!(regs.indices(File::Output).collect::<Vec<_>>(), [1]);
        assert_eq!(regs.map(|x| x * 10).get(File::Output, 1), Some(&10));
    }
}
