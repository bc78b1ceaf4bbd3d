"""The Rust crates' layering, as ARCHITECTURE.md states it, held by a test.

* **No import cycle between the files of a crate.** An edge goes from a file to the module a
  `crate::…` or `super::…` path in it names (the longest prefix of the path that is a module
  of the crate); paths inside comments, strings and `#[cfg(test)] mod tests` blocks, and the
  files of test modules (`tests.rs`), do not count; nor does the crate's shared error module
  (`error.rs`), which every file may use. A cycle fails the test, naming its files.
* **No source file over 800 lines, no function over 150**, except a function marked as a hot
  loop (a comment ``// hot loop: <why>`` on one of the three lines above its ``fn``), and the
  debts listed in ``SIZE_DEBT``, each at most its recorded size: a debt that grows fails, and
  so does one that has been paid (so that the list only shrinks).

Only the standard library: the scan is regular expressions over the source, which the
self-tests below check on small crates written for them.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CRATES = sorted(p for p in (ROOT / "crates").iterdir() if (p / "src").is_dir())

MAX_FILE_LINES = 800
MAX_FN_LINES = 150

# What is over the limits today, at its size when listed: (path from the root, function name or
# None for the file) -> lines. Each is work left (issue 33); none may grow.
SIZE_DEBT: dict[tuple[str, str | None], int] = {
}

_BLANKED = re.compile(
    r"//[^\n]*"  # line comments (doc comments too)
    r"|/\*.*?\*/"  # block comments
    r'|r(#*)".*?"\1'  # raw strings
    r'|b?"(?:[^"\\]|\\.)*"'  # strings
    r"|b?'(?:\\.|[^\\'])'",  # character literals (not lifetimes)
    re.S,
)


def blank(src: str) -> str:
    """`src` with comments, strings and character literals blanked, newlines kept."""
    return _BLANKED.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), src)


def _block_end(s: str, open_at: int) -> int:
    """The index of the brace closing the one at `open_at` in blanked source `s`."""
    depth = 0
    for j in range(open_at, len(s)):
        if s[j] == "{":
            depth += 1
        elif s[j] == "}":
            depth -= 1
            if depth == 0:
                return j
    return len(s) - 1


def without_test_modules(s: str) -> str:
    """Blanked source `s` without its `#[cfg(test)] mod NAME { ... }` blocks."""
    while m := re.search(r"#\[cfg\(test\)\]\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+\w+\s*\{", s):
        end = _block_end(s, m.end() - 1)
        s = s[: m.start()] + s[end + 1 :]
    return s


def modules(src_dir: Path) -> dict[str, Path]:
    """The crate's modules (`a::b`, the root being ``""``) and their files, test modules aside."""
    out = {}
    for p in src_dir.rglob("*.rs"):
        rel = p.relative_to(src_dir).with_suffix("").parts
        if rel[-1] == "tests" or "tests" in rel[:-1]:
            continue
        parts = list(rel[:-1]) if rel[-1] in ("mod", "lib", "main") else list(rel)
        out["::".join(parts)] = p
    return out


def edges(src_dir: Path) -> dict[str, set[str]]:
    """Module -> the modules its `crate::`/`super::` paths name (the error module aside)."""
    mods = modules(src_dir)
    out: dict[str, set[str]] = {m: set() for m in mods}
    for m, p in mods.items():
        s = without_test_modules(blank(p.read_text()))
        here = m.split("::") if m else []
        for hit in re.finditer(r"(?<![:\w])(crate|super)((?:::\w+)+)", s):
            path = hit.group(2).split("::")[1:]
            if hit.group(1) == "crate":
                base: list[str] = []
            else:
                base = here[:-1]
                while path and path[0] == "super":
                    path, base = path[1:], base[:-1]
            full = base + path
            for i in range(len(full), 0, -1):
                target = "::".join(full[:i])
                if target in mods:
                    if target != m and target != "error":
                        out[m].add(target)
                    break
    return out


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def functions(src: str) -> list[tuple[str, int, int]]:
    """Each `fn` with a body in `src`: (name, first line, lines), hot loops marked aside."""
    s = blank(src)
    raw_lines = src.split("\n")
    out = []
    for m in re.finditer(r"\bfn\s+(\w+)[^;{]*\{", s):
        first = s.count("\n", 0, m.start()) + 1
        last = s.count("\n", 0, _block_end(s, m.end() - 1)) + 1
        above = raw_lines[max(0, first - 4) : first - 1]
        if any(re.search(r"//\s*hot loop:\s*\S", line) for line in above):
            continue
        out.append((m.group(1), first, last - first + 1))
    return out


def oversized() -> dict[tuple[str, str | None], int]:
    """Every file and function over its limit, with its size."""
    out: dict[tuple[str, str | None], int] = {}
    for crate in CRATES:
        for p in sorted((crate / "src").rglob("*.rs")):
            rel = str(p.relative_to(ROOT))
            src = p.read_text()
            n = src.count("\n") + (0 if src.endswith("\n") else 1)
            if n > MAX_FILE_LINES:
                out[(rel, None)] = n
            for name, _, lines in functions(src):
                if lines > MAX_FN_LINES:
                    out[(rel, name)] = max(lines, out.get((rel, name), 0))
    return out


@pytest.mark.parametrize("crate", CRATES, ids=lambda p: p.name)
def test_no_import_cycle_between_the_files_of_a_crate(crate: Path) -> None:
    found = cycles(edges(crate / "src"))
    assert not found, f"{crate.name}: import cycles between files: " + "; ".join(" <-> ".join(c) for c in found)


def test_no_file_or_function_over_its_limit_beyond_the_listed_debts() -> None:
    now = oversized()
    new = {k: v for k, v in now.items() if k not in SIZE_DEBT}
    grown = {k: (SIZE_DEBT[k], v) for k, v in now.items() if k in SIZE_DEBT and v > SIZE_DEBT[k]}
    paid = sorted((k for k in SIZE_DEBT if k not in now), key=lambda k: (k[0], k[1] or ""))
    assert not new, f"over {MAX_FILE_LINES} lines a file / {MAX_FN_LINES} a function: {new}"
    assert not grown, f"listed debts that grew (listed, now): {grown}"
    assert not paid, f"debts paid: remove them from SIZE_DEBT: {paid}"


def _crate(tmp_path: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        p = tmp_path / "src" / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    return tmp_path / "src"


def test_the_scan_finds_a_cycle_through_super_and_crate_paths(tmp_path: Path) -> None:
    src = _crate(
        tmp_path,
        {
            "lib.rs": "pub mod a;\npub mod b;\npub mod error;\n",
            "a/mod.rs": "pub mod inner;\nuse crate::b::thing;\n",
            "a/inner.rs": "// crate::b in a comment is no edge\nfn f() { super::super::error::E; }\n",
            "b.rs": 'use crate::error::E;\nconst S: &str = "crate::a";\npub fn thing() { super::a::inner::g() }\n',
            "error.rs": "use crate::a;\n",
        },
    )
    graph = edges(src)
    assert graph["a::inner"] == set(), "a comment and the error module are not edges"
    assert graph["b"] == {"a::inner"}
    assert graph["a"] == {"b"}
    assert cycles(graph) == []
    (src / "a/inner.rs").write_text("use crate::a::helper;\npub fn g() { crate::b::thing() }\n")
    assert cycles(edges(src)) == [["a", "a::inner", "b"]]


def test_a_test_module_is_no_edge(tmp_path: Path) -> None:
    src = _crate(
        tmp_path,
        {
            "lib.rs": "pub mod a;\npub mod b;\n",
            "a.rs": "#[cfg(test)]\nmod tests {\n    use crate::b::x;\n    fn t() { if true { } }\n}\n",
            "b.rs": "use crate::a::y;\n",
            "b/tests.rs": "use crate::a;\n",
        },
    )
    assert edges(src)["a"] == set()
    (src / "a.rs").write_text("pub fn y() { crate::b::x() }\n")
    assert cycles(edges(src)) == [["a", "b"]]


def test_function_lengths_skip_marked_hot_loops_and_see_through_strings() -> None:
    body = "\n".join(["    x += 1;"] * 5)
    src = f'fn short() {{\n    let s = "}}}}";\n    let c = \'{{\';\n}}\n// hot loop: one pass per record\nfn hot() {{\n{body}\n}}\nfn long<\'a>(v: &\'a str) {{\n{body}\n}}\n'
    found = {name: lines for name, _, lines in functions(src)}
    assert found == {"short": 4, "long": 7}
