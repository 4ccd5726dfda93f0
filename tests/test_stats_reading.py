"""Statistics read from a few fields of each line (``stats.STATS_DECODER``) equal the
statistics of the fully decoded entries (``stats.session_stats``), whatever shape the
fields have: the reading shortcut may refuse a line, never count it differently."""

import json

import pytest

import pisession
from pisession.stats import session_stats

HEADER = {"type": "session", "version": 3, "id": "s", "timestamp": "2026-01-01T00:00:00Z"}
USAGE = {"input": 10, "output": 2, "cacheRead": 1, "cacheWrite": 0, "cost": {"total": 0.25}}
ODD = [
    {"role": "assistant", "content": [{"type": "toolCall"}, {"type": "text"}], "usage": USAGE},
    {"role": "assistant", "content": "a string", "usage": USAGE},
    {"role": "assistant", "content": None, "usage": {"input": "7", "cost": 3}},
    {"role": "assistant", "content": ["x", {"type": "toolCall"}, 5, None]},
    {"role": "assistant", "content": {"type": "toolCall"}, "usage": None},
    {"role": "assistant", "content": [{"type": 1}, {"type": ["toolCall"]}], "usage": []},
    {"role": "assistant", "usage": {"input": 1e308, "output": True, "cost": {"total": "1"}}},
    {"role": "toolResult", "content": [{"type": "text", "text": "ok"}], "usage": USAGE},
    {"role": "toolResult", "content": 3, "usage": {"cost": None}},
    {"role": "user", "content": "hi", "usage": USAGE},
    {"role": "custom", "content": [], "usage": USAGE},
    None,
    [1, 2],
]


def _line(i: int, entry: dict) -> str:
    return json.dumps({"id": f"e{i}", "parentId": f"e{i - 1}" if i else None, **entry})


@pytest.mark.parametrize("shape", range(len(ODD)))
def test_stats_shortcut_counts_as_the_full_entries(shape):
    entries = [{"type": "message", "message": ODD[shape]}]
    entries += [{"type": "usage", "kind": "x", "usage": USAGE}, {"type": "usage", "usage": 7}]
    entries += [{"type": "compaction", "summary": "s", "usage": USAGE}]
    entries += [{"type": "message", "message": m} for m in ODD if m is not ODD[shape]]
    lines = [json.dumps(HEADER)] + [_line(i, e) for i, e in enumerate(entries)]
    session = pisession.loads(("\n".join(lines) + "\n").encode(), "odd.jsonl")
    assert session.stats().to_dict() == session_stats(session.entries).to_dict()
