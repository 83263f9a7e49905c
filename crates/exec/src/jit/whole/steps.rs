//! The steps of the whole-program function: ALU operations, kills,
//! texture steps, output stores and steps the interpreter runs.

use std::mem::{offset_of, size_of};

use cranelift_codegen::ir::condcodes::FloatCC;
use cranelift_codegen::ir::types::{F32, F32X4, I32, I32X4, I64, I8X16};
use cranelift_codegen::ir::{BlockArg, Endianness, InstBuilder, MemFlags, Type, Value};
use cranelift_frontend::FunctionBuilder;
use tgsi::OperandType;

use super::Gen;
use crate::abi::{Frame, NearestTexture};
use crate::jit::codegen::{self};
use crate::jit::indirect;
use crate::jit::liveness;
use crate::jit::lower;
use crate::jit::texture;
use crate::jit::wide;
use crate::kernel::{Kernel, MAX_ARGS};
use crate::program::{Arg, Step, TexOp, TEX_OPERANDS};
use crate::sampler;

impl Gen<'_, '_> {
    pub(in crate::jit) fn step(&mut self, step: &Step) {
        match step {
            Step::Alu { dst, width, broadcast, args, src_tys, sat, kernel, opcode, .. }
                if super::alu_compiles(step, self.program.slots) =>
            {
                let canonical_results = codegen::canonical_results(*opcode);
                let mut results = [None; 4];
                for (k, result) in results.iter_mut().enumerate().take(*width as usize) {
                    let mut operands: [Option<Value>; MAX_ARGS] = [None; MAX_ARGS];
                    for (i, ((a, ty), o)) in args.iter().zip(src_tys).zip(&mut operands).enumerate() {
                        let slot = if broadcast & (1 << i) != 0 { a.slot } else { a.slot + k as u32 };
                        let v = self.read(slot);
                        *o = Some(codegen::modifiers(self.b, v, a, *ty));
                    }
                    let operands: Vec<Value> = operands.iter().flatten().copied().collect();
                    let seen = self.seen.get((dst + k as u32) as usize).copied().unwrap_or(true);
                    let canonical = seen && canonical_results;
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
    pub(in crate::jit) fn kill(&mut self, args: &[Arg]) {
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
    pub(in crate::jit) fn texture(&mut self, step: &Step) {
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
    pub(in crate::jit) fn store_output(&mut self, r: u32, chan: u8, v: Value) {
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
    pub(in crate::jit) fn write_outputs(&mut self) {
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
    pub(in crate::jit) fn interpreted(&mut self, step: &Step) {
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
        let callee = self.b.ins().iconst(self.ptr, self.callbacks.step_quad as usize as i64);
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
    pub(in crate::jit) fn nearest_texels(
        &mut self,
        (s, t, q): (Value, Value, Option<Value>),
        (at, texels): (Value, Value),
    ) -> [Value; 4] {
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
