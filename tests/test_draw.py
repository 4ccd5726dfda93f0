"""Entry-tree drawings: the layout data (fates, colours, cut, collapse) and the figures."""

from __future__ import annotations

import base64
import html
import itertools
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

import pisession
from pisession.errors import UnknownLeafError
from pisession.views.draw import COLLAPSE_THRESHOLD, tree_layout
from pisession.views.provenance import FATE

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
    try:
        layout = tree_layout(session)
    except pisession.SessionFormatError:  # Pi's own tree fails here (a PiFailure)
        return
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

    from pisession.views.draw import draw_tree, figure_png

    fig = draw_tree(tour, "cm000001")
    assert isinstance(fig, Figure)
    assert figure_png(fig)[:8] == b"\x89PNG\r\n\x1a\n"
    mine = Figure(figsize=(6, 8))
    ax = mine.add_subplot()
    assert draw_tree(tour, ax=ax, orientation="LR") is mine
    assert len(ax.texts) >= len(tour)


def test_same_file_same_picture(tour, tmp_path):
    pytest.importorskip("matplotlib")
    from pisession.views.draw import draw_tree, figure_png, save_tree

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

    from pisession.views.draw import draw_tree

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
        "import sys, pisession, pisession.views.draw, pisession.views.display\n"
        "import pisession.views.explorers\n"
        "print(sorted(m for m in ('matplotlib', 'ipywidgets') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_drawing_leaves_the_backend_alone():
    pytest.importorskip("matplotlib")
    code = (
        "import sys, matplotlib, pisession\n"
        "from pisession.views.draw import draw_tree, figure_png\n"
        "before = dict.__getitem__(matplotlib.rcParams, 'backend')\n"
        "figure_png(draw_tree(pisession.load(pisession.sample_path('tour'))))\n"
        "print(before == dict.__getitem__(matplotlib.rcParams, 'backend'),"
        " 'matplotlib.pyplot' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "True False"


# --- legibility: size, contrast, HiDPI -------------------------------------------------------


def _contrast(a: str, b: str) -> float:
    def luminance(colour: str) -> float:
        channels = [int(colour[i : i + 2], 16) / 255 for i in (1, 3, 5)]
        linear = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
        return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]

    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def _texts(fig):
    return [t for ax in fig.axes for t in ax.texts if t.get_text() and t.get_color() != "none"]


@pytest.mark.parametrize("maker", ["tree", "pipeline", "edits", "migration"])
def test_figures_are_legible_at_natural_size(tour, maker):
    pytest.importorskip("matplotlib")
    from matplotlib.colors import to_hex

    from pisession.views import draw

    figures = {
        "tree": lambda: draw.draw_tree(tour),
        "pipeline": lambda: draw.pipeline_figure(tour),
        "edits": lambda: draw.edits_figure(tour),
        "migration": lambda: draw.migration_figure(pisession.sample_path("legacy-v1")),
    }
    fig = figures[maker]()
    width, _ = draw.natural_size(fig)
    assert width <= 860  # fits a notebook column at 100 % zoom
    for text in _texts(fig):
        pixels = text.get_fontsize() * draw.NATURAL_DPI / 72
        assert pixels >= 10, (text.get_text(), pixels)
        box = text.get_bbox_patch()
        if box is not None:  # text on a filled box: WCAG AA contrast
            ink, fill = to_hex(text.get_color()), to_hex(box.get_facecolor())
            assert _contrast(ink, fill) >= 4.5, (text.get_text(), ink, fill)


def test_every_fate_ink_meets_wcag_aa():
    for kind in FATE.values():
        assert _contrast(kind.ink, kind.colour) >= 4.5, kind.name


def test_figures_show_sharp_at_their_natural_size(tour):
    pytest.importorskip("matplotlib")
    import struct

    from pisession.views import draw

    fig = draw.draw_tree(tour)
    data, _ = draw.figure_bundle(fig)
    found = re.match(r'<img width="(\d+)" alt="([^"]+)" [^>]* src="data:image/png;base64,(.*)">$',
                     data["text/html"])  # fmt: skip
    png = base64.b64decode(found.group(3))
    pixels = struct.unpack(">II", png[16:24])
    shown = draw.natural_size(fig)
    assert int(found.group(1)) == shown[0]
    assert pixels[0] >= 2 * shown[0] - 2 and pixels[1] >= 2 * shown[1] - 2


def test_every_figure_says_what_it_shows(tour):
    """Alternative text: an image in a notebook is read out (or shown when images are
    off) as words that say what the picture shows; the text form is the same words."""
    pytest.importorskip("matplotlib")
    from pisession.views import draw

    legacy = pisession.sample_path("legacy-v1")
    for fig, words in [
        (draw.draw_tree(tour, "cm000001"), ("leaf cm000001", "14 off-path", "2 branch ends")),
        (draw.draw_tree(tour), ("a compaction cuts the path before", "u2000001")),
        (draw.pipeline_figure(tour), ("From file to model", "path (22 rows)")),
        (draw.edits_figure(tour), ("Context edits", "context edits applied (10 rows)")),
        (draw.migration_figure(legacy), ("Migration", "after v2 -> v3 (14 rows)")),
    ]:
        data, _ = draw.figure_bundle(fig)
        alt = draw.alt_text(fig)
        assert data["text/plain"] == alt and f'alt="{html.escape(alt)}"' in data["text/html"]
        for word in words:
            assert word in alt, (word, alt)


def test_a_straight_session_collapses_within_its_turns():
    """A branchless real session is not one "N entries" box: every user message (a turn
    start) stays visible, runs collapse between them, and the drawing still fits."""
    a = pisession.load(pisession.sample_path("pi-0.87.1-a-print-multiturn-tools"))
    layout = tree_layout(a, collapse=True)
    users = [p for p, e in enumerate(a.entries) if e.get("message", {}).get("role") == "user"]
    assert len(users) == 4
    assert all(layout.node_for(p).count == 1 for p in users)
    assert layout.collapsed and "within a turn" in layout.subtitle
    for node in layout.nodes.values():  # a run never crosses a turn start
        assert node.count == 1 or not set(node.positions[1:]) & set(users)
    assert layout.node_for(a.default_leaf).count == 1
    assert sum(n.count for n in layout.nodes.values()) == len(a)


def test_a_deep_tree_is_collapsed_to_fit_a_screen():
    b = pisession.load(
        pisession.sample_path("pi-0.87.1-b-rpc-compaction-manual-threshold-overflow")
    )
    layout = tree_layout(b)
    assert layout.collapsed
    assert -min(n.y for n in layout.nodes.values()) + 1 <= 26
    assert not tree_layout(b, collapse=False).collapsed


# --- the figures of the rule, as data ----------------------------------------------------------


def test_pipeline_chart_follows_the_rule(tour):
    from pisession.views.draw import pipeline_chart

    chart = pipeline_chart(tour)
    projection = tour.projection()
    files, path, selection, messages, provider = chart.columns
    assert [b.key for b in files.boxes] == list(range(len(tour)))
    assert [b.key for b in path.boxes] == projection.path
    assert len(selection.boxes) == len(projection.selection.positions)
    assert len(messages.boxes) == len(projection.messages)
    assert len(provider.boxes) == len(projection.context.to_llm())
    fates = tour.fates().names
    assert all(b.fill == FATE[fates[b.key]].colour for b in files.boxes)
    # the summary becomes a user message: highlighted
    converted = [b.key for b in provider.boxes if b.fill != "#FFFFFF"]
    assert [messages.boxes[i].text for i, b in enumerate(provider.boxes) if b.key in converted] == [
        "compactionSummary"
    ]
    # nothing off the path reaches column 2
    off_path = {p for p in range(len(tour)) if fates[p] == "off-path"}
    assert not off_path & {link.start[1] for link in chart.links if link.start[0] == 0}


def test_edits_chart_marks_what_the_edit_changed():
    from pisession.views.draw import edits_chart

    b = pisession.load(
        pisession.sample_path("pi-0.87.1-b-rpc-compaction-manual-threshold-overflow")
    )
    before, after = edits_chart(b).columns
    gone = [box for box in before.boxes if "omitted by" in box.text]
    assert len(gone) == 1 and gone[0].fill == FATE["omitted"].colour
    assert len(before.boxes) == len(after.boxes) + 1
    tour = pisession.load(pisession.sample_path("tour"))
    before, after = edits_chart(tour).columns
    edited = [box for box in after.boxes if box.fill == FATE["edited"].colour]
    assert len(edited) == 1 and "t2000001" in edited[0].text and edited[0].note
    # every role is named in full (the longest, compactionSummary, was cut to compactio…)
    roles = [box.text.split(" · ")[0] for box in before.boxes + after.boxes]
    assert roles.count("compactionSummary") == 2 and not any("…" in r for r in roles)


def test_migration_chart_highlights_each_step():
    from pisession.views.draw import migration_chart

    chart = migration_chart(pisession.sample_path("legacy-v1"))
    as_read, _, v3 = chart.columns
    assert all("(no id)" in box.text for box in as_read.boxes[1:])
    changed = [box.key for box in v3.boxes if box.fill != "#FFFFFF"]
    assert changed == [0, 8]  # the header and the hookMessage renamed to custom
    assert {(j.column, j.start, j.end) for j in chart.jumps} == {(0, 10, 5), (1, 10, 5), (2, 10, 5)}
