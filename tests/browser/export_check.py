"""``pisession export`` in a real browser: headless Chromium opens the exported pages.

    python tests/browser/export_check.py

For the bundled samples and for a hostile session (``<script>``, ``<img onerror>``,
ANSI escapes, bidi overrides, a picture that claims to be SVG, backtick runs): export
to HTML, open the page from a file at phone width (390 px) and desktop width (1280 px),
and check that no request leaves the page, the console stays free of errors, no
script runs (no dialog, no ``<script>`` or ``on*`` attribute in the DOM), the page
does not overflow a phone screen sideways, the entry table never breaks an id or an entry
kind over two lines, and the hostile text is shown as text.
Screenshots go to ``tests/browser/screenshots/export-*.png`` (ignored by git).

The Markdown export of the hostile sessions (the one above, and one whose every field,
role, model, id, entry type and summary holds HTML, links, images and Markdown syntax)
is rendered by two real renderers, marked (GitHub-flavoured, raw HTML passed through)
and markdown-it with ``html: true``, and each rendering is opened in Chromium: no script
runs, and no element or attribute appears that the export did not write itself (only
the tags and attributes of its own tables, headings, folds and code blocks; no link,
no picture), while the hostile text is there as text. The renderers are installed with
npm (versions pinned below) into ``tests/browser/.renderers/`` (ignored by git); without
npm that part prints SKIP.

Needs Chromium (Debian's ``chromium``) and the ``playwright`` Python package (its own
browser download is never used). Without them it prints SKIP and exits 0. It is not
collected by ``python -m pytest``. Closes with a plain ``N passed, N failed`` line.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SHOTS = Path(__file__).resolve().parent / "screenshots"
RENDERERS = Path(__file__).resolve().parent / ".renderers"
RENDERER_PACKAGES = ("marked@18.2.1", "markdown-it@15.0.3")
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
    else:
        problems += broken_keys(page)
    return problems


def broken_keys(page) -> list[str]:
    """Ids and entry kinds of "Every entry, with its fate" broken over two lines (a
    text's client rectangles: one per line it takes), while the "why" column has room."""
    broken = page.evaluate(
        """() => [...document.querySelectorAll('table.entries td.key')].filter(td => {
            const range = document.createRange();
            range.selectNodeContents(td.firstChild);
            const tops = new Set([...range.getClientRects()].map(r => Math.round(r.top)));
            return tops.size > 1;
        }).map(td => td.textContent)"""
    )
    return [f"ids or kinds broken over two lines: {broken[:4]}"] if broken else []


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


# --- Markdown, rendered ------------------------------------------------------------------

MD_HOSTILE = "<img src=x onerror=window.__pwned=3>"
MD_SYNTAX = (
    "[click](javascript:window.__pwned=4) <javascript:alert(2)> https://example.com/x "
    "www.example.com ![p](https://example.com/p.png) &lt;script&gt; `x` ``` </details> "
    "<!-- <b onclick=window.__pwned=5>bold</b> | cell | @everyone <details open>"
)

#: What the export's own Markdown turns into: every other element or attribute in a
#: rendering came from the session.
MD_TAGS = {"html", "head", "body", "h1", "h2", "p", "table", "thead", "tbody", "tr", "th"}
MD_TAGS |= {"td", "details", "summary", "pre", "code", "strong", "em", "blockquote"}
MD_ATTRIBUTES = re.compile(r"class=language-text|align=(left|right|center)|style=text-align:\w+")


def markdown_session(folder: Path) -> Path:
    """A session whose every field shown in Markdown holds HTML and Markdown syntax: the
    name, ids, roles (the usage table), model and provider, thinking level, labels,
    entry types, summaries, a bash command, a custom type, a tool call without
    ``arguments``."""
    bad = MD_HOSTILE + MD_SYNTAX
    usage = {"input": 1, "output": 2, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 3}
    usage["cost"] = {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0.01}
    header = {"type": "session", "version": 3, "id": "s" + MD_HOSTILE, "cwd": "/" + bad}
    header["timestamp"] = "2026-01-01T00:00:00Z"

    def entry(kind, ident, parent, minute, **fields):
        when = f"2026-01-01T00:{minute:02d}:00Z"
        return {"type": kind, "id": ident, "parentId": parent, "timestamp": when, **fields}

    def message(ident, parent, minute, role, content, **more):
        return entry(
            "message", ident, parent, minute, message={"role": role, **more, "content": content}
        )

    call = {"type": "toolCall", "id": "c" + MD_HOSTILE, "name": bad}  # no "arguments"
    assistant = {"provider": bad, "model": bad, "usage": usage}
    entries = [
        entry("session_info", "n1" + MD_HOSTILE, None, 0, name=bad),
        message("u1", "n1" + MD_HOSTILE, 1, "user", [{"type": "text", "text": bad}]),
        message("a1", "u1", 2, "assistant", [call], **assistant, stopReason="toolUse"),
        message("r1" + MD_HOSTILE, "a1", 3, bad, "a role of " + bad),
        entry("label", "l1", "r1" + MD_HOSTILE, 4, targetId="u1", label=bad),
        entry("model_change", "mc", "l1", 5, provider=bad, modelId=bad),
        entry("thinking_level_change", "tl", "mc", 6, thinkingLevel=bad),
        entry("custom_message", "cm", "tl", 7, customType=bad, content=bad, display=True),
        message("b1", "cm", 8, "bashExecution", None, command=bad, output=bad, exitCode=1),
        entry("compaction", "c1", "b1", 9, summary=bad, firstKeptEntryId="u1" + bad),
        entry("branch_summary", "bs", "c1", 10, fromId="u1", summary=bad),
        entry("context_edit", "ce", "bs", 11, targetId="r1" + MD_HOSTILE, replacement={}),
        message("a2", "ce", 12, "assistant", [{"type": "text", "text": bad}, call], **assistant),
        entry(bad, "w" + MD_HOSTILE, "a2", 13),
    ]
    path = folder / "hostile-md.jsonl"
    lines = [json.dumps(header)] + [json.dumps(e) for e in entries]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def renderers_skip_reason() -> str | None:
    """None when marked and markdown-it are installed (installing them if needed)."""
    if all((RENDERERS / "node_modules" / p.rsplit("@", 1)[0]).exists() for p in RENDERER_PACKAGES):
        return None
    if not shutil.which("npm") or not shutil.which("node"):
        return "npm or node not found"
    RENDERERS.mkdir(exist_ok=True)
    command = ["npm", "install", "--prefix", str(RENDERERS), "--no-audit", "--no-fund"]
    command += ["--ignore-scripts", *RENDERER_PACKAGES]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=180)
    except subprocess.TimeoutExpired:
        return "npm install timed out after 180 s"
    if done.returncode:
        return "npm install failed: " + (done.stderr.strip().splitlines() or ["?"])[-1]
    return None


RENDER_JS = """
const { createRequire } = require("node:module");
const need = createRequire(process.argv[1] + "/");
const { marked } = need("marked");
const markdownIt = need("markdown-it")({ html: true });
const text = require("node:fs").readFileSync(0, "utf8");
const html = { marked: marked.parse(text), "markdown-it": markdownIt.render(text) };
process.stdout.write(JSON.stringify(html));
"""


def rendered(markdown: str) -> dict[str, str]:
    """The Markdown as HTML, by each renderer."""
    done = subprocess.run(
        ["node", "-e", RENDER_JS, str(RENDERERS)],
        input=markdown,
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    return json.loads(done.stdout)


def rendering_problems(browser, page_html: str, hostile: str) -> list[str]:
    """What is wrong with one rendering opened in Chromium (empty: nothing)."""
    page = browser.new_page()
    dialogs: list[str] = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    page.route("**/*", lambda route: route.abort())  # nothing may load
    page.set_content(page_html)
    problems = []
    if dialogs or page.evaluate("() => window.__pwned !== undefined"):
        problems.append("a script ran")
    tags, attributes = page.evaluate(
        "() => { const all = [...document.querySelectorAll('*')];"
        " return [all.map(e => e.localName),"
        " all.flatMap(e => [...e.attributes].map(a => a.name + '=' + a.value))]; }"
    )
    foreign = sorted(set(tags) - MD_TAGS)
    if foreign:
        problems.append(f"elements from the session: {foreign}")
    odd = sorted({a for a in attributes if not MD_ATTRIBUTES.fullmatch(a)})
    if odd:
        problems.append(f"attributes from the session: {odd[:5]}")
    text = page.inner_text("body")
    if hostile not in text:
        problems.append(f"the hostile text {hostile!r} is not shown as text")
    page.close()
    return problems


def check_markdown(browser, folder: Path) -> tuple[int, int]:
    """(passed, failed) over the hostile sessions' Markdown, rendered both ways."""
    reason = renderers_skip_reason()
    if reason:
        print(f"SKIP: Markdown export rendered: {reason}")
        return 0, 0
    sessions = {
        "hostile": (hostile_session(folder), "onerror="),
        "hostile-md": (markdown_session(folder), MD_HOSTILE),
    }
    passed = failed = 0
    for name, (path, hostile) in sessions.items():
        try:
            markdown = export(str(path), folder / f"{name}.md").read_text(encoding="utf-8")
        except subprocess.CalledProcessError as failure:
            print(f"FAIL {name}.md: export failed: {failure.stderr.decode().strip()[:300]}")
            failed += 1
            continue
        for renderer, page_html in rendered(markdown).items():
            problems = rendering_problems(browser, page_html, hostile)
            for problem in problems:
                print(f"FAIL {name}.md by {renderer}: {problem}")
            if problems:
                failed += 1
            else:
                passed += 1
                print(f"ok   {name}.md by {renderer}: no script, nothing from the session")
    return passed, failed


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
                print(
                    f"ok   {name}: no request, no console error, no script, fits 390 px, "
                    "ids and kinds whole"
                )
        md_passed, md_failed = check_markdown(browser, folder)
        passed, failed = passed + md_passed, failed + md_failed
        browser.close()
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
