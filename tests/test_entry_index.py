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


@pytest.mark.parametrize("seed", range(80))
def test_parents_equal_the_whole_index(seed: int) -> None:
    """Parents equal the plain lookup's, the id index made or not; the jumps (where
    ids are all different non-empty strings, the entries whose parent is not the one
    before) are those a plain reading finds, and every other entry follows its parent."""
    rng = random.Random(seed)
    size = rng.choice([2, 3, 50, 400])
    jumps = rng.choice([0, 1, 3, size // 8, size])  # few (a scan) and many (the index)
    parents, ids = session_columns(rng, size, jumps, duplicate=seed % 4 == 0)
    if seed % 10 == 1:  # an empty id, or one that is no string
        ids[rng.randrange(size)] = rng.choice(["", 7, None])
    if seed % 10 == 2:  # a parent of another type
        parents[rng.randrange(size)] = rng.choice([0, [], False])
    expected = plain_parents(parents, ids)
    assert parent_positions(parents, ids) == expected
    made = ix.id_index(ids) if all(type(i) is str for i in ids) else None
    links = ix.parent_links(parents, ids, made=made)
    assert links.parents == expected
    known = (
        all(type(i) is str and i for i in ids)
        and len(set(ids)) == len(ids)
        and all(type(p) in (str, type(None), type(UNDEFINED)) for p in parents)
    )
    assert (links.jumps is not None) == known
    if known:
        plainly = [k for k in range(1, size) if parents[k] != ids[k - 1]]
        assert links.jumps == [0] * (parents[0] is not UNDEFINED) + plainly
        assert all(expected[k] == k - 1 for k in range(1, size) if k not in links.jumps)


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


def _lines(entries: list[dict[str, object]]) -> bytes:
    import json

    return b"".join(json.dumps(e).encode() + b"\n" for e in entries)


@pytest.mark.parametrize(
    "case", ["plain", "chain", "duplicates", "header id", "second header", "number id"]
)
@pytest.mark.parametrize("workers", ["1", "2"])
def test_the_id_index_made_while_a_helper_reads_is_the_whole_index(
    tmp_path, monkeypatch, case: str, workers: str
) -> None:
    """A big file's first part has its id index made while the helper parses the rest
    (``ParsedLines.index_ids``: where a parent will be looked up), joined with the rest's
    ids: the same dict (values and key order) as ``id_index`` of every entry's id, or
    none made where it could not be; a chain makes none."""
    import pisession
    from pisession.engine import reader

    rng = random.Random(case)
    entries: list[dict[str, object]] = [{"type": "session", "version": 3, "id": "head"}]
    for k in range(600):
        parent = entries[-1].get("id") if k else None
        entries.append({"type": "message", "id": f"{rng.getrandbits(32):08x}", "parentId": parent})
    entries[100]["parentId"] = entries[50]["id"]  # a branch: a parent to look up
    if case == "chain":
        entries[100]["parentId"] = entries[99]["id"]
    if case == "duplicates":  # an id of the first part written again in the second
        entries[550]["id"] = entries[20]["id"]
        entries[30]["id"] = entries[10]["id"]
    if case == "header id":  # an entry shares the header's id
        entries[400]["id"] = "head"
    if case == "second header":
        entries.insert(300, {"type": "session", "version": 3, "id": "again"})
    if case == "number id":
        entries[500]["id"] = 7
    path = tmp_path / "s.jsonl"
    path.write_bytes(_lines(entries))
    monkeypatch.setattr(reader, "CHUNK", 4096)  # a big file: read in two parts
    monkeypatch.setenv("PISESSION_WORKERS", workers)
    index = pisession.load(path).index
    assert ("by_id" in index.__dict__) == (case != "chain")  # (a chain looks nothing up)
    whole = ix.id_index(index.ids)
    assert index.by_id == whole and list(index.by_id) == list(whole)
    assert index.parents == parent_positions(index.parent_ids, index.ids)
    assert index.string_ids == (case != "number id")
