"""Exercise of notebooks 04 and 07: what the request carries (pi-ai's last step).

``request_messages(messages, now)`` gets provider messages (what ``convertToLlm`` gives)
whose replies all come from the model being asked, and returns what pi-ai's
``transformMessages`` sends: failed and aborted replies left out, each tool call without
a result answered by a written result before the next assistant or user message (or at
the end), a system message between a call and its results held until after them. The
expected answers are ``pisession.request.sent``'s, checked against pi-ai's own code.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from ..build import Entry
from ..request import NO_RESULT, TargetModel, sent
from ._checking import DRAWN, Case, Exercise, Mistake, _run
from ._sessions import _sample_sessions

#: The model every reply of the cases comes from, and the one being asked.
_MODEL = TargetModel("fake", "fake-coder", "openai-completions")
#: The ``Date.now()`` of the checks (the reader gets it as ``now``).
NOW = 1767225600000


def _reply(stop: str, *calls: tuple[str, str], text: str = "") -> Entry:
    content: list[Entry] = [{"type": "text", "text": text}] if text else []
    content += [{"type": "toolCall", "id": i, "name": n, "arguments": {}} for i, n in calls]
    return {
        "role": "assistant",
        "content": content,
        "api": _MODEL.api,
        "provider": _MODEL.provider,
        "model": _MODEL.id,
        "stopReason": stop,
        "timestamp": NOW - 1000,
    }


def _user(text: str) -> Entry:
    return {"role": "user", "content": [{"type": "text", "text": text}], "timestamp": NOW - 2000}


def _result(call_id: str, name: str, text: str = "ok") -> Entry:
    return {
        "role": "toolResult",
        "toolCallId": call_id,
        "toolName": name,
        "content": [{"type": "text", "text": text}],
        "isError": False,
        "timestamp": NOW - 500,
    }


def _system(text: str) -> Entry:
    return {"role": "system", "content": text, "timestamp": NOW - 3000}


def _case(
    name: str, messages: list[Entry], drawn: bool = False, model: TargetModel = _MODEL
) -> Case:
    return Case(name, (messages, NOW), sent(list[object](messages), model, now=NOW).messages, drawn)


def _model_of(messages: list[Entry]) -> TargetModel | None:
    """The one model every reply comes from (None: none, or several)."""
    models = {
        (m.get("provider"), m.get("model"), m.get("api"))
        for m in messages
        if m.get("role") == "assistant"
    }
    return TargetModel(*next(iter(models))) if len(models) == 1 else None


#: Small hand-made conversations for the corners.
_TINY = {
    "an aborted reply": [_user("hi"), _reply("aborted", text="half an ans"), _user("again")],
    "a failed reply (stopReason error), not retried": [
        _user("hi"),
        _reply("error"),
        _user("and now?"),
        _reply("stop", text="fine"),
    ],
    "an aborted reply that had made tool calls": [
        _user("run it"),
        _reply("aborted", ("c1", "bash"), ("c2", "read")),
        _user("stop that"),
    ],
    "a tool call without a result, then a user message": [
        _user("run"),
        _reply("toolUse", ("c1", "bash")),
        _user("never mind"),
    ],
    "a tool call without a result at the end": [_user("run"), _reply("toolUse", ("c1", "bash"))],
    "two calls, one answered": [
        _user("run both"),
        _reply("toolUse", ("c1", "bash"), ("c2", "read")),
        _result("c2", "read"),
        _reply("stop", text="done"),
    ],
    "a system message between a call and its result": [
        _user("run"),
        _reply("toolUse", ("c1", "bash")),
        _system("new tools"),
        _result("c1", "bash"),
        _user("thanks"),
    ],
    "a system message after an unanswered call": [
        _user("run"),
        _reply("toolUse", ("c1", "bash")),
        _system("prompt update"),
        _user("next"),
    ],
}


def _fixed() -> list[Case]:
    cases = [_case(f"tiny: {name}", messages) for name, messages in _TINY.items()]
    for name, session in _sample_sessions().items():
        for leaf in session.leaves()[:2]:
            llm = session.context(session.index.ids[leaf]).to_llm()
            model = _model_of(llm)
            if model is not None:
                cases.append(_case(f"{name}, leaf at position {leaf}", llm, model=model))
    return cases


def _drawn(rng: random.Random) -> list[Case]:
    """Random conversations: replies that stop, use tools, abort or fail; results that
    answer some calls (now and then twice, or late); system messages anywhere."""
    cases = []
    for n in range(DRAWN):
        messages: list[Entry] = [_user("start")]
        calls: list[tuple[str, str]] = []
        for step in range(rng.randint(3, 12)):
            kind = rng.choice(["reply", "reply", "result", "result", "user", "system"])
            if kind == "reply":
                stop = rng.choice(["stop", "toolUse", "toolUse", "aborted", "error"])
                made = [(f"call_{n}_{step}_{k}", rng.choice(["bash", "read"])) for k in range(3)]
                made = made[: rng.randint(0, 2)] if stop != "stop" else []
                messages.append(_reply(stop, *made, text=rng.choice(["", "ok"])))
                calls += made
            elif kind == "result" and calls:
                messages.append(_result(*rng.choice(calls)))
            elif kind == "user":
                messages.append(_user(f"turn {step}"))
            elif kind == "system":
                messages.append(_system(f"update {step}"))
        cases.append(_case("drawn at random", messages, True))
    return cases


def _request_model(
    messages: list[Entry],
    now: int,
    *,
    left_out: tuple[str, ...] = ("aborted", "error"),
    answer_left_out: bool = False,
    only_at_end: bool = False,
    hold_system: bool = True,
    shape: Callable[[Entry], Entry] | None = None,
) -> list[Entry]:
    """A plain version of the step, with switches for the common mistakes."""
    out: list[Entry] = []
    pending: list[Entry] = []
    answered: set[object] = set()
    held: list[Entry] = []

    def close() -> None:
        nonlocal pending, answered
        for call in pending:
            if call["id"] not in answered:
                written = {
                    "role": "toolResult",
                    "toolCallId": call["id"],
                    "toolName": call["name"],
                    "content": [{"type": "text", "text": NO_RESULT}],
                    "isError": True,
                    "timestamp": now,
                }
                out.append(shape(written) if shape else written)
        pending, answered = [], set()
        out.extend(held)
        held.clear()

    for message in messages:
        role = message["role"]
        if role == "assistant":
            if not only_at_end:
                close()
            calls = [b for b in message["content"] if b["type"] == "toolCall"]
            if message.get("stopReason") in left_out:
                if answer_left_out and calls:
                    pending = calls
                continue
            if calls:
                pending, answered = calls, set()
        elif role == "toolResult":
            answered.add(message["toolCallId"])
        elif role == "system" and pending and hold_system:
            held.append(message)
            continue
        elif role == "user" and not only_at_end:
            close()
        out.append(message)
    close()
    return out


REQUEST = Exercise(
    "what the request carries",
    _fixed,
    _drawn,
    (
        Mistake(
            lambda m, now: _request_model(m, now, left_out=("aborted",)),
            "your answer kept a failed reply: pi-ai leaves out stopReason 'error' as well "
            "as 'aborted'.",
        ),
        Mistake(
            lambda m, now: _request_model(m, now, left_out=()),
            "your answer sent every reply: pi-ai leaves out the ones whose stopReason is "
            "'error' or 'aborted' (incomplete turns are never replayed).",
        ),
        Mistake(
            lambda m, now: _request_model(m, now, answer_left_out=True),
            "your answer answered the tool calls of a reply it left out: that reply is not "
            "sent, so its calls need no result.",
        ),
        Mistake(
            lambda m, now: _request_model(m, now, only_at_end=True),
            "your answer wrote the missing results only at the end: they go right before the next "
            "assistant or user message.",
        ),
        Mistake(
            lambda m, now: _request_model(m, now, hold_system=False),
            "your answer sent a system message where it stood between a tool call and its results: "
            "it waits until after them (the written ones included).",
        ),
        Mistake(
            lambda m, now: _request_model(
                m, now, shape=lambda w: {k: v for k, v in w.items() if k != "isError"}
            ),
            "your answer wrote a result without isError: True.",
        ),
    ),
    "go through the messages keeping the open reply's tool calls: before the next assistant "
    "or user message (and at the end) write {'role': 'toolResult', 'toolCallId', 'toolName', "
    "'content': [{'type': 'text', 'text': 'No result provided'}], 'isError': True, "
    "'timestamp': now} for each call no result answered; skip replies whose stopReason is "
    "'error' or 'aborted'.",
    {
        "stopReason": "a reply may have no stopReason: use .get('stopReason').",
        "toolCallId": "only tool results have a toolCallId: look at the role first.",
    },
)


def check_request_messages(
    request_messages: Callable[..., object], seed: int | None = None
) -> bool:
    """Check ``request_messages(messages, now) -> list`` (what the request carries)."""
    return _run(REQUEST, request_messages, seed)
