"""The tree's shape (``tree.Shape``) answers as the plainest reading of the parent column:
an entry's children are the entries whose parent it is, in file order; a root has no
parent or is its own. ``Shape`` keeps the children that follow their parent as a byte
per entry and only the others sorted by parent; these tests hold every question it
answers to the plain answer on random parent columns (chains, branches, parents written
after their children, cycles, roots of every kind)."""

from __future__ import annotations

import random

import pytest

from pisession.engine.context import walk_path
from pisession.engine.index import EntryIndex
from pisession.errors import CycleError
from pisession.tree import Positions, Shape


def plain_children(parents: list[int]) -> dict[int, list[int]]:
    kids: dict[int, list[int]] = {p: [] for p in range(len(parents))}
    for child, parent in enumerate(parents):
        if parent >= 0 and parent != child:
            kids[parent].append(child)
    return kids


def random_parents(rng: random.Random, size: int) -> list[int]:
    parents = []
    for p in range(size):
        roll = rng.random()
        if p and roll < 0.75:
            parents.append(p - 1)  # the line before: nearly every entry Pi writes
        elif roll < 0.85:
            parents.append(rng.randrange(max(p, 1)))  # a branch from an earlier entry
        elif roll < 0.9:
            parents.append(rng.randrange(size))  # any entry, later ones too (cycles)
        elif roll < 0.95:
            parents.append(p)  # itself: a cycle of one, a root for Pi's tree
        else:
            parents.append(-1)
    return parents


@pytest.mark.parametrize("seed", range(300))
def test_the_shape_answers_as_the_parent_column(seed: int) -> None:
    rng = random.Random(seed)
    parents = random_parents(rng, rng.choice([0, 1, 2, 3, 5, 20, 200]))
    shape = Shape.of(None, parents=parents)  # type: ignore[arg-type]
    kids = plain_children(parents)
    size = len(parents)
    roots = [p for p in range(size) if parents[p] < 0 or parents[p] == p]
    assert shape.roots == roots and isinstance(shape.roots, Positions)
    assert shape.leaves == [p for p in range(size) if not kids[p]]
    assert len(shape) == size
    reached: set[int] = set()
    stack = list(roots)
    while stack:
        p = stack.pop()
        if p not in reached:
            reached.add(p)
            stack.extend(kids[p])
    assert shape.unreached() == [p for p in range(size) if p not in reached]
    for p in range(size):
        assert shape.children_in_file_order(p) == kids[p]
        assert shape.children(p) == kids[p]  # no timestamps: file order
        assert shape.is_leaf(p) == (not kids[p])
        assert shape.only_child(p) == (kids[p][0] if len(kids[p]) == 1 else None)
        if p in reached:  # (a walk never starts in a parent cycle: it would not end)
            run = [p]
            while len(kids[run[-1]]) == 1 and kids[run[-1]][0] == run[-1] + 1:
                run.append(run[-1] + 1)
            assert shape.chain(p)[: len(run)] == run
    assert shape.children_map() == kids


def test_a_chain_costs_a_byte_per_entry() -> None:
    shape = Shape.of(None, parents=[-1, *range(99_999)])  # type: ignore[arg-type]
    assert shape.order == [] and shape.keys == [] and len(shape.follows) == 100_000
    assert shape.roots == [0] and shape.leaves == [99_999]
    assert shape.chain(0) == list(range(100_000))


def plain_path(parents: list[int], leaf: int) -> list[int] | list[str]:
    """Root to leaf, one parent at a time; at a parent cycle, its loop (as ids, from the
    first entry seen twice)."""
    path: list[int] = []
    seen: set[int] = set()
    while leaf >= 0:
        if leaf in seen:
            return [f"e{p}" for p in path[path.index(leaf) :]]
        seen.add(leaf)
        path.append(leaf)
        leaf = parents[leaf]
    return path[::-1]


@pytest.mark.parametrize("seed", range(200))
def test_paths_walked_by_stretches_are_walked_one_by_one(seed: int) -> None:
    """``context.walk_path`` takes stretches of entries that each follow the one before
    at once: the same path as a walk one parent at a time, and the same loop where there
    is one."""
    rng = random.Random(seed)
    size = rng.choice([1, 2, 3, 5, 20, 200, 3000])
    parents = random_parents(rng, size)
    if seed % 3 == 0:  # mostly the line before, as Pi writes them
        parents = [p - 1 if rng.random() < 0.998 else parents[p] for p in range(size)]
    ids = [f"e{p}" for p in range(size)]
    index = EntryIndex([None] * size, ids, parents, [None] * size, lambda p: {})
    for leaf in {*rng.sample(range(size), min(size, 30)), size - 1}:
        index.walked.clear()
        expected = plain_path(parents, leaf)
        if expected and isinstance(expected[0], str):
            with pytest.raises(CycleError) as caught:
                walk_path(index, leaf)
            assert caught.value.cycle == expected
        else:
            assert walk_path(index, leaf) == expected


@pytest.mark.parametrize("seed", range(60))
def test_the_shape_made_of_the_indexs_jumps_is_the_shape_of_its_parents(seed: int) -> None:
    """Where the index knows the entries whose parent is not the one before
    (``EntryIndex.jumps``), the tree's links and its shape are made of those alone: the
    same as made of every entry's parent."""
    from test_entry_index import session_columns

    from pisession.tree import tree_parents

    rng = random.Random(seed)
    size = rng.choice([2, 3, 50, 400])
    parent_ids, ids = session_columns(rng, size, rng.choice([0, 1, 5, size]), seed % 5 == 0)
    if seed % 7 == 1:  # a parent the tree view links otherwise: an empty id, or itself
        position = rng.randrange(size)
        ids[position] = "" if seed % 2 else ids[position]
        parent_ids[position] = "" if seed % 2 else ids[position]
    index = EntryIndex.of_columns(["message"] * size, ids, parent_ids, ["user"] * size, id)
    plain = EntryIndex.of_columns(["message"] * size, ids, parent_ids, ["user"] * size, id)
    plain.jumps = None  # (as an index that does not know them)
    assert list(tree_parents(index)) == list(tree_parents(plain))
    made, reference = Shape.of(index), Shape.of(plain)
    for name in ("roots", "leaves", "follows", "order", "keys"):
        assert list(getattr(made, name)) == list(getattr(reference, name)), name
