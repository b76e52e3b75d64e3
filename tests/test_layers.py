"""The layer contract (docs/architecture.md), read from the code with ``ast``.

Every import in ``studio/`` counts, those inside functions too (223 of 479 were there
when this test was written, where an import-time check sees nothing). Three rules:

1. No Qt (PySide6, shiboken6) in the Qt-free layers: the ground floor, sound, engine,
   library, remote, judges, service, scripts and serve.
2. Imports point downward: a module imports its own layer or those below it.
3. No import cycles among modules.

What today's code still breaks is listed in ALLOWED, each entry with its reason. An
entry that no longer occurs fails the test too, so the list can only shrink.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1] / "studio"
QT = ("PySide6", "shiboken6")

# Lowest first. A module belongs to the longest prefix listed ("studio" itself only as
# the package, for __version__).
LAYERS: tuple[tuple[str, tuple[str, ...], bool], ...] = (
    # name, module prefixes, Qt-free
    ("ground", ("studio", "studio.errors", "studio.paths", "studio.atomic",
                "studio.logfile", "studio.crash", "studio.switches", "studio.safe_read",
                "studio.staged", "studio.outputs", "studio.keychain", "studio.wording"), True),
    ("sound", ("studio.sound",), True),
    ("engine", ("studio.engine",), True),
    ("models", ("studio.library", "studio.remote"), True),
    ("judges", ("studio.judges",), True),
    ("service", ("studio.service",), True),
    ("scripts", ("studio.scripts",), True),
    ("serve", ("studio.serve", "studio.mcp"), True),  # the HTTP and MCP front ends
    ("qt-core", ("studio.worker", "studio.settings", "studio.garbage", "studio.model_state"),
     False),
    ("devices", ("studio.audio",), False),
    ("diagnostics", ("studio.selftest",), False),
    ("views", ("studio.views",), False),
    ("front", ("studio.cli", "studio.app", "studio.__main__"), False),
)

# (rule, importer, imported) for rules "qt" and "upward"; ("cycle", the modules, "") for
# cycles. Each with why it is still here.
ALLOWED: dict[tuple[str, str, str], str] = {}


def module_name(path: Path, root: Path = ROOT) -> str:
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def read_imports(root: Path = ROOT) -> dict[str, set[str]]:
    """module -> every module it imports (ours resolved to the module, others by name)."""
    files = {module_name(p, root): p for p in root.rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for name, path in files.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        imported: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if isinstance(node, ast.Import):
                imported.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:  # relative: from the package, one level up per extra dot
                    anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join(anchor + ([base] if base else []))
                # "from studio.engine import audio" imports the module studio.engine.audio
                subs = {f"{base}.{a.name}" for a in node.names} & files.keys()
                imported.update(subs or {base})
        graph[name] = imported
    return graph


def layer_of(module: str) -> int | None:
    best, rank = -1, None
    for index, (_, prefixes, _) in enumerate(LAYERS):
        for prefix in prefixes:
            hit = module == prefix if prefix == "studio" else (
                module == prefix or module.startswith(prefix + "."))
            if hit and len(prefix) > best:
                best, rank = len(prefix), index
    return rank


def cycles(graph: dict[str, set[str]]) -> list[tuple[str, ...]]:
    """Strongly connected groups of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[tuple[str, ...]] = []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start] & graph.keys())))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, edges = work[-1]
            for nxt in edges:
                if nxt not in index:
                    index[nxt] = low[nxt] = len(index)
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(sorted(graph[nxt] & graph.keys()))))
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    group = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        group.append(member)
                        if member == node:
                            break
                    if len(group) > 1:
                        found.append(tuple(sorted(group)))
    return found


def violations(graph: dict[str, set[str]]) -> set[tuple[str, str, str]]:
    found: set[tuple[str, str, str]] = set()
    for module, imported in graph.items():
        rank = layer_of(module)
        assert rank is not None, f"{module} is in no layer: add it to LAYERS (and the docs)"
        for target in imported:
            if target.split(".")[0] in QT and LAYERS[rank][2]:
                found.add(("qt", module, target.split(".")[0]))
            if target in graph:
                target_rank = layer_of(target)
                if target_rank is not None and target_rank > rank:
                    found.add(("upward", module, target))
    found.update(("cycle", " ".join(group), "") for group in cycles(graph))
    return found


def _say(entries: Iterable[tuple[str, str, str]]) -> str:
    return "\n".join(f"  {rule}: {a} -> {b}" if b else f"  {rule}: {a}"
                     for rule, a, b in sorted(entries))


def test_the_layers_hold():
    found = violations(read_imports())
    new = found - ALLOWED.keys()
    assert not new, f"imports that break the layers (docs/architecture.md):\n{_say(new)}"


def test_the_allow_list_only_shrinks():
    gone = ALLOWED.keys() - violations(read_imports())
    assert not gone, f"fixed, so take them off ALLOWED in tests/test_layers.py:\n{_say(gone)}"


def test_the_reader_sees_imports_inside_functions_and_relative_ones(tmp_path):
    package = tmp_path / "studio"
    (package / "engine").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "engine" / "__init__.py").write_text("")
    (package / "engine" / "a.py").write_text(
        "def f():\n    from PySide6.QtCore import QObject\n    from . import b\n"
        "    from studio.views import w\n")
    (package / "engine" / "b.py").write_text("import studio.engine.a\n")
    (package / "views").mkdir()
    (package / "views" / "__init__.py").write_text("")
    (package / "views" / "w.py").write_text("")
    graph = read_imports(package)
    assert graph["studio.engine.a"] == {"PySide6.QtCore", "studio.engine.b", "studio.views.w"}
    assert violations(graph) == {
        ("qt", "studio.engine.a", "PySide6"),
        ("upward", "studio.engine.a", "studio.views.w"),
        ("cycle", "studio.engine.a studio.engine.b", ""),
    }
