"""Building blocks of the cases: the samples, tiny files and random sessions."""

from __future__ import annotations

import copy
import random
from collections.abc import Callable, Sequence
from typing import Any

from ..build import TINY_HEADER, Entry, new_entry, new_message, tiny_session
from ..errors import PisessionError
from ..samples import sample_path
from ..session import Session, load
from ._checking import DRAWN

#: The samples the tree and context exercises run on.
SAMPLES = (
    "tour",
    "pi-0.87.1-a-print-multiturn-tools",
    "pi-0.87.1-b-rpc-compaction-manual-threshold-overflow",
)


def _session(entries: Sequence[Entry], name: str) -> Session:
    return tiny_session(*entries, name=name, header={**TINY_HEADER, "id": "w0"})


def _msg(entry_id: str, parent: str | None, role: str, minute: int, **extra: Any) -> Entry:
    entry = new_message(entry_id, parent, role, minute)
    entry["message"].update(extra)
    return entry


def _assistant(
    entry_id: str,
    parent: str | None,
    minute: int,
    provider: str = "fake",
    model: str = "fake-coder",
    usage: Entry | None = None,
    response_model: str | None = None,
) -> Entry:
    """An assistant message: ``model`` is the model Pi requested, ``response_model`` (when
    given) the ``responseModel`` the provider reported answering."""
    extra = {} if response_model is None else {"responseModel": response_model}
    return _msg(
        entry_id,
        parent,
        "assistant",
        minute,
        provider=provider,
        model=model,
        usage=usage or _usage(100, 20),
        **extra,
    )


def _usage(input_tokens: int, output: int, cache_read: int = 0, cache_write: int = 0) -> Entry:
    total = input_tokens + output + cache_read + cache_write
    return {
        "input": input_tokens,
        "output": output,
        "cacheRead": cache_read,
        "cacheWrite": cache_write,
        "totalTokens": total,
        "cost": {"total": round(total * 1e-6, 9)},
    }


def _id(value: object) -> object:
    return value.get("id") if isinstance(value, dict) else None


def _hex(rng: random.Random) -> str:
    return f"{rng.getrandbits(32):08x}"


_WORDS = ("alpha", "build", "cache", "docs", "edge", "fix", "graph", "io", "json", "kit")


#: The kinds of entry a random session is drawn from (a kind named twice comes twice as often).
_ALL_KINDS = (
    "user",
    "user",
    "assistant",
    "assistant",
    "toolResult",
    "system",
    "model_change",
    "thinking_level_change",
    "label",
    "compaction",
    "custom",
    "custom_message",
    "branch_summary",
    "usage",
    "session_info",
)
_ROLES = ("user", "assistant", "toolResult", "system")
_MODELS = ("m1", "m2", "m3")


def _draw_entries(rng: random.Random, size: int, kinds: Sequence[str] | None = None) -> list[Entry]:
    """A random session's entries (file order): branches, several roots now and then,
    labels, compactions, model and thinking changes, a duplicate id now and then, and
    timestamps that do not always increase."""
    entries: list[Entry] = []
    for position in range(size):
        entry_id = _hex(rng)
        parent = _draw_parent(rng, entries)
        minute = position + 1 if rng.random() < 0.85 else rng.randint(0, size)
        kind = rng.choice(kinds or _ALL_KINDS)
        if kind in _ROLES:
            entry = _draw_message(rng, kind, entry_id, parent, minute, position)
        else:
            fields = _DRAWN_FIELDS[kind](rng, entry_id, position, [e["id"] for e in entries])
            entry = new_entry(kind, entry_id, parent, minute, **fields)
        entries.append(entry)
    if len(entries) > 4 and rng.random() < 0.35:
        # a duplicate id: a later entry reuses an earlier id (and its parent), later wins
        original = rng.choice(entries[1:-1])
        duplicate = copy.deepcopy(rng.choice(entries[1:]))
        duplicate["id"], duplicate["parentId"] = original["id"], original["parentId"]
        entries.append(duplicate)
    return entries


def _draw_parent(rng: random.Random, entries: list[Entry]) -> str | None:
    """Mostly the previous entry; sometimes an earlier one (a branch) or none (a root)."""
    if not entries:
        return None
    if rng.random() < 0.7:
        return str(entries[-1]["id"])  # drawn ids are strings
    if rng.random() < 0.9:
        return str(rng.choice(entries)["id"])
    return None


def _draw_message(
    rng: random.Random, role: str, entry_id: str, parent: str | None, minute: int, position: int
) -> Entry:
    """A message entry: an assistant of some model (now and then answered by another
    one, its ``responseModel``), a system message with a section, a tool result with a
    usage now and then."""
    if role == "assistant":
        return _assistant(
            entry_id, parent, minute, model=rng.choice(_MODELS), response_model=_answered(rng)
        )
    entry = _msg(entry_id, parent, role, minute)
    if role == "system":
        entry["message"]["sections"] = {rng.choice(_WORDS): f"rule {position}"}
    if role == "toolResult" and rng.random() < 0.5:
        entry["message"]["usage"] = _usage(rng.randint(0, 50), rng.randint(0, 9))
    return entry


def _answered(rng: random.Random) -> str | None:
    """Now and then, the ``response_model`` of an assistant: a dated model name."""
    if rng.random() < 0.4:
        return f"{rng.choice(_MODELS)}-2026{rng.randint(1, 12):02d}01"
    return None


def _label_fields(rng: random.Random, entry_id: str, position: int, earlier: list[str]) -> Entry:
    """A label on an earlier entry: set, or cleared by '', null or a missing label."""
    fields: Entry = {"targetId": rng.choice(earlier) if earlier else entry_id}
    choice = rng.random()
    if choice < 0.55:
        fields["label"] = rng.choice(_WORDS)
    elif choice < 0.7:
        fields["label"] = ""
    elif choice < 0.85:
        fields["label"] = None
    return fields


def _compaction_fields(
    rng: random.Random, entry_id: str, position: int, earlier: list[str]
) -> Entry:
    """A compaction keeping from a recent entry, itself, or an id that names no entry."""
    first_kept = rng.choice([*earlier[-6:], entry_id, "gone0000"]) if earlier else entry_id
    fields: Entry = {
        "summary": f"summary {position}",
        "firstKeptEntryId": first_kept,
        "tokensBefore": 1000 * position,
    }
    if rng.random() < 0.5:
        fields["systemMessage"] = {
            "role": "system",
            "content": "",
            "sections": {"rules": "r"},
            "timestamp": 0,
        }
    return _summary_usage(rng, fields)


def _summary_usage(rng: random.Random, fields: Entry) -> Entry:
    """Now and then, the usage of the call that wrote a summary."""
    if rng.random() < 0.4:
        fields["usage"] = _usage(rng.randint(100, 900), rng.randint(10, 90))
    return fields


def _usage_fields(rng: random.Random, *_: object) -> Entry:
    return {
        "kind": rng.choice(("cache_warm", "title", "my-extension")),
        "provider": "fake",
        "model": "m1",
        "usage": _usage(rng.randint(0, 500), rng.randint(0, 50), rng.randint(0, 5000)),
    }


#: The fields of each kind of entry that is not a message: ``(rng, entry_id, position,
#: earlier ids) -> fields``.
_DRAWN_FIELDS: dict[str, Callable[[random.Random, str, int, list[str]], Entry]] = {
    "model_change": lambda rng, *_: {"provider": "fake", "modelId": rng.choice(_MODELS)},
    "thinking_level_change": lambda rng, *_: {
        "thinkingLevel": rng.choice(("off", "low", "medium", "high"))
    },
    "label": _label_fields,
    "compaction": _compaction_fields,
    "custom": lambda *_: {"customType": "state", "data": {"n": 1}},
    "custom_message": lambda *_: {"customType": "note", "content": "a note", "display": True},
    "branch_summary": lambda rng, *_: _summary_usage(
        rng, {"fromId": "root", "summary": rng.choice(("", "what the other branch did"))}
    ),
    "usage": _usage_fields,
    "session_info": lambda rng, *_: {"name": rng.choice(_WORDS)},
}


def _drawn_sessions(
    rng: random.Random,
    count: int,
    kinds: Sequence[str] | None = None,
    size: tuple[int, int] = (6, 18),
) -> list[tuple[list[Entry], Session]]:
    out: list[tuple[list[Entry], Session]] = []
    while len(out) < count:
        entries = _draw_entries(rng, rng.randint(*size), kinds)
        try:
            session = _session(entries, "drawn")
            session.context()  # damage pisession (like Pi) cannot read is redrawn
        except PisessionError:
            continue
        out.append((entries, session))
    return out


def _sample_sessions() -> dict[str, Session]:
    return {name: load(sample_path(name)) for name in SAMPLES}


def _leaf_choices(session: Session) -> list[int]:
    """Every branch end, plus a couple of entries in the middle of the file."""
    chosen = list(session.leaves())
    for position in (len(session) // 3, (2 * len(session)) // 3):
        if 0 <= position < len(session) and position not in chosen:
            chosen.append(position)
    return chosen


def _leaf_id(session: Session, position: int | None) -> object:
    """The id of the entry at ``position`` (None where it has none, or no position)."""
    return None if position is None else _id(session.entry(position))


def _chosen_leaves(sessions: dict[str, Session]) -> list[tuple[str, Session, object]]:
    """``(name, session, leaf id)`` for the :func:`_leaf_choices` of each session."""
    return [
        (name, session, _leaf_id(session, leaf))
        for name, session in sessions.items()
        for leaf in _leaf_choices(session)
    ]


def _random_leaves(
    rng: random.Random, kinds: Sequence[str] | None = None, count: int = DRAWN
) -> list[tuple[Session, object]]:
    """``(session, leaf id)`` for ``count`` random sessions, each at a random entry."""
    sessions = _drawn_sessions(rng, count, kinds)
    return [(session, _leaf_id(session, rng.randrange(len(session)))) for _, session in sessions]


def _grown_leaf(
    rng: random.Random, kinds: Sequence[str] | None, make_leaf: Callable[[str, str, int], Entry]
) -> tuple[Session, object]:
    """``(session, leaf id)``: a random session with one entry more at its end, the leaf,
    made by ``make_leaf(entry_id, parent_id, minute)``."""
    entries, _ = _drawn_sessions(rng, 1, kinds)[0]
    leaf = make_leaf(_hex(rng), entries[-1]["id"], len(entries) + 1)
    return _session([*entries, leaf], "drawn"), leaf["id"]


def _tiny_sessions(files: dict[str, tuple[str, list[Entry]]]) -> dict[str, Session]:
    """``{case name: (file name, entries)}`` made into ``{case name: session}``."""
    return {name: _session(entries, file) for name, (file, entries) in files.items()}
