"""What the request carries (``pisession.request``) against pi-ai's own ``transformMessages``.

``conformance/record-sent.mjs`` ran pi-ai's transform (each checked Pi version, loaded by
file path, with each provider API's own ``normalizeToolCallId``) over the provider messages
of every case of every golden of the corpus, for the model in force at the leaf and five
other target models, and stored what it sent in ``data/request/<version>.json``. Here
pisession's answer for the same input must give the same JSON text, message by message.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

import pisession
from pisession import request
from pisession.js import json as jsjson
from pisession.js.value import UNDEFINED
from pisession.piversions import pi_versions
from pisession.request import TargetModel, TransformError, sent

ROOT = Path(__file__).resolve().parents[1]
VERSIONS = pi_versions()["checked"]


def _sha(value: object) -> str:
    return hashlib.sha256(jsjson.dumps(value).encode("utf-8")).hexdigest()[:16]


def encode(llm: list, out: list) -> str:
    """The golden's text for a sent list (``encode`` in ``conformance/record-sent.mjs``)."""
    texts = [jsjson.dumps(m) for m in llm]
    parts: list = []
    for message in out:
        same = [i for i, m in enumerate(llm) if m is message]  # passed through (indexOf)
        text = jsjson.dumps(message)
        i = same[0] if same else texts.index(text) if text in texts else -1
        last = parts[-1] if parts else None
        if i >= 0 and isinstance(last, list) and last[1] == i - 1:
            last[1] = i
        else:
            parts.append([i, i] if i >= 0 else f"{message['role']}:{_sha(message)}")
    return " ".join(
        (f"{p[0]}" if p[0] == p[1] else f"{p[0]}-{p[1]}") if isinstance(p, list) else p
        for p in parts
    )


def _model(target: dict) -> TargetModel:
    def get(key: str) -> object:  # a field JSON.stringify left out was undefined
        return target.get(key, UNDEFINED)

    return TargetModel(get("provider"), get("id"), get("api"), tuple(target["input"]))


def _cases(version: str):
    recorded = json.loads((ROOT / "data" / "request" / f"{version}.json").read_text())
    assert recorded["pi"] == version
    for golden, cases in recorded["files"].items():
        llm_of = {
            n: c.get("llm") for n, c in enumerate(json.loads((ROOT / golden).read_text())["cases"])
        }
        for case in cases:
            targets = dict(recorded["targets"], same=case["same"])
            for name, result in case["results"].items():
                yield golden, case["case"], llm_of[case["case"]], name, targets[name], result


@pytest.mark.parametrize("version", VERSIONS)
def test_sent_equals_pi_ai(version: str):
    """Every case, every target: the same messages as pi-ai sent, or an error where it threw."""
    recorded = json.loads((ROOT / "data" / "request" / f"{version}.json").read_text())
    checked, failures = 0, []
    for golden, number, llm, name, target, expected in _cases(version):
        where = f"{golden} case {number} target {name}"
        try:
            got = encode(
                llm, sent(llm, _model(target), now=recorded["now"], version=version).messages
            )
        except TransformError as exc:
            if "error" not in expected:
                failures.append(f"{where}: pisession raised {exc}")
            checked += 1
            continue
        if "error" in expected:
            failures.append(f"{where}: pi-ai threw {expected['error']}, pisession sent {got}")
        elif got != expected["sent"]:
            failures.append(f"{where}:\n  pi-ai     {expected['sent']}\n  pisession {got}")
        checked += 1
    assert not failures, f"{len(failures)} of {checked} differ:\n" + "\n".join(failures[:10])
    assert checked > 10_000  # the corpus, not a handful


def test_goldens_cover_the_cases_that_matter():
    """The corpus exercises what the step does: replies left out, results written,
    placeholders, thinking from another model, and the two versions differ on it."""
    text = {v: (ROOT / "data" / "request" / f"{v}.json").read_text() for v in VERSIONS}
    one = json.loads(text[VERSIONS[0]])
    left_out = written = 0
    for _golden, _number, llm, name, target, result in _cases(VERSIONS[0]):
        if name != "same" or "sent" not in result:
            continue
        out = sent(llm, _model(target), now=one["now"], version=VERSIONS[0])
        left_out += bool(out.left_out)
        written += any(isinstance(o, request.WrittenResult) for o in out.origins)
    assert left_out > 50 and written > 20
    assert text[VERSIONS[0]] != text[VERSIONS[-1]]


def test_aborted_reply_left_out_and_its_calls_not_answered():
    """An aborted reply is left out whole: its tool calls get no written result."""
    llm = [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": [{"type": "toolCall", "id": "c", "name": "ls"}],
         "stopReason": "aborted", "provider": "p", "api": "a", "model": "m"},
        {"role": "user", "content": "again"},
    ]  # fmt: skip
    out = sent(llm, TargetModel("p", "m", "a"), now=5)
    assert out.messages == [llm[0], llm[2]] and out.left_out == {1: "an aborted reply"}


def test_unanswered_call_answered_before_the_next_user_message():
    llm = [
        {"role": "assistant", "content": [{"type": "toolCall", "id": "c1", "name": "ls"},
         {"type": "toolCall", "id": "c2", "name": "cat"}], "stopReason": "toolUse"},
        {"role": "toolResult", "toolCallId": "c2", "content": []},
        {"role": "system", "content": "held"},
        {"role": "user", "content": "next"},
    ]  # fmt: skip
    out = sent(llm, TargetModel("p", "m", "a"), now=7)
    roles = [m["role"] for m in out.messages]
    # the system message waits for the call's results: after the written one
    assert roles == ["assistant", "toolResult", "toolResult", "system", "user"]
    written = out.messages[2]
    assert written == {"role": "toolResult", "toolCallId": "c1", "toolName": "ls",
                       "content": [{"type": "text", "text": "No result provided"}],
                       "isError": True, "timestamp": 7}  # fmt: skip
    assert out.origins[2] == request.WrittenResult("c1", "ls", 0)


def test_system_message_between_call_and_result_waits():
    llm = [
        {"role": "assistant", "content": [{"type": "toolCall", "id": "c1", "name": "ls"}]},
        {"role": "system", "content": "held"},
        {"role": "toolResult", "toolCallId": "c1", "content": []},
    ]
    out = sent(llm, TargetModel("p", "m", "a"), now=7)
    assert out.origins == [0, 2, 1]


def test_date_now_is_a_parameter():
    llm = [{"role": "assistant", "content": [{"type": "toolCall", "id": "c", "name": "x"}]}]
    assert sent(llm, TargetModel("p", "m", "a"), now=123).messages[-1]["timestamp"] == 123


def test_target_model_from_catalog_and_reply():
    model = request.target_model("anthropic", "claude-sonnet-4-5", [])
    assert (model.api, model.sees_images) == ("anthropic-messages", True)
    custom = request.target_model("mine", "x", [{"provider": "mine", "model": "x", "api": "y"}])
    assert (custom.api, custom.sees_images) == ("y", True) and "unknown" in custom.source


def test_target_model_api_from_a_reply_on_another_branch():
    """The model in force at the leaf (a model_change) answered only on another branch:
    its API comes from that reply, found in the file."""
    from pisession.build import new_entry, new_message

    reply = new_message("a1", "u1", "assistant", 2)
    reply["message"].update(provider="mine", model="m2", api="custom-api")
    entries = [
        new_message("u1", None, "user", 1),
        reply,
        new_entry("model_change", "mc", "u1", 3, provider="mine", modelId="m2"),
        new_message("u2", "mc", "user", 4),
    ]
    data = b'{"type":"session","version":3,"id":"s"}\n' + b"".join(
        (json.dumps(e) + "\n").encode() for e in entries
    )
    session = pisession.loads(data)
    model = session.sent("u2", now=0).model
    assert (model.provider, model.id, model.api) == ("mine", "m2", "custom-api")
