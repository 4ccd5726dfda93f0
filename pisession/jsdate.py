"""Timestamps as JavaScript's ``new Date(value).getTime()`` computes them.

Pi stamps the messages it builds (custom, branch and compaction summaries) with the
entry's ISO timestamp turned into epoch milliseconds by JavaScript's ``Date``. This
module reproduces that conversion for the ISO forms V8 accepts.
"""

from __future__ import annotations

import math
import re
from datetime import datetime, timedelta, timezone

from .jsvalue import UNDEFINED

NAN = float("nan")
_MAX_MS = 8.64e15

_ISO = re.compile(
    r"""
    (?P<year>[+-]\d{6}|\d{4})
    (?:-(?P<month>\d{2})(?:-(?P<day>\d{2}))?)?
    (?:[Tt ](?P<hour>\d{2}):(?P<minute>\d{2})
        (?::(?P<second>\d{2})(?:\.(?P<fraction>\d+))?)?
        (?P<zone>[Zz]|[+-]\d{2}:?\d{2})?
    )?
    """,
    re.VERBOSE,
)

_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)

# V8's fallback ("legacy") parser accepts more than ISO; these are the common forms.
_TIME = r"(?:[ T]+(?P<hour>\d{1,2}):(?P<minute>\d{2})(?::(?P<second>\d{2}))?)?"
_ZONE = r"(?:\s*(?:(?P<utc>UTC|GMT|UT|Z)|(?:GMT|UTC)?(?P<offset>[+-]\d{4})))?"
_WEEKDAY = r"(?:[A-Za-z]+,?\s+)?"
_LEGACY = [
    re.compile(
        _WEEKDAY
        + r"(?P<day>\d{1,2})[\s-]+(?P<mon>[A-Za-z]{3,})[\s-]+(?P<year>\d{4})"
        + _TIME
        + _ZONE,
        re.I,
    ),
    re.compile(
        _WEEKDAY + r"(?P<mon>[A-Za-z]{3,})\s+(?P<day>\d{1,2}),?\s+(?P<year>\d{4})" + _TIME + _ZONE,
        re.I,
    ),
    re.compile(r"(?P<year>\d{4})/(?P<month>\d{1,2})/(?P<day>\d{1,2})" + _TIME + _ZONE, re.I),
    re.compile(r"(?P<month>\d{1,2})/(?P<day>\d{1,2})/(?P<year>\d{4})" + _TIME + _ZONE, re.I),
]
_MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")


def _days_from_civil(year: int, month: int, day: int) -> int:
    """Days since 1970-01-01 for a proleptic Gregorian date (any year)."""
    year -= month <= 2
    era = (year if year >= 0 else year - 399) // 400
    yoe = year - era * 400
    doy = (153 * (month + (-3 if month > 2 else 9)) + 2) // 5 + day - 1
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    return era * 146097 + doe - 719468


def _local_offset_ms(utc_guess_ms: int) -> int:
    """Offset of local time at a moment given as if it were UTC (what JS does)."""
    try:
        naive = _EPOCH + timedelta(milliseconds=utc_guess_ms)
        local = round(naive.replace(tzinfo=None).timestamp() * 1000)
    except (OverflowError, ValueError, OSError):
        return 0
    return utc_guess_ms - local


def parse_iso_ms(text: str) -> int | float:
    """Epoch milliseconds of an ISO 8601 string, or NaN where JavaScript gives NaN.

    >>> parse_iso_ms("2026-11-30T02:48:34.392Z")
    1796006914392
    >>> parse_iso_ms("2026-11-30T03:48:34.3929+01:00")
    1796006914392
    >>> math.isnan(parse_iso_ms("yesterday"))
    True
    """
    m = _ISO.fullmatch(text)
    if not m:
        return _parse_legacy_ms(text.strip())
    g = m.groupdict()
    if g["year"] == "-000000":
        return NAN
    year = int(g["year"])
    month = int(g["month"] or 1)
    day = int(g["day"] or 1)
    hour = int(g["hour"] or 0)
    minute = int(g["minute"] or 0)
    second = int(g["second"] or 0)
    ms = int((g["fraction"] or "0")[:3].ljust(3, "0"))
    if not (1 <= month <= 12 and 1 <= day <= 31 and minute <= 59 and second <= 59):
        return NAN
    if hour > 24 or (hour == 24 and (minute or second or ms)):
        return NAN
    days = _days_from_civil(year, month, 1) + day - 1
    value = days * 86_400_000 + ((hour * 60 + minute) * 60 + second) * 1000 + ms
    zone = g["zone"]
    if zone in ("Z", "z") or (zone is None and g["hour"] is None):
        pass  # UTC: explicit, or a date-only form
    elif zone is None:
        value -= _local_offset_ms(value)  # a date-time without offset is local time
    else:
        sign = 1 if zone[0] == "+" else -1
        zh, zm = int(zone[1:3]), int(zone[-2:])
        if zh > 23 or zm > 59:
            return NAN
        value -= sign * (zh * 60 + zm) * 60_000
    return value if abs(value) <= _MAX_MS else NAN


def _parse_legacy_ms(text: str) -> int | float:
    """The non-ISO forms V8 also parses (``Thu, 15 Jan 2026 10:00:00 GMT``, ...)."""
    for pattern in _LEGACY:
        m = pattern.fullmatch(text)
        if not m:
            continue
        g = m.groupdict()
        if g.get("mon"):
            name = g["mon"][:3].lower()
            if name not in _MONTHS:
                return NAN
            month = _MONTHS.index(name) + 1
        else:
            month = int(g["month"])
        day, year = int(g["day"]), int(g["year"])
        hour, minute, second = int(g["hour"] or 0), int(g["minute"] or 0), int(g["second"] or 0)
        if not (
            1 <= month <= 12 and 1 <= day <= 31 and hour <= 24 and minute <= 59 and second <= 59
        ):
            return NAN
        value = (_days_from_civil(year, month, 1) + day - 1) * 86_400_000
        value += ((hour * 60 + minute) * 60 + second) * 1000
        if g["offset"]:
            sign = 1 if g["offset"][0] == "+" else -1
            value -= sign * (int(g["offset"][1:3]) * 60 + int(g["offset"][3:5])) * 60_000
        elif not g["utc"]:
            value -= _local_offset_ms(value)
        return value
    return NAN


def js_time_ms(value: object) -> float | int:
    """``new Date(value).getTime()`` for a JSON value (NaN where JavaScript gives NaN).

    >>> js_time_ms(None)
    0
    >>> js_time_ms("2026-11-30")
    1795996800000
    >>> math.isnan(js_time_ms(""))
    True
    """
    if value is None:
        return 0
    if value is UNDEFINED:
        return NAN
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, (int, float)):
        if not math.isfinite(value) or abs(value) > _MAX_MS:
            return NAN
        return math.trunc(value) + 0
    if isinstance(value, str):
        return parse_iso_ms(value)
    return NAN
