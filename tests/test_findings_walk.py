"""``check`` walks the tree once and makes the rule's selection once per compaction; on
random trees its context-edit findings must be those of the rule asked edit by edit
(``Session.path_positions`` and ``Session.selection`` at each edit)."""

from __future__ import annotations

import json
import random

import pytest

import pisession
from pisession.errors import PisessionError
from pisession.rule import EDITABLE_ROLES
from pisession.views.findings import walk_findings


def random_session(seed: int) -> pisession.Session:
    rng = random.Random(seed)
    size = rng.randint(5, 80)
    ids = [f"e{i}" for i in range(size)]
    lines: list[dict] = [{"type": "session", "version": 3, "id": "s"}]
    for i in range(size):
        near = ids[rng.randrange(max(0, i - 6), i)] if i else None
        parent = None if i == 0 or rng.random() < 0.03 else near
        base = {"id": ids[i], "parentId": parent, "timestamp": f"2026-01-01T00:{i % 60:02d}:00Z"}
        kind = rng.random()
        if kind < 0.5:
            role = rng.choice(["user", "assistant", "system", "toolResult"])
            lines.append({"type": "message", **base, "message": {"role": role, "content": "x"}})
        elif kind < 0.65:  # often keeping from a few entries up its path
            first = rng.choice([*ids, ids[i], "nope", *_up(lines, parent, 8) * 4])
            lines.append({"type": "compaction", **base, "summary": "s", "firstKeptEntryId": first})
        else:
            replacement = rng.choice([None, {"content": "y"}])
            compactions = [x["id"] for x in lines if x["type"] == "compaction"]
            target = rng.choice([*ids, "gone", *compactions[-2:] * 3])  # older ones too
            lines.append({"type": "context_edit", **base, "targetId": target,
                          "replacement": replacement})  # fmt: skip
    data = "\n".join(json.dumps(x) for x in lines) + "\n"
    return pisession.loads(data.encode())


def _up(lines: list[dict], entry_id: str | None, count: int) -> list[str]:
    """The ids of up to ``count`` entries up the path from ``entry_id``."""
    parents = {x["id"]: x.get("parentId") for x in lines[1:]}
    out: list[str] = []
    while entry_id is not None and len(out) < count and entry_id not in out:
        out.append(entry_id)
        entry_id = parents.get(entry_id)
    return out


def expected_edit_kinds(session) -> dict[int, str]:
    """Line -> what is wrong with the edit there, asked of the rule edit by edit."""
    out = {}
    for e in range(len(session)):
        entry = session.entry(e)
        if entry["type"] != "context_edit":
            continue
        target = session.index.position_of(entry["targetId"])
        if target is None:
            out[session.line_of(e)] = "which no entry has"
            continue
        path = session.path_positions(entry["id"])
        if target not in path:
            out[session.line_of(e)] = "not on the edit's path"
        elif not session.selection(entry["id"]).holds(path.index(target), target):
            out[session.line_of(e)] = "no longer in the context"
        else:  # what the target sends at the edit, edits ignored (first place decides)
            projection = session.projection(entry["id"], edits=False)
            sent = next(i.messages for i in projection.entries if i.position == target)
            editable = [m for m in sent if m.get("role") in EDITABLE_ROLES]
            if entry["replacement"] is None and not sent:
                out[session.line_of(e)] = "contributes no message"
            elif entry["replacement"] is not None and not editable:
                out[session.line_of(e)] = "contributes no editable message"
    return out


#: What ``expected_edit_kinds`` asks of the rule, as the findings word it.
KINDS = (
    "which no entry has",
    "not on the edit's path",
    "no longer in the context",
    "contributes no message",
    "contributes no editable message",
)


@pytest.mark.parametrize("seed", range(400))
def test_edit_findings_match_the_rule_asked_edit_by_edit(seed):
    session = random_session(seed)
    try:
        found = walk_findings(session, ("context_edit",))  # what check reports of edits
        expected = expected_edit_kinds(session)
    except PisessionError:
        return
    for line, words in expected.items():
        assert any(f.line == line and words in f.message for f in found), (line, words)
    for f in found:
        for words in KINDS:
            if words in f.message:
                assert expected.get(f.line) == words, (f.line, f.message)
