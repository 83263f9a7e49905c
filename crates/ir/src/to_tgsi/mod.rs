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
mod control;
mod copies;
mod gather;
mod groups;
mod immediates;
mod indirect;
mod instruction;
mod interface;
mod layout;
mod note;
mod operands;
mod options;
#[cfg(test)]
mod plant;
mod renumber;
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
/// Emission computes what the IR computes, every instruction of it (dead
/// ones too: removing them is `dce`'s job), with one layout, one
/// allocation and one pass over the tree.
///
/// ```
/// let text = "FRAG\nDCL IN[0]\nDCL OUT[0]\nDCL TEMP[0]\nADD TEMP[0], IN[0], IN[0]\nMOV OUT[0], TEMP[0]\nEND\n";
/// let module = ir::from_tgsi(&tgsi::parse(text).unwrap()).unwrap();
/// let shader = ir::to_tgsi(&module).unwrap();
/// // ADD TEMP[0], MOV OUT[0] and END, as the source had them (`constfold`
/// // propagates the copy, and the sum then goes straight to the output).
/// assert_eq!(shader.instructions().count(), 3);
/// ```
pub fn to_tgsi(module: &Module) -> Result<tgsi::Shader, EmitError> {
    to_tgsi_with(module, &EmitOptions::checked_in_debug())
}

/// Writes `module` as a TGSI shader, as `options` say.
///
/// ```
/// let text = "FRAG\nDCL IN[0]\nDCL OUT[0]\nMOV OUT[0], -IN[0]\nEND\n";
/// let module = ir::from_tgsi(&tgsi::parse(text).unwrap()).unwrap();
/// let options = ir::to_tgsi::EmitOptions { check: true, ..Default::default() };
/// assert!(ir::to_tgsi_with(&module, &options).is_ok());
/// ```
pub fn to_tgsi_with(module: &Module, options: &EmitOptions) -> Result<tgsi::Shader, EmitError> {
    let func = &module.function;
    let layout = Layout::new(func);
    let mut copies: SecondaryMap<Block, Vec<(Value, Value)>> = SecondaryMap::default();
    for b in func.blocks_in_order() {
        for &inst in &func.blocks[b].insts {
            if let Op::Phi { preds } = &func.insts[inst].op {
                let data = &func.insts[inst];
                for (arg, pred) in data.args.iter().zip(preds) {
                    copies.get_or_default(*pred).push((data.results[0], arg.value));
                }
            }
        }
    }
    let packed = emit(module, &layout, &copies, alloc::Policy::Packed, options)?;
    let packed_size = size(&packed);
    if within_source(module, packed_size) {
        return Ok(packed);
    }
    // Larger than the source: the values in the source's own registers
    // instead, kept when that is smaller.
    let origins = emit(module, &layout, &copies, alloc::Policy::Origins, options)?;
    let origins_size = size(&origins);
    let better = within_source(module, origins_size) || origins_size < packed_size;
    Ok(if better { origins } else { packed })
}

/// A shader's instructions (END aside) and TEMP registers.
fn size(shader: &tgsi::Shader) -> (usize, u32) {
    (shader.instruction_count(), shader.temp_registers())
}

/// Whether a shader of `size` has no more instructions and TEMP registers
/// than the source of `module` (as far as the module knows it).
fn within_source(module: &Module, (instructions, temps): (usize, u32)) -> bool {
    let source_temps: u32 = module.temps.iter().map(|d| d.last as u32 - d.first as u32 + 1).sum();
    temps <= source_temps && module.source_instructions.is_none_or(|n| instructions <= n)
}

/// The module written as TGSI with the allocation `policy` makes.
fn emit(
    module: &Module,
    layout: &Layout,
    copies: &SecondaryMap<Block, Vec<(Value, Value)>>,
    policy: alloc::Policy,
    options: &EmitOptions,
) -> Result<tgsi::Shader, EmitError> {
    let func = &module.function;
    let mut e = Emitter::new(module, func, layout, copies.clone(), policy, options);
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
    /// [`EmitOptions::zeros_from_temps`].
    zeros_from_temps: bool,
    /// The TEMP register whose never-written channels give initial zeros
    /// ([`EmitOptions::zeros_from_temps`]), once taken: no scratch use
    /// writes it.
    zero_register: Option<u32>,
    /// The channels of the zero register values were copied into, and
    /// those read as zeros: a channel is only ever one of the two, so a
    /// zero is never overwritten, in a loop's next round either.
    zero_written: u8,
    zero_read: u8,
    /// The most scratch registers taken at once so far.
    scratch_high: u32,
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
    /// Values read from a copy instead of their register, while the rest
    /// of a group is written ([`Emitter::keep_read_values`]).
    relocated: Vec<(Value, Loc)>,
    /// Scratch registers those copies keep.
    held_scratch: u32,
    /// The channels written at the position being written: a group split
    /// into several instructions must not take one of them for gathering
    /// or as a zero, which its allocation (one position) thinks unwritten.
    written_here: Vec<RegChannel>,
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
        options: &EmitOptions,
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
            alloc: alloc::allocate(func, layout, policy, options),
            zeros_from_temps: options.zeros_from_temps,
            zero_register: None,
            zero_written: 0,
            zero_read: 0,
            scratch_high: 0,
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
            relocated: Vec::new(),
            held_scratch: 0,
            written_here: Vec::new(),
            notes: note::Notes::default(),
            #[cfg(test)]
            plant: plant::Plant::default(),
        }
    }

    fn err(&self, m: impl Into<String>) -> EmitError {
        EmitError::Unwritable(m.into())
    }

    fn loc(&self, v: Value) -> Result<Loc, EmitError> {
        if let Some(&(_, loc)) = self.relocated.iter().find(|&&(w, _)| w == v) {
            return Ok(loc);
        }
        self.alloc.loc.get(&v).copied().ok_or_else(|| self.err(format!("{v} has no location")))
    }

    fn scratch(&mut self) -> u32 {
        let mut r = self.alloc.temp_count + self.scratch_used;
        if Some(r) == self.zero_register {
            r += 1;
            self.scratch_used += 1;
        }
        self.scratch_used += 1;
        self.scratch_high = self.scratch_high.max(self.scratch_used);
        r
    }

    /// The TEMP register no instruction has written, nor will: taken once,
    /// past every register and scratch register used so far, and skipped
    /// by later scratch uses.
    fn zero_register(&mut self) -> u32 {
        let high = self.scratch_high.max(self.scratch_used);
        *self.zero_register.get_or_insert(self.alloc.temp_count + high)
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The emitted shader's instruction count and TEMP registers.
    fn sizes(text: &str) -> (usize, u32, String) {
        let module = crate::from_tgsi(&tgsi::parse(text).unwrap()).unwrap();
        let shader = to_tgsi(&module).unwrap();
        let temps = shader.temp_registers();
        let printed = tgsi::print(&shader, tgsi::Style::Exact);
        (shader.instructions().count(), temps, printed)
    }

    /// Emission writes every computation of the IR, those nothing reads
    /// too: removing them is `dce`'s, so a round trip keeps them.
    #[test]
    fn computations_nothing_reads_are_written() {
        let text = "FRAG\nDCL IN[0]\nDCL OUT[0]\nDCL TEMP[0..1]\nMUL TEMP[1], IN[0], IN[0]\n\
                    ADD TEMP[0], IN[0], IN[0]\nMOV OUT[0], TEMP[0]\nEND\n";
        let (insts, temps, printed) = sizes(text);
        assert_eq!((insts, temps), (4, 1), "{printed}");
        assert!(printed.contains("MUL TEMP[0], IN[0], IN[0]"), "{printed}");
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

    /// The same at a `CONT`: a loop head's phi is dead in the continuing
    /// block after its last read there, so the value computed for the next
    /// round goes into the phi's register, with no copy before the `CONT`.
    #[test]
    fn a_continue_writes_into_the_register_of_the_phi_it_feeds() {
        let text = "FRAG\nDCL IN[0], GENERIC[0], CONSTANT\nDCL OUT[0], COLOR\nDCL TEMP[0..1]\n\
                    IMM[0] FLT32 {0.0, 1.0, 10.0, 0.5}\nMOV TEMP[0].x, IMM[0].xxxx\nBGNLOOP\n\
                    SGE TEMP[1].x, TEMP[0].xxxx, IMM[0].zzzz\nIF TEMP[1].xxxx\nBRK\nENDIF\n\
                    SLT TEMP[1].y, IN[0].xxxx, TEMP[0].xxxx\nIF TEMP[1].yyyy\n\
                    ADD TEMP[0].x, TEMP[0].xxxx, IMM[0].yyyy\nCONT\nENDIF\n\
                    ADD TEMP[0].x, TEMP[0].xxxx, IMM[0].wwww\nENDLOOP\nMOV OUT[0], TEMP[0].xxxx\nEND\n";
        let (insts, temps, printed) = sizes(text);
        assert_eq!((insts, temps), (15, 1), "{printed}");
    }

    /// A store to an array element whose values an instruction just
    /// computed, in other channels than they are stored to, is that
    /// instruction writing the element with its swizzles permuted.
    #[test]
    fn a_store_of_permuted_channels_is_written_in_place() {
        let text = "VERT\nDCL IN[0]\nDCL OUT[0], POSITION\nDCL OUT[1], GENERIC[0]\nDCL CONST[0..1]\n\
                    DCL TEMP[0], LOCAL\nDCL TEMP[1..2], ARRAY(1), LOCAL\nDCL ADDR[0]\n\
                    IMM[0] FLT32 {1.0, 2.0, 3.0, 4.0}\nMOV TEMP[0], IMM[0].xyxx\nMOV TEMP[1], TEMP[0].xyyy\n\
                    MOV TEMP[2], TEMP[0].yxxx\nARL ADDR[0].x, CONST[0].xxxx\nMOV OUT[1], TEMP[ADDR[0].x+1](1)\n\
                    MOV OUT[0], IN[0]\nEND\n";
        let (insts, _, printed) = sizes(text);
        assert_eq!(insts, 7, "{printed}");
        assert!(printed.contains("MOV TEMP[2], TEMP[0].yxxx"), "{printed}");
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

    /// With [`EmitOptions::source_channels`] (r300's fragment ALU, whose
    /// RGB and alpha units split an instruction), the values of a vector
    /// instruction keep their source channels: packed beside the operand
    /// it reads, the `MUL` would move to `.yzw` and be read through a
    /// `.yzww` swizzle, two r300 instructions more.
    #[test]
    fn source_channels_keep_a_vector_instruction_in_its_channels() {
        let text = "FRAG\nDCL IN[0]\nDCL IN[1]\nDCL OUT[0]\nDCL CONST[0..1]\nDCL TEMP[0..3]\n\
                    IMM[0] FLT32 { 1.0, 0.0, 0.0, 0.0 }\nMUL TEMP[0], IN[0], IN[1]\n\
                    MAD_SAT TEMP[2].x, IN[1].xxxx, CONST[0].xxxx, CONST[0].yyyy\n\
                    ADD TEMP[3].x, IMM[0].xxxx, -TEMP[2].xxxx\nMUL TEMP[3].xyz, CONST[1].xyzz, TEMP[3].xxxx\n\
                    MAD TEMP[0].xyz, TEMP[0].xyzz, TEMP[2].xxxx, TEMP[3].xyzz\nMOV OUT[0], TEMP[0]\nEND\n";
        let module = crate::from_tgsi(&tgsi::parse(text).unwrap()).unwrap();
        let emit = |source_channels| {
            let options = EmitOptions { check: true, source_channels, ..EmitOptions::default() };
            tgsi::print(&to_tgsi_with(&module, &options).unwrap(), tgsi::Style::Exact)
        };
        let (packed, kept) = (emit(false), emit(true));
        assert!(packed.contains("MUL TEMP[1].yzw, CONST[1].xxyz, TEMP[1].yyyy"), "{packed}");
        assert!(kept.contains("MUL TEMP[2].xyz, CONST[1], TEMP[2].xxxx"), "{kept}");
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
