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
2. **The date string** (``js.date_string.parse_date_fields``): V8's tokenizer, its ISO
   pass, its legacy pass and the composers, giving the fields the string names.
3. **The arithmetic**: :func:`make_day`, :func:`make_time`, :func:`make_date` and
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

from .date_string import parse_date_fields
from .value import UNDEFINED, ToPrimitiveError, js_string

NAN = float("nan")
MAX_TIME_MS = 8.64e15  # ES: a time value is at most 100,000,000 days from the epoch
_MAX_LOCAL_MS = MAX_TIME_MS + 864_000_000  # V8 converts local times up to 10 days beyond
_MS_PER_DAY = 86_400_000.0


#: ``new Date(value)`` throws in JavaScript: the value is (or holds) an object with a
#: ``toString`` key, which JSON can never make a function (``jsvalue.js_string``).
DateConversionError = ToPrimitiveError


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
                from zoneinfo import ZoneInfo  # here: reading a file needs no zone

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
    from zoneinfo import ZoneInfo, ZoneInfoNotFoundError  # here: as in _zone

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
