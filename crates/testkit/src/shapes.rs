//! Shaders of one shape at any size, for the compile benchmark over shapes
//! (`benches/compile_shapes.rs`) and the tests that keep compile work
//! linear in the input.
//!
//! Each [`Shape`] stresses one thing that could make a stage superlinear:
//! many sequential branches, deep nesting, long branch bodies, loops, many
//! arrays, many immediates, one huge SWITCH. [`Shape::generate`] writes a
//! fragment shader of about the number of instructions asked for (within a
//! few), deterministically, that Mesa's parser accepts, with the branch
//! labels Mesa's emitters write (without indentation, which deep nesting
//! would make quadratic).
//!
//! ```
//! use testkit::shapes::Shape;
//! for shape in Shape::ALL {
//!     let text = shape.generate(200);
//!     let shader = tgsi::parse_with_limits(&text, &testkit::shapes::LIMITS).unwrap();
//!     let count = shader.instructions().count();
//!     assert!((190..=210).contains(&count), "{}: {count}", shape.name());
//! }
//! ```

use crate::Rng;
use std::fmt::Write as _;

/// The limits the shapes are read with (`tgsi::parse_with_limits`,
/// `ir::from_tgsi_with_limits`): no bound on size or nesting, since they
/// nest far deeper and hold more immediates than
/// [`tgsi::Limits::DEFAULT`] lets untrusted input.
pub const LIMITS: tgsi::Limits = tgsi::Limits {
    max_tokens: usize::MAX,
    max_instructions: usize::MAX,
    max_declarations: usize::MAX,
    max_immediates: usize::MAX,
    max_nesting: usize::MAX,
    ..tgsi::Limits::DEFAULT
};

/// Plain temporaries of every shape: `TEMP[0..TEMPS-1]`.
const TEMPS: u32 = 32;
/// Constants: `CONST[0..CONSTS-1]`.
const CONSTS: u32 = 16;
/// How deep the random shaders nest IFs at most.
const MAX_DEPTH: usize = 4;
/// The most arrays TGSI numbers (`ARRAY(1)` to `ARRAY(1023)`).
const MAX_ARRAYS: usize = 1023;
/// The most immediates TGSI numbers (`IMM[0]` to `IMM[32767]`).
const MAX_IMMEDIATES: usize = 32_768;

/// A shape of shader.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// Random arithmetic with no control flow.
    StraightLine,
    /// Random arithmetic with an IF about every 50 instructions, nested up
    /// to 4 deep: the shape of a real shader.
    RandomFragment,
    /// `IF; ADD; ENDIF` one after another.
    SequentialIfs,
    /// IFs nested as deep as the size allows, with nothing inside.
    NestedEmptyIfs,
    /// IFs nested as deep as the size allows, each adding to a register
    /// before its inner IF, so every ENDIF joins a different value.
    NestedIfBodies,
    /// Four nested IFs whose bodies hold all the arithmetic.
    LongIfBodies,
    /// Loops one after another, each counting up and leaving by a BRK.
    SequentialLoops,
    /// Loops nested as deep as the size allows, each leaving by a BRK.
    NestedLoops,
    /// One small temporary array per 16 instructions (up to TGSI's 1023,
    /// then reused), each stored to and loaded from through an address
    /// register.
    ManyArrays,
    /// One immediate per instruction (up to TGSI's 32,768, then reused).
    ManyImmediates,
    /// One SWITCH with a CASE per three instructions.
    LargeSwitch,
}

impl Shape {
    /// Every shape, in the order the benchmark reports them.
    pub const ALL: [Shape; 11] = [
        Shape::StraightLine,
        Shape::RandomFragment,
        Shape::SequentialIfs,
        Shape::NestedEmptyIfs,
        Shape::NestedIfBodies,
        Shape::LongIfBodies,
        Shape::SequentialLoops,
        Shape::NestedLoops,
        Shape::ManyArrays,
        Shape::ManyImmediates,
        Shape::LargeSwitch,
    ];

    /// A short stable name (lower case, underscores).
    pub fn name(self) -> &'static str {
        match self {
            Shape::StraightLine => "straight_line",
            Shape::RandomFragment => "random_fragment",
            Shape::SequentialIfs => "sequential_ifs",
            Shape::NestedEmptyIfs => "nested_empty_ifs",
            Shape::NestedIfBodies => "nested_if_bodies",
            Shape::LongIfBodies => "long_if_bodies",
            Shape::SequentialLoops => "sequential_loops",
            Shape::NestedLoops => "nested_loops",
            Shape::ManyArrays => "many_arrays",
            Shape::ManyImmediates => "many_immediates",
            Shape::LargeSwitch => "large_switch",
        }
    }

    /// A fragment shader of this shape with about `instructions`
    /// instructions.
    pub fn generate(self, instructions: usize) -> String {
        let n = instructions.max(8);
        let mut program = Program::new(self as u64);
        match self {
            Shape::StraightLine => program.random(n, false),
            Shape::RandomFragment => program.random(n, true),
            Shape::SequentialIfs => program.sequential_ifs(n),
            Shape::NestedEmptyIfs => program.nested_ifs(n, false),
            Shape::NestedIfBodies => program.nested_ifs(n, true),
            Shape::LongIfBodies => program.long_if_bodies(n),
            Shape::SequentialLoops => program.sequential_loops(n),
            Shape::NestedLoops => program.nested_loops(n),
            Shape::ManyArrays => program.many_arrays(n),
            Shape::ManyImmediates => program.many_immediates(n),
            Shape::LargeSwitch => program.large_switch(n),
        }
        program.render()
    }
}

/// A shader being written: extra declarations and the instruction lines
/// (without labels, which [`Program::render`] adds).
struct Program {
    rng: Rng,
    declarations: String,
    body: Vec<String>,
}

/// Opcodes of the random arithmetic: (name, sources, replicated).
const ALU: [(&str, usize, bool); 15] = [
    ("ADD", 2, false),
    ("MUL", 2, false),
    ("MAX", 2, false),
    ("MIN", 2, false),
    ("SLT", 2, false),
    ("SGE", 2, false),
    ("MAD", 3, false),
    ("LRP", 3, false),
    ("CMP", 3, false),
    ("MOV", 1, false),
    ("FRC", 1, false),
    ("FLR", 1, false),
    ("RCP", 1, true),
    ("RSQ", 1, true),
    ("EX2", 1, true),
];

const CHANNELS: [char; 4] = ['x', 'y', 'z', 'w'];

impl Program {
    fn new(seed: u64) -> Program {
        Program { rng: Rng::new(0x2545_f491_4f6c_dd1d ^ seed), declarations: String::new(), body: Vec::new() }
    }

    fn push(&mut self, line: impl Into<String>) {
        self.body.push(line.into());
    }

    /// Fills every temporary from the inputs and constants, so that no
    /// read is of an undefined register.
    fn prologue(&mut self) {
        for t in 0..TEMPS {
            let src = if t % 2 == 0 { format!("IN[{}]", t / 2 % 2) } else { format!("CONST[{}]", t % CONSTS) };
            self.push(format!("MOV TEMP[{t}], {src}"));
        }
    }

    /// Sums every temporary into `OUT[0]`, so that every chain is live.
    fn epilogue(&mut self) {
        for t in 1..TEMPS {
            self.push(format!("ADD TEMP[0], TEMP[0], TEMP[{t}]"));
        }
        self.push("MOV OUT[0], TEMP[0]");
    }

    /// Instructions a prologue and an epilogue take.
    const FRAME: usize = 2 * TEMPS as usize + 1;

    fn channel(&mut self) -> char {
        CHANNELS[self.rng.index(4)]
    }

    /// A random swizzle: none, a broadcast or any.
    fn swizzle(&mut self) -> String {
        match self.rng.below(4) {
            0 => String::new(),
            1 => format!(".{}", self.channel().to_string().repeat(4)),
            _ => {
                let s: String = (0..4).map(|_| self.channel()).collect();
                if s == "xyzw" {
                    String::new()
                } else {
                    format!(".{s}")
                }
            }
        }
    }

    /// A random non-empty write mask (none for all four).
    fn mask(&mut self) -> String {
        let mask = 1 + self.rng.below(15);
        if mask == 15 {
            return String::new();
        }
        let mut text = String::from(".");
        text.extend((0..4).filter(|c| mask & (1 << c) != 0).map(|c| CHANNELS[c as usize]));
        text
    }

    /// A random source: mostly temporaries, some inputs and constants.
    fn src(&mut self) -> String {
        let reg = match self.rng.below(10) {
            0 => format!("IN[{}]", self.rng.below(2)),
            1 | 2 => format!("CONST[{}]", self.rng.below(CONSTS)),
            _ => format!("TEMP[{}]", self.rng.below(TEMPS)),
        };
        let neg = if self.rng.below(8) == 0 { "-" } else { "" };
        format!("{neg}{reg}{}", self.swizzle())
    }

    /// One random arithmetic instruction.
    fn alu(&mut self) -> String {
        let (opcode, sources, replicated) = ALU[self.rng.index(ALU.len())];
        let dst = self.rng.below(TEMPS);
        let mut line = format!("{opcode} TEMP[{dst}]{}", self.mask());
        for _ in 0..sources {
            let src = if replicated {
                let reg = self.rng.below(TEMPS);
                format!("|TEMP[{reg}].{}|", self.channel().to_string().repeat(4))
            } else {
                self.src()
            };
            let _ = write!(line, ", {src}");
        }
        line
    }

    /// A condition on a temporary's channel.
    fn condition(&mut self) -> String {
        let reg = self.rng.below(TEMPS);
        format!("IF TEMP[{reg}].{}", self.channel().to_string().repeat(4))
    }

    /// Random arithmetic; with `branches`, an IF about every 50
    /// instructions, closed after a random stretch, nested up to
    /// [`MAX_DEPTH`].
    fn random(&mut self, n: usize, branches: bool) {
        self.prologue();
        let mut open: Vec<usize> = Vec::new(); // instructions left in each open IF
        while self.body.len() + open.len() + Self::FRAME - TEMPS as usize + 1 < n {
            if open.last() == Some(&0) {
                open.pop();
                self.push("ENDIF");
                continue;
            }
            if branches && open.len() < MAX_DEPTH && self.rng.below(50) == 0 {
                let cond = self.condition();
                self.push(cond);
                open.push(1 + self.rng.index(200));
                continue;
            }
            let line = self.alu();
            self.push(line);
            if let Some(left) = open.last_mut() {
                *left -= 1;
            }
        }
        for _ in open {
            self.push("ENDIF");
        }
        self.epilogue();
    }

    fn sequential_ifs(&mut self, n: usize) {
        self.prologue();
        while self.body.len() + Self::FRAME - TEMPS as usize + 3 <= n {
            let cond = self.condition();
            self.push(cond);
            let line = self.alu();
            self.push(line);
            self.push("ENDIF");
        }
        self.epilogue();
    }

    /// IFs nested `(n - frame) / 2` deep (with `bodies`, `/ 3`), each on
    /// a different input channel.
    fn nested_ifs(&mut self, n: usize, bodies: bool) {
        self.prologue();
        let per_level = if bodies { 3 } else { 2 };
        let depth = n.saturating_sub(Self::FRAME + 1) / per_level;
        for level in 0..depth {
            let c = CHANNELS[level % 4];
            self.push(format!("IF IN[{}].{c}{c}{c}{c}", level / 4 % 2));
            if bodies {
                self.push(format!("ADD TEMP[0].x, TEMP[0].xxxx, IN[0].{c}{c}{c}{c}"));
            }
        }
        if bodies {
            self.push("MUL TEMP[0].y, TEMP[0].xxxx, IN[1].zzzz");
        }
        for _ in 0..depth {
            self.push("ENDIF");
        }
        self.epilogue();
    }

    /// Four nested IFs, the arithmetic spread over their bodies.
    fn long_if_bodies(&mut self, n: usize) {
        self.prologue();
        let work = n.saturating_sub(Self::FRAME + 2 * MAX_DEPTH + 1);
        for level in 0..MAX_DEPTH {
            let cond = self.condition();
            self.push(cond);
            for _ in 0..work / MAX_DEPTH + usize::from(level < work % MAX_DEPTH) {
                let line = self.alu();
                self.push(line);
            }
        }
        for _ in 0..MAX_DEPTH {
            self.push("ENDIF");
        }
        self.epilogue();
    }

    /// One loop: count up in `TEMP[counter].x`, leave when it passes a
    /// constant, with `work` instructions of arithmetic inside.
    fn loop_head(&mut self, counter: u32) {
        self.push("BGNLOOP");
        self.push(format!("SGE TEMP[31].x, TEMP[{counter}].xxxx, CONST[{}].xxxx", counter % CONSTS));
        self.push("IF TEMP[31].xxxx");
        self.push("BRK");
        self.push("ENDIF");
        self.push(format!("ADD TEMP[{counter}].x, TEMP[{counter}].xxxx, IN[0].yyyy"));
    }

    fn sequential_loops(&mut self, n: usize) {
        self.prologue();
        while self.body.len() + Self::FRAME - TEMPS as usize + 10 <= n {
            let counter = self.rng.below(TEMPS - 1);
            self.loop_head(counter);
            for _ in 0..3 {
                let line = self.alu();
                self.push(line);
            }
            self.push("ENDLOOP");
        }
        self.epilogue();
    }

    fn nested_loops(&mut self, n: usize) {
        self.prologue();
        let depth = n.saturating_sub(Self::FRAME + 1) / 7;
        for level in 0..depth {
            self.loop_head(level as u32 % (TEMPS - 1));
        }
        for _ in 0..depth {
            self.push("ENDLOOP");
        }
        self.epilogue();
    }

    /// Arrays of four temporaries after the plain ones, each written
    /// through `ADDR[0]` and read back into a plain temporary.
    fn many_arrays(&mut self, n: usize) {
        self.prologue();
        let groups = n.saturating_sub(Self::FRAME + 1) / 16;
        // TGSI numbers arrays up to 1023: beyond, the groups reuse them.
        let arrays = groups.min(MAX_ARRAYS);
        for a in 0..arrays {
            let first = TEMPS as usize + 4 * a;
            let _ = writeln!(self.declarations, "DCL TEMP[{first}..{}], ARRAY({}), LOCAL", first + 3, a + 1);
        }
        for group in 0..groups {
            let a = group % MAX_ARRAYS;
            let first = TEMPS as usize + 4 * a;
            let id = a + 1;
            let reg = self.rng.below(TEMPS);
            self.push(format!("ARL ADDR[0].x, TEMP[{reg}].xxxx"));
            for _ in 0..6 {
                let offset = first + self.rng.index(4);
                let mask = self.mask();
                let src = self.src();
                self.push(format!("MOV TEMP[ADDR[0].x+{offset}]({id}){mask}, {src}"));
            }
            for _ in 0..6 {
                let offset = first + self.rng.index(4);
                let dst = self.rng.below(TEMPS);
                let swizzle = self.swizzle();
                let src = self.src();
                self.push(format!("ADD TEMP[{dst}], TEMP[ADDR[0].x+{offset}]({id}){swizzle}, {src}"));
            }
            for _ in 0..3 {
                let line = self.alu();
                self.push(line);
            }
        }
        self.epilogue();
    }

    /// Every instruction reads its own immediate.
    fn many_immediates(&mut self, n: usize) {
        self.prologue();
        let count = n.saturating_sub(Self::FRAME + 1);
        for k in 0..count {
            // TGSI numbers immediates up to 32767: beyond, they are reused.
            let i = k % MAX_IMMEDIATES;
            if i == k {
                let v = i as f32;
                let _ = writeln!(
                    self.declarations,
                    "IMM[{i}] FLT32 {{{:10.4}, {:10.4}, {:10.4}, {:10.4}}}",
                    v,
                    v + 0.5,
                    -v,
                    0.25
                );
            }
            let dst = self.rng.below(TEMPS);
            let src = self.src();
            let swizzle = self.swizzle();
            self.push(format!("MAD TEMP[{dst}], {src}, IMM[{i}]{swizzle}, TEMP[{dst}]"));
        }
        self.epilogue();
    }

    /// One SWITCH on an input: a CASE per three instructions, each case
    /// writing a register and leaving, and a DEFAULT.
    fn large_switch(&mut self, n: usize) {
        let cases = n.saturating_sub(Self::FRAME + 6) / 3;
        let _ = writeln!(self.declarations, "DCL TEMP[{TEMPS}], LOCAL");
        self.prologue();
        self.push(format!("F2U TEMP[{TEMPS}].x, IN[0].xxxx"));
        self.push(format!("SWITCH TEMP[{TEMPS}].xxxx"));
        // Four case values an immediate: TGSI numbers immediates up to
        // 32767.
        for case in 0..cases {
            let imm = case / 4;
            if case % 4 == 0 {
                let v = 4 * imm;
                let _ = writeln!(self.declarations, "IMM[{imm}] UINT32 {{{v}, {}, {}, {}}}", v + 1, v + 2, v + 3);
            }
            let c = CHANNELS[case % 4];
            self.push(format!("CASE IMM[{imm}].{c}{c}{c}{c}"));
            let line = self.alu();
            self.push(line);
            self.push("BRK");
        }
        self.push("DEFAULT");
        self.push("MOV TEMP[0], IN[1]");
        self.push("BRK");
        self.push("ENDSWITCH");
        self.epilogue();
    }

    /// The whole text: header, declarations, the numbered instructions
    /// with IF and ELSE labels, END.
    fn render(mut self) -> String {
        self.body.push("END".to_string());
        let labels = labels(&self.body);
        let mut text = String::with_capacity(self.body.len() * 48 + self.declarations.len() + 512);
        text.push_str("FRAG\nDCL IN[0], GENERIC[0], PERSPECTIVE\nDCL IN[1], GENERIC[1], PERSPECTIVE\n");
        text.push_str("DCL OUT[0], COLOR\n");
        let _ = writeln!(text, "DCL CONST[0..{}]", CONSTS - 1);
        let _ = writeln!(text, "DCL TEMP[0..{}], LOCAL", TEMPS - 1);
        if self.body.iter().any(|l| l.starts_with("ARL")) {
            text.push_str("DCL ADDR[0]\n");
        }
        text.push_str(&self.declarations);
        // No indentation: at a depth of thousands it would make the text
        // quadratic in the nesting.
        for (index, line) in self.body.iter().enumerate() {
            let _ = write!(text, "{index:>3}: {line}");
            if let Some(label) = labels[index] {
                let _ = write!(text, " :{label}");
            }
            text.push('\n');
        }
        text
    }
}

/// The label of each IF (its ELSE, or its ENDIF) and ELSE (its ENDIF).
fn labels(body: &[String]) -> Vec<Option<usize>> {
    let mut labels = vec![None; body.len()];
    let mut open = Vec::new();
    for (index, line) in body.iter().enumerate() {
        match line.split(' ').next().unwrap_or("") {
            "IF" | "UIF" => open.push(index),
            "ELSE" => {
                if let Some(opener) = open.pop() {
                    labels[opener] = Some(index);
                }
                open.push(index);
            }
            "ENDIF" => {
                if let Some(opener) = open.pop() {
                    labels[opener] = Some(index);
                }
            }
            _ => {}
        }
    }
    labels
}

/// The subroutine call chain of a few hundred bytes whose inlined size
/// is `calls^k`: main calls subroutine 1, each of the `k` subroutines
/// calls the next `calls` times, and the last adds. What the inlining
/// budget of [`tgsi::Limits`] is for.
///
/// ```
/// let text = testkit::shapes::call_chain(3, 2);
/// assert_eq!(tgsi::parse(&text).unwrap().instructions().count(), 4 + 3 * 4 + 3);
/// ```
pub fn call_chain(k: usize, calls: usize) -> String {
    let stride = calls + 2;
    let mut lines = vec!["MOV TEMP[0], IN[0]".to_string(), "CAL :4".into(), "MOV OUT[0], TEMP[0]".into(), "END".into()];
    for i in 0..k {
        let next = 4 + stride * (i + 1);
        lines.push("BGNSUB".into());
        lines.extend(std::iter::repeat_n(format!("CAL :{next}"), calls));
        lines.push("ENDSUB".into());
    }
    lines.extend(["BGNSUB".into(), "ADD TEMP[0], TEMP[0], IN[0]".into(), "ENDSUB".into()]);
    format!("FRAG\nDCL IN[0]\nDCL OUT[0], COLOR\nDCL TEMP[0]\n{}\n", lines.join("\n"))
}

/// A SWITCH of `n` cases, each writing its own TEMP, every one read
/// after it: SSA gives each of the `n` TEMPs a phi with an argument per
/// case, `n` squared in all from `4n + 6` instructions. What the phi
/// budget of [`tgsi::Limits`] is for.
///
/// ```
/// let text = testkit::shapes::switch_of_writes(3);
/// assert_eq!(tgsi::parse(&text).unwrap().instructions().count(), 4 * 3 + 6);
/// ```
pub fn switch_of_writes(n: usize) -> String {
    let mut text = format!(
        "FRAG\nDCL IN[0]\nDCL OUT[0], COLOR\nDCL TEMP[0..{n}]\nIMM[0] INT32 {{ 0, 1, 2, 3 }}\n\
         F2I TEMP[{n}].x, IN[0].xxxx\nSWITCH TEMP[{n}].xxxx\n"
    );
    for i in 0..n {
        text.push_str(&format!("CASE IMM[0].yyyy\nMOV TEMP[{i}].x, IN[0].xxxx\nBRK\n"));
    }
    text.push_str(&format!("ENDSWITCH\nMOV TEMP[{n}].x, IMM[0].xxxx\n"));
    for i in 0..n {
        text.push_str(&format!("ADD TEMP[{n}].x, TEMP[{n}].xxxx, TEMP[{i}].xxxx\n"));
    }
    text.push_str(&format!("MOV OUT[0], TEMP[{n}].xxxx\nEND\n"));
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_shape_parses_builds_and_has_about_the_size_asked() {
        for shape in Shape::ALL {
            for n in [100, 3000] {
                let text = shape.generate(n);
                let shader = tgsi::parse_with_limits(&text, &LIMITS)
                    .unwrap_or_else(|e| panic!("{}", e.render(&text, shape.name())));
                let count = shader.instructions().count();
                assert!(count.abs_diff(n) <= 16, "{} at {n}: {count}", shape.name());
                ir::from_tgsi_with_limits(&shader, &LIMITS).unwrap_or_else(|e| panic!("{} at {n}: {e}", shape.name()));
            }
        }
    }

    #[test]
    fn the_largest_sizes_stay_within_tgsi_limits() {
        for shape in [Shape::ManyArrays, Shape::ManyImmediates, Shape::LargeSwitch] {
            let text = shape.generate(100_000);
            tgsi::parse_with_limits(&text, &LIMITS).unwrap_or_else(|e| panic!("{}", e.render(&text, shape.name())));
        }
    }

    #[test]
    fn deterministic() {
        for shape in Shape::ALL {
            assert_eq!(shape.generate(500), shape.generate(500), "{}", shape.name());
        }
    }

    #[test]
    fn nested_shapes_nest() {
        let depth = |text: &str, opener: &str, closer: &str| {
            let mut depth = 0i32;
            let mut deepest = 0;
            for line in text.lines() {
                let body = line.split_once(": ").map_or("", |(_, b)| b);
                if body.starts_with(opener) {
                    depth += 1;
                    deepest = deepest.max(depth);
                } else if body.starts_with(closer) {
                    depth -= 1;
                }
            }
            assert_eq!(depth, 0);
            deepest
        };
        assert!(depth(&Shape::NestedEmptyIfs.generate(1000), "IF ", "ENDIF") > 400);
        assert!(depth(&Shape::NestedIfBodies.generate(1000), "IF ", "ENDIF") > 300);
        assert!(depth(&Shape::NestedLoops.generate(1000), "BGNLOOP", "ENDLOOP") > 100);
        assert_eq!(depth(&Shape::LongIfBodies.generate(1000), "IF ", "ENDIF"), 4);
    }
}
