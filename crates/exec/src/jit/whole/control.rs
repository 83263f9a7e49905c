//! The control flow of the whole-program function: labels, lane masks,
//! IF, loops, SWITCH and exits, and reading and writing values.

use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::types::I32X4;
use cranelift_codegen::ir::{Block, InstBuilder, MemFlags, Value};

use super::{FillAt, Gen, SLOT_BYTES};
use crate::jit::codegen::vector;
use crate::jit::lower;
use crate::program::{Control, Step};

impl Gen<'_, '_> {
    pub(in crate::jit) fn label(&mut self, pc: usize) -> Block {
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
    pub(in crate::jit) fn place(&mut self, pc: usize) {
        if let Some(block) = self.labels.get(pc).copied().flatten() {
            self.b.ins().jump(block, &[]);
            self.b.switch_to_block(block);
        }
    }

    /// Continues in a new block when some lane is active, at `skip`
    /// otherwise.
    pub(in crate::jit) fn skip_if_none(&mut self, skip: usize) {
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

    pub(in crate::jit) fn set_active(&mut self, v: Value) {
        self.b.def_var(self.active, v);
    }

    pub(in crate::jit) fn none(&mut self) -> Value {
        vector(self.b, [0; 4])
    }

    /// Adds `n` steps to the quad's count; stops at the budget.
    pub(in crate::jit) fn count(&mut self, n: u64) {
        let c = self.b.use_var(self.count);
        let c = self.b.ins().iadd_imm(c, n as i64);
        self.b.def_var(self.count, c);
        let over = self.b.ins().icmp(IntCC::UnsignedGreaterThan, c, self.budget);
        let go = self.b.create_block();
        self.b.ins().brif(over, self.fails.0, &[], go, &[]);
        self.b.switch_to_block(go);
    }

    pub(in crate::jit) fn control(&mut self) {
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
                    self.begin_if(*cond, *unsigned);
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
                Control::EndLoop { body } => self.end_loop(*body),
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
                Control::EndSwitch => self.end_switch(),
            }
        }
        self.place(program.control.len());
    }

    /// `IF` (`UIF` when `unsigned`): the lanes whose condition holds run
    /// the arm, the others wait for `ELSE`.
    fn begin_if(&mut self, cond: u32, unsigned: bool) {
        let c = self.read(cond);
        let zero = self.none();
        let taken = if unsigned {
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

    /// `ENDLOOP`: another turn from `body` while a lane is active or
    /// continued; then the lanes that broke out go on.
    fn end_loop(&mut self, body: usize) {
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
        let start = self.label(body);
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

    /// `ENDSWITCH`: the lanes that waited, broke out or ran the last
    /// case go on.
    fn end_switch(&mut self) {
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

    /// As the interpreter's `switch`: the lanes no case takes (without a
    /// `DEFAULT`) wait first, then each case's, last case first; none
    /// runs until the first case.
    pub(in crate::jit) fn switch(&mut self, selector: u32, values: &[Option<u32>]) {
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
    pub(in crate::jit) fn exit(&mut self, exit: ir::Exit) {
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
    pub(in crate::jit) fn block(&mut self, steps: &[Step], counted: u64) {
        // Every step counts against the budget, as in the interpreter.
        self.count(counted);
        for step in steps {
            self.step(step);
        }
    }

    pub(in crate::jit) fn slot_address(&mut self, slot: u32) -> (Value, i32) {
        (self.quad.0, (slot as i64 * SLOT_BYTES) as i32)
    }

    /// The quad of `slot`.
    pub(in crate::jit) fn read(&mut self, slot: u32) -> Value {
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
    pub(in crate::jit) fn write(&mut self, slot: u32, v: Value) {
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
}
