"""The package stays small enough to read (issue 42): no module over 800 lines, no
function over 60, and no class split across layers (a class does not subclass a class of
another layer: ``Session`` holds its ``SessionFile``; only the errors of the base layer
are meant to be subclassed everywhere).

Each check is also run on a made-up module, so it can fail.
"""

from __future__ import annotations

import ast
from pathlib import Path

from test_layers import PACKAGE, layer_of, module_names

MODULE_LINES = 800
FUNCTION_LINES = 60

#: Classes any layer may subclass: the errors every layer raises.
SHARED_BASES = {"pisession.errors"}


def long_modules(package: Path = PACKAGE) -> list[str]:
    """``file: lines`` for every module over ``MODULE_LINES`` lines."""
    return [
        f"{path.relative_to(package.parent)}: {lines}"
        for path in sorted(package.rglob("*.py"))
        if (lines := path.read_text(encoding="utf-8").count("\n")) > MODULE_LINES
    ]


def long_functions(source: str, name: str) -> list[str]:
    """``name:line function (lines)`` for every function over ``FUNCTION_LINES`` lines."""
    return [
        f"{name}:{node.lineno} {node.name} ({node.end_lineno - node.lineno + 1} lines)"
        for node in ast.walk(ast.parse(source))
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
        and node.end_lineno is not None
        and node.end_lineno - node.lineno + 1 > FUNCTION_LINES
    ]


def imported_classes(module: str, tree: ast.Module) -> dict[str, str]:
    """Name -> the pisession module it is imported from (relative imports resolved)."""
    package = module.rpartition(".")[0]
    names = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level:
            base = package.split(".")[: len(package.split(".")) - node.level + 1]
            source = ".".join([*base, *([node.module] if node.module else [])])
            for alias in node.names:
                names[alias.asname or alias.name] = source
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("pisession"):
            for alias in node.names:
                names[alias.asname or alias.name] = node.module or ""
    return names


def cross_layer_subclasses(module: str, source: str) -> list[str]:
    """``module: Class(Base from other.module)`` where a class subclasses a pisession
    class of another layer (the base layer's errors excepted)."""
    tree = ast.parse(source)
    imported = imported_classes(module, tree)
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.ClassDef):
            continue
        for base in node.bases:
            origin = imported.get(base.id) if isinstance(base, ast.Name) else None
            if origin is None or origin in SHARED_BASES or not origin.startswith("pisession"):
                continue
            known = module_names()
            while origin and origin not in known:
                origin = origin.rpartition(".")[0]
            if origin and layer_of(origin) != layer_of(module):
                found.append(f"{module}: {node.name}({base.id} from {origin})")
    return found


def test_no_module_is_over_800_lines():
    assert long_modules() == []


def test_no_function_is_over_60_lines():
    found = [
        hit
        for path in sorted(PACKAGE.rglob("*.py"))
        for hit in long_functions(path.read_text(encoding="utf-8"), str(path.name))
    ]
    assert found == []


def test_no_class_is_split_across_layers():
    found = [
        hit
        for module, path in module_names().items()
        for hit in cross_layer_subclasses(module, path.read_text(encoding="utf-8"))
    ]
    assert found == []


def test_the_checks_can_fail(tmp_path):
    """A long function, a long module and a facade class subclassing an engine class are
    each reported."""
    body = "\n".join(f"    x{i} = {i}" for i in range(FUNCTION_LINES))
    assert long_functions(f"def f():\n{body}\n", "m.py") == [
        f"m.py:1 f ({FUNCTION_LINES + 1} lines)"
    ]
    package = tmp_path / "pisession"
    package.mkdir()
    (package / "big.py").write_text("x = 1\n" * (MODULE_LINES + 1), encoding="utf-8")
    assert long_modules(package) == [f"pisession/big.py: {MODULE_LINES + 1}"]
    facade = "from .engine.opening import SessionFile\n\nclass Session(SessionFile):\n    pass\n"
    assert cross_layer_subclasses("pisession.session", facade) == [
        "pisession.session: Session(SessionFile from pisession.engine.opening)"
    ]
    error = "from .errors import SessionFormatError\n\nclass E(SessionFormatError):\n    pass\n"
    assert cross_layer_subclasses("pisession.rule", error) == []
