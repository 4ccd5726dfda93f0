"""``--json`` on explain, tree, check, stats, ls and diff: the documented shapes, and
the same answers as the library."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import pisession
from pisession.cli import main

REPO = Path(__file__).resolve().parent.parent
EDGE = REPO / "data" / "conformance" / "edge"
TOUR = pisession.sample_path("tour")


def call_json(capsys, *args):
    status = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return status, json.loads(out), err


@pytest.mark.parametrize("leaf", [None, "a7000001"])
def test_explain_json_is_every_fate_with_its_reason(capsys, leaf):
    session = pisession.load(TOUR)
    status, data, _ = call_json(
        capsys, "explain", TOUR, "--json", *(["--leaf", leaf] if leaf else [])
    )
    assert status == 0
    fates = session.fates(leaf)
    assert [e["fate"] for e in data["entries"]] == list(fates.names)
    assert [e["reason"] for e in data["entries"]] == [f.reason for f in fates]
    assert [e["line"] for e in data["entries"]] == list(session.entry_lines)
    assert data["counts"] == fates.counts() and data["reached"] == fates.reached()
    assert data["context"]["messages"] == len(session.context(leaf).messages)
    assert {x["id"] for x in data["leaves"]} == {"a6000001", "cm000001"}
    # a7000001 is a leaf by choice, not a branch end: no branch end is chosen then
    assert [x["id"] for x in data["leaves"] if x["chosen"]] == ([] if leaf else ["a6000001"])
    assert data["leaf"]["default"] is (leaf is None)
    assert set(data) == {
        "file",
        "session",
        "leaf",
        "path",
        "compaction",
        "keptRange",
        "context",
        "reached",
        "counts",
        "skippedLines",
        "leaves",
        "entries",
    }
    entry = next(e for e in data["entries"] if e["id"] == "a2000001")
    assert entry == {
        "line": 9,
        "id": "a2000001",
        "type": "message",
        "role": "assistant",
        "label": "first answer",
        "fate": entry["fate"],
        "reached": leaf is not None,
        "messages": int(leaf is not None),
        "reason": entry["reason"],
    }


def test_explain_json_kept_range(capsys):
    _, data, _ = call_json(capsys, "explain", TOUR, "--json")
    kept = data["keptRange"]
    assert (kept["first"], kept["last"], kept["entries"], kept["lines"]) == (
        "u2000001",
        "a5000001",
        10,
        [11, 24],
    )
    assert kept["droppedSystem"] == ["sys00002"] and kept["retainNone"] is False
    _, none, _ = call_json(capsys, "explain", EDGE / "compaction-retain-none.jsonl", "--json")
    assert none["keptRange"]["retainNone"] is True and none["keptRange"]["entries"] == 0


def test_tree_json(capsys):
    session = pisession.load(TOUR)
    status, data, _ = call_json(capsys, "tree", TOUR, "--json", "--leaf", "a7000001")
    assert status == 0
    order = [p for p, _ in session.shape.preorder()]
    assert [e["line"] for e in data["entries"]] == [session.line_of(p) for p in order]
    by_id = {e["id"]: e for e in data["entries"]}
    assert by_id["bs000001"]["parentId"] == "a2000001" and by_id["n0000001"]["parentId"] is None
    assert by_id["cm000001"]["leaf"] and not by_id["a7000001"]["leaf"]
    assert by_id["u4000001"]["fate"] == "off-path" and by_id["u5000001"]["fate"] == "sent"
    assert data["leaf"]["id"] == "a7000001" and data["roots"] == ["n0000001"]


def test_tree_json_of_a_cycle_has_no_fates(capsys):
    status, data, err = call_json(capsys, "tree", EDGE / "parent-cycle.jsonl", "--json")
    assert status == 1 and "without fates" in err
    assert {e["fate"] for e in data["entries"]} == {None}


def test_check_json(capsys):
    status, data, _ = call_json(capsys, "check", EDGE / "parent-cycle.jsonl", "--json")
    assert status == 1
    assert data["problems"] == 1 and data["findings"][0]["kind"] == "parent-cycle"
    assert set(data["findings"][0]) == {"line", "kind", "note", "message"}
    status, data, _ = call_json(capsys, "check", TOUR, "--json")
    assert status == 0 and data == {
        "file": str(TOUR),
        "session": pisession.load(TOUR).id,
        "entries": 26,
        "problems": 0,
        "findings": [],
    }


def test_json_on_an_empty_session(capsys, tmp_path):
    empty = tmp_path / "e.jsonl"
    empty.write_text('{"type":"session","version":3,"id":"e"}\n')
    for command in ("explain", "tree"):
        status, data, _ = call_json(capsys, command, empty, "--json")
        assert status == 0 and data["entries"] == []


def test_diff_json(capsys):
    status, data, _ = call_json(capsys, "diff", TOUR, "a6000001", "a7000001", "--json")
    assert status == 0
    assert data["fork"] == {
        "sharedEntries": 8,
        "lastShared": {"id": "a2000001", "line": 9},
        "relation": "branches",
    }
    assert data["counts"] == {"shared": 0, "only-a": 10, "only-b": 8, "edited-differently": 0}
    assert data["a"]["messages"] == 10 and data["b"]["leaf"] == {"id": "a7000001", "line": 20}


CORPUS = sorted((REPO / "data").glob("damaged/*.jsonl")) + sorted(
    (REPO / "data" / "conformance").glob("*/*.jsonl")
)


@pytest.mark.parametrize("path", CORPUS, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_explain_json_answers_or_fails_on_one_line_for_every_corpus_file(capsys, path):
    """Whole JSON, or one line naming the file (never "a bug in pisession"): an entry
    whose type is an object once stopped the entries list half-written."""
    status = main(["explain", str(path), "--json"])
    out, err = capsys.readouterr()
    assert "a bug in pisession" not in err
    if status == 0:
        assert json.loads(out)["entries"] is not None
    else:
        assert out == "" and err.count("\n") == 1


def _field_names(value, inside: str = "") -> set[tuple[str, str]]:
    """Every (parent key, key) of a JSON value, ``counts`` objects left out: they are
    keyed by the names they count (fates, diff kinds), not by field names."""
    found: set[tuple[str, str]] = set()
    if isinstance(value, dict):
        for key, item in value.items():
            found.add((inside, key))
            if key != "counts":
                found |= _field_names(item, key)
    elif isinstance(value, list):
        for item in value:
            found |= _field_names(item, inside)
    return found


JSON_COMMANDS = [
    ["explain", TOUR],
    ["tree", TOUR],
    ["check", TOUR],
    ["stats", TOUR],
    ["diff", TOUR, "a6000001", "a7000001"],
    ["ls", TOUR.parent, "--all"],
    ["usage", TOUR.parent],
    ["usage", TOUR.parent, "--by", "session"],
    ["search", "tests/", TOUR.parent],
]


@pytest.mark.parametrize("command", JSON_COMMANDS, ids=lambda c: " ".join(map(str, c[:1])))
def test_every_json_field_name_is_camel_case(capsys, command):
    """One key style across every ``--json`` output, Pi's own: camelCase
    (``messageCount``, never ``message_count``), as docs/cli.md says."""
    import re

    status, data, _ = call_json(capsys, *command, "--json")
    assert status in (0, 1)
    names = _field_names(data)
    assert names, command
    odd = sorted(
        f"{parent}.{key}" for parent, key in names if not re.fullmatch("[a-z][a-zA-Z0-9]*", key)
    )
    assert odd == []


def test_ls_json_is_camel_case_with_each_session(capsys):
    status, data, _ = call_json(capsys, "ls", TOUR.parent, "--all", "--json")
    tour = next(item for item in data if item["id"] == pisession.load(TOUR).id)
    assert status == 0
    assert list(tour) == [
        "path",
        "id",
        "cwd",
        "name",
        "parentSession",
        "created",
        "modified",
        "messageCount",
        "firstMessage",
        "shortId",
        "reopenCommand",
    ]
    assert (tour["messageCount"], tour["firstMessage"]) == (16, "List the files in src/.")
