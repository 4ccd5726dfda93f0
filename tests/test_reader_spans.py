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


def test_lines_read_again_come_with_their_bytes_or_their_neighbours(tmp_path):
    """``LineStore.values`` reads lines far from each other alone (their bytes, not a
    window each) and lines near each other together (one read): the same values either
    way, and each read ends at a line's newline (a changed file is still noticed)."""
    from pisession.engine import store

    lines = [b'{"n":%d,"pad":"%s"}' % (n, b"x" * (200 + n % 700)) for n in range(3000)]
    data = b"\n".join(lines) + b"\n"
    path = tmp_path / "lines.jsonl"
    path.write_bytes(data)
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line) + 1)
    ranges = [(starts[n], starts[n] + len(lines[n])) for n in range(3000)]
    held = store.LineStore(data)
    read = store.LineStore(path=str(path), size=len(data))
    reads: list[tuple[int, int]] = []
    real = read._pread
    read._pread = lambda at, size: (reads.append((at, size)), real(at, size))[1]  # type: ignore[method-assign]
    asked = [0, 1, 2, 40, 41, 1500, 1501, 2999, 700, 701]
    assert read.values([ranges[n] for n in asked]) == held.values([ranges[n] for n in asked])
    # 0-41: one read (near each other); 1500, 2999, then 700 (back): one read each
    assert len(reads) == 4
    wanted = {n for n in asked}
    for at, size in reads:
        assert data[at + size - 1 : at + size] == b"\n"  # ends at a newline
        first = starts.index(at)
        assert first in wanted  # starts at a line asked for, not at a window's start
    far = [size for at, size in reads if starts.index(at) in (1500, 2999)]
    assert far == [len(lines[1500]) + len(lines[1501]) + 2, len(lines[2999]) + 1]
