"""Build the chapter notebooks from their Python sources, execute them and store outputs.

    python notebooks/build.py                  # every notebook, executed
    python notebooks/build.py 03 05            # only the notebooks whose name starts so
    python notebooks/build.py --no-execute     # write them without running (no outputs)
    python notebooks/build.py --docs-only      # only rewrite docs/notebooks.md
    python notebooks/build.py --check          # are the .ipynb files in step with src/?

Sources live in ``notebooks/src/NN-name.py`` in the "percent" format:

    # ruff: noqa: E402, E501, B018        (notebook style: imports sit where the story needs them)
    # title: The file                      header lines before the first cell marker:
    # summary: One line for the index,     title, one-line summary (continued on lines
    #   continued when long.               that start with "#   "), and optionally
    # variants: exercises, solutions       variants (one notebook per variant)

    # %% [markdown]                        a markdown cell; "# " is removed from each line
    # %% [setup]                           the generated setup cell (install, paths, PNG);
    import pisession                       its body here only keeps linters happy
    # %%                                   a code cell
    # %% tags=nbval-ignore-output,other    a code cell with cell tags
    # %% only=exercises                    a cell that goes only into that variant

``title[exercises]: ...`` / ``summary[solutions]: ...`` give a variant its own header.
Each notebook gets a generated first cell: its title and the Colab / Binder badges.

The repository URL is read from ``[project.urls] Repository`` in ``pyproject.toml``
(its only home); badges, the install line of the setup cell and ``docs/notebooks.md``
are derived from it. To move the repository, edit that line and run this script.

Execution uses nbclient with the ``python3`` kernel and ``notebooks/`` as the working
directory. Outputs are then made reproducible: streams merged, the checkout's absolute
path removed from text, widget model ids numbered, no timing or widget state stored.
The metadata holds what JupyterLab writes on opening (``KERNELSPEC``, the kernel's
``language_info``), so a notebook opens unmodified.
"""

from __future__ import annotations

import argparse
import re
import sys
import urllib.parse
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
SRC = HERE / "src"
DOCS = ROOT / "docs" / "notebooks.md"
BRANCH = "main"
TIMEOUT = 120  # seconds per cell
#: The kernelspec stored in every notebook: what ipykernel's own ``python3`` kernel
#: reports. JupyterLab and Notebook 7 write the running kernel's spec and
#: ``language_info`` into the notebook when it opens; a stored value that differs (an
#: older "Python 3", a ``language_info`` cut to a few keys) marks the notebook modified
#: before the reader did anything, so closing it asks to save. ``normalise`` therefore
#: keeps the ``language_info`` the kernel reported at build time, whole.
KERNELSPEC = {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"}

_MARKER = re.compile(r"^# %%(?: \[(markdown|setup)\])?(.*)$")
_HEADER = re.compile(r"^# (title|summary|variants)(?:\[([\w-]+)\])?: (.*)$")


# --- the repository URL ---------------------------------------------------------------


def repository_url(pyproject: Path = ROOT / "pyproject.toml") -> str:
    """``[project.urls] Repository`` from pyproject.toml (tomllib, or a small fallback)."""
    text = pyproject.read_text(encoding="utf-8")
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        section = re.search(r"^\[project\.urls\]\s*$(.*?)(?=^\[|\Z)", text, re.M | re.S)
        match = section and re.search(r'^Repository\s*=\s*"([^"]+)"', section.group(1), re.M)
        if not match:
            raise SystemExit("pyproject.toml: no [project.urls] Repository") from None
        return match.group(1)
    try:
        return tomllib.loads(text)["project"]["urls"]["Repository"]
    except KeyError:
        raise SystemExit("pyproject.toml: no [project.urls] Repository") from None


def github_slug(url: str) -> str | None:
    """``owner/name`` for a GitHub URL, else None (then no badges are written)."""
    match = re.match(r"https://github\.com/([^/]+/[^/]+?)(?:\.git)?/?$", url)
    return match.group(1) if match else None


def lite_badge(url: str, notebook: str) -> str:
    """The "Try in your browser" badge: the notebook in the JupyterLite site that
    ``.ci/lite/build.py`` builds, published on the repository's GitHub Pages
    (docs/jupyterlite.md); empty when the URL is not GitHub.

    >>> lite_badge("https://github.com/Pi-Agents/pisession", "01-the-file.ipynb").split("](")[-1]
    'https://pi-agents.github.io/pisession/lab/index.html?path=notebooks/01-the-file.ipynb)'
    """
    slug = github_slug(url)
    if slug is None:
        return ""
    owner, name = slug.split("/")
    path = urllib.parse.quote(f"notebooks/{notebook}", safe="/")
    site = f"https://{owner.lower()}.github.io/{name}/lab/index.html?path={path}"
    return (
        f"[![Try in your browser](https://jupyterlite.rtfd.io/en/latest/_static/badge.svg)]({site})"
    )


def badges(url: str, notebook: str) -> str:
    """Markdown for the Colab, Binder and JupyterLite badges of one notebook
    (``NN-name.ipynb``)."""
    slug = github_slug(url)
    if slug is None:
        return ""
    colab = f"https://colab.research.google.com/github/{slug}/blob/{BRANCH}/notebooks/{notebook}"
    labpath = urllib.parse.quote(f"notebooks/{notebook}", safe="")
    binder = f"https://mybinder.org/v2/gh/{slug}/{BRANCH}?labpath={labpath}"
    return (
        f"[![Open In Colab](https://colab.research.google.com/assets/colab-badge.svg)]({colab}) "
        f"[![Binder](https://mybinder.org/badge_logo.svg)]({binder}) " + lite_badge(url, notebook)
    )


def setup_code(url: str) -> str:
    """The first code cell of every notebook: find or install pisession, PNG figures.

    Shown collapsed (``SETUP_METADATA``). In JupyterLite (Pyodide, ``sys.platform ==
    "emscripten"``) there are no processes: ``%pip`` installs with micropip there (the
    site's bundled pisession wheel, matplotlib and networkx from Pyodide's distribution).
    """
    return f"""\
# @title Setup: find or install pisession (checkout, Binder, Colab or JupyterLite)
import importlib.util
import os
import subprocess
import sys

REPOSITORY = "{url}"
if os.path.isdir(os.path.join("..", "pisession")):  # a checkout: use its pisession
    sys.path.insert(0, os.path.abspath(".."))
missing = [m for m in ("pisession", "matplotlib") if importlib.util.find_spec(m) is None]
if missing and sys.platform == "emscripten":  # JupyterLite: micropip, no processes
    %pip install -q pisession matplotlib networkx
elif missing:  # e.g. on Colab: install pisession from its repository
    wanted = [f"git+{{REPOSITORY}}" if m == "pisession" else m for m in missing]
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", *wanted], check=True)
    importlib.invalidate_caches()
%matplotlib inline
%config InlineBackend.figure_formats = ['png']
import pisession  # noqa: E402"""


#: The setup cell's metadata: collapsed in JupyterLab/Notebook 7 (``source_hidden``) and
#: a form showing only its ``# @title`` on Colab (``cellView``).
SETUP_METADATA = {"jupyter": {"source_hidden": True}, "cellView": "form"}


# --- reading the sources ----------------------------------------------------------------


@dataclass
class Cell:
    kind: str  # "markdown", "code" or "setup"
    source: str
    tags: list[str] = field(default_factory=list)
    only: str | None = None


@dataclass
class Source:
    path: Path
    header: dict  # (key, variant or None) -> value
    cells: list[Cell]

    @property
    def variants(self) -> list[str | None]:
        value = self.header.get(("variants", None))
        return [v.strip() for v in value.split(",")] if value else [None]

    def name(self, variant: str | None) -> str:
        return self.path.stem + (f"-{variant}" if variant else "")

    def get(self, key: str, variant: str | None) -> str:
        return self.header.get((key, variant)) or self.header.get((key, None), "")


def _options(text: str) -> dict:
    out = {}
    for part in text.split():
        key, _, value = part.partition("=")
        out[key] = value
    return out


def read_source(path: Path) -> Source:
    """Parse one percent-format source into header values and cells."""
    header: dict = {}
    cells: list[Cell] = []
    current: Cell | None = None
    lines: list[str] = []
    key = None

    def close() -> None:
        if current is None:
            return
        while lines and not lines[-1].strip():
            lines.pop()
        if current.kind == "markdown":
            lines[:] = [re.sub(r"^# ?", "", line) for line in lines]
        current.source = "\n".join(lines)
        cells.append(current)

    for line in path.read_text(encoding="utf-8").splitlines():
        marker = _MARKER.match(line)
        if marker:
            close()
            kind = marker.group(1) or "code"
            opts = _options(marker.group(2))
            tags = [t for t in opts.get("tags", "").split(",") if t]
            current, lines = Cell(kind, "", tags, opts.get("only") or None), []
            continue
        if current is None:
            found = _HEADER.match(line)
            if found:
                key = (found.group(1), found.group(2))
                header[key] = found.group(3).strip()
            elif key and line.startswith("#   "):  # a continuation of the previous value
                header[key] += " " + line[1:].strip()
            continue
        if lines or line.strip():
            lines.append(line)
    close()
    return Source(path, header, cells)


def sources(prefixes: list[str] | None = None) -> list[Source]:
    found = [read_source(p) for p in sorted(SRC.glob("[0-9][0-9]-*.py"))]
    if prefixes:
        found = [s for s in found if any(s.path.stem.startswith(p) for p in prefixes)]
    return found


# --- building, executing, normalising ---------------------------------------------------


def make_notebook(source: Source, variant: str | None, url: str):
    import nbformat

    name = source.name(variant)
    title = source.get("title", variant)
    number = name[:2]
    head = f"# {number} · {title}"
    badge = badges(url, f"{name}.ipynb")
    cells = [nbformat.v4.new_markdown_cell(head + ("\n\n" + badge if badge else ""))]
    for cell in source.cells:
        if cell.only and cell.only != variant:
            continue
        if cell.kind == "markdown":
            new = nbformat.v4.new_markdown_cell(cell.source)
        elif cell.kind == "setup":
            new = nbformat.v4.new_code_cell(setup_code(url), metadata=dict(SETUP_METADATA))
        else:
            new = nbformat.v4.new_code_cell(cell.source)
        if cell.tags:
            new.metadata["tags"] = list(cell.tags)
        cells.append(new)
    for index, cell in enumerate(cells):
        cell["id"] = f"{name[:40]}-{index:02d}"
    nb = nbformat.v4.new_notebook(cells=cells)
    nb.metadata = {"kernelspec": dict(KERNELSPEC), "language_info": {"name": "python"}}
    return nb


def execute(nb) -> None:
    import os

    from nbclient import NotebookClient

    # Stored outputs do not depend on the machine's time zone: a date-time without an
    # offset is local time (pisession.js.date), read here as Pi's goldens read it.
    os.environ["TZ"] = "UTC"
    client = NotebookClient(
        nb,
        timeout=TIMEOUT,
        kernel_name="python3",
        resources={"metadata": {"path": str(HERE)}},
        record_timing=False,
        store_widget_state=False,
    )
    client.execute()


def _merge_streams(outputs: list) -> list:
    merged: list = []
    for out in outputs:
        if (
            out.get("output_type") == "stream"
            and merged
            and merged[-1].get("output_type") == "stream"
            and merged[-1].get("name") == out.get("name")
        ):
            merged[-1]["text"] += out["text"]
        else:
            merged.append(out)
    return merged


def normalise(nb) -> None:
    """Make stored outputs independent of where and when the build ran."""
    checkout = str(ROOT) + "/"
    widget_ids: dict[str, str] = {}

    def clean(value):
        if isinstance(value, str):
            return value.replace(checkout, "")
        if isinstance(value, list):
            return [clean(v) for v in value]
        if isinstance(value, dict):
            return {k: clean(v) for k, v in value.items()}
        return value

    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        cell.metadata.pop("execution", None)
        cell.outputs = _merge_streams(cell.outputs)
        for out in cell.outputs:
            if "text" in out:
                out["text"] = clean(out["text"])
            data = out.get("data", {})
            for mime in list(data):
                if mime.startswith("text/") or mime == "application/json":
                    data[mime] = clean(data[mime])
            view = data.get("application/vnd.jupyter.widget-view+json")
            if isinstance(view, dict) and "model_id" in view:
                model = view["model_id"]
                widget_ids.setdefault(model, f"widget-{len(widget_ids) + 1:03d}")
                view["model_id"] = widget_ids[model]
    # the kernel's language_info, whole (KERNELSPEC says why), and the kernelspec Lab writes
    nb.metadata["kernelspec"] = dict(KERNELSPEC)
    nb.metadata.pop("widgets", None)


def write(nb, path: Path) -> None:
    import nbformat

    text = nbformat.writes(nb, version=4)
    path.write_text(text if text.endswith("\n") else text + "\n", encoding="utf-8")


def _shape(nb) -> list:
    return [(c.cell_type, c.source, c.metadata.get("tags", []), c.get("id")) for c in nb.cells]


def check(url: str) -> list[str]:
    """Names of notebooks whose cells differ from what their sources give (or that
    were never executed), without running anything."""
    import nbformat

    stale = []
    for source in sources():
        for variant in source.variants:
            name = source.name(variant)
            path = HERE / f"{name}.ipynb"
            if not path.exists():
                stale.append(name)
                continue
            stored = nbformat.read(path, as_version=4)
            fresh = make_notebook(source, variant, url)
            unexecuted = any(
                c.cell_type == "code" and c.source.strip() and c.execution_count is None
                for c in stored.cells
            )
            if _shape(stored) != _shape(fresh) or unexecuted:
                stale.append(name)
    return stale


# --- docs/notebooks.md ------------------------------------------------------------------


def readme_badges(url: str, first: str = "01-the-file") -> str:
    """The Colab, Binder and JupyterLite badges for the README (empty when the URL is not
    GitHub)."""
    slug = github_slug(url)
    if not slug:
        return ""
    binder = f"https://mybinder.org/v2/gh/{slug}/{BRANCH}?labpath=notebooks%2F{first}.ipynb"
    colab = f"https://colab.research.google.com/github/{slug}/blob/{BRANCH}/notebooks/{first}.ipynb"
    return f"""\
[![Open In Colab](https://colab.research.google.com/assets/colab-badge.svg)]({colab})
[![Binder](https://mybinder.org/badge_logo.svg)]({binder})
{lite_badge(url, first + ".ipynb")}"""


README = ROOT / "README.md"
_BADGES = re.compile(r"<!-- badges -->.*?<!-- /badges -->", re.S)


def readme_text(url: str) -> str:
    """README.md with its badge block (between the ``badges`` markers) rewritten."""
    text = README.read_text(encoding="utf-8")
    block = f"<!-- badges -->\n{readme_badges(url)}\n<!-- /badges -->"
    return _BADGES.sub(lambda _: block, text, count=1)


def docs_text(url: str, entries: list[tuple[str, str, str]]) -> str:
    rows = []
    for name, title, summary in entries:
        rows.append(f"| [{name}](../notebooks/{name}.ipynb) | {title} | {summary} |")
    table = "\n".join(rows)
    readme_block = readme_badges(url, entries[0][0] if entries else "01-the-file")
    slug = github_slug(url)
    raw_base = f"https://raw.githubusercontent.com/{slug}/{BRANCH}/" if slug else url
    return f"""\
# Notebooks

<!-- Generated by notebooks/build.py from notebooks/src/*.py: edit those, then rebuild. -->

The notebooks follow chapter 27 of *Pi Agents* ("The Session File Format") in reading
order. Each one says what you will learn, works on the sample sessions bundled with
pisession (files the real Pi wrote, a hand-made tour, legacy version 1 and 2 files:
`pisession.sample_names()` lists them), and ends with a recap. Every notebook carries
its own Colab, Binder and JupyterLite badges.

| Notebook | Title | What it covers |
|---|---|---|
{table}

## Open them online

- **Binder** builds an environment from `binder/requirements.txt` (pisession from this
  repository, ipywidgets 8, matplotlib) with Python 3.11 (`binder/runtime.txt`) and opens
  JupyterLab on the notebook. The first build takes a few minutes.
- **Colab** opens the notebook alone. Its first code cell installs pisession from
  `{url}` when it is missing (Colab already has matplotlib and ipywidgets 7.7, which
  the explorers support); the sample sessions ship inside the package.
- **Try in your browser** (JupyterLite) opens the notebook in a JupyterLab that runs in
  the browser tab (Python in WebAssembly: Pyodide), nothing installed, no account. The
  site is built by `.ci/lite/build.py` and published on the repository's GitHub Pages
  (docs/jupyterlite.md); its setup cell installs pisession from the wheel the site
  bundles. The conformance corpus and Node (Pi itself) are not there: 08 says so.
- **A checkout**: `pip install -e ".[notebook]"`, then `jupyter lab notebooks/`. The setup
  cell puts the checkout on `sys.path`, so the notebooks use the code next to them.

Notebooks 01-06 end with short exercises and `07-workshop-exercises` holds the whole
workshop set; `pisession.workshop` checks every answer on the samples, on small files for
the corners and on cases drawn at random for each run. `docs/workshop.md` is the
instructor's guide.

`08-claim-audit` asserts every verdict on Pi 0.87.1's and Pi 1.6.0's own answers, recorded by
`conformance/audit.mjs` in `data/audit/evidence.json` and `evidence-1.6.0.json` (with the
small session files of `data/audit/` it runs Pi on). In a checkout and on Binder the
notebook reads them from the repository; on Colab, where the notebook is alone, it
downloads them from the repository (`{raw_base}`). `04-compaction` reads two audit files
the same way (`evidence.json` and `compaction-without-system.jsonl`), and
`02-entry-tree-and-branches` the files Pi wrote in `data/forks/`; all three read through
`pisession.workshop.repository.repository_file`. When Node and Pi 0.87.1
are installed (`PI_ORACLE_DIR`, or `npm install` in `conformance/`), 08 runs the scenarios
again and asserts that Pi's answers are still the recorded ones. Its last section compares
pisession with the conformance corpus (`data/conformance`), which is in a checkout and on
Binder only.

## Facts

A sentence of notebooks 01-07, `docs/workshop.md` or this page that says what Pi does
ends with the fact it rests on, `[fact: NAME]` (for instance `[fact: file-appears-when]`).
Each fact lives in `data/facts/facts.json`: its name, the statement, how it is checked,
and for **every** checked Pi version (`pisession/pi_versions.json`) the evidence it rests
on and Pi's answer there. The evidence is Pi's own: a path into the audit's
`data/audit/evidence*.json` (`conformance/audit.mjs`), into `data/facts/evidence-<V>.json`
(`conformance/facts.mjs`, for questions the audit does not ask), or a probe of
`conformance/facts.py` over what Pi's real CLI wrote and sent (`data/realcli/<V>/`).
`tests/test_facts.py` fails when Pi's answer differs from the fact's for any version, when
a marker names no fact, when a fact is cited nowhere, and (with Node and Pi installed)
when `conformance/facts.mjs` no longer gives the recorded bytes. A sentence no fact backs
is the author's explanation and says so ("the author's explanation", "inference" or
"observation"). The same test flags every paragraph of those sources (markdown cells,
list items and table rows apart, headings and code left out) that names Pi as the
subject of a verb ("Pi writes", "Pi 1.6.0 also appends", "Pi 0.87.1 knows", "Pi does not
...", "Pi would not ...", "Pi's `resetLeaf()`", "Pi's index keeps", "Pi's `convertToLlm`
turns": `PI_SUBJECT` in `conformance/facts.py`) and carries neither a marker nor
that phrase; `python -c "import conformance.facts as f; print(f.unmarked_paragraphs())"`
lists them.

To add one:

1. find Pi's answer: a key of `data/audit/evidence.json`, or a new question in
   `conformance/facts.mjs` (run it with Pi's code, name the lines it rests on), recorded
   for each version (`node conformance/facts.mjs`, `PI_ORACLE_VERSION=1.6.0 node
   conformance/facts.mjs`), or a probe in `conformance/facts.py` over `data/realcli/`;
2. add the fact to `data/facts/facts.json` with `expect` for every checked version;
3. put `[fact: NAME]` after the sentence, rebuild the notebook, and run
   `python conformance/facts.py` (each fact with Pi's answers) and
   `python -m pytest tests/test_facts.py`.

Badge block for the README:

```markdown
{readme_block}
```

## Rebuild

The notebooks are generated. Edit `notebooks/src/NN-name.py` (percent format, described
at the top of `notebooks/build.py`), then run

```sh
python notebooks/build.py            # all notebooks, executed, outputs stored
python notebooks/build.py 04         # only 04-compaction
python notebooks/build.py --check    # CI: fail if a notebook is out of step with its source
```

Outputs and execution counts are committed on purpose: they are what the tests compare.

The repository URL lives in exactly one place, `[project.urls] Repository` in
`pyproject.toml`. To change it (a fork, a move), edit that line and run
`python notebooks/build.py`: the badges, the install line of every setup cell and this
page are rewritten from it.

## Regression tests

```sh
pip install -e ".[test]"   # pytest, nbval, matplotlib, ipywidgets, ipykernel
python -m pytest --nbval notebooks --nbval-sanitize-with notebooks/nbval-sanitize.cfg -q
```

nbval re-runs every notebook and compares each cell's output with the stored one.
Figures are `<img>` with alternative text (nbval compares the words, not the pixels);
widget cells are tagged `nbval-ignore-output`; `notebooks/nbval-sanitize.cfg` masks
what legitimately varies (memory addresses, the folder the samples are read from, a
figure's pixels). The stored outputs do not depend on where the
repository lives: the build removes the checkout's path from them.

When a change in pisession changes what a notebook prints (a new column in a table, a
reworded reason), nbval fails on that cell: rebuild the notebooks and review the diff.
"""


# --- main -----------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("only", nargs="*", help="build only notebooks starting with these")
    parser.add_argument("--no-execute", action="store_true", help="do not run the notebooks")
    parser.add_argument("--docs-only", action="store_true", help="only write docs/notebooks.md")
    parser.add_argument(
        "--check", action="store_true", help="only check that notebooks match their sources"
    )
    args = parser.parse_args(argv)
    url = repository_url()
    if args.check:
        stale = check(url)
        if readme_text(url) != README.read_text(encoding="utf-8"):
            print("README.md badges are out of date: run python notebooks/build.py --docs-only")
            stale.append("README")
        for name in stale:
            print(f"notebooks/{name}.ipynb is out of date: run python notebooks/build.py")
        return 1 if stale else 0
    every = sources()
    entries = [
        (s.name(v), s.get("title", v), s.get("summary", v)) for s in every for v in s.variants
    ]
    DOCS.parent.mkdir(exist_ok=True)
    DOCS.write_text(docs_text(url, entries), encoding="utf-8")
    README.write_text(readme_text(url), encoding="utf-8")
    print(f"wrote {DOCS.relative_to(ROOT)} and the README badges")
    if args.docs_only:
        return 0
    for source in sources(args.only or None):
        for variant in source.variants:
            name = source.name(variant)
            nb = make_notebook(source, variant, url)
            if not args.no_execute:
                print(f"executing {name} ...", flush=True)
                execute(nb)
                normalise(nb)
            write(nb, HERE / f"{name}.ipynb")
            print(f"wrote notebooks/{name}.ipynb")
    return 0


if __name__ == "__main__":
    sys.exit(main())
