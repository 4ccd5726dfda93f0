"""One pass over the file: every command reads a session file in chunks (the reader) and
its lines again a window at a time (``LineStore``), never one system call per line; and
``stats``' usage breakdown is the one ``usage`` makes, from the columns counted while
reading (``stats.COLUMNS``), equal to Pi's rule applied entry by entry (``breakdown_of``).

The read count is structural, not a timing: a command that read each line (or each
counted line) with its own ``pread`` makes thousands of reads here, over the bound."""

from __future__ import annotations

import builtins
import os
from pathlib import Path

import pytest
from test_benchmark_tools import ODD_LINES, generated
from test_counting import ODD_USAGE_LINES

import pisession
from pisession.cli import main
from pisession.engine import reader, store
from pisession.engine.counting import STATS_DECODER, line_contribution
from pisession.engine.stats import (
    UsageFigures,
    attribution,
    entry_contribution,
    usage_figures,
    usage_record,
)
from pisession.folders.usage import UsageError, breakdown_of, session_breakdown
from pisession.js.json import loads

ROOT = Path(__file__).resolve().parent.parent
CHUNK = 1 << 17  # the reader's chunk and window, for the test: a "big" file of 37 chunks


class _Counted:
    """A file whose reads are counted."""

    def __init__(self, handle, counts: dict):
        self._handle, self._counts = handle, counts

    def __getattr__(self, name):
        return getattr(self._handle, name)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self._handle.close()

    def _count(self, method, *args):
        self._counts["reads"] += 1
        return getattr(self._handle, method)(*args)

    def read(self, *args):
        return self._count("read", *args)

    def readinto(self, buffer):
        return self._count("readinto", buffer)

    def readline(self, *args):
        return self._count("readline", *args)


@pytest.fixture(scope="module")
def session_file(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("one-pass") / "s.jsonl"
    path.write_bytes(generated(3000, seed=5))
    return path


@pytest.fixture
def counted_reads(monkeypatch) -> dict:
    """Every read of a session file from here on, counted (one process, chunks of 128 KB)."""
    counts = {"reads": 0}
    real_pread, real_read = os.pread, os.read

    def pread(*args):
        counts["reads"] += 1
        return real_pread(*args)

    def read(*args):
        counts["reads"] += 1
        return real_read(*args)

    monkeypatch.setenv("PISESSION_WORKERS", "1")
    monkeypatch.setattr(reader, "CHUNK", CHUNK)
    monkeypatch.setattr(store, "WINDOW", CHUNK)
    monkeypatch.setattr(os, "pread", pread)
    monkeypatch.setattr(os, "read", read)

    def counted_open(*args, **kwargs):
        return _Counted(builtins.open(*args, **kwargs), counts)

    monkeypatch.setattr(reader, "open", counted_open, raising=False)
    return counts


COMMANDS = [
    ["stats"],
    ["usage"],
    ["tree"],
    ["check"],
    ["explain"],
    ["context"],
    ["export", "--format", "html"],
]


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: c[0])
def test_reads_are_bounded_by_the_size_over_the_chunk(session_file, counted_reads, command, capsys):
    size = session_file.stat().st_size
    assert size // CHUNK > 30
    status = main([command[0], str(session_file), *command[1:]])
    out, err = capsys.readouterr()
    assert status in (0, 1) and out and not err, err  # check: 1 for a problem found
    data = session_file.read_bytes()
    lines, longest = data.count(b"\n"), max(map(len, data.split(b"\n")))
    # the chunked pass (each read fills the buffer but for a partial line left over), and
    # at most two passes of windows over the file
    bound = size // (CHUNK - longest) + 2 + 2 * (size // CHUNK + 1)
    assert counted_reads["reads"] <= bound < lines // 10, counted_reads


def test_stats_counted_after_loading_reads_the_file_in_chunks(session_file, counted_reads):
    session = pisession.load(session_file)  # not counting: counted when asked
    before = counted_reads["reads"]
    session.stats()
    session_breakdown(session, branch=True)
    size = session_file.stat().st_size
    longest = max(map(len, session_file.read_bytes().split(b"\n")))
    # one chunked pass: each read fills the buffer but for a partial line left over
    assert counted_reads["reads"] - before <= size // (CHUNK - longest) + 2


def test_stats_shows_the_breakdown_usage_makes(session_file, capsys):
    import json

    main(["stats", "--json", str(session_file)])
    shown = json.loads(capsys.readouterr().out)["usageByModel"]
    main(["usage", "--json", "--by", "model", str(session_file)])
    usage = json.loads(capsys.readouterr().out)
    assert shown["session"] == usage["total"]["models"]
    session = pisession.load(session_file)
    assert shown["branch"] == session_breakdown(session, branch=True).pi_rows()


def test_the_breakdown_from_the_columns_equals_pis_rule_entry_by_entry():
    """The columns' tally against ``breakdown_of`` (Pi's loop over full entries, each
    figure added with ``js_plus``), every entry and the default branch, with lines of
    odd usage among ordinary ones; and where Pi's loop throws, the line is named."""
    lines = generated(2000, seed=9).split(b"\n")
    for k, line in enumerate([*ODD_LINES, *(line.encode() for line in ODD_USAGE_LINES)]):
        lines.insert(2 + k * 61, line)
    throwing = b'"message":null'  # Pi's function throws on a message entry without one
    for counting in (True, False):
        session = pisession.load(
            b"\n".join(x for x in lines if throwing not in x), counting=counting
        )
        entries = session.entries
        assert session_breakdown(session) == breakdown_of(entries)
        path = [entries[p] for p in session.path_positions()]
        assert session_breakdown(session, branch=True) == breakdown_of(path)
        session = pisession.load(b"\n".join(lines), counting=counting)
        with pytest.raises(TypeError):
            breakdown_of(session.entries)
        line = 1 + next(k for k, x in enumerate(lines) if throwing in x)
        with pytest.raises(UsageError, match=f"<bytes>:{line}: Pi's usage breakdown throws"):
            session_breakdown(session)


def _corpus_lines() -> list[bytes]:
    found = []
    for path in sorted((ROOT / "data").glob("**/*.jsonl")):
        found += [line for line in path.read_bytes().split(b"\n") if line.strip()]
    return found


def test_a_key_alone_means_the_statistics_figures_are_pis():
    """Where an entry's usage record is its key alone, the five figures its statistics
    add (``COUNTED[:5]``) are the very ones Pi's breakdown reads; otherwise the record
    carries Pi's figures itself."""
    checked = 0
    for line in _corpus_lines():
        try:
            entry = loads(line)
        except Exception:
            continue
        row = entry_contribution(entry)
        record = usage_record(entry)
        if isinstance(record, str):
            assert row[:5] == usage_figures(attribution(entry)[1]), line
            checked += 1
        elif isinstance(record, UsageFigures):
            assert record.figures == usage_figures(attribution(entry)[1])
        try:
            quick = line_contribution(STATS_DECODER.decode(line))
        except Exception:  # refused: read in full
            continue
        assert quick[-2:] == row[-2:], line
    assert checked > 1000


@pytest.mark.parametrize("workers", ["1", "2"])
def test_tree_and_export_written_as_they_go_equal_the_whole_text(monkeypatch, workers):
    """``tree`` and ``export`` write a block of lines at a time, a big tree's second part
    drawn by a helper process, the leaves of a many-rooted tree asked of the shape: the
    same text as drawn whole, with or without a helper, blocks of any size."""
    from pisession.engine import parallel
    from pisession.views import explain, export, export_page, reasons, tree_text

    data = generated(1500, seed=4)
    session = pisession.loads(data)
    expected = explain.tree_text(session, width=100), export.export_html(session)
    monkeypatch.setenv("PISESSION_WORKERS", workers)
    monkeypatch.setattr(parallel, "BIG_SESSION", 100)
    monkeypatch.setattr(tree_text, "TREE_BLOCK", 7)
    monkeypatch.setattr(export, "TREE_BLOCK", 5)
    monkeypatch.setattr(export_page, "TREE_BLOCK", 5)
    monkeypatch.setattr(reasons, "LEAF_SET", 0)
    monkeypatch.setattr(tree_text, "WALK_HELD", 3)  # walked again when drawn, not kept
    session = pisession.loads(data)
    chunks = list(explain.tree_chunks(session, width=100))
    assert len(chunks) > 10 and "".join(chunks) == expected[0]
    pieces = list(export.export_html_chunks(session))
    # (the page's ends come with its first and last piece; a tree drawn into a
    # temporary file comes back a megabyte at a time)
    assert len(pieces) > 5 and "".join(pieces) == expected[1]


def test_export_writes_the_page_it_would_hold_whole(tmp_path, capsys):
    path = tmp_path / "s.jsonl"
    path.write_bytes(generated(300, seed=6))
    page = tmp_path / "page.html"
    assert main(["export", str(path), "-o", str(page)]) == 0
    assert "wrote" in capsys.readouterr().out
    from pisession.views.export import export_html

    assert page.read_text("utf-8") == export_html(pisession.load(path))


def test_a_branch_of_every_entry_is_counted_once_and_equals_the_branch_counted():
    """A session without branches (the chain): ``stats`` counts its branch once, as the
    whole session; the same figures as counting the branch's path on its own."""
    import io

    from generate import generate_chain  # benchmarks/ (on the path: test_benchmark_tools)

    from pisession.engine.stats import every_row, on_path, summed_columns
    from pisession.folders.usage import session_breakdowns

    buf = io.BytesIO()
    generate_chain(300, buf)
    session = pisession.load(buf.getvalue(), counting=True)
    path = session.path_positions()
    assert every_row(path, len(session))
    assert not every_row(path[:-1], len(session)) and not every_row(path[::-1], len(session))
    columns = session.counted.dense(session.index.types, session.index.roles)
    picked = [[c[p] for p in path] for c in columns]  # the path's rows, one by one
    assert on_path(columns, path) == list(columns)
    assert summed_columns(picked).to_dict() == session.stats().to_dict()
    rows = session_breakdowns(session)
    assert rows["branch"] == rows["session"] == session_breakdown(session).pi_rows()
    assert session_breakdown(session, branch=True).pi_rows() == rows["branch"]
    # and a session with branches counts its branch on its own
    other = pisession.load(generated(2000, seed=5), counting=True)
    assert not every_row(other.path_positions(), len(other))
    rows = session_breakdowns(other)
    assert rows["branch"] == session_breakdown(other, branch=True).pi_rows() != rows["session"]


@pytest.mark.parametrize("shape", ["branched", "chain", "throwing"])
def test_stats_with_a_helper_process_prints_what_one_process_prints(
    shape, tmp_path, monkeypatch, capsys
):
    """``stats`` reads the fates in a helper process for a big session: the same output
    as in one process, for a session with branches, one without, and one where Pi's
    breakdown throws."""
    import io

    from generate import generate_chain

    if shape == "chain":
        buf = io.BytesIO()
        generate_chain(300, buf)
        data = buf.getvalue()
    else:
        data = generated(600, seed=11)
        if shape == "throwing":
            lines = data.split(b"\n")
            lines.insert(40, b'{"type":"message","id":"zz000001","parentId":null,"message":null}')
            data = b"\n".join(lines)
    path = tmp_path / "s.jsonl"
    path.write_bytes(data)
    monkeypatch.setattr("pisession.cli.stats.BIG_SESSION", 10)  # a helper for this one
    forks = []
    fork = os.fork
    monkeypatch.setattr(os, "fork", lambda: forks.append(1) or fork())
    shown = {}
    for workers in ("2", "1"):
        monkeypatch.setenv("PISESSION_WORKERS", workers)
        for json_flag in ([], ["--json"]):
            main(["stats", *json_flag, str(path)])
            shown[workers, bool(json_flag)] = capsys.readouterr().out
    assert shown["2", False] == shown["1", False]
    assert shown["2", True] == shown["1", True]
    assert len(forks) == 2  # one helper for each run with two workers
    if shape == "throwing":
        assert "throws" in shown["2", True]
