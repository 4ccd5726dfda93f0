"""The errors pisession raises. Each names the file, the line and the reason."""

from __future__ import annotations

from dataclasses import dataclass

from .piversions import pi_name


class PisessionError(Exception):
    """Base class of every error pisession raises on purpose."""


class SessionFormatError(PisessionError):
    """A session file that cannot be read as Pi would read it.

    >>> str(SessionFormatError("s.jsonl", 1, "first object is not a session header"))
    's.jsonl:1: first object is not a session header'
    """

    def __init__(
        self, source: str | None, line: int | None, reason: str, position: int | None = None
    ):
        self.source = source
        self.line = line
        self.reason = reason
        #: position of the entry concerned (file order, header excluded), when known
        self.position = position
        where = f"{source}:{line}" if line is not None else source
        super().__init__(f"{where}: {reason}")


class CycleError(SessionFormatError):
    """A ``parentId`` chain that loops. Pi 0.87.1 would walk it forever.

    ``cycle`` lists the entry ids of the loop in walking order; the message shows a long
    loop by its ends.

    >>> str(CycleError("s.jsonl", 3, [f"e{i}" for i in range(12000)]))
    's.jsonl:3: parent cycle of 12000 entries: e0 -> e1 -> e2 -> ... -> e11999 -> e0 \
(Pi 0.87.1 would hang here)'
    """

    def __init__(
        self, source: str, line: int | None, cycle: list[object], position: int | None = None
    ):
        self.cycle = cycle
        hang = f"{pi_name()} would hang here"
        super().__init__(source, line, f"{cycle_text(cycle)} ({hang})", position)


def cycle_text(cycle: list[object], ends: int = 3) -> str:
    """A parent loop in words, long ones shortened to their ends.

    >>> cycle_text(["a", "b"])
    'parent cycle: a -> b -> a'
    """
    if not cycle:
        return "parent cycle"
    ids = [str(i) for i in cycle]
    if len(ids) > 2 * ends + 1:
        shown = [*ids[:ends], "...", *ids[-1:]]
        return f"parent cycle of {len(ids)} entries: {' -> '.join([*shown, ids[0]])}"
    return f"parent cycle: {' -> '.join([*ids, ids[0]])}"


class UnknownLeafError(PisessionError, KeyError):
    """A leaf id that names no entry of the session."""

    def __init__(self, source: str, leaf_id: object):
        self.source = source
        self.leaf_id = leaf_id
        super().__init__(f"{source}: no entry has id {leaf_id!r}")

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0])


@dataclass(frozen=True)
class Diagnostic:
    """One line pisession (and Pi) did not use, or used in a surprising way."""

    line: int
    kind: str
    message: str

    def __str__(self) -> str:
        return f"line {self.line}: {self.message}"
