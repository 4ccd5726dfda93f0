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
    "ships two files": "pisession.sample_names() lists the samples; a count goes stale",
    # issue 40
    "a first turn that fails leaves no file": "a failed or aborted turn saves its reply",
    "Pi 1.6.0's `/session` view": "getUsageCostBreakdown is the same in 0.87.1",
    "the entry following it as leaf": "the request is the context at the reply's parent",
    "a fork with no answer yet is written at once": "not /fork on a Pi file's first user message",
    "each move in the tree adds": "1.6.0 records the level when a run starts",
}


@pytest.mark.parametrize("source", SOURCES, ids=lambda p: p.stem)
def test_lessons_download_nothing_themselves(source):
    """Plumbing stays in the package: a lesson reads repository files through
    ``pisession.workshop.repository`` and builds no URL or request of its own."""
    text = source.read_text(encoding="utf-8")
    for plumbing in ("urllib", "urlopen", "raw.githubusercontent.com", "import requests"):
        assert plumbing not in text, f"{source.name}: {plumbing} in a lesson"


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


#: The widest text line a stored output may have. JupyterLab at 1280 px with its file
#: browser open shows 107 characters of an output (measured by tests/browser/run.py,
#: which checks every line in the browser too); wider lines break mid-word there.
TEXT_COLUMNS = 100
NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9][0-9]-*.ipynb"))


def _text_outputs(notebook: Path):
    import json

    for number, cell in enumerate(json.loads(notebook.read_text(encoding="utf-8"))["cells"]):
        for out in cell.get("outputs", []):
            data = out.get("data", {})
            if "text" in out:
                yield number, "".join(out["text"])
            elif "text/plain" in data and not {"text/html", "image/png"} & set(data):
                yield number, "".join(data["text/plain"])


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda p: p.stem)
def test_text_outputs_fit_a_notebooks_width(notebook):
    too_wide = [
        (number, len(line), line[:50])
        for number, text in _text_outputs(notebook)
        for line in text.splitlines()
        if len(line) > TEXT_COLUMNS
    ]
    assert not too_wide, f"{notebook.name}: (cell, characters, start) {too_wide}"


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebooks_store_what_lab_writes_on_opening(notebook):
    """JupyterLab writes the kernel's spec and language_info into a notebook it opens;
    one that stores something else opens marked modified (asks to save on close)."""
    import json

    metadata = json.loads(notebook.read_text(encoding="utf-8"))["metadata"]
    assert metadata["kernelspec"] == build.KERNELSPEC
    language = metadata["language_info"]
    assert {"name", "version", "mimetype", "codemirror_mode", "pygments_lexer"} <= set(language)


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda p: p.stem)
def test_every_stored_image_has_alternative_text(notebook):
    """No bare image/png output (Jupyter has no alt for it) and every <img> says what
    it shows."""
    import json

    for cell in json.loads(notebook.read_text(encoding="utf-8"))["cells"]:
        for out in cell.get("outputs", []):
            data = out.get("data", {})
            assert "image/png" not in data, f"{notebook.name}: a PNG output has no alt text"
            for tag in re.findall(r"<img\b[^>]*>", "".join(data.get("text/html", ""))):
                alt = re.search(r'\balt="([^"]*)"', tag)
                assert alt and alt.group(1).strip(), f"{notebook.name}: {tag[:80]}"
