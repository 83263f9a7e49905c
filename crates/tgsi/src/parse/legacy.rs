//! Syntax of older TGSI that today's Mesa rejects, rewritten while parsing
//! into today's equivalents so the rest of the project sees one language:
//!
//! - version headers `FRAG1.1`, `VERT1.1`: the version is dropped;
//! - `DCL TEMPX[a][f..l]` (a 2-D temporary array) becomes plain `TEMP`
//!   registers after every `TEMP` declared before it, and `TEMPX[a][i]`
//!   reads and writes those;
//! - `DCL IMMX[0..n] {{...}, ...}` becomes `n+1` FLT32 immediates, and
//!   `IMMX[i]` reads them;
//! - `RES[i]` resources become `SVIEW[i]` when declared with a return type
//!   and `IMAGE[i]` otherwise;
//! - the compute memory spaces `RGLOBAL`, `RLOCAL`, `RPRIVATE` and `RINPUT`
//!   become `MEMORY[32767]`, `MEMORY[32766]`, `MEMORY[32765]` and
//!   `MEMORY[32764]`, declared (GLOBAL, SHARED, PRIVATE, INPUT) before the
//!   first instruction.
//!
//! The removed opcodes themselves (SUB, KILP, ...) are in the opcode table.

use super::cursor::Cursor;
use super::Span;
use crate::ast::*;
use crate::names::{File, MemoryType};

/// A register file name of older TGSI.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum LegacyFile {
    TempX,
    ImmX,
    Res,
    Memory(MemoryType),
}

impl LegacyFile {
    pub fn from_name(name: &str) -> Option<Self> {
        let all = [
            ("TEMPX", LegacyFile::TempX),
            ("IMMX", LegacyFile::ImmX),
            ("RES", LegacyFile::Res),
            ("RGLOBAL", LegacyFile::Memory(MemoryType::Global)),
            ("RLOCAL", LegacyFile::Memory(MemoryType::Shared)),
            ("RPRIVATE", LegacyFile::Memory(MemoryType::Private)),
            ("RINPUT", LegacyFile::Memory(MemoryType::Input)),
        ];
        all.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|&(_, f)| f)
    }

    pub fn name(self) -> &'static str {
        match self {
            LegacyFile::TempX => "TEMPX",
            LegacyFile::ImmX => "IMMX",
            LegacyFile::Res => "RES",
            LegacyFile::Memory(MemoryType::Global) => "RGLOBAL",
            LegacyFile::Memory(MemoryType::Shared) => "RLOCAL",
            LegacyFile::Memory(MemoryType::Private) => "RPRIVATE",
            LegacyFile::Memory(MemoryType::Input) => "RINPUT",
        }
    }
}

/// The memory register standing for an old compute memory space.
fn memory_index(ty: MemoryType) -> i32 {
    0x7fff - ty.index() as i32
}

/// What the legacy rewrites have to remember while parsing.
#[derive(Default)]
pub(crate) struct Legacy {
    /// One past the highest TEMP register declared so far.
    next_temp: u32,
    /// TEMPX array id -> first TEMP register of the array, and its length.
    tempx: Vec<(u16, u32, u32)>,
    /// The IMM index of `IMMX[0]`.
    immx_base: Option<u32>,
    /// Which file each `RES[i]` was declared as.
    res: Vec<(u32, u32, File)>,
    /// Memory spaces used, in order of first use.
    memory: Vec<MemoryType>,
}

/// Splits `FRAG1.1` into `FRAG` and whether a version followed.
pub(crate) fn split_header_version(word: &str) -> (&str, bool) {
    let end = word.trim_end_matches(|c: char| c.is_ascii_digit()).len();
    if end < word.len() && end > 0 {
        (&word[..end], true)
    } else {
        (word, false)
    }
}

/// Skips the `.1` of a `FRAG1.1` header.
pub(crate) fn skip_version_fraction(c: &mut Cursor) {
    if c.peek() == b'.' && c.peek_at(1).is_ascii_digit() {
        c.pos += 1;
        while c.peek().is_ascii_digit() {
            c.pos += 1;
        }
    }
}

impl Legacy {
    /// Records a `DCL TEMP[first..last]`.
    pub fn note_temp_declared(&mut self, first: u16, last: u16) -> Result<(), String> {
        for &(array, base, len) in &self.tempx {
            if (first as u32) < base + len && (last as u32) >= base {
                return Err(format!(
                    "TEMP[{first}..{last}] overlaps TEMP[{base}..{}], which hold TEMPX[{array}]",
                    base + len - 1
                ));
            }
        }
        self.next_temp = self.next_temp.max(last as u32 + 1);
        Ok(())
    }

    /// Records a `DCL TEMPX[array][first..last]`; returns the TEMP range.
    pub fn declare_tempx(&mut self, array: u16, (first, last): (u32, u32)) -> Result<(u16, u16), String> {
        if self.tempx.iter().any(|&(a, _, _)| a == array) {
            return Err(format!("TEMPX[{array}] is declared twice"));
        }
        let base = self.next_temp;
        let len = last + 1;
        let (lo, hi) = (base + first, base + last);
        if hi > u16::MAX as u32 {
            return Err(format!("TEMPX[{array}] does not fit the TEMP registers"));
        }
        self.tempx.push((array, base, len));
        self.next_temp = hi + 1;
        Ok((lo as u16, hi as u16))
    }

    /// Records `DCL IMMX`, whose first immediate is `IMM[base]`.
    pub fn declare_immx(&mut self, base: u32) {
        self.immx_base = Some(base);
    }

    /// Records `DCL RES[first..last]` as `file`.
    pub fn declare_res(&mut self, (first, last): (u32, u32), file: File) {
        self.res.push((first, last, file));
    }

    /// A register written without brackets (`RLOCAL`).
    pub fn bare_register(&mut self, file: LegacyFile) -> Option<Register> {
        let LegacyFile::Memory(ty) = file else { return None };
        if !self.memory.contains(&ty) {
            self.memory.push(ty);
        }
        Some(Register::new(File::Memory, memory_index(ty)))
    }

    /// Rewrites a register of a legacy file into today's form.
    pub fn register(&mut self, file: LegacyFile, reg: Register) -> Result<Register, String> {
        let direct = reg.indirect.is_none();
        match file {
            LegacyFile::TempX => {
                let Some(dim) = reg.dimension else {
                    return Err("TEMPX takes two indices: TEMPX[array][index]".into());
                };
                if dim.indirect.is_some() || !direct {
                    return Err("TEMPX registers are only supported with direct indices".into());
                }
                let array = dim.index as u16;
                let &(_, base, len) = self
                    .tempx
                    .iter()
                    .find(|&&(a, _, _)| a as i32 == dim.index)
                    .ok_or_else(|| format!("TEMPX[{array}] is not declared"))?;
                if reg.index < 0 || reg.index as u32 >= len {
                    return Err(format!("TEMPX[{array}][{}] is outside the declared array", reg.index));
                }
                Ok(Register::new(File::Temporary, (base + reg.index as u32) as i32))
            }
            LegacyFile::ImmX => {
                let base = self.immx_base.ok_or("IMMX is not declared")?;
                if !direct || reg.dimension.is_some() {
                    return Err("IMMX registers are only supported with one direct index".into());
                }
                let index = base as i64 + reg.index as i64;
                if index > i16::MAX as i64 {
                    return Err("IMMX index out of range".into());
                }
                Ok(Register::new(File::Immediate, index as i32))
            }
            LegacyFile::Res => {
                let file = if direct {
                    self.res
                        .iter()
                        .find(|&&(f, l, _)| (f as i64..=l as i64).contains(&(reg.index as i64)))
                        .map(|&(_, _, file)| file)
                        .ok_or_else(|| format!("RES[{}] is not declared", reg.index))?
                } else {
                    // An indirect resource: all declared RES share one kind.
                    self.res.first().map(|&(_, _, f)| f).ok_or("RES is not declared")?
                };
                Ok(Register { file, ..reg })
            }
            LegacyFile::Memory(ty) => Err(format!("{} takes no index", LegacyFile::Memory(ty).name())),
        }
    }

    /// Adds the declarations the rewrites need, before the first
    /// instruction.
    pub fn finish(&self, items: &mut Vec<Item>, spans: &mut Vec<Span>) {
        if self.memory.is_empty() {
            return;
        }
        let at = items.iter().position(|i| matches!(i, Item::Instruction(_))).unwrap_or(items.len());
        let span = spans.get(at).copied().unwrap_or_default();
        let with_spans = !spans.is_empty();
        let mut sorted = self.memory.clone();
        sorted.sort_by_key(|&ty| memory_index(ty));
        for (k, ty) in sorted.into_iter().enumerate() {
            let index = memory_index(ty) as u16;
            let mut decl = Declaration::new(File::Memory, index, index);
            decl.memory_type = ty;
            items.insert(at + k, Item::Declaration(decl));
            if with_spans {
                spans.insert(at + k, span);
            }
        }
    }
}
