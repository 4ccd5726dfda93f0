"""``pisession.js.date`` against V8: the recorded Node 20 goldens, live Node when it is
installed, and properties that need no oracle (ISO round trips, the fast path).

The goldens are ``data/jsdate/cases.jsonl`` (``conformance/jsdate.mjs golden``)."""

from __future__ import annotations

import json
import math
import os
import random
import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pisession.js.date import (
    MAX_TIME_MS,
    DateConversionError,
    date_argument,
    date_parse,
    js_time_ms,
    make_day,
)
from pisession.js.json import loads, loads_deep

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = ROOT / "data" / "jsdate" / "cases.jsonl"
RECORDER = ROOT / "conformance" / "jsdate.mjs"
THROWS = {"throws": "TypeError"}


def read_cases(text: bytes) -> list[tuple[bytes, object, object]]:
    """(raw line, value, Node's result) for each ``[value, result]`` line. Split on
    newlines only: U+2028 inside a string is no line break."""
    cases = []
    for line in text.split(b"\n"):
        if line:
            value, result = loads(line)
            cases.append((line, value, result))
    return cases


def outcome(value: object) -> object:
    """pisession's answer in the goldens' terms: an int, None for NaN, or THROWS."""
    try:
        t = js_time_ms(value)
    except DateConversionError:
        return THROWS
    return None if t != t else t


def differences(cases) -> list[str]:
    found = []
    for line, value, expected in cases:
        got = outcome(value)
        if got != expected or type(got) is not type(expected):
            found.append(f"{line.decode('utf-8', 'replace')} -> pisession {got!r}")
    return found


@pytest.fixture(scope="module")
def golden_cases():
    return read_cases(GOLDEN.read_bytes())


def test_golden_file_covers_every_kind_of_value(golden_cases):
    assert len(golden_cases) >= 20_000
    assert GOLDEN.stat().st_size < 1_500_000
    values = [value for _, value, _ in golden_cases]
    results = [result for _, _, result in golden_cases]
    kinds = {type(v).__name__ for v in values}
    assert {"str", "int", "float", "bool", "NoneType", "list", "dict"} <= kinds
    assert THROWS in results
    numbers = sum(isinstance(r, int) for r in results)
    assert 0.2 < numbers / len(results) < 0.8  # both answers well represented


def test_every_golden_case_matches_node(golden_cases):
    found = differences(golden_cases)
    assert not found, f"{len(found)} of {len(golden_cases)} differ:\n" + "\n".join(found[:25])


# Values recorded with Node 20 (TZ=UTC); each is also in the goldens.
KNOWN = [
    ("2026-01-15T14:05:30.123Z", 1768485930123),
    ("Thu Jan 15 2026 14:05:30 GMT+0000 (Coordinated Universal Time)", 1768485930000),
    ("1/15/2026, 2:05:30 PM", 1768485930000),
    ("1/15/2026, 2:05:30\u202fPM", 1768485930000),  # ICU's narrow no-break space
    ("2026-1-1", 1767225600000),
    ("Dec 25, 2025 5:00 PM", 1766682000000),
    (" 2026-01-15", 1768435200000),
    ("2026-01-15 ", 1768435200000),
    (" 2026-01-15T14:05:30.123Z", None),  # the legacy pass rejects "T" after numbers
    ("0030-01-01", -61220448000000),  # ISO: year 30
    ("0030-01-01 00:00:00", None),  # legacy: month 30
    ("-000001-01-01T00:00:00Z", -62198755200000),
    ("-000004-02-29T00:00:00Z", -62288352000000),
    ("-000000-01-01T00:00:00Z", None),
    ("+275760-09-13T00:00:00.000Z", 8640000000000000),
    ("+275760-09-13T00:00:00.001Z", None),
    ("2026-02-31T00:00:00Z", 1772496000000),  # day 31 of February rolls over
    ("2026-01-01T24:00", 1767312000000),
    ("2026-01-01T00:00:00.0001234567891Z", 1767225600123),  # V8 skips leading zeros
    ("2026-01-01\u0000garbage", 1767225600000),  # NUL ends the input
    ("12", 1007164800000),  # month 12, day 1, year 1 -> 2001
    ("Jan\u20281 2026", 1767225600000),  # U+2028 is a word character in a date
    ("2026-01-01 00:00 GMT+1193047:", 1767223696000),  # the offset wraps around 2**32 s
    (["2026-01-01T00:00:00Z"], 1767225600000),
    ([1, 2], 978393600000),
    ([], None),
    ({}, None),
    (None, 0),
    (True, 1),
    (-1.9, -1),
    (8.64e15, 8640000000000000),
    (8.64e15 + 1, None),
]


@pytest.mark.parametrize(("value", "expected"), KNOWN)
def test_known_values(value, expected):
    assert outcome(value) == expected


@pytest.mark.parametrize("value", [{"toString": 1}, [{"toString": None}], [[{"toString": "x"}]]])
def test_objects_with_a_to_string_key_throw_as_in_javascript(value):
    with pytest.raises(DateConversionError, match="TypeError"):
        js_time_ms(value)


def test_numbers_beyond_doubles_and_negative_zero():
    assert js_time_ms(loads(b"-0")) == 0 and js_time_ms(-0.0) == 0
    assert js_time_ms([-0.0]) == js_time_ms("0") == 946684800000  # String(-0) is "0"
    assert math.isnan(js_time_ms(loads(b"1" + b"0" * 400)))
    assert math.isnan(js_time_ms([10**400]))  # "Infinity"
    assert date_argument([12345678901234567890, 0.1, 1e21]) == "12345678901234567000,0.1,1e+21"


def test_deeply_nested_arrays_are_joined_without_recursion():
    value = loads_deep("[" * 100_000 + '"2026-01-01T00:00:00Z"' + "]" * 100_000)
    assert js_time_ms(value) == 1767225600000


# --------------------------------------------------------------------------- properties


def _civil_from_days(days: int) -> tuple[int, int, int]:
    """Proleptic Gregorian (year, month, day) of a day number (H. Hinnant's algorithm)."""
    z = days + 719468
    era = z // 146097
    doe = z - era * 146097
    yoe = (doe - doe // 1460 + doe // 36524 - doe // 146096) // 365
    doy = doe - (365 * yoe + yoe // 4 - yoe // 100)
    mp = (5 * doy + 2) // 153
    day = doy - (153 * mp + 2) // 5 + 1
    month = mp + 3 if mp < 10 else mp - 9
    return yoe + era * 400 + (month <= 2), month, day


def _iso_text(ms: int, offset_minutes: int, fraction: bool) -> str:
    """``ms`` written as an ISO date-time at an offset (extended years where needed)."""
    local = ms + offset_minutes * 60_000
    days, rest = divmod(local, 86_400_000)
    year, month, day = _civil_from_days(days)
    hour, rest = divmod(rest, 3_600_000)
    minute, rest = divmod(rest, 60_000)
    second, milli = divmod(rest, 1000)
    y = f"{year:04d}" if 0 <= year <= 9999 else f"{'+' if year > 0 else '-'}{abs(year):06d}"
    text = f"{y}-{month:02d}-{day:02d}T{hour:02d}:{minute:02d}:{second:02d}"
    if fraction:
        text += f".{milli:03d}"
    if offset_minutes == 0:
        return text + "Z"
    sign = "+" if offset_minutes > 0 else "-"
    return text + f"{sign}{abs(offset_minutes) // 60:02d}:{abs(offset_minutes) % 60:02d}"


@settings(max_examples=400, deadline=None)
@given(
    ms=st.integers(-int(MAX_TIME_MS), int(MAX_TIME_MS)),
    offset=st.one_of(st.just(0), st.integers(-(23 * 60 + 59), 23 * 60 + 59)),
    fraction=st.booleans(),
)
def test_iso_text_of_any_time_value_reads_back(ms, offset, fraction):
    expected = ms if fraction else ms - ms % 1000
    assert js_time_ms(_iso_text(ms, offset, fraction)) == expected


def test_make_day_counts_every_day_from_year_minus_400_to_2400():
    previous = make_day(-401, 11, 31)
    for year in range(-400, 2401):
        for month in range(12):
            day = make_day(year, month, 1)
            assert day == previous + 1, (year, month)
            assert _civil_from_days(int(day)) == (year, month + 1, 1)
            previous = make_day(year, month + 1, 0)


@settings(max_examples=400, deadline=None)
@given(
    fields=st.tuples(*(st.integers(0, 99) for _ in range(5))),
    year=st.integers(0, 9999),
    ms=st.one_of(st.none(), st.integers(0, 999)),
)
def test_fast_path_agrees_with_the_parser(fields, year, ms):
    month, day, hour, minute, second = fields
    text = f"{year:04d}-{month:02d}-{day:02d}T{hour:02d}:{minute:02d}:{second:02d}"
    text += ("" if ms is None else f".{ms:03d}") + "Z"
    fast, slow = js_time_ms(text), date_parse(text)
    assert fast == slow or (fast != fast and slow != slow)


# --------------------------------------------------------------------------- live Node


def _node() -> str:
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed: the live comparison with V8 needs Node 20")
    version = subprocess.run([node, "--version"], capture_output=True, text=True).stdout.strip()
    if not version.startswith("v20."):
        pytest.skip(f"node {version} found: the goldens record Node 20's V8 (11.3)")
    return node


def _run(node: str, *args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess:
    env = {**os.environ, "TZ": "UTC"}
    return subprocess.run(
        [node, str(RECORDER), *args], input=stdin, capture_output=True, env=env, timeout=300
    )


def test_committed_goldens_still_match_live_node():
    done = _run(_node(), "check", str(GOLDEN))
    assert done.returncode == 0, done.stdout.decode() + done.stderr.decode()


def test_fresh_node_sample():
    node = _node()
    seed = random.SystemRandom().randrange(1, 2**31)
    done = _run(node, "sample", "--seed", str(seed), "--count", "3000")
    assert done.returncode == 0, done.stderr.decode()
    cases = read_cases(done.stdout)
    assert len(cases) >= 2900
    found = differences(cases)
    assert not found, f"seed {seed}: {len(found)} differ:\n" + "\n".join(found[:25])


_PIECES = [":", "::", ".", "-", "+", " ", ",", "/", "(", ")", "T", "t", "Z", "z", "am", "PM",
           "UTC", "gmt", "EST", "pdt", "Sep", "Sept", "december", "Mon", "x", "\t", "\u00a0",
           "\u2028", "\ufeff", "\u180e", "é", "\x00"]  # fmt: skip


def _random_value(rng: random.Random, strings: list[str]) -> object:
    """A value built in Python, independent of the JS generator."""
    k = rng.random()
    if k < 0.4:  # a golden string, edited
        chars = list(rng.choice(strings))
        for _ in range(rng.randint(1, 3)):
            i = rng.randint(0, len(chars))
            piece = rng.choice([*_PIECES, str(rng.randint(0, 9)), str(rng.randint(0, 99))])
            if chars and rng.random() < 0.4:
                del chars[min(i, len(chars) - 1)]
            else:
                chars[i:i] = [piece]
        return "".join(chars)
    if k < 0.75:  # numbers and pieces
        parts = []
        for _ in range(rng.randint(1, 10)):
            if rng.random() < 0.5:
                width = rng.choice([1, 2, 2, 3, 4, 4, 6, 8, 10])
                parts.append(str(rng.randint(0, 10**width - 1)).zfill(rng.choice([0, width])))
            else:
                parts.append(rng.choice(_PIECES))
        return "".join(parts)
    if k < 0.93:  # date-like fields in random orders
        seconds = rng.choice(
            ["", f":{rng.randint(0, 61):02d}", f":{rng.randint(0, 59)}.{rng.randint(0, 9999)}"]
        )
        fields = [
            rng.choice(["Jan", "Feb", "mar", "APRIL", "May", "jun", "Jul", "Aug", "sep", "Oct"]),
            str(rng.randint(0, 40)),
            str(rng.choice([rng.randint(0, 120), rng.randint(1000, 3000), rng.randint(0, 10**7)])),
            f"{rng.randint(0, 25)}:{rng.randint(0, 61):02d}{seconds}",
            rng.choice(["", "AM", "pm", "UTC", "GMT+1", "-0500", "+05:30", "(PST)", "Z", "EDT"]),
        ]
        rng.shuffle(fields)
        return rng.choice([" ", ", ", "-", "/", "T"]).join(fields)
    return rng.choice(
        [
            rng.randint(-(10**16), 10**16),
            rng.uniform(-1e16, 1e16),
            [rng.choice(strings)],
            [rng.randint(1, 12), rng.randint(1, 31), rng.randint(0, 3000)],
            [[rng.choice(strings)], None],
            {"valueOf": rng.choice(strings)},
            rng.random() < 0.5,
        ]
    )


def test_python_built_values_against_live_node(golden_cases):
    node = _node()
    seed = random.SystemRandom().randrange(1, 2**31)
    rng = random.Random(seed)
    strings = [v for _, v, _ in golden_cases if isinstance(v, str) and v]
    values = [_random_value(rng, strings) for _ in range(3000)]
    raw = "\n".join(json.dumps(v, ensure_ascii=True) for v in values).encode() + b"\n"
    done = _run(node, "record", "-", stdin=raw)
    assert done.returncode == 0, done.stderr.decode()
    cases = read_cases(done.stdout)
    assert len(cases) == len(values)
    found = differences(cases)
    assert not found, f"seed {seed}: {len(found)} differ:\n" + "\n".join(found[:25])


# --- local time in the process's zone (issue 31, item 4) -------------------------------

ZONES = ROOT / "data" / "jsdate" / "zones.json"


def _zones() -> dict:
    return json.loads(ZONES.read_text())


def _answers(values: list) -> list:
    return [None if (t := js_time_ms(v)) != t else t for v in values]


@pytest.mark.parametrize("zone", list(_zones()["zones"]))
def test_local_time_as_node_reads_it_in_each_zone(zone, monkeypatch):
    """Node's answers under ``TZ=zone`` (``conformance/jsdate.mjs zones``): DST changes
    both ways (a skipped or repeated time takes the offset before the change), local mean
    time before 1900, far years, and TZ values ICU does not read as a zone (UTC)."""
    recorded = _zones()
    monkeypatch.setenv("TZ", zone)
    got = _answers(recorded["values"])
    wrong = [
        (v, g, e) for v, g, e in zip(recorded["values"], got, recorded["zones"][zone]) if g != e
    ]
    assert not wrong, f"{len(wrong)} differ under TZ={zone!r}, first {wrong[:5]}"


def test_the_zones_tell_local_time_from_utc():
    zones = _zones()["zones"]
    differ = {z for z, answers in zones.items() if answers != zones["UTC"]}
    assert {"Europe/Berlin", "America/New_York", "Australia/Lord_Howe"} <= differ
    assert {"", "Bogus/Zone", "CET-1CEST,M3.5.0,M10.5.0/3"}.isdisjoint(differ)


def test_berlin_reads_ten_oclock_as_nine_utc(monkeypatch):
    monkeypatch.setenv("TZ", "Europe/Berlin")
    assert js_time_ms("2026-01-01T10:00:00") == js_time_ms("2026-01-01T09:00:00Z")
    assert js_time_ms("2026-01-01") == js_time_ms("2026-01-01T00:00:00Z")  # date-only: UTC
    assert js_time_ms("2026-03-29T02:30:00") == js_time_ms("2026-03-29T01:30:00Z")  # skipped
    assert js_time_ms("2026-10-25T02:30:00") == js_time_ms("2026-10-25T00:30:00Z")  # repeated


def test_the_zone_recordings_are_nodes_own():
    done = _run(_node(), "zones", "--stdout")
    assert done.returncode == 0, done.stderr.decode()
    live, recorded = json.loads(done.stdout), _zones()
    assert live["values"] == recorded["values"] and live["zones"] == recorded["zones"]


def test_without_tz_the_systems_zone_as_node_reads_it(monkeypatch):
    node = _node()
    values = _zones()["values"]
    env = {k: v for k, v in os.environ.items() if k != "TZ"}
    script = (
        "const v = JSON.parse(require('fs').readFileSync(0, 'utf8'));"
        "process.stdout.write(JSON.stringify(v.map((x) => {"
        "const t = new Date(x).getTime(); return Number.isNaN(t) ? null : t; })))"
    )
    done = subprocess.run(
        [node, "-e", script], input=json.dumps(values), capture_output=True, text=True, env=env
    )
    monkeypatch.delenv("TZ")
    assert _answers(values) == json.loads(done.stdout)


RECORD_IN_ZONE = """
const [, , recorder, file, zone] = process.argv; // argv[1] is "-": record.mjs runs as a CLI there
const { recordFile } = await import(recorder);
process.env.TZ = zone;
process.stdout.write(JSON.stringify(recordFile(file).cases[0].context));
"""


@pytest.mark.parametrize("zone", ["Europe/Berlin", "America/New_York", "Australia/Lord_Howe"])
def test_the_context_stamps_local_times_as_pi_does_in_the_zone(zone, monkeypatch):
    """Pi's own ``buildSessionContext`` run under ``TZ=zone`` on a file whose custom and
    summary entries carry date-times without an offset (at DST changes too)."""
    import pisession
    from pisession.js import json as jsjson

    node = _node()
    path = ROOT / "data" / "conformance" / "jsvalues" / "local-time-no-offset.jsonl"
    record = ROOT / "conformance" / "record.mjs"
    done = subprocess.run(
        [node, "--input-type=module", "-e", RECORD_IN_ZONE, "-", str(record), str(path), zone],
        capture_output=True,
        text=True,
    )
    if done.returncode and "not found" in done.stderr:
        pytest.skip("Pi is not installed (conformance/check.sh installs it)")
    monkeypatch.setenv("TZ", zone)
    ours = json.loads(jsjson.dumps(pisession.load(path).context().to_dict()))
    assert ours == json.loads(done.stdout)
    monkeypatch.setenv("TZ", "UTC")
    assert json.loads(jsjson.dumps(pisession.load(path).context().to_dict())) != ours
