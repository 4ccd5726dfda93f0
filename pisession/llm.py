"""Context messages turned into provider messages (Pi's ``convertToLlm``), in the rule layer.

Summaries, custom and bash-execution messages become user messages with Pi's exact
wording; system, user, assistant and toolResult messages pass through unchanged;
any other role is dropped. (Request-time hooks in Pi may still rewrite the result:
this is Pi's projection of the context, not a captured provider payload.) The layers,
lowest first, are listed in ``tests/test_layers.py`` and docs/maintainers.md.
"""

from __future__ import annotations

from typing import Any

from .js.value import (
    CANNOT_CONVERT,
    UNDEFINED,
    JsObject,
    ToPrimitiveError,
    field,
    js_string,
    nullish,
    strict_equal,
    truthy,
)
from .message_text import TextMode, message_text
from .piversions import pi_name

COMPACTION_SUMMARY_PREFIX = (
    "The conversation history before this point was compacted into the following summary:"
    "\n\n<summary>\n"
)
COMPACTION_SUMMARY_SUFFIX = "\n</summary>"
BRANCH_SUMMARY_PREFIX = (
    "The following is a summary of a branch that this conversation came back from:\n\n<summary>\n"
)
BRANCH_SUMMARY_SUFFIX = "</summary>"

PASS_THROUGH_ROLES = ("system", "user", "assistant", "toolResult")


def bash_execution_text(message: dict[str, Any]) -> str:
    """The user-message text Pi writes for a ``bashExecution`` message.

    >>> print(bash_execution_text({"command": "ls", "output": "a", "exitCode": 2}))
    Ran `ls`
    ```
    a
    ```
    <BLANKLINE>
    Command exited with code 2
    >>> bash_execution_text({"command": "ls", "exitCode": False}).splitlines()[-1]
    'Command exited with code false'
    """
    text = f"Ran `{_text(message, 'command')}`\n"
    output = field(message, "output")
    text += f"```\n{_text(message, 'output')}\n```" if truthy(output) else "(no output)"
    exit_code = field(message, "exitCode")
    if truthy(field(message, "cancelled")):
        text += "\n\n(command cancelled)"
    elif not nullish(exit_code) and not strict_equal(exit_code, 0):  # false !== 0
        text += f"\n\nCommand exited with code {_text(message, 'exitCode')}"
    if truthy(field(message, "truncated")) and truthy(field(message, "fullOutputPath")):
        text += f"\n\n[Output truncated. Full output: {_text(message, 'fullOutputPath')}]"
    return text


def _text(message: object, name: str) -> str:
    """``message[name]`` as Pi's template literal or ``+`` turns it into text
    (``jsvalue.js_string``); where JavaScript throws, the reason names the field.

    >>> _text({"exitCode": [1, None]}, "exitCode"), _text({}, "summary")
    ('1,', 'undefined')
    >>> _text({"role": "branchSummary", "summary": {"toString": 1}}, "summary")
    Traceback (most recent call last):
    ...
    pisession.js.value.ToPrimitiveError: the branchSummary message's summary {"toString":1} \
is not text JavaScript can convert (Pi 0.87.1's convertToLlm throws TypeError: Cannot convert \
object to primitive value)
    """
    value = field(message, name)
    try:
        return js_string(value)
    except ToPrimitiveError:
        from .js.value import quoted

        role = js_string(field(message, "role"))
        raise ToPrimitiveError(
            f"the {role} message's {name} {quoted(value)} is not text JavaScript can convert "
            f"({pi_name()}'s convertToLlm throws TypeError: {CANNOT_CONVERT})"
        ) from None


def _user(content: object, timestamp: object) -> dict[str, object]:
    out: dict[str, object] = {"role": "user", "content": content, "timestamp": timestamp}
    defined = {k: v for k, v in out.items() if v is not UNDEFINED}
    return defined if len(defined) == len(out) else JsObject(defined, tuple(out))


def _blocks(text: str) -> list[object]:
    return [{"type": "text", "text": text}]


def to_llm_message(message: object) -> dict[str, object] | None:
    """One context message as a provider message, or None when Pi drops it
    (``pisession.message_text`` in the ``CONVERTED`` mode).

    >>> to_llm_message({"role": "custom", "content": "note", "timestamp": 1})
    {'role': 'user', 'content': [{'type': 'text', 'text': 'note'}], 'timestamp': 1}
    >>> to_llm_message({"role": "hookMessage"}) is None
    True
    """
    return message_text(message, CONVERTED)


def _summary_user(message: object) -> dict[str, object]:
    summary = _text(message, "summary")
    if field(message, "role") == "branchSummary":
        text = BRANCH_SUMMARY_PREFIX + summary + BRANCH_SUMMARY_SUFFIX
    else:
        text = COMPACTION_SUMMARY_PREFIX + summary + COMPACTION_SUMMARY_SUFFIX
    return _user(_blocks(text), field(message, "timestamp"))


def _bash_user(message: object) -> dict[str, object] | None:
    if truthy(field(message, "excludeFromContext")):
        return None
    return _user(_blocks(bash_execution_text(message)), field(message, "timestamp"))  # type: ignore[arg-type]


def _other(message: object) -> dict[str, object] | None:
    role = field(message, "role")
    if role in PASS_THROUGH_ROLES:
        return message  # type: ignore[return-value]
    if role == "custom":
        content = field(message, "content")
        timestamp = field(message, "timestamp")
        return _user(_blocks(content) if isinstance(content, str) else content, timestamp)
    return None


#: ``convertToLlm`` as a mode of the one switch on a message's role: summaries and bash
#: runs become user messages, system and the other pass-through roles stay, custom
#: messages become user messages, any other role is dropped.
CONVERTED: TextMode[dict[str, object] | None] = TextMode(_summary_user, _bash_user, _other, _other)


def to_llm(messages: list[object]) -> list[object]:
    """Pi's ``convertToLlm``: context messages -> provider messages. Where Pi throws
    (a value JavaScript cannot turn into text), ``ToPrimitiveError`` says which message.

    >>> to_llm([{"role": "custom", "content": "note", "timestamp": 5},
    ...         {"role": "hookMessage", "content": "dropped"}])
    [{'role': 'user', 'content': [{'type': 'text', 'text': 'note'}], 'timestamp': 5}]
    """
    converted = []
    for number, message in enumerate(messages):
        try:
            converted.append(to_llm_message(message))
        except ToPrimitiveError as exc:
            raise ToPrimitiveError(exc.reason, number) from None
    return [m for m in converted if m is not None]
