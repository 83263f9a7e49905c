//! The text parser.
//!
//! It accepts what Mesa's `tgsi_text` parser accepts, the older syntax of
//! the 2010 reference (see `legacy`), CRLF line ends and `;` comments,
//! and rejects with a located error what Mesa would silently wrap or drop.
//!
//! ```
//! let shader = tgsi::parse("VERT\nDCL IN[0]\nDCL OUT[0], POSITION\nMOV OUT[0], IN[0]\nEND\n").unwrap();
//! assert_eq!(shader.instructions().count(), 2);
//! let err = tgsi::parse("VERT\nMOV OUT[0, IN[0]\n").unwrap_err();
//! assert_eq!((err.span.line, err.span.column), (2, 10));
//! assert_eq!(err.message, "expected `]`, found `,`");
//! ```

mod cursor;
mod error;
mod legacy;
pub(crate) mod number;

pub use error::{ParseError, Span};

use crate::ast::*;
use crate::format;
use crate::names::*;
use crate::opcode::{flags, Opcode};
use cursor::{is_ident, Cursor};
use legacy::Legacy;
use smallvec::SmallVec;

/// Parses TGSI text.
pub fn parse(text: &str) -> Result<Shader, ParseError> {
    Parser::new(text, false).run().map(|(shader, _)| shader).map_err(|e| *e)
}

/// Parses TGSI text, also returning the span of each item of
/// [`Shader::items`] (same length, same order).
pub fn parse_with_spans(text: &str) -> Result<(Shader, Vec<Span>), ParseError> {
    Parser::new(text, true).run().map_err(|e| *e)
}

/// Results inside the parser: the error is boxed to keep them small.
type PResult<T> = Result<T, Box<ParseError>>;

/// The largest register index a token can hold (a signed 16-bit field).
const MAX_INDEX: u32 = i16::MAX as u32;

struct Parser<'a> {
    c: Cursor<'a>,
    processor: Processor,
    /// Size of a `[]` declaration bracket (GS input vertices, or 32 for
    /// tessellation); 0 when unknown.
    implied_array_size: u32,
    items: Vec<Item>,
    spans: Vec<Span>,
    num_immediates: u32,
    legacy: Legacy,
    /// Whether to locate every item (errors are located either way).
    want_spans: bool,
}

impl<'a> Parser<'a> {
    fn new(text: &'a str, want_spans: bool) -> Self {
        // Canonical text has about one item per 40 bytes.
        let lines = text.len() / 32 + 16;
        Parser {
            c: Cursor::new(text),
            processor: Processor::Vertex,
            implied_array_size: 0,
            items: Vec::with_capacity(lines),
            spans: Vec::with_capacity(if want_spans { lines } else { 0 }),
            num_immediates: 0,
            legacy: Legacy::default(),
            want_spans,
        }
    }

    fn run(mut self) -> PResult<(Shader, Vec<Span>)> {
        self.c.skip_ws();
        self.parse_header()?;
        loop {
            let had_ws = self.c.skip_ws();
            if self.c.at_end() {
                break;
            }
            if !had_ws {
                return Err(self.c.expected("a line end or space"));
            }
            let start = self.c.pos;
            let item = self.parse_item()?;
            if let Some(item) = item {
                self.push(item, start);
            }
        }
        self.legacy.finish(&mut self.items, &mut self.spans);
        Ok((Shader { processor: self.processor, items: self.items }, self.spans))
    }

    fn push(&mut self, item: Item, start: usize) {
        self.items.push(item);
        if self.want_spans {
            self.spans.push(self.c.span_from(start));
        }
    }

    fn parse_header(&mut self) -> PResult<()> {
        let start = self.c.pos;
        let word = self.c.peek_ident();
        let (name, version) = legacy::split_header_version(word);
        match Processor::ALL.iter().find(|p| p.name().eq_ignore_ascii_case(name)) {
            Some(&p) => {
                self.processor = p;
                self.c.pos += word.len();
                if version {
                    // `FRAG1.1`: the identifier ended at the `.`.
                    legacy::skip_version_fraction(&mut self.c);
                }
            }
            None => {
                return Err(self.c.error_at(
                    start,
                    format!(
                        "expected a processor (FRAG, VERT, GEOM, TESS_CTRL, TESS_EVAL or COMP), found {}",
                        self.c.describe(start)
                    ),
                ))
            }
        }
        if matches!(self.processor, Processor::TessCtrl | Processor::TessEval) {
            self.implied_array_size = 32;
        }
        Ok(())
    }

    /// One item; `None` for items that only set parser state.
    fn parse_item(&mut self) -> PResult<Option<Item>> {
        if let Some(label_end) = self.label_end() {
            self.c.pos = label_end;
            self.c.skip_ws();
            return self.parse_instruction(true).map(|i| Some(Item::Instruction(i)));
        }
        if self.c.eat_keyword("DCL") {
            return self.parse_declaration();
        }
        if self.c.eat_keyword("IMM") {
            return self.parse_immediate().map(|i| Some(Item::Immediate(i)));
        }
        if self.c.eat_keyword("PROPERTY") {
            return self.parse_property().map(|p| Some(Item::Property(p)));
        }
        self.parse_instruction(false).map(|i| Some(Item::Instruction(i)))
    }

    /// If an `N:` instruction label is at the cursor, the position after it.
    fn label_end(&self) -> Option<usize> {
        let bytes = self.c.bytes;
        let mut p = self.c.pos;
        if !bytes.get(p).is_some_and(u8::is_ascii_digit) {
            return None;
        }
        while bytes.get(p).is_some_and(u8::is_ascii_digit) {
            p += 1;
        }
        while matches!(bytes.get(p), Some(b' ' | b'\t' | b'\r' | b'\n')) {
            p += 1;
        }
        (bytes.get(p) == Some(&b':')).then_some(p + 1)
    }

    // ----- small pieces -----

    fn expect(&mut self, b: u8) -> PResult<()> {
        if self.c.eat(b) {
            return Ok(());
        }
        self.c.skip_ws();
        if self.c.eat(b) {
            Ok(())
        } else {
            Err(self.c.expected(&format!("`{}`", b as char)))
        }
    }

    /// An unsigned decimal literal (Mesa's `parse_uint`), at most `max`.
    fn uint(&mut self, what: &str, max: u32) -> PResult<u32> {
        // Fast path: a short run of digits right here.
        let bytes = self.c.bytes;
        let p = self.c.pos;
        if let Some(&d0) = bytes.get(p) {
            if d0.is_ascii_digit() {
                let mut v = (d0 - b'0') as u32;
                let mut q = p + 1;
                while q < bytes.len() && q - p < 9 && bytes[q].is_ascii_digit() {
                    v = v * 10 + (bytes[q] - b'0') as u32;
                    q += 1;
                }
                if !bytes.get(q).is_some_and(u8::is_ascii_digit) && v <= max {
                    self.c.pos = q;
                    return Ok(v);
                }
            }
        }
        self.c.skip_ws();
        let start = self.c.pos;
        while self.c.peek().is_ascii_digit() {
            self.c.pos += 1;
        }
        if start == self.c.pos {
            return Err(self.c.expected(what));
        }
        let digits = &self.c.bytes[start..self.c.pos];
        let value = digits.iter().try_fold(0u64, |v, &d| v.checked_mul(10)?.checked_add((d - b'0') as u64));
        match value {
            Some(v) if v <= max as u64 => Ok(v as u32),
            _ => {
                let text = &self.c.text[start..self.c.pos];
                Err(self.c.error_span(start, self.c.pos, format!("{what} {text} is out of range (at most {max})")))
            }
        }
    }

    /// A signed decimal literal (Mesa's `parse_int`) within `min..=max`.
    fn int(&mut self, what: &str, min: i64, max: i64) -> PResult<i64> {
        self.c.skip_ws();
        let start = self.c.pos;
        let negative = self.c.peek() == b'-';
        if matches!(self.c.peek(), b'+' | b'-') {
            self.c.pos += 1;
            self.c.skip_inline_ws();
        }
        let digits = self.c.pos;
        while self.c.peek().is_ascii_digit() {
            self.c.pos += 1;
        }
        if digits == self.c.pos {
            return Err(self.c.expected(what));
        }
        let text = &self.c.text[digits..self.c.pos];
        let value = text.parse::<i64>().ok().map(|v| if negative { -v } else { v });
        match value {
            Some(v) if (min..=max).contains(&v) => Ok(v),
            _ => Err(self.c.error_span(
                start,
                self.c.pos,
                format!("{what} {} is out of range ({min} to {max})", &self.c.text[start..self.c.pos]),
            )),
        }
    }

    /// A name from an enumeration, matched as a whole word.
    fn name_of<T: Copy>(&mut self, all: &[T], name: impl Fn(T) -> &'static str) -> Option<T> {
        let word = self.c.peek_word();
        let found = all.iter().copied().find(|&v| name(v).eq_ignore_ascii_case(word))?;
        self.c.pos += word.len();
        Some(found)
    }

    fn texture_target(&mut self) -> Option<TextureTarget> {
        self.name_of(TextureTarget::ALL, TextureTarget::name)
    }

    /// A register file name, including the legacy ones.
    fn file(&mut self) -> PResult<FileName> {
        self.c.skip_ws();
        let start = self.c.pos;
        let word = self.c.peek_word();
        let file = match file_from_name(word) {
            Some(f) => FileName::Plain(f),
            None => match legacy::LegacyFile::from_name(word) {
                Some(l) => FileName::Legacy(l),
                None => {
                    return Err(self.c.error_at(
                        start,
                        format!(
                            "expected a register file (IN, OUT, TEMP, CONST, IMM, ...), found {}",
                            self.c.describe(start)
                        ),
                    ))
                }
            },
        };
        self.c.pos += word.len();
        Ok(file)
    }

    /// `.xyzw`-style mask after a `.`; at least one letter, in order.
    fn writemask(&mut self) -> PResult<u8> {
        let save = self.c.pos;
        self.c.skip_ws();
        if !self.c.eat(b'.') {
            self.c.pos = save;
            return Ok(0xf);
        }
        self.c.skip_ws();
        let mut mask = 0u8;
        for (bit, letter) in SWIZZLE_NAMES.iter().enumerate() {
            if self.c.peek().to_ascii_lowercase() == *letter as u8 {
                self.c.pos += 1;
                mask |= 1 << bit;
            }
        }
        if mask == 0 || is_ident(self.c.peek()) {
            return Err(self.c.expected("a write mask (a subset of `xyzw`, in that order)"));
        }
        Ok(mask)
    }

    /// An optional `.xyzw` swizzle of exactly `n` letters.
    fn swizzle<const N: usize>(&mut self, default: [u8; N]) -> PResult<[u8; N]> {
        let save = self.c.pos;
        self.c.skip_ws();
        if !self.c.eat(b'.') {
            self.c.pos = save;
            return Ok(default);
        }
        self.c.skip_ws();
        let start = self.c.pos;
        let mut out = default;
        let word = self.c.peek_word();
        if word.len() == 1 && N == 4 {
            // 2010 syntax: a one-letter swizzle broadcasts.
            if let Some(ch) = component(word.as_bytes()[0]) {
                self.c.pos += 1;
                return Ok([ch; N]);
            }
        }
        for slot in out.iter_mut() {
            match component(self.c.peek()) {
                Some(ch) => {
                    *slot = ch;
                    self.c.pos += 1;
                }
                None => return Err(self.c.expected(&format!("a swizzle of {N} letters from `xyzw`"))),
            }
        }
        if is_ident(self.c.peek()) {
            return Err(self.c.error_span(start, start + word.len(), format!("a swizzle has {N} letters from `xyzw`")));
        }
        Ok(out)
    }

    // ----- registers -----

    /// The inside of `[...]` in an operand: `3`, or `ADDR[0].x+3`, then
    /// `]` and an optional `(array id)`.
    fn bracket(&mut self) -> PResult<Bracket> {
        self.c.skip_ws();
        let b = if self.c.peek().is_ascii_digit() {
            let index = self.uint("a register index", MAX_INDEX)? as i32;
            Bracket { index, indirect: None }
        } else {
            let file = self.plain_file("an index register")?;
            self.expect(b'[')?;
            let ind_index = self.uint("a register index", MAX_INDEX)? as i32;
            self.expect(b']')?;
            self.c.skip_ws();
            let mut component_ = 0;
            if self.c.eat(b'.') {
                self.c.skip_ws();
                match component(self.c.peek()) {
                    Some(ch) => {
                        component_ = ch;
                        self.c.pos += 1;
                    }
                    None => return Err(self.c.expected("an index component `x`, `y`, `z` or `w`")),
                }
            }
            self.c.skip_ws();
            let offset =
                if matches!(self.c.peek(), b'+' | b'-') { self.int("an offset", -32768, 32767)? as i32 } else { 0 };
            Bracket {
                index: offset,
                indirect: Some(Indirect { file, index: ind_index, component: component_, array_id: 0 }),
            }
        };
        self.expect(b']')?;
        let mut b = b;
        if self.c.peek() == b'(' {
            self.c.pos += 1;
            let id = self.uint("an array id", 1023)? as u16;
            self.expect(b')')?;
            match &mut b.indirect {
                Some(ind) => ind.array_id = id,
                None => {
                    // Mesa drops an array id on a direct index; keep
                    // nothing silently.
                    return Err(self.c.error(format!("an array id `({id})` needs an indirect index")));
                }
            }
        }
        Ok(b)
    }

    fn plain_file(&mut self, what: &str) -> PResult<File> {
        let start = self.c.pos;
        match self.file()? {
            FileName::Plain(f) => Ok(f),
            FileName::Legacy(_) => Err(self.c.error_at(start, format!("{what} must be a plain register file"))),
        }
    }

    /// `FILE[...]` with an optional second bracket.
    fn register(&mut self) -> PResult<Register> {
        self.c.skip_ws();
        let start = self.c.pos;
        let file = self.file()?;
        if let FileName::Legacy(l) = file {
            if let Some(reg) = self.legacy.bare_register(l) {
                return Ok(reg);
            }
        }
        self.expect(b'[')?;
        let first = self.bracket()?;
        let save = self.c.pos;
        self.c.skip_ws();
        let second = if self.c.eat(b'[') {
            Some(self.bracket()?)
        } else {
            self.c.pos = save;
            None
        };
        let (dimension, index) = match second {
            Some(inner) => (Some(Dimension { index: first.index, indirect: first.indirect }), inner),
            None => (None, first),
        };
        let reg = Register { file: File::Null, index: index.index, indirect: index.indirect, dimension };
        match file {
            FileName::Plain(f) => Ok(Register { file: f, ..reg }),
            FileName::Legacy(l) => self.legacy.register(l, reg).map_err(|m| self.c.error_span(start, self.c.pos, m)),
        }
    }

    fn dst_operand(&mut self) -> PResult<DstOperand> {
        let reg = self.register()?;
        let write_mask = self.writemask()?;
        Ok(DstOperand { reg, write_mask })
    }

    fn src_operand(&mut self) -> PResult<SrcOperand> {
        self.c.skip_ws();
        let negate = self.c.eat(b'-');
        self.c.skip_ws();
        let absolute = self.c.eat(b'|');
        let reg = self.register()?;
        let swizzle = self.swizzle(IDENTITY_SWIZZLE)?;
        if absolute {
            self.expect(b'|')?;
        }
        Ok(SrcOperand { reg, swizzle, negate, absolute })
    }

    // ----- instructions -----

    fn parse_instruction(&mut self, has_label: bool) -> PResult<Instruction> {
        let start = self.c.pos;
        let word = self.c.peek_ident();
        let (opcode, saturate, precise) = match resolve_mnemonic(word) {
            Some(found) => found,
            None => {
                let found = self.c.describe(start);
                let message = if has_label {
                    format!("unknown opcode {found}")
                } else if word.is_empty() {
                    format!("expected `DCL`, `IMM`, `PROPERTY`, a label or an instruction, found {found}")
                } else {
                    format!("unknown opcode {found} (expected `DCL`, `IMM`, `PROPERTY`, a label or an instruction)")
                };
                return Err(self.c.error_at(start, message));
            }
        };
        self.c.pos += word.len();
        let info = opcode.info();
        let mut inst = Instruction::new(opcode);
        inst.saturate = saturate;
        inst.precise = precise;
        let operand_count = info.num_dst as usize + info.num_src as usize + info.is_tex() as usize;
        let omit_src = info.has(flags::OPTIONAL_SRC) && self.c.at_line_end();
        if info.has(flags::SAMPLE) {
            inst.texture = Some(TextureInfo { target: TextureTarget::Unknown, offsets: SmallVec::new() });
        }
        if info.has(flags::MEMORY) {
            inst.memory = Some(MemoryInfo { qualifier: 0, texture: TextureTarget::Buffer, format: 0 });
        }
        if operand_count > 0 && !omit_src {
            if !self.c.skip_ws() && !self.c.at_end() {
                return Err(self.c.expected(&format!("a space after `{word}`")));
            }
            for i in 0..operand_count {
                if i > 0 {
                    self.expect(b',')?;
                }
                self.c.skip_ws();
                if i < info.num_dst as usize {
                    let dst = self.dst_operand()?;
                    inst.dst.push(dst);
                } else if i < (info.num_dst + info.num_src) as usize {
                    let src = self.src_operand()?;
                    inst.src.push(src);
                } else {
                    match self.texture_target() {
                        Some(target) => inst.texture = Some(TextureInfo { target, offsets: SmallVec::new() }),
                        None => return Err(self.c.expected("a texture target (2D, CUBE, SHADOW2D, ...)")),
                    }
                }
            }
        }
        if let Some(tex) = &mut inst.texture {
            while tex.offsets.len() < 4 && self.next_is(b',') {
                self.expect(b',')?;
                self.c.skip_ws();
                let reg_start = self.c.pos;
                let reg = self.register()?;
                if reg.indirect.is_some() || reg.dimension.is_some() {
                    return Err(self.c.error_span(reg_start, self.c.pos, "a texture offset must be a direct register"));
                }
                let swizzle = self.swizzle([0, 1, 2])?;
                tex.offsets.push(TexOffset { file: reg.file, index: reg.index, swizzle });
            }
        }
        if let Some(mem) = &mut inst.memory {
            while self.next_is(b',') {
                self.expect(b',')?;
                self.c.skip_ws();
                let word = self.c.peek_word();
                if let Some(q) = MemoryQualifier::from_name(word) {
                    mem.qualifier |= 1 << q.index();
                } else if let Some(t) = TextureTarget::from_name(word) {
                    mem.texture = t;
                } else if let Some(f) = format::from_name(word) {
                    mem.format = f;
                } else {
                    return Err(self.c.expected("a memory qualifier, texture target or format"));
                }
                self.c.pos += word.len();
            }
        }
        if info.is_branch() && self.next_is(b':') {
            self.expect(b':')?;
            inst.label = Some(self.uint("a label", (1 << 24) - 1)?);
        }
        Ok(inst)
    }

    /// Whether the next non-space character on this line is `b`.
    fn next_is(&self, b: u8) -> bool {
        let mut p = self.c.pos;
        while matches!(self.c.bytes.get(p), Some(b' ' | b'\t' | b'\r' | b'\n')) {
            p += 1;
        }
        self.c.bytes.get(p) == Some(&b)
    }

    // ----- declarations -----

    /// `[a]`, `[a..b]` or `[]` in a declaration.
    fn dcl_bracket(&mut self) -> PResult<(u32, u32)> {
        self.c.skip_ws();
        if self.c.peek() == b']' && self.implied_array_size > 0 {
            self.c.pos += 1;
            return Ok((0, self.implied_array_size - 1));
        }
        let first = self.uint("a register index", u16::MAX as u32)?;
        self.c.skip_ws();
        let last = if self.c.peek() == b'.' && self.c.peek_at(1) == b'.' {
            self.c.pos += 2;
            self.uint("a register index", u16::MAX as u32)?
        } else {
            first
        };
        if self.c.peek() != b']' {
            return Err(self.c.expected("`]` or `..`"));
        }
        self.c.pos += 1;
        Ok((first, last))
    }

    fn parse_declaration(&mut self) -> PResult<Option<Item>> {
        if !self.c.skip_ws() {
            return Err(self.c.expected("a space after `DCL`"));
        }
        let start = self.c.pos;
        let file_name = self.file()?;
        if let FileName::Legacy(l) = file_name {
            if l == legacy::LegacyFile::ImmX {
                let imms = self.parse_immx(start)?;
                for imm in imms {
                    self.push(Item::Immediate(imm), start);
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
    fn declaration_attributes(&mut self, decl: &mut Declaration) -> PResult<()> {
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

    /// Whether a legacy `RES` declaration reads `, TARGET, RETURN_TYPE`
    /// (a sampler view) rather than `, TARGET[, RAW][, WR]` (an image).
    fn res_is_sampler_view(&self) -> bool {
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
    fn comma_then(&mut self, f: impl FnOnce(&mut Self) -> bool) -> bool {
        self.comma_then_value(|p| f(p).then_some(())).is_some()
    }

    fn comma_then_value<T>(&mut self, f: impl FnOnce(&mut Self) -> Option<T>) -> Option<T> {
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

    fn image_options(&mut self, decl: &mut Declaration, target: TextureTarget) -> PResult<()> {
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

    fn sampler_view_types(&mut self, decl: &mut Declaration, target: TextureTarget) -> PResult<()> {
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

    // ----- immediates and properties -----

    fn parse_immediate(&mut self) -> PResult<Immediate> {
        if self.c.peek() == b'[' {
            self.c.pos += 1;
            let start = self.c.pos;
            let index = self.uint("an immediate index", u32::MAX)?;
            if index != self.num_immediates {
                return Err(self.c.error_span(
                    start,
                    self.c.pos,
                    format!("immediates must be numbered in order: this one is IMM[{}]", self.num_immediates),
                ));
            }
            self.expect(b']')?;
        }
        if !self.c.skip_ws() {
            return Err(self.c.expected("a space"));
        }
        let ty = self
            .name_of(ImmediateType::ALL, ImmediateType::name)
            .ok_or_else(|| self.c.expected("an immediate type (FLT32, UINT32, INT32, FLT64, UINT64 or INT64)"))?;
        let data = self.immediate_data(ty)?;
        self.num_immediates += 1;
        Ok(Immediate { ty, data })
    }

    /// `{ v0, v1, v2, v3 }` (two values for 64-bit types).
    fn immediate_data(&mut self, ty: ImmediateType) -> PResult<[u32; 4]> {
        self.expect(b'{')?;
        let mut data = [0u32; 4];
        let count = if ty.is_64bit() { 2 } else { 4 };
        for i in 0..count {
            if i > 0 {
                self.expect(b',')?;
            }
            self.c.skip_ws();
            if ty.is_64bit() {
                let bits = self.value64(ty)?;
                data[2 * i] = bits as u32;
                data[2 * i + 1] = (bits >> 32) as u32;
            } else {
                data[i] = self.value32(ty)?;
            }
        }
        self.c.skip_ws();
        if !self.c.eat(b'}') {
            let what = if self.c.peek() == b',' {
                format!("`}}`: a {ty} immediate has {count} values")
            } else {
                "`}`".to_string()
            };
            return Err(self.c.expected(&what));
        }
        Ok(data)
    }

    fn value32(&mut self, ty: ImmediateType) -> PResult<u32> {
        let start = self.c.pos;
        match ty {
            ImmediateType::Float32 => {
                let len = number::float_literal_len(&self.c.bytes[start..]);
                if len == 0 {
                    return Err(self.c.expected("a number"));
                }
                self.c.pos += len;
                self.end_of_value(start)?;
                Ok(number::parse_f32(&self.c.text[start..start + len]).to_bits())
            }
            ImmediateType::Uint32 => {
                let v = self.uint("an unsigned integer", u32::MAX)?;
                self.end_of_value(start)?;
                Ok(v)
            }
            _ => {
                let v = self.int("an integer", i32::MIN as i64, i32::MAX as i64)?;
                self.end_of_value(start)?;
                Ok(v as i32 as u32)
            }
        }
    }

    fn value64(&mut self, ty: ImmediateType) -> PResult<u64> {
        let start = self.c.pos;
        if ty == ImmediateType::Float64 {
            let len = number::float_literal_len(&self.c.bytes[start..]);
            if len == 0 {
                return Err(self.c.expected("a number"));
            }
            self.c.pos += len;
            self.end_of_value(start)?;
            return Ok(number::parse_f64(&self.c.text[start..start + len]).to_bits());
        }
        let len = number::c_integer_len(&self.c.bytes[start..]);
        if len == 0 {
            return Err(self.c.expected("an integer"));
        }
        self.c.pos += len;
        self.end_of_value(start)?;
        let text = &self.c.text[start..start + len];
        let out_of_range = || self.c.error_span(start, start + len, format!("{text} is out of range for {ty}"));
        let (negative, magnitude) = number::parse_c_integer(text).ok_or_else(out_of_range)?;
        if ty == ImmediateType::Int64 {
            let v = if negative { 0i128 - magnitude as i128 } else { magnitude as i128 };
            if v < i64::MIN as i128 || v > i64::MAX as i128 {
                return Err(out_of_range());
            }
            Ok(v as i64 as u64)
        } else {
            if negative && magnitude != 0 {
                return Err(out_of_range());
            }
            Ok(magnitude)
        }
    }

    /// A value must end where a separator starts (Mesa would otherwise
    /// stop reading mid-word and report a confusing error later).
    fn end_of_value(&self, start: usize) -> PResult<()> {
        if is_ident(self.c.peek()) || self.c.peek() == b'.' {
            let mut end = self.c.pos;
            while end < self.c.bytes.len() && (is_ident(self.c.bytes[end]) || self.c.bytes[end] == b'.') {
                end += 1;
            }
            return Err(self.c.error_span(start, end, format!("malformed number `{}`", &self.c.text[start..end])));
        }
        Ok(())
    }

    fn parse_property(&mut self) -> PResult<Property> {
        if !self.c.skip_ws() {
            return Err(self.c.expected("a space after `PROPERTY`"));
        }
        let name =
            self.name_of(PropertyName::ALL, PropertyName::name).ok_or_else(|| self.c.expected("a property name"))?;
        self.c.skip_ws();
        let value = match name.value_kind() {
            PropertyValueKind::Primitive => {
                let prim = self
                    .name_of(Primitive::ALL, Primitive::name)
                    .ok_or_else(|| self.c.expected("a primitive (POINTS, LINES, TRIANGLES, ...)"))?;
                if name == PropertyName::GsInputPrimitive && self.processor == Processor::Geometry {
                    self.implied_array_size = prim.vertices();
                }
                prim.index()
            }
            PropertyValueKind::CoordOrigin => self
                .name_of(CoordOrigin::ALL, CoordOrigin::name)
                .ok_or_else(|| self.c.expected("`UPPER_LEFT` or `LOWER_LEFT`"))?
                .index(),
            PropertyValueKind::PixelCenter => self
                .name_of(PixelCenter::ALL, PixelCenter::name)
                .ok_or_else(|| self.c.expected("`HALF_INTEGER` or `INTEGER`"))?
                .index(),
            PropertyValueKind::Processor => self
                .name_of(Processor::ALL, Processor::name)
                .ok_or_else(|| self.c.expected("a processor (VERT, FRAG, ...)"))?
                .index(),
            PropertyValueKind::Uint => self.uint("an unsigned integer", u32::MAX)?,
        };
        Ok(Property { name, value })
    }

    /// `DCL IMMX[a..b] {{...}, {...}}`: one FLT32 immediate per register.
    fn parse_immx(&mut self, start: usize) -> PResult<Vec<Immediate>> {
        self.expect(b'[')?;
        let (first, last) = self.dcl_bracket()?;
        if first != 0 {
            return Err(self.c.error_span(start, self.c.pos, "an IMMX declaration starts at index 0"));
        }
        self.expect(b'{')?;
        let mut imms = Vec::new();
        for i in first..=last {
            if i > first {
                self.expect(b',')?;
            }
            self.c.skip_ws();
            let data = self.immediate_data(ImmediateType::Float32)?;
            imms.push(Immediate { ty: ImmediateType::Float32, data });
        }
        self.expect(b'}')?;
        self.legacy.declare_immx(self.num_immediates);
        Ok(imms)
    }
}

/// A register file as written: today's, or one of the 2010 ones.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum FileName {
    Plain(File),
    Legacy(legacy::LegacyFile),
}

/// The parsed inside of an operand bracket.
struct Bracket {
    index: i32,
    indirect: Option<Indirect>,
}

enum ImageOption {
    Raw,
    Writable,
    Format(u16),
}

fn component(b: u8) -> Option<u8> {
    match b.to_ascii_lowercase() {
        b'x' => Some(0),
        b'y' => Some(1),
        b'z' => Some(2),
        b'w' => Some(3),
        _ => None,
    }
}

/// Splits `MOV_SAT_PRECISE` into the opcode and its suffixes (in that
/// order, as Mesa reads them).
fn resolve_mnemonic(word: &str) -> Option<(Opcode, bool, bool)> {
    if let Some(op) = lookup_opcode(word) {
        return Some((op, false, false));
    }
    fn strip<'w>(word: &'w str, suffix: &str) -> Option<&'w str> {
        let cut = word.len().checked_sub(suffix.len())?;
        (word.is_char_boundary(cut) && word[cut..].eq_ignore_ascii_case(suffix)).then(|| &word[..cut])
    }
    let (rest, precise) = strip(word, "_PRECISE").map_or((word, false), |r| (r, true));
    let (rest, saturate) = strip(rest, "_SAT").map_or((rest, false), |r| (r, true));
    if !saturate && !precise {
        return None;
    }
    lookup_opcode(rest).map(|op| (op, saturate, precise))
}

/// `word` upper-cased and packed into an integer, if it has at most 16
/// bytes: a cheap key for case-insensitive lookups.
fn key(word: &str) -> Option<u128> {
    let bytes = word.as_bytes();
    if bytes.len() > 16 {
        return None;
    }
    let mut buf = [0u8; 16];
    for (o, b) in buf.iter_mut().zip(bytes) {
        *o = b.to_ascii_uppercase();
    }
    Some(u128::from_be_bytes(buf))
}

/// A register file by name, ignoring ASCII case. Operands name a file
/// several times an instruction, so this picks the one candidate by length
/// and first letter before comparing.
fn file_from_name(word: &str) -> Option<File> {
    // Canonical text spells files in upper case: match those bytes first.
    let exact = match word.as_bytes() {
        b"TEMP" => Some(File::Temporary),
        b"IN" => Some(File::Input),
        b"OUT" => Some(File::Output),
        b"CONST" => Some(File::Constant),
        b"IMM" => Some(File::Immediate),
        b"SAMP" => Some(File::Sampler),
        b"ADDR" => Some(File::Address),
        b"SV" => Some(File::SystemValue),
        _ => None,
    };
    if exact.is_some() {
        return exact;
    }
    let first = word.as_bytes().first()?.to_ascii_uppercase();
    let candidate = match (word.len(), first) {
        (2, b'I') => File::Input,
        (2, b'S') => File::SystemValue,
        (3, b'O') => File::Output,
        (3, b'I') => File::Immediate,
        (4, b'T') => File::Temporary,
        (4, b'S') => File::Sampler,
        (4, b'A') => File::Address,
        (4, b'N') => File::Null,
        (5, b'C') => File::Constant,
        (5, b'I') => File::Image,
        (5, b'S') => File::SamplerView,
        (6, b'B') => File::Buffer,
        (6, b'M') => File::Memory,
        (8, b'C') => File::ConstBuf,
        (8, b'H') => File::HwAtomic,
        _ => return None,
    };
    candidate.name().eq_ignore_ascii_case(word).then_some(candidate)
}

/// Case-insensitive mnemonic lookup: binary search in a table sorted once.
fn lookup_opcode(word: &str) -> Option<Opcode> {
    use std::sync::OnceLock;
    static SORTED: OnceLock<Vec<(u128, Opcode)>> = OnceLock::new();
    let sorted = SORTED.get_or_init(|| {
        let names = Opcode::ALL.iter().map(|&op| (op.name(), op));
        let aliases = ["EMIT_VERTEX", "END_PRIMITIVE"].into_iter().filter_map(|n| Some((n, Opcode::from_name(n)?)));
        let mut v: Vec<(u128, Opcode)> = names.chain(aliases).filter_map(|(n, op)| Some((key(n)?, op))).collect();
        v.sort_unstable_by_key(|&(k, _)| k);
        v
    });
    let k = key(word)?;
    sorted.binary_search_by_key(&k, |&(k, _)| k).ok().map(|i| sorted[i].1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_file_name_is_found_in_any_case() {
        for &f in File::ALL {
            assert_eq!(file_from_name(f.name()), Some(f));
            assert_eq!(file_from_name(&f.name().to_ascii_lowercase()), Some(f));
        }
        assert_eq!(file_from_name("INPUT"), None);
        assert_eq!(file_from_name(""), None);
    }

    #[test]
    fn every_mnemonic_is_found_with_its_suffixes() {
        for &op in Opcode::ALL {
            assert_eq!(resolve_mnemonic(op.name()), Some((op, false, false)));
            assert_eq!(resolve_mnemonic(&format!("{}_sat_precise", op.name())), Some((op, true, true)));
        }
        assert_eq!(resolve_mnemonic("MOV_PRECISE_SAT"), None);
    }
}
