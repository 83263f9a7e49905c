//! The size of the program once every subroutine is inlined at each of
//! its calls, computed before anything is built: a chain of subroutines
//! that each call the next twice doubles the size with every link, so a
//! few hundred bytes of input could otherwise ask for billions of
//! instructions.
//!
//! Each subroutine's inlined size is found once (bottom-up over the call
//! graph, with an explicit stack, in saturating arithmetic), so the count
//! takes time linear in the input whatever the call graph.

use tgsi::{Instruction, Opcode};

/// Where a subroutine's size stands in the count.
#[derive(Clone, Copy)]
enum Sub {
    Unseen,
    /// Being counted: a call to it now is recursion, which the walk
    /// refuses when it gets there (having inlined nothing more), so it
    /// adds nothing here.
    Counting,
    Done(u64),
}

/// A subroutine body being counted: its next instruction and its size
/// so far.
struct Frame {
    sub: usize,
    pc: usize,
    size: u64,
}

/// The largest inlined program the main program's calls make: the size
/// of the main program (up to its top-level `END`) with each `CAL`
/// counted as its subroutine's inlined body. When the count passes
/// `budget`, returns `Err` with the last `CAL` of the main program met by
/// then (the instruction there when there is none) and the size counted.
pub(super) fn check(insts: &[&Instruction], budget: u64) -> Result<u64, (usize, u64)> {
    let mut subs = vec![Sub::Unseen; insts.len()];
    let mut total = 0u64;
    let mut depth = 0usize;
    let mut last_call = None;
    for (pc, inst) in insts.iter().enumerate() {
        match inst.opcode {
            Opcode::Cal => {
                last_call = Some(pc);
                total = total.saturating_add(call_size(insts, &mut subs, inst));
            }
            op if op.opens_construct() => {
                depth += 1;
                total = total.saturating_add(1);
            }
            op if op.closes_construct() => {
                depth = depth.saturating_sub(1);
                total = total.saturating_add(1);
            }
            _ => total = total.saturating_add(1),
        }
        if total > budget {
            return Err((last_call.unwrap_or(pc), total));
        }
        if inst.opcode == Opcode::End && depth == 0 {
            break;
        }
    }
    Ok(total)
}

/// The inlined size of the subroutine a `CAL` names (1 when it names
/// none: the walk refuses such a call).
fn call_size(insts: &[&Instruction], subs: &mut [Sub], call: &Instruction) -> u64 {
    match call.label.map(|l| l as usize) {
        Some(start) if insts.get(start).is_some_and(|i| i.opcode == Opcode::Bgnsub) => {
            subroutine_size(insts, subs, start)
        }
        _ => 1,
    }
}

/// The inlined size of the subroutine at `start` (its `BGNSUB`): its
/// body up to the first `ENDSUB` (as the walk finds it), each `CAL` in it
/// counted as its own subroutine's inlined size.
fn subroutine_size(insts: &[&Instruction], subs: &mut [Sub], start: usize) -> u64 {
    match subs[start] {
        Sub::Done(size) => return size,
        Sub::Counting => return 0,
        Sub::Unseen => {}
    }
    subs[start] = Sub::Counting;
    let mut stack = vec![Frame { sub: start, pc: start + 1, size: 0 }];
    while let Some(frame) = stack.last_mut() {
        let Some(inst) = insts.get(frame.pc).filter(|i| i.opcode != Opcode::Endsub) else {
            // The body ended: its size is known, and adds to its caller's.
            let (sub, size) = (frame.sub, frame.size);
            subs[sub] = Sub::Done(size);
            stack.pop();
            if let Some(caller) = stack.last_mut() {
                caller.size = caller.size.saturating_add(size);
            }
            continue;
        };
        frame.pc += 1;
        let callee =
            inst.label.map(|l| l as usize).filter(|&l| insts.get(l).is_some_and(|i| i.opcode == Opcode::Bgnsub));
        match (inst.opcode, callee) {
            (Opcode::Cal, Some(callee)) => match subs[callee] {
                Sub::Done(size) => frame.size = frame.size.saturating_add(size),
                Sub::Counting => {}
                Sub::Unseen => {
                    subs[callee] = Sub::Counting;
                    stack.push(Frame { sub: callee, pc: callee + 1, size: 0 });
                }
            },
            _ => frame.size = frame.size.saturating_add(1),
        }
    }
    match subs[start] {
        Sub::Done(size) => size,
        _ => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sizes(text: &str, budget: u64) -> Result<u64, (usize, u64)> {
        let shader = tgsi::parse(text).unwrap();
        let insts: Vec<&Instruction> = shader.instructions().collect();
        check(&insts, budget)
    }

    /// Main calls sub 1; each of `k` subroutines calls the next twice.
    fn doubling_chain(k: usize) -> String {
        let mut lines =
            vec!["MOV TEMP[0], IN[0]".to_string(), "CAL :4".into(), "MOV OUT[0], TEMP[0]".into(), "END".into()];
        for i in 0..k {
            let next = 4 + 4 * (i + 1);
            lines.extend(["BGNSUB".into(), format!("CAL :{next}"), format!("CAL :{next}"), "ENDSUB".into()]);
        }
        lines.extend(["BGNSUB".into(), "ADD TEMP[0], TEMP[0], IN[0]".into(), "ENDSUB".into()]);
        format!("FRAG\nDCL IN[0]\nDCL OUT[0], COLOR\nDCL TEMP[0]\n{}\n", lines.join("\n"))
    }

    #[test]
    fn a_doubling_chain_counts_two_to_the_length() {
        assert_eq!(sizes(&doubling_chain(3), u64::MAX), Ok(3 + 8));
        // 2^1000 saturates rather than overflowing, found at the call.
        assert_eq!(sizes(&doubling_chain(1000), u64::MAX), Ok(u64::MAX));
        assert_eq!(sizes(&doubling_chain(20), 1 << 16), Err((1, 1 + (1 << 20))));
    }

    #[test]
    fn subroutines_after_end_and_uncalled_ones_count_nothing() {
        let text = "FRAG\nDCL TEMP[0]\nNOP\nEND\nBGNSUB\nCAL :4\nENDSUB\n";
        assert_eq!(sizes(text, u64::MAX), Ok(2));
    }

    #[test]
    fn recursion_adds_nothing_and_ends() {
        let text = "FRAG\nDCL TEMP[0]\nCAL :2\nEND\nBGNSUB\nNOP\nCAL :2\nENDSUB\n";
        assert_eq!(sizes(text, u64::MAX), Ok(2));
    }
}
