"""The command line for people (issue 15): every answer readable at 80 columns (and at
40), never a traceback, FILE as a path, ``-``, a sample name or a stored session id,
and the small wording fixes a new user ran into.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import pisession
from pisession.cli import main
from pisession.views.explain import explain_text, tree_text
from pisession.views.terminal import text_width

REPO = Path(__file__).resolve().parent.parent
EDGE = REPO / "data" / "conformance" / "edge"
SAMPLES = REPO / "pisession" / "samples"
TOUR = pisession.sample_path("tour")
B = SAMPLES / "pi-0.87.1-b-rpc-compaction-manual-threshold-overflow.jsonl"
V2 = EDGE / "v2-hookmessage-renamed.jsonl"


def run(*args: str, env: dict | None = None, cwd=None, stdin: bytes | None = None):
    full_env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "COLUMNS")}
    full_env["PYTHONPATH"] = str(REPO) + os.pathsep + full_env.get("PYTHONPATH", "")
    full_env.update(env or {})
    return subprocess.run(
        [sys.executable, "-m", "pisession", *map(str, args)],
        capture_output=True,
        env=full_env,
        cwd=cwd or REPO,
        input=stdin,
        timeout=120,
    )


def call(capsys, *args) -> tuple[int, str, str]:
    status = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return status, out, err


def write_session(path: Path, entries: list, session_id: str = "s-test", cwd: str = "/w") -> Path:
    header = {
        "type": "session",
        "version": 3,
        "id": session_id,
        "timestamp": "2026-01-01T00:00:00.000Z",
        "cwd": cwd,
    }
    lines = [json.dumps(header)] + [json.dumps(e) for e in entries]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def msg(entry_id, parent, role="user", text="hi", minute=0):
    return {
        "type": "message",
        "id": entry_id,
        "parentId": parent,
        "timestamp": f"2026-01-01T00:{minute % 60:02d}:00.000Z",
        "message": {"role": role, "content": [{"type": "text", "text": text}]},
    }


def chain(count: int) -> list:
    roles = ("user", "assistant")
    return [
        msg(f"m{i:04d}", f"m{i - 1:04d}" if i else None, roles[i % 2], f"step {i}", i)
        for i in range(count)
    ]


# --- explain at any width: every row keeps its fate, every reason is readable ---------


def _notes(text: str) -> dict[str, str]:
    """Numbered notes of an explanation, ``[3]`` -> its text (wrapped lines joined)."""
    notes: dict[str, str] = {}
    current = None
    for line in text.splitlines():
        match = re.match(r"\s+(?:↳|->) \[(\d+)\] (.*)", line)
        if match:
            current = match.group(1)
            notes[current] = match.group(2)
        elif current and re.match(r"\s{8,}\S", line) and not re.match(r"\s+\d+\s", line):
            notes[current] += " " + line.strip()
        else:
            current = None
    return notes


@pytest.mark.parametrize("width", [200, 100, 80, 60, 40])
@pytest.mark.parametrize("path", [TOUR, B, EDGE / "compaction-drops-system-in-kept-range.jsonl"])
def test_explain_fits_and_hides_no_answer(path, width):
    session = pisession.load(path)
    text = explain_text(session, width=width, collapse=0)
    lines = text.splitlines()
    assert all(text_width(line) <= width for line in lines), max(lines, key=len)
    assert "…" not in "\n".join(line for line in lines if re.match(r"\s+\d+\s", line))
    notes = _notes(text)
    flat = " ".join(" ".join(lines).split())
    rows = {}
    for line in lines:
        match = re.match(r"\s*(\d+)\s+(\S+)\s", line)
        if match and match.group(2) != "of":
            rows[int(match.group(1))] = line
    for fate in session.fates():
        row = rows[fate.line]
        number = re.search(r"\[(\d+)\]\s*$", row)
        if number:  # the reason is a numbered note written once, under earlier rows
            assert " ".join(fate.reason.split()) in notes[number.group(1)]
        else:
            assert fate.reason in row or " ".join(fate.reason.split()) in flat
        assert fate.fate in row or (number and fate.fate in notes[number.group(1)])


def test_explain_in_a_pipe_keeps_full_rows():
    result = run("explain", TOUR)
    text = result.stdout.decode()
    assert "[1]" not in text
    row = next(line for line in text.splitlines() if " sys00002 " in line)
    assert row.endswith("cp000001 sends its own stored system message instead")


def test_explain_at_80_columns_on_a_terminal_width():
    result = run("explain", env={"COLUMNS": "80"})
    lines = result.stdout.decode().splitlines()
    assert max(text_width(line) for line in lines) <= 80
    assert any("[1] before the kept range of compaction cp000001" in line for line in lines)


def test_explain_at_40_columns_keeps_the_fate_on_every_row():
    text = explain_text(pisession.load(TOUR), width=40, collapse=0)
    for line in text.splitlines():
        if re.match(r"\s*\d+\s+\S+\s+\S", line) and " of " not in line:
            assert re.search(r"[✓✗] \S+", line), line


def test_explain_collapses_long_runs_and_all_shows_every_row(tmp_path, capsys):
    path = write_session(tmp_path / "long.jsonl", chain(300))
    _, short, _ = call(capsys, "explain", path)
    _, full, _ = call(capsys, "explain", path, "--all")
    assert len(full.splitlines()) > 300 > 40 > len(short.splitlines())
    assert "295 more entries: 295 sent (lines 4-298)" in short
    assert " m0299 " in short and " m0000 " in short


def test_explain_collapses_entries_not_sent_together():
    session = pisession.load(B)
    text = explain_text(session, collapse=4)
    assert "more entries: " in text and "summarized" in text


def test_explain_retain_none_reads_as_normal():
    path = EDGE / "compaction-retain-none.jsonl"
    text = explain_text(pisession.load(path))
    kept = next(line for line in text.splitlines() if line.startswith("kept range"))
    assert "by design" in kept and "retain-none" in kept and "not on the path" not in kept
    assert run("check", path).returncode == 0


def test_explain_skipped_lines_are_counted_in_words(tmp_path):
    path = write_session(tmp_path / "s.jsonl", [msg("u1", None)])
    path.write_bytes(path.read_bytes() + b"{oops\n")
    text = explain_text(pisession.load(path))
    assert "1 line is not an entry (line 3)" in text


# --- tree at any width ------------------------------------------------------------------


@pytest.mark.parametrize("width", [80, 40])
def test_tree_keeps_fates_and_marks_at_narrow_widths(width):
    session = pisession.load(TOUR)
    text = tree_text(session, width=width)
    assert all(text_width(line) <= width for line in text.splitlines())
    assert text.count("[") >= len(session)  # every entry's [fate]
    assert "◀ leaf" in text and "#first answer" in text


def test_tree_marks_every_leaf():
    session = pisession.load(TOUR)
    text = tree_text(session, collapse=0)
    leaves = {session.index.ids[p] for p in session.shape.leaves}
    marked = {
        re.search(r"[●○] (\S+)", line).group(1)
        for line in text.splitlines()
        if re.search(r"[◀◁] leaf", line)
    }
    assert marked == leaves
    assert "◁ leaf" in next(line for line in text.splitlines() if "cm000001" in line)


def test_tree_keeps_the_path_in_one_column(tmp_path):
    entries = chain(30)
    for k in range(0, 28, 2):  # a side branch at every other entry
        entries.append(msg(f"b{k:03d}", f"m{k:04d}", "user", "side", k))
    path = write_session(tmp_path / "branchy.jsonl", entries)
    text = tree_text(pisession.load(path, new_id=None), "m0029", collapse=0)
    path_lines = [line for line in text.splitlines() if " m0" in line]
    assert {line.index("●") for line in path_lines} == {3}
    assert max(len(line) for line in text.splitlines()) < 100


# --- never a traceback ------------------------------------------------------------------


def test_width_below_20_is_one_line():
    for value in ("-5", "3", "wide"):
        result = run("explain", "--width", value)
        assert result.returncode == 2
        assert result.stderr.count(b"\n") == 1 and b"Traceback" not in result.stderr
        assert b"20 or more" in result.stderr and b"pisession explain --help" in result.stderr


def test_usage_errors_are_one_line():
    for args in (("explian",), ("diff", "tour"), ("explain", "--nope")):
        result = run(*args)
        assert result.returncode == 2 and result.stderr.count(b"\n") == 1, result.stderr


def test_drawing_without_matplotlib_names_the_install(tmp_path):
    code = (
        "import sys\n"
        "class Block:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name.split('.')[0] == 'matplotlib':\n"
        "            raise ModuleNotFoundError(f'No module named {name!r}', name=name)\n"
        "sys.meta_path.insert(0, Block())\n"
        "from pisession.cli import main\n"
        f"sys.exit(main(['tree', {str(TOUR)!r}, '--png', {str(tmp_path / 't.png')!r}]))\n"
    )
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, env=env)
    assert result.returncode == 2
    assert result.stderr.count(b"\n") == 1 and b"Traceback" not in result.stderr
    assert b"pip install matplotlib" in result.stderr and b"'.[draw]'" in result.stderr
    assert not (tmp_path / "t.png").exists()


def test_an_unexpected_error_is_one_line(monkeypatch, capsys):
    import pisession.cli.check as check_command

    def broken(args):
        raise ZeroDivisionError("boom")

    monkeypatch.setattr(check_command, "run", broken)
    monkeypatch.delenv("PISESSION_DEBUG", raising=False)
    status = main(["check", str(TOUR)])
    err = capsys.readouterr().err
    assert status == 2 and err.count("\n") == 1
    assert "unexpected ZeroDivisionError: boom" in err and "PISESSION_DEBUG=1" in err
    monkeypatch.setenv("PISESSION_DEBUG", "1")
    with pytest.raises(ZeroDivisionError):
        main(["check", str(TOUR)])


def test_pisession_alone_prints_short_help():
    result = run()
    assert result.returncode == 0 and result.stderr == b""
    lines = result.stdout.decode().splitlines()
    assert all(len(line) <= 80 for line in lines)
    for command in ("explain", "tree", "export", "diff", "check", "stats", "ls"):
        assert any(line.startswith(f"  pisession {command} ") for line in lines)


@pytest.mark.parametrize("width", [80, 60])
def test_every_help_and_the_version_fit_the_terminal(monkeypatch, capsys, width):
    """``--help`` of every command (its prose rewrapped, its examples as written) and
    ``--version`` fit an 80-column terminal; at 60 the prose wraps to 60 too."""
    monkeypatch.setenv("COLUMNS", str(width))
    commands = [[], *([c] for c in ("explain", "context", "tree", "export", "diff"))]
    commands += [[c] for c in ("migrate", "check", "stats", "ls")]
    for command in [*commands, ["--version"]]:
        with pytest.raises(SystemExit):
            main([*command, "--help"] if command != ["--version"] else command)
        lines = capsys.readouterr().out.splitlines()
        assert max(map(text_width, lines)) <= 80, command
        prose = [line for line in lines if line and not line.startswith(" ")]
        assert all(text_width(line) <= max(width, 70) for line in prose), command


# --- FILE: -, a sample name, a stored session id ----------------------------------------


def test_dash_reads_standard_input():
    result = run("explain", "-", stdin=TOUR.read_bytes())
    assert result.returncode == 0, result.stderr
    assert b"file        <stdin>" in result.stdout
    assert b"9 of 26 entries reached the model" in result.stdout
    assert run("check", "-", stdin=b"not json\n").returncode == 2


def test_a_sample_name_is_a_file():
    result = run("tree", "tour", "--ascii")
    assert result.returncode == 0 and b"a6000001" in result.stdout
    assert run("explain", "pi-0.87.1-b-rpc-compaction-manual-threshold-overflow").returncode == 0
    missing = run("explain", "nosuchsample")
    assert missing.returncode == 2 and b"no such file, bundled sample" in missing.stderr


@pytest.fixture
def stored(tmp_path):
    """A Pi agent folder with three sessions whose UUIDv7 ids share their time part."""
    root = tmp_path / "agent"
    ids = [
        "019a3c1e-5b7d-7a21-9f3e-4c8d2e6b1a9f",
        "019a3c1e-5b7d-7c02-8e11-0b3f7a2c4d55",
        "019a3c1e-60aa-7f00-a0a0-77ff00ee1234",
    ]
    for k, sid in enumerate(ids):
        folder = root / "sessions" / ("--home-u-app--" if k < 2 else "--home-u-other--")
        folder.mkdir(parents=True, exist_ok=True)
        cwd = "/home/u/app" if k < 2 else "/home/u/other"
        write_session(folder / f"2026-01-01T00-0{k}-00-000Z_{sid}.jsonl", chain(4), sid, cwd)
    return root, ids


def test_ls_shows_the_part_of_the_id_that_differs(stored):
    root, ids = stored
    result = run("ls", "--all", "--json", env={"PI_CODING_AGENT_DIR": str(root)})
    shorts = {row["id"]: row["shortId"] for row in json.loads(result.stdout)}
    assert shorts == {sid: sid[-8:] for sid in ids}
    table = run("ls", "--all", env={"PI_CODING_AGENT_DIR": str(root)}).stdout.decode()
    assert "2e6b1a9f" in table and "019a3c1e" not in table.split("\n")[1].split()[3]


def test_a_stored_session_is_found_by_id(stored):
    root, ids = stored
    env = {"PI_CODING_AGENT_DIR": str(root)}
    for given in (ids[0], ids[0][-8:], "019a3c1e-60", ids[2][-5:]):
        result = run("check", given, env=env)
        assert result.returncode == 0, (given, result.stderr)
        wanted = ids[0] if given in (ids[0], ids[0][-8:]) else ids[2]
        assert wanted.encode() in result.stdout
    ambiguous = run("check", "019a3c1e-5b7d", env=env)
    assert ambiguous.returncode == 2 and b"names 2 stored sessions" in ambiguous.stderr


def test_ls_cwd_matches_the_folder_name_too(stored, tmp_path):
    root, ids = stored
    env = {"PI_CODING_AGENT_DIR": str(root)}

    def listed(*args):
        result = run("ls", *args, "--json", env=env)
        assert result.returncode == 0, result.stderr
        return [row["id"] for row in json.loads(result.stdout)]

    assert sorted(listed("--cwd", "/home/u/app")) == sorted(ids[:2])
    assert listed("--cwd=--home-u-other--") == [ids[2]]
    # a header whose cwd is spelled differently still belongs to the folder Pi chose
    moved = root / "sessions" / "--home-u-other--" / "moved.jsonl"
    write_session(moved, chain(2), "moved-1", "/elsewhere/../home/u/other/")
    assert "moved-1" in listed("--cwd", "/home/u/other")


def test_ls_in_a_pipe_keeps_whole_cwd_and_file(stored):
    root, _ = stored
    long_cwd = "/home/u/" + "a-very-long-folder-name/" * 4 + "app"
    folder = root / "sessions" / "--long--"
    folder.mkdir()
    write_session(folder / "x.jsonl", chain(2), "long-one", long_cwd)
    table = run("ls", "--all", env={"PI_CODING_AGENT_DIR": str(root)}).stdout.decode()
    assert long_cwd in table and str(folder / "x.jsonl") in table


def test_ls_at_80_columns_fits_and_names_the_id(stored):
    root, _ = stored
    result = run("ls", "--all", "--width", "80", env={"PI_CODING_AGENT_DIR": str(root)})
    lines = result.stdout.decode().splitlines()
    assert max(text_width(line) for line in lines) <= 80
    assert lines[-1].startswith("open one with: pisession explain ID")


# --- writing: names the target, never overwrites unasked --------------------------------


def test_migrate_error_names_the_target_not_the_temp_file(tmp_path):
    out = tmp_path / "missing" / "x.jsonl"
    result = run("migrate", REPO / "data/conformance/generated/gen-v1-0001.jsonl", "-o", out)
    assert result.returncode == 2
    assert result.stderr.decode().startswith(f"pisession: error: {out}: cannot write")
    assert b".tmp" not in result.stderr


def test_migrate_takes_a_sample_or_a_stored_id_but_replaces_no_sample(stored, tmp_path):
    out = tmp_path / "v3.jsonl"
    result = run("migrate", "legacy-v1", "-o", out, "--deterministic-ids")
    assert result.returncode == 0, result.stderr
    sample = pisession.load(pisession.sample_path("legacy-v1"), new_id=pisession.sequential_ids())
    assert pisession.load(out).context() == sample.context()
    refused = run("migrate", "legacy-v1", "--in-place")
    assert refused.returncode == 2
    assert b"a bundled sample is not replaced in place" in refused.stderr
    root, ids = stored
    result = run("migrate", ids[0][-8:], "-o", "-", env={"PI_CODING_AGENT_DIR": str(root)})
    assert result.returncode == 0 and b"already version 3" in result.stderr


def test_a_folder_as_output_is_named_as_one(tmp_path):
    for command in (["migrate", str(V2)], ["export", "tour"], ["tree", "tour"]):
        folder = tmp_path / "out.svg" if command[0] == "tree" else tmp_path / "out.html"
        folder.mkdir(exist_ok=True)
        result = run(*command, "-o", folder, "--force")
        err = result.stderr.decode()
        assert result.returncode == 2 and "is a folder; name a file" in err, err
    result = run("migrate", V2, "-o", tmp_path / "no" / "x.jsonl")
    assert result.stderr.decode().count("cannot write") == 1


def test_extra_arguments_name_the_command_help_and_ls_of_a_file():
    result = run("explain", "tour", "extra")
    assert result.stderr == b"pisession: error: unrecognized argument extra: to pick a leaf, " + (
        b"use --leaf extra (see pisession explain --help)\n"
    )
    result = run("ls", str(TOUR))
    assert result.returncode == 2 and b"is a file; ls lists a folder" in result.stderr


def test_context_indent_is_capped_at_ten_as_in_json_stringify():
    wide, ten = run("context", "tour", "--indent", "100"), run("context", "tour", "--indent", "10")
    assert wide.returncode == 0 and wide.stdout == ten.stdout
    assert b'\n          "messages"' in ten.stdout


def test_migrate_account_fits_the_terminal(tmp_path):
    out = tmp_path / "v3.jsonl"
    result = run("migrate", "legacy-v1", "-o", out, env={"COLUMNS": "60"})
    lines = result.stdout.decode().splitlines()
    assert result.returncode == 0 and max(map(text_width, lines)) <= 60
    assert any(line.startswith("v1 -> v2: ") for line in lines)
    assert any(line.startswith("    ") for line in lines)  # a long summary wraps, indented


def test_migrate_deterministic_ids_on_v2_says_what_happens(tmp_path):
    result = run("migrate", V2, "-o", tmp_path / "v3.jsonl", "--deterministic-ids")
    assert result.returncode == 0, result.stderr
    assert b"ids kept: a version 2 file has them already" in result.stdout
    assert b"--deterministic-ids changes nothing" in result.stdout
    assert b"sequential ids" not in result.stdout


def test_tree_picture_format_follows_the_name_and_never_overwrites(tmp_path):
    pytest.importorskip("matplotlib")
    svg = tmp_path / "t.svg"
    bad = run("tree", TOUR, "--png", svg)
    assert bad.returncode == 2 and b"use -o" in bad.stderr and not svg.exists()
    assert run("tree", TOUR, "-o", svg).returncode == 0
    assert b"<svg" in svg.read_bytes()[:2000]
    again = run("tree", TOUR, "-o", svg)
    assert again.returncode == 2 and b"exists; pass --force" in again.stderr
    assert run("tree", TOUR, "-o", svg, "--force").returncode == 0
    assert run("tree", TOUR, "-o", tmp_path / "t.gif").returncode == 2


# --- stats, ASCII streams ----------------------------------------------------------------


@pytest.mark.parametrize(
    "path", [TOUR, EDGE / "bash-execution-to-llm.jsonl", EDGE / "custom-role-to-user.jsonl"]
)
def test_stats_message_rows_add_up(capsys, path):
    status, out, _ = call(capsys, "stats", path)
    assert status == 0
    lines = out.splitlines()
    start = next(k for k, line in enumerate(lines) if line.startswith("messages"))
    total = [int(x.replace(",", "")) for x in lines[start].split()[1:]]
    subs = []
    for line in lines[start + 1 :]:
        if not line.startswith("  "):
            break
        subs.append([int(x.replace(",", "")) for x in line.split()[-2:]])
    assert [sum(s[0] for s in subs), sum(s[1] for s in subs)] == total
    stats = pisession.load(path).stats()
    assert total[0] == stats.total_messages


def test_ascii_stream_gets_ascii_punctuation():
    env = {"PYTHONIOENCODING": "ascii", "COLUMNS": "60"}
    for args in (("explain",), ("tree", "tour"), ("diff", "tour", "a6000001", "a7000001")):
        result = run(*args, env=env)
        assert result.returncode == 0, result.stderr
        assert result.stdout.isascii() and b"\\u2026" not in result.stdout, args
    assert b"..." in run("tree", "tour", env=env).stdout


def test_narrow_ranges_are_one_column_wide():
    """``text_width`` skips per-character measuring for NARROW_RANGES: every character
    in them must be one column by ``char_width`` (the Unicode of this Python)."""
    from pisession.views.terminal import NARROW_RANGES, char_width, truncate

    wide = [
        hex(code)
        for start, end in NARROW_RANGES
        for code in range(start, end + 1)
        if char_width(chr(code)) != 1
    ]
    assert wide == []
    mixed = "├─ ● 中文 e\u0301 ✓ " * 50
    assert text_width(mixed) == sum(char_width(c) for c in mixed)
    assert text_width(truncate(mixed, 41)) <= 41


@pytest.mark.parametrize("collapse", ["1", "2", "3", "4", "5"])
@pytest.mark.parametrize("command", ["tree", "explain"])
def test_a_low_collapse_shortens_only_where_two_or_more_entries_hide(capsys, command, collapse):
    """``--collapse 1`` to ``5``: runs of two to five entries stay whole (their gap would
    hide fewer than two), longer ones are shortened; nothing fails."""
    code, out, err = call(capsys, command, str(B), "--collapse", collapse, "--width", "120")
    assert code == 0 and not err
    hidden = [int(n.replace(",", "")) for n in re.findall(r"┆ ([\d,]+) more entries", out)]
    assert hidden and min(hidden) >= 2
