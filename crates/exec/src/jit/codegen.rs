//! Code generation the whole-program function shares with its parts:
//! constant vectors, source modifiers, the call of an operation's helper,
//! and which results need their NaNs made canonical.

use cranelift_codegen::ir::types::{F32X4, I32X4};
use cranelift_codegen::ir::{
    AbiParam, InstBuilder, MemFlags, SigRef, Signature, StackSlot, StackSlotData, StackSlotKind, Type, Value,
};
use cranelift_frontend::FunctionBuilder;
use cranelift_jit::JITModule;
use cranelift_module::Module;
use tgsi::OperandType;

use super::helpers::{self, Kernels, QUAD};
use super::lower;
use crate::kernel::{Kernel, MAX_ARGS};
use crate::program::Arg;

/// Bytes of one quad of one slot.
pub(super) const QUAD_BYTES: i64 = 4 * QUAD as i64;

/// The constant vector `lanes`, as i32x4.
pub(super) fn vector(b: &mut FunctionBuilder, lanes: [u32; 4]) -> Value {
    let bytes: Vec<u8> = lanes.iter().flat_map(|l| l.to_le_bytes()).collect();
    let constant = b.func.dfg.constants.insert(bytes.into());
    b.ins().vconst(I32X4, constant)
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
        // Float and untyped (`whole::alu_compiles` admits no other):
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
