//! The crate's top-level modules form layers: no module reaches, through
//! `crate::` paths in its code (comments and tests aside), a module that
//! reaches it back. The graph is printed; a cycle fails with its members.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// The code of a file: comment lines dropped, and everything from a
/// `#[cfg(test)]` on (test modules stand last in a file), or nothing for
/// a file of tests.
fn code(path: &Path) -> String {
    let text = std::fs::read_to_string(path).unwrap();
    if path.file_name().is_some_and(|n| n == "tests.rs") || path.components().any(|c| c.as_os_str() == "tests") {
        return String::new();
    }
    let text = text.split("#[cfg(test)]").next().unwrap_or("");
    text.lines().filter(|l| !l.trim_start().starts_with("//")).collect::<Vec<_>>().join("\n")
}

/// The top-level modules named after `crate::` in `code` (a path or a
/// `use crate::{a, b::c}` group).
fn references(code: &str, modules: &BTreeSet<String>) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    for (i, _) in code.match_indices("crate::") {
        let rest = &code[i + "crate::".len()..];
        let names: Vec<&str> = match rest.strip_prefix('{') {
            Some(group) => group.split('}').next().unwrap_or("").split(',').collect(),
            None => vec![rest],
        };
        for name in names {
            let name: String = name.trim().chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
            if modules.contains(&name) {
                found.insert(name);
            }
        }
    }
    found
}

/// The modules reachable from `from`.
fn reach(graph: &BTreeMap<String, BTreeSet<String>>, from: &str) -> BTreeSet<String> {
    let mut seen = BTreeSet::new();
    let mut stack = vec![from.to_string()];
    while let Some(m) = stack.pop() {
        for next in graph.get(&m).into_iter().flatten() {
            if seen.insert(next.clone()) {
                stack.push(next.clone());
            }
        }
    }
    seen
}

#[test]
fn the_modules_of_the_exec_crate_have_no_cycle() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let files = testdata::files_with_extension(&src, "rs");
    // A module is a file or folder of `src/` (lib.rs is the root).
    let top = |path: &Path| -> String {
        let rel = path.strip_prefix(&src).unwrap();
        let first = rel.components().next().unwrap().as_os_str().to_string_lossy().into_owned();
        first.trim_end_matches(".rs").to_string()
    };
    let modules: BTreeSet<String> = files.iter().map(|p| top(p)).filter(|m| m != "lib").collect();
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for path in &files {
        let module = top(path);
        if module == "lib" {
            continue;
        }
        let uses = references(&code(path), &modules);
        graph.entry(module.clone()).or_default().extend(uses.into_iter().filter(|m| *m != module));
    }
    for (module, uses) in &graph {
        let uses: Vec<&str> = uses.iter().map(String::as_str).collect();
        eprintln!("{module} -> {}", uses.join(" "));
    }
    let cyclic: Vec<&String> = graph.keys().filter(|m| reach(&graph, m).contains(*m)).collect();
    assert!(cyclic.is_empty(), "modules on a cycle: {cyclic:?}");
    // The graph was read: every module but the smallest uses another.
    assert!(graph.values().filter(|uses| !uses.is_empty()).count() >= 10, "{graph:?}");
}

#[test]
fn a_cycle_is_found() {
    let modules: BTreeSet<String> = ["a", "b", "c"].map(String::from).into();
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    graph.insert("a".into(), references("use crate::b::X;", &modules));
    graph.insert("b".into(), references("use crate::{c, d::Y};", &modules));
    graph.insert("c".into(), references("fn f() { crate::a::g() }", &modules));
    assert!(reach(&graph, "a").contains("a"));
    graph.insert("c".into(), BTreeSet::new());
    assert!(!reach(&graph, "a").contains("a"));
}
