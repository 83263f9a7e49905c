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

use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::types::{I32, I32X4, I64};
use cranelift_codegen::ir::{
    AbiParam, Block, InstBuilder, MemFlags, SigRef, Signature, StackSlot, StackSlotData, StackSlotKind, Type, Value,
};
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext, Variable};
use cranelift_jit::JITModule;
use cranelift_module::{FuncId, Module};

use super::codegen::{self, vector};
use super::helpers::Kernels;
use super::indirect;
use super::nan;
use super::texture;
use super::wide;
use crate::abi::{Callbacks, Frame, Status, LANES};
use crate::error::ExecError;
use crate::kernel::MAX_ARGS;
use crate::program::{Arg, Control, Fill, Program, Step, MAX_WIDTH};
use tgsi::OperandType;

mod control;
mod steps;

/// Bytes from a slot's lanes to the next slot's.
const SLOT_BYTES: i64 = 4 * LANES as i64;

/// Whether the whole program compiles into one function: not when its
/// steps touch memory (stores, atomics and barriers order lanes step by
/// step across the batch, which quad after quad would not keep), nor
/// when a step would call the interpreter (indirect OUT loads, arrays of
/// OUT registers: their fixed cost, paid once a quad instead of once a
/// batch, made such shaders slower than the interpreter). Texture steps call
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
/// compiles slowly well before); deeper or longer programs are
/// interpreted.
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
/// more than the interpreter's run of it once a batch.
fn compiled_natively(step: &Step, program: &Program, native_outputs: bool) -> bool {
    match step {
        Step::Alu { wide: false, .. } | Step::Move { .. } | Step::Copies(_) => alu_compiles(step, program.slots),
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

/// Whether the code computes `step` itself: 32-bit ALU steps whose modifiers are sign
/// bits or 32-bit integer arithmetic, moves and phi copies, every slot
/// within the batch's `slots` (the code does not check bounds).
pub(super) fn alu_compiles(step: &Step, slots: usize) -> bool {
    let within = |slot: u32, n: u32| (slot as usize).saturating_add(n as usize) <= slots;
    match step {
        Step::Alu { dst, width, broadcast, args, src_tys, sat, wide: false, wide_dst: false, .. } => {
            let modifiable = |ty: &OperandType| {
                matches!(ty, OperandType::Float | OperandType::Untyped | OperandType::Int | OperandType::Uint)
            };
            (1..=MAX_WIDTH).contains(width)
                && within(*dst, *width)
                && args.len() <= MAX_ARGS
                && src_tys.len() >= args.len()
                && sat.is_none_or(|ty| modifiable(&ty))
                && args.iter().zip(src_tys).enumerate().all(|(i, (a, ty))| {
                    let n = if broadcast & (1 << i) != 0 { 1 } else { *width };
                    !a.wide && within(a.slot, n) && (!(a.neg || a.abs) || modifiable(ty))
                })
        }
        Step::Move { dst, src } => within(*dst, 1) && within(*src, 1),
        Step::Copies(pairs) => pairs.iter().all(|&(d, s)| within(d, 1) && within(s, 1)),
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
pub(super) fn define(
    module: &mut JITModule,
    program: &Program,
    kernels: &mut Kernels,
    callbacks: Callbacks,
) -> Result<FuncId, ExecError> {
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
    build(&mut b, program, (ptr, step_sig, alu_sig, tex_sig), kernels, callbacks);
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
    callbacks: Callbacks,
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
    let (slots, outputs, budget, first_bytes) = load_frame(b, ptr, frame);
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

    let kinds = SlotKinds::of(program);
    let QuadVariables { vars, active: active_var, count, outputs: output_vars, native_outputs: outputs_written } =
        QuadVariables::declare(b, program, &kinds, mask);
    let storage = indirect::Storage::new(b, program);
    storage.clear(b, program, ptr);

    let mut g = Gen {
        b,
        program,
        callbacks,
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
    end_quad_loop(b, q, (header, next, done), (fail_budget, fail_step));
}

/// The batch's slots, its output block, the step budget and its first
/// lane's byte offset in the run's columns, loaded from the frame.
fn load_frame(b: &mut FunctionBuilder, ptr: Type, frame: Value) -> (Value, Value, Value, Value) {
    let flags = MemFlags::trusted();
    let slots = b.ins().load(ptr, flags, frame, std::mem::offset_of!(Frame, slots) as i32);
    let outputs = b.ins().load(ptr, flags, frame, std::mem::offset_of!(Frame, outputs) as i32);
    let budget = b.ins().load(I64, flags, frame, std::mem::offset_of!(Frame, budget) as i32);
    let first = b.ins().load(I64, flags, frame, std::mem::offset_of!(Frame, first) as i32);
    let first_bytes = b.ins().ishl_imm(first, 2);
    (slots, outputs, budget, first_bytes)
}

/// The quad loop's step to the next quad (`q` the current one), its
/// normal return and its early returns with a [`Status`].
fn end_quad_loop(
    b: &mut FunctionBuilder,
    q: Value,
    (header, next, done): (Block, Block, Block),
    (fail_budget, fail_step): (Block, Block),
) {
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

/// The function's variables, started anew in each quad.
struct QuadVariables {
    /// By slot.
    vars: Vec<Variable>,
    /// The active lanes' mask.
    active: Variable,
    /// Steps counted against the budget.
    count: Variable,
    /// By OUT register (where the code stores outputs itself): its four
    /// channels, for the registers a step stores to.
    outputs: Vec<Option<[Variable; 4]>>,
    /// Whether the code stores outputs itself ([`native_outputs`]).
    native_outputs: bool,
}

impl QuadVariables {
    fn declare(b: &mut FunctionBuilder, program: &Program, kinds: &SlotKinds, mask: Value) -> QuadVariables {
        let vars: Vec<Variable> = (0..program.slots).map(|_| b.declare_var(I32X4)).collect();
        let active = b.declare_var(I32X4);
        let count = b.declare_var(I64);
        // Every value starts at zero in each quad (as slots the interpreter
        // clears do): no value flows from one quad to the next.
        let zeros = vector(b, [0; 4]);
        for (slot, &v) in vars.iter().enumerate() {
            if kinds.fill[slot].is_none() {
                b.def_var(v, zeros);
            }
        }
        // Every channel of each OUT register a step stores to, zero until
        // stored (as in the table).
        let native_outputs = native_outputs(program);
        let outputs: Vec<Option<[Variable; 4]>> = match native_outputs {
            true => stored_outputs(program)
                .into_iter()
                .map(|stored| stored.then(|| [(); 4].map(|_| b.declare_var(I32X4))))
                .collect(),
            false => Vec::new(),
        };
        for &v in outputs.iter().flatten().flatten() {
            b.def_var(v, zeros);
        }
        b.def_var(active, mask);
        let zero = b.ins().iconst(I64, 0);
        b.def_var(count, zero);
        QuadVariables { vars, active, count, outputs, native_outputs }
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
    /// The interpreter's functions the code calls.
    pub(super) callbacks: Callbacks,
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
