"""What pisession says the model received, against the requests Pi's real CLI sent.

``conformance/realcli`` (the real-Pi-CLI recorder) runs Pi's CLI, 0.87.1 and 1.6.0,
against a fake OpenAI-compatible provider and keeps every request body it received
(``data/realcli/<version>/<scenario>.requests.jsonl``, in order) beside the session files
Pi wrote (``<scenario>/sessions/**.jsonl``). For every request that produced a reply,
pisession's answer at the leaf the request was made from (the reply's parent),
``Session.sent`` for the model the reply names, must carry the same messages, once both
are put in the provider's shape: the request's ``messages`` as ``openai-completions``
formats them (roles ``user``/``assistant``/``tool``, texts joined, tool calls with their
arguments as JSON) and pisession's messages formatted the same way here (``formatted``,
following ``convertMessages`` of pi-ai's ``dist/api/openai-completions.js``). System and
developer messages are left out on both sides (the system prompt is checked elsewhere).

Requests that produce no reply are matched to what the file says instead: Pi's
summarization requests (compaction, branch summary: the fake provider's
``context summarization assistant`` prompt) are set aside, and a cache-warming request
is matched to the ``usage`` entry of kind ``cache_warm`` Pi writes for it.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import pisession
from pisession.js import json as jsjson
from pisession.js.value import UNDEFINED, js_trim
from pisession.request import TargetModel

ROOT = Path(__file__).resolve().parents[1]
REALCLI = ROOT / "data" / "realcli"
SUMMARY_MARK = "context summarization assistant"  # the fake provider's test for one

#: The models of the recorder's ``models.json`` (``conformance/realcli/recorder.py``,
#: ``models_json``): which see images. Pi's catalog does not know them.
RECORDER_MODELS = {
    ("fake", "fake-coder"): ("text", "image"),
    ("fake", "fake-text"): ("text",),
    ("other", "other-thinker"): ("text", "image"),
}


def _scenarios() -> list[tuple[str, str]]:
    if not REALCLI.is_dir():
        return []
    return [
        (folder.name, path.name.removesuffix(".requests.jsonl"))
        for folder in sorted(p for p in REALCLI.iterdir() if p.is_dir())
        for path in sorted(folder.glob("*.requests.jsonl"))
    ]


SCENARIOS = _scenarios()


# --- the provider's shape ---------------------------------------------------------------
def _texts(content: object) -> str:
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    return "".join(
        p.get("text", "") if p.get("type") == "text" else "[image]"
        for p in content
        if isinstance(p, dict)
    )


def request_shape(messages: list) -> list[tuple]:
    """A request's messages, system and developer ones left out."""
    out: list[tuple] = []
    for m in messages:
        role = m.get("role")
        if role == "user":
            out.append(("user", _texts(m.get("content"))))
        elif role == "assistant":
            calls = tuple(
                (c.get("id"), c["function"]["name"], c["function"]["arguments"])
                for c in m.get("tool_calls") or []
            )
            out.append(("assistant", _texts(m.get("content") or ""), calls))
        elif role == "tool":
            out.append(("tool", m.get("tool_call_id"), m.get("content")))
    return out


def formatted(messages: list, model: TargetModel) -> list[tuple]:
    """pisession's sent messages as ``openai-completions`` formats them, in
    ``request_shape``'s terms (``convertMessages``: empty texts dropped, an assistant
    message with no text and no tool call skipped, a tool result's texts joined with
    newlines, images of tool results sent after them in a user message)."""
    out: list[tuple] = []
    images: list[str] = []
    for m in messages:
        role = m.get("role")
        if role != "toolResult" and images:
            out.append(("user", "Attached image(s) from tool result:" + "".join(images)))
            images = []
        if role == "user":
            content = m.get("content")
            if isinstance(content, list):
                kept = [p for p in content if p.get("type") != "text" or p.get("text")]
                if not kept:
                    continue
                content = kept
            out.append(("user", _texts(content)))
        elif role == "assistant":
            blocks = m.get("content") or []
            text = "".join(
                b["text"] for b in blocks if b.get("type") == "text" and js_trim(b["text"])
            )
            calls = tuple(
                (b.get("id"), b.get("name"), jsjson.dumps(b.get("arguments", UNDEFINED)))
                for b in blocks
                if b.get("type") == "toolCall"
            )
            if text or calls:
                out.append(("assistant", text, calls))
        elif role == "toolResult":
            blocks = m.get("content") or []
            text = "\n".join(b["text"] for b in blocks if b.get("type") == "text")
            has_images = any(b.get("type") == "image" for b in blocks)
            placeholder = "(see attached image)" if has_images else "(no tool output)"
            out.append(("tool", m.get("toolCallId"), text or placeholder))
            if has_images and model.sees_images:
                images += ["[image]" for b in blocks if b.get("type") == "image"]
    if images:
        out.append(("user", "Attached image(s) from tool result:" + "".join(images)))
    return out


# --- requests and the entries they made ---------------------------------------------------
def _requests(version: str, scenario: str) -> list[dict]:
    lines = (REALCLI / version / f"{scenario}.requests.jsonl").read_text("utf-8").splitlines()
    bodies = [json.loads(line)["body"] for line in lines if line.strip()]
    return [b for b in bodies if SUMMARY_MARK not in json.dumps(b.get("messages", [])[:1])]


def _events(version: str, scenario: str) -> list[tuple]:
    """Every reply and cache-warming ``usage`` entry of the scenario's files, once each
    (a fork copies entries), in time order: (timestamp, kind, session, entry)."""
    seen: dict = {}
    files = sorted((REALCLI / version / scenario / "sessions").rglob("*.jsonl"))
    for number, path in enumerate(files):
        session = pisession.load(path)
        for position, entry in enumerate(session.entries):
            kind = entry.get("type")
            reply = kind == "message" and entry["message"].get("role") == "assistant"
            warm = kind == "usage" and entry.get("kind") == "cache_warm"
            if (reply or warm) and entry["id"] not in seen:
                order = (entry["timestamp"], number, position)
                seen[entry["id"]] = (order, "reply" if reply else "warm", session, entry)
    return [event for _, *event in sorted(seen.values(), key=lambda e: e[0])]


@pytest.mark.skipif(
    not SCENARIOS,
    reason="data/realcli holds no recordings (conformance/realcli/run.py records them)",
)
@pytest.mark.parametrize(("version", "scenario"), SCENARIOS, ids=lambda x: str(x))
def test_every_request_equals_what_pisession_says_was_sent(version: str, scenario: str):
    requests, events = _requests(version, scenario), _events(version, scenario)
    assert len(requests) == len(events), (len(requests), [e[0] for e in events])
    compared = 0
    for number, (body, (kind, session, entry)) in enumerate(zip(requests, events)):
        if kind == "warm":
            continue  # a cache-warming request: no reply to place it
        reply = entry["message"]
        provider, model_id = reply.get("provider"), reply.get("model")
        model = TargetModel(
            provider, model_id, reply.get("api"), RECORDER_MODELS[(provider, model_id)]
        )
        assert body["model"] == model_id, number
        done = session.sent(entry["parentId"], model, now=0, version=version)
        expected = request_shape(body["messages"])
        got = formatted(done.messages, model)
        assert got == expected, f"request {number + 1} (reply {entry['id']})"
        compared += 1
    assert compared >= 1


def test_the_recordings_hold_what_the_step_does():
    """Among the recorded requests: some made after a reply pi-ai leaves out (aborted,
    failed), and one after a tool call without a result (``tool-without-result``: Pi is
    killed while the tool runs, then the session is continued), which carries the result
    pi-ai wrote for it."""
    if not SCENARIOS:
        pytest.skip("data/realcli holds no recordings")
    left_out = written = 0
    for version, scenario in SCENARIOS:
        for kind, session, entry in _events(version, scenario):
            if kind == "reply":
                done = session.sent(entry["parentId"], TargetModel("fake", "x", "a"), now=0)
                left_out += bool(done.left_out)
                written += any(not isinstance(o, int) for o in done.origins)
    assert left_out >= 2 and written >= 2
