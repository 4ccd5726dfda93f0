"""``pisession stats`` as rows of text: messages by role, entries, tokens and cost, for the
whole session and for the branch to a leaf.

>>> import pisession
>>> stats_rows(pisession.load(pisession.sample_path("tour")))[0][0]
'entries'
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from itertools import compress, repeat
from operator import eq
from typing import TYPE_CHECKING, cast

from .text import visible

if TYPE_CHECKING:
    from ..engine.stats import SessionStats
    from .protocol import SessionLike

#: Message roles in the order ``stats`` lists them, with their row names.
ROLE_ROWS = (
    ("user", "user"),
    ("assistant", "assistant"),
    ("toolResult", "tool results"),
    ("system", "system"),
    ("bashExecution", "bash executions"),
    ("custom", "custom"),
)


def role_counts(session: SessionLike, positions: Sequence[int]) -> Counter[str]:
    """Message entries by role among ``positions`` (``(no role)`` for a message without
    one), from the index alone: no entry decoded.

    >>> import pisession
    >>> role_counts(pisession.load(pisession.sample_path("tour")), range(5))
    Counter({'system': 1, 'user': 1})
    """
    types, roles = session.index.types, session.index.roles
    every = positions == range(len(types))
    kinds = types if every else map(types.__getitem__, positions)
    messages = map(eq, kinds, repeat("message"))
    try:  # the usual case, counted in C: every role a string
        found = Counter(compress(roles if every else map(roles.__getitem__, positions), messages))
        if all(type(role) is str for role in found):
            return cast("Counter[str]", found)
    except TypeError:  # an object as role
        pass
    counts: Counter[str] = Counter()
    for p in positions:
        if types[p] == "message":
            role = roles[p]
            counts[role if isinstance(role, str) else "(no role)"] += 1
    return counts


def _number(value: float) -> str:
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return f"{value:,}" if isinstance(value, int) else f"{value:,.2f}"


def stats_rows(
    session: SessionLike,
    leaf_id: object = None,
    whole: SessionStats | None = None,
    branch: SessionStats | None = None,
) -> list[tuple[str, str, str]]:
    """``pisession stats``' rows as text: (row, whole session, branch to the leaf).
    The message rows by role add up to the messages row; a role other than user,
    assistant and tool result is listed when it occurs.

    >>> import pisession
    >>> rows = stats_rows(pisession.load(pisession.sample_path("tour")))
    >>> [r for r in rows if r[0].strip() in ("messages", "user", "system")]
    [('messages', '16', '14'), ('  user', '5', '4'), ('  system', '2', '2')]
    """
    whole = session.stats() if whole is None else whole
    branch = session.stats(leaf_id, branch=True) if branch is None else branch
    path = session.path_positions(leaf_id)
    counts = role_counts(session, range(len(session))), role_counts(session, path)
    known = dict(ROLE_ROWS)
    rows: list[tuple[str, float, float]] = [
        ("entries", len(session), len(path)),
        ("messages", sum(counts[0].values()), sum(counts[1].values())),
    ]
    for role, name in ROLE_ROWS:
        if role in ("user", "assistant", "toolResult") or counts[0][role]:
            rows.append((f"  {name}", counts[0][role], counts[1][role]))
    for role in sorted(set(counts[0]) - set(known)):
        rows.append((f"  {visible(role)}", counts[0][role], counts[1][role]))
    w, b = whole.usage, branch.usage
    rows += [
        ("tool calls", whole.tool_calls, branch.tool_calls),
        ("tokens", w.total_tokens, b.total_tokens),
        ("  input", w.input, b.input),
        ("  output", w.output, b.output),
        ("  cache read", w.cacheRead, b.cacheRead),
        ("  cache write", w.cacheWrite, b.cacheWrite),
    ]
    out = [(name, _number(x), _number(y)) for name, x, y in rows]
    return [*out, ("cost", f"${w.cost:,.4f}", f"${b.cost:,.4f}")]
