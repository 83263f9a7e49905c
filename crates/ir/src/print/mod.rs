//! The IR's text form: stable, deterministic, meant to be read (and diffed
//! in snapshots).
//!
//! ```text
//! frag
//! interface:
//!     DCL IN[0], GENERIC[0], PERSPECTIVE
//! temps:
//!     DCL TEMP[0..3], LOCAL
//! immediates:
//!     IMM[0] FLT32 {    1.0000,     0.0000,     0.0000,     0.0000}
//! arrays:
//!     a0: TEMP[4..7] (array 1)
//! b0:
//!     v0 = read IN[0].x
//!     v1 = const 0x3f800000 ; 1.0
//!     v2 = add_sat v0, -|v1|
//!     v3:64 = pack v0, v1
//!     v4 = split.lo v3
//!     v5 = arrayload a0[v0 + 2].y
//!     v6 = lit.y v0, v1, v1, v1
//!     v7 = loadindirect CONST[v0 + 1].x
//!     v8, v9 = TEX _.xy, (v0, v1, v1, v1), SAMP[0], 2D
//! if v2 {
//!   b1:
//!       storeoutput OUT[0].x, v2
//!       return
//! } else {
//!   b2:
//! }
//! b3:
//!     v10 = phi [b2: v4]
//! loop {
//!   b4:
//!       break
//! }
//! b5:
//! switch v0 {
//! case v1:
//!   b6:
//! default:
//!   b7:
//! }
//! b8:
//! ```
//!
//! A module built from TGSI says after its stage how many instructions the
//! source had (`source: 12 instructions`): emission's bound, kept when the
//! text is read back.
//!
//! Labels and construct lines are indented two spaces per enclosing
//! construct, instructions four more. A block's exit is its last line
//! (`break`, `continue`, `return`; nothing for a fall-through). 64-bit
//! results are marked `:64`. ALU ops print their lowercase mnemonic, `_sat`
//! and `_precise` when set, and, for the opcodes whose channels compute
//! different formulas (LIT, EXP, LOG, DST, UP2H, ...), the formula's
//! channel (`lit.y`); where a result goes is not part of the operation
//! (`--origins` shows it). Indirect loads print the register with their
//! index operands in the brackets. Instructions kept whole print in
//! uppercase as TGSI, with `_` for a destination whose results are on the
//! left and `(v0, v1, v2, v3)` for a source that is a value.
//!
//! Printing never panics, even on a malformed function: missing blocks,
//! instructions or values print as such.
//!
//! [`crate::parse()`] reads what [`print_module`] writes (with default
//! options) back into a module that prints the same text.

use crate::function::{is_value_destination, Function, Inst, InstData, Module, Op, Operand, Origin, Ty, Value};
use crate::function::{Block, Exit, Region};
use crate::walk::{walk, ConstructRef, Event, RegionKind};
use std::fmt::Write;
use tgsi::{Indirect, Register, SWIZZLE_NAMES};

/// Printing options.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PrintOptions {
    /// Print each instruction's origin (`; from #12 TEMP[3].y`).
    pub origins: bool,
}

/// Prints a function (its arrays and its code).
pub fn print_function(func: &Function) -> String {
    print_function_with(func, &PrintOptions::default())
}

/// Prints a function with options.
pub fn print_function_with(func: &Function, opts: &PrintOptions) -> String {
    let mut out = String::new();
    write_function(&mut out, func, opts);
    out
}

/// Prints a module: its stage, its interface, TEMP declarations and
/// immediates (as TGSI's printer writes them), then its function.
pub fn print_module(module: &Module) -> String {
    print_module_with(module, &PrintOptions::default())
}

/// Prints a module with options.
pub fn print_module_with(module: &Module, opts: &PrintOptions) -> String {
    let mut out = String::new();
    out.push_str(&module.processor.name().to_ascii_lowercase());
    out.push('\n');
    if let Some(n) = module.source_instructions {
        let _ = writeln!(out, "source: {n} instructions");
    }
    let temps = module.temps.iter().map(|d| tgsi::Item::Declaration(d.clone()));
    let imms = module.immediates.iter().map(|i| tgsi::Item::Immediate(*i));
    write_items(&mut out, module.processor, "interface", module.interface.clone());
    write_items(&mut out, module.processor, "temps", temps.collect());
    write_items(&mut out, module.processor, "immediates", imms.collect());
    write_function(&mut out, &module.function, opts);
    out
}

/// A section of TGSI items, printed by TGSI's canonical printer.
fn write_items(out: &mut String, processor: tgsi::Processor, title: &str, items: Vec<tgsi::Item>) {
    if items.is_empty() {
        return;
    }
    let _ = writeln!(out, "{title}:");
    let text = tgsi::print(&tgsi::Shader { processor, items }, tgsi::Style::Exact);
    for line in text.lines().skip(1) {
        let _ = writeln!(out, "    {line}");
    }
}

/// Prints one instruction as it appears in a block, without indentation or
/// origin: `v12 = add v9, v30`.
pub fn print_inst(func: &Function, inst: Inst) -> String {
    match func.insts.get(inst) {
        Some(data) => inst_text(func, data),
        None => format!("{inst} (missing)"),
    }
}

/// Prints a use of a value with its modifiers: `v1`, `-v1`, `|v1|`, `-|v1|`.
pub fn print_operand(op: &Operand) -> String {
    let mut s = String::new();
    write_operand(&mut s, op);
    s
}

fn write_function(out: &mut String, func: &Function, opts: &PrintOptions) {
    if !func.arrays.is_empty() {
        out.push_str("arrays:\n");
        for (a, data) in func.arrays.iter() {
            let _ = write!(out, "    {a}: {}[{}", data.file.name(), data.first);
            match data.len {
                0 => out.push_str("] (empty)"),
                1 => out.push(']'),
                n => {
                    let _ = write!(out, "..{}]", u64::from(data.first) + u64::from(n) - 1);
                }
            }
            if let Some(id) = data.array_id {
                let _ = write!(out, " (array {id})");
            }
            out.push('\n');
        }
    }
    write_region(out, func, &func.body, opts);
}

fn indent(out: &mut String, n: usize) {
    for _ in 0..n {
        out.push(' ');
    }
}

/// Writes a line at two spaces per `depth`.
fn line(out: &mut String, depth: usize, text: &str) {
    indent(out, 2 * depth);
    out.push_str(text);
    out.push('\n');
}

fn write_region(out: &mut String, func: &Function, body: &Region, opts: &PrintOptions) {
    for event in walk(body) {
        match event {
            Event::Block(b, at) => write_block(out, func, b, 2 * at.depth, opts),
            Event::Enter(construct, at) => {
                let head = match construct {
                    ConstructRef::If(n) => {
                        format!("{} {} {{", if n.unsigned { "uif" } else { "if" }, print_operand(&n.cond))
                    }
                    ConstructRef::Loop(_) => "loop {".to_string(),
                    ConstructRef::Switch(n) => format!("switch {} {{", print_operand(&n.selector)),
                };
                line(out, at.depth, &head);
            }
            Event::EnterRegion(r) => {
                if let Some(case) = r.case() {
                    let head = match &case.value {
                        Some(v) => format!("case {}:", print_operand(v)),
                        None => "default:".into(),
                    };
                    line(out, r.depth - 1, &head);
                }
            }
            Event::LeaveRegion(r) => {
                if let (RegionKind::Then, Some(ConstructRef::If(n))) = (r.kind, r.construct) {
                    line(out, r.depth - 1, if n.has_else { "} else {" } else { "} else {  ; no ELSE" });
                }
            }
            Event::Leave(_, at) => line(out, at.depth, "}"),
        }
    }
}

fn write_block(out: &mut String, func: &Function, b: Block, pad: usize, opts: &PrintOptions) {
    indent(out, pad);
    let Some(data) = func.blocks.get(b) else {
        let _ = writeln!(out, "{b}:  ; missing block");
        return;
    };
    let _ = writeln!(out, "{b}:");
    for &inst in &data.insts {
        indent(out, pad + 4);
        match func.insts.get(inst) {
            Some(d) => {
                out.push_str(&inst_text(func, d));
                if opts.origins {
                    write_origin(out, &d.origin);
                }
            }
            None => {
                let _ = write!(out, "{inst}  ; missing instruction");
            }
        }
        out.push('\n');
    }
    let exit = match data.exit {
        Exit::Fallthrough => return,
        Exit::Break => "break",
        Exit::Continue => "continue",
        Exit::Return => "return",
    };
    indent(out, pad + 4);
    out.push_str(exit);
    out.push('\n');
}

fn write_origin(out: &mut String, origin: &Origin) {
    if origin.inst.is_none() && origin.dst.is_none() {
        return;
    }
    out.push_str("  ; from");
    if let Some(i) = origin.inst {
        let _ = write!(out, " #{i}");
    }
    if let Some(d) = origin.dst {
        let _ = write!(out, " {}[{}].{}", d.file.name(), d.index, chan_name(d.chan));
    }
}

fn chan_name(c: u8) -> String {
    match SWIZZLE_NAMES.get(c as usize) {
        Some(ch) => ch.to_string(),
        None => format!("c{c}"),
    }
}

fn write_operand(out: &mut String, op: &Operand) {
    if op.neg {
        out.push('-');
    }
    if op.abs {
        out.push('|');
    }
    let _ = write!(out, "{}", op.value);
    if op.abs {
        out.push('|');
    }
}

fn write_args(out: &mut String, args: &[Operand]) {
    for (i, a) in args.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        write_operand(out, a);
    }
}

fn is_64(func: &Function, v: Value) -> Option<bool> {
    func.values.get(v).map(|d| d.ty == Ty::B64)
}

/// The text of an instruction (results, operation, operands).
fn inst_text(func: &Function, data: &InstData) -> String {
    let mut s = String::new();
    write_results(&mut s, func, &data.results);
    let args = &data.args;
    match &data.op {
        Op::Initial => s.push_str(&op_name(data, "initial")),
        Op::Undef => s.push_str(&op_name(data, "undef")),
        Op::Const(bits) => write_const(&mut s, func, data, *bits),
        Op::Read(src) => write_read(&mut s, data, src),
        Op::Alu { opcode, chan } => write_alu(&mut s, data, *opcode, *chan),
        Op::Pack => {
            s.push_str(&op_name(data, "pack"));
            write_arg_list(&mut s, " ", args);
        }
        Op::Split { hi } => {
            s.push_str(&op_name(data, if *hi { "split.hi" } else { "split.lo" }));
            write_arg_list(&mut s, " ", args);
        }
        Op::Phi { preds } => write_phi(&mut s, data, preds),
        Op::LoadIndirect { reg, chan } => write_indirect_access(&mut s, data, "loadindirect", reg, *chan),
        Op::ArrayLoad { array, offset, chan } => {
            let _ = write!(s, "{} ", op_name(data, "arrayload"));
            let index = if args.len() == 1 { args.first() } else { None };
            write_element(&mut s, *array, index, *offset, *chan);
            if args.len() > 1 {
                write_args_note(&mut s, args);
            }
        }
        Op::StoreIndirect { reg, chan } => write_indirect_access(&mut s, data, "storeindirect", reg, *chan),
        Op::ArrayStore { array, offset, chan } => write_array_store(&mut s, data, *array, *offset, *chan),
        Op::StoreOutput { index, chan } => {
            let _ = write!(s, "{} OUT[{index}].{}", op_name(data, "storeoutput"), chan_name(*chan));
            write_arg_list(&mut s, ", ", args);
        }
        Op::Opaque { inst, value_srcs } => write_opaque(&mut s, data, inst, *value_srcs),
    }
    s
}

/// `v3, v4:64 = ` (nothing when there are no results); `:?` marks a
/// result that is not a value of the function.
fn write_results(s: &mut String, func: &Function, results: &[Value]) {
    if results.is_empty() {
        return;
    }
    for (i, &r) in results.iter().enumerate() {
        if i > 0 {
            s.push_str(", ");
        }
        let _ = write!(s, "{r}");
        match is_64(func, r) {
            Some(true) => s.push_str(":64"),
            Some(false) => {}
            None => s.push_str(":?"),
        }
    }
    s.push_str(" = ");
}

/// The operation's name with `_sat` and `_precise` when set.
fn op_name(data: &InstData, name: &str) -> String {
    let mut m = name.to_string();
    if data.saturate {
        m.push_str("_sat");
    }
    if data.precise {
        m.push_str("_precise");
    }
    m
}

/// `sep` and the operands, when there are any.
fn write_arg_list(s: &mut String, sep: &str, args: &[Operand]) {
    if !args.is_empty() {
        s.push_str(sep);
        write_args(s, args);
    }
}

/// ` args(...)`: operands an operation of this kind does not take, when
/// there are any.
fn write_args_note(s: &mut String, args: &[Operand]) {
    s.push_str(" args(");
    write_args(s, args);
    s.push(')');
}

/// `const 0x3f800000 ; 1.0`, with 16 hex digits for 64-bit constants (and
/// for 32-bit ones whose bits do not fit).
fn write_const(s: &mut String, func: &Function, data: &InstData, bits: u64) {
    let wide = data.results.first().and_then(|&r| is_64(func, r)).unwrap_or(false);
    if wide {
        let _ = write!(s, "{} 0x{bits:016x} ; {}", op_name(data, "const"), const_comment_64(bits));
    } else if let Ok(b32) = u32::try_from(bits) {
        let _ = write!(s, "{} 0x{b32:08x} ; {}", op_name(data, "const"), const_comment_32(b32));
    } else {
        let _ = write!(s, "{} 0x{bits:016x}", op_name(data, "const"));
    }
    if !data.args.is_empty() {
        write_args_note(s, &data.args);
    }
}

/// `read IN[0].x`, `read CONST[1][2].y`.
fn write_read(s: &mut String, data: &InstData, src: &crate::function::Source) {
    let _ = write!(s, "{} {}", op_name(data, "read"), src.file.name());
    if let Some(d) = src.dim {
        let _ = write!(s, "[{d}]");
    }
    let _ = write!(s, "[{}].{}", src.index, chan_name(src.chan));
    if !data.args.is_empty() {
        write_args_note(s, &data.args);
    }
}

/// `add_sat v0, v1`, `lit.y v0, v1, v2, v3`: the lowercase mnemonic, and
/// the formula channel where the formula depends on it (channel-dependent
/// opcodes, and any channel but 0 of the others, which the verifier
/// rejects).
fn write_alu(s: &mut String, data: &InstData, opcode: tgsi::Opcode, chan: u8) {
    let name = opcode.name().to_ascii_lowercase();
    let _ = write!(s, "{}", op_name(data, &name));
    if opcode.info().mode == tgsi::ChannelMode::ChannelDependent || chan != 0 {
        let _ = write!(s, ".{}", chan_name(chan));
    }
    write_arg_list(s, " ", &data.args);
}

/// `phi [b1: v2, b3: v4]`, with `?` for a missing predecessor or operand.
fn write_phi(s: &mut String, data: &InstData, preds: &[Block]) {
    let args = &data.args;
    s.push_str(&op_name(data, "phi"));
    s.push_str(" [");
    for i in 0..preds.len().max(args.len()) {
        if i > 0 {
            s.push_str(", ");
        }
        match preds.get(i) {
            Some(p) => {
                let _ = write!(s, "{p}: ");
            }
            None => s.push_str("?: "),
        }
        match args.get(i) {
            Some(a) => write_operand(s, a),
            None => s.push('?'),
        }
    }
    s.push(']');
}

/// `arraystore a0[v7 + 2].y, v3`: the element, then the value stored (the
/// operands as a note when there are more than an index and a value).
fn write_array_store(s: &mut String, data: &InstData, array: crate::function::Array, offset: i32, chan: u8) {
    let args = &data.args;
    let _ = write!(s, "{} ", op_name(data, "arraystore"));
    let index = if args.len() == 2 { args.first() } else { None };
    write_element(s, array, index, offset, chan);
    if args.len() <= 2 {
        if let Some(v) = args.last() {
            s.push_str(", ");
            write_operand(s, v);
        }
    } else {
        write_args_note(s, args);
    }
}

/// ` + 2`, ` - 1` after an index operand; nothing for 0.
fn write_offset(s: &mut String, offset: i32) {
    match offset {
        0 => {}
        o if o < 0 => {
            let _ = write!(s, " - {}", o.unsigned_abs());
        }
        o => {
            let _ = write!(s, " + {o}");
        }
    }
}

/// `a0[v7 + 2].y`, `a0[v7 - 1].x`, `a0[3].z`.
fn write_element(s: &mut String, array: crate::function::Array, index: Option<&Operand>, offset: i32, chan: u8) {
    let _ = write!(s, "{array}[");
    match index {
        Some(ix) => {
            write_operand(s, ix);
            write_offset(s, offset);
        }
        None => {
            let _ = write!(s, "{offset}");
        }
    }
    let _ = write!(s, "].{}", chan_name(chan));
}

/// `loadindirect CONST[v5 + 2].y`, `loadindirect CONST[v6][v5 - 1](1).x`,
/// `storeindirect OUT[v2][1].x, v7`: the register with each indirect index
/// its operand (the index, then the 2-D index, in argument order), the
/// constant offset and the array id; a store's value after it.
fn write_indirect_access(s: &mut String, data: &InstData, name: &str, reg: &Register, chan: u8) {
    let _ = write!(s, "{} {}", op_name(data, name), reg.file.name());
    // The operands are the index, then the 2-D index.
    let mut args = data.args.iter();
    let index = reg.indirect.as_ref().map(|ind| (ind, args.next()));
    let dim = reg.dimension.as_ref().map(|d| (d.index, d.indirect.as_ref().map(|ind| (ind, args.next()))));
    if let Some((offset, indirect)) = dim {
        write_index(s, offset, indirect);
    }
    write_index(s, reg.index, index);
    let _ = write!(s, ".{}", chan_name(chan));
    let rest: Vec<Operand> = args.copied().collect();
    match (name, rest.as_slice()) {
        (_, []) => {}
        ("storeindirect", [value]) => {
            s.push_str(", ");
            write_operand(s, value);
        }
        _ => write_args_note(s, &rest),
    }
}

/// `[3]`, or `[v5 + 2](1)` for an index taken from an operand (`?` when
/// there is none), with the array id when it has one.
fn write_index(s: &mut String, offset: i32, indirect: Option<(&Indirect, Option<&Operand>)>) {
    let Some((ind, operand)) = indirect else {
        let _ = write!(s, "[{offset}]");
        return;
    };
    s.push('[');
    match operand {
        Some(a) => write_operand(s, a),
        None => s.push('?'),
    }
    write_offset(s, offset);
    s.push(']');
    if ind.array_id != 0 {
        let _ = write!(s, "({})", ind.array_id);
    }
}

/// `v3, v4 = TEX _.xy, (v0, v1, v2, v2), SAMP[v5 + 1], 2D`: a TGSI
/// instruction kept whole. A destination that holds values is `_` with its
/// write mask (its results are on the left, in channel order); a source
/// that is a value is its four operands in parentheses, with the source's
/// modifiers; resources, samplers and references print as TGSI writes
/// them, with an indirect index as its operand (the arguments after the
/// value sources', in [`crate::function::opaque_address_operands`] order).
fn write_opaque(s: &mut String, data: &InstData, template: &tgsi::Instruction, value_srcs: u8) {
    s.push_str(template.opcode.name());
    if template.saturate {
        s.push_str("_SAT");
    }
    if template.precise {
        s.push_str("_PRECISE");
    }
    let is_value_src = |i: usize| i < 8 && value_srcs & (1 << i) != 0;
    let value_args = 4 * value_srcs.count_ones() as usize;
    let (mut values, mut addresses) = match data.args.get(..value_args) {
        Some(v) => (v.iter(), data.args[value_args..].iter()),
        None => (data.args.iter(), [].iter()),
    };
    // Each referenced register's index operands, in the builder's order.
    let mut take = |reg: &Register| -> IndexOperands<'_> {
        let index = reg.indirect.map(|_| addresses.next());
        let dim = reg.dimension.and_then(|d| d.indirect).map(|_| addresses.next());
        (index.flatten(), dim.flatten())
    };
    let src_ops: Vec<IndexOperands<'_>> = template
        .src
        .iter()
        .enumerate()
        .map(|(i, src)| if is_value_src(i) { (None, None) } else { take(&src.reg) })
        .collect();
    let dst_ops: Vec<IndexOperands<'_>> = template
        .dst
        .iter()
        .map(|dst| if is_value_destination(dst.reg.file) { (None, None) } else { take(&dst.reg) })
        .collect();
    let mut sep = " ";
    for (dst, ops) in template.dst.iter().zip(&dst_ops) {
        s.push_str(sep);
        sep = ", ";
        if is_value_destination(dst.reg.file) {
            s.push('_');
        } else {
            write_resource(s, &dst.reg, *ops);
        }
        if dst.write_mask & 0xf != 0xf {
            s.push('.');
            for (c, name) in SWIZZLE_NAMES.iter().enumerate() {
                if dst.write_mask & (1 << c) != 0 {
                    s.push(*name);
                }
            }
        }
    }
    for (i, (src, ops)) in template.src.iter().zip(&src_ops).enumerate() {
        s.push_str(sep);
        sep = ", ";
        if src.negate {
            s.push('-');
        }
        if src.absolute {
            s.push('|');
        }
        if is_value_src(i) {
            s.push('(');
            for k in 0..4 {
                if k > 0 {
                    s.push_str(", ");
                }
                match values.next() {
                    Some(a) => write_operand(s, a),
                    None => s.push('?'),
                }
            }
            s.push(')');
        } else {
            write_resource(s, &src.reg, *ops);
            if src.swizzle != tgsi::IDENTITY_SWIZZLE {
                s.push('.');
                for &c in &src.swizzle {
                    s.push(SWIZZLE_NAMES[usize::from(c & 3)]);
                }
            }
        }
        if src.absolute {
            s.push('|');
        }
    }
    s.push_str(&template_tail(template));
    let rest: Vec<Operand> = values.chain(addresses).copied().collect();
    if !rest.is_empty() {
        write_args_note(s, &rest);
    }
}

/// The operands of a register's indirect index and 2-D index.
type IndexOperands<'a> = (Option<&'a Operand>, Option<&'a Operand>);

/// A resource, sampler or reference register: `SAMP[0]`, `IN[v3 + 1](1)`,
/// `BUFFER[v2]`.
fn write_resource(s: &mut String, reg: &Register, (index, dim): IndexOperands<'_>) {
    s.push_str(reg.file.name());
    if let Some(d) = &reg.dimension {
        write_index(s, d.index, d.indirect.as_ref().map(|ind| (ind, dim)));
    }
    write_index(s, reg.index, reg.indirect.as_ref().map(|ind| (ind, index)));
}

/// What TGSI's canonical printer writes after an instruction's operands
/// (`, 2D`, texture offsets, memory qualifiers), by printing it without
/// operands.
fn template_tail(inst: &tgsi::Instruction) -> String {
    let mut bare = inst.clone();
    bare.dst.clear();
    bare.src.clear();
    bare.saturate = false;
    bare.precise = false;
    let shader = tgsi::Shader { processor: tgsi::Processor::Fragment, items: vec![tgsi::Item::Instruction(bare)] };
    let text = tgsi::print(&shader, tgsi::Style::Exact);
    let line = text.lines().nth(1).unwrap_or_default();
    let body = line.split_once(": ").map_or(line, |(_, rest)| rest).trim_start();
    body.strip_prefix(inst.opcode.name()).unwrap_or_default().to_string()
}

fn const_comment_32(bits: u32) -> String {
    let exponent = bits & 0x7f80_0000;
    if (exponent == 0 && bits & 0x8000_0000 == 0 && bits != 0) || (bits as i32) < 0 && (bits as i32) >= -65536 {
        format!("{}", bits as i32)
    } else {
        format!("{:?}", f32::from_bits(bits))
    }
}

/// The 64-bit counterpart of [`const_comment_32`].
fn const_comment_64(bits: u64) -> String {
    let exponent = bits & 0x7ff0_0000_0000_0000;
    if (exponent == 0 && bits >> 63 == 0 && bits != 0) || (bits as i64) < 0 && (bits as i64) >= -65536 {
        format!("{}", bits as i64)
    } else {
        format!("{:?}", f64::from_bits(bits))
    }
}

/// The first ```` ```text ```` block of a module's `//!` documentation, for
/// tests that check the documented output is what the code prints.
#[cfg(test)]
pub(crate) fn doc_text_block(source: &str) -> String {
    source
        .lines()
        .skip_while(|l| !l.starts_with("//! ```text"))
        .skip(1)
        .take_while(|l| !l.starts_with("//! ```"))
        .map(|l| l.strip_prefix("//! ").unwrap_or(""))
        .fold(String::new(), |s, l| s + l + "\n")
}

#[cfg(test)]
mod tests;
