"""Statistics read from a few fields of each line (``counting.STATS_DECODER``) equal the
statistics of the fully decoded entries (``stats.session_stats``), whatever shape the
fields have: the reading shortcut may refuse a line, never count it differently."""

import pytest

from pisession.build import tiny_session
from pisession.engine.stats import session_stats

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


LINES = [
    {"type": "message", "message": {"role": role, "content": content, **usage}}
    for role in ("user", "assistant", "toolResult", "custom", {"r": 1}, None)
    for content in ([{"type": "toolCall"}], "text", None)
    for usage in ({}, {"usage": USAGE}, {"usage": None})
] + [
    {"type": kind, "usage": usage, "message": message}
    for kind in ("usage", "compaction", "branch_summary", "label", {"k": 1})
    for usage in (USAGE, None)
    for message in ({"role": "assistant", "usage": USAGE}, None)
]


def test_each_line_counts_as_its_full_entry():
    """``line_contribution`` (quick ways for the usual lines) against the rule applied to
    the whole entry, on lines of every shape its quick ways tell apart, and on every
    line of the bundled files."""
    import glob
    import json

    from pisession.engine.counting import STATS_DECODER, line_contribution
    from pisession.engine.stats import entry_contribution
    from pisession.js.json import loads

    raw = [json.dumps(line).encode() for line in LINES]
    for path in glob.glob("data/**/*.jsonl", recursive=True):
        with open(path, "rb") as handle:
            raw += [line for line in handle.read().split(b"\n") if line.strip()]
    checked = 0
    for line in raw:
        try:
            quick = line_contribution(STATS_DECODER.decode(line))
        except Exception:  # refused: such lines are read in full
            continue
        assert quick == entry_contribution(loads(line)), line
        checked += 1
    assert checked > len(LINES)
