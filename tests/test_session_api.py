"""The Session API: lossless reading and writing, provenance, the tree, files on disk."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from builders import V1_HEADER, compaction, entry, jsonl, msg, session

import pisession
from pisession.files import list_sessions, session_file_name
from pisession.samples import REAL_PI_SAMPLES
from pisession.views.findings import check

SAMPLES = [pisession.sample_path(n) for n in pisession.sample_names()]


@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: p.stem)
def test_dumps_returns_the_original_bytes_and_loading_never_writes(path):
    before = (path.read_bytes(), path.stat().st_mtime_ns)
    s = pisession.load(path)
    s.context()
    if not s.migrated:  # a legacy sample is rewritten by dumps(); see the migration tests
        assert s.dumps() == before[0]
    assert (path.read_bytes(), path.stat().st_mtime_ns) == before


@pytest.mark.parametrize("name", REAL_PI_SAMPLES)
def test_real_pi_samples_match_pis_own_context(name):
    s = pisession.load(pisession.sample_path(name))
    expected = json.loads(pisession.sample_path(name).with_suffix(".context.json").read_text())
    assert json.loads(s.context().to_json()) == expected


def test_migrated_dump_keeps_skipped_lines_null_vs_missing_parent_and_field_order():
    data = jsonl(
        {"type": "message", "z": 1, "message": {"role": "hookMessage", "content": "x"}, "a": 2},
        "this line is not json",
        header={**V1_HEADER, "version": 2},
    ).replace(b'"a":2}', b'"a":2,"id":"k1"}')
    s = pisession.loads(data)
    out = s.dumps().split(b"\n")
    assert out[2] == b"this line is not json"
    first = json.loads(out[1])
    assert list(first) == ["type", "z", "message", "a", "id"] and "parentId" not in first
    assert first["message"]["role"] == "custom"


def test_null_and_missing_parent_id_survive_writing(tmp_path):
    data = jsonl(msg("u1", None), {"type": "message", "id": "u2", "message": {"role": "user"}})
    s = pisession.loads(data)
    assert s.save(tmp_path / "copy.jsonl").read_bytes() == data


def test_projection_names_the_source_entry_of_every_message():
    s = pisession.load(pisession.sample_path("tour"))
    p = s.projection()
    sources = [p.source_of(i).id for i in range(len(p.messages))]
    assert sources[:2] == ["cp000001", "cp000001"] and sources[-1] == "a6000001"
    assert sum(len(i.messages) for i in p.entries) == len(p.messages)


def test_fates_say_what_happened_to_every_entry_of_the_tour():
    s = pisession.load(pisession.sample_path("tour"))
    fates = {f.id: f.fate for f in s.fates()}
    assert len(fates) == len(s)
    assert fates["ce000001"] == "state-only" and fates["cp000001"] == "compaction"
    assert fates["u2000001"] == "kept" and fates["u4000001"] == "sent"
    side = {f.id: f.fate for f in s.fates("cm000001")}
    assert side["bs000001"] == "sent" and side["t2000001"] == "off-path"
    omitted = session(
        msg("u1", None), entry("context_edit", "e1", "u1", targetId="u1", replacement=None)
    )
    assert {f.id: f.fate for f in omitted.fates()}["u1"] == "omitted"


def test_an_edit_of_an_entry_that_sends_nothing_changes_nothing():
    """A label sends no message, so an edit removing its messages removes nothing: the
    label stays state-only, no view shows it edited, and check says the edit does
    nothing (Pi's projection maps the label's empty list of messages)."""
    s = session(
        msg("u1", None),
        entry("label", "l1", "u1", targetId="u1", label="L"),
        entry("context_edit", "e1", "l1", targetId="l1", replacement=None),
    )
    assert {f.id: f.fate for f in s.fates()} == {
        "u1": "sent",
        "l1": "state-only",
        "e1": "state-only",
    }
    assert [item.edit for item in s.projection().entries] == [None, None, None]
    assert [f.message.split(", ")[-1] for f in check(s)] == [
        "which contributes no message: no effect"
    ]


def test_tree_graph_has_one_node_per_entry_with_attributes():
    s = pisession.load(pisession.sample_path("tour"))
    g = s.tree()
    assert g.number_of_nodes() == len(s) and g.number_of_edges() == len(s) - 1
    assert g.nodes[s.position_of("a2000001")]["label"] == "first answer"
    assert g.nodes[0]["line"] == 2


def test_leaves_and_children_follow_pi_order():
    s = pisession.load(pisession.sample_path("tour"))
    ids = [s.entry(p)["id"] for p in s.leaves()]
    assert ids == ["cm000001", "a6000001"]
    kids = [s.entry(c)["id"] for c in s.children()[s.position_of("a2000001")]]
    assert kids == ["lb000001", "bs000001"]


def test_list_sessions_finds_files_laid_out_as_pi_lays_them_out(tmp_path):
    folder = tmp_path / "sessions" / "--home-u-proj--"
    folder.mkdir(parents=True)
    name = session_file_name("2026-01-01T00:00:00.000Z", "sid-1")
    (folder / name).write_bytes(
        jsonl(
            entry("session_info", "i1", None, name="My run"),
            msg("u1", "i1", content=[{"type": "text", "text": "hello there"}]),
            header={**V1_HEADER, "version": 3, "id": "sid-1", "cwd": "/home/u/proj"},
        )
    )
    (folder / "broken.jsonl").write_bytes(b'{"not":"a session"}\n')
    (infos,) = [list_sessions(tmp_path / "sessions")]
    assert [(i.id, i.name, i.cwd, i.message_count, i.first_message) for i in infos] == [
        ("sid-1", "My run", "/home/u/proj", 1, "hello there")
    ]
    env = {"PI_CODING_AGENT_DIR": str(tmp_path)}
    assert [i.id for i in list_sessions(env=env)] == ["sid-1"]


def test_compaction_position_and_path_are_exposed():
    s = session(msg("u1", None), compaction("c1", "u1", "u1"), msg("u2", "c1"))
    p = s.projection()
    assert p.compaction == 1 and p.path == [0, 1, 2]
    assert [i.part for i in p.entries] == ["compaction", "kept", "after"]


def test_listing_survives_a_time_beyond_what_a_date_can_hold(tmp_path):
    """A message timestamp of about 1.2e16 ms (json-edge-syntax.jsonl) is beyond what a
    JavaScript Date holds: Pi's list shows the session with an Invalid Date as its
    modification time (data/manager/list.golden.json), and so does pisession (None)."""
    edge = Path(__file__).resolve().parent.parent / "data" / "conformance" / "edge"
    (tmp_path / "s.jsonl").write_bytes((edge / "json-edge-syntax.jsonl").read_bytes())
    [info] = list_sessions(tmp_path)
    assert info.modified is None and info.created.year == 2026


def test_fates_by_id_and_a_readable_repr():
    session = pisession.load(pisession.sample_path("tour"))
    fates = session.fates()
    assert fates.of("cm000001") == fates[session.position_of("cm000001")]
    with pytest.raises(TypeError, match=r"fates\.of\(id\)"):
        fates["cm000001"]
    assert repr(fates).startswith(f"<Fates of {len(session)} entries: ")


def test_an_edit_of_an_older_compaction_changes_nothing():
    """An older compaction kept in the newest one's range sends nothing, so an edit
    removing its messages removes nothing; check says so, and why."""
    s = session(
        msg("u1", None),
        compaction("c1", "u1", "u1"),
        msg("u2", "c1"),
        compaction("c2", "u2", "c1"),
        entry("context_edit", "e1", "c2", targetId="c1", replacement=None),
        msg("u3", "e1"),
    )
    fates = {f.id: f.fate for f in s.fates()}
    assert (fates["c1"], fates["c2"], fates["u2"]) == ("state-only", "compaction", "kept")
    [found] = check(s)
    assert found.line == 6 and "contributes no message (an older compaction" in found.message
