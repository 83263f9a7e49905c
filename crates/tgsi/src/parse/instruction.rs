//! Instructions: the mnemonic with its suffixes, operands, labels and
//! instruction options.

use super::*;

impl Parser<'_> {
    pub(super) fn parse_instruction(&mut self, has_label: bool) -> PResult<Instruction> {
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
    pub(super) fn next_is(&self, b: u8) -> bool {
        let mut p = self.c.pos;
        while matches!(self.c.bytes.get(p), Some(b' ' | b'\t' | b'\r' | b'\n')) {
            p += 1;
        }
        self.c.bytes.get(p) == Some(&b)
    }
}

/// Splits `MOV_SAT_PRECISE` into the opcode and its suffixes (in that
/// order, as Mesa reads them).
pub(super) fn resolve_mnemonic(word: &str) -> Option<(Opcode, bool, bool)> {
    if let Some(op) = lookup_opcode(word) {
        return Some((op, false, false));
    }
    pub(super) fn strip<'w>(word: &'w str, suffix: &str) -> Option<&'w str> {
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
pub(super) fn key(word: &str) -> Option<u128> {
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

/// Case-insensitive mnemonic lookup: binary search in a table sorted once.
pub(super) fn lookup_opcode(word: &str) -> Option<Opcode> {
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
    pub(super) fn every_mnemonic_is_found_with_its_suffixes() {
        for &op in Opcode::ALL {
            assert_eq!(resolve_mnemonic(op.name()), Some((op, false, false)));
            assert_eq!(resolve_mnemonic(&format!("{}_sat_precise", op.name())), Some((op, true, true)));
        }
        assert_eq!(resolve_mnemonic("MOV_PRECISE_SAT"), None);
    }
}
