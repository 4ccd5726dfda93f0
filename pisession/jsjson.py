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

import msgspec

_fast_decode = msgspec.json.decode
_format = msgspec.json.format


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
    pisession.jsjson.LineDecodeError: NaN is not valid JSON (JavaScript rejects it)
    """
    try:
        return _fast_decode(raw)
    except msgspec.DecodeError:
        pass
    text = bytes(raw).decode("utf-8", errors="replace")
    try:
        return json.loads(text, parse_constant=_reject_constant)
    except json.JSONDecodeError as exc:
        raise LineDecodeError(f"malformed JSON: {exc.msg} at column {exc.colno}") from None
    except RecursionError:
        raise LineDecodeError("JSON nested too deeply for Python's parser") from None


# --- writing ---------------------------------------------------------------------------

#: Strings (matched whole, so that digits inside them are left alone; the unrolled form
#: ``"[^"\\]*(?:\\.[^"\\]*)*"`` is several times faster than ``"(?:[^"\\]|\\.)*"``), then the
#: number and constant forms Python writes differently from JavaScript.
_TOKEN = re.compile(
    r'"[^"\\]*(?:\\.[^"\\]*)*"|-?(?:Infinity|NaN)|-?\d+\.\d+(?:e[+-]?\d+)?|-?\d+e[+-]?\d+|-?\d{16,}'
)
_SURROGATE = re.compile("[\ud800-\udfff]")


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


def _fix_token(match: re.Match) -> str:
    token = match.group()
    if token[0] == '"':
        return token
    if token.endswith(("NaN", "Infinity")):
        return "null"
    if token.lstrip("-").isdigit():  # a big integer: JavaScript only has doubles
        return js_number(repr(float(int(token))))
    return js_number(token)


def dumps(value: object, indent: int | None = None) -> str:
    """Serialise like ``JSON.stringify(value, null, indent)``: key order kept,
    non-finite numbers as ``null``, lone surrogates escaped, JavaScript number text.

    >>> dumps({"a": 5.0, "b": float("nan"), "c": "\\ud800", "d": "é"})
    '{"a":5,"b":null,"c":"\\\\ud800","d":"é"}'
    """
    if type(indent) is int and indent > 0:
        # Indenting in C (msgspec) is several times faster than json's Python encoder
        # and gives the same text; msgspec refuses the lone-surrogate escapes JavaScript
        # writes, so those texts take the slow path.
        try:
            return _format(dumps(value).encode("utf-8"), indent=indent).decode("utf-8")
        except msgspec.DecodeError:
            pass
    separators = (",", ":") if indent is None else (",", ": ")
    text = json.dumps(value, ensure_ascii=False, indent=indent, separators=separators)
    text = _TOKEN.sub(_fix_token, text)
    return _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)
