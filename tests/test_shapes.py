"""Message lines read into structs (``pisession.engine.shapes``) only when that is exact.

The writer reads a block of plain message lines into structs of the keys Pi writes when
encoding them again gives the block back byte for byte. These tests mix lines as Pi
writes them with lines that differ in every way a struct could hide (key order,
duplicate keys, whitespace, escapes, number text, other keys and roles, integer-like
keys, long integers, lone surrogates) and compare the writer's text with the slow,
exact writer (``Context.to_json``), block sizes small so that blocks mix both.
"""

from __future__ import annotations

import json
import random

import pytest

import pisession
from pisession.engine import shapes, stream

HEADER = b'{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/"}'

USAGE = (
    b'{"input":10,"output":5,"cacheRead":0,"cacheWrite":0,"reasoning":0,"totalTokens":15,'
    b'"cost":{"input":0.0001,"output":0.0002,"cacheRead":0,"cacheWrite":0,"total":0.0003}}'
)
#: messages as Pi writes them (accepted as they are)
AS_PI_WRITES = [
    b'{"role":"user","content":[{"type":"text","text":"run the tests"}],"timestamp":1767225600000}',
    b'{"role":"user","content":"plain text \\u001f \\"quoted\\" \\\\ \xe2\x80\xa8","timestamp":1}',
    b'{"role":"assistant","content":[{"type":"thinking","thinking":"hm","thinkingSignature":"s"},'
    b'{"type":"text","text":"ok"},{"type":"toolCall","id":"c1","name":"bash","arguments":'
    b'{"command":"ls","n":[1,2.5,{"x":null}]}}],"api":"x","provider":"p","model":"m","usage":'
    + USAGE
    + b',"stopReason":"toolUse","timestamp":2,"responseId":"r","rawStopReason":"tool_use"}',
    b'{"role":"assistant","content":[],"api":"x","provider":"p","model":"m","usage":'
    + USAGE
    + b',"stopReason":"error","timestamp":3,"errorMessage":"boom"}',
    b'{"role":"toolResult","toolCallId":"c1","toolName":"bash","content":[{"type":"text",'
    b'"text":"out"},{"type":"image","data":"AAAA","mimeType":"image/png"}],"details":'
    b'{"exit":0,"nested":[[],{}]},"isError":false,"timestamp":4}',
    b'{"role":"system","content":"sys","sections":[{"id":"base","text":"t"}],"timestamp":5,'
    b'"toolsAdded":["bash"]}',
    b'{"role":"assistant","content":[{"type":"text","text":"x"}],"api":"x","provider":"p",'
    b'"model":"m","usage":{"input":3,"output":1,"cacheRead":0,"cacheWrite":0,"totalTokens":4,'
    b'"cost":{"input":0.0019489999999999998,"output":0,"cacheRead":0,"cacheWrite":0,'
    b'"total":0.0019489999999999998}},"stopReason":"stop","timestamp":6}',
    # as Pi 1.6.0's command line writes them (data/realcli/1.6.0)
    b'{"role":"assistant","content":[{"type":"toolCall","id":"c2","name":"read","arguments":{},'
    b'"argumentsError":"bad","namespace":"fs","thoughtSignature":"t"}],"api":"x","provider":"p",'
    b'"model":"m","usage":{"input":1,"output":1,"cacheRead":0,"cacheWrite":0,"totalTokens":2,'
    b'"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0,"totalFromProvider":0},'
    b'"cacheWrite1h":0},"stopReason":"toolUse","timestamp":7,"responseId":"r","responseModel":'
    b'"m2","providerThinkingLevel":"high","endTurn":false,"durationMs":12,"thinkingLevel":"high"}',
    b'{"role":"toolResult","toolCallId":"c2","toolName":"read","content":[],"isError":true,'
    b'"durationMs":3,"timestamp":8,"nestedCalls":[],"usage":{"input":1,"output":0,'
    b'"cacheRead":0,"cacheWrite":0,"totalTokens":1,"cost":{"total":0}}}',
    b'{"role":"bashExecution","command":"pwd","output":"a","exitCode":0,"cancelled":false,'
    b'"truncated":false,"timestamp":9,"excludeFromContext":true}',
    b'{"role":"custom","customType":"note","content":"c","display":true,"timestamp":10}',
]
#: each replaces the first text of the left by the right: what a struct could hide
CHANGES = [
    (b'"role":"user","content":', b'"role": "user","content":'),  # whitespace
    (b'{"role":"user","content":[{"type":"text",', b'{"content":[{"type":"text",'),  # order
    (b'"timestamp":1767225600000}', b'"timestamp":1767225600000,"role":"user"}'),
    (b'"timestamp":1767225600000}', b'"timestamp":1767225600000,"timestamp":5}'),  # dup key
    (b'"timestamp":1767225600000}', b'"timestamp":1767225600000,"role":"assistant"}'),
    (b'"timestamp":1767225600000}', b'"timestamp":1767225600000,"extra":1}'),  # other key
    (b'"timestamp":1767225600000}', b'"timestamp":1767225600000.0}'),  # number text
    (b'"timestamp":1}', b'"timestamp":1e2}'),
    (b'"timestamp":1}', b'"timestamp":-0}'),
    (b'"timestamp":2,', b'"timestamp":0.10,'),
    (b'"cacheRead":0,"cacheWrite":0,"total"', b'"cacheRead":0E0,"cacheWrite":0,"total"'),
    (b'"text":"ok"', b'"text":"\\u006fk"'),  # escapes
    (b'"text":"ok"', b'"text":"o\\/k"'),
    (b'"text":"ok"', b'"text":"\\ud800"'),  # a lone surrogate
    (b'"text":"ok"', b'"text":"\\u2028"'),
    (b"\\u001f", b"\\u001F"),
    (b'"command":"ls"', b'"command":"ls","command":"rm"'),
    (b'"role":"toolResult"', b'"role":"hookMessage"'),  # another role
    (b'{"type":"image"', b'{"type":"audio"'),  # another block
    (b'"content":[],"api"', b'"api"'),  # no content
    (b'"content":[],"api"', b'"content":null,"api"'),
    (b'"usage":{"input":10,', b'"usage":{"input":10,"extra":{},'),
    (b'"details":{"exit":0,', b'"details":{"exit":0 ,'),
    (b'"content":"sys"', b'"content":null'),
    (b'"isError":true,"durationMs":3', b'"durationMs":3,"isError":true'),
    (b'"durationMs":12,"thinkingLevel":"high"', b'"thinkingLevel":"high","durationMs":12'),
    (b'"command":"pwd",', b'"command":"pwd","command":"rm",'),
    (b'"display":true,', b'"display":true,"extra":1,'),
    (b'"content":"sys"', b'"content":["sys"]'),
]
#: changes the structs keep, which the writer then sends the exact way (JavaScript writes
#: integer-like keys first and long integers as doubles), or writes as they are
KEPT = [
    (b'"timestamp":1}', b'"timestamp":12345678901234567890}'),
    (b'"command":"ls"', b'"7":"ls"'),
    (b'"isError":false', b'"isError":0'),
    (b'"toolsAdded":["bash"]}', b'"toolsAdded":["bash"],"toolsRemoved":[]}'),
    (b'"sections":[{"id":"base","text":"t"}],', b""),
    (b'"content":"plain', b'"content":"\xf0\x9f\x98\x80 plain'),
]


def _changed(changes: list) -> list[bytes]:
    """Each message of ``AS_PI_WRITES`` that holds a change's left side, with it made."""
    return [m.replace(old, new, 1) for old, new in changes for m in AS_PI_WRITES if old in m]


def _line(number: int, parent: int | None, message: bytes) -> bytes:
    parent_id = b"null" if parent is None else b'"%08x"' % parent
    return (
        b'{"type":"message","id":"%08x","parentId":%s,"timestamp":"2026-01-01T00:00:00.000Z",'
        b'"message":%s}' % (number, parent_id, message)
    )


def _session(rng: random.Random, count: int, changed: float) -> bytes:
    lines = [HEADER]
    for number in range(count):
        message = rng.choice(AS_PI_WRITES)
        if rng.random() < changed:
            old, new = rng.choice([c for c in CHANGES + KEPT if c[0] in message] or [(b"", b"")])
            message = message.replace(old, new, 1)
        lines.append(_line(number, number - 1 if number else None, message))
    return b"\n".join(lines) + b"\n"


@pytest.mark.parametrize("seed", range(30))
def test_the_writer_with_structs_writes_what_the_exact_writer_writes(monkeypatch, seed):
    rng = random.Random(seed)
    data = _session(rng, rng.randrange(1, 80), rng.choice([0.0, 0.05, 0.3]))
    monkeypatch.setattr(stream, "BLOCK", rng.choice([1, 3, 8, 4096]))
    session = pisession.loads(data)
    for indent in (2, None):
        expected = session.context().to_json(indent).encode()
        assert b"".join(session.context_json(None, indent)) == expected


def test_blocks_as_pi_writes_them_are_written_from_the_structs(monkeypatch):
    """Lines as Pi writes them (a system message, a cost with 17 digits after the point
    among them) need neither dicts nor the exact writer."""

    class Refused:
        def decode_lines(self, raw):
            pytest.fail("read into dicts")

        decode = decode_lines

    data = _session(random.Random(1), 600, 0.0)
    expected = pisession.loads(data).context().to_json(2).encode()
    monkeypatch.setattr(stream, "BLOCK", 64)
    monkeypatch.setattr(stream, "_message_lines", Refused())
    monkeypatch.setattr(stream, "_exact", lambda *a: pytest.fail("the exact writer was asked"))
    assert b"".join(pisession.loads(data).context_json()) == expected


def test_lines_as_pi_writes_them_are_read_into_structs_and_the_others_are_not():
    decode_lines = shapes.LINES.decode_lines
    for message in AS_PI_WRITES:
        assert None not in decode_lines(_line(1, None, message))
    for changed in _changed(CHANGES):
        assert json.loads(changed.decode("utf-8", "surrogatepass")) is not None
        assert decode_lines(_line(1, None, changed)) == [None], changed
    for kept in _changed(KEPT):
        assert None not in decode_lines(_line(1, None, kept))
    # one refused line refuses its block; a line alone too
    block = b"\n".join(_line(n, None, AS_PI_WRITES[0]) for n in range(3))
    assert len(decode_lines(block)) == 3 and None not in decode_lines(block)
    assert decode_lines(block.replace(b'"role":"user"', b'"role": "user"', 1)) == [None] * 3
    assert shapes.LINES.decode(_line(1, None, AS_PI_WRITES[0])).message.timestamp == 1767225600000
    assert shapes.LINES.decode(b'{"type":"message"}\n{}') is None
    assert shapes.LINES.decode(memoryview(b'{"type":"message"}\n{}')) is None
