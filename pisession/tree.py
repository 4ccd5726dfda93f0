"""The entry tree: roots, children, leaves, labels, the session name, and the damage
a hand-edited file can hold (dangling parents, duplicate ids, parent cycles).

Everything here works on positions in the entry list (ids can repeat or be missing);
``entry_graph`` gives the same tree as a ``networkx.DiGraph`` for drawing and analysis.
"""

from __future__ import annotations

from collections.abc import Sequence

from .context import entry_index, parent_position
from .jsdate import js_time_ms
from .jsvalue import UNDEFINED, field, map_key, truthy


def parent_positions(entries: Sequence, index: dict | None = None) -> list[int | None]:
    """For each entry, the position of its parent (None for a root or a dangling parent)."""
    index = entry_index(entries) if index is None else index
    return [parent_position(entries, p, index) for p in range(len(entries))]


Parents = Sequence[int | None]


def _known(entries: Sequence, index: dict | None, parents: Parents | None) -> Parents:
    """The parent positions a caller already has, else computed (``parent_positions``)."""
    return parent_positions(entries, index) if parents is None else parents


def children_of(
    entries: Sequence, index: dict | None = None, parents: Parents | None = None
) -> dict[int, list[int]]:
    """Children of every entry in Pi's ``getTree`` order: by timestamp, then file order.

    >>> children_of([{"id": "a", "parentId": None}, {"id": "b", "parentId": "a"}])
    {0: [1], 1: []}
    """
    parents = _known(entries, index, parents)
    children: dict[int, list[int]] = {p: [] for p in range(len(entries))}
    for child, parent in enumerate(parents):
        if parent is not None and parent != child:
            children[parent].append(child)

    def when(position: int) -> float:
        t = js_time_ms(field(entries[position], "timestamp"))
        return t if t == t else 0.0

    for kids in children.values():
        if len(kids) > 1:  # most entries have one child: skip the timestamp parse
            kids.sort(key=when)
    return children


def roots(
    entries: Sequence, index: dict | None = None, parents: Parents | None = None
) -> list[int]:
    """Entries with no parent in the file: ``parentId`` null/empty, or not found.

    >>> roots([{"id": "a", "parentId": None}, {"id": "b", "parentId": "gone"}])
    [0, 1]
    """
    parents = _known(entries, index, parents)
    return [p for p, parent in enumerate(parents) if parent is None or parent == p]


def leaves(
    entries: Sequence, index: dict | None = None, parents: Parents | None = None
) -> list[int]:
    """Entries nobody points at as parent: the ends of branches.

    >>> leaves([{"id": "a"}, {"id": "b", "parentId": "a"}, {"id": "c", "parentId": "a"}])
    [1, 2]
    """
    has_children = set(_known(entries, index, parents))
    return [p for p in range(len(entries)) if p not in has_children]


def preorder(entries: Sequence, index: dict | None = None):
    """Yield ``(position, depth)`` walking the tree as Pi's ``getTree`` orders it:
    roots in file order, children by timestamp. Entries caught in a parent cycle are
    not reachable from a root and are not yielded (``find_cycles`` reports them).

    >>> list(preorder([{"id": "a"}, {"id": "b", "parentId": "a"}, {"id": "c"}]))
    [(0, 0), (1, 1), (2, 0)]
    """
    index = entry_index(entries) if index is None else index
    kids = children_of(entries, index)
    stack = [(p, 0) for p in reversed(roots(entries, index))]
    while stack:
        position, depth = stack.pop()
        yield position, depth
        stack.extend((c, depth + 1) for c in reversed(kids[position]))


def dangling_parents(
    entries: Sequence, index: dict | None = None, parents: Parents | None = None
) -> list[int]:
    """Entries whose ``parentId`` is set but names no entry (Pi treats them as roots)."""
    return [
        p
        for p, parent in enumerate(_known(entries, index, parents))
        if parent is None and truthy(field(entries[p], "parentId"))
    ]


def duplicate_ids(entries: Sequence) -> dict:
    """Ids used by more than one entry, with their positions (the last one wins).

    >>> duplicate_ids([{"id": "a"}, {"id": "b"}, {"id": "a"}])
    {'a': [0, 2]}
    """
    seen: dict = {}
    for position, entry in enumerate(entries):
        key = map_key(field(entry, "id"))
        if key is not None and key is not UNDEFINED:
            seen.setdefault(key, []).append(position)
    return {k: v for k, v in seen.items() if len(v) > 1}


def find_cycles(
    entries: Sequence, index: dict | None = None, parents: Parents | None = None
) -> list[list[int]]:
    """Every parent cycle, as positions in walking order (child -> parent -> ...).

    >>> find_cycles([{"id": "a", "parentId": "b"}, {"id": "b", "parentId": "a"},
    ...              {"id": "c", "parentId": "c"}])
    [[0, 1], [2]]
    """
    parents = _known(entries, index, parents)
    state = [0] * len(entries)  # 0 new, 1 on the current walk, 2 done
    cycles = []
    for start in range(len(entries)):
        walk = []
        current = start
        while current is not None and state[current] == 0:
            state[current] = 1
            walk.append(current)
            current = parents[current]
        if current is not None and state[current] == 1:
            cycles.append(walk[walk.index(current) :])
        for p in walk:
            state[p] = 2
    return cycles


def resolved_labels(entries: Sequence) -> dict:
    """Labels by target id: ``label`` entries in file order; an empty label clears.

    >>> resolved_labels([{"type": "label", "targetId": "a", "label": "v1"},
    ...                  {"type": "label", "targetId": "a", "label": ""}])
    {}
    """
    labels: dict = {}
    for entry in entries:
        if field(entry, "type") != "label":
            continue
        key = map_key(field(entry, "targetId"))
        if key is None:
            continue
        label = field(entry, "label")
        if truthy(label):
            labels[key] = label
        else:
            labels.pop(key, None)
    return labels


def session_name(entries: Sequence) -> str | None:
    """Pi's ``getSessionName``: the latest ``session_info`` decides (an empty name clears).

    >>> session_name([{"type": "session_info", "name": " Fix the API "}])
    'Fix the API'
    """
    for entry in reversed(entries):
        if field(entry, "type") == "session_info":
            name = field(entry, "name")
            name = name.strip() if isinstance(name, str) else ""
            return name or None
    return None


def entry_graph(
    entries: Sequence,
    lines: Sequence[int] | None = None,
    labels: dict | None = None,
    parents: Parents | None = None,
):
    """The entry tree as a ``networkx.DiGraph``: nodes are positions, edges parent -> child.

    Node attributes: ``id``, ``type``, ``role`` (message entries), ``label``, ``line``.

    >>> g = entry_graph([{"id": "a", "type": "message", "message": {"role": "user"}},
    ...                  {"id": "b", "parentId": "a", "type": "label"}])
    >>> list(g.edges), g.nodes[0]["role"]
    ([(0, 1)], 'user')
    """
    import networkx as nx

    labels = resolved_labels(entries) if labels is None else labels
    graph = nx.DiGraph()
    for position, entry in enumerate(entries):
        entry_id = field(entry, "id")
        role = field(field(entry, "message"), "role") if field(entry, "type") == "message" else None
        key = map_key(entry_id)
        graph.add_node(
            position,
            id=None if entry_id is UNDEFINED else entry_id,
            type=None if field(entry, "type") is UNDEFINED else field(entry, "type"),
            role=None if role is UNDEFINED else role,
            label=labels.get(key) if key is not None else None,
            line=lines[position] if lines is not None else None,
        )
    for child, parent in enumerate(_known(entries, None, parents)):
        if parent is not None and parent != child:
            graph.add_edge(parent, child)
    return graph
