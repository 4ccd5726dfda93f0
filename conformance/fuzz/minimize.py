"""Shrink a file that shows a difference to a small one that still shows it.

``minimize(data, still_fails)`` runs delta debugging (Zeller's ddmin) over the lines,
then simplifies each remaining line: a JSON line loses object members and array
elements and has nested values replaced by simpler ones; any other line is cut down
byte by byte. ``still_fails(bytes) -> bool`` is asked for every candidate; a budget
bounds the number of questions.
"""

from __future__ import annotations

from collections.abc import Callable

from mutate import Raw, dumps_line, parse_line

Predicate = Callable[[bytes], bool]


class Budget:
    """How many more times ``still_fails`` may be asked."""

    def __init__(self, questions: int):
        self.left = questions

    def spend(self) -> bool:
        self.left -= 1
        return self.left >= 0


def ddmin(items: list, test: Callable[[list], bool], budget: Budget) -> list:
    """A 1-minimal sublist of ``items`` for which ``test`` holds (``test(items)`` must).

    >>> ddmin(list(range(10)), lambda xs: 3 in xs and 7 in xs, Budget(500))
    [3, 7]
    """
    n = 2
    while len(items) >= 2:
        chunk = max(1, len(items) // n)
        subsets = [items[i : i + chunk] for i in range(0, len(items), chunk)]
        reduced = False
        for i in range(len(subsets)):
            complement = [x for j, s in enumerate(subsets) if j != i for x in s]
            if not budget.spend():
                return items
            if test(complement):
                items = complement
                n = max(n - 1, 2)
                reduced = True
                break
        if not reduced:
            if n >= len(items):
                break
            n = min(len(items), n * 2)
    if len(items) == 1 and budget.spend() and test([]):
        return []
    return items


def _join(lines: list[bytes], final_newline: bool) -> bytes:
    out = b"\n".join(lines)
    return out + b"\n" if final_newline and lines else out


def _simpler_values(value) -> list:
    """Candidates, simplest first, to replace a nested value with."""
    out: list = []
    if isinstance(value, dict):
        out += [{}, *[{k: v} for k, v in value.items()][:8]]
    elif isinstance(value, list):
        out += [[], *[[v] for v in value][:8]]
    elif isinstance(value, str) and len(value) > 1:
        out += ["", value[: len(value) // 2], value[:1]]
    return out


def _json_candidates(value) -> list:
    """One-step simplifications of a JSON value: drop a member, an element, or
    replace a child with something simpler (deepest containers last)."""
    out = []
    if isinstance(value, dict):
        keys = list(value)
        for key in keys:
            out.append({k: v for k, v in value.items() if k != key})
        for key in keys:
            for simpler in _simpler_values(value[key]):
                out.append({**value, key: simpler})
            for inner in _json_candidates(value[key])[:24]:
                out.append({**value, key: inner})
    elif isinstance(value, list):
        for i in range(len(value)):
            out.append(value[:i] + value[i + 1 :])
        for i, item in enumerate(value):
            for simpler in _simpler_values(item):
                out.append([*value[:i], simpler, *value[i + 1 :]])
            for inner in _json_candidates(item)[:24]:
                out.append([*value[:i], inner, *value[i + 1 :]])
    return out


def _depth(value, limit: int = 60) -> int:
    depth = 0
    while isinstance(value, (dict, list)) and value and depth < limit:
        value = next(iter(value.values())) if isinstance(value, dict) else value[0]
        depth += 1
    return depth


def shrink_line(line: bytes, test: Callable[[bytes], bool], budget: Budget) -> bytes:
    """A simpler line for which ``test`` still holds."""
    try:
        value = parse_line(line.rstrip(b"\r"))
    except (ValueError, UnicodeDecodeError, RecursionError):
        value = None
    if isinstance(value, (dict, list)) and _depth(value) < 60:
        try:
            return _shrink_json(line, value, test, budget)
        except (ValueError, RecursionError):
            pass
    if len(line) > 4096:
        return line
    chars = ddmin(list(line), lambda cs: test(bytes(cs)), budget)
    return bytes(chars)


def _shrink_json(line: bytes, value, test: Callable[[bytes], bool], budget: Budget) -> bytes:
    """``shrink_line`` for a JSON line: members and elements dropped, values simplified."""
    ending = b"\r" if line.endswith(b"\r") else b""
    current = dumps_line(value) + ending
    if current != line and budget.spend() and test(current):
        line = current
    progress = True
    while progress and budget.left > 0:
        progress = False
        for candidate in _json_candidates(value):
            text = dumps_line(candidate) + ending
            if len(text) >= len(line):
                continue
            if not budget.spend():
                return line
            if test(text):
                value, line, progress = candidate, text, True
                break
    return line


def minimize(data: bytes, still_fails: Predicate, questions: int = 400) -> bytes:
    """A small file for which ``still_fails`` holds (``still_fails(data)`` must)."""
    budget = Budget(questions)
    final_newline = data.endswith(b"\n")
    lines = data.split(b"\n")
    if final_newline:
        lines.pop()
    lines = ddmin(lines, lambda ls: still_fails(_join(ls, final_newline)), budget)
    for i in range(len(lines)):
        if budget.left <= 0:
            break

        def test(candidate: bytes, i=i) -> bool:
            return still_fails(_join([*lines[:i], candidate, *lines[i + 1 :]], final_newline))

        lines[i] = shrink_line(lines[i], test, budget)
    if final_newline and budget.spend() and still_fails(_join(lines, False)):
        final_newline = False
    return _join(lines, final_newline)


__all__ = ["Raw", "ddmin", "minimize", "shrink_line"]
