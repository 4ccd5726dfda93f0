"""The notebooks in a real browser: headless Chromium drives JupyterLab.

    python tests/browser/run.py            # every notebook
    python tests/browser/run.py 02 04      # only these
    python tests/browser/run.py 02 nb7-1280   # one notebook in one layout (LAYOUTS)

For each notebook: open it as a reader would before running it (untrusted, no kernel
output yet) and check that every explorer shows its stored static picture, not its
text form; run every cell; check there is no error output and no unrendered widget;
then drive each explorer (dropdown, slider, toggle) and check that what it shows
changed as expected. Screenshots of every figure and explorer go to
``tests/browser/screenshots/LAYOUT/`` (ignored by git; CI keeps them as artifacts).

Every notebook is seen in three layouts (``LAYOUTS``): JupyterLab at 1280 px with its
file browser open (Lab's default, the narrowest a reader meets), Lab at 1600 px, and
Notebook 7 at 1280 px. In each: the notebook opens unmodified (nothing to save before
the reader did anything), and before and after running, every output passes
``LAYOUT_FACTS``: no output scrolls sideways, no table is wider than its area, no
header or cell spills into its neighbour, no badge or image is clipped, every image
has alternative text, a one-line table cell that cuts its text still shows at least
``MIN_SHOWN`` characters, and no line of a text output is longer than the characters
its area shows (Lab would break it mid-word). The first layout also drives the explorers.

Needs Chromium (Debian's ``chromium``) and the ``playwright`` Python package (its
own browser download is not used). Without them it prints SKIP and exits 0. It is
not collected by ``python -m pytest`` (no test functions; nothing runs on import).
Closes with a plain ``N passed, N failed`` line.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SHOTS = Path(__file__).resolve().parent / "screenshots"
CHROMIUM = os.environ.get("PISESSION_CHROMIUM", "/usr/bin/chromium")
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
CELL_TIMEOUT = 180_000  # ms for "Run all" of one notebook
TOKEN = "pisession-browser-test"

#: What each explorer is, by the call that makes it: the control to drive and what
#: must appear in its output after driving it.
EXPLORERS = {
    "branch_explorer(": ("dropdown", None),
    "compaction_stepper(": ("slider", "compaction 2 of"),
    # it opens at the step that changes most (v1 -> v2); one step right is the next
    "migration_stepper(": ("slider", "after v2 -&gt; v3"),
    "context_edit_toggle(": ("toggle", "PiG: context edits ignored"),
    "system_prompt_view(": ("slider", "system message 2 of"),
}

#: Calls whose output is a figure (a PNG image).
FIGURES = ("draw_tree(", "pipeline_figure(", "migration_figure(", "edits_figure(")

#: Where each notebook is looked at: name -> (UI, viewport width). The first is the
#: full check (static pictures, explorers driven); the others check open, run, layout.
LAYOUTS = {
    "lab-1280": ("lab", 1280),  # JupyterLab's default: the file browser open on the left
    "lab-1600": ("lab", 1600),
    "nb7-1280": ("notebook7", 1280),
}

#: A cell that cuts its text to one line (``table.one-line``) shows at least this many.
MIN_SHOWN = 20

#: Layout problems known and not fixed yet: (notebook, text in the problem) -> why. They
#: are printed as KNOWN, not counted as failures; remove an entry once it is fixed.
KNOWN: dict[tuple[str, str], str] = {}

#: Measured in the page for every visible output of the notebook in view (see the file).
LAYOUT_FACTS = "\n".join(
    line
    for line in (Path(__file__).parent / "layout_facts.js").read_text("utf-8").splitlines()
    if not line.startswith("//")
)


def skip_reason() -> str | None:
    if not Path(CHROMIUM).exists():
        return f"no Chromium at {CHROMIUM} (apt-get install chromium)"
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "the playwright package is not installed (pip install playwright)"
    if shutil.which("jupyter") is None:
        return "jupyter is not installed"
    return None


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def workspace(folder: Path) -> Path:
    """A copy of the notebooks beside links to the package and data: Lab may save
    or autosave what it runs, and the committed notebooks must stay as they are."""
    (folder / "notebooks").mkdir()
    for notebook in sorted((ROOT / "notebooks").glob("*.ipynb")):
        shutil.copy(notebook, folder / "notebooks" / notebook.name)
    for name in ("pisession", "data"):
        (folder / name).symlink_to(ROOT / name)
    settings = folder / "settings" / "@jupyterlab" / "notebook-extension"
    settings.mkdir(parents=True)
    # every cell in the DOM (no virtual scrolling), so outputs can be found and checked
    (settings / "tracker.jupyterlab-settings").write_text('{"windowingMode": "none"}')
    news = folder / "settings" / "@jupyterlab" / "apputils-extension"
    news.mkdir(parents=True)
    (news / "notification.jupyterlab-settings").write_text(
        '{"fetchNews": "false", "checkForUpdates": false}'
    )
    return folder


def start_lab(folder: Path, port: int, token: str) -> subprocess.Popen:
    env = dict(os.environ, PYTHONPATH=str(ROOT), JUPYTERLAB_SETTINGS_DIR=str(folder / "settings"))
    env["JUPYTER_RUNTIME_DIR"] = str(folder / "runtime")
    command = [
        sys.executable, "-m", "jupyter", "lab", "--no-browser", f"--port={port}",
        "--ip=127.0.0.1", f"--IdentityProvider.token={token}", "--expose-app-in-browser",
        f"--ServerApp.root_dir={folder}", f"--LabApp.workspaces_dir={folder / 'workspaces'}",
        "--ServerApp.open_browser=False", "--allow-root",
        "--JupyterNotebookApp.expose_app_in_browser=True",
    ]  # fmt: skip
    log = open(folder / "lab.log", "w")  # noqa: SIM115 (closed with the process)
    process = subprocess.Popen(command, cwd=folder, env=env, stdout=log, stderr=log)
    deadline = time.time() + 60
    while time.time() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return process
        except OSError:
            time.sleep(0.5)
    process.terminate()
    raise SystemExit(f"JupyterLab did not start; see {folder / 'lab.log'}")


class Report:
    def __init__(self) -> None:
        self.passed = 0
        self.failed: list[str] = []

    def check(self, ok: bool, what: str) -> bool:
        if ok:
            self.passed += 1
        else:
            self.failed.append(what)
            print(f"  FAIL {what}", flush=True)
        return ok


def notebook(page):
    """The notebook in view (other panels are hidden or closed)."""
    return page.locator(".jp-NotebookPanel:not(.lm-mod-hidden) .jp-Notebook").first


def cells_calling(page, call: str):
    """Code cells of the notebook in view whose source contains ``call``."""
    cells = notebook(page).locator(".jp-CodeCell")
    return cells.filter(has=page.locator(".jp-InputArea", has_text=call))


def open_notebook(page, name: str, ui: str, base: str) -> None:
    """Open a notebook as a reader does and wait until it is shown: in JupyterLab
    through its own command (the file browser stays open), in Notebook 7 at its page."""
    if ui == "lab":
        command = "docmanager:open"
        page.evaluate(
            f"async path => {{ await window.jupyterapp.commands.execute('{command}', {{path}}); }}",
            f"notebooks/{name}",
        )
    else:
        page.goto(f"{base}/notebooks/notebooks/{name}?token={TOKEN}")
        wait_for_app(page)
    page.wait_for_function(
        """path => {
          const panel = window.jupyterapp.shell.currentWidget;
          return panel && panel.context && panel.context.path === path
            && panel.context.isReady && panel.content.widgets.length > 0;
        }""",
        arg=f"notebooks/{name}",
        timeout=60_000,
    )
    page.wait_for_timeout(2000)


def wait_for_app(page) -> None:
    page.wait_for_function("window.jupyterapp && window.jupyterapp.started", timeout=90_000)
    page.evaluate("async () => { await window.jupyterapp.started; }")


def check_unmodified(page, report: Report, name: str) -> None:
    """A notebook just opened, its kernel started and its language known (Lab writes
    the kernel's spec and language_info into the notebook then), is not modified."""
    page.evaluate(
        """async () => {
          const panel = window.jupyterapp.shell.currentWidget;
          await panel.sessionContext.ready;
          const kernel = panel.sessionContext.session && panel.sessionContext.session.kernel;
          if (kernel) { await kernel.info; await kernel.spec; }
        }"""
    )
    page.wait_for_timeout(1500)
    state = page.evaluate(
        """() => {
          const panel = window.jupyterapp.shell.currentWidget;
          return {dirty: panel.context.model.dirty,
                  marked: panel.title.className.includes('jp-mod-dirty')};
        }"""
    )
    report.check(not state["dirty"] and not state["marked"], f"{name}: opens unmodified ({state})")


def check_layout(page, report: Report, name: str, when: str) -> None:
    """Every visible output fits its area (``LAYOUT_FACTS``); each problem is a failure."""
    problems = page.evaluate(LAYOUT_FACTS, [MIN_SHOWN])
    where = f"{name} [{CURRENT['layout']}, {when}]"
    for (notebook_name, text), why in KNOWN.items():
        known = [p for p in problems if notebook_name == name and text in p]
        if known:
            print(f"  KNOWN {where}: {len(known)} problems ({why})", flush=True)
        problems = [p for p in problems if p not in known]
    listed = "".join(f"\n    {problem}" for problem in problems)
    report.check(not problems, f"{where}: every output fits{listed}")


def check_static(page, report: Report, name: str) -> None:
    """Before running: every explorer shows its stored picture (HTML), no text form."""
    for call in EXPLORERS:
        for k in range(cells_calling(page, call).count()):
            output = cells_calling(page, call).nth(k).locator(".jp-OutputArea-output").first
            text = output.inner_text()
            has_picture = output.locator("table, img").count() > 0
            report.check(has_picture and "<" not in text[:2], f"{name}: static {call} picture")
            shot(output, f"{name[:2]}-static-{call[:-1]}-{k}")


def run_all(page) -> None:
    page.evaluate("() => { window.jupyterapp.commands.execute('notebook:run-all-cells'); }")
    page.wait_for_function(
        """() => {
          const panel = window.jupyterapp.shell.currentWidget;
          const kernel = panel.sessionContext.session && panel.sessionContext.session.kernel;
          const cells = [...panel.content.widgets].filter(c => c.model.type === 'code');
          const pending = cells.some(c => c.promptNode && c.promptNode.textContent.includes('*'));
          return kernel && kernel.status === 'idle' && !pending;
        }""",
        timeout=CELL_TIMEOUT,
        polling=500,
    )
    page.wait_for_timeout(1500)


def check_outputs(page, report: Report, name: str) -> None:
    errors = page.evaluate(
        """() => {
          const panel = window.jupyterapp.shell.currentWidget;
          const out = [];
          for (const cell of panel.content.widgets) {
            if (cell.model.type !== 'code') continue;
            const outputs = cell.model.outputs;
            for (let i = 0; i < outputs.length; i++) {
              const o = outputs.get(i);
              if (o.type === 'error') out.push(cell.model.sharedModel.getSource().slice(0, 60));
            }
          }
          return out;
        }"""
    )
    report.check(not errors, f"{name}: no error outputs {errors}")
    body = notebook(page).inner_text()
    for bad in ("Error displaying widget", "Loading widget..."):
        report.check(bad not in body, f"{name}: no '{bad}'")


#: The layout being checked (its screenshots go to SHOTS / its name).
CURRENT = {"layout": next(iter(LAYOUTS))}


def shot_path(stem: str) -> Path:
    folder = SHOTS / CURRENT["layout"]
    folder.mkdir(parents=True, exist_ok=True)
    return folder / f"{stem}.png"


def shot(locator, stem: str) -> None:
    try:
        locator.scroll_into_view_if_needed(timeout=5000)
        locator.screenshot(path=str(shot_path(stem)), timeout=10_000)
    except Exception as exc:  # a screenshot is evidence, not a check
        print(f"  (no screenshot {stem}: {exc.__class__.__name__})")


def check_figures(page, report: Report, name: str) -> None:
    """Every figure cell shows an image at least 10 % wider than... its natural size
    and sharp (rendered at twice the displayed size)."""
    for call in FIGURES:
        cells = cells_calling(page, call)
        for k in range(cells.count()):
            image = cells.nth(k).locator(".jp-OutputArea-output img").first
            if not report.check(image.count() == 1, f"{name}: {call} shows an image"):
                continue
            natural, shown = image.evaluate(
                "i => [i.naturalWidth, i.getBoundingClientRect().width]"
            )
            report.check(natural >= 1.9 * shown, f"{name}: {call} sharp ({natural} px for {shown})")
            shot(cells.nth(k).locator(".jp-OutputArea").first, f"{name[:2]}-{call[:-1]}-{k}")


def html_of(widget_output) -> str:
    return widget_output.locator(".widget-html-content").last.inner_html()


def drive(page, report: Report, name: str) -> None:
    """Move each explorer's control and check that its output changed as expected."""
    for call, (control, expected) in EXPLORERS.items():
        cells = cells_calling(page, call)
        for k in range(cells.count()):
            output = cells.nth(k).locator(".jp-OutputArea-output").first
            if not report.check(
                output.locator(".widget-vbox").count() > 0, f"{name}: {call} rendered as a widget"
            ):
                continue
            shot(output, f"{name[:2]}-{call[:-1]}-{k}-first")
            before = output.inner_html()
            if control == "dropdown":
                select = output.locator("select").first
                values = select.evaluate("s => [...s.options].map(o => o.value)")
                if len(values) < 2:
                    continue
                select.select_option(index=1)
            elif control == "slider":
                handle = output.locator(".noUi-handle, .ui-slider-handle").first
                if output.locator(".widget-slider.mod-disabled, .noUi-target[disabled]").count():
                    continue
                handle.focus()
                handle.press("ArrowRight")
            else:
                output.locator("button").nth(1).click()
            page.wait_for_timeout(1500)
            after = output.inner_html()
            report.check(after != before, f"{name}: {call} output changed")
            if expected:
                report.check(expected in html_of(output), f"{name}: {call} shows {expected!r}")
            shot(output, f"{name[:2]}-{call[:-1]}-{k}-driven")


def check_file_browser(page, report: Report, ui: str) -> None:
    """JupyterLab's layouts are seen as a new reader sees them: file browser open."""
    if ui == "lab":
        try:  # the layout is restored a moment after the app has started
            page.wait_for_function(
                "() => { const b = document.querySelector('.jp-FileBrowser');"
                " return !!b && b.offsetParent !== null && b.clientWidth > 100; }",
                timeout=15_000,
            )
            shown = True
        except Exception:  # playwright's TimeoutError
            shown = False
        report.check(shown, f"[{CURRENT['layout']}]: the file browser is open")


def close_notebook(page) -> None:
    """Shut the kernel down and close the notebook without saving (it is a copy)."""
    page.evaluate(
        """async () => {
          const panel = window.jupyterapp.shell.currentWidget;
          await panel.sessionContext.shutdown();
          panel.context.model.dirty = false;
          panel.dispose();
        }"""
    )
    page.wait_for_timeout(500)


def check_layout_names(browser, report: Report, names: list[str], layout: str, base: str):
    """Every notebook in one layout; the first layout also checks static pictures and
    drives the explorers."""
    ui, width = LAYOUTS[layout]
    full = layout == next(iter(LAYOUTS))
    if ui == "notebook7" and importlib.util.find_spec("notebook") is None:
        print(f"SKIP {layout}: Notebook 7 is not installed (pip install notebook)")
        return
    page = browser.new_page(viewport={"width": width, "height": 1300})
    page.on("dialog", lambda dialog: dialog.accept())
    page.goto(f"{base}/lab?token={TOKEN}" if ui == "lab" else f"{base}/tree?token={TOKEN}")
    wait_for_app(page)
    check_file_browser(page, report, ui)
    for name in names:
        print(f"== {layout}: {name}", flush=True)
        open_notebook(page, name, ui, base)
        check_unmodified(page, report, f"{name} [{layout}]")
        if full:
            check_static(page, report, name)
        check_layout(page, report, name, "as stored")
        page.screenshot(path=str(shot_path(f"{name[:-6]}-stored")), full_page=False)
        run_all(page)
        check_outputs(page, report, f"{name} [{layout}]")
        check_figures(page, report, name)
        check_layout(page, report, name, "after running")
        if full:
            drive(page, report, name)
            check_layout(page, report, name, "after driving the explorers")
        else:
            for call in EXPLORERS:
                cells = cells_calling(page, call)
                for k in range(cells.count()):
                    shot(cells.nth(k).locator(".jp-OutputArea-output").first,
                         f"{name[:2]}-{call[:-1]}-{k}")  # fmt: skip
        page.screenshot(path=str(shot_path(name[:-6])))
        close_notebook(page)
    page.close()


def main(argv: list[str]) -> int:
    reason = skip_reason()
    if reason:
        print(f"SKIP browser test: {reason}")
        return 0
    from playwright.sync_api import sync_playwright

    options = [a for a in argv if a in LAYOUTS]
    prefixes = [a for a in argv if a not in LAYOUTS]
    names = sorted(p.name for p in (ROOT / "notebooks").glob("*.ipynb"))
    if prefixes:
        names = [n for n in names if any(n.startswith(a) for a in prefixes)]
    layouts = [k for k in LAYOUTS if not options or k in options] or list(LAYOUTS)
    report, started = Report(), time.time()
    with tempfile.TemporaryDirectory(prefix="pisession-browser-") as tmp:
        folder = workspace(Path(tmp))
        port = free_port()
        base = f"http://127.0.0.1:{port}"
        lab = start_lab(folder, port, TOKEN)
        try:
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
                for layout in layouts:
                    CURRENT["layout"] = layout
                    check_layout_names(browser, report, names, layout, base)
                browser.close()
        finally:
            lab.terminate()
            lab.wait(timeout=30)
    print(f"browser test: {time.time() - started:.0f} s; screenshots in {SHOTS}")
    for what in report.failed:
        print(f"FAILED: {what}")
    print(f"{report.passed} passed, {len(report.failed)} failed")
    return 1 if report.failed else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
