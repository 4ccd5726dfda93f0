"""The notebooks' and docs' facts about Pi (``data/facts/facts.json``) hold on Pi's evidence.

Every fact names, for every checked Pi version, the evidence it rests on (the audit's,
``conformance/facts.mjs``'s or the real-CLI recordings') and Pi's answer there; a changed
answer fails here. Every ``[fact: NAME]`` marker in notebooks 01-07 and the two docs names
a fact, and every fact is cited by one. Every paragraph of those sources that names Pi as the
subject of a verb (``facts.PI_SUBJECT``, a documented heuristic) cites a fact or says it is the
author's explanation.
"""

from __future__ import annotations

import copy
import doctest
import importlib.util
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
from test_audit_evidence import pi_oracle  # noqa: E402

_spec = importlib.util.spec_from_file_location(
    "conformance_facts", ROOT / "conformance" / "facts.py"
)
assert _spec and _spec.loader
facts = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(facts)

FACTS = facts.load_facts()
NAMES = [fact["name"] for fact in FACTS]
CHECKED = facts.VERSIONS["checked"]


def test_facts_are_well_formed():
    assert len(NAMES) == len(set(NAMES))
    for fact in FACTS:
        assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", fact["name"]), fact["name"]
        assert fact["statement"] and fact["check"] and fact["evidence"], fact["name"]
        for evidence in fact["evidence"]:
            assert evidence["source"] in ("audit", "facts", "realcli"), fact["name"]
            assert set(evidence["expect"]) == set(CHECKED), (
                fact["name"],
                "one answer per checked Pi",
            )


def test_every_fact_holds_on_pi_evidence_for_every_checked_version():
    assert facts.check(FACTS) == []


def test_a_changed_answer_fails_the_check():
    changed = copy.deepcopy(FACTS[:1])
    changed[0]["evidence"][0]["expect"][CHECKED[-1]] = "something Pi never said"
    assert len(facts.check(changed)) == 1
    missing = copy.deepcopy(FACTS[:1])
    del missing[0]["evidence"][0]["expect"][CHECKED[0]]
    assert "no answer for Pi" in facts.check(missing)[0]


def test_every_marker_names_a_fact_and_every_fact_is_cited():
    found = facts.markers()
    unknown = [f"{file}:{line}: {name}" for file, line, name in found if name not in NAMES]
    assert unknown == []
    cited = {name for _, _, name in found}
    assert [name for name in NAMES if name not in cited] == []


def test_every_paragraph_about_what_pi_does_cites_a_fact():
    """A paragraph with Pi as the subject of a verb ("Pi writes", "Pi 1.6.0 appends", "Pi's
    `resetLeaf()`", ...) carries a ``[fact: NAME]`` or "the author's explanation" (or
    inference, observation). On the text before these markers it flagged 49 paragraphs."""
    flagged = [f"{file}:{line}: {text[:100]}" for file, line, text in facts.unmarked_paragraphs()]
    assert flagged == [], "\n".join(flagged)


@pytest.mark.parametrize(
    "text, flagged",
    [
        ("Pi keeps one folder per working directory.", True),
        ("Pi 1.6.0 also appends a `thinking_level_change`.", True),
        ("Pi's CLI writes a model change first.", True),
        ("Pi does not write the file at once.", True),
        ("A session can have roots (Pi's `resetLeaf()` starts one).", True),
        ("Pi keeps one folder per working directory [fact: folder-name-rule].", False),
        ("Pi then builds an empty context (the author's inference).", False),
        ("pisession reads the file as Pi does.", False),
        ("Pi is lenient.", False),
        ("Pi 0.87.1 knows eleven entry types.", True),
        ("Pi has no tokenizer.", True),
        ("Pi's index keeps the later entry.", True),
        ("Pi's `convertToLlm` turns them into provider messages.", True),
        ("Pi 0.87.1's `byId` Map holds the later one.", True),
        ("With the default, Pi would not have compacted it.", True),
        ("Pi 0.87.1's and Pi 1.6.0's own answers, recorded by the audit.", False),
        ("It asserts that Pi's answers are still the recorded ones.", False),
        ("Pi's own message types.", False),
        ("A file may hold lines Pi silently skips.", True),
        ("Pi may still change this list.", True),
        ("The message that Pi had removed.", True),
    ],
)
def test_the_heuristic_on_sentences(tmp_path, text, flagged):
    doc = tmp_path / "doc.md"
    doc.write_text(f"# A heading: Pi writes\n\n{text}\n\n```\nPi writes code\n```\n")
    assert bool(facts.unmarked_paragraphs([doc])) is flagged


def test_the_heuristic_reads_markdown_cells_only(tmp_path):
    source = tmp_path / "01-x.py"
    source.write_text(
        "# %% [markdown]\n# Pi writes a line.\n#\n# - Pi keeps it [fact: a].\n"
        "# - Pi drops it.\n\n# %%\n# Pi writes in a comment of a code cell\nx = 1\n"
    )
    assert [line for _, line, _ in facts.unmarked_paragraphs([source])] == [2, 5]


def test_the_module_examples():
    assert doctest.testmod(facts).failed == 0


@pytest.mark.parametrize("version", CHECKED)
def test_facts_evidence_is_fresh(version):
    """Re-run conformance/facts.mjs with Pi ``version``: same bytes (skipped without Pi)."""
    found = pi_oracle(version)
    if found is None:
        pytest.skip(
            f"Node >= 20 with Pi {version} not found: evidence-{version}.json not re-recorded"
        )
    node, env = found
    fresh = subprocess.run(
        [node, str(ROOT / "conformance" / "facts.mjs"), "--stdout"],
        capture_output=True,
        env=env,
        timeout=120,
    )
    assert fresh.returncode == 0, fresh.stderr.decode()
    recorded = ROOT / "data" / "facts" / f"evidence-{version}.json"
    assert fresh.stdout == recorded.read_bytes(), (
        f"Pi {version}'s answers changed: PI_ORACLE_VERSION={version} node conformance/facts.mjs"
    )
    assert json.loads(fresh.stdout)["pi"] == version
