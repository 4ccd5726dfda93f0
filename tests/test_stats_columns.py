"""``counting.assistant_columns`` (assistant messages counted a column at a time, as the
reader counts them) gives what ``line_contribution`` gives line by line, or None, on
assistant lines of every shape: fields absent, null, of other types; several models
in a block; tool calls; the corpus's own lines."""

from __future__ import annotations

import json
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from pisession.engine.counting import STATS_DECODER, assistant_columns, line_contribution
from pisession.engine.schemas import CountedMessage

ROOT = Path(__file__).resolve().parent.parent

odd = st.sampled_from([None, "", 0, 1.5, [], {}, "x"])
absent = st.just("absent")
figure = st.one_of(st.integers(-3, 2**60), st.floats(allow_nan=False), absent, odd)
usage = st.one_of(
    absent,
    odd,
    st.fixed_dictionaries(
        {},
        optional={
            "input": figure,
            "output": figure,
            "cacheRead": figure,
            "cacheWrite": figure,
            "cost": st.one_of(odd, st.fixed_dictionaries({}, optional={"total": figure})),
        },
    ),
)
name = st.one_of(st.sampled_from(["p", "q", "m1", "m2"]), absent, odd)
block = st.one_of(st.fixed_dictionaries({"type": st.sampled_from(["text", "toolCall", 3])}), odd)
content = st.one_of(st.lists(block, max_size=4), absent, odd)


@st.composite
def assistant_line(draw) -> bytes:
    message = {"role": "assistant"}
    for key, value in (
        ("usage", draw(usage)),
        ("provider", draw(name)),
        ("model", draw(name)),
        ("responseModel", draw(name)),
        ("content", draw(content)),
    ):
        if value != "absent":
            message[key] = value
    line = {"type": "message", "id": "a", "message": message}
    stamp = draw(st.one_of(st.just("2026-01-01T00:00:00Z"), absent, odd))
    if stamp != "absent":
        line["timestamp"] = stamp
    return json.dumps(line).encode()


def _decoded(lines: list[bytes]) -> list:
    decoded = []
    for raw in lines:
        try:
            decoded.append(STATS_DECODER.decode(raw))
        except Exception:  # a line the reader reads in full (not through these columns)
            continue
    return [line for line in decoded if type(line.message) is CountedMessage]


def _same_as_line_by_line(lines: list) -> bool:
    columns = assistant_columns(lines)
    if columns is None:
        return False
    want = [repr(line_contribution(line)) for line in lines]
    assert [repr(row) for row in zip(*columns)] == want
    return True


@settings(max_examples=500, deadline=None)
@given(st.lists(assistant_line(), min_size=1, max_size=12))
def test_assistant_columns_are_line_contribution_or_none(lines):
    _same_as_line_by_line(_decoded(lines))


def test_the_usual_block_and_the_corpus_take_the_columns():
    usual = (
        b'{"type":"message","timestamp":"t","message":{"role":"assistant","provider":"p",'
        b'"model":"%s","content":[{"type":"toolCall"},{"type":"text"}],"usage":{"input":%d,'
        b'"output":1,"cacheRead":0,"cacheWrite":0,"cost":{"total":0.1}}}}'
    )
    lines = [usual % (b"m1" if k % 3 else b"m2", k) for k in range(20)]
    assert _same_as_line_by_line(_decoded(lines))
    found = 0
    for path in sorted((ROOT / "data").glob("**/*.jsonl")):
        rows = _decoded(path.read_bytes().split(b"\n"))
        mine = [r for r in rows if r.type == "message" and r.message.role == "assistant"]
        if mine and _same_as_line_by_line(mine):
            found += 1
    assert found > 50


number = st.one_of(st.integers(0, 2**60), st.floats(allow_nan=False), st.integers(-5, -1))
good_usage = st.fixed_dictionaries(
    {
        "input": number,
        "output": number,
        "cacheRead": number,
        "cacheWrite": number,
        "cost": st.fixed_dictionaries({"total": number}),
    }
)
model = st.sampled_from(["m1", "m2", "m3"])


@st.composite
def usual_line(draw) -> bytes:
    message = {"role": "assistant", "provider": draw(st.sampled_from(["p", "q"]))}
    message["model"] = draw(model)
    answered = draw(st.one_of(model, st.none(), st.just("absent")))
    if answered != "absent":
        message["responseModel"] = answered
    message["usage"] = draw(good_usage)
    message["content"] = draw(st.lists(block.filter(lambda b: isinstance(b, dict)), max_size=4))
    return json.dumps({"type": "message", "timestamp": "t", "message": message}).encode()


@settings(max_examples=300, deadline=None)
@given(st.lists(usual_line(), min_size=1, max_size=12))
def test_usual_assistant_lines_take_the_columns(lines):
    assert _same_as_line_by_line(_decoded(lines))
