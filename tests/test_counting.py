"""Counting while reading (``load(..., counting=True)``, what ``pisession stats`` and
``export`` do) gives every entry the statistics it gets when they are worked out later
from the entries, on every file of the corpus and on odd lines, whole or in halves; and
the shortcuts behind the statistics and the text helpers agree with plain versions."""

from __future__ import annotations

import json
import math
import re
from collections import Counter
from functools import reduce
from operator import add
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_benchmark_tools import ODD_LINES, generated
from test_stats_reading import ODD, USAGE

import pisession
from pisession.build import session_bytes
from pisession.engine import reader
from pisession.engine.stats import COLUMNS, COUNTED, entry_contribution, session_stats, summed
from pisession.js.value import UNDEFINED, js_number_value
from pisession.views import text
from pisession.views.explain import role_counts

ROOT = Path(__file__).resolve().parent.parent
CORPUS = sorted((ROOT / "data").glob("**/*.jsonl"))

#: Lines whose usage or content the counting decoder refuses (then decoded in full).
ODD_USAGE_LINES = [
    '{"type":"message","id":"h1","parentId":null,"message":{"role":"assistant",'
    '"usage":{"input":123456789012345678901234567890,"cost":{"total":1e400}}}}',
    '{"type":"message","id":"h2","parentId":null,"message":{"role":"assistant",'
    '"usage":{"input":-0.0,"output":1E2,"cost":{"total":-0}}}}',
    '{"type":"usage","id":"h3","parentId":null,"usage":{"cost":[1],"input":null}}',
    '{"type":"message","id":"h4","parentId":null,"message":"not an object"}',
    '{"type":{"an":"object"},"id":"h5","parentId":null,"usage":{"input":1}}',
    '{"type":"message","id":"h6","parentId":null,"message":{"role":["x"],"usage":{}}}',
]


def _stats_both_ways(data: bytes) -> tuple:
    counting = pisession.load(data, counting=True)
    later = pisession.load(data)
    assert counting.migrated or counting.file._rows.parsed.counted is not None
    return counting, later


@pytest.mark.parametrize("path", CORPUS, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_counting_while_reading_equals_counting_later_on_the_corpus(path):
    try:
        pisession.load(path)
    except pisession.SessionFormatError as exc:  # no session in it: the same error
        with pytest.raises(pisession.SessionFormatError, match=re.escape(exc.reason)):
            pisession.load(path, counting=True)
        return
    counting, later = _stats_both_ways(path.read_bytes())
    assert counting.counted == later.counted
    if counting.migrated:  # entries rewritten by the migration: counted from them
        return
    rows = [repr(entry_contribution(entry)) for entry in counting.entries]
    dense = counting.counted.dense(counting.index.types, counting.index.roles)
    assert len(dense) == len(COLUMNS) and [repr(row) for row in zip(*dense)] == rows


@pytest.mark.parametrize("shape", range(len(ODD)))
def test_counting_while_reading_counts_odd_shapes_as_the_full_entries(shape):
    entries = [{"type": "message", "message": ODD[shape]}]
    entries += [{"type": "usage", "kind": "x", "usage": USAGE}, {"type": "usage", "usage": 7}]
    chain = [
        {"id": f"e{i}", "parentId": f"e{i - 1}" if i else None, **e} for i, e in enumerate(entries)
    ]
    data = session_bytes(*chain, *ODD_USAGE_LINES)
    counting, later = _stats_both_ways(data)
    expected = session_stats(counting.entries).to_dict()
    assert counting.stats().to_dict() == later.stats().to_dict() == expected
    assert counting.stats(None, branch=True) == later.stats(None, branch=True)


def _counted_rows(parsed) -> list:
    dense = parsed.whole_counted().dense(parsed.types, parsed.roles)
    assert len(dense) == len(COLUMNS) and all(len(column) == len(parsed) for column in dense)
    return [repr(row) for row in zip(*dense)]


@pytest.mark.parametrize("workers", ["1", "2"])
def test_counting_in_halves_and_chunks_equals_reading_whole(tmp_path, monkeypatch, workers):
    lines = generated(3000, seed=8).split(b"\n")
    odd = [*ODD_LINES, *(line.encode() for line in ODD_USAGE_LINES)]
    for k, line in enumerate(odd):
        lines.insert(1 + k * 97, line)
    data = b"\n".join(lines)
    whole, _ = reader.parse_lines(data, counting=True)
    slow, _ = reader.parse_lines(data, fast=False, counting=True)
    assert _counted_rows(whole) == _counted_rows(slow)
    assert 0 < len(whole.counted) < len(whole)  # the plain rows are not kept
    path = tmp_path / "s.jsonl"
    path.write_bytes(data)
    with open(path, "rb") as handle:
        chunked, _ = reader.parse_file(handle, len(data), 1 << 12, counting=True)
    assert _counted_rows(chunked) == _counted_rows(whole)
    monkeypatch.setenv("PISESSION_WORKERS", workers)
    halves, _ = reader.parse_halves(str(path), len(data), counting=True)
    # (a helper's rows come pickled, joined when asked for)
    assert (halves.counted_later is not None) == (workers == "2")
    assert _counted_rows(halves) == _counted_rows(whole)
    monkeypatch.setattr(reader, "CHUNK", 1 << 16)  # a "big" file: chunks, halves, no bytes kept
    counting, later = pisession.load(path, counting=True), pisession.load(path)
    assert counting.file._store.data is None
    assert counting.counted == later.counted
    assert counting.stats().tool_calls > 0 and counting.stats().usage.cost > 0


@pytest.mark.parametrize("workers", ["1", "2"])
def test_counting_after_loading_reads_the_file_again_as_counting_while_reading(
    tmp_path, monkeypatch, workers
):
    """A session read without counting is counted when first asked, by reading its file
    again through the reader (in chunks, in halves): the same columns, one route."""
    from pisession.engine import stats

    lines = generated(3000, seed=3).split(b"\n")
    lines[1:1] = [line.encode() for line in ODD_USAGE_LINES]
    data = b"\n".join(lines)
    one = pisession.loads(data).counted
    assert one == pisession.load(data, counting=True).counted
    path = tmp_path / "s.jsonl"
    path.write_bytes(data)
    monkeypatch.setenv("PISESSION_WORKERS", workers)
    monkeypatch.setattr(reader, "CHUNK", 1 << 16)  # a "big" file: chunks, halves, no bytes kept
    halves = pisession.load(path)
    assert halves.file._rows.parsed.counted is None and halves.file._store.data is None
    assert halves.counted == one
    path_rows = [p for p in range(len(halves)) if p % 3]
    dense = one.dense(halves.index.types, halves.index.roles)
    assert halves.stats(None, branch=False) == stats.summed_columns(dense)
    picked = [[list(c) for c in stats.on_path(dense, p)] for p in (path_rows, path_rows[::-1])]
    assert picked[0] == [[column[p] for p in path_rows] for column in dense]
    assert picked[1] == [column[::-1] for column in picked[0]]


def test_counting_again_notices_a_file_that_changed(tmp_path, monkeypatch):
    path = tmp_path / "s.jsonl"
    path.write_bytes(generated(300, seed=4))
    monkeypatch.setattr(reader, "CHUNK", 1 << 12)
    session = pisession.load(path)
    path.write_bytes(b"\n" + generated(300, seed=4))  # every line one byte later
    with pytest.raises(pisession.SessionFormatError, match="changed since it was read"):
        session.stats()


def test_the_kept_rows_sum_to_the_statistics_of_every_row_on_any_path():
    """``Counted`` keeps the rows that add more than their type and role say; the
    statistics summed from it (``counted_stats``) equal those of every row (the dense
    columns, ``summed_columns``), for the whole session and for paths in and out of file
    order, with odd lines among them."""
    import random

    from pisession.engine import stats

    lines = generated(2000, seed=11).split(b"\n")
    lines[1:1] = [line.encode() for line in ODD_USAGE_LINES]
    session = pisession.load(b"\n".join(lines), counting=True)
    types, roles = session.index.types, session.index.roles
    counted = session.counted
    dense = counted.dense(types, roles)
    assert 0 < len(counted) < len(session)
    plain = [p for p in range(len(session)) if p not in set(counted.rows)]
    assert all(
        repr(tuple(c[p] for c in dense)) == repr(stats.plain_row(types[p], roles[p])) for p in plain
    )
    pick = random.Random(3)
    paths = [None, list(range(len(session))), session.path_positions(), []]
    paths += [sorted(pick.sample(range(len(session)), 700)) for _ in range(3)]
    paths += [pick.sample(range(len(session)), 500) for _ in range(3)]  # out of file order
    for path in paths:
        columns = dense if path is None else [list(c) for c in stats.on_path(dense, path)]
        want = stats.summed_columns(columns)
        got = stats.counted_stats(counted, types, roles, path)
        assert repr(got) == repr(want)


def test_a_file_of_rows_that_add_nothing_keeps_no_counted_row():
    """The tiny lines of the memory benchmark (and labels, user messages...) keep no
    counted row: their statistics come from the types and roles alone."""
    data = b'{"type":"session","version":3,"id":"s"}\n' + b'{"type":"x"}\n' * 1000
    session = pisession.load(data, counting=True)
    assert len(session.counted) == 0 and session.stats().total_messages == 0
    user = b'{"type":"message","id":"u","parentId":null,"message":{"role":"user"}}\n'
    session = pisession.load(data + user * 10, counting=True)
    assert len(session.counted) == 0 and session.stats().user_messages == 10


def test_stats_and_export_count_while_reading(monkeypatch):
    """The two commands that show statistics ask for them while the file is read."""
    from pisession import cli

    asked = []
    real = pisession.load

    def load(*args, **kwargs):
        asked.append(kwargs.get("counting", False))
        return real(*args, **kwargs)

    monkeypatch.setattr(pisession, "load", load)
    for command in (["stats"], ["export", "--format", "md"], ["context"]):
        cli.main([*command, str(pisession.sample_path("tour"))])
    assert asked == [True, True, False]


# --- the shortcuts agree with plain versions ------------------------------------------------

numbers = st.one_of(
    st.integers(-(2**60), 2**60),
    st.sampled_from([10**400, -(10**400)]),
    st.floats(allow_nan=False, allow_infinity=True),
    st.sampled_from([0, 0.0, -0.0]),
)
rows = st.lists(st.tuples(*[numbers] * 5, *[st.integers(0, 3)] * 6).map(tuple), max_size=40)


@settings(max_examples=300, deadline=None)
@given(rows)
def test_summed_adds_as_javascript_does(contributions):
    figures = summed(contributions)
    columns = [[row[k] for row in contributions] for k in range(len(COUNTED))]
    as_javascript = [reduce(add, map(js_number_value, column), 0.0) for column in columns[:5]]
    got = list(vars(figures.usage).values())
    assert [repr(float(x)) for x in got] == [repr(x) for x in as_javascript]
    for total, column in zip(got, columns):  # an integer when every number is one
        exact = math.isfinite(total) and abs(total) <= 2**53
        assert type(total) is int or not all(type(x) is int for x in column) or not exact
    assert figures.total_messages == sum(columns[5])


unsafe_text = st.text(
    st.sampled_from(
        list("ab \t\n\r\x0b\x0c\x1c\x1f\x1b[]0;m\x07\\\u00a0\u200e\u202e\u2028\u3000\ufeff\x85é中")
    ),
    max_size=200,
)


@settings(max_examples=500, deadline=None)
@given(unsafe_text)
def test_text_shortcuts_equal_the_plain_expressions(value):
    assert text.visible(value) == text.UNSAFE.sub(text._escape, value)
    stripped = text._UNSAFE_IN_TEXT.sub("", text.ANSI.sub("", value).replace("\t", " "))
    assert text.strip_unsafe(value) == stripped
    line = text.strip_unsafe(re.sub(r"\s+", " ", value)).strip()
    for width in (1, 3, 8, 60, 80):
        expected = line if len(line) <= width else line[: width - 1].rstrip() + "…"
        assert text.one_line(value, width) == expected


def test_role_counts_in_c_equal_the_loop():
    lines = [
        '{"type":"message","id":"a","parentId":null,"message":{"role":"user"}}',
        '{"type":"message","id":"b","parentId":"a","message":{"role":5}}',
        '{"type":"message","id":"c","parentId":"b","message":{"role":"assistant"}}',
        '{"type":"message","id":"d","parentId":"c","message":{"role":{"o":1}}}',
        '{"type":"message","id":"e","parentId":"d","message":null}',
        '{"type":"label","id":"f","parentId":"e","message":{"role":"user"}}',
    ]
    for upto in range(1, len(lines) + 1):
        session = pisession.loads(session_bytes(*lines[:upto]))
        expected: Counter = Counter()
        for p in range(len(session)):
            if session.index.types[p] == "message":
                role = session.index.roles[p]
                expected[role if isinstance(role, str) else "(no role)"] += 1
        got = role_counts(session, range(len(session)))
        assert list(got.items()) == list(expected.items())


def test_counted_rows_after_a_second_header_are_renumbered():
    """A second session header is no entry (Pi drops it): the kept rows after it move up
    by one, and still belong to their own entries."""
    usage = {"input": 2, "output": 1, "cacheRead": 0, "cacheWrite": 0, "cost": {"total": 0.5}}
    assistant = {"role": "assistant", "provider": "p", "model": "m", "content": [], "usage": usage}
    lines = [
        {"type": "message", "id": "a", "parentId": None, "message": {"role": "user"}},
        {"type": "message", "id": "b", "parentId": "a", "message": assistant},
        {"type": "session", "version": 3, "id": "s2", "timestamp": "t", "cwd": "/"},
        {"type": "message", "id": "c", "parentId": "b", "message": {**assistant, "model": "n"}},
        {"type": "usage", "id": "d", "parentId": "c", "usage": usage, "provider": "q"},
    ]
    session = pisession.load(session_bytes(*lines), counting=True)
    assert len(session) == 4 and list(session.counted.rows) == [1, 2, 3]
    dense = session.counted.dense(session.index.types, session.index.roles)
    want = [repr(entry_contribution(entry)) for entry in session.entries]
    assert [repr(row) for row in zip(*dense)] == want
    assert session.stats().to_dict() == session_stats(session.entries).to_dict()


def _counts_more_plainly(kind, role, usage, no_message) -> bool:
    """Whether a row can add more than its type and role say, read as the rule reads it."""
    from pisession.engine.stats import COUNTING_KINDS

    if type(kind) is str and kind not in COUNTING_KINDS:
        return False
    if kind == "message" and role is not no_message:
        return role == "assistant" or (role == "toolResult" and usage not in (None, UNDEFINED))
    return True


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["message", "usage", "compaction", "label", "custom", 7, None]),
            st.sampled_from(["user", "assistant", "toolResult", "system", 3, None, "NO", "LIST"]),
            st.sampled_from([None, "absent", {"input": 1}]),
        ),
        max_size=40,
    )
)
def test_the_rows_kept_are_the_rows_that_count_more(rows):
    """``counting._counting_rows`` (each (type, role) looked up once) keeps the rows the
    plain reading of the rule keeps, unhashable roles and a missing message included."""
    from pisession.engine import counting
    from pisession.engine.schemas import COUNTED
    from pisession.tree import NO_MESSAGE

    marks = {"NO": NO_MESSAGE, "LIST": ["a"]}
    types = [kind for kind, _, _ in rows]
    roles = [marks.get(role, role) if type(role) is str else role for _, role, _ in rows]
    lines = []
    for kind, role, usage in rows:
        message = {} if usage == "absent" else {"usage": usage}
        if type(role) is not str or role not in marks:
            message["role"] = role
        lines.append(COUNTED.decode(json.dumps({"type": kind, "message": message})))
    usages = [line.message.usage for line in lines]
    expected = [
        k
        for k in range(len(rows))
        if _counts_more_plainly(types[k], roles[k], usages[k], NO_MESSAGE)
    ]
    assert counting._counting_rows(types, roles, lines, NO_MESSAGE) == expected


def test_counted_rows_sent_pickled_come_back_the_same():
    """A helper's columns travel pickled, their counted rows apart (joined where first
    asked for): unpickled on their own, they are the same rows and figures."""
    import pickle

    data = generated(300, seed=4) + b"\n" + "\n".join(ODD_USAGE_LINES).encode() + b"\n"
    parsed, _ = reader.parse_lines(data, counting=True)
    sent = pickle.loads(pickle.dumps(parsed, pickle.HIGHEST_PROTOCOL))
    assert sent.counted is None and sent.counted_later is not None
    assert sent.whole_counted() == parsed.whole_counted() and sent.counted_later is None
