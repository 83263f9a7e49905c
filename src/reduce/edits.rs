//! The edits a reduction tries, pass by pass, and how each one rewrites a
//! shader. Every edit makes the shader strictly smaller by [`Cost`], so
//! a reduction ends.

use tgsi::{File, Instruction, Item, Opcode, Shader, SrcOperand, IDENTITY_SWIZZLE};

/// The groups of edits, tried in this order, again and again until none
/// makes progress.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pass {
    /// Remove runs of instructions, halving the run from half the shader
    /// down to one instruction.
    Instructions,
    /// Collapse control flow: drop an IF or a loop whole, keep one arm of
    /// an IF, run a loop's body once.
    ControlFlow,
    /// Inline a subroutine called once, dropping it.
    Subroutines,
    /// Shorten chains of values: an instruction writes where the reader
    /// of its result wrote (the reader goes), or a reader reads what the
    /// instruction it reads from read (that instruction goes).
    Shortcuts,
    /// Remove declarations and properties.
    Declarations,
    /// Remove immediates (renumbering those after), and make their
    /// values zero one channel at a time.
    Immediates,
    /// Simplify operands: a source becomes the zero immediate, indirect
    /// addressing and sign modifiers go.
    Operands,
    /// Shrink write masks and make swizzles plain.
    Masks,
}

impl Pass {
    /// Every pass, in the order they are tried.
    pub const ALL: [Pass; 8] = [
        Pass::Instructions,
        Pass::ControlFlow,
        Pass::Subroutines,
        Pass::Shortcuts,
        Pass::Declarations,
        Pass::Immediates,
        Pass::Operands,
        Pass::Masks,
    ];

    /// The name progress messages use.
    pub fn name(self) -> &'static str {
        match self {
            Pass::Instructions => "instructions",
            Pass::ControlFlow => "control-flow",
            Pass::Subroutines => "subroutines",
            Pass::Shortcuts => "shortcuts",
            Pass::Declarations => "declarations",
            Pass::Immediates => "immediates",
            Pass::Operands => "operands",
            Pass::Masks => "masks",
        }
    }
}

/// One change to try.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Edit {
    /// Remove these instructions (indices among the instructions), with
    /// branch labels renumbered.
    RemoveInstructions(Vec<usize>),
    /// Put the body of the subroutine the `CAL` at this instruction calls
    /// in its place, and remove the subroutine.
    Inline(usize),
    /// The instruction `writer` writes `reader`'s destination instead of
    /// its own, and `reader` goes.
    Forward { writer: usize, reader: usize },
    /// `reader`'s source `src` reads what `writer`'s source `from` reads
    /// (through `reader`'s swizzle), and `writer` goes.
    Bypass { writer: usize, reader: usize, src: usize, from: usize },
    /// Remove these items (declarations or properties).
    RemoveItems(Vec<usize>),
    /// Declare a range of registers one shorter: without its first
    /// register (`first`) or its last.
    ShrinkDeclaration { item: usize, first: bool },
    /// Remove `IMM[n]`, renumbering the immediates after it.
    RemoveImmediate(usize),
    /// Make channel `channel` of `IMM[n]` zero.
    ZeroImmediate { n: usize, channel: usize },
    /// Rewrite one source operand of an instruction.
    Source { inst: usize, src: usize, change: SourceChange },
    /// Give a destination this write mask.
    WriteMask { inst: usize, dst: usize, mask: u8 },
    /// Read a destination's register directly (no indirect addressing).
    DirectDestination { inst: usize, dst: usize },
}

/// How a source operand is simplified.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SourceChange {
    /// Read an all-zero immediate (added if the shader has none).
    Zero,
    /// Read the register directly: no indirect index or dimension.
    Direct,
    /// No negation or absolute value.
    NoModifiers,
    /// This swizzle.
    Swizzle([u8; 4]),
}

/// How large a shader is, compared lexicographically: instructions, then
/// source operands that read a register other than an immediate, then
/// declarations, immediates and properties, then the registers declared,
/// then the details (indirect addressing, modifiers, write-mask channels,
/// swizzles that are not plain, immediate channels that are not zero).
/// Every edit that is kept makes it smaller.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Cost {
    instructions: usize,
    register_sources: usize,
    items: usize,
    registers: usize,
    details: usize,
}

impl Cost {
    /// The cost of `shader`.
    pub fn of(shader: &Shader) -> Cost {
        let mut cost = Cost { instructions: 0, register_sources: 0, items: 0, registers: 0, details: 0 };
        for item in &shader.items {
            let Item::Instruction(inst) = item else {
                cost.items += 1;
                match item {
                    Item::Declaration(decl) => cost.registers += usize::from(decl.last - decl.first) + 1,
                    Item::Immediate(imm) => cost.details += imm.data.iter().filter(|&&word| word != 0).count(),
                    _ => {}
                }
                continue;
            };
            cost.instructions += 1;
            for src in &inst.src {
                cost.register_sources += usize::from(src.reg.file != File::Immediate);
                cost.details += usize::from(src.reg.indirect.is_some())
                    + usize::from(src.reg.dimension.is_some_and(|d| d.indirect.is_some()))
                    + usize::from(src.negate)
                    + usize::from(src.absolute)
                    + usize::from(src.swizzle != IDENTITY_SWIZZLE && !replicated(src.swizzle));
            }
            for dst in &inst.dst {
                cost.details += usize::from(dst.reg.indirect.is_some()) + dst.write_mask.count_ones() as usize;
            }
        }
        cost
    }
}

/// Whether `file` holds values an ALU operand may read, not resources (a
/// sampler, view, image, buffer or memory): what a source may be replaced
/// by, or replaced with.
fn holds_values(file: File) -> bool {
    matches!(file, File::Temporary | File::Input | File::Output | File::Constant | File::SystemValue | File::Address)
}

/// `.xxxx`, `.yyyy`, ...
fn replicated(swizzle: [u8; 4]) -> bool {
    swizzle.iter().all(|&c| c == swizzle[0])
}

/// The instructions of `shader`, in order.
fn instructions(shader: &Shader) -> Vec<&Instruction> {
    shader.instructions().collect()
}

/// The edits of `pass` for `shader`, most reducing first.
pub fn edits(shader: &Shader, pass: Pass) -> Vec<Edit> {
    let insts = instructions(shader);
    let mut out = Vec::new();
    match pass {
        Pass::Instructions => {
            // END stays: a shader ends with it.
            let removable: Vec<usize> = (0..insts.len()).filter(|&i| insts[i].opcode != Opcode::End).collect();
            let mut size = removable.len().div_ceil(2).max(1);
            while !removable.is_empty() {
                out.extend(removable.chunks(size).map(|chunk| Edit::RemoveInstructions(chunk.to_vec())));
                if size == 1 {
                    break;
                }
                size = size.div_ceil(2);
            }
        }
        Pass::ControlFlow => control_flow_edits(&insts, &mut out),
        Pass::Subroutines => {
            out.extend((0..insts.len()).filter(|&i| insts[i].opcode == Opcode::Cal).map(Edit::Inline));
        }
        Pass::Shortcuts => {
            for (reader, inst) in insts.iter().enumerate() {
                for (src, operand) in inst.src.iter().enumerate() {
                    let Some(writer) = last_writer(&insts, reader, &operand.reg) else { continue };
                    if inst.dst.len() == 1 {
                        out.push(Edit::Forward { writer, reader });
                    }
                    let sources = insts[writer].src.iter().enumerate();
                    let values = sources.filter(|(_, s)| holds_values(s.reg.file) || s.reg.file == File::Immediate);
                    out.extend(values.map(|(from, _)| Edit::Bypass { writer, reader, src, from }));
                }
            }
        }
        Pass::Declarations => {
            let items: Vec<usize> = (0..shader.items.len())
                .filter(|&i| matches!(shader.items[i], Item::Declaration(_) | Item::Property(_)))
                .collect();
            if items.len() > 1 {
                out.push(Edit::RemoveItems(items.clone()));
            }
            out.extend(items.into_iter().map(|i| Edit::RemoveItems(vec![i])));
            for (i, item) in shader.items.iter().enumerate() {
                if let Item::Declaration(decl) = item {
                    if decl.last > decl.first && decl.array_id.is_none() {
                        out.push(Edit::ShrinkDeclaration { item: i, first: false });
                        out.push(Edit::ShrinkDeclaration { item: i, first: true });
                    }
                }
            }
        }
        Pass::Immediates => {
            out.extend((0..shader.immediates().count()).rev().map(Edit::RemoveImmediate));
            for (n, imm) in shader.immediates().enumerate() {
                let nonzero = (0..4).filter(|&c| imm.data[c] != 0);
                out.extend(nonzero.map(|channel| Edit::ZeroImmediate { n, channel }));
            }
        }
        Pass::Operands => {
            for (i, inst) in insts.iter().enumerate() {
                for (s, src) in inst.src.iter().enumerate() {
                    if holds_values(src.reg.file) {
                        out.push(Edit::Source { inst: i, src: s, change: SourceChange::Zero });
                    }
                    if src.reg.indirect.is_some() || src.reg.dimension.is_some_and(|d| d.indirect.is_some()) {
                        out.push(Edit::Source { inst: i, src: s, change: SourceChange::Direct });
                    }
                    if src.negate || src.absolute {
                        out.push(Edit::Source { inst: i, src: s, change: SourceChange::NoModifiers });
                    }
                }
                for (d, dst) in inst.dst.iter().enumerate() {
                    if dst.reg.indirect.is_some() {
                        out.push(Edit::DirectDestination { inst: i, dst: d });
                    }
                }
            }
        }
        Pass::Masks => {
            for (i, inst) in insts.iter().enumerate() {
                for (d, dst) in inst.dst.iter().enumerate() {
                    if dst.write_mask.count_ones() > 1 {
                        for bit in (0..4).rev().filter(|b| dst.write_mask & (1 << b) != 0) {
                            out.push(Edit::WriteMask { inst: i, dst: d, mask: dst.write_mask & !(1 << bit) });
                        }
                    }
                }
                for (s, src) in inst.src.iter().enumerate() {
                    if src.swizzle != IDENTITY_SWIZZLE && !replicated(src.swizzle) {
                        out.push(Edit::Source { inst: i, src: s, change: SourceChange::Swizzle(IDENTITY_SWIZZLE) });
                        let first = [src.swizzle[0]; 4];
                        out.push(Edit::Source { inst: i, src: s, change: SourceChange::Swizzle(first) });
                    }
                }
            }
        }
    }
    out
}

/// The instruction before `reader`, in the same straight run of code,
/// that last wrote the register `reg` (a TEMP read directly) with its one
/// destination.
fn last_writer(insts: &[&Instruction], reader: usize, reg: &tgsi::Register) -> Option<usize> {
    if reg.file != File::Temporary || reg.indirect.is_some() {
        return None;
    }
    for w in (0..reader).rev() {
        let inst = insts[w];
        if inst.opcode.info().has(tgsi::flags::CONTROL_FLOW) {
            return None;
        }
        if inst.dst.iter().any(|d| d.reg.file == reg.file && d.reg.index == reg.index) {
            return (inst.dst.len() == 1 && !inst.src.is_empty()).then_some(w);
        }
    }
    None
}

/// Where the construct opened at `open` has its middle (`ELSE`, for an IF)
/// and its end, and the `BRK`/`CONT` of a loop at its own depth.
struct Construct {
    open: usize,
    middle: Option<usize>,
    close: usize,
    exits: Vec<usize>,
}

/// The IFs, loops and switches of `insts`, outermost first.
fn constructs(insts: &[&Instruction]) -> Vec<Construct> {
    let mut open: Vec<Construct> = Vec::new();
    let mut done = Vec::new();
    for (i, inst) in insts.iter().enumerate() {
        match inst.opcode {
            Opcode::If | Opcode::Uif | Opcode::Ifc | Opcode::Bgnloop | Opcode::Switch => {
                open.push(Construct { open: i, middle: None, close: i, exits: Vec::new() })
            }
            Opcode::Else => {
                if let Some(c) = open.last_mut() {
                    c.middle = Some(i);
                }
            }
            Opcode::Brk | Opcode::Cont | Opcode::Breakc => {
                // The innermost loop or switch the exit belongs to.
                let owner =
                    open.iter_mut().rev().find(|c| matches!(insts[c.open].opcode, Opcode::Bgnloop | Opcode::Switch));
                if let Some(c) = owner {
                    c.exits.push(i);
                }
            }
            op if op.closes_construct() => {
                if let Some(mut c) = open.pop() {
                    c.close = i;
                    done.push(c);
                }
            }
            _ => {}
        }
    }
    done.sort_by_key(|c| c.open);
    done
}

/// Collapse each construct: drop it whole, keep one arm, or run its body
/// once.
fn control_flow_edits(insts: &[&Instruction], out: &mut Vec<Edit>) {
    for c in constructs(insts) {
        out.push(Edit::RemoveInstructions((c.open..=c.close).collect()));
        match insts[c.open].opcode {
            Opcode::Bgnloop => {
                let mut unwrap = vec![c.open, c.close];
                unwrap.extend(&c.exits);
                unwrap.sort_unstable();
                out.push(Edit::RemoveInstructions(unwrap));
            }
            Opcode::Switch => {}
            _ => match c.middle {
                Some(middle) => {
                    let mut then_arm = vec![c.open];
                    then_arm.extend(middle..=c.close);
                    out.push(Edit::RemoveInstructions(then_arm));
                    let mut else_arm: Vec<usize> = (c.open..=middle).collect();
                    else_arm.push(c.close);
                    out.push(Edit::RemoveInstructions(else_arm));
                }
                None => out.push(Edit::RemoveInstructions(vec![c.open, c.close])),
            },
        }
    }
}

/// `shader` with `edit` made, or `None` when it does not apply.
pub fn apply(shader: &Shader, edit: &Edit) -> Option<Shader> {
    match edit {
        Edit::RemoveInstructions(indices) => {
            let insts = instructions(shader);
            let keep: Vec<(usize, bool, Instruction)> = (0..insts.len())
                .filter(|i| indices.binary_search(i).is_err())
                .map(|i| (i, true, insts[i].clone()))
                .collect();
            Some(with_instructions(shader, keep))
        }
        Edit::Inline(call) => inline(shader, *call),
        Edit::Forward { writer, reader } => forward(shader, *writer, *reader),
        Edit::Bypass { writer, reader, src, from } => bypass(shader, *writer, *reader, *src, *from),
        Edit::RemoveItems(items) => {
            let mut out = shader.clone();
            let mut at = 0;
            out.items.retain(|_| {
                at += 1;
                items.binary_search(&(at - 1)).is_err()
            });
            Some(out)
        }
        Edit::ShrinkDeclaration { item, first } => {
            let mut out = shader.clone();
            let Some(Item::Declaration(decl)) = out.items.get_mut(*item) else { return None };
            if decl.last <= decl.first {
                return None;
            }
            if *first {
                decl.first += 1;
            } else {
                decl.last -= 1;
            }
            Some(out)
        }
        Edit::RemoveImmediate(n) => remove_immediate(shader, *n),
        Edit::ZeroImmediate { n, channel } => {
            let mut out = shader.clone();
            let imm = out
                .items
                .iter_mut()
                .filter_map(|item| match item {
                    Item::Immediate(imm) => Some(imm),
                    _ => None,
                })
                .nth(*n)?;
            *imm.data.get_mut(*channel)? = 0;
            Some(out)
        }
        Edit::Source { inst, src, change } => change_source(shader, *inst, *src, change),
        Edit::WriteMask { inst, dst, mask } => {
            let mut out = shader.clone();
            nth_instruction(&mut out, *inst)?.dst.get_mut(*dst)?.write_mask = *mask;
            Some(out)
        }
        Edit::DirectDestination { inst, dst } => {
            let mut out = shader.clone();
            nth_instruction(&mut out, *inst)?.dst.get_mut(*dst)?.reg.indirect = None;
            Some(out)
        }
    }
}

/// `shader` with the instruction at `writer` writing where the one at
/// `reader` wrote, and that one gone.
fn forward(shader: &Shader, writer: usize, reader: usize) -> Option<Shader> {
    let insts = instructions(shader);
    let dst = *insts.get(reader)?.dst.first()?;
    let mut forwarded = Instruction::clone(insts.get(writer)?);
    *forwarded.dst.first_mut()? = dst;
    let out = (0..insts.len())
        .filter(|&i| i != reader)
        .map(|i| (i, true, if i == writer { forwarded.clone() } else { insts[i].clone() }))
        .collect();
    Some(with_instructions(shader, out))
}

/// `shader` with source `src` of the instruction at `reader` reading
/// source `from` of the one at `writer` (its swizzle and modifiers
/// composed), and that one gone.
fn bypass(shader: &Shader, writer: usize, reader: usize, src: usize, from: usize) -> Option<Shader> {
    let insts = instructions(shader);
    let read = insts.get(reader)?.src.get(src)?;
    let mut source = *insts.get(writer)?.src.get(from)?;
    source.swizzle = read.swizzle.map(|c| source.swizzle[usize::from(c & 3)]);
    source.negate ^= read.negate;
    source.absolute |= read.absolute;
    let mut bypassed = insts[reader].clone();
    bypassed.src[src] = source;
    let out = (0..insts.len())
        .filter(|&i| i != writer)
        .map(|i| (i, true, if i == reader { bypassed.clone() } else { insts[i].clone() }))
        .collect();
    Some(with_instructions(shader, out))
}

/// `shader` with source `src` of the `inst`th instruction changed by
/// `change`.
fn change_source(shader: &Shader, inst: usize, src: usize, change: &SourceChange) -> Option<Shader> {
    let mut out = shader.clone();
    let zero = if *change == SourceChange::Zero { Some(zero_immediate(&mut out)) } else { None };
    let operand = nth_instruction(&mut out, inst)?.src.get_mut(src)?;
    match change {
        SourceChange::Zero => {
            let reg = tgsi::Register::new(File::Immediate, zero? as i32);
            *operand = SrcOperand { reg, swizzle: IDENTITY_SWIZZLE, negate: false, absolute: false };
        }
        SourceChange::Direct => {
            operand.reg.indirect = None;
            if let Some(dim) = &mut operand.reg.dimension {
                dim.indirect = None;
            }
        }
        SourceChange::NoModifiers => {
            operand.negate = false;
            operand.absolute = false;
        }
        SourceChange::Swizzle(swizzle) => operand.swizzle = *swizzle,
    }
    Some(out)
}

/// The `n`th instruction of `shader`.
fn nth_instruction(shader: &mut Shader, n: usize) -> Option<&mut Instruction> {
    shader
        .items
        .iter_mut()
        .filter_map(|item| match item {
            Item::Instruction(inst) => Some(inst),
            _ => None,
        })
        .nth(n)
}

/// The index of an all-zero immediate of `shader`, added after the last
/// immediate (or declaration) if there is none.
fn zero_immediate(shader: &mut Shader) -> usize {
    if let Some(n) = shader.immediates().position(|imm| imm.data == [0; 4]) {
        return n;
    }
    let count = shader.immediates().count();
    let at =
        shader.items.iter().rposition(|i| matches!(i, Item::Immediate(_) | Item::Declaration(_) | Item::Property(_)));
    let zero = Item::Immediate(tgsi::Immediate { ty: tgsi::ImmediateType::Float32, data: [0; 4] });
    shader.items.insert(at.map_or(0, |a| a + 1), zero);
    count
}

/// `shader` with its instructions replaced by `insts`, each with the index
/// of the instruction it copies and whether it is that instruction kept
/// in place (an inlined copy is not). The other items keep their places
/// around the first instruction. Labels follow what they named: an IF's
/// or ELSE's label that was Mesa's is Mesa's again; any other label names
/// the instruction it named, or the next one kept.
fn with_instructions(shader: &Shader, insts: Vec<(usize, bool, Instruction)>) -> Shader {
    let old_targets = tgsi::mesa_labels(shader.instructions());
    let new_targets = tgsi::mesa_labels(insts.iter().map(|(_, _, inst)| inst));
    let old_count = old_targets.len();
    let mut new_at = vec![insts.len(); old_count + 1];
    for (pos, &(origin, in_place, _)) in insts.iter().enumerate().rev() {
        if in_place {
            new_at[origin] = pos;
        }
    }
    for i in (0..old_count).rev() {
        new_at[i] = new_at[i].min(new_at[i + 1]);
    }
    let mut renumbered = insts.into_iter().enumerate().map(|(pos, (origin, _, mut inst))| {
        if let Some(label) = &mut inst.label {
            let was_mesa = old_targets.get(origin).copied().flatten() == Some(*label);
            *label = match new_targets[pos] {
                Some(target) if was_mesa => target,
                _ => new_at.get(*label as usize).map_or(*label, |&at| at as u32),
            };
        }
        Item::Instruction(inst)
    });
    let mut items: Vec<Item> = Vec::with_capacity(shader.items.len());
    let mut placed = false;
    for item in &shader.items {
        if matches!(item, Item::Instruction(_)) {
            if !placed {
                items.extend(&mut renumbered);
                placed = true;
            }
        } else {
            items.push(item.clone());
        }
    }
    items.extend(renumbered);
    Shader { processor: shader.processor, items }
}

/// The `CAL` at `call` replaced by the subroutine's body, when the
/// subroutine is called only there and returns only at its end; the
/// subroutine removed.
fn inline(shader: &Shader, call: usize) -> Option<Shader> {
    let insts = instructions(shader);
    let start = insts.get(call)?.label? as usize;
    if insts.get(start)?.opcode != Opcode::Bgnsub {
        return None;
    }
    let calls = insts.iter().filter(|i| i.opcode == Opcode::Cal && i.label == Some(start as u32)).count();
    let end = (start..insts.len()).find(|&i| insts[i].opcode == Opcode::Endsub)?;
    let mut body: Vec<usize> = (start + 1..end).collect();
    if body.last().is_some_and(|&i| insts[i].opcode == Opcode::Ret) {
        body.pop();
    }
    if calls != 1 || body.iter().any(|&i| matches!(insts[i].opcode, Opcode::Ret | Opcode::Bgnsub)) {
        return None;
    }
    let mut out = Vec::with_capacity(insts.len());
    for (i, inst) in insts.iter().enumerate() {
        if i == call {
            out.extend(body.iter().map(|&b| (b, false, insts[b].clone())));
        } else if !(start..=end).contains(&i) {
            out.push((i, true, (*inst).clone()));
        }
    }
    Some(with_instructions(shader, out))
}

/// `shader` without `IMM[n]`, reads of the immediates after it renumbered;
/// `None` if an instruction reads `IMM[n]` itself.
fn remove_immediate(shader: &Shader, n: usize) -> Option<Shader> {
    let mut out = shader.clone();
    let mut seen = 0;
    let at = out.items.iter().position(|item| {
        let is = matches!(item, Item::Immediate(_));
        seen += usize::from(is);
        is && seen == n + 1
    })?;
    out.items.remove(at);
    for item in &mut out.items {
        let Item::Instruction(inst) = item else { continue };
        for src in &mut inst.src {
            if src.reg.file == File::Immediate {
                // An indirect read of the immediates may reach any of them.
                if src.reg.index as usize == n || src.reg.indirect.is_some() {
                    return None;
                }
                if src.reg.index as usize > n {
                    src.reg.index -= 1;
                }
            }
        }
        if let Some(texture) = &mut inst.texture {
            for offset in &mut texture.offsets {
                if offset.file == File::Immediate {
                    if offset.index as usize == n {
                        return None;
                    }
                    if offset.index as usize > n {
                        offset.index -= 1;
                    }
                }
            }
        }
    }
    Some(out)
}
