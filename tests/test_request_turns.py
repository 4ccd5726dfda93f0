"""The fates' request step reads the file's lines, not the context: held equal to the
full route (build the context, ``convertToLlm``, ``request.completed``) on every file of
the corpus, on fuzzed mutants of it, and on every provider-message list of the request
goldens (``data/request``), written as a session file.

``provider_turns`` reads a block of plain message entries through ``schemas.TURN_LINES``
(role, stopReason, api, the blocks' type/id/name, toolCallId) and everything else through
the rule's contributions; ``request.second_pass`` is the one place pi-ai's rule lives, and
``completed`` runs it over whole messages. So three things must agree: the turns
(``line_turns`` against ``turn_of``), where each came from, and the step by entry.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

import pisession
from pisession import request
from pisession.engine import schemas
from pisession.errors import PisessionError
from pisession.views.provenance import RequestStep, provider_turns, request_step

ROOT = Path(__file__).resolve().parents[1]
FUZZ = ROOT / "conformance" / "fuzz"
#: Leaves checked per file (the default leaf first): enough to cross every branch shape.
LEAVES = 4


def _full_step(session, leaf_id) -> RequestStep | None:
    """The request step the way it was first written: the whole context built, turned
    into provider messages and run through ``request.completed``."""
    try:
        llm, sources = session.context(leaf_id).llm_sources()
        done = request.completed(llm, now=0)
    except PisessionError:
        return None
    replies = [m for m in llm if isinstance(m, dict) and m.get("role") == "assistant"]
    if replies and replies[-1].get("api") in request.UNTRANSFORMED_APIS:
        return RequestStep({}, {}, len(llm))
    at = [item.position for item in sources]
    left_out = {at[i]: why for i, why in done.left_out.items()}
    written: dict = {}
    inserted: dict = {}
    after = None
    for origin in done.origins:
        if isinstance(origin, request.WrittenResult):
            call = (origin.call_id, origin.tool_name)
            written.setdefault(at[origin.reply], []).append(call)
            inserted.setdefault(at[origin.reply] if after is None else after, []).append(call)
        else:
            after = at[origin]
    return RequestStep(left_out, written, len(done.messages), inserted)


def _full_turns(session, leaf_id):
    try:
        llm, sources = session.context(leaf_id).llm_sources()
    except PisessionError:
        return "Pi fails"  # (the full route also names the line: not compared)
    return [request.turn_of(m) for m in llm], [item.position for item in sources]


def _light_turns(session, leaf_id):
    try:
        return provider_turns(session, session.steps(leaf_id))
    except PisessionError:
        return "Pi fails"


def _differences(name: str, session) -> list[str]:
    """Where the line-reading route and the full one disagree on this session."""
    found = []
    leaves = [None] + [session.index.ids[p] for p in session.leaves()[-LEAVES + 1 :]]
    for leaf_id in leaves:
        if leaf_id is not None and session.index.ids.count(leaf_id) != 1:
            continue
        light, full = _light_turns(session, leaf_id), _full_turns(session, leaf_id)
        if light != full:
            found.append(f"{name} leaf {leaf_id!r}: turns {light!r} != {full!r}")
        step, reference = request_step(session, leaf_id), _full_step(session, leaf_id)
        if step != reference:
            found.append(f"{name} leaf {leaf_id!r}: step {step} != {reference}")
    return found


def _loaded(data: bytes):
    try:
        return pisession.loads(data)
    except PisessionError:
        return None


def _corpus() -> list[Path]:
    return sorted(p for p in (ROOT / "data").rglob("*.jsonl") if p.stat().st_size < 2_000_000)


def test_the_corpus_reads_the_same_either_way():
    files = _corpus()
    checked, failures = 0, []
    for path in files:
        session = _loaded(path.read_bytes())
        if session is None:
            continue
        checked += 1
        failures += _differences(str(path.relative_to(ROOT)), session)
    assert not failures, f"{len(failures)} differ:\n" + "\n".join(failures[:10])
    assert checked > 500  # the corpus, not a handful


def test_fuzzed_files_read_the_same_either_way():
    """Mutants of the fuzzer's corpus (values of every type where the structs expect
    text, null blocks, duplicate keys, dropped fields): the structs refuse what they
    cannot read exactly, and the full route reads it."""
    sys.path.insert(0, str(FUZZ))
    try:
        from mutate import Mutator, load_corpus
    finally:
        sys.path.remove(str(FUZZ))
    mutator = Mutator(load_corpus(), 44)
    checked, failures = 0, []
    for number in range(600):
        mutant = mutator.mutant(number)
        session = _loaded(mutant.data)
        if session is None:
            continue
        checked += 1
        failures += _differences(f"mutant {number} of {mutant.source}", session)
    assert not failures, f"{len(failures)} differ:\n" + "\n".join(failures[:10])
    assert checked > 300


def _as_session(llm: list) -> bytes:
    """Provider messages as a session: one message entry each, a chain."""
    lines = [{"type": "session", "version": 3, "id": "s", "timestamp": "2026-01-01T00:00:00Z"}]
    for number, message in enumerate(llm):
        lines.append(
            {
                "type": "message",
                "id": f"m{number}",
                "parentId": f"m{number - 1}" if number else None,
                "timestamp": "2026-01-01T00:00:01Z",
                "message": message,
            }
        )
    return b"".join(json.dumps(line).encode() + b"\n" for line in lines)


def test_the_request_goldens_read_the_same_either_way():
    """Every provider-message list pi-ai's transform was recorded on (``data/request``):
    replies left out, calls answered, null blocks, content of every type."""
    recorded = json.loads((ROOT / "data" / "request" / "0.87.1.json").read_text())
    checked, failures = 0, []
    for golden in recorded["files"]:
        for number, case in enumerate(json.loads((ROOT / golden).read_text())["cases"]):
            llm = case.get("llm")
            if not isinstance(llm, list):
                continue
            session = _loaded(_as_session(llm))
            if session is None:
                continue
            checked += 1
            failures += _differences(f"{golden} case {number}", session)
    assert not failures, f"{len(failures)} differ:\n" + "\n".join(failures[:10])
    assert checked > 500


@pytest.mark.parametrize(
    "message",
    [
        {"role": "assistant", "content": "text", "stopReason": "stop"},
        {"role": "assistant", "content": [None, {"type": "toolCall", "id": "c"}]},
        {"role": "assistant", "content": None, "api": "pi-messages"},
        {"role": "assistant", "stopReason": "aborted", "content": [{"type": "toolCall"}]},
        {"role": "assistant", "content": [{"type": "toolCall", "id": "c", "name": "ls"}]},
        {"role": "toolResult", "toolCallId": None},
        {"role": "toolResult"},
        {"role": "user", "content": [{"type": "image", "data": 5}]},
        {"role": "system", "content": 7},
    ],
)
def test_a_line_gives_the_turn_of_its_message(message):
    line = schemas.TURN_LINES.decode(json.dumps({"message": message}).encode())
    assert schemas.line_turns([line]) == [request.turn_of(message)]


@pytest.mark.parametrize(
    "message",
    [
        {"role": "assistant", "content": [{"type": "toolCall", "id": 5}]},
        {"role": "assistant", "stopReason": ["error"]},
        {"role": "assistant", "content": ["a block that is text"]},
        {"role": "toolResult", "toolCallId": 1},
        {"role": "bashExecution", "command": "ls"},
    ],
)
def test_a_line_the_structs_cannot_read_exactly_is_refused(message):
    """A value of another type, a role convertToLlm rewrites: read in full instead."""
    import msgspec

    with pytest.raises(msgspec.ValidationError):
        schemas.TURN_LINES.decode(json.dumps({"message": message}).encode())


def test_the_fates_do_not_build_the_context(monkeypatch):
    """On a file of plain messages the request step reads lines: no context is built."""
    session = pisession.load(pisession.sample_path("tour"))
    reference = _full_step(session, None)
    session = pisession.load(pisession.sample_path("tour"))
    calls = []
    monkeypatch.setattr(type(session), "projection", lambda *a, **k: calls.append(a))
    assert session.fates().request == reference
    assert calls == []
