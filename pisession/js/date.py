"""Timestamps as JavaScript's ``new Date(value).getTime()`` computes them.

Pi stamps the messages it builds from an entry (custom messages, branch and compaction
summaries) with ``new Date(entry.timestamp).getTime()``; NaN is written as ``null``.
The entry's ``timestamp`` can be any JSON value, so this module reproduces the whole
conversion as V8 (Node 20, V8 11.3) performs it:

1. **The argument** (:func:`date_argument`): ``ToPrimitive`` of the value. Strings, and
   arrays (joined with ``","`` as ``Array.prototype.toString`` does), and plain objects
   (``"[object Object]"``) are parsed; ``null``, booleans and numbers go through
   ``ToNumber`` and :func:`time_clip`. An object with a ``toString`` key cannot be
   converted: JavaScript throws a TypeError, and so does :func:`js_time_ms`
   (:class:`DateConversionError`).
2. **The tokenizer** (:func:`tokenize`): V8's ``DateStringTokenizer``: numbers (value of
   the first 9 digits after any leading zeros, length of all of them), the symbols
   ``: - + . )``, words (every character from ``"A"`` up that is not white space; a
   word is a keyword when its first three letters name a month, or it is ``am``/``pm``,
   a zone name or ``T``), one token per white-space character, parenthesised text
   skipped, anything else unknown. A NUL character ends the input.
3. **The ISO pass** (``_parse_iso``, V8's ``ParseES5DateTime``): as much of
   ``[+-yy]yyyy[-MM[-DD]][THH:mm[:ss[.sss]][Z|+-hh:mm]]`` as the input has. A complete
   match is final (date-only forms are UTC); a broken time part is NaN; otherwise the
   first token it could not use goes on to
4. **the legacy pass** (``_parse_legacy``): numbers followed by ``:`` are times, other
   numbers are day components, month names, AM/PM, zone names and ``+hhmm`` offsets;
   unknown words are allowed only before the first number.
5. **The composers** (``_DayComposer``, ``_TimeComposer``, ``_ZoneComposer``) check the
   pieces and put them in order (month/day/year guesses, two-digit years, 12-hour
   clock, ``24:00``), giving :class:`DateFields`.
6. **The arithmetic**: :func:`make_day`, :func:`make_time`, :func:`make_date` and
   :func:`time_clip`, done in doubles as V8 does.

Local time: a date-time without an offset (``"2026-01-01T10:00:00"``, ``"Jan 1 2026
10:00"``) is local time in JavaScript, read in the process's time zone as Node reads it
(:func:`local_zone`: the ``TZ`` variable, else the system's); a time that a DST change
skips or repeats takes the offset before the change, as V8 asks ICU
(``UCAL_TZ_LOCAL_FORMER``). Every Pi golden is recorded with ``TZ=UTC``, and the tests
and notebooks pin ``TZ=UTC`` where they store outputs.

Known difference: V8 throws a RangeError (stack overflow) when it joins arrays nested
more than a few thousand levels deep (the depth depends on the stack); this module
joins any depth.

Checked against Node 20 on the values in ``data/jsdate/cases.jsonl`` (recorded by
``conformance/jsdate.mjs``).
"""

from __future__ import annotations

import math
import os
import re
from datetime import datetime, timedelta, tzinfo
from functools import lru_cache
from typing import Any, NamedTuple
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from .value import UNDEFINED, ToPrimitiveError, js_string

NAN = float("nan")
MAX_TIME_MS = 8.64e15  # ES: a time value is at most 100,000,000 days from the epoch
_MAX_LOCAL_MS = MAX_TIME_MS + 864_000_000  # V8 converts local times up to 10 days beyond
_MS_PER_DAY = 86_400_000.0


#: ``new Date(value)`` throws in JavaScript: the value is (or holds) an object with a
#: ``toString`` key, which JSON can never make a function (``jsvalue.js_string``).
DateConversionError = ToPrimitiveError


# --------------------------------------------------------------------------- tokens

# JavaScript's WhiteSpace (tab, VT, FF, the Unicode Zs spaces, BOM) and LineTerminator.
WHITE_SPACE = frozenset(
    "\t\v\f \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009"
    "\u200a\u202f\u205f\u3000\ufeff"
)
LINE_TERMINATORS = frozenset("\n\r\u2028\u2029")
_SEPARATORS = WHITE_SPACE | LINE_TERMINATORS

NUMBER, SYMBOL, WORD, SPACE, UNKNOWN, END = "number", "symbol", "word", "space", "unknown", "end"
# Keyword kinds of a word (``None``: a word that is no keyword).
MONTH, ZONE, TIME_SEPARATOR, AM_PM = "month", "zone", "T", "ampm"

_MONTH_NAMES = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
_KEYWORDS: dict[str, tuple[str, int]] = {
    **{name: (MONTH, number) for number, name in enumerate(_MONTH_NAMES, 1)},
    "am": (AM_PM, 0),
    "pm": (AM_PM, 12),
    **{name: (ZONE, 0) for name in ("ut", "utc", "z", "gmt")},
    **{"cdt": (ZONE, -5), "cst": (ZONE, -6), "edt": (ZONE, -4), "est": (ZONE, -5)},
    **{"mdt": (ZONE, -6), "mst": (ZONE, -7), "pdt": (ZONE, -7), "pst": (ZONE, -8)},
    "t": (TIME_SEPARATOR, 0),
}
_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")
_MAX_DIGITS = 9  # V8 reads at most 9 significant digits of a number


class Token(NamedTuple):
    """One token of a date string. ``value`` is the number, the symbol character, or a
    keyword's value (month 1-12, zone offset in hours, 0/12 for AM/PM); ``length``
    counts characters (leading zeros included); ``keyword`` is a word's keyword kind."""

    kind: str
    value: Any = 0  # a number (int) or a symbol (str), as ``kind`` says
    length: int = 1
    keyword: str | None = None

    def is_symbol(self, char: str) -> bool:
        return self.kind == SYMBOL and self.value == char

    def is_sign(self) -> bool:
        return self.kind == SYMBOL and self.value in ("+", "-")

    def is_number(self, length: int) -> bool:
        """A number written with exactly ``length`` characters."""
        return self.kind == NUMBER and self.length == length

    def is_z(self) -> bool:
        return self.keyword == ZONE and self.length == 1  # the word "z"


_END = Token(END, 0, 0)
_INVALID = Token("invalid", 0, 0)  # the ISO pass found a broken time part: NaN


def _keyword(word: str) -> tuple[str | None, int]:
    """V8's ``KeywordTable::Lookup``: the first three letters decide; only month names
    may be longer (``"Sept"``, ``"December"``, even ``"Mayday"``)."""
    kind, value = _KEYWORDS.get(word[:3].translate(_ASCII_LOWER), (None, 0))
    if kind is not None and (len(word) <= 3 or kind == MONTH):
        return kind, value
    return None, 0


def tokenize(text: str) -> list[Token]:
    """V8's date tokens of ``text``, ending with an end token.

    V8 reads UTF-16 code units and Python code points; the tokens agree, because a
    character beyond U+FFFF (and each surrogate) is a word character either way, and
    such a word can only be a keyword through its first three letters.

    >>> [(t.kind, t.value) for t in tokenize("Jan 05(x), 10:00")][:6]
    [('word', 1), ('space', 0), ('number', 5), ('unknown', 0), ('unknown', 0), ('space', 0)]
    >>> tokenize("007")[0]
    Token(kind='number', value=7, length=3, keyword=None)
    """
    end = text.find("\0")  # V8 reads a NUL as the end of the input
    n = len(text) if end < 0 else end
    tokens: list[Token] = []
    i = 0
    while i < n:
        c = text[i]
        start = i
        if "0" <= c <= "9":
            while i < n and text[i] == "0":  # leading zeros do not count as digits
                i += 1
            value = digits = 0
            while i < n and "0" <= text[i] <= "9":
                if digits < _MAX_DIGITS:
                    value = value * 10 + ord(text[i]) - 48
                digits += 1
                i += 1
            tokens.append(Token(NUMBER, value, i - start))
        elif c in ":-+.)":
            tokens.append(Token(SYMBOL, c))
            i += 1
        elif c >= "A" and c not in WHITE_SPACE:  # U+2028 and U+2029 are word characters
            while i < n and text[i] >= "A" and text[i] not in WHITE_SPACE:
                i += 1
            kind, value = _keyword(text[start:i])
            tokens.append(Token(WORD, value, i - start, kind))
        elif c in _SEPARATORS:
            tokens.append(Token(SPACE, 0))
            i += 1
        elif c == "(":
            depth = 0
            while True:
                depth += (text[i] == "(") - (text[i] == ")")
                i += 1
                if depth <= 0 or i >= n:
                    break
            tokens.append(Token(UNKNOWN, 0))
        else:
            tokens.append(Token(UNKNOWN, 0))
            i += 1
    tokens.append(_END)
    return tokens


class _Scanner:
    """The token stream with one token of look-ahead (V8's ``DateStringTokenizer``)."""

    def __init__(self, tokens: list[Token]):
        self.tokens = tokens
        self.position = 0

    def peek(self) -> Token:
        return self.tokens[self.position]

    def next(self) -> Token:
        token = self.tokens[self.position]
        if token.kind != END:
            self.position += 1
        return token

    def skip_symbol(self, char: str) -> bool:
        if self.tokens[self.position].is_symbol(char):
            self.position += 1
            return True
        return False

    def two_digits(self, low: int, high: int) -> bool:
        """Is the next token a two-character number from ``low`` to ``high``?"""
        token = self.tokens[self.position]
        return token.is_number(2) and _between(token.value, low, high)


# --------------------------------------------------------------------------- composers


def _between(x: int, low: int, high: int) -> bool:
    return low <= x <= high


class _DayComposer:
    """Up to three day components, a named month, and whether the ISO pass read them."""

    def __init__(self) -> None:
        self.parts: list[int] = []
        self.named_month: int | None = None
        self.is_iso_date = False

    def add(self, n: int) -> bool:
        if len(self.parts) < 3:
            self.parts.append(n)
            return True
        return False

    def write(self) -> tuple[int, int, int] | None:
        """(year, month 0-11, day), or None when the components make no date."""
        if not self.parts:
            return None
        # V8 pads the missing components with 1 before choosing an order, so "12" is
        # month 12, day 1, year 1 (-> 2001), and "Jan 5" is January 5th, year 1.
        first, second, third = (*self.parts, 1, 1)[:3]
        if self.named_month is None:
            if self.is_iso_date or not _between(first, 1, 31):
                year, month, day = first, second, third  # YMD
            else:
                month, day, year = first, second, third  # MDY
        else:
            month = self.named_month
            if not _between(first, 1, 31):
                year, day = first, second  # YMD, MYD or YDM
            else:
                day, year = first, second  # DMY, MDY or DYM
        if not self.is_iso_date:
            if _between(year, 0, 49):
                year += 2000
            elif _between(year, 50, 99):
                year += 1900
        if not (_between(month, 1, 12) and _between(day, 1, 31)):
            return None
        return year, month - 1, day


class _TimeComposer:
    """Hour, minute, second, millisecond as they come, and an AM/PM hour offset."""

    def __init__(self) -> None:
        self.parts: list[int] = []
        self.hour_offset: int | None = None

    def is_empty(self) -> bool:
        return not self.parts

    def is_expecting(self, n: int) -> bool:
        count = len(self.parts)
        return (count in (1, 2) and _between(n, 0, 59)) or (count == 3 and _between(n, 0, 999))

    def add(self, n: int) -> bool:
        if len(self.parts) < 4:
            self.parts.append(n)
            return True
        return False

    def add_final(self, n: int) -> bool:
        if not self.add(n):
            return False
        self.parts.extend([0] * (4 - len(self.parts)))
        return True

    def write(self) -> tuple[int, int, int, int] | None:
        hour, minute, second, ms = (*self.parts, 0, 0, 0, 0)[:4]
        if self.hour_offset is not None:
            if not _between(hour, 0, 12):
                return None
            hour = hour % 12 + self.hour_offset
        valid = (
            _between(hour, 0, 23)
            and _between(minute, 0, 59)
            and _between(second, 0, 59)
            and _between(ms, 0, 999)
        )
        if not valid and (hour, minute, second, ms) != (24, 0, 0, 0):
            return None
        return hour, minute, second, ms


class _ZoneComposer:
    """An offset from UTC: sign, hours, minutes (None: not given)."""

    def __init__(self) -> None:
        self.sign: int | None = None
        self.hour: int | None = None
        self.minute: int | None = None

    def set_hours(self, offset: int) -> None:
        self.sign = -1 if offset < 0 else 1
        self.hour = abs(offset)
        self.minute = 0

    def is_expecting(self, n: int) -> bool:
        return self.hour is not None and self.minute is None and _between(n, 0, 59)

    def is_utc(self) -> bool:
        return self.hour == 0 and self.minute == 0

    def write(self) -> tuple[bool, int | None]:
        """(ok, offset in seconds or None for local time)."""
        if self.sign is None:
            return True, None
        # V8 adds in unsigned 32-bit arithmetic and rejects totals above its largest
        # small integer (2**31 - 1 in Node's 64-bit builds); hours past 1193046 wrap.
        total = ((self.hour or 0) * 3600 + (self.minute or 0) * 60) & 0xFFFFFFFF
        if total > 0x7FFFFFFF:
            return False, None
        return True, -total if self.sign < 0 else total


def _read_milliseconds(token: Token) -> int:
    """The first three digits of a fraction, from a number token's value and length.
    (Like V8, leading zeros beyond the first nine digits shift the digits it keeps:
    ``.0001234567891`` reads as 123 ms.)"""
    number: int = token.value
    length = token.length
    if length == 1:
        return number * 100
    if length == 2:
        return number * 10
    if length > 3:
        divisor: int = 10 ** (min(length, _MAX_DIGITS) - 3)
        return number // divisor
    return number


# --------------------------------------------------------------------------- parser


def _parse_iso(scan: _Scanner, day: _DayComposer, time: _TimeComposer, tz: _ZoneComposer) -> Token:
    """V8's ``ParseES5DateTime``: the end token when the whole input was an ISO date,
    ``_INVALID`` when its time part is broken, else the token the legacy pass takes."""
    stop = _iso_date(scan, day)
    if stop is not None:
        return stop
    if scan.peek().keyword != TIME_SEPARATOR:
        if scan.peek().kind != END:
            return scan.next()
    else:
        scan.next()
        if not (_iso_time(scan, time) and _iso_zone(scan, tz)) or scan.peek().kind != END:
            return _INVALID
    if tz.hour is None and time.is_empty():
        tz.set_hours(0)  # a date-only form is UTC; a date-time form is local time
    day.is_iso_date = True
    return _END


def _iso_date(scan: _Scanner, day: _DayComposer) -> Token | None:
    """``[+-yy]yyyy[-MM[-DD]]``: None when read, else the token the legacy pass takes."""
    if scan.peek().is_sign():
        sign = scan.next()
        if not scan.peek().is_number(6):
            return sign
        year = scan.next().value
        if sign.value == "-" and year == 0:
            return sign  # -000000 is no year
        day.add(-year if sign.value == "-" else year)
    elif scan.peek().is_number(4):
        day.add(scan.next().value)
    else:
        return scan.next()
    for highest in (12, 31):  # the month, then the day
        if not scan.skip_symbol("-"):
            break
        if not scan.two_digits(1, highest):
            return scan.next()
        day.add(scan.next().value)
    return None


def _iso_time(scan: _Scanner, time: _TimeComposer) -> bool:
    """After the ``T``: ``HH:mm[:ss[.sss]]``, hour 24 only as ``24:00[:00[.000]]``;
    False when broken."""
    if not scan.two_digits(0, 24):
        return False
    hour_is_24 = scan.peek().value == 24

    def part(fits: bool, fraction: bool = False) -> bool:  # 0 after hour 24
        if not fits or (hour_is_24 and scan.peek().value):
            return False
        number = scan.next()
        time.add(_read_milliseconds(number) if fraction else number.value)
        return True

    time.add(scan.next().value)
    if not (scan.skip_symbol(":") and part(scan.two_digits(0, 59))):  # minutes
        return False
    if scan.skip_symbol(":"):
        if not part(scan.two_digits(0, 59)):  # seconds
            return False
        if scan.skip_symbol(".") and not part(scan.peek().kind == NUMBER, fraction=True):
            return False  # the fraction may have any number of digits
    return True


def _iso_zone(scan: _Scanner, tz: _ZoneComposer) -> bool:
    """``Z``, ``+hhmm`` or ``+hh:mm`` (or nothing) after an ISO time; False when broken."""
    if scan.peek().is_z():
        scan.next()
        tz.set_hours(0)
    elif scan.peek().is_sign():
        tz.sign = 1 if scan.next().value == "+" else -1
        if scan.peek().is_number(4):  # +hhmm
            hour, minute = divmod(scan.next().value, 100)
            if not (_between(hour, 0, 23) and _between(minute, 0, 59)):
                return False
            tz.hour, tz.minute = hour, minute
        else:  # +hh:mm
            if not scan.two_digits(0, 23):
                return False
            tz.hour = scan.next().value
            if not (scan.skip_symbol(":") and scan.two_digits(0, 59)):
                return False
            tz.minute = scan.next().value
    return True


def _parse_legacy(
    token: Token, scan: _Scanner, day: _DayComposer, time: _TimeComposer, tz: _ZoneComposer
) -> bool:
    """V8's fallback loop over the tokens the ISO pass left; False where V8 gives up."""
    has_read_number = bool(day.parts)
    while token.kind != END:
        if token.kind == NUMBER:
            has_read_number = True
            ok = _legacy_number(token.value, scan, day, time, tz)
        elif token.kind == WORD:
            ok = _legacy_word(token, scan, day, time, tz, has_read_number)
        elif token.is_sign() and (tz.is_utc() or not time.is_empty()):
            has_read_number = True  # an offset after a time or "UTC"
            ok = _legacy_offset(token, scan, tz)
        else:
            ok = not ((token.is_sign() or token.is_symbol(")")) and has_read_number)
        if not ok:
            return False
        token = scan.next()
    return True


def _legacy_number(
    n: int, scan: _Scanner, day: _DayComposer, time: _TimeComposer, tz: _ZoneComposer
) -> bool:
    """A number: a time part (before ``:``, or ``ss.fff``), the minutes of an offset, the
    last part of a time, or a day component."""
    if scan.skip_symbol(":"):
        if scan.skip_symbol(":"):  # "n::" is n hours, 0 minutes
            if not time.is_empty():
                return False
            time.add(n)
            time.add(0)
        else:
            if not time.add(n):
                return False
            if scan.peek().is_symbol("."):
                scan.next()
    elif scan.skip_symbol(".") and time.is_expecting(n):  # "ss.fff"
        time.add(n)
        if scan.peek().kind != NUMBER:
            return False
        time.add_final(_read_milliseconds(scan.next()))
    elif tz.is_expecting(n):
        tz.minute = n
    elif time.is_expecting(n):
        time.add_final(n)
        after = scan.peek()
        if not (after.kind in (END, SPACE) or after.is_z() or after.is_sign()):
            return False
    else:
        if not day.add(n):
            return False
        scan.skip_symbol("-")
    return True


def _legacy_word(
    token: Token,
    scan: _Scanner,
    day: _DayComposer,
    time: _TimeComposer,
    tz: _ZoneComposer,
    has_read_number: bool,
) -> bool:
    """A word: AM/PM after a time, a month name, a zone after a number, or (only before
    the first number, and apart from it) any other word."""
    if token.keyword == AM_PM and not time.is_empty():
        time.hour_offset = token.value
    elif token.keyword == MONTH:
        day.named_month = token.value
        scan.skip_symbol("-")
    elif token.keyword == ZONE and has_read_number:
        tz.set_hours(token.value)
    elif has_read_number or scan.peek().kind == NUMBER:
        return False
    return True


def _legacy_offset(sign: Token, scan: _Scanner, tz: _ZoneComposer) -> bool:
    """``+h``, ``+hh``, ``+hmm``, ``+hhmm`` or ``+hh:`` (minutes follow) after a sign."""
    tz.sign = 1 if sign.value == "+" else -1
    n = length = 0
    if scan.peek().kind == NUMBER:
        number = scan.next()
        n, length = number.value, number.length
    if scan.peek().is_symbol(":"):
        tz.hour, tz.minute = n, None
    elif length in (1, 2):
        tz.hour, tz.minute = n, 0
    elif length in (3, 4):
        tz.hour, tz.minute = divmod(n, 100)
    else:
        return False
    return True


class DateFields(NamedTuple):
    """What V8's date parser reads from a string; ``offset`` is seconds east of UTC,
    None for local time."""

    year: int
    month: int  # 0-11
    day: int
    hour: int
    minute: int
    second: int
    millisecond: int
    offset: int | None


def parse_date_fields(text: str) -> DateFields | None:
    """The fields V8's date parser reads from ``text``, or None where it fails.

    >>> parse_date_fields("2026-01-15T14:05:30.123Z")
    DateFields(year=2026, month=0, day=15, hour=14, minute=5, second=30, millisecond=123, offset=0)
    >>> tuple(parse_date_fields("Dec 25, 25 5:00 PM EST"))
    (2025, 11, 25, 17, 0, 0, 0, -18000)
    >>> parse_date_fields("2026-01-15T25:00") is None
    True
    """
    scan = _Scanner(tokenize(text))
    day, time, tz = _DayComposer(), _TimeComposer(), _ZoneComposer()
    token = _parse_iso(scan, day, time, tz)
    if token is _INVALID or not _parse_legacy(token, scan, day, time, tz):
        return None
    ymd = day.write()
    hms = ymd and time.write()
    if not hms:
        return None
    ok, offset = tz.write()
    return DateFields(*ymd, *hms, offset) if ok else None  # type: ignore[misc,call-arg]


# --------------------------------------------------------------------------- arithmetic

_DAYS_BEFORE_MONTH = (0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334)
_DAYS_BEFORE_MONTH_LEAP = (0, 31, 60, 91, 121, 152, 182, 213, 244, 274, 305, 335)
_YEAR_DELTA = 399_999  # V8 shifts years by this (-1 mod 400) to divide positive numbers


def _c_div(a: int, b: int) -> int:
    """C's integer division (truncates toward zero)."""
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


def _days_before_year(year: int) -> int:
    shifted = year + _YEAR_DELTA
    return 365 * shifted + _c_div(shifted, 4) - _c_div(shifted, 100) + _c_div(shifted, 400)


_EPOCH_DAY = _days_before_year(1970)


def make_day(year: float, month: float, date: float) -> float:
    """ES ``MakeDay`` as V8 computes it: days from 1970-01-01 (NaN outside its range).

    >>> make_day(1970, 0, 1), make_day(2026, 0, 15), make_day(-1, 0, 1), make_day(2026, 13, 1)
    (0.0, 20468.0, -719893.0, 20850.0)
    """
    if not (-1e6 <= year <= 1e6 and -1e7 <= month <= 1e7 and math.isfinite(date)):
        return NAN
    y, m = int(year), int(month)
    y += _c_div(m, 12)
    m -= _c_div(m, 12) * 12
    if m < 0:
        m += 12
        y -= 1
    leap = y % 4 == 0 and (y % 100 != 0 or y % 400 == 0)
    days = _days_before_year(y) - _EPOCH_DAY
    days += (_DAYS_BEFORE_MONTH_LEAP if leap else _DAYS_BEFORE_MONTH)[m]
    return float(days - 1) + math.trunc(date)


def make_time(hour: float, minute: float, second: float, ms: float) -> float:
    """ES ``MakeTime``: milliseconds within a day (any field may overflow).

    >>> make_time(14, 5, 30, 123)
    50730123.0
    """
    return hour * 3_600_000.0 + minute * 60_000.0 + second * 1000.0 + ms


def make_date(day: float, time: float) -> float:
    """ES ``MakeDate``: ``day * msPerDay + time``, in doubles.

    >>> make_date(20468.0, 50730123.0)
    1768485930123.0
    """
    if not (math.isfinite(day) and math.isfinite(time)):
        return NAN
    return time + day * _MS_PER_DAY


def time_clip(t: float) -> int | float:
    """ES ``TimeClip``: NaN outside ±8.64e15 ms, else the value truncated toward zero.

    >>> time_clip(1.9), time_clip(-1.9), time_clip(-0.0), time_clip(8.64e15 + 1)
    (1, -1, 0, nan)
    """
    if not (abs(t) <= MAX_TIME_MS):  # also NaN
        return NAN
    return int(t)


def date_parse(text: str) -> int | float:
    """``Date.parse(text)`` (V8's ``ParseDateTimeString``); local time in :func:`local_zone`
    (``TZ=UTC`` in the examples).

    >>> date_parse("2026-11-30T03:48:34.3929+01:00")
    1796006914392
    >>> date_parse("Thu Jan 15 2026 14:05:30 GMT+0000 (Coordinated Universal Time)")
    1768485930000
    >>> date_parse("1/15/2026, 2:05:30 PM"), date_parse("2026-1-1")
    (1768485930000, 1767225600000)
    >>> date_parse("-000001-01-01"), date_parse("yesterday")
    (-62198755200000, nan)
    """
    fields = parse_date_fields(text)
    if fields is None:
        return NAN
    year, month, day, hour, minute, second, ms, offset = fields
    date = make_date(make_day(year, month, day), make_time(hour, minute, second, ms))
    if offset is None:
        # Local time: V8 converts it to UTC when it is within 10 days of the range.
        if not (-_MAX_LOCAL_MS <= date <= _MAX_LOCAL_MS):
            return NAN
        date = float(int(date))  # V8: static_cast<int64_t>, then ToUTC
        date -= local_offset_ms(date)
    else:
        date -= offset * 1000.0
    return time_clip(date)


# --------------------------------------------------------------------------- local time

_CYCLE_MS = 146_097 * _MS_PER_DAY  # 400 Gregorian years: the calendar repeats
_FIRST_MS = -62_135_596_800_000.0  # 0001-01-01T00:00 (the first datetime)
_LAST_MS = 253_402_300_799_000.0  # 9999-12-31T23:59:59 (the last one)
_EPOCH = datetime(1970, 1, 1)


@lru_cache(maxsize=16)
def _zone(tz: str | None) -> tzinfo | None:
    """The zone Node uses for ``TZ`` (None: unset): an IANA name (a leading ``:`` is
    dropped), else UTC, as ICU falls back for ``""``, unknown names and POSIX rule
    strings such as ``CET-1CEST``; unset: the system's (``/etc/localtime``). None: UTC."""
    if tz is None:
        target = os.path.realpath("/etc/localtime")
        key = target.split("/zoneinfo/", 1)[1] if "/zoneinfo/" in target else None
        if key is None:
            try:
                with open("/etc/localtime", "rb") as handle:
                    return ZoneInfo.from_file(handle)
            except (OSError, ValueError):
                return None
    else:
        key = tz[1:] if tz.startswith(":") else tz
    return _named_zone(key)


#: The old rule-named zones, links to cities since tz 2024b (Node 20 bundles 2025c);
#: older system data still holds them as zones of their own, with other history.
_ICU_ALIASES = {
    "CET": "Europe/Brussels",
    "CST6CDT": "America/Chicago",
    "EET": "Europe/Athens",
    "EST": "America/Panama",
    "EST5EDT": "America/New_York",
    "HST": "Pacific/Honolulu",
    "MET": "Europe/Brussels",
    "MST": "America/Phoenix",
    "MST7MDT": "America/Denver",
    "PST8PDT": "America/Los_Angeles",
    "WET": "Europe/Lisbon",
}


def _named_zone(key: str) -> tzinfo | None:
    """An IANA zone from the system's tz data (else the ``tzdata`` package), as ICU
    names it. Node bundles ICU's own copy of the data (``process.versions.tz``): where
    the two releases differ (a country changing its rules), so do the answers."""
    try:
        return ZoneInfo(_ICU_ALIASES.get(key, key))
    except (OSError, ValueError, ZoneInfoNotFoundError):
        return None


def local_zone() -> tzinfo | None:
    """The process's time zone as Node reads it (``TZ``, else the system's); None for UTC.

    >>> import os; os.environ["TZ"] = "Europe/Berlin"; str(local_zone())
    'Europe/Berlin'
    >>> os.environ["TZ"] = "CET-1CEST"; local_zone() is None  # ICU does not read POSIX rules
    True
    >>> os.environ["TZ"] = "UTC"
    """
    return _zone(os.environ.get("TZ"))


def local_offset_ms(local_ms: float) -> float:
    """The offset (ms east of UTC) of a local time in :func:`local_zone`: a time a DST
    change skips or repeats takes the offset in force before the change. Beyond the
    years 1 to 9999 the offset is the one 400 years (a whole number of cycles) nearer.

    >>> import os; os.environ["TZ"] = "Europe/Berlin"
    >>> local_offset_ms(date_parse("2026-07-01T12:00:00Z")) / 3_600_000
    2.0
    >>> local_offset_ms(date_parse("2026-03-29T02:30:00Z")) / 3_600_000  # skipped
    1.0
    >>> os.environ["TZ"] = "UTC"
    """
    zone = local_zone()
    if zone is None:
        return 0.0
    shifted = local_ms
    if shifted < _FIRST_MS + _MS_PER_DAY:
        shifted += math.ceil((_FIRST_MS + _MS_PER_DAY - shifted) / _CYCLE_MS) * _CYCLE_MS
    elif shifted > _LAST_MS - _MS_PER_DAY:
        shifted -= math.ceil((shifted - _LAST_MS + _MS_PER_DAY) / _CYCLE_MS) * _CYCLE_MS
    moment = _EPOCH + timedelta(milliseconds=shifted)
    offset = zone.utcoffset(moment)  # fold=0: the offset before a skip or a repeat
    return offset.total_seconds() * 1000.0 if offset else 0.0


# --------------------------------------------------------------------------- values


def _to_double(number: int | float) -> float:
    try:
        return float(number)  # JSON integers beyond 2**53 round as JavaScript's do
    except OverflowError:
        return math.inf if number > 0 else -math.inf


def date_argument(value: object) -> str | float:
    """What ``new Date(value)`` works with: the string it parses, or the number it clips.

    >>> date_argument(["2026-01-01", None, [1, True]]), date_argument({})
    ('2026-01-01,,1,true', '[object Object]')
    >>> date_argument(None), date_argument(True), date_argument(10**400)
    (0.0, 1.0, inf)
    """
    if isinstance(value, str):
        return value
    if value is None:
        return 0.0
    if value is UNDEFINED:
        return NAN
    if isinstance(value, bool):
        return 1.0 if value else 0.0
    if isinstance(value, (int, float)):
        return _to_double(value)
    if isinstance(value, (list, dict)):
        return js_string(value)  # ToPrimitive: the array joined, or "[object Object]"
    return NAN


# Pi's own timestamps (``new Date().toISOString()``) take a fast path: the same
# arithmetic, with the first day of each month remembered.
_PI_STAMP = re.compile(r"(\d{4}-\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)(?:\.(\d\d\d))?Z", re.ASCII)


@lru_cache(maxsize=1024)
def _month_start(year_month: str) -> float | None:
    """``make_day`` of the 1st of a ``yyyy-MM`` month (None for a month out of range)."""
    year, month = int(year_month[:4]), int(year_month[5:])
    return make_day(year, month - 1, 1) if 1 <= month <= 12 else None


def js_time_ms(value: object) -> int | float:
    """``new Date(value).getTime()`` for a JSON value: an int, or NaN where JavaScript
    gives NaN. Raises :class:`DateConversionError` where JavaScript throws.

    >>> js_time_ms("2026-01-15T14:05:30.123Z"), js_time_ms("2026-11-30")
    (1768485930123, 1795996800000)
    >>> js_time_ms(None), js_time_ms(True), js_time_ms(1.9), js_time_ms(-0.0)
    (0, 1, 1, 0)
    >>> js_time_ms(["2026-01-01T00:00:00Z"]), js_time_ms([-0.0])
    (1767225600000, 946684800000)
    >>> js_time_ms(""), js_time_ms({}), js_time_ms(8.64e15 + 1)
    (nan, nan, nan)
    """
    if type(value) is str:
        stamp = _PI_STAMP.fullmatch(value)
        if stamp is not None:
            year_month, day, hour, minute, second, ms = stamp.groups()
            start = _month_start(year_month)
            day, hour, minute, second = int(day), int(hour), int(minute), int(second)
            if start is not None and 1 <= day <= 31 and hour < 24 and minute < 60 and second < 60:
                time = make_time(hour, minute, second, int(ms or 0))
                return int(make_date(start + day - 1, time))
        return date_parse(value)
    argument = date_argument(value)
    if isinstance(argument, str):
        return date_parse(argument)
    return time_clip(argument)
