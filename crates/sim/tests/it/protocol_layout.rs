//! The protocol engine's source layout (issue 33): the files of `src/protocol` name each
//! other (`super::x`, `crate::protocol::x`, in `use` lines or doc links) without a cycle. The
//! sizes (no file over 800 lines, no function over 150), and cycles through `use` paths
//! crate-wide, are held for every crate by `tests/test_layering.py`.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

fn sources() -> BTreeMap<String, String> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/protocol");
    let mut out = BTreeMap::new();
    for e in std::fs::read_dir(&dir).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "rs") {
            let name = p.file_stem().unwrap().to_string_lossy().into_owned();
            out.insert(name, std::fs::read_to_string(&p).unwrap());
        }
    }
    out
}

/// The sibling modules `text` names: `super::x` and `crate::protocol::x`.
fn named(text: &str, modules: &BTreeSet<String>) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for prefix in ["super::", "crate::protocol::"] {
        for (i, _) in text.match_indices(prefix) {
            let rest = &text[i + prefix.len()..];
            let word: String = rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
            if modules.contains(&word) {
                out.insert(word);
            }
        }
    }
    out
}

/// A cycle of the graph, if it has one.
fn cycle(graph: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        u: &str,
        graph: &BTreeMap<String, BTreeSet<String>>,
        state: &mut BTreeMap<String, u8>,
        stack: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        state.insert(u.to_string(), 1);
        stack.push(u.to_string());
        for v in graph.get(u).into_iter().flatten() {
            match state.get(v.as_str()) {
                Some(1) => {
                    let at = stack.iter().position(|x| x == v).unwrap();
                    let mut c = stack[at..].to_vec();
                    c.push(v.clone());
                    return Some(c);
                }
                Some(_) => {}
                None => {
                    if let Some(c) = visit(v, graph, state, stack) {
                        return Some(c);
                    }
                }
            }
        }
        stack.pop();
        state.insert(u.to_string(), 2);
        None
    }
    let mut state = BTreeMap::new();
    for u in graph.keys() {
        if !state.contains_key(u.as_str()) {
            if let Some(c) = visit(u, graph, &mut state, &mut Vec::new()) {
                return Some(c);
            }
        }
    }
    None
}

#[test]
fn the_protocol_files_name_each_other_without_a_cycle() {
    let src = sources();
    let modules: BTreeSet<String> = src.keys().filter(|k| *k != "mod").cloned().collect();
    let graph: BTreeMap<String, BTreeSet<String>> = src
        .iter()
        .filter(|(k, _)| *k != "mod")
        .map(|(k, text)| (k.clone(), named(text, &modules).into_iter().filter(|m| m != k).collect()))
        .collect();
    assert_eq!(cycle(&graph), None, "{graph:#?}");
    // The engine's parts import none of the engine's files that use them.
    for part in ["msg", "caches", "dir", "ctrl", "net", "proxies", "cpu", "stats"] {
        for user in ["engine", "state", "exec", "serve", "home", "remote", "proxy", "invariants"] {
            assert!(!graph[part].contains(user), "{part} names {user}");
        }
    }
}

#[test]
fn the_check_finds_a_cycle() {
    let g: BTreeMap<String, BTreeSet<String>> = [("a", "b"), ("b", "c"), ("c", "a")]
        .iter()
        .map(|(x, y)| (x.to_string(), BTreeSet::from([y.to_string()])))
        .collect();
    assert_eq!(cycle(&g).map(|c| c.len()), Some(4));
    let modules = BTreeSet::from(["engine".to_string(), "msg".to_string()]);
    assert_eq!(named("use super::msg::K; /// [`crate::protocol::engine::run`]", &modules), modules);
}
