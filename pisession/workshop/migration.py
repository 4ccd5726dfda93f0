"""Exercises of notebook 05 (migration): version 2 to 3, version 1 to 2."""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Callable

from ..build import TINY_HEADER
from ..migration import migrate_v1_to_v2, migrate_v2_to_v3, sequential_ids
from ..samples import sample_path
from ._checking import DRAWN, Case, Exercise, FreshIds, Mistake, _run
from ._sessions import _draw_entries


def _values_of(path) -> list:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def _v3_expected(values: list) -> list:
    return migrate_v2_to_v3(values)[0]


def _v2_file(rng: random.Random) -> list:
    entries = _draw_entries(rng, rng.randint(4, 10), ("user", "assistant", "custom", "label"))
    for entry in entries:
        if entry["type"] == "message" and rng.random() < 0.35:
            entry["message"]["role"] = "hookMessage"
            entry["message"]["customType"] = "hook"
        if entry["type"] == "custom" and rng.random() < 0.5:
            entry["data"] = {"role": "hookMessage"}
    return [{**TINY_HEADER, "version": 2, "id": "w0"}, *entries]


def _rename_everywhere(value: object) -> object:
    if isinstance(value, list):
        return [_rename_everywhere(v) for v in value]
    if isinstance(value, dict):
        out = {k: _rename_everywhere(v) for k, v in value.items()}
        if out.get("role") == "hookMessage":
            out["role"] = "custom"
        return out
    return value


V2_TO_V3 = Exercise(
    "v2 -> v3",
    lambda: [
        Case(
            "legacy-v2 sample",
            (_values_of(sample_path("legacy-v2")),),
            _v3_expected(_values_of(sample_path("legacy-v2"))),
        )
    ],
    lambda rng: [
        Case("drawn at random", (values,), _v3_expected(values), True)
        for values in (_v2_file(rng) for _ in range(DRAWN))
    ],
    (
        Mistake(
            lambda values: [
                {**v, "message": {**v["message"], "role": "custom"}}
                if v.get("type") == "message" and v["message"].get("role") == "hookMessage"
                else v
                for v in values
            ],
            "the header's version becomes 3.",
        ),
        Mistake(
            lambda values: _rename_everywhere(migrate_v2_to_v3(values)[0]),
            "only message entries are renamed (entry['message']['role']); a 'custom' entry's "
            "data is extension state and stays as it is.",
        ),
    ),
    "set the header's version to 3; in every 'message' entry whose message.role is "
    "'hookMessage', make it 'custom'. Nothing else changes (a 'custom' entry is not a message).",
)


def check_v2_to_v3(migrate: Callable, seed: int | None = None) -> bool:
    """Check ``migrate(values) -> values``: version 2 to 3 (header first)."""
    return _run(V2_TO_V3, migrate, seed)


def _v1_expected(values: list) -> list:
    return migrate_v1_to_v2(values, new_id=sequential_ids())[0]


def _v1_file(rng: random.Random) -> list:
    values: list = [
        {"type": "session", "id": "w0", "timestamp": "2026-01-01T00:00:00Z", "cwd": "/w"}
    ]
    for position in range(rng.randint(3, 9)):
        if rng.random() < 0.25 and len(values) > 1:
            index = rng.choice(
                (0, rng.randint(1, len(values) - 1), rng.randint(1, len(values) + 3))
            )
            values.append(
                {
                    "type": "compaction",
                    "timestamp": "2026-01-01T00:01:00Z",
                    "summary": f"s{position}",
                    "firstKeptEntryIndex": index,
                    "tokensBefore": 100,
                }
            )
        else:
            role = rng.choice(("user", "assistant"))
            values.append(
                {
                    "type": "message",
                    "timestamp": "2026-01-01T00:01:00Z",
                    "message": {"role": role, "content": [{"type": "text", "text": role}]},
                }
            )
    return values


def _v1_model(
    values,
    new_id,
    *,
    offset=0,
    keep_index=False,
    none_when_missing=False,
    keep_version=False,
    keep_ids=False,
):
    out = copy.deepcopy(values)
    previous = None
    for entry in out:
        if entry["type"] == "session":
            if not keep_version:
                entry["version"] = 2
            continue
        if not (keep_ids and "id" in entry):
            entry["id"] = new_id()
        entry["parentId"] = previous
        previous = entry["id"]
        if entry["type"] == "compaction" and "firstKeptEntryIndex" in entry:
            target_index = entry["firstKeptEntryIndex"] + offset
            target = out[target_index] if 0 <= target_index < len(out) else None
            if target is not None and target["type"] != "session" and "id" in target:
                entry["firstKeptEntryId"] = target["id"]
            elif none_when_missing:
                entry["firstKeptEntryId"] = None
            if not keep_index:
                del entry["firstKeptEntryIndex"]
    return out


V1_TO_V2 = Exercise(
    "v1 -> v2",
    lambda: [
        Case(
            "legacy-v1 sample",
            (_values_of(sample_path("legacy-v1")), FreshIds()),
            _v1_expected(_values_of(sample_path("legacy-v1"))),
        )
    ],
    lambda rng: [
        Case("drawn at random", (values, FreshIds()), _v1_expected(values), True)
        for values in (_v1_file(rng) for _ in range(DRAWN))
    ],
    (
        Mistake(
            lambda v, n: _v1_model(v, n, offset=1),
            "firstKeptEntryIndex counts the header as index 0: values[index] is the entry, "
            "with the header still in the list.",
        ),
        Mistake(
            lambda v, n: _v1_model(v, n, keep_index=True),
            "delete firstKeptEntryIndex from the compaction (whether or not it resolved).",
        ),
        Mistake(
            lambda v, n: _v1_model(v, n, none_when_missing=True),
            "when the index names the header, a later entry (no id yet) or nothing, leave "
            "firstKeptEntryId out instead of setting it to None.",
        ),
        Mistake(
            lambda v, n: _v1_model(v, n, keep_version=True),
            "the header's version becomes 2.",
        ),
    ),
    "for each value after the header: id = new_id(), parentId = the previous entry's id "
    "(None first); a compaction's firstKeptEntryIndex (header = 0) becomes the id of that "
    "value when it is an earlier entry; then the index is deleted.",
    {"firstKeptEntryIndex": "only some compactions carry firstKeptEntryIndex: use .get()."},
)


def check_v1_to_v2(migrate: Callable, seed: int | None = None) -> bool:
    """Check ``migrate(values, new_id) -> values``: version 1 to 2 (header first)."""
    return _run(V1_TO_V2, migrate, seed)
