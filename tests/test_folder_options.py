"""Folder commands a heavy user needs: days in the user's time zone (``usage --timezone``),
sessions below project folders and several roots (``ls``, ``usage``, ``search``), search
hits with their neighbours and times, and the command that reopens a session in Pi."""

from __future__ import annotations

import json
from pathlib import Path

from pisession.cli import main
from pisession.folders.usage import scan_folder

ROOT = Path(__file__).resolve().parent.parent

HEADER = {"type": "session", "version": 3, "id": "dst-session", "cwd": "/w"}


def _reply(entry_id: str, parent: str | None, stamp: str, tokens: int) -> dict:
    usage = {"input": tokens, "output": 0, "cacheRead": 0, "cacheWrite": 0}
    usage["cost"] = {"total": tokens / 1000}
    message = {"role": "assistant", "content": [], "provider": "p", "model": "m", "usage": usage}
    return {"type": "message", "id": entry_id, "parentId": parent, "timestamp": stamp,
            "message": message}  # fmt: skip


def _dst_session(tmp_path: Path) -> Path:
    """Replies on either side of New York's two DST changes of 2026 (March 8, November 1)."""
    stamps = [
        ("2026-03-09T03:30:00.000Z", 1),  # 23:30 EDT on March 8 (UTC-4 since that morning)
        ("2026-03-09T04:30:00.000Z", 10),  # 00:30 EDT on March 9 (EST would say March 8)
        ("2026-11-02T04:30:00.000Z", 100),  # 23:30 EST on November 1 (EDT would say the 2nd)
        ("2026-11-02T05:30:00.000Z", 1000),  # 00:30 EST on November 2
    ]
    lines = [{**HEADER, "timestamp": "2026-03-08T00:00:00.000Z"}]
    parent = None
    for n, (stamp, tokens) in enumerate(stamps):
        lines.append(_reply(f"a{n}", parent, stamp, tokens))
        parent = f"a{n}"
    path = tmp_path / "dst.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def test_timezone_moves_the_day_boundaries_across_dst(tmp_path):
    from zoneinfo import ZoneInfo

    path = _dst_session(tmp_path)
    york = scan_folder([path], by="day", workers=1, zone=ZoneInfo("America/New_York"))
    assert [(r.group, r.tokens) for r in york.rows] == [
        ("2026-03-08", 1),
        ("2026-03-09", 10),
        ("2026-11-01", 100),
        ("2026-11-02", 1000),
    ]
    assert york.zone == "America/New_York"
    utc = scan_folder([path], by="day", workers=1, zone=ZoneInfo("UTC"))
    assert [(r.group, r.tokens) for r in utc.rows] == [("2026-03-09", 11), ("2026-11-02", 1100)]
    tokyo = scan_folder([path], by="month", workers=1, zone=ZoneInfo("Asia/Tokyo"))
    assert [(r.group, r.tokens) for r in tokyo.rows] == [("2026-03", 11), ("2026-11", 1100)]


def test_since_and_until_are_days_of_the_zone(tmp_path):
    from zoneinfo import ZoneInfo

    path = _dst_session(tmp_path)
    zone = ZoneInfo("America/New_York")
    one = scan_folder([path], by="model", since="2026-11-01", until="2026-11-01", zone=zone)
    assert one.total.tokens == 100
    utc = scan_folder(
        [path], by="model", since="2026-11-01", until="2026-11-01", zone=ZoneInfo("UTC")
    )
    assert utc.total.tokens == 0


def test_the_command_takes_and_shows_the_zone(tmp_path, capsys):
    path = _dst_session(tmp_path)
    assert main(["usage", str(tmp_path), "--by", "day", "--timezone", "America/New_York"]) == 0
    out = capsys.readouterr().out
    assert "2026-11-01" in out and "days in America/New_York" in out
    assert main(["usage", str(path.parent), "--json", "--timezone", "Europe/Paris"]) == 0
    assert json.loads(capsys.readouterr().out)["timezone"] == "Europe/Paris"
    try:
        code = main(["usage", str(tmp_path), "--timezone", "Mars/Olympus"])
    except SystemExit as exc:
        code = exc.code
    assert code == 2
    assert "not a time zone: 'Mars/Olympus'" in capsys.readouterr().err


# --- nested stores and several roots -------------------------------------------------------


def _store(tmp_path: Path) -> Path:
    """A Pi store with a child session in a sub-folder (as pi-subagents writes them), its
    derived transcript in ``subagent-artifacts/``, a symlink loop, and a second root."""
    import shutil

    root = tmp_path / "pi" / "sessions"
    project = root / "--home-reader-projects-demo-app--"
    child = project / "0b5e55ed-child"
    artifacts = project / "subagent-artifacts"
    for folder in (child, artifacts):
        folder.mkdir(parents=True)
    shutil.copy(ROOT / "data/samples/tour.jsonl", project / "tour.jsonl")
    shutil.copy(ROOT / "data/samples/pi-0.87.1-a-print-multiturn-tools.jsonl", child / "a.jsonl")
    (artifacts / "run1_worker.jsonl").write_text('{"type":"agent_start"}\n{"type":"end"}\n')
    (child / "back").symlink_to(project)
    omp = tmp_path / "omp" / "sessions" / "--w--"
    omp.mkdir(parents=True)
    sample_b = "pi-0.87.1-b-rpc-compaction-manual-threshold-overflow.jsonl"
    shutil.copy(ROOT / "data/samples" / sample_b, omp / "b.jsonl")
    return root


def test_discovery_finds_nested_sessions_and_skips_derived_copies_and_loops(tmp_path):
    from pisession.folders.discover import find_sessions

    root = _store(tmp_path)
    found = find_sessions([root, tmp_path / "omp" / "sessions"])
    assert [p.name for p in found.files] == ["a.jsonl", "tour.jsonl", "b.jsonl"]
    assert [p.name for p in found.not_sessions] == ["run1_worker.jsonl"]
    assert len(found.problems) == 1 and "(a loop)" in found.problems[0]


def test_an_unreadable_folder_is_one_line_and_skipped(tmp_path, monkeypatch):
    import os

    from pisession.folders.discover import find_sessions

    root = _store(tmp_path)
    real = os.scandir

    def scandir(path):
        if str(path).endswith("0b5e55ed-child"):
            raise PermissionError(13, "Permission denied")
        return real(path)

    monkeypatch.setattr(os, "scandir", scandir)
    found = find_sessions([root])
    assert [p.name for p in found.files] == ["tour.jsonl"]
    assert any("cannot be read (Permission denied)" in p for p in found.problems)


def test_usage_search_and_ls_read_nested_stores_and_every_root(tmp_path, capsys):
    root = _store(tmp_path)
    omp = str(tmp_path / "omp" / "sessions")
    assert main(["usage", str(root), "--root", omp, "--json", "--per-file"]) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out)["sessions"] == 3
    assert "skipped 1 file below project folders that are not Pi sessions" in captured.err
    assert "(a loop)" in captured.err and captured.err.count("\n") == 2
    assert main(["search", "notes.txt", str(root), "--root", omp, "--json"]) == 0
    hits = json.loads(capsys.readouterr().out)["hits"]
    assert {Path(h["file"]).name for h in hits} == {"a.jsonl"}
    assert main(["ls", str(root), "--root", omp, "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert sorted(Path(i["path"]).name for i in listed) == ["a.jsonl", "b.jsonl", "tour.jsonl"]
