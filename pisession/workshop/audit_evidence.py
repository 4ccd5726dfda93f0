"""What changed between two Pi versions' audit evidence (``data/audit/evidence*.json``):
a scenario's answer compared without where Pi's code stands (notebook 08 shows it).

>>> differences({"a": 1}, {"a": 1, "b": 2})
['b']
"""

from __future__ import annotations

from typing import Any


def normalized(value: object) -> object:
    """A scenario's result without where Pi's code stands (``file``, ``line`` keys):
    line numbers move between versions, behaviour is what is compared.

    >>> normalized({"kind": "x", "file": "a.js", "line": 3, "more": [{"line": 1}]})
    {'kind': 'x', 'more': [{}]}
    """
    if isinstance(value, dict):
        return {k: normalized(v) for k, v in value.items() if k not in ("file", "line")}
    if isinstance(value, list):
        return [normalized(v) for v in value]
    return value


def differences(old: Any, new: Any, path: str = "") -> list[str]:
    """The paths where two JSON values differ (a changed list length is one difference).

    >>> differences({"a": [1, 2], "b": {"c": 1}}, {"a": [1, 3], "b": {}})
    ['a[1]', 'b.c']
    """
    if type(old) is not type(new):
        return [path or "."]
    if isinstance(old, dict):
        out: list[str] = []
        for key in sorted(set(old) | set(new)):
            where = f"{path}.{key}" if path else key
            out += (
                [where]
                if key not in old or key not in new
                else differences(old[key], new[key], where)
            )
        return out
    if isinstance(old, list):
        if len(old) != len(new):
            return [path or "."]
        return [
            d for i, (a, b) in enumerate(zip(old, new)) for d in differences(a, b, f"{path}[{i}]")
        ]
    return [] if old == new else [path or "."]


def scenario_differences(evidence: dict[str, Any], newer: dict[str, Any], name: str) -> list[str]:
    """Where scenario ``name``'s answer differs between two versions' evidence.

    >>> old = {"scenarios": {"s": {"result": {"a": 1, "line": 5}}}}
    >>> new = {"scenarios": {"s": {"result": {"a": 2, "line": 9}}}}
    >>> scenario_differences(old, new, "s")
    ['a']
    """
    return differences(
        normalized(evidence["scenarios"][name]["result"]),
        normalized(newer["scenarios"][name]["result"]),
    )
