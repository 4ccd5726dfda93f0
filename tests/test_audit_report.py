"""The audit report: docs/chapter-27-audit.md is what notebook 08 renders, with the seven
sections the chapter's author asked for, one row per claim, and quotes that are exact.

The notebook asserts every verdict on Pi's evidence and stores the rendered report as an
output (nbval re-executes it and compares); here the stored output and the document must
be the same text. After `python notebooks/build.py 08`:
`python tools/audit_report.py notebooks/08-claim-audit.ipynb docs/chapter-27-audit.md`
(a repository script: the document is the repository's, not the installed package's).
"""

from __future__ import annotations

import importlib.util
import json
import re
from pathlib import Path

import pytest

from pisession.workshop import audit_report

ROOT = Path(__file__).resolve().parent.parent
_SPEC = importlib.util.spec_from_file_location("audit_tool", ROOT / "tools" / "audit_report.py")
assert _SPEC is not None and _SPEC.loader is not None
audit_tool = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(audit_tool)
DOC = ROOT / "docs" / "chapter-27-audit.md"
NOTEBOOK = ROOT / "notebooks" / "08-claim-audit.ipynb"
CLAIMS = audit_report.loads_claims((ROOT / "data" / "audit" / "claims.json").read_text("utf-8"))
EVIDENCE = json.loads((ROOT / "data" / "audit" / "evidence.json").read_text("utf-8"))
SOURCES = Path("/work/shared/chapter27")
SECTIONS = [
    "## 1. Context and provenance",
    "## 2. Claim audit",
    "## 3. Source ledger",
    "## 4. Findings",
    "## 5. Upgrade proposal",
    "## 6. Experiments",
    "## 7. Review checklist",
    "## 8. Source ledger in full",
    "## 9. Findings with citations",
    "## 10. Trade-offs and dependencies of the upgrade",
    "## 11. Decisions",
    "## 12. Experiments: success and failure",
]


def doc_text() -> str:
    return DOC.read_text(encoding="utf-8")


def section(name: str) -> str:
    text = doc_text()
    start = text.index(name)
    following = [text.find(s, start + 1) for s in SECTIONS if text.find(s, start + 1) > start]
    return text[start : min(following, default=len(text))]


def test_the_document_is_what_notebook_08_renders():
    stored = audit_tool.stored_report(json.loads(NOTEBOOK.read_text(encoding="utf-8")))
    assert doc_text() == stored, (
        "docs/chapter-27-audit.md differs from notebook 08's report: run "
        "python tools/audit_report.py notebooks/08-claim-audit.ipynb "
        "docs/chapter-27-audit.md"
    )


def test_exactly_the_seven_sections_in_order():
    headings = [line for line in doc_text().splitlines() if line.startswith("## ")]
    assert headings == SECTIONS


def test_one_row_per_claim_with_its_verdict_and_response():
    rows = [
        line for line in section("## 2. Claim audit").splitlines() if re.match(r"\| \d+ \|", line)
    ]
    assert len(rows) == len(CLAIMS["claims"])
    for row, claim in zip(rows, CLAIMS["claims"]):
        cells = row.strip("|").split(" | ")
        assert cells[3] == f"**{claim['verdict']}**"
        assert cells[-1].strip() == claim["response"]
        assert cells[-2] == claim["priority"]


def test_each_claim_folds_its_quote_evidence_and_concern():
    """Below the table, one ``<details>`` per claim, in order: the exact quote, the
    scenarios its verdict rests on, the concern."""
    text = section("## 2. Claim audit")
    folds = re.findall(
        r"<details><summary>Claim (\d+): .*?</summary>\n\n(.*?)\n\n</details>", text, re.S
    )
    assert [int(n) for n, _ in folds] == list(range(1, len(CLAIMS["claims"]) + 1))
    assert text.count("<details>") == text.count("</details>") == len(folds)
    for (number, body), claim in zip(folds, CLAIMS["claims"]):
        fields = dict(re.findall(r"^- \*\*(\w[\w .]*)\*\*\W+(.*)$", body, re.M))
        assert set(fields) == {"Quote", "Evidence", "Pi 1.6.0", "Concern", "Response"}, number
        assert audit_report.md(claim["quote"]) in fields["Quote"]
        assert "`" in fields["Evidence"], f"claim {number}: no scenario named as evidence"
        assert fields["Response"].startswith(claim["response"])


def test_every_change_proposed_and_every_unrun_experiment_marked():
    upgrades = section("## 5. Upgrade proposal")
    changed = [c for c in CLAIMS["claims"] if c["response"] in ("correct", "clarify")]
    assert upgrades.count("**Claim ") == len(changed)
    for claim in changed:
        assert audit_report.md(claim["replacement"]) in upgrades
    experiments = section("## 6. Experiments")
    assert experiments.count("| UNRUN |") == len(CLAIMS["unrun"])
    checklist = section("## 7. Review checklist")
    assert checklist.count("- [ ] ") == len(changed) + len(CLAIMS["decisions"]) + sum(
        c["response"] == "cite" for c in CLAIMS["claims"]
    )


def test_findings_group_every_claim_by_its_verdict():
    findings = section("## 4. Findings")
    by_verdict, rest = findings.split("### Where Pi 1.6.0 answers differently")
    listed = re.findall(r"^- claim (\d+) ", by_verdict, re.M)
    assert sorted(map(int, listed)) == list(range(1, len(CLAIMS["claims"]) + 1))
    rows = [
        line for line in section("## 2. Claim audit").splitlines() if re.match(r"\| \d+ \|", line)
    ]
    same = re.compile(r" \| (same answer|UNVERIFIED)[^|]* \| ")  # UNVERIFIED: no 1.6.0 CLI file
    differing = [row.split(" | ")[0].strip("| ") for row in rows if not same.search(row)]
    assert re.findall(r"^- claim (\d+) ", rest.split("### Unresolved")[0], re.M) == differing
    assert differing, "Pi 1.6.0 writes the file earlier: at least that claim differs"


def test_references_between_claims_resolve():
    assert "[[" not in doc_text()


@pytest.mark.skipif(not SOURCES.is_dir(), reason="the chapter texts are not on this machine")
def test_quotes_are_exact():
    texts = {
        "chapter 27": (SOURCES / "chapter-27-excerpt.txt").read_text(encoding="utf-8"),
        "PiG page": (SOURCES / "pig-session-format.txt").read_text(encoding="utf-8"),
    }
    flat = {k: re.sub(r"\s+", " ", v) for k, v in texts.items()}
    for claim in CLAIMS["claims"]:
        for part in claim["quote"].split(" … "):
            assert re.sub(r"\s+", " ", part) in flat[claim["source"]], claim["key"]


def test_the_brief_form_sections():
    """Issue 40: ledger with URL, claims and limits; findings citing file:line with their
    evidence class; a decision and its reason for every proposal; UNVERIFIED where a claim
    rests on 0.87.1's CLI files only; the review date beside the run date."""
    ledger = section("## 8. Source ledger in full")
    assert "| URL |" in ledger and "| claims |" in ledger and "| limits |" in ledger
    assert f"Verified (the run): {CLAIMS['audit']['date']}" in ledger
    assert f"Accessed and reviewed: {CLAIMS['audit']['reviewed']}" in ledger
    findings = section("## 9. Findings with citations")
    for kind in ("### Supporting", "### Qualifying", "### Contradicting", "### Unresolved"):
        assert kind in findings
    assert re.search(r"`pi-coding-agent/dist/[\w/.-]+\.js:\d+`", findings)
    assert "reproduced here" in findings and "reported by a source" in findings
    decisions = section("## 11. Decisions")
    proposals = [c for c in CLAIMS["claims"] if c["response"] != "leave alone"]
    rows = re.findall(
        r"^\| \d+ \|.*\*\*(accept|revise|defer|reject)\*\* \| .+ \|$", decisions, re.M
    )
    assert len(rows) == len(proposals)
    audit = section("## 2. Claim audit")
    assert "UNVERIFIED" in audit


def test_every_experiment_has_success_and_failure():
    table = section("## 12. Experiments: success and failure")
    rows = [line for line in table.splitlines() if line.startswith("| ") and "---" not in line][1:]
    assert len(rows) == len(EVIDENCE["scenarios"]) + len(CLAIMS["unrun"])
    assert sum("UNRUN" in row for row in rows) == len(CLAIMS["unrun"])
    for row in rows:
        cells = row.strip("|").split(" | ")
        assert len(cells) == 4 and cells[1].strip() and cells[2].strip(), row
