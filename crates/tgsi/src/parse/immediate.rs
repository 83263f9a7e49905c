//! Immediates (`IMM`, `IMMX`) and properties.

use super::*;

impl Parser<'_> {
    pub(super) fn parse_immediate(&mut self) -> PResult<Immediate> {
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
    pub(super) fn immediate_data(&mut self, ty: ImmediateType) -> PResult<[u32; 4]> {
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

    pub(super) fn value32(&mut self, ty: ImmediateType) -> PResult<u32> {
        let start = self.c.pos;
        match ty {
            ImmediateType::Float32 => {
                let len = number::float_literal_len(&self.c.bytes[start..]);
                if len == 0 {
                    return Err(self.c.expected("a number"));
                }
                self.c.pos += len;
                self.end_of_value(start)?;
                let value = number::parse_f32(&self.c.text[start..start + len]);
                self.check_overflow(start, len, ty, value.is_infinite())?;
                Ok(value.to_bits())
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

    /// A finite literal too large for its type would silently become
    /// infinity (Mesa's `strtof`/`strtod` give `inf` without a word): an
    /// error, as out-of-range integers are. `inf` written as such is fine.
    fn check_overflow(&self, start: usize, len: usize, ty: ImmediateType, infinite: bool) -> PResult<()> {
        let text = &self.c.text[start..start + len];
        if !infinite || text.to_ascii_lowercase().contains("inf") {
            return Ok(());
        }
        let inf = if text.starts_with('-') { "-inf" } else { "inf" };
        Err(self.c.error_span(
            start,
            start + len,
            format!("{text} is too large for {ty}: it would become infinity; write `{inf}` if that is what is meant"),
        ))
    }

    pub(super) fn value64(&mut self, ty: ImmediateType) -> PResult<u64> {
        let start = self.c.pos;
        if ty == ImmediateType::Float64 {
            let len = number::float_literal_len(&self.c.bytes[start..]);
            if len == 0 {
                return Err(self.c.expected("a number"));
            }
            self.c.pos += len;
            self.end_of_value(start)?;
            let value = number::parse_f64(&self.c.text[start..start + len]);
            self.check_overflow(start, len, ty, value.is_infinite())?;
            return Ok(value.to_bits());
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
    pub(super) fn end_of_value(&self, start: usize) -> PResult<()> {
        if is_ident(self.c.peek()) || self.c.peek() == b'.' {
            let mut end = self.c.pos;
            while end < self.c.bytes.len() && (is_ident(self.c.bytes[end]) || self.c.bytes[end] == b'.') {
                end += 1;
            }
            return Err(self.c.error_span(start, end, format!("malformed number `{}`", &self.c.text[start..end])));
        }
        Ok(())
    }

    pub(super) fn parse_property(&mut self) -> PResult<Property> {
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
    pub(super) fn parse_immx(&mut self, start: usize) -> PResult<Vec<Immediate>> {
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
