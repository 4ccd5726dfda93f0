"""JavaScript value semantics that Pi's session code relies on.

Pi reads entries without validating them, so a hand-edited file exercises JavaScript's
rules for property access on non-objects, truthiness, ``===`` and string conversion.
These helpers reproduce the ones the context rules touch.
"""

from __future__ import annotations

import re
from collections.abc import Hashable, Iterable

from ..errors import PisessionError


class _Undefined:
    """JavaScript's ``undefined``: a field that is absent (JSON output omits it)."""

    _instance: _Undefined | None = None

    def __new__(cls) -> _Undefined:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "undefined"

    def __bool__(self) -> bool:
        return False


UNDEFINED = _Undefined()


class JsArray(list[object]):
    """A JSON array that was given named properties, as JavaScript allows
    (``array.id = "x"``): Pi's v1 migration does that to an array line. The properties
    are read by ``field``; JSON output omits them, as ``JSON.stringify`` does.

    >>> a = JsArray([1, 2], id="m1"); field(a, "id"), a
    ('m1', [1, 2])
    """

    def __init__(self, items: Iterable[object] = (), **properties: object) -> None:
        super().__init__(items)
        self.properties = properties


class JsObject(dict[str, object]):
    """An object JavaScript built with keys whose value is ``undefined``: they are left
    out here, as ``JSON.stringify`` leaves them out, but ``order`` keeps every key in its
    place, so that one set again (``{...object, key: value}``, ``spread``) goes back there.

    >>> o = JsObject({"role": "user", "timestamp": 5}, ("role", "content", "timestamp"))
    >>> o, spread(o, "content", [])
    ({'role': 'user', 'timestamp': 5}, {'role': 'user', 'content': [], 'timestamp': 5})
    """

    def __init__(self, items: dict[str, object], order: tuple[str, ...]) -> None:
        super().__init__(items)
        self.order = order

    def __reduce__(self) -> tuple[type, tuple[dict[str, object], tuple[str, ...]]]:
        return (JsObject, (dict(self), self.order))  # copies and pickles keep ``order``


def spread(value: object, key: str, new: object) -> dict[str, object]:
    """``{...value, [key]: new}``: a key already there (undefined ones of a ``JsObject``
    included) keeps its place, a new one comes last.

    >>> spread({"a": 1, "b": 2}, "a", 3), spread({"a": 1}, "c", 3)
    ({'a': 3, 'b': 2}, {'a': 1, 'c': 3})
    """
    items = value if isinstance(value, dict) else {}
    order = value.order if isinstance(value, JsObject) else tuple(items)
    out = {k: new if k == key else items[k] for k in order if k == key or k in items}
    out.setdefault(key, new)
    return out


def field(value: object, name: str) -> object:
    """``value.name`` in JavaScript: ``UNDEFINED`` when absent or when value is no object.

    >>> field({"id": "a1"}, "id"), field({"id": "a1"}, "parentId"), field(5, "id")
    ('a1', undefined, undefined)
    """
    if isinstance(value, dict):
        return value.get(name, UNDEFINED)
    if isinstance(value, JsArray):
        return value.properties.get(name, UNDEFINED)
    return UNDEFINED


def truthy(value: object) -> bool:
    """JavaScript truthiness of a JSON value (empty arrays and objects are true).

    >>> [truthy(v) for v in ("", "x", 0, 0.0, 1, None, [], {}, UNDEFINED)]
    [False, True, False, False, True, False, True, True, False]
    """
    if value is None or value is UNDEFINED or value is False:
        return False
    if isinstance(value, str):
        return value != ""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return value == value and value != 0
    return True


def nullish(value: object) -> bool:
    """``value == null`` in JavaScript (``null`` or absent)."""
    return value is None or value is UNDEFINED


def js_number_value(value: int | float) -> float:
    """A JSON number as the double JavaScript holds (huge integers round; beyond the
    double range they become infinite, as ``JSON.parse`` makes them).

    >>> js_number_value(9007199254740993), js_number_value(-(10**400))
    (9007199254740992.0, -inf)
    """
    try:
        return float(value)
    except OverflowError:
        return float("inf") if value > 0 else float("-inf")


def strict_equal(a: object, b: object) -> bool:
    """``a === b`` for JSON values (objects compare by identity, as in JavaScript;
    numbers compare as doubles, so integers beyond 2**53 can be equal).

    >>> strict_equal("a", "a"), strict_equal(1, 1.0), strict_equal(True, 1)
    (True, True, False)
    >>> strict_equal(9007199254740993, 9007199254740992)
    True
    """
    if isinstance(a, (dict, list)) or isinstance(b, (dict, list)):
        return a is b
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return js_number_value(a) == js_number_value(b)
    return type(a) is type(b) and a == b


_SAFE = 2**53


class _NoKey:
    """What ``js_key`` gives for an object or array: a ``Map`` key no JSON value equals."""

    def __repr__(self) -> str:
        return "NO_KEY"

    def __reduce__(self) -> str:
        return "NO_KEY"


NO_KEY = _NoKey()


def js_key(value: object) -> Hashable:
    """A dict key that behaves like a JavaScript ``Map`` key (SameValueZero).

    Strings and numbers (as doubles) key by value, ``null`` and ``undefined`` are keys
    of their own, and ``true`` is not ``1``. Objects and arrays key by identity in
    JavaScript, so no other JSON value ever finds them: they give ``NO_KEY``.

    >>> js_key("a"), js_key(None), js_key(True), js_key(2**53 + 1), js_key([1])
    ('a', None, ('bool', True), 9007199254740992.0, NO_KEY)
    """
    if type(value) is str:
        return value
    if isinstance(value, (dict, list)):
        return NO_KEY
    if isinstance(value, bool):
        return ("bool", value)
    if type(value) is int and not -_SAFE <= value <= _SAFE:
        return js_number_value(value)
    return value


#: V8's message where ToPrimitive finds no method to call.
CANNOT_CONVERT = "Cannot convert object to primitive value"


class ToPrimitiveError(PisessionError):
    """JavaScript throws ``TypeError: Cannot convert object to primitive value``: the
    value is (or an array holds, at any depth) an object with its own ``toString`` key.
    JSON can never make that key a function, so ``ToPrimitive`` finds no method to call
    (an own ``valueOf`` alone is harmless: ``Object.prototype.toString`` still answers).

    ``index`` is the message, in a list of messages, where Pi throws (when known).
    """

    def __init__(self, reason: str = f"TypeError: {CANNOT_CONVERT}", index: int | None = None):
        self.reason = reason
        self.index = index
        super().__init__(reason)


def js_string(value: object) -> str:
    """JavaScript's ``ToString`` of a JSON value: what ``String(value)``, a template
    literal, ``"" + value`` and ``Array.prototype.join`` make of it. Arrays join their
    elements with ``","`` (null and undefined as ``""``, nested arrays the same way, at
    any depth); an object is ``"[object Object]"``, unless it has its own ``toString``
    key, where JavaScript throws (:class:`ToPrimitiveError`).

    >>> [js_string(v) for v in (None, UNDEFINED, True, 3, 2.5, "s", [1, None], {})]
    ['null', 'undefined', 'true', '3', '2.5', 's', '1,', '[object Object]']
    >>> js_string(2**53 + 1), js_string(10**21), js_string(10**400), js_string([[1, [2]], 3])
    ('9007199254740992', '1e+21', 'Infinity', '1,2,3')
    >>> js_string({"valueOf": 1}), js_string([1, {"toString": 1}])
    Traceback (most recent call last):
    ...
    pisession.js.value.ToPrimitiveError: TypeError: Cannot convert object to primitive value
    """
    if type(value) is str:
        return value
    if isinstance(value, list):
        return _join(value)
    return _element_string(value)


def _element_string(value: object) -> str:
    """``ToString`` of a value that is not an array."""
    from .json import js_number

    if isinstance(value, str):
        return value
    if value is UNDEFINED:
        return "undefined"
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int) and -_SAFE <= value <= _SAFE:
        return str(value)
    if isinstance(value, int):  # beyond 2^53 JavaScript holds (and prints) a double
        value = js_number_value(value)
    if isinstance(value, float):
        if value != value:
            return "NaN"
        if value in (float("inf"), float("-inf")):
            return "Infinity" if value > 0 else "-Infinity"
        return js_number(repr(value))
    if isinstance(value, dict) and "toString" in value:
        raise ToPrimitiveError()
    return "[object Object]"


def _join(array: list[object]) -> str:
    """``Array.prototype.toString``: elements joined with ``","``, null and undefined as
    ``""``, nested arrays joined the same way (without recursion, for any depth)."""
    parts: list[str] = []
    stack = [iter(array)]
    first = [True]
    while stack:
        for item in stack[-1]:
            if not first[-1]:
                parts.append(",")
            first[-1] = False
            if isinstance(item, list):
                stack.append(iter(item))
                first.append(True)
                break
            if item is not None and item is not UNDEFINED:
                parts.append(_element_string(item))
        else:
            stack.pop()
            first.pop()
    return "".join(parts)


#: What JavaScript's ``trim()`` and ``Number()`` strip: WhiteSpace and LineTerminator.
#: (Python's ``str.strip()`` differs: it keeps U+FEFF and strips U+001C-U+001F, U+0085.)
_JS_SPACE = "\t\n\v\f\r \u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
_JS_TRIM = re.compile(f"^[{_JS_SPACE}]+|[{_JS_SPACE}]+$")
_DECIMAL = re.compile(r"[+-]?(?:Infinity|(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?)")
_NON_DECIMAL = re.compile(r"0[xX][0-9a-fA-F]+|0[oO][0-7]+|0[bB][01]+")


def js_trim(text: str) -> str:
    """``text.trim()`` in JavaScript.

    >>> js_trim("\\ufeff name \\u3000"), js_trim("\\x1cname\\x85")
    ('name', '\\x1cname\\x85')
    """
    return _JS_TRIM.sub("", text)


def to_number(value: object) -> float:
    """``Number(value)`` for the header ``version`` comparison (``"3" >= 3`` is true).

    >>> to_number("3"), to_number(True), to_number(None), to_number("x") != to_number("x")
    (3.0, 1.0, 0.0, True)
    >>> to_number("\\ufeff3"), to_number("0x10"), to_number("-Infinity"), to_number("1_0")
    (3.0, 16.0, -inf, nan)
    """
    if value is None:
        return 0.0
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, (int, float)):
        return js_number_value(value)
    if isinstance(value, list):
        return to_number(js_string(value))
    if isinstance(value, str):
        text = js_trim(value)
        if not text:
            return 0.0
        if _NON_DECIMAL.fullmatch(text):
            return js_number_value(int(text, 0))
        if _DECIMAL.fullmatch(text):
            return float(text.replace("Infinity", "inf"))
    return float("nan")


def js_falsy(value: object) -> bool:
    """True for the values JavaScript treats as false.

    >>> [js_falsy(v) for v in (None, 0, False, "", [], {}, "0")]
    [True, True, True, True, False, False, False]
    """
    return not truthy(value)


def value_text(value: object) -> str:
    """A JSON value named in a sentence: ``undefined`` and ``null`` spelled out, any
    other value as ``plain`` gives it (objects as JSON, however deep).

    >>> value_text(None), value_text(UNDEFINED), value_text("user"), value_text([[1]])
    ('null', 'undefined', 'user', '[[1]]')
    """
    if value is UNDEFINED:
        return "undefined"
    return "null" if value is None else plain(value)


def quoted(value: object) -> str:
    """A JSON value quoted in a sentence: a string in quotes, anything else as
    ``value_text`` spells it (JavaScript's ``null``, ``true``, ``5``; objects as JSON,
    however deep they are nested).

    >>> quoted("a1"), quoted(5.0), quoted(True), quoted({"k": [1]}), quoted(UNDEFINED)
    ("'a1'", '5', 'true', '{"k":[1]}', 'undefined')
    """
    return repr(value) if isinstance(value, str) else value_text(value)


def plain(value: object) -> str:
    """A JSON value as the text a reader expects (strings as they are, objects as JSON).

    >>> plain("a"), plain(None), plain(3.0), plain({"k": 1})
    ('a', '', '3', '{"k":1}')
    """
    if isinstance(value, str):
        return value
    if value is None or value is UNDEFINED:
        return ""
    if isinstance(value, (dict, list)):
        from .json import dumps

        return dumps(value)
    if isinstance(value, (bool, int, float)):
        return js_string(value)
    return str(value)
