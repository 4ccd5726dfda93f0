"""pisession against Pi at the level users meet it, on sessions written by Pi's real CLI.

``data/realcli/<V>/`` holds, for every checked Pi version, sessions that Pi's own command
line wrote (print, json and rpc modes against a fake provider: ``conformance/realcli``),
the request bodies Pi sent, Pi's RPC ``get_session_stats`` for each file, and Pi's own
answers on each file (``answers.mjs``: ``SessionManager.open`` and its leaf, names,
``getTree``, the context and ``convertToLlm`` at every leaf, ``getUsageCostBreakdown``,
``SessionManager.listAll``/``list``). These tests compare pisession with every answer;
``conformance/realcli/run.py --check`` records everything afresh and compares the same way.
"""

from __future__ import annotations

import copy
import importlib.util
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
REALCLI = ROOT / "conformance" / "realcli"
DATA = ROOT / "data" / "realcli"
VERSIONS = json.loads((ROOT / "pisession" / "pi_versions.json").read_text())["checked"]


def _module(name: str):
    sys.path.insert(0, str(REALCLI))
    try:
        spec = importlib.util.spec_from_file_location(f"realcli_{name}", REALCLI / f"{name}.py")
        assert spec and spec.loader
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module
    finally:
        sys.path.remove(str(REALCLI))


compare = _module("compare")
SCENARIOS = list(_module("scenarios").SCENARIOS)
CASES = [(v, s) for v in VERSIONS for s in SCENARIOS]


def _entries(version: str, scenario: str) -> list[dict]:
    return [
        json.loads(line)
        for path in sorted((DATA / version / scenario / "sessions").glob("*/*.jsonl"))
        for line in path.read_text("utf-8").splitlines()
    ]


@pytest.mark.parametrize("version,scenario", CASES, ids=[f"{v}-{s}" for v, s in CASES])
def test_pisession_answers_as_pi_does(version, scenario):
    folder = DATA / version
    pi = json.loads((folder / f"{scenario}.pi.json").read_text("utf-8"))
    assert pi["pi"] == version and pi["files"]
    assert (folder / f"{scenario}.requests.jsonl").read_text("utf-8").strip()
    assert compare.compare_scenario(folder, scenario) == []


def test_every_file_has_pis_rpc_stats_and_export_page():
    for version, scenario in CASES:
        cli = json.loads((DATA / version / f"{scenario}.cli.json").read_text("utf-8"))
        pi = json.loads((DATA / version / f"{scenario}.pi.json").read_text("utf-8"))
        assert set(cli["getSessionStats"]) == set(pi["files"]), (version, scenario)
        assert set(cli["exportPage"]) == set(pi["files"]), (version, scenario)


def test_a_wrong_answer_is_found():
    """The comparison is not vacuous: one changed answer of Pi's is reported."""
    folder = DATA / VERSIONS[-1]
    pi = json.loads((folder / "rpc-tree.pi.json").read_text("utf-8"))
    rel, answer = next(iter(pi["files"].items()))
    path = folder / "rpc-tree" / "sessions" / rel
    assert compare.compare_file(path, answer, rel) == []
    wrong = copy.deepcopy(answer)
    wrong["openLeaf"] = wrong["leaves"][0]
    wrong["contexts"][-1]["llm"].pop()
    wrong["tree"].reverse()
    found = compare.compare_file(path, wrong, rel)
    assert any("SessionManager.open" in d for d in found)
    assert any("convertToLlm at leaf" in d for d in found)
    assert any("getTree order" in d for d in found)
    page = json.loads((folder / "rpc-tree.cli.json").read_text("utf-8"))["exportPage"][rel]
    assert compare.compare_export(path, page, rel) == []
    page = {**page, "leafId": page["path"][-2][0], "path": page["path"][:-1]}
    assert len(compare.compare_export(path, page, rel)) == 3
    assert compare.compare_lists(folder / "rpc-tree", pi, "rpc-tree") == []
    reordered = {**pi, "listAll": pi["listAll"][::-1]}
    assert [d for d in compare.compare_lists(folder / "rpc-tree", reordered, "rpc-tree")]
    assert compare.compare_usage(folder / "rpc-tree", pi, "rpc-tree") == []
    wrong = copy.deepcopy(pi)
    wrong["files"][rel]["usage"]["all"][0]["tokens"] += 1
    found = compare.compare_usage(folder / "rpc-tree", wrong, "rpc-tree")
    assert len(found) == 1 and "tokens" in found[0]


def test_paths_read_as_on_a_readers_machine():
    for path in DATA.rglob("*"):
        if path.is_file():
            text = path.read_text("utf-8")
            for trace in ("/tmp/", "pirec-", "/work/", "/root/", "127.0.0.1"):
                assert trace not in text, (path, trace)


def test_the_recordings_hold_what_the_scenarios_promise():
    for version in VERSIONS:
        kinds = {s: [e["type"] for e in _entries(version, s)] for s in SCENARIOS}
        messages = {
            s: [e["message"] for e in _entries(version, s) if e["type"] == "message"]
            for s in SCENARIOS
        }
        assert kinds["rpc-compaction"].count("compaction") == 3
        assert {"custom", "custom_message", "context_edit"} <= set(kinds["rpc-compaction"])
        assert {"branch_summary", "label", "session_info"} <= set(kinds["rpc-tree"])
        assert len(list((DATA / version / "rpc-tree" / "sessions").glob("*/*.jsonl"))) == 3
        assert "usage" in kinds["cache-warm"]
        forks = list((DATA / version / "cli-fork" / "sessions").glob("*/*.jsonl"))
        assert {p.parent.name for p in forks} == {
            "--home-reader-projects-demo-app--",
            "--home-reader-projects-other-app--",
        }
        retries = messages["rpc-retries"]
        stops = [m.get("stopReason") for m in retries if m["role"] == "assistant"]
        assert stops.count("error") == 4 and stops.count("aborted") == 2
        aborted_calls = [
            m
            for m in retries
            if m.get("stopReason") == "aborted"
            and any(b["type"] == "toolCall" for b in m["content"])
        ]
        assert aborted_calls
        assert {m.get("provider") for m in retries if m["role"] == "assistant"} == {"fake", "other"}
        assert any(m["role"] == "bashExecution" for m in retries)
        calls = {
            b["id"]
            for m in messages["tool-without-result"]
            if m["role"] == "assistant"
            for b in m["content"]
            if b["type"] == "toolCall"
        }
        results = {m["toolCallId"] for m in messages["tool-without-result"] if "toolCallId" in m}
        assert calls and not results  # the call has no result, and the session went on
        assert messages["tool-without-result"][-1]["role"] == "assistant"
        printed = messages["print-tools"]
        assert any(m.get("responseModel") for m in printed)
        assert any(m["role"] == "toolResult" and m.get("isError") for m in printed)  # a failed tool
        assert sum(
            1
            for m in printed
            for b in (m["content"] if isinstance(m["content"], list) else [])
            if b["type"] == "image"
        ) >= 2  # fmt: skip


PAIRS = [(oracle, recorded) for oracle in VERSIONS for recorded in VERSIONS]


@pytest.mark.skipif(shutil.which("node") is None, reason="node not installed")
@pytest.mark.parametrize("oracle,recorded", PAIRS, ids=[f"{o}-on-{r}" for o, r in PAIRS])
def test_pis_answers_are_pis(oracle, recorded):
    """Pi's answers re-recorded from the committed files equal the committed ones
    (``answers.mjs --check``, Pi's own modules, Node >= 20), and every checked version
    gives them on every version's recordings."""
    found = subprocess.run(
        ["node", str(ROOT / "conformance" / "locate.mjs"), oracle],
        capture_output=True,
        text=True,
    )
    if found.returncode != 0:
        pytest.skip(f"Pi {oracle} not installed (conformance/check.sh installs it)")
    done = subprocess.run(
        ["node", str(REALCLI / "answers.mjs"), "--check", str(DATA / recorded)],
        capture_output=True,
        text=True,
        env={**os.environ, "PI_ORACLE_VERSION": oracle, "TZ": "UTC"},
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
