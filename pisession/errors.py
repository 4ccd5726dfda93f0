"""The errors pisession raises. Each names the file, the line and the reason."""

from __future__ import annotations


class PisessionError(Exception):
    """Base class of every error pisession raises on purpose."""


class SessionFormatError(PisessionError):
    """A session file that cannot be read as Pi would read it.

    >>> str(SessionFormatError("s.jsonl", 1, "first object is not a session header"))
    's.jsonl:1: first object is not a session header'
    """

    def __init__(self, source: str, line: int | None, reason: str):
        self.source = source
        self.line = line
        self.reason = reason
        where = f"{source}:{line}" if line is not None else source
        super().__init__(f"{where}: {reason}")


class CycleError(SessionFormatError):
    """A ``parentId`` chain that loops. Pi 0.87.1 would walk it forever.

    ``cycle`` lists the entry ids of the loop in walking order.
    """

    def __init__(self, source: str, line: int | None, cycle: list):
        self.cycle = cycle
        shown = " -> ".join(str(i) for i in [*cycle, cycle[0]]) if cycle else "?"
        super().__init__(source, line, f"parent cycle: {shown} (Pi 0.87.1 would hang here)")


class UnknownLeafError(PisessionError, KeyError):
    """A leaf id that names no entry of the session."""

    def __init__(self, source: str, leaf_id: object):
        self.source = source
        self.leaf_id = leaf_id
        super().__init__(f"{source}: no entry has id {leaf_id!r}")

    def __str__(self) -> str:  # KeyError would quote the message
        return self.args[0]
