//! A generator of large synthetic shaders, for benchmarks and tests.
//!
//! [`synthetic_shader`] writes a fragment shader in Mesa's canonical
//! `tgsi_dump` layout that exercises most of the text syntax: declarations
//! with semantics, interpolation, arrays and sampler views; float and integer
//! immediates; component-wise, replicated and texture instructions; saturate,
//! negation, absolute value, swizzles and write masks; indirect addressing
//! of constants and of a temporary array; and nested IF/ELSE/ENDIF and
//! BGNLOOP/BRK/ENDLOOP with the branch labels Mesa's emitters write. Every
//! immediate is exactly representable with four decimals, so both printer
//! styles reproduce the text byte for byte. [`straight_line_shader`] writes
//! the same instructions with no control flow. [`alu_heavy_shader`] writes
//! the backend benchmarks' chain of arithmetic.

use crate::Rng;
use std::fmt::Write as _;

/// Plain temporaries `TEMP[0..TEMPS-1]`.
const TEMPS: u32 = 32;
/// The temporary array `TEMP[ARRAY_FIRST..ARRAY_FIRST+ARRAY_LEN-1], ARRAY(1)`.
const ARRAY_FIRST: u32 = TEMPS;
const ARRAY_LEN: u32 = 8;
/// Inputs `IN[0]` (position) and `IN[1..INPUTS-1]` (generic varyings).
const INPUTS: u32 = 8;
/// Outputs `OUT[0..OUTPUTS-1]`, colors.
const OUTPUTS: u32 = 2;
/// Constants `CONST[0..CONSTS-1]`.
const CONSTS: u32 = 64;
/// Samplers and sampler views.
const SAMPLERS: u32 = 2;
/// How deep IF and BGNLOOP nest at most.
const MAX_DEPTH: usize = 4;

/// The float immediates, four to an `IMM[n]`; all exact in `%10.4f`.
const FLOAT_IMMEDIATES: [[f32; 4]; 8] = [
    [0.0, 0.5, 1.0, 2.0],
    [0.25, -1.0, 4.0, 0.125],
    [8.0, -0.5, 3.0, 0.0625],
    [16.0, -2.0, 10.0, 0.75],
    [100.0, -4.0, 1.5, 0.375],
    [255.0, 0.0, -8.0, 6.5],
    [1024.0, -0.25, 0.875, 12.0],
    [-100.0, 32.0, -0.125, 0.5625],
];
/// `IMM[UINT_IMMEDIATE] UINT32 {0, 1, 2, 3}`, then an INT32 one.
const UINT_IMMEDIATE: u32 = FLOAT_IMMEDIATES.len() as u32;
const INT_IMMEDIATE: u32 = UINT_IMMEDIATE + 1;

/// Returns a deterministic fragment shader of exactly `instructions`
/// instructions (at least one: the final `END`), in canonical text.
///
/// 100,000 instructions make about 4.5 MB of text.
///
/// ```
/// let text = testkit::synth::synthetic_shader(50);
/// assert!(text.starts_with("FRAG\n"));
/// assert!(text.ends_with(" 49: END\n"));
/// ```
pub fn synthetic_shader(instructions: usize) -> String {
    let mut generator = Generator {
        rng: Rng::new(0x9e37_79b9_7f4a_7c15),
        lines: Vec::with_capacity(instructions.max(1)),
        open: Vec::new(),
    };
    generator.body(instructions.max(1) - 1);
    generator.lines.push(Line { depth: 0, text: "END".to_string() });
    render(&generator.lines)
}

/// Returns a deterministic fragment shader of exactly `instructions`
/// instructions (at least one: the final `END`) without control flow: the
/// instructions [`synthetic_shader`] puts between its branches (arithmetic
/// with every operand modifier, textures, indirect addressing, `KILL_IF`),
/// with the same declarations, in canonical text.
///
/// ```
/// let text = testkit::synth::straight_line_shader(50);
/// assert!(text.ends_with(" 49: END\n"));
/// assert!(!text.contains("IF ") && !text.contains("BGNLOOP"));
/// ```
pub fn straight_line_shader(instructions: usize) -> String {
    let mut generator = Generator {
        rng: Rng::new(0x5851_f42d_4c95_7f2d),
        lines: Vec::with_capacity(instructions.max(1)),
        open: Vec::new(),
    };
    for _ in 1..instructions.max(1) {
        let text = generator.straight_line();
        generator.push(text);
    }
    generator.lines.push(Line { depth: 0, text: "END".to_string() });
    render(&generator.lines)
}

/// The header, then the numbered and indented instruction lines.
fn render(lines: &[Line]) -> String {
    let mut text = String::with_capacity(lines.len().saturating_mul(46) + 2048);
    write_header(&mut text);
    for (index, line) in lines.iter().enumerate() {
        let _ = writeln!(text, "{index:>3}: {:indent$}{}", "", line.text, indent = 2 * line.depth);
    }
    text
}

/// The declarations and immediates.
fn write_header(text: &mut String) {
    text.push_str("FRAG\nPROPERTY FS_COLOR0_WRITES_ALL_CBUFS 1\n");
    text.push_str("DCL IN[0], POSITION, LINEAR\n");
    for i in 1..INPUTS {
        let _ = writeln!(text, "DCL IN[{i}], GENERIC[{}], PERSPECTIVE", i - 1);
    }
    text.push_str("DCL OUT[0], COLOR\n");
    for i in 1..OUTPUTS {
        let _ = writeln!(text, "DCL OUT[{i}], COLOR[{i}]");
    }
    for i in 0..SAMPLERS {
        let _ = writeln!(text, "DCL SAMP[{i}]");
    }
    for i in 0..SAMPLERS {
        let _ = writeln!(text, "DCL SVIEW[{i}], 2D, FLOAT");
    }
    let _ = writeln!(text, "DCL CONST[0..{}]", CONSTS - 1);
    let _ = writeln!(text, "DCL TEMP[0..{}], LOCAL", TEMPS - 1);
    let _ = writeln!(text, "DCL TEMP[{ARRAY_FIRST}..{}], ARRAY(1), LOCAL", ARRAY_FIRST + ARRAY_LEN - 1);
    text.push_str("DCL ADDR[0]\n");
    for (i, values) in FLOAT_IMMEDIATES.iter().enumerate() {
        let _ = writeln!(
            text,
            "IMM[{i}] FLT32 {{{:10.4}, {:10.4}, {:10.4}, {:10.4}}}",
            values[0], values[1], values[2], values[3]
        );
    }
    let _ = writeln!(text, "IMM[{UINT_IMMEDIATE}] UINT32 {{0, 1, 2, 3}}");
    let _ = writeln!(text, "IMM[{INT_IMMEDIATE}] INT32 {{-1, 0, 1, -2}}");
}

/// One instruction: its nesting depth and its text after the indentation.
struct Line {
    depth: usize,
    text: String,
}

/// An open control-flow construct.
enum Open {
    /// `IF`: the index of its line, of its ELSE if any, and how many more
    /// instructions its current arm gets.
    If { line: usize, else_line: Option<usize>, arm_left: u32 },
    /// `BGNLOOP`, and how many more instructions its body gets.
    Loop { body_left: u32 },
}

struct Generator {
    rng: Rng,
    lines: Vec<Line>,
    open: Vec<Open>,
}

impl Generator {
    /// Emits exactly `count` instructions with balanced control flow.
    fn body(&mut self, count: usize) {
        while self.lines.len() < count {
            let remaining = count - self.lines.len();
            // Each open construct still needs its closing instruction.
            let closers = self.open.len();
            let must_close = remaining <= closers;
            let arm_done = match self.open.last() {
                Some(Open::If { arm_left, .. }) => *arm_left == 0,
                Some(Open::Loop { body_left }) => *body_left == 0,
                None => false,
            };
            if must_close || arm_done {
                self.close(remaining - closers);
                continue;
            }
            let roll = self.rng.below(100);
            let room = self.open.len() < MAX_DEPTH;
            if roll < 3 && room && remaining >= closers + 3 {
                self.open_if();
            } else if roll < 5 && room && remaining >= closers + 6 {
                self.open_loop();
            } else {
                let text = self.straight_line();
                self.push(text);
                match self.open.last_mut() {
                    Some(Open::If { arm_left, .. }) => *arm_left -= 1,
                    Some(Open::Loop { body_left }) => *body_left -= 1,
                    None => {}
                }
            }
        }
    }

    fn push(&mut self, text: String) {
        self.lines.push(Line { depth: self.open.len(), text });
    }

    /// Appends the label ` :target` to the branch at `line`.
    fn set_label(&mut self, line: usize, target: usize) {
        let _ = write!(self.lines[line].text, " :{target}");
    }

    /// Opens an IF (or UIF) on one channel of a temporary.
    fn open_if(&mut self) {
        let opcode = if self.rng.below(4) == 0 { "UIF" } else { "IF" };
        let reg = self.rng.below(TEMPS);
        let channel = self.channel();
        self.push(format!("{opcode} TEMP[{reg}].{0}{0}{0}{0}", channel));
        let arm_left = 1 + self.rng.below(12);
        self.open.push(Open::If { line: self.lines.len() - 1, else_line: None, arm_left });
    }

    /// Opens a loop whose first instructions break out of it.
    fn open_loop(&mut self) {
        self.push("BGNLOOP".to_string());
        let body_left = 2 + self.rng.below(24);
        self.open.push(Open::Loop { body_left });
        let reg = self.rng.below(TEMPS);
        let counter = self.rng.below(TEMPS);
        let limit = self.rng.below(CONSTS);
        self.push(format!("SGE TEMP[{reg}].x, TEMP[{counter}].xxxx, CONST[{limit}].xxxx"));
        let if_line = self.lines.len();
        self.push(format!("IF TEMP[{reg}].xxxx"));
        self.lines.push(Line { depth: self.open.len() + 1, text: "BRK".to_string() });
        let endif_line = self.lines.len();
        self.push("ENDIF".to_string());
        self.set_label(if_line, endif_line);
    }

    /// Closes the innermost construct; an IF without ELSE may get one when
    /// `spare` instructions beyond the closers are left.
    fn close(&mut self, spare: usize) {
        let Some(top) = self.open.pop() else { return };
        match top {
            Open::If { line, else_line: None, .. } if spare >= 2 && self.rng.below(2) == 0 => {
                let else_line = self.lines.len();
                self.push("ELSE".to_string());
                self.set_label(line, else_line);
                let arm_left = 1 + self.rng.below(12);
                self.open.push(Open::If { line, else_line: Some(else_line), arm_left });
            }
            Open::If { line, else_line, .. } => {
                let endif_line = self.lines.len();
                self.push("ENDIF".to_string());
                match else_line {
                    Some(else_line) => self.set_label(else_line, endif_line),
                    None => self.set_label(line, endif_line),
                }
            }
            Open::Loop { .. } => self.push("ENDLOOP".to_string()),
        }
    }

    /// One instruction that does not change control flow.
    fn straight_line(&mut self) -> String {
        match self.rng.below(100) {
            0..=13 => format!("MOV {}, {}", self.dst(), self.src()),
            14..=25 => format!("ADD {}, {}, {}", self.dst(), self.src(), self.src()),
            26..=37 => format!("MUL {}, {}, {}", self.dst(), self.src(), self.src()),
            38..=49 => format!("MAD {}, {}, {}, {}", self.dst(), self.src(), self.src(), self.src()),
            50..=57 => {
                let dst = self.scalar_dst();
                format!("DP4 {dst}, {}, {}", self.src(), self.src())
            }
            58..=60 => {
                let dst = self.scalar_dst();
                format!("DP3 {dst}, {}, {}", self.src(), self.src())
            }
            61..=66 => {
                let dst = self.dst();
                let coord = if self.rng.below(3) == 0 {
                    format!("IN[{}].xyyy", 1 + self.rng.below(INPUTS - 1))
                } else {
                    format!("TEMP[{}]", self.rng.below(TEMPS))
                };
                format!("TEX {dst}, {coord}, SAMP[{}], 2D", self.rng.below(SAMPLERS))
            }
            67..=69 => format!("ARL ADDR[0].x, TEMP[{}].{}", self.rng.below(TEMPS), self.replicate()),
            70..=74 => {
                let dst = self.dst();
                let offset = self.rng.below(CONSTS);
                let swizzle = self.swizzle();
                format!("MOV {dst}, CONST[{}]{swizzle}", indirect(offset))
            }
            75..=77 => {
                let offset = ARRAY_FIRST + self.rng.below(ARRAY_LEN);
                let mask = self.write_mask();
                format!("MOV TEMP[{}](1){mask}, {}", indirect(offset), self.src())
            }
            78..=80 => {
                let dst = self.dst();
                let offset = ARRAY_FIRST + self.rng.below(ARRAY_LEN);
                let swizzle = self.swizzle();
                format!("ADD {dst}, TEMP[{}](1){swizzle}, {}", indirect(offset), self.src())
            }
            81..=84 => {
                let opcode = ["RCP", "RSQ", "EX2", "LG2"][self.rng.below(4) as usize];
                let dst = self.scalar_dst();
                let reg = self.rng.below(TEMPS);
                format!("{opcode} {dst}, |TEMP[{reg}].{}|", self.replicate())
            }
            85..=88 => {
                let opcode = ["MAX", "MIN", "SLT", "SGE"][self.rng.below(4) as usize];
                format!("{opcode} {}, {}, {}", self.dst(), self.src(), self.src())
            }
            89..=91 => {
                let out = self.rng.below(OUTPUTS);
                format!("MOV_SAT OUT[{out}]{}, {}", self.write_mask(), self.src())
            }
            92..=94 => {
                let dst = self.dst();
                format!("LRP {dst}, {}, {}, {}", self.src(), self.src(), self.src())
            }
            95..=96 => {
                let opcode = ["UADD", "IMAX", "AND", "XOR"][self.rng.below(4) as usize];
                let dst = self.dst();
                let src = self.src();
                let imm = if opcode == "IMAX" { INT_IMMEDIATE } else { UINT_IMMEDIATE };
                format!("{opcode} {dst}, {src}, IMM[{imm}].{}", self.replicate())
            }
            _ => format!("KILL_IF -TEMP[{}]{}", self.rng.below(TEMPS), self.swizzle()),
        }
    }

    /// A temporary with a write mask.
    fn dst(&mut self) -> String {
        let reg = self.rng.below(TEMPS);
        format!("TEMP[{reg}]{}", self.write_mask())
    }

    /// A temporary with a one-channel write mask.
    fn scalar_dst(&mut self) -> String {
        let reg = self.rng.below(TEMPS);
        format!("TEMP[{reg}].{}", self.channel())
    }

    /// `` (all channels) half the time, else a random non-empty mask.
    fn write_mask(&mut self) -> String {
        if self.rng.below(2) == 0 {
            return String::new();
        }
        let mask = 1 + self.rng.below(14);
        let mut text = String::from(".");
        text.extend((0..4).filter(|c| mask & (1 << c) != 0).map(|c| CHANNELS[c as usize]));
        text
    }

    /// A source operand: a register with swizzle, negation and absolute value.
    fn src(&mut self) -> String {
        let reg = match self.rng.below(100) {
            0..=59 => format!("TEMP[{}]", self.rng.below(TEMPS)),
            60..=69 => format!("IN[{}]", self.rng.below(INPUTS)),
            70..=84 => format!("CONST[{}]", self.rng.below(CONSTS)),
            _ => format!("IMM[{}]", self.rng.below(FLOAT_IMMEDIATES.len() as u32)),
        };
        let operand = format!("{reg}{}", self.swizzle());
        let operand = if self.rng.below(30) == 0 { format!("|{operand}|") } else { operand };
        if self.rng.below(8) == 0 {
            format!("-{operand}")
        } else {
            operand
        }
    }

    /// `` (identity) half the time, a broadcast like `.yyyy` or any swizzle.
    fn swizzle(&mut self) -> String {
        match self.rng.below(10) {
            0..=4 => String::new(),
            5..=7 => format!(".{}", self.replicate()),
            _ => loop {
                let swizzle: String = (0..4).map(|_| self.channel()).collect();
                if swizzle != "xyzw" {
                    break format!(".{swizzle}");
                }
            },
        }
    }

    /// A broadcast swizzle without the dot: `xxxx`, `yyyy`, ...
    fn replicate(&mut self) -> String {
        self.channel().to_string().repeat(4)
    }

    fn channel(&mut self) -> char {
        CHANNELS[self.rng.below(4) as usize]
    }
}

/// Channel letters by index.
pub(crate) const CHANNELS: [char; 4] = ['x', 'y', 'z', 'w'];

/// `ADDR[0].x+offset` as Mesa prints it (no `+0`).
pub(crate) fn indirect(offset: u32) -> String {
    if offset == 0 {
        "ADDR[0].x".to_string()
    } else {
        format!("ADDR[0].x+{offset}")
    }
}

/// A vertex shader that is a chain of `rounds` rounds of arithmetic over
/// `IN[0]` and `IN[1]` (MAD, MUL, ADD, DP4 and RSQ: five instructions a
/// round, on whole registers and on single channels), ending in a MOV to
/// `OUT[0]`: what the backend's benchmarks time.
///
/// ```
/// let text = testkit::synth::alu_heavy_shader(2);
/// let shader = tgsi::parse(&text).unwrap();
/// assert_eq!(shader.instructions().count(), 2 * 5 + 3); // MOV in, MOV out, END
/// ```
pub fn alu_heavy_shader(rounds: usize) -> String {
    let mut s = String::from(
        "VERT\nDCL IN[0]\nDCL IN[1]\nDCL OUT[0], POSITION\nDCL TEMP[0..2]\n\
         IMM[0] FLT32 { 0.5, 0.25, 1.5, 0.125 }\nMOV TEMP[0], IN[0]\n",
    );
    for _ in 0..rounds {
        s += "MAD TEMP[1], TEMP[0], IMM[0], IN[1]\nMUL TEMP[2], TEMP[1], IMM[0].yyyy\n\
              ADD TEMP[0], TEMP[2], IN[0]\nDP4 TEMP[1].x, TEMP[0], IN[1]\nRSQ TEMP[0].w, |TEMP[1].xxxx|\n";
    }
    s + "MOV OUT[0], TEMP[0]\nEND\n"
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The instruction lines: (index, depth, text).
    fn instructions(text: &str) -> Vec<(usize, usize, &str)> {
        text.lines()
            .filter_map(|line| {
                let (index, rest) = line.split_once(": ")?;
                let index = index.trim_start().parse().ok()?;
                let body = rest.trim_start_matches(' ');
                Some((index, (rest.len() - body.len()) / 2, body))
            })
            .collect()
    }

    #[test]
    fn exact_instruction_count_ending_with_end() {
        for n in [0, 1, 2, 3, 5, 10, 97, 1000, 5000] {
            let text = synthetic_shader(n);
            let insts = instructions(&text);
            assert_eq!(insts.len(), n.max(1), "n = {n}");
            for (i, (index, _, _)) in insts.iter().enumerate() {
                assert_eq!(*index, i);
            }
            assert_eq!(insts.last().map(|i| i.2), Some("END"));
            assert!(text.ends_with("END\n"));
        }
    }

    #[test]
    fn deterministic() {
        assert_eq!(synthetic_shader(3000), synthetic_shader(3000));
        assert_eq!(straight_line_shader(3000), straight_line_shader(3000));
    }

    #[test]
    fn straight_line_has_no_control_flow() {
        for n in [0, 1, 2, 10, 1000] {
            let text = straight_line_shader(n);
            let insts = instructions(&text);
            assert_eq!(insts.len(), n.max(1), "n = {n}");
            assert_eq!(insts.last().map(|i| i.2), Some("END"));
            for (i, &(index, depth, body)) in insts.iter().enumerate() {
                assert_eq!((index, depth), (i, 0), "{body}");
                let opcode = body.split([' ', '_']).next().unwrap_or("");
                assert!(!["IF", "UIF", "ELSE", "ENDIF", "BGNLOOP", "BRK", "ENDLOOP"].contains(&opcode), "{body}");
            }
        }
        let text = straight_line_shader(5000);
        for needle in ["MAD ", "TEX ", "CONST[ADDR[0].x+", "](1)", "_SAT ", "KILL_IF", "|TEMP"] {
            assert!(text.contains(needle), "no {needle}");
        }
    }

    #[test]
    fn control_flow_is_balanced_and_labelled() {
        let text = synthetic_shader(20_000);
        let insts = instructions(&text);
        let mut stack: Vec<(usize, &str)> = Vec::new();
        let opcode = |body: &str| body.split([' ', '_']).next().unwrap_or("").to_string();
        let label = |body: &str| body.rsplit_once(" :").and_then(|(_, l)| l.parse::<usize>().ok());
        let (mut ifs, mut elses, mut loops, mut breaks) = (0, 0, 0, 0);
        for &(index, depth, body) in &insts {
            let op = opcode(body);
            match op.as_str() {
                "ELSE" | "ENDIF" | "ENDLOOP" => {
                    let (open, open_op) = stack.pop().expect("closer without opener");
                    assert_eq!(depth, stack.len(), "{index}: {body}");
                    if op == "ENDLOOP" {
                        assert_eq!(open_op, "BGNLOOP");
                    } else {
                        assert!(open_op == "IF" || open_op == "UIF" || open_op == "ELSE");
                        assert_eq!(label(insts[open].2), Some(index), "label of {open}");
                    }
                    if op == "ELSE" {
                        assert_ne!(open_op, "ELSE");
                        elses += 1;
                        stack.push((index, "ELSE"));
                    }
                }
                _ => {
                    assert_eq!(depth, stack.len(), "{index}: {body}");
                    match op.as_str() {
                        "IF" | "UIF" => {
                            ifs += 1;
                            stack.push((index, if op == "IF" { "IF" } else { "UIF" }));
                        }
                        "BGNLOOP" => {
                            loops += 1;
                            stack.push((index, "BGNLOOP"));
                        }
                        "BRK" => {
                            breaks += 1;
                            assert!(stack.iter().any(|(_, o)| *o == "BGNLOOP"));
                        }
                        _ => {}
                    }
                }
            }
            assert!(stack.len() <= MAX_DEPTH + 1);
        }
        assert!(stack.is_empty());
        assert!(ifs > 100 && elses > 50 && loops > 100 && breaks == loops, "{ifs} {elses} {loops} {breaks}");
    }

    #[test]
    fn size_is_about_45_bytes_an_instruction() {
        let len = synthetic_shader(100_000).len();
        assert!((3_500_000..5_500_000).contains(&len), "{len} bytes");
    }

    #[test]
    fn immediates_print_as_mesa_does() {
        let text = synthetic_shader(1);
        assert!(text.contains("IMM[0] FLT32 {    0.0000,     0.5000,     1.0000,     2.0000}\n"));
        assert!(text.contains("IMM[7] FLT32 { -100.0000,    32.0000,    -0.1250,     0.5625}\n"));
        assert!(text.contains("IMM[8] UINT32 {0, 1, 2, 3}\n"));
    }

    #[test]
    fn uses_every_feature() {
        let text = synthetic_shader(10_000);
        for needle in [
            "MOV ",
            "ADD ",
            "MUL ",
            "MAD ",
            "DP4 ",
            "TEX ",
            "IF ",
            "UIF ",
            "ELSE :",
            "ENDIF",
            "BGNLOOP",
            "BRK",
            "ENDLOOP",
            "CONST[ADDR[0].x+",
            "](1)",
            "-TEMP",
            "|TEMP",
            ".xxxx",
            "_SAT ",
            "KILL_IF",
            "ARL ",
        ] {
            assert!(text.contains(needle), "no {needle}");
        }
    }
}
