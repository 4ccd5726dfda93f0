"""One header reader (``pisession.headers``): every command that reads a session file's
header from its first line gives the answer ``headers`` gives, and loading a file takes
the header that ``header_fault`` takes (issue 42: one route per answer)."""

from __future__ import annotations

import pytest

import pisession
from pisession import headers
from pisession.errors import SessionFormatError
from pisession.folders import discover, search, usage
from pisession.locate import header_id

FIRST_LINES = {
    "header": b'{"type":"session","version":3,"id":"s1","cwd":"/w","timestamp":"2026-01-01"}',
    "no id": b'{"type":"session","version":3,"cwd":"/w"}',
    "numeric id": b'{"type":"session","version":3,"id":7}',
    "another type": b'{"type":"message","id":"a"}',
    "an array": b'[{"type":"session","id":"s"}]',
    "byte order mark": b'\xef\xbb\xbf{"type":"session","version":3,"id":"s2","cwd":"/b"}',
    "malformed": b'{"type":"session",',
    "blank": b"",
    # what JSON.parse reads and msgspec alone refuses: Pi takes these headers
    "lone surrogate": b'{"type":"session","version":3,"id":"s3","cwd":"/\\ud800"}',
    "invalid UTF-8": b'{"type":"session","version":3,"id":"s4","cwd":"/\xff"}',
    "huge number": b'{"type":"session","version":3,"id":"s5","n":1e400}',
    "no newline": b'{"type":"session","version":3,"id":"s6"}',
}
ENTRY = b'{"type":"message","id":"m","parentId":null,"message":{"role":"user","content":"hi"}}\n'


def _file(tmp_path, name: str) -> tuple:
    first = FIRST_LINES[name]
    data = first if name == "no newline" else first + b"\n" + ENTRY
    path = tmp_path / "s.jsonl"
    path.write_bytes(data)
    return path, data


@pytest.mark.parametrize("name", sorted(FIRST_LINES))
def test_every_first_line_reader_agrees(tmp_path, name):
    path, data = _file(tmp_path, name)
    pi_takes = headers.session_header(path)
    tolerant = headers.session_header(path, bom=True)
    assert header_id(path) == (None if pi_takes is None else pi_takes["id"])
    assert discover.is_session_file(path) is (tolerant is not None)
    assert search._plain_header(data) is (pi_takes is not None)
    cwd = headers.header_field(path, "cwd", bom=True)
    assert usage.header_cwd(path) == (cwd if isinstance(cwd, str) else "")
    found = usage.file_header(path)
    value = headers.first_value(path, bom=True)
    assert (found is None) is (not isinstance(value, dict) or value.get("type") != "session")


@pytest.mark.parametrize("name", sorted(FIRST_LINES))
def test_loading_takes_what_header_fault_takes(tmp_path, name):
    """Where the first line is JSON (so that it is the first value the reader keeps),
    ``load`` accepts the file exactly when ``header_fault`` takes that value."""
    path, _ = _file(tmp_path, name)
    value = headers.first_value(path)
    if value is None:
        pytest.skip("the first line is no JSON value: the reader skips it")
    fault = headers.header_fault(value)
    try:
        session = pisession.load(path)
    except SessionFormatError as exc:
        assert fault is not None, exc
        expected = 'string "id"' if fault == headers.NO_ID else "not a session header"
        assert expected in str(exc)
    else:
        assert fault is None
        assert session.header == value


def test_the_first_line_is_read_alone():
    """A header over ``FIRST_LINE`` bytes is not read (Pi's header scan stops there)."""
    long = b'{"type":"session","id":"s","cwd":"' + b"x" * headers.FIRST_LINE + b'"}\n'
    assert headers.first_line(long) == long[: headers.FIRST_LINE]
    assert headers.session_header(long) is None
    assert headers.session_header(long[:40] + b'"}\n') is not None
