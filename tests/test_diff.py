"""``Session.diff`` and ``pisession diff``: where two leaves' paths part, and which
messages of their contexts are shared, only in one, or edited differently."""

from __future__ import annotations

import json
from pathlib import Path

import pisession
from pisession.cli import main
from pisession.views.diff import CHANGED, ONLY_A, ONLY_B, SHARED, compare, diff_text, fork_of
from pisession.views.terminal import Look, text_width

REPO = Path(__file__).resolve().parent.parent
TOUR = pisession.sample_path("tour")
B = REPO / "pisession/samples/pi-0.87.1-b-rpc-compaction-manual-threshold-overflow.jsonl"


def message(ident, parent, role="user", text="hi", minute=0):
    return {"type": "message", "id": ident, "parentId": parent,
            "timestamp": f"2026-01-01T00:{minute:02d}:00Z",
            "message": {"role": role, "content": [{"type": "text", "text": text}]}}  # fmt: skip


def edit(ident, parent, target, content, minute):
    return {"type": "context_edit", "id": ident, "parentId": parent, "targetId": target,
            "timestamp": f"2026-01-01T00:{minute:02d}:00Z",
            "replacement": None if content is None else {"content": content}}  # fmt: skip


def load(tmp_path, entries) -> pisession.Session:
    header = {"type": "session", "version": 3, "id": "d", "timestamp": "2026-01-01T00:00:00Z"}
    text = "\n".join(json.dumps(x) for x in [header, *entries]) + "\n"
    path = tmp_path / "d.jsonl"
    path.write_text(text, encoding="utf-8")
    return pisession.load(path)


def test_two_branches_share_their_common_start(tmp_path):
    s = load(tmp_path, [
        message("u1", None, "user", "start", 1),
        message("a1", "u1", "assistant", "answer", 2),
        message("u2", "a1", "user", "left", 3),
        message("u3", "a1", "user", "right", 4),
        message("a3", "u3", "assistant", "right answer", 5),
    ])  # fmt: skip
    d = s.diff("u2", "a3")
    assert [(p.kind, p.id) for p in d.parts] == [
        (SHARED, "u1"), (SHARED, "a1"), (ONLY_A, "u2"), (ONLY_B, "u3"), (ONLY_B, "a3")]  # fmt: skip
    assert d.counts() == {SHARED: 2, ONLY_A: 1, ONLY_B: 2, CHANGED: 0}
    assert (d.fork.shared, d.fork.relation) == (2, "branches")
    assert d.parts[3].b == (2, 3) and d.parts[0].a == (0, 1) == d.parts[0].b


def test_a_context_edit_on_one_branch_is_edited_differently(tmp_path):
    s = load(tmp_path, [
        message("u1", None, "user", "start", 1),
        message("t1", "u1", "toolResult", "a very long output", 2),
        edit("e1", "t1", "t1", "short", 3),
        message("x1", "t1", "user", "no edit here", 4),
        edit("e2", "t1", "t1", None, 5),
    ])  # fmt: skip
    d = s.diff("e1", "x1")
    kinds = {p.id: p.kind for p in d.parts}
    assert kinds == {"u1": SHARED, "t1": CHANGED, "x1": ONLY_B}
    omitted = s.diff("e2", "x1")
    assert {p.id: p.kind for p in omitted.parts} == {"u1": SHARED, "t1": ONLY_B, "x1": ONLY_B}


def test_an_ancestor_leaf_and_the_same_leaf():
    s = pisession.load(TOUR)
    assert s.diff("a2000001", "a7000001").fork.relation == "a-on-b"
    same = s.diff("a7000001", "a7000001")
    assert same.fork.relation == "same" and {p.kind for p in same.parts} == {SHARED}


def test_compaction_on_one_side_only():
    s = pisession.load(TOUR)
    d = s.diff("a6000001", "a7000001")
    assert d.counts() == {SHARED: 0, ONLY_A: 10, ONLY_B: 8, CHANGED: 0}
    assert sum(p.messages for p in d.parts if p.a) == len(s.context("a6000001").messages)
    b = pisession.load(B)
    d = b.diff("c3951066", "03e135d6")
    assert d.fork.relation == "b-on-a" and d.counts()[SHARED] == 8


def test_compare_is_a_function_of_two_projections():
    s = pisession.load(TOUR)
    a, b = s.projection("a6000001"), s.projection("a7000001")
    assert compare(a, b).counts() == s.diff("a6000001", "a7000001").counts()
    assert fork_of([1, 2, 3], [4]).relation == "separate"


def test_diff_text_fits_and_marks_rows(capsys):
    s = pisession.load(TOUR)
    text = diff_text(s, s.diff("a6000001", "a7000001"), Look(width=60))
    assert all(text_width(line) <= 60 for line in text.splitlines())
    rows = [line for line in text.splitlines() if line[:1] in "=-+~" and line[1:2] == " "]
    assert len(rows) == 17
    assert main(["diff", str(TOUR), "a6000001", "nope"]) == 2
    assert "no entry has id 'nope'" in capsys.readouterr().err


def test_diff_collapses_long_shared_runs(tmp_path):
    entries = [message(f"m{i:02d}", f"m{i - 1:02d}" if i else None, "user", "x", i)
               for i in range(40)]  # fmt: skip
    entries.append(message("z1", "m39", "user", "other", 59))
    s = load(tmp_path, entries)
    text = diff_text(s, s.diff("m39", "z1"))
    assert "36 more shared entries (lines 4-39)" in text
