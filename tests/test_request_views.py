"""What the request carries, where readers meet it: the fate ``left-out``, the tool
results pi-ai writes shown where they are inserted, the counts, and ``context --sent``
(``context`` and ``--llm`` stay Pi's ``buildSessionContext`` and ``convertToLlm``).

``data/audit/aborted-reply.jsonl``: a reply aborted after starting a tool call, then a
reply whose tool call has no result (Pi's own ``transformMessages`` of it is recorded in
``data/audit/evidence.json``, scenario ``request-step``).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import pisession
from pisession.cli import main
from pisession.js import json as jsjson
from pisession.views.explain import explain_text
from pisession.views.export import export_markdown

ROOT = Path(__file__).resolve().parents[1]
ABORTED = ROOT / "data" / "audit" / "aborted-reply.jsonl"
EVIDENCE = json.loads((ROOT / "data" / "audit" / "evidence.json").read_text())


@pytest.fixture
def session():
    return pisession.load(ABORTED)


def test_the_aborted_reply_is_left_out_and_not_counted(session):
    fates = session.fates()
    assert fates.of("a1").fate == "left-out" and not fates.of("a1").reached_model
    assert "an aborted reply" in fates.of("a1").reason
    assert fates.reached() == 4  # of 5 entries: the aborted reply did not reach the model
    assert fates.message_count() == len(session.context().messages) == 5  # Pi's context


def test_the_written_result_names_its_call(session):
    fates = session.fates()
    assert fates.request.written == {session.position_of("a2"): [("call_2", "bash")]}
    assert "call_2 (bash)" in fates.of("a2").reason


def test_sent_is_pi_ai_s(session):
    """The roles and the written result pi-ai's own transformMessages gave (evidence)."""
    pi = EVIDENCE["scenarios"]["request-step"]["result"]
    done = session.sent(now=0)
    assert [m["role"] for m in done.messages] == pi["sentRoles"]
    written = {k: done.messages[3][k] for k in ("toolCallId", "toolName", "content", "isError")}
    assert written == pi["written"][0] and done.messages[3]["timestamp"] == 0


def test_explain_shows_the_written_result_where_it_is_inserted(session):
    lines = explain_text(session).splitlines()
    at = next(i for i, line in enumerate(lines) if line.lstrip().startswith("5  a2"))
    assert "(pi-ai)" in lines[at + 1] and "call_2 (bash)" in lines[at + 1]
    assert "4 of 5 entries reached the model" in "\n".join(lines)
    carries = "The request carries 5 messages (1 reply left out, 1 tool result"
    assert any(carries in line for line in lines)


def test_export_says_what_the_request_carries(session):
    text = export_markdown(session)
    assert "**+ toolResult** · written by pi-ai" in text and "left-out" in text


def test_context_and_llm_stay_pi_s(capsys, session):
    """``context`` and ``--llm`` print Pi's context and convertToLlm (recorded by Pi)."""
    pi = next(c for c in EVIDENCE["files"]["aborted-reply"]["cases"] if c["leaf"] is None)
    assert main(["context", str(ABORTED), "--compact"]) == 0
    assert json.loads(capsys.readouterr().out) == pi["context"]
    assert main(["context", str(ABORTED), "--llm", "--compact"]) == 0
    assert json.loads(capsys.readouterr().out) == pi["llm"]


def test_context_sent(capsys, session):
    assert main(["context", str(ABORTED), "--sent", "--now", "0"]) == 0
    out, err = capsys.readouterr()
    assert out == jsjson.dumps(session.sent(now=0).messages, 2) + "\n"
    assert "1 reply left out, 1 tool result written" in err


def test_context_sent_for_another_model_and_a_bad_one(capsys):
    argv = ["context", str(ABORTED), "--sent", "--now", "0", "--compact"]
    assert main([*argv, "--model", "anthropic/claude-sonnet-4-5", "--pi", "1.6.0"]) == 0
    out, err = capsys.readouterr()
    assert "anthropic-messages" in err and len(json.loads(out)) == 5
    assert main([*argv, "--model", "nonsense"]) != 0
    assert "is not provider/id" in capsys.readouterr().err
