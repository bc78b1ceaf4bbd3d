"""The package's shape, read from its source (nothing is imported): no import cycle between its
files and no import of a higher layer (the command line on top), no file or function too long to
read, and every file it writes written by the one writer (:mod:`numaplace.outfile`).

Each check parses every module of ``python/numaplace`` with :mod:`ast`, so it sees what a
reader sees: the imports at the top of a module and those inside functions (and under
``TYPE_CHECKING``: a dependency all the same), absolute (``numaplace.x``) and relative
(``from . import x``).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path


PACKAGE = Path(__file__).resolve().parents[1] / "numaplace"

MAX_FILE_LINES = 800
MAX_FUNCTION_LINES = 150

#: Files exempt from the size limits, each with why. runtime.py is being split by another
#: change (issue 33), which removes this entry.


@dataclass(frozen=True)
class Module:
    name: str  # dotted: numaplace.sweep.spec
    path: Path
    is_package: bool  # an __init__.py

    @property
    def rel(self) -> str:
        return self.path.relative_to(PACKAGE).as_posix()


def modules(root: Path = PACKAGE) -> tuple[dict[str, Module], set[str]]:
    """The package's Python modules by dotted name, and the names of its compiled modules (an
    extension, known by its ``.pyi`` stub: ``numaplace._native``), which import nothing here."""
    found: dict[str, Module] = {}
    compiled: set[str] = set()
    for path in sorted(root.rglob("*.py*")):
        if path.suffix not in (".py", ".pyi"):
            continue
        parts = [root.name, *path.relative_to(root).with_suffix("").parts]
        is_package = parts[-1] == "__init__"
        if is_package:
            parts = parts[:-1]
        name = ".".join(parts)
        if path.suffix == ".pyi":
            compiled.add(name)
        else:
            found[name] = Module(name, path, is_package)
    compiled -= set(found)
    return found, compiled


def imports(module: Module, known: dict[str, Module], compiled: set[str]) -> list[tuple[str, int]]:
    """The package's modules ``module`` imports, each with the line of the import: ``import
    numaplace.a.b`` imports ``numaplace.a.b``; ``from numaplace.a import b`` imports
    ``numaplace.a.b`` if that is a module, else ``numaplace.a`` (``b`` is defined there)."""
    top = module.name.split(".")[0]
    own_package = module.name.split(".") if module.is_package else module.name.split(".")[:-1]
    found: list[tuple[str, int]] = []

    def add(name: str, line: int) -> None:
        if name in compiled:
            return
        while name not in known and "." in name:  # numaplace.x.attr: the module numaplace.x
            name = name.rsplit(".", 1)[0]
        if name in known and name != module.name:
            found.append((name, line))

    for node in ast.walk(ast.parse(module.path.read_text(encoding="utf-8"), str(module.path))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == top:
                    add(alias.name, node.lineno)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = own_package[: len(own_package) - (node.level - 1)]
                source = ".".join([*base, *([node.module] if node.module else [])])
            else:
                source = node.module or ""
            if source.split(".")[0] != top:
                continue
            for alias in node.names:
                sub = f"{source}.{alias.name}"
                add(sub if sub in known or sub in compiled else source, node.lineno)
    return found


def import_graph(root: Path = PACKAGE) -> tuple[dict[str, Module], dict[str, dict[str, int]]]:
    """The modules, and for each the modules it imports (with the first line importing each)."""
    known, compiled = modules(root)
    graph: dict[str, dict[str, int]] = {}
    for name, module in known.items():
        edges: dict[str, int] = {}
        for target, line in imports(module, known, compiled):
            edges.setdefault(target, line)
        graph[name] = edges
    return known, graph


def cycles(graph: dict[str, dict[str, int]]) -> list[list[str]]:
    """One shortest cycle through each strongly connected set of modules (Tarjan), as the list
    of modules on it, starting and ending at the set's first module by name."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                components.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    found = []
    for component in sorted(components):
        inside, start = set(component), component[0]
        # Breadth first from start, back to start: the shortest cycle through it.
        paths = {w: [start, w] for w in sorted(graph[start]) if w in inside}
        queue = list(paths)
        while start not in paths:
            v = queue.pop(0)
            for w in sorted(graph[v]):
                if w in inside and w not in paths:
                    paths[w] = [*paths[v], w]
                    queue.append(w)
        found.append(paths[start])
    return found


def describe(cycle: list[str], known: dict[str, Module], graph: dict[str, dict[str, int]]) -> str:
    steps = [f"{known[a].rel}:{graph[a][b]} imports {b}" for a, b in zip(cycle, cycle[1:])]
    return " -> ".join(cycle) + " (" + "; ".join(steps) + ")"


def test_no_import_cycle_between_modules() -> None:
    """The package is layered: a module never imports, directly or through others, a module
    that imports it (the command line on top, then the report, experiments, advice, sweeps,
    the Python API and the shared pieces below)."""
    known, graph = import_graph()
    assert len(known) > 30 and "numaplace.sweep.spec" in graph["numaplace.sweep.driver"]  # the scan sees the package
    found = [describe(c, known, graph) for c in cycles(graph)]
    assert found == [], "import cycles:\n" + "\n".join(found)


def test_the_cycle_finder_names_a_cycle() -> None:
    """The check above can fail: a made-up graph with a cycle is reported, shortest first."""
    graph = {"a": {"b": 1}, "b": {"c": 2, "a": 3}, "c": {"a": 4}, "d": {"a": 5}}
    assert cycles(graph) == [["a", "b", "a"]]
    assert cycles({"a": {"b": 1}, "b": {}}) == []


def test_relative_and_function_local_imports_are_seen(tmp_path: Path) -> None:
    root = tmp_path / "numaplace"
    (root / "sub").mkdir(parents=True)
    (root / "__init__.py").write_text("from numaplace import a\n")
    (root / "a.py").write_text("def f():\n    from .sub import b\n")
    (root / "sub" / "__init__.py").write_text("")
    (root / "sub" / "b.py").write_text("from .. import a\nfrom numaplace import _native\n")
    (root / "_native.pyi").write_text("")
    _, graph = import_graph(root)
    assert graph["numaplace.a"] == {"numaplace.sub.b": 2}
    assert graph["numaplace.sub.b"] == {"numaplace.a": 1}
    assert cycles(graph) == [["numaplace.a", "numaplace.sub.b", "numaplace.a"]]


def _sized() -> list[Module]:
    known, _ = modules()
    return list(known.values())


def test_no_source_file_over_the_limit() -> None:
    long = {m.rel: n for m in _sized() if (n := len(m.path.read_text(encoding="utf-8").splitlines())) > MAX_FILE_LINES}
    assert long == {}, f"files over {MAX_FILE_LINES} lines: {long}"


def test_no_function_over_the_limit() -> None:
    long = {}
    for m in _sized():
        for node in ast.walk(ast.parse(m.path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                lines = node.end_lineno - node.lineno + 1  # type: ignore[operator]
                if lines > MAX_FUNCTION_LINES:
                    long[f"{m.rel}:{node.lineno} {node.name}"] = lines
    assert long == {}, f"functions over {MAX_FUNCTION_LINES} lines: {long}"


# --- every file numaplace writes goes through the one writer ----------------------------------

WRITER = "outfile.py"
"""The one writer (numaplace.outfile, as Rust's ``write_with``): a temporary beside the file,
renamed over it; a link written through; a device written in place; errors one line."""

#: Calls that write a file when given a path (``obj.name(...)`` or ``module.name(...)``).
WRITING_CALLS = {
    "write_text", "write_bytes", "savefig", "print_png", "to_csv", "to_parquet", "to_json", "to_pickle",
    "to_feather", "to_excel", "to_html", "write_table", "write_feather", "replace", "rename", "copy", "copyfile",
    "copy2", "move", "mkstemp", "NamedTemporaryFile", "write",
}

#: Writes outside the writer, each by (file, enclosing function, call) with why it is not a file
#: numaplace hands a user. Anything else found is a failure.
ALLOWED_WRITES = {
    ("plot.py", "png_bytes", "savefig"): "renders into memory (a BytesIO); save_png hands the bytes to the writer",
    ("sweep/checkpoint.py", "write_atomic", "mkstemp"):
        "the sweep's own writer: its output directory's files are refused if they became links or special"
        " files (which the writer would follow), and a failure is a SweepError naming the sweep's file",
    ("sweep/checkpoint.py", "write_atomic", "fdopen"): "write_atomic's temporary (as above)",
    ("sweep/checkpoint.py", "write_atomic", "replace"): "write_atomic's rename (as above)",
    ("sweep/driver.py", "run_sweep", "write_table"): "the callback write_atomic is given (as above)",
    ("sweep/checkpoint.py", "_open", "open"): "the checkpoint's and the lock's opener (O_NOFOLLOW), used by the entries below",
    ("sweep/checkpoint.py", "Checkpoint.__init__", "_open"): "the checkpoint journal, appended run by run (no whole file)",
    ("sweep/checkpoint.py", "Checkpoint._write", "write"): "the checkpoint journal's records, appended as runs complete",
    ("sweep/checkpoint.py", "OutputLock.__init__", "_open"): "the sweep's lock file (locked, holding the holder's pid)",
    ("sweep/backends.py", "_worker_main", "fdopen"): "a pool worker's answers, on its stdout pipe",
    ("record.py", "_compiled_recorder", "replace"): "a build cache (the recording library), written by the compiler",
    ("record.py", "pass_plugin", "replace"): "a build cache (the LLVM pass plugin), written by the compiler",
    ("record.py", "record", "open"): "the recording library's raw stream, a scratch file in a private directory",
    ("record.py", "_write_failure", "open"): "one byte appended to the raw stream, for the system's words on why it failed",
    ("record.py", "_write_failure", "write"): "(as above)",
}


def _mode_writes(call: ast.Call, position: int) -> bool:
    """Whether an ``open``-like call's mode (positional ``position`` or ``mode=``) may write."""
    mode = call.args[position] if len(call.args) > position else next((k.value for k in call.keywords if k.arg == "mode"), None)
    if mode is None:
        return False
    if isinstance(mode, ast.Constant) and isinstance(mode.value, str):
        return any(c in mode.value for c in "wax+")
    return True  # a mode not written here: cannot tell, so it counts


def _flags_write(call: ast.Call) -> bool:
    """Whether an ``os.open``-like call's flags name a way to write."""
    names = {n.attr if isinstance(n, ast.Attribute) else getattr(n, "id", "") for n in ast.walk(call)}
    return bool(names & {"O_WRONLY", "O_RDWR", "O_CREAT", "O_APPEND", "O_TRUNC", "flags"})


def writes(source: str) -> list[tuple[str, str, int]]:
    """The calls in ``source`` that write a file: (enclosing function as Class.name, call, line).
    What a function or lambda handed to the writer (``write_with(path, what, write)``) writes is
    the writer's temporary: not counted."""
    tree = ast.parse(source)
    found: list[tuple[str, str, int]] = []
    handed = [c.args[2] for c in ast.walk(tree) if isinstance(c, ast.Call) and len(c.args) > 2
              and getattr(c.func, "id", getattr(c.func, "attr", "")) == "write_with"]
    callbacks = {a.id for a in handed if isinstance(a, ast.Name)}
    lambdas = {id(a) for a in handed if isinstance(a, ast.Lambda)}

    def visit(node: ast.AST, scope: list[str]) -> None:
        for child in ast.iter_child_nodes(node):
            if id(child) in lambdas or isinstance(child, ast.FunctionDef) and scope and child.name in callbacks:
                continue
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                # A function nested in a function is named by its outermost function.
                inner = scope if scope and not isinstance(node, ast.ClassDef) else [*scope, child.name]
                visit(child, inner)
                continue
            if isinstance(child, ast.Call):
                f = child.func
                name = f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", "")
                owner = getattr(f.value, "id", "") if isinstance(f, ast.Attribute) else ""
                hit = False
                if name == "open" and owner == "os" or name == "_open":
                    hit = _flags_write(child)
                elif name in ("open", "fdopen"):
                    hit = _mode_writes(child, 0 if isinstance(f, ast.Attribute) and owner != "os" else 1)
                elif name in ("to_csv", "to_json", "to_html"):
                    hit = bool(child.args) or any(k.arg in ("path_or_buf", "buf") for k in child.keywords)
                elif name == "write":
                    hit = owner == "os"
                elif name in ("replace", "rename"):
                    hit = owner == "os"
                elif name in ("copy", "copyfile", "copy2", "move"):
                    hit = owner == "shutil"
                elif name in WRITING_CALLS:
                    hit = True
                if hit:
                    found.append((".".join(scope), name, child.lineno))
            visit(child, scope)

    visit(tree, [])
    return found


def test_every_file_written_goes_through_the_one_writer() -> None:
    """No module but the writer opens a file for writing, renames one into place or saves a
    table, page or figure to a path, except the few entries of ALLOWED_WRITES (each says why)."""
    known, _ = modules()
    found, used = [], set()
    for m in known.values():
        if m.rel == WRITER:
            continue
        for scope, call, line in writes(m.path.read_text(encoding="utf-8")):
            key = (m.rel, scope, call)
            if key in ALLOWED_WRITES:
                used.add(key)
            else:
                found.append(f"{m.rel}:{line} {scope or '<module>'}: {call}")
    assert found == [], "writes outside numaplace.outfile (route them through write_output/write_with):\n" + "\n".join(found)
    assert sorted(set(ALLOWED_WRITES) - used) == [], "allow-list entries that match nothing (remove them)"


def test_the_write_scan_sees_writes() -> None:
    source = '''
import os
from pathlib import Path

def a(p, df, fig):
    Path(p).write_text("x")
    with open(p, "w") as f:
        pass
    with open(p) as f:
        pass
    df.to_csv(p)
    text = df.to_csv(index=False)
    fig.savefig(p)
    os.replace(p, p)

def handed(p, df):
    def write(tmp):
        df.to_csv(tmp)

    write_with(p, "--csv", write)
    write_with(p, "--json", lambda tmp: df.to_json(tmp))
    df.to_parquet(p)

class C:
    def b(self, p):
        fd = os.open(p, os.O_WRONLY | os.O_CREAT)
        os.write(fd, b"x")
        "a-b".replace("-", "")
'''
    assert [(s, c) for s, c, _ in writes(source)] == [
        ("a", "write_text"), ("a", "open"), ("a", "to_csv"), ("a", "savefig"), ("a", "replace"),
        ("handed", "to_parquet"), ("C.b", "open"), ("C.b", "write"),
    ]


# --- the layers ---------------------------------------------------------------------------------

#: The package's layers, lowest first; a module imports only modules of its own layer or below
#: (a name ending in "." covers a package and everything in it). Every module is in one.
LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("shared pieces", ("numaplace.messages", "numaplace.grid", "numaplace.outfile", "numaplace.infile", "numaplace.topo", "numaplace.checkout")),
    ("the Python API", ("numaplace.api",)),
    ("sweeps", ("numaplace.sweep", "numaplace.sweep.")),
    ("tools over runs", ("numaplace.plot", "numaplace.diagnose", "numaplace.record", "numaplace.reftrace",
                         "numaplace.runtime", "numaplace.runtime.")),
    ("advice and experiments", ("numaplace.advice", "numaplace.advice.", "numaplace.experiments", "numaplace.experiments.")),
    ("the report", ("numaplace.report", "numaplace.report.")),
    ("the package's face", ("numaplace",)),
    ("the command line", ("numaplace.cli", "numaplace.cli.", "numaplace.__main__")),
)


def layer_of(name: str) -> int | None:
    for i, (_, names) in enumerate(LAYERS):
        if any(name == n or (n.endswith(".") and name.startswith(n)) for n in names):
            return i
    return None


def test_every_module_imports_only_its_layer_and_below() -> None:
    """The command line is on top and nothing imports it back; the report above the
    experiments, the advice and experiments above the sweep, the sweep above the API."""
    known, graph = import_graph()
    unplaced = sorted(m for m in known if layer_of(m) is None)
    assert unplaced == [], f"modules in no layer (add them to LAYERS): {unplaced}"
    upward = [
        f"{known[m].rel}:{line} imports {t} ({LAYERS[layer_of(t)][0]}, above {LAYERS[layer_of(m)][0]})"  # type: ignore[index]
        for m, edges in sorted(graph.items())
        for t, line in sorted(edges.items())
        if layer_of(t) > layer_of(m)  # type: ignore[operator]
    ]
    assert upward == [], "imports of a higher layer:\n" + "\n".join(upward)
