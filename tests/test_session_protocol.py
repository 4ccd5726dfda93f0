"""``Session`` holds its ``SessionFile`` and has every member of ``SessionLike``, the typed
face the views, folder commands and workshop name (issue 42: the core small again)."""

from __future__ import annotations

import ast
import inspect
import subprocess
import sys
from pathlib import Path

import pytest

import pisession
from pisession.engine.opening import SessionFile
from pisession.views.protocol import SessionLike

ROOT = Path(__file__).resolve().parent.parent


def protocol_members() -> list[str]:
    """The members ``SessionLike`` declares (its own, not ``Protocol``'s)."""
    return sorted(
        name for name in vars(SessionLike) if name == "__len__" or not name.startswith("_")
    )


def test_a_loaded_session_is_session_like_at_run_time():
    assert isinstance(pisession.load("tour"), SessionLike)
    assert not isinstance(object(), SessionLike)


def test_the_protocol_names_public_members_only():
    assert len(protocol_members()) >= 40
    assert [m for m in protocol_members() if m.startswith("_") and m != "__len__"] == []


@pytest.mark.parametrize("name", protocol_members())
def test_session_has_each_member_with_the_same_signature(name):
    declared = inspect.getattr_static(SessionLike, name)
    found = inspect.getattr_static(pisession.Session, name)
    if isinstance(declared, property):
        assert not callable(found) or isinstance(found, property), name
        return
    ours = inspect.signature(found)
    theirs = inspect.signature(declared)
    assert [(p.name, p.default) for p in ours.parameters.values()] == [
        (p.name, p.default) for p in theirs.parameters.values()
    ]


def test_session_holds_its_file_and_reads_no_private_member_of_it():
    assert not issubclass(pisession.Session, SessionFile)
    s = pisession.load("tour")
    assert isinstance(s.file, SessionFile) and s.index is s.file.index
    tree = ast.parse((ROOT / "pisession" / "session.py").read_text(encoding="utf-8"))
    private = [
        f"line {node.lineno}: .file.{node.attr}"
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute)
        and node.attr.startswith("_")
        and isinstance(node.value, ast.Attribute)
        and node.value.attr == "file"
    ]
    assert private == []


def test_mypy_holds_a_session_to_the_protocol(tmp_path):
    """The static check: mypy accepts a ``Session`` where a ``SessionLike`` is asked for,
    and refuses an object that is not one (so the check can fail)."""
    pytest.importorskip("mypy")
    snippet = (
        "import pisession\n"
        "from pisession.views.protocol import SessionLike\n"
        "a: SessionLike = pisession.load('tour')\n"
        "b: SessionLike = pisession.load('tour').file\n"
    )
    done = subprocess.run(
        [sys.executable, "-m", "mypy", "--cache-dir", str(tmp_path), "-c", snippet],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    errors = [line for line in done.stdout.splitlines() if ": error:" in line]
    assert [e.split(":")[1] for e in errors] == ["4"], done.stdout
