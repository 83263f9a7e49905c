//! What a well-formed syntax tree is: exactly the trees the text syntax can
//! say. The parser builds only such trees; the token decoder checks every
//! tree it builds against these rules, so a decoded shader always prints as
//! text that parses back to the same tree.
//!
//! ```
//! let mut shader = tgsi::parse("FRAG\nDCL TEMP[0]\nMOV TEMP[0], TEMP[0]\nEND\n").unwrap();
//! assert!(tgsi::validate(&shader).is_ok());
//! let tgsi::Item::Instruction(mov) = &mut shader.items[1] else { unreachable!() };
//! mov.src.clear();
//! let err = tgsi::validate(&shader).unwrap_err();
//! assert_eq!(err.to_string(), "item 1: MOV has 0 source operands, expected 1");
//! ```

use crate::ast::*;
use crate::format;
use crate::names::*;
use crate::opcode::flags;

/// A rule of the language that a tree breaks.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("item {item}: {message}")]
pub struct ValidationError {
    /// Index of the offending item in [`Shader::items`].
    pub item: usize,
    /// What is wrong.
    pub message: String,
}

/// Checks that `shader` is a tree the text syntax can say.
pub fn validate(shader: &Shader) -> Result<(), ValidationError> {
    for (item, it) in shader.items.iter().enumerate() {
        let result = match it {
            Item::Property(p) => property(p),
            Item::Declaration(d) => declaration(shader.processor, d),
            Item::Immediate(_) => Ok(()),
            Item::Instruction(inst) => instruction(inst),
        };
        result.map_err(|message| ValidationError { item, message })?;
    }
    Ok(())
}

fn property(p: &Property) -> Result<(), String> {
    let named = match p.name.value_kind() {
        PropertyValueKind::Primitive => Primitive::from_index(p.value).is_some(),
        PropertyValueKind::CoordOrigin => CoordOrigin::from_index(p.value).is_some(),
        PropertyValueKind::PixelCenter => PixelCenter::from_index(p.value).is_some(),
        PropertyValueKind::Processor => Processor::from_index(p.value).is_some(),
        PropertyValueKind::Uint => true,
    };
    if named {
        Ok(())
    } else {
        Err(format!("{} has no value named {}", p.name, p.value))
    }
}

/// Whether declarations of `file` in `processor` take a per-vertex `[]`
/// bracket (so they cannot also have a 2-D index).
pub(crate) fn is_per_vertex(processor: Processor, file: File) -> bool {
    matches!(
        (processor, file),
        (Processor::Geometry | Processor::TessEval, File::Input) | (Processor::TessCtrl, File::Input | File::Output)
    )
}

fn declaration(processor: Processor, d: &Declaration) -> Result<(), String> {
    let file = d.file;
    if d.first > d.last {
        return Err(format!("the range {}..{} ends before it starts", d.first, d.last));
    }
    if d.usage_mask == 0 || d.usage_mask > 0xf {
        return Err(format!("usage mask {:#x} is not a nonempty subset of xyzw", d.usage_mask));
    }
    if d.dimension.is_some() && is_per_vertex(processor, file) {
        return Err(format!("{file} declarations of a {processor} shader have no 2-D index"));
    }
    if d.array_id.is_some_and(|id| id > 1023) {
        return Err("an array id is at most 1023".into());
    }
    let resource = matches!(file, File::Image | File::SamplerView | File::Buffer | File::Memory);
    if resource && (d.local || d.semantic.is_some()) {
        return Err(format!("{file} declarations take no LOCAL or semantic"));
    }
    if d.image.is_some() != (file == File::Image) {
        return Err("only IMAGE declarations have an image part, and they always do".into());
    }
    if d.sampler_view.is_some() != (file == File::SamplerView) {
        return Err("only SVIEW declarations have a sampler-view part, and they always do".into());
    }
    if d.image.is_some_and(|i| format::name(i.format).is_none()) {
        return Err("unknown image format".into());
    }
    if d.semantic.is_none() && d.interpolation.is_some_and(|i| i.mode == InterpolateMode::Color) {
        // Text would read `, COLOR` as the semantic.
        return Err("the interpolation mode COLOR needs a semantic before it".into());
    }
    if d.atomic && file != File::Buffer {
        return Err("only BUFFER declarations can be ATOMIC".into());
    }
    if d.memory_type != MemoryType::Global && file != File::Memory {
        return Err("only MEMORY declarations have a memory type".into());
    }
    if let Some(sem) = d.semantic {
        if sem.streams != [0; 4] && !(file == File::Output && processor == Processor::Geometry) {
            return Err("only geometry shader outputs have vertex streams".into());
        }
        if sem.streams.iter().any(|&s| s > 3) {
            return Err("a vertex stream is 0 to 3".into());
        }
    }
    Ok(())
}

fn register(reg: &Register) -> Result<(), String> {
    if reg.indirect.is_none() && reg.index < 0 {
        return Err(format!("{}[{}] has a negative index", reg.file, reg.index));
    }
    if let Some(dim) = &reg.dimension {
        if dim.indirect.is_none() && dim.index < 0 {
            return Err(format!("{} has a negative 2-D index {}", reg.file, dim.index));
        }
    }
    let indirects = reg.indirect.iter().chain(reg.dimension.as_ref().and_then(|d| d.indirect.as_ref()));
    for ind in indirects {
        if ind.index < 0 {
            return Err(format!("index register {}[{}] has a negative index", ind.file, ind.index));
        }
        if ind.component > 3 || ind.array_id > 1023 {
            return Err("an index register reads one of x, y, z, w, within array ids 0 to 1023".into());
        }
    }
    Ok(())
}

fn instruction(inst: &Instruction) -> Result<(), String> {
    let info = inst.opcode.info();
    let name = info.name;
    if inst.dst.len() != info.num_dst as usize {
        return Err(format!("{name} has {} destination operands, expected {}", inst.dst.len(), info.num_dst));
    }
    let optional = info.has(flags::OPTIONAL_SRC) && inst.src.is_empty();
    if inst.src.len() != info.num_src as usize && !optional {
        return Err(format!("{name} has {} source operands, expected {}", inst.src.len(), info.num_src));
    }
    for dst in &inst.dst {
        if dst.write_mask == 0 || dst.write_mask > 0xf {
            return Err(format!("{name} has a destination with write mask {:#x}", dst.write_mask));
        }
        register(&dst.reg)?;
    }
    for src in &inst.src {
        if src.swizzle.iter().any(|&c| c > 3) {
            return Err(format!("{name} has a swizzle component outside xyzw"));
        }
        register(&src.reg)?;
    }
    let textured = info.is_tex() || info.has(flags::SAMPLE);
    match &inst.texture {
        Some(tex) => {
            if !textured {
                return Err(format!("{name} takes no texture target or offsets"));
            }
            if info.has(flags::SAMPLE) && tex.target != TextureTarget::Unknown {
                return Err(format!("{name} has no texture target (its texture part says UNKNOWN)"));
            }
            if tex.offsets.len() > 4 {
                return Err(format!("{name} has {} texture offsets; at most 4", tex.offsets.len()));
            }
            if tex.offsets.iter().any(|o| o.index < 0 || o.swizzle.iter().any(|&c| c > 3)) {
                return Err(format!("{name} has a malformed texture offset"));
            }
        }
        None if textured => return Err(format!("{name} needs a texture part")),
        None => {}
    }
    match &inst.memory {
        Some(mem) => {
            if !info.has(flags::MEMORY) {
                return Err(format!("{name} takes no memory qualifiers"));
            }
            if mem.qualifier > 0xf || format::name(mem.format).is_none() {
                return Err(format!("{name} has an unknown memory qualifier or format"));
            }
        }
        None if info.has(flags::MEMORY) => return Err(format!("{name} needs a memory part")),
        None => {}
    }
    if inst.label.is_some() && !info.is_branch() {
        return Err(format!("{name} takes no label"));
    }
    if inst.label.is_some_and(|l| l >= 1 << 24) {
        return Err("a label is below 2^24".into());
    }
    Ok(())
}
