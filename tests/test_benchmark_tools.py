"""The benchmark tools: the session generator, the naive baseline, and the fast reading
path they exercise. No timings here (see benchmarks/bench.py and docs/performance.md)."""

from __future__ import annotations

import io
import json
import pickle
import random
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import pisession
from pisession.engine import packing, reader
from pisession.js.value import UNDEFINED

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"
sys.path.insert(0, str(BENCHMARKS))

from generate import generate  # noqa: E402
from naive_context import naive_context, read_entries  # noqa: E402


def generated(entries: int, seed: int = 27) -> bytes:
    buf = io.BytesIO()
    assert generate(entries, buf, seed) == entries
    return buf.getvalue()


@pytest.fixture(scope="module")
def big() -> bytes:
    return generated(4000, seed=3)


def test_generator_is_deterministic():
    assert generated(500) == generated(500)
    assert generated(500, seed=1) != generated(500, seed=2)


def test_generator_writes_exactly_the_entries_asked_for():
    for n in (0, 1, 4, 37):
        data = generated(n)
        assert data.endswith(b"\n")
        assert data.count(b"\n") == n + 1  # the header, then n entries
        assert len(pisession.loads(data)) == n


def test_generated_lines_look_like_pis(big):
    lines = big.splitlines()
    header = json.loads(lines[0])
    assert header["type"] == "session" and header["version"] == 3
    for line in lines:
        value = json.loads(line)
        # JSON.stringify's compact form, key order kept, non-ASCII unescaped
        assert line == json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode()
    entries = [json.loads(line) for line in lines[1:]]
    ids = [e["id"] for e in entries]
    assert len(set(ids)) == len(ids)
    assert all(len(i) == 8 and int(i, 16) >= 0 for i in ids)
    known = set(ids)
    assert all(e["parentId"] is None or e["parentId"] in known for e in entries)


def test_generated_session_holds_every_feature(big):
    session = pisession.loads(big)
    assert len(session) == 4000
    assert session.diagnostics == []
    assert session.problems() == {"dangling_parents": [], "duplicate_ids": {}, "cycles": []}
    types = {e["type"] for e in session.entries}
    assert types >= {
        "message",
        "compaction",
        "context_edit",
        "branch_summary",
        "label",
        "usage",
        "custom",
        "custom_message",
        "session_info",
        "model_change",
        "thinking_level_change",
    }
    raw_compactions = [e for e in read_entries(big.splitlines()) if e["type"] == "compaction"]
    compactions = [e for e in session.entries if e["type"] == "compaction"]
    assert len(compactions) == len(raw_compactions) >= 2
    assert all(c["systemMessage"]["role"] == "system" for c in compactions)
    assert any(c["firstKeptEntryId"] != c["id"] for c in compactions)  # a kept range
    roles = {e["message"]["role"] for e in session.entries if e["type"] == "message"}
    assert roles == {"system", "user", "assistant", "toolResult"}
    assert len(session.leaves()) > 5  # branches
    blocks = [
        block["type"]
        for e in session.entries
        if e["type"] == "message"
        for block in (e["message"]["content"] if isinstance(e["message"]["content"], list) else [])
    ]
    assert {"text", "toolCall", "image", "thinking"} <= set(blocks)
    assert max(len(line) for line in big.splitlines()) > 10_000  # big tool results


def test_context_equals_the_naive_full_decode_rule(big):
    session = pisession.loads(big)
    entries = [e for e in read_entries(big.splitlines()) if e["type"] != "session"]
    leaves = [None] + [session.entry(p)["id"] for p in session.leaves()]
    for leaf in [*random.Random(4).sample(leaves, 12), None]:
        expected = naive_context(entries, leaf)
        assert json.loads(session.context(leaf).to_json()) == expected
    # and the naive rule is not vacuous: the default context went through a compaction
    projection = session.projection()
    assert projection.compaction is not None
    assert {item.part for item in projection.entries} >= {"compaction", "after"}


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_context_equals_pis_own(tmp_path, big):
    path = tmp_path / "big.jsonl"
    path.write_bytes(big)
    done = subprocess.run(
        ["node", str(BENCHMARKS / "pi_context.mjs"), str(path)], capture_output=True
    )
    if done.returncode == 3:
        pytest.skip("Pi 0.87.1 is not installed")
    assert done.returncode == 0, done.stderr
    assert path.read_bytes() == big  # Pi did not touch the file
    assert json.loads(done.stdout) == json.loads(pisession.loads(big).context().to_json())


# --- the fast reading path agrees with the line-by-line one -------------------------------


ODD_LINES = [
    b"",
    b"   ",
    b"not json",
    b"0",
    b"[1, 2]",
    b'{"type":"message","id":"odd","parentId":null,"message":null}',
    b'{"type":"label","id":"s1","parentId":null,"label":"\\ud800 lone surrogate"}',
    b'{"type":"custom","id":"cr","parentId":null}\r',
    b"{}{}",
    b'{"a":',
    b"}",
]


def _rows(parsed) -> list:
    columns = zip(parsed.lines, parsed.starts, parsed.ends, parsed.types, parsed.ids,
                  parsed.parent_ids, parsed.roles)  # fmt: skip
    return [tuple(map(repr, row)) for row in columns]


@pytest.mark.parametrize("seed", range(6))
def test_fast_reading_path_equals_line_by_line(seed, monkeypatch):
    rng = random.Random(seed)
    lines = generated(300, seed=seed).split(b"\n")
    for _ in range(rng.randint(0, 6)):
        lines.insert(rng.randrange(1, len(lines)), rng.choice(ODD_LINES))
    data = b"\n".join(lines)
    monkeypatch.setattr(reader, "_BLOCK", rng.choice([1, 7, 16]))
    fast, fast_diags = reader.parse_lines(data)
    slow, slow_diags = reader.parse_lines(data, fast=False)
    assert _rows(fast) == _rows(slow)
    assert fast_diags == slow_diags
    assert len(fast.values) < len(fast)  # the fast path did run


@pytest.mark.parametrize("chunk", [64, 1000, 1 << 16])
def test_reading_in_chunks_equals_reading_whole(tmp_path, big, chunk):
    data = big + b"\n\nnot json\n" + b'{"type":"label","id":"x","parentId":null}'
    whole, whole_diags = reader.parse_lines(data)
    path = tmp_path / "s.jsonl"
    path.write_bytes(data)
    with open(path, "rb") as handle:
        chunked, chunked_diags = reader.parse_file(handle, len(data), chunk)
    assert _rows(chunked) == _rows(whole) and chunked_diags == whole_diags


@pytest.mark.parametrize("workers", ["1", "2"])
@pytest.mark.parametrize("odd", [0, 8])
def test_reading_in_two_halves_equals_reading_whole(tmp_path, monkeypatch, big, workers, odd):
    """Big files are parsed in two halves, the second by a forked process when it can
    help (``pisession.engine.parallel``): rows, line numbers and diagnostics are the same
    (``odd``: lines skipped on both sides of the middle, or none)."""
    rng = random.Random(5)
    lines = big.split(b"\n")
    for _ in range(odd):  # odd lines on both sides of the middle
        lines.insert(rng.randrange(1, len(lines)), rng.choice(ODD_LINES))
    data = b"\n".join(lines)
    whole, whole_diags = reader.parse_lines(data)
    path = tmp_path / "s.jsonl"
    path.write_bytes(data)
    monkeypatch.setenv("PISESSION_WORKERS", workers)
    monkeypatch.setattr(reader, "CHUNK", 1 << 16)
    halves, halves_diags = reader.parse_halves(str(path), len(data))
    assert _rows(halves) == _rows(whole) and halves_diags == whole_diags
    assert {k: repr(v) for k, v in halves.values.items()} == {
        k: repr(v) for k, v in whole.values.items()
    }


@pytest.mark.parametrize("seed", range(40))
def test_id_columns_sent_between_processes_come_back_the_same(seed):
    """The helper process sends its id columns packed as one text each; any column
    (strings with newlines, empty strings, lone surrogates, other JSON values) comes
    back equal, value for value and type for type."""
    rng = random.Random(seed)
    pool = ["a", "", "x\ny", "\ud800", "é", None, UNDEFINED, 0, 1.5, False, {"k": 1}]
    weights = [40, 2, 1, 1, 2, 3, 2, 1, 1, 1, 1] if seed % 2 else [1] * len(pool)
    column = [
        v + str(i) if type(v) is str and rng.random() < 0.8 else v
        for i, v in enumerate(rng.choices(pool, weights, k=rng.randrange(0, 60)))
    ]
    # parents: the column reversed, or mostly the id of the row before (a copy of that
    # string, or another value equal to it: 1.0 after 1), as Pi writes them
    parents = list(reversed(column))
    if seed % 4 >= 2:
        parents = [
            copy_of(column[k - 1]) if k and rng.random() < 0.8 else parents[k]
            for k in range(len(column))
        ]
    parsed = reader.ParsedLines(ids=column, parent_ids=parents)
    back = pickle.loads(pickle.dumps(parsed, pickle.HIGHEST_PROTOCOL))
    for before, after in [(parsed.ids, back.ids), (parsed.parent_ids, back.parent_ids)]:
        assert [(type(v), repr(v)) for v in after] == [(type(v), repr(v)) for v in before]
    assert back == parsed


@pytest.mark.parametrize("seed", range(20))
def test_parents_sent_as_the_ids_before_them_come_back_the_same(seed):
    """A helper sends the parents that are the id of the row before as those ids (string
    ids only): the others, and every parent of a column of other ids, come back as they
    were, value for value and type for type."""
    rng = random.Random(seed)
    ids = [rng.choice(["", "\ud800", "é", "x\ny"]) + str(i) for i in range(rng.randrange(1, 80))]
    others = ["a", "", "zz", None, UNDEFINED, 0, {"k": 1}, *ids]
    parents = [
        copy_of(ids[k - 1]) if k and rng.random() < 0.7 else rng.choice(others)
        for k in range(len(ids))
    ]
    packed = packing.parents_packed(parents, ids)
    assert type(packed) is packing.AfterIds
    parsed = reader.ParsedLines(ids=ids, parent_ids=parents)
    back = pickle.loads(pickle.dumps(parsed, pickle.HIGHEST_PROTOCOL))
    assert [(type(v), repr(v)) for v in back.parent_ids] == [(type(v), repr(v)) for v in parents]
    followed = [k for k in range(1, len(ids)) if k not in packed.others]
    assert all(back.parent_ids[k] is back.ids[k - 1] for k in followed)


def copy_of(value: object) -> object:
    """An equal value that is not the same object (a number as the other kind of it)."""
    if type(value) is str:
        return "".join(list(value))
    if type(value) is int:
        return float(value)
    return value


def test_session_read_from_the_file_matches_the_one_read_whole(tmp_path, monkeypatch, big):
    path = tmp_path / "big.jsonl"
    path.write_bytes(big)
    whole = pisession.load(path)
    monkeypatch.setattr(reader, "CHUNK", 1 << 16)
    chunked = pisession.load(path)
    assert whole.file._store.data is not None and chunked.file._store.data is None
    assert chunked.dumps() == big
    for leaf in [None] + [whole.entry(p)["id"] for p in whole.leaves()[:10]]:
        a, b = whole.projection(leaf), chunked.projection(leaf)
        assert a.path == b.path and a.compaction == b.compaction
        assert [(i.position, i.part) for i in a.items] == [(i.position, i.part) for i in b.items]
        assert a.context.to_json() == b.context.to_json()


def test_a_file_changed_after_reading_is_reported(tmp_path, monkeypatch, big):
    path = tmp_path / "big.jsonl"
    path.write_bytes(big)
    monkeypatch.setattr(reader, "CHUNK", 1 << 16)
    session = pisession.load(path)
    path.write_bytes(big[: len(big) // 2])  # rewritten in place, shorter
    with pytest.raises(pisession.SessionFormatError, match="changed since it was read"):
        session.context()


def test_paths_of_several_leaves_and_cycles():
    def entry(i, parent):
        return json.dumps(
            {
                "type": "message",
                "id": i,
                "parentId": parent,
                "timestamp": "2026-01-01T00:00:00.000Z",
                "message": {"role": "user", "content": i},
            }
        )

    lines = [
        '{"type":"session","version":3,"id":"s","timestamp":"t","cwd":"/"}',
        entry("a", None),
        entry("b", "a"),
        entry("c", "d"),
        entry("d", "c"),
        entry("f", "b"),
        entry("e", "a"),
    ]
    session = pisession.loads("\n".join(lines).encode() + b"\n")
    assert session.path_positions() == [0, 5]
    assert session.path_positions("f") == [0, 1, 4]
    with pytest.raises(pisession.CycleError):
        session.context("c")
    assert session.path_positions("e") == [0, 5]
    session.path_positions().append(99)  # callers own the lists they get
    assert session.path_positions() == [0, 5]


@pytest.mark.parametrize("workers", ["1", "2"])
@pytest.mark.parametrize("indent", [2, None])
def test_a_long_context_written_in_two_halves_is_the_same(big, monkeypatch, workers, indent):
    """``pisession context`` lets a helper process write a long context's second half:
    byte for byte the same text (blocks of 7 entries, and 28 entries count as "long")."""
    from pisession.engine import stream

    monkeypatch.setenv("PISESSION_WORKERS", workers)
    monkeypatch.setattr(stream, "BLOCK", 7)
    monkeypatch.setattr(stream, "LONG_CONTEXT", 28)
    splits = []
    middle = stream._middle
    monkeypatch.setattr(stream, "_middle", lambda *a: splits.append(middle(*a)) or splits[-1])
    session = pisession.loads(big)
    for leaf in [None] + [session.index.ids[p] for p in session.leaves()[:4]]:
        expected = session.context(leaf).to_json(indent).encode()
        assert b"".join(session.context_json(leaf, indent, parallel=True)) == expected
    assert any(split is not None for split in splits)  # the context was split


@pytest.mark.parametrize("workers", ["1", "2"])
def test_the_helpers_half_is_read_back_in_whole_characters(monkeypatch, workers):
    """The helper's half is read back in pieces, and the command line makes each piece
    terminal-safe on its own: no piece may end inside a character (a cut one could not
    be decoded, and a cut U+202E would go out unescaped)."""
    from pisession.engine import stream

    monkeypatch.setenv("PISESSION_WORKERS", workers)
    monkeypatch.setattr(stream, "BLOCK", 5)
    monkeypatch.setattr(stream, "LONG_CONTEXT", 20)
    lines = [b'{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z"}']
    for n in range(60):
        text = "é€😀\u202e"[n % 4] * (n % 7 + 1)
        message = {"role": "user", "content": f"{text} {n}", "timestamp": n}
        entry = {"type": "message", "id": f"m{n}", "parentId": f"m{n - 1}" if n else None}
        lines.append(json.dumps({**entry, "message": message}).encode())
    session = pisession.loads(b"\n".join(lines))
    for piece in (1, 2, 3, 7, 64):
        monkeypatch.setattr(stream, "SPILL_PIECE", piece)
        chunks = list(session.context_json(None, None, parallel=True))
        assert b"".join(chunks) == session.context().to_json().encode()
        for chunk in chunks:
            chunk.decode("utf-8")
        safe = b"".join(map(stream.terminal_safe, chunks))
        assert safe == stream.terminal_safe(b"".join(chunks)) and "\u202e".encode() not in safe


def test_chain_shape_is_one_straight_path_of_messages():
    from generate import generate_chain

    buf = io.BytesIO()
    assert generate_chain(50, buf) == 50
    session = pisession.loads(buf.getvalue())
    assert len(session) == 50 and session.shape.leaves == [49]
    assert len(session.path_positions()) == 50 == len(session.context().messages)
    assert set(session.fates().names) == {"sent"}


def test_bench_ratios_are_taken_within_each_round():
    """A machine that slows down for a while slows both sides of a ratio: the ratio is
    the median of the ratios within each round, not a ratio of medians."""
    import bench

    context = [(1.0, 0, 1.5), (2.0, 0, 1.5), (1.0, 0, 1.5)]  # the second round: a slow machine
    tool = [(1.4, 0, 1.4), (2.8, 0, 1.4), (1.4, 0, 1.4)]
    assert bench._ratio(tool, context) == pytest.approx(1.4)
    assert bench._ratio(tool, None) is None
    row = {"tool": "stats", "file": "session-1k.jsonl", "size_mb": 1.0, "peak_mb": 10}
    row.update(x_pi=0.5, x_ctx=1.4)
    assert bench.target(row, {"peak_mb": 100}, {"peak_mb": 10}) == (
        "<=0.5x Pi time, <=1x Pi memory",
        True,
    )
    row["x_pi"] = 0.6
    assert bench.target(row, {"peak_mb": 100}, {"peak_mb": 10})[1] is False
    context = {**row, "tool": "context", "x_pi": 0.3}
    assert bench.target(context, {"peak_mb": 100}, None) == (
        "<=0.25x Pi time, <=1x Pi memory",
        False,
    )
    assert bench.target({**context, "file": "chain-1k.jsonl"}, {"peak_mb": 100}, None)[1] is True
    tiny = {**row, "tool": "tree", "file": "tiny-1000k.jsonl", "size_mb": 13.0, "peak_mb": 250}
    assert bench.target(tiny, None, None) == ("<=20x the file's size in memory", True)
    assert bench.target({**tiny, "peak_mb": 300}, None, None)[1] is False


def test_bench_times_every_command_as_a_process(tmp_path, capsys):
    """One round on a small session, without Pi: every command runs as a whole process
    and gets its wall time, CPU time (the process and its helpers) and peak memory."""
    import bench

    path = tmp_path / "session-1k.jsonl"
    path.write_bytes(generated(1000, seed=2))
    out = tmp_path / "bench.json"
    argv = [str(path), "--runs", "1", "--leaves", "2", "--no-pi", "--json", str(out)]
    assert bench.main(argv) == 0
    lines = capsys.readouterr().out.splitlines()
    head = ["file", "MB", "tool", "median", "s", "min", "s", "cpu", "s"]
    assert any(line.split()[:9] == head for line in lines)
    rows = json.loads(out.read_text())["tools"]
    assert [r["tool"] for r in rows] == list(bench.COMMANDS)
    assert all(r["cpu_s"] > 0 and r["median_s"] > 0 and r["peak_mb"] > 0 for r in rows)
    assert next(r for r in rows if r["tool"] == "context")["x_ctx"] == 1.0


def test_bench_without_node_or_pi_says_skip(monkeypatch, capsys, tmp_path):
    """Where Node or Pi is missing, the Pi rows are skipped with a clear SKIP line (the
    rest is still timed, and the exit status is 0: the benchmark is never a gate)."""
    import bench

    monkeypatch.setattr(bench.shutil, "which", lambda name: None)
    assert bench.pi_command(tmp_path / "s.jsonl") is None
    assert capsys.readouterr().out.startswith("SKIP pi: node is not installed")
    monkeypatch.undo()
    monkeypatch.setenv("PI_ORACLE_DIR", str(tmp_path / "nowhere"))
    if bench.shutil.which("node"):
        assert bench.pi_command(tmp_path / "s.jsonl") is None
        assert capsys.readouterr().out.startswith("SKIP pi: Pi not found at")
