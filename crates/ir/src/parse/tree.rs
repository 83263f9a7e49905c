//! The code lines: block labels, instructions, exits and the structured
//! constructs around them.

use super::cursor::Cursor;
use super::{entity, inst, Code, Lines, ParseIrError};
use crate::entity::EntityRef;
use crate::function::{Block, BlockData, Case, Exit, IfNode, LoopNode, Node, Operand, Region, SwitchNode};
use tgsi::Span;

/// A construct being read, with the line that opened it.
enum Frame {
    Then { cond: Operand, unsigned: bool, then_region: Region },
    Else { cond: Operand, unsigned: bool, then_region: Region, else_region: Region, has_else: bool },
    Loop { body: Region },
    Switch { selector: Operand, cases: Vec<Case>, current: Option<Case> },
}

/// The block instructions go to, and whether it has had its exit.
struct Open {
    block: u32,
    exited: bool,
}

/// Reads the code lines up to the end of the input into the top-level
/// region.
pub(super) fn body(lines: &mut Lines<'_>, code: &mut Code, processor: tgsi::Processor) -> Result<Region, ParseIrError> {
    let mut root = Region::new();
    let mut stack: Vec<(Frame, Span)> = Vec::new();
    let mut open: Option<Open> = None;
    while let Some(mut c) = lines.next_line() {
        c.skip_spaces();
        if c.at_end() {
            continue;
        }
        let rest = c.rest();
        let line_span = c.span_at(c.pos(), rest.len());
        if let Some(exit) = exit_of(rest) {
            let Some(o) = open.as_mut().filter(|o| !o.exited) else {
                return Err(c.error_at(c.pos(), rest.len(), "an exit must end a block"));
            };
            o.exited = true;
            if let Some(data) = code.blocks.get_mut(&o.block) {
                data.exit = exit;
            }
            continue;
        }
        if rest.starts_with('b') && rest.ends_with(':') && rest[1..rest.len() - 1].bytes().all(|b| b.is_ascii_digit()) {
            let at = c.pos();
            let n = entity(&mut c, "b", "a block")?;
            if code.blocks.contains_key(&n) {
                return Err(c.error_at(at, c.pos() - at, format!("b{n} is defined twice")));
            }
            let region = region_of(&mut root, &mut stack)
                .ok_or_else(|| c.error_at(at, c.pos() - at, "a block inside a switch needs a `case` first"))?;
            region.push(Node::Block(Block::new(n as usize)));
            code.blocks.insert(n, BlockData::default());
            code.name_block(n);
            open = Some(Open { block: n, exited: false });
            continue;
        }
        if let Some(frame) = construct_head(&mut c, code)? {
            if region_of(&mut root, &mut stack).is_none() {
                return Err(ParseIrError {
                    message: "a construct inside a switch needs a `case` first".into(),
                    span: line_span,
                });
            }
            stack.push((frame, line_span));
            open = None;
            continue;
        }
        if let Some(tail) = rest.strip_prefix("} else {") {
            else_line(&mut c, tail, &mut stack)?;
            open = None;
            continue;
        }
        if rest == "}" {
            close_line(&mut c, &mut root, &mut stack)?;
            open = None;
            continue;
        }
        if rest == "default:" || rest.starts_with("case ") {
            case_line(&mut c, code, &mut stack)?;
            open = None;
            continue;
        }
        let Some(o) = open.as_ref() else {
            return Err(c.error_at(
                c.pos(),
                rest.len(),
                "an instruction outside a block (expected a label `bN:` first)",
            ));
        };
        if o.exited {
            return Err(c.error_at(c.pos(), rest.len(), "an instruction after the block's exit"));
        }
        let block = o.block;
        let data = inst::inst(&mut c, code, processor)?;
        let index = code.insts.len();
        code.insts.push(data);
        if let Some(b) = code.blocks.get_mut(&block) {
            b.insts.push(crate::function::Inst::new(index));
        }
    }
    if let Some((_, span)) = stack.last() {
        let mut span = *span;
        span.end = span.start + 1;
        return Err(ParseIrError { message: "this construct is never closed with `}`".into(), span });
    }
    Ok(root)
}

/// `} else {` (or `} else {  ; no ELSE`): the then-part of the innermost if
/// ends and its else-part starts.
fn else_line(c: &mut Cursor<'_>, tail: &str, stack: &mut Vec<(Frame, Span)>) -> Result<(), ParseIrError> {
    let rest = c.rest();
    let has_else = match tail {
        "" => true,
        "  ; no ELSE" => false,
        _ => return Err(c.error_at(c.pos() + 8, tail.len(), "unexpected text")),
    };
    match stack.pop() {
        Some((Frame::Then { cond, unsigned, then_region }, span)) => {
            let frame = Frame::Else { cond, unsigned, then_region, else_region: Region::new(), has_else };
            stack.push((frame, span));
        }
        other => {
            stack.extend(other);
            return Err(c.error_at(c.pos(), rest.len(), "`} else {` outside an if"));
        }
    }
    Ok(())
}

/// `}`: the innermost construct ends and joins the region around it.
fn close_line(c: &mut Cursor<'_>, root: &mut Region, stack: &mut Vec<(Frame, Span)>) -> Result<(), ParseIrError> {
    let node = match stack.pop() {
        Some((Frame::Else { cond, unsigned, then_region, else_region, has_else }, _)) => {
            Node::If(Box::new(IfNode { cond, unsigned, then_region, else_region, has_else }))
        }
        Some((Frame::Loop { body }, _)) => Node::Loop(Box::new(LoopNode { body })),
        Some((Frame::Switch { selector, mut cases, current }, _)) => {
            cases.extend(current);
            Node::Switch(Box::new(SwitchNode { selector, cases }))
        }
        Some((Frame::Then { .. }, _)) => {
            return Err(c.error_at(c.pos(), 1, "an if closes its then-part with `} else {`"));
        }
        None => return Err(c.error_at(c.pos(), 1, "`}` closes nothing")),
    };
    // The region exists: the frame just popped was pushed inside it.
    if let Some(region) = region_of(root, stack) {
        region.push(node);
    }
    Ok(())
}

/// `case v1:` or `default:`: the next case of the innermost switch.
fn case_line(c: &mut Cursor<'_>, code: &mut Code, stack: &mut [(Frame, Span)]) -> Result<(), ParseIrError> {
    let rest = c.rest();
    let value = if rest == "default:" {
        None
    } else {
        c.expect("case ")?;
        let op = inst::operand(c, code)?;
        c.expect(":")?;
        c.end()?;
        Some(op)
    };
    match stack.last_mut() {
        Some((Frame::Switch { cases, current, .. }, _)) => {
            cases.extend(current.take());
            *current = Some(Case { value, body: Region::new() });
        }
        _ => return Err(c.error_at(c.pos(), rest.len(), "a case outside a switch")),
    }
    Ok(())
}

/// The exit a line names, if it is one.
fn exit_of(line: &str) -> Option<Exit> {
    match line {
        "break" => Some(Exit::Break),
        "continue" => Some(Exit::Continue),
        "return" => Some(Exit::Return),
        _ => None,
    }
}

/// `if v1 {`, `uif v1 {`, `loop {`, `switch v1 {`: the construct a line
/// opens, if it opens one.
fn construct_head(c: &mut Cursor<'_>, code: &mut Code) -> Result<Option<Frame>, ParseIrError> {
    let rest = c.rest();
    let frame = if rest == "loop {" {
        Frame::Loop { body: Region::new() }
    } else if rest.starts_with("if ") || rest.starts_with("uif ") {
        let unsigned = c.eat("u");
        c.expect("if ")?;
        let cond = inst::operand(c, code)?;
        c.expect(" {")?;
        c.end()?;
        Frame::Then { cond, unsigned, then_region: Region::new() }
    } else if rest.starts_with("switch ") {
        c.expect("switch ")?;
        let selector = inst::operand(c, code)?;
        c.expect(" {")?;
        c.end()?;
        Frame::Switch { selector, cases: Vec::new(), current: None }
    } else {
        return Ok(None);
    };
    Ok(Some(frame))
}

/// The region new nodes go to: the innermost open construct's current
/// region (none in a switch before its first case).
fn region_of<'r>(root: &'r mut Region, stack: &'r mut [(Frame, Span)]) -> Option<&'r mut Region> {
    match stack.last_mut() {
        None => Some(root),
        Some((Frame::Then { then_region, .. }, _)) => Some(then_region),
        Some((Frame::Else { else_region, .. }, _)) => Some(else_region),
        Some((Frame::Loop { body }, _)) => Some(body),
        Some((Frame::Switch { current, .. }, _)) => current.as_mut().map(|c| &mut c.body),
    }
}
