"""The facts notebook 04 states about why Pi compacts and where it cuts, checked against Pi.

Pi 0.87.1's own code runs in Node 20 (``conformance/compaction-facts.mjs``): from
``dist/core/compaction/compaction.js`` the default settings, ``shouldCompact``,
``estimateProjectedContextTokens`` (what a compaction stores as ``tokensBefore``) and
``prepareCompaction`` (the cut); ``AgentSession.prototype._checkCompaction`` for which case a
reply triggers; ``SessionManager.appendCompaction`` for when a system
checkpoint is written; ``AgentSession.prototype._preparePromptAndToolLoadout`` and
pi-agent-core's ``runAgentLoop`` with pi-ai's faux provider for what the next request sends
after a compaction without a checkpoint. The file facts (sample b's overflow recovery) need
no Node. The Node part is skipped when Node or Pi is not installed.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

import pisession

REPO = Path(__file__).resolve().parent.parent
SAMPLE_B = "pi-0.87.1-b-rpc-compaction-manual-threshold-overflow"


def _pi_ready() -> str | None:
    if shutil.which("node") is None:
        return "node is not installed"
    located = subprocess.run(
        ["node", "conformance/locate.mjs", "0.87.1"], cwd=REPO, capture_output=True
    )
    return (
        None if located.returncode == 0 else "Pi 0.87.1 is not installed (npm ci in conformance/)"
    )


needs_pi = pytest.mark.skipif(_pi_ready() is not None, reason=str(_pi_ready()))


@pytest.fixture(scope="module")
def pi():
    run = subprocess.run(
        ["node", "conformance/compaction-facts.mjs", str(pisession.sample_path(SAMPLE_B))],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=180,
        env={**os.environ, "PI_ORACLE_VERSION": "0.87.1"},
    )
    assert run.returncode == 0, run.stderr
    return json.loads(run.stdout)


def _b():
    return pisession.load(pisession.sample_path(SAMPLE_B))


def _compactions():
    return [e for e in _b().entries if e["type"] == "compaction"]


@needs_pi
def test_defaults_and_the_threshold(pi):
    assert pi["defaults"] == {"enabled": True, "reserveTokens": 16384, "keepRecentTokens": 20000}
    # 128000 - 16384 = 111616: strictly more than that compacts.
    assert pi["shouldCompact"] == [False, True]


@needs_pi
def test_tokens_before_is_pis_estimate_usage_then_chars(pi):
    stored = {e["id"]: e["tokensBefore"] for e in _compactions()}
    assert [c["estimate"]["tokens"] for c in pi["compactions"]] == [1883, 121007, 1809]
    for case in pi["compactions"]:
        assert case["estimate"]["tokens"] == stored[case["id"]]
    # the first two from the last usage; the third after a context edit, chars/4 only
    assert [c["estimate"]["usageTokens"] > 0 for c in pi["compactions"]] == [True, True, False]


@needs_pi
def test_the_cuts_of_sample_b_need_a_small_keep_recent_tokens(pi):
    stored = {e["id"]: e["firstKeptEntryId"] for e in _compactions()}
    for case in pi["compactions"]:
        assert case["atDefault"] is None  # with 20000: nothing to compact
        for keep, cut in case["byKeep"].items():
            assert cut == [stored[case["id"]], True], (case["id"], keep)


def test_every_summary_of_sample_b_has_a_split_turn_part():
    assert all("Turn Context (split turn)" in e["summary"] for e in _compactions())


def test_no_cut_of_sample_b_falls_on_a_tool_result():
    b = _b()
    for entry in _compactions():
        kept = b.entry(b.position_of(entry["firstKeptEntryId"]))
        assert kept["message"]["role"] == "assistant"  # an assistant: the turn is split


def test_the_overflow_recovery_in_sample_b():
    b = _b()
    by_line = {b.line_of(p): e for p, e in enumerate(b.entries)}
    failed, edit, compaction, retry = (by_line[n] for n in (28, 29, 30, 31))
    assert failed["message"]["stopReason"] == "error"
    assert "context_length_exceeded" in failed["message"]["errorMessage"]
    assert "maximum context length is 128000" in failed["message"]["errorMessage"]
    assert edit["type"] == "context_edit" and edit["targetId"] == failed["id"]
    assert edit["replacement"] is None
    assert compaction["type"] == "compaction" and compaction["tokensBefore"] == 1809
    assert retry["parentId"] == compaction["id"] and retry["message"]["role"] == "assistant"
    assert by_line[23]["message"]["usage"]["totalTokens"] == 121007 > 128000 - 16384


@needs_pi
def test_when_pi_writes_a_system_checkpoint(pi):
    assert pi["checkpoint"] == {
        "none": False,
        "sections": True,
        "noTimestamp": False,
        "toolOnly": True,
    }


@needs_pi
def test_the_next_request_after_a_compaction_without_a_checkpoint(pi):
    without = pi["next"]["without"]
    system = {"role": "system", "sections": pi["sections"], "tools": ["read", "bash"]}
    # the summary (as a user message for the provider), every section and tool, the prompt
    assert without["sent"] == [
        {"role": "user", "sections": None, "tools": None},
        system,
        {"role": "user", "sections": None, "tools": None},
    ]
    assert without["added"][0] == system  # appended to the session like any message
    # with a checkpoint and the same prompt and tools: nothing is added
    assert [m["role"] for m in pi["next"]["with"]["sent"]] == ["system", "user", "user"]
    assert [m["role"] for m in pi["next"]["with"]["added"]] == ["user", "assistant"]


@needs_pi
def test_which_case_a_reply_triggers(pi):
    # the overflow error of sample b's line 28: hide it, compact, retry; a second time: give up
    assert pi["cases"]["overflowError"] == [["omit"], ["overflow", True]]
    assert pi["cases"]["overflowErrorAgain"] == [["gave up"]]
    # a finished reply over the window: compact without a retry
    assert pi["cases"]["overWindowStop"] == [["overflow", False]]
    # one token over contextWindow - reserveTokens: threshold, no retry; exactly at it: nothing
    assert pi["cases"]["aboveThreshold"] == [["threshold", False]]
    assert pi["cases"]["atThreshold"] == []


@needs_pi
def test_before_a_further_request_the_estimate_meets_the_same_threshold(pi):
    assert pi["beforeNextRequest"] == {"above": [["threshold", False]], "at": []}
