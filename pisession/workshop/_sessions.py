"""Building blocks of the cases: the samples, tiny files and random sessions."""

from __future__ import annotations

import copy
import random

from ..build import TINY_HEADER, new_entry, new_message, tiny_session
from ..errors import PisessionError
from ..samples import sample_path
from ..session import load

SAMPLES = (
    "tour",
    "pi-0.87.1-a-print-multiturn-tools",
    "pi-0.87.1-b-rpc-compaction-manual-threshold-overflow",
)
#: How many cases each check draws at random, fresh for every run.


def _session(entries: list[dict], name: str):
    return tiny_session(*entries, name=name, header={**TINY_HEADER, "id": "w0"})


def _msg(entry_id: str, parent: str | None, role: str, minute: int, **extra) -> dict:
    entry = new_message(entry_id, parent, role, minute)
    entry["message"].update(extra)
    return entry


def _assistant(entry_id, parent, minute, provider="fake", model="fake-coder", usage=None):
    return _msg(
        entry_id,
        parent,
        "assistant",
        minute,
        provider=provider,
        model=model,
        usage=usage or _usage(100, 20),
    )


def _usage(input_tokens: int, output: int, cache_read: int = 0, cache_write: int = 0) -> dict:
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


def _draw_entries(rng: random.Random, size: int, kinds: tuple[str, ...] | None = None) -> list:
    """A random session's entries (file order): branches, several roots now and then,
    labels, compactions, model and thinking changes, a duplicate id now and then, and
    timestamps that do not always increase."""
    kinds = kinds or (
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
    entries: list[dict] = []
    for position in range(size):
        entry_id = _hex(rng)
        if not entries:
            parent = None
        elif rng.random() < 0.7:
            parent = entries[-1]["id"]
        elif rng.random() < 0.9:
            parent = rng.choice(entries)["id"]
        else:
            parent = None
        minute = position + 1 if rng.random() < 0.85 else rng.randint(0, size)
        kind = rng.choice(kinds)
        if kind in ("user", "assistant", "toolResult", "system"):
            if kind == "assistant":
                entry = _assistant(entry_id, parent, minute, model=rng.choice(("m1", "m2", "m3")))
            else:
                entry = _msg(entry_id, parent, kind, minute)
                if kind == "system":
                    entry["message"]["sections"] = {rng.choice(_WORDS): f"rule {position}"}
                if kind == "toolResult" and rng.random() < 0.5:
                    entry["message"]["usage"] = _usage(rng.randint(0, 50), rng.randint(0, 9))
        elif kind == "model_change":
            entry = new_entry(
                kind,
                entry_id,
                parent,
                minute,
                provider="fake",
                modelId=rng.choice(("m1", "m2", "m3")),
            )
        elif kind == "thinking_level_change":
            level = rng.choice(("off", "low", "medium", "high"))
            entry = new_entry(kind, entry_id, parent, minute, thinkingLevel=level)
        elif kind == "label":
            target = rng.choice(entries)["id"] if entries else entry_id
            fields: dict = {"targetId": target}
            choice = rng.random()
            if choice < 0.55:
                fields["label"] = rng.choice(_WORDS)
            elif choice < 0.7:
                fields["label"] = ""
            elif choice < 0.85:
                fields["label"] = None
            entry = new_entry(kind, entry_id, parent, minute, **fields)
        elif kind == "compaction":
            earlier = [e["id"] for e in entries]
            first_kept = rng.choice([*earlier[-6:], entry_id, "gone0000"]) if earlier else entry_id
            fields = {
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
            if rng.random() < 0.4:
                fields["usage"] = _usage(rng.randint(100, 900), rng.randint(10, 90))
            entry = new_entry(kind, entry_id, parent, minute, **fields)
        elif kind == "custom":
            entry = new_entry(kind, entry_id, parent, minute, customType="state", data={"n": 1})
        elif kind == "custom_message":
            entry = new_entry(
                kind, entry_id, parent, minute, customType="note", content="a note", display=True
            )
        elif kind == "branch_summary":
            summary = rng.choice(("", "what the other branch did"))
            fields = {"fromId": "root", "summary": summary}
            if rng.random() < 0.4:
                fields["usage"] = _usage(rng.randint(100, 900), rng.randint(10, 90))
            entry = new_entry(kind, entry_id, parent, minute, **fields)
        elif kind == "usage":
            fields = {
                "kind": rng.choice(("cache_warm", "title", "my-extension")),
                "provider": "fake",
                "model": "m1",
                "usage": _usage(rng.randint(0, 500), rng.randint(0, 50), rng.randint(0, 5000)),
            }
            entry = new_entry(kind, entry_id, parent, minute, **fields)
        else:
            entry = new_entry(kind, entry_id, parent, minute, name=rng.choice(_WORDS))
        entries.append(entry)
    if len(entries) > 4 and rng.random() < 0.35:
        # a duplicate id: a later entry reuses an earlier id (and its parent), later wins
        original = rng.choice(entries[1:-1])
        duplicate = copy.deepcopy(rng.choice(entries[1:]))
        duplicate["id"], duplicate["parentId"] = original["id"], original["parentId"]
        entries.append(duplicate)
    return entries


def _drawn_sessions(rng: random.Random, count: int, kinds=None, size=(6, 18)):
    out = []
    while len(out) < count:
        entries = _draw_entries(rng, rng.randint(*size), kinds)
        try:
            session = _session(entries, "drawn")
            session.context()  # damage pisession (like Pi) cannot read is redrawn
        except PisessionError:
            continue
        out.append((entries, session))
    return out


def _sample_sessions() -> dict:
    return {name: load(sample_path(name)) for name in SAMPLES}


def _leaf_choices(session) -> list[int]:
    """Every branch end, plus a couple of entries in the middle of the file."""
    chosen = list(session.leaves())
    for position in (len(session) // 3, (2 * len(session)) // 3):
        if 0 <= position < len(session) and position not in chosen:
            chosen.append(position)
    return chosen
