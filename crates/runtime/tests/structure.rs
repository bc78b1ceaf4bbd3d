//! The crate's structure, read from its source (`src/*.rs`): every `extern "C" fn` the crate
//! defines calls the panic guard (`crate::guard`: "a panic never crosses the C ABI"). The check
//! is also run on a small source with the fault it looks for, to show it fails. The import
//! graph and the sizes (no cycle between files, no file over 800 lines, no function over 150)
//! are held for every crate by `tests/test_layering.py`.

use std::collections::BTreeMap;
use std::path::Path;

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
fn the_check_fails_on_the_fault_it_looks_for() {
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
