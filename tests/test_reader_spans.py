"""The reader finds a window's lines a span at a time (``reader._SPAN`` bytes of whole
lines), in C (``line_spans``): the same lines as ``js.json.line_bounds`` finds, and the
same rows and diagnostics whatever the span."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from test_benchmark_tools import ODD_LINES, generated

from pisession.engine import reader
from pisession.js.json import line_bounds

texts = st.lists(st.sampled_from([b"", b"\n", b"{}", b"a", b"\r", b" ", b"\n\n"]), max_size=30)


@settings(max_examples=400, deadline=None)
@given(texts, st.integers(0, 5), st.integers(0, 5))
def test_line_spans_are_line_bounds(pieces, cut_lo, cut_hi):
    data = b"".join(pieces)
    lo = min(cut_lo, len(data))
    hi = max(lo, len(data) - cut_hi)
    assert reader.line_spans(data, lo, hi) == line_bounds(data, lo, hi)
    assert reader.line_spans(bytearray(data), lo, hi) == line_bounds(data, lo, hi)


def _rows(parsed, diagnostics):
    columns = [list(c) for c in parsed._columns()]
    return columns, parsed.values, repr(parsed.counted), diagnostics


def test_any_span_reads_the_same_rows_and_diagnostics(monkeypatch):
    lines = generated(1500, seed=2).split(b"\n")
    for k, line in enumerate(ODD_LINES):
        lines.insert(1 + k * 50, line)
    lines.insert(700, b'{"type":"x","pad":"' + b"y" * 5000 + b'"}')  # longer than a span
    data = b"\n".join(lines) + b'\n{"type":"cut'  # and a last line without its newline
    whole = _rows(*reader.parse_lines(data, counting=True))
    slow = _rows(*reader.parse_lines(data, fast=False))
    assert whole[3] == slow[3] and any(d.kind == "malformed" for d in whole[3])
    for span in (64, 1000, 4096):
        monkeypatch.setattr(reader, "_SPAN", span)
        assert _rows(*reader.parse_lines(data, counting=True)) == whole
        assert _rows(*reader.parse_lines(data, fast=False)) == slow
    counted = reader.parse_lines(data, counting=True)[0].counted
    assert counted is not None and len(counted) > 0
