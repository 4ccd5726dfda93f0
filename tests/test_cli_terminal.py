"""The command line as a reader meets it on a terminal: each command offers its own
options, colours that read on dark and light themes and never span a line break,
aligned search results, errors that fit 80 columns, and hints that name the fix."""

from __future__ import annotations

import argparse
import re

import pytest

import pisession
from pisession.cli import build_parser, main

TOUR = pisession.sample_path("tour")
TERMINAL_OPTIONS = ("--color", "--no-color", "--width", "--ascii")


def call(capsys, *args: object) -> tuple[int, str, str]:
    status = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return status, out, err


def _options(command: str) -> set[str]:
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return {o for action in sub.choices[command]._actions for o in action.option_strings}


@pytest.mark.parametrize("command", ["context", "export", "migrate"])
def test_commands_that_write_json_or_a_file_offer_no_terminal_options(capsys, command):
    assert not _options(command) & set(TERMINAL_OPTIONS)
    with pytest.raises(SystemExit) as stop:
        main([command, str(TOUR), "--width", "80", "-o", "-"])
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith(f"pisession: error: {command} writes ") and err.count("\n") == 1
    assert f"--width is for text on a terminal (see pisession {command} --help)" in err


@pytest.mark.parametrize(
    "command", ["explain", "tree", "diff", "check", "stats", "ls", "usage", "search"]
)
def test_commands_that_print_for_a_terminal_offer_colour_width_and_ascii(command):
    assert set(TERMINAL_OPTIONS) <= _options(command)


@pytest.mark.parametrize("width", [None, 80, 60])
def test_search_rows_align_their_fate_and_excerpt_columns(capsys, width):
    """Every hit's fate starts at one column and its excerpt at another, whatever the
    lengths of the ids, roles and types before them."""
    from pisession.views.provenance import FATE

    wide = [] if width is None else ["--width", width]
    status, out, _ = call(capsys, "search", "util.py", TOUR.parent, "--no-color", *wide)
    rows = [line for line in out.splitlines() if line.startswith("  ")]
    assert status == 0 and len(rows) >= 9
    # line, the entry's time (where the width leaves room for it), id, kind, fate, excerpt
    columns = [re.match(r" +\d+  (?:\S+ \S+  )?(\S+) +(\S+) +(\S+) +(\S)", line) for line in rows]
    assert {"toolResult", "branch_summary", "user"} <= {m.group(2) for m in columns if m}
    assert all(columns)
    assert {m.group(3) for m in columns} <= set(FATE)
    assert len({m.start(3) for m in columns}) == 1  # the fate
    assert len({m.start(4) for m in columns}) == 1  # the excerpt
    if width is not None:
        assert max(len(line) for line in out.splitlines()) <= width


# --- colours: readable on dark and light themes, reset before every newline ------------

#: The 16 ANSI colours (30-37, then 90-97) of three common terminal themes, with the
#: theme's background and foreground: xterm's defaults on black, VS Code's Dark+ and
#: GNOME Terminal's Tango palette on white. (xterm's own green and cyan, #00cd00 and
#: #00cdcd, are made for a dark background: on white they reach 2.2 and 2.0.)
THEMES = {
    "xterm on black": (
        "000000 cd0000 00cd00 cdcd00 0000ee cd00cd 00cdcd e5e5e5 "
        "7f7f7f ff0000 00ff00 ffff00 5c5cff ff00ff 00ffff ffffff",
        "000000",
        "e5e5e5",
    ),
    "VS Code Dark+": (
        "000000 cd3131 0dbc79 e5e510 2472c8 bc3fbc 11a8cd e5e5e5 "
        "666666 f14c4c 23d18b f5f543 3b8eea d670d6 29b8db e5e5e5",
        "1e1e1e",
        "cccccc",
    ),
    "GNOME Tango, light": (
        "2e3436 cc0000 4e9a06 c4a000 3465a4 75507b 06989a d3d7cf "
        "555753 ef2929 8ae234 fce94f 729fcf ad7fa8 34e2e2 eeeeec",
        "ffffff",
        "2e3436",
    ),
}


def _luminance(rgb: str) -> float:
    def linear(c: float) -> float:
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (linear(int(rgb[i : i + 2], 16) / 255) for i in (0, 2, 4))
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a: str, b: str) -> float:
    """WCAG 2 contrast ratio of two sRGB colours (1 to 21)."""
    high, low = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def _text_colour(style: str, theme: str) -> str:
    """The colour a theme draws text of ``style`` in (its foreground when none is set)."""
    from pisession.views.terminal import _CODES

    palette, _, foreground = THEMES[theme]
    colours = palette.split()
    colour = foreground
    for name in style.split():
        code = int(_CODES[name])
        if 30 <= code <= 37:
            colour = colours[code - 30]
        elif 90 <= code <= 97:
            colour = colours[code - 90 + 8]
    return colour


def test_contrast_is_wcag_s():
    assert round(contrast("000000", "ffffff"), 1) == 21.0
    assert round(contrast("0000ee", "000000"), 2) == 2.23  # the old state-only on black
    assert round(contrast("666666", "1e1e1e"), 2) == 2.90  # the old off-path in VS Code


@pytest.mark.parametrize("theme", list(THEMES))
def test_every_fate_colour_reads_on_dark_and_light_themes(theme):
    """Each fate's terminal colour has a WCAG contrast of 3 or more against the theme's
    background (the fate's word and its ✓/✗ say the rest): state-only was ANSI blue
    (2.2 on xterm's black) and off-path bright black (2.9 on VS Code's Dark+)."""
    from pisession.views.provenance import FATES

    background = THEMES[theme][1]
    low = {
        kind.name: round(contrast(_text_colour(kind.style, theme), background), 2)
        for kind in FATES
        if contrast(_text_colour(kind.style, theme), background) < 3
    }
    assert low == {}


@pytest.mark.parametrize(
    "command",
    [
        ["explain"],
        ["explain", "--leaf", "a7000001", "--all"],
        ["tree", TOUR],
        ["diff", TOUR, "a6000001", "a7000001"],
        ["check", pisession.sample_path("legacy-v1")],
        ["stats", TOUR],
        ["ls", TOUR.parent, "--all"],
        ["usage", TOUR.parent],
        ["search", "util.py", TOUR.parent],
    ],
    ids=lambda c: c[0],
)
def test_colours_are_reset_before_every_newline_at_any_width(capsys, command):
    """A colour open at a line's end would paint the newline and the next line's indent
    (``\\e[36medited 1\\n\\e[39m`` in a narrow terminal): every line closes its styles."""
    from pisession.views.terminal import open_style_at_line_end

    coloured = 0
    for width in range(20, 101, 4):
        status, out, _ = call(capsys, *command, "--color", "--width", width)
        assert status in (0, 1)
        coloured += "\x1b[" in out  # (a line cut to a narrow width drops its colours)
        assert open_style_at_line_end(out) == [], width
    assert coloured


# --- hints that name the fix -------------------------------------------------------------


def test_a_mistyped_sample_gets_did_you_mean(capsys):
    status, out, err = call(capsys, "explain", "tuor")
    assert (status, out) == (2, "")
    assert (
        err
        == "pisession: error: tuor: no such file, sample or stored session: did you mean tour?\n"
    )


@pytest.fixture
def demo(tmp_path, monkeypatch):
    """The samples stored as docs/cli.md stores them: ``python -m pisession.samples
    demo/agent``, in a folder of their own."""
    from pisession.samples import store_samples

    monkeypatch.chdir(tmp_path)
    store_samples(tmp_path / "demo" / "agent")
    return tmp_path


@pytest.mark.parametrize("command", [["ls"], ["usage"], ["search", "util.py"]])
def test_the_agent_folder_finds_its_sessions_folder(capsys, demo, command):
    """``ls demo/agent`` (the folder PI_CODING_AGENT_DIR names): its sessions are in
    demo/agent/sessions, and the commands find them there (sessions below a folder are
    found, issue 41), as they do given demo/agent/sessions itself."""
    for folder in ("demo/agent", "demo/agent/sessions"):
        status, out, _ = call(capsys, *command, folder)
        assert status == 0 and ("fake/fake-coder" if command == ["usage"] else "0b5e55ed") in out


def test_an_empty_agent_folder_points_to_its_sessions_folder(capsys, tmp_path):
    """A folder holding no sessions but a ``sessions`` folder that does is named."""
    from pisession.cli.folder import _stored_below

    (tmp_path / "sessions" / "--p--").mkdir(parents=True)
    assert _stored_below(tmp_path) is None
    (tmp_path / "sessions" / "--p--" / "s.jsonl").write_text('{"type":"session"}\n')
    assert _stored_below(tmp_path) == tmp_path / "sessions"


@pytest.mark.parametrize("command", ["ls", "usage"])
def test_no_pi_folder_points_to_the_demo_folder(capsys, tmp_path, monkeypatch, command):
    for name in ("PI_CODING_AGENT_DIR", "PI_CODING_AGENT_SESSION_DIR"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    status, out, err = call(capsys, command)
    assert (status, out) == (2, "")
    assert "no such folder (Pi makes it when it stores a session)" in err
    assert "python -m pisession.samples demo/agent" in err
    assert "PI_CODING_AGENT_DIR=demo/agent pisession ls --all" in err
    status, _, err = call(capsys, command, tmp_path / "elsewhere")
    assert status == 2 and err.endswith("elsewhere: no such folder\n")


def test_migrate_says_nothing_to_migrate_before_asking_where_to_write(capsys):
    status, out, err = call(capsys, "migrate", "tour")
    assert status == 0 and err == ""
    assert out.endswith("tour.jsonl: already version 3, nothing to migrate, nothing written\n")
    status, _, err = call(capsys, "migrate", "legacy-v1")
    assert status == 2 and "say where to write: -o OUT" in err


@pytest.mark.parametrize("command", ["explain", "context", "tree", "check", "stats", "migrate"])
def test_every_command_that_reads_one_session_defaults_to_the_tour(capsys, command):
    assert call(capsys, command)[:2] == call(capsys, command, "tour")[:2]


def test_export_defaults_to_the_tour_too(capsys, tmp_path):
    status, out, _ = call(capsys, "export", "-o", tmp_path / "tour.html")
    assert status == 0 and out.startswith(f"wrote {tmp_path / 'tour.html'} (html, ")


def test_diff_without_its_leaves_shows_an_example(capsys):
    with pytest.raises(SystemExit):
        main(["diff", "tour"])
    err = capsys.readouterr().err
    assert "required: LEAF_A, LEAF_B (for example: pisession diff tour a6000001 a7000001)" in err


# --- errors at 80 columns ---------------------------------------------------------------


def _stderr_on_a_terminal(args: list[str], columns: int, cwd) -> tuple[int, str]:
    """``python -m pisession ARGS`` with stderr on a pseudo-terminal ``columns`` wide
    (stdout a pipe): the exit status and what the terminal received."""
    import fcntl
    import os
    import struct
    import subprocess
    import sys
    import termios
    from pathlib import Path

    pty = pytest.importorskip("pty")
    main_fd, side_fd = pty.openpty()
    fcntl.ioctl(side_fd, termios.TIOCSWINSZ, struct.pack("HHHH", 40, columns, 0, 0))
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
    env["PYTHONPATH"] = str(Path(__file__).resolve().parent.parent)
    try:
        result = subprocess.run(
            [sys.executable, "-m", "pisession", *args],
            stdout=subprocess.PIPE,
            stderr=side_fd,
            stdin=subprocess.DEVNULL,
            env=env,
            cwd=cwd,
            timeout=60,
        )
    finally:
        os.close(side_fd)
    received = b""
    while True:
        try:
            chunk = os.read(main_fd, 65536)
        except OSError:
            break
        if not chunk:
            break
        received += chunk
    os.close(main_fd)
    return result.returncode, received.decode("utf-8").replace("\r\n", "\n")


LONG_ERRORS = [
    ["explain", "tour", "--leaf", "zzz"],  # the leaves and the hint
    ["ls"],  # no Pi folder: how to try the demo folder
    ["explain", "no-such-folder/with-a-rather-long-name/and-a-longer-session-file.jsonl"],
    ["export", "tour", "--width", "80"],  # a usage error, through argparse
]


@pytest.mark.parametrize("args", LONG_ERRORS, ids=lambda a: " ".join(a[:2]))
def test_errors_wrap_at_spaces_to_an_80_column_terminal(tmp_path, args):
    status, text = _stderr_on_a_terminal(args, 80, tmp_path)
    lines = text.rstrip("\n").split("\n")
    assert status == 2
    assert len(lines) > 1 and lines[0].startswith("pisession: error: ")
    assert all(len(line) <= 80 for line in lines), lines
    assert all(line.startswith("    ") for line in lines[1:])
    # broken at spaces (or after a path's /): joined again, the one line a pipe receives
    joined = lines[0]
    for line in lines[1:]:
        joined += ("" if joined.endswith("/") else " ") + line.strip()
    assert joined == subprocess_stderr(args, tmp_path)


def subprocess_stderr(args: list[str], cwd) -> str:
    import os
    import subprocess
    import sys
    from pathlib import Path

    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
    env["PYTHONPATH"] = str(Path(__file__).resolve().parent.parent)
    result = subprocess.run(
        [sys.executable, "-m", "pisession", *args], capture_output=True, env=env, cwd=cwd
    )
    text = result.stderr.decode("utf-8")
    assert text.count("\n") == 1  # in a pipe: one line, for logs and grep
    return text.rstrip("\n")


def test_nothing_to_migrate_fits_the_width(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "60")  # output_width's width for a pipe
    status, out, _ = call(capsys, "migrate", "tour")
    lines = out.splitlines()
    assert status == 0 and len(lines) > 1 and max(map(len, lines)) <= 60
    assert " ".join(line.strip() for line in lines).endswith(
        "already version 3, nothing to migrate, nothing written"
    )


def test_every_help_description_is_one_sentence():
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    for name, command in sub.choices.items():
        assert command.description.endswith(("?", ".")), name
        assert not command.description.endswith(("?.", "..")), name
    assert sub.choices["search"].description.endswith("did each hit reach the model?")
