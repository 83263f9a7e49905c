//! A module's code compiled once into steps over value slots, so running it
//! looks nothing up: every value is a slot of 32-bit lanes (a 64-bit value
//! two, its low half then its high half, see [`Slots`]), every block a
//! list of steps, and phis become copies at the end of their predecessors.
//! The control-flow tree becomes a flat list ([`Control`]).
//!
//! This module holds [`Program`] and compiles a module into it. The parts:
//! `slots` (where values live, operands), `steps` (what a block compiles
//! to), `inst` (compiling one instruction), `join` (joining the channels
//! of an instruction into one step), `control` (the flat control list) and
//! `interface` (what the declarations and properties say).

use ir::function::{Block, Exit, Module, Op};
use ir::EntityRef;
use tgsi::{Processor, SemanticName};

use crate::error::ExecError;
use crate::geometry::Layout;
use memory::Usage;

mod control;
mod inst;
mod interface;
mod join;
pub(crate) mod memory;
mod slots;
mod steps;
mod uniform;

pub(crate) use control::Control;
pub(crate) use slots::{Arg, Slots};
pub(crate) use steps::{Deriv, Fill, Lod, Step, TexOp, MAX_WIDTH, TEX_OPERANDS};

use control::compile_control;
use inst::{compile_inst, Compiled};
use interface::{block_size, output_registers, system_value_names};
use join::join_channels;

/// A compiled module.
#[derive(Debug)]
pub(crate) struct Program {
    /// The control flow.
    pub control: Vec<Control>,
    pub steps: Vec<Vec<Step>>,
    /// How many steps each block counts against the step budget: its
    /// own and those taken out into `uniform`.
    pub counted: Vec<u32>,
    /// The steps every lane computes alike (`uniform`), in an order that
    /// computes operands first: computed once a run, after the constant
    /// reads ([`crate::run::uniform`]).
    pub uniform: Vec<Step>,
    /// The slots `uniform` writes, in the order of their fills'
    /// `Fill::Constant` indices (from `const_reads.len()` on).
    pub uniform_slots: Vec<u32>,
    pub exits: Vec<Exit>,
    /// The slots set when a batch starts.
    pub fills: Vec<(u32, Fill)>,
    pub slots: usize,
    /// Slots a batch clears when it starts: the operands of derivatives,
    /// which read lanes that may not have written them.
    pub cleared: Vec<u32>,
    /// Length in registers of each array.
    pub arrays: Vec<u32>,
    /// The immediates, for indirect reads.
    pub immediates: Vec<[u32; 4]>,
    /// Every direct constant read: (buffer, index, channel).
    pub const_reads: Vec<(u32, u32, u8)>,
    /// The declared semantic of each system value register, for indirect
    /// reads.
    pub sv_names: Vec<Option<SemanticName>>,
    /// Every declared OUT index, ascending.
    pub outputs: Vec<u32>,
    pub processor: Processor,
    /// The compute block size the CS_FIXED_BLOCK_* properties fix.
    pub block_size: Option<[u32; 3]>,
    /// What `EMIT` snapshots, and how many vertices it may add.
    pub geometry: Layout,
    /// Whether the module touches or writes memory or waits at barriers.
    pub memory: Usage,
    /// One more than the highest unit a texture step names (0 without
    /// texture steps): the units a run's texture table covers.
    pub texture_units: u32,
    /// The constant buffers indirect CONST loads read whose buffer is
    /// known when the program compiles (none, or a fixed 2-D index),
    /// ascending: the buffers a compiled run lays out as tables, in that
    /// order.
    pub indirect_const_buffers: Vec<u32>,
}

impl Program {
    pub fn compile(module: &Module) -> Result<Program, ExecError> {
        let func = &module.function;
        let slots = Slots::new(func);
        let sv_names = system_value_names(module);
        let outputs = output_registers(module);
        let mut steps: Vec<Vec<Step>> = vec![Vec::new(); func.blocks.len()];
        let mut copies: Vec<Vec<(u32, u32)>> = vec![Vec::new(); func.blocks.len()];
        let mut in_tree = vec![false; func.blocks.len()];
        let mut const_reads = Vec::new();
        let mut fills = Vec::new();
        let control = compile_control(func, &slots, &mut in_tree);
        for (b, block) in func.blocks.iter() {
            if !in_tree[b.index()] {
                continue;
            }
            for &inst in &block.insts {
                let data = &func.insts[inst];
                if let Op::Phi { preds } = &data.op {
                    let dst = data.results[0];
                    for (arg, pred) in data.args.iter().zip(preds) {
                        if let Some(list) = copies.get_mut(pred.index()) {
                            let (d, a) = (slots.of(dst), slots.of(arg.value));
                            list.push((d, a));
                            if slots.is_wide(dst) {
                                list.push((d + 1, a + 1));
                            }
                        }
                    }
                    continue;
                }
                match compile_inst(module, func, &slots, inst, &sv_names, &outputs, &mut const_reads)? {
                    Compiled::Steps(list) => steps[b.index()].extend(list),
                    Compiled::Fills(list) => fills.extend(list),
                    Compiled::Nothing => {}
                }
            }
        }
        steps.iter_mut().for_each(join_channels);
        for (b, list) in copies.into_iter().enumerate() {
            if !list.is_empty() {
                steps[b].push(Step::Copies(list));
            }
        }
        let memory =
            Usage { accesses: steps.iter().flatten().any(|s| matches!(s, Step::Memory(_))), ..Usage::of(module) };
        let mut cleared: Vec<u32> = steps
            .iter()
            .flatten()
            .filter_map(|step| match step {
                Step::Deriv { arg, .. } => Some(arg.slot),
                _ => None,
            })
            .collect();
        cleared.sort_unstable();
        cleared.dedup();
        let texture_units = steps
            .iter()
            .flatten()
            .filter_map(|s| match s {
                Step::Texture { unit, .. } => Some(unit.saturating_add(1)),
                _ => None,
            })
            .max()
            .unwrap_or(0);
        let mut indirect_const_buffers: Vec<u32> = (steps.iter().flatten())
            .filter_map(|s| match s {
                Step::LoadIndirect { file: tgsi::File::Constant, dim: None, .. } => Some(0),
                Step::LoadIndirect { file: tgsi::File::Constant, dim: Some((d, None)), .. } => u32::try_from(*d).ok(),
                _ => None,
            })
            .collect();
        indirect_const_buffers.sort_unstable();
        indirect_const_buffers.dedup();
        let counted = steps.iter().map(|s| s.len() as u32).collect();
        let first_k = const_reads.len() as u32;
        let (uniform, uniform_slots) = uniform::hoist(&control, &mut steps, &mut fills, slots.count as usize, first_k);
        Ok(Program {
            control,
            steps,
            counted,
            uniform,
            uniform_slots,
            fills,
            exits: func.blocks.iter().map(|(_, d)| d.exit).collect(),
            slots: slots.count as usize,
            cleared,
            arrays: func.arrays.iter().map(|(_, a)| a.len).collect(),
            immediates: module.immediates.iter().map(|imm| imm.data).collect(),
            const_reads,
            sv_names,
            geometry: Layout::new(module, outputs.clone()),
            outputs,
            processor: module.processor,
            block_size: block_size(module),
            memory,
            texture_units,
            indirect_const_buffers,
        })
    }

    pub fn block(&self, b: Block) -> &[Step] {
        &self.steps[b.index()]
    }

    /// How many steps block `b` counts against the step budget.
    pub fn counted(&self, b: Block) -> u64 {
        self.counted.get(b.index()).map_or(0, |&n| n as u64)
    }

    pub fn exit(&self, b: Block) -> Exit {
        self.exits[b.index()]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_whole_register_operation_is_one_step() {
        let text = "FRAG\nDCL IN[0]\nDCL IN[1]\nDCL OUT[0], COLOR\nDCL TEMP[0]\n\
                    MUL TEMP[0], IN[0], IN[1]\nADD OUT[0], TEMP[0], -IN[0].xxxx\nEND\n";
        let module = ir::from_tgsi(&tgsi::parse(text).unwrap()).unwrap();
        let program = Program::compile(&module).unwrap();
        let alu: Vec<u32> = program
            .steps
            .iter()
            .flatten()
            .filter_map(|s| if let Step::Alu { width, .. } = s { Some(*width) } else { None })
            .collect();
        assert_eq!(alu, [4, 4]);
    }
}
