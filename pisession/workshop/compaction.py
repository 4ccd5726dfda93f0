"""Exercises of notebook 04 (compaction): the kept range, the roles of a context."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from ..build import Entry, new_entry
from ..session import Session
from ._checking import Case, Exercise, Mistake, _run
from ._sessions import (
    _chosen_leaves,
    _leaf_id,
    _msg,
    _random_leaves,
    _sample_sessions,
    _session,
    _tiny_sessions,
)

#: A path's entries as read (JSON objects), what the exercises of this notebook take.
EntryPath = list[Any]


def _compaction(
    entry_id: str,
    parent: str | None,
    minute: int,
    first_kept: object,
    summary: object = "s",
    tokens: int = 10,
    **extra: Any,
) -> Entry:
    return new_entry(
        "compaction",
        entry_id,
        parent,
        minute,
        summary=summary,
        firstKeptEntryId=first_kept,
        tokensBefore=tokens,
        **extra,
    )


#: Small files for the corners of the kept range: case name -> (file name, entries).
_TINY_COMPACTION_FILES = {
    "tiny file, a retain-none compaction (firstKeptEntryId = its own id)": (
        "retain-none",
        [
            _msg("u1", None, "user", 1),
            _msg("a1", "u1", "assistant", 2),
            _compaction("c1", "a1", 3, "c1"),
            _msg("u2", "c1", "user", 4),
        ],
    ),
    "tiny file, the kept range starts at a system message": (
        "first-kept-is-system",
        [
            _msg("u1", None, "user", 1),
            _msg("s1", "u1", "system", 2),
            _msg("u2", "s1", "user", 3),
            _compaction("c1", "u2", 4, "s1"),
            _msg("u3", "c1", "user", 5),
        ],
    ),
    "tiny file, a system message after the compaction (it is kept)": (
        "system-after-compaction",
        [
            _msg("s1", None, "system", 1),
            _msg("u1", "s1", "user", 2),
            _msg("s2", "u1", "system", 3),
            _msg("a1", "s2", "assistant", 4),
            _compaction("c1", "a1", 5, "u1"),
            _msg("s3", "c1", "system", 6),
            _msg("u2", "s3", "user", 7),
        ],
    ),
    "tiny file, two compactions (the newest one decides)": (
        "two-compactions",
        [
            _msg("u1", None, "user", 1),
            _msg("a1", "u1", "assistant", 2),
            _compaction(
                "c1",
                "a1",
                3,
                "a1",
                summary="old",
                systemMessage={"role": "system", "content": "", "timestamp": 0},
            ),
            _msg("u2", "c1", "user", 4),
            _msg("a2", "u2", "assistant", 5),
            _compaction("c2", "a2", 6, "a1", summary="new", tokens=20),
            _msg("u3", "c2", "user", 7),
        ],
    ),
    "tiny file, firstKeptEntryId names no entry before the compaction": (
        "first-kept-after",
        [
            _msg("u1", None, "user", 1),
            _msg("a1", "u1", "assistant", 2),
            _compaction("c1", "a1", 3, "u9"),
            _msg("u9", "c1", "user", 4),
        ],
    ),
    "tiny file, a compaction without a systemMessage": (
        "compaction-without-system",
        [
            _msg("s1", None, "system", 1),
            _msg("u1", "s1", "user", 2),
            _msg("a1", "u1", "assistant", 3),
            new_entry("branch_summary", "b1", "a1", 4, fromId="x", summary=""),
            new_entry("custom", "x1", "b1", 5, customType="state", data={}),
            _compaction("c1", "x1", 6, "s1"),
            new_entry("custom_message", "m1", "c1", 7, customType="n", content="c", display=True),
            _msg("u2", "m1", "user", 8),
        ],
    ),
}


def _tiny_compaction_sessions() -> dict[str, Session]:
    return _tiny_sessions(_TINY_COMPACTION_FILES)


def _path_cases(
    make_expected: Callable[[EntryPath], object],
    prepare: Callable[[EntryPath], EntryPath] | None = None,
) -> Callable[[], list[Case]]:
    """Paths of the samples (several leaves) and of the tiny compaction files (their
    default leaf)."""

    def fixed() -> list[Case]:
        tiny = [(n, s, _leaf_id(s, s.default_leaf)) for n, s in _tiny_compaction_sessions().items()]
        cases = []
        for name, session, leaf_id in [*_chosen_leaves(_sample_sessions()), *tiny]:
            path = session.path(leaf_id)
            path = prepare(path) if prepare else path
            cases.append(Case(f"{name}, path to {leaf_id!r}", (path,), make_expected(path)))
        return cases

    return fixed


def _drawn_paths(
    make_expected: Callable[[EntryPath], object], kinds: tuple[str, ...]
) -> Callable[[random.Random], list[Case]]:
    def drawn(rng: random.Random) -> list[Case]:
        paths = [session.path(leaf_id) for session, leaf_id in _random_leaves(rng, kinds)]
        return [Case("drawn at random", (path,), make_expected(path), True) for path in paths]

    return drawn


def _without_edits(path: EntryPath) -> EntryPath:
    """The path with each context_edit entry made a plain state entry (same id and parent):
    the roles exercise comes before context edits (notebook 06)."""
    return [
        {
            **{k: e[k] for k in ("type", "id", "parentId", "timestamp")},
            "type": "custom",
            "customType": "context-edit-set-aside",
            "data": None,
        }
        if isinstance(e, dict) and e.get("type") == "context_edit"
        else e
        for e in path
    ]


def _selected(path: EntryPath) -> list[object]:
    """The ids pisession selects for a path (built as its own little file)."""
    return [item.id for item in _session(path, "path").projection().entries]


_PATH_KINDS = (
    "user",
    "assistant",
    "system",
    "system",
    "compaction",
    "compaction",
    "label",
    "model_change",
    "custom",
    "custom_message",
    "branch_summary",
)


def _system_ids(path: EntryPath) -> set[object]:
    return {e["id"] for e in path if _is_system(e)}


def _is_system(entry: Entry) -> bool:
    return bool(entry["type"] == "message" and entry["message"]["role"] == "system")


def _kept_model(
    path: EntryPath,
    *,
    drop_before: bool = True,
    drop_after: bool = False,
    newest: bool = True,
    first: bool = True,
    keep_all_if_missing: bool = False,
    older_compactions: bool = True,
    start_shift: int = 0,
) -> list[object]:
    positions = [i for i, e in enumerate(path) if e["type"] == "compaction"]
    if not positions:
        return [e["id"] for e in path]
    cut = positions[-1] if newest else positions[0]
    compaction = path[cut]
    ids = [e["id"] for e in path[:cut]]
    found = compaction.get("firstKeptEntryId") in ids
    start = ids.index(compaction.get("firstKeptEntryId")) + start_shift if found else None
    before = []
    keeping = not found and keep_all_if_missing
    for position, entry in enumerate(path[:cut]):
        if position == start or (start is not None and start < 0 and position == 0):
            keeping = True
        if not keeping or (drop_before and _is_system(entry)):
            continue
        if not older_compactions and entry["type"] == "compaction":
            continue
        before.append(entry["id"])
    after = [e["id"] for e in path[cut + 1 :] if not (drop_after and _is_system(e))]
    if first:
        return [compaction["id"], *before, *after]
    return [*before, compaction["id"], *after]


KEPT_RANGE = Exercise(
    "kept range",
    _path_cases(_selected),
    _drawn_paths(_selected, _PATH_KINDS),
    (
        Mistake(
            lambda p: _kept_model(p, drop_before=False),
            "you kept a system message from before the compaction. Pi drops system messages "
            "in the kept range, whether or not the compaction stored a systemMessage.",
        ),
        Mistake(
            lambda p: _kept_model(p, drop_after=True),
            "only system messages BEFORE the compaction (in the kept range) are dropped; every "
            "entry after the compaction is kept, system messages included.",
        ),
        Mistake(
            lambda p: [i for i in _kept_model(p, drop_after=True) if i not in _system_ids(p)],
            "only system messages BEFORE the newest compaction (in the kept range) are dropped; "
            "a path without a compaction keeps all of them, and so does the part after it.",
        ),
        Mistake(
            lambda p: _kept_model(p, newest=False),
            "the NEWEST compaction on the path decides (the last one).",
        ),
        Mistake(
            lambda p: _kept_model(p, first=False),
            "the compaction comes first: its summary opens the context.",
        ),
        Mistake(
            lambda p: _kept_model(p, keep_all_if_missing=True),
            "if no entry before the compaction has the id firstKeptEntryId, keep none of them.",
        ),
        Mistake(
            lambda p: _kept_model(p, start_shift=1),
            "your answer started the kept range one entry AFTER the entry whose id is "
            "firstKeptEntryId. That entry is itself kept: the range starts at it.",
        ),
        Mistake(
            lambda p: _kept_model(p, start_shift=-1),
            "your answer also kept the entry just BEFORE the one whose id is "
            "firstKeptEntryId. The range starts at that entry, not one earlier.",
        ),
        Mistake(
            lambda p: _kept_model(p, older_compactions=False),
            "an older compaction inside the kept range is still selected (it contributes "
            "nothing, but it is there).",
        ),
    ),
    "no compaction: every entry. Otherwise the newest compaction C first, then the entries "
    "before C from the one whose id is C's firstKeptEntryId (system messages skipped), then "
    "every entry after C.",
)


def check_kept_range(select: Callable[..., object], seed: int | None = None) -> bool:
    """Check ``select(path_entries) -> [ids]``: the entries Pi selects for the context.

    ``path_entries`` is the path, root first. With no compaction: all of it. Otherwise
    the newest compaction C first, then the entries before C from ``C.firstKeptEntryId``
    on (system messages skipped), then everything after C.
    """
    return _run(KEPT_RANGE, select, seed)


def _roles(path: EntryPath) -> list[object]:
    return [m.get("role") for m in _session(path, "path").context().messages]


def _roles_model(
    path: EntryPath,
    *,
    always_system: bool = False,
    never_system: bool = False,
    drop_before: bool = True,
    older_contributes: bool = False,
    empty_summary: bool = False,
    custom_entries: bool = False,
) -> list[object]:
    selected = _kept_model(path, drop_before=drop_before)
    by_id = {e["id"]: e for e in path}
    roles = []
    for rank, entry_id in enumerate(selected):
        entry = by_id[entry_id]
        kind = entry["type"]
        if kind == "message":
            roles.append(entry["message"]["role"])
        elif kind == "custom_message" or (kind == "custom" and custom_entries):
            roles.append("custom")
        elif kind == "branch_summary" and (entry.get("summary") or empty_summary):
            roles.append("branchSummary")
        elif kind == "compaction" and (rank == 0 or older_contributes):
            system = entry.get("systemMessage")
            if (system or always_system) and not never_system:
                roles.append("system")
            roles.append("compactionSummary")
    return roles


CONTEXT_ROLES = Exercise(
    "context roles",
    _path_cases(_roles, _without_edits),
    _drawn_paths(_roles, _PATH_KINDS),
    (
        Mistake(
            lambda p: _roles_model(p, always_system=True),
            "the compaction contributes a system message only when it stored a systemMessage; "
            "without one there is no system message from it at all.",
        ),
        Mistake(
            lambda p: _roles_model(p, never_system=True),
            "the newest compaction contributes its systemMessage (when present) before its "
            "summary: ['system', 'compactionSummary'].",
        ),
        Mistake(
            lambda p: _roles_model(p, drop_before=False),
            "system messages in the kept range (before the compaction) are dropped.",
        ),
        Mistake(
            lambda p: _roles_model(p, older_contributes=True),
            "an older compaction inside the kept range contributes nothing: only the newest "
            "one (the first selected entry) gives a summary.",
        ),
        Mistake(
            lambda p: _roles_model(p, empty_summary=True),
            "a branch_summary with an empty summary contributes nothing.",
        ),
        Mistake(
            lambda p: _roles_model(p, custom_entries=True),
            "a 'custom' entry is extension state and contributes nothing (a 'custom_message' "
            "entry does: role 'custom').",
        ),
    ),
    "select the kept range, then: message -> its role; custom_message -> 'custom'; a "
    "non-empty branch_summary -> 'branchSummary'; the newest compaction -> 'system' (if it "
    "has a systemMessage) and 'compactionSummary'; the rest nothing.",
)


def check_context_roles(roles: Callable[..., object], seed: int | None = None) -> bool:
    """Check ``roles(path_entries) -> [roles]``: the roles of the context messages of a
    path (no context edits on these paths)."""
    return _run(CONTEXT_ROLES, roles, seed)
