//! Registers and operands: files, brackets with indirect indices,
//! swizzles and write masks.

use super::*;

impl Parser<'_> {
    /// The inside of `[...]` in an operand: `3`, or `ADDR[0].x+3`, then
    /// `]` and an optional `(array id)`.
    pub(super) fn bracket(&mut self) -> PResult<Bracket> {
        self.c.skip_ws();
        let b = if self.c.peek().is_ascii_digit() {
            let index = self.register_index()? as i32;
            Bracket { index, indirect: None }
        } else {
            let file = self.plain_file("an index register")?;
            self.expect(b'[')?;
            let ind_index = self.register_index()? as i32;
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

    pub(super) fn plain_file(&mut self, what: &str) -> PResult<File> {
        let start = self.c.pos;
        match self.file()? {
            FileName::Plain(f) => Ok(f),
            FileName::Legacy(_) => Err(self.c.error_at(start, format!("{what} must be a plain register file"))),
        }
    }

    /// `FILE[...]` with an optional second bracket.
    pub(super) fn register(&mut self) -> PResult<Register> {
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

    pub(super) fn dst_operand(&mut self) -> PResult<DstOperand> {
        let reg = self.register()?;
        let write_mask = self.writemask()?;
        Ok(DstOperand { reg, write_mask })
    }

    pub(super) fn src_operand(&mut self) -> PResult<SrcOperand> {
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
}

/// A register file as written: today's, or one of the 2010 ones.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum FileName {
    Plain(File),
    Legacy(legacy::LegacyFile),
}

/// The parsed inside of an operand bracket.
pub(super) struct Bracket {
    index: i32,
    indirect: Option<Indirect>,
}

pub(super) fn component(b: u8) -> Option<u8> {
    match b.to_ascii_lowercase() {
        b'x' => Some(0),
        b'y' => Some(1),
        b'z' => Some(2),
        b'w' => Some(3),
        _ => None,
    }
}

/// A register file by name, ignoring ASCII case. Operands name a file
/// several times an instruction, so this picks the one candidate by length
/// and first letter before comparing.
pub(super) fn file_from_name(word: &str) -> Option<File> {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    pub(super) fn every_file_name_is_found_in_any_case() {
        for &f in File::ALL {
            assert_eq!(file_from_name(f.name()), Some(f));
            assert_eq!(file_from_name(&f.name().to_ascii_lowercase()), Some(f));
        }
        assert_eq!(file_from_name("INPUT"), None);
        assert_eq!(file_from_name(""), None);
    }
}
