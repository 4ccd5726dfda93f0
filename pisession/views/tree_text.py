"""``pisession tree``: the entry tree as text (box-drawing or ASCII), drawn in blocks so a
deep or wide file streams, and as data (``tree --json``).

>>> import pisession
>>> "◀ leaf" in tree_text(pisession.load(pisession.sample_path("tour")))
True
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import nullcontext
from dataclasses import dataclass
from itertools import islice
from typing import IO, TYPE_CHECKING

from ..engine.schemas import PREVIEW
from .explain_json import json_id
from .provenance import FATE, OFF_PATH
from .reasons import COLLAPSE, Gap, Leaves, collapse_runs, leaf_set, remarkable
from .terminal import Look, pad, wrap
from .text import entry_kind, entry_text, id_text, plural, preview_entry, visible

if TYPE_CHECKING:
    from ..tree import Shape
    from .explain_json import JSONObject
    from .protocol import SessionLike
    from .reasons import Positions

#: One line of a tree's walk: a position or a ``Gap``, the drawing before it and under it.
WalkItem = tuple["int | Gap", str, str]
#: A walk that can be walked again (``replayable``).
Walk = Callable[[], Iterator[WalkItem]]

# --- the tree as text ---------------------------------------------------------------


@dataclass(frozen=True)
class _Pieces:
    branch: str
    last: str
    through: str
    space: str
    on_path: str
    off_path: str
    leaf: str
    other_leaf: str
    dots: str


_BOX = _Pieces("├─ ", "└─ ", "│  ", "   ", "●", "○", "◀ leaf", "◁ leaf", "┆")
_ASCII = _Pieces("|- ", "`- ", "|  ", "   ", "*", "o", "<- leaf", "< leaf", ":")


@dataclass(frozen=True)
class _TreeView:
    look: Look
    pieces: _Pieces
    names: Sequence[str] | None
    leaf: int | None
    leaves: frozenset[int] | Leaves
    line_width: int

    def fate_of(self, position: int) -> str | None:
        return None if self.names is None else self.names[position]


def _tags(session: SessionLike, position: int, view: _TreeView) -> list[str]:
    """Fate, label and leaf marks of a tree line."""
    look, tags = view.look, list[str]()
    fate = view.fate_of(position)
    if fate:
        tags.append(look.paint(f"[{fate}]", FATE[fate].style))
    label = session.label_of(position)
    if label is not None:
        tags.append(look.paint(f"#{visible(label)}", "bold"))
    if position == view.leaf:
        tags.append(look.paint(view.pieces.leaf, "bold"))
    elif position in view.leaves:
        tags.append(view.pieces.other_leaf)
    return tags


def _node_lines(
    session: SessionLike, position: int, lead: str, cont: str, view: _TreeView, entry: object
) -> list[str]:
    """One entry of the tree: line, marks, id, kind, fate, label, leaf, a preview (of
    ``entry``: as ``decode_shown`` gives it); on a narrow terminal the marks after the
    kind go on a second line rather than off the edge."""
    look, index = view.look, session.index
    if view.names is None:
        mark = " "
    else:
        mark = view.pieces.off_path if view.fate_of(position) == OFF_PATH else view.pieces.on_path
    head = f"{pad(str(session.line_of(position)), view.line_width, right=True)} {lead}{mark} "
    head += id_text(index.ids[position])
    kind, role = index.types[position], index.roles[position]
    tail = " ".join(_tags(session, position, view))
    line = f"{head} {entry_kind(kind, role)}" + (f" {tail}" if tail else "")
    width = look.width
    used = 0 if width is None else look.visible_width(line)
    if width is not None and used > width:
        line = f"{head} {entry_kind(kind, role, short=True)}" + (f" {tail}" if tail else "")
        used = look.visible_width(line)
    if width is not None and used > width and tail:
        first = look.fit(f"{head} {entry_kind(kind, role, short=True)}")
        more = f"{' ' * view.line_width} {cont}{' ' * (len(mark) + 1)}{tail}"
        return [first, look.fit(more)]
    room = 60 if width is None else width - used - 4
    if room >= 8:
        start = room * 4 + 16  # enough for the cut below
        snippet = visible(entry_text(entry, start)[:start])
        if snippet:
            line += f'  "{look.cut(snippet, room)}"'
    return [line]


def _tree_gap(session: SessionLike, gap: Gap, lead: str, view: _TreeView) -> str:
    lines = gap.lines(session.line_of)
    text = f"{' ' * view.line_width} {lead}{view.pieces.dots} {gap.hidden:,} more entries ({lines})"
    return view.look.fit(view.look.paint(text, "dim"))


def tree_text(
    session: SessionLike,
    leaf_id: object = None,
    color: bool = False,
    width: int | None = None,
    ascii: bool = False,
    collapse: int = COLLAPSE,
    with_fates: bool = True,
) -> str:
    """The entry tree in Pi's order, one line per entry: line number, ``●`` on the path
    to the leaf (``○`` elsewhere), id, kind, fate, label, ``◀ leaf`` for the leaf shown
    and ``◁ leaf`` for every other branch end, a preview of the text.

    Straight runs stay in one column; branches are drawn with ``├─``/``└─``. Runs of
    more than ``collapse`` unremarkable entries with the same fate are shortened to
    their first and last two (``collapse=0`` shows everything). ``with_fates=False``
    draws the tree alone (for files whose path cannot be built).

    >>> import pisession
    >>> text = tree_text(pisession.load(pisession.sample_path("tour")), ascii=True, width=72)
    >>> print(text.splitlines()[8])
    18 |- o bs000001 branch_summary [off-path]  "The user read util.py (..."
    """
    return "".join(tree_chunks(session, leaf_id, color, width, ascii, collapse, with_fates))


def tree_chunks(
    session: SessionLike,
    leaf_id: object = None,
    color: bool = False,
    width: int | None = None,
    ascii: bool = False,
    collapse: int = COLLAPSE,
    with_fates: bool = True,
) -> Iterator[str]:
    """``tree_text`` a block of lines at a time, each written as it is drawn: memory
    holds one block, never the whole tree (a big session's second half is drawn by a
    helper process into a temporary file meanwhile, then copied out).

    >>> import pisession
    >>> s = pisession.load(pisession.sample_path("tour"))
    >>> "".join(tree_chunks(s)) == tree_text(s)
    True
    """
    if not len(session):
        yield "(no entries)\n"
        return
    leaf = session.default_leaf if leaf_id is None else session.position_of(leaf_id)
    look = Look(color, width, ascii)
    names = session.fates(leaf_id).names if with_fates else None
    view = _TreeView(
        look,
        _ASCII if ascii else _BOX,
        names,
        leaf,
        leaf_set(session.shape),
        len(str(session.line_of(len(session) - 1))),
    )
    yield from _tree_blocks(session, view, remarkable(session, leaf), collapse)


#: Lines of the tree drawn and written together (``tree``, ``export``): their previews
#: are read together (``decode_shown``), and the entries read in full for them forgotten
#: after. A block of 1,024 (about 1.5 MB of lines in a long session) is reused memory;
#: 4,096 faulted in 11,000 more pages on the 200k session.
TREE_BLOCK = 1024


def _tree_blocks(
    session: SessionLike, view: _TreeView, keep: Positions, collapse: int
) -> Iterator[str]:
    import tempfile

    from ..engine.parallel import BIG_SESSION, in_child
    from ..engine.stream import text_pieces

    walk, count, seen = replayable(
        lambda: tree_walk(session, view.names, keep, collapse, view.pieces)
    )
    split = count // 2 if len(session) >= BIG_SESSION else count
    with tempfile.TemporaryFile() if split < count else nullcontext() as spill:
        second = None
        if split < count:  # the second half by a helper process meanwhile
            second = in_child(_draw_into, session, view, walk, split, spill)
        yield from _drawn_blocks(session, view, islice(walk(), split))
        if second is not None and spill is not None:
            second.result()
            spill.seek(0)
            yield from text_pieces(spill)
    if seen < len(session):
        yield "\n".join(wrap(_unreached_text(session), view.look.width, " ")) + "\n"


#: Items of a tree's walk kept from its first pass; beyond, it is walked again when
#: drawn (the walk alone is cheap next to drawing) and kept nowhere.
WALK_HELD = 1 << 17


def replayable(make: Walk) -> tuple[Walk, int, int]:
    """(a function that gives the walk ``make()`` gives, its number of items, the
    entries they show or hide): its items kept when there are at most ``WALK_HELD``,
    else walked again each time.

    >>> again, count, seen = replayable(lambda: iter([(1, "", ""), (2, "", "")]))
    >>> list(again()) == list(again()), count, seen
    (True, 2, 2)
    """
    first = make()
    held = list(islice(first, WALK_HELD))
    count = len(held)
    seen = sum(item.hidden if isinstance(item, Gap) else 1 for item, _, _ in held)
    if count < WALK_HELD:
        return (lambda: iter(held)), count, seen
    held.clear()  # kept nowhere: walked again when drawn
    for item, _, _ in first:
        count += 1
        seen += item.hidden if isinstance(item, Gap) else 1
    return make, count, seen


def _draw_into(
    session: SessionLike, view: _TreeView, walk: Walk, start: int, out: IO[bytes]
) -> None:
    """The tree's lines from item ``start`` on, written to the file ``out`` (by the
    helper process; again from the start of the file if it has to be done here)."""
    out.seek(0)
    out.truncate()
    for block in _drawn_blocks(session, view, islice(walk(), start, None)):
        out.write(block.encode("utf-8"))
    out.flush()


def _drawn_blocks(
    session: SessionLike, view: _TreeView, items: Iterator[WalkItem]
) -> Iterator[str]:
    """``TREE_BLOCK`` of ``tree_walk``'s items at a time, drawn, as text."""
    while block := list(islice(items, TREE_BLOCK)):
        yield "\n".join(_drawn(session, view, block)) + "\n"
        session.forget([item for item, _, _ in block if not isinstance(item, Gap)])


def tree_walk(
    session: SessionLike,
    names: Sequence[str] | None,
    keep: Positions,
    collapse: int,
    pieces: _Pieces | None = None,
) -> Iterator[WalkItem]:
    """The lines of the tree as ``(item, lead, cont)``: ``item`` a position or a
    ``Gap``, ``lead`` the drawing before it (``├─ ``...), ``cont`` the drawing under it.

    Roots in file order, children in Pi's order (by timestamp), with one change that
    keeps a long session's tree from drifting right: at a branch point the child on the
    path to the leaf (without fates: the last child) comes last and continues in its
    parent's column; the other children are drawn before it as side branches. Straight
    runs stay in one column. ``names`` (the fate column, or None) shortens runs of one
    fate and finds the path.

    >>> import pisession
    >>> s = pisession.load(pisession.sample_path("tour"))
    >>> rows = [(s.line_of(p), lead) for p, lead, _ in tree_walk(s, s.fates().names, set(), 0)]
    >>> rows[7:10]
    [(9, ''), (18, '├─ '), (19, '│  ')]
    """
    shape, pieces = session.shape, pieces or _BOX
    fate_of: Callable[[int], object] = (lambda p: None) if names is None else names.__getitem__
    for root in shape.roots:  # one root's tree at a time: the stack holds one branch
        yield from _root_walk(shape, names, keep, collapse, pieces, root, fate_of)


def _root_walk(
    shape: Shape,
    names: Sequence[str] | None,
    keep: Positions,
    collapse: int,
    pieces: _Pieces,
    root: int,
    fate_of: Callable[[int], object],
) -> Iterator[WalkItem]:
    """``tree_walk`` of the tree under one root."""
    stack = [(root, "", "")]
    while stack:
        start, lead, cont = stack.pop()
        chain = shape.chain(start)
        for rank, item in enumerate(collapse_runs(chain, keep, fate_of, collapse)):
            yield item, lead if rank == 0 else cont, cont
        kids = shape.children(chain[-1])
        if not kids:
            continue
        straight = next((k for k in kids if names is not None and names[k] != OFF_PATH), kids[-1])
        stack.append((straight, cont, cont))
        for kid in reversed([k for k in kids if k != straight]):
            stack.append((kid, cont + pieces.branch, cont + pieces.through))


def decode_shown(session: SessionLike, items: Sequence[WalkItem]) -> dict[int, object]:
    """The entries that ``tree_walk``'s items show, as their previews read them
    (``entry_text``), decoded together (one read of the file for neighbouring lines): a
    message entry's line as its type, role and content (``text.preview_entry``), any
    other entry in full.

    >>> import pisession
    >>> s = pisession.load(pisession.sample_path("tour"))
    >>> items = list(tree_walk(s, s.fates().names, set(), 0))
    >>> shown = decode_shown(s, items)
    >>> shown[items[0][0]]["type"], shown[items[4][0]].message.role
    ('session_info', 'user')
    """
    positions = [item for item, _, _ in items if not isinstance(item, Gap)]
    lines = session.decoded_lines(positions, PREVIEW)
    shown: dict[int, object] = {}
    for position, line in zip(positions, lines or ()):
        entry = None if line is None else preview_entry(line)
        if entry is not None:
            shown[position] = entry
    rest = [p for p in positions if p not in shown]
    shown.update(zip(rest, session.entries_at(rest)))
    return shown


def _drawn(session: SessionLike, view: _TreeView, items: Sequence[WalkItem]) -> list[str]:
    """The lines of some of ``tree_walk``'s items."""
    shown = decode_shown(session, items)
    lines: list[str] = []
    for item, lead, cont in items:
        if isinstance(item, Gap):
            lines.append(_tree_gap(session, item, lead, view))
        else:
            lines.extend(_node_lines(session, item, lead, cont, view, shown[item]))
    return lines


def _unreached_text(session: SessionLike) -> str:
    """The note under a tree that leaves entries out: how many, and their lines."""
    unreached = session.shape.unreached()
    lines = ", ".join(str(session.line_of(p)) for p in unreached[:10])
    more = ", ..." if len(unreached) > 10 else ""
    check = "; see pisession check" if session.problems()["cycles"] else ""
    return (
        f"(not in the tree: {plural(len(unreached), 'entry', 'entries')} in or under a loop "
        f"of parents, which no root leads to: line{'' if len(unreached) == 1 else 's'} "
        f"{lines}{more}{check})"
    )


# --- the tree as data -----------------------------------------------------------------------


def tree_entries(
    session: SessionLike, leaf_id: object = None, with_fates: bool = True
) -> Iterator[JSONObject]:
    """Every entry of the tree in Pi's order (``Shape.preorder``), one dict at a time:
    line, id, the parent's id, depth, type, role, label, fate at the leaf, whether it
    is a leaf (a branch end).

    >>> import pisession
    >>> s = pisession.load(pisession.sample_path("tour"))
    >>> row = next(e for e in tree_entries(s) if e["id"] == "bs000001")
    >>> row["parentId"], row["depth"], row["fate"]
    ('a2000001', 8, 'off-path')
    """
    index = session.index
    names = session.fates(leaf_id).names if with_fates else None
    leaves = set(session.shape.leaves)
    for p, depth in session.shape.preorder():
        parent = index.parents[p]
        role = index.roles[p] if index.types[p] == "message" else None
        yield {
            "line": session.line_of(p),
            "id": json_id(index.ids[p]),
            "parentId": json_id(index.ids[parent]) if parent >= 0 else None,
            "depth": depth,
            "type": json_id(index.types[p]),
            "role": role if isinstance(role, str) else None,
            "label": session.label_of(p),
            "fate": None if names is None else names[p],
            "leaf": p in leaves,
        }
