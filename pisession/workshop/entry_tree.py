"""Exercises of notebook 02 (the entry tree): the walk, the default leaf, labels."""

from __future__ import annotations

import random
from collections.abc import Callable

from ..build import Entry, new_entry
from ..session import Session
from ._checking import DRAWN, Case, Exercise, Mistake, _run
from ._sessions import (
    _chosen_leaves,
    _drawn_sessions,
    _id,
    _leaf_id,
    _msg,
    _random_leaves,
    _sample_sessions,
    _tiny_sessions,
)

#: Small files for the corners the samples do not show: case name -> (file name, entries).
_TINY_TREE_FILES = {
    "tiny file, a parent id that names no entry (the walk stops there)": (
        "dangling-parent",
        [
            _msg("u1", None, "user", 1),
            _msg("a1", "u1", "assistant", 2),
            _msg("u2", "gone0000", "user", 3),
            _msg("a2", "u2", "assistant", 4),
        ],
    ),
    "tiny file, the last line has an older timestamp than the one before": (
        "clock-skew",
        [
            _msg("u1", None, "user", 1),
            _msg("a1", "u1", "assistant", 9),
            _msg("u2", "u1", "user", 5),
        ],
    ),
    "tiny file, the last entry is a label on the first branch": (
        "label-last",
        [
            _msg("u1", None, "user", 1),
            _msg("a1", "u1", "assistant", 2),
            _msg("u2", "u1", "user", 3),
            new_entry("label", "l1", "a1", 4, targetId="a1", label="keep"),
        ],
    ),
    "tiny file, two entries share the id 'a1' (the later one wins)": (
        "duplicate-ids",
        [
            _msg("u1", None, "user", 1),
            _msg("a1", "u1", "assistant", 2),
            _msg("u2", None, "user", 3),
            _msg("a1", "u2", "assistant", 4),
            _msg("u3", "a1", "user", 5),
        ],
    ),
    "tiny file, a parentId of '' (no parent)": (
        "empty-parent",
        [
            _msg("u1", None, "user", 1),
            _msg("u2", "", "user", 2),
            _msg("a2", "u2", "assistant", 3),
        ],
    ),
}


#: The default leaf's own corner: Pi takes the last entry's id as it is, null included.
_TINY_LEAF_FILES = {
    "tiny file, the last entry's id is null (Pi's leaf is null: an empty context)": (
        "last-id-null",
        [
            _msg("u1", None, "user", 1),
            _msg("a1", "u1", "assistant", 2),
            {**new_entry("label", "l1", "a1", 3, targetId="u1", label="start"), "id": None},
        ],
    ),
}


def _tiny_tree_sessions() -> dict[str, Session]:
    return _tiny_sessions(_TINY_TREE_FILES)


def _walk_case(name: str, session: Session, leaf_id: object, drawn: bool = False) -> Case:
    return Case(
        f"{name}, leaf {leaf_id!r}",
        (session.entries, leaf_id),
        [_id(e) for e in session.path(leaf_id)],
        drawn,
    )


def _walk_fixed() -> list[Case]:
    sessions = {**_sample_sessions(), **_tiny_tree_sessions()}
    return [_walk_case(*chosen) for chosen in _chosen_leaves(sessions)]


def _walk_drawn(rng: random.Random) -> list[Case]:
    return [_walk_case("drawn at random", s, leaf, True) for s, leaf in _random_leaves(rng)]


def _walk_model(entries: list[Entry], leaf_id: object, *, first_wins: bool = False) -> list[object]:
    by_id: dict[object, Entry] = {}
    for one in entries:
        if not first_wins or one["id"] not in by_id:
            by_id[one["id"]] = one
    path: list[object] = []
    entry: Entry | None = by_id[leaf_id]
    while entry is not None:
        path.append(entry["id"])
        parent = entry.get("parentId")
        entry = by_id.get(parent) if parent else None
    return path[::-1]


def _walk_by_time(entries: list[Entry], leaf_id: object) -> list[object]:
    leaf = next(e for e in reversed(entries) if e["id"] == leaf_id)
    older = [e for e in entries if e["timestamp"] <= leaf["timestamp"]]
    return [e["id"] for e in sorted(older, key=lambda e: e["timestamp"])]


def _walk_file_order(entries: list[Entry], leaf_id: object) -> list[object]:
    out: list[object] = []
    for entry in entries:
        out.append(entry["id"])
        if entry["id"] == leaf_id:
            break
    return out


WALK = Exercise(
    "walk from leaf to root",
    _walk_fixed,
    _walk_drawn,
    (
        Mistake(
            lambda entries, leaf_id: _walk_model(entries, leaf_id)[::-1],
            "you walked from the leaf up: reverse the list so the root comes first.",
        ),
        Mistake(
            lambda entries, leaf_id: _walk_model(entries, leaf_id, first_wins=True),
            "two entries share an id here: the LATER one in the file wins (Pi's index is "
            "filled in file order, so a later entry replaces an earlier one).",
        ),
        Mistake(
            _walk_by_time,
            "follow parentId from the leaf: timestamps do not say which entries are "
            "ancestors (branches interleave, clocks skew).",
        ),
        Mistake(
            _walk_file_order,
            "follow parentId from the leaf: file order mixes the lines of several branches.",
        ),
    ),
    "start at the leaf, repeat parent = the entry whose id is parentId, stop when parentId "
    "is null, empty or names no entry; then reverse.",
)


def check_walk(walk: Callable[..., object], seed: int | None = None) -> bool:
    """Check ``walk(entries, leaf_id) -> [ids, root first]`` (the chapter's path).

    ``entries`` are the file's entries (header excluded, file order); the path follows
    ``parentId`` from the leaf until the parent is null, empty or not in the file.

    >>> def walk(entries, leaf_id):
    ...     by_id = {e["id"]: e for e in entries}
    ...     path, entry = [], by_id[leaf_id]
    ...     while entry is not None:
    ...         path.append(entry["id"])
    ...         entry = by_id.get(entry.get("parentId"))
    ...     return path[::-1]
    >>> check_walk(walk)  # doctest: +ELLIPSIS
    walk from leaf to root: correct. All ... cases match pisession (Pi 0.87.1),
      12 of them ...
    True
    """
    return _run(WALK, walk, seed)


def _default_leaf_id(session: Session) -> object:
    """The id of pisession's default leaf; None where there is none (Pi's leaf is null)."""
    leaf = session.default_leaf
    return None if leaf is None else _leaf_id(session, leaf)


def _leaf_fixed() -> list[Case]:
    cases = []
    tiny = {**_tiny_tree_sessions(), **_tiny_sessions(_TINY_LEAF_FILES)}
    for name, session in {**_sample_sessions(), **tiny}.items():
        cases.append(Case(name, (session.entries,), _default_leaf_id(session)))
    return cases


def _leaf_drawn(rng: random.Random) -> list[Case]:
    return [
        Case("drawn at random", (s.entries,), _default_leaf_id(s), True)
        for _, s in _drawn_sessions(rng, DRAWN)
    ]


def _last_truthy_id(entries: list[Entry]) -> object:
    return next((e["id"] for e in reversed(entries) if e.get("id")), None)


DEFAULT_LEAF = Exercise(
    "default leaf",
    _leaf_fixed,
    _leaf_drawn,
    (
        Mistake(
            lambda entries: max(entries, key=lambda e: e["timestamp"])["id"],
            "Pi does not look at timestamps: the leaf is the last entry in the file.",
        ),
        Mistake(
            lambda entries: [e for e in entries if e["type"] == "message"][-1]["id"],
            "not the last message: the last entry, whatever its type (a label, a usage "
            "entry, ...).",
        ),
        Mistake(
            _last_truthy_id,
            "not the last entry whose id is truthy: Pi's SessionManager takes the last "
            "entry's id as its leaf as it is, even null, and a null leaf has no path (Pi "
            "then builds an empty context).",
        ),
    ),
    "the leaf after loading is the last entry's id, whatever its type, whatever the id "
    "(None where the entry has none).",
)


def check_default_leaf(pick: Callable[..., object], seed: int | None = None) -> bool:
    """Check ``pick(entries) -> id`` of the leaf Pi uses after loading a file.

    >>> check_default_leaf(lambda entries: entries[-1]["id"])  # doctest: +ELLIPSIS
    default leaf: correct. All ... cases match pisession (Pi 0.87.1),
      12 of them drawn ...
    True
    """
    return _run(DEFAULT_LEAF, pick, seed)


#: Small files where labels are set, replaced and cleared.
_TINY_LABEL_FILES = {
    "tiny file, labels set, replaced and cleared (null, '' and missing)": (
        "labels",
        [
            _msg("u1", None, "user", 1),
            _msg("a1", "u1", "assistant", 2),
            _msg("u2", "a1", "user", 3),
            new_entry("label", "l1", "u2", 4, targetId="u1", label="start"),
            new_entry("label", "l2", "l1", 5, targetId="a1", label="draft"),
            new_entry("label", "l3", "l2", 6, targetId="a1", label="final"),
            new_entry("label", "l4", "l3", 7, targetId="u1", label=None),
            new_entry("label", "l5", "l4", 8, targetId="u2", label="later"),
            new_entry("label", "l6", "l5", 9, targetId="u2", label=""),
            new_entry("label", "l7", "l6", 10, targetId="a1"),
            new_entry("label", "l8", "l7", 11, targetId="a1", label="kept"),
        ],
    ),
    "tiny file, a label set twice (the later one counts)": (
        "relabelled",
        [
            _msg("u1", None, "user", 1),
            new_entry("label", "l1", "u1", 2, targetId="u1", label="first"),
            new_entry("label", "l2", "l1", 3, targetId="u1", label="second"),
        ],
    ),
}


def _tiny_label_sessions() -> dict[str, Session]:
    return _tiny_sessions(_TINY_LABEL_FILES)


def _labels_fixed() -> list[Case]:
    sessions = {**_sample_sessions(), **_tiny_tree_sessions(), **_tiny_label_sessions()}
    return [Case(name, (s.entries,), dict(s.labels)) for name, s in sessions.items()]


def _labels_drawn(rng: random.Random) -> list[Case]:
    kinds = ("user", "assistant", "label", "label", "label", "label", "custom")
    return [
        Case("drawn at random", (s.entries,), dict(s.labels), True)
        for _, s in _drawn_sessions(rng, DRAWN, kinds, (8, 20))
    ]


def _labels_model(
    entries: list[Entry],
    *,
    clear: bool = True,
    first_wins: bool = False,
    store_empty: bool = False,
    only_empty: bool = False,
) -> dict[object, object]:
    labels: dict[object, object] = {}
    for entry in entries:
        if entry["type"] != "label":
            continue
        label, target = entry.get("label"), entry["targetId"]
        if first_wins and target in labels:
            continue
        if label or store_empty:
            labels[target] = label
        elif clear and (not only_empty or label == ""):
            labels.pop(target, None)
    return labels


LABELS = Exercise(
    "label resolution",
    _labels_fixed,
    _labels_drawn,
    (
        Mistake(
            lambda e: _labels_model(e, first_wins=True),
            "a later label for the same target replaces the earlier one (file order, last wins).",
        ),
        Mistake(
            lambda e: _labels_model(e, clear=False),
            "an empty, null or missing label clears the target's label.",
        ),
        Mistake(
            lambda e: _labels_model(e, store_empty=True),
            "clearing removes the target from the result: do not store None or ''.",
        ),
        Mistake(
            lambda e: _labels_model(e, only_empty=True),
            "null and a missing label clear too, not only '' (any falsy label clears).",
        ),
    ),
    "go through label entries in file order; a non-empty label sets it, anything else clears it.",
    {"label": "a label entry may have no 'label' field at all (that clears): use .get('label')."},
)


def check_labels(resolve: Callable[..., object], seed: int | None = None) -> bool:
    """Check ``resolve(entries) -> {target_id: label}`` (Pi's ``getLabel`` for every id)."""
    return _run(LABELS, resolve, seed)
