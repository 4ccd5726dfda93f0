"""The command line's layout (issue 42): one module per command, each with its arguments
(``add_parser``) and what it does (``run``); the package docstring names every command;
``pisession --version`` and ``--help`` load no renderer (``views.explain`` ...) and no folder
reader."""

from __future__ import annotations

import argparse
import importlib
import subprocess
import sys
from pathlib import Path

import pisession.cli
from pisession.cli.parser import COMMANDS, build_parser

REPO = Path(__file__).resolve().parent.parent


def command_names() -> list[str]:
    parser = build_parser()
    actions = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return list(actions[0].choices)


def test_every_command_is_a_module_with_add_parser_and_run():
    names = command_names()
    assert len(names) == len(COMMANDS) == 11
    for name, add in zip(names, COMMANDS):
        module = importlib.import_module(f"pisession.cli.{name}")
        assert add is module.add_parser, name
        given = {"search": ["x"], "diff": ["tour", "a", "b"]}.get(name, [])
        assert build_parser().parse_args([name, *given]).func is module.run, name


def test_the_package_docstring_names_every_command():
    doc = pisession.cli.__doc__ or ""
    listed = [line.split()[1] for line in doc.splitlines() if line.startswith("    pisession ")]
    assert listed == command_names()


def test_version_and_help_load_no_renderer():
    code = (
        "import sys\n"
        "from pisession.cli import main\n"
        "for argv in (['--version'], ['--help']):\n"
        "    try:\n"
        "        main(argv)\n"
        "    except SystemExit:\n"
        "        pass\n"
        "heavy = ['pisession.files', 'pisession.folders.discover', 'pisession.folders.text',\n"
        "         'pisession.views.explain', 'pisession.views.export', 'pisession.views.reports',\n"
        "         'pisession.views.findings', 'pisession.views.draw', 'pisession.engine.stream']\n"
        "print(sorted(m for m in heavy if m in sys.modules), file=sys.stderr)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, cwd=REPO, text=True, check=True
    )
    assert result.stderr.strip().splitlines()[-1] == "[]", result.stderr


def test_python_m_pisession_cli_runs_the_command_line():
    result = subprocess.run(
        [sys.executable, "-m", "pisession.cli", "check", "tour"],
        capture_output=True,
        cwd=REPO,
        text=True,
    )
    assert result.returncode == 0
    assert result.stdout == "pisession/samples/tour.jsonl: no problems found (26 entries)\n"
