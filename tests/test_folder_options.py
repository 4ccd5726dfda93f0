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


# --- search a user can act on ---------------------------------------------------------------

TOUR = ROOT / "data/samples/tour.jsonl"


def _search_json(capsys, *argv) -> dict:
    assert main(["search", *argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_context_entries_follow_the_hits_path(capsys):
    hits = _search_json(capsys, "Run the tests.", str(TOUR), "-C", "2")["hits"]
    (hit,) = hits
    assert hit["id"] == "u4000001" and hit["timestamp"] == "2026-11-30T09:02:55.000Z"
    assert [n["id"] for n in hit["before"]] == ["a5000001", "cp000001"]  # parent last
    assert [n["id"] for n in hit["after"]] == ["a6000001"]  # the default leaf's path ends
    hits = _search_json(capsys, "summarize main.py", str(TOUR), "-A", "1", "-B", "0")["hits"]
    (hit,) = hits  # off the default path: its newest child
    assert hit["before"] == [] and [n["id"] for n in hit["after"]] == ["a7000001"]
    assert hit["after"][0]["text"].startswith("main.py parses arguments")
    label = _search_json(capsys, "Read util.py", str(TOUR), "-B", "1")["hits"][0]["before"]
    assert [(n["id"], n["type"]) for n in label] == [("lb000001", "label")]


def test_context_lines_in_the_text_output(capsys):
    assert main(["search", "Run the tests.", str(TOUR), "-C", "1", "--width", "100"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert [line.split()[3] for line in out[1:4]] == ["cp000001", "u4000001", "a6000001"]
    assert out[4].strip() == "--"


def test_every_hit_carries_its_time_and_session_name_and_sorts_by_time(capsys):
    hits = _search_json(capsys, "util.py", str(TOUR), "--sort", "time")["hits"]
    stamps = [h["timestamp"] for h in hits]
    assert stamps == sorted(stamps) and all(h["name"] == "Tour of the session format" for h in hits)
    in_file = [h["line"] for h in _search_json(capsys, "util.py", str(TOUR))["hits"]]
    assert sorted(in_file) == in_file


def test_whole_words_and_literal_by_default(capsys):
    every = _search_json(capsys, "util", str(TOUR))["hits"]
    words = _search_json(capsys, "util", str(TOUR), "-w")["hits"]
    assert {h["id"] for h in words} < {h["id"] for h in every}
    assert "a5000001" not in {h["id"] for h in words}  # test_util.py: "_" is part of a word
    assert main(["search", "util.py|main", str(TOUR)]) == 1  # a literal "|", no hits
    capsys.readouterr()
    try:
        code = main(["search", "--help"])
    except SystemExit as exc:
        code = exc.code
    assert code == 0
    assert "PATTERN is literal text unless --regex" in " ".join(capsys.readouterr().out.split())


def test_list_prints_each_matching_session_once_and_how_to_reopen_it(capsys, tmp_path):
    import shutil

    for name in ("tour.jsonl", "pi-0.87.1-a-print-multiturn-tools.jsonl", "legacy-v1.jsonl"):
        shutil.copy(ROOT / "data/samples" / name, tmp_path / name)
    assert main(["search", "the", str(tmp_path), "-l"]) == 0
    listed = capsys.readouterr().out.splitlines()
    assert len(listed) == len(set(listed)) >= 2 and all(line.endswith(".jsonl") for line in listed)
    assert main(["search", "util.py", str(tmp_path), "-l", "--reopen"]) == 0
    assert capsys.readouterr().out == f"pi --session {tmp_path / 'tour.jsonl'}\n"
    assert main(["search", "no such text anywhere", str(tmp_path), "-l"]) == 1


def test_ls_prints_and_carries_the_reopen_command(capsys, tmp_path):
    import shutil

    folder = tmp_path / "with space"
    folder.mkdir()
    shutil.copy(TOUR, folder / "tour.jsonl")
    assert main(["ls", str(folder), "--reopen"]) == 0
    assert capsys.readouterr().out == f"pi --session '{folder / 'tour.jsonl'}'\n"
    assert main(["ls", str(folder), "--json"]) == 0
    (info,) = json.loads(capsys.readouterr().out)
    assert info["reopenCommand"] == f"pi --session '{folder / 'tour.jsonl'}'"
