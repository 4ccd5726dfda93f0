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
    kinds = {line.split()[2] for line in rows}
    assert {"toolResult", "branch_summary", "user"} <= kinds  # columns of several widths
    columns = [re.match(r" +\d+  (\S+) +(\S+) +(\S+) +(\S)", line) for line in rows]
    assert all(columns)
    assert {m.group(3) for m in columns} <= set(FATE)
    assert len({m.start(3) for m in columns}) == 1  # the fate
    assert len({m.start(4) for m in columns}) == 1  # the excerpt
    if width is not None:
        assert max(len(line) for line in out.splitlines()) <= width
