"""Every example in ``docs/cli.md`` is a real run: each ``$ command`` of a ``console``
block is run (in a fresh folder holding a copy of the package and the repository's
``data`` folder, nothing else: a folder an example reads is one an earlier example of
the page made) and its output must be the text the page shows. So the page cannot
drift from the program, and a reader can run every example as written.

    python tests/test_docs_cli.py --update    # rewrite the outputs from real runs

A block preceded by ``<!-- needs: matplotlib -->`` is skipped without matplotlib.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
DOC = REPO / "docs" / "cli.md"
BLOCK = re.compile(
    r"(?P<needs><!-- needs: (?P<what>\w+) -->\n)?"
    r"(?P<fence>`{3,})console\n(?P<body>.*?)(?P=fence)\n",
    re.S,
)


def blocks(text: str) -> list[dict]:
    """The console blocks of the page: their commands and the output shown for each."""
    out = []
    for match in BLOCK.finditer(text):
        runs: list[list] = []
        for line in match.group("body").splitlines():
            if line.startswith("$ "):
                runs.append([line[2:], []])
            elif runs:
                runs[-1][1].append(line)
        out.append({"span": match.span("body"), "needs": match.group("what"), "runs": runs})
    return out


def workspace(folder: Path) -> dict:
    """A folder to run the examples in, and their environment."""
    shutil.copytree(
        REPO / "pisession", folder / "pisession", ignore=shutil.ignore_patterns("__pycache__")
    )
    (folder / "data").symlink_to(REPO / "data")
    bin_dir = folder / "bin"
    bin_dir.mkdir()
    for name, command in (("pisession", "-m pisession "), ("python", "")):
        shim = bin_dir / name
        shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" {command}"$@"\n')
        shim.chmod(0o755)
    keep = ("PATH", "SYSTEMROOT", "LD_LIBRARY_PATH")
    env = {k: v for k, v in os.environ.items() if k in keep}
    env.update(
        PATH=f"{bin_dir}{os.pathsep}{env.get('PATH', '')}",
        PYTHONPATH=str(folder),
        HOME=str(folder / "home"),
        TZ="UTC",
        LANG="C.UTF-8",
        LC_ALL="C.UTF-8",
        PYTHONIOENCODING="utf-8",
    )
    return env


def run(command: str, folder: Path, env: dict) -> list[str]:
    result = subprocess.run(
        ["bash", "-c", command + " 2>&1"], cwd=folder, env=env, capture_output=True, timeout=300
    )
    return result.stdout.decode("utf-8").rstrip("\n").split("\n")


def _available(what: str | None) -> bool:
    if what is None:
        return True
    try:
        __import__(what)
    except ImportError:
        return False
    return True


def real_outputs(text: str) -> list[tuple[dict, list]]:
    """Each block with the outputs its commands really print, in one workspace."""
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        env = workspace(folder)
        return [
            (
                block,
                [
                    run(cmd, folder, env) if _available(block["needs"]) else None
                    for cmd, _ in block["runs"]
                ],
            )
            for block in blocks(text)
        ]


def test_every_example_is_a_real_run():
    text = DOC.read_text(encoding="utf-8")
    found = real_outputs(text)
    assert sum(len(block["runs"]) for block, _ in found) > 30
    for block, outputs in found:
        for (command, shown), real in zip(block["runs"], outputs):
            if real is None:
                continue
            shown_text = "\n".join(line.rstrip() for line in shown)
            real_text = "\n".join(line.rstrip() for line in real)
            assert real_text == shown_text, f"docs/cli.md: `{command}` prints:\n{real_text}"


def test_the_page_shows_every_command():
    text = DOC.read_text(encoding="utf-8")
    commands = set()
    for block in blocks(text):
        for command, _ in block["runs"]:
            words = [w for w in command.split() if "=" not in w or w.startswith("-")]
            if words[:1] == ["pisession"] and len(words) > 1:
                commands.add(words[1])
    for name in ("explain", "context", "tree", "export", "diff", "migrate", "check", "stats", "ls"):
        assert name in commands, name
    assert "pip install pisession" not in text.replace("pip install pisession[", "")


def update() -> None:
    """Rewrite the outputs of ``docs/cli.md`` from real runs."""
    text = DOC.read_text(encoding="utf-8")
    pieces, last = [], 0
    for block, outputs in real_outputs(text):
        start, end = block["span"]
        body = []
        for (command, shown), real in zip(block["runs"], outputs):
            body.append(f"$ {command}")
            body.extend(shown if real is None else [line.rstrip() for line in real])
        pieces += [text[last:start], "\n".join(body) + "\n"]
        last = end
    pieces.append(text[last:])
    DOC.write_text("".join(pieces), encoding="utf-8")


if __name__ == "__main__":
    if sys.argv[1:] == ["--update"]:
        update()
    else:
        sys.exit(pytest.main([__file__, "-q"]))
