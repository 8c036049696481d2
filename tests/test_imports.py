"""Modules import downwards only: no import circle, also not through imports inside functions.

The graph is built from the source: every ``import`` and ``from ... import``
statement in a ``tutor`` module, at module level or inside a function, is an
edge to the module it loads (``from .pkg import name`` points at ``pkg.name``
when that is a module, else at ``pkg``).
"""
from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "tutor"


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


MODULES = {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def _resolve(current: str, is_package: bool, level: int, module: str | None) -> str:
    if level == 0:
        return module or ""
    base = current.split(".") if is_package else current.split(".")[:-1]
    base = base[: len(base) - (level - 1)]
    return ".".join(base + ([module] if module else []))


def imports_of(name: str) -> set[str]:
    """The tutor modules that module ``name`` imports, anywhere in its source."""
    path = MODULES[name]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            origin = _resolve(name, path.name == "__init__.py", node.level, node.module)
            targets = [f"{origin}.{a.name}" if f"{origin}.{a.name}" in MODULES else origin for a in node.names]
        else:
            continue
        for target in targets:
            while target and target not in MODULES:  # "import tutor.x.y" names the module itself
                target = target.rpartition(".")[0]
            if target and target != name:
                found.add(target)
    return found


GRAPH = {name: imports_of(name) for name in MODULES}


def _is_ancestor_package(a: str, b: str) -> bool:
    return b.startswith(a + ".")


def circles() -> list[list[str]]:
    """Every elementary circle found by a depth-first walk (one representative per strongly connected part).

    A package's ``__init__`` importing its own submodules is the normal way down; a submodule importing its
    own package (or an ancestor) counts, because that is a way back up.
    """
    index, low, stack, on_stack, parts = {}, {}, [], set(), []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in GRAPH[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            part = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                part.append(w)
                if w == v:
                    break
            if len(part) > 1:
                parts.append(sorted(part))

    for v in GRAPH:
        if v not in index:
            visit(v)
    return parts


def test_the_graph_sees_imports_inside_functions():
    # A known function-level import: reading a dataset loads TensorFlow's cancellation inside a function.
    assert "tutor._validate" in GRAPH["tutor.reading"]
    assert any(GRAPH[name] for name in GRAPH if name.startswith("tutor.checks.lesson"))


def test_no_import_circle():
    found = circles()
    described = [" <-> ".join(part) for part in found]
    assert not found, "import circles (move the shared piece down into its own module):\n" + "\n".join(described)


def test_a_lesson_checker_never_imports_another_lesson():
    lessons = [name for name in GRAPH if name.startswith("tutor.checks.lesson")]
    crossing = {name: sorted(t for t in GRAPH[name] if t.startswith("tutor.checks.lesson")) for name in lessons}
    crossing = {k: v for k, v in crossing.items() if v}
    assert not crossing, f"lesson checkers import other lessons (use tutor.checks' framework instead): {crossing}"
