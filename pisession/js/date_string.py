"""Date strings as V8 (Node 20, V8 11.3) reads them: ``parse_date_fields`` gives the
fields ``Date.parse`` reads from a string, before any arithmetic (``js.date``).

1. **The tokenizer** (:func:`tokenize`): V8's ``DateStringTokenizer``: numbers (value of
   the first 9 digits after any leading zeros, length of all of them), the symbols
   ``: - + . )``, words (every character from ``"A"`` up that is not white space; a
   word is a keyword when its first three letters name a month, or it is ``am``/``pm``,
   a zone name or ``T``), one token per white-space character, parenthesised text
   skipped, anything else unknown. A NUL character ends the input.
2. **The ISO pass** (``_parse_iso``, V8's ``ParseES5DateTime``): as much of
   ``[+-yy]yyyy[-MM[-DD]][THH:mm[:ss[.sss]][Z|+-hh:mm]]`` as the input has. A complete
   match is final (date-only forms are UTC); a broken time part is NaN; otherwise the
   first token it could not use goes on to
3. **the legacy pass** (``_parse_legacy``): numbers followed by ``:`` are times, other
   numbers are day components, month names, AM/PM, zone names and ``+hhmm`` offsets;
   unknown words are allowed only before the first number.
4. **The composers** (``_DayComposer``, ``_TimeComposer``, ``_ZoneComposer``) check the
   pieces and put them in order (month/day/year guesses, two-digit years, 12-hour
   clock, ``24:00``), giving :class:`DateFields`.
"""

from __future__ import annotations

from typing import Any, NamedTuple

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
