"""Exercises of notebook 05 (migration): version 2 to 3, version 1 to 2."""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..build import TINY_HEADER, Entry
from ..migration import IdFactory, migrate_v1_to_v2, migrate_v2_to_v3, sequential_ids
from ..samples import sample_path
from ._checking import DRAWN, Case, Exercise, FreshIds, Mistake, _run
from ._sessions import _draw_entries

#: A file's values, the header first: JSON, as read or as a migration step writes them.
Values = list[Any]


def _values_of(path: Path) -> Values:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def _v3_expected(values: Values) -> Values:
    return migrate_v2_to_v3(values)[0]


def _v2_file(rng: random.Random) -> Values:
    entries = _draw_entries(rng, rng.randint(4, 10), ("user", "assistant", "custom", "label"))
    for entry in entries:
        if entry["type"] == "message" and rng.random() < 0.35:
            entry["message"]["role"] = "hookMessage"
            entry["message"]["customType"] = "hook"
        if entry["type"] == "custom" and rng.random() < 0.5:
            entry["data"] = {"role": "hookMessage"}
    return [{**TINY_HEADER, "version": 2, "id": "w0"}, *entries]


def _entry_type_renamed(values: Values, *, role_too: bool) -> Values:
    """v2 -> v3 done on the entry's type: a hookMessage message entry made type 'custom'."""
    out: list[Any] = []
    value: Any
    for value in migrate_v2_to_v3(values)[0]:
        original = values[len(out)]
        if value.get("type") == "message" and original["message"].get("role") == "hookMessage":
            message = value["message"] if role_too else original["message"]
            value = {**value, "type": "custom", "message": message}
        out.append(value)
    return out


def _rename_everywhere(value: object) -> object:
    if isinstance(value, list):
        return [_rename_everywhere(v) for v in value]
    if isinstance(value, dict):
        out = {k: _rename_everywhere(v) for k, v in value.items()}
        if out.get("role") == "hookMessage":
            out["role"] = "custom"
        return out
    return value


def _rename_where_a_message_is(values: Values) -> Values:
    """v2 -> v3 done on every entry that carries a ``message``, whatever its type."""
    out: list[Any] = []
    value: Any
    for value in migrate_v2_to_v3(values)[0]:
        message = value.get("message")
        if isinstance(message, dict) and message.get("role") == "hookMessage":
            value = {**value, "message": {**message, "role": "custom"}}
        out.append(value)
    return out


#: A version 2 file where entries other than `message` ones carry a `message` with the
#: hookMessage role: Pi's migrateV2ToV3 renames only `type: "message"` entries
#: (data/facts/facts.json: hookmessage-rename-message-entries-only).
_V2_OTHER_MESSAGES = [
    {**TINY_HEADER, "version": 2, "id": "w0"},
    {
        "type": "message",
        "id": "m1",
        "parentId": None,
        "timestamp": "2026-01-05T12:00:01.000Z",
        "message": {"role": "hookMessage", "customType": "hook", "content": "a", "timestamp": 1},
    },
    {
        "type": "custom",
        "id": "c1",
        "parentId": "m1",
        "timestamp": "2026-01-05T12:00:02.000Z",
        "customType": "ext",
        "message": {"role": "hookMessage", "content": "b"},
    },
    {
        "type": "branch_summary",
        "id": "b1",
        "parentId": "c1",
        "timestamp": "2026-01-05T12:00:03.000Z",
        "summary": "s",
        "fromId": "m1",
        "message": {"role": "hookMessage"},
    },
]


V2_TO_V3 = Exercise(
    "v2 -> v3",
    lambda: [
        Case(
            "legacy-v2 sample",
            (_values_of(sample_path("legacy-v2")),),
            _v3_expected(_values_of(sample_path("legacy-v2"))),
        ),
        Case(
            "tiny v2 file, a custom and a branch_summary entry carrying a hookMessage message",
            (copy.deepcopy(_V2_OTHER_MESSAGES),),
            _v3_expected(copy.deepcopy(_V2_OTHER_MESSAGES)),
        ),
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
        Mistake(
            _rename_where_a_message_is,
            "only entries of type 'message' are renamed: a 'message' field on any other entry "
            "(a 'custom' or 'branch_summary' entry here) keeps its role.",
        ),
        Mistake(
            lambda values: _entry_type_renamed(values, role_too=False),
            "your answer changed the entry's type to 'custom' and left message.role "
            "'hookMessage'. The entry stays a 'message' entry; only entry['message']['role'] "
            "becomes 'custom' (type 'custom' is another kind of entry: extension state).",
        ),
        Mistake(
            lambda values: _entry_type_renamed(values, role_too=True),
            "your answer renamed message.role and also changed the entry's type to 'custom'. "
            "The entry stays a 'message' entry (type 'custom' is another kind of entry: "
            "extension state); only the role changes.",
        ),
    ),
    "set the header's version to 3; in every 'message' entry whose message.role is "
    "'hookMessage', make it 'custom'. Nothing else changes (a 'custom' entry is not a message).",
)


def check_v2_to_v3(migrate: Callable[..., object], seed: int | None = None) -> bool:
    """Check ``migrate(values) -> values``: version 2 to 3 (header first)."""
    return _run(V2_TO_V3, migrate, seed)


def _v1_expected(values: Values) -> Values:
    return migrate_v1_to_v2(values, new_id=sequential_ids())[0]


def _v1_message(rng: random.Random, with_id: bool = False) -> Entry:
    """A v1 message; ``with_id``: one that carries an id in the file already (Pi replaces
    it, but only when it gets there)."""
    role = rng.choice(("user", "assistant"))
    value = {
        "type": "message",
        "timestamp": "2026-01-01T00:01:00Z",
        "message": {"role": role, "content": [{"type": "text", "text": role}]},
    }
    return {**value, "id": f"old{rng.randrange(16**5):05x}"} if with_id else value


def _v1_compaction(position: int, index: object) -> Entry:
    return {
        "type": "compaction",
        "timestamp": "2026-01-01T00:01:00Z",
        "summary": f"s{position}",
        "firstKeptEntryIndex": index,
        "tokensBefore": 100,
    }


def _v1_index(rng: random.Random, position: int) -> object:
    """A compaction's firstKeptEntryIndex at ``position``: the header, an earlier entry,
    itself, a later entry or past the end, and now and then not a number."""
    if rng.random() < 0.15:
        return rng.choice(("1", True, False))
    return rng.choice((0, rng.randint(1, position), rng.randint(1, position + 4)))


def _v1_file(rng: random.Random, telling: bool = False) -> Values:
    """A v1 file: header, messages (a few with an id already) and compactions. A telling
    file also has compactions whose index names the compaction itself, a later entry
    that has an id, and a string and a boolean."""
    values: Values = [
        {"type": "session", "id": "w0", "timestamp": "2026-01-01T00:00:00Z", "cwd": "/w"}
    ]
    for position in range(1, rng.randint(4, 10)):
        if rng.random() < 0.25 and position > 1:
            values.append(_v1_compaction(position, _v1_index(rng, position)))
        else:
            values.append(_v1_message(rng, with_id=rng.random() < 0.2))
    if telling:
        own = len(values)
        values.append(_v1_compaction(own, own))
        values.append(_v1_compaction(own + 1, own + 3))
        values.append(_v1_compaction(own + 2, rng.choice(("1", str(own)))))
        values.append(_v1_message(rng, with_id=True))
        values.append(_v1_compaction(own + 4, rng.choice((True, False))))
        values.append(_v1_message(rng))
    return values


def _v1_model(
    values: Values,
    new_id: IdFactory,
    *,
    offset: int = 0,
    keep_index: bool = False,
    none_when_missing: bool = False,
    keep_version: bool = False,
    earlier_only: bool = False,
    not_a_number: str | None = None,
) -> Values:
    """Pi's v1 -> v2, or a mistake: ``not_a_number`` is how a non-number index is taken
    ("delete" it, "bool" as 0 or 1, "int" a string converted)."""
    out = copy.deepcopy(values)
    previous = None
    for position, entry in enumerate(out):
        if entry["type"] == "session":
            if not keep_version:
                entry["version"] = 2
            continue
        entry["id"] = new_id()
        entry["parentId"] = previous
        previous = entry["id"]
        if entry["type"] != "compaction" or "firstKeptEntryIndex" not in entry:
            continue
        index = entry["firstKeptEntryIndex"]
        if not_a_number == "int" and isinstance(index, str):
            index = int(index)
        number = isinstance(index, int) and (not_a_number == "bool" or not isinstance(index, bool))
        if not number:
            if not_a_number == "delete":
                del entry["firstKeptEntryIndex"]
            continue
        target_index = index + offset
        reach = position if earlier_only else len(out)
        target = out[target_index] if 0 <= target_index < reach else None
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
        for values in (_v1_file(rng, telling=number == 0) for number in range(DRAWN))
    ],
    (
        Mistake(
            lambda v, n: _v1_model(v, n, offset=1),
            "your answer counted firstKeptEntryIndex from the first entry after the header "
            "(values[index + 1]). Pi reads values[index] from the list that still holds the "
            "header, so index 1 is the first entry.",
        ),
        Mistake(
            lambda v, n: _v1_model(v, n, keep_index=True),
            "your answer kept a numeric firstKeptEntryIndex. Pi deletes a number index, "
            "whether or not it gave a firstKeptEntryId.",
        ),
        Mistake(
            lambda v, n: _v1_model(v, n, none_when_missing=True),
            "your answer set firstKeptEntryId to None. When values[index] is the header, past "
            "the end or an entry without an id yet, Pi sets no firstKeptEntryId: leave the "
            "key out.",
        ),
        Mistake(
            lambda v, n: _v1_model(v, n, keep_version=True),
            "the header's version becomes 2.",
        ),
        Mistake(
            lambda v, n: _v1_model(v, n, earlier_only=True),
            "your answer resolved only indexes of earlier entries. Pi takes values[index] as "
            "the list stands at that moment: the compaction itself (it already has its new "
            "id) gives its own id, and a later entry that carries an id in the file gives "
            "that id.",
        ),
        Mistake(
            lambda v, n: _v1_model(v, n, not_a_number="delete"),
            "your answer deleted a firstKeptEntryIndex that is not a number. Pi converts and "
            "deletes it only when typeof is 'number'; a string such as \"1\" or true stays "
            "in place, and no firstKeptEntryId is set.",
        ),
        Mistake(
            lambda v, n: _v1_model(v, n, not_a_number="bool"),
            "your answer took firstKeptEntryIndex true or false as the number 1 or 0. In "
            "JavaScript a boolean is not a number: Pi leaves it in place (no "
            "firstKeptEntryId). In Python isinstance(True, int) is True: test bool first.",
        ),
        Mistake(
            lambda v, n: _v1_model(v, n, not_a_number="int"),
            'your answer converted a string firstKeptEntryIndex such as "1" to a number. '
            "Pi leaves a string in place (no firstKeptEntryId).",
        ),
    ),
    "for each value after the header: id = new_id(), parentId = the previous entry's id "
    "(None first). A compaction whose firstKeptEntryIndex is a number (not a string, not a "
    "boolean): take values[index] as the list stands (header at 0, earlier entries with "
    "their new ids, later ones with the ids they had); unless that is the header or has no "
    "id, it gives firstKeptEntryId; then the index is deleted. Any other index stays.",
    {"firstKeptEntryIndex": "only some compactions carry firstKeptEntryIndex: use .get()."},
)


def check_v1_to_v2(migrate: Callable[..., object], seed: int | None = None) -> bool:
    """Check ``migrate(values, new_id) -> values``: version 1 to 2 (header first)."""
    return _run(V1_TO_V2, migrate, seed)
