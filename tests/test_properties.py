"""Property-based tests: any bytes are read safely, and reading is lossless.

For any input, ``pisession.loads`` returns a ``Session`` (with diagnostics for what it
skipped) or raises ``PisessionError``: never another exception, never a hang. Every
question asked of a loaded session either answers or raises ``PisessionError``.
``dumps()`` gives back the input bytes; a migrated session written and read again has
the same context.

Inputs are built from a header line plus a random mixture of valid entries, malformed
JSON, random bytes, blank lines, CRLF endings, byte-order marks, U+2028, lone surrogate
escapes and non-object values; and arbitrary binary. Nesting stays below Python's
recursion limit here: deeper JSON is ``tests/test_robustness.py``'s business.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import pisession
from pisession.js import json as jsjson

HANG_SECONDS = 20
#: Examples per property; raise it for a longer local hunt (e.g. PISESSION_FUZZ_EXAMPLES=5000).
EXAMPLES = int(os.environ.get("PISESSION_FUZZ_EXAMPLES", "150"))
#: Runs are deterministic (the same examples every time) unless this is set to any value.
RANDOM = os.environ.get("PISESSION_FUZZ_RANDOM")

# --- JSON values and entries ---------------------------------------------------------

IDS = st.sampled_from(["a", "b", "c", "d", "e", "", 0, 1, None, True, [1], {"x": 1}])
TEXT = st.one_of(
    st.text(max_size=8),
    st.sampled_from(
        [
            "\u2028line\u2029sep",
            "\ud83d alone",
            "<script>alert(1)</script>",
            "\x1b[31mred\x1b[0m",
            "nul\x00byte",
            "\ufeffbom",
            "é😀",
        ]
    ),
)
NUMBERS = st.one_of(
    st.integers(-(2**70), 2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([0, -0.0, 1e308, 5e-324, 2**53 + 1]),
)
SCALARS = st.one_of(st.none(), st.booleans(), NUMBERS, TEXT)
JSON = st.recursive(
    SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.dictionaries(
            st.one_of(TEXT, st.sampled_from(["type", "text", "role", "content"])), inner, max_size=4
        ),
    ),
    max_leaves=8,
)
#: Values of the wrong kind where a list or an object is expected.
ODD = st.one_of(st.sampled_from([5, "ab", True, {"name": "x"}, [None, 3]]), JSON)
#: Tool lists, and values of the wrong kind (Pi throws on those; pisession raises
#: PisessionError).
TOOLS = st.one_of(st.lists(st.fixed_dictionaries({"name": TEXT}), max_size=2), st.just([]), ODD)
ROLES = st.sampled_from(
    [
        "user",
        "assistant",
        "system",
        "toolResult",
        "custom",
        "bashExecution",
        "branchSummary",
        "compactionSummary",
        "hookMessage",
        "developer",
    ]
)
TYPES = st.sampled_from(
    [
        "message",
        "compaction",
        "context_edit",
        "label",
        "session_info",
        "model_change",
        "thinking_level_change",
        "branch_summary",
        "custom_message",
        "custom",
        "session",
        "mystery",
    ]
)
BLOCK = st.one_of(
    st.fixed_dictionaries({"type": st.just("text"), "text": TEXT}),
    st.fixed_dictionaries({"type": st.sampled_from(["image", "toolCall", "thinking"])}),
    JSON,
)
CONTENT = st.one_of(TEXT, st.lists(BLOCK, max_size=3), st.none(), NUMBERS)
MESSAGE = st.fixed_dictionaries(
    {"role": ROLES},
    optional={
        "content": CONTENT,
        "timestamp": st.one_of(NUMBERS, TEXT),
        "sections": st.one_of(st.dictionaries(TEXT, st.one_of(TEXT, st.none()), max_size=3), ODD),
        "toolsAdded": TOOLS,
        "toolsRemoved": TOOLS,
        "usage": st.one_of(
            st.fixed_dictionaries(
                {
                    "input": NUMBERS,
                    "output": NUMBERS,
                    "cost": st.fixed_dictionaries({"total": NUMBERS}),
                }
            ),
            JSON,
        ),
        "provider": TEXT,
        "model": TEXT,
        "command": TEXT,
        "output": TEXT,
        "exitCode": st.one_of(NUMBERS, st.none()),
        "summary": TEXT,
    },
)
ENTRY = st.fixed_dictionaries(
    {"type": TYPES, "id": IDS, "parentId": IDS},
    optional={
        "timestamp": st.one_of(
            st.sampled_from(["2026-01-01T00:00:00Z", "2026-01-01T00:00:01.5+02:00", "garbage"]),
            NUMBERS,
            st.none(),
        ),
        "message": st.one_of(MESSAGE, JSON),
        "firstKeptEntryId": IDS,
        "firstKeptEntryIndex": st.one_of(st.integers(-2, 8), NUMBERS, TEXT),
        "summary": TEXT,
        "tokensBefore": NUMBERS,
        "systemMessage": st.one_of(MESSAGE, JSON),
        "targetId": IDS,
        "replacement": st.one_of(
            st.none(), st.fixed_dictionaries({}, optional={"content": CONTENT}), JSON
        ),
        "label": st.one_of(TEXT, st.none()),
        "name": st.one_of(TEXT, NUMBERS),
        "thinkingLevel": st.one_of(st.sampled_from(["off", "high"]), JSON),
        "provider": TEXT,
        "modelId": TEXT,
        "content": CONTENT,
        "fromId": IDS,
        "customType": TEXT,
        "extra": JSON,
    },
)
HEADER = st.fixed_dictionaries(
    {"type": st.just("session"), "id": st.sampled_from(["s1", "0199abcd"])},
    optional={
        "version": st.sampled_from([1, 2, 3, None, "3", 4, "abc"]),
        "timestamp": st.just("2026-01-01T00:00:00.000Z"),
        "cwd": st.just("/work"),
    },
)


def dump_line(value: object, style: int) -> bytes:
    """Serialise one value: as Pi would, as Python would (ASCII escapes), or with spaces."""
    if style == 0:
        return jsjson.dumps(value).encode("utf-8")
    text = json.dumps(value, ensure_ascii=(style == 1), indent=None)
    return text.encode("utf-8", "surrogatepass").replace(b"Infinity", b"1e400")


# --- lines, damaged and not --------------------------------------------------------------


@st.composite
def linked_entry(draw, position: int, ids: list) -> dict:
    """An entry that usually joins the tree: a fresh id, a parent among earlier ids."""
    entry = draw(ENTRY)
    if draw(st.integers(0, 4)):
        entry["id"] = f"e{position}"
        choices = [None, *ids[-3:], *ids[:1]] if ids else [None]
        entry["parentId"] = (
            ids[-1] if ids and draw(st.booleans()) else draw(st.sampled_from(choices))
        )
        if ids:
            for key in ("firstKeptEntryId", "targetId", "fromId"):
                if key in entry and draw(st.booleans()):
                    entry[key] = draw(st.sampled_from(ids))
        if draw(st.integers(0, 2)):
            entry["type"] = "message"
            entry["message"] = draw(MESSAGE)
    return entry


@st.composite
def damaged_line(draw, position: int = 0, ids: list | None = None) -> bytes:
    ids = [] if ids is None else ids
    kind = draw(st.integers(0, 11))
    if kind <= 3:
        entry = draw(linked_entry(position, ids))
        if isinstance(entry.get("id"), str):
            ids.append(entry["id"])
        return dump_line(entry, draw(st.integers(0, 2)))
    if kind == 4:  # a torn write: a prefix of a valid line
        line = dump_line(draw(ENTRY), 0)
        return line[: draw(st.integers(0, max(0, len(line) - 1)))]
    if kind == 5:
        return draw(st.binary(max_size=40))
    if kind == 6:
        return draw(st.sampled_from([b"", b"   ", b"\t", b"\r", b"\x0b\x0c"]))
    if kind == 7:  # non-object and falsy values
        return dump_line(draw(JSON), 0)
    if kind == 8:  # a byte-order mark before a valid line
        return b"\xef\xbb\xbf" + dump_line(draw(ENTRY), 0)
    if kind == 9:  # JavaScript-invalid literals
        return draw(
            st.sampled_from([b'{"n": NaN}', b'{"n": -Infinity}', b"[1,]", b"{'a':1}", b'{"a":1}x'])
        )
    if kind == 10:  # lone surrogates and raw U+2028 inside strings
        return (
            b'{"type":"message","id":"s\\udc00","parentId":null,"message":{"role":"user",'
            b'"content":"\xe2\x80\xa8\\ud800\xe2\x80\xa9"}}'
        )
    return dump_line(draw(st.dictionaries(TEXT, JSON, max_size=3)), 0)


@st.composite
def session_bytes(draw) -> bytes:
    """A header line (usually) followed by damaged and valid lines, with mixed endings."""
    lines = [dump_line(draw(HEADER), draw(st.integers(0, 2)))]
    if draw(st.integers(0, 9)) == 0:
        lines.insert(0, draw(damaged_line()))
    ids: list = []
    for position in range(draw(st.integers(0, 12))):
        lines.append(draw(damaged_line(position, ids)))
    out = b""
    for line in lines:
        out += line + draw(st.sampled_from([b"\n", b"\n", b"\r\n"]))
    if draw(st.booleans()):
        out = out.rstrip(b"\n")
    return out


ANY_INPUT = st.one_of(session_bytes(), st.binary(max_size=300))


@st.composite
def legacy_session_bytes(draw) -> bytes:
    """A v1 or v2 file whose lines are all objects (Pi cannot migrate other values)."""
    header = {"type": "session", "id": "s1", "timestamp": "2026-01-01T00:00:00.000Z", "cwd": "/w"}
    version = draw(st.sampled_from([1, 2, None]))
    if version is not None:
        header["version"] = version
    lines = [jsjson.dumps(header).encode("utf-8")]
    ids: list = []
    for _ in range(draw(st.integers(0, 10))):
        choice = draw(st.integers(0, 9))
        if choice == 0:
            lines.append(draw(st.sampled_from([b"", b"not json", b'{"n": NaN}', b"null"])))
        else:
            entry = draw(linked_entry(len(lines), ids))
            ids.append(entry["id"]) if isinstance(entry.get("id"), str) else None
            if entry["type"] == "session":
                entry["type"] = "message"
            lines.append(dump_line(entry, draw(st.integers(0, 2))))
    ending = draw(st.sampled_from([b"\n", b"\r\n"]))
    return ending.join(lines) + ending


# --- helpers ------------------------------------------------------------------------------


@contextlib.contextmanager
def no_hang(seconds: int = HANG_SECONDS):
    """Fail (instead of hanging the test run) if the block takes longer than ``seconds``."""

    def timeout(signum, frame):
        raise AssertionError(f"no answer after {seconds} s: pisession hangs on this input")

    previous = signal.signal(signal.SIGALRM, timeout)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def load_or_error(data: bytes, **options):
    """The session, or None when pisession refused the input with a ``PisessionError``."""
    try:
        session = pisession.loads(data, "fuzz.jsonl", **options)
    except pisession.PisessionError as exc:
        assert "fuzz.jsonl" in str(exc) or "<entries>" in str(exc), str(exc)
        return None
    for diagnostic in session.diagnostics:
        assert diagnostic.line >= 1 and diagnostic.kind and diagnostic.message
    return session


def answer(call):
    """Call a question; return ("ok", value) or ("error", PisessionError subclass name)."""
    try:
        return "ok", call()
    except pisession.PisessionError as exc:
        return "error", type(exc).__name__


def ask_everything(session) -> None:
    """Every question on the session answers or raises ``PisessionError``."""
    for question in (session.problems, session.leaves, session.roots, session.children):
        answer(question)  # a tree Pi cannot sort, a name Pi cannot trim: PiFailure
    answer(session.tree)
    answer(lambda: (session.labels, session.name, session.entries, repr(session)))
    answer(lambda: session.stats().to_dict())
    leaf_ids = [None] + [e.get("id") for e in session.entries[:6] if isinstance(e, dict)]
    for leaf in leaf_ids:
        answer(lambda leaf=leaf: session.stats(leaf, branch=True).to_dict())
        answer(lambda leaf=leaf: session.fates(leaf))
        status, context = answer(lambda leaf=leaf: session.context(leaf))
        if status == "ok":
            context.to_dict()
            context.to_json()
            answer(context.to_llm)
        status, projection = answer(lambda leaf=leaf: session.projection(leaf))
        if status == "ok":
            assert [m for e in projection.entries for m in e.messages] == projection.messages
        status, prompt = answer(lambda leaf=leaf: session.system_prompt(leaf))
        if status == "ok":
            _ = prompt.text, prompt.to_message()


def context_json(session) -> str:
    """The default context as Pi's JSON text, or the name of the error it raises."""
    status, value = answer(lambda: session.context().to_dict())
    return jsjson.dumps(value) if status == "ok" else value


# --- the properties --------------------------------------------------------------------------

FUZZ = settings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize=RANDOM is None,
    suppress_health_check=[HealthCheck.too_slow],
)


@FUZZ
@given(ANY_INPUT)
def test_any_bytes_give_a_session_or_a_pisession_error(data):
    with no_hang():
        load_or_error(data)
        load_or_error(data, migrate=False)


@FUZZ
@given(session_bytes())
def test_every_question_answers_or_raises_pisession_error(data):
    with no_hang():
        session = load_or_error(data, new_id=pisession.sequential_ids())
        if session is not None:
            ask_everything(session)


@FUZZ
@given(ANY_INPUT)
def test_dumps_of_an_unmigrated_session_is_the_input(data):
    session = load_or_error(data, migrate=False)
    if session is not None:
        assert session.dumps() == data
    session = load_or_error(data)
    if session is not None and not session.migrated:
        assert session.dumps() == data


@FUZZ
@given(legacy_session_bytes())
def test_migrated_session_written_and_read_again_has_the_same_context(data):
    with no_hang():
        session = load_or_error(data, new_id=pisession.sequential_ids())
        if session is None:
            return
        assert session.migrated or session.original_version not in (1, 2, None)
        written = session.dumps()
        again = pisession.loads(written, "written.jsonl")
        assert not again.migrated
        assert again.header.get("version") == 3
        assert len(again) == len(session)
        assert [d.line for d in again.diagnostics] == [d.line for d in session.diagnostics]
        assert context_json(again) == context_json(session)
        assert again.dumps() == written


def test_migrated_session_saved_and_loaded_has_the_same_context(tmp_path):
    legacy = pisession.sample_path("legacy-v1")
    session = pisession.load(legacy, new_id=pisession.sequential_ids())
    assert session.migrated
    target = session.save(tmp_path / "migrated.jsonl")
    again = pisession.load(target)
    assert not again.migrated
    assert again.context().to_json() == session.context().to_json()
    assert again.fates() == session.fates()
