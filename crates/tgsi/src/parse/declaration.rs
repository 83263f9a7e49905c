//! Declarations: register ranges and their attributes (semantics,
//! interpolation, arrays, sampler views, images).

use super::*;

impl Parser<'_> {
    /// `[a]`, `[a..b]` or `[]` in a declaration.
    pub(super) fn dcl_bracket(&mut self) -> PResult<(u32, u32)> {
        self.c.skip_ws();
        if self.c.peek() == b']' && self.implied_array_size > 0 {
            self.c.pos += 1;
            return Ok((0, self.implied_array_size - 1));
        }
        let first = self.register_index()?;
        self.c.skip_ws();
        let last = if self.c.peek() == b'.' && self.c.peek_at(1) == b'.' {
            self.c.pos += 2;
            self.register_index()?
        } else {
            first
        };
        if self.c.peek() != b']' {
            return Err(self.c.expected("`]` or `..`"));
        }
        self.c.pos += 1;
        Ok((first, last))
    }

    pub(super) fn parse_declaration(&mut self) -> PResult<Option<Item>> {
        if !self.c.skip_ws() {
            return Err(self.c.expected("a space after `DCL`"));
        }
        let start = self.c.pos;
        let file_name = self.file()?;
        if let FileName::Legacy(l) = file_name {
            if l == legacy::LegacyFile::ImmX {
                let imms = self.parse_immx(start)?;
                for imm in imms {
                    self.push(Item::Immediate(imm), start)?;
                    self.num_immediates += 1;
                }
                return Ok(None);
            }
        }
        self.expect(b'[')?;
        let range_start = self.c.pos;
        // `[]` before a second bracket is the per-vertex bracket, which is
        // dropped; its size does not matter (Mesa insists on knowing it).
        let empty_first = {
            let mut probe = Cursor::new(self.c.text);
            probe.pos = self.c.pos;
            probe.eat_ws(b']') && probe.eat_ws(b'[')
        };
        let mut range = if empty_first && self.implied_array_size == 0 {
            self.expect(b']')?;
            (0, 0)
        } else {
            self.dcl_bracket()?
        };
        let mut dimension = None;
        let save = self.c.pos;
        self.c.skip_ws();
        if empty_first && self.c.peek() != b'[' {
            return Err(self.c.expected("a second bracket after `[]`"));
        }
        if self.c.eat(b'[') {
            let inner = self.dcl_bracket()?;
            let file = match file_name {
                FileName::Plain(f) => Some(f),
                FileName::Legacy(_) => None,
            };
            // Per-vertex inputs (and tessellation control outputs) are
            // declared with a vertex bracket that Mesa drops.
            let drop_outer = file.is_some_and(|f| crate::validate::is_per_vertex(self.processor, f));
            if !drop_outer {
                if range.0 != range.1 {
                    return Err(self.c.error_span(
                        range_start,
                        save,
                        "the outer index of a 2-D declaration is one index",
                    ));
                }
                dimension = Some(range.0 as u16);
            }
            range = inner;
        } else {
            self.c.pos = save;
        }
        if range.1 < range.0 {
            return Err(self.c.error_span(
                range_start,
                self.c.pos,
                format!("the range {}..{} ends before it starts", range.0, range.1),
            ));
        }
        let (file, first, last) = match file_name {
            FileName::Plain(f) => (f, range.0 as u16, range.1 as u16),
            FileName::Legacy(legacy::LegacyFile::TempX) => {
                let array = dimension.take().unwrap_or(0);
                let (first, last) =
                    self.legacy.declare_tempx(array, range).map_err(|m| self.c.error_span(start, self.c.pos, m))?;
                (File::Temporary, first, last)
            }
            FileName::Legacy(legacy::LegacyFile::Res) => {
                let file = if self.res_is_sampler_view() { File::SamplerView } else { File::Image };
                self.legacy.declare_res(range, file);
                (file, range.0 as u16, range.1 as u16)
            }
            FileName::Legacy(other) => {
                return Err(self.c.error_span(start, self.c.pos, format!("`{}` cannot be declared", other.name())))
            }
        };
        if file == File::Temporary && file_name == FileName::Plain(File::Temporary) {
            self.legacy.note_temp_declared(first, last).map_err(|m| self.c.error_span(start, self.c.pos, m))?;
        }
        let mut decl = Declaration::new(file, first, last);
        decl.dimension = dimension;
        decl.usage_mask = self.writemask()?;
        if file == File::Image {
            decl.image = Some(ImageDecl { target: TextureTarget::Buffer, raw: false, writable: false, format: 0 });
        }
        if file == File::SamplerView {
            decl.sampler_view =
                Some(SamplerViewDecl { target: TextureTarget::Buffer, return_types: [ReturnType::Unorm; 4] });
        }
        self.declaration_attributes(&mut decl)?;
        Ok(Some(Item::Declaration(decl)))
    }

    /// Everything after the range and mask of a declaration, following
    /// the order of Mesa's parser.
    pub(super) fn declaration_attributes(&mut self, decl: &mut Declaration) -> PResult<()> {
        // `, ARRAY(n)`
        if self.comma_then(|p| p.c.eat_keyword("ARRAY")) {
            self.expect(b'(')?;
            decl.array_id = Some(self.uint("an array id", 1023)? as u16);
            self.expect(b')')?;
        }
        let file = decl.file;
        // The resource part, or `LOCAL` and the semantic.
        match file {
            File::Image | File::SamplerView => {
                if self.next_is(b',') {
                    self.expect(b',')?;
                    self.c.skip_ws();
                    let target = self.texture_target().ok_or_else(|| self.c.expected("a texture target"))?;
                    if file == File::Image {
                        self.image_options(decl, target)?;
                    } else {
                        self.sampler_view_types(decl, target)?;
                    }
                }
            }
            File::Buffer => {
                if self.comma_then(|p| p.c.eat_keyword("ATOMIC")) {
                    decl.atomic = true;
                }
            }
            File::Memory => {
                let ty = self.comma_then_value(|p| p.name_of(MemoryType::ALL, MemoryType::name));
                if let Some(ty) = ty {
                    decl.memory_type = ty;
                }
            }
            _ => {
                if self.comma_then(|p| p.c.eat_keyword("LOCAL")) {
                    decl.local = true;
                }
                if let Some(name) = self.comma_then_value(|p| p.name_of(SemanticName::ALL, SemanticName::name)) {
                    let mut index = 0;
                    if self.next_is(b'[') {
                        self.expect(b'[')?;
                        index = self.uint("a semantic index", u16::MAX as u32)? as u16;
                        self.expect(b']')?;
                    }
                    decl.semantic = Some(Semantic { name, index, streams: [0; 4] });
                }
            }
        }
        // `, STREAM(a, b, c, d)` on geometry outputs.
        if file == File::Output
            && self.processor == Processor::Geometry
            && self.comma_then(|p| p.c.eat_keyword("STREAM"))
        {
            self.streams(decl)?;
        }
        // `, CONSTANT|LINEAR|PERSPECTIVE|COLOR`
        if let Some(mode) = self.comma_then_value(|p| p.name_of(InterpolateMode::ALL, InterpolateMode::name)) {
            decl.interpolation = Some(Interpolation { mode, location: InterpolateLocation::Center });
        }
        // `, CENTER|CENTROID|SAMPLE`
        let loc_pos = self.c.pos;
        if let Some(location) =
            self.comma_then_value(|p| p.name_of(InterpolateLocation::ALL, InterpolateLocation::name))
        {
            match &mut decl.interpolation {
                Some(interp) => interp.location = location,
                // Mesa keeps a location only with a mode; say so rather
                // than drop it.
                None => {
                    return Err(self.c.error_span(
                        loc_pos,
                        self.c.pos,
                        format!("the interpolation location `{location}` needs an interpolation mode before it"),
                    ))
                }
            }
        }
        // `, INVARIANT`
        if self.next_is(b',') {
            self.expect(b',')?;
            self.c.skip_ws();
            if self.c.eat_keyword("INVARIANT") {
                decl.invariant = true;
            } else {
                return Err(self.c.expected("a semantic, an interpolation attribute or `INVARIANT`"));
            }
        }
        Ok(())
    }

    /// `(a, b, c, d)` after `STREAM`: the streams of `decl`'s semantic.
    fn streams(&mut self, decl: &mut Declaration) -> PResult<()> {
        self.expect(b'(')?;
        let mut streams = [0u8; 4];
        for (i, s) in streams.iter_mut().enumerate() {
            if i > 0 {
                self.expect(b',')?;
            }
            *s = self.uint("a stream", 3)? as u8;
        }
        self.expect(b')')?;
        match &mut decl.semantic {
            Some(sem) => sem.streams = streams,
            None => return Err(self.c.error("`STREAM` needs a semantic before it")),
        }
        Ok(())
    }

    /// Whether a legacy `RES` declaration reads `, TARGET, RETURN_TYPE`
    /// (a sampler view) rather than `, TARGET[, RAW][, WR]` (an image).
    pub(super) fn res_is_sampler_view(&self) -> bool {
        let mut probe = Cursor::new(self.c.text);
        probe.pos = self.c.pos;
        for _ in 0..2 {
            if !probe.eat_ws(b',') {
                return false;
            }
            probe.skip_ws();
            let word = probe.peek_word();
            if ReturnType::from_name(word).is_some() {
                return true;
            }
            probe.pos += word.len();
        }
        false
    }

    /// If `, X` follows and `f` accepts `X`, consumes both.
    pub(super) fn comma_then(&mut self, f: impl FnOnce(&mut Self) -> bool) -> bool {
        self.comma_then_value(|p| f(p).then_some(())).is_some()
    }

    pub(super) fn comma_then_value<T>(&mut self, f: impl FnOnce(&mut Self) -> Option<T>) -> Option<T> {
        let save = self.c.pos;
        if !self.next_is(b',') {
            return None;
        }
        self.c.skip_ws();
        self.c.pos += 1;
        self.c.skip_ws();
        let v = f(self);
        if v.is_none() {
            self.c.pos = save;
        }
        v
    }

    pub(super) fn image_options(&mut self, decl: &mut Declaration, target: TextureTarget) -> PResult<()> {
        let mut image = ImageDecl { target, raw: false, writable: false, format: 0 };
        loop {
            let found = self.comma_then_value(|p| {
                let word = p.c.peek_word();
                let r = if word.eq_ignore_ascii_case("RAW") {
                    Some(ImageOption::Raw)
                } else if word.eq_ignore_ascii_case("WR") {
                    Some(ImageOption::Writable)
                } else {
                    format::from_name(word).map(ImageOption::Format)
                };
                if r.is_some() {
                    p.c.pos += word.len();
                }
                r
            });
            match found {
                Some(ImageOption::Raw) => image.raw = true,
                Some(ImageOption::Writable) => image.writable = true,
                Some(ImageOption::Format(f)) => image.format = f,
                None => break,
            }
        }
        decl.image = Some(image);
        Ok(())
    }

    pub(super) fn sampler_view_types(&mut self, decl: &mut Declaration, target: TextureTarget) -> PResult<()> {
        self.expect(b',')?;
        self.c.skip_ws();
        let mut types = Vec::with_capacity(4);
        loop {
            match self.name_of(ReturnType::ALL, ReturnType::name) {
                Some(t) => types.push(t),
                None => return Err(self.c.expected("a return type (UNORM, SNORM, SINT, UINT or FLOAT)")),
            }
            if types.len() == 4 {
                break;
            }
            // Another type follows only if the word after the comma is one.
            let save = self.c.pos;
            if !self.next_is(b',') {
                break;
            }
            self.c.skip_ws();
            self.c.pos += 1;
            self.c.skip_ws();
            if ReturnType::from_name(self.c.peek_word()).is_none() {
                self.c.pos = save;
                break;
            }
        }
        let return_types = match types.as_slice() {
            [t] => [*t; 4],
            [x, y, z, w] => [*x, *y, *z, *w],
            _ => {
                // Mesa keeps only the first of two or three types.
                return Err(self.c.error(format!("a sampler view has one return type or four, not {}", types.len())));
            }
        };
        decl.sampler_view = Some(SamplerViewDecl { target, return_types });
        Ok(())
    }
}

pub(super) enum ImageOption {
    Raw,
    Writable,
    Format(u16),
}
