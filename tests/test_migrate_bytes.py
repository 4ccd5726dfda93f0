"""``pisession migrate`` writes the bytes Pi's own rewrite writes (issue 31 item 5).

Pi migrates a legacy file when it opens it (``SessionManager.open``) and writes it back;
``conformance/record-migrate.mjs`` recorded that rewrite for every v1/v2 file of the
corpus into ``data/migrated/`` (``NAME.throws`` where Pi fails to migrate the file). Ids
aside (Pi draws them at random), the bytes must be the same: each id is replaced by its
rank of first appearance on both sides.
Two things pisession keeps on purpose ("nothing lost") are set aside first (the
fuzzer's ``normalised_rewrite``, which compares mutants the same way): lines Pi skips
(blank, unparsable, falsy JSON), which Pi's rewrite drops and pisession keeps byte for
byte, and line endings (Pi ends every line with ``\n``; pisession keeps ``\r\n`` and a
missing last newline).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

import pisession
from pisession.views.findings import readback_change

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "conformance" / "fuzz"))
from compare import normalised_rewrite as normalised  # the fuzzer compares the same way

REPO = Path(__file__).resolve().parent.parent
MIGRATED = REPO / "data" / "migrated"
RECORDED = sorted(MIGRATED.glob("*.jsonl"))
THROWS = sorted(MIGRATED.glob("*.jsonl.throws"))
FOLDERS = {"samples": REPO / "pisession" / "samples", "damaged": REPO / "data" / "damaged"}


def source_of(recorded: Path) -> Path:
    folder, name = recorded.name.removesuffix(".throws").split("--", 1)
    return FOLDERS.get(folder, REPO / "data" / "conformance" / folder) / name


def test_the_whole_legacy_corpus_is_recorded():
    assert len(RECORDED) >= 50
    assert all(source_of(r).exists() for r in RECORDED + THROWS)


@pytest.mark.parametrize("recorded", THROWS, ids=lambda p: p.name)
def test_migrate_refuses_what_pi_fails_to_migrate(recorded):
    """Pi throws (``NAME.throws`` holds its line): pisession stops with a one-line error
    naming the line and what Pi does, when it reads the file (Pi's migration throws) or
    when it writes the migrated file (Pi's rewrite throws: a line nested too deep)."""
    pi_error = recorded.read_text().split(":")[0].removeprefix("Pi throws ")
    with pytest.raises(pisession.PisessionError) as caught:
        pisession.load(source_of(recorded)).dumps()
    message = str(caught.value)
    assert "\n" not in message and pi_error in message


@pytest.mark.parametrize("recorded", RECORDED, ids=lambda p: p.name)
def test_migrate_writes_pis_rewrite(recorded):
    session = pisession.load(source_of(recorded), new_id=pisession.sequential_ids())
    assert session.migration_steps
    assert normalised(session.dumps()) == normalised(recorded.read_bytes())


def test_a_kept_index_naming_a_later_entry_drops_the_field():
    """Pi resolves the index before the later entry has an id: the stale
    ``firstKeptEntryId`` becomes undefined and is not written."""
    path = REPO / "data/conformance/legacy/v1-index-names-later-entry-with-stale-id.jsonl"
    compaction = json.loads(pisession.load(path).dumps().splitlines()[2])
    assert compaction["type"] == "compaction"
    assert "firstKeptEntryId" not in compaction and "firstKeptEntryIndex" not in compaction


def test_every_session_line_of_a_v2_file_gets_version_3():
    path = REPO / "data/conformance/legacy/v2-second-session-line.jsonl"
    lines = [json.loads(x) for x in pisession.load(path).dumps().splitlines()]
    assert [v["version"] for v in lines if v["type"] == "session"] == [3, 3]


def test_made_ids_never_occur_in_the_file():
    """The file holds ``m0000001``... as a ``firstKeptEntryId``, a ``targetId``, a label and
    text: sequential ids skip them, so the CLI reads what the library and Pi read."""
    path = REPO / "data/conformance/legacy/v1-strings-like-made-ids.jsonl"
    strings = path.read_text()
    for new_id in (pisession.sequential_ids(), None):
        session = pisession.load(path, new_id=new_id)
        made = [e["id"] for e in session.entries]
        assert not any(f'"{i}"' in strings for i in made)
    golden = json.loads(path.with_suffix(".golden.json").read_text())
    cli = pisession.load(path, new_id=pisession.sequential_ids()).context()
    library = pisession.load(path).context()
    assert cli.messages == library.messages
    assert json.loads(cli.to_json(2))["messages"] == golden["cases"][0]["context"]["messages"]


@pytest.mark.parametrize("recorded", RECORDED, ids=lambda p: p.name)
def test_a_migrated_file_reads_back_as_said(recorded):
    """Issue 31 item 6: the context read back from the rewrite (Pi's own, read here as
    Pi reads a v3 file) is the context in memory, or ``readback_change`` says how and why
    it differs: only where an array line's id cannot be written, or a number beyond
    float range is written as null."""
    session = pisession.load(source_of(recorded), new_id=pisession.sequential_ids())
    before = session.context().messages
    after = pisession.loads(recorded.read_bytes(), str(recorded)).context().messages
    change = readback_change(session, pisession.loads)
    assert change == readback_change(session, pisession.loads, recorded.read_bytes())
    if after == before:
        assert change is None
    else:
        assert f"{len(after)} message" in change
        lines = source_of(recorded).read_text().splitlines()
        if "is an array" in change:
            assert any(isinstance(json.loads(x), list) for x in lines if x.startswith("["))
        else:
            assert "holds a number beyond float range, which JSON writes as null" in change
            assert any(
                json.loads(x) != json.loads(pisession.js.json.dumps(json.loads(x))) for x in lines
            )


def test_migrate_says_when_the_rewrite_changes_the_context(tmp_path, capsys):
    from pisession.cli import main

    source = REPO / "data/conformance/legacy/v1-array-line-breaks-chain.jsonl"
    assert main(["migrate", str(source), "-o", str(tmp_path / "out.jsonl")]) == 0
    notes = [x for x in capsys.readouterr().out.splitlines() if x.startswith("note:")]
    assert notes == [
        "note: the written file reads back with another context: 1 message instead of 2 "
        "messages (line 3 is an array: JSON does not write the id it got, so line 4's parent "
        "is missing); Pi's own rewrite writes the same file"
    ]
    assert main(["migrate", str(source), "-o", "-"]) == 0
    captured = capsys.readouterr()
    assert notes[0] in captured.err and "note:" not in captured.out
