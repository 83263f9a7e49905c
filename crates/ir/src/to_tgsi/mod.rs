//! Emission back to TGSI.
//!
//! Out of SSA: every value gets a register channel (`alloc`), phis become
//! copies at the end of their predecessors (as one parallel copy; those an
//! else arm would hold alone go before the `IF` when they can), and the
//! control-flow tree is written back as structured TGSI. Scalar operations
//! that came from one source instruction, have the same opcode and read
//! the same registers are written as one vector instruction again, so a
//! shader that went through no pass comes out nearly as it went in.
//!
//! The output uses today's opcodes and syntax only, and Mesa's branch
//! labels (IF/UIF to the matching ELSE or ENDIF, ELSE to the ENDIF).
//!
//! Here: the entry point [`to_tgsi`], the `Emitter` state shared by the
//! steps, and which instructions are written at all. The parts, roughly
//! in the order they run:
//!
//! - `store_order`: runs of output stores ordered by register, so the
//!   stores to one output are written together;
//! - `constant_phis`: constants stored beside phis of constants made phis;
//! - `modifier_copies`: copies with modifiers read through their readers'
//!   modifiers (an emission of its own, kept when it is smaller);
//! - `early_copies`: results of whole instructions (textures) that one
//!   operand reads together, copied into one register as they are
//!   computed (an emission of its own, kept when it is smaller);
//! - `layout`: positions in emission order and live intervals;
//! - `alloc`: a register channel for every value, and (`alloc/pack`)
//!   registers packed into the free channels of others, an emission of
//!   its own kept when it is smaller;
//! - `control`: the control-flow tree, block by block, as structured TGSI;
//! - `instruction`: one IR instruction (or a run written together), by
//!   kind: `alu` (vector ALU instructions from scalar operations),
//!   `stores` (output stores), `indirect` (indirectly addressed loads and
//!   array stores);
//! - `operands`: the source operand reading a set of values, with
//!   `gather` for values scattered over registers;
//! - `copies`: the phis' parallel copies and the MOVs everything writes;
//! - `immediates`: the emitted shader's immediates;
//! - `interface`: the source's declarations in today's syntax;
//! - `assemble`: branch labels, declarations and the final shader, with
//!   `renumber` numbering the TEMP registers in use densely;
//! - `note` and `check`: what the emitter meant by each instruction, and
//!   the allocation checker that proves the emitted code against it
//!   ([`EmitOptions::check`], in `options` with [`EmitError`]).

mod alloc;
mod alu;
mod assemble;
pub mod check;
mod constant_phis;
mod control;
mod copies;
mod early_copies;
mod gather;
mod immediates;
mod indirect;
mod instruction;
mod interface;
mod layout;
mod modifier_copies;
mod note;
mod operands;
mod options;
#[cfg(test)]
mod plant;
mod renumber;
mod store_order;
mod stores;
mod use_lists;

use crate::entity::SecondaryMap;
use crate::function::*;
use crate::walk::{walk, Event};
use alloc::{Allocation, Loc};
use immediates::ImmediatePool;
use layout::Layout;
use smallvec::SmallVec;
use tgsi::{File, Opcode};

pub use check::CheckError;
pub use options::{EmitError, EmitOptions};

/// Writes `module` as a TGSI shader; checked ([`EmitOptions::check`])
/// in builds with debug assertions, so every test checks every emission.
///
/// ```
/// let text = "FRAG\nDCL IN[0]\nDCL OUT[0]\nDCL TEMP[0]\nADD TEMP[0], IN[0], IN[0]\nMOV OUT[0], TEMP[0]\nEND\n";
/// let module = ir::from_tgsi(&tgsi::parse(text).unwrap()).unwrap();
/// let shader = ir::to_tgsi(&module).unwrap();
/// // ADD OUT[0], IN[0], IN[0] and END: the sum goes straight to the output.
/// assert_eq!(shader.instructions().count(), 2);
/// ```
pub fn to_tgsi(module: &Module) -> Result<tgsi::Shader, EmitError> {
    to_tgsi_with(module, &EmitOptions::checked_in_debug())
}

/// Writes `module` as a TGSI shader, as `options` say.
///
/// ```
/// let text = "FRAG\nDCL IN[0]\nDCL OUT[0]\nMOV OUT[0], -IN[0]\nEND\n";
/// let module = ir::from_tgsi(&tgsi::parse(text).unwrap()).unwrap();
/// let options = ir::to_tgsi::EmitOptions { check: true };
/// assert!(ir::to_tgsi_with(&module, &options).is_ok());
/// ```
pub fn to_tgsi_with(module: &Module, options: &EmitOptions) -> Result<tgsi::Shader, EmitError> {
    let grouped = store_order::group_output_stores(&module.function);
    let func = grouped.as_ref().unwrap_or(&module.function);
    let prepared = constant_phis::constant_phis(func);
    let func = prepared.as_ref().unwrap_or(func);
    // The plain emission first: the others are kept only when they are no
    // larger, in instructions and TEMPs, than it. Packing registers saves
    // TEMPs but can take from gathering the free channels it would copy
    // into; a folded modifier copy saves a MOV but makes its source live
    // longer and can mix modifiers in an operand.
    let size = |s: &tgsi::Shader| (s.instructions().count(), temp_registers(s));
    let laid = Laid::new(func);
    let plain = emit(module, &laid, alloc::Policy::default(), options)?;
    // Each further trial is a whole emission again: past this size their
    // cost (up to nine emissions) outweighs what they save, and compile
    // time must stay linear in the shader.
    if plain.instructions().count() > MAX_TRIAL_INSTRUCTIONS {
        return Ok(plain);
    }
    let bound = size(&plain);
    // Only the trials read the folded function, a copy of the whole
    // function: made once they are sure to run (it was a seventh of the
    // peak of a 100,000-instruction shader's compile).
    let folded_func = modifier_copies::fold_modifier_copies(func);
    // Whole instructions' results read together copied beside each other
    // as they are computed (in `func` and in the folded one): fewer
    // registers, as many copies or fewer.
    let early_func = early_copies::early_copies(func);
    let early_folded = folded_func.as_ref().and_then(early_copies::early_copies);
    // The functions tried besides `func`, each with and without packing.
    let others: Vec<Laid> = [folded_func.as_ref(), early_func.as_ref(), early_folded.as_ref()]
        .into_iter()
        .flatten()
        .map(Laid::new)
        .collect();
    // (size, shader, function tried (0: `func`, k: `others[k - 1]`), policy)
    let mut best = (bound, plain, 0usize, alloc::Policy::default());
    let consider = |best: &mut (_, tgsi::Shader, usize, alloc::Policy), from: usize, policy: alloc::Policy| {
        let laid = from.checked_sub(1).and_then(|k| others.get(k)).unwrap_or(&laid);
        let shader = emit(module, laid, policy, options)?;
        let s = size(&shader);
        if s.0 <= bound.0 && s.1 <= bound.1 && s < best.0 {
            *best = (s, shader, from, policy);
        }
        Ok::<(), EmitError>(())
    };
    let pack = alloc::Policy { pack: true, whole_groups: false };
    consider(&mut best, 0, pack)?;
    for from in 1..=others.len() {
        consider(&mut best, from, pack)?;
        consider(&mut best, from, alloc::Policy::default())?;
    }
    // Channels written straight into outputs one by one can split a
    // vector instruction: the best so far again, with groups kept whole.
    let (from, policy) = (best.2, alloc::Policy { whole_groups: true, ..best.3 });
    consider(&mut best, from, policy)?;
    Ok(best.1)
}

/// The largest shader (in instructions, as first emitted) that emission
/// tries packing and folded modifier copies on; larger ones are written
/// as first emitted.
const MAX_TRIAL_INSTRUCTIONS: usize = 4096;

/// How many TEMP registers a shader declares.
fn temp_registers(shader: &tgsi::Shader) -> u32 {
    shader.declarations().filter(|d| d.file == File::Temporary).map(|d| d.last as u32 - d.first as u32 + 1).sum()
}

/// A function to emit with its layout, which every allocation tried on it
/// shares.
struct Laid<'f> {
    func: &'f Function,
    layout: Layout,
}

impl<'f> Laid<'f> {
    fn new(func: &'f Function) -> Self {
        let live = live_instructions(func);
        let layout = Layout::new(func, &live);
        Laid { func, layout }
    }
}

/// `laid.func` (the module's function, or one prepared from it) written as
/// TGSI.
fn emit(module: &Module, laid: &Laid, policy: alloc::Policy, options: &EmitOptions) -> Result<tgsi::Shader, EmitError> {
    let (func, layout) = (laid.func, &laid.layout);
    let mut copies: SecondaryMap<Block, Vec<(Value, Value)>> = SecondaryMap::default();
    for (inst, data) in func.insts.iter() {
        if !layout.inst_pos.contains_key(&inst) {
            continue;
        }
        if let Op::Phi { preds } = &data.op {
            for (arg, pred) in data.args.iter().zip(preds) {
                copies.get_or_default(*pred).push((data.results[0], arg.value));
            }
        }
    }
    let mut e = Emitter::new(module, func, layout, copies, policy);
    e.notes.enabled = options.check;
    #[cfg(test)]
    {
        e.plant = options.plant.clone();
        e.planted_swap();
    }
    e.region(&func.body)?;
    if e.out.last().is_none_or(|i| i.opcode != Opcode::End) {
        e.push(tgsi::Instruction::new(Opcode::End), note::Note::default());
    }
    e.fix_labels();
    if options.check {
        check::check(func, layout, &e.out, &e.notes, &e.imms.imms, module.processor)
            .map_err(|c| EmitError::Check(Box::new(c)))?;
    }
    Ok(e.assemble(module))
}

fn last_block(region: &Region) -> Option<Block> {
    match region.last() {
        Some(Node::Block(b)) => Some(*b),
        _ => None,
    }
}

struct Emitter<'a> {
    func: &'a Function,
    layout: &'a Layout,
    alloc: Allocation,
    imms: ImmediatePool,
    out: Vec<tgsi::Instruction>,
    /// Phi copies at the end of each block: (phi, argument).
    copies: SecondaryMap<Block, Vec<(Value, Value)>>,
    /// Scratch registers used by the instruction being written.
    scratch_used: u32,
    /// The position of the instruction being written.
    pos: Option<u32>,
    /// Channels filled to gather operands of the instruction being written.
    gathered: Vec<RegChannel>,
    last_block: Option<Block>,
    /// The block being written.
    cur_block: Option<Block>,
    /// Phi copies of zero left out, trusting the register to hold its
    /// initial zero until the position given: operand gathering must not
    /// write there before it.
    zero_skips: Vec<(RegChannel, u32)>,
    /// Channels written to gather operands, with where: a phi copy of zero
    /// into one of them before that position cannot be left out.
    gather_writes: Vec<(RegChannel, u32)>,
    /// Copies gathering made: the channel, the value copied there, and the
    /// length of the output just after the copy. A later instruction can
    /// read the copy again while nothing has written the channel since and
    /// no control flow came between ([`Emitter::held_copy`]).
    held: Vec<(RegChannel, Value, usize)>,
    /// What each instruction written means, for the checker.
    notes: note::Notes,
    #[cfg(test)]
    plant: plant::Plant,
}

/// One operand of an instruction being written: for each swizzle position
/// the value to read there.
type Wanted = SmallVec<[(usize, Operand); 4]>;

impl<'a> Emitter<'a> {
    fn new(
        module: &'a Module,
        func: &'a Function,
        layout: &'a Layout,
        copies: SecondaryMap<Block, Vec<(Value, Value)>>,
        policy: alloc::Policy,
    ) -> Self {
        let mut imms = ImmediatePool::new(&module.immediates);
        // Indirectly addressed immediates are read by their source numbers.
        let indirect_imm = func
            .insts
            .iter()
            .any(|(_, d)| matches!(&d.op, Op::LoadIndirect { reg, .. } if reg.file == File::Immediate));
        if indirect_imm {
            for k in 0..module.immediates.len() {
                imms.keep(k as u32);
            }
        }
        Emitter {
            func,
            layout,
            alloc: alloc::allocate(func, layout, policy),
            imms,
            out: Vec::new(),
            copies,
            scratch_used: 0,
            pos: None,
            gathered: Vec::new(),
            last_block: last_block(&func.body),
            cur_block: None,
            zero_skips: Vec::new(),
            gather_writes: Vec::new(),
            held: Vec::new(),
            notes: note::Notes::default(),
            #[cfg(test)]
            plant: plant::Plant::default(),
        }
    }

    fn err(&self, m: impl Into<String>) -> EmitError {
        EmitError::Unwritable(m.into())
    }

    fn loc(&self, v: Value) -> Result<Loc, EmitError> {
        self.alloc.loc.get(&v).copied().ok_or_else(|| self.err(format!("{v} has no location")))
    }

    fn scratch(&mut self) -> u32 {
        let r = self.alloc.temp_count + self.scratch_used;
        self.scratch_used += 1;
        r
    }

    /// The register `v` is written to.
    fn dst_reg(&self, v: Value) -> Result<(File, u32), EmitError> {
        match self.loc(v)? {
            Loc::Reg(r) => Ok((r.file, r.index)),
            Loc::Pair { file, index, .. } => Ok((file, index)),
            _ => Err(self.err(format!("{v} is computed but has no register"))),
        }
    }

    /// The write mask of the channels `v` is written to.
    fn dst_mask(&self, v: Value) -> Result<u8, EmitError> {
        match self.loc(v)? {
            Loc::Reg(r) => Ok(1 << r.chan | self.alloc.also.get(&v).copied().unwrap_or(0)),
            Loc::Pair { pair, .. } => Ok(0b11 << (2 * pair)),
            _ => Err(self.err(format!("{v} has no register"))),
        }
    }
}

/// The instructions whose results are used, directly or through other
/// instructions, by an effect: output and array stores, instructions with
/// side effects, and branch conditions. The others compute nothing that
/// matters, and emission leaves them out.
fn live_instructions(func: &Function) -> SecondaryMap<Inst, ()> {
    let mut live = SecondaryMap::with_capacity(func.insts.len());
    let mut work: Vec<Value> = Vec::new();
    for (_, block) in func.blocks.iter() {
        for &inst in &block.insts {
            let data = &func.insts[inst];
            let effect = match &data.op {
                Op::StoreOutput { .. } | Op::ArrayStore { .. } | Op::StoreIndirect { .. } => true,
                Op::Opaque { inst: t, .. } => {
                    t.opcode.info().has(tgsi::flags::SIDE_EFFECT)
                        || t.dst.iter().any(|d| !is_value_destination(d.reg.file))
                }
                _ => false,
            };
            if effect && live.insert(inst, ()).is_none() {
                work.extend(data.args.iter().map(|a| a.value));
            }
        }
    }
    work.extend(crate::walk::construct_operands(&func.body).map(|op| op.value));
    while let Some(v) = work.pop() {
        let Some(data) = func.values.get(v) else { continue };
        if live.insert(data.def, ()).is_none() {
            work.extend(func.insts[data.def].args.iter().map(|a| a.value));
        }
    }
    live
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The emitted shader's instruction count and TEMP registers.
    fn sizes(text: &str) -> (usize, u32, String) {
        let module = crate::from_tgsi(&tgsi::parse(text).unwrap()).unwrap();
        let shader = to_tgsi(&module).unwrap();
        let temps = temp_registers(&shader);
        let printed = tgsi::print(&shader, tgsi::Style::Exact);
        (shader.instructions().count(), temps, printed)
    }

    /// A source instruction whose other channels are overwritten before
    /// anything reads them leaves one live channel: it goes straight into
    /// the output it is stored to, like any single value, not into a
    /// register copied out at the end.
    #[test]
    fn a_lone_live_channel_goes_into_its_output() {
        let text = "VERT\nDCL IN[0]\nDCL OUT[0], POSITION\nDCL OUT[1], COLOR\nDCL CONST[0..1]\nDCL TEMP[0]\n\
                    MOV_SAT OUT[1], CONST[0]\nMUL TEMP[0], IN[0], CONST[1]\nMOV OUT[0], TEMP[0]\n\
                    MAD_SAT OUT[1].xyz, TEMP[0].xxxx, CONST[1], CONST[0]\nEND\n";
        let (insts, temps, printed) = sizes(text);
        assert_eq!((insts, temps), (5, 1), "{printed}");
        assert!(printed.contains("MOV_SAT OUT[1].w, CONST[0].wwww"), "{printed}");
    }

    /// Constants written to one output by two instructions, with another
    /// output written between them, are stored together: one `MOV` from
    /// one immediate writes all four channels. The reordering moves whole
    /// registers' stores and keeps each channel's stores in order.
    #[test]
    fn stores_to_one_output_around_another_are_one_mov() {
        let text = "FRAG\nDCL OUT[0], COLOR\nDCL OUT[1], COLOR[1]\nIMM[0] FLT32 { 1.0, -2.0, 0.5, 0.0 }\n\
                    MOV OUT[1].yw, IMM[0].xxyx\nMOV OUT[0], IMM[0].zzzz\nMOV OUT[1].xz, IMM[0].xyyy\n\
                    MOV OUT[0].x, IMM[0].wwww\nEND\n";
        let (insts, temps, printed) = sizes(text);
        assert_eq!((insts, temps), (3, 0), "{printed}");
        assert!(printed.contains("MOV OUT[1], IMM[0]."), "{printed}");
        let module = crate::from_tgsi(&tgsi::parse(text).unwrap()).unwrap();
        let stores = |f: &Function| -> Vec<(u32, u8, Value)> {
            f.blocks_in_order()
                .into_iter()
                .flat_map(|b| f.blocks[b].insts.clone())
                .filter_map(|i| match f.insts[i].op {
                    Op::StoreOutput { index, chan } => Some((index, chan, f.insts[i].args[0].value)),
                    _ => None,
                })
                .collect()
        };
        let grouped = store_order::group_output_stores(&module.function).expect("reordered");
        let (before, after) = (stores(&module.function), stores(&grouped));
        // The same stores, OUT[0] first, each channel's stores in order.
        let mut sorted = before.clone();
        sorted.sort_by_key(|s| s.0);
        assert_eq!(after, sorted);
        assert!(store_order::group_output_stores(&grouped).is_none());
    }

    /// A value kept through a loop is dead on the path of a `BRK` that
    /// does not need it: the break writes the phi after the loop into that
    /// value's register, so neither the break nor the code after the loop
    /// copies.
    #[test]
    fn a_break_writes_into_the_register_of_a_value_it_leaves_behind() {
        let text = "FRAG\nDCL IN[0]\nDCL OUT[0], COLOR\nDCL TEMP[0..2]\nIMM[0] FLT32 { 1.0, 0.0, 0.5, 8.0 }\n\
                    MUL TEMP[0], IN[0], IMM[0].zzzz\nMOV TEMP[1].x, IMM[0].yyyy\nBGNLOOP\n\
                    SGE TEMP[2].x, TEMP[1].xxxx, IMM[0].wwww\nIF TEMP[2].xxxx\nBRK\nENDIF\n\
                    ADD TEMP[1].x, TEMP[1].xxxx, IMM[0].xxxx\nSLT TEMP[2].x, TEMP[0].yyyy, TEMP[1].xxxx\n\
                    IF TEMP[2].xxxx\nMOV TEMP[0].x, IMM[0].zzzz\nBRK\nENDIF\nENDLOOP\nMOV OUT[0], TEMP[0]\nEND\n";
        let (insts, temps, printed) = sizes(text);
        assert_eq!((insts, temps), (16, 2), "{printed}");
        assert!(printed.contains("MOV TEMP[0].x, IMM[0].zzzz"), "{printed}");
    }

    /// A texture instruction writes only the channels something reads, so
    /// a single read channel can go straight into its output.
    #[test]
    fn texture_channels_nothing_reads_are_not_written() {
        let text = "FRAG\nDCL IN[0]\nDCL OUT[0], COLOR\nDCL SAMP[0]\nDCL SAMP[1]\nDCL TEMP[0..2]\n\
                    TEX TEMP[0], IN[0], SAMP[0], 2D\nTEX TEMP[1], TEMP[0].xxxx, SAMP[1], 1D\n\
                    MOV TEMP[2].x, TEMP[1].xxxx\nTEX TEMP[1], TEMP[0].yyyy, SAMP[1], 1D\n\
                    MOV TEMP[2].y, TEMP[1].yyyy\nMOV TEMP[2].zw, TEMP[0]\nMOV OUT[0], TEMP[2]\nEND\n";
        let (insts, temps, printed) = sizes(text);
        assert_eq!((insts, temps), (5, 1), "{printed}");
        assert!(printed.contains("TEX OUT[0].y, TEMP[0].yyyy, SAMP[1], 1D"), "{printed}");
    }

    /// Texture results that one operand reads together, each in channel
    /// `x` of its own register, are copied into one register as they are
    /// computed: two registers instead of one per texture, and no more
    /// instructions than three single-channel `ADD`s.
    #[test]
    fn texture_results_read_together_are_copied_into_one_register() {
        let text = "FRAG\nDCL IN[0]\nDCL IN[1]\nDCL OUT[0], COLOR\nDCL SAMP[0]\nDCL SVIEW[0], 2D, FLOAT\n\
                    DCL TEMP[0..2]\nTEX TEMP[0].x, IN[1].xyyy, SAMP[0], 2D\nMOV TEMP[1].x, TEMP[0].xxxx\n\
                    TEX TEMP[0].x, IN[1].zwww, SAMP[0], 2D\nMOV TEMP[1].y, TEMP[0].xxxx\n\
                    TEX TEMP[0].x, IN[0].zwww, SAMP[0], 2D\nMOV TEMP[1].z, TEMP[0].xxxx\n\
                    TEX TEMP[0].x, IN[0].xyyy, SAMP[0], 2D\nADD TEMP[2].xyz, TEMP[0].xxxx, -TEMP[1]\n\
                    MOV OUT[0], TEMP[2]\nEND\n";
        let (insts, temps, printed) = sizes(text);
        assert_eq!((insts, temps), (9, 2), "{printed}");
        assert!(printed.contains("ADD OUT[0].xyz, TEMP[1].xxxx, -TEMP[0]"), "{printed}");
    }

    /// Values scattered over no register (an input channel, a constant) are
    /// gathered into the free channels of a register in use, not into a
    /// register of their own.
    #[test]
    fn scattered_values_are_gathered_into_free_channels() {
        let text = "FRAG\nDCL IN[0]\nDCL IN[1]\nDCL OUT[0]\nDCL SAMP[0]\nDCL SAMP[1]\nDCL TEMP[0..1]\n\
                    IMM[0] FLT32 { 0.5, 0.0, 0.0, 0.0 }\nMOV TEMP[0].y, IMM[0].xxxx\nMOV TEMP[0].x, IN[1].zzzz\n\
                    TEX TEMP[1], IN[1], SAMP[1], 2D\nTEX TEMP[0], TEMP[0], SAMP[0], 2D\n\
                    MUL OUT[0], TEMP[1], TEMP[0]\nEND\n";
        let (insts, temps, printed) = sizes(text);
        assert_eq!((insts, temps), (6, 2), "{printed}");
    }

    /// A second operand reading the values the first one gathered reads
    /// the copies again.
    #[test]
    fn a_gathered_operand_is_read_again() {
        let text = "FRAG\nDCL IN[0]\nDCL IN[1]\nDCL OUT[0]\nDCL TEMP[0]\n\
                    MOV TEMP[0].xy, IN[0].zwww\nMOV TEMP[0].z, IN[1].xxxx\nDP3 OUT[0], TEMP[0], TEMP[0]\nEND\n";
        let (insts, temps, printed) = sizes(text);
        assert_eq!((insts, temps), (4, 1), "{printed}");
    }

    /// Scalars the source kept in channel x of registers of their own share
    /// one register, in channels moved for them.
    #[test]
    fn scalars_live_together_are_packed_into_one_register() {
        let text = "FRAG\nDCL IN[0]\nDCL OUT[0]\nDCL TEMP[0..2]\nADD TEMP[0].x, IN[0].xxxx, IN[0].yyyy\n\
                    MUL TEMP[1].x, IN[0].zzzz, IN[0].wwww\nSUB TEMP[2].x, IN[0].xxxx, IN[0].wwww\n\
                    MAD TEMP[0].x, TEMP[0].xxxx, TEMP[1].xxxx, TEMP[2].xxxx\nMUL OUT[0], TEMP[0].xxxx, TEMP[2].xxxx\nEND\n";
        let (insts, temps, printed) = sizes(text);
        assert_eq!((insts, temps), (6, 1), "{printed}");
    }

    /// A negated copy read by a float operation is read through the
    /// operation's own negation; an integer operation, which negates in
    /// two's complement, reads the copy.
    #[test]
    fn modifier_copies_fold_into_float_readers_only() {
        let float = "FRAG\nDCL IN[0]\nDCL OUT[0]\nDCL TEMP[0]\nMOV TEMP[0], -IN[0]\n\
                     ADD OUT[0], |TEMP[0].wzyx|, -TEMP[0]\nEND\n";
        let (insts, temps, printed) = sizes(float);
        assert_eq!((insts, temps), (2, 0), "{printed}");
        assert!(printed.contains("ADD OUT[0], |IN[0].wzyx|, IN[0]"), "{printed}");
        let int = "FRAG\nDCL IN[0]\nDCL OUT[0]\nDCL TEMP[0]\nMOV TEMP[0], -IN[0]\n\
                   UADD OUT[0], TEMP[0], IN[0]\nEND\n";
        let (insts, temps, printed) = sizes(int);
        assert_eq!((insts, temps), (3, 1), "{printed}");
    }

    /// A constant read indirectly once is read by its user directly, later
    /// in the block, while the address stays; an address written between
    /// keeps the copy.
    #[test]
    fn single_indirect_reads_are_read_in_their_user() {
        let read = |between: &str| {
            format!(
                "FRAG\nDCL IN[0]\nDCL OUT[0]\nDCL OUT[1]\nDCL CONST[0..7]\nDCL TEMP[0..1]\nDCL ADDR[0]\n\
                 ARL ADDR[0].x, IN[0].xxxx\nMOV TEMP[0], CONST[ADDR[0].x+3]\n{between}\
                 MUL TEMP[1], IN[0], IN[0]\nADD OUT[0], TEMP[0], TEMP[1]\nEND\n"
            )
        };
        let (insts, temps, printed) = sizes(&read(""));
        assert_eq!((insts, temps), (4, 1), "{printed}");
        assert!(printed.contains("ADD OUT[0], CONST[ADDR[0].x+3], TEMP[0]"), "{printed}");
        let (insts, _, printed) = sizes(&read("ARL ADDR[0].x, IN[0].yyyy\nMOV OUT[1], CONST[ADDR[0].x]\n"));
        assert_eq!(insts, 7, "{printed}");
    }

    /// A vector instruction whose channels are stored to outputs in
    /// several ways is written once into a TEMP and copied, rather than
    /// split into one instruction per output channel it could go to.
    #[test]
    fn a_vector_instruction_stays_whole_when_splitting_costs_more() {
        let text = "FRAG\nDCL IN[0]\nDCL OUT[0]\nDCL OUT[1]\nDCL CONST[0]\nDCL TEMP[0]\n\
                    MUL TEMP[0], CONST[0].zwzw, IN[0]\nMOV OUT[0], TEMP[0].yyzx\nMOV OUT[1], TEMP[0].xyww\nEND\n";
        let (insts, temps, printed) = sizes(text);
        assert_eq!((insts, temps), (4, 1), "{printed}");
    }

    /// Two channels of one source instruction where one comes to read the
    /// other's result (as a pass rewriting operands can make them) are
    /// not written as one vector instruction, which would read the old
    /// register contents.
    #[test]
    fn a_channel_reading_another_of_its_instruction_is_not_regrouped() {
        let text = "FRAG\nDCL IN[0]\nDCL OUT[0]\nDCL TEMP[0]\nADD TEMP[0].y, IN[0].xxxx, IN[0].xxxx\n\
                    UADD TEMP[0].xz, TEMP[0].yyyy, TEMP[0].yyyy\nMOV OUT[0], TEMP[0]\nEND\n";
        let mut module = crate::from_tgsi(&tgsi::parse(text).unwrap()).unwrap();
        let func = &mut module.function;
        let adds: Vec<Inst> = func
            .insts
            .iter()
            .filter(|(_, d)| matches!(d.op, Op::Alu { opcode: Opcode::Uadd, .. }))
            .map(|(i, _)| i)
            .collect();
        assert_eq!(adds.len(), 2);
        // z = x + x instead of y + y.
        let x = func.result(adds[0]);
        func.insts[adds[1]].args[0].value = x;
        func.insts[adds[1]].args[1].value = x;
        crate::verify::verify(func).unwrap();
        let shader = to_tgsi(&module).unwrap();
        let uadds: Vec<_> = shader.instructions().filter(|i| i.opcode == Opcode::Uadd).collect();
        assert_eq!(uadds.len(), 2, "{}", tgsi::print(&shader, tgsi::Style::Exact));
    }
}
