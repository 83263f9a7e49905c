//! Token words to syntax tree.

use super::layout::{decl, dim, dst, header, imm, ind, inst, processor, prop, src, token};
use super::{DecodeError, Field, Problem};
use crate::ast::*;
use crate::limits::{Limit, LimitCounter, LimitExceeded, Limits};
use crate::names::*;
use crate::opcode::Opcode;
use smallvec::SmallVec;

/// Decodes Mesa's token words, within [`Limits::default()`].
///
/// Never panics: every malformed input is a [`DecodeError`] naming the word
/// where the problem is.
pub fn decode(words: &[u32]) -> Result<Shader, DecodeError> {
    decode_with_limits(words, &Limits::default())
}

/// Decodes Mesa's token words, refusing a stream past `limits` with
/// [`Problem::Limit`] at the offending item's first word (a stream with
/// too many words: at the header).
pub fn decode_with_limits(words: &[u32], limits: &Limits) -> Result<Shader, DecodeError> {
    let head = *words.first().ok_or(at(0, Problem::Truncated("header")))?;
    let header_size = header::HEADER_SIZE.get(head);
    if header_size != 2 {
        return Err(at(0, Problem::HeaderSize(header_size)));
    }
    let proc_word = *words.get(1).ok_or(at(1, Problem::Truncated("header")))?;
    let proc_number = processor::PROCESSOR.get(proc_word);
    let processor = Processor::from_index(proc_number).ok_or(at(1, unknown("processor", proc_number)))?;

    let declared = header::BODY_SIZE.get(head) as usize;
    let actual = words.len() - 2;
    if declared > actual {
        return Err(at(0, Problem::BodyTooShort { declared, actual }));
    }
    if declared < actual {
        return Err(at(2 + declared, Problem::TrailingWords(actual - declared)));
    }
    if declared > limits.max_tokens {
        let (value, max) = (declared as u64, limits.max_tokens as u64);
        return Err(at(0, Problem::Limit(LimitExceeded { limit: Limit::Tokens, value, max })));
    }

    let mut r = Reader { words, pos: 2 };
    let mut items = Vec::new();
    let mut starts = Vec::new();
    let mut counter = LimitCounter::new(limits);
    while r.pos < words.len() {
        let start = r.pos;
        let item = r.item()?;
        counter.item(&item).map_err(|e| at(start, Problem::Limit(e)))?;
        starts.push(start);
        items.push(item);
    }
    let shader = Shader { processor, items };
    // Only trees the text syntax can say: then every decoded shader prints
    // as text that parses back to it.
    crate::validate(&shader).map_err(|e| at(starts.get(e.item).copied().unwrap_or(2), Problem::Invalid(e.message)))?;
    Ok(shader)
}

fn at(word: usize, problem: Problem) -> DecodeError {
    DecodeError::Token { word, problem }
}

fn unknown(what: &'static str, value: u32) -> Problem {
    Problem::Unknown { what, value }
}

/// Looks a Mesa number up, or reports it as unknown at `word`.
fn lookup<T>(found: Option<T>, word: usize, what: &'static str, value: u32) -> Result<T, DecodeError> {
    found.ok_or(at(word, unknown(what, value)))
}

/// The register file in `field` of `word` (at `index`).
fn file(field: Field, word: u32, index: usize) -> Result<File, DecodeError> {
    let n = field.get(word);
    lookup(File::from_index(n), index, "register file", n)
}

/// The texture target in `field` of `word` (at `index`).
fn texture(field: Field, word: u32, index: usize) -> Result<TextureTarget, DecodeError> {
    let n = field.get(word);
    lookup(TextureTarget::from_index(n), index, "texture target", n)
}

/// Checks an item's `NrTokens` once its words are read.
fn check_size(item: &'static str, word: u32, start: usize, expected: usize) -> Result<(), DecodeError> {
    let declared = token::NR_TOKENS.get(word);
    if declared as usize != expected {
        return Err(at(start, Problem::NrTokens { item, declared, expected }));
    }
    Ok(())
}

/// A cursor over the body.
struct Reader<'a> {
    words: &'a [u32],
    pos: usize,
}

impl Reader<'_> {
    /// The next word and its index; `what` names the token it belongs to.
    fn next(&mut self, what: &'static str) -> Result<(u32, usize), DecodeError> {
        let index = self.pos;
        let word = *self.words.get(index).ok_or(at(index, Problem::Truncated(what)))?;
        self.pos += 1;
        Ok((word, index))
    }

    fn item(&mut self) -> Result<Item, DecodeError> {
        let start = self.pos;
        let (word, _) = self.next("item")?;
        match token::TYPE.get(word) {
            token::DECLARATION => self.declaration(word, start).map(Item::Declaration),
            token::IMMEDIATE => self.immediate(word, start).map(Item::Immediate),
            token::INSTRUCTION => self.instruction(word, start).map(Item::Instruction),
            token::PROPERTY => self.property(word, start).map(Item::Property),
            other => Err(at(start, unknown("token type", other))),
        }
    }

    fn declaration(&mut self, w: u32, start: usize) -> Result<Declaration, DecodeError> {
        let file = file(decl::FILE, w, start)?;
        let mem_type = decl::MEM_TYPE.get(w);
        let memory_type = lookup(MemoryType::from_index(mem_type), start, "memory type", mem_type)?;

        let (range, _) = self.next("declaration range")?;
        let mut d = Declaration::new(file, decl::RANGE_FIRST.get(range) as u16, decl::RANGE_LAST.get(range) as u16);
        d.usage_mask = decl::USAGE_MASK.get(w) as u8;
        d.invariant = decl::INVARIANT.flag(w);
        d.local = decl::LOCAL.flag(w);
        d.atomic = decl::ATOMIC.flag(w);
        d.memory_type = memory_type;

        if decl::DIMENSION.flag(w) {
            let (t, _) = self.next("declaration dimension")?;
            d.dimension = Some(decl::INDEX_2D.get(t) as u16);
        }
        if decl::INTERPOLATE.flag(w) {
            let (t, i) = self.next("declaration interpolation")?;
            let m = decl::INTERP_MODE.get(t);
            let l = decl::INTERP_LOCATION.get(t);
            d.interpolation = Some(Interpolation {
                mode: lookup(InterpolateMode::from_index(m), i, "interpolation mode", m)?,
                location: lookup(InterpolateLocation::from_index(l), i, "interpolation location", l)?,
            });
        }
        if decl::SEMANTIC.flag(w) {
            let (t, i) = self.next("declaration semantic")?;
            let n = decl::SEMANTIC_NAME.get(t);
            d.semantic = Some(Semantic {
                name: lookup(SemanticName::from_index(n), i, "semantic name", n)?,
                index: decl::SEMANTIC_INDEX.get(t) as u16,
                streams: decl::STREAM.map(|f| f.get(t) as u8),
            });
        }
        if file == File::Image {
            let (t, i) = self.next("declaration image")?;
            d.image = Some(ImageDecl {
                target: texture(decl::IMAGE_RESOURCE, t, i)?,
                raw: decl::IMAGE_RAW.flag(t),
                writable: decl::IMAGE_WRITABLE.flag(t),
                format: decl::IMAGE_FORMAT.get(t) as u16,
            });
        }
        if file == File::SamplerView {
            let (t, i) = self.next("declaration sampler view")?;
            let mut return_types = [ReturnType::Unorm; 4];
            for (rt, field) in return_types.iter_mut().zip(decl::SVIEW_RETURN) {
                let n = field.get(t);
                *rt = lookup(ReturnType::from_index(n), i, "return type", n)?;
            }
            d.sampler_view = Some(SamplerViewDecl { target: texture(decl::SVIEW_RESOURCE, t, i)?, return_types });
        }
        if decl::ARRAY.flag(w) {
            let (t, _) = self.next("declaration array")?;
            d.array_id = Some(decl::ARRAY_ID.get(t) as u16);
        }
        check_size("declaration", w, start, self.pos - start)?;
        Ok(d)
    }

    fn immediate(&mut self, w: u32, start: usize) -> Result<Immediate, DecodeError> {
        let t = imm::DATA_TYPE.get(w);
        let ty = lookup(ImmediateType::from_index(t), start, "immediate type", t)?;
        let nr = imm::NR_TOKENS.get(w);
        if nr != 5 {
            return Err(at(start, Problem::ImmediateSize(nr)));
        }
        let mut data = [0; 4];
        for d in &mut data {
            *d = self.next("immediate")?.0;
        }
        Ok(Immediate { ty, data })
    }

    fn property(&mut self, w: u32, start: usize) -> Result<Property, DecodeError> {
        let n = prop::NAME.get(w);
        let name = lookup(PropertyName::from_index(n), start, "property", n)?;
        let nr = token::NR_TOKENS.get(w);
        if nr != 2 {
            return Err(at(start, Problem::PropertySize(nr)));
        }
        let (value, _) = self.next("property")?;
        Ok(Property { name, value })
    }

    fn instruction(&mut self, w: u32, start: usize) -> Result<Instruction, DecodeError> {
        let n = inst::OPCODE.get(w);
        let opcode = lookup(Opcode::from_mesa(n), start, "opcode", n)?;
        let mut ins = Instruction::new(opcode);
        ins.saturate = inst::SATURATE.flag(w);
        ins.precise = inst::PRECISE.flag(w);

        if inst::LABEL.flag(w) {
            let (t, _) = self.next("instruction label")?;
            ins.label = Some(inst::LABEL_VALUE.get(t));
        }
        if inst::TEXTURE.flag(w) {
            let (t, i) = self.next("instruction texture")?;
            let target = texture(inst::TEX_TARGET, t, i)?;
            let mut offsets = SmallVec::new();
            for _ in 0..inst::TEX_NUM_OFFSETS.get(t) {
                let (o, i) = self.next("texture offset")?;
                offsets.push(TexOffset {
                    file: file(inst::OFFSET_FILE, o, i)?,
                    index: inst::OFFSET_INDEX.get_signed(o),
                    swizzle: inst::OFFSET_SWIZZLE.map(|f| f.get(o) as u8),
                });
            }
            ins.texture = Some(TextureInfo { target, offsets });
        }
        if inst::MEMORY.flag(w) {
            let (t, i) = self.next("instruction memory")?;
            ins.memory = Some(MemoryInfo {
                qualifier: inst::MEM_QUALIFIER.get(t) as u8,
                texture: texture(inst::MEM_TEXTURE, t, i)?,
                format: inst::MEM_FORMAT.get(t) as u16,
            });
        }
        for _ in 0..inst::NUM_DST.get(w) {
            let (t, i) = self.next("destination register")?;
            let reg = Register {
                file: file(dst::FILE, t, i)?,
                index: dst::INDEX.get_signed(t),
                indirect: None,
                dimension: None,
            };
            let reg = self.register_extras(reg, dst::INDIRECT.flag(t), dst::DIMENSION.flag(t))?;
            ins.dst.push(DstOperand { reg, write_mask: dst::WRITE_MASK.get(t) as u8 });
        }
        for _ in 0..inst::NUM_SRC.get(w) {
            let (t, i) = self.next("source register")?;
            let reg = Register {
                file: file(src::FILE, t, i)?,
                index: src::INDEX.get_signed(t),
                indirect: None,
                dimension: None,
            };
            let reg = self.register_extras(reg, src::INDIRECT.flag(t), src::DIMENSION.flag(t))?;
            ins.src.push(SrcOperand {
                reg,
                swizzle: src::SWIZZLE.map(|f| f.get(t) as u8),
                negate: src::NEGATE.flag(t),
                absolute: src::ABSOLUTE.flag(t),
            });
        }
        // An instruction's NrTokens leaves out the instruction token itself.
        check_size("instruction", w, start, self.pos - start - 1)?;
        Ok(ins)
    }

    /// Reads the indirect and 2-D tokens that follow a register token.
    fn register_extras(&mut self, mut reg: Register, indirect: bool, dimension: bool) -> Result<Register, DecodeError> {
        if indirect {
            reg.indirect = Some(self.indirect()?);
        }
        if dimension {
            let (t, i) = self.next("register dimension")?;
            if dim::DIMENSION.flag(t) {
                return Err(at(i, Problem::NestedDimension));
            }
            let indirect = if dim::INDIRECT.flag(t) { Some(self.indirect()?) } else { None };
            reg.dimension = Some(Dimension { index: dim::INDEX.get_signed(t), indirect });
        }
        Ok(reg)
    }

    fn indirect(&mut self) -> Result<Indirect, DecodeError> {
        let (t, i) = self.next("indirect register")?;
        Ok(Indirect {
            file: file(ind::FILE, t, i)?,
            index: ind::INDEX.get_signed(t),
            component: ind::SWIZZLE.get(t) as u8,
            array_id: ind::ARRAY_ID.get(t) as u16,
        })
    }
}
