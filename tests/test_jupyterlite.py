"""The JupyterLite site (``.ci/lite/build.py``), offline: it builds, it holds every
notebook (each multi-line text one string, as JupyterLab reads it) and every data file
the notebooks read, its pisession wheel is the one just built, its start page opens
notebook 01 in headless Chromium with no console error up to the kernel's start (every
request that is not to the local server refused), and every stored output of every
notebook shows in Chromium as the notebook holds it.

SKIPs without jupyterlite-core (``pip install -r .ci/lite/requirements.txt``); the
browser test SKIPs without Debian's chromium and the playwright package. Only an online
visit starts the kernel: docs/jupyterlite.md says what that needs.
"""

from __future__ import annotations

import ast
import functools
import http.server
import importlib.util
import json
import os
import re
import subprocess
import sys
import threading
import zipfile
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = os.environ.get("PISESSION_CHROMIUM", "/usr/bin/chromium")
SHOTS = ROOT / "tests" / "browser" / "screenshots"

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("jupyterlite_core") is None
    or importlib.util.find_spec("jupyterlite_pyodide_kernel") is None,
    reason="jupyterlite-core / jupyterlite-pyodide-kernel not installed "
    "(pip install -r .ci/lite/requirements.txt)",
)


def _builder():
    spec = importlib.util.spec_from_file_location("lite_build", ROOT / ".ci" / "lite" / "build.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _wheel(out: Path) -> Path:
    """pisession's wheel from this checkout: without build isolation when setuptools is
    recent enough (no network), else as pip does by default."""
    command = [sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "-w", str(out)]
    done = subprocess.run([*command, "--no-build-isolation", str(ROOT)], capture_output=True)
    if done.returncode:
        subprocess.run([*command, str(ROOT)], check=True, capture_output=True)
    (wheel,) = out.glob("pisession-*.whl")
    return wheel


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    build = _builder()
    wheel = _wheel(tmp_path_factory.mktemp("wheel"))
    output = tmp_path_factory.mktemp("lite") / "site"
    # only pisession's wheel: the test makes no download (the CI build bundles the rest)
    manifest = build.build_site([wheel], output)
    return {"build": build, "wheel": wheel, "output": output, "manifest": manifest}


def _contents(output: Path) -> set[str]:
    """Every file the site's contents API lists (what the file browser shows)."""
    found, folders = set(), [""]
    while folders:
        folder = folders.pop()
        listing = json.loads((output / "api" / "contents" / folder / "all.json").read_text())
        for item in listing["content"]:
            if item["type"] == "directory":
                folders.append(item["path"])
            else:
                found.add(item["path"])
    return found


def _lists_of_lines(notebook: dict) -> list[str]:
    """Where a notebook holds text as nbformat's list of lines (JupyterLite 0.8.6 shows
    such a list joined with commas): cell sources, output text, textual output data."""
    found = []
    for k, cell in enumerate(notebook["cells"]):
        if isinstance(cell["source"], list):
            found.append(f"cell {k} source")
        for output in cell.get("outputs", []):
            values = {"text": output.get("text"), **output.get("data", {})}
            for key, value in values.items():
                if isinstance(value, list) and not key.endswith("json"):
                    found.append(f"cell {k} {output['output_type']} {key}")
    return found


def test_contents_list_every_notebook_and_data_file(site):
    listed = _contents(site["output"])
    notebooks = {f"notebooks/{p.name}" for p in (ROOT / "notebooks").glob("[0-9][0-9]-*.ipynb")}
    assert len(notebooks) >= 9
    assert notebooks <= listed
    data = {str(p) for p in site["build"].data_files()}
    assert {"data/audit/evidence.json", "data/forks/forks.json", "data/samples/tour.jsonl"} <= data
    assert data <= listed
    for path in data:  # the files are there, byte for byte
        assert (site["output"] / "files" / path).read_bytes() == (ROOT / path).read_bytes()
    for path in notebooks:  # the notebooks as JupyterLab's server reads them (nbformat)
        served = json.loads((site["output"] / "files" / path).read_text(encoding="utf-8"))
        assert served == nbformat.reads((ROOT / path).read_text(encoding="utf-8"), as_version=4)
        assert not _lists_of_lines(served), f"{path}: {_lists_of_lines(served)[:3]}"
    assert not any(p.startswith("pisession/") for p in listed)  # the setup cell's checkout test


def test_every_folder_the_notebooks_read_is_bundled(site):
    """Each ``data/<folder>/`` a notebook source names is in the site (the conformance
    corpus excepted: 08 reads it only in a checkout and says so elsewhere)."""
    named = set()
    for source in (ROOT / "notebooks" / "src").glob("*.py"):
        named |= set(re.findall(r"[\"'(]data/(\w+)/", source.read_text(encoding="utf-8")))
    assert named, "no data folder found in the notebook sources"
    assert {f"data/{n}" for n in named} <= set(site["build"].DATA)


def test_bundled_wheel_is_the_one_built(site):
    build, output, wheel = site["build"], site["output"], site["wheel"]
    bundled = output / "pypi" / wheel.name
    assert build.sha256(bundled) == build.sha256(wheel)
    index = json.loads((output / "pypi" / "all.json").read_text())
    (artifact,) = [a for r in index["pisession"]["releases"].values() for a in r]
    assert artifact["digests"]["sha256"] == build.sha256(wheel)
    assert site["manifest"]["wheels"] == {wheel.name: build.sha256(wheel)}
    with zipfile.ZipFile(bundled) as archive:  # the checkout's code, with its samples
        names = archive.namelist()
        assert "pisession/samples/tour.jsonl" in names
        init = archive.read("pisession/__init__.py")
    assert init == (ROOT / "pisession" / "__init__.py").read_bytes()


def _piplite_cli(output: Path):
    """The site's own ``piplite.cli`` (from its piplite wheel; the package itself needs
    micropip, the CLI module does not)."""
    (wheel,) = (output / "extensions").rglob("piplite-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        source = archive.read("piplite/cli.py").decode()
    module = type(sys)("piplite_cli")
    exec(compile(source, "piplite/cli.py", "exec"), module.__dict__)
    return module


def test_setup_cell_installs_the_bundled_wheel_in_jupyterlite(site):
    """On emscripten the setup cell's ``%pip`` line becomes piplite's install of
    pisession (which the site's piplite index holds), matplotlib and networkx, as the
    kernel's own transformer (``pyodide_kernel.litetransform``: piplite.cli) reads it."""
    import asyncio
    import shlex

    notebook = json.loads((ROOT / "notebooks" / "01-the-file.ipynb").read_text())
    sources = ["".join(c["source"]) for c in notebook["cells"] if c["cell_type"] == "code"]
    setup = next(s for s in sources if s.startswith("# @title Setup"))
    branch = re.search(r'if missing and sys.platform == "emscripten":.*\n\s+%pip (.*)', setup)
    assert branch, setup
    cli = _piplite_cli(site["output"])
    code = asyncio.run(cli.get_transformed_code(shlex.split(branch.group(1))))
    call = re.fullmatch(r'await __import__\("piplite"\)\.install\(\*\*(\{.*\})\)\n', code)
    assert call, code  # a line piplite cannot parse becomes an empty line: nothing installed
    assert ast.literal_eval(call.group(1)) == {
        "requirements": ["pisession", "matplotlib", "networkx"]
    }
    index = json.loads((site["output"] / "pypi" / "all.json").read_text())
    assert "pisession" in index


def _browser_skip() -> str | None:
    if not Path(CHROMIUM).exists():
        return f"no Chromium at {CHROMIUM} (apt-get install chromium)"
    if importlib.util.find_spec("playwright") is None:
        return "the playwright package is not installed"
    return None


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def served(site):
    """The site on a local server: its address."""
    handler = functools.partial(_Quiet, directory=str(site["output"]))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}/"
    server.shutdown()


@pytest.fixture(scope="module")
def chromium():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(
            executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"]
        )
        yield browser
        browser.close()


def _offline_page(browser, local: str, events: list[tuple[str, str]]):
    """A page in a fresh context (no stored workspace) that may fetch only from the local
    server; refused requests and console errors go to ``events`` in order."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})

    def route(r):
        if r.request.url.startswith(local):
            r.continue_()
        else:
            events.append(("refused", r.request.url))
            r.abort()

    context.route("**/*", route)
    page = context.new_page()

    def console(message):
        if message.type == "error":
            events.append(("error", f"{message.text} ({message.location.get('url')})"))

    page.on("console", console)
    page.on("pageerror", lambda e: events.append(("error", str(e))))
    return page


@pytest.mark.skipif(_browser_skip() is not None, reason=str(_browser_skip()))
def test_start_page_opens_the_first_notebook_offline_without_console_errors(served, chromium):
    """The site's address with no ``?path=`` opens 01 (not a bare launcher), with no
    console error up to the kernel's start (its request for Pyodide, refused here)."""
    events: list[tuple[str, str]] = []  # in order: ("refused", url) / ("error", text)
    page = _offline_page(chromium, served, events)
    try:
        page.goto(served)  # the root: JupyterLite redirects to lab/
        page.wait_for_selector(".jp-Notebook .jp-Cell", timeout=60_000)
        page.wait_for_selector('.jp-RenderedMarkdown h1:has-text("01 · The file")', timeout=30_000)
        tabs = page.locator(".lm-DockPanel .lm-TabBar-tabLabel")
        for _ in range(40):  # opening the notebook starts its kernel: Pyodide, refused
            if any(k == "refused" and "pyodide" in u for k, u in events):
                break
            page.wait_for_timeout(250)
        page.wait_for_timeout(1500)
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SHOTS / "lite-start.png"))
        labels = tabs.all_inner_texts()
        listed = page.locator(".jp-DirListing-item").all_inner_texts()
    finally:
        page.context.close()
    assert "01-the-file.ipynb" in labels, f"open tabs: {labels}"
    refused = [url for kind, url in events if kind == "refused"]
    start = next((i for i, (k, u) in enumerate(events) if k == "refused" and "pyodide" in u), None)
    assert start is not None, f"the kernel never asked for Pyodide; refused: {refused[:5]}"
    # a request refused here shows as "Failed to load resource" for its URL: not the page's
    before = [
        text
        for kind, text in events[:start]
        if kind == "error" and not any(text.endswith(f"({url})") for url in refused)
    ]
    assert not before, f"console errors before the kernel start: {before[:3]}"
    assert listed, "the file browser lists nothing"


_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


def _expected_outputs(notebook: dict) -> list[list[dict]]:
    """What each code cell's stored outputs must show, in order: the text of a stream or
    a plain-text result (ANSI colours removed), the HTML whose text must show, or the
    headings and table rows of a Markdown result; None for a widget (no state stored)."""
    cells = []
    for cell in notebook["cells"]:
        if cell["cell_type"] != "code":
            continue
        shown = []
        for output in cell["outputs"]:
            data = output.get("data", {})
            if output["output_type"] == "stream":
                shown.append({"text": _ANSI.sub("", output["text"])})
            elif "application/vnd.jupyter.widget-view+json" in data:
                shown.append(None)
            elif "text/html" in data:
                shown.append({"html": data["text/html"]})
            elif "text/markdown" in data:
                text = data["text/markdown"]
                lines, fenced = [], False
                for line in text.splitlines():
                    fenced ^= line.startswith("```")
                    if not fenced:
                        lines.append(line)
                shown.append(
                    {
                        "headings": sum(bool(re.match(r"#{1,6} ", x)) for x in lines),
                        "rows": sum(x.startswith("|") and "---" not in x for x in lines),
                    }
                )
            elif "text/plain" in data:
                shown.append({"text": _ANSI.sub("", data["text/plain"])})
        cells.append(shown)
    return cells


_RENDERED = """() => [...document.querySelectorAll('.jp-NotebookPanel .jp-CodeCell')].map(cell =>
  [...cell.querySelectorAll('.jp-OutputArea-output')].map(out => ({
    text: out.textContent,
    headings: out.querySelectorAll('h1, h2, h3, h4, h5, h6').length,
    rows: out.querySelectorAll('tr').length,
  })))"""

_HTML_TEXT = """html => {
  const doc = new DOMParser().parseFromString(html, 'text/html');
  doc.querySelectorAll('style, script').forEach(e => e.remove());
  return doc.body.textContent;
}"""


def _flat(text: str) -> str:
    return " ".join(text.split())


@pytest.mark.skipif(_browser_skip() is not None, reason=str(_browser_skip()))
def test_stored_outputs_render_as_the_notebook_holds_them(served, chromium):
    """Every notebook opened in the site (``?path=``, the badges' address) shows each
    stored output as JupyterLab does: a text output's lines exactly as stored (no comma
    from a list of lines), an HTML output's text, a Markdown output's headings and
    table rows."""
    problems = []
    for path in sorted((ROOT / "notebooks").glob("[0-9][0-9]-*.ipynb")):
        expected = _expected_outputs(nbformat.reads(path.read_text("utf-8"), as_version=4))
        count = sum(len(c) for c in expected)
        page = _offline_page(chromium, served, [])
        try:
            page.goto(f"{served}lab/index.html?path=notebooks/{path.name}")
            page.wait_for_function(
                "([cells, outputs]) =>"
                " document.querySelectorAll('.jp-NotebookPanel .jp-CodeCell').length === cells"
                " && document.querySelectorAll('.jp-NotebookPanel .jp-OutputArea-output').length"
                " === outputs",
                arg=[len(expected), count],
                timeout=60_000,
            )
            page.wait_for_timeout(1000)  # Markdown renders asynchronously
            rendered = page.evaluate(_RENDERED)
            report = page.locator(".jp-OutputArea-output h2", has_text="2. Claim audit")
            if report.count():  # 08's report, as a reader of the site sees it
                report.first.evaluate("h => h.scrollIntoView({block: 'start'})")
                page.wait_for_timeout(300)
                SHOTS.mkdir(parents=True, exist_ok=True)
                page.screenshot(path=str(SHOTS / "lite-08-report.png"))
            html_text = {
                o["html"]: page.evaluate(_HTML_TEXT, o["html"])
                for cell in expected
                for o in cell
                if o and "html" in o
            }
        finally:
            page.context.close()
        for k, (want, got) in enumerate(zip(expected, rendered)):
            where = f"{path.name} code cell {k + 1}"
            if len(want) != len(got):
                problems.append(f"{where}: {len(got)} outputs shown, {len(want)} stored")
                continue
            for w, g in zip(want, got):
                if w is None:
                    continue
                if "text" in w and g["text"].rstrip() != w["text"].rstrip():
                    problems.append(f"{where}: shows {g['text'][:80]!r}, stores {w['text'][:80]!r}")
                if "html" in w and _flat(g["text"]) != _flat(html_text[w["html"]]):
                    problems.append(f"{where}: shows {_flat(g['text'])[:80]!r} for its HTML")
                if "headings" in w and (g["headings"], g["rows"]) != (w["headings"], w["rows"]):
                    problems.append(
                        f"{where}: Markdown shows {g['headings']} headings and {g['rows']} table "
                        f"rows, its text has {w['headings']} and {w['rows']}"
                    )
    assert not problems, f"{len(problems)} outputs differ:\n" + "\n".join(problems[:10])


def test_pyodide_check_pins_the_kernels_pyodide():
    """.ci/pyodide/check.py's fallback Pyodide (no kernel installed) is the one the pinned
    kernel loads, and the installed kernel is the pinned one."""
    from importlib.metadata import version

    from jupyterlite_pyodide_kernel.constants import PYODIDE_VERSION

    spec = importlib.util.spec_from_file_location("check", ROOT / ".ci" / "pyodide" / "check.py")
    check = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(check)
    assert check.PYODIDE_VERSION == PYODIDE_VERSION == check.pyodide_version()
    pins = (ROOT / ".ci" / "lite" / "requirements.txt").read_text().split()
    assert f"jupyterlite-pyodide-kernel=={version('jupyterlite-pyodide-kernel')}" in pins
    assert f"jupyterlite-core=={version('jupyterlite-core')}" in pins
