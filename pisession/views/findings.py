"""``pisession check``: what in a session deserves a reader's attention, as data.

Each finding is read off the context rule's own outputs: for every compaction and
context edit, the rule's selection at that entry (the path to it, walked once for the
whole tree) says whether its kept range holds anything and whether the edit reaches its
target. Damage (skipped lines, dangling parents, duplicate ids, cycles) comes from the
reader and the tree.

>>> import pisession
>>> check(pisession.load(pisession.sample_path("tour")))
[]
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from itertools import compress, repeat
from operator import is_
from typing import TYPE_CHECKING, Any

from ..engine import context as engine
from ..engine.index import EntryIndex, of_type
from ..errors import CycleError, PisessionError, SessionFormatError, cycle_text
from ..js.value import NO_KEY, UNDEFINED, js_key, nullish, quoted
from ..js.value import field as js_field
from ..migration import CURRENT_VERSION, header_version, rewrite_losses
from ..piversions import pi_versions
from ..projection import Selection
from ..rule import EDITABLE_ROLES
from ..tree import NO_MESSAGE, Shape

if TYPE_CHECKING:
    from .protocol import SessionLike

#: Finding kinds that do not make ``check`` fail (harmless to Pi and to readers): a
#: blank line, and a legacy version (information: Pi reads such a file as well as any,
#: migrating it). ``pisession check --strict`` counts them too.
NOTE_KINDS = frozenset({"skipped-line (blank)", "legacy-version"})


@dataclass(frozen=True)
class Finding:
    """One thing worth a reader's attention: where (line, or None for the file), what
    kind, and a sentence. ``note`` findings do not count as problems."""

    line: int | None
    kind: str
    message: str

    @property
    def note(self) -> bool:
        """True for harmless findings (they do not make ``check`` fail).

        >>> Finding(None, "legacy-version", "version 1").note
        True
        """
        return self.kind in NOTE_KINDS

    def to_dict(self) -> dict[str, Any]:
        """The finding as JSON-ready data (``pisession check --json``).

        >>> Finding(3, "duplicate-id", "id 'a' is used twice").to_dict()["note"]
        False
        """
        return {"line": self.line, "kind": self.kind, "note": self.note, "message": self.message}


def version_text(version: object) -> str:
    """A header version in words.

    >>> version_text(None), version_text(2)
    ('no version (means version 1)', 'version 2')
    """
    return "no version (means version 1)" if version is None else f"version {quoted(version)}"


def _pi() -> str:
    """The Pi release the messages speak of (``pi_versions.json``'s primary one)."""
    return f"Pi {pi_versions()['primary']}"


def context_shape(session: SessionLike) -> Shape:
    """The tree as the context's walk links it (``index.parents``: a falsy ``parentId``
    makes a root), where Pi's tree view (``session.shape``) may link otherwise.

    >>> import pisession
    >>> context_shape(pisession.load(pisession.sample_path("tour"))).roots
    [0]
    """
    return Shape.of(session.index, session.timestamp_of, session.index.parents, session.failure)


def _name(index: EntryIndex, position: int) -> str:
    value = index.ids[position]
    return "(no id)" if value is UNDEFINED else repr(value)


def file_findings(session: SessionLike) -> list[Finding]:
    """Skipped lines and a legacy version.

    >>> import pisession
    >>> [f.kind for f in file_findings(pisession.load(pisession.sample_path("legacy-v1")))]
    ['legacy-version']
    """
    out = [
        Finding(
            d.line, d.kind if d.kind == "newer-version" else f"skipped-line ({d.kind})", d.message
        )
        for d in session.diagnostics
    ]
    if header_version({"version": session.original_version}) < CURRENT_VERSION:
        out.append(
            Finding(
                None,
                "legacy-version",
                f"{version_text(session.original_version)}: Pi migrates the file to version 3 "
                "when it opens it (and rewrites it); `pisession migrate` writes a copy",
            )
        )
    return out


def tree_findings(session: SessionLike) -> list[Finding]:
    """Dangling parents, duplicate ids, parent cycles and message entries Pi fails on.

    >>> import pisession
    >>> tree_findings(pisession.load(pisession.sample_path("tour")))
    []
    """
    index, line = session.index, session.line_of
    problems = session.problems()
    out: list[Finding] = []
    for p in problems["dangling_parents"]:
        parent = js_field(session.entry(p), "parentId")
        out.append(
            Finding(
                line(p),
                "dangling-parent",
                f"entry {_name(index, p)} has parentId {quoted(parent)}, which no entry has: Pi "
                "treats it as a root",
            )
        )
    for key, positions in problems["duplicate_ids"].items():
        lines = ", ".join(str(line(p)) for p in positions[:10])
        more = ", ..." if len(positions) > 10 else ""
        out.append(
            Finding(
                line(positions[-1]),
                "duplicate-id",
                f"id {quoted(key)} is used by {len(positions)} entries (lines {lines}{more}); the "
                "last one wins in parent lookups",
            )
        )
    for cycle in problems["cycles"]:
        lines = ", ".join(str(line(p)) for p in cycle[:6])
        more = f", ... ({len(cycle)} lines)" if len(cycle) > 6 else ""
        out.append(
            Finding(
                line(cycle[0]),
                "parent-cycle",
                f"{cycle_text([index.ids[p] for p in cycle])} (lines {lines}{more}): {_pi()} "
                "hangs on any leaf whose path reaches it",
            )
        )
    roles = index.roles
    missing = list(compress(range(len(roles)), map(is_, roles, repeat(NO_MESSAGE))))
    for p in missing:
        if index.types[p] == "message":
            out.append(
                Finding(
                    line(p),
                    "pi-fails",
                    f"message entry {_name(index, p)} has no message object: {_pi()} throws "
                    "on every leaf whose path holds it",
                )
            )
    return out


@dataclass
class _Place:
    """Where the tree walk stands: the path to the current entry, the rank of each entry
    on it, the compactions on it (in path order)."""

    path: list[int]
    ranks: dict[int, int]
    compactions: list[int]
    #: the rank of the current entry (``path`` and ``ranks`` may run past it, down the
    #: straight run it stands in)
    rank: int = 0

    def above(self, position: int) -> bool:
        """Whether ``position`` is on the path to the current entry (or is it)."""
        rank = self.ranks.get(position)
        return rank is not None and rank <= self.rank


def _paths_to(session: SessionLike, kinds: tuple[str, ...]) -> Iterator[tuple[int, _Place]]:
    """``(position, place)`` for every entry of these types reachable from a root: the
    tree walked once, a straight run at a time, the path to each entry kept as a stack
    with its ranks, not walked again."""
    index = session.index
    types = index.types
    if not any(kind in types for kind in kinds):  # (a type may be an unhashable object)
        return
    shape = context_shape(session)  # the paths the rule walks
    place = _Place([], {}, [])
    path, ranks, compactions = place.path, place.ranks, place.compactions
    stack = [(p, 0) for p in reversed(shape.roots)]
    wanted = (*kinds, "compaction")  # a tuple: a type may be an unhashable object
    while stack:
        start, depth = stack.pop()
        for gone in reversed(path[depth:]):
            del ranks[gone]
            if compactions and compactions[-1] == gone:
                compactions.pop()
        del path[depth:]
        run = shape.chain(start)
        path.extend(run)
        ranks.update(zip(run, range(depth, depth + len(run))))
        found = map(wanted.__contains__, map(types.__getitem__, run))  # in C
        for offset in list(compress(range(len(run)), found)):
            position = run[offset]
            if types[position] == "compaction":
                compactions.append(position)
            if types[position] in kinds:
                place.rank = depth + offset
                yield position, place
        stack.extend((c, depth + len(run)) for c in reversed(shape.children(run[-1])))


class _Selections:
    """The rule's selection at each compaction (``context.selection`` of the path to it),
    made once per compaction. Every entry below a compaction shares it: what ``select``
    decides (the compaction, its kept range, the system messages it drops) depends only
    on the path up to the newest compaction."""

    def __init__(self, index: EntryIndex) -> None:
        self.index = index
        self.made: dict[int, Selection] = {}

    def at(self, place: _Place) -> Selection | None:
        """The selection for the path at ``place`` (None: no compaction on it)."""
        if not place.compactions:
            return None
        newest = place.compactions[-1]
        found = self.made.get(newest)
        if found is None:
            stop = place.ranks[newest] + 1  # the path up to it
            found = self.made[newest] = engine.selection(self.index, place.path, stop)
        return found


def _compaction_finding(
    session: SessionLike, c: int, selection: Selection | None
) -> Finding | None:
    """The compaction at ``c`` if its kept range is empty for a reason other than
    retain-none (``selection``: the rule's selection at it)."""
    index = session.index
    if selection is None or selection.compaction != c:
        return None
    if selection.first_kept is not None or selection.retains_none:
        return None
    target = selection.first_kept_id
    if target is UNDEFINED:
        why = "has no firstKeptEntryId"
    else:
        why = f"names firstKeptEntryId {quoted(target)}, which is not on the path before it"
    return Finding(
        session.line_of(c),
        "compaction-kept-range",
        f"compaction {_name(index, c)} {why}, so nothing before it is kept",
    )


def _edit_finding(
    session: SessionLike, e: int, place: _Place, selections: _Selections
) -> Finding | None:
    message = _edit_problem(session, e, place, selections)
    if message is None:
        return None
    kind = "pi-fails" if message.startswith("has no replacement") else "context-edit"
    return Finding(session.line_of(e), kind, f"context edit {_name(session.index, e)} {message}")


def walk_findings(
    session: SessionLike, kinds: tuple[str, ...] = ("compaction", "context_edit")
) -> list[Finding]:
    """Compaction and context-edit findings, from one walk of the tree.

    >>> import pisession
    >>> walk_findings(pisession.load(pisession.sample_path("tour")))
    []
    """
    index = session.index
    types = index.types
    selections = _Selections(index)
    if "context_edit" in kinds:  # read the edits and what they target together
        edits = session.entries_at(of_type(index, "context_edit"))
        targets = (index.position_of(js_field(edit, "targetId")) for edit in edits)
        session.entries_at([t for t in targets if t is not None])
    out: list[Finding] = []
    for p, place in _paths_to(session, kinds):
        if types[p] == "compaction":
            found = _compaction_finding(session, p, selections.at(place))
        else:
            found = _edit_finding(session, p, place, selections)
        if found is not None:
            out.append(found)
    return out


def _edit_problem(
    session: SessionLike, e: int, place: _Place, selections: _Selections
) -> str | None:
    """What is wrong with the edit at ``e`` (None: it does what it says)."""
    index = session.index
    edit = session.entry(e)
    target = js_field(edit, "targetId")
    key = js_key(target)
    t = None if key is NO_KEY else index.by_id.get(key)
    if t is None:
        return f"targets {quoted(target)}, which no entry has: no effect"
    where = f"targets {quoted(target)} (line {session.line_of(t)}), which"
    if not place.above(t):
        return f"{where} is not on the edit's path: no effect there"
    rank = place.ranks[t]
    selection = selections.at(place)
    if selection is not None and not selection.holds(rank, t):
        return f"{where} is no longer in the context there: no effect"
    if index.types[t] == "message" and index.roles[t] is NO_MESSAGE:
        return None  # reported as pi-fails already
    first = selection is not None and selection.compaction == t  # else an older compaction
    messages = engine.selected_messages(index, t, session.entry(t), first)
    roles = [js_field(m, "role") for m in messages]
    replacement = js_field(edit, "replacement")
    older = index.types[t] == "compaction" and not first
    why = " (an older compaction: only the newest sends a summary)" if older else ""
    if replacement is None:
        return (
            None
            if messages
            else f"targets {quoted(target)}, which contributes no message{why}: no effect"
        )
    if not any(r in EDITABLE_ROLES for r in roles):
        shown = ", ".join(map(str, roles)) or "none"
        return (
            f"targets {quoted(target)} (line {session.line_of(t)}), which contributes no editable "
            f"message (roles: {shown}): no effect"
        )
    if nullish(replacement):
        return (
            f"has no replacement: {_pi()} throws on every leaf whose context holds the edit "
            "and its target"
        )
    return None


def default_leaf_findings(session: SessionLike, known: list[Finding]) -> list[Finding]:
    """The default leaf, if Pi fails on it for a reason not reported yet.

    >>> import pisession
    >>> default_leaf_findings(pisession.load(pisession.sample_path("tour")), [])
    []
    """
    if not len(session) or any(f.kind in ("pi-fails", "parent-cycle") for f in known):
        return []
    last = session.line_of(len(session) - 1)
    if session.default_leaf is None:
        reason = (
            "the last entry's id is null: Pi's SessionManager takes it as its leaf after "
            "loading, a null leaf has no path, and the context is empty"
        )
        return [Finding(last, "null-leaf", reason)]
    try:
        session.fates()  # the rule's steps for the default leaf, streamed
        session.refuse_too_deep()  # where Pi's JSON.stringify of the context throws
    except CycleError:
        return []
    except SessionFormatError as exc:
        line = last if exc.line is None else exc.line
        return [Finding(line, "pi-fails", f"the default leaf: {exc.reason}")]
    return []


def check(session: SessionLike) -> list[Finding]:
    """Everything worth a reader's attention in a session, by line (file-wide first).

    >>> import pisession
    >>> [(f.line, f.kind) for f in check(pisession.load(pisession.sample_path("legacy-v1")))]
    [(None, 'legacy-version')]
    """
    found = file_findings(session) + tree_findings(session)
    found += walk_findings(session)
    found += default_leaf_findings(session, found)
    found.sort(key=lambda f: (f.line is not None, f.line or 0))
    return found


def check_data(session: SessionLike, findings: list[Finding] | None = None) -> dict[str, Any]:
    """``check`` as JSON-ready data (``pisession check --json``): the file, how many
    entries and problems (notes do not count), and every finding.

    >>> import pisession
    >>> check_data(pisession.load(pisession.sample_path("tour")))["problems"]
    0
    """
    findings = check(session) if findings is None else findings
    return {
        "file": session.source,
        "session": session.id,
        "entries": len(session),
        "problems": sum(1 for f in findings if not f.note),
        "findings": [f.to_dict() for f in findings],
    }


def readback_change(
    session: SessionLike,
    reread: Callable[[bytes, str], SessionLike],
    written: bytes | None = None,
) -> str | None:
    """How the migrated file, read back (``written``: what was written, by default
    ``session.dumps()``; ``reread(data, source)`` reads it, as ``pisession.loads``), gives
    another context at its default leaf than the session does in memory, and why, in one
    line; None when it gives the same (or nothing was migrated). Pi's own rewrite writes
    the same bytes, so Pi reads back the same (``pisession migrate`` says so).

    The causes are named (``migration.rewrite_losses``): an array line's id, which JSON
    cannot write, and numbers beyond float range, which JSON writes as null.

    >>> from pisession import loads
    >>> s = loads(b'{"type":"session","id":"s","timestamp":"t","cwd":"/"}\\n'
    ...     b'{"type":"message","message":{"role":"user","content":"a"}}\\n[1]\\n'
    ...     b'{"type":"message","message":{"role":"user","content":"b"}}\\n')
    >>> note = readback_change(s, loads); note.split(" (")[0]
    'the written file reads back with another context: 1 message instead of 2 messages'
    >>> note[82:]
    "(line 3 is an array: JSON does not write the id it got, so line 4's parent is missing)"
    """
    if not session.migrated:
        return None
    data = session.dumps() if written is None else written
    before, after = _context_outcome(session), _context_outcome(reread(data, session.source))
    if before == after:
        return None
    counts = [
        f"{len(o)} message{'' if len(o) == 1 else 's'}" if isinstance(o, list) else o
        for o in (after, before)
    ]
    how = f"{counts[0]} instead of {counts[1]}"
    if counts[0] == counts[1]:
        how = f"the same {counts[0]}, not all as in memory"
    why = rewrite_losses(session.rewritten) or "why is not known: please report it"
    return f"the written file reads back with another context: {how} ({why})"


def _context_outcome(session: SessionLike) -> list[object] | str:
    """The default leaf's context messages, or the error that stops it (one line)."""
    try:
        return session.context().messages
    except PisessionError as exc:
        return f"no context: {str(exc).split(': ', 1)[-1]}"
