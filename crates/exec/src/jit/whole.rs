//! The whole program as one Cranelift function over a batch of 64 lanes,
//! [`ProgramFn`]:
//!
//! ```text
//! for q in 0..16:                     one quad, one 128-bit vector a value
//!     bits = active >> 4q & 0xf;  skip the quad when 0
//!     the control list, as branches: a region no lane of the quad is
//!     active in is skipped; IF, loops and SWITCH keep i32x4 lane masks
//!     (arms waiting, breaks, continues) as the interpreter keeps u64 ones
//!     every value an SSA variable (a vector register or a spill slot),
//!     written under the mask where another lane may still read the old
//!     value (in loops, phi copies, derivatives' and textures' operands)
//!     fills loaded where they are used, from the table the run lays out
//!     once (`run::compiled::RunFills`): a value every lane shares
//!     (immediates, constants) from its 16-byte splat, one of each lane
//!     (inputs, system values) from its column of the run's lanes
//!     OUT stores into a variable a channel; at the quad's end every
//!     declared register's four channels transposed into the four lanes'
//!     entries of the run's output table, four vector stores
//!     (no table to zero first, no store a lane)
//!     indirect loads and arrays as native code (`indirect`): arrays in
//!     stack slots of the quad, zeroed when it starts
//!     64-bit operations by one call a quad computing its four lanes
//!     (`wide`)
//!     texture steps by one call a quad into the sampler
//!     (`texture::sample_quad`): the operands as rows on the stack, the
//!     texel's channels loaded back, written as any value is; for a
//!     texture of the common case (one level, nearest, REPEAT on
//!     power-of-two sizes) the texels loaded by the code itself
//!     kills as native code: the lanes killed added to the frame's
//!     (`Frame::killed`)
//!     every other step by the interpreter's own step
//!     function for the quad's active lanes (`run::compiled::step_quad`):
//!     its operands stored to the batch's slots first, its results loaded
//!     back after
//! ```
//!
//! The step budget counts as the interpreter counts (every step of a
//! block that runs, every turn of a loop), per quad.

use std::mem::{offset_of, size_of};

use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::types::{F32, F32X4, I32, I32X4, I64, I8X16};
use cranelift_codegen::ir::{
    AbiParam, Block, BlockArg, Endianness, InstBuilder, MemFlags, SigRef, Signature, StackSlot, StackSlotData,
    StackSlotKind, Type, Value,
};
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext, Variable};
use cranelift_jit::JITModule;
use cranelift_module::{FuncId, Module};
use tgsi::OperandType;

use super::codegen::{self, vector};
use super::helpers::Kernels;
use super::indirect;
use super::liveness;
use super::lower;
use super::nan;
use super::segment;
use super::texture::{self, NearestTexture};
use super::wide;
use crate::kernel::{Kernel, MAX_ARGS};
use crate::program::{Arg, Control, Fill, Program, Step, TexOp, TEX_OPERANDS};
use crate::run::compiled::{Frame, STEP_QUAD};
use crate::run::ExecError;
use crate::sampler;

/// Lanes of the batch the function runs over (its slots' stride).
pub(crate) const LANES: usize = 64;
/// Bytes from a slot's lanes to the next slot's.
const SLOT_BYTES: i64 = 4 * LANES as i64;

/// The program's code: `frame` the batch's pointers, `active` its lanes;
/// returns 0, or a [`Status`] code.
pub(crate) type ProgramFn = unsafe extern "C" fn(frame: *mut Frame, active: u64) -> u32;

/// Why a function stopped early.
#[repr(u32)]
pub(crate) enum Status {
    /// The step budget ran out.
    StepBudget = 1,
    /// A step the interpreter ran failed (its error is in the batch).
    Step = 2,
}

/// Whether the whole program compiles into one function: not when its
/// steps touch memory (stores, atomics and barriers order lanes step by
/// step across the batch, which quad after quad would not keep), nor
/// when a step would call the interpreter (indirect OUT loads, arrays of
/// OUT registers: their fixed cost, paid once a quad instead of once a
/// batch, made such shaders slower than in segments). Texture steps call
/// the sampler directly, at a cost a quad no higher than the
/// interpreter's a lane.
pub(crate) fn fits(program: &Program) -> bool {
    let native = native_outputs(program);
    let calls = program.steps.iter().flatten().filter(|s| !compiled_natively(s, program, native)).count();
    !program.memory.accesses
        && !program.memory.writes
        && !program.memory.barrier
        && calls == 0
        && nesting(&program.control) <= MAX_NESTING
        && program.control.len() <= MAX_CONTROL
}

/// The deepest a whole-program function nests constructs, and the most
/// control nodes it takes: every variable may need a block parameter at
/// every join, which past these grows beyond what Cranelift takes (and
/// compiles slowly well before); deeper or longer programs compile in
/// segments.
const MAX_NESTING: usize = 32;
const MAX_CONTROL: usize = 4096;

/// How deep the constructs of `control` nest.
fn nesting(control: &[Control]) -> usize {
    let (mut depth, mut deepest) = (0usize, 0usize);
    for node in control {
        match node {
            Control::If { .. } | Control::Loop { .. } | Control::Switch { .. } => {
                depth += 1;
                deepest = deepest.max(depth);
            }
            Control::EndIf | Control::EndLoop { .. } | Control::EndSwitch => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    deepest
}

/// Whether the whole-program code computes `step` itself (or, for
/// textures and 64-bit operations, with a call cheap enough per quad): a
/// step the interpreter runs once a quad (an indirect OUT load) costs
/// more than in segments, where it runs once a batch.
fn compiled_natively(step: &Step, program: &Program, native_outputs: bool) -> bool {
    match step {
        Step::Alu { wide: false, .. } | Step::Move { .. } | Step::Copies(_) => segment::compiles(step, program.slots),
        Step::LoadIndirect { .. } | Step::ArrayLoad { .. } | Step::ArrayStore { .. } => {
            indirect::compiles(step, program)
        }
        Step::Alu { wide: true, .. } => wide::compiles(step, program),
        Step::Deriv { arg, .. } => !arg.wide,
        Step::StoreOutput { declared: Some(_), .. } => native_outputs,
        Step::Kill | Step::KillIf { .. } => true,
        Step::Texture { .. } => texture::compiles(step, program.slots),
        _ => false,
    }
}

/// Whether the code stores to OUT registers itself, in the frame's output
/// block: not when a step the interpreter runs reads the outputs (an
/// indirect OUT load, EMIT) or a store names an undeclared register, as
/// those see the batch's own output table.
pub(crate) fn native_outputs(program: &Program) -> bool {
    !program.steps.iter().flatten().any(|s| {
        matches!(
            s,
            Step::Emit { .. }
                | Step::LoadIndirect { file: tgsi::File::Output, .. }
                | Step::StoreOutput { declared: None, .. }
        )
    })
}

/// Which declared OUT registers (by position in `program.outputs`) a step
/// stores to. The code keeps and writes those only, so that its size
/// follows the stores, not the declarations; the others' entries stay as
/// the run zeroed them ([`writes_every_output`](crate::run)).
pub(crate) fn stored_outputs(program: &Program) -> Vec<bool> {
    let mut stored = vec![false; program.outputs.len()];
    for step in program.steps.iter().flatten() {
        if let Step::StoreOutput { declared: Some(r), .. } = step {
            if let Some(s) = stored.get_mut(*r as usize) {
                *s = true;
            }
        }
    }
    stored
}

/// Defines the function of `program` in `module`.
pub(super) fn define(module: &mut JITModule, program: &Program, kernels: &mut Kernels) -> Result<FuncId, ExecError> {
    let fail = |e: &dyn std::fmt::Debug| ExecError::Jit(format!("compiling the program: {e:?}"));
    let ptr = module.target_config().pointer_type();
    let mut signature = module.make_signature();
    signature.params.extend([AbiParam::new(ptr), AbiParam::new(I64)]);
    signature.returns.push(AbiParam::new(I32));
    let mut step_sig = module.make_signature();
    step_sig.params.extend([AbiParam::new(ptr), AbiParam::new(ptr), AbiParam::new(I64)]);
    step_sig.returns.push(AbiParam::new(I32));
    let alu_sig = codegen::alu_signature(module);
    let tex_sig = texture::signature(module);

    let id = module.declare_anonymous_function(&signature).map_err(|e| fail(&e))?;
    let mut ctx = module.make_context();
    ctx.func.signature = signature;
    let mut fctx = FunctionBuilderContext::new();
    let mut b = FunctionBuilder::new(&mut ctx.func, &mut fctx);
    build(&mut b, program, (ptr, step_sig, alu_sig, tex_sig), kernels);
    b.seal_all_blocks();
    b.finalize();
    module.define_function(id, &mut ctx).map_err(|e| fail(&e))?;
    Ok(id)
}

/// Where the code loads a fill from.
#[derive(Clone, Copy)]
enum FillAt {
    /// The splat of fill `i`, a value every lane shares.
    Uniform(u32),
    /// The column of fill `i`, a value of each lane.
    Column(u32),
}

/// What each slot is, for reading and writing it.
struct SlotKinds {
    /// A fill, loaded from the run's table.
    fill: Vec<Option<FillAt>>,
    /// Written under the mask wherever it is written: phi destinations
    /// (several predecessors write them), and the operands of steps that
    /// read other lanes of the quad (derivatives, textures' level of
    /// detail).
    always_masked: Vec<bool>,
}

impl SlotKinds {
    fn of(program: &Program) -> SlotKinds {
        let mut fill = vec![None; program.slots];
        // A slot filled twice holds its last fill, as in a batch.
        for (i, &(slot, f)) in program.fills.iter().enumerate() {
            if let Some(x) = fill.get_mut(slot as usize) {
                *x = Some(match f {
                    Fill::Bits(_) | Fill::Constant { .. } => FillAt::Uniform(i as u32),
                    Fill::Input { .. } | Fill::SystemValue { .. } => FillAt::Column(i as u32),
                });
            }
        }
        let mut always_masked = vec![false; program.slots];
        let mut mark = |slot: u32| {
            if let Some(x) = always_masked.get_mut(slot as usize) {
                *x = true;
            }
        };
        for step in program.steps.iter().flatten() {
            if let Step::Copies(pairs) = step {
                pairs.iter().for_each(|&(d, _)| mark(d));
            }
            step.cross_lane_operands().iter().flat_map(Arg::slots).for_each(&mut mark);
        }
        program.cleared.iter().for_each(|&s| mark(s));
        SlotKinds { fill, always_masked }
    }
}

/// The quad loop around the program.
fn build(
    b: &mut FunctionBuilder,
    program: &Program,
    (ptr, step_sig, alu_sig, tex_sig): (Type, Signature, Signature, Signature),
    kernels: &mut Kernels,
) {
    let entry = b.create_block();
    let header = b.create_block();
    let check = b.create_block();
    let body = b.create_block();
    let next = b.create_block();
    let done = b.create_block();
    let fail_budget = b.create_block();
    let fail_step = b.create_block();
    b.append_block_params_for_function_params(entry);
    b.append_block_param(header, I64);

    b.switch_to_block(entry);
    let (frame, active) = (b.block_params(entry)[0], b.block_params(entry)[1]);
    let flags = MemFlags::trusted();
    let slots = b.ins().load(ptr, flags, frame, std::mem::offset_of!(Frame, slots) as i32);
    let outputs = b.ins().load(ptr, flags, frame, std::mem::offset_of!(Frame, outputs) as i32);
    let budget = b.ins().load(I64, flags, frame, std::mem::offset_of!(Frame, budget) as i32);
    let first = b.ins().load(I64, flags, frame, std::mem::offset_of!(Frame, first) as i32);
    let first_bytes = b.ins().ishl_imm(first, 2);
    let zero = b.ins().iconst(I64, 0);
    b.ins().jump(header, &[zero.into()]);

    b.switch_to_block(header);
    let q = b.block_params(header)[0];
    let more = b.ins().icmp_imm(IntCC::UnsignedLessThan, q, (LANES / 4) as i64);
    b.ins().brif(more, check, &[], done, &[]);

    b.switch_to_block(check);
    let shift = b.ins().ishl_imm(q, 2);
    let bits = b.ins().ushr(active, shift);
    let bits = b.ins().band_imm(bits, 0xf);
    b.ins().brif(bits, body, &[], next, &[]);

    b.switch_to_block(body);
    // The fills' bases are loaded in the loop, so that the fills' loads
    // (which Cranelift may move) are not taken out of it (see `read`).
    let uniforms = b.ins().load(ptr, flags, frame, std::mem::offset_of!(Frame, uniforms) as i32);
    let columns = b.ins().load(ptr, flags, frame, std::mem::offset_of!(Frame, columns) as i32);
    let slot_offset = b.ins().imul_imm(q, 16);
    let quad_slots = b.ins().iadd(slots, slot_offset);
    // The quad's first lane in the run's columns, in bytes.
    let column_offset = b.ins().iadd(first_bytes, slot_offset);
    let regs = program.outputs.len() as i64;
    let out_offset = b.ins().imul_imm(q, 4 * 16 * regs);
    let quad_outputs = b.ins().iadd(outputs, out_offset);
    let bits32 = b.ins().ireduce(I32, bits);
    let mask = lane_mask(b, bits32);
    let scratch = codegen::alu_scratch(b);
    let step_sig = b.import_signature(step_sig);
    let alu_sig = b.import_signature(alu_sig);
    let tex_sig = b.import_signature(tex_sig);
    let tex_rows = texture_rows(b);

    let vars: Vec<Variable> = (0..program.slots).map(|_| b.declare_var(I32X4)).collect();
    let active_var = b.declare_var(I32X4);
    let count = b.declare_var(I64);
    // Every value starts at zero in each quad (as slots the interpreter
    // clears do): no value flows from one quad to the next.
    let zeros = vector(b, [0; 4]);
    let kinds = SlotKinds::of(program);
    for (slot, &v) in vars.iter().enumerate() {
        if kinds.fill[slot].is_none() {
            b.def_var(v, zeros);
        }
    }
    // Every channel of each OUT register a step stores to, zero until
    // stored (as in the table).
    let outputs_written = native_outputs(program);
    let output_vars: Vec<Option<[Variable; 4]>> = match outputs_written {
        true => stored_outputs(program)
            .into_iter()
            .map(|stored| stored.then(|| [(); 4].map(|_| b.declare_var(I32X4))))
            .collect(),
        false => Vec::new(),
    };
    for &v in output_vars.iter().flatten().flatten() {
        b.def_var(v, zeros);
    }
    b.def_var(active_var, mask);
    b.def_var(count, zero);
    let storage = indirect::Storage::new(b, program);
    storage.clear(b, program, ptr);

    let mut g = Gen {
        b,
        program,
        ptr,
        frame,
        quad: (quad_slots, quad_outputs, shift, bits32),
        fills: (uniforms, columns, column_offset),
        output_vars,
        budget,
        fails: (fail_budget, fail_step),
        vars,
        active: active_var,
        count,
        kinds,
        seen: nan::seen_slots(program),
        native_outputs: outputs_written,
        depth: 0,
        loops: 0,
        maybe_none: false,
        labels: vec![None; program.control.len() + 1],
        waiting: Vec::new(),
        breaks: Vec::new(),
        continues: Vec::new(),
        scratch,
        step_sig,
        alu_sig,
        texture: (tex_rows, tex_sig),
        kernels,
        storage,
        wide_calls: wide::Calls::default(),
    };
    g.control();
    g.write_outputs();
    let b = g.b;
    b.ins().jump(next, &[]);

    b.switch_to_block(next);
    let q1 = b.ins().iadd_imm(q, 1);
    b.ins().jump(header, &[q1.into()]);

    b.switch_to_block(done);
    let ok = b.ins().iconst(I32, 0);
    b.ins().return_(&[ok]);
    for (block, status) in [(fail_budget, Status::StepBudget), (fail_step, Status::Step)] {
        b.switch_to_block(block);
        let code = b.ins().iconst(I32, status as i64);
        b.ins().return_(&[code]);
    }
}

/// The stack slot texture steps pass their operands and get their
/// results in (`texture::ROWS` rows of 16 bytes).
fn texture_rows(b: &mut FunctionBuilder) -> StackSlot {
    let bytes = (texture::ROWS * 16) as u32;
    b.create_sized_stack_slot(StackSlotData::new(StackSlotKind::ExplicitSlot, bytes, 4))
}

/// The lanes of a quad's `bits` (lane `l` is bit `l`, i32) as an i32x4
/// mask.
fn lane_mask(b: &mut FunctionBuilder, bits: Value) -> Value {
    let bits = b.ins().splat(I32X4, bits);
    let lanes = vector(b, [1, 2, 4, 8]);
    let set = b.ins().band(bits, lanes);
    b.ins().icmp(IntCC::Equal, set, lanes)
}

/// The program's body under construction, for one quad.
pub(super) struct Gen<'a, 'b> {
    pub(super) b: &'a mut FunctionBuilder<'b>,
    pub(super) program: &'a Program,
    pub(super) ptr: Type,
    pub(super) frame: Value,
    /// The quad's lane 0 of slot 0, of its first lane's outputs, its
    /// first lane's index in the batch (i64), and its lanes as bits (i32).
    pub(super) quad: (Value, Value, Value, Value),
    /// The run's splats of shared fills, the starts of its columns of
    /// per-lane fills, and the quad's first lane in the columns (bytes).
    fills: (Value, Value, Value),
    /// Each declared OUT register's four channels, written to
    /// the output table when the quad ends (`None` for a register no
    /// step stores to).
    output_vars: Vec<Option<[Variable; 4]>>,
    budget: Value,
    /// Where the function returns the step budget's or a step's failure.
    fails: (Block, Block),
    vars: Vec<Variable>,
    /// The quad's active lanes (i32x4 mask).
    pub(super) active: Variable,
    /// Steps counted in this quad (i64).
    count: Variable,
    kinds: SlotKinds,
    /// By slot: whether a NaN there must be the canonical one
    /// ([`nan::seen_slots`]).
    seen: Vec<bool>,
    /// Whether OUT stores are compiled ([`native_outputs`]).
    native_outputs: bool,
    /// Constructs around the current node, and loops among them.
    depth: usize,
    loops: usize,
    /// Whether the top level's lanes may be fewer than the quad's (after
    /// a return).
    maybe_none: bool,
    /// The block starting at each control node, where some branch goes.
    labels: Vec<Option<Block>>,
    /// Masks of lanes waiting for an arm or a case.
    waiting: Vec<Value>,
    /// Lanes that left each loop or switch, and that continued each loop.
    breaks: Vec<Variable>,
    continues: Vec<Variable>,
    scratch: StackSlot,
    step_sig: SigRef,
    alu_sig: SigRef,
    /// The rows texture steps pass `texture::sample_quad`, and its
    /// signature.
    texture: (StackSlot, SigRef),
    kernels: &'a mut Kernels,
    /// The arrays' stack slots and what indirect loads read.
    pub(super) storage: indirect::Storage,
    /// What 64-bit operations' calls use.
    pub(super) wide_calls: wide::Calls,
}

impl Gen<'_, '_> {
    fn label(&mut self, pc: usize) -> Block {
        if let Some(block) = self.labels.get(pc).copied().flatten() {
            return block;
        }
        let block = self.b.create_block();
        if let Some(l) = self.labels.get_mut(pc) {
            *l = Some(block);
        }
        block
    }

    /// Goes on at the label of `pc` if a branch goes there.
    fn place(&mut self, pc: usize) {
        if let Some(block) = self.labels.get(pc).copied().flatten() {
            self.b.ins().jump(block, &[]);
            self.b.switch_to_block(block);
        }
    }

    /// Continues in a new block when some lane is active, at `skip`
    /// otherwise.
    fn skip_if_none(&mut self, skip: usize) {
        if self.depth == 0 && !self.maybe_none {
            return;
        }
        let target = self.label(skip);
        let active = self.b.use_var(self.active);
        let any = self.b.ins().vany_true(active);
        let go = self.b.create_block();
        self.b.ins().brif(any, go, &[], target, &[]);
        self.b.switch_to_block(go);
    }

    fn set_active(&mut self, v: Value) {
        self.b.def_var(self.active, v);
    }

    fn none(&mut self) -> Value {
        vector(self.b, [0; 4])
    }

    /// Adds `n` steps to the quad's count; stops at the budget.
    fn count(&mut self, n: u64) {
        let c = self.b.use_var(self.count);
        let c = self.b.ins().iadd_imm(c, n as i64);
        self.b.def_var(self.count, c);
        let over = self.b.ins().icmp(IntCC::UnsignedGreaterThan, c, self.budget);
        let go = self.b.create_block();
        self.b.ins().brif(over, self.fails.0, &[], go, &[]);
        self.b.switch_to_block(go);
    }

    fn control(&mut self) {
        let program = self.program;
        for (pc, node) in program.control.iter().enumerate() {
            self.place(pc);
            match node {
                Control::Block { block, skip } => {
                    self.skip_if_none(*skip);
                    self.block(program.block(*block), program.counted(*block));
                    self.exit(program.exit(*block));
                }
                Control::If { cond, unsigned, skip } => {
                    self.skip_if_none(*skip);
                    let c = self.read(*cond);
                    let zero = self.none();
                    let taken = if *unsigned {
                        self.b.ins().icmp(IntCC::NotEqual, c, zero)
                    } else {
                        // `!= 0.0`: true for NaN, false for -0.0.
                        lower::float_not_zero(self.b, c)
                    };
                    let active = self.b.use_var(self.active);
                    let waiting = self.b.ins().band_not(active, taken);
                    let taken = self.b.ins().band(active, taken);
                    self.waiting.push(waiting);
                    self.set_active(taken);
                    self.depth += 1;
                }
                Control::Else => {
                    let waiting = self.waiting.pop().unwrap_or_else(|| vector(self.b, [0; 4]));
                    let active = self.b.use_var(self.active);
                    self.waiting.push(active);
                    self.set_active(waiting);
                }
                Control::EndIf => {
                    let waiting = self.waiting.pop().unwrap_or_else(|| vector(self.b, [0; 4]));
                    let active = self.b.use_var(self.active);
                    let active = self.b.ins().bor(active, waiting);
                    self.set_active(active);
                    self.depth = self.depth.saturating_sub(1);
                }
                Control::Loop { skip } => {
                    self.skip_if_none(*skip);
                    let (brk, cont) = (self.b.declare_var(I32X4), self.b.declare_var(I32X4));
                    let zero = self.none();
                    self.b.def_var(brk, zero);
                    self.b.def_var(cont, zero);
                    self.breaks.push(brk);
                    self.continues.push(cont);
                    self.depth += 1;
                    self.loops += 1;
                    // The body's first node: where each turn starts.
                    self.label(pc + 1);
                }
                Control::EndLoop { body } => {
                    let active = self.b.use_var(self.active);
                    let cont = self.continues.last().copied();
                    let live = match cont {
                        Some(c) => {
                            let c = self.b.use_var(c);
                            self.b.ins().bor(active, c)
                        }
                        None => active,
                    };
                    self.count(1);
                    let again = self.b.create_block();
                    let out = self.b.create_block();
                    let any = self.b.ins().vany_true(live);
                    self.b.ins().brif(any, again, &[], out, &[]);
                    self.b.switch_to_block(again);
                    if let Some(c) = cont {
                        let zero = self.none();
                        self.b.def_var(c, zero);
                    }
                    self.set_active(live);
                    let start = self.label(*body);
                    self.b.ins().jump(start, &[]);
                    self.b.switch_to_block(out);
                    self.continues.pop();
                    let left = match self.breaks.pop() {
                        Some(v) => self.b.use_var(v),
                        None => self.none(),
                    };
                    self.set_active(left);
                    self.depth = self.depth.saturating_sub(1);
                    self.loops = self.loops.saturating_sub(1);
                }
                Control::Switch { selector, values, skip } => {
                    self.skip_if_none(*skip);
                    self.switch(*selector, values);
                    self.depth += 1;
                }
                Control::Case => {
                    let waiting = self.waiting.pop().unwrap_or_else(|| vector(self.b, [0; 4]));
                    let active = self.b.use_var(self.active);
                    let active = self.b.ins().bor(active, waiting);
                    self.set_active(active);
                }
                Control::EndSwitch => {
                    let waiting = self.waiting.pop().unwrap_or_else(|| vector(self.b, [0; 4]));
                    let left = match self.breaks.pop() {
                        Some(v) => self.b.use_var(v),
                        None => self.none(),
                    };
                    let active = self.b.use_var(self.active);
                    let active = self.b.ins().bor(active, waiting);
                    let active = self.b.ins().bor(active, left);
                    self.set_active(active);
                    self.depth = self.depth.saturating_sub(1);
                }
            }
        }
        self.place(program.control.len());
    }

    /// As the interpreter's `switch`: the lanes no case takes (without a
    /// `DEFAULT`) wait first, then each case's, last case first; none
    /// runs until the first case.
    fn switch(&mut self, selector: u32, values: &[Option<u32>]) {
        let active = self.b.use_var(self.active);
        let sel = self.read(selector);
        let mut matched = self.none();
        let mut entries = vec![None; values.len()];
        for (k, value) in values.iter().enumerate() {
            let Some(v) = *value else { continue };
            let v = self.read(v);
            let eq = self.b.ins().icmp(IntCC::Equal, sel, v);
            let open = self.b.ins().band_not(active, matched);
            let entry = self.b.ins().band(eq, open);
            matched = self.b.ins().bor(matched, entry);
            entries[k] = Some(entry);
        }
        let default = self.b.ins().band_not(active, matched);
        let has_default = values.iter().any(Option::is_none);
        let base = if has_default { self.none() } else { default };
        self.waiting.push(base);
        for entry in entries.iter().rev() {
            self.waiting.push(entry.unwrap_or(default));
        }
        let brk = self.b.declare_var(I32X4);
        let zero = self.none();
        self.b.def_var(brk, zero);
        self.breaks.push(brk);
        self.set_active(zero);
    }

    /// Leaves a block by its exit.
    fn exit(&mut self, exit: ir::Exit) {
        let into = match exit {
            ir::Exit::Fallthrough => return,
            ir::Exit::Break => self.breaks.last().copied(),
            ir::Exit::Continue => self.continues.last().copied(),
            ir::Exit::Return => {
                // From here on the lanes that returned are off, at the
                // top level too.
                self.maybe_none = true;
                None
            }
        };
        let active = self.b.use_var(self.active);
        if let Some(v) = into {
            let m = self.b.use_var(v);
            let m = self.b.ins().bor(m, active);
            self.b.def_var(v, m);
        }
        let zero = self.none();
        self.set_active(zero);
    }

    /// The steps of a block counting `counted` against the budget.
    fn block(&mut self, steps: &[Step], counted: u64) {
        // Every step counts against the budget, as in the interpreter.
        self.count(counted);
        for step in steps {
            self.step(step);
        }
    }

    fn slot_address(&mut self, slot: u32) -> (Value, i32) {
        (self.quad.0, (slot as i64 * SLOT_BYTES) as i32)
    }

    /// The quad of `slot`.
    pub(super) fn read(&mut self, slot: u32) -> Value {
        // Fills are loaded where they are used: kept in registers from the
        // start (or taken out of the quad loop), a long shader's would
        // spill. Movable, the loads go next to the arithmetic, which
        // Cranelift places where its results are needed (a load kept in
        // place would be held until then).
        let flags = MemFlags::new().with_notrap().with_readonly().with_can_move();
        let (uniforms, columns, column_offset) = self.fills;
        match self.kinds.fill.get(slot as usize).copied().flatten() {
            Some(FillAt::Uniform(i)) => return self.b.ins().load(I32X4, flags, uniforms, i as i32 * 16),
            Some(FillAt::Column(i)) => {
                let column = self.b.ins().load(self.ptr, flags, columns, i as i32 * self.ptr.bytes() as i32);
                let at = self.b.ins().iadd(column, column_offset);
                return self.b.ins().load(I32X4, flags, at, 0);
            }
            None => {}
        }
        match self.vars.get(slot as usize) {
            Some(&v) => self.b.use_var(v),
            None => vector(self.b, [0; 4]),
        }
    }

    /// `v` into `slot`: into the active lanes where other lanes may read
    /// the old value.
    pub(super) fn write(&mut self, slot: u32, v: Value) {
        let Some(&var) = self.vars.get(slot as usize) else { return };
        let masked =
            self.kinds.always_masked.get(slot as usize).copied().unwrap_or(true) || (self.loops > 0) || self.maybe_none;
        // Outside loops an SSA value is read only by the lanes that wrote
        // it (its definition dominates its reads): the other lanes' old
        // value is dead, and the whole quad can be written.
        let v = if masked {
            let old = self.b.use_var(var);
            let active = self.b.use_var(self.active);
            self.b.ins().bitselect(active, v, old)
        } else {
            v
        };
        self.b.def_var(var, v);
    }

    fn step(&mut self, step: &Step) {
        match step {
            Step::Alu { dst, width, broadcast, args, src_tys, sat, kernel, .. }
                if segment::compiles(step, self.program.slots) =>
            {
                let mut results = [None; 4];
                for (k, result) in results.iter_mut().enumerate().take(*width as usize) {
                    let mut operands: [Option<Value>; MAX_ARGS] = [None; MAX_ARGS];
                    for (i, ((a, ty), o)) in args.iter().zip(src_tys).zip(&mut operands).enumerate() {
                        let slot = if broadcast & (1 << i) != 0 { a.slot } else { a.slot + k as u32 };
                        let v = self.read(slot);
                        *o = Some(codegen::modifiers(self.b, v, a, *ty));
                    }
                    let operands: Vec<Value> = operands.iter().flatten().copied().collect();
                    let canonical = self.seen.get((dst + k as u32) as usize).copied().unwrap_or(true);
                    // A negated last operand of ADD or MAD: subtracted.
                    let subtracted = match (args.last(), src_tys.get(args.len().wrapping_sub(1))) {
                        (Some(last), Some(OperandType::Float))
                            if last.neg && !last.abs && matches!(kernel, Kernel::Add | Kernel::Mad) =>
                        {
                            let i = args.len() - 1;
                            let slot = if broadcast & (1 << i) != 0 { last.slot } else { last.slot + k as u32 };
                            let mut unnegated = operands.clone();
                            if let Some(o) = unnegated.last_mut() {
                                *o = self.read(slot);
                            }
                            lower::op_negated_last(self.b, *kernel, &unnegated, canonical)
                        }
                        _ => None,
                    };
                    let v = match subtracted.or_else(|| lower::op(self.b, *kernel, &operands, canonical)) {
                        Some(v) => v,
                        None => codegen::call_alu_helper(
                            self.b,
                            (self.ptr, self.scratch, self.alu_sig),
                            *kernel,
                            &operands,
                            self.kernels,
                        ),
                    };
                    *result = Some(match sat {
                        Some(OperandType::Float | OperandType::Untyped) => lower::saturate(self.b, v),
                        _ => v,
                    });
                }
                for (k, v) in results.iter().enumerate() {
                    if let Some(v) = *v {
                        self.write(dst + k as u32, v);
                    }
                }
            }
            Step::Move { dst, src } if (*src as usize) < self.program.slots => {
                let v = self.read(*src);
                self.write(*dst, v);
            }
            Step::Copies(pairs) if pairs.iter().all(|&(_, s)| (s as usize) < self.program.slots) => {
                let values: Vec<Value> = pairs.iter().map(|&(_, src)| self.read(src)).collect();
                for (&(dst, _), v) in pairs.iter().zip(values) {
                    self.write(dst, v);
                }
            }
            Step::Deriv { dst, arg, kind, sat } if !arg.wide && (arg.slot as usize) < self.program.slots => {
                let v = self.read(arg.slot);
                let v = codegen::modifiers(self.b, v, arg, OperandType::Float);
                let d = lower::derivative(self.b, v, *kind);
                let d = if *sat { lower::saturate(self.b, d) } else { d };
                self.write(*dst, d);
            }
            Step::StoreOutput { chan, value, declared: Some(r), .. }
                if self.native_outputs
                    && (*r as usize) < self.program.outputs.len()
                    && (*value as usize) < self.program.slots =>
            {
                let v = self.read(*value);
                self.store_output(*r, *chan, v);
            }
            Step::LoadIndirect { .. } | Step::ArrayLoad { .. } | Step::ArrayStore { .. }
                if indirect::compiles(step, self.program) =>
            {
                self.indirect(step)
            }
            Step::Alu { wide: true, .. } if wide::compiles(step, self.program) => self.wide(step),
            Step::Texture { .. } if texture::compiles(step, self.program.slots) => self.texture(step),
            Step::Kill => self.kill(&[]),
            Step::KillIf { args } if args.iter().all(|a| !a.wide && (a.slot as usize) < self.program.slots) => {
                self.kill(args)
            }
            _ => self.interpreted(step),
        }
    }

    /// `KILL` (no `args`) or `KILL_IF`: the active lanes (for `KILL_IF`,
    /// those where an operand is below zero, as a float) added to the
    /// frame's killed lanes, as the interpreter adds them to the batch's.
    fn kill(&mut self, args: &[Arg]) {
        let mut lanes = self.b.use_var(self.active);
        if !args.is_empty() {
            let zero = self.none();
            let zero = codegen::as_f32(self.b, zero);
            let mut below = None;
            for a in args {
                let v = self.read(a.slot);
                let v = codegen::modifiers(self.b, v, a, OperandType::Float);
                let v = codegen::as_f32(self.b, v);
                let negative = self.b.ins().fcmp(FloatCC::LessThan, v, zero);
                below = Some(match below {
                    Some(b) => self.b.ins().bor(b, negative),
                    None => negative,
                });
            }
            if let Some(below) = below {
                lanes = self.b.ins().band(lanes, below);
            }
        }
        let bits = self.b.ins().vhigh_bits(I64, lanes);
        let bits = self.b.ins().ishl(bits, self.quad.2);
        let offset = offset_of!(Frame, killed) as i32;
        let killed = self.b.ins().load(I64, MemFlags::trusted(), self.frame, offset);
        let killed = self.b.ins().bor(killed, bits);
        self.b.ins().store(MemFlags::trusted(), killed, self.frame, offset);
    }

    /// A texture step: the operands it reads, with their modifiers, sampled
    /// in the code when the unit's texture is of the common case, by one
    /// call for the quad (`texture::sample_quad`) otherwise; the texel's
    /// channels written as the interpreter writes them (by the swizzle,
    /// saturated when asked, into the active lanes).
    fn texture(&mut self, step: &Step) {
        let Step::Texture { op, unit, coords, swizzle, dsts, sat } = step else { return };
        if dsts.is_empty() {
            // Sampling is pure: with nothing written, nothing to do.
            return;
        }
        let (rows, sig) = self.texture;
        let mut operands = [None; TEX_OPERANDS];
        for (o, a) in operands.iter_mut().zip(coords.iter().take(sampler::operands_read(*op))) {
            let v = self.read(a.slot);
            // The interpreter reads every texture operand as a float.
            *o = Some(codegen::modifiers(self.b, v, a, OperandType::Float));
        }
        // The four lanes' texels (lane-major) come to `join` as its
        // parameters, from whichever way sampled them.
        let join = self.b.create_block();
        for _ in 0..4 {
            self.b.append_block_param(join, I32X4);
        }
        if let (TexOp::Sample(_) | TexOp::Project(_), [Some(s), Some(t), _, q, ..]) = (op, operands) {
            // The unit's texture of the common case: sampled here.
            let table = self.b.ins().load(self.ptr, MemFlags::trusted(), self.frame, offset_of!(Frame, nearest) as i32);
            let at = self.b.ins().iadd_imm(table, (*unit as usize * size_of::<NearestTexture>()) as i64);
            let texels =
                self.b.ins().load(self.ptr, MemFlags::trusted(), at, offset_of!(NearestTexture, texels) as i32);
            let (here, call) = (self.b.create_block(), self.b.create_block());
            self.b.ins().brif(texels, here, &[], call, &[]);
            self.b.switch_to_block(here);
            let q = if matches!(op, TexOp::Project(_)) { q } else { None };
            let found = self.nearest_texels((s, t, q), (at, texels));
            self.b.ins().jump(join, &found.map(BlockArg::from));
            self.b.switch_to_block(call);
        }
        for (k, v) in operands.iter().enumerate() {
            if let Some(v) = v {
                self.b.ins().stack_store(*v, rows, (k * 16) as i32);
            }
        }
        let at = self.b.ins().stack_addr(self.ptr, rows, 0);
        let step_at = self.b.ins().iconst(self.ptr, step as *const Step as usize as i64);
        let callee = self.b.ins().iconst(self.ptr, texture::SAMPLE_QUAD as usize as i64);
        self.b.ins().call_indirect(sig, callee, &[self.frame, step_at, at]);
        let texels: [BlockArg; 4] =
            std::array::from_fn(|l| self.b.ins().stack_load(I32X4, rows, ((texture::OUT_ROW + l) * 16) as i32).into());
        self.b.ins().jump(join, &texels);
        self.b.switch_to_block(join);
        // The texels are lane-major: transposed, channel `c` of the four
        // lanes is one vector (shuffles no destination reads are dropped).
        let texels: [Value; 4] = std::array::from_fn(|l| self.b.block_params(join)[l]);
        let channels = transpose(self.b, texels);
        for &(chan, dst) in dsts {
            let v = channels[swizzle[chan as usize & 3] as usize & 3];
            let v = if *sat { lower::saturate(self.b, v) } else { v };
            self.write(dst, v);
        }
    }

    /// Channel `chan` of declared output `r` of the quad's active lanes,
    /// into its variable.
    fn store_output(&mut self, r: u32, chan: u8, v: Value) {
        let Some(&Some(vars)) = self.output_vars.get(r as usize) else { return };
        let var = vars[chan as usize & 3];
        let v = if self.depth == 0 && !self.maybe_none {
            // Every lane of the quad the batch runs is active here.
            v
        } else {
            let old = self.b.use_var(var);
            let active = self.b.use_var(self.active);
            self.b.ins().bitselect(active, v, old)
        };
        self.b.def_var(var, v);
    }

    /// Every stored OUT register of the quad's four lanes into the frame's
    /// output block (`Frame::outputs`, lane-major): its channels' quads
    /// transposed into the lanes' `[x, y, z, w]`, each one store. Lanes
    /// the batch does not run are written too, into the block's room for
    /// them.
    fn write_outputs(&mut self) {
        let regs = self.program.outputs.len() as i32;
        let flags = MemFlags::new().with_notrap();
        let base = self.quad.1;
        for (r, vars) in self.output_vars.iter().enumerate() {
            let Some(vars) = vars else { continue };
            let r = r as i32;
            let channels: Vec<Value> = vars.iter().map(|&v| self.b.use_var(v)).collect();
            for (lane, v) in
                transpose(self.b, [channels[0], channels[1], channels[2], channels[3]]).into_iter().enumerate()
            {
                self.b.ins().store(flags, v, base, (lane as i32 * regs + r) * 16);
            }
        }
    }

    /// `step` by the interpreter's step function for the quad's active
    /// lanes: what it reads stored to the batch's slots first, what it
    /// writes loaded back after.
    fn interpreted(&mut self, step: &Step) {
        let mut reads = Vec::new();
        let known = liveness::reads(step, &mut reads).is_some();
        debug_assert!(known, "`fits` admits no step of unknown reads");
        reads.sort_unstable();
        reads.dedup();
        // Fills too: the batch's slots hold none.
        for slot in reads {
            if (slot as usize) < self.program.slots {
                let v = self.read(slot);
                let (base, offset) = self.slot_address(slot);
                self.b.ins().store(MemFlags::new().with_notrap(), v, base, offset);
            }
        }
        let active = self.b.use_var(self.active);
        let bits = self.b.ins().vhigh_bits(I64, active);
        let lanes = self.b.ins().ishl(bits, self.quad.2);
        let at = self.b.ins().iconst(self.ptr, step as *const Step as usize as i64);
        let callee = self.b.ins().iconst(self.ptr, STEP_QUAD as usize as i64);
        let call = self.b.ins().call_indirect(self.step_sig, callee, &[self.frame, at, lanes]);
        let status = self.b.inst_results(call)[0];
        let go = self.b.create_block();
        self.b.ins().brif(status, self.fails.1, &[], go, &[]);
        self.b.switch_to_block(go);
        for slot in liveness::writes_any(step) {
            if (slot as usize) < self.program.slots && self.kinds.fill[slot as usize].is_none() {
                let (base, offset) = self.slot_address(slot);
                let v = self.b.ins().load(I32X4, MemFlags::new().with_notrap(), base, offset);
                self.write(slot, v);
            }
        }
    }

    /// The texels of the quad at `(s, t)` (divided by `q` when given) of
    /// a texture of the common case, described at `at` (its texels at
    /// `texels`), lane by lane, as `sampler::sample_quad` picks them (see
    /// `sampler::nearest_repeat_texels`).
    fn nearest_texels(&mut self, (s, t, q): (Value, Value, Option<Value>), (at, texels): (Value, Value)) -> [Value; 4] {
        let flags = MemFlags::trusted();
        let field = |b: &mut FunctionBuilder, ty: Type, offset: usize| {
            let v = b.ins().load(ty, flags.with_readonly(), at, offset as i32);
            b.ins().splat(if ty == F32 { F32X4 } else { I32X4 }, v)
        };
        let size = offset_of!(NearestTexture, size);
        let mask = offset_of!(NearestTexture, mask);
        let index = |b: &mut FunctionBuilder, c: Value, axis: usize| {
            let mut c = codegen::as_f32(b, c);
            if let Some(q) = q {
                let q = codegen::as_f32(b, q);
                c = b.ins().fdiv(c, q);
            }
            let scale = field(b, F32, size + 4 * axis);
            let scaled = b.ins().fmul(c, scale);
            let scaled = codegen::as_bits(b, scaled);
            let i = lower::floor_to_int(b, scaled);
            let m = field(b, I32, mask + 4 * axis);
            b.ins().band(i, m)
        };
        let (x, y) = (index(self.b, s, 0), index(self.b, t, 1));
        let width = field(self.b, I32, offset_of!(NearestTexture, width));
        let row = self.b.ins().imul(y, width);
        let i = self.b.ins().iadd(row, x);
        std::array::from_fn(|l| {
            let lane = self.b.ins().extractlane(i, l as u8);
            let lane = self.b.ins().uextend(I64, lane);
            let offset = self.b.ins().ishl_imm(lane, 4);
            let address = self.b.ins().iadd(texels, offset);
            self.b.ins().load(I32X4, flags.with_readonly(), address, 0)
        })
    }
}

/// The 4x4 transpose of `rows` (i32x4 each): lane `l` of the result's
/// row `k` is lane `k` of `rows[l]`. Interleaves of 32- then 64-bit lanes
/// (`punpck*dq`, `punpck*qdq` on x86-64).
fn transpose(b: &mut FunctionBuilder, rows: [Value; 4]) -> [Value; 4] {
    let shuffle = |b: &mut FunctionBuilder, x: Value, y: Value, words: [u8; 4]| {
        // Words 0-3 from `x`, 4-7 from `y`.
        let bytes: Vec<u8> = words.iter().flat_map(|&w| (0..4).map(move |k| w * 4 + k)).collect();
        let mask = b.func.dfg.immediates.push(bytes.as_slice().into());
        let flags = MemFlags::new().with_endianness(Endianness::Little);
        let (x8, y8) = (b.ins().bitcast(I8X16, flags, x), b.ins().bitcast(I8X16, flags, y));
        let v = b.ins().shuffle(x8, y8, mask);
        b.ins().bitcast(I32X4, flags, v)
    };
    let [x, y, z, w] = rows;
    let xy_low = shuffle(b, x, y, [0, 4, 1, 5]);
    let xy_high = shuffle(b, x, y, [2, 6, 3, 7]);
    let zw_low = shuffle(b, z, w, [0, 4, 1, 5]);
    let zw_high = shuffle(b, z, w, [2, 6, 3, 7]);
    [
        shuffle(b, xy_low, zw_low, [0, 1, 4, 5]),
        shuffle(b, xy_low, zw_low, [2, 3, 6, 7]),
        shuffle(b, xy_high, zw_high, [0, 1, 4, 5]),
        shuffle(b, xy_high, zw_high, [2, 3, 6, 7]),
    ]
}
