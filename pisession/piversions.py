"""pisession's own version, which Pi releases it is checked against, and what it knows of
each of them: all read from data, never written in code.

- ``pi_versions.json`` is the index: the npm package, the ``primary`` release and the
  ``checked`` ones. ``conformance/check.sh`` re-records every golden with each checked
  version (and fails on any difference); pisession reads it here for ``pisession
  --version`` and its messages.
- ``pi/<version>.json``, one file per checked release, holds what the code needs to know
  of it (``release``): its session format, its entry types, and for each message role the
  keys in the order the fast path expects them (``key_order``; ``engine/shapes.py``
  builds its structs from them). CONTRIBUTING.md says how to add a release, a field or an
  entry type.

Messages name releases through ``pi_name`` and ``checked_range``:

>>> pi_name(), checked_range()
('Pi 0.87.1', 'Pi 0.87.1 to 1.6.0')
"""

from __future__ import annotations

import json
from functools import cache
from importlib.resources import files
from typing import Any, TypedDict, cast

#: pisession's version (``pisession.__version__``, ``pisession --version``, exported pages).
__version__ = "0.1.0"


class Role(TypedDict, total=False):
    """A message role in a release's data: its ``keys`` in the order the fast path expects
    them; ``content``: the shape of a content Pi sends as empty when it is missing."""

    keys: list[str]
    content: str


class Release(TypedDict):
    """One ``pi/<version>.json``: what pisession knows of one Pi release."""

    about: str
    pi: str
    sessionFormat: int
    entryTypes: list[str]
    messageLine: list[str]
    roles: dict[str, Role]
    blocks: dict[str, list[str]]
    objects: dict[str, list[str]]


def _read(name: str) -> Any:
    """A data file of the package (``pi_versions.json``, ``pi/<version>.json``), parsed."""
    return json.loads(files("pisession").joinpath(name).read_text("utf-8"))


@cache
def pi_versions() -> dict[str, Any]:
    """The index ``pisession/pi_versions.json`` (``package``, ``primary``, ``checked``),
    with the ``sessionFormat`` of the primary release (read from its data file).

    >>> pi_versions()["primary"], pi_versions()["checked"], pi_versions()["sessionFormat"]
    ('0.87.1', ['0.87.1', '1.6.0'], 3)
    """
    index = cast(dict[str, Any], _read("pi_versions.json"))
    return {**index, "sessionFormat": release(index["primary"])["sessionFormat"]}


@cache
def release(version: str | None = None) -> Release:
    """What pisession knows of one checked Pi release (None: the primary one), from
    ``pisession/pi/<version>.json``. A version that is not checked is a ``KeyError``.

    >>> release("1.6.0")["entryTypes"][:3], release()["pi"]
    (['message', 'thinking_level_change', 'model_change'], '0.87.1')
    """
    index = cast(dict[str, Any], _read("pi_versions.json"))
    version = version or cast(str, index["primary"])
    if version not in index["checked"]:
        raise KeyError(f"Pi {version} is not a checked release ({', '.join(index['checked'])})")
    return cast(Release, _read(f"pi/{version}.json"))


def pi_name(version: str | None = None) -> str:
    """A release as messages name it (None: the primary release).

    >>> pi_name(), pi_name("1.6.0")
    ('Pi 0.87.1', 'Pi 1.6.0')
    """
    return f"Pi {version or pi_versions()['primary']}"


def _release(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in version.split("."))


def checked(newest_first: bool = False) -> list[str]:
    """The checked releases, oldest first (or newest first).

    >>> checked(), checked(newest_first=True)
    (['0.87.1', '1.6.0'], ['1.6.0', '0.87.1'])
    """
    return sorted(pi_versions()["checked"], key=_release, reverse=newest_first)


def checked_range() -> str:
    """The oldest and newest checked Pi release, e.g. ``Pi 0.87.1 to 1.6.0``.

    >>> checked_range()
    'Pi 0.87.1 to 1.6.0'
    """
    versions = checked()
    if len(versions) == 1:
        return pi_name(versions[0])
    return f"{pi_name(versions[0])} to {versions[-1]}"


def session_format() -> int:
    """The session format every checked release writes (one number: releases that
    disagree would need a migration step, not a data change).

    >>> session_format()
    3
    """
    formats = {release(version)["sessionFormat"] for version in checked()}
    if len(formats) != 1:
        raise ValueError(f"the checked Pi releases write session formats {sorted(formats)}")
    return formats.pop()


def entry_types() -> list[str]:
    """Every entry type some checked release writes (after the header), in the order the
    primary release's data lists them, then the others' new ones.

    >>> len(entry_types()), entry_types()[0]
    (11, 'message')
    """
    return merged([release(version)["entryTypes"] for version in _primary_first()])


def roles() -> list[str]:
    """Every message role some checked release's data describes.

    >>> roles()
    ['user', 'assistant', 'toolResult', 'system', 'bashExecution', 'custom']
    """
    return merged([list(release(version)["roles"]) for version in _primary_first()])


def block_types() -> list[str]:
    """Every content block type some checked release's data describes.

    >>> block_types()
    ['text', 'thinking', 'toolCall', 'image']
    """
    return merged([list(release(version)["blocks"]) for version in _primary_first()])


def key_order(part: str, name: str) -> list[str]:
    """The keys the fast path expects, in order, for ``part`` (``"roles"``, ``"blocks"``,
    ``"objects"`` or ``"messageLine"``) and ``name`` (a role, a block type, an object's
    key; ignored for ``messageLine``): every checked release's keys merged, the primary
    release's order first (``merged``).

    >>> key_order("blocks", "toolCall")
    ['id', 'name', 'arguments', 'argumentsError', 'namespace', 'thoughtSignature']
    """
    orders: list[list[str]] = []
    for version in _primary_first():
        data = release(version)
        if part == "messageLine":
            orders.append(data["messageLine"])
        elif part == "roles":
            orders.append(data["roles"].get(name, {}).get("keys", []))
        elif part in ("blocks", "objects"):
            orders.append((data["blocks"] if part == "blocks" else data["objects"]).get(name, []))
        else:
            raise KeyError(f"no part {part!r} in Pi's data")
    return merged(orders)


def empty_content(role: str) -> str | None:
    """How Pi sends a missing or null ``content`` of ``role`` (``"text"``: as ``""``;
    ``"blocks"`` or ``"text or blocks"``: as ``[]``), or None where it passes it as stored.

    >>> empty_content("system"), empty_content("custom")
    ('text', None)
    """
    for version in _primary_first():
        shape = release(version)["roles"].get(role, {}).get("content")
        if shape is not None:
            return shape
    return None


def merged(orders: list[list[str]]) -> list[str]:
    """The first order, with each key only a later order has put after the nearest key
    before it there (at the front if none): the orders of several releases as one, the
    first winning where they disagree.

    >>> merged([["a", "c"], ["a", "b", "c", "d"], ["z", "a"]])
    ['z', 'a', 'b', 'c', 'd']
    """
    out: list[str] = []
    for order in orders:
        for place, key in enumerate(order):
            if key in out:
                continue
            before = [k for k in order[:place] if k in out]
            out.insert(out.index(before[-1]) + 1 if before else 0, key)
    return out


def _primary_first() -> list[str]:
    primary = pi_versions()["primary"]
    return [primary, *(v for v in checked() if v != primary)]


def version_text() -> str:
    """What ``pisession --version`` adds after its own version.

    >>> version_text()
    '(session format v3; the rules of Pi 0.87.1 to 1.6.0)'
    """
    return f"(session format v{session_format()}; the rules of {checked_range()})"
