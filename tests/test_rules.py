"""One test per rule of the session format (spec sections in brackets).

Each test name says the rule, so a reader can find the test for, say, "system
messages in the kept range are dropped". The conformance suite checks the same rules
against the real Pi; these tests show each rule on the smallest possible file.

Every test runs twice (the ``impl`` fixture), as CPython runs ``test_json`` with and
without its C scanner: on the fast engine, and on the readable rule
(``pisession.engine.seam.fast = None``: the ``Session`` then asks ``pisession.rule``
for its path, steps and projection, given every entry).
"""

from __future__ import annotations

import math

import pytest
from builders import HEADER, compaction, edit, entry, jsonl, msg, roles, session

import pisession
from pisession import rule
from pisession.engine import context, seam
from pisession.engine.index import EntryIndex
from pisession.errors import CycleError, SessionFormatError, UnknownLeafError
from pisession.js.value import UNDEFINED


@pytest.fixture(autouse=True, params=["engine", "rule"])
def impl(request, monkeypatch):
    """The implementation the session asks through the seam: the engine or the rule."""
    if request.param == "rule":
        monkeypatch.setattr(seam, "fast", None)
    module = rule if request.param == "rule" else context
    assert seam.implementation(EntryIndex.of([])) is module
    return module


def test_the_session_asks_the_implementation_through_the_seam(impl, monkeypatch):
    """Not a hollow parametrisation: the session's answers come from ``impl``."""
    asked = []
    for name in ("project", "steps"):
        real = getattr(impl, name)
        monkeypatch.setattr(impl, name, lambda *a, n=name, f=real: asked.append(n) or f(*a))
    s = session(msg("u1", None), msg("a1", "u1", "assistant"))
    assert roles(s.context()) == ["user", "assistant"] and len(s.selection().positions) == 2
    assert asked[0] == "project" and asked[-1] == "steps"  # (project takes the steps too)


# --- [1] lines --------------------------------------------------------------------------


def test_lines_split_on_newline_only_u2028_stays_inside_a_string():
    s = session(msg("u1", None, content="one\u2028two\u2029three"))
    assert len(s) == 1
    assert s.context().messages[0]["content"] == "one\u2028two\u2029three"


def test_blank_and_malformed_lines_are_skipped_and_reported():
    s = session("", "   ", "{not json", msg("u1", None))
    assert len(s) == 1
    assert [(d.line, d.kind) for d in s.diagnostics] == [
        (2, "blank"),
        (3, "blank"),
        (4, "malformed"),
    ]


def test_nan_literal_is_rejected_like_javascript():
    s = session('{"type":"message","id":"x","parentId":null,"n":NaN}', msg("u1", None))
    assert [d.kind for d in s.diagnostics] == ["malformed"]
    assert "NaN" in s.diagnostics[0].message


def test_falsy_values_are_skipped():
    s = session("null", "0", "false", '""', msg("u1", None))
    assert len(s) == 1 and [d.kind for d in s.diagnostics] == ["falsy"] * 4


def test_non_object_value_is_an_id_less_entry_and_can_be_the_default_leaf():
    s = session(msg("u1", None), "[1, 2]")
    assert len(s) == 2 and s.entry(1) == [1, 2]
    assert s.context().messages == []  # the leaf is the array; its path is just itself


def test_invalid_utf8_decodes_to_replacement_character():
    data = jsonl(msg("u1", None, content="caf\u00e9")).replace("é".encode(), b"\xff")
    assert pisession.loads(data).context().messages[0]["content"] == "caf\ufffd"


def test_lone_surrogate_escape_is_kept():
    s = session(
        '{"type":"message","id":"u1","parentId":null,"message":{"role":"user","content":"\\ud83d"}}'
    )
    assert s.context().messages[0]["content"] == "\ud83d"


def test_crlf_line_endings_parse():
    data = jsonl(msg("u1", None), msg("a1", "u1", "assistant")).replace(b"\n", b"\r\n")
    assert roles(pisession.loads(data).context()) == ["user", "assistant"]


def test_last_line_without_newline_is_accepted_and_file_untouched(tmp_path):
    path = tmp_path / "s.jsonl"
    path.write_bytes(jsonl(msg("u1", None)).rstrip(b"\n"))
    before = (path.read_bytes(), path.stat().st_mtime_ns)
    assert len(pisession.load(path)) == 1
    assert (path.read_bytes(), path.stat().st_mtime_ns) == before


# --- [2] header ---------------------------------------------------------------------


def test_first_object_must_be_a_header_error_names_file_and_line(tmp_path):
    path = tmp_path / "bad.jsonl"
    path.write_bytes(b"\n" + jsonl(msg("u1", None)).split(b"\n", 1)[1])
    with pytest.raises(SessionFormatError) as caught:
        pisession.load(path)
    assert caught.value.line == 2 and str(path) in str(caught.value)
    assert "not a session header" in str(caught.value)


def test_header_id_must_be_a_string():
    with pytest.raises(SessionFormatError, match="string"):
        session(header={**HEADER, "id": 7})


def test_empty_file_is_an_error():
    with pytest.raises(SessionFormatError, match="no session header"):
        pisession.loads(b"")


def test_missing_version_means_version_1():
    s = session(
        {"type": "message", "message": {"role": "user", "content": "hi"}},
        header={k: v for k, v in HEADER.items() if k != "version"},
    )
    assert s.original_version is None and s.migrated and s.header["version"] == 3


# --- [3] entries ----------------------------------------------------------------------


def test_unknown_entry_types_and_fields_are_kept_and_contribute_nothing():
    s = session(msg("u1", None, extra_field=1), entry("future_thing", "f1", "u1", x=[1]))
    assert s.entry(1)["x"] == [1] and s.entry(0)["message"]["extra_field"] == 1
    assert roles(s.context()) == ["user"]


def test_ids_of_any_length_work():
    s = session(
        msg("0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b", None),
        msg("x", "0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b"),
    )
    assert len(s.path()) == 2


# --- [4] migration --------------------------------------------------------------------

V1 = {"type": "session", "version": 1, "id": "old", "timestamp": "2025-01-01T00:00:00Z", "cwd": "/"}


def v1(*entries):
    return session(*entries, header=V1)


def test_v1_entries_get_fresh_ids_chained_in_file_order():
    s = pisession.loads(
        jsonl(
            {"type": "message", "id": "keep?", "message": {"role": "user", "content": "a"}},
            {"type": "message", "message": {"role": "assistant", "content": []}},
            header=V1,
        ),
        new_id=pisession.sequential_ids(),
    )
    assert [(e["id"], e["parentId"]) for e in s.entries] == [
        ("m0000001", None),
        ("m0000002", "m0000001"),
    ]
    assert s.header["version"] == 3 and s.original_version == 1


def test_v1_first_kept_entry_index_counts_the_header_as_zero():
    s = pisession.loads(
        jsonl(
            {"type": "message", "message": {"role": "user", "content": "old"}},
            {"type": "message", "message": {"role": "user", "content": "kept"}},
            {"type": "compaction", "summary": "S", "firstKeptEntryIndex": 2, "tokensBefore": 1},
            header=V1,
        ),
        new_id=pisession.sequential_ids(),
    )
    comp = s.entry(2)
    assert comp["firstKeptEntryId"] == "m0000002" and "firstKeptEntryIndex" not in comp
    assert [m.get("content") for m in s.context().messages][1:] == ["kept"]


def test_v1_skipped_lines_do_not_count_in_first_kept_entry_index():
    s = pisession.loads(
        jsonl(
            "garbage",
            {"type": "message", "message": {"role": "user", "content": "a"}},
            {"type": "compaction", "summary": "S", "firstKeptEntryIndex": 1},
            header=V1,
        ),
        new_id=pisession.sequential_ids(),
    )
    assert s.entry(1)["firstKeptEntryId"] == "m0000001"


@pytest.mark.parametrize("index", [0, 99, 2])
def test_v1_index_at_header_past_end_or_later_entry_without_id_is_dropped(index):
    s = v1(
        {"type": "compaction", "summary": "S", "firstKeptEntryIndex": index},
        {"type": "message", "message": {"role": "user", "content": "later"}},
    )
    comp = s.entry(0)
    assert "firstKeptEntryIndex" not in comp and "firstKeptEntryId" not in comp


def test_v2_hookmessage_role_becomes_custom_but_custom_entry_type_is_untouched():
    header = {**V1, "version": 2}
    s = session(
        msg("h1", None, "hookMessage", content="note"),
        entry("custom", "c1", "h1", data=1),
        header=header,
    )
    assert s.entry(0)["message"]["role"] == "custom" and s.entry(1)["type"] == "custom"
    assert [step.summary() for step in s.migration_steps] == ["v2 -> v3: 1 version, 1 message.role"]


def test_version_3_file_is_not_migrated_and_stray_hookmessage_is_dropped_by_to_llm():
    s = session(msg("h1", None, "hookMessage", content="note"))
    assert not s.migrated and s.entry(0)["message"]["role"] == "hookMessage"
    assert s.context().to_llm() == []


def test_migration_never_modifies_the_loaded_values():
    values = [dict(V1), {"type": "message", "message": {"role": "hookMessage"}}]
    snapshot = repr(values)
    pisession.migrate(values, new_id=pisession.sequential_ids())
    assert repr(values) == snapshot


def test_migrated_file_written_only_on_request_and_atomically(tmp_path):
    src = tmp_path / "old.jsonl"
    src.write_bytes(
        jsonl({"type": "message", "message": {"role": "user", "content": "a"}}, header=V1)
    )
    before = src.read_bytes()
    s = pisession.load(src, new_id=pisession.sequential_ids())
    assert src.read_bytes() == before
    out = s.save(tmp_path / "new.jsonl")
    again = pisession.load(out)
    assert not again.migrated and again.entry(0)["id"] == "m0000001"
    assert again.context().to_dict() == s.context().to_dict()
    with pytest.raises(FileExistsError):
        s.save(out)


# --- [5] leaf and path ------------------------------------------------------------------


def test_default_leaf_is_the_last_entry_in_file_order_whatever_its_type():
    s = session(
        msg("u1", None),
        msg("a1", "u1", "assistant"),
        msg("u2", "u1"),
        entry("label", "l1", "a1", targetId="a1", label="x"),
    )
    assert [e["id"] for e in s.path()] == ["u1", "a1", "l1"]


def test_path_walks_parent_ids_from_leaf_to_root():
    s = session(msg("u1", None), msg("a1", "u1", "assistant"), msg("a2", "u1", "assistant"))
    assert [e["id"] for e in s.path("a1")] == ["u1", "a1"]


def test_unknown_leaf_id_is_an_error_not_a_fallback():
    with pytest.raises(UnknownLeafError, match="nope"):
        session(msg("u1", None)).context("nope")


def test_duplicate_ids_later_entry_wins():
    s = session(
        msg("x", None, content="first"),
        msg("x", None, content="second"),
        msg("u2", "x", content="child"),
    )
    assert [m["content"] for m in s.context().messages] == ["second", "child"]
    assert s.problems()["duplicate_ids"] == {"x": [0, 1]}


def test_empty_parent_id_counts_as_no_parent():
    s = session(msg("u1", None), msg("u2", ""))
    assert [e["id"] for e in s.path()] == ["u2"] and s.roots() == [0, 1]


def test_dangling_parent_ends_the_path():
    s = session(msg("u1", None), msg("u2", "gone"))
    assert [e["id"] for e in s.path()] == ["u2"] and s.problems()["dangling_parents"] == [1]


def test_parent_cycle_is_reported_not_walked_forever():
    s = session(msg("a", "b"), msg("b", "a"))
    with pytest.raises(CycleError) as caught:
        s.context()
    assert sorted(caught.value.cycle) == ["a", "b"] and caught.value.line is not None
    assert s.problems()["cycles"] == [[0, 1]]


def test_entry_that_is_its_own_parent_is_a_cycle():
    with pytest.raises(CycleError):
        session(msg("a", "a")).context()


def test_several_roots_are_legal():
    s = session(msg("u1", None), msg("u2", None))
    assert s.roots() == [0, 1] and s.leaves() == [0, 1]


# --- [6] settings -------------------------------------------------------------------------


def test_thinking_level_defaults_to_off_and_model_to_null():
    d = session(msg("u1", None)).context().to_dict()
    assert d["thinkingLevel"] == "off" and d["model"] is None


def test_model_comes_from_model_change_and_assistant_messages_later_wins():
    s = session(
        entry("model_change", "m1", None, provider="a", modelId="x"),
        msg("a1", "m1", "assistant", provider="b", model="y"),
    )
    assert s.context().model == {"provider": "b", "modelId": "y"}


def test_settings_scan_the_summarized_part_of_the_path_too():
    s = session(
        entry("thinking_level_change", "t1", None, thinkingLevel="high"),
        msg("u1", "t1"),
        compaction("c1", "u1", "c1"),
        msg("u2", "c1"),
    )
    assert s.context().thinking_level == "high"


def test_thinking_level_comes_from_the_path_only():
    s = session(
        msg("u1", None),
        entry("thinking_level_change", "t1", "u1", thinkingLevel="high"),
        msg("u2", "u1"),
    )
    assert s.context().thinking_level == "off" and s.context("t1").thinking_level == "high"


# --- [7] selection: compaction and the kept range -----------------------------------------


def test_without_compaction_the_whole_path_is_selected():
    s = session(msg("u1", None), entry("label", "l1", "u1", targetId="u1", label="x"))
    assert [e["id"] for e in [s.entry(p) for p in s.selection().positions]] == ["u1", "l1"]


def test_compaction_selects_itself_then_kept_range_then_entries_after():
    s = session(msg("u1", None), msg("u2", "u1"), compaction("c1", "u2", "u2"), msg("u3", "c1"))
    assert [e["id"] for e in [s.entry(p) for p in s.selection().positions]] == ["c1", "u2", "u3"]
    assert roles(s.context()) == ["compactionSummary", "user", "user"]


def test_system_messages_in_the_kept_range_are_dropped():
    s = session(
        msg("s1", None, "system", content="old prompt"),
        msg("u1", "s1"),
        msg("s2", "u1", "system", content="delta"),
        compaction("c1", "s2", "u1"),
    )
    assert [e["id"] for e in [s.entry(p) for p in s.selection().positions]] == ["c1", "u1"]
    assert {f.id: f.fate for f in s.fates()}["s2"] == "dropped-system"


def test_system_messages_in_the_kept_range_are_dropped_even_without_a_checkpoint():
    """Pi drops them unconditionally; ``systemMessage`` is optional, so a compaction
    without one leaves a context with no system prompt at all (checked against Pi:
    data/conformance/edge and notebook 04)."""
    entries = [
        msg("s1", None, "system", content="the prompt"),
        msg("u1", "s1"),
        msg("s2", "u1", "system", content="a delta"),
        compaction("c1", "s2", "u1"),
        msg("u2", "c1"),
    ]
    without = session(*entries)
    assert roles(without.context()) == ["compactionSummary", "user", "user"]
    assert without.system_prompt().text == ""
    reason = {f.id: f.reason for f in without.fates()}["s2"]
    assert "drops every system message" in reason and "stores no system message" in reason
    checkpoint = {"role": "system", "content": "the prompt, kept"}
    entries[3] = compaction("c1", "s2", "u1", systemMessage=checkpoint)
    with_one = session(*entries)
    assert roles(with_one.context()) == ["system", "compactionSummary", "user", "user"]
    reason = {f.id: f.reason for f in with_one.fates()}["s2"]
    assert "drops every system message" in reason and "its own stored system message" in reason


def test_retain_none_compaction_keeps_nothing_before_it():
    s = session(msg("u1", None), compaction("c1", "u1", "c1"), msg("u2", "c1"))
    assert [e["id"] for e in [s.entry(p) for p in s.selection().positions]] == ["c1", "u2"]
    assert s.selection().retains_none and s.selection().first_kept_id == "c1"


def test_first_kept_entry_id_not_found_keeps_nothing_before():
    s = session(msg("u1", None), compaction("c1", "u1", "elsewhere"))
    assert [e["id"] for e in [s.entry(p) for p in s.selection().positions]] == ["c1"]
    assert not s.selection().retains_none and s.selection().first_kept_id == "elsewhere"
    missing = session(msg("u1", None), compaction("c1", "u1", None)).selection()
    assert not missing.retains_none and missing.first_kept_id is UNDEFINED


def test_latest_compaction_on_the_path_wins_older_one_in_kept_range_contributes_nothing():
    s = session(
        msg("u1", None),
        compaction("c1", "u1", "u1", summary="old"),
        msg("u2", "c1"),
        compaction("c2", "u2", "c1", summary="new"),
    )
    p = s.projection()
    assert [(i.id, len(i.messages)) for i in p.entries] == [("c2", 1), ("c1", 0), ("u2", 1)]
    assert p.messages[0]["summary"] == "new"


def test_compaction_sends_its_system_checkpoint_before_the_summary():
    checkpoint = {"role": "system", "content": "", "sections": {"a": "A"}, "timestamp": 1}
    s = session(msg("u1", None), compaction("c1", "u1", "c1", systemMessage=checkpoint))
    assert s.context().messages[0] == checkpoint and roles(s.context()) == [
        "system",
        "compactionSummary",
    ]


# --- [8] context edits ----------------------------------------------------------------


def test_context_edit_with_null_replacement_omits_the_target():
    s = session(
        msg("u1", None), msg("a1", "u1", "assistant", content=[]), edit("e1", "a1", "a1", None)
    )
    assert roles(s.context()) == ["user"]


def test_context_edit_string_becomes_text_block_for_assistant_and_tool_result():
    s = session(
        msg("u1", None),
        msg("a1", "u1", "assistant", content=[]),
        edit("e1", "a1", "a1", {"content": "short"}),
        edit("e2", "e1", "u1", {"content": "u"}),
    )
    messages = s.context().messages
    assert messages[1]["content"] == [{"type": "text", "text": "short"}]
    assert messages[0]["content"] == "u"  # a user message keeps the string


def test_later_context_edit_replaces_earlier_one():
    s = session(
        msg("u1", None), edit("e1", "u1", "u1", None), edit("e2", "e1", "u1", {"content": "B"})
    )
    assert s.context().messages[0]["content"] == "B"


def test_context_edit_summarized_away_is_not_applied():
    s = session(
        msg("u1", None),
        edit("e1", "u1", "u1", None),
        msg("u2", "e1"),
        compaction("c1", "u2", "u2"),
        msg("u3", "c1"),
    )
    assert "e1" not in [e["id"] for e in [s.entry(p) for p in s.selection().positions]]
    s2 = session(
        msg("u1", None),
        msg("u2", "u1"),
        edit("e1", "u2", "u1", {"content": "x"}),
        compaction("c1", "e1", "u2"),
    )
    assert [m.get("content") for m in s2.context().messages][1:] == ["hi"]


def test_context_edit_leaves_other_roles_and_raw_entries_unchanged():
    s = session(msg("u1", None), edit("e1", "u1", "u1", {"content": "new"}))
    s.context()
    assert s.entry(0)["message"]["content"] == "hi"


# --- [9] contributions --------------------------------------------------------------------


def test_null_content_becomes_empty_string_for_system_and_empty_list_for_others():
    s = session(msg("s1", None, "system", content=None), msg("u1", "s1", content=None))
    assert [m["content"] for m in s.context().messages] == ["", []]


def test_custom_message_entry_becomes_custom_role_details_absent_when_missing():
    s = session(entry("custom_message", "c1", None, customType="t", content=None, display=True))
    (message,) = s.context().messages
    assert message["role"] == "custom" and message["content"] == [] and "details" not in message


def test_branch_summary_with_empty_summary_contributes_nothing():
    s = session(msg("u1", None), entry("branch_summary", "b1", "u1", fromId="x", summary=""))
    assert roles(s.context()) == ["user"]


def test_built_messages_use_javascript_date_milliseconds():
    summary = entry("branch_summary", "b1", None, fromId="x", summary="s")
    s = session({**summary, "timestamp": "2026-01-01T01:00:00.1239+01:00"})
    s2 = session({**summary, "timestamp": "junk"})
    assert s.context().messages[0]["timestamp"] == 1767225600123
    assert math.isnan(s2.context().messages[0]["timestamp"])
    assert '"timestamp":null' in s2.context().to_json()


# --- [10] to provider messages ----------------------------------------------------------


def test_bash_execution_becomes_user_text_or_is_dropped_when_excluded():
    s = session(
        msg("b1", None, "bashExecution", command="ls", output="", exitCode=0),
        msg("b2", "b1", "bashExecution", command="x", output="o", excludeFromContext=True),
    )
    (only,) = s.context().to_llm()
    assert only["role"] == "user" and only["content"][0]["text"] == "Ran `ls`\n(no output)"


def test_summaries_are_wrapped_in_pis_exact_prefix_and_suffix():
    s = session(msg("u1", None), compaction("c1", "u1", "c1", summary="S"))
    text = s.context().to_llm()[0]["content"][0]["text"]
    assert text == (
        "The conversation history before this point was compacted into the "
        "following summary:\n\n<summary>\nS\n</summary>"
    )


# --- [11] system prompt replay --------------------------------------------------------------


def test_system_prompt_replay_patches_sections_and_tools_in_order():
    s = session(
        msg(
            "s1",
            None,
            "system",
            content="",
            sections={"a": "A", "b": "B"},
            toolsAdded=[{"name": "read"}, {"name": "bash"}],
        ),
        msg(
            "s2",
            "s1",
            "system",
            content="More.",
            sections={"a": None, "c": "C"},
            toolsRemoved=[{"name": "read"}],
            toolsAdded=[{"name": "read", "v": 2}],
        ),
    )
    prompt = s.system_prompt()
    assert prompt.text == "More.\n\nB\n\nC" and list(prompt.tools) == ["bash", "read"]


# --- [12] labels, name, totals, files ---------------------------------------------------


def test_labels_resolve_in_file_order_empty_label_clears():
    s = session(
        msg("u1", None),
        entry("label", "l1", "u1", targetId="u1", label="v1"),
        entry("label", "l2", "l1", targetId="u1", label="v2"),
        entry("label", "l3", "l2", targetId="l1", label="tmp"),
        entry("label", "l4", "l3", targetId="l1", label=""),
    )
    assert s.labels == {"u1": "v2"}


def test_session_name_is_the_latest_session_info_an_empty_name_clears():
    s = session(
        entry("session_info", "i1", None, name="First"),
        entry("session_info", "i2", "i1", name="  "),
    )
    assert s.name is None
    assert session(entry("session_info", "i1", None, name=" Kept ")).name == "Kept"


def test_totals_count_usage_entries_compactions_assistant_and_tool_results_all_history():
    usage = {"input": 1, "output": 2, "cacheRead": 3, "cacheWrite": 4, "cost": {"total": 0.5}}
    s = session(
        entry("usage", "k1", None, kind="anything", usage=usage),
        msg("a1", "k1", "assistant", content=[{"type": "toolCall"}], usage=usage),
        msg("t1", "a1", "toolResult", content=[], usage=usage),
        compaction("c1", "t1", "c1", usage=usage),
        msg("x", None),
    )
    stats = s.stats()
    assert stats.usage.total_tokens == 40 and stats.usage.cost == 2.0 and stats.tool_calls == 1
    assert s.stats("c1", branch=True).usage.cost == 2.0 and s.stats(branch=True).usage.cost == 0


def test_session_directory_name_rule_differs_from_the_chapter():
    from pisession.files import session_dir_name

    assert (
        session_dir_name("C:\\work\\api", platform="win32") == "--C--work-api--"
    )  # chapter: --C-work-api--
    assert session_dir_name("/home/u/proj", platform="posix") == "--home-u-proj--"


def test_agent_and_session_dirs_honour_environment(tmp_path):
    from pisession.files import agent_dir, default_session_dir, sessions_root

    env = {
        "PI_CODING_AGENT_DIR": str(tmp_path / "pi"),
        "PIG_CODING_AGENT_DIR": str(tmp_path / "pig"),
    }
    assert agent_dir("pi", env) == tmp_path / "pi" and agent_dir("pig", env) == tmp_path / "pig"
    assert sessions_root("pi", {**env, "PI_CODING_AGENT_SESSION_DIR": "/s"}).as_posix() == "/s"
    assert default_session_dir("/w/api", "pi", env).name == "--w-api--"
