//! The crate's structure, read from its source (`src/*.rs`):
//!
//! * the modules' `crate::…` paths form no cycle (each module file names only modules below
//!   it; comments are not read, `super::` in a module's nested `mod tests` is the module
//!   itself). `lib.rs`, the root, declares the modules and is left out;
//! * no file is over 800 lines, no function over 150;
//! * every `extern "C" fn` the crate defines calls the panic guard (`crate::guard`: "a panic
//!   never crosses the C ABI").
//!
//! Each check is also run on a small source with the fault it looks for, to show it fails.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

const MAX_FILE_LINES: usize = 800;
const MAX_FN_LINES: usize = 150;

/// Every `src/*.rs` file: module name -> text.
fn sources() -> BTreeMap<String, String> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut out = BTreeMap::new();
    for e in std::fs::read_dir(&dir).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "rs") {
            let name = p.file_stem().unwrap().to_string_lossy().into_owned();
            out.insert(name, std::fs::read_to_string(&p).unwrap());
        }
    }
    assert!(out.len() > 10, "src/*.rs not found in {}", dir.display());
    out
}

/// `text` without its comments (`//…` to the end of the line, `/* … */`), string literals
/// kept as they are (a `//` inside one is rare in this crate and only hides a path).
fn code(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let b = text.as_bytes();
    let (mut i, mut in_str) = (0, false);
    while i < b.len() {
        if in_str {
            if b[i] == b'\\' && i + 1 < b.len() {
                out.push_str(&text[i..i + 2]);
                i += 2;
                continue;
            }
            in_str = b[i] != b'"';
        } else if b[i] == b'"' && !(i > 0 && b[i - 1] == b'\'' && b.get(i + 1) == Some(&b'\'')) {
            in_str = true;
        } else if text[i..].starts_with("//") {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
            continue;
        } else if text[i..].starts_with("/*") {
            i = text[i..].find("*/").map_or(b.len(), |k| i + k + 2);
            continue;
        }
        let ch = text[i..].chars().next().unwrap();
        out.push(ch);
        i += ch.len_utf8();
    }
    out
}

/// The modules of `modules` each one names by a `crate::NAME` path (itself left out).
fn edges(modules: &BTreeMap<String, String>) -> BTreeMap<String, BTreeSet<String>> {
    let mut out = BTreeMap::new();
    for (name, text) in modules {
        let c = code(text);
        let mut to = BTreeSet::new();
        for (at, _) in c.match_indices("crate::") {
            if at > 0 && (c.as_bytes()[at - 1].is_ascii_alphanumeric() || c.as_bytes()[at - 1] == b'_') {
                continue; // `numaplace_crate::`, not a path from this crate's root
            }
            let rest = &c[at + "crate::".len()..];
            let target: String = rest.chars().take_while(|ch| ch.is_ascii_alphanumeric() || *ch == '_').collect();
            if target != *name && modules.contains_key(&target) {
                to.insert(target);
            }
        }
        out.insert(name.clone(), to);
    }
    out
}

/// A cycle of `graph` (its modules in order, the first repeated at the end), if there is one.
fn cycle(graph: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    // Depth-first search: 0 unvisited, 1 on the current path, 2 done.
    fn visit(n: &str, g: &BTreeMap<String, BTreeSet<String>>, state: &mut BTreeMap<String, u8>, path: &mut Vec<String>) -> Option<Vec<String>> {
        state.insert(n.to_string(), 1);
        path.push(n.to_string());
        for m in g.get(n).into_iter().flatten() {
            match state.get(m.as_str()).copied().unwrap_or(0) {
                1 => {
                    let from = path.iter().position(|p| p == m).unwrap();
                    let mut c = path[from..].to_vec();
                    c.push(m.clone());
                    return Some(c);
                }
                0 => {
                    if let Some(c) = visit(m, g, state, path) {
                        return Some(c);
                    }
                }
                _ => {}
            }
        }
        path.pop();
        state.insert(n.to_string(), 2);
        None
    }
    let mut state = BTreeMap::new();
    for n in graph.keys() {
        if state.get(n.as_str()).copied().unwrap_or(0) == 0 {
            if let Some(c) = visit(n, graph, &mut state, &mut Vec::new()) {
                return Some(c);
            }
        }
    }
    None
}

/// Each function of `text` (comments removed) longer than `max` lines: `name (N lines)`.
fn long_functions(text: &str, max: usize) -> Vec<String> {
    let c = code(text);
    let mut out = Vec::new();
    for (at, _) in c.match_indices("fn ") {
        if at > 0 && (c.as_bytes()[at - 1].is_ascii_alphanumeric() || c.as_bytes()[at - 1] == b'_') {
            continue;
        }
        let name: String = c[at + 3..].chars().take_while(|ch| ch.is_ascii_alphanumeric() || *ch == '_' || *ch == '$').collect();
        if name.is_empty() {
            continue; // a function-pointer type, `fn(…)`
        }
        let Some(len) = body(&c, at).map(|(open, close)| c[open..close].lines().count()) else { continue };
        if len > max {
            out.push(format!("{name} ({len} lines)"));
        }
    }
    out
}

/// The byte range of the body (`{` to its matching `}`) of the item whose header starts at
/// `at`, or None for a declaration without one (ending in `;` first).
fn body(c: &str, at: usize) -> Option<(usize, usize)> {
    let b = c.as_bytes();
    let mut i = at;
    let mut parens = 0i32;
    while i < b.len() {
        match b[i] {
            b'(' | b'<' | b'[' => parens += 1,
            b')' | b'>' | b']' if parens > 0 => parens -= 1,
            b';' if parens <= 0 => return None,
            b'{' if parens <= 0 => break,
            _ => {}
        }
        if b[i] == b'-' && b.get(i + 1) == Some(&b'>') {
            i += 2; // `->` is no closing angle bracket
            continue;
        }
        i += 1;
    }
    let open = i;
    let mut depth = 0;
    while i < b.len() {
        match b[i] {
            b'{' => depth += 1,
            b'}' => {
                depth -= 1;
                if depth == 0 {
                    return Some((open, i + 1));
                }
            }
            _ => {}
        }
        i += 1;
    }
    None
}

/// Each `extern "C" fn` defined in `text` (a body, not a function-pointer type) whose body
/// does not call the panic guard (`guard(` or `guard::guard(`): its name.
fn unguarded(text: &str) -> Vec<String> {
    let c = code(text);
    let mut out = Vec::new();
    for (at, _) in c.match_indices("extern \"C\" fn ") {
        let name: String = c[at + 14..].chars().take_while(|ch| ch.is_ascii_alphanumeric() || *ch == '_' || *ch == '$').collect();
        if name.is_empty() {
            continue; // `extern "C" fn(…)`: a type
        }
        let Some((open, close)) = body(&c, at) else { continue };
        let b = &c[open..close];
        let calls = b.match_indices("guard(").any(|(k, _)| k == 0 || !(b.as_bytes()[k - 1].is_ascii_alphanumeric() || b.as_bytes()[k - 1] == b'_'));
        if !calls {
            out.push(name);
        }
    }
    out
}

#[test]
fn the_modules_paths_form_no_cycle() {
    let mut modules = sources();
    modules.remove("lib");
    let graph = edges(&modules);
    if let Some(c) = cycle(&graph) {
        panic!("an import cycle between the files of crates/runtime/src: {}", c.join(" -> "));
    }
    // The order, bottom up, for the record (cargo test -- --nocapture).
    let mut done: Vec<String> = Vec::new();
    while done.len() < graph.len() {
        let next: Vec<String> =
            graph.iter().filter(|(n, to)| !done.contains(n) && to.iter().all(|t| done.contains(t))).map(|(n, _)| n.clone()).collect();
        println!("{}", next.join(" "));
        done.extend(next);
    }
}

#[test]
fn no_file_is_over_800_lines_and_no_function_over_150() {
    let mut faults = Vec::new();
    for (name, text) in sources() {
        let lines = text.lines().count();
        if lines > MAX_FILE_LINES {
            faults.push(format!("src/{name}.rs: {lines} lines (at most {MAX_FILE_LINES})"));
        }
        for f in long_functions(&text, MAX_FN_LINES) {
            faults.push(format!("src/{name}.rs: fn {f} (at most {MAX_FN_LINES})"));
        }
    }
    assert!(faults.is_empty(), "{}", faults.join("; "));
}

#[test]
fn every_extern_c_fn_goes_through_the_panic_guard() {
    let mut faults = Vec::new();
    let mut seen = 0;
    for (name, text) in sources() {
        seen += code(&text).matches("extern \"C\" fn ").count();
        for f in unguarded(&text) {
            faults.push(format!("src/{name}.rs: extern \"C\" fn {f}"));
        }
    }
    assert!(seen > 40, "only {seen} extern \"C\" fns found: is the scan reading the sources?");
    assert!(faults.is_empty(), "not through the panic guard (crate::guard): {}", faults.join(", "));
}

#[test]
fn the_checks_fail_on_the_faults_they_look_for() {
    // A cycle a -> b -> a (a path in a comment is no edge).
    let m: BTreeMap<String, String> = [
        ("a", "use crate::b::X;\n// crate::c\n"),
        ("b", "fn f() { crate::a::g() }"),
        ("c", "use crate::a;"),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .collect();
    let g = edges(&m);
    assert_eq!(g["a"], BTreeSet::from(["b".to_string()]));
    assert_eq!(cycle(&g), Some(vec!["a".to_string(), "b".to_string(), "a".to_string()]));
    let mut acyclic = m.clone();
    acyclic.insert("b".into(), "fn f() {}".into());
    assert_eq!(cycle(&edges(&acyclic)), None);
    // A long function.
    let long = format!("fn long() {{\n{}}}\nfn short() {{ 1 }}\n", "    x();\n".repeat(200));
    assert_eq!(long_functions(&long, 150), ["long (202 lines)"]);
    // An unguarded extern "C" fn, beside a guarded one, a type and a declaration.
    let src = r#"
        type F = unsafe extern "C" fn(i32) -> i32;
        extern "C" { fn puts(s: *const u8) -> i32; }
        #[no_mangle]
        pub extern "C" fn ok(x: i32) -> i32 { crate::guard::guard(|| -1, || x) }
        pub unsafe extern "C" fn bare(x: i32) -> i32 { x /* guard( */ }
        macro_rules! m { ($name:ident) => { pub extern "C" fn $name() { helper() } }; }
    "#;
    assert_eq!(unguarded(src), ["bare", "$name"]);
}
