"""The one declared bypass of step 5 (``rule.projected_entry``): a *plain run*, a block
of selected message entries that no context edit targets, each of which sends its stored
message. It is decided at one point, ``engine.context.is_plain_run``, which counts each
time a route takes it (``context.BYPASSES``, reported by ``benchmarks/bench.py``); three
routes take it, and each gives what ``pisession.rule`` gives:

- ``"writer"`` (``stream._Bodies._plain``, used by ``pisession context`` and
  ``Session.context_json``): the run is read straight from its lines (``shapes`` structs,
  or ``rule.stored_messages``) and written without a projected entry;
- ``"fates"`` (``provenance.entry_fates``): the run is named sent or kept without a
  decode, and other message entries stand in as their role alone;
- ``"request"`` (``request_entries._turn_stream``, the fates' request step): the run's lines
  are read as pi-ai's second pass needs them (``schemas.TURN_LINES``), or, when they are
  all user messages and replies whose lines prove their turns plain
  (``schemas.PLAIN_TURN_LINES``), as one run of plain turns (counted again as
  ``"request-runs"``); ``tests/test_request_turns.py`` holds both equal to the whole
  context's request step.

Each is checked on every corpus file (data/conformance, data/damaged, the package's
samples), at the default leaf, every branch end and some interior entries, and on
generated sessions.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
from builders import jsonl, msg
from hypothesis import HealthCheck, given, settings
from test_projection_reference import _leaf_id, _leaves
from test_properties import EXAMPLES, RANDOM, session_bytes

import pisession
from pisession import request, rule
from pisession.engine import context, stream
from pisession.engine.index import of_type
from pisession.errors import PisessionError
from pisession.js import json as jsjson
from pisession.js.value import field, value_text
from pisession.llm import to_llm_message
from pisession.projection import Projection
from pisession.views import provenance, request_entries

ROOT = Path(__file__).resolve().parent.parent
CORPUS = sorted(
    [
        *(ROOT / "data" / "conformance").glob("*/*.jsonl"),
        *(ROOT / "data" / "damaged").glob("*.jsonl"),
        *(ROOT / "pisession" / "samples").glob("*.jsonl"),
    ]
)

#: Block sizes the writer's bypass is tried with (its own, and small ones, so that runs
#: start and end everywhere in a small file).
WINDOWS = (1, 2, 3, 7, stream.BLOCK)


def _session(data: bytes):
    try:
        return pisession.loads(data, new_id=pisession.sequential_ids())
    except PisessionError:
        return None


def _rule(session, leaf: int | None):
    try:
        return rule.project(session.entries, leaf)
    except PisessionError:
        return None


def _json(messages: list) -> str:
    return jsjson.dumps(messages)


# --- the writer ----------------------------------------------------------------------


def _writer_bypass_matches(session, leaf: int | None) -> int:
    """The writer's bypass on every window of the selection equals the rule's messages
    for those entries; the writer's whole output too. Returns how many windows took it."""
    raw_lines = session.file.raw_lines
    expected = _rule(session, leaf)
    if expected is None:
        with pytest.raises(PisessionError):
            b"".join(stream.context_json(session.index, leaf, 2, raw_lines))
        return 0
    steps = context.steps(session.index, leaf)
    positions = steps.selection.positions
    assert positions == expected.selection.positions
    contributed = [item.messages for item in expected.items]
    taken = 0
    for size in WINDOWS:
        bodies = stream._Bodies(session.index, steps.selection, steps.edits, raw_lines, None, size)
        for first in range(len(positions)):
            found = bodies._plain(positions[first : first + size])
            if found is None:
                continue
            taken += 1
            messages, _ = found
            written = b"[" + stream._encode_block(messages, None, None) + b"]"
            rules = [m for each in contributed[first : first + size] for m in each]
            assert written.decode() == _json(rules), (first, size)
    for size in (1, 3, stream.BLOCK):
        whole = b"".join(stream.context_json(session.index, leaf, None, raw_lines, block=size))
        assert _json(jsjson.loads(whole)["messages"]) == _json(expected.messages), size
    return taken


@pytest.mark.parametrize("path", CORPUS, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_the_writers_plain_run_bypass_gives_the_rules_messages(path):
    session = _session(path.read_bytes())
    if session is None:
        pytest.skip("a file pisession refuses (the rule is never reached)")
    for leaf in _leaves(session):
        _writer_bypass_matches(session, leaf)


def test_the_writers_plain_run_bypass_is_taken_on_the_corpus():
    """The comparison above is not empty: the bypass answers for most corpus files."""
    files = 0
    for path in CORPUS:
        session = _session(path.read_bytes())
        files += session is not None and _writer_bypass_matches(session, None) > 0
    assert files > len(CORPUS) // 2, files


def test_the_bypass_is_counted_by_route(monkeypatch):
    """Each route that takes the plain run is counted where it is decided."""
    monkeypatch.setattr(context, "BYPASSES", Counter())
    session = pisession.loads(jsonl(msg("u1", None), msg("a1", "u1", "assistant")))
    b"".join(session.context_json())
    assert context.BYPASSES["writer"] > 0 and context.BYPASSES["fates"] == 0
    session.fates()
    assert context.BYPASSES["fates"] > 0 and context.BYPASSES["request"] > 0
    assert context.BYPASSES["request-runs"] == 0  # (a reply whose content is text: no run)
    blocks = [{"type": "text", "text": "hi"}]
    session = pisession.loads(
        jsonl(msg("u1", None, content=blocks), msg("a1", "u1", "assistant", blocks))
    )
    session.fates()
    assert context.BYPASSES["request-runs"] == 1


# --- the fates -------------------------------------------------------------------------


def _rule_fates(expected: Projection) -> dict:
    """Each selected entry's fate, message count and roles as the rule's projected
    entries give them (decoded in full), first place deciding."""
    fates: dict = {}
    for item in expected.items:
        if item.position not in fates:
            roles = tuple(value_text(field(m, "role")) for m in item.messages)
            fates[item.position] = (provenance._item_fate(item), len(item.messages), roles)
    _request_step(expected, fates)
    return fates


def _request_step(expected: Projection, fates: dict) -> None:
    """The replies pi-ai leaves out of the request (``pisession.request`` over the rule's
    messages through ``convertToLlm``) take the fate ``left-out``."""
    llm, sources = [], []
    for item in expected.items:
        for message in item.messages:
            try:
                converted = to_llm_message(message)
            except PisessionError:
                return  # Pi throws in convertToLlm: no request
            if converted is not None:
                llm.append(converted)
                sources.append(item.position)
    try:
        done = request.sent(llm, request.TargetModel(None, None, None), now=0)
    except PisessionError:
        return
    for index in done.left_out:
        name, count, roles = fates[sources[index]]
        if provenance.FATE[name].reached:
            fates[sources[index]] = (provenance.LEFT_OUT, count, roles)


def _fates_bypass_matches(session, leaf: int | None, monkeypatch) -> None:
    """At each block size (``WINDOWS``: the fates read a block of the selection at a time,
    and a block that is a plain run takes the shortcut), the fates equal the rule's."""
    expected = _rule(session, leaf)
    for size in WINDOWS:
        monkeypatch.setattr(provenance, "_BLOCK", size)
        monkeypatch.setattr(request_entries, "_BLOCK", size)
        if expected is None:
            with pytest.raises(PisessionError):
                provenance.entry_fates(session, _leaf_id(session, leaf))
            continue
        fates = provenance.entry_fates(session, _leaf_id(session, leaf))
        for position, (name, count, roles) in _rule_fates(expected).items():
            got = fates[position]
            assert (got.fate, got.messages, got.why.roles) == (name, count, roles), (position, size)
            assert fates.sends_system(position) == ("system" in roles), (position, size)
        assert fates.message_count() == len(expected.messages), size
        on_path = set(expected.path)  # (the fate column says which entries are on it)
        for kind in {k for k in session.index.types if type(k) is str}:
            found = [p for p in of_type(session.index, kind) if p in on_path]
            assert fates.on_path(kind) == found, (kind, size)


@pytest.mark.parametrize("path", CORPUS, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_the_fates_bypass_gives_the_rules_fates(path, monkeypatch):
    session = _session(path.read_bytes())
    if session is None:
        pytest.skip("a file pisession refuses (the rule is never reached)")
    for leaf in _leaves(session):
        _fates_bypass_matches(session, leaf, monkeypatch)


# --- generated sessions ----------------------------------------------------------------


@settings(
    max_examples=EXAMPLES,
    derandomize=not RANDOM,
    deadline=None,
    suppress_health_check=list(HealthCheck),
)
@given(session_bytes())
def test_both_bypasses_give_the_rules_answer_on_generated_sessions(data):
    session = _session(data)
    if session is None:
        return
    with pytest.MonkeyPatch.context() as monkeypatch:
        for leaf in _leaves(session):
            _writer_bypass_matches(session, leaf)
            _fates_bypass_matches(session, leaf, monkeypatch)
