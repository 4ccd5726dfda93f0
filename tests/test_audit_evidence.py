"""The claim audit's evidence (``data/audit/evidence.json``, Pi 0.87.1, and
``data/audit/evidence-1.6.0.json``) is Pi's, fresh, and pisession agrees with it.

``conformance/audit.mjs`` records what Pi's own code does in purpose-made scenarios;
notebook 08 asserts its verdicts on that file. Here: the file is what Pi gives today
(re-recorded when Node and Pi are available), and pisession reads every audit file as Pi
does. Several tests pin statements the notebooks once got wrong (issue 10).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

import pisession
from pisession.js import json as jsjson
from pisession.llm import to_llm_message
from pisession.tree import resolved_labels

ROOT = Path(__file__).resolve().parent.parent
AUDIT = ROOT / "data" / "audit"
EVIDENCE = json.loads((AUDIT / "evidence.json").read_text(encoding="utf-8"))
SCENARIOS = EVIDENCE["scenarios"]


def as_json(value):
    return json.loads(jsjson.dumps(value))


EVIDENCE_FILES = {"0.87.1": AUDIT / "evidence.json", "1.6.0": AUDIT / "evidence-1.6.0.json"}


def pi_oracle(version: str) -> tuple[str, dict] | None:
    """``(node, env)`` to run the conformance scripts with Pi ``version``, or None."""
    node = shutil.which("node")
    if node is None:
        return None
    major = subprocess.run([node, "-p", "process.versions.node.split('.')[0]"], capture_output=True)
    if major.returncode != 0 or int(major.stdout or 0) < 20:
        return None
    env = dict(os.environ, TZ="UTC", PI_ORACLE_VERSION=version)
    where = subprocess.run(
        [node, str(ROOT / "conformance" / "locate.mjs"), version], capture_output=True, env=env
    )
    return (node, env) if where.returncode == 0 else None


def test_evidence_names_pi_and_its_generator():
    for version, path in EVIDENCE_FILES.items():
        evidence = json.loads(path.read_text(encoding="utf-8"))
        assert evidence["pi"] == version
        assert evidence["generator"] == "conformance/audit.mjs"
        assert {p.stem for p in AUDIT.glob("*.jsonl")} == set(evidence["files"])
        assert set(evidence["scenarios"]) == set(SCENARIOS)
        for name, scenario in evidence["scenarios"].items():
            assert scenario["kind"] in ("run", "code", "pi-file"), name
            assert scenario["what"] and scenario["result"], name


@pytest.mark.parametrize("version", sorted(EVIDENCE_FILES))
def test_evidence_is_fresh(version):
    """Re-record with Pi and compare byte for byte (skipped without Node >= 20 and Pi).

    Pi 1.6.0 runs under Node 20 too: audit.mjs imports only the modules it needs."""
    found = pi_oracle(version)
    if found is None:
        pytest.skip(
            f"Node >= 20 with Pi {version} not found (set PI_ORACLE_DIR or run "
            f"conformance/check.sh): {EVIDENCE_FILES[version].name} was not re-recorded"
        )
    node, env = found
    fresh = subprocess.run(
        [node, str(ROOT / "conformance" / "audit.mjs"), "--stdout"],
        capture_output=True,
        env=env,
        timeout=300,
    )
    assert fresh.returncode == 0, fresh.stderr.decode()
    assert fresh.stdout == EVIDENCE_FILES[version].read_bytes(), (
        f"Pi {version}'s answers changed: re-run PI_ORACLE_VERSION={version} "
        "node conformance/audit.mjs and review notebook 08"
    )


def test_pi_1_6_0_reads_every_audit_file_as_0_87_1():
    """Same format and context rules: both versions give the same context at every leaf."""
    newer = json.loads(EVIDENCE_FILES["1.6.0"].read_text(encoding="utf-8"))
    assert newer["files"] == EVIDENCE["files"]


@pytest.mark.parametrize("name", sorted(EVIDENCE["files"]))
def test_pisession_reads_every_audit_file_as_pi(name):
    recorded = EVIDENCE["files"][name]
    session = pisession.load(AUDIT / f"{name}.jsonl", new_id=pisession.sequential_ids())
    for case in recorded["cases"]:
        context = session.context(case["leaf"])
        assert as_json(context.to_dict()) == case["context"]
        assert as_json(context.to_llm()) == case["llm"]
        assert session.system_prompt(case["leaf"]).text == case["systemPrompt"]


# --- the errors of issue 10, pinned on Pi's answers ---------------------------------------


def test_compaction_without_system_message_leaves_no_system_prompt():
    """Pi drops system messages in the kept range whether or not the compaction stored a
    systemMessage: without one the context has no system prompt at all."""
    pi = SCENARIOS["compaction-system-messages"]["result"]
    assert pi["compaction-without-system"]["roles"][0] == "compactionSummary"
    assert "system" not in pi["compaction-without-system"]["roles"]
    assert pi["compaction-without-system"]["systemPrompt"] == ""
    session = pisession.load(AUDIT / "compaction-without-system.jsonl")
    assert [m["role"] for m in session.context().messages] == pi["compaction-without-system"][
        "roles"
    ]
    assert [f.fate for f in session.fates() if f.id == "s2"] == ["dropped-system"]


def test_tour_usage_kind_is_one_pi_writes():
    written = {call["kind"].strip('"') for call in SCENARIOS["usage"]["result"]["appendUsageCalls"]}
    assert written == {"cache_warm"}
    tour = pisession.load(pisession.sample_path("tour"))
    assert {e["kind"] for e in tour.entries if e["type"] == "usage"} <= written


def test_unknown_usage_kinds_count_like_pi():
    pi = SCENARIOS["usage"]["result"]["totals"]
    stats = pisession.load(AUDIT / "usage-kinds.jsonl").stats()
    assert stats.usage.input == pi["tokens"]["input"]
    assert stats.usage.total_tokens == pi["tokens"]["total"]
    assert stats.usage.cost == pytest.approx(pi["cost"], abs=1e-12)


def test_convert_to_llm_roles_like_pi():
    """bashExecution -> user message (or dropped when excluded); custom content as written."""
    for item in SCENARIOS["roles"]["result"]["messages"]:
        assert as_json(to_llm_message(item["input"])) == item["becomes"], item["input"]["role"]


def test_user_content_may_be_a_string():
    pi = SCENARIOS["content-blocks"]["result"]
    user_type = next(f for f in pi["declared"]["UserMessage"] if f["name"] == "content")
    assert user_type["type"].startswith("string |")
    assert pi["stringUserContent"]["context"] == "a plain string, not a list of blocks"


def test_labels_like_pi():
    pi = SCENARIOS["labels"]["result"]["labels"]
    entries = pisession.load(AUDIT / "labels.jsonl").entries
    labels = resolved_labels(entries)
    assert {k: labels.get(k) for k in pi} == pi
