//! The crate's module graph, read from its sources: every `crate::name` path in
//! `src/**/*.rs` (in `use` lines or inline) is an edge from the file's top-level module to
//! `name`. The graph must be acyclic, and the pure modules (descriptions, declarations, the
//! compiler) must not reach a module that owns Vulkan objects, so "compile is pure" holds in
//! the imports as well as in the code.
//!
//! Comments are ignored (a doc link is not an import); `super::` paths stay inside a module.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Modules that own no Vulkan object and may be used without a device.
const PURE: &[&str] = &[
    "access", "compile", "desc", "dump", "error", "graph", "queue", "shader",
];
/// Modules that create, own or drive Vulkan objects.
const OWNING: &[&str] = &["context", "exec", "pipeline", "resource", "swapchain"];

type Edges = BTreeMap<String, BTreeSet<String>>;

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("readable src dir") {
        let path = entry.expect("dir entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The top-level module a file belongs to (`compile/barriers.rs` → `compile`); None for the
/// crate root.
fn module_of(src: &Path, file: &Path) -> Option<String> {
    let rel = file.strip_prefix(src).expect("file under src");
    let first = rel.components().next()?.as_os_str().to_str()?.to_string();
    let name = first.strip_suffix(".rs").unwrap_or(&first).to_string();
    (name != "lib").then_some(name)
}

fn ident_at(s: &str) -> String {
    s.chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
        .collect()
}

/// Top-level modules named after `crate::` in `code`, including each member of a
/// `crate::{a::X, b}` group.
fn crate_paths(code: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut rest = code;
    while let Some(i) = rest.find("crate::") {
        let preceded_by_ident = rest[..i]
            .chars()
            .next_back()
            .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$');
        let after = &rest[i + "crate::".len()..];
        rest = after;
        if preceded_by_ident {
            continue;
        }
        if let Some(group) = after.strip_prefix('{') {
            // Members at depth 0 of the group: the first identifier of each comma-separated item.
            let mut depth = 0;
            let mut item_start = true;
            for (k, c) in group.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => break,
                    '}' => depth -= 1,
                    ',' if depth == 0 => item_start = true,
                    c if item_start && depth == 0 && !c.is_whitespace() => {
                        item_start = false;
                        let id = ident_at(&group[k..]);
                        if !id.is_empty() {
                            found.push(id);
                        }
                    }
                    _ => {}
                }
            }
        } else {
            let id = ident_at(after);
            if !id.is_empty() {
                found.push(id);
            }
        }
    }
    found
}

fn strip_comments(text: &str) -> String {
    text.lines()
        .map(|l| match l.find("//") {
            Some(i) => &l[..i],
            None => l,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn module_edges() -> Edges {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let mut edges = Edges::new();
    for file in files {
        let Some(module) = module_of(&src, &file) else {
            continue;
        };
        let text = std::fs::read_to_string(&file).expect("readable source");
        let deps = edges.entry(module.clone()).or_default();
        for target in crate_paths(&strip_comments(&text)) {
            if target != module {
                deps.insert(target);
            }
        }
    }
    edges
}

/// A cycle through `edges`, if there is one, as the modules along it.
fn find_cycle(edges: &Edges) -> Option<Vec<String>> {
    #[derive(Clone, Copy, PartialEq)]
    enum Mark {
        New,
        OnPath,
        Done,
    }
    fn visit(
        m: &str,
        edges: &Edges,
        marks: &mut BTreeMap<String, Mark>,
        path: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        marks.insert(m.to_string(), Mark::OnPath);
        path.push(m.to_string());
        for next in edges.get(m).into_iter().flatten() {
            match marks.get(next.as_str()).copied().unwrap_or(Mark::New) {
                Mark::OnPath => {
                    let start = path.iter().position(|p| p == next).expect("on path");
                    let mut cycle = path[start..].to_vec();
                    cycle.push(next.clone());
                    return Some(cycle);
                }
                Mark::New => {
                    if let Some(c) = visit(next, edges, marks, path) {
                        return Some(c);
                    }
                }
                Mark::Done => {}
            }
        }
        path.pop();
        marks.insert(m.to_string(), Mark::Done);
        None
    }
    let mut marks = BTreeMap::new();
    for m in edges.keys() {
        if marks.get(m.as_str()).copied().unwrap_or(Mark::New) == Mark::New {
            if let Some(c) = visit(m, edges, &mut marks, &mut Vec::new()) {
                return Some(c);
            }
        }
    }
    None
}

#[test]
fn parser_sees_plain_grouped_and_inline_paths() {
    let code = "use crate::a::X;\nuse crate::{b::{Y, Z}, c};\nfn f(x: &crate::d::W) {}\n\
                pub(crate) fn g() {}\nmacro_rules! m { () => { $crate::e::V } }";
    assert_eq!(crate_paths(code), ["a", "b", "c", "d"]);
    assert_eq!(
        crate_paths(&strip_comments("/// see [`crate::z`]\nuse crate::y;")),
        ["y"]
    );
}

#[test]
fn detects_a_cycle() {
    let mut edges = Edges::new();
    edges.entry("a".into()).or_default().insert("b".into());
    edges.entry("b".into()).or_default().insert("c".into());
    edges.entry("c".into()).or_default().insert("a".into());
    assert_eq!(find_cycle(&edges).expect("cycle"), ["a", "b", "c", "a"]);
    edges.get_mut("c").expect("c").clear();
    assert_eq!(find_cycle(&edges), None);
}

#[test]
fn module_graph_is_acyclic() {
    let edges = module_edges();
    assert!(edges.contains_key("compile") && edges.contains_key("context"));
    if let Some(cycle) = find_cycle(&edges) {
        panic!("module cycle: {}\nedges: {edges:#?}", cycle.join(" → "));
    }
}

#[test]
fn every_module_has_a_layer() {
    let edges = module_edges();
    for m in edges.keys() {
        assert!(
            PURE.contains(&m.as_str()) || OWNING.contains(&m.as_str()),
            "module `{m}` is in neither PURE nor OWNING: place it in tests/module_layers.rs"
        );
    }
}

#[test]
fn pure_modules_import_only_pure_modules() {
    let edges = module_edges();
    let mut violations = Vec::new();
    for m in PURE {
        for dep in edges.get(*m).into_iter().flatten() {
            if !PURE.contains(&dep.as_str()) {
                violations.push(format!("{m} → {dep}"));
            }
        }
    }
    assert!(
        violations.is_empty(),
        "pure modules reach modules that own Vulkan objects: {}",
        violations.join(", ")
    );
}
