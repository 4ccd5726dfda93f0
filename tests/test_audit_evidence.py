"""The claim audit's evidence (``data/audit/evidence.json``) is Pi 0.87.1's, fresh, and
pisession agrees with it.

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
from pisession import jsjson
from pisession.llm import to_llm_message
from pisession.tree import resolved_labels

ROOT = Path(__file__).resolve().parent.parent
AUDIT = ROOT / "data" / "audit"
EVIDENCE = json.loads((AUDIT / "evidence.json").read_text(encoding="utf-8"))
SCENARIOS = EVIDENCE["scenarios"]


def as_json(value):
    return json.loads(jsjson.dumps(value))


def pi_oracle() -> tuple[str, dict] | None:
    """``(node, env)`` to run the conformance scripts with Pi 0.87.1, or None."""
    node = shutil.which("node")
    if node is None:
        return None
    major = subprocess.run([node, "-p", "process.versions.node.split('.')[0]"], capture_output=True)
    if major.returncode != 0 or int(major.stdout or 0) < 20:
        return None
    oracle = os.environ.get("PI_ORACLE_DIR")
    modules = Path(oracle, "node_modules") if oracle else ROOT / "conformance" / "node_modules"
    package = modules / "@earendil-works" / "pi-coding-agent" / "package.json"
    if not package.exists() or json.loads(package.read_text())["version"] != EVIDENCE["pi"]:
        return None
    return node, dict(os.environ, TZ="UTC")


def test_evidence_names_pi_and_its_generator():
    assert EVIDENCE["pi"] == "0.87.1"
    assert EVIDENCE["generator"] == "conformance/audit.mjs"
    assert {p.stem for p in AUDIT.glob("*.jsonl")} == set(EVIDENCE["files"])
    for name, scenario in SCENARIOS.items():
        assert scenario["kind"] in ("run", "code", "pi-file"), name
        assert scenario["what"] and scenario["result"], name


def test_evidence_is_fresh():
    """Re-record with Pi and compare byte for byte (skipped without Node >= 20 and Pi)."""
    found = pi_oracle()
    if found is None:
        pytest.skip(
            "Node >= 20 with Pi 0.87.1 not found (set PI_ORACLE_DIR or npm install in "
            "conformance/): data/audit/evidence.json was not re-recorded"
        )
    node, env = found
    fresh = subprocess.run(
        [node, str(ROOT / "conformance" / "audit.mjs"), "--stdout"],
        capture_output=True,
        env=env,
        timeout=300,
    )
    assert fresh.returncode == 0, fresh.stderr.decode()
    assert fresh.stdout == (AUDIT / "evidence.json").read_bytes(), (
        "Pi's answers changed: re-run node conformance/audit.mjs and review notebook 08"
    )


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
