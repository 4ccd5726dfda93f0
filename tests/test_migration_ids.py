"""Ids that pisession makes are unique in the file, always (issue 12 item 9).

Pi 0.87.1's v1 -> v2 migration draws 8 hex characters per entry and checks them against
a set it never fills, so a large v1 file can get two entries with one id: the later one
wins in the id index, and the parent chain can loop (Pi then hangs). pisession draws
again on a repeat.
"""

from __future__ import annotations

import json
import random

import pisession
from pisession.js.value import field
from pisession.migration import migrate_v1_to_v2, unique_ids


def v1_file(count: int) -> bytes:
    header = {"type": "session", "id": "s1", "timestamp": "2026-02-01T10:00:00Z", "cwd": "/w"}
    lines = [json.dumps(header)]
    for i in range(count):
        role = "user" if i % 2 == 0 else "assistant"
        message = {"role": role, "content": [{"type": "text", "text": f"m{i}"}]}
        lines.append(json.dumps({"type": "message", "message": message}))
    return ("\n".join(lines) + "\n").encode()


def test_a_repeating_id_factory_still_gives_unique_ids():
    make = unique_ids(lambda: "same")
    ids = [make() for _ in range(50)]
    assert ids[0] == "same" and len(set(ids)) == 50


def test_a_crowded_id_space_gives_unique_ids_and_a_clean_chain():
    """Four hex characters for 20,000 entries: Pi's scheme would repeat ids hundreds of
    times; every id is still unique and the context is the whole chain."""
    rng = random.Random(12)
    crowded = lambda: f"{rng.randrange(16**4):04x}"  # noqa: E731
    session = pisession.load(v1_file(20_000), new_id=crowded)
    ids = [field(e, "id") for e in session.entries]
    assert len(set(ids)) == len(ids) == 20_000
    assert not any(session.problems().values())
    assert len(session.context().messages) == 20_000


def test_migration_never_reuses_an_id_across_array_lines():
    values = [{"type": "session", "id": "s"}, {"type": "message"}, [1], {"type": "message"}]
    out, _ = migrate_v1_to_v2(values, new_id=lambda: "x")
    ids = [field(v, "id") for v in out[1:]]
    assert len(set(ids)) == 3 and ids[0] == "x"
