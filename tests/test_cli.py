"""The ``pisession`` command line, run for real: in a subprocess (``python -m pisession``)
and in-process through ``main([...])``, on the bundled samples and the conformance files.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import pisession
from pisession.cli import main
from pisession.views.explain import explain_text, tree_text
from pisession.views.terminal import clean, truncate

REPO = Path(__file__).resolve().parent.parent
EDGE = REPO / "data" / "conformance" / "edge"
GENERATED = REPO / "data" / "conformance" / "generated"
SAMPLES = REPO / "pisession" / "samples"
TOUR = pisession.sample_path("tour")
V1 = GENERATED / "gen-v1-0001.jsonl"


def run(*args: str, env: dict | None = None, cwd: str | os.PathLike | None = None):
    """``python -m pisession ARGS`` with stdout/stderr captured (both pipes)."""
    full_env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "COLUMNS")}
    full_env["PYTHONPATH"] = str(REPO) + os.pathsep + full_env.get("PYTHONPATH", "")
    full_env.update(env or {})
    return subprocess.run(
        [sys.executable, "-m", "pisession", *map(str, args)],
        capture_output=True,
        env=full_env,
        cwd=cwd or REPO,
        timeout=120,
    )


def call(capsys, *args: str) -> tuple[int, str, str]:
    """``main([...])`` in-process: (exit status, stdout, stderr)."""
    status = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return status, out, err


def write_session(path: Path, entries: list, header: dict | None = None) -> Path:
    header = header or {
        "type": "session",
        "version": 3,
        "id": "s-test",
        "timestamp": "2026-01-01T00:00:00.000Z",
        "cwd": "/home/u/proj",
    }
    lines = [json.dumps(header)] + [json.dumps(e) for e in entries]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def msg(entry_id, parent, role="user", text="hi", minute=0):
    return {
        "type": "message",
        "id": entry_id,
        "parentId": parent,
        "timestamp": f"2026-01-01T00:{minute:02d}:00.000Z",
        "message": {"role": role, "content": [{"type": "text", "text": text}]},
    }


# --- goldens: the edge files whose first recorded case is a context ------------------


def _first_context_cases():
    for golden in sorted(EDGE.glob("*.golden.json")):
        data = json.loads(golden.read_text(encoding="utf-8"))
        cases = data.get("cases") or []
        if cases and "context" in cases[0]:
            yield pytest.param(golden, cases[0], id=golden.name[: -len(".golden.json")])


EDGE_CONTEXT_CASES = list(_first_context_cases())


def test_there_are_many_edge_goldens():
    assert len(EDGE_CONTEXT_CASES) > 50


@pytest.mark.parametrize(("golden", "case"), EDGE_CONTEXT_CASES)
def test_context_matches_pi_golden(capsys, golden, case):
    jsonl = golden.with_name(golden.name.replace(".golden.json", ".jsonl"))
    leaf = [] if case["leaf"] is None else ["--leaf", case["leaf"]]
    status, out, err = call(capsys, "context", jsonl, "--compact", *leaf)
    assert status == 0, err
    assert out.endswith("}\n") and out.count("\n") == 1
    assert json.loads(out) == case["context"]
    status, out, err = call(capsys, "context", jsonl, "--llm", *leaf)
    assert status == 0, err
    assert json.loads(out) == case["llm"]


@pytest.mark.parametrize("name", pisession.samples.REAL_PI_SAMPLES)
def test_context_is_byte_for_byte_pi_output_for_real_samples(name):
    result = run("context", SAMPLES / f"{name}.jsonl")
    assert result.returncode == 0, result.stderr
    assert result.stdout == (SAMPLES / f"{name}.context.json").read_bytes()


def test_context_indent_and_stability(capsys):
    _, first, _ = call(capsys, "context", TOUR, "--indent", "4")
    _, second, _ = call(capsys, "context", TOUR, "--indent", "4")
    assert first == second
    assert first.startswith('{\n    "messages": [')
    _, compact, _ = call(capsys, "context", TOUR, "--indent", "0")
    assert json.loads(compact) == json.loads(first)
    assert "\n" not in compact.rstrip("\n")


def test_context_lone_surrogates_are_escaped_like_json_stringify():
    result = run("context", EDGE / "lone-surrogate-escape.jsonl", "--compact")
    assert result.returncode == 0
    assert rb"lone \ud83d high and \udc00 low" in result.stdout
    assert "pair 😀 ok".encode() in result.stdout


def test_context_other_leaf(capsys):
    status, out, _ = call(capsys, "context", TOUR, "--leaf", "a7000001")
    assert status == 0
    session = pisession.load(TOUR)
    assert json.loads(out) == json.loads(session.context("a7000001").to_json())
    assert json.loads(out) != json.loads(session.context().to_json())


# --- explain ------------------------------------------------------------------------


def _explain_rows(text: str) -> dict:
    """id -> the table row that names it (rows start with the line number)."""
    rows = {}
    for line in text.splitlines():
        parts = line.split()
        if len(parts) > 3 and parts[0].isdigit() and parts[1] != "of":
            rows[parts[1]] = line
    return rows


def test_explain_without_arguments_uses_the_tour():
    result = run("explain")
    assert result.returncode == 0, result.stderr
    text = result.stdout.decode("utf-8")
    assert "tour.jsonl" in text
    assert "9 of 26 entries reached the model, as 10 messages." in text
    rows = _explain_rows(text)
    expected = {
        "u1000001": "summarized",
        "lb000001": "summarized",
        "u2000001": "kept",
        "t2000001": "edited",
        "ce000001": "state-only",
        "u5000001": "off-path",
        "sys00002": "dropped-system",
        "cp000001": "compaction",
        "a6000001": "sent",
    }
    for entry_id, fate in expected.items():
        assert f" {fate} " in rows[entry_id] + " ", rows[entry_id]
    assert "kept range  u2000001 .. a5000001" in text
    assert "thinking level medium; model fake/fake-coder" in text


def test_explain_lists_every_entry_with_its_fate(capsys):
    session = pisession.load(TOUR)
    status, out, _ = call(capsys, "explain", TOUR, "--leaf", "a7000001")
    assert status == 0
    rows = _explain_rows(out)
    fates = session.fates("a7000001")
    assert len(rows) == len(fates) == len(session)
    for f in fates:
        assert rows[f.id].split()[0] == str(f.line)
        assert f" {f.fate} " in rows[f.id] + " "
    assert rows["u5000001"].count("sent")
    assert "a7000001 (line 20), chosen" in out
    assert "compaction  none on the path" in out


def test_explain_text_is_reusable_and_plain_by_default():
    session = pisession.load(TOUR)
    text = explain_text(session)
    assert "\x1b" not in text
    coloured = explain_text(session, color=True)
    assert "\x1b[" in coloured
    narrow = explain_text(session, width=60)
    assert all(len(line) <= 60 for line in narrow.splitlines())


def test_explain_legacy_file_is_stable_between_runs(capsys):
    _, first, _ = call(capsys, "explain", V1)
    _, second, _ = call(capsys, "explain", V1)
    assert first == second
    assert "migrated to 3 in memory" in first


# --- tree ---------------------------------------------------------------------------


def test_tree_text_follows_pi_order_with_the_path_last_and_marks_it(capsys):
    session = pisession.load(TOUR)
    status, out, _ = call(capsys, "tree", TOUR, "--collapse", "0", "--ascii")
    assert status == 0
    lines = out.splitlines()
    # Pi's order, except that at a branch point the child on the path comes last
    order = [p for p, _ in session.shape.preorder()]
    fork = order.index(session.position_of("lb000001"))
    side = [p for p in order[fork:] if session.fates().names[p] == "off-path"]
    path_part = [p for p in order[fork:] if p not in side]
    expected = order[:fork] + side + path_part
    assert [line.split()[0] for line in lines] == [str(session.line_of(p)) for p in expected]
    by_id = {session.entry(p)["id"]: line for p, line in zip(expected, lines)}
    assert "<- leaf" in by_id["a6000001"] and "< leaf" in by_id["cm000001"]
    assert "#first answer" in by_id["a2000001"]
    assert " * u4000001" in by_id["u4000001"] and " o u5000001" in by_id["u5000001"]
    assert "[off-path]" in by_id["bs000001"] and "[edited]" in by_id["t2000001"]
    assert by_id["bs000001"].startswith("18 |- o") and by_id["lb000001"].startswith("10 * ")


def test_tree_other_leaf_box_drawing(capsys):
    status, out, _ = call(capsys, "tree", TOUR, "--leaf", "a7000001")
    assert status == 0
    line = next(ln for ln in out.splitlines() if "a7000001" in ln)
    assert "◀ leaf" in line and "● a7000001" in line
    # now the other branch is the side one, drawn before the path
    assert "├─ ○ lb000001" in out and "\n18 ● bs000001" in out
    assert out.index("lb000001") < out.index("bs000001")


def test_tree_collapses_long_straight_runs(tmp_path, capsys):
    entries = [msg(f"m{i:03d}", f"m{i - 1:03d}" if i else None, minute=i % 60) for i in range(40)]
    path = write_session(tmp_path / "long.jsonl", entries)
    _, short, _ = call(capsys, "tree", path)
    _, full, _ = call(capsys, "tree", path, "--collapse", "0")
    assert len(full.splitlines()) == 40
    assert len(short.splitlines()) < 10
    assert "35 more entries (lines 4-38)" in short
    assert "m039" in short and "m000" in short


def test_tree_of_a_cycle_still_draws_and_warns():
    result = run("tree", EDGE / "parent-cycle.jsonl")
    assert result.returncode == 1
    assert b"parent cycle" in result.stderr
    assert b"u1" in result.stdout
    assert b"not in the tree: 2 entries in or under a loop of parents" in result.stdout
    assert b"lines 3, 4; see pisession check" in result.stdout


def test_tree_names_the_lines_it_leaves_out_when_the_loop_is_the_tree_views_own():
    """Entries without a ``parentId`` hang under the entry without an ``id`` in Pi's tree
    view (``undefined`` is one Map key), which here hangs under one of them: a loop only
    the tree view makes (no path walk meets it, so ``check`` finds no cycle)."""
    path = REPO / "data/conformance/jsvalues/tostring-timestamp-in-a-cycle.jsonl"
    result = run("tree", path)
    last = result.stdout.decode().splitlines()[-1]
    assert "not in the tree: 19 entries in or under a loop of parents" in last
    assert "lines 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, ...)" in last and "check" not in last


def test_tree_image(tmp_path):
    pytest.importorskip("matplotlib")
    pytest.importorskip("pisession.views.draw")
    png, svg = tmp_path / "t.png", tmp_path / "t.svg"
    result = run("tree", TOUR, "--png", png)
    assert result.returncode == 0, result.stderr
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    result = run("tree", TOUR, "--svg", svg, "--orientation", "LR")
    assert result.returncode == 0, result.stderr
    assert b"<svg" in svg.read_bytes()[:2000]
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")] == []


# --- migrate ------------------------------------------------------------------------


def test_migrate_writes_a_v3_copy_and_leaves_the_input_alone(tmp_path, capsys):
    before = V1.read_bytes()
    mtime = V1.stat().st_mtime_ns
    out = tmp_path / "v3.jsonl"
    status, text, err = call(capsys, "migrate", V1, "-o", out, "--deterministic-ids")
    assert status == 0, err
    assert "v1 -> v2:" in text and "v2 -> v3:" in text and f"wrote {out}" in text
    assert V1.read_bytes() == before and V1.stat().st_mtime_ns == mtime
    migrated = pisession.load(out)
    assert migrated.header["version"] == 3 and not migrated.migrated
    assert migrated.context().to_dict() == pisession.load(V1).context().to_dict()
    mask = os.umask(0o022)
    os.umask(mask)
    assert out.stat().st_mode & 0o777 == 0o666 & ~mask  # not the temp file's 0600

    # the same command again refuses to overwrite, then --force replaces it
    written = out.read_bytes()
    status, _, err = call(capsys, "migrate", V1, "-o", out, "--deterministic-ids")
    assert status == 2 and "exists; pass --force" in err
    status, _, _ = call(capsys, "migrate", V1, "-o", out, "--deterministic-ids", "--force")
    assert status == 0 and out.read_bytes() == written  # deterministic ids: same bytes


def test_migrate_nothing_to_do(tmp_path, capsys):
    out = tmp_path / "out.jsonl"
    status, text, _ = call(capsys, "migrate", TOUR, "-o", out)
    assert status == 0
    assert "already version 3, nothing to migrate" in text
    assert not out.exists()


def test_migrate_in_place_and_usage_errors(tmp_path, capsys):
    copy = tmp_path / "old.jsonl"
    copy.write_bytes(V1.read_bytes())
    status, _, err = call(capsys, "migrate", copy)
    assert status == 2 and "-o OUT" in err
    status, _, err = call(capsys, "migrate", copy, "-o", copy, "--force")
    assert status == 2 and "--in-place" in err
    status, _, _ = call(capsys, "migrate", copy, "--in-place")
    assert status == 0
    assert pisession.load(copy).original_version == 3
    assert [p.name for p in tmp_path.iterdir()] == ["old.jsonl"]


def test_migrate_random_ids_by_default(tmp_path):
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    assert run("migrate", V1, "-o", a).returncode == 0
    assert run("migrate", V1, "-o", b).returncode == 0
    assert a.read_bytes() != b.read_bytes()
    assert pisession.load(a).context().to_dict() == pisession.load(b).context().to_dict()


# --- check --------------------------------------------------------------------------


def test_check_clean_sample_exits_0(capsys):
    status, out, _ = call(capsys, "check", TOUR)
    assert status == 0 and "no problems found" in out


@pytest.mark.parametrize(
    ("name", "kind"),
    [
        ("parent-cycle", "parent-cycle"),
        ("self-parent", "parent-cycle"),
        ("cycle-via-duplicate-id", "duplicate-id"),
        ("dangling-parent", "dangling-parent"),
        ("duplicate-ids-later-wins", "duplicate-id"),
        ("compaction-first-kept-not-found", "compaction-kept-range"),
        ("malformed-and-blank-lines", "skipped-line (malformed)"),
        ("message-without-message-field", "pi-fails"),
        ("context-edit-replacement-missing", "pi-fails"),
    ],
)
def test_check_damaged_files_exit_1(name, kind):
    result = run("check", EDGE / f"{name}.jsonl")
    assert result.returncode == 1, result.stdout
    assert f": {kind}: ".encode() in result.stdout


def test_check_notes_a_legacy_version_and_exits_0_unless_strict():
    path = EDGE / "version-missing-means-1.jsonl"
    result = run("check", path)
    assert result.returncode == 0, result.stdout
    assert b": note: legacy-version: " in result.stdout
    assert run("check", path, "--strict").returncode == 1


def test_check_context_edits_without_effect(tmp_path, capsys):
    entries = [
        msg("u1", None),
        {"type": "label", "id": "l1", "parentId": "u1", "targetId": "u1", "label": "x"},
        {"type": "context_edit", "id": "e1", "parentId": "l1", "targetId": "gone",
         "replacement": None},
        {"type": "context_edit", "id": "e2", "parentId": "e1", "targetId": "l1",
         "replacement": {"content": "y"}},
        msg("b1", "u1", minute=5),
        {"type": "context_edit", "id": "e3", "parentId": "u1", "targetId": "b1",
         "replacement": None},
        {"type": "context_edit", "id": "e4", "parentId": "e2", "targetId": "u1",
         "replacement": {"content": "fine"}},
    ]  # fmt: skip
    path = write_session(tmp_path / "edits.jsonl", entries)
    status, out, _ = call(capsys, "check", path)
    assert status == 1
    problems = [line for line in out.splitlines() if ": context-edit: " in line]
    assert len(problems) == 3
    assert "'gone', which no entry has" in problems[0]
    assert "contributes no editable message (roles: none)" in problems[1]
    assert "'b1' (line 6), which is not on the edit's path" in problems[2]


def test_check_blank_lines_are_notes_only(tmp_path, capsys):
    path = write_session(tmp_path / "s.jsonl", [msg("u1", None)])
    path.write_bytes(path.read_bytes() + b"\n\n")
    status, out, _ = call(capsys, "check", path)
    assert status == 0 and "note: skipped-line (blank)" in out


def test_check_unreadable_file_exits_2():
    result = run("check", EDGE / "header-not-first.jsonl")
    assert result.returncode == 2
    assert result.stderr.startswith(b"pisession: error: ")
    assert result.stdout == b""


# --- stats --------------------------------------------------------------------------


def test_stats_json_matches_the_library(capsys):
    session = pisession.load(TOUR)
    status, out, _ = call(capsys, "stats", TOUR, "--leaf", "a7000001", "--json")
    assert status == 0
    data = json.loads(out)
    roles = [data[k].pop("messagesByRole") for k in ("session", "branch")]
    assert data["session"] == session.stats().to_dict()
    assert data["branch"] == session.stats("a7000001", branch=True).to_dict()
    assert sum(roles[0].values()) == data["session"]["totalMessages"]
    assert roles[1] == {"system": 1, "user": 2, "assistant": 3, "toolResult": 1}
    assert data["leaf"] == "a7000001"
    assert data["context"]["messages"] == len(session.context("a7000001").messages)
    assert data["session"] != data["branch"]


def test_stats_table(capsys):
    status, out, _ = call(capsys, "stats", TOUR)
    assert status == 0
    assert "branch to a6000001" in out
    row = next(line for line in out.splitlines() if line.startswith("tokens"))
    assert row.split()[1:] == ["11,277", "10,269"]
    assert "$0.0257" in out


# --- ls -----------------------------------------------------------------------------


@pytest.fixture
def agent_dir(tmp_path):
    """An agent folder laid out as Pi lays it out, with three sessions."""
    root = tmp_path / "agent"
    folder = root / "sessions" / "--home-u-proj--"
    other = root / "sessions" / "--home-u-other--"
    folder.mkdir(parents=True)
    other.mkdir(parents=True)
    for name, sid, cwd, minute in [
        ("api work", "11111111-aaaa", "/home/u/proj", 1),
        ("docs", "22222222-bbbb", "/home/u/proj", 3),
        ("elsewhere", "33333333-cccc", "/home/u/other", 2),
    ]:
        header = {"type": "session", "version": 3, "id": sid,
                  "timestamp": "2026-01-01T00:00:00.000Z", "cwd": cwd}  # fmt: skip
        entries = [
            {
                "type": "session_info",
                "id": "n1",
                "parentId": None,
                "timestamp": "2026-01-01T00:00:00.000Z",
                "name": name,
            },
            msg("u1", "n1", text=f"question about {name}", minute=minute),
        ]
        target = folder if cwd.endswith("proj") else other
        write_session(target / f"2026-01-01T00-00-00-000Z_{sid}.jsonl", entries, header)
    (folder / "notes.txt").write_text("not a session")
    (folder / "broken.jsonl").write_text('{"type":"message"}\n')
    return root


def _ls(agent_dir, *args, env=None, cwd=None):
    result = run("ls", *args, "--json", env={"PI_CODING_AGENT_DIR": str(agent_dir), **(env or {})},
                 cwd=cwd)  # fmt: skip
    assert result.returncode == 0, result.stderr
    return [row["id"] for row in json.loads(result.stdout)]


def test_ls_all_newest_first(agent_dir):
    assert _ls(agent_dir, "--all") == ["22222222-bbbb", "33333333-cccc", "11111111-aaaa"]


def test_ls_filters(agent_dir, tmp_path):
    assert _ls(agent_dir, "--cwd", "/home/u/proj") == ["22222222-bbbb", "11111111-aaaa"]
    assert _ls(agent_dir, "--all", "--name", "API") == ["11111111-aaaa"]
    assert _ls(agent_dir, "--all", "--name", "question about docs") == ["22222222-bbbb"]
    assert _ls(agent_dir) == []  # the subprocess runs in the repo: no sessions there


def test_ls_dir_argument_and_session_dir_variable(agent_dir, tmp_path):
    sessions = agent_dir / "sessions"
    assert len(_ls(tmp_path / "nowhere", str(sessions))) == 3
    moved = {"PI_CODING_AGENT_SESSION_DIR": str(sessions / "--home-u-other--")}
    assert _ls(tmp_path / "nowhere", "--all", env=moved) == ["33333333-cccc"]
    pig = {"PIG_CODING_AGENT_DIR": str(agent_dir)}
    assert len(_ls(tmp_path / "nowhere", "--pig", "--all", env=pig)) == 3


def test_ls_table_is_plain_in_a_pipe(agent_dir):
    result = run("ls", "--all", env={"PI_CODING_AGENT_DIR": str(agent_dir)})
    assert result.returncode == 0
    text = result.stdout.decode()
    assert "\x1b" not in text
    lines = text.splitlines()
    assert lines[0].split()[:3] == ["modified", "msgs", "id"]
    assert "22222222" in lines[1] and "docs" in lines[1] and "/home/u/proj" in lines[1]
    assert len(lines) == 4


def test_ls_missing_root_is_an_error(tmp_path):
    result = run("ls", "--all", env={"PI_CODING_AGENT_DIR": str(tmp_path / "none")})
    assert result.returncode == 2 and b"no such folder" in result.stderr


# --- terminal safety, errors, startup -------------------------------------------------


@pytest.fixture
def hostile(tmp_path):
    text = "evil \x1b[31mRED\x1b[0m \x1b]0;title\x07 \u202egnp.exe \x9b2J end"
    entries = [msg("u\x1b[2J1", None, text=text), msg("a1", "u\x1b[2J1", "assistant", text)]
    return write_session(tmp_path / "hostile\x1b[1m.jsonl", entries)


@pytest.mark.parametrize("command", ["explain", "tree", "check", "stats"])
def test_session_text_never_reaches_the_terminal_raw(capsys, hostile, command):
    for colour in ("--no-color", "--color"):
        status, out, err = call(capsys, command, hostile, colour)
        assert status == 0, err
        for raw in ("\x1b[31m", "\x1b]0", "\x07", "\u202e", "\x9b", "\x1b[2J", "\x1b[1m.j"):
            assert raw not in out
    shown = {"explain": "u\\x1b[2J1", "tree": "\\x1b[31mRED", "check": "hostile\\x1b[1m"}
    assert shown.get(command, "hostile\\x1b[1m") in out


def test_no_ansi_in_pipes_unless_asked():
    for command in ("explain", "tree", "stats", "check"):
        args = [command] if command == "explain" else [command, TOUR]
        assert b"\x1b" not in run(*args).stdout
    assert b"\x1b[" in run("explain", "--color").stdout
    assert b"\x1b" not in run("explain", env={"NO_COLOR": "1"}).stdout


def test_missing_file_is_one_line_on_stderr():
    result = run("explain", "no-such-file.jsonl")
    assert result.returncode == 2
    assert result.stderr == b"pisession: error: no-such-file.jsonl: cannot read: " + (
        os.strerror(2).encode() + b"\n"
    )
    assert result.stdout == b""


@pytest.mark.parametrize("command", ["explain", "context", "tree", "stats"])
def test_unknown_leaf_is_one_line_on_stderr(capsys, command):
    status, out, err = call(capsys, command, TOUR, "--leaf", "nope")
    assert status == 2 and out == ""
    assert err.startswith(f"pisession: error: {TOUR}: no entry has id 'nope'")
    assert "a6000001" in err and err.count("\n") == 1


def test_cycle_on_the_default_leaf_is_an_error_not_a_hang():
    result = run("context", EDGE / "parent-cycle.jsonl")
    assert result.returncode == 2
    assert b"parent cycle: b -> a -> b" in result.stderr
    assert b"Traceback" not in result.stderr
    ok = run("context", EDGE / "parent-cycle.jsonl", "--leaf", "u1")
    assert ok.returncode == 0


def test_every_command_has_help_with_examples():
    for command in ("explain", "context", "tree", "migrate", "check", "stats", "ls"):
        result = run(command, "--help")
        assert result.returncode == 0
        assert b"examples:" in result.stdout and b"pisession " + command.encode() in result.stdout
    top = run("--help")
    assert top.returncode == 0 and b"explain" in top.stdout
    expected = f"pisession {pisession.__version__} (session format v3; the rules of Pi"
    assert run("--version").stdout.decode().startswith(expected)


def test_import_is_light():
    code = (
        "import sys, pisession.cli; "
        "print(sorted({m.split('.')[0] for m in sys.modules} & "
        "{'matplotlib', 'networkx', 'ipywidgets'}))"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, cwd=REPO)
    assert result.stdout.strip() == b"[]", result.stderr


def test_clean_and_truncate():
    assert clean("a\x1bb\x00c\x7fd\x85e\nf") == "a\\x1bb\\x00c\\x7fd\\x85e\\nf"
    assert clean("\ud800 \u2066") == "\\ud800 \\u2066"
    assert clean("café 中文 😀") == "café 中文 😀"
    assert truncate("中文中文", 5) == "中文…"


def test_tree_text_function_matches_command(capsys):
    session = pisession.load(TOUR)
    _, out, _ = call(capsys, "tree", TOUR, "--ascii", "--no-color")
    assert out == tree_text(session, ascii=True)


def _compaction_cases():
    for path in sorted(EDGE.glob("*.jsonl")) + sorted(GENERATED.glob("*.jsonl")):
        if "compaction" in path.read_text(encoding="utf-8", errors="replace"):
            yield path


def test_check_kept_range_findings_agree_with_the_projection():
    """``check`` finds empty kept ranges walking the tree once; the session finds them
    by walking each compaction's own path. Both must name the same compactions."""
    from pisession.errors import PisessionError
    from pisession.views.findings import check

    checked = 0
    for path in _compaction_cases():
        try:
            session = pisession.load(path, new_id=pisession.sequential_ids())
        except PisessionError:
            continue
        flagged = {f.line for f in check(session) if f.kind == "compaction-kept-range"}
        expected = set()
        for c, entry in enumerate(session.entries):
            if not isinstance(entry, dict) or entry.get("type") != "compaction":
                continue
            ident = entry.get("id")
            if ident == entry.get("firstKeptEntryId") or session.position_of(ident) != c:
                continue
            try:
                selection = session.selection(ident)
            except PisessionError:
                continue
            checked += 1
            if selection.first_kept is None:
                expected.add(session.line_of(c))
        assert flagged == expected, path.name
    assert checked > 100
