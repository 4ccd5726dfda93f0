"""Entry-tree drawings: the layout data (fates, colours, cut, collapse) and the figures."""

from __future__ import annotations

import itertools
import json
import subprocess
import sys
from pathlib import Path

import pytest

import pisession
from pisession.draw import COLLAPSE_THRESHOLD, tree_layout
from pisession.errors import UnknownLeafError
from pisession.provenance import FATE

ROOT = Path(__file__).resolve().parent.parent
EDGE = ROOT / "data" / "conformance" / "edge"
CORPUS = sorted((ROOT / "data" / "conformance").glob("*/*.jsonl"))


@pytest.fixture(scope="module")
def tour():
    return pisession.load(pisession.sample_path("tour"))


def by_id(layout, session, entry_id):
    return layout.node_for(session.position_of(entry_id))


def big_session(size: int = 2000) -> bytes:
    """A long main line with three side branches, a compaction and a label."""
    lines = [{"type": "session", "version": 3, "id": "big", "timestamp": "t", "cwd": "/"}]
    roles = ["user", "assistant", "toolResult"]

    def add(entry_id, parent, **fields):
        n = len(lines)
        stamp = f"2026-01-01T{n // 3600:02d}:{n // 60 % 60:02d}:{n % 60:02d}.000Z"
        lines.append({"id": entry_id, "parentId": parent, "timestamp": stamp, **fields})
        return entry_id

    def message(entry_id, parent, i):
        role = roles[i % 3]
        content = [{"type": "text", "text": f"{role} {i}"}]
        return add(entry_id, parent, type="message", message={"role": role, "content": content})

    parent = add("mc", None, type="model_change", provider="p", modelId="m")
    main = []
    for i in range(1500):
        parent = message(f"m{i:05d}", parent, i)
        main.append(parent)
        if i == 1100:
            parent = add("cmp1", parent, type="compaction", summary="s", firstKeptEntryId="m00900")
    for start, length in ((300, 120), (700, 80), (1400, 150)):
        branch = main[start]
        for j in range(length):
            branch = message(f"b{start}-{j:03d}", branch, j)
    while len(lines) < size:
        parent = message(f"t{len(lines):05d}", parent, len(lines))
    add("lab", parent, type="label", targetId="m00500", label="halfway")
    return ("\n".join(json.dumps(v) for v in lines) + "\n").encode()


@pytest.fixture(scope="module")
def big():
    return pisession.load(big_session())


# --- the tour sample ----------------------------------------------------------------------


def test_tour_nodes_carry_each_entrys_fate_and_colour(tour):
    layout = tree_layout(tour)
    expected = {
        "u1000001": "summarized",
        "u2000001": "kept",
        "t2000001": "edited",
        "ce000001": "state-only",
        "sys00002": "dropped-system",
        "cp000001": "compaction",
        "a6000001": "sent",
        "u5000001": "off-path",
    }
    for entry_id, fate in expected.items():
        node = by_id(layout, tour, entry_id)
        assert (node.fate, node.colour) == (fate, FATE[fate].colour), entry_id
    assert len(layout.nodes) == len(tour)  # 26 entries: nothing collapsed
    assert layout.fates_shown == [
        "sent",
        "kept",
        "compaction",
        "summarized",
        "dropped-system",
        "edited",
        "state-only",
        "off-path",
    ]


def test_tour_marks_leaf_label_compaction_and_cut(tour):
    layout = tree_layout(tour)
    leaf = by_id(layout, tour, "a6000001")
    assert leaf.is_leaf and layout.leaf == leaf.key
    assert [n.id for n in layout.nodes.values() if n.is_leaf] == ["a6000001"]
    assert by_id(layout, tour, "a2000001").label == "first answer"
    assert by_id(layout, tour, "cp000001").is_compaction
    assert by_id(layout, tour, "t2000001").text == "tool t2000001"
    cut = layout.cut
    assert layout.nodes[cut.compaction].id == "cp000001"
    assert layout.nodes[cut.above].id == "lb000001"
    assert layout.nodes[cut.below].id == "u2000001"
    assert cut.first_kept_id == "u2000001"


def test_tour_path_edges_follow_the_path(tour):
    for leaf in ("a6000001", "cm000001"):
        layout = tree_layout(tour, leaf)
        path = tour.path_positions(leaf)
        assert layout.path_edges == list(itertools.pairwise(path))
        assert set(layout.path_edges) <= set(layout.edges)


def test_side_branch_leaf_has_no_cut_and_sends_the_branch(tour):
    layout = tree_layout(tour, "cm000001")
    assert layout.cut is None
    assert by_id(layout, tour, "bs000001").fate == "sent"
    assert by_id(layout, tour, "cp000001").fate == "off-path"
    assert by_id(layout, tour, "cm000001").is_leaf


def test_layout_main_line_straight_branch_to_the_side(tour):
    layout = tree_layout(tour)
    main = {by_id(layout, tour, i).x for i in ("n0000001", "a2000001", "a6000001")}
    assert main == {0.0}
    branch = by_id(layout, tour, "bs000001")
    assert (branch.x, branch.y) == (1.0, by_id(layout, tour, "a2000001").y - 1)


def test_lr_orientation_swaps_axes(tour):
    tb, lr = tree_layout(tour), tree_layout(tour, orientation="LR")
    for key, node in tb.nodes.items():
        assert (lr.nodes[key].x, lr.nodes[key].y) == (-node.y, -node.x)


def test_unknown_leaf_and_bad_orientation_raise(tour):
    with pytest.raises(UnknownLeafError):
        tree_layout(tour, "nope")
    with pytest.raises(ValueError):
        tree_layout(tour, orientation="BT")


def test_layout_is_deterministic(tour, big):
    assert tree_layout(tour) == tree_layout(tour)
    assert tree_layout(big) == tree_layout(big)


# --- conformance files ----------------------------------------------------------------------


def test_retain_none_cut_sits_right_above_the_compaction():
    session = pisession.load(EDGE / "compaction-retain-none.jsonl")
    layout = tree_layout(session)
    cut = layout.cut
    assert cut.below == cut.compaction == session.position_of("c1")
    assert layout.nodes[cut.above].id == "a1"
    assert [layout.node_for(p).fate for p in range(len(session))] == [
        "summarized",
        "summarized",
        "compaction",
        "sent",
    ]


def test_multiple_roots_each_start_a_tree():
    session = pisession.load(EDGE / "multiple-roots.jsonl")
    layout = tree_layout(session)
    roots = [layout.node_for(p) for p in session.roots()]
    assert [r.y for r in roots] == [0.0] * len(roots)
    assert len({r.x for r in roots}) == len(roots)


def test_parent_cycle_is_laid_out_with_the_error_and_loop_edge():
    session = pisession.load(EDGE / "parent-cycle.jsonl")
    layout = tree_layout(session)
    assert "parent cycle" in layout.error
    assert {n.fate for n in layout.nodes.values()} == {None}
    assert {n.id for n in layout.nodes.values() if n.in_cycle} == {"a", "b"}
    assert len(layout.loop_edges) == 1


@pytest.mark.parametrize("path", CORPUS, ids=lambda p: p.name)
def test_every_conformance_file_lays_out_without_overlap(path):
    try:
        session = pisession.load(path)
    except pisession.SessionFormatError:
        return
    layout = tree_layout(session)
    spots = [(n.x, n.y) for n in layout.nodes.values()]
    assert len(spots) == len(set(spots))
    assert sorted(layout.node_of) == list(range(len(session)))
    for a, b in layout.edges:  # every tree edge goes one row down, never left
        assert layout.nodes[b].y == layout.nodes[a].y - 1
        assert layout.nodes[b].x >= layout.nodes[a].x


# --- collapsing --------------------------------------------------------------------------------


def test_large_session_collapses_same_fate_runs(big):
    assert len(big) > COLLAPSE_THRESHOLD
    layout = tree_layout(big)
    assert layout.collapsed
    assert len(layout.nodes) < 40
    assert sum(n.count for n in layout.nodes.values()) == len(big)
    fates = [f.fate for f in big.fates()]
    for node in layout.nodes.values():
        assert {fates[p] for p in node.positions} == {node.fate}
        if node.count > 1:
            assert node.text == f"{node.count:,} entries"
    # what must stay visible: the leaf, the compaction, the labelled entry, branch points
    for entry_id in ("lab", "cmp1", "m00500", "m00300", "m00700", "m01400"):
        assert by_id(layout, big, entry_id).count == 1, entry_id
    cut = layout.cut
    assert layout.nodes[cut.below].id == "m00900"
    assert layout.nodes[cut.above].id == "m00899"


def test_collapse_is_controllable(big, tour):
    assert len(tree_layout(big, collapse=False).nodes) == len(big)
    assert tree_layout(tour, collapse=True).collapsed
    assert not tree_layout(tour).collapsed
    loose = tree_layout(big, collapse=250)  # only runs of at least 250 entries
    assert len(tree_layout(big).nodes) < len(loose.nodes) < len(big)


# --- figures ---------------------------------------------------------------------------------


def test_draw_tree_returns_a_figure_and_draws_into_a_given_axes(tour):
    pytest.importorskip("matplotlib")
    from matplotlib.figure import Figure

    from pisession.draw import draw_tree, figure_png

    fig = draw_tree(tour, "cm000001")
    assert isinstance(fig, Figure)
    assert figure_png(fig)[:8] == b"\x89PNG\r\n\x1a\n"
    mine = Figure(figsize=(6, 8))
    ax = mine.add_subplot()
    assert draw_tree(tour, ax=ax, orientation="LR") is mine
    assert len(ax.texts) >= len(tour)


def test_same_file_same_picture(tour, tmp_path):
    pytest.importorskip("matplotlib")
    from pisession.draw import draw_tree, figure_png, save_tree

    assert figure_png(draw_tree(tour)) == figure_png(draw_tree(tour))
    one = save_tree(tour, tmp_path / "one.svg").read_bytes()
    two = save_tree(tour, tmp_path / "two.svg").read_bytes()
    assert one == two and b"<svg" in one
    assert save_tree(tour, tmp_path / "t.png").read_bytes()[:4] == b"\x89PNG"
    with pytest.raises(ValueError):
        save_tree(tour, tmp_path / "t.pdf")


def test_session_text_is_not_read_as_mathtext(tmp_path):
    pytest.importorskip("matplotlib")
    from builders import entry, jsonl, msg

    from pisession.draw import draw_tree

    data = jsonl(
        msg("$x$", None),
        entry("label", "l1", "$x$", targetId="$x$", label="$\\frac{1}{0}$ \x1b[31mred"),
    )
    fig = draw_tree(pisession.load(data))
    texts = [t.get_text() for t in fig.axes[0].texts]
    assert any("\\$\\frac{1}{0}\\$ red" in t for t in texts)
    fig.savefig(tmp_path / "math.png")  # would raise on a broken mathtext expression


def test_importing_pisession_loads_no_plotting_or_widgets():
    code = (
        "import sys, pisession, pisession.draw, pisession.display, pisession.explorers\n"
        "print(sorted(m for m in ('matplotlib', 'ipywidgets') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_drawing_leaves_the_backend_alone():
    pytest.importorskip("matplotlib")
    code = (
        "import sys, matplotlib, pisession\n"
        "from pisession.draw import draw_tree, figure_png\n"
        "before = dict.__getitem__(matplotlib.rcParams, 'backend')\n"
        "figure_png(draw_tree(pisession.load(pisession.sample_path('tour'))))\n"
        "print(before == dict.__getitem__(matplotlib.rcParams, 'backend'),"
        " 'matplotlib.pyplot' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "True False"
