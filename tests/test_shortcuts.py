"""The rule's shortcuts for long straight sessions give what the general steps give:
parents found without an id index, runs of plain message entries written straight from
their lines, lines that follow one another read as one span."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import pisession
from pisession import rule
from pisession.engine import context as engine
from pisession.engine import index as entry_index
from pisession.engine import reader, stream
from pisession.engine.opening import back_to_back as _back_to_back
from pisession.js.value import NO_KEY, UNDEFINED, js_key, truthy

# --- a rank in the path ------------------------------------------------------------------


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.integers(0, 5000), min_size=1, max_size=3000, unique=True),
    st.integers(0, 5000),
    st.data(),
    st.integers(1, 64),
)
def test_the_rank_before_a_cut_is_the_naive_search(path, target, data, near):
    """``_rank_before`` looks back from the cut in widening stretches: it finds what a
    plain search of the whole path before the cut finds, near or far, or nothing."""
    cut = data.draw(st.integers(0, len(path)))
    expected = path[:cut].index(target) if target in path[:cut] else cut
    assert engine._rank_before(path, target, cut, near) == expected


# --- parents ------------------------------------------------------------------------------

ID = st.one_of(
    st.sampled_from(["a", "b", "c", "", "0"]),
    st.none(),
    st.just(UNDEFINED),
    st.integers(-1, 2),
    st.booleans(),
)


def naive_parents(parent_ids: list, ids: list) -> list[int]:
    """Pi's lookup, one entry at a time: a ``Map`` of ids (the later one wins) and a
    walk that stops at a falsy ``parentId``."""
    by_id = {}
    for position, value in enumerate(ids):
        if js_key(value) is not NO_KEY:
            by_id[js_key(value)] = position
    return [by_id.get(js_key(p), -1) if truthy(p) else -1 for p in parent_ids]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.tuples(ID, ID), max_size=8))
def test_parents_match_a_naive_lookup(pairs):
    ids = [i for i, _ in pairs]
    parent_ids = [p for _, p in pairs]
    assert entry_index.parent_positions(parent_ids, ids) == naive_parents(parent_ids, ids)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from("abcdef"), min_size=2, max_size=6, unique=True), st.data())
def test_parents_of_distinct_string_ids_match_a_naive_lookup(ids, data):
    parent_ids = [data.draw(st.sampled_from([None, "", "zz", *ids])) for _ in ids]
    assert entry_index.parent_positions(parent_ids, ids) == naive_parents(parent_ids, ids)


def test_a_straight_session_needs_no_id_index():
    ids = [f"{n:08x}" for n in range(1000)]
    parent_ids = [None, *ids[:-1]]

    def index_of():
        raise AssertionError("looked the ids up")

    assert entry_index.parent_positions(parent_ids, ids, index_of) == list(range(-1, 999))
    index = entry_index.EntryIndex.of(
        [{"type": "label", "id": i, "parentId": p} for i, p in zip(ids, parent_ids)]
    )
    assert "by_id" not in index.__dict__ and index.unique_ids
    assert index.position_of(ids[7]) == 7  # made when first asked for


def test_a_branch_asks_for_the_id_index_once():
    calls = []
    ids, parent_ids = ["a", "b", "c"], [None, "a", "a"]

    def index_of():
        calls.append(1)
        return {"a": 0, "b": 1, "c": 2}

    assert entry_index.parent_positions(parent_ids, ids, index_of) == [-1, 0, 0]
    assert calls == [1]


# --- plain runs ---------------------------------------------------------------------------

MESSAGE = st.one_of(
    st.fixed_dictionaries(
        {"role": st.sampled_from(["user", "assistant", "toolResult", "system", "custom", 7])},
        optional={"content": st.one_of(st.none(), st.text(max_size=3), st.just([]))},
    ),
    st.none(),
    st.integers(),
    st.lists(st.integers(), max_size=2),
)


@settings(max_examples=300, deadline=None)
@given(st.lists(MESSAGE, max_size=6))
def test_stored_messages_are_each_entrys_contribution(messages):
    expected = [m for message in messages for m in rule.message_messages(message)]
    assert rule.stored_messages(list(messages)) == expected


def test_a_plain_run_is_message_entries_no_edit_targets():
    entries = [
        {"type": "message", "id": "u", "parentId": None, "message": {"role": "user"}},
        {"type": "message", "id": "a", "parentId": "u", "message": {"role": "assistant"}},
        {"type": "compaction", "id": "c", "parentId": "a"},
        {"type": "message", "id": 5, "parentId": "c", "message": {"role": "user"}},
    ]
    index = entry_index.EntryIndex.of(entries)
    assert engine.is_plain_run(index, {}, [0, 1])
    assert not engine.is_plain_run(index, {}, [])
    assert not engine.is_plain_run(index, {}, [1, 2])  # a compaction
    assert not engine.is_plain_run(index, {"a": (9, {})}, [0, 1])  # an edit targets a1
    assert engine.is_plain_run(index, {"zz": (9, {})}, [0, 1])
    assert not engine.is_plain_run(index, {"zz": (9, {})}, [3])  # an id that is not a string


# --- the written context ------------------------------------------------------------------


def _line(kind: str, ident: str, parent: str | None, **fields) -> str:
    entry = {"type": kind, "id": ident, "parentId": parent, "timestamp": "2026-01-01T00:00:00.000Z"}
    return json.dumps({**entry, **fields}, separators=(",", ":"))


def _message(ident, parent, role, content, **extra) -> str:
    return _line("message", ident, parent, message={"role": role, "content": content, **extra})


def _odd_session() -> bytes:
    """A long straight session with what the shortcuts must notice: a blank line and a
    CRLF line between entries, a message without content, numbers JavaScript prints
    differently, a long integer, an integer-like key, a lone surrogate, an edit, a
    compaction with its kept range, and an entry read in full by the slow path."""
    header = {"type": "session", "version": 3, "id": "s", "timestamp": "2026-01-01T00:00:00Z"}
    lines = [json.dumps(header, separators=(",", ":"))]
    parent = None
    for n in range(60):
        ident = f"m{n:03d}"
        role = "user" if n % 2 == 0 else "assistant"
        extra: dict = {}
        content: object = [{"type": "text", "text": f"step {n}"}]
        if n == 5:
            content = None
        elif n == 9:
            extra = {"usage": {"cost": {"total": 1e-7, "input": 1.0, "output": 1e21}}}
        elif n == 13:
            extra = {"big": 12345678901234567890}
        elif n == 17:
            extra = {"details": {"10": "x", "b": 2}}
        text = _message(ident, parent, role, content, **extra)
        if n == 21:
            text = text.replace("step 21", "\\ud800 lone")
        if n == 25:
            text = text.replace(',"parentId"', ' ,  "parentId"')  # read line by line
        lines.append(text)
        if n == 30:
            lines.append("")
        if n == 33:
            lines[-1] += "\r"
        parent = ident
    edit = {"content": "short"}
    lines.append(_line("context_edit", "e1", parent, targetId="m040", replacement=edit))
    lines.append(
        _line("compaction", "c1", "e1", summary="s", firstKeptEntryId="m010", tokensBefore=9)
    )
    parent = "c1"
    for n in range(60, 80):
        ident = f"m{n:03d}"
        lines.append(_message(ident, parent, "user", [{"type": "text", "text": str(n)}]))
        parent = ident
    return ("\n".join(lines) + "\n").encode()


@pytest.mark.parametrize("indent", [2, None, 4])
@pytest.mark.parametrize("block", [1, 3, 7, 4096])
@pytest.mark.parametrize("from_disk", [False, True])
def test_the_written_context_equals_the_rule(tmp_path, monkeypatch, indent, block, from_disk):
    data = _odd_session()
    if from_disk:
        monkeypatch.setattr(reader, "CHUNK", 1 << 10)  # not kept: lines read again
        path = tmp_path / "s.jsonl"
        path.write_bytes(data)
        session = pisession.load(path)
        assert session.file._rows.store.data is None
    else:
        session = pisession.loads(data)
    for leaf in (None, "m050", "m020", "m005"):
        expected = session.context(leaf).to_json(indent).encode()
        chunks = stream.context_json(
            session.index, session._leaf(leaf), indent, session.file.raw_lines, block
        )
        assert b"".join(chunks) == expected, (leaf, indent, block)


def _sessions_of_every_kind() -> list:
    """The odd session above and a third of the repository's session files."""
    import contextlib
    import glob

    sessions = [pisession.loads(_odd_session())]
    for path in sorted(glob.glob("data/**/*.jsonl", recursive=True))[::3]:
        with contextlib.suppress(pisession.PisessionError):  # no header
            sessions.append(pisession.load(path))
    return sessions


@pytest.mark.parametrize("block", [1, 3, 7, 4096])
def test_fates_of_plain_runs_equal_the_general_path(monkeypatch, block):
    """``entry_fates`` reads a plain run's fates without the per-entry steps: the same
    names and details as when every block goes through the contributions."""
    from pisession.views import provenance

    monkeypatch.setattr(provenance, "_BLOCK", block)
    checked = 0
    for session in _sessions_of_every_kind():
        for leaf in [None, *(session.index.ids[p] for p in session.shape.leaves[:3])]:
            try:
                quick = provenance.entry_fates(session, leaf)
            except pisession.PisessionError:  # a leaf Pi fails on, or an odd id
                continue
            with monkeypatch.context() as general:
                general.setattr(engine, "is_plain_run", lambda *args: False)
                slow = provenance.entry_fates(session, leaf)
            assert (quick.names, quick._details) == (slow.names, slow._details)
            checked += 1
    assert checked > 100


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(ID, ID), max_size=8))
def test_tree_parents_match_a_naive_lookup(pairs):
    """Pi's tree view: a non-empty string parentId links as the context does; otherwise
    null or the entry's own id makes a root, any other is looked up (falsy ones too),
    and one not found makes a root."""
    from pisession.js.value import strict_equal
    from pisession.tree import tree_parents

    entries = [{"id": i, "parentId": p} for i, p in pairs]
    index = entry_index.EntryIndex.of(
        [{k: v for k, v in e.items() if v is not UNDEFINED} for e in entries]
    )
    by_id = {js_key(i): k for k, (i, _) in enumerate(pairs) if js_key(i) is not NO_KEY}
    expected = [
        index.parents[k]
        if type(p) is str and p
        else -1
        if p is None or strict_equal(p, i) or js_key(p) is NO_KEY
        else by_id.get(js_key(p), -1)
        for k, (i, p) in enumerate(pairs)
    ]
    assert tree_parents(index) == expected


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(-1, 12), min_size=1, max_size=14))
def test_straight_runs_of_the_tree_match_a_naive_walk(links):
    """``Shape.only_child``, ``Shape._straight`` and ``Shape.chain`` (runs of consecutive
    entries found in C) against a walk one child at a time."""
    from pisession.tree import Shape, tree_parents

    entries = [{"id": f"e{k}"} for k in range(len(links))]
    for k, link in enumerate(links):
        if 0 <= link < len(links) and link != k:
            entries[k]["parentId"] = f"e{link}"
    index = entry_index.EntryIndex.of(entries)
    shape = Shape.of(index)
    children: dict = {}
    for child, parent in enumerate(tree_parents(index)):
        if parent >= 0 and parent != child:
            children.setdefault(parent, []).append(child)
    only = {p: kids[0] for p, kids in children.items() if len(kids) == 1}
    size = len(links)
    assert {p: shape.only_child(p) for p in range(size) if shape.only_child(p) is not None} == only
    assert shape._straight == bytearray(only.get(p) == p + 1 for p in range(size))
    for start in shape.roots:
        naive, seen = [start], {start}
        while naive[-1] in only and only[naive[-1]] not in seen:
            naive.append(only[naive[-1]])
            seen.add(naive[-1])
        assert shape.chain(start) == naive


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.sampled_from(["sent", "kept", "off-path"]), max_size=30),
    st.sets(st.integers(0, 29), max_size=4),
    st.integers(0, 6),
)
def test_collapsed_runs_match_one_entry_at_a_time(fates, keep, collapse):
    """``collapse_runs`` against a reading one entry at a time: a run ends where the fate
    changes or at an entry to keep; a run longer than ``collapse`` whose gap would hide
    two entries or more shows its first two, the gap and its last two."""
    from pisession.views.explain import Gap, collapse_runs

    expected: list = []
    run: list = []

    def close_run() -> None:
        if collapse > 0 and len(run) > max(collapse, 5):
            expected.extend([run[0], run[1], Gap(len(run) - 4, run[2], run[-3]), *run[-2:]])
        else:
            expected.extend(run)
        run.clear()

    for position, fate in enumerate(fates):
        if run and fates[run[-1]] != fate:
            close_run()
        if position in keep and collapse > 0:
            close_run()
            expected.append(position)
        else:
            run.append(position)
    close_run()
    chain = list(range(len(fates)))
    assert collapse_runs(chain, keep, fates.__getitem__, collapse) == expected


def test_lines_back_to_back():
    from array import array

    starts, ends = array("q", [0, 5, 9, 14]), array("q", [4, 8, 12, 20])
    assert _back_to_back([0, 1, 2], starts, ends)
    assert _back_to_back(range(1, 3), starts, ends)
    assert not _back_to_back([2, 3], starts, ends)  # a byte between them
    assert not _back_to_back([0, 2], starts, ends)  # not consecutive
    assert not _back_to_back([1, 0], starts, ends)
    assert not _back_to_back([], starts, ends)


# --- JSON text ----------------------------------------------------------------------------

JSON_VALUE = st.recursive(
    st.one_of(
        st.floats(allow_nan=True, allow_infinity=True),
        st.integers(-(10**25), 10**25),
        st.text(alphabet='0123456789.eE-+ aNInfity"\\', max_size=8),
        st.booleans(),
        st.none(),
    ),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3)
    ),
    max_leaves=12,
)


@settings(max_examples=500, deadline=None)
@given(JSON_VALUE)
def test_json_text_skips_number_fixing_only_where_nothing_changes(value):
    """``jsjson.dumps`` rewrites numbers only when the text may hold one Python writes
    differently from JavaScript: the same text as rewriting every time."""
    from pisession.js import json as jsjson

    fast = jsjson.dumps(value)
    saved = jsjson._maybe_different
    jsjson._maybe_different = lambda probe: True  # always rewrite
    try:
        assert jsjson.dumps(value) == fast
    finally:
        jsjson._maybe_different = saved


# --- previews -----------------------------------------------------------------------------

BLOCK = st.one_of(
    st.fixed_dictionaries({"type": st.just("text"), "text": st.text(max_size=30)}),
    st.fixed_dictionaries({"type": st.just("thinking"), "thinking": st.text(max_size=30)}),
    st.fixed_dictionaries(
        {
            "type": st.just("toolCall"),
            "name": st.text(max_size=5),
            "arguments": st.dictionaries(st.text(max_size=3), st.text(max_size=9), max_size=2),
        }
    ),
    st.fixed_dictionaries({"type": st.just("image"), "data": st.just("AAAA")}),
    st.integers(),
)


@settings(max_examples=400, deadline=None)
@given(st.lists(BLOCK, max_size=5) | st.text(max_size=20), st.integers(0, 80))
def test_a_preview_starts_as_the_whole_text(content, enough):
    from pisession.views.text import content_summary, entry_text

    whole = content_summary(content)
    start = content_summary(content, enough)
    assert whole.startswith(start) and start[:enough] == whole[:enough]
    entry = {"type": "message", "message": {"role": "assistant", "content": content}}
    assert entry_text(entry, enough)[:enough] == entry_text(entry)[:enough]
