"""``pisession export`` in a real browser: headless Chromium opens the exported pages.

    python tests/browser/export_check.py

For the bundled samples and for a hostile session (``<script>``, ``<img onerror>``,
ANSI escapes, bidi overrides, a picture that claims to be SVG, backtick runs): export
to HTML, open the page from a file at phone width (390 px) and desktop width (1280 px),
and check that no request leaves the page, the console stays free of errors, no
script runs (no dialog, no ``<script>`` or ``on*`` attribute in the DOM), the page
does not overflow a phone screen sideways, and the hostile text is shown as text.
Screenshots go to ``tests/browser/screenshots/export-*.png`` (ignored by git).

Needs Chromium (Debian's ``chromium``) and the ``playwright`` Python package (its own
browser download is never used). Without them it prints SKIP and exits 0. It is not
collected by ``python -m pytest``. Closes with a plain ``N passed, N failed`` line.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
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

HOSTILE_TEXT = (
    '<script>window.__pwned = 1; alert("x")</script> <img src=x onerror="window.__pwned=2">'
    " \x1b[31mRED\x1b[0m \x1b]0;title\x07 \u202egnp.exe ``` </details> <!-- @everyone"
)
# a one-pixel PNG, and an "image" that is really HTML
PIXEL = (
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8Dw"
    "HwAFBQIAX8jx0gAAAABJRU5ErkJggg=="
)


def skip_reason() -> str | None:
    if not Path(CHROMIUM).exists():
        return f"no Chromium at {CHROMIUM} (apt-get install chromium)"
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "the playwright package is not installed (pip install playwright)"
    return None


def hostile_session(folder: Path) -> Path:
    """A small session whose every text field tries to break out."""
    header = {
        "type": "session",
        "version": 3,
        "id": "evil<script>",
        "timestamp": "2026-01-01T00:00:00Z",
        "cwd": "/tmp/<b>x</b>",
    }
    picture = [
        {"type": "image", "mimeType": "image/png", "data": PIXEL},
        {"type": "image", "mimeType": "text/html", "data": "PHNjcmlwdD4="},
        {"type": "image", "mimeType": "image/png", "data": '" onerror="x'},
    ]

    def entry(kind, ident, parent, minute, **fields):
        return {
            "type": kind,
            "id": ident,
            "parentId": parent,
            "timestamp": f"2026-01-01T00:{minute:02d}:00Z",
            **fields,
        }

    def message(ident, parent, minute, role, content):
        return entry("message", ident, parent, minute, message={"role": role, "content": content})

    entries = [
        entry("session_info", "n<i>1", None, 0, name=HOSTILE_TEXT),
        message("u1", "n<i>1", 1, "user", [{"type": "text", "text": HOSTILE_TEXT}]),
        message(
            "a1",
            "u1",
            2,
            "assistant",
            [
                {
                    "type": "toolCall",
                    "id": "c",
                    "name": "<script>",
                    "arguments": {"cmd": HOSTILE_TEXT},
                }
            ],
        ),
        message("t1", "a1", 3, "toolResult", picture),
        entry("label", "l1", "t1", 4, targetId="u1", label=HOSTILE_TEXT),
        entry("context_edit", "e1", "l1", 5, targetId="t1", replacement={"content": HOSTILE_TEXT}),
        message("a2", "e1", 6, "assistant", [{"type": "text", "text": HOSTILE_TEXT}]),
    ]
    path = folder / "hostile.jsonl"
    lines = [json.dumps(header)] + [json.dumps(e) for e in entries]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def export(source: str, out: Path) -> Path:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    subprocess.run(
        [sys.executable, "-m", "pisession", "export", source, "-o", str(out), "--force"],
        check=True,
        env=env,
        cwd=ROOT,
        capture_output=True,
    )
    return out


def open_page(browser, url: str, width: int):
    """The page at ``url`` in a ``width`` px window, with what it asked for: requests,
    console errors, dialogs."""
    page = browser.new_page(viewport={"width": width, "height": 900})
    seen: dict[str, list] = {"requests": [], "errors": [], "dialogs": []}
    page.on("request", lambda r: seen["requests"].append(r.url))
    page.on("console", lambda m: seen["errors"].append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: seen["errors"].append(str(e)))
    page.on("dialog", lambda d: (seen["dialogs"].append(d.message), d.dismiss()))
    page.goto(url)
    page.wait_for_load_state("load")
    return page, seen


def page_problems(page, seen: dict, url: str, width: int, hostile: bool) -> list[str]:
    """What is wrong with an opened page (empty: nothing)."""
    problems = []
    outside = [r for r in seen["requests"] if r != url and not r.startswith("data:")]
    if outside:
        problems.append(f"requests left the page: {outside[:3]}")
    if seen["errors"]:
        problems.append(f"console errors: {seen['errors'][:3]}")
    if seen["dialogs"] or page.evaluate("() => window.__pwned !== undefined"):
        problems.append("a script ran")
    found = page.evaluate(
        "() => [document.scripts.length, [...document.querySelectorAll('*')].filter("
        "e => [...e.attributes].some(a => a.name.startsWith('on'))).length,"
        " document.documentElement.scrollWidth]"
    )
    if found[0] or found[1]:
        problems.append(f"{found[0]} scripts, {found[1]} on* attributes")
    if found[2] > width + 1:
        problems.append(f"the page is {found[2]} px wide (overflows)")
    if hostile:
        problems += hostile_problems(page)
    return problems


def hostile_problems(page) -> list[str]:
    problems = []
    text = page.inner_text("body")
    if "<script>window.__pwned" not in text or "onerror=" not in text:
        problems.append("the hostile text is not shown as text")
    if "\u202e" in text or "\x1b" in text:
        problems.append("a control character reached the page")
    images = page.evaluate("() => [...document.images].map(i => i.src.slice(0, 22))")
    if images != ["data:image/png;base64,"]:
        problems.append(f"pictures shown: {images}")
    return problems


def check_page(browser, page_file: Path, name: str, hostile: bool) -> list[str]:
    """Problems seen opening ``page_file`` at two widths (empty: none); screenshots."""
    problems = []
    url = page_file.as_uri()
    for width in (390, 1280):
        page, seen = open_page(browser, url, width)
        problems += [
            f"{name} @{width}: {p}" for p in page_problems(page, seen, url, width, hostile)
        ]
        SHOTS.mkdir(exist_ok=True)
        page.screenshot(path=str(SHOTS / f"export-{name}-{width}.png"), full_page=True)
        page.close()
    return problems


def main() -> int:
    reason = skip_reason()
    if reason:
        print(f"SKIP: export in a browser: {reason}")
        return 0
    from playwright.sync_api import sync_playwright

    passed = failed = 0
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as pw:
        folder = Path(tmp)
        pages = {
            "tour": (export("tour", folder / "tour.html"), False),
            "compaction": (
                export(
                    str(
                        ROOT / "pisession/samples/"
                        "pi-0.87.1-b-rpc-compaction-manual-threshold-overflow.jsonl"
                    ),
                    folder / "b.html",
                ),
                False,
            ),
            "hostile": (export(str(hostile_session(folder)), folder / "hostile.html"), True),
        }
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        for name, (page_file, hostile) in pages.items():
            problems = check_page(browser, page_file, name, hostile)
            for problem in problems:
                print(f"FAIL {problem}")
            if problems:
                failed += 1
            else:
                passed += 1
                print(f"ok   {name}: no request, no console error, no script, fits 390 px")
        browser.close()
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
