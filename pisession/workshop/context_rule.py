"""Exercises of notebook 03 (the context rule): settings, a bash execution for the model."""

from __future__ import annotations

import random
from collections.abc import Callable

from ..build import Entry, new_entry
from ..llm import to_llm_message
from ..session import Session
from ._checking import DRAWN, Case, Exercise, Mistake, _run
from ._sessions import (
    _MODELS,
    _WORDS,
    _assistant,
    _chosen_leaves,
    _grown_leaf,
    _msg,
    _random_leaves,
    _sample_sessions,
    _tiny_sessions,
)


def _settings_of(session: Session, leaf_id: object = None) -> dict[str, object]:
    context = session.context(leaf_id)
    return {"thinkingLevel": context.thinking_level, "model": context.model}


#: Small files where a model_change and an assistant message disagree (the first
#: assistant was answered by another model than the one Pi asked for).
_TINY_SETTINGS_FILES = {
    "tiny file, a model_change then an assistant message of another model": (
        "model-then-assistant",
        [
            new_entry("model_change", "m1", None, 1, provider="fake", modelId="chosen"),
            _msg("u1", "m1", "user", 2),
            _assistant("a1", "u1", 3, provider="other", model="asked", response_model="answered"),
        ],
    ),
    "tiny file, an assistant message then a model_change": (
        "assistant-then-model",
        [
            _msg("u1", None, "user", 1),
            _assistant("a1", "u1", 2, provider="other", model="asked"),
            new_entry("model_change", "m1", "a1", 3, provider="fake", modelId="chosen"),
            new_entry("thinking_level_change", "t1", "m1", 4, thinkingLevel="low"),
        ],
    ),
    "tiny file, nothing that sets either": ("none", [_msg("u1", None, "user", 1)]),
}


def _settings_case(name: str, session: Session, leaf_id: object, drawn: bool = False) -> Case:
    return Case(name, (session.path(leaf_id),), _settings_of(session, leaf_id), drawn)


def _settings_fixed() -> list[Case]:
    sessions = {**_sample_sessions(), **_tiny_sessions(_TINY_SETTINGS_FILES)}
    return [
        _settings_case(f"{name}, path to {leaf_id!r}", session, leaf_id)
        for name, session, leaf_id in _chosen_leaves(sessions)
    ]


_SETTINGS_KINDS = (
    "user",
    "assistant",
    "model_change",
    "thinking_level_change",
    "compaction",
    "label",
)


def _answered_by_another(rng: random.Random) -> Callable[[str, str, int], Entry]:
    """An assistant message whose ``responseModel`` differs from its requested ``model``."""
    requested = rng.choice(_MODELS)
    answered = f"{rng.choice(_MODELS)}-2026{rng.randint(1, 12):02d}01"
    return lambda entry_id, parent, minute: _assistant(
        entry_id, parent, minute, model=requested, response_model=answered
    )


def _settings_drawn(rng: random.Random) -> list[Case]:
    """Random paths, the first one ending at an assistant answered by another model."""
    telling = _grown_leaf(rng, _SETTINGS_KINDS, _answered_by_another(rng))
    return [
        _settings_case("drawn at random", session, leaf_id, True)
        for session, leaf_id in [telling, *_random_leaves(rng, _SETTINGS_KINDS, DRAWN - 1)]
    ]


def _settings_model(
    path: list[Entry],
    *,
    assistants: bool = True,
    model_changes: bool = True,
    first_wins: bool = False,
    default: dict[str, object] | None = None,
    response_model: bool = False,
) -> dict[str, object]:
    level: object = "off"
    model = default
    seen_level = seen_model = False
    for entry in path:
        if entry["type"] == "thinking_level_change" and not (first_wins and seen_level):
            level, seen_level = entry["thinkingLevel"], True
        elif entry["type"] == "model_change" and model_changes and not (first_wins and seen_model):
            model, seen_model = {"provider": entry["provider"], "modelId": entry["modelId"]}, True
        elif (
            entry["type"] == "message"
            and entry["message"]["role"] == "assistant"
            and assistants
            and not (first_wins and seen_model)
        ):
            message = entry["message"]
            answered = message.get("responseModel") if response_model else None
            model_id = message["model"] if answered is None else answered
            model, seen_model = {"provider": message["provider"], "modelId": model_id}, True
    return {"thinkingLevel": level, "model": model}


SETTINGS = Exercise(
    "settings",
    _settings_fixed,
    _settings_drawn,
    (
        Mistake(
            lambda p: _settings_model(p, assistants=False),
            "assistant messages set the model too: {'provider': message['provider'], "
            "'modelId': message['model']}, in path order with the model_change entries.",
        ),
        Mistake(
            lambda p: _settings_model(p, model_changes=False),
            "model_change entries set the model too ({'provider', 'modelId'}).",
        ),
        Mistake(
            lambda p: _settings_model(p, first_wins=True),
            "later entries on the path win: keep updating as you go.",
        ),
        Mistake(
            lambda p: _settings_model(p, default={}),
            "before anything sets it the model is None (not {}).",
        ),
        Mistake(
            lambda p: _settings_model(p, response_model=True),
            "your answer took the model from responseModel. An assistant message's 'model' is "
            "the model Pi requested and 'responseModel' the one the provider says answered; "
            "Pi's context reads message['model'] and ignores responseModel.",
        ),
    ),
    "start from thinkingLevel 'off' and model None; go along the path: a "
    "thinking_level_change sets the level, a model_change or an assistant message sets the "
    "model.",
)


def check_settings(settings: Callable[..., object], seed: int | None = None) -> bool:
    """Check ``settings(path) -> {"thinkingLevel": ..., "model": ...}`` for a path."""
    return _run(SETTINGS, settings, seed)


BASH_MESSAGES = (
    ("exit code 0", {"command": "ls", "output": "a.py\nb.py", "exitCode": 0}),
    ("exit code 2", {"command": "make test", "output": "1 failed", "exitCode": 2}),
    ("no output", {"command": "true", "output": "", "exitCode": 0}),
    ("cancelled", {"command": "sleep 60", "output": "", "exitCode": None, "cancelled": True}),
    (
        "cancelled, with an exit code",
        {"command": "npm test", "output": "running", "exitCode": 130, "cancelled": True},
    ),
    ("exit code null", {"command": "kill -9 $$", "output": "x", "exitCode": None}),
    ("exit code false (not 0 for Pi)", {"command": "test -d x", "output": "", "exitCode": False}),
    (
        "truncated, with the full output's path",
        {
            "command": "cat big.log",
            "output": "line 1",
            "exitCode": 0,
            "truncated": True,
            "fullOutputPath": "/tmp/pi-bash-1.log",
        },
    ),
    ("truncated, no path", {"command": "yes", "output": "y", "exitCode": 0, "truncated": True}),
    (
        "excluded from the context (a !! command)",
        {"command": "git status", "output": "clean", "exitCode": 0, "excludeFromContext": True},
    ),
)


def _bash_case(
    name: str, fields: Entry, timestamp: int = 1767225600000, drawn: bool = False
) -> Case:
    message = {"role": "bashExecution", **fields, "timestamp": timestamp}
    return Case(name, (message,), to_llm_message(message), drawn)


def bash_cases() -> list[Case]:
    """The named ``bashExecution`` cases (inputs and Pi's provider messages), as examples."""
    return [_bash_case(name, fields) for name, fields in BASH_MESSAGES]


def _bash_drawn(rng: random.Random) -> list[Case]:
    """Random messages, the first one with ``exitCode: false``, neither cancelled nor
    excluded (Pi prints its code line)."""
    cases = []
    for number in range(DRAWN):
        fields: Entry = {
            "command": f"{rng.choice(_WORDS)} --{rng.choice(_WORDS)}",
            "output": rng.choice(("", "ok", f"{rng.randint(1, 9)} failed\nsee log")),
            "exitCode": rng.choice((0, 0, 1, 2, 127, None, False)),
        }
        for flag in ("cancelled", "truncated", "excludeFromContext"):
            if rng.random() < 0.25:
                fields[flag] = rng.random() < 0.8
        if number == 0:
            fields.update(exitCode=False, cancelled=False, excludeFromContext=False)
        if rng.random() < 0.4:
            fields["fullOutputPath"] = f"/tmp/pi-bash-{rng.randint(1, 99)}.log"
        cases.append(_bash_case("drawn at random", fields, rng.randint(1, 2**41), True))
    return cases


def _js_code(code: object) -> str:
    """An exit code as JavaScript's template string prints it (``false``, not ``False``)."""
    return str(code).lower() if isinstance(code, bool) else str(code)


def _bash_model(
    message: Entry,
    *,
    code_when_cancelled: bool = False,
    always_code: bool = False,
    keep_excluded: bool = False,
    string_content: bool = False,
    fence_empty: bool = False,
    note_without_path: bool = False,
    no_timestamp: bool = False,
    python_zero: bool = False,
) -> Entry | None:
    if message.get("excludeFromContext") and not keep_excluded:
        return None
    text = f"Ran `{message['command']}`\n"
    output = message.get("output")
    text += f"```\n{output}\n```" if output or fence_empty else "(no output)"
    code = message.get("exitCode")
    zero = code == 0 if python_zero else code == 0 and not isinstance(code, bool)
    if message.get("cancelled"):
        text += "\n\n(command cancelled)"
    if (not message.get("cancelled") or code_when_cancelled) and (
        always_code or (code is not None and not zero)
    ):
        text += f"\n\nCommand exited with code {_js_code(code)}"
    if message.get("truncated") and (message.get("fullOutputPath") or note_without_path):
        text += f"\n\n[Output truncated. Full output: {message.get('fullOutputPath')}]"
    out: Entry = {
        "role": "user",
        "content": text if string_content else [{"type": "text", "text": text}],
    }
    if not no_timestamp:
        out["timestamp"] = message["timestamp"]
    return out


BASH = Exercise(
    "bash execution to LLM",
    lambda: bash_cases(),
    _bash_drawn,
    (
        Mistake(
            lambda m: _bash_model(m, keep_excluded=True),
            "a message with excludeFromContext true (a !! command) is dropped: return None.",
        ),
        Mistake(
            lambda m: _bash_model(m, code_when_cancelled=True),
            "a cancelled command ends with '\\n\\n(command cancelled)' and never shows its "
            "exit code (cancelled wins; the code line is the else-branch).",
        ),
        Mistake(
            lambda m: _bash_model(m, python_zero=True),
            "your answer printed no code line for exitCode false. Pi compares with "
            "JavaScript's !== 0, and false is not 0 there: it writes 'Command exited with "
            "code false'. In Python False == 0 is True: check for a bool before comparing with 0.",
        ),
        Mistake(
            lambda m: _bash_model(m, always_code=True),
            "the exit code line appears only for a code that is neither the number 0 nor None.",
        ),
        Mistake(
            lambda m: _bash_model(m, string_content=True),
            "the content is a list with one text block: [{'type': 'text', 'text': ...}], "
            "not a string.",
        ),
        Mistake(
            lambda m: _bash_model(m, fence_empty=True),
            "empty output is written as '(no output)', without a code fence.",
        ),
        Mistake(
            lambda m: _bash_model(m, note_without_path=True),
            "the truncation note needs both truncated and fullOutputPath.",
        ),
        Mistake(
            lambda m: _bash_model(m, no_timestamp=True),
            "keep the message's timestamp on the user message.",
        ),
    ),
    "the text is 'Ran `CMD`\\n' + a ``` fence around the output (or '(no output)'), then "
    "the cancelled note or a code that is not the number 0 (false counts), then the "
    "truncation note.",
    {
        "fullOutputPath": "fullOutputPath may be missing: only write the truncation note "
        "when truncated is true AND fullOutputPath is set (use .get()).",
        "cancelled": "cancelled, truncated and excludeFromContext may be missing (false): "
        "use .get().",
        "truncated": "cancelled, truncated and excludeFromContext may be missing (false): "
        "use .get().",
        "excludeFromContext": "cancelled, truncated and excludeFromContext may be missing "
        "(false): use .get().",
    },
)


def check_bash_to_llm(convert: Callable[..., object], seed: int | None = None) -> bool:
    """Check ``convert(message) -> dict | None`` for ``bashExecution`` messages.

    Pi's ``convertToLlm`` turns one into a user message with one text block (or drops it
    when ``excludeFromContext`` is true); the timestamp is kept.
    """
    return _run(BASH, convert, seed)
