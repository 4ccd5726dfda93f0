"""``pisession export``: one self-contained HTML page or Markdown file per leaf, the
context exactly as the model saw it, hostile text kept as text. (The same pages in a
real browser: ``tests/browser/export_check.py``.)"""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import pytest
from test_benchmark_tools import generated

import pisession
from pisession.cli import main
from pisession.views.export import Export, export_html, export_markdown, fence, md_cell
from pisession.views.text import strip_unsafe

REPO = Path(__file__).resolve().parent.parent
TOUR = pisession.sample_path("tour")
B = REPO / "pisession/samples/pi-0.87.1-b-rpc-compaction-manual-threshold-overflow.jsonl"
PIXEL = (
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8Dw"
    "HwAFBQIAX8jx0gAAAABJRU5ErkJggg=="
)
HOSTILE = (
    '<script>alert(1)</script> <img src=x onerror="alert(2)"> \x1b[31mRED\x1b[0m '
    "\x1b]0;title\x07 \u202egnp.exe ```` </details> @everyone <!--"
)


def write(path: Path, entries: list, header: dict | None = None) -> Path:
    header = header or {
        "type": "session",
        "version": 3,
        "id": "s",
        "timestamp": "2026-01-01T00:00:00Z",
        "cwd": "/w",
    }
    path.write_text("\n".join(json.dumps(x) for x in [header, *entries]) + "\n", "utf-8")
    return path


def message(ident, parent, role, content, minute=0):
    return {
        "type": "message",
        "id": ident,
        "parentId": parent,
        "timestamp": f"2026-01-01T00:{minute % 60:02d}:00Z",
        "message": {"role": role, "content": content},
    }


@pytest.fixture
def hostile(tmp_path):
    pictures = [
        {"type": "image", "mimeType": "image/png", "data": PIXEL},
        {"type": "image", "mimeType": "image/svg+xml", "data": "PHN2Zy8+"},
        {"type": "image", "mimeType": "image/png", "data": '" onerror="x'},
    ]
    entries = [
        {
            "type": "session_info",
            "id": "n1",
            "parentId": None,
            "timestamp": "2026-01-01T00:00:00Z",
            "name": HOSTILE,
        },
        message("u1", "n1", "user", [{"type": "text", "text": HOSTILE}], 1),
        message(
            "a1",
            "u1",
            "assistant",
            [{"type": "toolCall", "id": "c", "name": HOSTILE, "arguments": {"x": HOSTILE}}],
            2,
        ),
        message("t1", "a1", "toolResult", pictures, 3),
        {
            "type": "label",
            "id": "l1",
            "parentId": "t1",
            "timestamp": "2026-01-01T00:04:00Z",
            "targetId": "u1",
            "label": HOSTILE,
        },
    ]
    return pisession.load(write(tmp_path / "hostile.jsonl", entries))


# --- HTML ---------------------------------------------------------------------------------


def test_html_is_self_contained():
    page = export_html(pisession.load(TOUR))
    assert page.startswith("<!DOCTYPE html>") and page.rstrip().endswith("</html>")
    assert "Content-Security-Policy" in page and "default-src 'none'" in page
    assert "<script" not in page and "<link" not in page and "@import" not in page
    outside = r"""(?:src|href)\s*=\s*(?:"(?!#|data:)|'(?!#|data:)|(?!["'#]|data:))"""
    assert not re.search(outside, page)
    assert 'name="viewport"' in page and "@media print" in page


def test_html_shows_the_context_as_the_model_saw_it():
    session = pisession.load(TOUR)
    page = export_html(session)
    context = session.context()
    for number, m in enumerate(context.messages, 1):
        assert f"<b>#{number} {m['role']}</b>" in page
    assert "the kept range of compaction cp000001" in page and "end of the kept range" in page
    assert "compaction cp000001 (line 25): its summary stands for lines 2-10" in page
    assert "system messages dropped there: sys00002 (line 22)" in page
    # the context edit: the content as sent beside the content the file holds
    edited = page[page.index("#5 toolResult") :]
    assert "as sent, after context edit ce000001" in edited and "as stored in the file" in edited
    assert "body omitted to save context" in edited and "def helper_0(x):" in edited
    prompt = session.system_prompt()
    assert html.escape(prompt.text.split("\n")[0]) in page
    for fate in session.fates():
        assert html.escape(fate.reason) in page


def test_html_shows_omitted_entries_and_another_leaf():
    page = export_html(pisession.load(B))
    assert "<b>omitted</b> · 4df31100" in page and "by context edit 03e135d6" in page
    other = export_html(pisession.load(TOUR), "a7000001")
    assert "The context at a7000001 (line 20)" in other and "kept range" not in other


def test_html_escapes_hostile_text(hostile):
    page = export_html(hostile)
    body = page[page.index("<body>") :]
    assert "<script>" not in body and "<img src=x" not in body and 'onerror="alert' not in body
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in body
    for raw in ("\x1b", "\u202e", "\x07"):
        assert raw not in page
    assert re.findall(r'<img alt="[^"]*" src="([^"]{0,22})', body) == ["data:image/png;base64,"]
    assert "picture not shown: image/svg+xml" in body


def test_html_limits_a_long_context(tmp_path):
    entries = [
        message(
            f"m{i:03d}",
            f"m{i - 1:03d}" if i else None,
            "user" if i % 2 == 0 else "assistant",
            [{"type": "text", "text": f"step {i}"}],
            i,
        )
        for i in range(100)
    ]
    session = pisession.load(write(tmp_path / "long.jsonl", entries))
    page = export_html(session, limit=10)
    numbers = [int(n) for n in re.findall(r"<b>#(\d+) ", page)]
    assert numbers == [*range(1, 11), *range(91, 101)]
    assert "80 more messages not shown" in page
    assert len(re.findall(r"<b>#\d+ ", export_html(session, limit=None))) == 100


def test_export_object_shows_in_a_notebook():
    fragment = Export.of(pisession.load(TOUR))._repr_html_()
    assert fragment.startswith("<style>") and '<div class="pe">' in fragment
    assert "<html" not in fragment


# --- Markdown ------------------------------------------------------------------------------


def test_markdown_has_the_same_sections():
    session = pisession.load(TOUR)
    text = export_markdown(session)
    for heading in (
        "# Tour of the session format",
        "## The entry tree",
        "## The context at",
        "## Usage and cost",
        "## Every entry, with its fate",
    ):
        assert heading in text
    assert text.count("<details>") == text.count("</details>")
    assert "**#5 toolResult** · from t2000001 (line 13) · edited" in text
    assert "As sent, after context edit ce000001" in text and "As stored in the file" in text


def test_markdown_keeps_hostile_text_inert(hostile):
    text = export_markdown(hostile)
    outside = re.sub(r"(`{3,})text\n.*?\n\1", "", text, flags=re.S)  # fenced text removed
    assert "<script" not in outside and "<img" not in outside and "@everyone" not in outside
    assert "&lt;script&gt;" in outside and "&#64;everyone" in outside
    assert "\x1b" not in text and "\u202e" not in text
    assert "`````text" in text  # a fence longer than the four backticks inside


def test_markdown_of_a_tool_call_without_arguments(tmp_path):
    """Issue 31 item 8: no ``arguments`` is shown as no arguments, in both formats."""
    call = {"type": "toolCall", "id": "c", "name": "read"}
    session = pisession.load(write(tmp_path / "s.jsonl", [message("a", None, "assistant", [call])]))
    assert "\n[call] read\n" in export_markdown(session)
    assert "read" in export_html(session)


def test_markdown_escapes_every_field_that_comes_from_the_session(tmp_path):
    """Issue 31 item 9: a role (the usage table), a model, an id, an entry type, a label,
    a summary: outside code fences no ``<``, no link or picture syntax, no bare URL."""
    bad = "<img src=x onerror=alert(1)>[a](javascript:x) ![p](https://e.org/p.png) www.e.org"
    assistant = message("a1", "u1", "assistant", [{"type": "text", "text": bad}], 2)
    assistant["message"].update(provider=bad, model=bad)
    entries = [
        message("u1" + bad, None, "user", bad, 1),
        {**assistant, "parentId": "u1" + bad},
        message("r1", "a1", bad, bad, 3),
        {"type": "label", "id": "l1", "parentId": "r1", "targetId": "a1", "label": bad},
        {
            "type": "compaction",
            "id": "c1",
            "parentId": "l1",
            "summary": bad,
            "firstKeptEntryId": "r1",
        },
        {"type": bad, "id": "w" + bad, "parentId": "c1"},
    ]
    text = export_markdown(pisession.load(write(tmp_path / "s.jsonl", entries)))
    outside = re.sub(r"(`{3,})text\n.*?\n\1", "", text, flags=re.S)
    assert "<img" not in outside and "onerror" in outside
    assert not re.search(r"(?<!\\)(\]\(|://)", outside) and "www." not in outside
    usage = outside.split("## Usage and cost")[1].split("##")[0]
    assert "| &lt;img src=x onerror=alert(1)&gt;\\[a\\](javascript:x)" in usage


def test_fence_and_cell_helpers():
    assert fence("x") == "```text\nx\n```"
    assert fence("a\x1b[31mb") == "```text\nab\n```"
    assert md_cell("a|b\nc") == "a\\|b c"
    assert strip_unsafe(md_cell("<i>")) == "&lt;i&gt;"


# --- the command ---------------------------------------------------------------------------


def test_export_command_writes_once(tmp_path, capsys):
    out = tmp_path / "tour.html"
    assert main(["export", str(TOUR), "-o", str(out)]) == 0
    assert "wrote" in capsys.readouterr().out and out.read_text().startswith("<!DOCTYPE")
    assert main(["export", str(TOUR), "-o", str(out)]) == 2
    assert "exists; pass --force" in capsys.readouterr().err
    assert main(["export", str(TOUR), "-o", str(tmp_path / "t.txt")]) == 2
    assert ".html or .md" in capsys.readouterr().err
    assert main(["export", str(TOUR), "--format", "md"]) == 0
    assert capsys.readouterr().out.startswith("# Tour of the session format")
    md = tmp_path / "t.md"
    assert main(["export", str(TOUR), "-o", str(md), "--leaf", "a7000001"]) == 0
    assert "## The context at a7000001 (line 20)" in md.read_text()


def test_export_of_a_long_session_stays_small(tmp_path):
    entries = []
    for i in range(3000):
        parent = f"m{i - 1:04d}" if i else None
        if i % 100 == 50:  # a side branch now and then
            parent = f"m{i - 10:04d}"
        entries.append(
            message(f"m{i:04d}", parent, "user", [{"type": "text", "text": "x" * 200}], i)
        )
    session = pisession.load(write(tmp_path / "big.jsonl", entries))
    page = export_html(session)
    assert len(page) < 600_000
    assert page.count("more entries") > 10


def _replayed(messages):
    from pisession.errors import PisessionError
    from pisession.system_prompt import replay_system_prompt

    try:
        return replay_system_prompt(messages).text
    except PisessionError as exc:
        return ("cannot", str(exc))


@pytest.mark.parametrize("limit", [0, 1, 2, 3, None])
def test_shown_context_reads_only_what_it_shows_and_matches_the_context(limit):
    """The head, the tail (from the rank the fates give) and the system messages between
    are the context's own messages, numbered as in the context (``limit`` 0: none shown,
    the system prompt still replayed from all of them)."""
    from pisession.errors import PisessionError
    from pisession.views.export import shown_context

    edge = sorted((REPO / "data" / "conformance" / "edge").glob("*.jsonl"))
    checked = 0
    for path in [TOUR, B, *edge]:
        try:
            session = pisession.load(path, new_id=pisession.sequential_ids())
        except PisessionError:
            continue
        for leaf in [None, *[session.index.ids[p] for p in session.shape.leaves][:3]]:
            try:
                fates, messages = session.fates(leaf), session.context(leaf).messages
            except PisessionError:
                continue
            shown = shown_context(session, fates, limit)
            numbers = []
            for first, item in shown.head + shown.tail:
                for k, message in enumerate(item.messages):
                    assert messages[first + k] == message
                    numbers.append(first + k)
            assert len(numbers) == len(set(numbers)) == len(messages) - shown.hidden
            if limit and len(messages) > 2 * limit:
                assert numbers[-1] == len(messages) - 1 and shown.hidden > 0
            if limit == 0:
                assert numbers == []
            assert _replayed(shown.system) == _replayed(messages)
            checked += 1
    assert checked > 150


@pytest.mark.parametrize("workers", ["1", "2"])
def test_a_big_sessions_tree_drawn_by_a_helper_process_is_the_same(monkeypatch, workers):
    """From ``parallel.BIG_SESSION`` entries part of the tree is drawn by a forked helper
    process (``pisession.engine.parallel``), and an export's usage table by another,
    while the rest is made here: the same page, the same tree text."""
    from pisession.engine import parallel
    from pisession.views.explain import tree_text

    data = generated(1200, seed=11)
    session = pisession.loads(data)
    alone = export_html(session), tree_text(session, width=90)
    forks = []
    start = parallel._Pending._start
    monkeypatch.setattr(
        parallel._Pending, "_start", lambda self, *how: forks.append(start(self, *how))
    )
    monkeypatch.setattr(parallel, "BIG_SESSION", 1000)
    monkeypatch.setenv("PISESSION_WORKERS", workers)
    session = pisession.loads(data)
    assert (export_html(session), tree_text(session, width=90)) == alone
    helped = workers == "2" and parallel.can_fork()
    # export: the usage table, the tree's lines; tree: its lines
    assert len(forks) == (3 if helped else 0)
    forks.clear()
    assert tree_text(pisession.loads(data), width=90) == alone[1]
    assert len(forks) == (1 if helped else 0)


def test_a_tree_gap_counts_only_the_entries_it_leaves_out():
    """A straight run in the tree can jump over another branch's entries (the branch
    written in between): the gap's fates are those of the run's hidden entries, not of
    every line between its first and last."""
    from pisession.build import new_message, tiny_session
    from pisession.views.explain import Gap, gap_counts, remarkable, tree_text, tree_walk
    from pisession.views.export import tree_items, tree_lines, tree_section

    def chain(prefix, parent, numbers):
        out = []
        for n in numbers:
            out.append(new_message(f"{prefix}{n}", parent, "user" if n % 2 else "assistant", n))
            parent = f"{prefix}{n}"
        return out

    entries = chain("a", None, range(6)) + chain("b", "a2", range(6, 20))
    entries += chain("c", "a5", range(20, 41))  # continues a5, after branch b's lines
    session = tiny_session(*entries)
    fates = session.fates("c40")
    gaps = [
        item
        for item, _, _ in tree_walk(session, fates.names, remarkable(session, len(session) - 1), 12)
        if isinstance(item, Gap)
    ]
    assert [gap_counts(fates.names, g) for g in gaps] == ["9 off-path", "19 sent"]
    ex = Export.of(session, "c40")
    page = tree_section(ex, tree_lines(ex, tree_items(ex)), 12)  # the page's tree part
    assert re.findall(r"more entries: ([^<]*)<", page) == ["9 off-path", "19 sent"]
    text = tree_text(session, "c40", width=100)
    assert re.findall(r"more entries \((.*)\)", text) == ["lines 10-18", "lines 7, 22-39"]


def test_the_page_scan_finds_what_every_pattern_finds_on_its_own():
    """``redact.secret_spans`` runs a pattern with hints only on text holding one (as
    written where the pattern never ignores case, else in any case) and a pattern with
    a quick test only where that test finds something; ``redact.shows_secrets`` stops
    at the first find: on pages and on secrets of every shape, in every case, both
    find exactly what running every pattern finds."""
    from test_redact import SECRETS

    from pisession.views import redact

    def every_pattern(text: str) -> list:
        spans = sorted(
            (m.start(), rank, m.end(), kind)
            for rank, (kind, pattern) in enumerate(redact.patterns())
            for m in pattern.finditer(text)
            if m.end() > m.start()
        )
        merged: list = []
        for start, _, end, kind in spans:
            if merged and start < merged[-1][1]:
                merged[-1] = (merged[-1][0], max(merged[-1][1], end), merged[-1][2])
            else:
                merged.append((start, end, kind))
        return merged

    texts = [export_html(pisession.load(TOUR)), export_markdown(pisession.load(B))]
    for secret in SECRETS.values():
        for shown in (secret, secret.upper(), secret.lower(), secret.swapcase()):
            texts.append(f"say {shown} and Bearer {shown} https://u:{shown}@h xoxb-{shown}")
    texts.append("K\u212a -----BEGIN RSA PRIVATE KEY-----\nabc\n-----END RSA PRIVATE KEY-----")
    texts += [
        "bot 123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsawq and 12:" + "A" * 35,
        "MTIzNDU2Nzg5MDEyMzQ1Njc4.GhIjKl.abcdefghijklmnopqrstuvwxyz0 .abcdef." + "a" * 27,
        "acca asia akia AKIAIOSFODNN7EXAMPLE" + " akiaiosfodnn7example" * 3,
    ]
    found = 0
    for text in texts:
        assert redact.secret_spans(text) == every_pattern(text), text[:80]
        assert redact.shows_secrets(html.escape(text)) == bool(every_pattern(text)), text[:80]
        found += bool(every_pattern(text))
    assert found > len(SECRETS)


def test_the_middle_system_messages_are_those_every_rank_sends():
    """``_middle_system`` asks ``Fates.sends_system`` only of the entries that may send a
    system message (found in C): the same messages as asking every rank."""
    from pisession.engine import context as engine
    from pisession.errors import PisessionError
    from pisession.views.export_page import _middle_system

    def every_rank(session, fates, low, high):
        out = []
        for rank in range(low, high):
            if fates.sends_system(fates.selection.positions[rank]):
                item = next(
                    engine.contributions(
                        session.index, fates.selection, fates.steps.edits, block=1, start=rank
                    )
                )
                out += [m for m in item.messages if m.get("role") == "system"]
        return out

    edge = sorted((REPO / "data" / "conformance" / "edge").glob("*.jsonl"))
    found = 0
    for path in [TOUR, B, *edge]:
        try:
            session = pisession.load(path, new_id=pisession.sequential_ids())
            fates = session.fates()
        except PisessionError:
            continue
        size = len(fates.selection.positions)
        for low, high in [(0, size), (1, size - 1), (size // 2, size)]:
            expected = every_rank(session, fates, low, max(low, high))
            assert _middle_system(session, fates, low, max(low, high)) == expected
            found += len(expected)
    assert found > 0


@pytest.mark.parametrize("workers", ["1", "2"])
def test_secrets_in_a_tree_drawn_by_a_helper_are_found(monkeypatch, workers):
    """Each process looks for likely secrets in the tree lines it draws: the pieces that
    show some are the same whether a helper draws half the tree or not."""
    from pisession.engine import parallel
    from pisession.views import export_page
    from pisession.views.reasons import Gap

    data = generated(1200, seed=11)
    session = pisession.loads(data)
    items = export_page.tree_items(Export.of(session))
    shown = [
        item
        for item, _, _ in items
        if not isinstance(item, Gap) and session.index.types[item] == "message"
    ]
    lines = data.split(b"\n")
    secret = "ghp_" + "a1B2" * 9
    for position in (shown[1], shown[-2]):  # one in each half of the tree
        at = session.line_of(position) - 1
        entry = json.loads(lines[at])
        entry["message"] = {"role": "user", "content": f"use {secret}", "timestamp": 1}
        entry["type"] = "message"
        lines[at] = json.dumps(entry, separators=(",", ":")).encode()
    data = b"\n".join(lines)
    alone: list[str] = []
    page = "".join(export_page.export_html_chunks(pisession.loads(data), showing=alone))
    monkeypatch.setattr(parallel, "BIG_SESSION", 1000)
    monkeypatch.setenv("PISESSION_WORKERS", workers)
    split: list[str] = []
    assert "".join(export_page.export_html_chunks(pisession.loads(data), showing=split)) == page
    assert sum(piece.count(secret) for piece in split) == page.count(secret) >= 2


@pytest.mark.parametrize("workers", ["1", "2"])
def test_secret_shapes_made_by_a_background_helper_are_the_same(monkeypatch, workers):
    """For a big session the secret shapes are made by a helper of the lowest priority
    (``redact.searches_meanwhile``) while the page's process works, and taken before the
    tree's helper is forked: the same shapes, the same page and warning pieces."""
    from pisession.engine import parallel
    from pisession.views import export_page, redact

    made = redact._make_searches()
    secret = "sk-ant-" + "k" * 30
    data = generated(1200, seed=11).replace(b"small output", secret.encode(), 3)
    alone: list[str] = []
    page = "".join(export_page.export_html_chunks(pisession.loads(data), showing=alone))
    assert alone
    monkeypatch.setattr(redact, "_made", [])
    monkeypatch.setattr(redact, "_planned", [])
    monkeypatch.setattr(parallel, "BIG_SESSION", 1000)
    monkeypatch.setenv("PISESSION_WORKERS", workers)
    how: list[tuple[object, ...]] = []
    start = parallel._Pending._start
    monkeypatch.setattr(
        parallel._Pending, "_start", lambda self, *a: how.append(a) or start(self, *a)
    )
    split: list[str] = []
    assert "".join(export_page.export_html_chunks(pisession.loads(data), showing=split)) == page
    assert sum(piece.count(secret) for piece in split) == page.count(secret) >= 1
    assert not redact._coming
    assert [(k, p.pattern, p.flags, h) for k, p, h in redact._made[0]] == [
        (k, p.pattern, p.flags, h) for k, p, h in made
    ]
    helped = workers == "2" and parallel.can_fork()
    assert how.count((True,)) == (1 if helped else 0)  # the shapes' helper, in background


def test_every_damaged_file_exports_and_draws_the_same_with_helper_processes(monkeypatch):
    """With every session counted big (``parallel.BIG_SESSION`` 1), the usage table and
    part of the tree's lines are made by helper processes: on the damaged
    files, the forks and the samples, the page and the tree text (or the error) are
    those one process makes."""
    from pisession.engine import parallel
    from pisession.errors import PisessionError
    from pisession.views.tree_text import tree_text

    def outcome(path: Path) -> list[object]:
        found: list[object] = []
        for make in (
            lambda s: export_html(s),
            lambda s: tree_text(s, width=100),
        ):
            try:
                found.append(make(pisession.load(path, new_id=pisession.sequential_ids())))
            except PisessionError as exc:
                found.append(str(exc))
        return found

    files = (
        sorted((REPO / "data/damaged").glob("*.jsonl"))
        + sorted((REPO / "data/forks").glob("*.jsonl"))
        + sorted((REPO / "pisession/samples").glob("*.jsonl"))
    )
    monkeypatch.setattr(parallel, "BIG_SESSION", 1)
    monkeypatch.setenv("PISESSION_WORKERS", "1")
    alone = [outcome(path) for path in files]
    monkeypatch.setenv("PISESSION_WORKERS", "2")
    assert [outcome(path) for path in files] == alone


@pytest.mark.parametrize("seed", range(30))
def test_a_gap_counts_each_fate_of_its_entries(seed):
    """``gap_counts`` (one fate counted by ``list.count``, runs of several by
    ``groupby``) says what counting each hidden entry's fate says, in ``FATES`` order."""
    import random
    from collections import Counter

    from pisession.views.explain import Gap, gap_counts
    from pisession.views.provenance import FATES

    rng = random.Random(seed)
    kinds = [k.name for k in FATES]
    names = [rng.choice(kinds[: rng.randrange(1, 4)]) for _ in range(rng.randrange(5, 60))]
    first = rng.randrange(len(names) - 2)
    last = rng.randrange(first + 1, len(names))
    positions = sorted(rng.sample(range(first, last + 1), rng.randrange(1, last - first + 2)))
    for gap in (Gap(last - first + 1, first, last), Gap(len(positions), first, last, positions)):
        counts = Counter(gap.fates(names))
        expected = ", ".join(f"{counts[k]:,} {k}" for k in kinds if counts[k])
        assert gap_counts(names, gap) == expected
