"""Legacy session versions brought to version 3, one step at a time (the rule layer).

Each step takes the list of parsed values *with the header at index 0* (that is what
``firstKeptEntryIndex`` counts in) and returns a new list plus a report of what it
changed. Input values are never modified: changed entries are copies.

- v1 -> v2: fresh ids, ``parentId`` chains each entry to the previous one, and a
  compaction's ``firstKeptEntryIndex`` becomes ``firstKeptEntryId``.
- v2 -> v3: ``message.role == "hookMessage"`` becomes ``"custom"`` inside ``message``
  entries (the ``custom`` *entry type* is something else and is left alone).

The layers, lowest first, are listed in ``tests/test_layers.py`` and docs/maintainers.md.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import TypeGuard

from .errors import Diagnostic, SessionFormatError
from .js.json import dumps, line_bounds, nesting_depth
from .js.value import UNDEFINED, JsArray, to_number
from .js.value import field as js_field
from .piversions import checked_range, pi_name, session_format

#: The session format the checked Pi releases write (``pisession/pi/<version>.json``).
CURRENT_VERSION = session_format()

IdFactory = Callable[[], str]


@dataclass(frozen=True)
class Change:
    """One field one migration step changed. ``index`` counts parsed values, header = 0."""

    index: int
    field: str
    before: object
    after: object
    note: str = ""


@dataclass
class MigrationStep:
    """What one step (``from_version`` -> ``to_version``) changed."""

    from_version: int
    to_version: int
    changes: list[Change] = field(default_factory=list)

    def summary(self) -> str:
        """A one-line account of the step: how many fields of each name it changed.

        >>> MigrationStep(2, 3, [Change(1, "message.role", "hookMessage", "custom")]).summary()
        'v2 -> v3: 1 message.role'
        """
        kinds: dict[str, int] = {}
        for c in self.changes:
            kinds[c.field] = kinds.get(c.field, 0) + 1
        detail = ", ".join(f"{n} {k}" for k, n in kinds.items()) or "nothing to change"
        return f"v{self.from_version} -> v{self.to_version}: {detail}"


def random_ids() -> IdFactory:
    """Pi's id scheme: the first 8 hex characters of a random UUID.

    >>> len(random_ids()())
    8
    """
    import uuid  # here: reading a v3 session makes no id

    return lambda: uuid.uuid4().hex[:8]


def sequential_ids(prefix: str = "m") -> IdFactory:
    """Deterministic ids for teaching output: ``m0000001``, ``m0000002``, ...

    >>> make = sequential_ids(); make(), make()
    ('m0000001', 'm0000002')
    """
    counter: Iterator[int] = iter(range(1, 10**9))
    width = 8 - len(prefix)
    return lambda: f"{prefix}{next(counter):0{width}d}"


def header_version(header: dict[str, object]) -> float:
    """The header's version as Pi compares it (missing or null means 1).

    >>> header_version({}), header_version({"version": 2}), header_version({"version": "3"})
    (1.0, 2.0, 3.0)
    """
    version = header.get("version")
    return 1.0 if version is None else to_number(version)


def newer_version(header: dict[str, object], line: int) -> Diagnostic | None:
    """A ``"newer-version"`` diagnostic when the header's version is above 3, else None.

    Pi reads such a file as it is (it migrates only versions below 3) and so does
    pisession; the diagnostic says its rules may not be the ones the file was written for.

    >>> newer_version({"version": 4}, 1).message  # doctest: +ELLIPSIS
    'the header says version 4, newer than version 3, the format pisession knows ...'
    >>> newer_version({"version": 3}, 1) is None
    True
    """
    if not header_version(header) > CURRENT_VERSION:
        return None
    return Diagnostic(
        line,
        "newer-version",
        f"the header says version {dumps(header.get('version'))}, newer than version "
        f"{CURRENT_VERSION}, the format pisession knows ({checked_range()}); Pi reads such a "
        "file as it is, without migrating, and so does pisession",
    )


def foreign_header(value: object) -> str | None:
    """What a first line that is not a Pi session header is, when it is a known one.

    pi-agent-core has an experimental session storage of its own, whose first line is
    ``{"kind":"header","v":4,...}`` and whose compactions carry ``retainedTail``. Pi's
    coding agent reads only ``{"type":"session",...}`` headers.

    >>> foreign_header({"kind": "header", "v": 4, "id": "s", "cwd": "/w"})  # doctest: +ELLIPSIS
    'this is a pi-agent-core session (experimental format 4: ...'
    >>> foreign_header({"type": "message"}) is None
    True
    """
    if not isinstance(value, dict) or value.get("kind") != "header" or "v" not in value:
        return None
    return (
        f"this is a pi-agent-core session (experimental format {dumps(value['v'])}: header "
        '{"kind":"header",...}, compactions with retainedTail), not a Pi coding-agent '
        f'session file; {checked_range()} reads only {{"type":"session"}} headers and '
        "finds no session in it"
    )


def _js_type(value: object) -> str:
    if isinstance(value, bool):
        return "boolean"
    return "string" if isinstance(value, str) else "number"


def _is_session(value: object) -> TypeGuard[dict[str, object]]:
    return isinstance(value, dict) and value.get("type") == "session"


def _set(
    entry: dict[str, object],
    key: str,
    value: object,
    index: int,
    changes: list[Change],
    note: str = "",
) -> None:
    before = entry.get(key, UNDEFINED)
    entry[key] = value
    changes.append(Change(index, key, before, value, note))


def strings_in(values: list[object]) -> set[str]:
    """Every string anywhere in ``values`` (keys and array properties included), found
    without recursion (values can nest thousands deep).

    >>> sorted(strings_in([{"id": "a", "x": [1, {"t": "m0000001"}]}, "b"]))
    ['a', 'b', 'id', 'm0000001', 't', 'x']
    """
    found: set[str] = set()
    stack = list(values)
    while stack:
        value = stack.pop()
        if isinstance(value, str):
            found.add(value)
        elif isinstance(value, dict):
            found.update(value)
            stack.extend(value.values())
        elif isinstance(value, list):
            stack.extend(value)
            properties = getattr(value, "properties", {})
            found.update(properties)
            stack.extend(properties.values())
    return found


def unique_ids(make_id: IdFactory, taken: set[str] | None = None) -> IdFactory:
    """``make_id`` made to never give an id in ``taken`` (the strings of the file) or one
    it gave before: a repeat is drawn again (100 tries), then a full random UUID is used.
    Pi's own check is broken (its set of taken ids is never filled), so a large v1 file
    can get duplicate ids, and with them parent cycles, from Pi; never from pisession.
    A made id that is also a string of the file (a ``targetId``, a ``firstKeptEntryId``)
    would link what Pi's random ids leave unlinked, so those are skipped too.

    >>> make = unique_ids(iter(["a", "a", "b", "c"]).__next__, {"b"}); make(), make()
    ('a', 'c')
    """
    taken = set(taken or ())

    def fresh() -> str:
        for _ in range(100):
            candidate = make_id()
            if candidate not in taken:
                break
        else:
            import uuid  # here: as in random_ids

            candidate = uuid.uuid4().hex
            while candidate in taken:
                candidate = uuid.uuid4().hex
        taken.add(candidate)
        return candidate

    return fresh


def _with_properties(
    value: list[object], index: int, entry_id: str, parent_id: object, changes: list[Change]
) -> JsArray:
    """An array line given ``id`` and ``parentId`` properties, as JavaScript does."""
    array = JsArray(value, **getattr(value, "properties", {}))
    for key, after, note in (("id", entry_id, "fresh id"), ("parentId", parent_id, "chained")):
        changes.append(Change(index, key, array.properties.get(key, UNDEFINED), after, note))
        array.properties[key] = after
    return array


def migrate_v1_to_v2(
    values: list[object], new_id: IdFactory | None = None
) -> tuple[list[object], MigrationStep]:
    """Give every entry an id and chain it to the previous one (Pi's ``migrateV1ToV2``).

    ``values`` is the list of parsed values, header first. Existing ids are overwritten;
    the new ones are unique (``unique_ids``). A compaction's ``firstKeptEntryIndex``
    (header = 0) becomes ``firstKeptEntryId`` unless it points at the header, past the
    end or at a later entry without an id. An array line gets its id and parent as
    properties (JavaScript allows that; ``JsArray``); a number, string or boolean line
    makes Pi fail, and pisession refuses the file.

    >>> out, step = migrate_v1_to_v2(
    ...     [{"type": "session", "id": "s"}, {"type": "message"}, [1], {"type": "message"}],
    ...     new_id=sequential_ids())
    >>> [(js_field(e, "id"), js_field(e, "parentId")) for e in out[1:]]
    [('m0000001', None), ('m0000002', 'm0000001'), ('m0000003', 'm0000002')]
    """
    make_id = unique_ids(new_id or random_ids(), strings_in(values))
    step = MigrationStep(1, 2)
    out = list(values)
    previous_id = None
    for index, value in enumerate(values):
        if isinstance(value, list):
            array = _with_properties(value, index, make_id(), previous_id, step.changes)
            out[index] = array
            previous_id = array.properties["id"]
            continue
        if not isinstance(value, dict):
            error = SessionFormatError(
                "<entries>",
                None,
                f"a {_js_type(value)} line cannot be given an id; "
                f"{pi_name()} fails to migrate such a file (TypeError)",
            )
            error.index = index  # type: ignore[attr-defined]  # the caller names the line
            raise error
        entry = dict(value)
        out[index] = entry
        if entry.get("type") == "session":
            _set(entry, "version", 2, index, step.changes, "header")
            continue
        _set(entry, "id", make_id(), index, step.changes, "fresh id")
        _set(entry, "parentId", previous_id, index, step.changes, "chained to previous entry")
        previous_id = entry["id"]
        if entry.get("type") == "compaction":
            _resolve_kept_index(entry, out, index, step.changes)
    return out, step


def _resolve_kept_index(
    entry: dict[str, object], out: list[object], index: int, changes: list[Change]
) -> None:
    """A v1 compaction's numeric ``firstKeptEntryIndex`` (header = 0) becomes the
    ``firstKeptEntryId`` of the entry there, as ``out`` stands so far (later entries keep
    the ids they had: without one, the field becomes undefined and is not written),
    unless that is the header or nothing; the index is deleted."""
    kept_index = entry.get("firstKeptEntryIndex", UNDEFINED)
    if isinstance(kept_index, bool) or not isinstance(kept_index, (int, float)):
        return
    target = None
    whole = isinstance(kept_index, int) or kept_index.is_integer()  # no float(): 400 digits
    if whole and 0 <= kept_index < len(out):
        target = out[int(kept_index)]
    if target is not None and js_field(target, "type") != "session":
        # A later entry has no new id yet: Pi writes its old one, or none (undefined)
        why = f"firstKeptEntryIndex {kept_index} resolved"
        target_id = js_field(target, "id")
        if target_id is not UNDEFINED:
            _set(entry, "firstKeptEntryId", target_id, index, changes, why)
        elif "firstKeptEntryId" in entry:
            before = entry.pop("firstKeptEntryId")
            changes.append(Change(index, "firstKeptEntryId", before, UNDEFINED, why))
    del entry["firstKeptEntryIndex"]
    changes.append(Change(index, "firstKeptEntryIndex", kept_index, UNDEFINED, "deleted"))


def migrate_v2_to_v3(values: list[object]) -> tuple[list[object], MigrationStep]:
    """Rename the ``hookMessage`` role to ``custom`` inside message entries.

    >>> out, step = migrate_v2_to_v3([{"type": "session", "version": 2},
    ...     {"type": "message", "message": {"role": "hookMessage", "content": "hi"}}])
    >>> out[1]["message"]["role"], step.summary()
    ('custom', 'v2 -> v3: 1 version, 1 message.role')
    """
    step = MigrationStep(2, 3)
    out = list(values)
    for index, value in enumerate(values):
        if _is_session(value):
            entry = dict(value)
            _set(entry, "version", 3, index, step.changes, "header")
            out[index] = entry
        elif isinstance(value, dict) and value.get("type") == "message":
            message = value.get("message")
            if isinstance(message, dict) and message.get("role") == "hookMessage":
                entry = dict(value)
                entry["message"] = {**message, "role": "custom"}
                step.changes.append(
                    Change(index, "message.role", "hookMessage", "custom", "renamed")
                )
                out[index] = entry
    return out, step


def migrate(
    values: list[object], to: int = CURRENT_VERSION, new_id: IdFactory | None = None
) -> tuple[list[object], list[MigrationStep]]:
    """Run the steps the header version calls for (Pi's ``migrateToCurrentVersion``).

    Returns the migrated values and the steps applied (empty when already current).

    >>> out, steps = migrate([{"type": "session", "id": "s"}, {"type": "message",
    ...     "message": {"role": "hookMessage"}}], new_id=sequential_ids())
    >>> [s.summary() for s in steps]
    ['v1 -> v2: 1 version, 1 id, 1 parentId', 'v2 -> v3: 1 version, 1 message.role']
    """
    header = next((v for v in values if _is_session(v)), None)
    version = header_version(header) if header is not None else 1.0
    steps: list[MigrationStep] = []
    if version >= CURRENT_VERSION:
        return values, steps
    if version < 2 and to >= 2:
        values, step = migrate_v1_to_v2(values, new_id)
        steps.append(step)
    if version < 3 and to >= 3:
        values, step = migrate_v2_to_v3(values)
        steps.append(step)
    return values, steps


#: The deepest line (containers, the entry itself counted) Pi's rewrite writes: in Node 20
#: on x86-64 (``SessionManager.open`` of a v1 file, whose ``JSON.stringify(entry)``
#: overflows V8's stack beyond it), an entry holding objects 4,114 deep is written and
#: one 4,115 deep throws ``RangeError``; arrays go one level further. Pi 0.87.1 and 1.6.0
#: agree.
REWRITE_DEPTH = 4114


def rewrite_lines(data: bytes, replaced: dict[int, object], source: str = "<bytes>") -> bytes:
    """``data`` with the lines numbered in ``replaced`` written anew, as Pi's rewrite
    writes them (``JSON.stringify``: a number beyond float range becomes ``null``), and
    every other line (those Pi skips) kept byte for byte, as are ``\\r`` line endings.
    A line nested deeper than ``REWRITE_DEPTH`` raises ``SessionFormatError`` naming
    ``source`` and the line: Pi's rewrite throws there, so Pi cannot open the file.

    >>> rewrite_lines(b'{"a":1}\\nkeep me\\r\\n', {1: {"a": 2}})
    b'{"a":2}\\nkeep me\\r\\n'
    >>> rewrite_lines(b'{"a":1e400}', {1: {"a": float("inf")}})
    b'{"a":null}'
    """
    out = []
    starts, ends = line_bounds(data)
    for number, (start, end) in enumerate(zip(starts, ends), 1):
        raw = data[start:end]
        if number in replaced:
            if nesting_depth(replaced[number], REWRITE_DEPTH) > REWRITE_DEPTH:
                reason = (
                    f"nested more than {REWRITE_DEPTH:,} deep: Pi's rewrite of the migrated "
                    "file throws RangeError (Maximum call stack size exceeded) here, so Pi "
                    "cannot open it"
                )
                raise SessionFormatError(source, number, reason)
            ending = b"\r" if raw.endswith(b"\r") else b""
            raw = dumps(replaced[number]).encode("utf-8") + ending
        out.append(raw)
    text = b"\n".join(out)
    return text + b"\n" if data.endswith(b"\n") else text


def rewrite_losses(replaced: dict[int, object]) -> str:
    """Why lines written by ``rewrite_lines`` (as Pi's rewrite writes them) may read back
    with another meaning, one clause per cause ("" when none): an array line's id, which
    it got in memory (JavaScript arrays take properties) but JSON cannot write, so the
    entry naming it as parent loses its parent; and numbers beyond float range, which
    JSON writes as ``null``.

    >>> rewrite_losses({2: {"id": "a", "n": float("inf")}, 3: {"parentId": "a"}})
    'line 2 holds a number beyond float range, which JSON writes as null'
    """
    ids = {}
    for line, value in replaced.items():
        if isinstance(value, list) and js_field(value, "id") is not UNDEFINED:
            ids[js_field(value, "id")] = line
    losses = [
        f"line {ids[parent]} is an array: JSON does not write the id it got, so line {line}'s "
        "parent is missing"
        for line, value in replaced.items()
        if isinstance(value, dict) and (parent := value.get("parentId")) in ids
    ]
    losses += [
        f"line {line} holds a number beyond float range, which JSON writes as null"
        for line, value in replaced.items()
        if _holds_infinity(value)
    ]
    return "; ".join(losses[:3]) + ("; ..." if len(losses) > 3 else "")


def _holds_infinity(value: object) -> bool:
    """Whether ``value`` holds +-Infinity at any depth (without recursion)."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, float) and item in (math.inf, -math.inf):
            return True
        if isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return False
