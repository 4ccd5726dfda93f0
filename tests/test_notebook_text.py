"""The notebooks' text: statements found wrong against Pi 0.87.1 (issue 10) stay out, and
every chapter notebook ends with exercises that a checker verifies."""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SOURCES = sorted((ROOT / "notebooks" / "src").glob("[0-9][0-9]-*.py"))

_spec = importlib.util.spec_from_file_location("notebook_build", ROOT / "notebooks" / "build.py")
build = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = build  # its dataclasses look their module up
_spec.loader.exec_module(build)

#: Wrong for Pi 0.87.1, each with what is true instead.
WRONG = {
    "because the compaction stored its own": "Pi drops kept-range system messages always",
    "nothing is lost": "without a systemMessage the prompt is lost",
    "session-title": "Pi writes usage entries for cache warming (cache_warm) only",
    "generating a session title": "Pi writes usage entries for cache warming only",
    "fixed wording": "custom messages pass through as written",
    "always a list of": "user content may also be a plain string",
    "What PiG sends": "a model of PiG's documented behaviour, not its output",
    "## Four hundred lines": "a heading over a 31-line sample",
    "side by side": "the explorers show one view at a time",
    "441 files": "counts come from the cell, not the prose",
}


@pytest.mark.parametrize("source", SOURCES, ids=lambda p: p.stem)
def test_no_statement_found_wrong(source):
    text = source.read_text(encoding="utf-8")
    for phrase, truth in WRONG.items():
        assert phrase.lower() not in text.lower(), f"{source.name}: {phrase!r} ({truth})"


@pytest.mark.parametrize(
    "source",
    [s for s in SOURCES if s.name[:2] in {"01", "02", "03", "04", "05", "06"}],
    ids=lambda p: p.stem,
)
def test_chapter_notebooks_end_with_checked_exercises(source):
    cells = build.read_source(source).cells
    headings = [
        i
        for i, c in enumerate(cells)
        if c.kind == "markdown" and c.source.startswith("## Exercises")
    ]
    assert headings, f"{source.name} has no Exercises section"
    after = cells[headings[-1] :]
    checks = [
        c for c in after if c.kind == "code" and re.search(r"workshop\.check_\w+\(", c.source)
    ]
    stubs = [c for c in after if c.kind == "code" and "raise NotImplementedError" in c.source]
    assert 2 <= len(checks) <= 3 and len(stubs) == len(checks)
    assert all(c.kind != "markdown" or not c.source.startswith("## ") for c in after[1:])


def test_the_workshop_has_every_exercise():
    source = (ROOT / "notebooks" / "src" / "07-workshop.py").read_text(encoding="utf-8")
    from pisession import workshop

    checks = set(re.findall(r"workshop\.check_(\w+)\(", source))
    assert checks == {
        name.removeprefix("check_") for name in dir(workshop) if name.startswith("check_")
    }
    assert source.count("**Common mistakes.**") == len(checks)
