"""Explorers: the pure views behind them, and the widgets reacting to ``.value``."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import pisession
from pisession.views import explorers as ex

EDGE = Path(__file__).resolve().parent.parent / "data" / "conformance" / "edge"
SAMPLE_B = "pi-0.87.1-b-rpc-compaction-manual-threshold-overflow"


@pytest.fixture(scope="module")
def tour():
    return pisession.load(pisession.sample_path("tour"))


@pytest.fixture(scope="module")
def sample_b():
    return pisession.load(pisession.sample_path(SAMPLE_B))


# --- pure views ---------------------------------------------------------------------------


def test_leaf_options_list_leaves_default_first(tour):
    options = ex.leaf_options(tour)
    assert [v for _, v in options] == ["a6000001", "cm000001"]
    assert "(default)" in options[0][0] and "line 27" in options[0][0]


def test_compaction_steps_before_and_after(sample_b):
    steps = ex.compaction_steps(sample_b)
    assert [s.id for s in steps] == ["3a1d9621", "e5af6ea5", "f1fe7b0e"]
    for step in steps:
        assert step.after.entries[0].position == step.position
        assert step.kept == sample_b.selection(step.id).positions[1:]
        before = {i.position for i in step.before.entries}
        assert set(step.replaced) <= before
        assert not set(step.replaced) & set(step.kept)
        assert before - set(step.replaced) <= {i.position for i in step.after.entries}
    # the newest compaction keeps entries from before the older ones
    assert sample_b.position_of("0411f153") in steps[2].kept


def test_tour_compaction_replaces_the_old_part_and_drops_the_system_message(tour):
    [step] = ex.compaction_steps(tour)
    replaced = {tour.entry(p)["id"] for p in step.replaced}
    assert {"u1000001", "lb000001", "sys00002"} <= replaced
    assert "u2000001" not in replaced
    assert ex.compaction_steps(tour, "cm000001") == []


def test_migration_views_of_a_v1_file():
    path = EDGE / "v1-first-kept-entry-index-counts-header.jsonl"
    views = ex.migration_views(path)
    assert [v.version for v in views] == [1, 2, 3]
    original, v2, v3 = views
    assert "id" not in original.values[1]  # the file's values are not modified
    assert [e["id"] for e in v2.values[1:]] == [f"m000000{i}" for i in range(1, 7)]
    compaction = v2.values[5]
    assert compaction["firstKeptEntryId"] == v2.values[3]["id"]  # index 3 counts the header
    assert "firstKeptEntryIndex" not in compaction
    assert (5, "firstKeptEntryIndex") in v2.changed and (0, "version") in v3.changed
    table = ex.migration_view_html(v2)
    assert table.count('<span style="background:#FFE08A"') == len(v2.changes)
    assert "(deleted)" in table
    assert '<span style="background:#FFE08A"' not in ex.migration_view_html(original)
    assert ex.migration_views(path.read_bytes())[1].values == v2.values


def test_migration_views_of_a_v2_file():
    views = ex.migration_views(EDGE / "v2-hookmessage-renamed.jsonl")
    assert [v.title for v in views] == ["as read (v2)", "after v2 -> v3"]
    roles = [c for c in views[1].changes if c.field == "message.role"]
    assert roles and all((c.before, c.after) == ("hookMessage", "custom") for c in roles)


def test_context_without_edits_keeps_the_selection_and_the_original_messages(tour):
    pi, pig = tour.projection(), ex.context_without_edits(tour)
    assert [i.position for i in pi.entries] == [i.position for i in pig.entries]
    assert all(i.edit is None for i in pig.entries)
    edited = tour.position_of("t2000001")
    [pi_item] = [i for i in pi.entries if i.position == edited]
    [pig_item] = [i for i in pig.entries if i.position == edited]
    assert pig_item.messages == [tour.entry(edited)["message"]]
    assert pi_item.messages != pig_item.messages
    assert pig.context.thinking_level == pi.context.thinking_level


def test_context_without_edits_keeps_omitted_messages():
    session = pisession.load(EDGE / "context-edit-null-removes.jsonl")
    pig = ex.context_without_edits(session)
    assert len(pig.messages) == len(session.context().messages) + 1
    assert "failed attempt" in str(pig.messages)
    assert "failed attempt" not in str(session.context().messages)


def test_context_edit_html_names_the_differing_entries(tour):
    pi = ex.context_edit_html(tour, apply_edits=True)
    pig = ex.context_edit_html(tour, apply_edits=False)
    assert ">t2000001</code> (line 13)" in pi and ">t2000001</code> (line 13)" in pig
    assert "def helper_0" in pig and "def helper_0" not in pi


def test_system_prompt_html_replays_per_leaf(tour):
    default = ex.system_prompt_html(tour)
    side = ex.system_prompt_html(tour, "cm000001")
    assert "Run the tests after every change" in default
    assert "Run the tests after every change" not in side
    assert "<code>read</code>" in side and "<code>read</code>" not in default
    assert "&lt;rules&gt;" in default


# --- widgets --------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def widgets():
    return pytest.importorskip("ipywidgets")


def test_branch_explorer_redraws_on_leaf_change(widgets, tour):
    box = ex.branch_explorer(tour)
    assert isinstance(box, widgets.VBox) and repr(box) == "<branch explorer: 2 leaves>"
    picture, table = box.image.value, box.table.value
    assert picture.startswith("<img") and "All 3 tests pass." in table
    assert 'alt="Entry tree of Tour of the session format: leaf a6000001' in picture
    box.leaf.value = "cm000001"
    assert box.image.value != picture and "leaf cm000001" in box.image.value
    assert "Remember: tests live in tests/." in box.table.value
    assert "All 3 tests pass." not in box.table.value


def test_compaction_stepper_moves_through_steps(widgets, sample_b):
    box = ex.compaction_stepper(sample_b)
    assert box.step.max == 3 and "compaction 1 of 3" in box.table.value
    box.step.value = 3
    assert "compaction 3 of 3" in box.table.value and "f1fe7b0e" in box.table.value


def test_compaction_stepper_without_compactions(widgets, tour):
    box = ex.compaction_stepper(tour, "cm000001")
    assert box.steps == [] and box.step.disabled
    assert "No compaction" in box.table.value


def test_migration_stepper_highlights_each_step(widgets):
    box = ex.migration_stepper(EDGE / "v1-first-kept-entry-index-counts-header.jsonl")
    counts = [len(v.changes) for v in box.views]
    assert box.step.value == counts.index(max(counts)) > 0  # opens at the telling step
    assert box.static_html == box.table.value
    box.step.value = 0
    assert '<span style="background:#FFE08A"' not in box.table.value
    box.step.value = 1
    assert "m0000001" in box.table.value and '<span style="background:#FFE08A"' in box.table.value
    box.step.value = 2
    assert "after v2 -&gt; v3" in box.table.value


def test_context_edit_toggle_switches_readings(widgets, tour):
    box = ex.context_edit_toggle(tour)
    assert box.mode.value == ex.EDIT_MODES[0] and "def helper_0" not in box.table.value
    box.mode.value = ex.EDIT_MODES[1]
    assert "def helper_0" in box.table.value and "PiG" in box.table.value


def test_system_prompt_view_follows_the_leaf(widgets, tour):
    box = ex.system_prompt_view(tour)
    assert "<code>read</code>" not in box.table.value
    box.leaf.value = "cm000001"
    assert "<code>read</code>" in box.table.value


def test_explorers_escape_session_text(widgets):
    from builders import entry, jsonl, msg

    evil = "<script>alert(1)</script>"
    data = jsonl(
        msg("u1", None, content=evil),
        entry("compaction", "c1", "u1", summary=evil, firstKeptEntryId="u1", tokensBefore=1),
        msg("s1", "c1", "system", content=evil, sections={evil: evil}, toolsAdded=[{"name": evil}]),
    )
    session = pisession.load(data)
    texts = [
        ex.branch_explorer(session).table.value,
        ex.compaction_stepper(session).table.value,
        ex.context_edit_toggle(session).table.value,
        ex.system_prompt_view(session).table.value,
        ex.migration_stepper(data).table.value,
    ]
    for text in texts:
        assert "<script>" not in text


def test_a_current_file_has_one_view_and_shows_no_undefined():
    views = ex.migration_views(pisession.sample_path("tour"))
    assert len(views) == 1 and "undefined" not in ex.migration_view_html(views[0])


# --- what changed, shown --------------------------------------------------------------------


def test_compaction_summary_in_full_with_new_lines_marked(sample_b):
    steps = ex.compaction_steps(sample_b)
    first = ex.compaction_step_html(sample_b, steps[0], 0, 3)
    second = ex.compaction_step_html(sample_b, steps[1], 1, 3, previous=steps[0].summary)
    assert "<details>" in second and "new since the previous compaction" in second
    assert "<mark>" in second and "<mark>" not in first
    assert "Added a docstring to hello()" in second  # past the first 300 characters
    assert 'class="removed"' in first and 'class="added"' in first


def test_system_prompt_steps_add_then_remove_a_tool():
    a = pisession.load(pisession.sample_path("pi-0.87.1-a-print-multiturn-tools"))
    steps = ex.system_prompt_steps(a)
    assert len(steps) == 3
    added = ex.system_prompt_step_html(steps[1], 1, 3)
    removed = ex.system_prompt_step_html(steps[2], 2, 3)
    assert "tool <code>ls</code> added" in added and "tool <code>ls</code> removed" in removed
    assert '<tr class="added"' in added and '<tr class="removed"' in removed
    assert "…" in added and "<details>" in added  # long sections: cut with an ellipsis


def test_context_edit_toggle_keeps_columns_and_marks_the_differing_row(tour):
    pi = ex.context_edit_html(tour, apply_edits=True)
    pig = ex.context_edit_html(tour, apply_edits=False)
    colgroup = pi[pi.index("<colgroup>") : pi.index("</colgroup>")]
    assert colgroup in pig
    assert pi.count('<tr class="changed"') == pig.count('<tr class="changed"') == 1


def test_explorers_store_a_static_picture(widgets, tour, sample_b):
    boxes = [
        ex.branch_explorer(tour),
        ex.compaction_stepper(sample_b),
        ex.migration_stepper(EDGE / "v1-first-kept-entry-index-counts-header.jsonl"),
        ex.context_edit_toggle(tour),
        ex.system_prompt_view(tour),
    ]
    for box in boxes:
        bundle = box._repr_mimebundle_()
        assert bundle["text/plain"] == repr(box)
        assert "<table" in bundle["text/html"]
        assert "application/vnd.jupyter.widget-view+json" in bundle
    assert '<img width="' in boxes[0]._repr_mimebundle_()["text/html"]


def test_system_prompt_view_steps_and_follows_the_leaf(widgets):
    a = pisession.load(pisession.sample_path("pi-0.87.1-a-print-multiturn-tools"))
    box = ex.system_prompt_view(a)
    assert box.step.max == 3 and "system message 1 of 3" in box.table.value
    box.step.value = 2
    assert "tool <code>ls</code> added" in box.table.value
    box.step.value = 3
    assert "tool <code>ls</code> removed" in box.table.value


def test_migration_table_columns_have_widths_and_ids_are_cut(widgets):
    view = ex.migration_views(EDGE / "v1-first-kept-entry-index-counts-header.jsonl")[1]
    page = ex.migration_view_html(view)
    assert '<col style="width:' in page and "<col>" not in page
    assert "overflow-x:auto" in page and "first<wbr>Kept<wbr>Entry<wbr>Index" in page


def test_compaction_tables_stack_when_narrow(tour):
    [step] = ex.compaction_steps(tour)
    page = ex.compaction_step_html(tour, step)
    assert "flex-wrap:wrap" in page and "flex:1 1 560px" in page


def test_system_prompt_view_with_one_leaf_shows_a_label_not_a_dropdown(widgets):
    session = pisession.load(pisession.sample_path("pi-0.87.1-a-print-multiturn-tools"))
    box = ex.system_prompt_view(session)
    assert len(box.leaf.options) == 1 and box.leaf.layout.display == "none"
    assert any("<b>leaf</b>" in getattr(c, "value", "") for c in box.children)


def test_branch_picture_has_alternative_text_naming_the_leaf(tour):
    page = ex.branch_html(tour, "cm000001")
    alt = re.search(r'<img [^>]*alt="([^"]*)"', page).group(1)
    assert alt.startswith("Entry tree of Tour of the session format: leaf cm000001 · 26 entries")
    assert "2 branch ends" in alt and "9 sent, 3 state-only, 14 off-path" in alt
    assert alt.endswith("12 entries selected for its context.")


def test_compaction_stepper_names_each_kept_range_entry_by_its_fate(sample_b):
    """An older compaction in a newer one's kept range sends nothing: the stepper marks
    it state-only, the word explain uses, never kept; every mark is the entry's fate."""
    steps = ex.compaction_steps(sample_b)
    newest = steps[-1]
    fates = sample_b.fates(newest.id)
    assert newest.kept_fates == {p: fates.names[p] for p in newest.kept}
    older = {sample_b.position_of(s.id) for s in steps[:-1]}
    assert older & set(newest.kept)
    assert all(newest.kept_fates[p] == "state-only" for p in older & set(newest.kept))
    page = ex.compaction_step_html(sample_b, newest, 2, 3)
    for position in older & set(newest.kept):
        entry_id = sample_b.entry(position)["id"]
        rows = re.findall(rf"<tr[^>]*>(?:(?!</tr>).)*{entry_id}(?:(?!</tr>).)*</tr>", page, re.S)
        assert len(rows) == 2  # before and after the compaction
        assert all(">state-only<" in row and ">kept<" not in row for row in rows)
