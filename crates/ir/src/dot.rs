//! A Graphviz rendering of a function's control-flow graph.
//!
//! ```text
//! digraph cfg {
//!     node [shape=box, fontname="monospace"];
//!     b0 [label="b0:\l    v0 = read IN[0].x\l    if v0\l"];
//!     b1 [label="b1:\l    storeoutput OUT[0].x, v0\l"];
//!     b2 [label="b2:\l"];
//!     b3 [label="b3:\l    return\l"];
//!     b0 -> b1 [label="then"];
//!     b0 -> b2 [label="else"];
//!     b1 -> b3;
//!     b2 -> b3;
//! }
//! ```
//!
//! There is one node per block of the tree, in program order, labelled with
//! the block's name, its instructions (as [`print_inst`] writes them) and
//! how control leaves it: `break`, `continue`, `return`, or the construct it
//! is the condition block of (`if v3`, `uif v3`, `switch v3`). The edges
//! are the [`Cfg`]'s, in the same order; edges out of a condition block are
//! labelled with the arm they enter (`then`, `else`, `case v4`, `default`,
//! and `no case` for a switch without `DEFAULT` to its exit). Back edges
//! (to a loop header, from its latch or a `continue`) are dashed; blocks no
//! path from the entry reaches are dotted. The output depends only on the
//! function, so it can be diffed.

use crate::cfg::Cfg;
use crate::entity::EntityRef;
use crate::function::{Block, Exit, Function, Node, Region};
use crate::print::{print_inst, print_operand};
use crate::walk::{walk, ConstructRef, Event};
use std::collections::HashMap;
use std::fmt::Write;

/// Renders the control-flow graph of `func` in Graphviz's dot language.
pub fn function_to_dot(func: &Function) -> String {
    let cfg = Cfg::new(func);
    let notes = Notes::new(func);
    let mut position = vec![usize::MAX; cfg.num_blocks()];
    for (i, &b) in cfg.blocks().iter().enumerate() {
        position[b.index()] = i;
    }

    let mut out = String::from("digraph cfg {\n    node [shape=box, fontname=\"monospace\"];\n");
    for &b in cfg.blocks() {
        let mut label = format!("{b}:\\l");
        let (insts, exit) = match func.blocks.get(b) {
            Some(data) => (data.insts.as_slice(), data.exit),
            None => (&[][..], Exit::Fallthrough),
        };
        for &inst in insts {
            let _ = write!(label, "    {}\\l", escape(&print_inst(func, inst)));
        }
        let last = match exit {
            Exit::Fallthrough => notes.branch.get(&b).map(String::as_str),
            Exit::Break => Some("break"),
            Exit::Continue => Some("continue"),
            Exit::Return => Some("return"),
        };
        if let Some(last) = last {
            let _ = write!(label, "    {}\\l", escape(last));
        }
        let style = if cfg.is_reachable(b) { "" } else { ", style=dotted" };
        let _ = writeln!(out, "    {b} [label=\"{label}\"{style}];");
    }
    for &b in cfg.blocks() {
        for &s in cfg.succs(b) {
            let mut attrs = Vec::new();
            if let Some(label) = notes.edges.get(&(b, s)) {
                attrs.push(format!("label=\"{}\"", escape(label)));
            }
            let (from, to) = (position.get(b.index()), position.get(s.index()));
            if matches!((from, to), (Some(f), Some(t)) if t <= f) {
                attrs.push("style=dashed".to_string());
            }
            if attrs.is_empty() {
                let _ = writeln!(out, "    {b} -> {s};");
            } else {
                let _ = writeln!(out, "    {b} -> {s} [{}];", attrs.join(", "));
            }
        }
    }
    out.push_str("}\n");
    out
}

/// What the tree says about branches: the construct each condition block
/// ends with, and the arm each of its edges enters.
#[derive(Default)]
struct Notes {
    /// `if v3`, `uif v3`, `switch v3`, by condition block.
    branch: HashMap<Block, String>,
    /// `then`, `else`, `case v4`, `default`, `no case`, by edge.
    edges: HashMap<(Block, Block), String>,
}

impl Notes {
    fn new(func: &Function) -> Notes {
        let mut notes = Notes::default();
        for event in walk(&func.body) {
            let Event::Enter(construct, at) = event else { continue };
            let Some(c) = at.prev_block() else { continue };
            match construct {
                ConstructRef::If(n) => {
                    let kind = if n.unsigned { "uif" } else { "if" };
                    notes.branch.insert(c, format!("{kind} {}", print_operand(&n.cond)));
                    notes.label(c, &n.then_region, "then".to_string());
                    notes.label(c, &n.else_region, "else".to_string());
                }
                ConstructRef::Loop(_) => {}
                ConstructRef::Switch(n) => {
                    notes.branch.insert(c, format!("switch {}", print_operand(&n.selector)));
                    for case in &n.cases {
                        let label = match &case.value {
                            Some(v) => format!("case {}", print_operand(v)),
                            None => "default".to_string(),
                        };
                        notes.label(c, &case.body, label);
                    }
                    if n.cases.iter().all(|case| case.value.is_some()) {
                        if let Some(Node::Block(exit)) = at.next() {
                            notes.edges.entry((c, *exit)).or_insert_with(|| "no case".to_string());
                        }
                    }
                }
            }
        }
        notes
    }

    /// Labels the edge from `from` to the first block of `region`. The
    /// first label given to an edge stays (two arms never share an entry
    /// in a well-formed tree).
    fn label(&mut self, from: Block, region: &Region, label: String) {
        if let Some(Node::Block(to)) = region.first() {
            self.edges.entry((from, *to)).or_insert(label);
        }
    }
}

/// Escapes text for a double-quoted dot string.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\l"),
            '\r' => {}
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cfg::build::*;
    use crate::function::{Op, Source, Ty};
    use tgsi::{File, Opcode};

    #[test]
    fn renders_the_documented_example() {
        let mut t = Builder::default();
        let [b0, b1, b2, b3] = [t.block(), t.block(), t.block(), t.block()];
        let read = t.inst(b0, Op::Read(Source { file: File::Input, dim: None, index: 0, chan: 0 }), &[], &[Ty::B32]);
        let v0 = t.f.result(read);
        t.store(b1, 0, v0);
        t.exit(b3, Exit::Return);
        t.f.body = vec![blk(b0), if_(v0, vec![blk(b1)], vec![blk(b2)]), blk(b3)];
        let doc = crate::print::doc_text_block(include_str!("dot.rs"));
        assert_eq!(function_to_dot(&t.f), doc);
    }

    #[test]
    fn loops_switches_and_unreachable_blocks() {
        let mut t = Builder::default();
        let b: Vec<Block> = (0..9).map(|_| t.block()).collect();
        let v0 = t.konst(b[0], 1);
        let v1 = t.konst(b[0], 2);
        let v2 = t.alu(b[1], Opcode::Add, &[v0, v1]);
        t.exit(b[2], Exit::Continue);
        t.exit(b[3], Exit::Break);
        t.exit(b[5], Exit::Break);
        t.exit(b[7], Exit::Return);
        t.f.body = vec![
            blk(b[0]),
            loop_(vec![blk(b[1]), if_(v2, vec![blk(b[2])], vec![blk(b[3])]), blk(b[4])]),
            blk(b[5]),
            switch(v0, vec![(Some(v1), vec![blk(b[6])])]),
            blk(b[7]),
            blk(b[8]),
        ];
        let dot = function_to_dot(&t.f);
        let expected = "\
digraph cfg {
    node [shape=box, fontname=\"monospace\"];
    b0 [label=\"b0:\\l    v0 = const 0x00000001 ; 1\\l    v1 = const 0x00000002 ; 2\\l\"];
    b1 [label=\"b1:\\l    v2 = add v0, v1\\l    if v2\\l\"];
    b2 [label=\"b2:\\l    continue\\l\"];
    b3 [label=\"b3:\\l    break\\l\"];
    b4 [label=\"b4:\\l\", style=dotted];
    b5 [label=\"b5:\\l    break\\l\"];
    b6 [label=\"b6:\\l\", style=dotted];
    b7 [label=\"b7:\\l    return\\l\", style=dotted];
    b8 [label=\"b8:\\l\", style=dotted];
    b0 -> b1;
    b1 -> b2 [label=\"then\"];
    b1 -> b3 [label=\"else\"];
    b2 -> b1 [style=dashed];
    b3 -> b5;
    b4 -> b1 [style=dashed];
    b6 -> b7;
}
";
        assert_eq!(dot, expected);
        assert_eq!(function_to_dot(&t.f), dot, "deterministic");
    }

    #[test]
    fn switch_edges_are_labelled() {
        let mut t = Builder::default();
        let b: Vec<Block> = (0..4).map(|_| t.block()).collect();
        let v0 = t.konst(b[0], 1);
        let v1 = t.konst(b[0], 2);
        t.f.body = vec![blk(b[0]), switch(v0, vec![(Some(v1), vec![blk(b[1])]), (None, vec![blk(b[2])])]), blk(b[3])];
        let dot = function_to_dot(&t.f);
        assert!(dot.contains("    switch v0\\l\"];\n"), "{dot}");
        assert!(dot.contains("    b0 -> b1 [label=\"case v1\"];\n"), "{dot}");
        assert!(dot.contains("    b0 -> b2 [label=\"default\"];\n"), "{dot}");
        assert!(dot.contains("    b1 -> b2;\n"), "{dot}");
        assert!(!dot.contains("no case"), "{dot}");

        t.f.body = vec![blk(b[0]), switch(v0, vec![(Some(v1), vec![blk(b[1])])]), blk(b[3])];
        let dot = function_to_dot(&t.f);
        assert!(dot.contains("    b0 -> b3 [label=\"no case\"];\n"), "{dot}");
    }

    #[test]
    fn escapes_quotes_and_backslashes() {
        assert_eq!(escape(r#"a "b" \c"#), r#"a \"b\" \\c"#);
        assert_eq!(escape("x\r\ny"), "x\\ly");
    }

    #[test]
    fn malformed_functions_do_not_panic() {
        let mut t = Builder::default();
        let b0 = t.block();
        t.f.body = vec![blk(b0), blk(Block::new(7)), if_(crate::function::Value::new(3), vec![], vec![])];
        let dot = function_to_dot(&t.f);
        assert!(dot.starts_with("digraph cfg {\n"));
        assert!(dot.ends_with("}\n"));
    }
}
