"""Where each node of an entry-tree drawing goes: ``tree_layout``, pure data (no matplotlib).

A layout holds every node's place, its colour (its fate for the chosen leaf), its text,
the edges, the path edges and the compaction cut; ``pisession.views.draw`` turns it into
a figure.

The layout is a deterministic "leaf-counting" tree layout, as ``git log --graph``
draws history: every leaf gets its own column, a parent sits straight above its first
child (Pi's order), so a conversation reads as one straight line and each branch
leaves it sideways. Long straight runs of entries with the same fate can be collapsed
into one "N entries" node (automatic above ``COLLAPSE_THRESHOLD`` entries).
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..engine.index import of_type
from ..errors import PisessionError
from ..js.value import UNDEFINED
from ..tree import shown_name
from .display import short_id
from .provenance import FATE, FATES, UNKNOWN_COLOUR
from .text import entry_kind, plural
from .text import one_line as shorten
from .text import strip_unsafe as clean_text

if TYPE_CHECKING:
    from ..projection import Projection
    from .protocol import SessionLike

#: Above this many entries ``collapse=None`` collapses long runs.
COLLAPSE_THRESHOLD = 300

#: Runs shorter than this stay as separate nodes when collapsing.
MIN_RUN = 3

#: Deeper than this many rows, ``collapse=None`` collapses long runs (to fit a screen).
MAX_ROWS = 26


@dataclass
class LayoutNode:
    """One drawn node: an entry, or a collapsed run of entries (``count > 1``)."""

    key: int
    positions: tuple[int, ...]
    x: float
    y: float
    fate: str | None
    colour: str
    text: str
    id: object = None
    kind: str = ""
    line: int = 0
    label: object = None  # any JSON value Pi keeps as a label
    is_leaf: bool = False
    is_compaction: bool = False
    in_cycle: bool = False

    @property
    def count(self) -> int:
        """How many entries the node stands for.

        >>> LayoutNode(4, (4, 5, 6), 0.0, 0.0, "sent", "#fff", "3 entries").count
        3
        """
        return len(self.positions)


@dataclass
class Cut:
    """Where the newest compaction on the path cuts it: ``above`` (last summarized
    node, None when nothing was summarized) and ``below`` (first kept node, or the
    compaction itself when it keeps nothing)."""

    compaction: int
    above: int | None
    below: int
    first_kept_id: object = None


@dataclass
class TreeLayout:
    """A drawing as data. Node keys are the position of each node's first entry.

    ``edges`` are the tree's parent -> child links; ``loop_edges`` the links that close
    a parent cycle (drawn curved); ``path_edges`` run from the root to the leaf.
    """

    nodes: dict[int, LayoutNode]
    edges: list[tuple[int, int]]
    path_edges: list[tuple[int, int]]
    cut: Cut | None
    leaf: int | None
    orientation: str
    collapsed: bool
    title: str = ""
    subtitle: str = ""
    error: str | None = None
    node_of: dict[int, int] = field(default_factory=dict)
    loop_edges: list[tuple[int, int]] = field(default_factory=list)

    def node_for(self, position: int) -> LayoutNode:
        """The node that shows the entry at ``position``.

        >>> import pisession
        >>> tree_layout(pisession.load(pisession.sample_path("tour"))).node_for(0).text
        'name n0000001'
        """
        return self.nodes[self.node_of[position]]

    @property
    def fates_shown(self) -> list[str]:
        """Fates present in the drawing, in legend order.

        >>> import pisession
        >>> tree_layout(pisession.load(pisession.sample_path("tour"))).fates_shown[:2]
        ['sent', 'kept']
        """
        present = {n.fate for n in self.nodes.values()}
        return [k.name for k in FATES if k.name in present]


#: A subtree's contour: per depth from the bottom, its rightmost and leftmost column.
_Contour = tuple[list[int], list[int]]
#: An edge between two nodes (their keys), parent first.
_Edge = tuple[int, int]

# --- layout -----------------------------------------------------------------------------


def _walk(
    children: dict[int, list[int]], roots: list[int], size: int
) -> tuple[list[int], dict[int, int | None]]:
    """Preorder from each root, then from every entry no root reaches (parent cycles).

    Returns ``(order, parent)`` where ``parent`` is the node each entry was reached
    from. Iterative: a chain of thousands of entries does not hit the recursion limit.
    """
    order: list[int] = []
    parent: dict[int, int | None] = {}
    starts = [*roots, *range(size)]
    for start in starts:
        if start in parent:
            continue
        stack: list[tuple[int, int | None]] = [(start, None)]
        while stack:
            node, via = stack.pop()
            if node in parent:
                continue
            parent[node] = via
            order.append(node)
            stack.extend((c, node) for c in reversed(children.get(node, [])) if c not in parent)
    return order, parent


def _runs(
    order: list[int],
    parent: dict[int, int | None],
    children: dict[int, list[int]],
    fates: Sequence[str | None],
    special: set[int],
    min_run: int,
) -> dict[int, list[int]]:
    """Group straight runs of non-special entries with equal fates; returns key -> run."""
    run_of: dict[int, int] = {}
    runs: dict[int, list[int]] = {}
    for node in order:
        via = parent[node]
        if (
            via is not None
            and node not in special
            and via not in special
            and len(children.get(via, [])) == 1
            and fates[via] == fates[node]
        ):
            key = run_of[via]
            runs[key].append(node)
        else:
            key = node
            runs[key] = [node]
        run_of[node] = key
    out: dict[int, list[int]] = {}
    for key, members in runs.items():
        if len(members) >= min_run:
            out[key] = members
        else:
            for member in members:
                out[member] = [member]
    return out


def _place_children(
    kids: list[int], contours: dict[int, _Contour]
) -> tuple[list[int], list[int], list[int]]:
    """Offsets of child subtrees side by side, each as far left as its contour allows.

    A contour lists, per depth *from the bottom* (so a parent can append its own row
    in O(1)), the leftmost and rightmost column a subtree uses. The first child sits
    at offset 0 (straight below its parent); each later child is moved right until it
    clears every earlier sibling at every depth they share.
    """
    right, left = contours.pop(kids[0])
    offsets = [0]
    for kid in kids[1:]:
        kid_right, kid_left = contours.pop(kid)
        size, kid_size = len(right), len(kid_right)
        shared = min(size, kid_size)
        offset = 1
        for d in range(shared):
            offset = max(offset, right[size - 1 - d] + 1 - kid_left[kid_size - 1 - d])
        if kid_size > size:  # the new subtree is deeper: extend the contour downwards
            extra = kid_size - size
            right = [offset + r for r in kid_right[:extra]] + right
            left = [offset + v for v in kid_left[:extra]] + left
            size = kid_size
        for d in range(shared):
            i, j = size - 1 - d, kid_size - 1 - d
            right[i] = max(right[i], offset + kid_right[j])
            left[i] = min(left[i], offset + kid_left[j])
        offsets.append(offset)
    return offsets, right, left


def _columns(
    keys: list[int], kids: dict[int | None, list[int]]
) -> tuple[dict[int, int], dict[int, int]]:
    """Column and depth of every node: a tidy, git-graph-like packing.

    Bottom-up, each subtree gets a contour; children are packed left to right (see
    ``_place_children``); a parent's row spans to its last child so the edges to its
    children cross no other node. Top-level trees (roots) are packed the same way.
    """
    contours: dict[int, _Contour] = {}
    offsets: dict[int, int] = {}
    for key in reversed(keys):
        children = kids[key]
        if not children:
            contours[key] = ([0], [0])
            continue
        placed, right, left = _place_children(children, contours)
        offsets.update(zip(children, placed))
        right.append(max(placed))
        left.append(0)
        contours[key] = (right, left)
    if kids[None]:
        placed, _, _ = _place_children(kids[None], contours)
        offsets.update(zip(kids[None], placed))
    column: dict[int, int] = {}
    depth: dict[int, int] = {}
    for key in kids[None]:
        column[key], depth[key] = offsets[key], 0
    for key in keys:
        for child in kids[key]:
            column[child] = column[key] + offsets[child]
            depth[child] = depth[key] + 1
    return column, depth


def _collapse_runs(collapse: bool | int | None, size: int, rows: int) -> int | None:
    """The minimum run length to collapse, or None for no collapsing. Automatic
    (``None``): collapse a tree of more than ``COLLAPSE_THRESHOLD`` entries, or one
    deeper than ``MAX_ROWS`` rows (it would not fit on a screen)."""
    if collapse is None:
        return MIN_RUN if size > COLLAPSE_THRESHOLD or rows > MAX_ROWS else None
    if isinstance(collapse, bool):
        return MIN_RUN if collapse else None
    return max(int(collapse), 2)


def _compaction_cut(projection: Projection) -> tuple[int, int | None, int] | None:
    """``(compaction, above, below)``: the newest compaction on the path, the last path
    entry it summarized (None: none) and the first one it kept (itself: none), read
    off the rule's selection (``first_kept``, ``start``, ``cut``)."""
    selection, path = projection.selection, projection.path
    if selection.compaction is None:
        return None
    below = selection.start if selection.first_kept is not None else selection.cut
    above = path[below - 1] if below > 0 else None
    return (
        selection.compaction,
        above,
        path[below] if below < selection.cut else selection.compaction,
    )


@dataclass
class _Reading:
    """What the rule says about a leaf, as the drawing needs it."""

    leaf: int | None
    fates: Sequence[str | None]
    path: list[int]
    cut: tuple[int, int | None, int] | None
    error: str | None
    #: the newest compaction's ``firstKeptEntryId`` (shown beside the cut)
    first_kept_id: object = None


def _reading(session: SessionLike, leaf_id: object) -> _Reading:
    """Fates, path and cut for a leaf; a file whose context cannot be built gets no
    fates and the error in words."""
    leaf = session.default_leaf if leaf_id is None else session.position_of(leaf_id)
    try:
        fates = session.fates(leaf_id).names
        projection = session.projection(leaf_id)
    except PisessionError as exc:
        return _Reading(leaf, [None] * len(session), [], None, clean_text(exc))
    cut, first_kept_id = _compaction_cut(projection), projection.selection.first_kept_id
    return _Reading(leaf, fates, projection.path, cut, None, first_kept_id)


def _kept_visible(
    session: SessionLike, children: dict[int, list[int]], cycles: set[int], reading: _Reading
) -> set[int]:
    """Entries a collapsed run never swallows: roots, leaves, branch points, entries
    in cycles, the chosen leaf, both sides of the cut, compactions, labelled entries."""
    index = session.index
    size = len(session)
    special = {p for p in range(size) if len(children.get(p, [])) != 1}
    special |= set(session.roots()) | cycles
    if reading.leaf is not None:
        special.add(reading.leaf)
    if reading.cut:
        special |= {c for c in reading.cut if c is not None}
    special.update(of_type(index, "compaction"))
    special.update(index.by_id[k] for k in session.labels if k in index.by_id)
    return special


def _depths(order: list[int], parent: dict[int, int | None]) -> int:
    """How many rows the uncollapsed tree needs (its depth + 1)."""
    depth: dict[int, int] = {}
    for node in order:
        via = parent[node]
        depth[node] = 0 if via is None else depth[via] + 1
    return max(depth.values(), default=-1) + 1


def _node(
    session: SessionLike,
    key: int,
    members: tuple[int, ...],
    fate: str | None,
    place: tuple[int, int],
    flags: tuple[bool, bool],
) -> LayoutNode:
    """One layout node for the entry at ``key`` (standing for ``members``)."""
    index = session.index
    entry_id = index.ids[key]
    entry_id = None if entry_id is UNDEFINED else entry_id
    if len(members) > 1:
        text = f"{len(members):,} entries"
    else:
        short = entry_kind(index.types[key], index.roles[key], short=True)
        text = f"{shorten(short, 10)} {short_id(entry_id)}"
    is_leaf, in_cycle = flags
    return LayoutNode(
        key=key,
        positions=members,
        x=float(place[0]),
        y=float(place[1]),
        fate=fate,
        colour=FATE[fate].colour if fate else UNKNOWN_COLOUR,
        text=text,
        id=entry_id,
        kind=entry_kind(index.types[key], index.roles[key]),
        line=session.line_of(key),
        label=session.label_of(key),
        is_leaf=is_leaf,
        is_compaction=index.types[key] == "compaction",
        in_cycle=in_cycle,
    )


def _edges(
    order: list[int],
    children: dict[int, list[int]],
    parent: dict[int, int | None],
    node_of: dict[int, int],
    path: list[int],
) -> tuple[list[_Edge], list[_Edge], list[_Edge]]:
    """Tree edges, loop edges (closing a parent cycle) and path edges, between nodes."""
    edges: list[_Edge] = []
    loops: list[_Edge] = []
    for position in order:
        for child in children.get(position, []):
            a, b = node_of[position], node_of[child]
            if a != b:
                (edges if parent[child] == position else loops).append((a, b))
    path_edges = [
        (node_of[a], node_of[b]) for a, b in itertools.pairwise(path) if node_of[a] != node_of[b]
    ]
    return edges, loops, path_edges


def _layout_cut(reading: _Reading, node_of: dict[int, int]) -> Cut | None:
    """The compaction cut between nodes (None: no compaction on the path)."""
    if not reading.cut:
        return None
    compaction, above, below = reading.cut
    above_node = None if above is None else node_of[above]
    return Cut(node_of[compaction], above_node, node_of[below], reading.first_kept_id)


def _condensed(
    order: list[int],
    parent: dict[int, int | None],
    children: dict[int, list[int]],
    runs: dict[int, list[int]],
    node_of: dict[int, int],
) -> tuple[list[int], dict[int, int], dict[int, int]]:
    """The tree of nodes (a run is one node), packed: node keys, columns and depths."""
    keys = [p for p in order if node_of[p] == p]
    kids: dict[int | None, list[int]] = {None: [k for k in keys if parent[k] is None]}
    for key in keys:
        last = runs[key][-1]
        kids[key] = [c for c in children.get(last, []) if parent.get(c) == last]
    column, depth = _columns(keys, kids)
    return keys, column, depth


def _turn_starts(session: SessionLike) -> set[int]:
    """Positions of user messages: where each turn of the conversation starts."""
    index = session.index
    return {
        p for p in range(len(session)) if index.types[p] == "message" and index.roles[p] == "user"
    }


def _rows(order: list[int], parent: dict[int, int | None], runs: dict[int, list[int]]) -> int:
    """How many rows a tree needs once each run is one node."""
    node_of = {member: key for key, members in runs.items() for member in members}
    depth: dict[int, int] = {}
    for key in order:
        if node_of[key] == key:
            via = parent[key]
            depth[key] = 0 if via is None else depth[node_of[via]] + 1
    return max(depth.values(), default=-1) + 1


def _layout_runs(
    session: SessionLike,
    reading: _Reading,
    order: list[int],
    parent: dict[int, int | None],
    children: dict[int, list[int]],
    cycles: set[int],
    min_run: int | None,
) -> tuple[dict[int, list[int]], bool]:
    """Each node's entries, and whether runs stop at turns: one entry apiece (``min_run``
    None), else runs of at least ``min_run`` same-fate entries. A run stops at every
    user message (a turn start) as long as the tree then fits ``MAX_ROWS`` rows, so a
    straight session still shows its turns instead of one "N entries" box."""
    if min_run is None:
        return {p: [p] for p in order}, False
    special = _kept_visible(session, children, cycles, reading)
    by_turn = special | _turn_starts(session)
    runs = _runs(order, parent, children, reading.fates, by_turn, min_run)
    if len(runs) < len(order) and _rows(order, parent, runs) <= MAX_ROWS:
        return runs, True
    return _runs(order, parent, children, reading.fates, special, min_run), False


def _titles(
    session: SessionLike, reading: _Reading, min_run: int | None, by_turn: bool = False
) -> tuple[str, str]:
    leaf = reading.leaf
    leaf_text = "-" if leaf is None else short_id(session.index.ids[leaf])
    title = shown_name(session) or os.path.basename(str(session.source))
    entries = plural(len(session), "entry", "entries")
    subtitle = f"leaf {leaf_text} · {entries} · {len(reading.path):,} on the path"
    if min_run is not None:
        within = " within a turn" if by_turn else ""
        subtitle += f" · runs of ≥{min_run} same-fate entries{within} collapsed"
    return clean_text(title), subtitle


def tree_layout(
    session: SessionLike,
    leaf_id: object = None,
    orientation: str = "TB",
    collapse: bool | int | None = None,
) -> TreeLayout:
    """The entry tree laid out for drawing, coloured by each entry's fate at a leaf.

    ``orientation`` is ``"TB"`` (root at the top) or ``"LR"`` (root at the left).
    ``collapse``: None collapses runs of same-fate entries when the tree has more than
    ``COLLAPSE_THRESHOLD`` entries or more than ``MAX_ROWS`` rows, True/False force
    it, an int sets the shortest run to collapse. Leaves, branch points, compactions,
    labelled entries and the entries either side of the compaction cut are never
    collapsed; neither are user messages (turn starts) while the drawing then fits
    ``MAX_ROWS`` rows.

    A file whose context cannot be built (a parent cycle on the path, an entry Pi
    fails on) is still laid out: nodes get no fate and ``error`` says why.

    >>> import pisession
    >>> layout = tree_layout(pisession.load(pisession.sample_path("tour")))
    >>> layout.node_for(20).fate, layout.node_for(20).text
    ('dropped-system', 'sys sys00002')
    >>> layout.cut.first_kept_id
    'u2000001'
    """
    if orientation not in ("TB", "LR"):
        raise ValueError(f"orientation must be 'TB' or 'LR', not {orientation!r}")
    reading = _reading(session, leaf_id)
    children = session.children()
    order, parent = _walk(children, session.roots(), len(session))
    cycles = {p for loop in session.problems()["cycles"] for p in loop}
    min_run = _collapse_runs(collapse, len(session), _depths(order, parent))
    runs, by_turn = _layout_runs(session, reading, order, parent, children, cycles, min_run)
    node_of = {member: key for key, members in runs.items() for member in members}
    keys, column, depth = _condensed(order, parent, children, runs, node_of)
    nodes = {}
    for key in keys:
        members = tuple(runs[key])
        place = (column[key], -depth[key]) if orientation == "TB" else (depth[key], -column[key])
        flags = (reading.leaf in members, any(m in cycles for m in members))
        nodes[key] = _node(session, key, members, reading.fates[key], place, flags)
    edges, loops, path_edges = _edges(order, children, parent, node_of, reading.path)
    cut = _layout_cut(reading, node_of)
    title, subtitle = _titles(session, reading, min_run, by_turn)
    return TreeLayout(
        nodes=nodes,
        edges=edges,
        loop_edges=loops,
        path_edges=path_edges,
        cut=cut,
        leaf=None if reading.leaf is None else node_of[reading.leaf],
        orientation=orientation,
        collapsed=any(n.count > 1 for n in nodes.values()),
        title=title,
        subtitle=subtitle,
        error=reading.error,
        node_of=node_of,
    )
