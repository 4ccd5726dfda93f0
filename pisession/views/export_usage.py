"""The export's usage table (``pisession stats``' rows: the whole session and the branch
to the leaf), and the helper process that makes it for a big session while the page's
process reads the fates and walks the tree.

>>> import pisession
>>> usage_rows(pisession.load(pisession.sample_path("tour")))[-1]
('cost', '$0.0257', '$0.0232')
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .export_text import esc
from .protocol import SessionLike

if TYPE_CHECKING:
    from ..engine.parallel import _Pending


def usage_rows(session: SessionLike, leaf_id: object = None) -> list[tuple[str, str, str]]:
    """(row, whole session, branch) as text: entries, messages by role, tool calls,
    tokens, cost (``pisession stats``' rows).

    >>> import pisession
    >>> usage_rows(pisession.load(pisession.sample_path("tour")))[0][0]
    'entries'
    """
    from .stats_text import stats_rows

    return stats_rows(session, leaf_id)


def usage_table(session: SessionLike, leaf_id: object = None) -> str:
    """The usage table of a session and a leaf, as HTML (``export_page.usage_html``).

    >>> import pisession
    >>> usage_table(pisession.load(pisession.sample_path("tour")))[:27]
    '<h2 id=usage>Usage and cost'
    """
    rows = usage_rows(session, leaf_id)
    body = "".join(
        f"<tr><td>{esc(name)}</td><td class=num>{esc(a)}</td><td class=num>{esc(b)}</td></tr>"
        for name, a, b in rows
    )
    head = "<tr><th></th><th class=num>whole session</th><th class=num>this branch</th></tr>"
    return (
        "<h2 id=usage>Usage and cost</h2><p>As Pi's session statistics count them: every "
        "entry for the session (compacted history included), the path for the branch.</p>"
        f'<div class="scroll"><table><thead>{head}</thead><tbody>{body}</tbody></table></div>'
    )


def usage_helper(session: SessionLike, leaf_id: object) -> _Pending[str]:
    """``usage_table``, made by a helper process when the session is big (else here,
    when its result is asked for).

    >>> import pisession
    >>> usage_helper(pisession.load("tour"), None).result().startswith("<h2 id=usage>")
    True
    """
    from ..engine.parallel import BIG_SESSION, in_child

    return in_child(usage_table, session, leaf_id, fork=len(session) >= BIG_SESSION)


def usage_meanwhile(session: SessionLike, leaf_id: object) -> _Pending[str]:
    """The usage table of the leaf (``usage_helper``: made by a helper process for a
    big session, while the page's process reads the fates), asked for once the tree's
    shape and the path are made: made after the fork, the shape would copy every page
    of the parent column it reads (reading an object writes its reference count),
    7,000 of them on the 200k session.

    >>> import pisession
    >>> usage_meanwhile(pisession.load("tour"), None).result()[:13]
    '<h2 id=usage>'
    """
    session.shape  # noqa: B018
    session.path_positions(leaf_id)  # (and the path, walked once: kept)
    return usage_helper(session, leaf_id)
