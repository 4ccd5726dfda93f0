"""Damaged and hostile session files: pisession keeps working and loses nothing.

``data/damaged/`` holds one small file per kind of damage (``make.py`` writes them; the
README's table lists what Pi 0.87.1 and pisession do with each). Each file has Pi's own
reading next to it (``X.golden.json``, recorded with ``conformance/record.mjs``), so the
tests check both that pisession reads a damaged file exactly as Pi does and that it says
clearly what it skipped. A line of hundreds of MB is generated into a temporary folder.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import subprocess
import sys
from html import unescape
from pathlib import Path

import pytest
from test_conformance import check_tree

import pisession
from pisession.build import session_bytes
from pisession.errors import CycleError, SessionFormatError
from pisession.js import json as jsjson

DATA = Path(__file__).resolve().parent.parent / "data"
DAMAGED = DATA / "damaged"
EDGE = DATA / "conformance" / "edge"

#: A crash-safe session line as Pi writes it, for building files in tests.
HEADER = (
    b'{"type":"session","version":3,"id":"s1","timestamp":"2026-02-01T10:00:00.000Z","cwd":"/w"}'
)


def message_line(entry_id: str, parent: str | None, role: str, text: str) -> bytes:
    entry = {
        "type": "message",
        "id": entry_id,
        "parentId": parent,
        "timestamp": "2026-02-01T10:01:00.000Z",
        "message": {"role": role, "content": [{"type": "text", "text": text}]},
    }
    return json.dumps(entry, separators=(",", ":")).encode()


def as_json(value):
    """What Pi's JSON holds for a value (Infinity and NaN become null)."""
    return json.loads(jsjson.dumps(value))


def roles(session, leaf=None) -> list:
    return [m["role"] for m in session.context(leaf).messages]


# --- the corpus: what pisession reports for each damage ---------------------------------------

#: file -> expected reading. ``error``: (line, words of the reason) of the SessionFormatError;
#: otherwise the entry count, the diagnostics (line, kind), non-empty problems() and the roles
#: of the default context (or the error class it raises).
EXPECTED = {
    "damaged/truncated-last-line.jsonl": dict(
        entries=3, diagnostics=[(5, "malformed")], roles=["user", "assistant", "user"]
    ),
    "damaged/truncated-mid-utf8.jsonl": dict(
        entries=3, diagnostics=[(5, "malformed")], roles=["user", "assistant", "user"]
    ),
    "damaged/torn-write-merged-line.jsonl": dict(
        entries=5,
        diagnostics=[(5, "malformed")],
        problems={"dangling_parents": [3]},
        roles=["user", "assistant"],
    ),
    "damaged/nul-block-after-crash.jsonl": dict(
        entries=4, diagnostics=[(5, "malformed")], roles=["user", "assistant"] * 2
    ),
    "damaged/invalid-utf8.jsonl": dict(
        entries=4, diagnostics=[(5, "malformed"), (6, "malformed")], roles=["user", "assistant"] * 2
    ),
    "damaged/bom-before-header.jsonl": dict(error=(2, "not a session header")),
    "damaged/crlf-line-endings.jsonl": dict(entries=4, roles=["user", "assistant"] * 2),
    "damaged/cr-only-line-endings.jsonl": dict(error=(None, "no session header")),
    "damaged/deeply-nested.jsonl": dict(entries=4, roles=["user", "assistant"] * 2),
    "damaged/two-sessions-concatenated.jsonl": dict(
        entries=6, diagnostics=[(6, "extra-header")], roles=["user", "assistant"]
    ),
    "damaged/header-not-first.jsonl": dict(error=(1, "not a session header")),
    "damaged/number-beyond-float-range.jsonl": dict(entries=4, roles=["user", "assistant"] * 2),
    "damaged/nan-infinity-literals.jsonl": dict(
        entries=3,
        diagnostics=[(5, "malformed"), (6, "malformed")],
        roles=["user", "assistant", "user"],
    ),
    "damaged/duplicate-ids.jsonl": dict(
        entries=6, problems={"duplicate_ids": {"u2": [2, 4]}}, roles=["user", "user", "assistant"]
    ),
    "damaged/dangling-parent.jsonl": dict(
        entries=3, problems={"dangling_parents": [1]}, roles=["user", "assistant"]
    ),
    "damaged/parent-cycle.jsonl": dict(
        entries=4, problems={"cycles": [[0, 3, 2, 1]]}, roles=CycleError
    ),
    "damaged/self-parent.jsonl": dict(entries=4, problems={"cycles": [[3]]}, roles=CycleError),
    "damaged/binary-garbage.jsonl": dict(error=(None, "no session header")),
    # Found by the differential fuzzer (conformance/fuzz): JavaScript values, not damage.
    "damaged/bash-exit-code-false.jsonl": dict(entries=6, roles=["user"] + ["bashExecution"] * 5),
    "damaged/integer-like-keys.jsonl": dict(entries=2, roles=["user", "assistant"]),
    "damaged/siblings-invalid-timestamp.jsonl": dict(entries=4, roles=["user", "assistant"]),
    "damaged/object-type-in-a-run.jsonl": dict(entries=5, roles=["user", "assistant"] * 2),
    "damaged/integer-400-digits.jsonl": dict(entries=3, roles=["user", "assistant", "user"]),
    "damaged/integer-5000-digits.jsonl": dict(entries=3, roles=["user", "assistant", "user"]),
    "damaged/content-nested-1000-deep.jsonl": dict(entries=2, roles=["user", "assistant"]),
    "damaged/v1-array-line.jsonl": dict(
        entries=5,
        diagnostics=[(3, "not-an-object")],
        roles=["compactionSummary", "assistant", "user"],
    ),
    "damaged/v1-compaction-index-400-digits.jsonl": dict(
        entries=6, roles=["compactionSummary", "assistant", "user", "user"]
    ),
    "damaged/big-integer-ids.jsonl": dict(entries=3, roles=["user", "assistant", "user"]),
    "damaged/big-integer-id-cycle.jsonl": dict(
        entries=2, problems={"cycles": [[0, 1]]}, roles=CycleError
    ),
    # the last entry's id is null: SessionManager's default leaf is null, an empty context
    # (walked from the last entry, the edit applies: test_damaged_file_reads_as_pi_reads_it)
    "damaged/context-edit-null-target.jsonl": dict(entries=3, roles=[]),
    "damaged/system-prompt-odd-sections.jsonl": dict(entries=3, roles=["system", "system", "user"]),
    "damaged/js-whitespace.jsonl": dict(entries=3, roles=["user", "custom"]),
    "damaged/context-edit-lone-surrogate.jsonl": dict(entries=3, roles=["user", "assistant"]),
    "damaged/system-message-without-timestamp.jsonl": dict(
        entries=2, roles=["system", "compactionSummary", "user"]
    ),
    # Reused from the conformance corpus (Pi's reading is checked by test_conformance.py).
    "conformance/edge/cycle-via-duplicate-id.jsonl": dict(
        entries=3, problems={"duplicate_ids": {"x": [0, 2]}, "cycles": [[1, 2]]}, roles=CycleError
    ),
    "conformance/edge/second-session-line-filtered.jsonl": dict(
        entries=2, diagnostics=[(3, "extra-header")], roles=["user", "assistant"]
    ),
    "conformance/edge/json-edge-syntax.jsonl": dict(
        entries=2,
        diagnostics=[(3, "malformed"), (4, "malformed"), (5, "malformed")],
        roles=["user", "user"],
    ),
}


def corpus_params():
    for name in EXPECTED:
        yield pytest.param(name, id=name.split("/")[-1])


def test_the_corpus_is_complete():
    on_disk = {f"damaged/{p.name}" for p in DAMAGED.glob("*.jsonl")}
    assert on_disk == {n for n in EXPECTED if n.startswith("damaged/")}
    assert {p.name.replace(".golden.json", ".jsonl") for p in DAMAGED.glob("*.golden.json")} == {
        p.name for p in DAMAGED.glob("*.jsonl")
    }


@pytest.mark.parametrize("name", list(corpus_params()))
def test_damaged_file_reads_with_clear_diagnostics(name):
    path = DATA / name
    expected = EXPECTED[name]
    if "error" in expected:
        line, words = expected["error"]
        with pytest.raises(SessionFormatError) as caught:
            pisession.load(path)
        error = caught.value
        assert (error.source, error.line) == (str(path), line)
        assert words in error.reason
        prefix = f"{path}:{line}: " if line is not None else f"{path}: "
        assert str(error).startswith(prefix)
        return
    session = pisession.load(path)
    assert len(session) == expected["entries"]
    assert [(d.line, d.kind) for d in session.diagnostics] == expected.get("diagnostics", [])
    for diagnostic in session.diagnostics:
        assert str(diagnostic).startswith(f"line {diagnostic.line}: ")
        assert len(diagnostic.message) < 300
    found = {key: value for key, value in session.problems().items() if value}
    assert found == expected.get("problems", {})
    if expected["roles"] is CycleError:
        with pytest.raises(CycleError) as caught:
            session.context()
        assert str(caught.value).startswith(f"{path}:")
        assert caught.value.line in session.entry_lines
        assert (
            "parent cycle" in caught.value.reason and "Pi 0.87.1 would hang" in caught.value.reason
        )
    else:
        assert roles(session) == expected["roles"]
    if not session.migrated:  # a legacy file is written back migrated
        assert session.dumps() == path.read_bytes()


# --- the corpus: pisession reads each damaged file as Pi does ------------------------------------


def golden_params():
    for golden in sorted(DAMAGED.glob("*.golden.json")):
        yield pytest.param(golden, id=golden.name)


@pytest.mark.parametrize("golden", list(golden_params()))
def test_damaged_file_reads_as_pi_reads_it(golden):
    with deep_recursion():
        expected = json.loads(golden.read_text())
    path = golden.with_name(golden.name.replace(".golden.json", ".jsonl"))
    if expected.get("error") == "no-valid-header":
        with pytest.raises(SessionFormatError):
            pisession.load(path)
        return
    session = pisession.load(path)
    assert len(session) == expected["entryCount"]
    assert session.name == expected["sessionName"]
    check_tree(session, expected)
    for case in expected["cases"]:
        if case.get("error") == "cycle":
            with pytest.raises(CycleError) as caught:
                session.context(case["leaf"])
            # ids as JavaScript writes them (an integer id beyond 2^53 is a double there)
            assert sorted(map(jsjson.dumps, caught.value.cycle)) == sorted(
                map(jsjson.dumps, case["cycle"])
            )
            continue
        if case["leaf"] is None and len(session) and session.default_leaf is None:
            # the last entry's id is null: SessionManager's leaf is null (an empty
            # context, data/manager/open.golden.json); the free function recorded here
            # walks from the last entry
            last = pisession.engine.context.project(session.index, len(session) - 1)
            assert as_json(last.context.to_dict()) == case["context"]
            assert session.context().messages == []
            continue
        context = session.context(case["leaf"])
        with deep_recursion():
            assert as_json(context.to_dict()) == case["context"]
            written = b"".join(session.context_json(case["leaf"]))  # the CLI's writer
            assert written == context.to_json(2).encode()
            assert as_json(context.to_llm()) == case["llm"]
        prompt = session.system_prompt(case["leaf"])
        assert as_json(prompt.to_message()) == case["systemMessage"]
        assert prompt.text == case["systemPrompt"]


@contextlib.contextmanager
def deep_recursion(limit: int = 20_000):
    """Python's ``==`` recurses: comparing values nested 1,000 deep needs a higher limit."""
    before = sys.getrecursionlimit()
    sys.setrecursionlimit(max(before, limit))
    try:
        yield
    finally:
        sys.setrecursionlimit(before)


def cli_context(path, *options) -> str:
    """What ``pisession context`` prints (through the real entry point)."""
    out = subprocess.run(
        [sys.executable, "-m", "pisession", "context", *options, str(path)],
        capture_output=True,
        check=True,
        env={**os.environ, "PYTHONPATH": str(DATA.parent)},
    )
    return out.stdout.decode("utf-8")


def test_context_prints_keys_in_javascript_order():
    """``JSON.stringify`` writes integer-like keys ("2", "10") first, in numeric order;
    so does ``pisession context`` (issue 12 item 6)."""
    path = DAMAGED / "integer-like-keys.jsonl"
    golden = json.loads(path.with_name("integer-like-keys.golden.json").read_text())
    pairs = json.loads(cli_context(path), object_pairs_hook=lambda p: p)
    expected = json.loads(json.dumps(golden["cases"][0]["context"]), object_pairs_hook=lambda p: p)
    assert pairs == expected
    block = dict(pairs)["messages"][0]
    assert [k for k, _ in dict(block)["content"][0]][:3] == ["2", "10", "type"]


def test_context_prints_content_nested_1000_deep_indented():
    """Pi prints it with ``JSON.stringify(context, null, 2)``; pisession printed a
    RecursionError (issue 12 item 8)."""
    path = DAMAGED / "content-nested-1000-deep.jsonl"
    with deep_recursion():
        golden = json.loads(path.with_name("content-nested-1000-deep.golden.json").read_text())
    for options, key in (((), "context"), (("--llm",), "llm")):
        text = cli_context(path, *options)
        assert text.count("\n") > 2000  # indented all the way down
        with deep_recursion():
            assert jsjson.loads(text.encode()) == golden["cases"][0][key]


def test_context_prints_an_edit_with_a_lone_surrogate():
    """The edited message holds numbers from its own line and a lone surrogate from the
    edit's line; ``pisession context`` failed with a TypeError on it (Pi prints it)."""
    path = DAMAGED / "context-edit-lone-surrogate.jsonl"
    golden = json.loads(path.with_name("context-edit-lone-surrogate.golden.json").read_text())
    for options, key in (((), "context"), (("--llm",), "llm")):
        assert json.loads(cli_context(path, *options)) == golden["cases"][0][key]


def test_huge_integers_read_and_write_as_javascript_does():
    """A 400-digit integer is Infinity in JavaScript (written as null); 5,000 digits are
    beyond Python's int conversion limit (issue 12 item 7)."""
    for name, path_in_message in (
        ("integer-400-digits", "input"),
        ("integer-5000-digits", "output"),
    ):
        session = pisession.load(DAMAGED / f"{name}.jsonl")
        context = json.loads(session.context().to_json())
        assert context["messages"][1]["usage"][path_in_message] is None
        assert session.stats().usage is not None
        assert "Read the config file" in session._repr_html_()


# --- damage that needs a closer look ------------------------------------------------------------


def test_truncated_last_line_is_reported_and_the_file_is_not_repaired():
    """Pi appends a newline to such a file when it loads it; pisession writes nothing."""
    path = DAMAGED / "truncated-last-line.jsonl"
    before = path.read_bytes()
    session = pisession.load(path)
    assert not before.endswith(b"\n")
    (diagnostic,) = session.diagnostics
    assert diagnostic.line == before.count(b"\n") + 1
    assert "Unterminated string" in diagnostic.message and "Pi" in diagnostic.message
    assert path.read_bytes() == before
    partial = pisession.load(path, complete_lines_only=True)
    assert [(d.line, d.kind) for d in partial.diagnostics] == [(diagnostic.line, "partial-line")]
    assert partial.context().to_dict() == session.context().to_dict()


def test_invalid_utf8_becomes_replacement_characters_as_in_node():
    session = pisession.load(DAMAGED / "invalid-utf8.jsonl")
    assert (
        session.entry(1)["message"]["content"][0]["text"] == "It sets the port to 80\ufffd\ufffd80."
    )
    assert session.entry(2)["id"] == "u\ufffd2"
    assert session.path_positions() == [0, 1, 2, 3]


def test_numbers_beyond_float_range_read_as_infinity_and_write_as_null():
    session = pisession.load(DAMAGED / "number-beyond-float-range.jsonl")
    usage = session.entry(3)["message"]["usage"]
    assert usage["input"] == float("inf") and usage["cost"]["total"] == float("-inf")
    context = json.loads(session.context().to_json())
    assert context["messages"][3]["usage"]["input"] is None
    assert session.dumps() == (DAMAGED / "number-beyond-float-range.jsonl").read_bytes()


def test_nan_and_infinity_literals_are_named_in_the_diagnostics():
    session = pisession.load(DAMAGED / "nan-infinity-literals.jsonl")
    assert ["NaN" in d.message for d in session.diagnostics] == [True, False]
    assert "Infinity" in session.diagnostics[1].message


def test_two_concatenated_sessions_keep_both_roots():
    session = pisession.load(DAMAGED / "two-sessions-concatenated.jsonl")
    assert [session.entry(p)["id"] for p in session.roots()] == ["u1", "v1"]
    assert session.id == "0199dmg0-0000-7000-8000-000000000001"
    assert roles(session, "a2") == ["user", "assistant"] * 2


def test_a_torn_write_loses_one_line_and_the_child_becomes_a_root():
    session = pisession.load(DAMAGED / "torn-write-merged-line.jsonl")
    assert "a2" not in [e["id"] for e in session.entries]
    assert session.roots() == [0, 3]
    assert session.entry(3)["parentId"] == "a2"


def test_cycles_never_hang_any_question():
    for name in ("parent-cycle.jsonl", "self-parent.jsonl"):
        session = pisession.load(DAMAGED / name)
        session.tree()
        session.leaves()
        session.children()
        session.stats()
        for question in (session.context, session.projection, session.fates, session.system_prompt):
            with pytest.raises(CycleError):
                question()


HUGE_MB = int(os.environ.get("PISESSION_HUGE_LINE_MB", "200"))


def test_a_line_of_hundreds_of_mb(tmp_path):
    """One tool result of HUGE_MB MB (Pi 0.87.1 loads it too), then the same line torn."""
    size = HUGE_MB * 1_000_000
    head = b'{"type":"message","id":"t1","parentId":"u1","timestamp":"2026-02-01T10:02:00.000Z",'
    head += b'"message":{"role":"toolResult","toolCallId":"c1","toolName":"read","content":'
    head += b'[{"type":"text","text":"'
    tail = b'"}],"isError":false}}'
    path = tmp_path / "huge.jsonl"
    with open(path, "wb") as out:
        out.write(HEADER + b"\n" + message_line("u1", None, "user", "read it") + b"\n")
        out.write(head)
        chunk = b"0123456789abcdef" * 65536
        for _ in range(size // len(chunk)):
            out.write(chunk)
        out.write(tail + b"\n")
        out.write(message_line("u2", "t1", "user", "thanks") + b"\n")
    session = pisession.load(path)
    assert len(session) == 3 and not session.diagnostics
    messages = session.context().messages
    assert [m["role"] for m in messages] == ["user", "toolResult", "user"]
    assert len(messages[1]["content"][0]["text"]) == size // len(chunk) * len(chunk)
    del session, messages

    with open(path, "r+b") as out:  # tear the huge line: its closing bytes are lost
        out.seek(-(len(tail) + 1 + len(message_line("u2", "t1", "user", "thanks")) + 1), 2)
        out.truncate()
        out.write(b"\n" + message_line("u2", "t1", "user", "thanks") + b"\n")
    session = pisession.load(path)
    assert [(d.line, d.kind) for d in session.diagnostics] == [(3, "malformed")]
    assert len(session.diagnostics[0].message) < 300
    assert session.problems()["dangling_parents"] == [1]
    assert roles(session) == ["user"]


# --- bugs found while writing these tests, now fixed ------------------------------------

DEEP = 100_000


def test_deep_nesting_in_an_unused_field_loads_as_in_pi():
    """Node's JSON.parse takes 100 000 levels; Pi loads the line and builds the context.

    Fix (pisession/engine/reader.py ``parse_records`` and pisession/js/json.py ``loads``): catch
    ``RecursionError`` next to ``msgspec.DecodeError``. For the structural pass, fall back to
    a skeleton that skips the nested values (e.g. decode with the recursion limit raised, or
    report a ``"too-deep"`` diagnostic naming the line); never let it escape ``load``.
    """
    data = HEADER + b"\n" + message_line("u1", None, "user", "hi")[:-1]
    data += b',"details":' + b"[" * DEEP + b"]" * DEEP + b"}\n"
    session = pisession.loads(data, "deep.jsonl")
    assert roles(session) == ["user"]


def test_deep_nesting_inside_a_message_is_a_pisession_error_at_worst():
    data = HEADER + b"\n"
    data += b'{"type":"message","id":"u1","parentId":null,"message":{"role":"user","content":'
    data += b"[" * DEEP + b"]" * DEEP + b"}}\n"
    try:
        session = pisession.loads(data, "deep.jsonl")
        session.context()
    except pisession.PisessionError as exc:
        assert str(exc).startswith("deep.jsonl:2: ")


@pytest.mark.parametrize("key", ["toolsAdded", "toolsRemoved"])
def test_non_list_tools_in_a_system_message(key):
    """Pi's getCurrentSystemPrompt throws (``message.toolsRemoved is not iterable``).

    Fix (pisession/system_prompt.py ``replay_system_prompt``): iterate only lists (and
    strings, as JavaScript does); raise ``PisessionError`` for numbers, booleans and objects.
    Then re-enable non-list tool values in tests/test_properties.py (``TOOLS``).
    """
    data = HEADER + b"\n"
    data += b'{"type":"message","id":"a","parentId":null,"message":{"role":"system","content":"",'
    data += b'"' + key.encode() + b'":5}}\n'
    session = pisession.loads(data, "tools.jsonl")
    with pytest.raises(pisession.PisessionError):
        session.system_prompt()


def test_a_v1_file_pi_cannot_migrate_names_file_and_line(tmp_path):
    """Fix (pisession/session.py ``Session.__init__`` or migration.py): re-raise the
    migration's SessionFormatError with ``self.source`` and the line of the value."""
    path = tmp_path / "v1.jsonl"
    path.write_bytes(b'{"type":"session","id":"s"}\n42\n')
    with pytest.raises(SessionFormatError) as caught:
        pisession.load(path)
    assert str(caught.value).startswith(f"{path}:2: ")


def test_migrating_writes_numbers_beyond_float_range_as_pi_does():
    """``1e400`` reads as Infinity (Pi too). Migrating a v1 file rewrites the line, and
    ``JSON.stringify`` (Pi's ``_rewriteFile``, pisession's ``dumps``) writes Infinity as
    ``null``, so the written file has a different context (user content ``null`` -> ``[]``).
    pisession writes Pi's bytes (issue 31: ``migrate`` is Pi's rewrite) and says, on one
    line, that the file reads back with another context and why."""
    data = b'{"type":"session","id":"s","version":1}\n'
    data += b'{"type":"message","message":{"role":"user","content":1e400}}\n'
    session = pisession.loads(data, "v1.jsonl", new_id=pisession.sequential_ids())
    assert b'"content":null' in session.dumps()
    from pisession.views.findings import readback_change

    note = readback_change(session, pisession.loads)
    assert note is not None and "\n" not in note
    assert "line 2 holds a number beyond float range, which JSON writes as null" in note


def test_malformed_line_message_reads_well():
    """Fix (pisession/js/json.py ``loads``): Python's message for an unterminated string
    already ends in 'at'; write 'at column N' only when it does not."""
    session = pisession.load(DAMAGED / "truncated-last-line.jsonl")
    assert " at at " not in session.diagnostics[0].message


def test_bom_before_header_error_names_the_bom():
    """Pi refuses the file ('not a valid pi session'); pisession does too, but its message
    points at line 2. Fix (pisession/session.py ``loads``): when the first parsed line is
    not the header, add the reason lines before it were skipped (here: a UTF-8 BOM)."""
    with pytest.raises(SessionFormatError) as caught:
        pisession.load(DAMAGED / "bom-before-header.jsonl")
    assert re.search(r"\bBOM\b|byte.order mark", str(caught.value))


# --- hostile text: HTML and terminal output escape whatever the session says ---------------------

#: Text an attacker (or a model quoting a web page) can put in a session.
HOSTILE = [
    '<script>alert("HOSTILE-1")</script>',
    "'><img src=x onerror=alert(2)>HOSTILE-2",
    '" onmouseover="alert(3)" x="HOSTILE-3',
    "\x1b[31mHOSTILE-4\x1b[0m\x1b[2J",
    "\x1b]0;pwned title\x07HOSTILE-5\x1b]8;;http://evil.example\x1b\\link\x1b]8;;\x1b\\",
    "\x9b31mHOSTILE-6 c1\x85next\x07bell\x08\x08\x00nul",
    "HOSTILE-7\roverwritten\u202eevil\u2066\u2028sep\ufeff",
    "HOSTILE-8 marks \u200f\u061c\u200e reorder",
]
#: Characters that must never reach a terminal or an HTML page raw: C0 controls other than
#: newline and tab, DEL, C1 controls (0x9b is CSI on 8-bit terminals), bidi overrides.
RAW_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")
#: Bidi marks, embeddings, overrides and isolates, and the byte-order mark: they reorder
#: (or hide in) what is shown around them.
BIDI = re.compile("[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\ufeff]")


def hostile_session_file(folder: Path) -> Path:
    text = " | ".join(HOSTILE)
    entries = [
        {"type": "session_info", "id": "n1", "parentId": None, "name": HOSTILE[0] + HOSTILE[3]},
        {
            "type": "model_change",
            "id": "m1",
            "parentId": "n1",
            "provider": HOSTILE[3],
            "modelId": HOSTILE[1],
        },
        {
            "type": "message",
            "id": "u1" + HOSTILE[2],
            "parentId": "m1",
            "timestamp": "2026-01-01T00:00:00Z",
            "message": {"role": "user", "content": [{"type": "text", "text": text}]},
        },
        {
            "type": "message",
            "id": "a1",
            "parentId": "u1" + HOSTILE[2],
            "timestamp": "2026-01-01T00:01:00Z",
            "message": {
                "role": "assistant",
                "provider": HOSTILE[4],
                "model": HOSTILE[5],
                "content": [
                    {"type": "text", "text": text},
                    {
                        "type": "toolCall",
                        "id": "c1",
                        "name": HOSTILE[0],
                        "arguments": {"path": HOSTILE[6]},
                    },
                ],
                "usage": {"input": 1, "output": 1, "cost": {"total": 0}},
            },
        },
        {
            "type": "message",
            "id": "t1",
            "parentId": "a1",
            "timestamp": "2026-01-01T00:02:00Z",
            "message": {
                "role": "toolResult",
                "toolCallId": "c1",
                "toolName": HOSTILE[5],
                "content": [{"type": "text", "text": text}],
            },
        },
        {
            "type": "custom_message",
            "id": "c2",
            "parentId": "t1",
            "customType": HOSTILE[0],
            "content": text,
            "display": True,
        },
        {"type": "label", "id": "l1", "parentId": "c2", "targetId": "a1", "label": HOSTILE[6]},
        {"type": HOSTILE[0], "id": "x1", "parentId": "l1"},
        {"type": "custom", "id": "o1" + HOSTILE[3], "parentId": HOSTILE[4] + "gone"},
        {
            "type": "message",
            "id": "b1",
            "parentId": "a1",
            "timestamp": "2026-01-01T00:03:00Z",
            "message": {
                "role": "bashExecution",
                "command": HOSTILE[3],
                "output": text,
                "exitCode": 1,
            },
        },
    ]
    header = {
        "type": "session",
        "version": 3,
        "id": "s-" + HOSTILE[4],
        "timestamp": "2026-01-01T00:00:00Z",
        "cwd": "/w/" + HOSTILE[3],
    }
    path = folder / "hostile.jsonl"
    path.write_text("\n".join(json.dumps(v) for v in [header, *entries]) + "\n")
    return path


def assert_escaped_html(html: str) -> None:
    assert "HOSTILE-1" in html, "the test text did not reach the HTML"
    lowered = html.lower()
    for raw in ("<script>alert", "<img src=x", 'onmouseover="alert', "onerror=alert(2)>"):
        assert raw not in lowered, raw
    assert not RAW_CONTROL.search(html), repr(RAW_CONTROL.search(html).group())


def html_pages(folder: Path) -> dict:
    display = pytest.importorskip("pisession.views.display")
    session = pisession.load(hostile_session_file(folder))
    pages = {
        "session_html": display.session_html(session),
        "session_html(b1)": display.session_html(session, "b1"),
        "context_html": display.context_html(session.context("x1")),
        "projection_html": display.projection_html(session.projection("x1")),
        "repr": session._repr_html_() + session.context()._repr_html_(),
    }
    if hasattr(display, "fates_html"):
        pages["fates_html"] = display.fates_html(session, "x1")
    return pages


def test_html_output_escapes_session_text(tmp_path):
    for name, html in html_pages(tmp_path).items():
        try:
            assert_escaped_html(html)
        except AssertionError as exc:
            raise AssertionError(f"{name}: {exc}") from None


def test_html_output_escapes_bidi_overrides(tmp_path):
    """Fix (pisession/views/display.py ``_CONTROL``): add ``\\u202a-\\u202e\\u2066-\\u2069`` (and
    ``\\ufeff``), as ``pisession.views.terminal._UNSAFE`` does, or show them as visible escapes."""
    for name, html in html_pages(tmp_path).items():
        assert not BIDI.search(html), name


def assert_escaped_terminal(text: str) -> None:
    found = RAW_CONTROL.search(text) or BIDI.search(text)
    assert not found, repr(found.group())


@pytest.mark.parametrize(
    "command",
    ["explain", "tree", "check", "stats", "context", "ls"],
)
def test_terminal_output_escapes_session_text(command, tmp_path, capsys):
    cli = pytest.importorskip("pisession.cli")
    path = hostile_session_file(tmp_path)
    argv = [command, str(tmp_path if command == "ls" else path)]
    argv += [] if command == "context" else ["--no-color"]  # context writes JSON, no colour
    if command in ("explain", "tree", "context"):
        argv += ["--leaf", "x1"]
    status = cli.main(argv)
    out, err = capsys.readouterr()
    assert status in (0, 1), err
    if command != "ls":  # ls shows names and first messages, cut to the width
        assert "HOSTILE" in out, "the test text did not reach the output"
    assert_escaped_terminal(out)
    assert_escaped_terminal(err)


def test_a_long_cycle_is_shown_by_its_ends(tmp_path, capsys):
    cli = pytest.importorskip("pisession.cli")
    size = 12_000
    entries = [
        {"type": "label", "id": f"c{i}", "parentId": f"c{(i + 1) % size}"} for i in range(size)
    ]
    path = tmp_path / "loop.jsonl"
    path.write_bytes(session_bytes(*entries))
    assert cli.main(["check", str(path), "--no-color"]) == 1
    out = capsys.readouterr().out
    line = next(line for line in out.splitlines() if "parent-cycle" in line)
    assert "12000 entries" in line and len(line) < 400


def test_terminal_clean_makes_every_control_visible():
    terminal = pytest.importorskip("pisession.views.terminal")
    for text in HOSTILE:
        cleaned = terminal.clean(text)
        assert not RAW_CONTROL.search(cleaned) and "\n" not in cleaned and "\r" not in cleaned
        assert "HOSTILE" in cleaned


def test_ids_types_and_roles_nested_thousands_deep_are_shown_not_raised(tmp_path, capsys):
    """A type, id or role that is a value nested 5,000 deep: every view shows it as text
    (JSON, however deep) instead of raising RecursionError (found by the fuzzer)."""
    cli = pytest.importorskip("pisession.cli")
    deep_list: object = "x"
    deep_object: dict = {}
    cursor = deep_object
    for _ in range(5000):
        deep_list = [deep_list]
        cursor["a"] = {}
        cursor = cursor["a"]
    entries = [
        {"type": "message", "id": "u1", "parentId": None, "message": {"role": "user"}},
        {"type": deep_list, "id": deep_object, "parentId": "u1"},
        {"type": "message", "id": "u2", "parentId": "u1", "message": {"role": deep_list}},
        {"type": "compaction", "id": "c1", "parentId": "u2", "firstKeptEntryId": "u2"},
    ]
    path = tmp_path / "deep.jsonl"
    path.write_bytes(session_bytes(*entries))
    for command in (["check"], ["stats"]):
        assert cli.main([*command, str(path), "--no-color"]) in (0, 1), command
    # the context holds the role 5,000 deep: Pi's JSON.stringify throws on it, and every
    # command that shows the context says so on one line (issue 39)
    for command in (
        ["explain", "--no-color"],
        ["tree", "--no-color"],
        ["export", "--format", "md"],
    ):
        capsys.readouterr()
        assert cli.main([*command, str(path)]) == 2, command
        assert "nested more than 4,116 deep" in capsys.readouterr().err
    capsys.readouterr()
    session = pisession.load(path)
    assert all(f.reason for f in session.fates())
    from pisession.views import display

    assert "<table" in display.session_html(session)


def deep_object(depth: int) -> dict:
    """``{"k": [{"k": [ ... ]}]}``, ``depth`` levels of objects (built without recursion)."""
    deep: dict = {}
    cursor = deep
    for _ in range(depth):
        cursor["k"] = [{}]
        cursor = cursor["k"][0]
    return deep


def test_a_deep_first_kept_id_or_target_is_quoted_not_raised(tmp_path, capsys):
    """A firstKeptEntryId or targetId nested thousands deep, quoted in explain, check and
    export (the fuzzer's seed 20261203, mutant 37969): JSON text, not RecursionError."""
    cli = pytest.importorskip("pisession.cli")
    deep = deep_object(5000)
    entries = [
        {"type": "message", "id": "u1", "parentId": None, "message": {"role": "user"}},
        {"type": "compaction", "id": "c1", "parentId": "u1", "firstKeptEntryId": deep},
        {"type": "context_edit", "id": "e1", "parentId": "c1", "targetId": deep},
    ]
    path = tmp_path / "deep.jsonl"
    path.write_bytes(session_bytes(*entries))
    for command in (["explain"], ["check"]):
        assert cli.main([*command, str(path), "--no-color"]) in (0, 1), command
    assert cli.main(["export", str(path), "--format", "html"]) in (0, 1)
    assert '{"k":[{"k":' in capsys.readouterr().out


def test_labels_of_any_json_value_are_shown_not_raised(tmp_path, capsys):
    """A label is whatever truthy value Pi keeps: an object nested thousands deep (the
    fuzzer's seed 20261205, mutant 17252: export --format md raised RecursionError) or an
    empty object (truthy in JavaScript, falsy in Python) is shown as JSON by every view."""
    cli = pytest.importorskip("pisession.cli")
    deep = deep_object(5000)
    entries = [
        {"type": "message", "id": "u1", "parentId": None, "message": {"role": "user"}},
        {"type": "message", "id": "a1", "parentId": "u1", "message": {"role": "assistant"}},
        {"type": "label", "id": "l1", "parentId": "a1", "targetId": "u1", "label": deep},
        {"type": "label", "id": "l2", "parentId": "l1", "targetId": "a1", "label": {}},
    ]
    path = tmp_path / "labels.jsonl"
    path.write_bytes(session_bytes(*entries))
    session = pisession.load(path)
    assert session.label_of(1) == {}
    commands = (
        ["explain", "--no-color"],
        ["tree", "--no-color"],
        ["export", "--format", "md"],
        ["export", "--format", "html"],
    )
    for command in commands:
        assert cli.main([*command, str(path), "--all"]) == 0, command
        out = unescape(capsys.readouterr().out)
        assert re.search(r"(?<=[\s>])(#\{\}|\[\{\}\])", out), command  # the empty object
        assert '{"k":[{"k":' in out, command
    from pisession.views import display

    assert "[{}]" in display.session_html(session)


# --- the command line under hostile surroundings (issue 31 items 12-13) --------------------


def test_an_unsearchable_home_does_not_stand_in_the_way_of_a_path(tmp_path, monkeypatch, capsys):
    """Item 12: a sessions folder that cannot be searched (a service account's $HOME)
    matters only when FILE is a session id, not a path that exists or a sample."""
    from pisession.cli import main

    home = tmp_path / "home"
    monkeypatch.setenv("HOME", str(home))
    for name in ("PI_CODING_AGENT_DIR", "PI_CODING_AGENT_SESSION_DIR", "PIG_CODING_AGENT_DIR"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.delenv("PIG_CODING_AGENT_SESSION_DIR", raising=False)
    is_dir = Path.is_dir

    def unsearchable(path):
        if str(path).startswith(str(home)):
            raise PermissionError(13, "Permission denied", str(path))
        return is_dir(path)

    monkeypatch.setattr(Path, "is_dir", unsearchable)
    file = tmp_path / "tour.jsonl"
    file.write_bytes(pisession.sample_path("tour").read_bytes())
    for args in (["check", str(file)], ["context", str(file)], ["tree", "tour"]):
        assert main(args) == 0, args
    capsys.readouterr()
    assert main(["context", "abc123"]) != 0
    assert "Permission denied" in capsys.readouterr().err


@pytest.fixture
def short_fifo_wait(monkeypatch):
    from pisession import files
    from pisession.engine import reader

    monkeypatch.setattr(reader, "FIFO_WAIT", 0.2)
    monkeypatch.setattr(files, "FIFO_WAIT", 0.2)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_fifo_nobody_writes_or_reads_fails_on_one_line(tmp_path, capsys, short_fifo_wait):
    """Item 13: a FIFO with no writer (or, for ``-o``, no reader) is a one-line error
    after a wait, not a command that blocks forever."""
    from pisession.cli import main

    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    commands = (["context"], ["check"], ["export", "tour", "-o"])
    for command in commands:
        extra = ["--force", "--format", "md"] if command[0] == "export" else []
        assert main([*command, str(fifo), *extra]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "a FIFO no program" in err and str(fifo) in err


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_fifo_with_a_writer_or_a_reader_works(tmp_path, capsys, short_fifo_wait):
    import threading

    from pisession.cli import main

    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    data = pisession.sample_path("tour").read_bytes()

    def write():
        with open(fifo, "wb") as out:
            out.write(data)

    writer = threading.Thread(target=write)
    writer.start()
    assert main(["check", str(fifo)]) == 0
    writer.join()
    got = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()))
    reader.start()
    assert main(["export", "tour", "-o", str(fifo), "--force", "--format", "md"]) == 0
    reader.join()
    assert got[0].startswith(b"# Tour of the session format")


def test_content_nested_beyond_json_stringify_is_one_line_and_no_output(tmp_path, capsys):
    """Items 10-11: Pi's JSON.stringify throws RangeError on a context nested past its
    stack; ``context`` says so on one line naming the line, writes nothing to stdout, and
    does not build the indented text (800 MB for 20,000 levels) first."""
    from pisession.cli import main
    from pisession.js.json import STRINGIFY_DEPTH

    def deep_file(depth: int) -> Path:
        message = {"role": "user", "content": "x", "deep": "DEEP"}
        text = json.dumps(message).replace('"DEEP"', "[" * depth + "]" * depth)
        line = f'{{"type":"message","id":"a","parentId":null,"message":{text}}}'
        header = '{"type":"session","version":3,"id":"s","timestamp":"t","cwd":"/w"}'
        path = tmp_path / f"deep{depth}.jsonl"
        path.write_text(f"{header}\n{line}\n")
        return path

    for depth in (STRINGIFY_DEPTH - 2, 20_000):
        assert main(["context", str(deep_file(depth))]) == 2
        out, err = capsys.readouterr()
        assert out == "" and err.count("\n") == 1
        assert f"deep{depth}.jsonl:2:" in err and "RangeError" in err
    assert main(["context", str(deep_file(STRINGIFY_DEPTH - 3))]) == 0
    out = capsys.readouterr().out  # Pi writes this one (Python's json cannot read it back)
    assert out.startswith('{\n  "messages": [\n    {\n      "role": "user"') and out.endswith("}\n")


def test_the_depth_check_builds_no_context_for_a_file_msgspec_read(monkeypatch):
    """``refuse_too_deep`` costs nothing on an ordinary file: every line decoded by msgspec
    (which refuses about 1,000 levels) cannot hold a message nested past JSON.stringify's
    limit, so no context is built to look (issue 44: it had made tree and check build it)."""
    session = pisession.load(pisession.sample_path("tour"))

    def built(*args, **kwargs):
        raise AssertionError("the context was built")

    monkeypatch.setattr(type(session), "projection", built)
    session.refuse_too_deep()
