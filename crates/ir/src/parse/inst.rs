//! One instruction line: `v3, v4:64 = op args`.

use super::cursor::Cursor;
use super::{entity, Code, Def, ParseIrError};
use crate::entity::EntityRef;
use crate::function::{Array, Block, InstData, Op, Operand, Origin, RegChannel, Source, Ty, Value};
use smallvec::SmallVec;
use tgsi::{File, Indirect, Register};

type Args = SmallVec<[Operand; 3]>;

/// Reads an instruction line (after its indentation).
pub(super) fn inst(c: &mut Cursor<'_>, code: &mut Code, processor: tgsi::Processor) -> Result<InstData, ParseIrError> {
    let index = code.insts.len();
    let results = results(c, code, index)?;
    let mut data = InstData {
        op: Op::Undef,
        args: Args::new(),
        results,
        saturate: false,
        precise: false,
        origin: Default::default(),
    };
    if c.rest().starts_with(|ch: char| ch.is_ascii_uppercase()) {
        opaque(c, code, processor, &mut data)?;
        return Ok(data);
    }
    let name_at = c.pos();
    let mut name = c.word();
    if name == "split" {
        let hi = if c.eat(".hi") {
            true
        } else {
            c.expect(".lo")?;
            false
        };
        data.op = Op::Split { hi };
        name = c.word();
    }
    if let Some(n) = name.strip_suffix("_precise") {
        data.precise = true;
        name = n;
    }
    if let Some(n) = name.strip_suffix("_sat") {
        data.saturate = true;
        name = n;
    }
    match name {
        "" if matches!(data.op, Op::Split { .. }) => data.args = list(c, code, " ")?,
        "initial" => data.op = Op::Initial,
        "undef" => data.op = Op::Undef,
        "const" => constant(c, code, &mut data)?,
        "read" => read(c, code, &mut data)?,
        "pack" => {
            data.op = Op::Pack;
            data.args = list(c, code, " ")?;
        }
        "phi" => phi(c, code, &mut data)?,
        "loadindirect" => load_indirect(c, code, &mut data)?,
        "storeindirect" => store_indirect(c, code, &mut data)?,
        "arrayload" => array_load(c, code, &mut data)?,
        "arraystore" => array_store(c, code, &mut data)?,
        "storeoutput" => store_output(c, code, &mut data)?,
        _ => alu(c, code, name, name_at, &mut data)?,
    }
    data.origin = origin(c)?;
    c.end()?;
    Ok(data)
}

/// `const 0x...`, with its comment and an operand note.
fn constant(c: &mut Cursor<'_>, code: &mut Code, data: &mut InstData) -> Result<(), ParseIrError> {
    c.expect(" 0x")?;
    let at = c.pos();
    let hex = c.take_while(|ch| ch.is_ascii_hexdigit());
    let bits = u64::from_str_radix(hex, 16).map_err(|_| c.error_at(at, hex.len(), "expected up to 16 hex digits"))?;
    data.op = Op::Const(bits);
    // The comment says what the bits read as; it is derived, so
    // only an operand note after it matters.
    if c.eat(" ; ") {
        let comment = c.rest();
        let skip = [" args(", "  ; from"].iter().filter_map(|end| comment.find(end)).min().unwrap_or(comment.len());
        c.take(skip);
    }
    data.args = note(c, code)?;
    Ok(())
}

/// `read FILE[d][i].c`: a direct read of an input, constant, system value or immediate.
fn read(c: &mut Cursor<'_>, code: &mut Code, data: &mut InstData) -> Result<(), ParseIrError> {
    c.expect(" ")?;
    let (file, at, len) = file_name(c)?;
    c.expect("[")?;
    let mut index = c.number()?;
    c.expect("]")?;
    let mut dim = None;
    if c.eat("[") {
        dim = Some(index);
        index = c.number()?;
        c.expect("]")?;
    }
    if !matches!(file, File::Input | File::Constant | File::SystemValue | File::Immediate) {
        return Err(c.error_at(at, len, "reads are of IN, CONST, SV or IMM"));
    }
    let chan = channel(c)?;
    data.op = Op::Read(Source { file, dim, index, chan });
    data.args = note(c, code)?;
    Ok(())
}

/// `loadindirect REG.c, args`.
fn load_indirect(c: &mut Cursor<'_>, code: &mut Code, data: &mut InstData) -> Result<(), ParseIrError> {
    c.expect(" ")?;
    let reg = register(c)?;
    let chan = channel(c)?;
    data.op = Op::LoadIndirect { reg, chan };
    data.args = list(c, code, ", ")?;
    Ok(())
}

/// `storeindirect REG.c, args` (the indirect parts, then the value).
fn store_indirect(c: &mut Cursor<'_>, code: &mut Code, data: &mut InstData) -> Result<(), ParseIrError> {
    c.expect(" ")?;
    let reg = register(c)?;
    let chan = channel(c)?;
    data.op = Op::StoreIndirect { reg, chan };
    data.args = list(c, code, ", ")?;
    Ok(())
}

/// `arrayload aN[op + k].c`.
fn array_load(c: &mut Cursor<'_>, code: &mut Code, data: &mut InstData) -> Result<(), ParseIrError> {
    c.expect(" ")?;
    let (array, index, offset, chan) = element(c, code)?;
    data.op = Op::ArrayLoad { array, offset, chan };
    data.args = index.into_iter().collect();
    if data.args.is_empty() {
        data.args = note(c, code)?;
    }
    Ok(())
}

/// `arraystore aN[op + k].c, value`.
fn array_store(c: &mut Cursor<'_>, code: &mut Code, data: &mut InstData) -> Result<(), ParseIrError> {
    c.expect(" ")?;
    let (array, index, offset, chan) = element(c, code)?;
    data.op = Op::ArrayStore { array, offset, chan };
    data.args = index.into_iter().collect();
    if c.eat(", ") {
        data.args.push(operand(c, code)?);
    } else if data.args.is_empty() {
        data.args = note(c, code)?;
    }
    Ok(())
}

/// `storeoutput OUT[i].c, value`.
fn store_output(c: &mut Cursor<'_>, code: &mut Code, data: &mut InstData) -> Result<(), ParseIrError> {
    c.expect(" OUT[")?;
    let index = c.number()?;
    c.expect("]")?;
    let chan = channel(c)?;
    data.op = Op::StoreOutput { index, chan };
    data.args = list(c, code, ", ")?;
    Ok(())
}

/// An ALU op: `mnemonic.c` (or `.pN` for a 64-bit pair) and its operands.
fn alu(
    c: &mut Cursor<'_>,
    code: &mut Code,
    name: &str,
    name_at: usize,
    data: &mut InstData,
) -> Result<(), ParseIrError> {
    let opcode = tgsi::Opcode::from_name(name)
        .filter(|o| !name.is_empty() && o.name().eq_ignore_ascii_case(name))
        .ok_or_else(|| c.error_at(name_at, c.pos() - name_at, format!("unknown operation `{name}`")))?;
    c.expect(".")?;
    let chan = if opcode.info().is_64bit() {
        c.expect("p")?;
        let at = c.pos();
        let pair = c.number()?;
        u8::try_from(pair)
            .ok()
            .filter(|&p| p < 2)
            .ok_or_else(|| c.error_at(at, c.pos() - at, "a channel pair is p0 or p1"))?
    } else {
        channel_letter(c)?
    };
    data.op = Op::Alu { opcode, chan };
    data.args = list(c, code, " ")?;
    Ok(())
}

/// `v3, v4:64 = ` (nothing when the line does not start with a value).
fn results(c: &mut Cursor<'_>, code: &mut Code, inst: usize) -> Result<SmallVec<[Value; 1]>, ParseIrError> {
    let mut out = SmallVec::new();
    let starts_with_value = c.rest().starts_with('v') && c.rest()[1..].starts_with(|ch: char| ch.is_ascii_digit());
    if !starts_with_value {
        return Ok(out);
    }
    loop {
        let at = c.pos();
        let v = entity(c, "v", "a value")?;
        let ty = if c.eat(":64") { Ty::B64 } else { Ty::B32 };
        if code.values.contains_key(&v) {
            return Err(c.error_at(at, c.pos() - at, format!("v{v} is defined twice")));
        }
        code.values.insert(v, Def { ty, inst });
        out.push(Value::new(v as usize));
        if !c.eat(", ") {
            break;
        }
    }
    c.expect(" = ")?;
    Ok(out)
}

/// A use: `v1`, `-v1`, `|v1|`, `-|v1|`.
pub(super) fn operand(c: &mut Cursor<'_>, code: &mut Code) -> Result<Operand, ParseIrError> {
    let neg = c.eat("-");
    let abs = c.eat("|");
    let at = c.pos();
    let v = entity(c, "v", "a value")?;
    code.uses.push((v, c.span_at(at, c.pos() - at)));
    if abs {
        c.expect("|")?;
    }
    Ok(Operand { value: Value::new(v as usize), neg, abs })
}

/// `sep` and operands separated by `, `, or nothing.
fn list(c: &mut Cursor<'_>, code: &mut Code, sep: &str) -> Result<Args, ParseIrError> {
    let mut args = Args::new();
    if !c.eat(sep) {
        return Ok(args);
    }
    loop {
        args.push(operand(c, code)?);
        if !c.eat(", ") {
            return Ok(args);
        }
    }
}

/// ` args(v1, v2)`: operands an operation of its kind does not take.
fn note(c: &mut Cursor<'_>, code: &mut Code) -> Result<Args, ParseIrError> {
    if !c.eat(" args(") {
        return Ok(Args::new());
    }
    let args = if c.rest().starts_with(')') { Args::new() } else { list_items(c, code)? };
    c.expect(")")?;
    Ok(args)
}

/// Operands separated by `, ` (at least one).
fn list_items(c: &mut Cursor<'_>, code: &mut Code) -> Result<Args, ParseIrError> {
    let mut args = Args::new();
    loop {
        args.push(operand(c, code)?);
        if !c.eat(", ") {
            return Ok(args);
        }
    }
}

/// `phi [b1: v2, b3: v4]`.
fn phi(c: &mut Cursor<'_>, code: &mut Code, data: &mut InstData) -> Result<(), ParseIrError> {
    c.expect(" [")?;
    let mut preds = SmallVec::new();
    if !c.rest().starts_with(']') {
        loop {
            let b = entity(c, "b", "a block")?;
            code.name_block(b);
            preds.push(Block::new(b as usize));
            c.expect(": ")?;
            data.args.push(operand(c, code)?);
            if !c.eat(", ") {
                break;
            }
        }
    }
    c.expect("]")?;
    data.op = Op::Phi { preds };
    Ok(())
}

/// A register file's name, as TGSI spells it; with where it was.
fn file_name(c: &mut Cursor<'_>) -> Result<(File, usize, usize), ParseIrError> {
    let at = c.pos();
    let name = c.word();
    match File::from_name(name).filter(|f| f.name() == name) {
        Some(file) => Ok((file, at, name.len())),
        None => Err(c.error_at(at, name.len().max(1), format!("expected a register file, found `{name}`"))),
    }
}

/// `.x`..`.w` (or `.c7` for a channel out of range, as printed).
fn channel(c: &mut Cursor<'_>) -> Result<u8, ParseIrError> {
    c.expect(".")?;
    channel_letter(c)
}

fn channel_letter(c: &mut Cursor<'_>) -> Result<u8, ParseIrError> {
    let at = c.pos();
    for (i, name) in ["x", "y", "z", "w"].iter().enumerate() {
        if c.eat(name) {
            return Ok(i as u8);
        }
    }
    Err(c.error_at(at, 1, "expected a channel (`x`, `y`, `z` or `w`)"))
}

/// `a0[v7 + 2].y`, `a0[v7 - 1].x`, `a0[3].z`: the array, its index
/// operand if any, the constant offset and the channel.
fn element(c: &mut Cursor<'_>, code: &mut Code) -> Result<(Array, Option<Operand>, i32, u8), ParseIrError> {
    let at = c.pos();
    let a = entity(c, "a", "an array")?;
    if a as usize >= code.arrays.len() {
        return Err(c.error_at(at, c.pos() - at, format!("a{a} is not declared under `arrays:`")));
    }
    c.expect("[")?;
    let rest = c.rest();
    let constant = rest.starts_with(|ch: char| ch.is_ascii_digit())
        || (rest.starts_with('-') && rest[1..].starts_with(|ch: char| ch.is_ascii_digit()));
    let (index, offset) = if constant {
        (None, c.signed()?)
    } else {
        let ix = operand(c, code)?;
        let offset = if c.eat(" + ") {
            let at = c.pos();
            let n = c.number()?;
            i32::try_from(n).map_err(|_| c.error_at(at, c.pos() - at, "offset out of range"))?
        } else if c.eat(" - ") {
            let at = c.pos();
            let n = c.number()?;
            0i32.checked_sub_unsigned(n).ok_or_else(|| c.error_at(at, c.pos() - at, "offset out of range"))?
        } else {
            0
        };
        (Some(ix), offset)
    };
    c.expect("]")?;
    let chan = channel(c)?;
    Ok((Array::new(a as usize), index, offset, chan))
}

/// A register as TGSI writes it: `CONST[1][ADDR[0].x+2]`.
fn register(c: &mut Cursor<'_>) -> Result<Register, ParseIrError> {
    let (file, _, _) = file_name(c)?;
    let first = index_part(c)?;
    let second = if c.rest().starts_with('[') { Some(index_part(c)?) } else { None };
    let mut reg = Register::new(file, 0);
    let (outer, inner) = match second {
        Some(second) => (Some(first), second),
        None => (None, first),
    };
    reg.index = inner.0;
    reg.indirect = inner.1;
    if let Some((index, indirect)) = outer {
        reg.dimension = Some(tgsi::Dimension { index, indirect });
    }
    Ok(reg)
}

/// `[2]` or `[ADDR[0].x+2](1)`: an index, maybe indirect.
fn index_part(c: &mut Cursor<'_>) -> Result<(i32, Option<Indirect>), ParseIrError> {
    c.expect("[")?;
    if c.rest().starts_with(|ch: char| ch.is_ascii_digit() || ch == '-') {
        let n = c.signed()?;
        c.expect("]")?;
        return Ok((n, None));
    }
    let (file, _, _) = file_name(c)?;
    c.expect("[")?;
    let index = c.signed()?;
    c.expect("]")?;
    let component = channel(c)?;
    let offset = if c.rest().starts_with('+') {
        c.take(1);
        c.signed()?
    } else if c.rest().starts_with('-') {
        c.signed()?
    } else {
        0
    };
    c.expect("]")?;
    let mut array_id = 0;
    if c.eat("(") {
        let at = c.pos();
        let id = c.number()?;
        array_id = u16::try_from(id).map_err(|_| c.error_at(at, c.pos() - at, "array id out of range"))?;
        c.expect(")")?;
    }
    Ok((offset, Some(Indirect { file, index, component, array_id })))
}

/// `TEX TEMP[0].xy, TEMP[0], SAMP[0], 2D args(v1, v2, v3, v4)`: a TGSI
/// instruction kept whole, read by TGSI's parser, and its operands.
fn opaque(
    c: &mut Cursor<'_>,
    code: &mut Code,
    processor: tgsi::Processor,
    data: &mut InstData,
) -> Result<(), ParseIrError> {
    let at = c.pos();
    let rest = c.rest();
    let Some(split) = rest.rfind(" args(") else {
        return Err(c.error_at(at, rest.len(), "expected ` args(...)` after the TGSI instruction"));
    };
    let template_text = c.take(split);
    let header = format!("{}\n", processor.name());
    let source = format!("{header}{template_text}\n");
    let shader = tgsi::parse(&source).map_err(|err| {
        let start = err.span.start.saturating_sub(header.len()).min(template_text.len());
        let len = err.span.end.saturating_sub(err.span.start).max(1);
        c.error_at(at + start, len, err.message)
    })?;
    let mut items = shader.items.into_iter();
    let template = match (items.next(), items.next()) {
        (Some(tgsi::Item::Instruction(i)), None) => i,
        _ => return Err(c.error_at(at, template_text.len(), "expected one TGSI instruction")),
    };
    // Which sources are values follows from the template, as when the IR
    // was built: every source of a value file but a resource reference.
    let mut value_srcs = 0u8;
    for (i, src) in template.src.iter().enumerate().take(8) {
        if crate::from_tgsi::lower::is_value_file(src.reg.file)
            && !crate::from_tgsi::lower::is_reference_src(template.opcode, i)
        {
            value_srcs |= 1 << i;
        }
    }
    data.saturate = template.saturate;
    data.precise = template.precise;
    data.op = Op::Opaque { inst: Box::new(template), value_srcs };
    data.args = note(c, code)?;
    data.origin = origin(c)?;
    c.end()
}

/// `  ; from #12 TEMP[3].y` after an instruction, as `--origins` prints it:
/// the source instruction and register channel, which emission tries first
/// when it chooses registers. None when the comment is absent.
fn origin(c: &mut Cursor<'_>) -> Result<Origin, ParseIrError> {
    let mut origin = Origin::default();
    if !c.eat("  ; from") {
        return Ok(origin);
    }
    if c.eat(" #") {
        origin.inst = Some(c.number()?);
    }
    if c.eat(" ") {
        let (file, _, _) = file_name(c)?;
        c.expect("[")?;
        let index = c.number()?;
        c.expect("]")?;
        let chan = channel(c)?;
        origin.dst = Some(RegChannel { file, index, chan });
    }
    Ok(origin)
}
