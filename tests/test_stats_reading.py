"""Statistics read from a few fields of each line (``stats.STATS_DECODER``) equal the
statistics of the fully decoded entries (``stats.session_stats``), whatever shape the
fields have: the reading shortcut may refuse a line, never count it differently."""

import pytest

from pisession.build import tiny_session
from pisession.stats import session_stats

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


@pytest.mark.parametrize("shape", range(len(ODD)))
def test_stats_shortcut_counts_as_the_full_entries(shape):
    entries = [{"type": "message", "message": ODD[shape]}]
    entries += [{"type": "usage", "kind": "x", "usage": USAGE}, {"type": "usage", "usage": 7}]
    entries += [{"type": "compaction", "summary": "s", "usage": USAGE}]
    entries += [{"type": "message", "message": m} for m in ODD if m is not ODD[shape]]
    chain = [
        {"id": f"e{i}", "parentId": f"e{i - 1}" if i else None, **e} for i, e in enumerate(entries)
    ]
    session = tiny_session(*chain)
    assert session.stats().to_dict() == session_stats(session.entries).to_dict()
