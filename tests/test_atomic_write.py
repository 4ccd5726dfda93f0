"""pisession never touches the file it reads, and writes only where asked, atomically.

Pi 0.87.1 itself rewrites a v1/v2 file in place when it opens it (truncate, then write:
a crash in between loses the session) and appends a newline to a file whose last line
was cut off. pisession does neither: reading is read-only, migrating is in memory, and
``Session.save`` / ``pisession.files.atomic_write`` write a temp file in the same folder,
fsync it and rename it over the target.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import pisession
from pisession.files import atomic_write

DATA = Path(__file__).resolve().parent.parent / "data"


def fingerprint(path: Path) -> tuple:
    """Everything a write would change: bytes, size, mtime (ns), inode."""
    stat = path.stat()
    return path.read_bytes(), stat.st_size, stat.st_mtime_ns, stat.st_ino


@pytest.fixture(
    params=[
        "tour",
        "legacy-v1",
        "legacy-v2",
        "damaged/truncated-last-line.jsonl",
        "damaged/parent-cycle.jsonl",
        "damaged/invalid-utf8.jsonl",
    ]
)
def session_copy(request, tmp_path) -> Path:
    """A copy of a sample or damaged file, with an old mtime so any write shows."""
    name = request.param
    source = DATA / name if "/" in name else Path(pisession.sample_path(name))
    path = tmp_path / "input" / Path(source).name
    path.parent.mkdir()
    shutil.copyfile(source, path)
    os.utime(path, ns=(1_000_000_000_000_000_000, 1_000_000_000_000_000_000))
    return path


def test_load_ask_migrate_and_save_elsewhere_never_touch_the_input(session_copy, tmp_path):
    before = fingerprint(session_copy)
    folder_before = sorted(os.listdir(session_copy.parent))
    session = pisession.load(session_copy)
    pisession.load(session_copy, complete_lines_only=True)
    pisession.load(session_copy, migrate=False)
    for question in (session.context, session.projection, session.fates, session.stats):
        with contextlib.suppress(pisession.PisessionError):
            question()
    session.problems()
    session.tree()
    (tmp_path / "out").mkdir()
    target = session.save(tmp_path / "out" / "copy.jsonl")
    assert target.read_bytes() == session.dumps()
    assert fingerprint(session_copy) == before
    assert sorted(os.listdir(session_copy.parent)) == folder_before


def test_migrating_writes_the_v3_copy_and_leaves_the_legacy_file(tmp_path):
    legacy = tmp_path / "legacy.jsonl"
    shutil.copyfile(pisession.sample_path("legacy-v1"), legacy)
    before = fingerprint(legacy)
    session = pisession.load(legacy, new_id=pisession.sequential_ids())
    assert session.migrated
    target = session.save(tmp_path / "v3.jsonl")
    assert fingerprint(legacy) == before
    again = pisession.load(target)
    assert again.header["version"] == 3 and not again.migrated
    assert again.context().to_json() == session.context().to_json()


def test_save_refuses_to_replace_a_file_unless_asked(tmp_path):
    path = tmp_path / "s.jsonl"
    shutil.copyfile(pisession.sample_path("tour"), path)
    before = fingerprint(path)
    session = pisession.load(path)
    with pytest.raises(FileExistsError):
        session.save(path)
    with pytest.raises(FileExistsError):
        atomic_write(path, b"other")
    assert fingerprint(path) == before
    assert os.listdir(tmp_path) == ["s.jsonl"]


def test_overwrite_replaces_atomically_and_keeps_the_mode(tmp_path):
    path = tmp_path / "s.jsonl"
    path.write_bytes(b"old\n")
    path.chmod(0o640)
    inode = path.stat().st_ino
    atomic_write(path, b"new\n", overwrite=True)
    assert path.read_bytes() == b"new\n"
    assert path.stat().st_ino != inode  # a new file renamed over the old one
    assert path.stat().st_mode & 0o777 == 0o640
    assert os.listdir(tmp_path) == ["s.jsonl"]


def test_a_failed_write_leaves_the_old_file_and_no_temp_file(tmp_path, monkeypatch):
    path = tmp_path / "s.jsonl"
    path.write_bytes(b"old\n")

    def broken_fsync(fd):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", broken_fsync)
    with pytest.raises(OSError):
        atomic_write(path, b"new\n" * 1000, overwrite=True)
    assert path.read_bytes() == b"old\n"
    assert os.listdir(tmp_path) == ["s.jsonl"]


# --- a writer killed in the middle of a save ------------------------------------------------

#: Runs in a child process: builds a large session and saves it over TARGET.
#: argv: target, megabytes, mode ("atomic": Session.save; "naive": open(target, "wb")).
WRITER = r"""
import sys
import pisession

target, megabytes, mode = sys.argv[1], int(sys.argv[2]), sys.argv[3]
header = b'{"type":"session","version":3,"id":"big","timestamp":"2026-01-01T00:00:00Z","cwd":"/"}'
lines = [header]
parent = "null"
chunk = b"x" * 1_000_000
for n in range(megabytes):
    lines.append(
        b'{"type":"message","id":"m%d","parentId":%s,"message":{"role":"user","content":"%s"}}'
        % (n, parent.encode(), chunk)
    )
    parent = '"m%d"' % n
data = b"\n".join(lines) + b"\n"
session = pisession.loads(data, "big.jsonl")
print("ready", flush=True)
if mode == "atomic":
    session.save(target, overwrite=True)
else:
    with open(target, "wb") as out:
        for start in range(0, len(data), 1 << 20):
            out.write(data[start : start + (1 << 20)])
            out.flush()
print("done", flush=True)
"""


def kill_mid_write(target: Path, mode: str, megabytes: int = 300) -> Path | None:
    """Start a writer, SIGKILL it once its output has started growing; return the file it
    was writing (the temp file for "atomic", the target for "naive"), or None if the writer
    finished first."""
    folder = target.parent
    before = set(os.listdir(folder))
    child = subprocess.Popen(
        [sys.executable, "-c", WRITER, str(target), str(megabytes), mode],
        stdout=subprocess.PIPE,
        cwd=folder,
    )
    try:
        assert child.stdout.readline().strip() == b"ready"
        original_size = target.stat().st_size
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and child.poll() is None:
            if mode == "atomic":
                temps = [folder / n for n in set(os.listdir(folder)) - before]
                growing = [p for p in temps if p.exists() and p.stat().st_size > 1_000_000]
                if growing:
                    child.send_signal(signal.SIGKILL)
                    child.wait()
                    return growing[0]
            elif 1_000_000 < target.stat().st_size != original_size:
                child.send_signal(signal.SIGKILL)
                child.wait()
                return target
            time.sleep(0.0005)
        return None
    finally:
        if child.poll() is None:
            child.kill()
        child.wait()
        child.stdout.close()


def test_a_save_killed_midway_leaves_the_original_intact(tmp_path):
    target = tmp_path / "session.jsonl"
    shutil.copyfile(pisession.sample_path("tour"), target)
    original = target.read_bytes()
    partial = kill_mid_write(target, "atomic")
    if partial is None:
        pytest.skip("the writer finished before it could be killed")
    assert target.read_bytes() == original
    assert pisession.load(target).context().to_json()
    # The only trace is the hidden temp file next to it, never a half file at the target;
    # its name says whose it is, and the next write to the target removes it.
    assert partial.name.startswith(".session.jsonl.pisession-") and partial.name.endswith(".tmp")
    assert sorted(os.listdir(tmp_path)) == sorted(["session.jsonl", partial.name])
    atomic_write(target, original, overwrite=True)
    assert os.listdir(tmp_path) == ["session.jsonl"]


def test_the_kill_harness_does_catch_a_non_atomic_writer(tmp_path):
    """Control: the same kill on a plain ``open(target, "wb")`` leaves a damaged target,
    so the test above would notice a save that is not atomic."""
    target = tmp_path / "session.jsonl"
    shutil.copyfile(pisession.sample_path("tour"), target)
    original = target.read_bytes()
    if kill_mid_write(target, "naive") is None:
        pytest.skip("the writer finished before it could be killed")
    assert target.read_bytes() != original


def test_cli_migrate_writes_only_the_output_and_refuses_to_overwrite(tmp_path, capsys):
    cli = pytest.importorskip("pisession.cli")
    legacy = tmp_path / "legacy.jsonl"
    shutil.copyfile(pisession.sample_path("legacy-v2"), legacy)
    before = fingerprint(legacy)
    out = tmp_path / "v3.jsonl"
    assert cli.main(["migrate", str(legacy), "-o", str(out)]) == 0
    assert fingerprint(legacy) == before
    written = fingerprint(out)
    assert cli.main(["migrate", str(legacy), "-o", str(out)]) != 0
    assert fingerprint(out) == written
    assert sorted(os.listdir(tmp_path)) == ["legacy.jsonl", "v3.jsonl"]
    capsys.readouterr()


def test_a_live_writers_temp_file_is_left_alone(tmp_path):
    target = tmp_path / "s.jsonl"
    mine = tmp_path / f".s.jsonl.pisession-{os.getpid()}-abc.tmp"
    gone = tmp_path / ".s.jsonl.pisession-999999999-abc.tmp"
    other = tmp_path / ".other.jsonl.pisession-999999999-abc.tmp"
    for path in (mine, gone, other):
        path.write_bytes(b"half")
    atomic_write(target, b"{}\n")
    assert sorted(os.listdir(tmp_path)) == sorted(["s.jsonl", mine.name, other.name])


def test_a_dangling_symlink_is_not_replaced_without_being_asked(tmp_path):
    link = tmp_path / "out.jsonl"
    link.symlink_to(tmp_path / "nowhere.jsonl")
    with pytest.raises(FileExistsError) as caught:
        atomic_write(link, b"{}\n")
    assert caught.value.filename == str(link)
    assert link.is_symlink() and not link.exists()
    cli = pytest.importorskip("pisession.cli")
    legacy = pisession.sample_path("legacy-v2")
    assert cli.main(["migrate", str(legacy), "-o", str(link)]) == 2
    assert link.is_symlink() and not link.exists()


def test_write_errors_name_the_target_not_the_temp_file(tmp_path, capsys):
    target = tmp_path / "taken"
    target.mkdir()
    with pytest.raises(OSError) as caught:
        atomic_write(target, b"{}\n", overwrite=True)
    assert caught.value.filename == str(target)
    assert ".tmp" not in str(caught.value)
    cli = pytest.importorskip("pisession.cli")
    legacy = pisession.sample_path("legacy-v2")
    assert cli.main(["migrate", str(legacy), "-o", str(target), "--force"]) == 2
    error = capsys.readouterr().err
    assert str(target) in error and ".tmp" not in error
    assert os.listdir(tmp_path) == ["taken"]


def test_a_full_disk_is_reported_with_the_target(tmp_path, monkeypatch):
    import errno

    target = tmp_path / "s.jsonl"

    def no_space(*args):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "fsync", no_space)
    with pytest.raises(OSError) as caught:
        atomic_write(target, b"{}\n")
    assert caught.value.errno == errno.ENOSPC and caught.value.filename == str(target)
    assert os.listdir(tmp_path) == []


def test_migrate_to_stdout_with_dash(tmp_path):
    legacy = pisession.sample_path("legacy-v1")
    out = subprocess.run(
        [sys.executable, "-m", "pisession", "migrate", str(legacy), "-o", "-"],
        capture_output=True,
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(DATA.parent)},
    )
    assert out.returncode == 0
    assert not (tmp_path / "-").exists() and os.listdir(tmp_path) == []
    migrated = pisession.load(out.stdout)
    assert migrated.header["version"] == 3 and len(migrated) == len(pisession.load(legacy))
    assert "v1 -> v2" in out.stderr.decode()


def test_a_device_or_a_pipe_is_written_into_not_replaced(tmp_path):
    """``-o /dev/null --force`` (or a FIFO) must not put a plain file where the device
    was: the data goes into it."""
    import stat
    import threading

    atomic_write("/dev/null", b"nothing", overwrite=True)
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    got = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()))
    reader.start()
    atomic_write(fifo, b"through the pipe", overwrite=True)
    reader.join(10)
    assert got == [b"through the pipe"] and stat.S_ISFIFO(os.stat(fifo).st_mode)
