"""Tool-call ids rewritten for the target API (pi-ai's ``normalizeToolCallId`` of each
provider API), applied by ``pisession.request`` to the calls of replies from another model.

Each API accepts its own id shape: Anthropic and Bedrock ``[a-zA-Z0-9_-]`` up to 64
characters, OpenAI's Chat Completions at most 40 for ``openai`` itself (an OpenAI
Responses ``call|item`` id is folded into one), Google only for models that require ids,
the OpenAI Responses family a ``call|fc_item`` pair, Mistral 9 letters and digits. Strings
are JavaScript's: lengths and slices count UTF-16 code units, and a character outside the
Basic Multilingual Plane is two of them (two ``_`` where an API replaces it).

>>> normalizer_for(_Model("anthropic", "claude-x", "anthropic-messages"), "0.87.1")("a.b", None, {})
'a_b'
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import NamedTuple

from .js.value import UNDEFINED, field, strict_equal

#: ``normalize(id, model, reply)``: the id a call of ``reply`` gets when sent to ``model``.
Normalizer = Callable[[object, object, object], object]


class _Model(NamedTuple):  # for the examples: any object with provider, id and api
    provider: object
    id: object
    api: object


class IdTypeError(TypeError):
    """The id is not a string where the API's code calls a string method on it."""


# --- JavaScript strings ------------------------------------------------------------------
def utf16_length(text: str) -> int:
    """``text.length``: UTF-16 code units.

    >>> utf16_length("a\\U0001f600")
    3
    """
    return len(text) + sum(1 for c in text if ord(c) > 0xFFFF)


def utf16_slice(text: str, end: int) -> str:
    """``text.slice(0, end)`` (a pair cut in half leaves its lone first half).

    >>> utf16_slice("a\\U0001f600", 2) == "a\\ud83d"
    True
    """
    units = text.encode("utf-16-le", "surrogatepass")[: 2 * end]
    return units.decode("utf-16-le", "surrogatepass")


def _code_units(text: str) -> list[int]:
    units = text.encode("utf-16-le", "surrogatepass")
    return [units[i] | units[i + 1] << 8 for i in range(0, len(units), 2)]


def sanitized(text: object, keep: str = r"a-zA-Z0-9_-", by: str = "_") -> str:
    """``text.replace(/[^keep]/g, by)``: each UTF-16 code unit outside ``keep`` replaced.

    >>> sanitized("a|b\\U0001f600"), sanitized("a-b_c", "a-zA-Z0-9", "")
    ('a_b__', 'abc')
    """
    if not isinstance(text, str):
        raise IdTypeError(f"{_kind(text)}.replace is not a function")
    allowed = re.compile(f"[{keep}]")
    return "".join(c if allowed.fullmatch(c) else by * (2 if ord(c) > 0xFFFF else 1) for c in text)


def _int32(x: int) -> int:
    x &= 0xFFFFFFFF
    return x - (1 << 32) if x & 0x80000000 else x


def _imul(a: int, b: int) -> int:
    return _int32((a & 0xFFFFFFFF) * (b & 0xFFFFFFFF))


def _base36(n: int) -> str:
    digits = "0123456789abcdefghijklmnopqrstuvwxyz"
    out = ""
    while True:
        n, r = divmod(n, 36)
        out = digits[r] + out
        if n == 0:
            return out


def short_hash(text: str) -> str:
    """pi-ai's ``shortHash`` (two 32-bit multiply-xor hashes, in base 36).

    >>> short_hash("call_1|fc_2")
    '18bn75215iyno9'
    """
    h1, h2 = _int32(0xDEADBEEF), _int32(0x41C6CE57)
    for ch in _code_units(text):
        h1 = _imul(h1 ^ ch, 2654435761)
        h2 = _imul(h2 ^ ch, 1597334677)
    h1 = _imul(h1 ^ ((h1 & 0xFFFFFFFF) >> 16), 2246822507) ^ _imul(
        h2 ^ ((h2 & 0xFFFFFFFF) >> 13), 3266489909
    )
    h2 = _imul(h2 ^ ((h2 & 0xFFFFFFFF) >> 16), 2246822507) ^ _imul(
        h1 ^ ((h1 & 0xFFFFFFFF) >> 13), 3266489909
    )
    return _base36(h2 & 0xFFFFFFFF) + _base36(h1 & 0xFFFFFFFF)


def _kind(value: object) -> str:
    return "id" if value is not None else "null"


def _attr(model: object, name: str) -> object:
    """A field of the target model (a ``TargetModel`` or a ``Model`` object as JSON)."""
    return field(model, name) if isinstance(model, dict) else getattr(model, name, UNDEFINED)


# --- the APIs ------------------------------------------------------------------------------
def anthropic_id(call_id: object, model: object = None, reply: object = None) -> object:
    """Anthropic Messages and Bedrock Converse: ``[a-zA-Z0-9_-]``, at most 64.

    >>> anthropic_id("call_1|fc_" + "x" * 80)[-3:], len(anthropic_id("y" * 80))
    ('xxx', 64)
    """
    return sanitized(call_id)[:64]


def completions_id(call_id: object, model: object, reply: object = None) -> object:
    """OpenAI Chat Completions: a Responses ``call|item`` id folded into ``call_item`` (a
    hash when over 40), and for the ``openai`` provider any id cut at 40 code units.

    >>> completions_id("call_1|fc_2", _Model("openai", "gpt", "openai-completions"))
    'call_1_fc_2'
    """
    if isinstance(call_id, list):  # arrays have includes() and slice() too
        if "|" in [x for x in call_id if isinstance(x, str)]:
            raise IdTypeError("id.slice(...).replace is not a function")
        if strict_equal(_attr(model, "provider"), "openai") and len(call_id) > 40:
            return call_id[:40]
        return call_id
    if not isinstance(call_id, str):
        raise IdTypeError("id.includes is not a function")
    if "|" in call_id:
        call, item = call_id.split("|", 1)
        call, item = sanitized(call), sanitized(item)
        combined = f"{call}_{item}" if item else call
        if len(combined) <= 40:
            return combined
        digest = short_hash(call_id)[:8]
        return f"{call[: max(1, 40 - len(digest) - 1)]}_{digest}"
    if strict_equal(_attr(model, "provider"), "openai"):
        return utf16_slice(call_id, 40) if utf16_length(call_id) > 40 else call_id
    return call_id


def google_id(call_id: object, model: object, reply: object = None) -> object:
    """Google: unchanged, unless the model requires ids (``claude-``, ``gpt-oss-``,
    Gemini 3 and later): then as Anthropic's.

    >>> google_id("a.b", _Model("google", "gemini-2.5-pro", "google-generative-ai"))
    'a.b'
    """
    model_id = _attr(model, "id")
    if not isinstance(model_id, str):
        raise IdTypeError("modelId.startsWith is not a function")
    gemini = re.match(r"gemini(?:-live)?-(\d+)", model_id.lower(), re.ASCII)
    if not (model_id.startswith(("claude-", "gpt-oss-")) or (gemini and int(gemini.group(1)) >= 3)):
        return call_id
    return sanitized(call_id)[:64]


#: The providers whose ``call|item`` ids each OpenAI Responses API keeps, per Pi version.
RESPONSES_PROVIDERS: dict[str, dict[str, tuple[str, ...]]] = {
    "openai-responses": {"*": ("openai", "openai-codex", "opencode")},
    "openai-codex-responses": {"*": ("openai", "openai-codex", "opencode")},
    "azure-openai-responses": {
        "0.87.1": ("openai", "openai-codex", "opencode", "azure-openai-responses"),
        "*": ("openai", "openai-codex", "opencode", "azure"),
    },
}


def _id_part(part: object) -> str:
    text = sanitized(part)
    return re.sub(r"_+$", "", text[:64])


def responses_id(providers: tuple[str, ...]) -> Normalizer:
    """The OpenAI Responses family: ``call|fc_item`` for the providers in ``providers``
    (a foreign item id becomes ``fc_`` and a hash), else one sanitised part.

    >>> responses_id(("openai",))("c.1|x", _Model("openai", "o", "openai-responses"),
    ...                           {"provider": "anthropic", "api": "anthropic-messages"})
    'c_1|fc_evpdwv6p0anp'
    """

    def normalize(call_id: object, model: object, reply: object) -> object:
        provider = _attr(model, "provider")
        if provider not in providers or not isinstance(call_id, str) or "|" not in call_id:
            return _id_part(call_id)
        call, item = call_id.split("|")[:2]
        foreign = not strict_equal(field(reply, "provider"), provider) or not strict_equal(
            field(reply, "api"), _attr(model, "api")
        )
        item_id = f"fc_{short_hash(item)}"[:64] if foreign else _id_part(item)
        if not item_id.startswith("fc_"):
            item_id = _id_part(f"fc_{item_id}")
        return f"{_id_part(call)}|{item_id}"

    return normalize


def mistral_ids() -> Normalizer:
    """Mistral: 9 letters and digits, a hash when the id has not exactly 9; one table per
    request keeps two ids from meeting.

    >>> mistral_ids()("call-123456789")
    's8l6jj1lo'
    """
    by_id: dict[str, str] = {}
    owner: dict[str, str] = {}

    def derive(call_id: str, attempt: int) -> str:
        plain = sanitized(call_id, "a-zA-Z0-9", "")
        if attempt == 0 and len(plain) == 9:
            return plain
        seed = plain or call_id
        seed = seed if attempt == 0 else f"{seed}:{attempt}"
        return sanitized(short_hash(seed), "a-zA-Z0-9", "")[:9]

    def normalize(call_id: object, model: object = None, reply: object = None) -> object:
        if not isinstance(call_id, str):
            raise IdTypeError("id.replace is not a function")
        if by_id.get(call_id):
            return by_id[call_id]
        attempt = 0
        while True:
            candidate = derive(call_id, attempt)
            if not owner.get(candidate) or owner[candidate] == call_id:
                by_id[call_id], owner[candidate] = candidate, call_id
                return candidate
            attempt += 1

    return normalize


def normalizer_for(model: object, version: str) -> Normalizer | None:
    """The id rule of the target model's API (a new one per request), or None for an API
    that does not rewrite ids this way.

    >>> normalizer_for(_Model("x", "y", "pi-messages"), "1.6.0") is None
    True
    """
    api = _attr(model, "api")
    if api in ("anthropic-messages", "bedrock-converse-stream"):
        return anthropic_id
    if api == "openai-completions":
        return completions_id
    if api in ("google-generative-ai", "google-vertex"):
        return google_id
    if api == "mistral-conversations":
        return mistral_ids()
    if isinstance(api, str) and api in RESPONSES_PROVIDERS:
        table = RESPONSES_PROVIDERS[api]
        return responses_id(table.get(version, table["*"]))
    return None
