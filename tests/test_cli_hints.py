"""The command line guesses what a reader meant: a leaf where a file goes, a folder as
FILE, the start of an entry id or a line number as ``--leaf``, a mistyped command;
counts read as words ("1 entry"); a legacy version is a note, not a problem."""

from __future__ import annotations

import json

import pytest

import pisession
from pisession.cli import main
from pisession.views.text import plural


def call(capsys, *args: str) -> tuple[int, str, str]:
    try:
        status = main([str(a) for a in args])
    except SystemExit as exc:  # argparse's usage errors
        status = exc.code
    out, err = capsys.readouterr()
    return status, out, err


def test_a_leaf_given_where_a_file_goes_says_to_use_leaf(capsys):
    status, _, err = call(capsys, "explain", "tour", "a7000001")
    assert status == 2
    assert "to pick a leaf, use --leaf a7000001" in err
    assert err.count("\n") == 1


def test_two_leftover_arguments_are_only_named(capsys):
    status, _, err = call(capsys, "explain", "tour", "a7000001", "b")
    assert status == 2
    assert "unrecognized arguments: a7000001 b" in err
    assert "--leaf" not in err.split("(see")[0]


@pytest.mark.parametrize(
    ("typed", "meant"), [("explian", "explain"), ("contxt", "context"), ("stat", "stats")]
)
def test_a_mistyped_command_gets_the_closest_one(capsys, typed, meant):
    status, _, err = call(capsys, typed, "tour")
    assert status == 2
    assert f"did you mean {meant}?" in err


def test_a_word_close_to_no_command_lists_the_commands(capsys):
    status, _, err = call(capsys, "zzzzzz")
    assert status == 2
    assert "the commands are explain, context" in err


def test_a_folder_as_file_suggests_ls(capsys, tmp_path):
    status, _, err = call(capsys, "explain", tmp_path)
    assert status == 2
    assert f"is a folder; to list its sessions: pisession ls {tmp_path}" in err


def test_a_unique_start_of_an_entry_id_picks_that_leaf(capsys):
    short = call(capsys, "context", "tour", "--leaf", "a7")
    whole = call(capsys, "context", "tour", "--leaf", "a7000001")
    assert short[0] == 0
    assert short[1] == whole[1]
    assert json.loads(short[1]) != json.loads(call(capsys, "context", "tour")[1])


def test_a_start_shared_by_several_ids_lists_them(capsys):
    status, _, err = call(capsys, "explain", "tour", "--leaf", "a")
    assert status == 2
    assert "--leaf a starts 7 entry ids (a1000001, a2000001," in err
    assert "give more of one" in err


def test_a_line_number_as_leaf_names_the_entry_on_that_line(capsys):
    session = pisession.load(pisession.sample_path("tour"))
    line = session.line_of(session.position_of("a6000001"))
    status, _, err = call(capsys, "explain", "tour", "--leaf", str(line))
    assert status == 2
    assert f"line {line} is entry a6000001: --leaf a6000001" in err


def test_an_exact_id_wins_over_a_longer_one_it_starts(capsys, tmp_path):
    path = tmp_path / "s.jsonl"
    lines = [
        {"type": "session", "version": 3, "id": "s", "timestamp": "2026-01-01T00:00:00Z"},
        {"type": "message", "id": "ab", "parentId": None, "message": {"role": "user"}},
        {"type": "message", "id": "abc", "parentId": "ab", "message": {"role": "user"}},
    ]
    path.write_text("".join(json.dumps(v) + "\n" for v in lines))
    status, out, _ = call(capsys, "context", path, "--leaf", "ab")
    assert status == 0
    assert len(json.loads(out)["messages"]) == 1


def test_export_to_a_folder_says_it_is_a_folder(capsys, tmp_path):
    status, _, err = call(capsys, "export", "tour", "-o", tmp_path)
    assert status == 2
    assert "is a folder" in err
    assert ".html or .md" not in err


def test_a_legacy_file_is_a_note_for_check_and_a_problem_only_when_strict(capsys):
    status, out, _ = call(capsys, "check", "legacy-v1")
    assert status == 0
    assert "note: legacy-version" in out
    assert "no problems found (13 entries, 1 note)" in out
    assert call(capsys, "check", "legacy-v1", "--strict")[0] == 1
    status, out, _ = call(capsys, "check", "legacy-v2", "--json")
    assert status == 0
    assert json.loads(out)["problems"] == 0


def test_counts_read_as_words():
    assert [plural(n, "entry", "entries") for n in (0, 1, 2)] == [
        "0 entries",
        "1 entry",
        "2 entries",
    ]


def test_one_entry_is_not_one_entries(capsys, tmp_path):
    path = tmp_path / "one.jsonl"
    path.write_text(
        '{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00Z"}\n'
        '{"type":"message","id":"u","parentId":null,"message":{"role":"user","content":"hi"}}\n'
    )
    status, out, _ = call(capsys, "check", path)
    assert status == 0
    assert "(1 entry)" in out


def test_every_fate_has_its_own_terminal_style_readable_on_dark_and_light():
    from pisession.views.provenance import FATES
    from pisession.views.terminal import paint

    styles = [kind.style for kind in FATES]
    assert len(set(styles)) == len(styles)
    painted = {paint("x", style) for style in styles}
    assert len(painted) == len(styles)  # every style is known to paint, none falls away
    for style in styles:
        assert not {"yellow", "white"} & set(style.split()), style


def test_the_samples_stored_as_pi_stores_them_are_listed_and_replace_nothing(capsys, tmp_path):
    from pisession.samples import store_samples

    stored = store_samples(tmp_path / "agent")
    assert len(stored) == 3
    assert store_samples(tmp_path / "agent") == stored  # again: same files, nothing new
    status, out, _ = call(capsys, "ls", tmp_path / "agent" / "sessions", "--json")
    assert status == 0
    assert {row["id"][:8] for row in json.loads(out)} == {"0b5e55ed", "01a22a5a"}
    stored[0].write_text("not the sample\n")
    with pytest.raises(FileExistsError):
        store_samples(tmp_path / "agent")
    assert stored[0].read_text() == "not the sample\n"


def test_load_takes_what_file_takes(tmp_path, monkeypatch):
    """``pisession.load`` accepts a sample's name and a stored session's id (or a unique
    start of it) as the command line's FILE does; a path that exists wins."""
    from pisession.samples import store_samples

    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(tmp_path / "agent"))
    stored = store_samples(tmp_path / "agent")
    tour = pisession.load(pisession.sample_path("tour"))
    assert pisession.load("tour").id == tour.id
    assert pisession.load(tour.id).id == tour.id  # found in Pi's sessions folder
    assert pisession.load(tour.id[:8]).source in {str(p) for p in stored}
    monkeypatch.chdir(tmp_path)
    (tmp_path / "tour").write_bytes(pisession.sample_path("legacy-v1").read_bytes())
    assert pisession.load("tour").migrated  # the file named tour, not the sample
    with pytest.raises(pisession.SessionFormatError, match="no such file, bundled sample"):
        pisession.load("no-such-session-anywhere")
