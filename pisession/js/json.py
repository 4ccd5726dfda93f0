"""JSON read and written the way JavaScript's ``JSON.parse`` / ``JSON.stringify`` do.

Pi is a Node program, so "what Pi sees" in a line is what ``JSON.parse`` makes of it,
and "what Pi writes" is ``JSON.stringify``. Python's decoders differ at the edges:
msgspec and orjson reject lone surrogate escapes that Pi writes; Python's ``json``
accepts ``NaN`` literals that JavaScript rejects; Python writes ``5.0`` and ``1e-07``
where JavaScript writes ``5`` and ``1e-7``. This module hides those differences.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Callable
from functools import lru_cache
from typing import Any, cast

import msgspec

_fast_decode = msgspec.json.decode
_format = msgspec.json.format


#: Characters that can steer a terminal or reorder text: C0 controls, DEL, C1 controls,
#: the Arabic letter mark and left/right marks, line and paragraph separators, bidi
#: embeddings, overrides and isolates, the byte-order mark, and lone surrogates.
UNSAFE_CHARS = (
    "\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ufeff\ud800-\udfff"
)
#: ``UNSAFE`` without C0 controls: what can appear raw inside a JSON text's strings.
UNSAFE_IN_JSON = re.compile(f"(?![\x00-\x1f])[{UNSAFE_CHARS}]")

#: ANSI escape sequences (CSI, OSC and two-character escapes).


class LineDecodeError(ValueError):
    """A line that ``JSON.parse`` would reject; the message says why."""


def _reject_constant(name: str) -> None:
    raise LineDecodeError(f"{name} is not valid JSON (JavaScript rejects it)")


def loads(raw: bytes | memoryview) -> object:
    """Decode one line as ``JSON.parse`` would (invalid UTF-8 becomes U+FFFD).

    The fast path is msgspec; lines it refuses (lone surrogate escapes, invalid UTF-8,
    numbers beyond float range) are decoded again by the standard library.

    >>> loads(b'{"text": "\\\\ud83d alone"}')
    {'text': '\\ud83d alone'}
    >>> loads(b'{"n": NaN}')
    Traceback (most recent call last):
    ...
    pisession.js.json.LineDecodeError: NaN is not valid JSON (JavaScript rejects it)
    """
    try:
        return _fast_decode(raw)
    except (msgspec.DecodeError, RecursionError):
        pass
    text = bytes(raw).decode("utf-8", errors="replace")
    try:
        return json.loads(text, parse_constant=_reject_constant, parse_int=js_integer)
    except json.JSONDecodeError as exc:
        raise LineDecodeError(f"malformed JSON: {exc.msg} (column {exc.colno})") from None
    except RecursionError:
        return loads_deep(text)


def js_integer(digits: str) -> int | float:
    """An integer literal as a value: exact while Python converts it quickly, else the
    double JavaScript reads (``Infinity`` beyond 1e308). Python refuses to convert more
    than 4,300 digits to an int; V8 reads any number of digits.

    >>> js_integer("42"), js_integer("1" * 5000)
    (42, inf)
    """
    return int(digits) if len(digits) <= 400 else float(digits)


_WHITESPACE = re.compile(r"[ \t\n\r]*")
#: ``_WHITESPACE.match``, typed as what it is: a match always (``.end()``: where it ends).
_skip = cast("Callable[..., re.Match[str]]", _WHITESPACE.match)
_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?")
_LITERALS = {"true": True, "false": False, "null": None}


def _scalar(text: str, pos: int, fail: Callable[[str], Exception]) -> tuple[object, int]:
    """The string, number or literal at ``pos``, and the position after it."""
    if text[pos : pos + 1] == '"':
        try:
            return json.decoder.scanstring(text, pos + 1, True)  # type: ignore[attr-defined,no-any-return]
        except json.JSONDecodeError as exc:
            raise fail(exc.msg) from None
    if (number := _NUMBER.match(text, pos)) is not None:
        digits = number.group()
        value = float(digits) if number.group(1) or number.group(2) else js_integer(digits)
        return value, number.end()
    word = next((w for w in _LITERALS if text.startswith(w, pos)), None)
    if word is None:
        raise fail("expecting a value")
    return _LITERALS[word], pos + len(word)


def loads_deep(text: str) -> object:
    """``JSON.parse`` without recursion, for lines nested deeper than Python's parsers go
    (V8's ``JSON.parse`` takes 100 000 levels). Strings use ``json``'s C scanner.

    >>> loads_deep('{"a": [[[1, 2.5e0, "x"]]], "b": null}')
    {'a': [[[1, 2.5, 'x']]], 'b': None}
    """
    stack: list[list[Any]] = []  # [container, pending key]
    pos = _skip(text).end()

    def fail(what: str) -> LineDecodeError:
        return LineDecodeError(f"malformed JSON: {what} (column {pos + 1})")

    while True:
        char = text[pos : pos + 1]
        if char == "{" or char == "[":
            container: object = {} if char == "{" else []
            pos = _skip(text, pos + 1).end()
            closer = "}" if char == "{" else "]"
            if text[pos : pos + 1] == closer:
                value, pos = container, pos + 1
            else:
                stack.append([container, None])
                if char == "{":
                    pos = _key(text, pos, stack[-1], fail)
                continue
        else:
            value, pos = _scalar(text, pos, fail)
        # a value is complete: hand it to the containers, closing those that end here
        while True:
            pos = _skip(text, pos).end()
            if not stack:
                if pos != len(text):
                    raise fail("extra data")
                return value
            frame = stack[-1]
            if isinstance(frame[0], dict):
                frame[0][frame[1]] = value
            else:
                frame[0].append(value)
            char = text[pos : pos + 1]
            if char == ",":
                pos = _skip(text, pos + 1).end()
                if isinstance(frame[0], dict):
                    pos = _key(text, pos, frame, fail)
                break
            if char != ("}" if isinstance(frame[0], dict) else "]"):
                raise fail("expecting ',' or a closing bracket")
            value, pos = stack.pop()[0], pos + 1


def _key(text: str, pos: int, frame: list[Any], fail: Callable[[str], Exception]) -> int:
    """Read ``"key" :`` at ``pos`` into ``frame``; return where the value starts."""
    if text[pos : pos + 1] != '"':
        raise fail("expecting a property name in double quotes")
    try:
        frame[1], pos = json.decoder.scanstring(text, pos + 1, True)  # type: ignore[attr-defined]
    except json.JSONDecodeError as exc:
        raise fail(exc.msg) from None
    pos = _skip(text, pos).end()
    if text[pos : pos + 1] != ":":
        raise fail("expecting ':'")
    return _skip(text, pos + 1).end()


# --- writing ---------------------------------------------------------------------------

#: Strings (matched whole, so that digits inside them are left alone; the unrolled form
#: ``"[^"\\]*(?:\\.[^"\\]*)*"`` is several times faster than ``"(?:[^"\\]|\\.)*"``), then the
#: number and constant forms Python writes differently from JavaScript.
_TOKEN = re.compile(
    r'"[^"\\]*(?:\\.[^"\\]*)*"|-?(?:Infinity|NaN)|-?\d+\.\d+(?:e[+-]?\d+)?|-?\d+e[+-]?\d+|-?\d{16,}'
)
_SURROGATE = re.compile("[\ud800-\udfff]")
#: JSON bytes with every digit written as ``0`` (``bytes.translate``), for quick looks in C
#: at number forms, and the look of an integer of 16 digits or more there (JavaScript
#: holds doubles: such integers may print differently).
DIGITS_AS_ZERO = bytes.maketrans(b"123456789", b"000000000")
LONG_INTEGER = b"0" * 16
#: ... looked at more closely: 16 digits that no digit or point comes right before (the
#: digits of a fraction, as in Pi's ``"total":0.0019489999999999998``, are not one)
_LONG_INTEGER = re.compile(rb"(?<![.0])0{16}")
_DOT_ZERO = re.compile(rb"0\.0(?!0)")


def long_integer_in(probe: bytes) -> bool:
    """Whether JSON text with every digit as ``0`` (``DIGITS_AS_ZERO``) may hold an
    integer of 16 digits or more (looked for in strings too).

    >>> [long_integer_in(t.translate(DIGITS_AS_ZERO)) for t in
    ...  [b'{"a":12345678901234567}', b'{"a":0.0019489999999999998}']]
    [True, False]
    """
    return LONG_INTEGER in probe and _LONG_INTEGER.search(probe) is not None


def _maybe_different(probe: bytes) -> bool:
    """Whether compact JSON text written by Python (as UTF-8, every digit as ``0``) may
    hold a number JavaScript writes differently: an integer-valued float (``5.0``), an
    exponent, 16 digits or more, a non-finite constant. (Looked for in strings too.) A
    Python float without any of these prints as JavaScript prints it.

    >>> _maybe_different(b'[0.0000,"x"]'), _maybe_different(b'{"a":00.0}')
    (False, True)
    """
    return (
        b"0e" in probe
        or long_integer_in(probe)
        or b"Infinity" in probe
        or b"NaN" in probe
        or _DOT_ZERO.search(probe) is not None
    )


def js_number(text: str) -> str:
    """Rewrite a Python float literal the way JavaScript prints the same number.

    >>> [js_number(t) for t in ["5.0", "1e-07", "3e-06", "1e+16", "1.5e+21", "0.1"]]
    ['5', '1e-7', '0.000003', '10000000000000000', '1.5e+21', '0.1']
    """
    sign = "-" if text.startswith("-") else ""
    body = text.lstrip("-")
    mantissa, _, exp = body.partition("e")
    whole, _, frac = mantissa.partition(".")
    digits = (whole + frac).lstrip("0")
    # value = 0.digits * 10**n  (n = position of the decimal point in `digits`)
    point = len(whole) + int(exp or 0) - (len(whole + frac) - len((whole + frac).lstrip("0")))
    digits = digits.rstrip("0")
    if not digits:
        return "0"
    k, n = len(digits), point
    if k <= n <= 21:
        out = digits + "0" * (n - k)
    elif 0 < n <= 21:
        out = digits[:n] + "." + digits[n:]
    elif -6 < n <= 0:
        out = "0." + "0" * -n + digits
    else:
        e = n - 1
        out = (
            digits[0]
            + ("." + digits[1:] if k > 1 else "")
            + "e"
            + ("+" if e >= 0 else "-")
            + str(abs(e))
        )
    return sign + out


@lru_cache(maxsize=4096)
def js_float(text: str) -> msgspec.Raw:
    """A JSON number with a fraction or exponent, as ``JSON.stringify`` prints the
    double ``JSON.parse`` makes of it (non-finite numbers print as ``null``): the
    ``float_hook`` of the decoders that read messages to write them again.

    >>> [bytes(js_float(text)) for text in ["1.50", "1e21", "1e400"]]
    [b'1.5', b'1e+21', b'null']
    """
    value = float(text)
    if value != value or value in (float("inf"), float("-inf")):
        return msgspec.Raw(b"null")
    return msgspec.Raw(js_number(repr(value)).encode())


def _fix_token(match: re.Match[str]) -> str:
    token = match.group()
    if token[0] == '"':
        return token
    if token.endswith(("NaN", "Infinity")):
        return "null"
    if token.lstrip("-").isdigit():  # a big integer: JavaScript only has doubles
        number = float(token)  # (no digit limit, unlike int(); beyond 1e308: infinity)
        if number in (_INF, -_INF):
            return "null"
        return js_number(repr(number))
    return js_number(token)


_INF = float("inf")


def dumps(value: object, indent: int | None = None) -> str:
    """Serialise like ``JSON.stringify(value, null, indent)``: keys in JavaScript's order
    (see ``js_keys``), non-finite numbers as ``null``, lone surrogates escaped,
    JavaScript number text; values nested deeper than Python's encoders go are written
    without recursion.

    >>> dumps({"a": 5.0, "b": float("nan"), "c": "\\ud800", "d": "é", "1": 10 ** 400})
    '{"1":null,"a":5,"b":null,"c":"\\\\ud800","d":"é"}'
    >>> dumps([float("-inf")])
    '[null]'
    >>> print(dumps({"a": [1, {}], "b": []}, indent=2))
    {
      "a": [
        1,
        {}
      ],
      "b": []
    }
    """
    text = _compact(value)
    data = text.encode("utf-8", "surrogatepass")
    probe = data.translate(DIGITS_AS_ZERO)  # quick looks first (in C), on every digit as 0
    if b'0":' in probe and _INDEX_KEY.search(text):  # JavaScript writes such a key first
        text = _compact(js_key_order(value))
    if _maybe_different(probe):  # else every number already reads as in JavaScript
        text = _TOKEN.sub(_fix_token, text)
    if b"\xed" in data:  # the lead byte of a surrogate (and of some other characters)
        text = _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)
    if type(indent) is int and indent > 0:
        return indent_json(text, min(indent, 10))  # JSON.stringify caps the indent at 10
    return text


def indent_json(text: str, indent: int = 2) -> str:
    """Compact JSON text laid out as ``JSON.stringify(value, null, indent)`` lays it out.

    Indenting in C (msgspec) is fast; texts it refuses (lone-surrogate escapes, nesting
    deeper than its limit) are laid out token by token, without recursion.

    >>> indent_json('{"a":[1,{}],"b":"x,y"}', 1)
    '{\\n "a": [\\n  1,\\n  {}\\n ],\\n "b": "x,y"\\n}'
    """
    try:
        return _format(text.encode("utf-8"), indent=indent).decode("utf-8")
    except (msgspec.DecodeError, RecursionError):
        pass
    tokens = _JSON_TOKEN.findall(text)
    out: list[str] = []
    depth = 0
    pad = " " * indent
    skip = False
    for i, token in enumerate(tokens):
        if skip:  # the closing bracket of an empty container, already written
            skip = False
            continue
        if token in ("{", "["):
            if i + 1 < len(tokens) and tokens[i + 1] == ("}" if token == "{" else "]"):
                out.append(token + tokens[i + 1])
                skip = True
            else:
                depth += 1
                out.append(token + "\n" + pad * depth)
        elif token in ("}", "]"):
            depth -= 1
            out.append("\n" + pad * depth + token)
        elif token == ",":
            out.append(",\n" + pad * depth)
        elif token == ":":
            out.append(": ")
        else:
            out.append(token)
    return "".join(out)


#: Tokens of a compact JSON text: strings whole, punctuation, and scalars.
_JSON_TOKEN = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[{}\[\],:]|[^{}\[\],:"]+')

#: An array-index key in compact JSON text (always after "{" or ",").
_INDEX_KEY = re.compile(r'[{,]"(?:0|[1-9][0-9]{0,9})":')
_INDEX = re.compile(r"0|[1-9][0-9]{0,9}")


def _is_index(key: object) -> bool:
    return type(key) is str and _INDEX.fullmatch(key) is not None and int(key) < 4294967295


def js_keys(obj: dict[str, object]) -> list[str]:
    """The keys of an object in the order JavaScript enumerates them (``Object.keys``,
    ``JSON.stringify``): array-index keys (``"0"`` to ``"4294967294"``) first, in
    ascending order, then every other key in insertion order.

    >>> js_keys({"b": 1, "2": 1, "a": 1, "10": 1, "01": 1, "1": 1})
    ['1', '2', '10', 'b', 'a', '01']
    """
    indices = [k for k in obj if _is_index(k)]
    if not indices:
        return list(obj)
    indices.sort(key=int)
    return indices + [k for k in obj if not _is_index(k)]


def js_key_order(value: object) -> object:
    """A copy of a JSON value whose objects hold their keys in ``js_keys`` order
    (containers are copied; nothing is modified). Not recursive.

    >>> js_key_order([{"x": {"b": 0, "0": 1}}])
    [{'x': {'0': 1, 'b': 0}}]
    """
    root = [value]
    stack: list[tuple[object, object]] = [(root, 0)]
    while stack:
        parent, key = stack.pop()
        item = parent[key]  # type: ignore[index]
        if isinstance(item, dict):
            copy: object = {k: item[k] for k in js_keys(item)}
            members = copy.items()  # type: ignore[attr-defined]
        elif isinstance(item, list):
            copy = list(item)
            members = enumerate(copy)
        else:
            continue
        parent[key] = copy  # type: ignore[index]
        stack.extend((copy, k) for k, v in members if isinstance(v, (dict, list)))
    return root[0]


#: The deepest nesting (containers, the outermost counted) V8's ``JSON.stringify(value,
#: null, 2)`` writes when Pi 0.87.1 prints a context, as measured in Node 20 on x86-64 with
#: its default stack (``SessionManager.open``, ``buildSessionContext``, then
#: ``JSON.stringify``, from ``node -e``: a message holding arrays 4,116 deep writes, 4,117
#: throws ``RangeError: Maximum call stack size exceeded``). The exact edge moves by a few
#: levels with the caller's stack.
STRINGIFY_DEPTH = 4119

#: What every output path says where Pi's ``JSON.stringify`` throws on a context (the
#: line is named by the error's place).
STRINGIFY_TOO_DEEP = (
    f"a message nested more than {STRINGIFY_DEPTH - 3:,} deep: Pi's JSON.stringify throws "
    "RangeError (Maximum call stack size exceeded) on the context"
)


def _msgspec_stops_within(depth: int) -> bool:
    """Whether msgspec, on this interpreter, refuses to decode and to encode a value
    nested ``depth`` deep. Its limit is Python's recursion limit on CPython 3.11 (1,000 by
    default) but the C stack on newer Pythons, so it is measured here once (not in
    Pyodide, where a value that deep overflows the JavaScript stack and ends the runtime).

    >>> _msgspec_stops_within(10)
    False
    """
    try:
        msgspec.json.decode(b"[" * depth + b"]" * depth)
        return False
    except RecursionError:
        pass
    value: list[object] = []
    for _ in range(depth):
        value = [value]
    try:
        msgspec.json.encode(value)
        return False
    except RecursionError:
        return True


#: msgspec refuses a value nested well before ``JSON.stringify``'s limit: a value it
#: reads or writes needs no count of its depth (``too_deep_to_stringify``, and a file
#: whose every line it read, ``Session.refuse_too_deep``).
MSGSPEC_STOPS_FIRST = sys.platform != "emscripten" and _msgspec_stops_within(STRINGIFY_DEPTH - 16)


def too_deep_to_stringify(values: list[object], above: int = 2) -> int | None:
    """The index of the first of ``values`` that ``JSON.stringify`` cannot write with
    ``above`` containers around it (a context: the object and its ``messages`` array),
    None when every one fits. msgspec tries first where it stops well before that limit
    (``MSGSPEC_STOPS_FIRST``), the exact count runs only then and stops at the limit:
    bounded time and memory, however deep the value.

    >>> deep = "x"
    >>> for _ in range(STRINGIFY_DEPTH): deep = [deep]
    >>> too_deep_to_stringify([{"role": "user"}, deep]), too_deep_to_stringify([[[1]]])
    (1, None)
    """
    if MSGSPEC_STOPS_FIRST:
        try:
            msgspec.json.encode(values)
            return None
        except (RecursionError, TypeError, ValueError, OverflowError, UnicodeEncodeError):
            pass
    for k, value in enumerate(values):
        if nesting_depth(value, STRINGIFY_DEPTH) + above > STRINGIFY_DEPTH:
            return k
    return None


def nesting_depth(value: object, limit: int | None = None) -> int:
    """How deep ``value``'s arrays and objects nest (a scalar: 0), found without
    recursion; stops counting once past ``limit``.

    >>> nesting_depth([1, {"a": [[]]}]), nesting_depth("x"), nesting_depth([[[[]]]], 2)
    (4, 0, 3)
    """
    deepest = 0
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            item = item.values()
        elif not isinstance(item, list):
            continue
        deepest = max(deepest, depth)
        if limit is not None and deepest > limit:
            break
        stack.extend((member, depth + 1) for member in item if isinstance(member, (dict, list)))
    return deepest


def _compact(value: object) -> str:
    try:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    except RecursionError:
        return _dumps_deep(value)


def _dumps_deep(value: object) -> str:
    """Compact JSON text (Python number forms) without recursion, for very deep values.

    >>> _dumps_deep({"a": [[1, "x"]], "b": None})
    '{"a":[[1,"x"]],"b":null}'
    """
    encode_string = json.encoder.encode_basestring
    out: list[str] = []
    # one frame per open container: [members, closing bracket, is an object, first member]
    frames: list[list[Any]] = [[iter((value,)), "", False, True]]
    while frames:
        frame = frames[-1]
        member: Any = next(frame[0], _DONE)
        if member is _DONE:
            out.append(frames.pop()[1])
            continue
        if not frame[3]:
            out.append(",")
        frame[3] = False
        if frame[2]:
            key, member = member
            out.append(encode_string(str(key)) + ":")
        if isinstance(member, dict):
            out.append("{")
            frames.append([iter(member.items()), "}", True, True])
        elif isinstance(member, (list, tuple)):
            out.append("[")
            frames.append([iter(member), "]", False, True])
        else:
            out.append(json.dumps(member, ensure_ascii=False))
    return "".join(out)


_DONE = object()  # what next() gives for a container with no members left


def terminal_safe(json_text: str) -> str:
    """JSON text with the characters that could steer a terminal or reorder its text
    (``pisession.views.text.UNSAFE``: C1 controls, DEL, bidi marks and overrides, U+061C, the
    BOM, ...) written as ``\\uXXXX`` escapes. They can only occur inside strings of a
    JSON text, so the JSON means the same.

    >>> terminal_safe('{"a":"x\u009b31m\u202e\u061c"}')
    '{"a":"x\\\\u009b31m\\\\u202e\\\\u061c"}'
    """
    return UNSAFE_IN_JSON.sub(lambda m: f"\\u{ord(m.group()):04x}", json_text)


def line_bounds(data: bytes, lo: int = 0, hi: int | None = None) -> tuple[list[int], list[int]]:
    """Start and end offsets of every ``\\n``-separated line (a JSONL text split as
    JavaScript's ``split("\\n")`` splits it) of ``data[lo:hi]`` (line
    ``n`` is at index ``n - 1``; offsets index ``data``). A last line without a trailing
    newline counts; an empty tail does not.

    >>> line_bounds(b"a\\n\\nbc")
    ([0, 2, 3], [1, 2, 5])
    """
    hi = len(data) if hi is None else hi
    ends: list[int] = []
    append, find = ends.append, data.find
    end = find(b"\n", lo, hi)
    while end >= 0:
        append(end)
        end = find(b"\n", end + 1, hi)
    starts = [lo, *map((1).__add__, ends)]
    if starts[-1] >= hi:
        starts.pop()
    else:
        ends.append(hi)
    return starts, ends
