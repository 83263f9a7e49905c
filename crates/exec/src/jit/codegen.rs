//! One segment as one Cranelift function, `SegmentFn`:
//!
//! ```text
//! for q in 0..w/4:                      one quad, one 128-bit vector a slot
//!     bits = active >> 4q & 0xf;  skip the quad when 0
//!     every step, in order: operands loaded from the slots (or taken from
//!     the registers of steps before in the segment), modifiers, the
//!     operation, saturation, then each destination stored: whole when
//!     bits == 0xf, else only the active lanes (bitselect with the old
//!     value: lanes left out keep what their path left there)
//! ```
//!
//! The body is built twice, for whole and for partial quads, so that a
//! whole quad pays for no mask.

use std::collections::HashMap;

use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::types::{F32X4, I32, I32X4, I64};
use cranelift_codegen::ir::{
    AbiParam, InstBuilder, MemFlags, SigRef, Signature, StackSlot, StackSlotData, StackSlotKind, Type, Value,
};
use cranelift_codegen::Context;
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext};
use cranelift_jit::JITModule;
use cranelift_module::{FuncId, Module};
use tgsi::OperandType;

use super::helpers::{self, Kernels, QUAD};
use super::lower;
use crate::error::ExecError;
use crate::kernel::{Kernel, MAX_ARGS};
use crate::program::{Arg, Step};

/// Bytes of one quad of one slot.
pub(super) const QUAD_BYTES: i64 = 4 * QUAD as i64;

/// Builds segments' functions into a module, reusing its contexts.
pub(super) struct Builder {
    ctx: Context,
    fctx: FunctionBuilderContext,
    signature: Signature,
    helper: Signature,
    ptr: Type,
}

impl Builder {
    pub fn new(module: &JITModule) -> Builder {
        let ptr = module.target_config().pointer_type();
        let mut signature = module.make_signature();
        signature.params.extend([AbiParam::new(ptr), AbiParam::new(ptr), AbiParam::new(I64)]);
        let helper = alu_signature(module);
        Builder { ctx: module.make_context(), fctx: FunctionBuilderContext::new(), signature, helper, ptr }
    }

    /// Defines the function of the segment `steps` in `module`; the
    /// kernels its helper calls read are kept in `kernels`.
    pub fn define(
        &mut self,
        module: &mut JITModule,
        steps: &[Step],
        stored: &dyn Fn(u32) -> bool,
        kernels: &mut Kernels,
    ) -> Result<FuncId, ExecError> {
        let fail = |e: &dyn std::fmt::Debug| ExecError::Jit(format!("compiling a segment: {e:?}"));
        let id = module.declare_anonymous_function(&self.signature).map_err(|e| fail(&e))?;
        module.clear_context(&mut self.ctx);
        self.ctx.func.signature = self.signature.clone();
        let mut b = FunctionBuilder::new(&mut self.ctx.func, &mut self.fctx);
        build(&mut b, (self.ptr, self.helper.clone()), (steps, stored), kernels);
        b.seal_all_blocks();
        b.finalize();
        module.define_function(id, &mut self.ctx).map_err(|e| fail(&e))?;
        Ok(id)
    }
}

/// The quad loop around the two bodies.
fn build(
    b: &mut FunctionBuilder,
    (ptr, helper): (Type, Signature),
    (steps, stored): (&[Step], &dyn Fn(u32) -> bool),
    kernels: &mut Kernels,
) {
    let entry = b.create_block();
    let header = b.create_block();
    let check = b.create_block();
    let whole = b.create_block();
    let partial = b.create_block();
    let next = b.create_block();
    let exit = b.create_block();
    b.append_block_params_for_function_params(entry);
    b.append_block_param(header, ptr);

    b.switch_to_block(entry);
    let (slots, w, active) = (b.block_params(entry)[0], b.block_params(entry)[1], b.block_params(entry)[2]);
    let quads = b.ins().ushr_imm(w, 2);
    let stride = b.ins().ishl_imm(w, 2);
    let zero = b.ins().iconst(ptr, 0);
    b.ins().jump(header, &[zero.into()]);

    b.switch_to_block(header);
    let q = b.block_params(header)[0];
    let more = b.ins().icmp(IntCC::UnsignedLessThan, q, quads);
    b.ins().brif(more, check, &[], exit, &[]);

    b.switch_to_block(check);
    let shift = b.ins().ishl_imm(q, 2);
    let shift = if ptr == I64 { shift } else { b.ins().uextend(I64, shift) };
    let bits = b.ins().ushr(active, shift);
    let bits = b.ins().band_imm(bits, 0xf);
    let all = b.ins().icmp_imm(IntCC::Equal, bits, 0xf);
    let none = b.ins().icmp_imm(IntCC::Equal, bits, 0);
    let offset = b.ins().imul_imm(q, QUAD_BYTES);
    let base = b.ins().iadd(slots, offset);
    let some = b.create_block();
    b.ins().brif(none, next, &[], some, &[]);
    b.switch_to_block(some);
    b.ins().brif(all, whole, &[], partial, &[]);

    let scratch = alu_scratch(b);
    let helper = b.import_signature(helper);

    for (body, partial_quad) in [(whole, false), (partial, true)] {
        b.switch_to_block(body);
        let mask = partial_quad.then(|| lane_mask(b, bits));
        let mut quad = Quad { b, ptr, base, stride, mask, values: HashMap::new(), scratch, helper, stored };
        for step in steps {
            quad.step(step, kernels);
        }
        b.ins().jump(next, &[]);
    }

    b.switch_to_block(next);
    let q1 = b.ins().iadd_imm(q, 1);
    b.ins().jump(header, &[q1.into()]);

    b.switch_to_block(exit);
    b.ins().return_(&[]);
}

/// The lanes of a quad's `bits` (lane `l` is bit `l`) as an i32x4 mask.
fn lane_mask(b: &mut FunctionBuilder, bits: Value) -> Value {
    let bits = b.ins().ireduce(I32, bits);
    let bits = b.ins().splat(I32X4, bits);
    let lanes = vector(b, [1, 2, 4, 8]);
    let set = b.ins().band(bits, lanes);
    b.ins().icmp(IntCC::Equal, set, lanes)
}

/// The constant vector `lanes`, as i32x4.
pub(super) fn vector(b: &mut FunctionBuilder, lanes: [u32; 4]) -> Value {
    let bytes: Vec<u8> = lanes.iter().flat_map(|l| l.to_le_bytes()).collect();
    let constant = b.func.dfg.constants.insert(bytes.into());
    b.ins().vconst(I32X4, constant)
}

/// One quad's body under construction.
struct Quad<'a, 'b> {
    b: &'a mut FunctionBuilder<'b>,
    ptr: Type,
    /// The quad's first lane of slot 0.
    base: Value,
    /// Bytes from a slot to the next.
    stride: Value,
    /// The quad's active lanes; `None` when all are.
    mask: Option<Value>,
    /// What each slot holds now (i32x4), once read or written.
    values: HashMap<u32, Value>,
    scratch: StackSlot,
    helper: SigRef,
    /// Whether a slot written must be stored (else it lives in a
    /// register only: nothing after the segment reads it).
    stored: &'a dyn Fn(u32) -> bool,
}

impl Quad<'_, '_> {
    fn address(&mut self, slot: u32) -> Value {
        let offset = self.b.ins().imul_imm(self.stride, slot as i64);
        self.b.ins().iadd(self.base, offset)
    }

    fn flags() -> MemFlags {
        // A batch's slots: never a trap, not known 16-byte aligned.
        MemFlags::new().with_notrap()
    }

    /// The quad of `slot`.
    fn read(&mut self, slot: u32) -> Value {
        if let Some(&v) = self.values.get(&slot) {
            return v;
        }
        let at = self.address(slot);
        let v = self.b.ins().load(I32X4, Self::flags(), at, 0);
        self.values.insert(slot, v);
        v
    }

    /// `v` into the active lanes of `slot`.
    fn write(&mut self, slot: u32, v: Value) {
        if !(self.stored)(slot) {
            // Only this segment's later steps read it, in the active lanes.
            self.values.insert(slot, v);
            return;
        }
        let v = match self.mask {
            Some(mask) => {
                let old = self.read(slot);
                self.b.ins().bitselect(mask, v, old)
            }
            None => v,
        };
        let at = self.address(slot);
        self.b.ins().store(Self::flags(), v, at, 0);
        self.values.insert(slot, v);
    }

    fn step(&mut self, step: &Step, kernels: &mut Kernels) {
        match step {
            Step::Alu { dst, width, broadcast, args, src_tys, sat, kernel, opcode, .. } => {
                let canonical = canonical_results(*opcode);
                let mut results = [None; 4];
                for (k, result) in results.iter_mut().enumerate().take(*width as usize) {
                    let mut operands: [Option<Value>; MAX_ARGS] = [None; MAX_ARGS];
                    for (i, ((a, ty), o)) in args.iter().zip(src_tys).zip(&mut operands).enumerate() {
                        let slot = if broadcast & (1 << i) != 0 { a.slot } else { a.slot + k as u32 };
                        *o = Some(self.operand(slot, a, *ty));
                    }
                    let operands: Vec<Value> = operands.iter().flatten().copied().collect();
                    let v = match lower::op(self.b, *kernel, &operands, canonical) {
                        Some(v) => v,
                        None => self.call_helper(*kernel, &operands, kernels),
                    };
                    *result = Some(match sat {
                        Some(OperandType::Float | OperandType::Untyped) => lower::saturate(self.b, v),
                        _ => v,
                    });
                }
                // All computed, then all written (an operation never reads
                // its own results, so the order is only for clarity).
                for (k, v) in results.iter().enumerate() {
                    if let Some(v) = *v {
                        self.write(dst + k as u32, v);
                    }
                }
            }
            Step::Move { dst, src } => {
                let v = self.read(*src);
                self.write(*dst, v);
            }
            Step::Copies(pairs) => {
                // Every source read before any destination is written.
                let values: Vec<Value> = pairs.iter().map(|&(_, src)| self.read(src)).collect();
                for (&(dst, _), v) in pairs.iter().zip(values) {
                    self.write(dst, v);
                }
            }
            // `segment::compiles` admits no other step.
            _ => {}
        }
    }

    /// Operand `a` read from `slot` as `ty`, with its modifiers.
    fn operand(&mut self, slot: u32, a: &Arg, ty: OperandType) -> Value {
        let v = self.read(slot);
        modifiers(self.b, v, a, ty)
    }

    /// `kernel` over the quad by the interpreter's batch loop.
    fn call_helper(&mut self, kernel: Kernel, operands: &[Value], kernels: &mut Kernels) -> Value {
        call_alu_helper(self.b, (self.ptr, self.scratch, self.helper), kernel, operands, kernels)
    }
}

/// `v`, operand `a` read as `ty`, with its modifiers.
pub(super) fn modifiers(b: &mut FunctionBuilder, v: Value, a: &Arg, ty: OperandType) -> Value {
    if !(a.neg || a.abs) {
        return v;
    }
    match ty {
        OperandType::Int | OperandType::Uint => {
            let mut v = v;
            if a.abs && ty == OperandType::Int {
                v = lower::iabs(b, v);
            }
            if a.neg {
                v = b.ins().ineg(v);
            }
            v
        }
        // Float and untyped (`segment::compiles` admits no other):
        // sign-bit masks, as the interpreter applies them.
        _ => {
            let mut v = v;
            if a.abs {
                let m = vector(b, [0x7fff_ffff; 4]);
                v = b.ins().band(v, m);
            }
            if a.neg {
                let m = vector(b, [0x8000_0000; 4]);
                v = b.ins().bxor(v, m);
            }
            v
        }
    }
}

/// A stack slot for [`call_alu_helper`]: room for every operand and the
/// result.
pub(super) fn alu_scratch(b: &mut FunctionBuilder) -> StackSlot {
    b.create_sized_stack_slot(StackSlotData::new(
        StackSlotKind::ExplicitSlot,
        (QUAD_BYTES as u32) * (MAX_ARGS as u32 + 1),
        4,
    ))
}

/// The signature of [`helpers::alu_quad`].
pub(super) fn alu_signature(module: &JITModule) -> Signature {
    let mut helper = module.make_signature();
    helper.params.extend([AbiParam::new(module.target_config().pointer_type()); 4]);
    helper
}

/// `kernel` over one quad of `operands` by the interpreter's batch loop
/// ([`helpers::alu_quad`]), through the stack slot `scratch`.
pub(super) fn call_alu_helper(
    b: &mut FunctionBuilder,
    (ptr, scratch, helper): (Type, StackSlot, SigRef),
    kernel: Kernel,
    operands: &[Value],
    kernels: &mut Kernels,
) -> Value {
    let at = kernels.keep(kernel) as i64;
    for (i, &v) in operands.iter().enumerate() {
        b.ins().stack_store(v, scratch, (i as i64 * QUAD_BYTES) as i32);
    }
    let out_offset = (MAX_ARGS as i64 * QUAD_BYTES) as i32;
    let kernel = b.ins().iconst(ptr, at);
    let args = b.ins().stack_addr(ptr, scratch, 0);
    let n = b.ins().iconst(ptr, operands.len() as i64);
    let out = b.ins().stack_addr(ptr, scratch, out_offset);
    let callee = b.ins().iconst(ptr, helpers::alu_quad as *const () as usize as i64);
    b.ins().call_indirect(helper, callee, &[kernel, args, n, out]);
    b.ins().stack_load(I32X4, scratch, out_offset)
}

/// `v` (i32x4 bits) as f32x4.
pub(super) fn as_f32(b: &mut FunctionBuilder, v: Value) -> Value {
    b.ins().bitcast(F32X4, MemFlags::new(), v)
}

/// `v` (f32x4) as i32x4 bits.
pub(super) fn as_bits(b: &mut FunctionBuilder, v: Value) -> Value {
    b.ins().bitcast(I32X4, MemFlags::new(), v)
}

/// Whether `opcode`'s NaN results are the canonical NaN, which vector
/// code must then make them (hardware keeps an operand's payload).
pub(super) fn canonical_results(opcode: tgsi::Opcode) -> bool {
    semantics::facts(opcode).is_some_and(|f| f.nan == semantics::NanResult::Canonical)
}
