//! The source's properties and declarations in today's syntax: what the
//! 2010 dialect allowed and Mesa's parser now refuses is left out, where it
//! changes nothing the shader computes.

use tgsi::{Declaration, File, Item, Processor};

/// The interface items of a shader of stage `processor`, as today's Mesa
/// parses them.
pub(super) fn todays_interface(processor: Processor, items: &[Item]) -> Vec<Item> {
    items
        .iter()
        .map(|item| match item {
            Item::Declaration(d) => Item::Declaration(todays_declaration(processor, d)),
            other => other.clone(),
        })
        .collect()
}

fn todays_declaration(processor: Processor, decl: &Declaration) -> Declaration {
    let mut d = decl.clone();
    // Vertex shader inputs are vertex attributes, numbered by their index:
    // Mesa's parser takes no semantic, interpolation or invariance there.
    if processor == Processor::Vertex && d.file == File::Input {
        d.semantic = None;
        d.interpolation = None;
        d.invariant = false;
    }
    d
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decls(text: &str) -> String {
        let shader = tgsi::parse(text).unwrap();
        let items = todays_interface(shader.processor, &shader.items);
        let out = tgsi::Shader { processor: shader.processor, items };
        tgsi::print(&out, tgsi::Style::Exact).lines().filter(|l| l.starts_with("DCL")).collect::<Vec<_>>().join("\n")
    }

    #[test]
    fn vertex_inputs_lose_semantics_and_interpolation() {
        let text = "VERT\nDCL IN[0], POSITION, CONSTANT\nDCL IN[1], COLOR\nDCL OUT[0], POSITION\nEND\n";
        assert_eq!(decls(text), "DCL IN[0]\nDCL IN[1]\nDCL OUT[0], POSITION");
    }

    #[test]
    fn other_stages_keep_input_semantics() {
        let text = "FRAG\nDCL IN[0], GENERIC[0], PERSPECTIVE\nDCL OUT[0], COLOR\nEND\n";
        assert_eq!(decls(text), "DCL IN[0], GENERIC[0], PERSPECTIVE\nDCL OUT[0], COLOR");
    }
}
