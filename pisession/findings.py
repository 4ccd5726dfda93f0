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

from dataclasses import dataclass

from . import context as rule
from .errors import CycleError, SessionFormatError, cycle_text
from .jsvalue import NO_KEY, UNDEFINED, js_key, nullish, strict_equal
from .jsvalue import field as js_field
from .migration import CURRENT_VERSION, header_version

#: Finding kinds that do not make ``check`` fail (harmless to Pi and to readers).
NOTE_KINDS = frozenset({"skipped-line (blank)"})


@dataclass(frozen=True)
class Finding:
    """One thing worth a reader's attention: where (line, or None for the file), what
    kind, and a sentence. ``note`` findings do not count as problems."""

    line: int | None
    kind: str
    message: str

    @property
    def note(self) -> bool:
        """True for harmless findings (they do not make ``check`` fail)."""
        return self.kind in NOTE_KINDS

    def to_dict(self) -> dict:
        """The finding as JSON-ready data (``pisession check --json``)."""
        return {"line": self.line, "kind": self.kind, "note": self.note, "message": self.message}


def version_text(version: object) -> str:
    """A header version in words.

    >>> version_text(None), version_text(2)
    ('no version (means version 1)', 'version 2')
    """
    return "no version (means version 1)" if version is None else f"version {version!r}"


def _name(index, position: int) -> str:
    value = index.ids[position]
    return "(no id)" if value is UNDEFINED else repr(value)


def file_findings(session) -> list[Finding]:
    """Skipped lines and a legacy version."""
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


def tree_findings(session) -> list[Finding]:
    """Dangling parents, duplicate ids, parent cycles and message entries Pi fails on."""
    index, line = session.index, session.line_of
    problems = session.problems()
    out = []
    for p in problems["dangling_parents"]:
        parent = js_field(session.entry(p), "parentId")
        out.append(
            Finding(
                line(p),
                "dangling-parent",
                f"entry {_name(index, p)} has parentId {parent!r}, which no entry has: Pi "
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
                f"id {key!r} is used by {len(positions)} entries (lines {lines}{more}); the "
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
                f"{cycle_text([index.ids[p] for p in cycle])} (lines {lines}{more}): Pi 0.87.1 "
                "hangs on any leaf whose path reaches it",
            )
        )
    for p in range(len(index)):
        if index.types[p] == "message" and index.roles[p] is rule.NO_MESSAGE:
            out.append(
                Finding(
                    line(p),
                    "pi-fails",
                    f"message entry {_name(index, p)} has no message object: Pi 0.87.1 throws "
                    "on every leaf whose path holds it",
                )
            )
    return out


def _paths_to(session, kinds: tuple[str, ...]):
    """``(position, path)`` for every entry of these types reachable from a root: the
    tree walked once, the path to each entry kept as a stack (not walked again)."""
    index = session.index
    if not set(kinds) & set(index.types):
        return
    shape = session.shape
    path: list[int] = []
    stack = [(p, 0) for p in reversed(shape.roots)]
    while stack:
        position, depth = stack.pop()
        del path[depth:]
        path.append(position)
        if index.types[position] in kinds:
            yield position, path
        stack.extend((c, depth + 1) for c in reversed(shape.children(position)))


def compaction_findings(session) -> list[Finding]:
    """Compactions whose kept range is empty for a reason other than retain-none."""
    index = session.index
    out = []
    for c, path in _paths_to(session, ("compaction",)):
        selection = rule.select(index, path)
        if selection.compaction != c or selection.first_kept is not None:
            continue
        target = js_field(session.entry(c), "firstKeptEntryId")
        if strict_equal(target, index.ids[c]):
            continue  # retain-none: the compaction names itself, as Pi writes it
        if target is UNDEFINED:
            why = "has no firstKeptEntryId"
        else:
            why = f"names firstKeptEntryId {target!r}, which is not on the path before it"
        out.append(
            Finding(
                session.line_of(c),
                "compaction-kept-range",
                f"compaction {_name(index, c)} {why}, so nothing before it is kept",
            )
        )
    return out


def edit_findings(session) -> list[Finding]:
    """Context edits that change nothing where they stand, and edits Pi fails on."""
    index = session.index
    out = []
    for e, path in _paths_to(session, ("context_edit",)):
        message = _edit_problem(session, e, path)
        if message is not None:
            kind = "pi-fails" if message.startswith("has no replacement") else "context-edit"
            out.append(
                Finding(session.line_of(e), kind, f"context edit {_name(index, e)} {message}")
            )
    return out


def _edit_problem(session, e: int, path: list[int]) -> str | None:
    """What is wrong with the edit at ``e`` (None: it does what it says)."""
    index = session.index
    edit = session.entry(e)
    target = js_field(edit, "targetId")
    key = js_key(target)
    t = None if key is NO_KEY else index.by_id.get(key)
    if t is None:
        return f"targets {target!r}, which no entry has: no effect"
    where = f"targets {target!r} (line {session.line_of(t)}), which"
    if t not in path:
        return f"{where} is not on the edit's path: no effect there"
    if not rule.select(index, path).holds(path.index(t), t):
        return f"{where} is no longer in the context there: no effect"
    if index.types[t] == "message" and index.roles[t] is rule.NO_MESSAGE:
        return None  # reported as pi-fails already
    messages = rule.entry_messages(session.entry(t))
    roles = [js_field(m, "role") for m in messages]
    replacement = js_field(edit, "replacement")
    if replacement is None:
        return None if messages else f"targets {target!r}, which contributes no message: no effect"
    if not any(r in rule.EDITABLE_ROLES for r in roles):
        shown = ", ".join(map(str, roles)) or "none"
        return (
            f"targets {target!r} (line {session.line_of(t)}), which contributes no editable "
            f"message (roles: {shown}): no effect"
        )
    if nullish(replacement):
        return (
            "has no replacement: Pi 0.87.1 throws on every leaf whose context holds the edit "
            "and its target"
        )
    return None


def default_leaf_findings(session, known: list[Finding]) -> list[Finding]:
    """The default leaf, if Pi fails on it for a reason not reported yet."""
    if not len(session) or any(f.kind in ("pi-fails", "parent-cycle") for f in known):
        return []
    try:
        session.projection()
    except CycleError:
        return []
    except SessionFormatError as exc:
        return [
            Finding(
                session.line_of(session.default_leaf), "pi-fails", f"the default leaf: {exc.reason}"
            )
        ]
    return []


def check(session) -> list[Finding]:
    """Everything worth a reader's attention in a session, by line (file-wide first)."""
    found = file_findings(session) + tree_findings(session)
    found += compaction_findings(session) + edit_findings(session)
    found += default_leaf_findings(session, found)
    found.sort(key=lambda f: (f.line is not None, f.line or 0))
    return found
