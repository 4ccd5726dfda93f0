"""The fates' request step reads the file's lines, not the context: held equal to the
full route (build the context, ``convertToLlm``, ``request.completed``) on every file of
the corpus, on fuzzed mutants of it, and on every provider-message list of the request
goldens (``data/request``), written as a session file.

``provider_turns`` reads a block of plain message entries through ``schemas.TURN_LINES``
(role, stopReason, api, the blocks' type/id/name, toolCallId) and everything else through
the rule's contributions; ``request.second_pass`` is the one place pi-ai's rule lives, and
``completed`` runs it over whole messages. So three things must agree: the turns
(``line_turns`` against ``turn_of``), where each came from, and the step by entry.
The request step also reads a block whose lines all prove their turns plain
(``schemas.PLAIN_TURN_LINES``) as one run (an int among ``second_pass``'s turns): held
equal to the turns themselves, and to the full route at every block size on sessions made
to need the turn-by-turn route (below).
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
from pisession.views.request_entries import RequestStep, provider_turns, request_step

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


# --- runs of plain turns -------------------------------------------------------------------
# The request step reads a block of user messages and replies whose lines all prove their
# turns plain (``schemas.PLAIN_TURN_LINES``: no reply left out, no tool call, no null
# block) as one run, an int among ``second_pass``'s turns; any other block turn by turn.


def _plain(turn) -> bool:
    role, stop, calls, _, _ = turn
    if role == "user":
        return True
    left_out = type(stop) is str and stop in request.LEFT_OUT
    return role == "assistant" and calls == () and not left_out


def _random_turns(rng, size: int) -> list:
    ids = ["c1", "c2", "c3"]
    turns = []
    for _ in range(size):
        pick = rng.random()
        if pick < 0.3:
            turns.append(("user", schemas.UNDEFINED, (), schemas.NO_KEY, schemas.UNDEFINED))
        elif pick < 0.6:
            stop = rng.choice(["stop", "length", "toolUse", None, schemas.UNDEFINED])
            turns.append(("assistant", stop, (), schemas.NO_KEY, "a"))
        elif pick < 0.7:
            calls = tuple((c, "ls") for c in rng.sample(ids, rng.randint(1, 3)))
            turns.append(("assistant", "toolUse", calls, schemas.NO_KEY, "a"))
        elif pick < 0.78:
            stop = rng.choice(["aborted", "error"])
            turns.append(("assistant", stop, (("c1", "ls"),), schemas.NO_KEY, "a"))
        elif pick < 0.92:
            turns.append(("toolResult", schemas.UNDEFINED, (), rng.choice(ids), schemas.UNDEFINED))
        else:
            turns.append(("system", schemas.UNDEFINED, (), schemas.NO_KEY, schemas.UNDEFINED))
    return turns


def test_a_run_of_plain_turns_is_the_same_as_its_turns():
    """``second_pass`` over turns where stretches of plain turns are runs (ints, of any
    length, empty ones too) gives what it gives over the turns one by one."""
    import random

    rng = random.Random(44)
    runs = 0
    for _ in range(3000):
        turns = _random_turns(rng, rng.randint(0, 14))
        grouped: list = []
        for turn in turns:
            if _plain(turn) and rng.random() < 0.7:
                if grouped and isinstance(grouped[-1], int) and rng.random() < 0.8:
                    grouped[-1] += 1
                else:
                    grouped.append(1)
                    runs += 1
            else:
                grouped.append(turn)
            if rng.random() < 0.05:
                grouped.append(0)
        assert request.second_pass(grouped) == request.second_pass(turns), (turns, grouped)
    assert runs > 3000


def _text(text: str) -> list:
    return [{"type": "text", "text": text}]


def _user(number: int, content: object = None) -> dict:
    return {"role": "user", "content": _text(f"u{number}") if content is None else content}


def _reply(stop: object = "stop", content: object = None, api: object = "a") -> dict:
    reply = {"role": "assistant", "content": _text("ok") if content is None else content}
    reply.update({"api": api, "provider": "p", "model": "m", "stopReason": stop})
    return reply


def _call(call_id: str) -> dict:
    return {"type": "toolCall", "id": call_id, "name": "ls", "arguments": {}}


def _result(call_id: str) -> dict:
    return {"role": "toolResult", "toolCallId": call_id, "toolName": "ls", "content": _text("")}


def _talk(pairs: int) -> list:
    return [m for n in range(pairs) for m in (_user(n), _reply())]


#: Sessions (as provider messages, one message entry each) whose blocks are runs, or must
#: not be: what is left out, written, held or read from the latest reply must come out
#: as the full route gives it at every block size.
CASES = {
    "plain talk": _talk(12),
    "an aborted reply": [*_talk(5), _user(5), _reply("aborted"), *_talk(5)],
    "a failed reply": [*_talk(4), _reply("error", [_call("c9")]), *_talk(6)],
    "a call left unanswered, then plain blocks": [
        *_talk(3),
        _reply("toolUse", [_call("c1")]),
        *_talk(8),
    ],
    "a call answered blocks later": [
        _reply("toolUse", [_call("c1"), _call("c2")]),
        *_talk(4),
        _result("c1"),
        *_talk(4),
    ],
    "a system message held among open calls": [
        *_talk(2),
        _reply("toolUse", [_call("c1")]),
        {"role": "system", "content": "s"},
        *_talk(4),
    ],
    # (an aborted reply first: whether it is left out says which API counts as the latest)
    "the latest reply through pi-messages, in a run": [
        _reply("aborted"),
        *_talk(6),
        _user(9),
        _reply(api="pi-messages"),
    ],
    "pi-messages, then another API": [
        _reply("aborted"),
        _user(0),
        _reply(api="pi-messages"),
        *_talk(6),
    ],
    "text content, null content, no content": [
        _user(1, "as text"),
        _reply(content=None),
        {"role": "assistant", "api": "a"},
        {"role": "assistant", "content": None, "stopReason": None},
        *_talk(4),
    ],
    "thinking and image blocks, every stop reason sent": [
        _user(1, [{"type": "image", "data": "AA==", "mimeType": "image/png"}]),
        _reply("length", [{"type": "thinking", "thinking": "hm"}, {"type": "text", "text": "x"}]),
        *_talk(3),
        _reply("toolUse", []),
        _reply(None),
        *_talk(3),
    ],
    "a reply whose content is text (Pi fails)": [*_talk(5), _reply(content="text"), *_talk(3)],
    "a null block (Pi fails)": [*_talk(5), _reply(content=[None]), *_talk(3)],
    "a null block in an aborted reply": [*_talk(5), _reply("aborted", [None]), *_talk(3)],
    "a stop reason of another type": [*_talk(3), _reply(["error"]), *_talk(3)],
    "a block of another type": [*_talk(3), _reply(content=[{"type": "other"}, "x", 5]), *_talk(3)],
}


def _leaves_of(session) -> list:
    ids = session.index.ids
    return [None, *ids[:: max(1, len(ids) // 5)]]


@pytest.mark.parametrize("block", [1, 2, 3, 7, 256])
@pytest.mark.parametrize("name", CASES)
def test_runs_of_plain_turns_give_the_full_step(name, block, monkeypatch):
    from pisession.views import request_entries

    monkeypatch.setattr(request_entries, "_BLOCK", block)
    session = _loaded(_as_session(CASES[name]))
    for leaf_id in _leaves_of(session):
        assert request_step(session, leaf_id) == _full_step(session, leaf_id), leaf_id
        assert _light_turns(session, leaf_id) == _full_turns(session, leaf_id), leaf_id


def test_runs_are_taken_and_counted(monkeypatch):
    """The plain talk is read as runs (``"request-runs"``), part of the ``"request"``
    route; a block holding a reply left out is not."""
    from pisession.engine import context
    from pisession.views import request_entries

    monkeypatch.setattr(request_entries, "_BLOCK", 4)
    monkeypatch.setattr(context, "BYPASSES", __import__("collections").Counter())
    request_step(_loaded(_as_session(_talk(8))))
    assert context.BYPASSES["request-runs"] == context.BYPASSES["request"] == 4
    context.BYPASSES.clear()
    request_step(_loaded(_as_session(CASES["an aborted reply"])))  # 22 messages, 6 blocks
    assert context.BYPASSES["request"] == 6 and context.BYPASSES["request-runs"] == 5


def test_a_context_edit_breaks_the_run(monkeypatch):
    """An edited reply is read through the rule's contributions (its block is no plain
    run), whatever the edit makes of it: a tool call left unanswered, or nothing."""
    from builders import edit, jsonl, msg

    from pisession.views import request_entries

    entries = [msg("m0", None, "user", _text("u"))]
    for n in range(1, 12):
        role = "assistant" if n % 2 else "user"
        content = _text("ok") if role == "assistant" else _text(f"u{n}")
        entries.append(msg(f"m{n}", f"m{n - 1}", role, content, **({"api": "a"} if n % 2 else {})))
    called = {"content": [_call("c7")], "stopReason": "toolUse"}
    entries.append(edit("e1", "m11", "m5", called))
    entries.append(edit("e2", "e1", "m9", None))
    entries.append(msg("m12", "e2", "user", _text("go on")))
    session = pisession.loads(jsonl(*entries))
    for block in (1, 2, 3, 256):
        monkeypatch.setattr(request_entries, "_BLOCK", block)
        step = request_step(session)
        assert step == _full_step(session, None), block
        assert step.written == {session.position_of("m5"): [("c7", "ls")]}, block
