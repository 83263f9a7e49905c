//! What a module's declarations and properties tell the program: its OUT
//! registers, the semantics of its system values and its fixed compute
//! block size.

use ir::function::Module;
use tgsi::{File, PropertyName, SemanticName};

/// Every declared OUT register index, ascending.
pub(super) fn output_registers(module: &Module) -> Vec<u32> {
    let mut regs: Vec<u32> = module
        .interface
        .iter()
        .filter_map(|item| match item {
            tgsi::Item::Declaration(d) if d.file == File::Output => Some(d.first as u32..=d.last as u32),
            _ => None,
        })
        .flatten()
        .collect();
    regs.sort_unstable();
    regs.dedup();
    regs
}

/// The block size CS_FIXED_BLOCK_WIDTH/HEIGHT/DEPTH fix, when all three
/// are given.
pub(super) fn block_size(module: &Module) -> Option<[u32; 3]> {
    let mut fixed = [None; 3];
    for item in &module.interface {
        if let tgsi::Item::Property(p) = item {
            match p.name {
                PropertyName::CsFixedBlockWidth => fixed[0] = Some(p.value),
                PropertyName::CsFixedBlockHeight => fixed[1] = Some(p.value),
                PropertyName::CsFixedBlockDepth => fixed[2] = Some(p.value),
                _ => {}
            }
        }
    }
    match fixed {
        [Some(w), Some(h), Some(d)] => Some([w.max(1), h.max(1), d.max(1)]),
        _ => None,
    }
}

/// The semantic of every system value register, by index.
pub(super) fn system_value_names(module: &Module) -> Vec<Option<SemanticName>> {
    let mut names = Vec::new();
    for item in &module.interface {
        if let tgsi::Item::Declaration(d) = item {
            if d.file == File::SystemValue {
                for i in d.first..=d.last {
                    let i = i as usize;
                    if names.len() <= i {
                        names.resize(i + 1, None);
                    }
                    names[i] = d.semantic.map(|s| s.name);
                }
            }
        }
    }
    names
}
