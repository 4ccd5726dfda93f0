"""Terminal widths as terminals count them: a ZWJ family emoji, ``a`` + zero-width
space + ``b`` and conjoining Hangul jamo each take 2 columns, so ``explain``, ``ls`` and
``tree`` keep their columns aligned at 80 columns; controls and bidi stay escaped."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pisession.cli import main
from pisession.views.terminal import clean, pad, text_width, truncate, wrap

FAMILY = "\U0001f468\u200d\U0001f469\u200d\U0001f467\u200d\U0001f466"
ZWSP = "a\u200bb"
JAMO = "\u1100\u1161\u11a8"
ODD = [FAMILY, ZWSP, JAMO]


@pytest.mark.parametrize("text", ODD)
def test_each_odd_text_is_two_columns(text):
    assert text_width(text) == 2
    assert text_width("x" + text + "y") == 4
    assert pad(text, 5) == text + "   "


@pytest.mark.parametrize("text", ODD)
def test_truncate_never_splits_a_cluster(text):
    cut = truncate("x" + text + "yz", 3, "")
    assert cut in ("x" + text, "x")  # the cluster whole or not at all
    assert text_width(truncate(text * 50, 21)) <= 21
    assert all(text_width(line) <= 9 for line in wrap((text + " ") * 20, 9))


def test_controls_and_bidi_still_escaped():
    assert clean("\u202e\x1b[31m") == "\\u202e\\x1b[31m"
    assert text_width(clean("\u202eab")) == len("\\u202eab")


def write(path: Path, sid: str, ids: list[str], text: str) -> Path:
    header = {
        "type": "session",
        "version": 3,
        "id": sid,
        "timestamp": "2026-01-01T00:00:00.000Z",
        "cwd": "/p",
    }
    entries, parent = [], None
    for n, eid in enumerate(ids):
        message = {"role": "user", "content": text, "timestamp": n}
        entries.append(
            {
                "type": "message",
                "id": eid,
                "parentId": parent,
                "timestamp": "2026-01-01T00:00:01.000Z",
                "message": message,
            }
        )
        parent = eid
    path.write_text("\n".join(json.dumps(x) for x in [header, *entries]) + "\n", encoding="utf-8")
    return path


def output(capsys, monkeypatch, *args) -> list[str]:
    monkeypatch.setenv("COLUMNS", "80")
    assert main([str(a) for a in args]) == 0
    return capsys.readouterr().out.splitlines()


def column_of(line: str, part: str) -> int:
    return text_width(line[: line.index(part)])


def test_explain_aligns_ids_made_of_odd_text(tmp_path, capsys, monkeypatch):
    ids = ["x" + t for t in ODD] + ["xzz"]  # all four ids 3 columns wide
    lines = output(
        capsys, monkeypatch, "explain", write(tmp_path / "s.jsonl", "s", ids, "hi"), "--no-color"
    )
    rows = [line for line in lines if "message user" in line]
    assert len(rows) == 4
    assert len({column_of(row, "message user") for row in rows}) == 1, rows
    assert all(text_width(line) <= 80 for line in lines)


def test_ls_aligns_first_messages_of_odd_text(tmp_path, capsys, monkeypatch):
    for n, text in enumerate([*ODD, "plain"]):
        write(tmp_path / f"s{n}.jsonl", f"s-{n}", ["e1"], (text + " word ") * 12)
    lines = output(capsys, monkeypatch, "ls", tmp_path, "--no-color")
    rows = [line for line in lines if "/p" in line]
    assert len(rows) == 4
    assert len({column_of(row, "/p") for row in rows}) == 1, rows
    assert all(text_width(line) <= 80 for line in lines)


@pytest.mark.parametrize("text", ODD)
def test_tree_fits_80_columns(tmp_path, capsys, monkeypatch, text):
    lines = output(
        capsys,
        monkeypatch,
        "tree",
        write(tmp_path / "s.jsonl", "s", ["e1", "e2"], (text + " w ") * 40),
        "--no-color",
    )
    body = [line for line in lines if "message user" in line]
    assert len(body) == 2
    assert all(text_width(line) == 80 for line in body), [text_width(x) for x in body]
