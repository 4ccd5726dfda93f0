"""``to_records()``: the answers a notebook tabulates (fates, a projection, usage, search
hits) as plain lists of dicts with plain values, which pandas and polars take as they
are; each record says what the object it comes from says."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import pisession

ROOT = Path(__file__).resolve().parent.parent
FILES = sorted((ROOT / "data" / "conformance" / "edge").glob("*.jsonl"))[:60] + sorted(
    (ROOT / "data" / "samples").glob("*.jsonl")
)
PLAIN = (str, int, float, bool, type(None))


def _session(path):
    try:
        session = pisession.load(path)
        session.fates()
    except pisession.PisessionError:
        return None
    return session


@pytest.mark.parametrize("path", [p for p in FILES if _session(p)], ids=lambda p: p.stem)
def test_fate_and_projection_records_say_what_the_objects_say(path):
    session = _session(path)
    fates = session.fates()
    records = fates.to_records()
    assert [r["fate"] for r in records] == list(fates.names)
    assert [(r["line"], r["reached"], r["reason"]) for r in records] == [
        (f.line, f.reached_model, f.reason) for f in fates
    ]
    projection = session.projection()
    rows = projection.to_records()
    assert [r["position"] for r in rows] == [i.position for i in projection.items]
    assert sum(r["messages"] for r in rows) == len(projection.messages)
    for table in (records, rows):
        assert all(type(v) in PLAIN for r in table for v in r.values())
        assert json.loads(json.dumps(table)) == table


def test_a_data_frame_takes_the_records_as_they_are():
    pandas = pytest.importorskip("pandas")
    fates = pisession.load(pisession.sample_path("tour")).fates()
    frame = pandas.DataFrame(fates.to_records())
    assert list(frame["fate"]) == list(fates.names)
