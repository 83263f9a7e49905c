//! The canonical printer: Mesa's `tgsi_dump` layout.
//!
//! [`Style::Mesa`] is byte for byte what `tgsi_dump` prints, including its
//! lossy `%10.4f` floats. [`Style::Exact`] has the same layout, but writes
//! an immediate Mesa's way only when that text reads back to the same bits,
//! and otherwise with the shortest digits that do.
//!
//! ```
//! let shader = tgsi::parse("FRAG\nIMM FLT32 { 0.1, 1e-7, 0.5, -0.0 }\nEND").unwrap();
//! assert_eq!(
//!     tgsi::print(&shader, tgsi::Style::Mesa),
//!     "FRAG\nIMM[0] FLT32 {    0.1000,     0.0000,     0.5000,    -0.0000}\n  0: END\n"
//! );
//! assert_eq!(
//!     tgsi::print(&shader, tgsi::Style::Exact),
//!     "FRAG\nIMM[0] FLT32 {    0.1000,       1e-7,     0.5000,    -0.0000}\n  0: END\n"
//! );
//! ```

use crate::ast::*;
use crate::format;
use crate::names::*;
use crate::opcode::{flags, Opcode};
use crate::parse::number;
use std::fmt::Write;

/// How immediates are written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Style {
    /// Mesa's layout, but every immediate reads back to the same bits.
    #[default]
    Exact,
    /// Byte for byte what Mesa's `tgsi_dump` prints (lossy floats).
    Mesa,
}

/// Prints a shader as canonical text.
pub fn print(shader: &Shader, style: Style) -> String {
    let mut out = String::with_capacity(shader.items.len() * 40);
    Printer { out: &mut out, style, processor: shader.processor }.shader(shader);
    out
}

/// The line of `printed`, a shader [`print()`] wrote, that holds item `k`
/// of its [`Shader::items`], trimmed: the processor's line comes first,
/// then one line an item.
///
/// ```
/// let shader = tgsi::parse("FRAG\nDCL OUT[0], COLOR\nMOV OUT[0], OUT[0]\nEND\n").unwrap();
/// let printed = tgsi::print(&shader, tgsi::Style::Exact);
/// assert_eq!(tgsi::print::item_line(&printed, 1), Some("0: MOV OUT[0], OUT[0]"));
/// ```
pub fn item_line(printed: &str, k: usize) -> Option<&str> {
    printed.lines().nth(k + 1).map(str::trim)
}

/// How many nesting levels indent a line, at most: two spaces each. The
/// default limits (`Limits::DEFAULT.max_nesting`) keep every accepted
/// shader within it, so Mesa's layout is kept exactly there.
pub const MAX_INDENT_LEVELS: usize = 64;

/// The deepest indentation.
const SPACES: &str = match str::from_utf8(&[b' '; 2 * MAX_INDENT_LEVELS]) {
    Ok(s) => s,
    Err(_) => panic!("spaces are ASCII"),
};

struct Printer<'a> {
    out: &'a mut String,
    style: Style,
    processor: Processor,
}

/// Writes an enum value by name, or its number when it has no name (as
/// Mesa's `dump_enum` does).
fn enum_name<T: Copy>(value: u32, from_index: impl Fn(u32) -> Option<T>, name: impl Fn(T) -> &'static str) -> String {
    match from_index(value) {
        Some(v) => name(v).to_string(),
        None => value.to_string(),
    }
}

impl Printer<'_> {
    fn shader(&mut self, shader: &Shader) {
        self.out.push_str(self.processor.name());
        self.out.push('\n');
        let mut immno = 0;
        let mut instno = 0u32;
        let mut indent = 0i32;
        for item in &shader.items {
            match item {
                Item::Property(p) => self.property(p),
                Item::Declaration(d) => self.declaration(d),
                Item::Immediate(imm) => {
                    self.immediate(immno, imm);
                    immno += 1;
                }
                Item::Instruction(inst) => {
                    self.instruction(instno, &mut indent, inst);
                    instno += 1;
                }
            }
            self.out.push('\n');
        }
    }

    fn property(&mut self, p: &Property) {
        let value = match p.name.value_kind() {
            PropertyValueKind::Primitive => enum_name(p.value, Primitive::from_index, Primitive::name),
            PropertyValueKind::CoordOrigin => enum_name(p.value, CoordOrigin::from_index, CoordOrigin::name),
            PropertyValueKind::PixelCenter => enum_name(p.value, PixelCenter::from_index, PixelCenter::name),
            PropertyValueKind::Processor => enum_name(p.value, Processor::from_index, Processor::name),
            // Mesa prints property data with %d, which Mesa cannot read
            // back above i32::MAX; the exact style prints it unsigned.
            PropertyValueKind::Uint if self.style == Style::Mesa => (p.value as i32).to_string(),
            PropertyValueKind::Uint => p.value.to_string(),
        };
        let _ = write!(self.out, "PROPERTY {} {}", p.name, value);
    }

    fn writemask(&mut self, mask: u8) {
        if mask != 0xf {
            self.out.push('.');
            for (bit, letter) in SWIZZLE_NAMES.iter().enumerate() {
                if mask & (1 << bit) != 0 {
                    self.out.push(*letter);
                }
            }
        }
    }

    fn declaration(&mut self, d: &Declaration) {
        let patch = d.semantic.is_some_and(|s| {
            matches!(
                s.name,
                SemanticName::Patch | SemanticName::TessInner | SemanticName::TessOuter | SemanticName::PrimId
            )
        });
        self.out.push_str("DCL ");
        self.out.push_str(d.file.name());
        let per_vertex_input = d.file == File::Input
            && (self.processor == Processor::Geometry
                || (!patch && matches!(self.processor, Processor::TessCtrl | Processor::TessEval)));
        let per_vertex_output = d.file == File::Output && !patch && self.processor == Processor::TessCtrl;
        if per_vertex_input || per_vertex_output {
            self.out.push_str("[]");
        }
        if let Some(dim) = d.dimension {
            let _ = write!(self.out, "[{dim}]");
        }
        if d.first == d.last {
            let _ = write!(self.out, "[{}]", d.first);
        } else {
            let _ = write!(self.out, "[{}..{}]", d.first, d.last);
        }
        self.writemask(d.usage_mask);
        if let Some(id) = d.array_id {
            let _ = write!(self.out, ", ARRAY({id})");
        }
        if d.local {
            self.out.push_str(", LOCAL");
        }
        if let Some(sem) = d.semantic {
            let _ = write!(self.out, ", {}", sem.name);
            if sem.index != 0 || matches!(sem.name, SemanticName::TexCoord | SemanticName::Generic) {
                let _ = write!(self.out, "[{}]", sem.index);
            }
            if sem.streams != [0; 4] {
                let [x, y, z, w] = sem.streams;
                let _ = write!(self.out, ", STREAM({x}, {y}, {z}, {w})");
            }
        }
        if d.file == File::Image {
            let image =
                d.image.unwrap_or(ImageDecl { target: TextureTarget::Buffer, raw: false, writable: false, format: 0 });
            let _ = write!(self.out, ", {}, {}", image.target, format_name(image.format));
            if image.writable {
                self.out.push_str(", WR");
            }
            if image.raw {
                self.out.push_str(", RAW");
            }
        }
        if d.file == File::Buffer && d.atomic {
            self.out.push_str(", ATOMIC");
        }
        if d.file == File::Memory {
            let _ = write!(self.out, ", {}", d.memory_type);
        }
        if d.file == File::SamplerView {
            let sv = d
                .sampler_view
                .unwrap_or(SamplerViewDecl { target: TextureTarget::Buffer, return_types: [ReturnType::Unorm; 4] });
            let _ = write!(self.out, ", {}, ", sv.target);
            let [x, y, z, w] = sv.return_types;
            if x == y && x == z && x == w {
                self.out.push_str(x.name());
            } else {
                let _ = write!(self.out, "{x}, {y}, {z}, {w}");
            }
        }
        if let Some(interp) = d.interpolation {
            // Mesa prints the mode of fragment inputs only; the exact style
            // keeps it everywhere.
            if self.style == Style::Exact || (self.processor == Processor::Fragment && d.file == File::Input) {
                let _ = write!(self.out, ", {}", interp.mode);
            }
            if interp.location != InterpolateLocation::Center {
                let _ = write!(self.out, ", {}", interp.location);
            }
        }
        if d.invariant {
            self.out.push_str(", INVARIANT");
        }
    }

    fn immediate(&mut self, index: u32, imm: &Immediate) {
        let _ = write!(self.out, "IMM[{index}] {} {{", imm.ty);
        let d = imm.data;
        let values: Vec<String> = match imm.ty {
            ImmediateType::Float32 => d.iter().map(|&bits| self.float32(bits)).collect(),
            ImmediateType::Uint32 => d.iter().map(|v| v.to_string()).collect(),
            ImmediateType::Int32 => d.iter().map(|&v| (v as i32).to_string()).collect(),
            ImmediateType::Float64 => {
                [0, 2].iter().map(|&i| self.float64(d[i] as u64 | (d[i + 1] as u64) << 32)).collect()
            }
            ImmediateType::Uint64 => {
                [0, 2].iter().map(|&i| (d[i] as u64 | (d[i + 1] as u64) << 32).to_string()).collect()
            }
            ImmediateType::Int64 => {
                [0, 2].iter().map(|&i| ((d[i] as u64 | (d[i + 1] as u64) << 32) as i64).to_string()).collect()
            }
        };
        self.out.push_str(&values.join(", "));
        self.out.push('}');
    }

    fn float32(&self, bits: u32) -> String {
        let v = f32::from_bits(bits);
        let mesa = c_fixed(v as f64, 4, 10);
        if self.style == Style::Mesa || number::parse_f32(mesa.trim_start()).to_bits() == bits {
            return mesa;
        }
        if v.is_nan() {
            return format!("{:>10}", nan_text(v.is_sign_negative(), (bits & 0x7f_ffff) as u64));
        }
        format!("{:>10}", shortest(format!("{v}"), format!("{v:e}")))
    }

    fn float64(&self, bits: u64) -> String {
        let v = f64::from_bits(bits);
        let mesa = c_fixed(v, 8, 10);
        if self.style == Style::Mesa || number::parse_f64(mesa.trim_start()).to_bits() == bits {
            return mesa;
        }
        if v.is_nan() {
            return format!("{:>10}", nan_text(v.is_sign_negative(), bits & 0xf_ffff_ffff_ffff));
        }
        format!("{:>10}", shortest(format!("{v}"), format!("{v:e}")))
    }

    fn instruction(&mut self, instno: u32, indent: &mut i32, inst: &Instruction) {
        let info = inst.opcode.info();
        let _ = write!(self.out, "{instno:3}: ");
        if info.has(flags::PRE_DEDENT) {
            *indent -= 1;
        }
        // Mesa's layout, two spaces a level, up to MAX_INDENT_LEVELS: past
        // that, deeper lines align with the deepest indented ones, so the
        // text stays linear in the program however deep it nests.
        let levels = usize::try_from(*indent).unwrap_or(0).min(MAX_INDENT_LEVELS);
        self.out.push_str(&SPACES[..2 * levels]);
        if info.has(flags::POST_INDENT) {
            *indent += 1;
        }
        self.out.push_str(info.name);
        if inst.saturate {
            self.out.push_str("_SAT");
        }
        if inst.precise {
            self.out.push_str("_PRECISE");
        }
        let mut first = true;
        for dst in &inst.dst {
            self.out.push_str(if first { " " } else { ", " });
            first = false;
            self.register(&dst.reg);
            self.writemask(dst.write_mask);
        }
        for src in &inst.src {
            self.out.push_str(if first { " " } else { ", " });
            first = false;
            if src.negate {
                self.out.push('-');
            }
            if src.absolute {
                self.out.push('|');
            }
            self.register(&src.reg);
            if src.swizzle != IDENTITY_SWIZZLE {
                self.out.push('.');
                for &c in &src.swizzle {
                    self.out.push(SWIZZLE_NAMES[c as usize & 3]);
                }
            }
            if src.absolute {
                self.out.push('|');
            }
        }
        if let Some(tex) = &inst.texture {
            if !info.has(flags::SAMPLE) {
                let _ = write!(self.out, ", {}", tex.target);
            }
            for off in &tex.offsets {
                let _ = write!(self.out, ", {}[{}].", off.file, off.index);
                for &c in &off.swizzle {
                    self.out.push(SWIZZLE_NAMES[c as usize & 3]);
                }
            }
        }
        if let Some(mem) = &inst.memory {
            for q in MemoryQualifier::ALL {
                if mem.qualifier & (1 << q.index()) != 0 {
                    let _ = write!(self.out, ", {q}");
                }
            }
            if mem.texture != TextureTarget::Buffer {
                let _ = write!(self.out, ", {}", mem.texture);
            }
            if mem.format != 0 {
                let _ = write!(self.out, ", {}", format_name(mem.format));
            }
        }
        if let Some(label) = inst.label {
            if prints_label(inst.opcode) {
                let _ = write!(self.out, " :{label}");
            }
        }
    }

    fn indirect(&mut self, ind: &Indirect, offset: i32) {
        let _ = write!(self.out, "[{}[{}].{}", ind.file, ind.index, SWIZZLE_NAMES[ind.component as usize & 3]);
        if offset > 0 {
            let _ = write!(self.out, "+{offset}");
        } else if offset < 0 {
            let _ = write!(self.out, "{offset}");
        }
        self.out.push(']');
        if ind.array_id != 0 {
            let _ = write!(self.out, "({})", ind.array_id);
        }
    }

    fn register(&mut self, reg: &Register) {
        self.out.push_str(reg.file.name());
        if let Some(dim) = &reg.dimension {
            match &dim.indirect {
                Some(ind) => self.indirect(ind, dim.index),
                None => {
                    let _ = write!(self.out, "[{}]", dim.index);
                }
            }
        }
        match &reg.indirect {
            Some(ind) => self.indirect(ind, reg.index),
            None => {
                let _ = write!(self.out, "[{}]", reg.index);
            }
        }
    }
}

/// Mesa prints a label only for these opcodes.
fn prints_label(op: Opcode) -> bool {
    use Opcode::*;
    matches!(op, If | Uif | Else | Bgnloop | Endloop | Cal | Bgnsub) || (op.info().is_legacy() && op.info().is_branch())
}

fn format_name(n: u16) -> String {
    format::name(n).map_or_else(|| n.to_string(), str::to_string)
}

/// C's `%W.Pf` for a double, glibc spelling of infinities and NaNs.
fn c_fixed(v: f64, precision: usize, width: usize) -> String {
    let body = if v.is_nan() {
        if v.is_sign_negative() { "-nan" } else { "nan" }.to_string()
    } else if v.is_infinite() {
        if v < 0.0 { "-inf" } else { "inf" }.to_string()
    } else {
        format!("{v:.precision$}")
    };
    format!("{body:>width$}")
}

/// A NaN with its payload: `nan(0x...)`, read back by C's `strtof`.
fn nan_text(negative: bool, mantissa: u64) -> String {
    format!("{}nan(0x{mantissa:x})", if negative { "-" } else { "" })
}

fn shortest(plain: String, exp: String) -> String {
    if exp.len() < plain.len() {
        exp
    } else {
        plain
    }
}
