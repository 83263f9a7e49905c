//! Indirect loads and arrays in the whole-program function (`whole`), as
//! native code with the interpreter's rules (`run::registers`):
//!
//! - an indirect load's index is `base + index` with i32 wrapping, lane by
//!   lane; a negative one reads 0. CONST reads the run's table of the
//!   buffer (`run::compiled::ConstTable`), IMM the program's immediates;
//!   lanes past a table that leaves out registers the state sets, and
//!   the other files (IN, system values, a CONST buffer picked per lane)
//!   ask `Callbacks::indirect_channel`, the interpreter's own lookup,
//!   one lane at a time.
//! - each array is one stack slot of the quad: register `r`'s channel `c`
//!   a 16-byte quad at `(4r + c) * 16`, zeroed when the quad starts (as a
//!   batch's arrays start), living across the quad's loops and branches.
//!   An index `offset + index` (i64, no wrapping) outside the array reads
//!   0 and writes nothing: a lane's store goes to one more register past
//!   the array, never read, when it is out of range or inactive.

use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::types::{I32, I32X4, I64};
use cranelift_codegen::ir::{
    AbiParam, InstBuilder, MemFlags, SigRef, Signature, StackSlot, StackSlotData, StackSlotKind, Type, Value,
};
use cranelift_frontend::FunctionBuilder;
use tgsi::File;

use super::codegen::vector;
use super::whole::Gen;
use crate::abi::{ConstTable, Frame};
use crate::program::{Program, Step};

/// The most registers an array kept in the function's stack frame has;
/// programs with longer arrays are interpreted.
const MAX_ARRAY: u32 = 1024;
/// Bytes of one array register: four channels of four lanes.
const REGISTER_BYTES: i64 = 64;

/// Whether the whole-program function computes `step` itself.
pub(super) fn compiles(step: &Step, program: &Program) -> bool {
    match step {
        Step::LoadIndirect { file, .. } => {
            matches!(file, File::Constant | File::Immediate | File::Input | File::SystemValue)
        }
        Step::ArrayLoad { array, .. } | Step::ArrayStore { array, .. } => kept(program, *array),
        _ => false,
    }
}

/// Whether `array` can live in the function's stack frame: not too long,
/// and not OUT registers (which the run copies into the outputs from the
/// batch's arrays).
fn kept(program: &Program, array: u32) -> bool {
    program.arrays.get(array as usize).is_some_and(|&len| len <= MAX_ARRAY)
        && !program.geometry.output_arrays.iter().any(|&(a, _, _)| a == array)
}

/// The function's storage for indirect steps: a stack slot for each array
/// some step loads from (stores to the others are dropped: nothing reads
/// them), and the helper's signature once imported.
pub(super) struct Storage {
    arrays: Vec<Option<StackSlot>>,
    helper: Option<SigRef>,
}

impl Storage {
    pub(super) fn new(b: &mut FunctionBuilder, program: &Program) -> Storage {
        let mut loaded = vec![false; program.arrays.len()];
        for step in program.steps.iter().flatten() {
            if let Step::ArrayLoad { array, .. } = step {
                if let Some(l) = loaded.get_mut(*array as usize) {
                    *l = kept(program, *array);
                }
            }
        }
        let arrays = (program.arrays.iter().zip(loaded))
            .map(|(&len, loaded)| {
                // One register more, where stores that write nothing go.
                let bytes = (len as i64 + 1) * REGISTER_BYTES;
                loaded.then(|| {
                    b.create_sized_stack_slot(StackSlotData::new(StackSlotKind::ExplicitSlot, bytes as u32, 4))
                })
            })
            .collect();
        Storage { arrays, helper: None }
    }

    /// Zeroes every array of the quad; at its start.
    pub(super) fn clear(&self, b: &mut FunctionBuilder, program: &Program, ptr: Type) {
        let zero = vector(b, [0; 4]);
        for (&len, slot) in program.arrays.iter().zip(&self.arrays) {
            let Some(slot) = *slot else { continue };
            let quads = len as i32 * 4;
            if quads <= 32 {
                for k in 0..quads {
                    b.ins().stack_store(zero, slot, k * 16);
                }
                continue;
            }
            // Longer arrays in a loop of four quads a turn.
            let base = b.ins().stack_addr(ptr, slot, 0);
            let (head, body, done) = (b.create_block(), b.create_block(), b.create_block());
            b.append_block_param(head, ptr);
            b.ins().jump(head, &[base.into()]);
            b.switch_to_block(head);
            let at = b.block_params(head)[0];
            let end = b.ins().iadd_imm(base, len as i64 * REGISTER_BYTES);
            let more = b.ins().icmp(IntCC::UnsignedLessThan, at, end);
            b.ins().brif(more, body, &[], done, &[]);
            b.switch_to_block(body);
            for k in 0..4 {
                b.ins().store(MemFlags::trusted(), zero, at, k * 16);
            }
            let next = b.ins().iadd_imm(at, REGISTER_BYTES);
            b.ins().jump(head, &[next.into()]);
            b.switch_to_block(done);
        }
    }
}

impl Gen<'_, '_> {
    /// `step`, one [`compiles`] accepts.
    pub(super) fn indirect(&mut self, step: &Step) {
        match *step {
            Step::LoadIndirect { dst, file, base, index, dim, chan } => {
                let v = self.load_indirect(step, file, (base, index), dim, chan);
                self.write(dst, v);
            }
            Step::ArrayLoad { dst, array, offset, index, chan } => {
                let v = self.array_load(array, offset, index, chan);
                self.write(dst, v);
            }
            Step::ArrayStore { array, offset, index, value, chan } => {
                self.array_store(array, offset, index, value, chan)
            }
            _ => {}
        }
    }

    /// The per-lane `base + index` (i32 wrapping) of an indirect load.
    fn register_index(&mut self, base: i32, index: Option<u32>) -> Value {
        let base = vector(self.b, [base as u32; 4]);
        match index {
            Some(s) => {
                let v = self.read(s);
                self.b.ins().iadd(v, base)
            }
            None => base,
        }
    }

    fn load_indirect(
        &mut self,
        step: &Step,
        file: File,
        (base, index): (i32, Option<u32>),
        dim: Option<(i32, Option<u32>)>,
        chan: u8,
    ) -> Value {
        let i = self.register_index(base, index);
        let c = (chan & 3) as i64;
        match (file, dim) {
            (File::Constant, None | Some((_, None))) => {
                let buf = dim.map_or(0, |(d, _)| d);
                let Some(k) =
                    u32::try_from(buf).ok().and_then(|b| self.program.indirect_const_buffers.binary_search(&b).ok())
                else {
                    // A negative buffer: nothing to read.
                    return vector(self.b, [0; 4]);
                };
                self.constant(step, i, (k, buf), c)
            }
            (File::Immediate, None) => {
                let table = &self.program.immediates;
                let (at, len) = (table.as_ptr() as usize as i64, table.len());
                if len == 0 {
                    return vector(self.b, [0; 4]);
                }
                let at = self.b.ins().iconst(self.ptr, at);
                let len = vector(self.b, [len as u32; 4]);
                // Negative indices are past the table as unsigned ones.
                let inside = self.b.ins().icmp(IntCC::UnsignedLessThan, i, len);
                let safe = self.b.ins().band(i, inside);
                let v = self.gather(at, safe, c);
                self.b.ins().band(v, inside)
            }
            _ => {
                let d = dim.map(|(b, s)| self.register_index(b, s));
                self.ask(step, i, d)
            }
        }
    }

    /// An indirect CONST load from the run's `k`-th table (buffer `buf`):
    /// from the table (0 outside it) unless an active lane's index is one
    /// the table cannot answer, else lane by lane from the helper.
    fn constant(&mut self, step: &Step, i: Value, (k, buf): (usize, i32), c: i64) -> Value {
        let flags = MemFlags::trusted().with_readonly();
        let tables = self.b.ins().load(self.ptr, flags, self.frame, std::mem::offset_of!(Frame, constants) as i32);
        let entry = k as i32 * std::mem::size_of::<ConstTable>() as i32;
        let field = |offset: usize| entry + offset as i32;
        let values = self.b.ins().load(self.ptr, flags, tables, field(std::mem::offset_of!(ConstTable, values)));
        // Both at most `i32::MAX`: an i32 lane holds them.
        let len = self.b.ins().load(I32, flags, tables, field(std::mem::offset_of!(ConstTable, len)));
        let asks_from = self.b.ins().load(I32, flags, tables, field(std::mem::offset_of!(ConstTable, asks_from)));
        let len = self.b.ins().splat(I32X4, len);
        let asks_from = self.b.ins().splat(I32X4, asks_from);
        let answered = self.b.ins().icmp(IntCC::SignedLessThan, i, asks_from);
        let active = self.b.use_var(self.active);
        let fine = self.b.ins().bor_not(answered, active);
        let all = self.b.ins().vall_true(fine);
        let (table, asked, join) = (self.b.create_block(), self.b.create_block(), self.b.create_block());
        self.b.append_block_param(join, I32X4);
        self.b.ins().brif(all, table, &[], asked, &[]);

        self.b.switch_to_block(table);
        // Negative indices are past the table as unsigned ones; lanes
        // outside it read register 0, then 0.
        let inside = self.b.ins().icmp(IntCC::UnsignedLessThan, i, len);
        let safe = self.b.ins().band(i, inside);
        let v = self.gather(values, safe, c);
        let v = self.b.ins().band(v, inside);
        self.b.ins().jump(join, &[v.into()]);

        self.b.switch_to_block(asked);
        let d = vector(self.b, [buf as u32; 4]);
        let v = self.ask(step, i, Some(d));
        self.b.ins().jump(join, &[v.into()]);

        self.b.switch_to_block(join);
        self.b.block_params(join)[0]
    }

    /// Channel `c` of the registers (16 bytes each) at `at` indexed by
    /// the lanes of `index` (each within the table).
    fn gather(&mut self, at: Value, index: Value, c: i64) -> Value {
        let flags = MemFlags::trusted().with_readonly();
        let mut v = vector(self.b, [0; 4]);
        for lane in 0..4u8 {
            let x = self.b.ins().extractlane(index, lane);
            let x = self.b.ins().uextend(I64, x);
            let offset = self.b.ins().imul_imm(x, 16);
            let address = self.b.ins().iadd(at, offset);
            let bits = self.b.ins().load(I32, flags, address, (c * 4) as i32);
            v = self.b.ins().insertlane(v, bits, lane);
        }
        v
    }

    /// What the interpreter's lookup gives each lane of the quad for the
    /// load `step` at indices `i` (and 2-D indices `d`).
    fn ask(&mut self, step: &Step, i: Value, d: Option<Value>) -> Value {
        let sig = match self.storage.helper {
            Some(sig) => sig,
            None => {
                let mut sig = Signature::new(self.b.func.signature.call_conv);
                sig.params.extend([AbiParam::new(self.ptr), AbiParam::new(self.ptr), AbiParam::new(I64)]);
                sig.params.extend([AbiParam::new(I32), AbiParam::new(I32)]);
                sig.returns.push(AbiParam::new(I32));
                let sig = self.b.import_signature(sig);
                self.storage.helper = Some(sig);
                sig
            }
        };
        let at = self.b.ins().iconst(self.ptr, step as *const Step as usize as i64);
        let callee = self.b.ins().iconst(self.ptr, self.callbacks.indirect_channel as usize as i64);
        let mut v = vector(self.b, [0; 4]);
        for lane in 0..4u8 {
            let l = self.b.ins().iadd_imm(self.quad.2, lane as i64);
            let x = self.b.ins().extractlane(i, lane);
            let y = match d {
                Some(d) => self.b.ins().extractlane(d, lane),
                None => self.b.ins().iconst(I32, 0),
            };
            let call = self.b.ins().call_indirect(sig, callee, &[self.frame, at, l, x, y]);
            let bits = self.b.inst_results(call)[0];
            v = self.b.ins().insertlane(v, bits, lane);
        }
        v
    }

    /// Each lane's `offset + index` into `array` of `len` registers (i64),
    /// and whether it is inside (i8).
    fn array_index(&mut self, index: Value, lane: u8, offset: i32, len: u32) -> (Value, Value) {
        let x = self.b.ins().extractlane(index, lane);
        let x = self.b.ins().sextend(I64, x);
        let i = self.b.ins().iadd_imm(x, offset as i64);
        let inside = self.b.ins().icmp_imm(IntCC::UnsignedLessThan, i, len as i64);
        (i, inside)
    }

    fn array_load(&mut self, array: u32, offset: i32, index: Option<u32>, chan: u8) -> Value {
        let len = self.program.arrays.get(array as usize).copied().unwrap_or(0);
        let Some(slot) = self.storage.arrays.get(array as usize).copied().flatten() else {
            return vector(self.b, [0; 4]);
        };
        let c = (chan & 3) as i64;
        let Some(index) = index else {
            if offset < 0 || offset as u32 >= len {
                return vector(self.b, [0; 4]);
            }
            return self.b.ins().stack_load(I32X4, slot, ((offset as i64 * 4 + c) * 16) as i32);
        };
        let index = self.read(index);
        let base = self.b.ins().stack_addr(self.ptr, slot, 0);
        let zero = self.b.ins().iconst(I64, 0);
        let zero32 = self.b.ins().iconst(I32, 0);
        let mut v = vector(self.b, [0; 4]);
        for lane in 0..4u8 {
            let (i, inside) = self.array_index(index, lane, offset, len);
            let i = self.b.ins().select(inside, i, zero);
            let at = self.b.ins().imul_imm(i, REGISTER_BYTES);
            let at = self.b.ins().iadd(base, at);
            let bits = self.b.ins().load(I32, MemFlags::trusted(), at, (c * 16 + lane as i64 * 4) as i32);
            let bits = self.b.ins().select(inside, bits, zero32);
            v = self.b.ins().insertlane(v, bits, lane);
        }
        v
    }

    fn array_store(&mut self, array: u32, offset: i32, index: Option<u32>, value: u32, chan: u8) {
        let len = self.program.arrays.get(array as usize).copied().unwrap_or(0);
        let Some(slot) = self.storage.arrays.get(array as usize).copied().flatten() else { return };
        let c = (chan & 3) as i64;
        let v = self.read(value);
        let active = self.b.use_var(self.active);
        let Some(index) = index else {
            if offset < 0 || offset as u32 >= len {
                return;
            }
            let at = ((offset as i64 * 4 + c) * 16) as i32;
            let old = self.b.ins().stack_load(I32X4, slot, at);
            let new = self.b.ins().bitselect(active, v, old);
            self.b.ins().stack_store(new, slot, at);
            return;
        };
        let index = self.read(index);
        let base = self.b.ins().stack_addr(self.ptr, slot, 0);
        let past = self.b.ins().iconst(I64, len as i64);
        for lane in 0..4u8 {
            let (i, inside) = self.array_index(index, lane, offset, len);
            let on = self.b.ins().extractlane(active, lane);
            let on = self.b.ins().icmp_imm(IntCC::NotEqual, on, 0);
            let writes = self.b.ins().band(inside, on);
            let i = self.b.ins().select(writes, i, past);
            let at = self.b.ins().imul_imm(i, REGISTER_BYTES);
            let at = self.b.ins().iadd(base, at);
            let bits = self.b.ins().extractlane(v, lane);
            self.b.ins().store(MemFlags::trusted(), bits, at, (c * 16 + lane as i64 * 4) as i32);
        }
    }
}
