//! 64-bit operations (doubles, 64-bit integers) in the whole-program
//! function (`whole`): each step's operands, low and high halves, stored
//! to a stack slot of the quad, then one call computes the quad's four
//! lanes as the interpreter's `alu_wide` does (halves joined, modifiers,
//! [`semantics`] through the kernel's family, saturation), and the
//! result's halves are loaded back. No batch, no masks: the call is a
//! few dozen nanoseconds a quad, where the interpreter's step function
//! for one quad cost several times that.

use cranelift_codegen::ir::types::I32X4;
use cranelift_codegen::ir::{AbiParam, InstBuilder, SigRef, Signature, StackSlot, StackSlotData, StackSlotKind};

use super::whole::Gen;
use crate::kernel::{Kernel, MAX_ARGS};
use crate::program::{Program, Step};

/// Bytes of one quad of 32-bit halves.
const QUAD_BYTES: i32 = 16;
/// Where the result's halves start in the scratch slot: after every
/// operand's two.
const OUT: i32 = 2 * MAX_ARGS as i32 * QUAD_BYTES;

/// Whether the whole-program function computes `step` (a 64-bit
/// operation) through [`wide_quad`].
pub(super) fn compiles(step: &Step, program: &Program) -> bool {
    let within = |slot: u32, wide: bool| (slot as usize).saturating_add(1 + wide as usize) <= program.slots;
    match step {
        Step::Alu { dst, args, src_tys, kernel: Kernel::Eval { .. }, wide: true, wide_dst, .. } => {
            args.len() <= MAX_ARGS
                && src_tys.len() >= args.len()
                && within(*dst, *wide_dst)
                && args.iter().all(|a| within(a.slot, a.wide))
        }
        _ => false,
    }
}

/// The scratch slot and the helper's signature, made at the first call.
#[derive(Default)]
pub(super) struct Calls {
    at: Option<(StackSlot, SigRef)>,
}

impl Gen<'_, '_> {
    /// `step`, one [`compiles`] accepts.
    pub(super) fn wide(&mut self, step: &Step) {
        let Step::Alu { dst, args, wide_dst, .. } = step else { return };
        let (scratch, sig) = match self.wide_calls.at {
            Some(at) => at,
            None => {
                let bytes = (OUT + 2 * QUAD_BYTES) as u32;
                let slot = self.b.create_sized_stack_slot(StackSlotData::new(StackSlotKind::ExplicitSlot, bytes, 4));
                let mut sig = Signature::new(self.b.func.signature.call_conv);
                sig.params.extend([AbiParam::new(self.ptr); 3]);
                let at = (slot, self.b.import_signature(sig));
                self.wide_calls.at = Some(at);
                at
            }
        };
        for (i, a) in args.iter().enumerate() {
            let lo = self.read(a.slot);
            self.b.ins().stack_store(lo, scratch, 2 * i as i32 * QUAD_BYTES);
            if a.wide {
                let hi = self.read(a.slot + 1);
                self.b.ins().stack_store(hi, scratch, (2 * i as i32 + 1) * QUAD_BYTES);
            }
        }
        let at = self.b.ins().iconst(self.ptr, step as *const Step as usize as i64);
        let args_at = self.b.ins().stack_addr(self.ptr, scratch, 0);
        let out_at = self.b.ins().stack_addr(self.ptr, scratch, OUT);
        let callee = self.b.ins().iconst(self.ptr, WIDE_QUAD as usize as i64);
        self.b.ins().call_indirect(sig, callee, &[at, args_at, out_at]);
        let lo = self.b.ins().stack_load(I32X4, scratch, OUT);
        self.write(*dst, lo);
        if *wide_dst {
            let hi = self.b.ins().stack_load(I32X4, scratch, OUT + QUAD_BYTES);
            self.write(*dst + 1, hi);
        }
    }
}

/// [`wide_quad`], as compiled code calls it.
const WIDE_QUAD: unsafe extern "C" fn(*const Step, *const [u32; 4], *mut [u32; 4]) = wide_quad;

/// The 64-bit operation `step` on one quad: operand `i`'s low halves in
/// `args[2i]`, its high ones (for a 64-bit operand) in `args[2i + 1]`;
/// the result's halves into `out[0]` and `out[1]`.
///
/// # Safety
/// `step` points to a live step [`compiles`] accepts, `args` to
/// `2 * MAX_ARGS` readable quads and `out` to 2 writable ones.
unsafe extern "C" fn wide_quad(step: *const Step, args: *const [u32; 4], out: *mut [u32; 4]) {
    // SAFETY: as the caller promises.
    let (step, args, out) =
        unsafe { (&*step, std::slice::from_raw_parts(args, 2 * MAX_ARGS), std::slice::from_raw_parts_mut(out, 2)) };
    let Step::Alu { args: operands, src_tys, sat, kernel, .. } = step else { return };
    let n = operands.len().min(MAX_ARGS);
    for l in 0..4 {
        let mut values = [0u64; MAX_ARGS];
        for (i, (a, v)) in operands[..n].iter().zip(&mut values).enumerate() {
            let lo = args[2 * i][l] as u64;
            *v = if a.wide { lo | (args[2 * i + 1][l] as u64) << 32 } else { lo };
        }
        let r = kernel.eval_wide(operands[..n].iter().map(|a| (a.neg, a.abs)), src_tys, *sat, &mut values[..n]);
        out[0][l] = r as u32;
        out[1][l] = (r >> 32) as u32;
    }
}
