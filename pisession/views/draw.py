"""Entry-tree drawings: the tree, the path to a leaf, and the fate of every entry.

Two layers, as everywhere in pisession:

- ``tree_layout`` is pure data: where each node goes, its colour (its fate for the
  chosen leaf), its text, the edges, the path edges and the compaction cut.
- ``draw_tree`` / ``save_tree`` turn a layout into a matplotlib figure (no Graphviz).

The layout is a deterministic "leaf-counting" tree layout, as ``git log --graph``
draws history: every leaf gets its own column, a parent sits straight above its first
child (Pi's order), so a conversation reads as one straight line and each branch
leaves it sideways. Long straight runs of entries with the same fate can be collapsed
into one "N entries" node (automatic above ``COLLAPSE_THRESHOLD`` entries).

matplotlib is imported only when drawing, and no pyplot figure manager or backend is
touched: the figure is a plain ``matplotlib.figure.Figure`` (it shows as PNG in
Jupyter and saves with ``fig.savefig``).
"""

from __future__ import annotations

import functools
import html
import io
import itertools
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, cast

from ..engine.index import of_type
from ..errors import PisessionError
from ..js.value import UNDEFINED, js_key
from ..js.value import field as js_field
from ..tree import shown_name
from .display import short_id
from .provenance import FATE, FATES, UNKNOWN_COLOUR, ink_on
from .text import entry_kind, plural
from .text import one_line as shorten
from .text import strip_unsafe as clean_text

if TYPE_CHECKING:
    from matplotlib.artist import Artist

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
        """How many entries the node stands for."""
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
        """The node that shows the entry at ``position``."""
        return self.nodes[self.node_of[position]]

    @property
    def fates_shown(self) -> list[str]:
        """Fates present in the drawing, in legend order."""
        present = {n.fate for n in self.nodes.values()}
        return [k.name for k in FATES if k.name in present]


# --- layout -----------------------------------------------------------------------------


def _walk(children: dict[int, list[int]], roots: list[int], size: int):
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


def _runs(order, parent, children, fates, special, min_run):
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


def _place_children(kids: list[int], contours: dict) -> tuple[list[int], list, list]:
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


def _columns(keys: list[int], kids: dict) -> tuple[dict[int, int], dict[int, int]]:
    """Column and depth of every node: a tidy, git-graph-like packing.

    Bottom-up, each subtree gets a contour; children are packed left to right (see
    ``_place_children``); a parent's row spans to its last child so the edges to its
    children cross no other node. Top-level trees (roots) are packed the same way.
    """
    contours: dict = {}
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


def _compaction_cut(projection) -> tuple[int, int | None, int] | None:
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
    fates: list
    path: list[int]
    cut: tuple | None
    error: str | None
    #: the newest compaction's ``firstKeptEntryId`` (shown beside the cut)
    first_kept_id: object = None


def _reading(session, leaf_id: object) -> _Reading:
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


def _kept_visible(session, children: dict, cycles: set, reading: _Reading) -> set[int]:
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


def _depths(order: list[int], parent: dict) -> int:
    """How many rows the uncollapsed tree needs (its depth + 1)."""
    depth: dict[int, int] = {}
    for node in order:
        via = parent[node]
        depth[node] = 0 if via is None else depth[via] + 1
    return max(depth.values(), default=-1) + 1


def _node(session, key: int, members: tuple, fate, place: tuple, flags: tuple) -> LayoutNode:
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


def _edges(order, children, parent, node_of, path):
    """Tree edges, loop edges (closing a parent cycle) and path edges, between nodes."""
    edges, loops = [], []
    for position in order:
        for child in children.get(position, []):
            a, b = node_of[position], node_of[child]
            if a != b:
                (edges if parent[child] == position else loops).append((a, b))
    path_edges = [
        (node_of[a], node_of[b]) for a, b in itertools.pairwise(path) if node_of[a] != node_of[b]
    ]
    return edges, loops, path_edges


def _layout_cut(reading: _Reading, node_of: dict) -> Cut | None:
    """The compaction cut between nodes (None: no compaction on the path)."""
    if not reading.cut:
        return None
    compaction, above, below = reading.cut
    above = None if above is None else node_of[above]
    return Cut(node_of[compaction], above, node_of[below], reading.first_kept_id)


def _condensed(order, parent, children, runs, node_of):
    """The tree of nodes (a run is one node), packed: node keys, columns and depths."""
    keys = [p for p in order if node_of[p] == p]
    kids: dict[int | None, list[int]] = {None: [k for k in keys if parent[k] is None]}
    for key in keys:
        last = runs[key][-1]
        kids[key] = [c for c in children.get(last, []) if parent.get(c) == last]
    column, depth = _columns(keys, kids)
    return keys, column, depth


def _turn_starts(session) -> set[int]:
    """Positions of user messages: where each turn of the conversation starts."""
    index = session.index
    return {
        p for p in range(len(session)) if index.types[p] == "message" and index.roles[p] == "user"
    }


def _rows(order: list[int], parent: dict, runs: dict) -> int:
    """How many rows a tree needs once each run is one node."""
    node_of = {member: key for key, members in runs.items() for member in members}
    depth: dict[int, int] = {}
    for key in order:
        if node_of[key] == key:
            via = parent[key]
            depth[key] = 0 if via is None else depth[node_of[via]] + 1
    return max(depth.values(), default=-1) + 1


def _layout_runs(session, reading: _Reading, order, parent, children, cycles, min_run):
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
    session, reading: _Reading, min_run: int | None, by_turn: bool = False
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
    session,
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


# --- drawing: shared -------------------------------------------------------------------

#: Text sizes in points. Figures are sized in inches and shown at 100 px per inch (their
#: natural size), so 7.5 pt is 10.4 px at 100 % zoom: the smallest text drawn.
FONT = 8.0
SMALL = 7.5
TITLE = 11.0

#: Pixels per inch of a figure shown at its natural size, and how much finer it is
#: rendered for notebooks and explorers (2: sharp on a HiDPI screen).
NATURAL_DPI = 100
HIDPI = 2

_PATH_COLOUR = "#1A1A1A"
_EDGE_COLOUR = "#9A9A9A"
_CUT_COLOUR = "#882255"
_MUTED = "#444444"
_BOX_EDGE = "#333333"
_CHANGED = "#FFE08A"


def _mpl_text(text: object) -> str:
    """Session text as matplotlib shows it literally (no mathtext from ``$``)."""
    return clean_text(text).replace("$", r"\$")


def _text_inches(text: str, size: float = FONT) -> float:
    """About how wide ``text`` is at ``size`` points (DejaVu Sans averages 0.6 em)."""
    return len(text) * 0.57 * size / 72


def _box_inches(text: str, size: float = FONT) -> float:
    """Width of a text in a rounded box (``pad=0.3`` on each side)."""
    return _text_inches(text, size) + 0.6 * size / 72


@functools.cache
def _figure_class():
    from matplotlib.figure import Figure

    class PisessionFigure(Figure):
        """A plain Figure that shows itself in Jupyter as a sharp PNG (rendered at
        ``HIDPI`` times its natural size, displayed at its natural size), without pyplot
        and whatever the inline backend's settings."""

        def _repr_png_(self):
            return figure_png(self, dpi=NATURAL_DPI * HIDPI)

        def _ipython_display_(self):
            from IPython.display import publish_display_data

            data, metadata = figure_bundle(self)
            publish_display_data(data, metadata)

    return PisessionFigure


def _new_figure(width: float, height: float):
    return _figure_class()(figsize=(width, height), dpi=NATURAL_DPI)


def alt_text(fig) -> str:
    """What a figure shows, in words: its alternative text for a screen reader or a
    page without images (pisession's figures say it; another figure gets its titles).

    >>> import pisession
    >>> alt_text(draw_tree(pisession.load(pisession.sample_path("tour"))))[:48]
    'Entry tree of Tour of the session format: leaf a'
    """
    said = getattr(fig, "pisession_alt", "")
    if said:
        return said
    titles = [t.get_text() for t in getattr(fig, "texts", []) if t.get_text()]
    return "; ".join(titles) or "a figure"


def tree_alt(layout: TreeLayout) -> str:
    """A tree drawing in words: file, leaf, sizes, how many entries have each fate, the
    compaction cut and what is collapsed."""
    nodes = list(layout.nodes.values())
    counts: dict[str, int] = {}
    for node in nodes:
        counts[node.fate or "no fate"] = counts.get(node.fate or "no fate", 0) + node.count
    order = [*layout.fates_shown, "no fate"]
    fates = ", ".join(f"{counts[f]} {f}" for f in order if f in counts)
    ends = {a for a, _ in layout.edges}
    leaves = sum(1 for n in nodes if n.key not in ends)
    words = [
        f"Entry tree of {layout.title}: {layout.subtitle}",
        f"{plural(leaves, 'branch end', 'branch ends')}",
        f"fates at the leaf: {fates}",
    ]
    if layout.cut is not None:
        kept = layout.cut.first_kept_id
        words.append(
            "a compaction cuts the path"
            + (f" before its first kept entry {short_id(kept)}" if kept else "")
        )
    if layout.collapsed:
        runs = [n for n in nodes if n.count > 1]
        words.append(f"{plural(len(runs), 'run')} of entries drawn as one box each")
    if layout.error:
        words.append(f"no context: {layout.error}")
    return clean_text("; ".join(words) + ".")


def chart_alt(chart: ColumnChart) -> str:
    """A column chart in words: its titles, then each column with how many rows it has
    (the picture's point is how the columns differ)."""
    columns = "; ".join(f"{c.title} ({plural(len(c.boxes), 'row')})" for c in chart.columns)
    return clean_text(f"{chart.title}: {chart.subtitle}; columns from left to right: {columns}.")


def figure_png(fig, dpi: int = NATURAL_DPI) -> bytes:
    """A figure as PNG bytes (deterministic: no date or software metadata).

    >>> import pisession
    >>> figure_png(draw_tree(pisession.load(pisession.sample_path("tour"))))[:4]
    b'\\x89PNG'
    """
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=dpi, metadata={"Software": None})
    return buffer.getvalue()


def natural_size(fig) -> tuple[int, int]:
    """A figure's natural size in CSS pixels (``NATURAL_DPI`` per inch).

    >>> import pisession
    >>> natural_size(draw_tree(pisession.load(pisession.sample_path("tour"))))
    (683, 862)
    """
    width, height = fig.get_size_inches()
    return round(width * NATURAL_DPI), round(height * NATURAL_DPI)


def figure_bundle(fig) -> tuple[dict, dict]:
    """What Jupyter stores for a figure: an HTML ``<img>`` with alternative text (a PNG
    rendered at ``HIDPI`` times the natural size, shown at its natural width at most, so
    it is sharp on a HiDPI screen and never larger than drawn), and the same words as
    the text form. Jupyter's ``image/png`` output has no alternative text (JupyterLab,
    Notebook 7 and nbconvert render it as an ``<img>`` without ``alt``), so the picture
    is sent as HTML, which they, Colab, VS Code and GitHub all render.

    >>> import pisession
    >>> data, meta = figure_bundle(draw_tree(pisession.load(pisession.sample_path("tour"))))
    >>> sorted(data), data["text/html"][:24], data["text/plain"][:13]
    (['text/html', 'text/plain'], '<img width="683" alt="En', 'Entry tree of')
    """
    alt = alt_text(fig)
    return {"text/html": figure_html(fig, alt), "text/plain": alt}, {}


def figure_html(fig, alt: str = "") -> str:
    """A figure as an HTML ``<img>`` (base64 PNG at ``HIDPI``), shown at its natural
    width at most: for static pictures stored in notebooks.

    >>> import pisession
    >>> figure_html(draw_tree(pisession.load(pisession.sample_path("tour"))), "a tree")[:40]
    '<img width="683" alt="a tree" style="max'
    """
    import base64

    width, _ = natural_size(fig)
    data = base64.b64encode(figure_png(fig, dpi=NATURAL_DPI * HIDPI)).decode("ascii")
    return (
        f'<img width="{width}" alt="{html.escape(alt, quote=True)}" '
        f'style="max-width:100%;height:auto" src="data:image/png;base64,{data}">'
    )


# --- drawing: the tree ------------------------------------------------------------------

#: Rows and columns of a tree drawing, in inches (columns widen to the widest node).
_ROW = {"TB": 0.34, "LR": 0.42}
_GAP = {"TB": 0.32, "LR": 0.45}
_LEFT, _TOP, _BOTTOM, _LEGEND = 0.25, 0.7, 0.2, 2.1

#: Around a node, where its notes go: its label and the leaf mark (per orientation).
_NOTE_SIDE = {"TB": {"label": "right", "leaf": "below"}, "LR": {"label": "above", "leaf": "right"}}
#: Along the tree, the way to the root; across it, the side where no branch is drawn.
_BACK = {"TB": 1.0, "LR": -1.0}
_FREE = {"TB": -1.0, "LR": 1.0}


@dataclass(frozen=True)
class _Frame:
    """Where a tree layout goes on the page: inches per step (``ux``, ``uy``), the
    extent in steps, and the text scale (1 unless squeezed into a given axes)."""

    ux: float
    uy: float
    x0: float
    x1: float
    y0: float
    y1: float
    scale: float = 1.0

    @property
    def inches(self) -> tuple[float, float]:
        return (self.x1 - self.x0) * self.ux, (self.y1 - self.y0) * self.uy


def _frame(layout: TreeLayout) -> _Frame:
    """Steps and extent for a layout: every text at full size, nothing overlapping."""
    o = layout.orientation
    nodes = list(layout.nodes.values())
    widest = _widest(layout)
    notes = [
        (n, _text_inches(_label_text(n.label), SMALL) if n.label is not None else 0.0)
        for n in nodes
    ]
    cut = _text_inches(f"✂ cut of {'x' * 8}", SMALL) + 0.3 if layout.cut else 0.1
    xs = [n.x for n in nodes] or [0.0]
    ys = [n.y for n in nodes] or [0.0]
    if o == "TB":
        ux, uy = widest + _GAP[o], _ROW[o]
        right = max((n.x * ux + _box_inches(n.text) / 2 + w + 0.15 for n, w in notes), default=0)
        x0 = min(xs) - (widest / 2 + cut) / ux
        return _Frame(ux, uy, x0, right / ux + 0.1, min(ys) - 1.0, max(ys) + 0.7)
    ux, uy = widest + _GAP[o], _ROW[o]
    leaf = _text_inches("◀ leaf", SMALL) + 0.1
    x0, x1 = min(xs) - (widest / 2 + 0.1) / ux, max(xs) + (widest / 2 + leaf) / ux
    return _Frame(ux, uy, x0, x1, min(ys) - 0.8, max(ys) + (0.5 if layout.cut else 0) + 1.0)


def _widest(layout: TreeLayout) -> float:
    return max((_box_inches(n.text) for n in layout.nodes.values()), default=1.0)


def _label_text(label: object) -> str:
    return "“" + shorten(label, 28) + "”"


def _canvas(layout: TreeLayout, frame: _Frame, figsize):
    """A new figure sized to the frame: title, subtitle, the axes, and where the legend
    goes (right of the tree, top-aligned)."""
    need_w, need_h = frame.inches
    axes_w, axes_h = need_w, need_h
    width = max(_LEFT + axes_w + _LEGEND, _heading_inches(layout.title, layout.subtitle))
    height = _TOP + max(axes_h, 2.6) + _BOTTOM
    if figsize is not None:
        width, height = figsize
        axes_w = max(width - _LEFT - _LEGEND, 1.0)
        axes_h = max(height - _TOP - _BOTTOM, 1.0)
        frame = _scaled(frame, min(axes_w / need_w, axes_h / need_h))
    fig = _new_figure(width, height)
    top = 1 - _TOP / height
    ax = fig.add_axes((_LEFT / width, top - axes_h / height, axes_w / width, axes_h / height))
    _heading(fig, layout.title, layout.subtitle)
    return fig, ax, ((_LEFT + axes_w + 0.1) / width, top), frame


def _heading(fig, title: str, subtitle: str) -> None:
    """A figure's title and subtitle, top left."""
    height = fig.get_size_inches()[1]
    x = _LEFT / fig.get_size_inches()[0]
    fig.text(x, 1 - 0.1 / height, _mpl_text(title), fontsize=TITLE, weight="bold", va="top")
    fig.text(x, 1 - 0.36 / height, _mpl_text(subtitle), fontsize=SMALL, va="top", color=_MUTED)


def _heading_inches(title: str, subtitle: str) -> float:
    """How wide a figure must be for its title and subtitle."""
    return 2 * _LEFT + max(_text_inches(title, TITLE) * 1.1, _text_inches(subtitle, SMALL))


def _scaled(frame: _Frame, scale: float) -> _Frame:
    return _Frame(frame.ux, frame.uy, frame.x0, frame.x1, frame.y0, frame.y1, scale)


def draw_layout(layout: TreeLayout, *, ax=None, figsize=None):
    """Draw a ``TreeLayout``; returns the matplotlib Figure (see ``draw_tree``)."""
    frame = _frame(layout)
    if ax is None:
        fig, ax, legend_at, frame = _canvas(layout, frame, figsize)
    else:
        fig, legend_at = ax.figure, None
        box = ax.get_position()
        fig_w, fig_h = fig.get_size_inches()
        need_w, need_h = frame.inches
        frame = _scaled(frame, min(1.0, box.width * fig_w / need_w, box.height * fig_h / need_h))
        ax.set_title(_mpl_text(f"{layout.title}: {layout.subtitle}"), fontsize=FONT, loc="left")
    ax.set_xlim(frame.x0, frame.x1)
    ax.set_ylim(frame.y0, frame.y1)
    ax.set_axis_off()
    _draw_edges(ax, layout, frame.scale)
    for node in layout.nodes.values():
        _draw_node(ax, node, frame.scale, layout.orientation)
    if layout.cut is not None:
        _draw_cut(ax, layout, frame)
    _draw_legend(fig, ax, layout, legend_at)
    if layout.error:
        words = _mpl_text(shorten(f"no context: {layout.error}", 110))
        ax.text(0.0, 0.0, words, transform=ax.transAxes, fontsize=SMALL, color=_CUT_COLOUR)
    fig.pisession_alt = tree_alt(layout)
    return fig


def _draw_edges(ax, layout: TreeLayout, scale: float) -> None:
    """Tree edges thin and grey, the path thick and dark, cycle links curved arrows."""
    from matplotlib.collections import LineCollection

    nodes = layout.nodes

    def xy(key):
        return nodes[key].x, nodes[key].y

    path = set(layout.path_edges)
    plain = [(xy(a), xy(b)) for a, b in layout.edges if (a, b) not in path]
    ax.add_collection(LineCollection(plain, colors=_EDGE_COLOUR, linewidths=1.0 * scale, zorder=1))
    thick = [(xy(a), xy(b)) for a, b in layout.path_edges]
    ax.add_collection(LineCollection(thick, colors=_PATH_COLOUR, linewidths=3.0 * scale, zorder=2))
    for a, b in layout.loop_edges:
        arrow = {"arrowstyle": "-|>", "color": _CUT_COLOUR, "lw": 1.2 * scale}
        arrow.update(shrinkA=8 * scale, shrinkB=8 * scale, mutation_scale=9 * scale)
        arrow["connectionstyle"] = "arc3,rad=-0.6"
        ax.annotate("", xy=xy(b), xytext=xy(a), zorder=1, arrowprops=arrow)


def _node_style(node: LayoutNode, scale: float) -> dict:
    """The box of a node: fill by fate, text colour for contrast, border by role."""
    edge, width, ink = _BOX_EDGE, 0.8 * scale, FATE[node.fate].ink if node.fate else "#000000"
    if node.fate == "off-path":
        edge, ink = "#8C8C8C", "#4D4D4D"
    if node.in_cycle:
        edge, width = _CUT_COLOUR, 2.0 * scale
    if node.is_leaf:
        edge, width = "#000000", 2.4 * scale
    shape = "sawtooth,pad=0.4" if node.is_compaction else "round,pad=0.3"
    return {"boxstyle": shape, "fc": node.colour, "ec": edge, "lw": width, "ink": ink}


def _note_offset(where: str, half: float, size: float) -> tuple[tuple[float, float], str, str]:
    """Offset in points, and alignment, of a note on one side of a node."""
    if where == "right":
        return (half + 5, 0), "left", "center"
    if where == "below":
        return (0, -1.6 * size), "center", "center"
    return (0, 1.3 * size), "center", "bottom"


def _draw_node(ax, node: LayoutNode, scale: float, orientation: str) -> None:
    """One node: its box (a stack of cards for a collapsed run), its label and, for
    the leaf, the leaf mark, on the sides ``_NOTE_SIDE`` gives."""
    size = FONT * scale
    style = _node_style(node, scale)
    ink = style.pop("ink")
    text = _mpl_text(node.text)
    if node.count > 1:  # a stack of cards: two offset shadows behind the run's box
        for step in (2, 1):
            offset = (2.5 * step * scale, -2.5 * step * scale)
            ax.annotate(text, (node.x, node.y), xytext=offset, textcoords="offset points",
                        ha="center", va="center", fontsize=size, color="none", zorder=3,
                        bbox=style)  # fmt: skip
    weight = "bold" if node.is_leaf else "normal"
    ax.text(node.x, node.y, text, ha="center", va="center", fontsize=size, color=ink,
            zorder=4, fontweight=weight, bbox=style)  # fmt: skip
    half = _box_inches(node.text, size) * 72 / 2
    notes = []
    if node.label is not None:
        notes.append(("label", _label_text(node.label), "italic", "normal", _MUTED))
    if node.is_leaf:
        mark = "▲ leaf" if orientation == "TB" else "◀ leaf"
        notes.append(("leaf", mark, "normal", "bold", "#000000"))
    for kind, words, slant, bold, colour in notes:
        offset, ha, va = _note_offset(_NOTE_SIDE[orientation][kind], half, SMALL * scale)
        ax.annotate(_mpl_text(words), (node.x, node.y), xytext=offset, textcoords="offset points",
                    ha=ha, va=va, fontsize=SMALL * scale, fontstyle=slant, fontweight=bold,
                    color=colour, zorder=5)  # fmt: skip


def _place(orientation: str, along: float, across: float) -> tuple[float, float]:
    """A point given along the tree (root to leaf) and across it, as (x, y)."""
    return (across, along) if orientation == "TB" else (along, across)


def _along_across(node: LayoutNode, orientation: str) -> tuple[float, float]:
    return (node.y, node.x) if orientation == "TB" else (node.x, node.y)


def _draw_cut(ax, layout: TreeLayout, frame: _Frame) -> None:
    """The compaction cut: a dashed line across the path between the last summarized
    and the first kept entry, named after the compaction, and (when it keeps entries)
    a bracket from the compaction back to its first kept entry."""
    o, cut, nodes, scale = layout.orientation, cast(Cut, layout.cut), layout.nodes, frame.scale
    below, _ = _along_across(nodes[cut.below], o)
    across = _along_across(nodes[cut.below], o)[1]
    if cut.above is not None:
        at = (_along_across(nodes[cut.above], o)[0] + below) / 2
    else:
        at = below + _BACK[o] * 0.5
    reach = (_widest(layout) / 2 + 0.12) / (frame.ux if o == "TB" else frame.uy)
    if o == "LR":
        reach = 0.45
    line = [_place(o, at, across - reach), _place(o, at, across + reach)]
    ax.plot(*zip(*line), color=_CUT_COLOUR, lw=1.6 * scale, ls="--", zorder=5)
    words = _mpl_text(f"✂ cut of {short_id(nodes[cut.compaction].id)}")
    ha, va = ("right", "center") if o == "TB" else ("center", "bottom")
    ax.text(*_place(o, at, across + _FREE[o] * (reach + 0.04)), words, ha=ha, va=va,
            fontsize=SMALL * scale, color=_CUT_COLOUR, zorder=5)  # fmt: skip
    if cut.below != cut.compaction:
        _draw_first_kept(ax, layout, frame)


def _half_across(node: LayoutNode, frame: _Frame, orientation: str) -> float:
    """Half a node's size across the tree, in steps."""
    if orientation == "TB":
        return _box_inches(node.text, FONT * frame.scale) / 2 / frame.ux
    return 0.9 * FONT * frame.scale / 72 / frame.uy


def _draw_first_kept(ax, layout: TreeLayout, frame: _Frame) -> None:
    """A dashed bracket from the compaction back to the first kept entry
    (``firstKeptEntryId``), on the side of the path where no branch is drawn."""
    o, scale, side = layout.orientation, frame.scale, _FREE[layout.orientation]
    cut = cast(Cut, layout.cut)
    compaction, below = layout.nodes[cut.compaction], layout.nodes[cut.below]
    c_along, c_across = _along_across(compaction, o)
    b_along, b_across = _along_across(below, o)
    half_c, half_b = _half_across(compaction, frame, o), _half_across(below, frame, o)
    step = frame.ux if o == "TB" else frame.uy
    rail = c_across + side * (max(half_c, half_b) + 14 * scale / 72 / step)
    points = [(c_along, c_across + side * half_c), (c_along, rail), (b_along, rail)]
    style = {"color": _CUT_COLOUR, "lw": 1.0 * scale, "ls": (0, (4, 3)), "zorder": 2}
    ax.plot(*zip(*[_place(o, a, c) for a, c in points]), **style)
    arrow = {"arrowstyle": "-|>", "color": _CUT_COLOUR, "lw": 1.0 * scale, "shrinkA": 0}
    arrow.update(shrinkB=0, mutation_scale=9 * scale)
    end, start = _place(o, b_along, b_across + side * half_b), _place(o, b_along, rail)
    ax.annotate("", xy=end, xytext=start, zorder=2, arrowprops=arrow)
    label_at = _place(o, (b_along + c_along) / 2, rail + side * 3 * scale / 72 / step)
    ax.text(*label_at, "firstKeptEntryId", rotation=90 if o == "TB" else 0,
            ha="right" if o == "TB" else "center", va="center" if o == "TB" else "bottom",
            fontsize=SMALL * scale, color=_CUT_COLOUR, fontstyle="italic", zorder=2)  # fmt: skip


def _legend_handles(layout: TreeLayout) -> list:
    """One legend entry per fate and mark the drawing shows, nothing else."""
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    nodes = layout.nodes.values()
    handles: list[Artist] = [
        Patch(facecolor=FATE[f].colour, edgecolor=_BOX_EDGE, label=FATE[f].legend)
        for f in layout.fates_shown
    ]
    if any(n.fate is None for n in nodes):
        handles.append(Patch(facecolor=UNKNOWN_COLOUR, edgecolor=_BOX_EDGE, label="no fate"))
    if layout.path_edges:
        handles.append(Line2D([], [], color=_PATH_COLOUR, lw=3.0, label="path to the leaf"))
    handles.append(Patch(facecolor="white", edgecolor="black", lw=2.4, label="the leaf"))
    if layout.cut is not None:
        handles.append(Line2D([], [], color=_CUT_COLOUR, lw=1.6, ls="--", label="compaction cut"))
    if layout.collapsed:
        handles.append(Patch(facecolor="white", edgecolor=_BOX_EDGE, label="N entries: a run"))
    if any(n.in_cycle for n in nodes):
        handles.append(
            Patch(facecolor="white", edgecolor=_CUT_COLOUR, lw=2, label="in a parent cycle")
        )
    return handles


def _draw_legend(fig, ax, layout: TreeLayout, anchor) -> None:
    """The legend right beside the tree (top-aligned), or right of a given axes."""
    options = {"handles": _legend_handles(layout), "fontsize": SMALL, "frameon": False}
    options.update(title="fate at the leaf", title_fontsize=FONT, alignment="left")
    if anchor is not None:
        fig.legend(loc="upper left", bbox_to_anchor=anchor, borderaxespad=0, **options)
    else:
        ax.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0), **options)


def draw_tree(
    session,
    leaf_id: object = None,
    *,
    ax=None,
    orientation: str = "TB",
    collapse: bool | int | None = None,
    figsize: tuple[float, float] | None = None,
):
    """Draw the entry tree with the path to ``leaf_id`` and every entry's fate.

    Returns a ``matplotlib.figure.Figure``. Without ``ax`` the figure is sized to the
    tree (one column per leaf, text at full size) and made without pyplot, so no
    backend is chosen or changed: Jupyter shows it as a sharp PNG at its natural size,
    a script calls ``fig.savefig``. With ``ax`` (e.g. from ``plt.subplots()``) the tree
    is drawn into it.

    >>> import pisession
    >>> fig = draw_tree(pisession.load(pisession.sample_path("tour")), "cm000001")
    >>> type(fig).__name__
    'PisessionFigure'
    """
    layout = tree_layout(session, leaf_id, orientation=orientation, collapse=collapse)
    return draw_layout(layout, ax=ax, figsize=figsize)


def save_tree(
    session,
    path: str | os.PathLike,
    leaf_id: object = None,
    *,
    dpi: int = NATURAL_DPI * HIDPI,
    **options,
) -> Path:
    """Draw the tree (``draw_tree`` options) and write it as PNG or SVG, by suffix.

    The output is deterministic: the same file gives the same bytes (no dates, fixed
    SVG ids).

    >>> import pisession, tempfile, pathlib
    >>> out = pathlib.Path(tempfile.mkdtemp()) / "tour.svg"
    >>> save_tree(pisession.load(pisession.sample_path("tour")), out).suffix
    '.svg'
    """
    return save_figure(draw_tree(session, leaf_id, **options), path, dpi=dpi)


def save_figure(fig, path: str | os.PathLike, *, dpi: int = NATURAL_DPI * HIDPI) -> Path:
    """Write any pisession figure as PNG or SVG, by suffix, deterministically."""
    import matplotlib

    target = Path(path)
    suffix = target.suffix.lower()
    if suffix not in (".png", ".svg"):
        raise ValueError(f"figures are written as .png or .svg files, not {target.name!r}")
    metadata = {"Date": None} if suffix == ".svg" else {"Software": None}
    with matplotlib.rc_context({"svg.hashsalt": "pisession", "svg.fonttype": "path"}):
        fig.savefig(target, format=suffix[1:], dpi=dpi, metadata=metadata)
    return target


# --- column charts: the pipeline, migration and context-edit figures ---------------------


@dataclass
class Box:
    """One row of a column chart: ``text`` on a ``fill`` (text colour chosen for contrast).
    ``row`` places it (default: after the previous box); ``note`` is small text right
    of it."""

    key: object
    text: str
    fill: str = "#FFFFFF"
    row: float | None = None
    note: str = ""
    edge: str = _BOX_EDGE
    bold: bool = False


@dataclass
class Column:
    """A titled column of boxes (``caption``: a second, smaller title line)."""

    title: str
    boxes: list[Box]
    caption: str = ""


@dataclass
class Link:
    """A line from a box of one column to a box of the next (``(column, key)`` each)."""

    start: tuple[int, object]
    end: tuple[int, object]
    colour: str = _EDGE_COLOUR
    dashed: bool = False


@dataclass
class Jump:
    """A bracket inside one column, from one box back to another, with a label."""

    column: int
    start: object
    end: object
    label: str


@dataclass
class ColumnChart:
    """A figure as data: columns of boxes, links between neighbours, jumps inside a
    column, and a legend of ``(fill, words)`` drawn beside the columns."""

    title: str
    subtitle: str
    columns: list[Column]
    links: list[Link] = field(default_factory=list)
    jumps: list[Jump] = field(default_factory=list)
    legend: list[tuple[str, str]] = field(default_factory=list)
    legend_title: str = ""


_CHART_ROW, _CHART_BOX, _CHART_GAP, _CHART_HEAD = 0.27, 0.21, 0.4, 1.05


def _column_widths(chart: ColumnChart) -> list[float]:
    """Each column's box width (its widest text), and room for its notes."""
    widths = []
    for column in chart.columns:
        text = max((_box_inches(b.text) + 0.15 for b in column.boxes), default=1.0)
        widths.append(max(text, _text_inches(column.title, FONT), 1.0))
    return widths


def _chart_places(chart: ColumnChart) -> tuple[dict, list[float], float]:
    """Where every box goes, in inches from the top left: ``(column, key) -> (x, y)``
    (its top left corner), the left edge of every column, and the chart's height."""
    widths = _column_widths(chart)
    places: dict = {}
    lefts, rows = [], 0.0
    x = _LEFT + (0.3 if any(j.column == 0 for j in chart.jumps) else 0.0)
    for number, column in enumerate(chart.columns):
        lefts.append(x)
        row = 0.0
        for box in column.boxes:
            row = row if box.row is None else box.row
            places[(number, box.key)] = (x, _CHART_HEAD + row * _CHART_ROW)
            row += 1
        rows = max(rows, row)
        notes = max((_text_inches(b.note, SMALL) for b in column.boxes if b.note), default=0)
        x += widths[number] + max(_CHART_GAP, notes + 0.25)
    return places, lefts, _CHART_HEAD + rows * _CHART_ROW + 0.2


#: The widest a chart is drawn (inches; 8.4 in is 840 px, a notebook column at 100 %).
MAX_CHART_WIDTH = 8.4


def _legend_place(chart: ColumnChart, lefts: list[float], widths: list[float], rows: list):
    """Where the legend goes: under the last columns when they end early enough to
    leave room, else right of the columns when the chart stays narrower than
    ``MAX_CHART_WIDTH``, else under all of them. Returns ``(x, y)`` in inches."""
    need = len(chart.legend) + 2
    tallest = max(rows, default=0)
    for start in range(1, len(rows)):
        if all(r + need <= tallest for r in rows[start:]):
            return lefts[start], _CHART_HEAD + (max(rows[start:]) + 1.2) * _CHART_ROW
    beside = lefts[-1] + widths[-1] + _last_notes(chart) + 0.35
    legend_w = max((_text_inches(w, SMALL) for _, w in chart.legend), default=0) + 0.5
    if beside + legend_w <= MAX_CHART_WIDTH:
        return beside, _CHART_HEAD
    return lefts[0], _CHART_HEAD + (tallest + 1.0) * _CHART_ROW


def _last_notes(chart: ColumnChart) -> float:
    """Room the notes of the last column take."""
    return max((_text_inches(b.note, SMALL) for b in chart.columns[-1].boxes), default=0)


def _column_rows(chart: ColumnChart) -> list[float]:
    """How many rows each column fills (its last box's row + 1)."""
    out = []
    for column in chart.columns:
        row = 0.0
        for box in column.boxes:
            row = (row if box.row is None else box.row) + 1
        out.append(row)
    return out


def draw_chart(chart: ColumnChart):
    """Draw a ``ColumnChart`` as a Figure sized to it (text at full size)."""
    places, lefts, height = _chart_places(chart)
    widths = _column_widths(chart)
    legend_at = _legend_place(chart, lefts, widths, _column_rows(chart))
    legend_w = max((_text_inches(w, SMALL) for _, w in chart.legend), default=0) + 0.5
    last = chart.columns[-1]
    heading = max(_text_inches(last.title, FONT) * 1.1, _text_inches(last.caption, SMALL))
    right = max(legend_at[0] + legend_w, lefts[-1] + widths[-1] + _last_notes(chart) + 0.25)
    right = max(right, lefts[-1] + heading + 0.25)
    width = max(right, _heading_inches(chart.title, chart.subtitle))
    height = max(height, legend_at[1] + 0.22 * (len(chart.legend) + 1))
    fig = _new_figure(width, height)
    ax = fig.add_axes((0, 0, 1, 1))
    ax.set_xlim(0, width)
    ax.set_ylim(height, 0)
    ax.set_axis_off()
    _heading(fig, chart.title, chart.subtitle)
    for number, column in enumerate(chart.columns):
        _draw_column(ax, column, number, places, lefts[number], widths[number])
    _draw_links(ax, chart, places, widths)
    _draw_jumps(ax, chart, places, widths)
    _draw_chart_legend(ax, chart, legend_at)
    fig.pisession_alt = chart_alt(chart)
    return fig


def _draw_column(ax, column: Column, number: int, places: dict, x: float, width: float):
    """A column's title, caption and boxes (with their notes)."""
    from matplotlib.patches import FancyBboxPatch

    ax.text(x, 0.72, _mpl_text(column.title), fontsize=FONT, weight="bold", va="bottom")
    ax.text(x, 0.76, _mpl_text(column.caption), fontsize=SMALL, color=_MUTED, va="top")
    for box in column.boxes:
        bx, by = places[(number, box.key)]
        patch = FancyBboxPatch((bx, by), width, _CHART_BOX, linewidth=0.8, fc=box.fill,
                               boxstyle="round,pad=0,rounding_size=0.04", ec=box.edge,
                               zorder=3)  # fmt: skip
        ax.add_patch(patch)
        ax.text(bx + 0.06, by + _CHART_BOX / 2, _mpl_text(box.text), fontsize=FONT,
                color=ink_on(box.fill), va="center", zorder=4,
                weight="bold" if box.bold else "normal")  # fmt: skip
        if box.note:
            ax.text(bx + width + 0.06, by + _CHART_BOX / 2, _mpl_text(box.note),
                    fontsize=SMALL, color=_MUTED, va="center", style="italic")  # fmt: skip


def _draw_links(ax, chart: ColumnChart, places: dict, widths: list[float]) -> None:
    """Each link as a smooth S-curve from the right edge of one box to the next column."""
    from matplotlib.patches import PathPatch
    from matplotlib.path import Path as CurvePath

    for link in chart.links:
        (sx, sy), (ex, ey) = places[link.start], places[link.end]
        sx, sy = sx + widths[link.start[0]], sy + _CHART_BOX / 2
        ey += _CHART_BOX / 2
        middle = (sx + ex) / 2
        curve = CurvePath(
            [(sx, sy), (middle, sy), (middle, ey), (ex, ey)],
            [CurvePath.MOVETO, CurvePath.CURVE4, CurvePath.CURVE4, CurvePath.CURVE4],
        )
        ax.add_patch(PathPatch(curve, fc="none", ec=link.colour, lw=1.1, zorder=2,
                               ls=(0, (3, 2)) if link.dashed else "-"))  # fmt: skip


def _draw_jumps(ax, chart: ColumnChart, places: dict, widths: list[float]) -> None:
    """Each jump as a dashed bracket left of its column, arrow at the target box."""
    for jump in chart.jumps:
        (sx, sy), (_, ey) = places[(jump.column, jump.start)], places[(jump.column, jump.end)]
        sy, ey = sy + _CHART_BOX / 2, ey + _CHART_BOX / 2
        rail = sx - 0.12
        style = {"color": _CUT_COLOUR, "lw": 1.0, "ls": (0, (4, 3)), "zorder": 2}
        ax.plot([sx, rail, rail], [sy, sy, ey], **style)
        arrow = {"arrowstyle": "-|>", "color": _CUT_COLOUR, "lw": 1.0, "shrinkA": 0}
        arrow.update(shrinkB=0, mutation_scale=9)
        ax.annotate("", xy=(sx, ey), xytext=(rail, ey), zorder=2, arrowprops=arrow)
        ax.text(rail - 0.04, (sy + ey) / 2, _mpl_text(jump.label), rotation=90, ha="right",
                va="center", fontsize=SMALL, color=_CUT_COLOUR, style="italic")  # fmt: skip


def _draw_chart_legend(ax, chart: ColumnChart, at: tuple[float, float]) -> None:
    """The legend at ``at`` (see ``_legend_place``)."""
    from matplotlib.patches import Rectangle

    if not chart.legend:
        return
    x, y = at
    ax.text(x, y - 0.05, _mpl_text(chart.legend_title), fontsize=FONT, weight="bold")
    for fill, words in chart.legend:
        y += 0.22
        ax.add_patch(Rectangle((x, y - 0.07), 0.25, 0.14, fc=fill, ec=_BOX_EDGE, lw=0.8))
        ax.text(x + 0.33, y, _mpl_text(words), fontsize=SMALL, va="center")


def _fate_legend(names) -> list[tuple[str, str]]:
    present = set(names)
    return [(kind.colour, kind.legend) for kind in FATES if kind.name in present]


def _entry_box(session, fates, position: int, key: object = None, **extra) -> Box:
    """An entry as a box: short kind and id, filled with its fate's colour."""
    index = session.index
    kind = entry_kind(index.types[position], index.roles[position], short=True)
    entry_id = index.ids[position]
    text = f"{shorten(kind, 10)} {short_id(None if entry_id is UNDEFINED else entry_id)}"
    fill = FATE[fates[position]].colour
    return Box(position if key is None else key, text, fill, **extra)


def pipeline_chart(session, leaf_id: object = None) -> ColumnChart:
    """The context rule as a picture (data): the file, the path to the leaf, the
    selection, the messages after context edits, and the provider messages
    (``convertToLlm``), each column read off the rule's own outputs.

    >>> import pisession
    >>> chart = pipeline_chart(pisession.load(pisession.sample_path("tour")))
    >>> [len(c.boxes) for c in chart.columns]
    [26, 22, 12, 10, 10]
    """
    from ..llm import to_llm_message
    from .text import model_text

    projection, fates = session.projection(leaf_id), session.fates(leaf_id).names
    path, selected = projection.path, projection.selection.positions
    file_boxes = [_entry_box(session, fates, p) for p in range(len(session))]
    path_boxes = [_entry_box(session, fates, p) for p in path]
    chosen = [_entry_box(session, fates, p, key=rank) for rank, p in enumerate(selected)]
    links = [Link((0, p), (1, p)) for p in path]
    links += [Link((1, p), (2, rank)) for rank, p in enumerate(selected)]
    messages, provider = [], []
    for rank, item in enumerate(projection.items):
        for k, message in enumerate(item.messages):
            role = shorten(js_field(message, "role"), 18)
            messages.append(Box((rank, k), role, FATE[fates[item.position]].colour))
            links.append(Link((2, rank), (3, (rank, k))))
            converted = to_llm_message(message)
            if converted is None:
                continue
            new_role = shorten(js_field(converted, "role"), 18)
            changed = new_role != role
            provider.append(Box((rank, k), new_role, _CHANGED if changed else "#FFFFFF"))
            links.append(Link((3, (rank, k)), (4, (rank, k))))
    settings = projection.context
    columns = [
        Column("the file", file_boxes, f"{plural(len(session), 'entry', 'entries')}, file order"),
        Column(
            "1 · walk_path", path_boxes, f"{plural(len(path), 'entry', 'entries')}, root → leaf"
        ),
        Column("3 · select", chosen, _selection_caption(projection.selection)),
        Column("4–5 · messages", messages, "after context edits"),
        Column("convertToLlm", provider, "for the provider"),
    ]
    leaf = short_id(session.index.ids[path[-1]]) if path else "-"
    subtitle = (
        f"leaf {leaf} · 2 · read_settings: thinking {clean_text(settings.thinking_level)},"
        f" model {model_text(settings.model)}"
    )
    legend = [*_fate_legend(fates), (_CHANGED, "converted to a user message")]
    title = f"From file to model: {shown_name(session) or os.path.basename(str(session.source))}"
    return ColumnChart(clean_text(title), subtitle, columns, links, [], legend, "fate at the leaf")


def _selection_caption(selection) -> str:
    if selection.compaction is None:
        return "no compaction: the whole path"
    return f"compaction, {selection.kept} kept, rest"


def pipeline_figure(session, leaf_id: object = None):
    """Draw ``pipeline_chart``: how the lines of a file become the model's context.

    >>> import pisession
    >>> natural_size(pipeline_figure(pisession.load(pisession.sample_path("tour"))))[0] > 600
    True
    """
    return draw_chart(pipeline_chart(session, leaf_id))


def _message_box(fates, item, k: int, message, touched: bool, words: str = "") -> Box:
    """A context message as a box: role, source entry, its text (or ``words``), filled
    with its entry's fate when a context edit changed it."""
    from .text import message_text

    # the role in full (compactionSummary is the longest: 17), its text gets the rest of
    # the 34 characters a box holds at the figure's width
    role = shorten(entry_kind("message", js_field(message, "role"), short=True), 17)
    rest = max(34 - len(role), 16)
    text = f"{role} · {short_id(item.id)} · {shorten(words or message_text(message), rest)}"
    fill = FATE[fates[item.position]].colour if touched else "#FFFFFF"
    return Box((item.position, k), text, fill)


def edits_chart(session, leaf_id: object = None) -> ColumnChart:
    """Context edits before and after (data): the messages of a leaf with edits ignored
    (as PiG reads the file) and as Pi sends them; a message an edit removes says which
    edit, one it rewrites is linked to its new text.

    >>> import pisession
    >>> b = pisession.load(pisession.sample_path(
    ...     "pi-0.87.1-b-rpc-compaction-manual-threshold-overflow"))
    >>> [len(c.boxes) for c in edits_chart(b).columns]
    [12, 11]
    """
    edited = session.projection(leaf_id)
    plain = session.projection(leaf_id, edits=False)
    fates = session.fates(leaf_id).names
    before, after, links = [], [], []
    for item, same in zip(plain.items, edited.items):
        for k, message in enumerate(item.messages):
            gone = same.edit is not None and k >= len(same.messages)
            words = f"✕ omitted by {short_id(js_field(same.edit, 'id'))}" if gone else ""
            before.append(_message_box(fates, item, k, message, same.edit is not None, words))
        for k, message in enumerate(same.messages):
            box = _message_box(fates, same, k, message, same.edit is not None)
            if same.edit is not None:
                box.note = f"✎ edit {short_id(js_field(same.edit, 'id'))}"
            after.append(box)
            links.append(Link((0, (item.position, k)), (1, (item.position, k))))
    columns = [
        Column("context edits ignored", before, f"{plural(len(plain.messages), 'message')} (PiG)"),
        Column("context edits applied", after, f"{plural(len(edited.messages), 'message')} (Pi)"),
    ]
    leaf = short_id(session.index.ids[edited.path[-1]]) if edited.path else "-"
    title = f"Context edits: {shown_name(session) or os.path.basename(str(session.source))}"
    touched = [fates[i.position] for i in edited.items if i.edit is not None]
    legend = [*_fate_legend(touched), ("#FFFFFF", "message unchanged")]
    subtitle = f"leaf {leaf} · the same selection, read without and with its context edits"
    return ColumnChart(clean_text(title), subtitle, columns, links, [], legend, "what changed")


def edits_figure(session, leaf_id: object = None):
    """Draw ``edits_chart``: the context of a leaf without and with its context edits."""
    return draw_chart(edits_chart(session, leaf_id))


def _migration_text(value: object, number: int, step: int) -> str:
    """A row of the migration chart: the header, or an entry's kind with its ids."""
    from .text import kind_of

    if number == 0:
        return f"header · version {clean_text(js_field(value, 'version'))}"
    kind = shorten(kind_of(value, short=True), 10)
    if step == 0:
        return f"{number:>2} · {kind}" + (" (no id)" if js_field(value, "id") is UNDEFINED else "")
    parent = js_field(value, "parentId")
    parent_text = "null" if parent is None else short_id(None if parent is UNDEFINED else parent)
    return f"{kind} {short_id(js_field(value, 'id'))} ← {parent_text}"


def migration_chart(path_or_bytes) -> ColumnChart:
    """A legacy file before and after each migration step Pi runs (data): rows a step
    changed are highlighted, and a compaction's pointer to its first kept entry is drawn
    (an index that counts the header in v1, an id from v2 on).

    >>> import pisession
    >>> chart = migration_chart(pisession.sample_path("legacy-v1"))
    >>> [c.title for c in chart.columns], [j.label for j in chart.jumps][:1]
    (['as read (v1)', 'after v1 -> v2', 'after v2 -> v3'], ['firstKeptEntryIndex 5 (header = 0)'])
    """
    from ..engine.opening import migration_views

    views = migration_views(path_or_bytes)
    columns, links, jumps = [], [], []
    for step, view in enumerate(views):
        changed = {index for index, _ in view.changed}
        boxes = [
            Box(
                n, _migration_text(v, n, step), _CHANGED if n in changed else "#FFFFFF", bold=n == 0
            )
            for n, v in enumerate(view.values)
        ]
        caption = f"{len(view.changes)} fields changed" if step else "the file as written"
        columns.append(Column(view.title, boxes, caption))
        if step:
            links += [Link((step - 1, n), (step, n)) for n in range(len(view.values))]
        jumps += _first_kept_jumps(view.values, step)
    name = os.path.basename(str(path_or_bytes)) if not isinstance(path_or_bytes, bytes) else ""
    subtitle = "each row is one line of the file; highlighted: what the step changed"
    legend = [(_CHANGED, "changed by this step"), ("#FFFFFF", "unchanged")]
    return ColumnChart(clean_text(f"Migration: {name}".rstrip(": ")), subtitle, columns, links,
                       jumps, legend, "rows")  # fmt: skip


def _first_kept_jumps(values: list, step: int) -> list[Jump]:
    """Brackets from each compaction to the row its first-kept pointer names."""
    ids = {js_key(js_field(v, "id")): n for n, v in enumerate(values) if n}
    jumps = []
    for n, value in enumerate(values):
        if not n or js_field(value, "type") != "compaction":
            continue
        index, kept_id = js_field(value, "firstKeptEntryIndex"), js_field(value, "firstKeptEntryId")
        if isinstance(index, int) and 0 < index < len(values):
            jumps.append(Jump(step, n, index, f"firstKeptEntryIndex {index} (header = 0)"))
        elif js_key(kept_id) in ids:
            jumps.append(Jump(step, n, ids[js_key(kept_id)], "firstKeptEntryId"))
    return jumps


def migration_figure(path_or_bytes):
    """Draw ``migration_chart``: a v1/v2 file as read and after each migration step."""
    return draw_chart(migration_chart(path_or_bytes))
