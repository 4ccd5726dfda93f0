"""What the request carries: the last step before every request to the model.

The context rule (``pisession.rule``) ends with Pi's projection, and ``convertToLlm``
(``pisession.llm``) turns it into provider messages. Pi never sends that list as it is:
every provider API of pi-ai first passes it through ``transformMessages(messages, model,
normalizeToolCallId)`` (``@earendil-works/pi-ai`` ``dist/api/transform-messages.js``), for
the **target model**, the one being asked. In the chapter's words:

1. **images the model cannot see** become a placeholder text (one for a run of images);
2. **replies from another model** (another provider, API or model id) lose what only
   their own model can read: redacted thinking, thinking signatures, text signatures,
   tool-call ``thoughtSignature``\\ s; readable thinking is sent as text (Pi 0.87.1) or
   dropped (Pi 1.6.0); their tool-call ids are rewritten for the target API
   (``pisession.tool_call_ids``) and so are the ids of the results that answer them;
3. **failed and aborted replies** (``stopReason`` ``"error"`` or ``"aborted"``) are left
   out, and **every tool call left without a result** gets one, written by pi-ai:
   ``"No result provided"``, ``isError: true``, before the next assistant or user
   message or at the end; a system message between a call and its results waits until
   after them.

One value cannot be reproduced: the ``timestamp`` of a written result is ``Date.now()``
at the moment of the request. ``now`` gives it (default: this moment, as Pi does).

>>> reply = {"role": "assistant", "content": [{"type": "toolCall", "id": "c1",
...          "name": "ls", "arguments": {}}], "stopReason": "toolUse",
...          "provider": "p", "api": "openai-completions", "model": "m"}
>>> model = TargetModel("p", "m", "openai-completions", ("text",))
>>> [m["role"] for m in sent([reply, {"role": "user", "content": "go on"}], model).messages]
['assistant', 'toolResult', 'user']
"""

from __future__ import annotations

import json
import time
from collections.abc import Hashable, Iterable
from dataclasses import dataclass, field
from functools import cache
from importlib.resources import files
from typing import Any, cast

from .errors import PisessionError
from .js.value import (
    NO_KEY,
    UNDEFINED,
    js_key,
    js_trim,
    nullish,
    spread,
    strict_equal,
    truthy,
)
from .js.value import field as js_field
from .piversions import pi_versions
from .tool_call_ids import Normalizer, normalizer_for

#: The placeholders pi-ai writes for images a text-only model cannot see.
USER_IMAGE_PLACEHOLDER = "(image omitted: model does not support images)"
TOOL_IMAGE_PLACEHOLDER = "(tool image omitted: model does not support images)"
#: The text of the tool result pi-ai writes for a call that has none.
NO_RESULT = "No result provided"
#: The APIs of pi-ai that send the context without this step (``pi-messages`` posts
#: ``{model, context, options}`` as it is, to a gateway that does its own).
UNTRANSFORMED_APIS = ("pi-messages",)
#: The replies pi-ai leaves out: incomplete turns, never replayed.
LEFT_OUT = {"aborted": "an aborted reply", "error": "a failed reply (stopReason error)"}


class TransformError(PisessionError):
    """pi-ai's ``transformMessages`` throws (a value of the wrong type): Pi's request fails.
    ``index`` is the provider message it throws on."""

    def __init__(self, reason: str, index: int | None = None):
        self.reason, self.index = reason, index
        super().__init__(f"pi-ai's transformMessages throws TypeError: {reason}")


# --- the target model ------------------------------------------------------------------
@dataclass(frozen=True)
class TargetModel:
    """The model being asked: its provider, id and API, and its input (``"image"`` in it
    when it sees images). ``source`` says where the API and input were found."""

    provider: object
    id: object
    api: object
    input: tuple[str, ...] = ("text", "image")
    source: str = "given"

    @property
    def sees_images(self) -> bool:
        """``model.input.includes("image")``."""
        return "image" in self.input


@cache
def catalog() -> dict[str, Any]:
    """Pi's model catalog as data (``model_catalog.json``, written by
    ``conformance/record-catalog.mjs``): version -> provider -> API -> input -> ids.

    >>> "anthropic-messages" in catalog()["0.87.1"]["anthropic"]
    True
    """
    text = files(__package__).joinpath("model_catalog.json").read_text("utf-8")
    return cast(dict[str, Any], json.loads(text))


def catalog_entry(provider: object, model_id: object, version: str) -> tuple[str, str] | None:
    """``(api, "image" or "text")`` of a model in Pi ``version``'s catalog, or None.

    >>> catalog_entry("anthropic", "claude-sonnet-4-5", "0.87.1")
    ('anthropic-messages', 'image')
    """
    table = catalog().get(version, {}).get(provider if isinstance(provider, str) else "", {})
    for api, inputs in table.items():
        for seen, ids in inputs.items():
            if model_id in ids:
                return api, seen
    return None


def target_model(
    provider: object, model_id: object, replies: list[object], version: str | None = None
) -> TargetModel:
    """The target model from its provider and id (the model in force at the leaf, or one
    given): its API from the latest of ``replies`` (assistant messages, file order) made
    by it, else from Pi's catalog; its image input from the catalog (a model the catalog
    lacks, a custom one, is taken to see images: give ``TargetModel`` to say otherwise).

    >>> target_model("anthropic", "claude-sonnet-4-5", []).api
    'anthropic-messages'
    """
    version = version or pi_versions()["primary"]
    known = catalog_entry(provider, model_id, version)
    api: object = known[0] if known else UNDEFINED
    source = f"Pi {version}'s model catalog" if known else "not in Pi's catalog"
    for reply in reversed(replies):
        if strict_equal(js_field(reply, "provider"), provider) and strict_equal(
            js_field(reply, "model"), model_id
        ):
            api, source = (
                js_field(reply, "api"),
                "its latest reply" + ("" if known else " (image input unknown: taken as seen)"),
            )
            break
    seen = ("text",) if known and known[1] == "text" else ("text", "image")
    return TargetModel(provider, model_id, api, seen, source)


# --- 1. images the model cannot see ------------------------------------------------------
def without_images(content: object, placeholder: str, index: int) -> list[object]:
    """``content`` with each run of images replaced by one ``placeholder`` text (a run
    continues over a placeholder already there). Iterated as ``for...of`` does: a string
    gives its characters.

    >>> without_images([{"type": "image"}, {"type": "image"}, "x"], "(no image)", 0)
    [{'type': 'text', 'text': '(no image)'}, 'x']
    """
    result: list[object] = []
    previous_was_placeholder = False
    for block in _iterated(content, index):
        kind = _read(block, "type", index)
        if kind == "image":
            if not previous_was_placeholder:
                result.append({"type": "text", "text": placeholder})
            previous_was_placeholder = True
            continue
        result.append(block)
        previous_was_placeholder = strict_equal(js_field(block, "text"), placeholder)
    return result


def images_downgraded(message: object, model: TargetModel, index: int) -> object:
    """A user message's array content, and any tool result's content, without images
    when the target model does not see them; other messages unchanged."""
    if model.sees_images:
        return message
    role = js_field(message, "role")
    if role == "user" and isinstance(js_field(message, "content"), list):
        content = without_images(js_field(message, "content"), USER_IMAGE_PLACEHOLDER, index)
        return {**_object(message), "content": content}
    if role == "toolResult":
        content = without_images(js_field(message, "content"), TOOL_IMAGE_PLACEHOLDER, index)
        return {**_object(message), "content": content}
    return message


# --- 2. replies from another model ---------------------------------------------------------
def same_model(reply: object, model: TargetModel) -> bool:
    """Whether a reply came from the target model: same provider, API and id (``===``).

    >>> same_model({"provider": "p", "api": "a", "model": "m"}, TargetModel("p", "m", "a"))
    True
    """
    return (
        strict_equal(js_field(reply, "provider"), model.provider)
        and strict_equal(js_field(reply, "api"), model.api)
        and strict_equal(js_field(reply, "model"), model.id)
    )


def thinking_sent(block: object, same: bool, foreign_thinking: str, index: int = 0) -> list[object]:
    """What a thinking block becomes: kept for its own model (a redacted or signed one even
    when empty), dropped when empty; from another model, redacted thinking is dropped and
    readable thinking is sent ``"as text"`` (Pi 0.87.1) or ``"dropped"`` (Pi 1.6.0).

    >>> thinking_sent({"type": "thinking", "thinking": "hm"}, False, "as text")
    [{'type': 'text', 'text': 'hm'}]
    """
    thinking = js_field(block, "thinking")
    if foreign_thinking == "dropped":
        if not same:
            return []
        if truthy(js_field(block, "redacted")) or truthy(js_field(block, "thinkingSignature")):
            return [block]
    else:
        if truthy(js_field(block, "redacted")):
            return [block] if same else []
        if same and truthy(js_field(block, "thinkingSignature")):
            return [block]
    if not truthy(thinking) or _trimmed(thinking, index) == "":
        return []
    return [block] if same else [{"type": "text", "text": thinking}]


def reply_sent(
    reply: object,
    model: TargetModel,
    normalize: Normalizer | None,
    ids: dict[Hashable, object],
    rules: dict[str, Any],
) -> object:
    """A reply as sent to ``model``: each block through ``thinking_sent``; from another
    model, text blocks keep only their text (no signature) and tool calls lose their
    ``thoughtSignature`` and get the target API's id (noted in ``ids`` for the results).
    A block that is an array is spread into the content, as ``flatMap`` does."""
    same = same_model(reply, model)
    index = rules["index"]
    content = js_field(reply, "content")
    if not isinstance(content, list):
        raise TransformError("assistantMsg.content.flatMap is not a function", index)
    blocks: list[object] = []
    for block in content:
        kind = _read(block, "type", index)
        if kind == "thinking":
            out = thinking_sent(block, same, rules["thinking"], index)
        elif kind == "text":
            out = [block] if same else [_defined(type="text", text=js_field(block, "text"))]
        elif kind == "toolCall":
            out = [_call_sent(block, same, model, reply, normalize, ids, index)]
        else:
            out = block if isinstance(block, list) else [block]  # flatMap spreads an array
        blocks.extend(out)
    return {**_object(reply), "content": blocks}


def _call_sent(
    call: object,
    same: bool,
    model: TargetModel,
    reply: object,
    normalize: Normalizer | None,
    ids: dict[Hashable, object],
    index: int,
) -> object:
    """A tool call as sent: from another model without ``thoughtSignature`` and with the
    target API's id (``ids`` notes the new id under the old, as a ``Map`` keys it)."""
    if same:
        return call
    sent_call = call
    if truthy(js_field(call, "thoughtSignature")):
        sent_call = {k: v for k, v in _object(call).items() if k != "thoughtSignature"}
    if normalize is not None:
        call_id = js_field(call, "id")
        new_id = normalize(call_id, model, reply)
        if not strict_equal(new_id, call_id):
            if js_key(call_id) is not NO_KEY:  # an object key no later lookup finds
                ids[js_key(call_id)] = new_id
            sent_call = {**_object(sent_call), "id": new_id}
    return sent_call


def result_sent(result: object, ids: dict[Hashable, object]) -> object:
    """A tool result answering a renamed call takes the call's new id (when truthy).

    >>> result_sent({"role": "toolResult", "toolCallId": "a|b"}, {"a|b": "a_b"})
    {'role': 'toolResult', 'toolCallId': 'a_b'}
    """
    new_id = ids.get(js_key(js_field(result, "toolCallId")), UNDEFINED)
    if truthy(new_id) and not strict_equal(new_id, js_field(result, "toolCallId")):
        return {**_object(result), "toolCallId": new_id}
    return result


# --- 3. failed replies left out, unanswered calls answered --------------------------------
@dataclass(frozen=True)
class WrittenResult:
    """A tool result pi-ai writes for a call that has none; ``reply`` is the provider
    message (index) whose call it answers."""

    call_id: object
    tool_name: object
    reply: int


@dataclass
class Sent:
    """What the request carries: ``messages`` as sent, and for each where it came from
    (``origins``: a provider message's index, or a ``WrittenResult``); ``left_out`` maps
    the index of each reply pi-ai leaves out to the reason (``LEFT_OUT``); ``sources``
    (filled by ``Context.sent``) each provider message's entry."""

    messages: list[object]
    origins: list[int | WrittenResult]
    left_out: dict[int, str] = field(default_factory=dict)
    model: TargetModel | None = None
    #: for each provider message, the position of the entry it came from (when known)
    sources: list[int] = field(default_factory=list)


def sent(
    messages: list[object],
    model: TargetModel,
    now: int | None = None,
    version: str | None = None,
    normalize: Normalizer | str | None = "api",
) -> Sent:
    """pi-ai's ``transformMessages`` of provider messages (``pisession.llm.to_llm``) for
    ``model``, as Pi ``version`` does it (default: the primary one); ``now``: the
    ``Date.now()`` of written results (default: this moment); ``normalize``: the tool-call
    id rule (``"api"``: the one of the target's API, ``pisession.tool_call_ids``). An API
    of ``UNTRANSFORMED_APIS`` sends the messages as they are.

    >>> aborted = {"role": "assistant", "content": [], "stopReason": "aborted"}
    >>> done = sent([{"role": "user", "content": "hi"}, aborted], TargetModel("p", "m", "a"))
    >>> done.origins, done.left_out
    ([0], {1: 'an aborted reply'})
    """
    if model.api in UNTRANSFORMED_APIS:  # the context is posted as it is
        return Sent(list(messages), list(range(len(messages))), {}, model)
    transformed = rewritten(messages, model, version, normalize)
    return completed(transformed, now, model)


def rewritten(
    messages: list[object],
    model: TargetModel,
    version: str | None = None,
    normalize: Normalizer | str | None = "api",
) -> list[object]:
    """pi-ai's first pass, message by message: a missing content made ``[]``, images the
    model cannot see replaced, replies from another model rewritten (``reply_sent``) and
    the results of their calls given the calls' new ids (``result_sent``).

    >>> rewritten([{"role": "user"}], TargetModel("p", "m", "a"))
    [{'role': 'user', 'content': []}]
    """
    version = version or pi_versions()["primary"]
    rules = {"thinking": catalog()["foreignThinking"][version], "index": 0}
    if normalize == "api":
        normalize = normalizer_for(model, version)
    ids: dict[Hashable, object] = {}
    transformed: list[object] = []
    for index, message in enumerate(messages):
        rules["index"] = index
        if nullish(js_field(message, "content")):
            message = spread(message, "content", [])  # an undefined key keeps its place
        message = images_downgraded(message, model, index)
        role = js_field(message, "role")
        if role == "toolResult":
            message = result_sent(message, ids)
        elif role == "assistant":
            message = reply_sent(message, model, normalize, ids, rules)  # type: ignore[arg-type]
        transformed.append(message)
    return transformed


#: A reply's tool calls as (id, name) pairs, or why reading them throws.
Calls = tuple[tuple[object, object], ...] | str

#: What pi-ai's second pass reads of one provider message (a ``Turn``): its role; for a
#: reply its ``stopReason``, its tool calls as (id, name) pairs (or, a text: why reading
#: them throws) and its ``api`` (not read by the pass: callers ask which API the latest
#: reply came through); for a tool result the ``js_key`` of its ``toolCallId``.
Turn = tuple[object, object, Calls, Hashable, object]

#: The turn of a message whose role is neither ``assistant`` nor ``toolResult``, by role.
_PLAIN_TURNS: dict[str, Turn] = {
    role: (role, UNDEFINED, (), NO_KEY, UNDEFINED) for role in ("user", "system")
}


def turn_of(message: object) -> Turn:
    """The ``Turn`` of a provider message (what the second pass reads of it).

    >>> turn_of({"role": "assistant", "content": [{"type": "text"},
    ...          {"type": "toolCall", "id": "c1", "name": "ls"}], "stopReason": "toolUse"})
    ('assistant', 'toolUse', (('c1', 'ls'),), NO_KEY, undefined)
    >>> turn_of({"role": "assistant", "content": [None]})[2]
    "Cannot read properties of null (reading 'type')"
    """
    role = js_field(message, "role")
    if role == "assistant":
        stop, api = js_field(message, "stopReason"), js_field(message, "api")
        return (role, stop, _calls(js_field(message, "content")), NO_KEY, api)
    if role == "toolResult":
        return (role, UNDEFINED, (), js_key(js_field(message, "toolCallId")), UNDEFINED)
    if type(role) is str and role in _PLAIN_TURNS:
        return _PLAIN_TURNS[role]
    return (role, UNDEFINED, (), NO_KEY, UNDEFINED)


def _calls(content: object) -> Calls:
    """A reply's tool calls as (id, name), as ``content.filter(b => b.type === "toolCall")``
    reads them, or why that throws: a content neither missing (``[]`` after the first
    pass) nor an array, or a null block."""
    if nullish(content):
        return ()
    if not isinstance(content, list):
        return "assistantMsg.content.filter is not a function"
    calls = []
    for block in content:
        if nullish(block):
            where = "null" if block is None else "undefined"
            return f"Cannot read properties of {where} (reading 'type')"
        if js_field(block, "type") == "toolCall":
            calls.append((js_field(block, "id"), js_field(block, "name")))
    return tuple(calls)


def second_pass(
    turns: Iterable[Turn | int],
) -> tuple[list[int | WrittenResult], dict[int, str]]:
    """pi-ai's second pass over the ``Turn``s of the messages: where each message sent
    comes from (``Sent.origins``) and the replies left out (``Sent.left_out``). The one
    place the rule lives: ``completed`` runs it over whole messages, the fates over
    turns read straight from the file's lines.

    An int ``n`` among the turns stands for ``n`` *plain* turns in a row: user messages
    and replies that are neither left out nor call a tool (the fates read a block of lines
    this way when its lines prove it, ``schemas.PLAIN_TURN_LINES``). Each is sent as it
    is, and the first closes the open calls, as its own turn would.

    >>> second_pass([("assistant", "toolUse", (("c", "ls"),), NO_KEY, "a"),
    ...              ("assistant", "aborted", (), NO_KEY, "a")])
    ([0, WrittenResult(call_id='c', tool_name='ls', reply=0)], {1: 'an aborted reply'})
    >>> second_pass([("assistant", "toolUse", (("c", "ls"),), NO_KEY, "a"), 2])
    ([0, WrittenResult(call_id='c', tool_name='ls', reply=0), 1, 2], {})
    """
    origins: list[int | WrittenResult] = []
    left_out: dict[int, str] = {}
    pending: tuple[tuple[object, object], ...] = ()  # the open reply's tool calls
    reply = 0  # ... and its index
    answered: set[Hashable] = set()
    held: list[int] = []  # system messages waiting for the open calls' results
    append = origins.append
    index = -1  # the index of the last turn read
    for turn in turns:
        if isinstance(turn, int):  # a run of plain turns
            if turn > 0:
                if pending:
                    pending = _closed(origins, pending, answered, reply, held)
                origins.extend(range(index + 1, index + 1 + turn))
                index += turn
            continue
        index += 1
        role, stop, calls, answers, _ = turn
        if role == "assistant":
            if pending:
                pending = _closed(origins, pending, answered, reply, held)
            if type(stop) is str and stop in LEFT_OUT:
                left_out[index] = LEFT_OUT[stop]
                continue
            if isinstance(calls, str):
                raise TransformError(calls, index)
            if calls:
                pending, reply, answered = calls, index, set()
        elif role == "toolResult":
            if answers is not NO_KEY:
                answered.add(answers)
        elif role == "system" and pending:
            held.append(index)
            continue
        elif role == "user" and pending:
            pending = _closed(origins, pending, answered, reply, held)
        append(index)
    _closed(origins, pending, answered, reply, held)
    return origins, left_out


def _closed(
    origins: list[int | WrittenResult],
    pending: tuple[tuple[object, object], ...],
    answered: set[Hashable],
    reply: int,
    held: list[int],
) -> tuple[()]:
    """Close the open reply (index ``reply``) in ``second_pass``: a result written for
    each of its ``pending`` calls not ``answered``, then the system messages ``held``
    until then. Returns the calls left open: none."""
    for call_id, name in pending:
        if js_key(call_id) not in answered:
            origins.append(WrittenResult(call_id, name, reply))
    origins.extend(held)
    held.clear()
    return ()


def completed(
    transformed: list[object], now: int | None = None, model: TargetModel | None = None
) -> Sent:
    """pi-ai's second pass: failed and aborted replies left out; before the next assistant
    or user message (and at the end) a written result for each call of the last reply
    sent that no result answered; a system message among open calls held until after
    their results. ``now``: the ``Date.now()`` of written results (default: this moment).
    The rule itself is ``second_pass``, over each message's ``turn_of``.

    >>> done = completed([{"role": "assistant", "content": [{"type": "toolCall", "id": "c"}]}], 7)
    >>> [m["role"] for m in done.messages], done.origins[1]
    (['assistant', 'toolResult'], WrittenResult(call_id='c', tool_name=undefined, reply=0))
    """
    now = int(time.time() * 1000) if now is None else now
    origins, left_out = second_pass(map(turn_of, transformed))
    messages = [
        transformed[origin] if isinstance(origin, int) else _written(origin, now)
        for origin in origins
    ]
    return Sent(messages, origins, left_out, model)


def _written(origin: WrittenResult, now: int) -> dict[str, object]:
    """The tool result pi-ai writes for a call that has none."""
    return _defined(
        role="toolResult",
        toolCallId=origin.call_id,
        toolName=origin.tool_name,
        content=[{"type": "text", "text": NO_RESULT}],
        isError=True,
        timestamp=now,
    )


# --- JavaScript's values -------------------------------------------------------------------
def _read(value: object, name: str, index: int) -> object:
    """``value.name``, where reading a property of null or undefined throws."""
    if nullish(value):
        where = "null" if value is None else "undefined"
        raise TransformError(f"Cannot read properties of {where} (reading '{name}')", index)
    return js_field(value, name)


def _iterated(content: object, index: int) -> list[object]:
    """What ``for...of`` visits: an array's items, a string's characters; else it throws."""
    if isinstance(content, list):
        return list(content)
    if isinstance(content, str):
        return list(content)
    raise TransformError("content is not iterable", index)


def _trimmed(value: object, index: int) -> str:
    if not isinstance(value, str):
        raise TransformError("block.thinking.trim is not a function", index)
    return js_trim(value)


def _object(message: object) -> dict[str, object]:
    return cast(dict[str, object], message) if isinstance(message, dict) else {}


def _defined(**fields: object) -> dict[str, object]:
    """An object as JavaScript writes it to JSON: undefined fields left out."""
    return {key: value for key, value in fields.items() if value is not UNDEFINED}
