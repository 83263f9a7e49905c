//! Registers an instruction names without a declaration covering them.
//!
//! Mesa's parser accepts such shaders (`MOV OUT[0], IN[3]` with only
//! `DCL IN[0]`, or a `TEMP[3]` never declared), so they are not invalid
//! trees; they are almost always mistakes, so tools warn about them.
//! [`undeclared`] finds them; the `tgsi-opt` command line prints each as a
//! located warning.
//!
//! ```
//! let shader = tgsi::parse("VERT\nDCL IN[0]\nDCL OUT[0], POSITION\nMOV OUT[0], IN[3]\nEND\n").unwrap();
//! let found = tgsi::undeclared(&shader);
//! assert_eq!(found.len(), 1);
//! assert_eq!((found[0].item, found[0].register.to_string()), (2, "IN[3]".to_string()));
//! ```

use std::fmt;

use crate::ast::*;
use crate::names::*;
use crate::validate::is_per_vertex;

/// A register an instruction names that no declaration covers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Undeclared {
    /// Index of the instruction in [`Shader::items`].
    pub item: usize,
    /// The register as named (direct indices only).
    pub register: RegisterName,
}

/// A register file and its direct index, with the 2-D index when the
/// file's declarations have one (`CONST[1][3]`) or it is a vertex's
/// (`IN[2][0]` of a geometry shader).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RegisterName {
    /// The file.
    pub file: File,
    /// The 2-D (buffer) index, for files declared with one.
    pub dimension: Option<u16>,
    /// The vertex, for a per-vertex file's register (not declared apart).
    pub vertex: Option<i32>,
    /// The index.
    pub index: i32,
}

impl fmt::Display for RegisterName {
    /// As the text syntax writes it: `IN[3]`, `CONST[1][3]`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.dimension, self.vertex) {
            (Some(d), _) => write!(f, "{}[{d}][{}]", self.file, self.index),
            (None, Some(v)) => write!(f, "{}[{v}][{}]", self.file, self.index),
            (None, None) => write!(f, "{}[{}]", self.file, self.index),
        }
    }
}

/// Every register named by an instruction's operands that no declaration
/// (nor, for `IMM`, immediate) covers, in item order, each once per
/// instruction. Indirectly addressed registers are not checked: their
/// index is known only when the shader runs.
pub fn undeclared(shader: &Shader) -> Vec<Undeclared> {
    let decls: Vec<&Declaration> = shader.declarations().collect();
    let immediates = shader.immediates().count();
    let mut found = Vec::new();
    for (item, it) in shader.items.iter().enumerate() {
        let Item::Instruction(inst) = it else { continue };
        let registers = inst.dst.iter().map(|d| &d.reg).chain(inst.src.iter().map(|s| &s.reg));
        for reg in registers {
            if reg.indirect.is_some() {
                continue;
            }
            let Some(register) = checked_name(shader.processor, reg) else { continue };
            let declared = match reg.file {
                File::Immediate => usize::try_from(reg.index).is_ok_and(|i| i < immediates),
                _ => decls.iter().any(|d| covers(d, &register)),
            };
            let new = !found.iter().any(|u: &Undeclared| u.item == item && u.register == register);
            if !declared && new {
                found.push(Undeclared { item, register });
            }
        }
    }
    found
}

/// The name of `reg` when its file is one whose registers are declared
/// and its indices are direct; `None` otherwise.
fn checked_name(processor: Processor, reg: &Register) -> Option<RegisterName> {
    let declared_file = matches!(
        reg.file,
        File::Input
            | File::Output
            | File::Temporary
            | File::Constant
            | File::Address
            | File::SystemValue
            | File::Sampler
            | File::SamplerView
            | File::Buffer
            | File::Image
            | File::Memory
            | File::Immediate
    );
    if !declared_file {
        return None;
    }
    // A per-vertex file's 2-D index picks the vertex, not the declaration.
    let (dimension, vertex) = match &reg.dimension {
        Some(Dimension { index, .. }) if is_per_vertex(processor, reg.file) => (None, Some(*index)),
        Some(Dimension { indirect: Some(_), .. }) => return None,
        Some(Dimension { index, .. }) => (Some(u16::try_from(*index).ok()?), None),
        None => (None, None),
    };
    Some(RegisterName { file: reg.file, dimension, vertex, index: reg.index })
}

/// Whether declaration `d` covers `register`.
fn covers(d: &Declaration, register: &RegisterName) -> bool {
    d.file == register.file
        && d.dimension.unwrap_or(0) == register.dimension.unwrap_or(0)
        && (i32::from(d.first)..=i32::from(d.last)).contains(&register.index)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(text: &str) -> Vec<(usize, String)> {
        let shader = crate::parse(text).expect("parses");
        undeclared(&shader).iter().map(|u| (u.item, u.register.to_string())).collect()
    }

    #[test]
    fn finds_each_undeclared_register_once_per_instruction() {
        let text = "VERT\nDCL IN[0]\nDCL OUT[0], POSITION\nMOV OUT[2], TEMP[3]\nADD OUT[0], IN[3], IN[3]\nEND\n";
        let want = [(2, "OUT[2]"), (2, "TEMP[3]"), (3, "IN[3]")].map(|(i, s)| (i, s.to_string()));
        assert_eq!(names(text), want);
    }

    #[test]
    fn declared_ranges_arrays_buffers_and_immediates_are_covered() {
        let text = "FRAG\nDCL IN[0..2]\nDCL OUT[0], COLOR\nDCL CONST[1][0..3]\nDCL TEMP[0..3], ARRAY(1)\n\
                    IMM[0] FLT32 { 1.0, 2.0, 3.0, 4.0 }\n\
                    MOV TEMP[3], IN[2]\nMAD OUT[0], TEMP[3], CONST[1][3], IMM[0]\nMOV OUT[0], CONST[0][0]\n\
                    MOV OUT[0], IMM[1]\nEND\n";
        let want = [(7, "CONST[0][0]"), (8, "IMM[1]")].map(|(i, s)| (i, s.to_string()));
        assert_eq!(names(text), want);
    }

    #[test]
    fn per_vertex_and_indirect_registers() {
        let text = "GEOM\nPROPERTY GS_INPUT_PRIMITIVE TRIANGLES\nPROPERTY GS_OUTPUT_PRIMITIVE POINTS\n\
                    PROPERTY GS_MAX_OUTPUT_VERTICES 1\nDCL IN[][0], POSITION\nDCL OUT[0], POSITION\n\
                    DCL ADDR[0]\nDCL TEMP[0..1], ARRAY(1)\n\
                    MOV OUT[0], IN[2][0]\nMOV OUT[0], TEMP[ADDR[0].x+7]\nMOV OUT[0], IN[1][1]\nEND\n";
        assert_eq!(names(text), [(9, "IN[1][1]".to_string())]);
    }
}
