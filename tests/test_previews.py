"""A tree line's preview read from a few fields of its line (``schemas.PREVIEW``,
``text.preview_entry``) says what the full entry says (``entry_text``): on every line of
the corpus, on odd lines, on generated ones; and ``tree`` and ``export`` draw the same
bytes with and without it."""

from __future__ import annotations

import json
from pathlib import Path

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_benchmark_tools import generated

import pisession
from pisession.cli import main
from pisession.engine import schemas
from pisession.js.json import loads
from pisession.views import text, tree_text
from pisession.views.text import entry_text, preview_entry

ROOT = Path(__file__).resolve().parent.parent
CORPUS = sorted((ROOT / "data").glob("**/*.jsonl"))
ENOUGH = (None, 0, 1, 7, 60, 400, 5000)


def full_entry(line: bytes) -> object:
    """The entry as the store decodes it: msgspec's value, else ``JSON.parse``'s."""
    try:
        return schemas.ANY.decode(line)
    except (msgspec.DecodeError, RecursionError):
        return loads(line)


def same_preview(line: bytes) -> bool:
    """Whether the preview of ``line`` equals the full entry's at every length (True:
    it was read from the preview's fields; False: the preview needs the full entry)."""
    try:
        read = schemas.PREVIEW.decode(line)
    except (msgspec.DecodeError, RecursionError):
        return False
    entry = preview_entry(read)
    if entry is None:
        return False
    full = full_entry(line)
    for enough in ENOUGH:
        assert entry_text(entry, enough) == entry_text(full, enough), (line, enough)
    return True


@pytest.mark.parametrize("path", CORPUS, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_every_line_of_the_corpus_previews_alike(path):
    for line in path.read_bytes().split(b"\n"):
        if line.strip():
            same_preview(line)


ODD_LINES = [
    # duplicate keys: the last one wins, in the line's type, role, content and blocks
    '{"type":"label","type":"message","message":{"role":"system","role":"user",'
    '"content":"a","content":[{"type":"text","text":"1","text":"2"}]}}',
    '{"type":"message","message":{"role":"user","content":[{"type":"toolCall",'
    '"name":"x","arguments":{"b":1,"a":[1,{"c":null}],"b":"again","1":2}}]}}',
    # values of other types where strings are expected
    '{"type":"message","message":{"role":5,"content":[{"type":1,"text":2}]}}',
    '{"type":"message","message":{"role":["user"],"content":[{"text":{"k":1e3}}]}}',
    '{"type":"message","message":{"role":"assistant","content":[{"type":"thinking",'
    '"thinking":null},{"type":"image"},{"type":"toolCall","arguments":"not an object"}]}}',
    '{"type":"message","message":{"role":"toolResult","content":"plain string"}}',
    '{"type":"message","message":{"role":"user","content":null}}',
    '{"type":"message","message":{"role":"user"}}',
    '{"type":"message","message":{}}',
    # read in full: a message or content of another type, the roles that say more
    '{"type":"message","message":null}',
    '{"type":"message","message":"text"}',
    '{"type":"message","message":{"role":"user","content":{"text":"an object"}}}',
    '{"type":"message","message":{"role":"user","content":["a string block"]}}',
    '{"type":"message","message":{"role":"bashExecution","command":"ls","output":"a"}}',
    '{"type":"message","message":{"role":"compactionSummary","summary":"s","content":"c"}}',
    '{"type":"message","message":{"role":"system","content":"c","sections":{"a":"b"}}}',
    '{"type":"compaction","summary":"what happened"}',
    # numbers JavaScript reads as Infinity, lone surrogates: read in full
    '{"type":"message","usage":1e400,"message":{"role":"user","content":"x"}}',
    '{"type":"message","message":{"role":"user","content":[{"type":"toolCall",'
    '"arguments":{"n":1e400}}]}}',
    '{"type":"message","message":{"role":"user","content":"\\ud800 lone"}}',
    # text that needs cleaning, long text, big numbers
    '{"type":"message","message":{"role":"user","content":[{"type":"text","text":"'
    + "\\u001b[31mred\\u202e  spaced\\n\\tout " * 300
    + '"}]}}',
    '{"type":"message","message":{"role":"assistant","content":[{"type":"toolCall",'
    '"name":"n","arguments":{"big":123456789012345678901234567890,"f":-0.0,"e":1.5e-7}}]}}',
]


def test_odd_lines_preview_alike():
    read = [same_preview(line.encode()) for line in ODD_LINES]
    assert sum(read) >= 10  # (most of them are read from the preview's fields)


# generated message lines: any JSON where a preview looks, odd values included
_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner),
    max_leaves=6,
)
_KINDS = st.sampled_from(["text", "thinking", "toolCall", "image", "other"]) | _VALUES
_BLOCKS = st.dictionaries(
    st.sampled_from(["type", "text", "thinking", "name", "arguments", "signature"]),
    _VALUES,
    max_size=5,
).flatmap(lambda block: st.builds(lambda kind: {"type": kind, **block}, _KINDS))
_ROLES = st.sampled_from(["user", "assistant", "toolResult", "custom", "system"]) | _VALUES
_MESSAGES = st.fixed_dictionaries(
    {"role": _ROLES},
    optional={
        "content": st.lists(_BLOCKS, max_size=4) | st.text() | _VALUES,
        "usage": _VALUES,
        "summary": _VALUES,
    },
)
_LINES = st.fixed_dictionaries(
    {"type": st.sampled_from(["message"]) | _VALUES},
    optional={"message": _MESSAGES | _VALUES, "id": st.text(), "timestamp": _VALUES},
)


@settings(max_examples=400, deadline=None)
@given(_LINES)
def test_generated_lines_preview_alike(value):
    same_preview(json.dumps(value, ensure_ascii=False).encode("utf-8", "surrogatepass"))


@pytest.fixture(scope="module")
def big_session(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("previews") / "big.jsonl"
    path.write_bytes(generated(3000, seed=11))
    return path


@pytest.mark.parametrize(
    "command", [["tree"], ["tree", "--width", "200"], ["export", "--format", "html"]]
)
def test_drawings_are_the_same_read_in_full(big_session, command, capsys, monkeypatch):
    """The tree's lines drawn from previews are the lines drawn from full entries."""
    monkeypatch.setenv("PISESSION_WORKERS", "1")
    assert main([command[0], str(big_session), *command[1:]]) == 0
    fast = capsys.readouterr().out
    monkeypatch.setattr(tree_text, "preview_entry", lambda line: None)
    assert main([command[0], str(big_session), *command[1:]]) == 0
    assert capsys.readouterr().out == fast
    assert text.preview_entry is not None  # (the module's own, untouched)


def test_a_session_without_lines_previews_from_its_entries():
    """A migrated session's entries are not its lines: every preview reads the entry."""
    session = pisession.load(pisession.sample_path("legacy-v1"))
    items = list(tree_text.tree_walk(session, None, set(), 0))
    shown = tree_text.decode_shown(session, items)
    positions = [p for p, _, _ in items]
    assert [shown[p] for p in positions] == session.entries_at(positions)


def test_the_roles_read_in_full_are_the_switchs_other_branches():
    """``message_text.MORE_THAN_CONTENT`` names exactly the roles whose message the one
    switch on a role reads more of than its content (every role Pi's data knows, the
    summaries' roles, and some it does not)."""
    from pisession.message_text import MORE_THAN_CONTENT, SUMMARY_ROLES, TextMode, message_text
    from pisession.piversions import roles

    probe = TextMode(lambda m: "summary", lambda m: "bash", lambda m: "system", lambda m: "")
    for role in {*roles(), *SUMMARY_ROLES, "hookMessage", "custom", "", "x", None, 5}:
        says_more = message_text({"role": role}, probe) != ""
        assert says_more == (role in MORE_THAN_CONTENT), role
