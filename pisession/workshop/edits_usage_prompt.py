"""Exercises of notebook 06: context edits, total tokens, the system prompt replay."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from ..build import Entry, new_entry
from ..system_prompt import replay_system_prompt
from ._checking import DRAWN, Case, Exercise, Mistake, _run
from ._sessions import _drawn_sessions, _msg, _sample_sessions, _session


def _chained(entries: list[Entry]) -> list[Entry]:
    out: list[Entry] = []
    previous = None
    for entry in entries:
        out.append({**entry, "parentId": previous})
        previous = entry["id"]
    return out


def _edited(entries: list[Entry]) -> list[object]:
    return _session(entries, "edits").context().messages


_EDIT_ROLES = ("user", "assistant", "toolResult", "custom", "system", "bashExecution")


def _edit_message(entry_id: str, role: str, minute: int) -> Entry:
    if role == "bashExecution":
        message = {"role": role, "command": "ls", "output": "a", "exitCode": 0, "timestamp": minute}
        return new_entry("message", entry_id, None, minute, message=message)
    if role == "custom":
        return _msg(entry_id, None, role, minute, customType="note", display=True)
    return _msg(entry_id, None, role, minute)


_EDITABLE = ("user", "assistant", "toolResult", "custom")


def _replacement(rng: random.Random, number: int) -> Entry | None:
    return rng.choice(
        (
            None,
            {"content": f"edit {number}"},
            {"content": [{"type": "text", "text": f"blocks {number}"}]},
        )
    )


def _edit_entries(rng: random.Random, telling: bool = False) -> list[Entry]:
    """Messages and context edits of them, an edit mostly after its target, now and then
    before it. A telling file also has a None edit of a system and of a bashExecution
    message, and an edit placed before its target (each the only edit of its target)."""
    roles = [rng.choice(_EDIT_ROLES) for _ in range(rng.randint(2, 6))]
    special = ["system", "bashExecution", rng.choice(_EDITABLE)] if telling else []
    messages = [_edit_message(f"m{i}", role, i) for i, role in enumerate(roles + special)]
    plain_ids = [m["id"] for m in messages[: len(roles)]]
    edits = [
        (rng.choice(plain_ids), _replacement(rng, number), rng.random() < 0.2)
        for number in range(rng.randint(1, 4))
    ]
    if telling:
        system_id, bash_id, early_id = (m["id"] for m in messages[len(roles) :])
        edits += [
            (system_id, None, False),
            (bash_id, None, False),
            (early_id, _replacement(rng, len(edits)), True),
        ]
    entries = list(messages)
    rng.shuffle(entries)
    for number, (target_id, replacement, before) in enumerate(edits):
        target = next(i for i, e in enumerate(entries) if e["id"] == target_id)
        position = rng.randint(0, target) if before else rng.randint(target + 1, len(entries))
        edit = new_entry(
            "context_edit",
            f"e{number}",
            None,
            len(messages) + number,
            targetId=target_id,
            replacement=replacement,
        )
        entries.insert(position, edit)
    return _chained(entries)


def _edits_fixed() -> list[Case]:
    entries = _chained(
        [
            _edit_message("u1", "user", 1),
            _edit_message("a1", "assistant", 2),
            _edit_message("t1", "toolResult", 3),
            _edit_message("s1", "system", 4),
            _edit_message("c1", "custom", 5),
            new_entry(
                "context_edit", "e1", None, 6, targetId="t1", replacement={"content": "short"}
            ),
            new_entry(
                "context_edit", "e2", None, 7, targetId="t1", replacement={"content": "shorter"}
            ),
            new_entry("context_edit", "e3", None, 8, targetId="a1", replacement=None),
            new_entry("context_edit", "e4", None, 9, targetId="u1", replacement={"content": "hi"}),
            new_entry("context_edit", "e5", None, 10, targetId="s1", replacement={"content": "x"}),
            new_entry("context_edit", "e6", None, 11, targetId="c1", replacement={"content": "y"}),
        ]
    )
    name = (
        "tiny file: two edits of one tool result, an omitted answer, string edits of a "
        "user, a system and a custom message"
    )
    return [Case(name, (entries,), _edited(entries))]


def _edits_model(
    entries: list[Entry],
    *,
    first_wins: bool = False,
    never_wrap: bool = False,
    always_wrap: bool = False,
    every_role: bool = False,
    null_empties: bool = False,
    null_editable_only: bool = False,
    after_target_only: bool = False,
) -> list[Entry]:
    edits: dict[object, Entry | None] = {}
    seen: set[object] = set()
    for entry in entries:
        if entry["type"] == "message":
            seen.add(entry["id"])
        target = entry.get("targetId")
        if (
            entry["type"] == "context_edit"
            and not (first_wins and target in edits)
            and not (after_target_only and target not in seen)
        ):
            edits[target] = entry
    out = []
    for entry in entries:
        if entry["type"] != "message":
            continue
        message = dict(entry["message"])
        edit = edits.get(entry["id"])
        if edit is not None:
            replacement = edit["replacement"]
            editable = every_role or message["role"] in _EDITABLE
            if replacement is None and not null_empties and (editable or not null_editable_only):
                continue
            if editable:
                content = replacement["content"] if replacement else []
                wrap = always_wrap or (
                    not never_wrap and message["role"] in ("assistant", "toolResult")
                )
                if isinstance(content, str) and wrap:
                    content = [{"type": "text", "text": content}]
                message["content"] = content
        out.append(message)
    return out


CONTEXT_EDITS = Exercise(
    "context edits",
    _edits_fixed,
    lambda rng: [
        Case("drawn at random", (e,), _edited(e), True)
        for e in (_edit_entries(rng, telling=number == 0) for number in range(DRAWN))
    ],
    (
        Mistake(
            lambda e: _edits_model(e, first_wins=True),
            "a later edit of the same target replaces an earlier one.",
        ),
        Mistake(
            lambda e: _edits_model(e, never_wrap=True),
            "for assistant and toolResult messages a string replacement becomes "
            "[{'type': 'text', 'text': ...}] (those roles require a list of blocks).",
        ),
        Mistake(
            lambda e: _edits_model(e, always_wrap=True),
            "user and custom messages keep a string replacement as a string; only assistant "
            "and toolResult wrap it in a text block.",
        ),
        Mistake(
            lambda e: _edits_model(e, every_role=True),
            "only user, assistant, toolResult and custom messages are edited; a system or "
            "bashExecution message is left as it is.",
        ),
        Mistake(
            lambda e: _edits_model(e, null_editable_only=True),
            "your answer kept a system or bashExecution message whose edit is None. A None "
            "replacement omits the target's message whatever its role; only an edit with "
            "content leaves system and bash messages as they are.",
        ),
        Mistake(
            lambda e: _edits_model(e, null_empties=True),
            "a None replacement removes the target's message entirely.",
        ),
        Mistake(
            lambda e: _edits_model(e, after_target_only=True),
            "your answer applied an edit only to a message that came before it. Pi first "
            "collects the edits of all the selected entries (the last one per target wins), "
            "then builds the messages: an edit placed before its target applies too.",
        ),
    ),
    "collect the edits of all the entries first (a later one for the same target replaces "
    "an earlier one, wherever the target is); a None replacement removes the target's "
    "message, whatever its role; otherwise user, assistant, toolResult and "
    "custom messages take replacement['content'], a string becoming one text block for "
    "assistant and toolResult; other roles are left alone.",
)


def check_context_edits(apply: Callable[..., object], seed: int | None = None) -> bool:
    """Check ``apply(entries) -> [messages]``: the selected entries of a path (message and
    context_edit entries, in order) to the messages Pi builds, edits applied.

    The raw entries stay as they are: build new message dicts.
    """
    return _run(CONTEXT_EDITS, apply, seed)


def _tokens(entries: list[Any]) -> int:  # entries as read: JSON
    return int(_session(entries, "usage").stats().usage.total_tokens)


def _tokens_model(
    entries: list[Entry],
    *,
    only_assistant: bool = False,
    kinds: tuple[str, ...] | None = None,
    summaries: bool = True,
    cache: bool = True,
    reported: bool = False,
) -> int:
    def add(usage: Entry) -> int:
        if reported:
            return int(usage["totalTokens"])
        total = usage["input"] + usage["output"]
        return int(total + (usage["cacheRead"] + usage["cacheWrite"] if cache else 0))

    counted: list[Entry | None] = []
    for entry in entries:
        kind = entry["type"]
        if kind == "message":
            role = entry["message"]["role"]
            if role == "assistant" or (role == "toolResult" and not only_assistant):
                counted.append(entry["message"].get("usage"))
        elif only_assistant:
            continue
        elif kind == "usage":
            counted.append(entry["usage"] if kinds is None or entry["kind"] in kinds else None)
        elif kind in ("compaction", "branch_summary") and summaries:
            counted.append(entry.get("usage"))
    return sum(add(u) for u in counted if u is not None)


_USAGE_KINDS = (
    "user",
    "assistant",
    "assistant",
    "toolResult",
    "usage",
    "usage",
    "compaction",
    "branch_summary",
    "label",
)


def _usages(entries: list[Entry]) -> list[Entry]:
    """The usage dicts a file's entries carry (on messages and on entries)."""
    found = [e.get("usage") for e in entries]
    found += [e["message"].get("usage") for e in entries if e["type"] == "message"]
    return [u for u in found if u]


def _misreported(rng: random.Random, entries: list[Entry]) -> list[Entry]:
    """``entries`` with some usages' ``totalTokens`` not the sum of their parts (a
    provider's own count, here with reasoning tokens), at least one of them."""
    usages = _usages(entries)
    for number, usage in enumerate(usages):
        if number == 0 or rng.random() < 0.3:
            usage["totalTokens"] += rng.randint(1, 400)
    return entries


def _tokens_drawn(rng: random.Random) -> list[Case]:
    return [
        Case("drawn at random", (entries,), _tokens(entries), True)
        for entries in (
            _misreported(rng, entries) for entries, _ in _drawn_sessions(rng, DRAWN, _USAGE_KINDS)
        )
    ]


TOTAL_TOKENS = Exercise(
    "total tokens",
    lambda: [
        Case(name, (s.entries,), _tokens(s.entries)) for name, s in _sample_sessions().items()
    ],
    _tokens_drawn,
    (
        Mistake(
            lambda e: _tokens_model(e, reported=True),
            "your answer added up totalTokens. Pi does not read it: each usage adds input + "
            "output + cacheRead + cacheWrite, and a provider's totalTokens can differ from "
            "that sum.",
        ),
        Mistake(
            lambda e: _tokens_model(e, only_assistant=True),
            "not only assistant messages: usage entries, tool results with usage, "
            "compactions and branch summaries count too.",
        ),
        Mistake(
            lambda e: _tokens_model(e, kinds=("cache_warm",)),
            "every usage entry counts, whatever its kind: unknown kinds are normal usage.",
        ),
        Mistake(
            lambda e: _tokens_model(e, summaries=False),
            "compactions and branch summaries carry the usage of the call that wrote them: add it.",
        ),
        Mistake(
            lambda e: _tokens_model(e, cache=False),
            "a usage's tokens are input + output + cacheRead + cacheWrite.",
        ),
    ),
    "over ALL entries (every branch, compacted history included): usage entries, assistant "
    "messages, tool results with usage, compactions and branch summaries with usage; each "
    "adds input + output + cacheRead + cacheWrite.",
    {
        "usage": "not every entry has a usage (a tool result or a compaction may have none): "
        "use .get('usage')."
    },
)


def check_total_tokens(total: Callable[..., object], seed: int | None = None) -> bool:
    """Check ``total(entries) -> int``: the session's total tokens, as Pi's statistics."""
    return _run(TOTAL_TOKENS, total, seed)


def _prompt(messages: list[Any]) -> dict[str, object]:  # messages: JSON
    prompt = replay_system_prompt(messages)
    return {"text": prompt.text, "tools": list(prompt.tools)}


def _section_deleted_and_set_again(rng: random.Random, out: list[Entry]) -> list[Entry]:
    """``out`` with three system messages among its own: one setting sections 'mode' and
    'memory', a later one deleting 'mode' (None), a later one setting it again (so it now
    comes after 'memory')."""
    patches = ({"mode": "mode v1", "memory": "memory v1"}, {"mode": None}, {"mode": "mode v2"})
    positions = sorted(rng.randint(0, len(out)) for _ in patches)
    for shift, (position, sections) in enumerate(zip(positions, patches)):
        message = {"role": "system", "content": "", "sections": sections, "timestamp": position}
        out.insert(position + shift, message)
    return out


def _system_messages(rng: random.Random, telling: bool = False) -> list[Entry]:
    """Random system (and now and then user) messages; a telling list also deletes a
    section and sets it again."""
    names = ("preamble", "rules", "env", "docs")
    tools = ("read", "bash", "edit", "ls", "write")
    out: list[Entry] = []
    for position in range(rng.randint(2, 6)):
        if rng.random() < 0.25:
            out.append({"role": "user", "content": "hi", "timestamp": position})
            continue
        message: Entry = {"role": "system", "content": rng.choice(("", "", f"Extra {position}."))}
        sections: dict[str, str | None] = {}
        for name in rng.sample(names, rng.randint(0, 3)):
            sections[name] = None if rng.random() < 0.3 else f"{name} v{position}"
        if sections:
            message["sections"] = sections
        if rng.random() < 0.6:
            message["toolsAdded"] = [{"name": t} for t in rng.sample(tools, rng.randint(1, 3))]
        if rng.random() < 0.4:
            message["toolsRemoved"] = [{"name": t} for t in rng.sample(tools, rng.randint(1, 2))]
        message["timestamp"] = position
        out.append(message)
    return _section_deleted_and_set_again(rng, out) if telling else out


def _prompt_model(
    messages: list[Entry],
    *,
    keep_null: bool = False,
    add_first: bool = False,
    no_content: bool = False,
    joiner: str = "\n\n",
) -> dict[str, object]:
    content: list[str] = []
    sections: dict[str, Any] = {}  # a section's text as the message gives it: JSON
    tools: dict[str, Entry] = {}
    for message in messages:
        if message["role"] != "system":
            continue
        if message.get("content") and not no_content:
            content.append(message["content"])
        for name, value in (message.get("sections") or {}).items():
            if value is None and not keep_null:
                sections.pop(name, None)
            else:
                sections[name] = value
        if add_first:
            for tool in message.get("toolsAdded", []):
                tools[tool["name"]] = tool
        for tool in message.get("toolsRemoved", []):
            tools.pop(tool["name"], None)
        if not add_first:
            for tool in message.get("toolsAdded", []):
                tools[tool["name"]] = tool
    parts = [joiner.join(content), *(v for v in sections.values() if v is not None)]
    return {"text": joiner.join(p for p in parts if p), "tools": list(tools)}


SYSTEM_PROMPT = Exercise(
    "system prompt replay",
    lambda: [
        Case(name, (s.context().messages,), _prompt(s.context().messages))
        for name, s in _sample_sessions().items()
    ],
    lambda rng: [
        Case("drawn at random", (m,), _prompt(m), True)
        for m in (_system_messages(rng, telling=number == 0) for number in range(DRAWN))
    ],
    (
        Mistake(
            lambda m: _prompt_model(m, keep_null=True),
            "your answer kept a section set to None in its place. Pi deletes it, so when it "
            "is set again later it goes last, after the sections set meanwhile.",
        ),
        Mistake(
            lambda m: _prompt_model(m, add_first=True),
            "in each system message remove toolsRemoved first, then add toolsAdded.",
        ),
        Mistake(
            lambda m: _prompt_model(m, no_content=True),
            "a system message's non-empty content is part of the prompt, before the sections.",
        ),
        Mistake(
            lambda m: _prompt_model(m, joiner="\n"),
            "the parts are joined with a blank line ('\\n\\n').",
        ),
    ),
    "system messages in order: non-empty content is appended; sections are patched by name "
    "(None deletes); remove toolsRemoved, then add toolsAdded by name. The text is the "
    "content parts joined, then each section value, empty parts dropped, joined with '\\n\\n'.",
    {
        "sections": "sections, toolsAdded and toolsRemoved are optional: use .get().",
        "toolsAdded": "sections, toolsAdded and toolsRemoved are optional: use .get().",
        "toolsRemoved": "sections, toolsAdded and toolsRemoved are optional: use .get().",
    },
)


def check_system_prompt(replay: Callable[..., object], seed: int | None = None) -> bool:
    """Check ``replay(messages) -> {"text": str, "tools": [names]}``: the system prompt in
    force after the context's system messages (sample content is plain strings)."""
    return _run(SYSTEM_PROMPT, replay, seed)
