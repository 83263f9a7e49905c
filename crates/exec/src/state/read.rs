//! Reading a state from its text form: one method per directive, over a
//! reader that remembers where each once-only directive came first (for
//! the "already set on line N" errors) and how much memory the buffers and
//! images take so far.

use std::collections::BTreeMap;

use tgsi::SemanticName;

use super::*;
use crate::syntax::{end_of_text, expect_operands, integer, lane, lines, value, vec4, Token};

/// Reads a state from its text form (see the module documentation of
/// [`crate::state`] for the rules).
pub(super) fn read(text: &str) -> Result<State, StateError> {
    let mut reader = Reader::default();
    for tokens in lines(text) {
        reader.directive(&tokens)?;
    }
    reader.finish(text)
}

/// A state being read, with what the checks need to remember.
#[derive(Default)]
struct Reader {
    state: State,
    invocations_line: Option<usize>,
    texsize_lines: BTreeMap<u32, usize>,
    sampler_lines: BTreeMap<u32, usize>,
    buffer_lines: BTreeMap<u32, usize>,
    image_lines: BTreeMap<u32, usize>,
    /// Bytes of every buffer and image so far.
    memory: u64,
}

impl Reader {
    /// One line, `tokens[0]` its directive.
    fn directive(&mut self, tokens: &[Token<'_>]) -> Result<(), StateError> {
        let head = tokens[0];
        match head.text {
            "invocations" => self.invocations(tokens),
            "const" => self.constant(tokens),
            "input" => self.input(tokens),
            "vinput" => self.vinput(tokens),
            "texsize" => self.texsize(tokens),
            "sampler" => self.sampler(tokens),
            "texel" => self.texel(tokens),
            "sysval" => self.sysval(tokens),
            "buffer" => self.buffer(tokens),
            "bufdata" => self.bufdata(tokens),
            "image" => self.image(tokens),
            "imgdata" => self.imgdata(tokens),
            other => Err(head.error(StateErrorKind::UnknownDirective { found: other.to_string(), known: DIRECTIVES })),
        }
    }

    /// The state, once every line is read.
    fn finish(self, text: &str) -> Result<State, StateError> {
        if self.invocations_line.is_none() {
            return Err(end_of_text(text, StateErrorKind::MissingInvocations));
        }
        let mut state = self.state;
        let registers = state.inputs.values_mut().chain(state.vertex_inputs.values_mut());
        registers.chain(state.sysvals.values_mut()).for_each(PerLane::finish);
        Ok(state)
    }

    /// `invocations N`: the number of lanes, once.
    fn invocations(&mut self, tokens: &[Token<'_>]) -> Result<(), StateError> {
        let head = tokens[0];
        let ops = &tokens[1..];
        expect_operands(tokens, "invocations", "N", 1)?;
        if let Some(first_line) = self.invocations_line {
            return Err(head.error(StateErrorKind::DuplicateInvocations { first_line }));
        }
        let n = integer(&ops[0], "the number of invocations", MAX_INVOCATIONS)?;
        if n == 0 {
            return Err(ops[0].error(StateErrorKind::ZeroInvocations));
        }
        self.state.invocations = n;
        self.invocations_line = Some(head.line);
        Ok(())
    }

    /// `const BUF INDEX x y z w`.
    fn constant(&mut self, tokens: &[Token<'_>]) -> Result<(), StateError> {
        let ops = &tokens[1..];
        expect_operands(tokens, "const", "BUF INDEX x y z w", 6)?;
        let buf = integer(&ops[0], "a constant buffer", u32::MAX)?;
        let index = integer(&ops[1], "a constant index", u32::MAX)?;
        self.state.consts.insert((buf, index), vec4(&ops[2..])?);
        Ok(())
    }

    /// `input INDEX LANE x y z w` (LANE may be `*`).
    fn input(&mut self, tokens: &[Token<'_>]) -> Result<(), StateError> {
        let head = tokens[0];
        let ops = &tokens[1..];
        expect_operands(tokens, "input", "INDEX LANE x y z w", 6)?;
        if self.invocations_line.is_none() {
            return Err(head.error(StateErrorKind::InvocationsNotYetSet { directive: "input" }));
        }
        let index = integer(&ops[0], "an input index", u32::MAX)?;
        let lane = lane(&ops[1], self.state.invocations)?;
        let value = vec4(&ops[2..])?;
        self.state.inputs.entry(index).or_default().set(lane, value);
        Ok(())
    }

    /// `vinput VERTEX INDEX LANE x y z w`: a geometry shader's 2-D input.
    fn vinput(&mut self, tokens: &[Token<'_>]) -> Result<(), StateError> {
        let head = tokens[0];
        let ops = &tokens[1..];
        expect_operands(tokens, "vinput", "VERTEX INDEX LANE x y z w", 7)?;
        if self.invocations_line.is_none() {
            return Err(head.error(StateErrorKind::InvocationsNotYetSet { directive: "vinput" }));
        }
        let vertex = integer(&ops[0], "an input vertex", u32::MAX)?;
        let index = integer(&ops[1], "an input index", u32::MAX)?;
        let lane = lane(&ops[2], self.state.invocations)?;
        let value = vec4(&ops[3..])?;
        self.state.vertex_inputs.entry((vertex, index)).or_default().set(lane, value);
        Ok(())
    }

    /// `texsize UNIT W H`: a texture, once per unit.
    fn texsize(&mut self, tokens: &[Token<'_>]) -> Result<(), StateError> {
        let head = tokens[0];
        let ops = &tokens[1..];
        expect_operands(tokens, "texsize", "UNIT W H", 3)?;
        let unit = integer(&ops[0], "a texture unit", u32::MAX)?;
        if let Some(&first_line) = self.texsize_lines.get(&unit) {
            return Err(head.error(StateErrorKind::DuplicateTexsize { unit, first_line }));
        }
        let width = integer(&ops[1], "a texture width", MAX_TEXTURE_SIZE)?;
        let height = integer(&ops[2], "a texture height", MAX_TEXTURE_SIZE)?;
        if width == 0 || height == 0 {
            let at = if width == 0 { ops[1] } else { ops[2] };
            return Err(at.error(StateErrorKind::ZeroTexsize { width, height }));
        }
        self.texsize_lines.insert(unit, head.line);
        let sampler = self.state.sampler(unit);
        let texels = if width * height <= DENSE_TEXELS {
            Texels::Dense(vec![[0; 4]; (width * height) as usize])
        } else {
            Texels::Sparse(BTreeMap::new())
        };
        self.state.textures.insert(unit, Texture { width, height, texels, sampler, mips: Vec::new() });
        Ok(())
    }

    /// `sampler UNIT FILTER WRAP`, once per unit.
    fn sampler(&mut self, tokens: &[Token<'_>]) -> Result<(), StateError> {
        let head = tokens[0];
        let ops = &tokens[1..];
        expect_operands(tokens, "sampler", "UNIT FILTER WRAP", 3)?;
        let unit = integer(&ops[0], "a texture unit", u32::MAX)?;
        if let Some(&first_line) = self.sampler_lines.get(&unit) {
            return Err(head.error(StateErrorKind::DuplicateSampler { unit, first_line }));
        }
        let filter = match ops[1].text {
            "nearest" => Filter::Nearest,
            "linear" => Filter::Linear,
            other => {
                let found = other.to_string();
                return Err(ops[1].error(StateErrorKind::UnknownFilter { found, known: FILTERS }));
            }
        };
        let wrap = match ops[2].text {
            "repeat" => Wrap::Repeat,
            "clamp" => Wrap::Clamp,
            other => {
                let found = other.to_string();
                return Err(ops[2].error(StateErrorKind::UnknownWrap { found, known: WRAPS }));
            }
        };
        let sampler = Sampler { filter, wrap };
        self.sampler_lines.insert(unit, head.line);
        self.state.samplers.insert(unit, sampler);
        // A `texsize` before this line made the texture with the default.
        if let Some(texture) = self.state.textures.get_mut(&unit) {
            texture.sampler = sampler;
        }
        Ok(())
    }

    /// `texel UNIT X Y r g b a`, inside its texture.
    fn texel(&mut self, tokens: &[Token<'_>]) -> Result<(), StateError> {
        let ops = &tokens[1..];
        expect_operands(tokens, "texel", "UNIT X Y r g b a", 7)?;
        let unit = integer(&ops[0], "a texture unit", u32::MAX)?;
        let Some(texture) = self.state.textures.get_mut(&unit) else {
            return Err(ops[0].error(StateErrorKind::TexelWithoutTexsize { unit }));
        };
        let x = integer(&ops[1], "a texel column", u32::MAX)?;
        let y = integer(&ops[2], "a texel row", u32::MAX)?;
        if x >= texture.width || y >= texture.height {
            let at = if x >= texture.width { ops[1] } else { ops[2] };
            let (width, height) = (texture.width, texture.height);
            return Err(at.error(StateErrorKind::TexelOutside { unit, x, y, width, height }));
        }
        let value = vec4(&ops[3..])?;
        match &mut texture.texels {
            Texels::Dense(texels) => texels[(y * texture.width + x) as usize] = value,
            Texels::Sparse(texels) => {
                texels.insert((y, x), value);
            }
        }
        Ok(())
    }

    /// `sysval NAME LANE x y z w`.
    fn sysval(&mut self, tokens: &[Token<'_>]) -> Result<(), StateError> {
        let head = tokens[0];
        let ops = &tokens[1..];
        expect_operands(tokens, "sysval", "NAME LANE x y z w", 6)?;
        if self.invocations_line.is_none() {
            return Err(head.error(StateErrorKind::InvocationsNotYetSet { directive: "sysval" }));
        }
        let Some(name) = SemanticName::from_name(ops[0].text) else {
            return Err(ops[0].error(StateErrorKind::UnknownSysval { found: ops[0].text.to_string() }));
        };
        let lane = lane(&ops[1], self.state.invocations)?;
        let value = vec4(&ops[2..])?;
        self.state.sysvals.entry(name).or_default().set(lane, value);
        Ok(())
    }

    /// `buffer UNIT SIZE`, once per unit.
    fn buffer(&mut self, tokens: &[Token<'_>]) -> Result<(), StateError> {
        let head = tokens[0];
        let ops = &tokens[1..];
        expect_operands(tokens, "buffer", "UNIT SIZE", 2)?;
        let unit = integer(&ops[0], "a buffer unit", u32::MAX)?;
        if let Some(&first_line) = self.buffer_lines.get(&unit) {
            return Err(head.error(StateErrorKind::DuplicateResource { what: "buffer", unit, first_line }));
        }
        let size = integer(&ops[1], "a buffer size", MAX_MEMORY_BYTES as u32)?;
        if !size.is_multiple_of(4) {
            return Err(ops[1].error(StateErrorKind::Unaligned { what: "a buffer size", found: size }));
        }
        self.memory = add_memory(self.memory, size as u64, &ops[1])?;
        self.buffer_lines.insert(unit, head.line);
        self.state.buffers.insert(unit, Buffer { size, words: BTreeMap::new() });
        Ok(())
    }

    /// `bufdata UNIT OFFSET v0 v1 ...`, inside its buffer.
    fn bufdata(&mut self, tokens: &[Token<'_>]) -> Result<(), StateError> {
        let ops = &tokens[1..];
        // At least one word.
        if tokens.len() < 4 {
            expect_operands(tokens, "bufdata", "UNIT OFFSET v0 v1 ...", 3)?;
        }
        let unit = integer(&ops[0], "a buffer unit", u32::MAX)?;
        let Some(buffer) = self.state.buffers.get_mut(&unit) else {
            let kind = StateErrorKind::DataWithoutResource { directive: "bufdata", what: "buffer", unit };
            return Err(ops[0].error(kind));
        };
        let offset = integer(&ops[1], "a byte offset", u32::MAX)?;
        if !offset.is_multiple_of(4) {
            return Err(ops[1].error(StateErrorKind::Unaligned { what: "a byte offset", found: offset }));
        }
        let values = &ops[2..];
        let end = offset as u64 + 4 * values.len() as u64;
        if end > buffer.size as u64 {
            let kind = StateErrorKind::BufferDataOutside { unit, offset, end, size: buffer.size };
            return Err(ops[1].error(kind));
        }
        for (k, token) in values.iter().enumerate() {
            buffer.words.insert(offset + 4 * k as u32, value(token)?);
        }
        Ok(())
    }

    /// `image UNIT W H [LAYERS]`, once per unit.
    fn image(&mut self, tokens: &[Token<'_>]) -> Result<(), StateError> {
        let head = tokens[0];
        let ops = &tokens[1..];
        // LAYERS is optional: 3 or 4 operands.
        if !(4..=5).contains(&tokens.len()) {
            let expected = if tokens.len() < 4 { 3 } else { 4 };
            expect_operands(tokens, "image", "UNIT W H [LAYERS]", expected)?;
        }
        let unit = integer(&ops[0], "an image unit", u32::MAX)?;
        if let Some(&first_line) = self.image_lines.get(&unit) {
            return Err(head.error(StateErrorKind::DuplicateResource { what: "image", unit, first_line }));
        }
        let width = integer(&ops[1], "an image width", MAX_TEXTURE_SIZE)?;
        let height = integer(&ops[2], "an image height", MAX_TEXTURE_SIZE)?;
        let layers = match ops.get(3) {
            Some(t) => integer(t, "a layer count", MAX_IMAGE_LAYERS)?,
            None => 1,
        };
        if let Some(at) = [(width, 1), (height, 2), (layers, 3)].iter().find(|(n, _)| *n == 0) {
            return Err(ops[at.1].error(StateErrorKind::ZeroImageSize { width, height, layers }));
        }
        let image = Image { width, height, layers, texels: BTreeMap::new() };
        self.memory = add_memory(self.memory, image.bytes(), &ops[ops.len() - 1])?;
        self.image_lines.insert(unit, head.line);
        self.state.images.insert(unit, image);
        Ok(())
    }

    /// `imgdata UNIT X Y LAYER r g b a`, inside its image.
    fn imgdata(&mut self, tokens: &[Token<'_>]) -> Result<(), StateError> {
        let ops = &tokens[1..];
        expect_operands(tokens, "imgdata", "UNIT X Y LAYER r g b a", 8)?;
        let unit = integer(&ops[0], "an image unit", u32::MAX)?;
        let Some(image) = self.state.images.get_mut(&unit) else {
            let kind = StateErrorKind::DataWithoutResource { directive: "imgdata", what: "image", unit };
            return Err(ops[0].error(kind));
        };
        let x = integer(&ops[1], "a texel column", u32::MAX)?;
        let y = integer(&ops[2], "a texel row", u32::MAX)?;
        let layer = integer(&ops[3], "a layer", u32::MAX)?;
        let (width, height, layers) = (image.width, image.height, image.layers);
        let outside = [(x, width, 1), (y, height, 2), (layer, layers, 3)].into_iter().find(|c| c.0 >= c.1);
        if let Some((_, _, at)) = outside {
            let kind = StateErrorKind::ImageDataOutside { unit, x, y, layer, width, height, layers };
            return Err(ops[at].error(kind));
        }
        image.texels.insert((layer, y, x), vec4(&ops[4..])?);
        Ok(())
    }
}

/// `total + bytes`, or the error at `at` when that is above
/// [`MAX_MEMORY_BYTES`].
fn add_memory(total: u64, bytes: u64, at: &Token<'_>) -> Result<u64, StateError> {
    let total = total + bytes;
    if total > MAX_MEMORY_BYTES {
        return Err(at.error(StateErrorKind::MemoryTooLarge { total, max: MAX_MEMORY_BYTES }));
    }
    Ok(total)
}
