"""Reading a session file while Pi is still appending to it.

Pi appends one JSON line per entry (``appendFileSync``). A reader that opens the file
at the wrong moment may see the start of a line whose end is not written yet.
``pisession.load(path, complete_lines_only=True)`` uses only complete lines (up to the
last ``\\n``) and reports the rest as a ``"partial-line"`` diagnostic.
"""

from __future__ import annotations

import subprocess
import sys
import time

import pytest

import pisession
from pisession.engine import reader
from pisession.engine.reader import complete_lines

HEADER = (
    b'{"type":"session","version":3,"id":"live","timestamp":"2026-01-01T00:00:00Z","cwd":"/"}\n'
)


def test_complete_lines_keeps_everything_up_to_the_last_newline():
    assert complete_lines(b"") == (b"", None)
    assert complete_lines(b"a\nb\n") == (b"a\nb\n", None)
    data, partial = complete_lines(b"a\n\nb")
    assert data == b"a\n\n"
    assert (partial.line, partial.kind) == (3, "partial-line")
    assert "3 bytes" not in partial.message and "1 bytes" in partial.message
    data, partial = complete_lines(b"no newline at all")
    assert data == b"" and partial.line == 1


def test_a_file_read_in_chunks_keeps_complete_lines_only(tmp_path, monkeypatch):
    entry = b'{"type":"message","id":"a","parentId":null,"message":{"role":"user","content":"hi"}}'
    path = tmp_path / "s.jsonl"
    path.write_bytes(HEADER + entry + b"\n" + entry[:30])
    monkeypatch.setattr(reader, "CHUNK", 16)  # a "big" file: read in chunks, not kept
    session = pisession.load(path, complete_lines_only=True)
    assert session.file._store.data is None
    assert len(session) == 1 and session.entry(0)["id"] == "a"
    assert [(d.line, d.kind) for d in session.diagnostics] == [(3, "partial-line")]
    assert session.dumps() == HEADER + entry + b"\n"


def test_load_complete_lines_only(tmp_path):
    entry = b'{"type":"message","id":"a","parentId":null,"message":{"role":"user","content":"hi"}}'
    path = tmp_path / "s.jsonl"
    path.write_bytes(HEADER + entry + b"\n" + entry[:30])
    session = pisession.load(path, complete_lines_only=True)
    assert len(session) == 1
    assert [(d.line, d.kind) for d in session.diagnostics] == [(3, "partial-line")]
    assert session.dumps() == HEADER + entry + b"\n"
    # Without the option the torn line is an ordinary malformed line, as in Pi.
    plain = pisession.load(path)
    assert [(d.line, d.kind) for d in plain.diagnostics] == [(3, "malformed")]
    # A complete last line without its newline is not used either: it may still grow.
    path.write_bytes(HEADER + entry)
    assert len(pisession.load(path, complete_lines_only=True)) == 0
    assert len(pisession.load(path)) == 1
    # Bytes work the same way.
    assert len(pisession.load(HEADER + entry + b"\n" + entry[:5], complete_lines_only=True)) == 1


#: A child process that appends entries the way Pi does, but slowly: each line is written
#: in two parts with a pause between, so readers often find half a line at the end.
APPENDER = r"""
import json, sys, time
path, count = sys.argv[1], int(sys.argv[2])
parent = None
with open(path, "ab", buffering=0) as out:
    for n in range(count):
        entry = {"type": "message", "id": f"m{n}", "parentId": parent,
                 "timestamp": "2026-01-01T00:00:00Z",
                 "message": {"role": "user" if n % 2 == 0 else "assistant",
                             "content": [{"type": "text", "text": f"entry {n} " + "x" * (n % 50)}]}}
        line = json.dumps(entry).encode() + b"\n"
        cut = len(line) // 2
        out.write(line[:cut])
        time.sleep(0.001)
        out.write(line[cut:])
        parent = f"m{n}"
        time.sleep(0.001)
print("done", flush=True)
"""


def test_loading_while_another_process_appends(tmp_path):
    path = tmp_path / "live.jsonl"
    path.write_bytes(HEADER)
    total = 400
    child = subprocess.Popen(
        [sys.executable, "-c", APPENDER, str(path), str(total)], stdout=subprocess.PIPE
    )
    counts, partial_seen, loads_done = [], 0, 0
    try:
        while child.poll() is None or loads_done == 0:
            session = pisession.load(path, complete_lines_only=True)
            loads_done += 1
            kinds = [d.kind for d in session.diagnostics]
            assert set(kinds) <= {"partial-line"}, session.diagnostics
            partial_seen += kinds.count("partial-line")
            # Every entry is whole, in order, and chained: nothing half-read is ever used.
            ids = [e["id"] for e in session.entries]
            assert ids == [f"m{n}" for n in range(len(ids))]
            assert not session.problems()["dangling_parents"]
            path_ids = [e["id"] for e in session.path()]
            assert path_ids == ids
            assert len(session.context().messages) == len(ids)
            counts.append(len(session))
            time.sleep(0.0005)
    finally:
        child.wait(timeout=60)
        child.stdout.close()
    final = pisession.load(path, complete_lines_only=True)
    assert len(final) == total and not final.diagnostics
    assert counts == sorted(counts), "entry counts went down between loads"
    assert loads_done >= 10
    # The test is only meaningful if some loads really met a half-written line.
    if partial_seen == 0:
        pytest.skip(f"no load met a partial line in {loads_done} loads")
