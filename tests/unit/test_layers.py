"""The shape of the sidecar, checked from its source (ast, nothing imported): imports run
downward through the layers of ARCHITECTURE.md and form no cycle; no function is over 80
lines; SQL is written in `store/` alone.

Imports are read wherever they are written, inside functions too (a deferred import is still
a dependency: it only hides a cycle from the interpreter). Imports under ``if TYPE_CHECKING:``
are left out: they never run, and annotations may name a type from any layer. A module loaded
by name through importlib (cli/main.py's table of commands) is not seen; those stay within
cli/ or name a lower layer.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2] / "sidecar"
PACKAGE = ROOT / "lazy"

# Top to bottom. A module belongs to the layer of its first name under `lazy` (the package
# `lazy.cli`, the module `lazy.model`); a name in no layer fails the test, so a new package
# must be placed here first. Within one layer packages may import each other, if acyclic.
LAYERS: tuple[tuple[str, frozenset[str]], ...] = (
    ("surfaces", frozenset({"cli", "server", "mcp"})),
    (
        "operations",
        frozenset(
            {
                "capture",
                "doctor",
                "ask",
                "tasks",
                "aliases",
                "memories",
                "usage",
                "export",
                "team",
            }
        ),
    ),
    ("derived", frozenset({"view", "index", "builders"})),
    ("store", frozenset({"store"})),
    ("agents", frozenset({"agents"})),
    (
        "shared",
        frozenset({"model", "records", "blocks", "config", "projects", "os", "__init__"}),
    ),
)
RANK = {name: rank for rank, (_, names) in enumerate(LAYERS) for name in names}
LAYER_OF = {name: layer for layer, names in LAYERS for name in names}

MAX_LINES = 80

# SQL is written in store/ alone; OpenCode's reader reads OpenCode's own database, and team/ the
# team's PostgreSQL database.
SQL_HOMES = ("lazy.store", "lazy.agents.opencode", "lazy.team")
SQL_START = re.compile(r"\s*(SELECT|INSERT|UPDATE|DELETE|CREATE|WITH|PRAGMA)\b")


@dataclass(frozen=True)
class Module:
    name: str  # lazy.doctor.checks
    path: Path
    tree: ast.Module

    @property
    def top(self) -> str:
        """Its first name under `lazy`: the package or shared module it belongs to."""
        parts = self.name.split(".")
        return parts[1] if len(parts) > 1 else "__init__"

    @property
    def package(self) -> str:
        return self.name if self.path.name == "__init__.py" else self.name.rpartition(".")[0]


def _modules() -> dict[str, Module]:
    out = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        name = ".".join(parts)
        out[name] = Module(name, path, ast.parse(path.read_text(encoding="utf-8"), str(path)))
    return out


MODULES = _modules()


def _type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imports(node: ast.AST) -> Iterator[ast.Import | ast.ImportFrom]:
    """Every import under ``node``, skipping the bodies of ``if TYPE_CHECKING:``."""
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.If) and _type_checking(child.test):
            for other in child.orelse:
                yield from _imports_in(other)
            continue
        yield from _imports_in(child)


def _imports_in(node: ast.AST) -> Iterator[ast.Import | ast.ImportFrom]:
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        yield node
    else:
        yield from _imports(node)


def _targets(module: Module, node: ast.Import | ast.ImportFrom) -> set[str]:
    """The modules of `lazy` one import statement loads (by name, not the parents it implies)."""
    if isinstance(node, ast.Import):
        names = [alias.name for alias in node.names]
    else:
        base = node.module or ""
        if node.level:
            anchor = module.package.split(".")
            anchor = anchor[: len(anchor) - (node.level - 1)]
            base = ".".join([*anchor, *([base] if base else [])])
        # `from lazy.doctor import capture` loads the module lazy.doctor.capture
        names = [f"{base}.{a.name}" if f"{base}.{a.name}" in MODULES else base for a in node.names]
    out = set()
    for name in names:
        while name and name not in MODULES:  # `import lazy.x.y` of a name inside a module
            name = name.rpartition(".")[0]
        if name.startswith("lazy"):
            out.add(name)
    return out


def _graph() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {}
    for name, module in MODULES.items():
        edges: set[str] = set()
        for node in _imports(module.tree):
            edges |= _targets(module, node)
        edges.discard(name)
        graph[name] = edges
    return graph


GRAPH = _graph()


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one node (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
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
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return sorted(found)


def _path_in(graph: dict[str, set[str]], component: list[str]) -> list[str]:
    """One cycle through the component's first node, to name the imports that close it."""
    members = set(component)
    start = component[0]
    seen = {start: [start]}
    queue = [start]
    while queue:
        v = queue.pop(0)
        for w in sorted(graph[v] & members):
            if w == start:
                return [*seen[v], start]
            if w not in seen:
                seen[w] = [*seen[v], w]
                queue.append(w)
    return component


def _top(name: str) -> str:
    return MODULES[name].top


def test_every_module_is_in_a_layer() -> None:
    unplaced = sorted({m.top for m in MODULES.values()} - set(RANK))
    assert not unplaced, f"place these in LAYERS (tests/unit/test_layers.py): {unplaced}"


def test_no_import_runs_upward() -> None:
    upward = [
        f"{src} ({LAYER_OF[_top(src)]}) imports {dst} ({LAYER_OF[_top(dst)]})"
        for src, dsts in sorted(GRAPH.items())
        for dst in sorted(dsts)
        if _top(src) in RANK and _top(dst) in RANK and RANK[_top(dst)] < RANK[_top(src)]
    ]
    assert not upward, "imports against the layer order:\n" + "\n".join(upward)


def test_no_import_cycle_between_modules() -> None:
    cycles = [" -> ".join(_path_in(GRAPH, c)) for c in _cycles(GRAPH)]
    assert not cycles, "import cycles:\n" + "\n".join(cycles)


def test_no_import_cycle_between_packages() -> None:
    packages: dict[str, set[str]] = {}
    for src, dsts in GRAPH.items():
        packages.setdefault(_top(src), set()).update(_top(d) for d in dsts if _top(d) != _top(src))
    found = []
    for component in _cycles(packages):
        found.append(f"{', '.join(component)}: e.g. {' -> '.join(_path_in(packages, component))}")
        found += [
            f"  {src} imports {dst}"
            for src, dsts in sorted(GRAPH.items())
            for dst in sorted(dsts)
            if _top(src) != _top(dst)
            and {_top(src), _top(dst)} <= set(component)
            and RANK.get(_top(dst)) == RANK.get(_top(src))
        ]
    assert not found, "import cycles between packages:\n" + "\n".join(found)


Function = ast.FunctionDef | ast.AsyncFunctionDef


def _functions(tree: ast.AST) -> Iterator[tuple[str, Function]]:
    """Every function and method, nested ones too, with its dotted name in the module."""

    def walk(
        node: ast.AST, prefix: str
    ) -> Iterator[tuple[str, ast.FunctionDef | ast.AsyncFunctionDef]]:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                yield f"{prefix}{child.name}", child
                yield from walk(child, f"{prefix}{child.name}.")
            elif isinstance(child, ast.ClassDef):
                yield from walk(child, f"{prefix}{child.name}.")
            else:
                yield from walk(child, prefix)

    yield from walk(tree, "")


def test_no_function_over_80_lines() -> None:
    long = [
        f"{m.path.relative_to(ROOT)}:{fn.lineno} {name} ({fn.end_lineno - fn.lineno + 1} lines)"
        for m in MODULES.values()
        for name, fn in _functions(m.tree)
        if fn.end_lineno is not None and fn.end_lineno - fn.lineno + 1 > MAX_LINES
    ]
    assert not long, f"functions over {MAX_LINES} lines:\n" + "\n".join(long)


def _sql(tree: ast.AST) -> Iterator[int]:
    """The lines of SQL statements written as string literals, and of `.execute(` calls."""
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and SQL_START.match(node.value)
        ) or (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in ("execute", "executemany", "executescript")
        ):
            yield node.lineno


def _in(name: str, homes: tuple[str, ...]) -> bool:
    return any(name == home or name.startswith(home + ".") for home in homes)


def test_sql_is_written_in_store_alone() -> None:
    outside = [
        f"{m.path.relative_to(ROOT)}: lines {', '.join(map(str, lines))}"
        for m in MODULES.values()
        if not _in(m.name, SQL_HOMES)
        for lines in [sorted(set(_sql(m.tree)))]
        if lines
    ]
    assert not outside, "SQL outside store/ (move it into a store/ module):\n" + "\n".join(outside)
