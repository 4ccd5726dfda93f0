"""One set of line schemas (``pisession.engine.schemas``): the totals' view of a line is the
rule's view widened, so reading a file counting gives the same rows and diagnostics as
reading it plainly, on every file of the corpus and on odd lines (issue 42)."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_counting import ODD_USAGE_LINES

from pisession.engine import reader, schemas

ROOT = Path(__file__).resolve().parent.parent
CORPUS = sorted((ROOT / "data").glob("**/*.jsonl"))
CORE_COLUMNS = ("lines", "starts", "ends", "types", "ids", "parent_ids", "roles")


def test_the_counted_view_widens_the_core_view():
    core, counted = schemas.CoreLine.__struct_fields__, schemas.CountedLine.__struct_fields__
    assert issubclass(schemas.CountedLine, schemas.CoreLine)
    assert issubclass(schemas.CountedMessage, schemas.CoreMessage)
    assert counted[: len(core)] == core
    assert schemas.COUNTED.decode(b"{}").type is schemas.CORE.decode(b"{}").type


def _same_rows(data: bytes) -> None:
    plain, plain_diagnostics = reader.parse_lines(data)
    counting, counting_diagnostics = reader.parse_lines(data, counting=True)
    for name in CORE_COLUMNS:
        assert getattr(counting, name) == getattr(plain, name), name
    assert counting_diagnostics == plain_diagnostics
    assert plain.counted is None and counting.counted is not None


@pytest.mark.parametrize("path", CORPUS, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_counting_reads_the_rows_plain_reading_reads(path):
    _same_rows(path.read_bytes())


def test_odd_lines_read_alike_counting_or_not():
    header = b'{"type":"session","version":3,"id":"s"}\n'
    for line in ODD_USAGE_LINES:
        _same_rows(header + line.encode() + b"\n")
    _same_rows(header + "\n".join(ODD_USAGE_LINES).encode() + b"\n")
