"""What the Pyodide check compares: one snippet, run under CPython and in Pyodide.

    python .ci/pyodide/probe.py OUT.json      # CPython; Pyodide: .ci/pyodide/run.mjs

``probe()`` returns a JSON-ready dict, the same on both when pisession behaves the same:
for every bundled sample its context, projection, fates, system prompt and stats; the
output and exit status of ``cli.main`` for every command the parser knows (each sample
for the commands that read one file, a sessions folder for the others); ``python -m
pisession`` (``runpy``, as the command line runs it) and ``__main__.run()``, each
followed by more Python (in Pyodide they must not end the runtime); and the doctests
of every module found by ``pkgutil.walk_packages`` whose source does not import
matplotlib, ipywidgets or IPython. Paths that differ between the two (the package's
folder, the scratch folder) are replaced by ``<site>`` and ``<work>``.
"""

from __future__ import annotations

import ast
import contextlib
import doctest
import importlib
import io
import json
import os
import pkgutil
import runpy
import shutil
import sys
import tempfile
import time

#: a module whose source imports one of these is left out of the doctests (not in Pyodide)
NEEDS_DISPLAY = ("matplotlib", "ipywidgets", "IPython")
#: a fixed modification time for the copied sessions (``ls`` shows it)
MTIME = 1_767_225_600  # 2026-01-01T00:00:00Z


def plain(value):
    """A JSON-ready copy: dataclasses by field, unknown objects by ``repr``."""
    import dataclasses

    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    return repr(value)


def as_records(value):
    """A view's own JSON form when it has one (``to_dict``, ``to_records``), else ``plain``."""
    for name in ("to_dict", "to_records"):
        method = getattr(value, name, None)
        if callable(method):
            return plain(method())
    return plain(value)


class Captured:
    """``sys.stdout`` and ``sys.stderr`` as text streams with a byte buffer (the CLI
    writes JSON as bytes), restored on exit."""

    def __enter__(self):
        self.saved = sys.stdout, sys.stderr
        self.out = io.TextIOWrapper(io.BytesIO(), encoding="utf-8", errors="backslashreplace")
        self.err = io.TextIOWrapper(io.BytesIO(), encoding="utf-8", errors="backslashreplace")
        sys.stdout, sys.stderr = self.out, self.err
        return self

    def __exit__(self, *exc):
        sys.stdout, sys.stderr = self.saved
        return False

    def text(self) -> tuple[str, str]:
        self.out.flush()
        self.err.flush()
        return (
            self.out.buffer.getvalue().decode("utf-8", "backslashreplace"),
            self.err.buffer.getvalue().decode("utf-8", "backslashreplace"),
        )


def call(function, *args):
    """``function(*args)`` with its output captured: status, stdout, stderr."""
    with Captured() as seen:
        try:
            status = function(*args)
        except SystemExit as exc:  # argparse's --help, --version and usage errors
            status = f"SystemExit({exc.code!r})"
    out, err = seen.text()
    return {"status": status, "stdout": out, "stderr": err}


def session_views(samples) -> dict:
    import pisession

    views = {}
    for name in samples:
        # a v1 file has no ids: Pi's migration draws random ones, sequential ones here
        session = pisession.load(pisession.sample_path(name), new_id=pisession.sequential_ids())
        views[name] = {
            "entries": len(session),
            "leaves": [session.entry(p).get("id") for p in session.leaves()],
            "context": as_records(session.context()),
            "projection": as_records(session.projection()),
            "fates": as_records(session.fates()),
            "system_prompt": as_records(session.system_prompt()),
            "stats": as_records(session.stats()),
        }
    return views


def command_names() -> list[str]:
    """Every command of ``pisession``'s parser (a new command is checked at once)."""
    import argparse

    from pisession import cli

    parser = cli.build_parser()
    actions = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return sorted(actions[0].choices)


def command_calls(samples, work: str) -> dict[str, list[list[str]]]:
    """The argument lists run for each command."""
    import pisession

    folder = os.path.join(work, "sessions")
    per_file = {}
    for name in samples:
        path = os.path.join(folder, "--w--", f"{name}.jsonl")
        session = pisession.load(path)
        leaves = [session.entry(p).get("id") for p in session.leaves()]
        per_file[name] = (path, leaves)
    calls: dict[str, list[list[str]]] = {
        "explain": [["explain", p] for p, _ in per_file.values()],
        "context": [["context", p] for p, _ in per_file.values()]
        + [["context", p, "--json"] for p, _ in per_file.values()],
        "tree": [["tree", p] for p, _ in per_file.values()]
        + [["tree", p, "--json"] for p, _ in per_file.values()],
        "export": [
            ["export", p, "--format", fmt, "-o", os.path.join(work, "out", f"{n}.{fmt}")]
            for n, (p, _) in per_file.items()
            for fmt in ("html", "md")
        ],
        "diff": [["diff", p, ls[0], ls[-1]] for p, ls in per_file.values() if len(ls) > 1],
        "migrate": [
            ["migrate", p, "--deterministic-ids", "-o", os.path.join(work, "out", f"{n}.v3")]
            for n, (p, _) in per_file.items()
        ],
        "check": [["check", p] for p, _ in per_file.values()],
        "stats": [["stats", p] for p, _ in per_file.values()],
        "ls": [["ls", folder], ["ls", folder, "--json"]],
        "usage": [["usage", folder], ["usage", folder, "--json"]],
        "search": [["search", "test", folder], ["search", "test", folder, "--json"]],
    }
    return calls


def commands(samples, work: str) -> dict:
    from pisession import cli

    calls = command_calls(samples, work)
    missing = [name for name in command_names() if not calls.get(name)]
    results: dict = {"missing": missing, "runs": {}}
    for argv in [[], ["--version"], ["expain", "tour"]] + [
        argv for name in command_names() for argv in calls.get(name, [])
    ]:
        results["runs"][" ".join(argv) or "(none)"] = call(cli.main, argv)
    written = {}
    out = os.path.join(work, "out")
    for name in sorted(os.listdir(out)) if os.path.isdir(out) else []:
        with open(os.path.join(out, name), encoding="utf-8", errors="backslashreplace") as f:
            written[name] = f.read()
    results["written"] = written
    return results


def entry_points() -> dict:
    """``python -m pisession`` and ``__main__.run()``; the lines after each must run.
    (``python -m``'s status is what ``run`` makes of it: ``os._exit``'s argument under
    CPython, nothing in Pyodide, where the module ignores what ``run`` returns.)"""

    class Exited(Exception):
        pass

    def exit_status(status):
        raise Exited(status)

    def caught(function):
        try:
            return function()
        except Exited as exc:  # CPython: run() ends with os._exit(status)
            return exc.args[0]

    seen = {}
    saved = sys.argv, os._exit
    if sys.platform != "emscripten":  # in Pyodide os._exit would end the runtime: a failure
        os._exit = exit_status
    try:
        sys.argv = ["pisession", "stats", "tour"]
        sys.modules.pop("pisession.__main__", None)  # as a fresh ``python -m`` finds it
        ran = call(caught, lambda: runpy.run_module("pisession", run_name="__main__") and None)
        seen["python -m pisession"] = {k: v for k, v in ran.items() if k != "status"}
        seen["after python -m pisession"] = "still running"
        from pisession import __main__ as entry

        sys.argv = ["pisession", "check", "tour"]
        seen["run()"] = call(caught, entry.run)
        seen["after run()"] = "still running"
    finally:
        sys.argv, os._exit = saved
    return seen


def top_imports(name: str, path: str) -> set[str]:
    """The modules a module imports when it is imported (its top-level statements, not
    the bodies of its functions), relative imports resolved."""
    with open(path, encoding="utf-8") as f:
        tree = ast.parse(f.read(), path)
    package = name if path.endswith("__init__.py") else name.rpartition(".")[0]
    found = set()
    nodes = list(tree.body)
    while nodes:
        node = nodes.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            nodes.extend(n for n in node.body if isinstance(n, ast.ClassDef))
            continue
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parts, base] if base else parts)
            found.add(base)
            found.update(f"{base}.{a.name}" for a in node.names)
        nodes.extend(ast.iter_child_nodes(node))
    return found


def display_modules(names: list[str]) -> list[str]:
    """The modules that cannot be imported without matplotlib, ipywidgets or IPython:
    they import one at their top level, or import such a module of pisession."""
    imports = {}
    for name in names:
        spec = importlib.util.find_spec(name)
        imports[name] = top_imports(name, spec.origin)
    needs = {
        n for n, found in imports.items() if any(m.split(".")[0] in NEEDS_DISPLAY for m in found)
    }
    grew = True
    while grew:
        grew = False
        for name, found in imports.items():
            if name not in needs and found & needs:
                needs.add(name)
                grew = True
    return sorted(needs)


class _Runner(doctest.DocTestRunner):
    """A doctest runner that keeps the first failure of each docstring, in one line."""

    first: str | None = None

    def report_failure(self, out, test, example, got):
        self.first = self.first or f"line {example.lineno}: expected {example.want!r}, got {got!r}"
        super().report_failure(out, test, example, got)

    def report_unexpected_exception(self, out, test, example, exc_info):
        kind, value = exc_info[0].__name__, str(exc_info[1]).splitlines()[0:1]
        self.first = self.first or f"{kind}: {''.join(value)}"
        super().report_unexpected_exception(out, test, example, exc_info)


def doctests() -> dict:
    """Each docstring's doctest result (modules that need a display library at import
    time are left out): examples run, examples failed, the first failure."""
    import pisession

    names = ["pisession"] + [
        m.name for m in pkgutil.walk_packages(pisession.__path__, "pisession.")
    ]
    names = [
        n
        for n in sorted(names)
        if (importlib.util.find_spec(n).origin or "").endswith(".py")
        and not n.endswith(".__main__")  # importing it would run the command line
    ]
    left_out = display_modules(names)
    results = {"left out (display)": left_out, "tests": {}}
    for name in names:
        if name in left_out:
            continue
        module = importlib.import_module(name)
        for test in doctest.DocTestFinder().find(module, name):
            if not test.examples:
                continue
            runner = _Runner(optionflags=doctest.ELLIPSIS)
            with Captured():
                runner.run(test, out=lambda text: None)
            results["tests"][test.name] = {
                "examples": len(test.examples),
                "failed": runner.failures,
                "first failure": runner.first,
            }
    return results


def normalise(value, replacements):
    if isinstance(value, str):
        for old, new in replacements:
            value = value.replace(old, new)
        return value
    if isinstance(value, dict):
        return {normalise(k, replacements): normalise(v, replacements) for k, v in value.items()}
    if isinstance(value, list):
        return [normalise(v, replacements) for v in value]
    return value


def probe() -> dict:
    """Everything compared, as plain JSON values."""
    os.environ.update({"TZ": "UTC", "COLUMNS": "80", "NO_COLOR": "1", "LC_ALL": "C.UTF-8"})
    with contextlib.suppress(AttributeError):
        time.tzset()
    import pisession

    site = os.path.dirname(os.path.dirname(os.path.abspath(pisession.__file__)))
    work = tempfile.mkdtemp(prefix="pisession-probe-")
    home = os.path.join(work, "home")
    os.makedirs(home)
    os.environ["HOME"] = home  # Pi's sessions folder: empty, the same on both
    folder = os.path.join(work, "sessions", "--w--")
    os.makedirs(folder)
    samples = sorted(pisession.sample_names())
    for name in samples:
        target = os.path.join(folder, f"{name}.jsonl")
        shutil.copyfile(pisession.sample_path(name), target)
        os.utime(target, (MTIME, MTIME))
    os.makedirs(os.path.join(work, "out"))
    saved_cwd = os.getcwd()
    os.chdir(site)  # doctests show sample paths relative to the package's folder
    try:
        result = {
            "python": "cpython" if sys.platform != "emscripten" else "pyodide",
            "samples": samples,
            "commands": command_names(),
            "views": session_views(samples),
            "cli": commands(samples, work),
            "entry points": entry_points(),
            "doctests": doctests(),
        }
    finally:
        os.chdir(saved_cwd)
        shutil.rmtree(work, ignore_errors=True)
    result = normalise(result, [(work, "<work>"), (site, "<site>")])
    result.pop("python")
    return result


if __name__ == "__main__":
    data = json.dumps(probe(), sort_keys=True, indent=1)
    with open(sys.argv[1], "w", encoding="utf-8") as f:
        f.write(data)
