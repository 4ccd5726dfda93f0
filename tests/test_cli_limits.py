"""One rule for every command where the input or the output is not an ordinary file
(issue 39, deliverable 5): devices and endless pipes, unreadable files, a closed pipe,
a full disk, a search whose line holds millions of matches."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from pisession.engine.reader import read_stream
from pisession.errors import SessionFormatError

REPO = Path(__file__).resolve().parent.parent
TOUR = REPO / "pisession" / "samples" / "tour.jsonl"


def _cli(*args: str, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "pisession", *args],
        capture_output=True,
        cwd=REPO,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        **kwargs,
    )


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="no /dev/zero here")
@pytest.mark.parametrize("device", ["/dev/zero", "/dev/urandom"])
def test_a_device_is_refused_before_it_is_read(device):
    out = _cli("context", device, timeout=60)
    assert out.returncode == 2 and out.stdout == b""
    assert out.stderr.decode() == (
        f"pisession: error: {device}: is a device, not a session file (pass a file, a pipe or -)\n"
    )


def test_a_stream_is_read_up_to_the_limit_with_the_file_named():
    class Endless:
        def read(self, size):
            return b"\0" * size

    with pytest.raises(SessionFormatError, match=r"^-: more than 1,000 bytes come from it"):
        read_stream(Endless(), "-", limit=1000)
    out = _cli("context", "-", input=TOUR.read_bytes())  # a session through a pipe still reads
    assert out.returncode == 0 and json.loads(out.stdout)["messages"]


def test_ls_names_a_file_it_cannot_read(tmp_path):
    folder = tmp_path / "--home-reader-demo--"
    folder.mkdir()
    shutil.copyfile(TOUR, folder / "tour.jsonl")
    (folder / "gone.jsonl").symlink_to(tmp_path / "missing")
    out = _cli("ls", "--json", str(tmp_path))
    assert out.returncode == 0
    assert [Path(row["path"]).name for row in json.loads(out.stdout)] == ["tour.jsonl"]
    assert out.stderr.decode() == (
        f"pisession: skipped {folder / 'gone.jsonl'}: cannot read: No such file or directory\n"
    )


@pytest.mark.parametrize("command", [["usage"], ["search", "x"], ["context"]])
def test_a_file_named_alone_that_is_no_session_is_an_error_everywhere(command, tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_bytes(b'{"type":"message"}\n')
    out = _cli(*command, str(bad))
    assert out.returncode == 2 and out.stdout == b""
    assert out.stderr.decode().startswith(f"pisession: error: {bad}:1: the first JSON object")


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads a file whatever its mode")
@pytest.mark.parametrize("command", [["usage"], ["search", "x"], ["context"]])
def test_an_unreadable_file_named_alone_is_an_error_everywhere(command, tmp_path):
    bad = tmp_path / "locked.jsonl"
    bad.write_bytes(TOUR.read_bytes())
    bad.chmod(0)
    out = _cli(*command, str(bad))
    assert out.returncode == 2
    assert out.stderr.decode() == f"pisession: error: {bad}: cannot read: Permission denied\n"


def test_search_json_without_hits_exits_1_as_without_json():
    for extra in ([], ["--json"]):
        out = _cli("search", *extra, "no such words anywhere", str(TOUR))
        assert out.returncode == 1, extra
    assert _cli("search", "--json", "util.py", str(TOUR)).returncode == 0


@pytest.mark.parametrize(
    "command",
    [["context"], ["explain"], ["tree"], ["stats"], ["export", "--format", "md", "-o", "-"]],
    ids=" ".join,
)
def test_a_closed_pipe_exits_0_for_every_command(command):
    """The reader left (``| head``): quiet, status 0, whether or not the last write
    still fitted in the pipe's buffer."""
    process = subprocess.Popen(
        [sys.executable, "-m", "pisession", *command, str(TOUR)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=REPO,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )
    assert process.stdout is not None and process.stderr is not None
    process.stdout.close()  # before the command writes anything
    assert process.wait(timeout=120) == 0
    assert process.stderr.read() == b""


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full here")
@pytest.mark.parametrize("command", [["context"], ["explain"], ["ls", "--all"]], ids=" ".join)
def test_a_full_disk_names_standard_output(command, tmp_path):
    args = [*command, str(TOUR)] if command[0] != "ls" else [*command, str(tmp_path)]
    (tmp_path / "--x--").mkdir()
    shutil.copyfile(TOUR, tmp_path / "--x--" / "tour.jsonl")
    with open("/dev/full", "wb") as full:
        out = subprocess.run(
            [sys.executable, "-m", "pisession", *args],
            stdout=full,
            stderr=subprocess.PIPE,
            cwd=REPO,
            env={**os.environ, "PYTHONPATH": str(REPO)},
        )
    assert out.returncode == 2
    assert out.stderr.decode() == "pisession: error: standard output: No space left on device\n"


def test_search_memory_does_not_grow_with_the_matches(tmp_path):
    """A 6 MB line holding two million matches: one place per line is kept (the
    offsets of every match took 394 MB on a 21 MB line), and every match is counted."""
    from pisession.folders.search import Pattern

    filter_ = Pattern("a").byte_filter()
    assert filter_ is not None
    line = b'{"type":"message","content":"' + b"ab " * 2_000_000 + b'"}\n'
    offsets = filter_.offsets(b"{}\n" + line + line)
    assert len(offsets) == 2 and 3 <= offsets[0] < 3 + len(line) <= offsets[1]
    folder = tmp_path / "--x--"
    folder.mkdir()
    header = b'{"type":"session","version":3,"id":"s1","timestamp":"2026-01-01T00:00:00Z"}\n'
    entry = (
        b'{"type":"message","id":"u1","parentId":null,"timestamp":"2026-01-01T00:00:01Z",'
        b'"message":{"role":"user","content":"' + b"ab " * 2_000_000 + b'"}}\n'
    )
    (folder / "s.jsonl").write_bytes(header + entry)
    out = _cli("search", "--json", "a", str(tmp_path))
    assert out.returncode == 0
    [hit] = json.loads(out.stdout)["hits"]
    assert hit["matches"] == 2_000_000
