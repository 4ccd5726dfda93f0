"""The package's layers: no module imports from a layer above its own, and no import
cycle, counting every import (at any depth: inside functions too; relative or absolute).

The layers, lowest first (docs/maintainers.md, "Where things live"):

1. base: errors and versions;
2. js: JavaScript semantics (``pisession.js``);
3. rule: the rule and Pi's answers over plain entries (``rule``, ``migration``, ``llm``,
   ``system_prompt``, ``tree``, ``files``, ``locate``, ``samples``);
4. engine: the fast engine (``pisession.engine``);
5. views: text, terminal, HTML, pictures, widgets (``pisession.views``);
6. facade: ``pisession.session``;
7. folders: commands over a folder of sessions (``pisession.folders``);
8. top: the public package (``pisession/__init__.py``) and the command line;
9. teaching: what only the notebooks need (``build``, ``workshop``).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "pisession"

LAYERS = {
    "base": ("pisession.errors", "pisession.piversions"),
    "js": ("pisession.js",),
    "rule": (
        "pisession.rule",
        "pisession.projection",
        "pisession.migration",
        "pisession.llm",
        "pisession.message_text",
        "pisession.request",
        "pisession.tool_call_ids",
        "pisession.system_prompt",
        "pisession.tree",
        "pisession.files",
        "pisession.locate",
        "pisession.headers",
        "pisession.samples",
    ),
    "engine": ("pisession.engine",),
    "views": ("pisession.views",),
    "facade": ("pisession.session",),
    "folders": ("pisession.folders",),
    "top": ("pisession", "pisession.cli", "pisession.__main__"),
    "teaching": ("pisession.build", "pisession.workshop"),
}
RANK = {name: rank for rank, name in enumerate(LAYERS)}


def module_names(package: Path = PACKAGE) -> dict[str, Path]:
    """Dotted module name -> file, for every module of the package."""
    names = {}
    for path in sorted(package.rglob("*.py")):
        parts = list(path.relative_to(package.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        names[".".join(parts)] = path
    return names


def layer_of(module: str) -> str:
    """The layer of a module: the longest prefix in ``LAYERS`` that names it or its
    package (``pisession`` alone names only the package's ``__init__``)."""
    best, length = None, -1
    for layer, prefixes in LAYERS.items():
        for prefix in prefixes:
            inside = module == prefix or (prefix != "pisession" and module.startswith(prefix + "."))
            if inside and len(prefix) > length:
                best, length = layer, len(prefix)
    if best is None:
        raise LookupError(f"{module} is in no layer: add it to LAYERS")
    return best


def imports_of(module: str, path: Path, known: dict[str, Path]) -> list[tuple[int, str]]:
    """(line, module) of every pisession module that ``module`` imports, at any depth."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        targets = []
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                base_name = ".".join([*base, *([node.module] if node.module else [])])
            else:
                base_name = node.module or ""
            # ``from . import x`` imports module ``x``; ``from .m import name``, module m
            targets = [
                f"{base_name}.{a.name}" if f"{base_name}.{a.name}" in known else base_name
                for a in node.names
            ]
        for target in targets:
            while target and target not in known:
                target = target.rpartition(".")[0]
            if target and target != module:
                found.append((node.lineno, target))
    return found


def import_graph(package: Path = PACKAGE) -> dict[str, list[tuple[int, str]]]:
    known = module_names(package)
    return {module: imports_of(module, path, known) for module, path in known.items()}


def upward_imports(graph) -> list[str]:
    """Every import from a lower layer into a higher one, as ``file:line`` sentences."""
    known = module_names()
    return [
        f"{known[module].relative_to(PACKAGE.parent)}:{line}: {module} ({layer_of(module)}) "
        f"imports {target} ({layer_of(target)})"
        for module, targets in graph.items()
        for line, target in targets
        if RANK[layer_of(target)] > RANK[layer_of(module)]
    ]


def cycles(graph) -> list[list[str]]:
    """The import cycles: strongly connected groups of more than one module (Tarjan)."""
    edges = {m: sorted({t for _, t in targets}) for m, targets in graph.items()}
    index, low, stack, on_stack, groups = {}, {}, [], set(), []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in edges.get(node, ()):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            group = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                group.append(top)
                if top == node:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return groups


def test_every_module_is_in_a_layer():
    for module in module_names():
        layer_of(module)


def test_no_import_points_to_a_higher_layer():
    found = upward_imports(import_graph())
    assert not found, "imports from a higher layer:\n" + "\n".join(found)


def test_no_import_cycle():
    found = cycles(import_graph())
    assert not found, f"import cycles: {found}"


def test_the_checks_catch_an_upward_import_and_a_cycle(tmp_path):
    """A planted copy of the package: the engine importing a view (inside a function)
    and two views importing each other are both found."""
    copy = tmp_path / "pisession"
    for path in PACKAGE.rglob("*.py"):
        target = copy / path.relative_to(PACKAGE)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(path.read_text(encoding="utf-8"), encoding="utf-8")
    reader = copy / "engine" / "reader.py"
    reader.write_text(
        reader.read_text(encoding="utf-8") + "\n\ndef _planted():\n    from ..views import draw\n"
    )
    text = copy / "views" / "text.py"
    text.write_text(text.read_text(encoding="utf-8") + "\nfrom pisession.views import diff\n")
    graph = import_graph(copy)
    assert ("pisession.engine.reader", "pisession.views.draw") in {
        (m, t) for m, targets in graph.items() for _, t in targets
    }
    assert any("imports pisession.views.draw (views)" in s for s in upward_imports(graph))
    assert any({"pisession.views.text", "pisession.views.diff"} <= set(c) for c in cycles(graph))


@pytest.mark.parametrize(
    ("module", "layer"),
    [
        ("pisession", "top"),
        ("pisession.rule", "rule"),
        ("pisession.js.json", "js"),
        ("pisession.engine.context", "engine"),
        ("pisession.samples.__main__", "rule"),
        ("pisession.workshop.own_session", "teaching"),
    ],
)
def test_layer_of(module, layer):
    assert layer_of(module) == layer
