//! The program's text: header, declarations, immediates and numbered lines.

use std::fmt::Write as _;

use super::ops::Imm;
use super::{Generator, Stage};

impl Generator {
    /// The header and the numbered instructions, as Mesa's dump lays them out.
    pub(super) fn render(&mut self) -> String {
        let l = self.l;
        let mut text = String::new();
        let _ = writeln!(
            text,
            "{}",
            match l.stage {
                Stage::Fragment => "FRAG",
                Stage::Vertex => "VERT",
                Stage::Compute => "COMP",
            }
        );
        for i in 0..l.inputs {
            match l.stage {
                Stage::Fragment => {
                    let interp = ["PERSPECTIVE", "LINEAR", "CONSTANT"][(i % 3) as usize];
                    let _ = writeln!(text, "DCL IN[{i}], GENERIC[{i}], {interp}");
                }
                _ => {
                    let _ = writeln!(text, "DCL IN[{i}]");
                }
            }
        }
        if l.stage == Stage::Compute {
            text.push_str("DCL SV[0], THREAD_ID\n");
        }
        for i in 0..l.outputs {
            match (l.stage, i) {
                (Stage::Fragment, 0) => text.push_str("DCL OUT[0], COLOR\n"),
                (Stage::Fragment, _) => {
                    let _ = writeln!(text, "DCL OUT[{i}], COLOR[{i}]");
                }
                (Stage::Vertex, 0) => text.push_str("DCL OUT[0], POSITION\n"),
                (Stage::Vertex, _) => {
                    let _ = writeln!(text, "DCL OUT[{i}], GENERIC[{}]", i - 1);
                }
                (Stage::Compute, _) => {
                    let _ = writeln!(text, "DCL OUT[{i}], GENERIC[{i}]");
                }
            }
        }
        let _ = writeln!(text, "DCL CONST[0..{}]", l.constants - 1);
        let _ = writeln!(text, "DCL TEMP[0..{}]", l.array_first - 1);
        let _ = writeln!(text, "DCL TEMP[{}..{}], ARRAY(1)", l.array_first, l.array_first + l.array_len - 1);
        text.push_str("DCL ADDR[0]\n");
        for (i, imm) in self.imms.iter().enumerate() {
            let body = match imm {
                Imm::F32(v) => format!("FLT32 {{{}}}", join(v.iter().map(|&b| Exact32(f32::from_bits(b))))),
                Imm::U32(v) => format!("UINT32 {{{}}}", join(v.iter())),
                Imm::I32(v) => format!("INT32 {{{}}}", join(v.iter())),
                Imm::F64(v) => format!("FLT64 {{{}}}", join(v.iter().map(|&b| Exact64(f64::from_bits(b))))),
            };
            let _ = writeln!(text, "IMM[{i}] {body}");
        }
        for (index, line) in self.lines.iter().enumerate() {
            let _ = writeln!(text, "{index:>3}: {:indent$}{}", "", line.text, indent = 2 * line.depth);
        }
        text
    }
}

/// An f32 written with the shortest digits that read back to it (`1e-45`,
/// `0.25`, `-0.0`): what C's `strtof` reads exactly.
struct Exact32(f32);

impl std::fmt::Display for Exact32 {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:?}", self.0)
    }
}

/// An f64 written as [`Exact32`] writes an f32.
struct Exact64(f64);

impl std::fmt::Display for Exact64 {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:?}", self.0)
    }
}

fn join<T: std::fmt::Display>(values: impl Iterator<Item = T>) -> String {
    values.map(|v| v.to_string()).collect::<Vec<_>>().join(", ")
}
