//! Statements: control flow, fragment-only instructions, the sections
//! aimed at particular passes, ALU instructions and the final output writes.

use std::fmt::Write as _;

use super::ops::{Imm, Kind, Shape, DOUBLE_OPS, FLOAT_OPS, INT64_OPS, INT_OPS};
use super::{Breakable, Generator, Line, Sources, Stage, ADDR_MAX, MAX_DEPTH, MAX_LOOP_BOUND, MAX_LOOP_DEPTH};

impl Generator {
    /// Writes `count` statements at the current depth.
    pub(super) fn block(&mut self, count: usize) {
        for _ in 0..count {
            if self.statement() {
                // A BRK or CONT ends the block: what follows could not run.
                return;
            }
        }
    }

    /// Writes one statement; true when it was an unconditional BRK/CONT.
    fn statement(&mut self) -> bool {
        let room = self.depth < MAX_DEPTH;
        let roll = self.rng.below(100);
        match roll {
            0..=5 if room => self.if_statement(),
            6..=8 if room && self.loop_depth < MAX_LOOP_DEPTH => self.loop_statement(),
            9..=10 if room && !self.float_only => self.switch_statement(),
            11..=13 if !self.breakable.is_empty() && room => self.conditional_exit(),
            14 if !self.breakable.is_empty() && self.rng.below(3) == 0 => {
                let exit = self.exit_opcode();
                self.push(exit.to_string());
                return true;
            }
            15..=17 if self.l.stage == Stage::Fragment => self.kill(),
            18..=19 if self.l.stage == Stage::Fragment && self.depth == 0 && !self.killed => self.derivative(),
            20..=22 => self.set_address(),
            23..=25 => self.constant_section(),
            26..=27 => self.dead_section(),
            28..=31 => self.broadcast_op(),
            32..=34 if self.subroutines > 0 => self.call(0),
            _ => self.alu(Sources::Any),
        }
        false
    }

    pub(super) fn push(&mut self, text: String) -> usize {
        self.lines.push(Line { depth: self.depth, text });
        self.lines.len() - 1
    }

    /// Appends the label ` :target` to the branch at `line`.
    fn set_label(&mut self, line: usize, target: usize) {
        if let Some(l) = self.lines.get_mut(line) {
            let _ = write!(l.text, " :{target}");
        }
    }

    // ---- control flow ----

    /// `CAL` to subroutine `sub` (labelled in [`Generator::write_subroutines`]).
    fn call(&mut self, sub: u32) {
        let line = self.push("CAL".to_string());
        self.calls.push((line, sub));
    }

    /// The subroutines, after `END`: each a few ALU instructions around one
    /// or two calls of the next, then every `CAL` labelled with the
    /// instruction index of its `BGNSUB`.
    pub(super) fn write_subroutines(&mut self) {
        let mut starts = Vec::new();
        for sub in 0..self.subroutines {
            starts.push(self.push("BGNSUB".to_string()));
            self.depth += 1;
            let before = self.rng.below(4);
            for _ in 0..before {
                self.alu(Sources::Any);
            }
            if sub + 1 < self.subroutines {
                for _ in 0..1 + self.rng.below(2) {
                    self.call(sub + 1);
                    self.alu(Sources::Any);
                }
            }
            self.depth -= 1;
            self.push("ENDSUB".to_string());
        }
        for (line, sub) in std::mem::take(&mut self.calls) {
            self.set_label(line, starts[sub as usize]);
        }
    }

    /// `IF`/`UIF` on a channel, then one or two arms.
    fn if_statement(&mut self) {
        let cond = self.condition();
        let if_line = self.push(cond);
        self.depth += 1;
        let n = 1 + self.rng.below(5) as usize;
        self.block(n);
        self.depth -= 1;
        if self.rng.below(2) == 0 {
            let else_line = self.push("ELSE".to_string());
            self.set_label(if_line, else_line);
            self.depth += 1;
            let n = 1 + self.rng.below(5) as usize;
            self.block(n);
            self.depth -= 1;
            let endif = self.push("ENDIF".to_string());
            self.set_label(else_line, endif);
        } else {
            let endif = self.push("ENDIF".to_string());
            self.set_label(if_line, endif);
        }
    }

    /// An `IF`/`UIF` head: on a computed comparison, any register channel,
    /// or an immediate (a branch constant folding can decide).
    fn condition(&mut self) -> String {
        let uif = !self.float_only && self.rng.below(2) == 0;
        let opcode = if uif { "UIF" } else { "IF" };
        let chan = self.channel();
        match self.rng.below(10) {
            0..=3 => {
                // A comparison result in a general temporary.
                let ops: &[&str] = if self.float_only {
                    &["SLT", "SGE", "SEQ", "SNE", "SGT", "SLE"]
                } else {
                    &["SLT", "SGE", "FSLT", "FSNE", "USLT", "ISGE", "USEQ", "AND"]
                };
                let op = ops[self.rng.below(ops.len() as u32) as usize];
                let kind = match op {
                    "SLT" | "SGE" | "SEQ" | "SNE" | "SGT" | "SLE" | "FSLT" | "FSNE" => Kind::Float,
                    "ISGE" => Kind::Int,
                    _ => Kind::Uint,
                };
                let t = self.rng.below(self.l.temps);
                let (a, b) = (self.src(kind, Sources::Any, false), self.src(kind, Sources::Any, false));
                self.push(format!("{op} TEMP[{t}].{chan}, {a}, {b}"));
                format!("{opcode} TEMP[{t}].{0}{0}{0}{0}", chan)
            }
            4..=7 => {
                let kind = if uif { Kind::Uint } else { Kind::Float };
                let src = self.src(kind, Sources::Any, true);
                format!("{opcode} {src}")
            }
            _ => {
                let src = self.src(if uif { Kind::Uint } else { Kind::Float }, Sources::Immediates, true);
                format!("{opcode} {src}")
            }
        }
    }

    /// A counted loop: the counter (its own register, written nowhere
    /// else) starts at 0 and is tested against a bound of at most 8 first
    /// thing in the body, then incremented, so the loop ends and `CONT`
    /// cannot skip the count.
    fn loop_statement(&mut self) {
        let c = self.l.counters + self.loop_depth;
        let bound = self.rng.below(MAX_LOOP_BOUND + 1);
        // Float-only programs count in floats: small integers are exact.
        let (zero, one, limit, test, add, branch) = if self.float_only {
            let f = |v: u32| (v as f32).to_bits();
            let counting = Imm::F32([f(0), f(1), f(bound), 0]);
            let (zero, one) = (self.imm_channel(counting, 0), self.imm_channel(counting, 1));
            (zero, one, self.imm_channel(counting, 2), "SGE", "ADD", "IF")
        } else {
            let zero = self.imm_channel(Imm::U32([0, 1, 0, 0]), 0);
            let one = self.imm_channel(Imm::U32([0, 1, 0, 0]), 1);
            let limit = self.imm_channel(Imm::U32([bound, bound, bound, bound]), 0);
            (zero, one, limit, "USGE", "UADD", "UIF")
        };
        self.push(format!("MOV TEMP[{c}].x, {zero}"));
        self.push("BGNLOOP".to_string());
        self.depth += 1;
        self.push(format!("{test} TEMP[{c}].y, TEMP[{c}].xxxx, {limit}"));
        let if_line = self.push(format!("{branch} TEMP[{c}].yyyy"));
        self.depth += 1;
        self.push("BRK".to_string());
        self.depth -= 1;
        let endif = self.push("ENDIF".to_string());
        self.set_label(if_line, endif);
        self.push(format!("{add} TEMP[{c}].x, TEMP[{c}].xxxx, {one}"));
        self.loop_depth += 1;
        self.breakable.push(Breakable::Loop);
        let n = 1 + self.rng.below(6) as usize;
        self.block(n);
        self.breakable.pop();
        self.loop_depth -= 1;
        self.depth -= 1;
        self.push("ENDLOOP".to_string());
    }

    /// `SWITCH` on a value masked to 0..3 (or raw bits, rarely matching a
    /// case), with distinct cases, an optional `DEFAULT`, and cases that
    /// end with `BRK` or fall through.
    fn switch_statement(&mut self) {
        let t = self.rng.below(self.l.temps);
        let selector = if self.rng.below(4) == 0 {
            self.src(Kind::Uint, Sources::Any, true)
        } else {
            let src = self.src(Kind::Uint, Sources::Any, false);
            let mask = self.imm_channel(Imm::U32([3, 1, 2, 0]), 0);
            self.push(format!("AND TEMP[{t}].x, {src}, {mask}"));
            format!("TEMP[{t}].xxxx")
        };
        self.push(format!("SWITCH {selector}"));
        let mut values: Vec<u32> = (0..4).collect();
        // A random order of distinct case values.
        for i in (1..values.len()).rev() {
            let j = self.rng.below(i as u32 + 1) as usize;
            values.swap(i, j);
        }
        let cases = 1 + self.rng.below(3) as usize;
        let default = self.rng.below(2) == 0;
        self.breakable.push(Breakable::Switch);
        for (k, &v) in values.iter().take(cases).enumerate() {
            let value = self.imm_channel(Imm::U32([0, 1, 2, 3]), v as usize);
            self.push(format!("CASE {value}"));
            self.depth += 1;
            let n = self.rng.below(4) as usize;
            self.block(n);
            let last = k + 1 == cases && !default;
            if last || self.rng.below(4) != 0 {
                self.push("BRK".to_string());
            }
            self.depth -= 1;
        }
        if default {
            self.push("DEFAULT".to_string());
            self.depth += 1;
            let n = self.rng.below(4) as usize;
            self.block(n);
            self.push("BRK".to_string());
            self.depth -= 1;
        }
        self.breakable.pop();
        self.push("ENDSWITCH".to_string());
    }

    /// `BRK` or `CONT` (only `CONT` directly inside a loop).
    fn exit_opcode(&mut self) -> &'static str {
        if self.breakable.last() == Some(&Breakable::Loop) && self.rng.below(3) == 0 {
            "CONT"
        } else {
            "BRK"
        }
    }

    /// `IF cond` ... `BRK`/`CONT` `ENDIF`.
    fn conditional_exit(&mut self) {
        let cond = self.condition();
        let if_line = self.push(cond);
        self.depth += 1;
        if self.rng.below(2) == 0 {
            self.alu(Sources::Any);
        }
        let exit = self.exit_opcode();
        self.push(exit.to_string());
        self.depth -= 1;
        let endif = self.push("ENDIF".to_string());
        self.set_label(if_line, endif);
    }

    // ---- fragment-only ----

    /// `KILL_IF src` (kills lanes where any channel is negative), or a
    /// plain `KILL` inside control flow.
    fn kill(&mut self) {
        if self.depth > 0 && self.rng.below(4) == 0 {
            self.push("KILL".to_string());
        } else {
            let src = self.src(Kind::Float, Sources::Any, false);
            self.push(format!("KILL_IF {src}"));
        }
        self.killed = true;
    }

    /// A derivative, where every lane of the quad holds a defined value.
    fn derivative(&mut self) {
        let op = ["DDX", "DDY", "DDX_FINE", "DDY_FINE"][self.rng.below(4) as usize];
        let dst = self.dst(Kind::Float);
        let src = self.src(Kind::Float, Sources::Any, false);
        self.push(format!("{op} {dst}, {src}"));
    }

    // ---- sections ----

    /// `ADDR[0].x` from a value masked to 0..3 (`UARL`), or from an
    /// immediate float in 0..3 (`ARL`).
    fn set_address(&mut self) {
        if self.float_only || self.rng.below(4) == 0 {
            let k = self.rng.below(ADDR_MAX + 1);
            let imm = self.imm_channel(
                Imm::F32([0.5f32.to_bits(), 1.75f32.to_bits(), 2.0f32.to_bits(), 3.25f32.to_bits()]),
                k as usize,
            );
            self.push(format!("ARL ADDR[0].x, {imm}"));
            return;
        }
        let t = self.rng.below(self.l.temps);
        let c = self.channel();
        let src = self.src(Kind::Uint, Sources::Any, false);
        let mask = self.imm_channel(Imm::U32([ADDR_MAX, 1, 2, 0]), 0);
        self.push(format!("AND TEMP[{t}].{c}, {src}, {mask}"));
        self.push(format!("UARL ADDR[0].x, TEMP[{t}].{0}{0}{0}{0}", c));
    }

    /// Operations on immediates only, for constant folding.
    fn constant_section(&mut self) {
        for _ in 0..1 + self.rng.below(3) {
            self.alu(Sources::Immediates);
        }
    }

    /// Values computed and overwritten before anyone reads them.
    fn dead_section(&mut self) {
        let t = self.rng.below(self.l.temps);
        for _ in 0..1 + self.rng.below(3) {
            let (a, b) = (self.src(Kind::Float, Sources::Any, false), self.src(Kind::Float, Sources::Any, false));
            let op = ["ADD", "MUL", "MAX", "RCP"][self.rng.below(4) as usize];
            if op == "RCP" {
                self.push(format!("RCP TEMP[{t}], {a}"));
            } else {
                self.push(format!("{op} TEMP[{t}], {a}, {b}"));
            }
        }
        let imm = self.src(Kind::Float, Sources::Immediates, false);
        self.push(format!("MOV TEMP[{t}], {imm}"));
    }

    /// A componentwise float op whose every source is a broadcast swizzle,
    /// or a replicated op, written to several channels: what `coalesce`
    /// looks for.
    fn broadcast_op(&mut self) {
        let ops = ["ADD", "MUL", "MAD", "MAX", "RCP", "RSQ", "EX2", "DP3", "POW", "SIN"];
        let op = ops[self.rng.below(ops.len() as u32) as usize];
        let nsrc = match op {
            "RCP" | "RSQ" | "EX2" | "SIN" => 1,
            "MAD" => 3,
            _ => 2,
        };
        let t = self.rng.below(self.l.temps);
        let mask = ["", ".xy", ".xyz", ".yzw", ".xw"][self.rng.below(5) as usize];
        let srcs: Vec<String> = (0..nsrc).map(|_| self.src(Kind::Float, Sources::Any, true)).collect();
        self.push(format!("{op} TEMP[{t}]{mask}, {}", srcs.join(", ")));
    }

    /// One random ALU instruction.
    fn alu(&mut self, sources: Sources) {
        let table = match self.rng.below(20) {
            0..=10 => FLOAT_OPS,
            11..=15 if !self.float_only => INT_OPS,
            16..=18 if self.doubles => DOUBLE_OPS,
            19 if self.int64 => INT64_OPS,
            _ => FLOAT_OPS,
        };
        let mut op = &table[self.rng.below(table.len() as u32) as usize];
        while self.float_only && !op.is_float() {
            op = &table[self.rng.below(table.len() as u32) as usize];
        }
        let sat = op.sat && self.rng.below(5) == 0;
        let dst = match op.shape {
            Shape::Componentwise | Shape::Widen if op.dst.is_64bit() => self.dst64(),
            Shape::Compare64 => {
                let mask = [".x", ".z", ".xz", ".xy", ""][self.rng.below(5) as usize];
                self.dst_with_mask(mask.to_string())
            }
            Shape::Narrow => {
                let mask = [".x", ".y", ".xy", ".z", ".xz", ".yw"][self.rng.below(6) as usize];
                self.dst_with_mask(mask.to_string())
            }
            _ => self.dst(op.dst),
        };
        let srcs: Vec<String> = op.srcs.iter().map(|&k| self.src(k, sources, false)).collect();
        let suffix = if sat { "_SAT" } else { "" };
        self.push(format!("{}{suffix} {dst}, {}", op.name, srcs.join(", ")));
    }

    /// At the end: every `OUT` gets written (all channels, or some).
    pub(super) fn write_outputs(&mut self) {
        for i in 0..self.l.outputs {
            let mask = if self.rng.below(3) == 0 { self.write_mask() } else { String::new() };
            let (a, b) = (self.src(Kind::Float, Sources::Any, false), self.src(Kind::Float, Sources::Any, false));
            match self.rng.below(3) {
                0 => self.push(format!("MOV OUT[{i}]{mask}, {a}")),
                1 => self.push(format!("ADD OUT[{i}]{mask}, {a}, {b}")),
                _ => {
                    let t = self.rng.below(self.l.temps);
                    self.push(format!("MAD OUT[{i}]{mask}, TEMP[{t}], {a}, {b}"))
                }
            };
        }
    }
}
