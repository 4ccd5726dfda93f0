"""The reader finds a window's lines a span at a time (``reader._SPAN`` bytes of whole
lines, so their offsets are never all held at once): the same rows and diagnostics
whatever the span."""

from __future__ import annotations

from test_benchmark_tools import ODD_LINES, generated

from pisession.engine import reader


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
