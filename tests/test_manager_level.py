"""pisession against Pi at the level users meet Pi: its ``SessionManager`` (issue 39).

``data/manager/open.golden.json``: for every ``data/**/*.jsonl``, the leaf Pi's
``SessionManager.open`` picks (``getLeafId``) and the context it builds there.
``data/manager/list.golden.json``: what ``SessionManager.listAll()``, ``listAll(dir)``
and ``list(cwd)`` list, for the repro folder ``data/manager/list/`` and for the whole
corpus arranged as a sessions root. Both recorded by ``conformance/record-manager.mjs``
with Pi 0.87.1 and re-checked with 1.6.0 by ``conformance/check.sh``.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from datetime import datetime
from pathlib import Path

import pytest

import pisession
from pisession.errors import PisessionError
from pisession.files import list_sessions, session_info, to_jsonable
from pisession.js.value import UNDEFINED

REPO = Path(__file__).resolve().parent.parent
OPEN = json.loads((REPO / "data" / "manager" / "open.golden.json").read_text())
LIST = json.loads((REPO / "data" / "manager" / "list.golden.json").read_text())

#: Files where pisession answers differently from SessionManager.open, on purpose.
EXPLAINED = {
    # Pi's open() of an empty file starts a new session in it (and writes its header);
    # pisession reads, and never writes: it says the file holds no session header.
    "data/conformance/edge/empty-file.jsonl": "no-header",
    # Pi migrates the v1 file and then throws rewriting it (JSON.stringify of a line
    # too deep); pisession migrates in memory only, and never rewrites.
    "data/conformance/legacy/v1-line-too-deep-to-rewrite.jsonl": "rewrite-throws",
}


def _ours(rel: str) -> dict:
    try:
        session = pisession.load(REPO / rel)
        leaf = session.default_leaf
        context = session.context()
        session.refuse_too_deep()  # where Pi's JSON.stringify of the context throws
    except PisessionError as exc:
        return {"error": str(exc)}
    leaf_id = None if leaf is None else session.index.ids[leaf]
    text = context.to_json(None).encode("utf-8", "surrogatepass")
    return {
        "leaf": "(undefined)" if leaf_id is UNDEFINED else leaf_id,
        "messages": len(context.messages),
        "sha256": hashlib.sha256(text).hexdigest(),
        "context": context.to_dict(),
    }


@pytest.mark.parametrize("rel", sorted(OPEN["files"]))
def test_the_default_leaf_and_its_context_are_session_managers(rel):
    want, got = OPEN["files"][rel], _ours(rel)
    if rel in EXPLAINED:
        assert ("error" in got) != ("error" in want), EXPLAINED[rel]
        return
    if "error" in want or "cycle" in want:
        assert "error" in got, (want, got)
        return
    assert "error" not in got, got["error"]
    if want["leaf"] != "(a new id)":  # a v1 file: Pi's migration draws random ids
        assert got["leaf"] == want["leaf"]
    assert (got["messages"], got["sha256"]) == (want["messages"], want["sha256"])
    if "context" in want:
        assert got["context"] == want["context"]


def test_a_null_id_on_the_last_entry_is_no_leaf_and_an_empty_context():
    """Pi 0.87.1 session-manager.js: ``_buildIndex`` sets ``leafId = entry.id`` for every
    entry, so the last one's ``null`` id is the leaf, and ``buildSessionPath`` returns no
    path for a ``null`` leaf. A missing id falls back to the last entry."""
    leaf_dir = REPO / "data" / "manager" / "leaf"
    null = pisession.load(leaf_dir / "last-id-null.jsonl")
    assert null.default_leaf is None and null.context().messages == []
    assert pisession.rule.project(pisession.rule.load_entries(null.source)).messages == []
    missing = pisession.load(leaf_dir / "last-id-missing.jsonl")
    assert missing.default_leaf == len(missing) - 1 and len(missing.context().messages) == 2
    assert OPEN["files"]["data/manager/leaf/last-id-null.jsonl"]["messages"] == 0
    assert OPEN["files"]["data/manager/leaf/last-id-missing.jsonl"]["messages"] == 2


def _cli(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "pisession", *args],
        capture_output=True,
        text=True,
        cwd=REPO,
        env={**os.environ, "PYTHONPATH": str(REPO), **(env or {})},
    )


def test_explain_says_why_there_is_no_leaf():
    out = _cli("explain", "data/manager/leaf/last-id-null.jsonl")
    assert out.returncode == 0, out.stderr
    assert (
        "leaf        none: the last entry (line 4) has id null; Pi's SessionManager takes "
        "the last entry's id as its leaf, and a null leaf has no path (an empty context)"
    ) in out.stdout
    context = _cli("context", "data/manager/leaf/last-id-null.jsonl")
    assert json.loads(context.stdout)["messages"] == []


# --- the session list ---------------------------------------------------------------


def _ms(iso: str | None) -> int | None:
    if iso is None:
        return None
    return round(datetime.fromisoformat(iso.replace("Z", "+00:00")).timestamp() * 1000)


def _snake(key: str) -> str:
    """``messageCount`` and ``message_count`` alike (the --json key style may change)."""
    return "".join("_" + c.lower() if c.isupper() else c for c in key)


def _rows(infos: list[dict], root: Path) -> list[dict]:
    rows = []
    for info in infos:
        info = {_snake(k): v for k, v in info.items()}
        rows.append(
            {
                "path": os.path.relpath(info["path"], root),
                "id": info["id"],
                "cwd": info["cwd"],
                "name": info["name"],
                "parent": info.get("parent_session", info.get("parent_session_path")),
                "created": _ms(info["created"]),
                "modified": _ms(info["modified"]),
                "count": info["message_count"],
                "first": info["first_message"],
            }
        )
    return rows


def _pi(rows: list[dict]) -> list[dict]:
    return _rows([{**r, "path": "/" + r["path"]} for r in rows], Path("/"))


def _copy(source: Path, target: Path, mtime: int, rel_of=None) -> None:
    for folder, _, names in os.walk(source, followlinks=True):
        for name in sorted(names):
            if rel_of is None:
                to = target / os.path.relpath(folder, source) / name
            else:
                to = target / rel_of(Path(folder) / name)
            to.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(Path(folder) / name, to)
            os.utime(to, (mtime, mtime))


@pytest.fixture(scope="module")
def repro(tmp_path_factory) -> Path:
    """data/manager/list copied as <agent>/sessions, every file at the recorded time."""
    agent = tmp_path_factory.mktemp("agent")
    _copy(REPO / "data" / "manager" / "list", agent / "sessions", LIST["reproMtime"])
    return agent


def test_ls_lists_what_list_all_lists(repro):
    root = repro / "sessions"
    want = _pi(LIST["repro"]["listAll"])
    assert _rows([to_jsonable(i) for i in list_sessions(root)], root) == want
    out = _cli("ls", "--json", str(root))
    assert out.returncode == 0, out.stderr
    assert _rows(json.loads(out.stdout), root) == want
    assert _cli("ls", "--json", env={"PI_CODING_AGENT_DIR": str(repro)}).returncode == 0
    every = _cli("ls", "--json", "--all", env={"PI_CODING_AGENT_DIR": str(repro)})
    assert _rows(json.loads(every.stdout), root) == want


@pytest.mark.parametrize("folder", sorted(LIST["repro"]["listAllDir"]))
def test_one_session_folder_is_listed_as_list_all_dir(repro, folder):
    root = repro / "sessions"
    want = _pi(LIST["repro"]["listAllDir"][folder])
    assert _rows([to_jsonable(i) for i in list_sessions(root / folder)], root) == want
    out = _cli("ls", "--json", str(root / folder))
    assert _rows(json.loads(out.stdout), root) == want


@pytest.mark.parametrize("cwd", sorted(LIST["repro"]["list"]))
def test_ls_cwd_lists_what_list_cwd_lists(repro, cwd, monkeypatch):
    """``--cwd`` as Pi's ``list(cwd)``: the folder Pi names after cwd (a file:// URL
    decoded as Node decodes it)."""
    root = repro / "sessions"
    want = _pi(LIST["repro"]["list"][cwd])
    out = _cli("ls", "--json", "--cwd", cwd, env={"PI_CODING_AGENT_DIR": str(repro)})
    assert out.returncode == 0, out.stderr
    assert _rows(json.loads(out.stdout), root) == want
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(repro))
    for folder, rows in LIST["repro"]["listDir"].items():
        got = list_sessions(root / folder, cwd="/home/reader/demo")
        assert _rows([to_jsonable(i) for i in got], root) == _pi(rows), folder


def test_the_corpus_is_listed_as_pi_lists_it(tmp_path):
    """Every data/**/*.jsonl, one project folder per data folder, at the recorded times:
    the same sessions, fields and order as Pi's listAll() (issue 39: 149 of 559 files
    were listed by pisession and not by Pi)."""
    files = sorted(
        os.path.relpath(os.path.join(folder, name), REPO)
        for folder, _, names in os.walk(REPO / "data", followlinks=True)
        for name in names
        if name.endswith(".jsonl")
    )
    assert len(files) == LIST["corpus"]["files"]
    root = tmp_path / "sessions"
    for k, rel in enumerate(files):
        to = root / ("--" + os.path.dirname(rel).replace(os.sep, "-") + "--") / Path(rel).name
        to.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(REPO / rel, to)
        os.utime(to, (LIST["corpusMtime"] + k,) * 2)
    got = _rows([to_jsonable(i) for i in list_sessions(root)], root)
    assert got == _pi(LIST["corpus"]["listAll"])


@pytest.mark.parametrize(
    "name",
    sorted(p.name for p in (REPO / "data" / "manager" / "list" / "--home-reader-demo--").iterdir()),
)
def test_each_repro_file_alone(name):
    """One file at a time: listed by Pi or not, with Pi's fields."""
    path = REPO / "data" / "manager" / "list" / "--home-reader-demo--" / name
    listed = {r["path"].split("/")[-1]: r for r in LIST["repro"]["listAll"]}
    info = session_info(path, LIST["reproMtime"] * 1000)
    if name not in listed:
        assert info is None
        return
    assert info is not None
    [row] = _rows([to_jsonable(info)], path.parent)
    [want] = _pi([{**listed[name], "path": name}])
    assert row == want


# --- a context nested deeper than JSON.stringify goes ---------------------------------

DEEP = sorted((REPO / "data" / "manager" / "deep").glob("*.jsonl"))
TOO_DEEP = (
    ":2: a message nested more than 4,116 deep: Pi's JSON.stringify throws RangeError "
    "(Maximum call stack size exceeded) on the context\n"
)


@pytest.mark.parametrize("path", DEEP, ids=lambda p: p.stem)
@pytest.mark.parametrize(
    "command",
    [
        ["context"],
        ["context", "--llm"],
        ["context", "--compact"],
        ["explain"],
        ["explain", "--json"],
        ["tree"],
        ["tree", "--json"],
        ["export", "--format", "md", "-o", "-"],
        ["export", "--format", "html", "-o", "-"],
        ["diff", "u1", "a1"],
    ],
    ids=" ".join,
)
def test_every_output_path_refuses_a_context_too_deep_for_pi(path, command):
    """Pi (both versions) throws RangeError in JSON.stringify on these contexts: every
    command that shows the context says so on one line naming the file and the line,
    with nothing on standard output (``context --llm`` printed 50 MB at 5,000 deep)."""
    rel = os.path.relpath(path, REPO)
    assert "Maximum call stack" in OPEN["files"][rel]["error"]
    out = _cli(*command[:1], rel, *command[1:])
    assert (out.returncode, out.stdout) == (2, "")
    assert out.stderr == f"pisession: error: {rel}{TOO_DEEP}"


def test_search_skips_a_context_too_deep_for_pi(tmp_path):
    folder = tmp_path / "--home-reader-demo--"
    folder.mkdir()
    for path in DEEP:
        shutil.copyfile(path, folder / path.name)
    out = _cli("search", "deep", str(tmp_path))
    assert out.returncode == 1
    for path in DEEP:
        assert f"pisession: skipped {folder / path.name}{TOO_DEEP}" in out.stderr


@pytest.mark.parametrize(
    ("rel", "line", "kind"),
    [
        ("data/manager/leaf/last-id-null.jsonl", 4, "null-leaf"),
        ("data/manager/deep/user-content-nested-5000-deep.jsonl", 2, "pi-fails"),
    ],
)
def test_check_reports_what_the_default_leaf_gives_pi(rel, line, kind):
    out = _cli("check", rel)
    assert out.returncode == 1
    assert out.stdout.startswith(f"{rel}:{line}: {kind}: ")


@pytest.mark.parametrize(
    ("url", "reason"),
    [
        ("file://example.com/x", 'File URL host must be "localhost" or empty on linux'),
        ("file:///a%2Fb", "File URL path must not include encoded / characters"),
    ],
)
def test_a_cwd_url_node_cannot_convert_is_an_error(url, reason, repro):
    """Node's fileURLToPath throws on these; ls says so on one line."""
    out = _cli("ls", "--cwd", url, str(repro / "sessions"))
    assert (out.returncode, out.stdout) == (2, "")
    assert out.stderr == f"pisession: error: --cwd {url!r}: {reason}\n"
