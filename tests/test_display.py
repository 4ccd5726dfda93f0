"""Rich display: every piece of session text escaped, cleaned and shortened."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from builders import HEADER, edit, entry, jsonl, msg

import pisession
from pisession.views import display
from pisession.views import text as words
from pisession.views.provenance import FATE, FATES

EDGE = Path(__file__).resolve().parent.parent / "data" / "conformance" / "edge"
EVIL = "<script>alert(1)</script>"
ANSI = "\x1b[31mred\x1b[0m \x1b]0;title\x07done\x07"


@pytest.fixture(scope="module")
def evil():
    header = {**HEADER, "id": EVIL}
    data = jsonl(
        entry("session_info", "n1", None, name=f"{EVIL} name"),
        msg("u1", "n1", content=[{"type": "text", "text": f"{EVIL} {ANSI}"}]),
        msg("a1", "u1", "assistant", content=[{"type": "text", "text": f"ok {EVIL}"}]),
        entry("label", "l1", "a1", targetId="a1", label=EVIL),
        edit("e1", "l1", "u1", {"content": f"edited {EVIL}"}),
        msg(f"<b>{EVIL}</b>", "e1", content=ANSI * 3),
        header=header,
    )
    return pisession.load(data)


def rendered(session):
    return [
        display.session_html(session),
        display.fates_html(session),
        display.context_html(session.context()),
        display.projection_html(session.projection()),
        session._repr_html_(),
        session.context()._repr_html_(),
        session.projection()._repr_html_(),
    ]


def test_script_renders_as_text_everywhere(evil):
    for text in rendered(evil):
        assert "<script>" not in text
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in text
        assert "<b>&lt;script" not in text


def test_ansi_and_control_characters_are_removed(evil):
    for text in rendered(evil):
        assert "\x1b" not in text and "\x07" not in text
    assert "red done" in display.context_html(evil.context())


def test_long_text_is_shortened():
    data = jsonl(msg("u1", None, content="word " * 5000), msg("u2", "u1", content="x" * 20000))
    session = pisession.load(data)
    for text in rendered(session):
        shown = re.sub(r"<style>.*?</style>|<[^>]+>", "", text, flags=re.S)
        assert len(shown) < 1500
        assert "…" in text


def test_many_rows_are_cut_with_a_count():
    entries = [msg("m0", None)] + [msg(f"m{i}", f"m{i - 1}") for i in range(1, 300)]
    session = pisession.load(jsonl(*entries))
    assert "… 100 more rows" in display.session_html(session, max_rows=200)
    assert "more rows" not in display.fates_html(session, max_rows=None)


def test_tour_tables_show_fates_and_provenance():
    session = pisession.load(pisession.sample_path("tour"))
    fates = display.fates_html(session)
    for fate in ("summarized", "kept", "edited", "dropped-system", "compaction", "off-path"):
        assert f">{fate}</span>" in fates
    assert f"background:{FATE['edited'].colour}" in fates
    projection = display.projection_html(session.projection())
    assert "kept range of the compaction" in projection
    assert 'edited by <code style="white-space:nowrap">ce000001</code>' in projection
    assert "[util.py: 40 one-line helpers" in projection
    side = display.projection_html(session.projection("cm000001"))
    assert "Remember: tests live in tests/." in side


def test_session_without_a_context_still_renders():
    session = pisession.load(EDGE / "parent-cycle.jsonl")
    text = display.session_html(session)
    assert "no context" in text and "parent cycle" in text


def test_every_fate_has_a_distinct_colour_a_meaning_and_a_style():
    assert len({k.colour for k in FATES}) == len(FATES) == len({k.name for k in FATES})
    assert all(k.meaning and k.legend and k.style for k in FATES)
    assert [k.name for k in FATES if k.reached] == ["sent", "kept", "compaction", "edited"]


def test_text_helpers():
    assert words.strip_unsafe("a\x1b[1mb\x1b[0m\x00c\nd") == "abc\nd"
    assert words.one_line("  a\n\n b  ", 10) == "a b"
    assert words.one_line("abcdefghij", 5) == "abcd…"
    assert FATE["compaction"].ink == "#FFFFFF"
    assert FATE["summarized"].ink == "#000000"
    assert words.message_text({"role": "system", "content": "", "sections": {"a": "A"}}) == (
        "[a] A"
    )
    assert words.entry_text({"type": "context_edit", "targetId": "t", "replacement": None}) == (
        "omit t"
    )


def test_answer_objects_print_a_short_summary_and_keep_the_long_form_for_html():
    session = pisession.load(pisession.sample_path("tour"))
    projection = session.projection()
    a, b = (session.index.ids[leaf] for leaf in session.leaves())
    answers = [projection, projection.context, projection.items[0], session.diff(a, b)]
    for answer in answers:
        assert len(repr(answer)) < 200 and "\n" not in repr(answer), repr(answer)
    assert repr(projection).startswith(f"<Projection at position {session.leaves()[-1]}: ")
    assert f"{len(projection.items)} entries selected" in repr(projection)
    assert f"{len(projection.context.messages)} messages" in repr(projection.context)
    assert len(projection._repr_html_()) > 10 * len(repr(projection))
