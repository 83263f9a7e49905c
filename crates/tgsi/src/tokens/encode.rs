//! Syntax tree to token words.

use super::layout::{decl, dim, dst, header, imm, ind, inst, processor, prop, src, token};
use super::{EncodeError, Field};
use crate::ast::*;
use crate::names::*;

/// Encodes a shader as Mesa's token words.
///
/// Fails on a legacy opcode (one with no Mesa number) and on any value that
/// does not fit its token field; nothing is silently wrapped.
pub fn encode(shader: &Shader) -> Result<Vec<u32>, EncodeError> {
    let mut out = vec![0, processor::PROCESSOR.put(shader.processor.index())];
    for (item, it) in shader.items.iter().enumerate() {
        let mut e = Encoder { item, out: &mut out };
        match it {
            Item::Property(p) => e.property(p),
            Item::Declaration(d) => e.declaration(d)?,
            Item::Immediate(i) => e.immediate(i),
            Item::Instruction(i) => e.instruction(i)?,
        }
    }
    let body = out.len() - 2;
    if body > header::BODY_SIZE.max() as usize {
        return Err(EncodeError::TooLong { words: body });
    }
    out[0] = header::HEADER_SIZE.put(2) | header::BODY_SIZE.put(body as u32);
    Ok(out)
}

/// Appends the words of one item.
struct Encoder<'a> {
    item: usize,
    out: &'a mut Vec<u32>,
}

impl Encoder<'_> {
    /// `value` placed in an unsigned `field`, or an error naming `what`.
    fn unsigned(&self, what: &'static str, value: u64, field: Field) -> Result<u32, EncodeError> {
        match u32::try_from(value) {
            Ok(v) if v <= field.max() => Ok(field.put(v)),
            _ => Err(EncodeError::OutOfRange {
                item: self.item,
                what,
                value: i64::try_from(value).unwrap_or(i64::MAX),
                min: 0,
                max: i64::from(field.max()),
            }),
        }
    }

    /// `value` placed in a two's-complement `field`, or an error naming `what`.
    fn signed(&self, what: &'static str, value: i32, field: Field) -> Result<u32, EncodeError> {
        let max = i64::from(field.max() >> 1);
        let min = -max - 1;
        let v = i64::from(value);
        if v < min || v > max {
            return Err(EncodeError::OutOfRange { item: self.item, what, value: v, min, max });
        }
        Ok(field.put(value as u32))
    }

    /// Starts an item: pushes a placeholder for its first word and returns
    /// the placeholder's position.
    fn begin(&mut self) -> usize {
        self.out.push(0);
        self.out.len() - 1
    }

    fn push(&mut self, word: u32) {
        self.out.push(word);
    }

    fn property(&mut self, p: &Property) {
        self.push(token::TYPE.put(token::PROPERTY) | token::NR_TOKENS.put(2) | prop::NAME.put(p.name.index()));
        self.push(p.value);
    }

    fn immediate(&mut self, i: &Immediate) {
        self.push(token::TYPE.put(token::IMMEDIATE) | imm::NR_TOKENS.put(5) | imm::DATA_TYPE.put(i.ty.index()));
        for &d in &i.data {
            self.push(d);
        }
    }

    fn declaration(&mut self, d: &Declaration) -> Result<(), EncodeError> {
        if d.file != File::Image && d.image.is_some() {
            return Err(self.inconsistent("image information on a declaration that is not IMAGE"));
        }
        if d.file != File::SamplerView && d.sampler_view.is_some() {
            return Err(self.inconsistent("sampler view information on a declaration that is not SVIEW"));
        }
        let start = self.begin();
        let first = token::TYPE.put(token::DECLARATION)
            | decl::FILE.put(d.file.index())
            | self.unsigned("usage mask", u64::from(d.usage_mask), decl::USAGE_MASK)?
            | decl::DIMENSION.put_flag(d.dimension.is_some())
            | decl::SEMANTIC.put_flag(d.semantic.is_some())
            | decl::INTERPOLATE.put_flag(d.interpolation.is_some())
            | decl::INVARIANT.put_flag(d.invariant)
            | decl::LOCAL.put_flag(d.local)
            | decl::ARRAY.put_flag(d.array_id.is_some())
            | decl::ATOMIC.put_flag(d.atomic)
            | decl::MEM_TYPE.put(d.memory_type.index());

        self.push(decl::RANGE_FIRST.put(u32::from(d.first)) | decl::RANGE_LAST.put(u32::from(d.last)));
        if let Some(index) = d.dimension {
            self.push(decl::INDEX_2D.put(u32::from(index)));
        }
        if let Some(interp) = d.interpolation {
            self.push(decl::INTERP_MODE.put(interp.mode.index()) | decl::INTERP_LOCATION.put(interp.location.index()));
        }
        if let Some(sem) = d.semantic {
            let mut w = decl::SEMANTIC_NAME.put(sem.name.index()) | decl::SEMANTIC_INDEX.put(u32::from(sem.index));
            for (&s, field) in sem.streams.iter().zip(decl::STREAM) {
                w |= self.unsigned("vertex stream", u64::from(s), field)?;
            }
            self.push(w);
        }
        if d.file == File::Image {
            // An IMAGE declaration always has this token; without details it is zero.
            let w = match d.image {
                Some(image) => {
                    decl::IMAGE_RESOURCE.put(image.target.index())
                        | decl::IMAGE_RAW.put_flag(image.raw)
                        | decl::IMAGE_WRITABLE.put_flag(image.writable)
                        | self.unsigned("image format", u64::from(image.format), decl::IMAGE_FORMAT)?
                }
                None => 0,
            };
            self.push(w);
        }
        if d.file == File::SamplerView {
            let w = match d.sampler_view {
                Some(sv) => sv
                    .return_types
                    .iter()
                    .zip(decl::SVIEW_RETURN)
                    .fold(decl::SVIEW_RESOURCE.put(sv.target.index()), |w, (rt, field)| w | field.put(rt.index())),
                None => 0,
            };
            self.push(w);
        }
        if let Some(id) = d.array_id {
            let w = self.unsigned("array id", u64::from(id), decl::ARRAY_ID)?;
            self.push(w);
        }
        let words = self.out.len() - start;
        self.out[start] = first | self.unsigned("declaration length", words as u64, token::NR_TOKENS)?;
        Ok(())
    }

    fn instruction(&mut self, i: &Instruction) -> Result<(), EncodeError> {
        let opcode = i.opcode.mesa().ok_or(EncodeError::NoMesaOpcode { item: self.item, opcode: i.opcode })?;
        let start = self.begin();
        let first = token::TYPE.put(token::INSTRUCTION)
            | inst::OPCODE.put(u32::from(opcode))
            | inst::SATURATE.put_flag(i.saturate)
            | self.unsigned("destination count", i.dst.len() as u64, inst::NUM_DST)?
            | self.unsigned("source count", i.src.len() as u64, inst::NUM_SRC)?
            | inst::LABEL.put_flag(i.label.is_some())
            | inst::TEXTURE.put_flag(i.texture.is_some())
            | inst::MEMORY.put_flag(i.memory.is_some())
            | inst::PRECISE.put_flag(i.precise);

        if let Some(label) = i.label {
            let w = self.unsigned("label", u64::from(label), inst::LABEL_VALUE)?;
            self.push(w);
        }
        if let Some(tex) = &i.texture {
            let w = inst::TEX_TARGET.put(tex.target.index())
                | self.unsigned("texture offset count", tex.offsets.len() as u64, inst::TEX_NUM_OFFSETS)?;
            self.push(w);
            for o in &tex.offsets {
                let mut w = self.signed("texture offset index", o.index, inst::OFFSET_INDEX)?
                    | inst::OFFSET_FILE.put(o.file.index());
                for (&s, field) in o.swizzle.iter().zip(inst::OFFSET_SWIZZLE) {
                    w |= self.unsigned("texture offset swizzle", u64::from(s), field)?;
                }
                self.push(w);
            }
        }
        if let Some(mem) = i.memory {
            let w = self.unsigned("memory qualifier", u64::from(mem.qualifier), inst::MEM_QUALIFIER)?
                | inst::MEM_TEXTURE.put(mem.texture.index())
                | self.unsigned("memory format", u64::from(mem.format), inst::MEM_FORMAT)?;
            self.push(w);
        }
        for d in &i.dst {
            let r = &d.reg;
            let w = dst::FILE.put(r.file.index())
                | self.unsigned("write mask", u64::from(d.write_mask), dst::WRITE_MASK)?
                | dst::INDIRECT.put_flag(r.indirect.is_some())
                | dst::DIMENSION.put_flag(r.dimension.is_some())
                | self.signed("register index", r.index, dst::INDEX)?;
            self.push(w);
            self.register_extras(r)?;
        }
        for s in &i.src {
            let r = &s.reg;
            let mut w = src::FILE.put(r.file.index())
                | src::INDIRECT.put_flag(r.indirect.is_some())
                | src::DIMENSION.put_flag(r.dimension.is_some())
                | self.signed("register index", r.index, src::INDEX)?
                | src::ABSOLUTE.put_flag(s.absolute)
                | src::NEGATE.put_flag(s.negate);
            for (&c, field) in s.swizzle.iter().zip(src::SWIZZLE) {
                w |= self.unsigned("swizzle", u64::from(c), field)?;
            }
            self.push(w);
            self.register_extras(r)?;
        }
        // An instruction's NrTokens leaves out the instruction token itself.
        let extra = self.out.len() - start - 1;
        self.out[start] = first | self.unsigned("instruction length", extra as u64, token::NR_TOKENS)?;
        Ok(())
    }

    /// The indirect and 2-D tokens that follow a register token.
    fn register_extras(&mut self, r: &Register) -> Result<(), EncodeError> {
        if let Some(indirect) = &r.indirect {
            self.indirect(indirect)?;
        }
        if let Some(d) = &r.dimension {
            let w =
                dim::INDIRECT.put_flag(d.indirect.is_some()) | self.signed("dimension index", d.index, dim::INDEX)?;
            self.push(w);
            if let Some(indirect) = &d.indirect {
                self.indirect(indirect)?;
            }
        }
        Ok(())
    }

    fn indirect(&mut self, i: &Indirect) -> Result<(), EncodeError> {
        let w = ind::FILE.put(i.file.index())
            | self.signed("indirect index", i.index, ind::INDEX)?
            | self.unsigned("indirect component", u64::from(i.component), ind::SWIZZLE)?
            | self.unsigned("indirect array id", u64::from(i.array_id), ind::ARRAY_ID)?;
        self.push(w);
        Ok(())
    }

    fn inconsistent(&self, what: &'static str) -> EncodeError {
        EncodeError::Inconsistent { item: self.item, what }
    }
}
