"""The JupyterLite site: the chapter's notebooks in a browser tab, nothing installed.

    python .ci/lite/build.py                 # site in .ci/lite/_output/ (ignored by git)
    python .ci/lite/build.py --wheel W.whl   # bundle this pisession wheel (else built here)
    python .ci/lite/build.py --output DIR

Needs ``jupyterlite-core`` and ``jupyterlite-pyodide-kernel`` (pinned in
``.ci/lite/requirements.txt``) and ``jupyter_server`` (for the notebooks' contents).
The site holds, as in the repository's layout (the notebooks read ``../data/...``):

- ``notebooks/*.ipynb``, with their stored outputs, each multi-line text written as one
  string (``site_notebook``: JupyterLite 0.8.6 renders nbformat's list of lines joined
  with commas, JupyterLab joins them as nbformat does);
- ``data/audit``, ``data/forks``, ``data/realcli`` and ``data/samples``: what the notebooks read
  (``DATA``; the conformance corpus, 20 MB, stays out: 08 says where it is);
- a start page: an address with no ``?path=`` opens ``START`` (notebook 01), not a bare
  launcher (``open_at_start``);
- pisession's wheel, and the wheels of its dependencies that Pyodide's own
  distribution does not satisfy (the same choice as ``.ci/pyodide/check.py``, which
  tests those very wheels), offered to ``%pip`` by piplite (``--piplite-wheels``).

The build itself needs no network (the Pyodide kernel is loaded from its CDN when a
visitor opens a notebook: docs/jupyterlite.md). ``site-manifest.json`` beside the site
lists the notebooks, the data files and each bundled wheel's sha256.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
OUTPUT = HERE / "_output"
#: what the notebooks read through ``repository_file`` / ``Path("..", ...)``
DATA = ("data/audit", "data/forks", "data/realcli", "data/samples")
#: never copied into the site (caches, checkpoints)
SKIP_PARTS = {"__pycache__", ".ipynb_checkpoints"}
#: what the site opens when its address names no file (``?path=``): the first lesson
START = "notebooks/01-the-file.ipynb"


def sha256(path: Path) -> str:
    """The hex sha256 of a file.

    >>> import tempfile; f = Path(tempfile.mkdtemp()) / "x"; _ = f.write_bytes(b"")
    >>> sha256(f)[:12]
    'e3b0c44298fc'
    """
    return hashlib.sha256(path.read_bytes()).hexdigest()


def notebooks() -> list[Path]:
    """The chapter's notebooks, as committed."""
    return sorted((ROOT / "notebooks").glob("[0-9][0-9]-*.ipynb"))


def data_files() -> list[Path]:
    """Every file under ``DATA`` (symbolic links followed: data/samples is one)."""
    found = []
    for folder in DATA:
        base = ROOT / folder
        for path in sorted(base.resolve().rglob("*")):
            relative = path.relative_to(base.resolve())
            if path.is_file() and not SKIP_PARTS & set(relative.parts):
                found.append(Path(folder) / relative)
    return found


def build_wheel(out: Path) -> Path:
    """pisession's wheel from the checkout (``pip wheel --no-deps``)."""
    out.mkdir(parents=True, exist_ok=True)
    command = [sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "-w", str(out)]
    subprocess.run([*command, str(ROOT)], check=True)
    (wheel,) = out.glob("pisession-*.whl")
    return wheel


def dependency_wheels(wheel: Path) -> list[Path]:
    """The dependency wheels micropip would fetch from PyPI (not from Pyodide's own
    distribution), downloaded as the Pyodide check downloads them. Empty when npm or
    PyPI cannot be reached (``%pip`` then fetches them from PyPI online)."""
    sys.path.insert(0, str(ROOT / ".ci" / "pyodide"))
    try:
        import check
    finally:
        sys.path.pop(0)
    try:
        package = check.install_pyodide(check.pyodide_version())
        lock = json.loads((package / "pyodide-lock.json").read_text(encoding="utf-8"))
        pins = [p for p in check.choose(wheel, lock) if p[2] == "PyPI"]
        return check.download(pins, lock)
    except check.Skip as exc:
        print(f"note: dependency wheels not bundled ({exc})")
        return []


def site_notebook(text: str) -> str:
    """A notebook as the site serves it: each cell's source and each output's multi-line
    text joined into one string, as JupyterLab's server gives it to the page
    (``nbformat.reads``). JupyterLite 0.8.6 serves the file as it is and renders a list
    of lines as JavaScript's ``String(list)``: the lines joined with commas.

    >>> cell = {"cell_type": "code", "id": "c1", "source": ["print(1)\\n", "print(2)"],
    ...     "metadata": {},
    ...     "execution_count": 1, "outputs": [{"output_type": "stream", "name": "stdout",
    ...     "text": ["1\\n", "2\\n"]}]}
    >>> nb = {"cells": [cell], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    >>> site = json.loads(site_notebook(json.dumps(nb)))["cells"][0]
    >>> site["outputs"][0]["text"], site["source"]
    ('1\\n2\\n', 'print(1)\\nprint(2)')
    """
    import nbformat

    notebook = nbformat.reads(text, as_version=4)  # multi-line strings rejoined
    return json.dumps(notebook, indent=1, sort_keys=True, ensure_ascii=False) + "\n"


def stage(contents: Path) -> None:
    """The notebooks (``site_notebook``) and the data they read, in the repository's
    layout."""
    for path in notebooks():
        target = contents / "notebooks" / path.name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(site_notebook(path.read_text(encoding="utf-8")), encoding="utf-8")
    for relative in data_files():
        target = contents / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(ROOT / relative, target)


def open_at_start(page: str, path: str = START) -> str:
    """JupyterLab's page (``lab/index.html``) with a script that, before the app loads,
    adds ``?path=`` for ``path`` to an address that names no file, so the site opens on
    the first notebook instead of a bare launcher (JupyterLite's opener reads ``path``
    from the address as the app starts; the site's root redirects to ``lab/``).

    >>> page = open_at_start("<html><head><title>x</title></head></html>", "a b.ipynb")
    >>> page.split("<head>")[1][:29]
    '<script id="pisession-start">'
    >>> print(page[page.index("set("):].split(";")[0])
    set('path', "a b.ipynb")
    """
    script = (
        '<script id="pisession-start">'
        "(function () { const url = new URL(window.location.href);"
        " if (!url.searchParams.has('path')) {"
        f" url.searchParams.set('path', {json.dumps(path)});"
        " window.history.replaceState(null, '', url.href); } })();</script>"
    )
    head = page.index("<head>") + len("<head>")
    return page[:head] + script + page[head:]


def build_site(wheels: list[Path], output: Path) -> dict:
    """Run ``jupyter lite build`` into ``output``; the manifest it leaves there."""
    with tempfile.TemporaryDirectory(prefix="pisession-lite-") as scratch:
        lite_dir = Path(scratch) / "lite"
        contents = Path(scratch) / "contents"
        lite_dir.mkdir()
        stage(contents)
        (lite_dir / "jupyter-lite.json").write_text(
            json.dumps({"jupyter-lite-schema-version": 0, "jupyter-config-data": {
                "appName": "pisession: chapter 27 notebooks",
            }}, indent=2),
            encoding="utf-8",
        )  # fmt: skip
        if output.exists():
            shutil.rmtree(output)
        command = [
            sys.executable, "-m", "jupyterlite_core", "build",
            "--lite-dir", str(lite_dir),
            "--output-dir", str(output.resolve()),
            "--contents", str(contents),
            "--apps", "lab", "--apps", "notebooks", "--no-sourcemaps",
        ]  # fmt: skip
        for wheel in wheels:
            command += ["--piplite-wheels", str(wheel.resolve())]
        subprocess.run(command, cwd=lite_dir, check=True)
    lab = output / "lab" / "index.html"
    lab.write_text(open_at_start(lab.read_text(encoding="utf-8")), encoding="utf-8")
    manifest = {
        "notebooks": [f"notebooks/{p.name}" for p in notebooks()],
        "data": [str(p) for p in data_files()],
        "wheels": {w.name: sha256(w) for w in wheels},
    }
    (output / "site-manifest.json").write_text(json.dumps(manifest, indent=1), encoding="utf-8")
    return manifest


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--wheel", type=Path, help="pisession wheel to bundle (default: build)")
    parser.add_argument("--output", type=Path, default=OUTPUT, help=f"default: {OUTPUT}")
    args = parser.parse_args(argv)
    try:
        import jupyterlite_core  # noqa: F401
    except ImportError:
        print("SKIP jupyterlite site: jupyterlite-core is not installed "
              "(pip install -r .ci/lite/requirements.txt)")  # fmt: skip
        return 0
    with tempfile.TemporaryDirectory(prefix="pisession-wheel-") as folder:
        wheel = args.wheel or build_wheel(Path(folder))
        wheels = [wheel, *dependency_wheels(wheel)]
        manifest = build_site(wheels, args.output)
    print(
        f"JupyterLite site in {args.output}: {len(manifest['notebooks'])} notebooks, "
        f"{len(manifest['data'])} data files, wheels {', '.join(manifest['wheels'])}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
