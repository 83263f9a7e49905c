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

/// `loadindirect CONST[v5 + 2].y`, `loadindirect IN[v6][1](2).x`.
fn load_indirect(c: &mut Cursor<'_>, code: &mut Code, data: &mut InstData) -> Result<(), ParseIrError> {
    let (reg, chan, args) = indirect_access(c, code)?;
    data.op = Op::LoadIndirect { reg, chan };
    data.args = args;
    data.args.extend(note(c, code)?);
    Ok(())
}

/// `storeindirect OUT[v2][1].x, v7`: the register, then the value stored.
fn store_indirect(c: &mut Cursor<'_>, code: &mut Code, data: &mut InstData) -> Result<(), ParseIrError> {
    let (reg, chan, args) = indirect_access(c, code)?;
    data.op = Op::StoreIndirect { reg, chan };
    data.args = args;
    if c.eat(", ") {
        data.args.push(operand(c, code)?);
    }
    data.args.extend(note(c, code)?);
    Ok(())
}

/// ` FILE[d][i].c` of an indirect load or store: each bracket a constant,
/// or an index operand with an offset and maybe an array id after the
/// bracket; with the operands, the index first, then the 2-D index.
fn indirect_access(c: &mut Cursor<'_>, code: &mut Code) -> Result<(Register, u8, Args), ParseIrError> {
    c.expect(" ")?;
    let (file, _, _) = file_name(c)?;
    let first = register_index(c, code)?;
    let second = if c.rest().starts_with('[') { Some(register_index(c, code)?) } else { None };
    let (dim, index) = match second {
        Some(second) => (Some(first), second),
        None => (None, first),
    };
    let mut reg = Register::new(file, index.offset);
    reg.indirect = index.indirect();
    reg.dimension = dim.map(|d| tgsi::Dimension { index: d.offset, indirect: d.indirect() });
    let chan = channel(c)?;
    Ok((reg, chan, index.operand.into_iter().chain(dim.and_then(|d| d.operand)).collect()))
}

/// One bracket of an indirectly accessed register.
#[derive(Clone, Copy)]
struct RegisterIndex {
    operand: Option<Operand>,
    offset: i32,
    array_id: u16,
}

impl RegisterIndex {
    /// The address the operand stands for: emission chooses the register.
    fn indirect(self) -> Option<Indirect> {
        self.operand.map(|_| Indirect { file: File::Address, index: 0, component: 0, array_id: self.array_id })
    }
}

/// `[3]`, or `[v5 + 2]` with an array id `(1)` after it.
fn register_index(c: &mut Cursor<'_>, code: &mut Code) -> Result<RegisterIndex, ParseIrError> {
    c.expect("[")?;
    let (operand, offset) = index_and_offset(c, code)?;
    c.expect("]")?;
    let mut array_id = 0;
    if operand.is_some() && c.eat("(") {
        let at = c.pos();
        let id = c.number()?;
        array_id = u16::try_from(id).map_err(|_| c.error_at(at, c.pos() - at, "array id out of range"))?;
        c.expect(")")?;
    }
    Ok(RegisterIndex { operand, offset, array_id })
}

/// Inside brackets: a constant (`-1`), or an operand with an optional
/// offset (`v7`, `v7 + 2`, `v7 - 1`).
fn index_and_offset(c: &mut Cursor<'_>, code: &mut Code) -> Result<(Option<Operand>, i32), ParseIrError> {
    let rest = c.rest();
    let constant = rest.starts_with(|ch: char| ch.is_ascii_digit())
        || (rest.starts_with('-') && rest[1..].starts_with(|ch: char| ch.is_ascii_digit()));
    if constant {
        return Ok((None, c.signed()?));
    }
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
    Ok((Some(ix), offset))
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

/// An ALU op: `mnemonic` (`mnemonic.c` with the formula's channel for the
/// opcodes whose channels compute different formulas) and its operands.
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
    let dependent = opcode.info().mode == tgsi::ChannelMode::ChannelDependent;
    let chan = if c.rest().starts_with('.') {
        channel(c)?
    } else if dependent {
        return Err(c.error_at(
            name_at,
            c.pos() - name_at,
            format!("`{name}` computes a different formula on each channel: write `{name}.x` .. `{name}.w`"),
        ));
    } else {
        0
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

/// `.x`..`.w`.
fn channel(c: &mut Cursor<'_>) -> Result<u8, ParseIrError> {
    c.expect(".")?;
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
    let (index, offset) = index_and_offset(c, code)?;
    c.expect("]")?;
    let chan = channel(c)?;
    Ok((Array::new(a as usize), index, offset, chan))
}

/// `v3, v4 = TEX _.xy, -(v0, v1, v2, v2), SAMP[0], 2D`: a TGSI
/// instruction kept whole. `_` (with its write mask) is a destination
/// whose results are on the left; `(a, b, c, d)` a source that is a value.
/// Both become placeholder registers in the TGSI text read by TGSI's
/// parser, which reads the rest (resources, samplers, texture targets,
/// qualifiers).
fn opaque(
    c: &mut Cursor<'_>,
    code: &mut Code,
    processor: tgsi::Processor,
    data: &mut InstData,
) -> Result<(), ParseIrError> {
    let at = c.pos();
    let mut text = c.take_while(|ch| ch.is_ascii_alphanumeric() || ch == '_').to_string();
    let mut args = Args::new();
    // Operand positions written as values, dsts and srcs alike.
    let mut tuples = Vec::new();
    // The index operands of resources, by operand position.
    let mut addresses: Vec<(usize, Args)> = Vec::new();
    let mut position = 0usize;
    let mut sep = " ";
    let more =
        |c: &Cursor<'_>| !(c.rest().is_empty() || c.rest().starts_with(" args(") || c.rest().starts_with("  ; from"));
    while more(c) && c.eat(sep) {
        text.push_str(sep);
        sep = ", ";
        let rest = c.rest();
        let modifiers = rest.len() - rest.trim_start_matches(['-', '|']).len();
        if c.eat("_") {
            text.push_str(PLACEHOLDER);
            if c.rest().starts_with('.') {
                text.push_str(c.take_while(|ch| ch == '.' || "xyzw".contains(ch)));
            }
        } else if rest[modifiers..].starts_with('(') {
            args.extend(value_source(c, code, &mut text)?);
            tuples.push(position);
        } else {
            let end = [", ", " args(", "  ; from"].iter().filter_map(|e| rest.find(e)).min().unwrap_or(rest.len());
            let piece = &rest[..end];
            if ["[v", "[-v", "[|v"].iter().any(|p| piece.contains(p)) {
                addresses.push((position, indexed_resource(c, code, &mut text, end)?));
            } else {
                text.push_str(c.take(end));
            }
        }
        position += 1;
    }
    let len = c.pos() - at;
    let header = format!("{}\n", processor.name());
    let shader = tgsi::parse(&format!("{header}{text}\n")).map_err(|err| c.error_at(at, len, err.message))?;
    let mut items = shader.items.into_iter();
    let template = match (items.next(), items.next()) {
        (Some(tgsi::Item::Instruction(i)), None) => i,
        _ => return Err(c.error_at(at, len, "expected one TGSI instruction")),
    };
    let num_dst = template.dst.len();
    let value_srcs = value_sources(&template, &tuples).map_err(|what| c.error_at(at, len, what))?;
    // Index operands follow the values: the sources', then the
    // destinations' (`opaque_address_operands`).
    addresses.sort_by_key(|&(position, _)| (position < num_dst, position));
    args.extend(addresses.into_iter().flat_map(|(_, ops)| ops));
    data.saturate = template.saturate;
    data.precise = template.precise;
    data.op = Op::Opaque { inst: Box::new(template), value_srcs };
    args.extend(note(c, code)?);
    data.args = args;
    data.origin = origin(c)?;
    c.end()
}

/// The register an opaque instruction's text puts where the IR has a
/// value: TGSI's parser needs a register there.
const PLACEHOLDER: &str = "TEMP[0]";

/// `-(v0, v1, v2, v3)` (negation and `|...|` optional): a source that is a
/// value, written into `text` as [`PLACEHOLDER`] with its modifiers; its
/// four operands.
fn value_source(c: &mut Cursor<'_>, code: &mut Code, text: &mut String) -> Result<Args, ParseIrError> {
    let neg = c.eat("-");
    let abs = c.eat("|");
    c.expect("(")?;
    let four_at = c.pos();
    let four = list_items(c, code)?;
    if four.len() != 4 {
        return Err(c.error_at(four_at, c.pos() - four_at, "a value source has four operands"));
    }
    c.expect(")")?;
    if abs {
        c.expect("|")?;
    }
    let (n, a) = (if neg { "-" } else { "" }, if abs { "|" } else { "" });
    text.push_str(&format!("{n}{a}{PLACEHOLDER}{a}"));
    Ok(four)
}

/// A resource with an index operand (`BUFFER[v3+1]`), `end` bytes long:
/// written into `text` with a placeholder address register, which TGSI's
/// parser reads; the index operands, in the order the builder takes them.
fn indexed_resource(c: &mut Cursor<'_>, code: &mut Code, text: &mut String, end: usize) -> Result<Args, ParseIrError> {
    let start = c.pos();
    let (file, _, _) = file_name(c)?;
    let first = register_index(c, code)?;
    let second = if c.rest().starts_with('[') { Some(register_index(c, code)?) } else { None };
    text.push_str(file.name());
    let mut operands = Args::new();
    for bracket in [Some(first), second].into_iter().flatten() {
        match bracket.operand {
            Some(op) => {
                text.push_str(&format!("[ADDR[0].x{:+}]", bracket.offset));
                if bracket.array_id != 0 {
                    text.push_str(&format!("({})", bracket.array_id));
                }
                operands.push(op);
            }
            None => text.push_str(&format!("[{}]", bracket.offset)),
        }
    }
    // The builder takes the index's operand before the 2-D index's.
    operands.reverse();
    text.push_str(c.take(end - (c.pos() - start)));
    Ok(operands)
}

/// The mask of `template`'s sources that are values, or what is wrong
/// when they are not the operand positions `tuples` wrote as values.
/// Which sources are values follows from the template, as when the IR
/// was built: every source of a value file but a resource reference.
fn value_sources(template: &tgsi::Instruction, tuples: &[usize]) -> Result<u8, String> {
    let num_dst = template.dst.len();
    let mut value_srcs = 0u8;
    for (i, src) in template.src.iter().enumerate().take(8) {
        let value = crate::from_tgsi::lower::is_value_file(src.reg.file)
            && !crate::from_tgsi::lower::is_reference_src(template.opcode, i);
        if value != tuples.contains(&(num_dst + i)) {
            let what = if value { "a value: write its four operands, `(v0, v1, v2, v3)`" } else { "not a value" };
            return Err(format!("source {i} of {} is {what}", template.opcode.name()));
        }
        if value {
            value_srcs |= 1 << i;
        }
    }
    Ok(value_srcs)
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
