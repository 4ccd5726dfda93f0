"""Why each entry did or did not reach the model: one *fate* per entry for a leaf.

This is the chapter's question answered for every line of the file at once. Drawings,
tables and ``pisession explain`` all colour or word their output from these fates.
"""

from __future__ import annotations

from dataclasses import dataclass

from .context import EDITABLE_ROLES
from .jsvalue import UNDEFINED
from .jsvalue import field as js_field

SENT = "sent"  # on the path (no compaction) or after the compaction: sent
KEPT = "kept"  # in the kept range of the newest compaction: sent
COMPACTION = "compaction"  # the newest compaction: sends checkpoint + summary
SUMMARIZED = "summarized"  # before the kept range: replaced by the summary
DROPPED_SYSTEM = "dropped-system"  # system message inside the kept range: dropped
EDITED = "edited"  # content replaced by a context edit
OMITTED = "omitted"  # removed by a context edit (replacement null)
STATE_ONLY = "state-only"  # selected, but contributes no message
OFF_PATH = "off-path"  # on another branch

#: Every fate, in the order legends list them.
FATES = (SENT, KEPT, COMPACTION, SUMMARIZED, DROPPED_SYSTEM, EDITED, OMITTED, STATE_ONLY, OFF_PATH)

#: Whether an entry with this fate reached the model (at least one message).
REACHED = {SENT: True, KEPT: True, COMPACTION: True, EDITED: True}

_STATE_WORDS = {
    "model_change": "sets the model",
    "thinking_level_change": "sets the thinking level",
    "label": "names an entry (a bookmark)",
    "session_info": "names the session",
    "custom": "stores extension state",
    "usage": "records token usage and cost",
    "context_edit": "edits another entry's messages",
    "compaction": "an older compaction: its summary was itself summarized",
    "branch_summary": "a branch summary with an empty summary",
}


@dataclass(frozen=True)
class Fate:
    """What happened to one entry in the context of one leaf."""

    position: int
    line: int
    id: object
    type: object
    fate: str
    reason: str
    messages: int = 0

    @property
    def reached_model(self) -> bool:
        """True when the entry contributed at least one message."""
        return REACHED.get(self.fate, False)


def _name(entry: object) -> str:
    value = js_field(entry, "id")
    return "(no id)" if value is UNDEFINED else str(value)


def _roles(messages: list) -> str:
    roles = [str(js_field(m, "role")) for m in messages]
    return ", ".join(roles) if roles else "nothing"


def entry_fates(session, leaf_id: object = None) -> list[Fate]:
    """One ``Fate`` per entry (file order) for the context at ``leaf_id``.

    >>> import pisession
    >>> s = pisession.load(pisession.sample_path("tour"))
    >>> fates = {f.id: f.fate for f in entry_fates(s)}
    >>> fates["t2000001"], fates["sys00002"], fates["u1000001"], fates["u5000001"]
    ('edited', 'dropped-system', 'summarized', 'off-path')
    """
    projection = session.projection(leaf_id)
    rank_on_path = {position: rank for rank, position in enumerate(projection.path)}
    first_kept = projection.first_kept
    kept_from = rank_on_path[first_kept] if first_kept is not None else len(rank_on_path)
    selected = {item.position: item for item in projection.entries}
    compaction = projection.compaction
    comp_name = _name(session.entry(compaction)) if compaction is not None else ""
    leaf_name = _name(session.entry(projection.path[-1])) if projection.path else "-"
    fates = []
    for position in range(len(session)):
        entry = session.view(position)  # type, id and role need no full decode
        kind = js_field(entry, "type")
        item = selected.get(position)
        if position not in rank_on_path:
            fate, reason = OFF_PATH, f"not on the path to leaf {leaf_name} (another branch)"
        elif item is None:
            role = js_field(js_field(entry, "message"), "role")
            if kind == "message" and role == "system" and rank_on_path[position] >= kept_from:
                fate, reason = (
                    DROPPED_SYSTEM,
                    f"system message in the kept range of compaction {comp_name}: dropped "
                    "(the compaction carries the system prompt checkpoint)",
                )
            else:
                reason = f"before the kept range of compaction {comp_name}: replaced by its summary"
                if kind in ("model_change", "thinking_level_change") or role == "assistant":
                    reason += (
                        " (its model/thinking setting still counts: settings scan the whole path)"
                    )
                fate = SUMMARIZED
        elif item.edit is not None and js_field(item.edit, "replacement") is None:
            fate, reason = OMITTED, f"omitted by context edit {_name(item.edit)} (replacement null)"
        elif item.edit is not None and any(
            js_field(m, "role") in EDITABLE_ROLES for m in item.messages
        ):
            fate, reason = (
                EDITED,
                f"sent as {_roles(item.messages)}, content replaced by context edit "
                f"{_name(item.edit)}",
            )
        elif position == compaction and item.messages:
            fate, reason = (
                COMPACTION,
                f"newest compaction on the path: sends {_roles(item.messages)}",
            )
        elif not item.messages:
            words = _STATE_WORDS.get(str(kind), f"a {kind!s} entry contributes no message")
            fate, reason = STATE_ONLY, f"state only: {words}; never sent"
        elif item.why.startswith("kept"):
            fate, reason = (
                KEPT,
                f"in the kept range of compaction {comp_name}: sent as {_roles(item.messages)}",
            )
        else:
            fate, reason = SENT, f"sent as {_roles(item.messages)}"
        fates.append(
            Fate(
                position,
                session.line_of(position),
                None if js_field(entry, "id") is UNDEFINED else js_field(entry, "id"),
                None if kind is UNDEFINED else kind,
                fate,
                reason,
                len(item.messages) if item else 0,
            )
        )
    return fates
