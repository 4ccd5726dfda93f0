"""The entry index answers as the whole id index would, whichever way it looks an id up.

``parent_positions`` knows the parent that comes right before its child without a
lookup; ``EntryIndex.position_of`` scans for its first few ids. Both are held here to
the plain answer (a dict of every id, the later duplicate winning, as Pi's ``Map``).
"""

from __future__ import annotations

import random

import pytest

from pisession.engine import index as ix
from pisession.engine.index import EntryIndex, parent_positions
from pisession.js.value import UNDEFINED


def plain_parents(parent_ids: list[object], ids: list[object]) -> list[int]:
    """Each parent's position through a dict of every id (the later duplicate wins)."""
    by_id = {i: p for p, i in enumerate(ids) if isinstance(i, str)}
    return [by_id.get(pid, -1) if isinstance(pid, str) and pid else -1 for pid in parent_ids]


def session_columns(rng: random.Random, size: int, jumps: int, duplicate: bool):
    """Ids and parent ids of a session: mostly a chain, ``jumps`` entries whose parent is
    an earlier entry (a branch), some with a missing, empty or null parent."""
    ids = [f"{rng.getrandbits(32):08x}" for _ in range(size)]
    if duplicate:
        ids[rng.randrange(1, size)] = ids[rng.randrange(size)]
    parents: list[object] = [None, *ids[:-1]]
    for _ in range(jumps):
        position = rng.randrange(1, size)
        parents[position] = rng.choice(
            [ids[rng.randrange(position)], "notthere", "", None, UNDEFINED]
        )
    return parents, ids


@pytest.mark.parametrize("seed", range(40))
def test_parents_equal_the_whole_index(seed: int) -> None:
    rng = random.Random(seed)
    size = rng.choice([2, 3, 50, 400])
    jumps = rng.choice([0, 1, 3, size // 8, size])  # few (a scan) and many (the index)
    parents, ids = session_columns(rng, size, jumps, duplicate=seed % 4 == 0)
    assert parent_positions(parents, ids) == plain_parents(parents, ids)


def test_position_of_scans_then_makes_the_index() -> None:
    ids = [f"e{k}" for k in range(100)]
    index = EntryIndex.of([{"id": i} for i in ids])
    for k in range(ix.SCANS_BEFORE_INDEX):
        assert index.position_of(ids[k * 7]) == k * 7
        assert "by_id" not in index.__dict__
    assert index.position_of("missing") == index.by_id.get("missing") is None
    assert "by_id" in index.__dict__
    assert index.position_of(ids[42]) == 42


def test_position_of_with_duplicates_and_other_ids() -> None:
    duplicated = EntryIndex.of([{"id": "a"}, {"id": "b"}, {"id": "a"}])
    assert duplicated.position_of("a") == 2  # the later one, as Pi's Map
    mixed = EntryIndex.of([{"id": 5}, {"id": "5"}, {"id": None}])
    assert mixed.position_of("5") == 1 and mixed.position_of(5) == 0
    assert mixed.position_of(None) == 2
