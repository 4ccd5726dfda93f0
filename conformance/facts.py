"""The notebooks' facts about Pi (``data/facts/facts.json``), checked on Pi's own evidence.

A fact is a named statement about what Pi does, with, for every checked Pi version, the
evidence it rests on and the answer Pi gave there. Evidence is one of

- ``audit``: a path into ``data/audit/evidence.json`` (the primary version) or
  ``evidence-<V>.json``, written by ``conformance/audit.mjs`` with Pi's own code;
- ``facts``: a path into ``data/facts/evidence-<V>.json``, written by
  ``conformance/facts.mjs`` with Pi's own code;
- ``realcli``: a probe (below) over what Pi's real CLI wrote and sent in
  ``data/realcli/<V>/<scenario>`` (``conformance/realcli``).

``python conformance/facts.py`` prints every fact with Pi's answer per version and exits
1 when one differs; ``tests/test_facts.py`` runs the same check in CI, and checks that
every ``[fact: NAME]`` marker in the notebooks and docs names a fact.

>>> lookup({"a": [{"b": 1}]}, ["a", 0, "b"])
1
"""

from __future__ import annotations

import json
import re
import sys
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
FACTS = ROOT / "data" / "facts" / "facts.json"
VERSIONS = json.loads((ROOT / "pisession" / "pi_versions.json").read_text(encoding="utf-8"))
MARKER = re.compile(r"\[fact: ([a-z0-9-]+)\]")
# Where a reader meets a statement about Pi: the sources of notebooks 01-07 and two docs.
MARKED = [
    *sorted((ROOT / "notebooks" / "src").glob("0[1-7]-*.py")),
    ROOT / "docs" / "workshop.md",
    ROOT / "docs" / "notebooks.md",
]


def lookup(value: Any, path: list) -> Any:
    """Follow ``path`` (keys and list indexes) into ``value``.

    >>> lookup({"x": {"y": [3, 4]}}, ["x", "y", 1])
    4
    """
    for step in path:
        value = value[step]
    return value


def _json(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def _session_entries(version: str, scenario: str) -> list[list[dict]]:
    """Every session file Pi's CLI wrote in a scenario, in file-name (time) order."""
    folder = ROOT / "data" / "realcli" / version / scenario / "sessions"
    return [
        [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
        for path in sorted(folder.rglob("*.jsonl"), key=lambda p: p.name)
    ]


def _requests(version: str, scenario: str) -> list[dict]:
    path = ROOT / "data" / "realcli" / version / f"{scenario}.requests.jsonl"
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def probe_saved_stop_reasons(version: str, scenario: str) -> list[str]:
    """The stop reasons of the assistant messages Pi saved in the scenario's files."""
    return sorted(
        {
            entry["message"].get("stopReason")
            for entries in _session_entries(version, scenario)
            for entry in entries
            if entry["type"] == "message" and entry["message"]["role"] == "assistant"
        }
    )


def probe_entry_types(version: str, scenario: str) -> dict[str, int]:
    """How many entries of each type Pi wrote in the scenario's files, all files together."""
    counts = Counter(e["type"] for entries in _session_entries(version, scenario) for e in entries)
    return dict(sorted(counts.items()))


def probe_open_leaf_thinking_levels(version: str, scenario: str) -> list[str]:
    """Pi's ``buildSessionContext().thinkingLevel`` at the leaf ``SessionManager.open`` picks,
    per file (answers.mjs), in file-name order."""
    answers = _json(ROOT / "data" / "realcli" / version / f"{scenario}.pi.json")["files"]
    levels = []
    for name in sorted(answers, key=lambda n: n.rsplit("/", 1)[-1]):
        file = answers[name]
        at_open = next(c for c in file["contexts"] if c["leaf"] == file["openLeaf"])
        levels.append(at_open["context"]["thinkingLevel"])
    return levels


def probe_last_reply_request(version: str, scenario: str) -> dict:
    """The last assistant message Pi saved, the entry type of its parent, and the roles of
    the last chat request Pi sent (summarization requests left out) with the start of its
    first non-system text."""
    entries = [e for file in _session_entries(version, scenario) for e in file]
    by_id = {e.get("id"): e for e in entries}
    reply = [e for e in entries if e["type"] == "message" and e["message"]["role"] == "assistant"][
        -1
    ]
    chats = [
        r
        for r in _requests(version, scenario)
        if "context summarization assistant" not in json.dumps(r["body"])[:4000]
    ]
    messages = chats[-1]["body"]["messages"]
    first = messages[1]["content"]
    text = first if isinstance(first, str) else first[0]["text"]
    return {
        "replyStopReason": reply["message"].get("stopReason"),
        "parentType": by_id[reply["parentId"]]["type"],
        "requestRoles": [m["role"] for m in messages],
        "requestStartsWith": text[:60],
    }


def probe_start_entry_types(version: str) -> list[list[str]]:
    """The first two entry types after the header (a ``session_info`` name left out) of every
    session file Pi's CLI wrote in every scenario, each distinct list once."""
    starts = set()
    for scenario in sorted(p.name for p in (ROOT / "data" / "realcli" / version).iterdir()):
        if not (ROOT / "data" / "realcli" / version / scenario / "sessions").is_dir():
            continue
        for entries in _session_entries(version, scenario):
            types = [e["type"] for e in entries[1:] if e["type"] != "session_info"]
            starts.add(tuple(types[:2]))
    return [list(start) for start in sorted(starts)]


def _every_file(version: str) -> list[list[dict]]:
    """Every session file Pi's CLI wrote in every scenario of the version's recordings."""
    root = ROOT / "data" / "realcli" / version
    scenarios = sorted(p.name for p in root.iterdir() if (p / "sessions").is_dir())
    return [entries for scenario in scenarios for entries in _session_entries(version, scenario)]


def probe_message_roles(version: str) -> list[str]:
    """The message roles Pi's CLI stored, over every recorded file."""
    return sorted(
        {
            e["message"]["role"]
            for entries in _every_file(version)
            for e in entries
            if e["type"] == "message"
        }
    )


def probe_first_system_messages(version: str) -> list[dict]:
    """Per distinct shape, the first system message of each recorded file: its non-empty
    sections and the names of the tools it adds."""
    shapes = set()
    for entries in _every_file(version):
        system = [
            e["message"]
            for e in entries
            if e["type"] == "message" and e["message"]["role"] == "system"
        ]
        if system:
            sections = tuple(sorted(k for k, v in (system[0].get("sections") or {}).items() if v))
            tools = tuple(tool["name"] for tool in system[0].get("toolsAdded") or [])
            shapes.add((sections, tools))
    return [{"sections": list(a), "toolsAdded": list(b)} for a, b in sorted(shapes)]


def probe_context_edits(version: str, scenario: str) -> list[dict]:
    """Per ``context_edit`` Pi's CLI wrote in the scenario (file order): whether its
    replacement is null, and the role, stop reason and number of content blocks of its
    target."""
    entries = [e for file in _session_entries(version, scenario) for e in file]
    by_id = {e.get("id"): e for e in entries}
    edits = []
    for edit in (e for e in entries if e["type"] == "context_edit"):
        target = by_id[edit["targetId"]]["message"]
        edits.append(
            {
                "replacementNull": edit["replacement"] is None,
                "targetRole": target["role"],
                "targetStopReason": target.get("stopReason"),
                "targetContentBlocks": len(target.get("content") or []),
            }
        )
    return edits


#: Probes over every recorded file of a version (no scenario named).
EVERY_FILE_PROBES = {
    "startEntryTypes": probe_start_entry_types,
    "messageRoles": probe_message_roles,
    "firstSystemMessages": probe_first_system_messages,
}

PROBES = {
    "savedStopReasons": probe_saved_stop_reasons,
    "entryTypes": probe_entry_types,
    "openLeafThinkingLevels": probe_open_leaf_thinking_levels,
    "lastReplyRequest": probe_last_reply_request,
    "contextEdits": probe_context_edits,
}


def evidence_value(version: str, evidence: dict) -> Any:
    """Pi's answer for one piece of evidence of a fact, for one Pi version."""
    source = evidence["source"]
    if source == "audit":
        name = "evidence.json" if version == VERSIONS["primary"] else f"evidence-{version}.json"
        return lookup(_json(ROOT / "data" / "audit" / name), evidence["path"])
    if source == "facts":
        return lookup(_json(ROOT / "data" / "facts" / f"evidence-{version}.json"), evidence["path"])
    if source == "realcli":
        probe, *rest = evidence["path"]
        if probe in EVERY_FILE_PROBES:
            return lookup(EVERY_FILE_PROBES[probe](version), rest)
        scenario, *rest = rest
        return lookup(PROBES[probe](version, scenario), rest)
    raise ValueError(f"unknown evidence source {source!r}")


def load_facts() -> list[dict]:
    return _json(FACTS)["facts"]


def check(facts: list[dict] | None = None) -> list[str]:
    """Every difference between a fact's recorded answer and Pi's evidence, as lines."""
    problems = []
    for fact in facts if facts is not None else load_facts():
        for index, evidence in enumerate(fact["evidence"]):
            for version in VERSIONS["checked"]:
                if version not in evidence["expect"]:
                    problems.append(f"{fact['name']}: evidence {index}: no answer for Pi {version}")
                    continue
                got = evidence_value(version, evidence)
                if got != evidence["expect"][version]:
                    problems.append(
                        f"{fact['name']}: Pi {version} says {json.dumps(got)}, "
                        f"the fact says {json.dumps(evidence['expect'][version])}"
                    )
    return problems


def markers() -> list[tuple[str, int, str]]:
    """Every ``[fact: NAME]`` in the notebook sources and docs: (file, line, name)."""
    found = []
    for path in MARKED:
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            found += [(str(path.relative_to(ROOT)), number, m) for m in MARKER.findall(line)]
    return found


# The heuristic for "a paragraph that says what Pi does": Pi (a version, "Pi's CLI" or
# "Pi itself" allowed) as the subject of one of these verbs, perhaps after an adverb;
# "Pi does not" (or never, cannot, ...) or "Pi may" (might, would, will, had) followed by
# any verb; "Pi's" followed by one of Pi's functions (`name(`, `name()`); or "Pi's"
# followed by a noun (a word, a `name`, perhaps two words: "Pi's index", "Pi 0.87.1's
# `byId` Map") and one of these verbs or a negation ("Pi's own answers" and "Pi's
# answers are" are not about what Pi does).
PI_VERBS = (
    "writes|reads|keeps|drops|sends|builds|takes|appends|saves|uses|migrates|makes|counts"
    "|lists|creates|skips|repairs|sorts|walks|stores|picks|opens|rewrites|renames|adds"
    "|puts|turns|names|leaves|ignores|accepts|rejects|replaces|removes|treats|sets|starts"
    "|stops|ends|follows|compacts|retries|summarizes|summarises|cuts|copies|moves|clears"
    "|prints|shows|records|merges|orders|assigns|gives|returns|fires|triggers|checks"
    "|converts|resolves|computes|calls|loads|parses|fills|folds|joins|marks|answers|says"
    "|has|knows|wins|translates|estimates|tokenizes|tokenises|loses|overwrites|finds"
    "|looks|goes|becomes|carries|holds|produces|emits|stamps|passes|requires|expects"
)
_PI = r"\bPi(?: \d+\.\d+(?:\.\d+)?)?(?:'s CLI| itself)?"
PI_SUBJECT = re.compile(
    rf"{_PI}(?: (?:also|then|never|only|still|always|first|simply|silently|now|no longer))?"
    rf" (?:{PI_VERBS})\b"
    rf"|{_PI} (?:does not|doesn't|did not|cannot|can't|will not|won't|would not|never) [a-z]+"
    rf"|{_PI} (?:may|might|would|will|had)(?: (?:still|also|then|not|never))? [a-z]+"
    r"|\bPi's `?[a-z][A-Za-z]+\("
    r"|\bPi(?: \d+\.\d+(?:\.\d+)?)?'s (?!own )(?:`[^`]+`|[a-z][A-Za-z]*)(?: (?:`[^`]+`|[A-Za-z]+))?"
    r"(?: (?:also|then|never|only|still|always|simply|now))?"
    rf" (?:{PI_VERBS}|does not|doesn't|cannot|never)\b",
)
# The marker of a sentence no fact backs: the author's explanation, inference or observation.
AUTHOR = re.compile(r"the author's (?:explanation|inference|observation)")
_ITEM = re.compile(r"^(?:[-*] |\d+\. |\|)")


def paragraphs(path: Path) -> list[tuple[int, str]]:
    """The prose paragraphs of a notebook source's markdown cells or of a markdown doc, as
    (first line, text): blocks between blank lines, each list item and table row on its
    own; code blocks and headings left out.

    >>> import tempfile
    >>> doc = Path(tempfile.mkdtemp()) / "d.md"
    >>> text = "# Pi\\nPi writes.\\nStill.\\n\\n- one\\n- two\\n```\\nPi reads\\n```\\n"
    >>> _ = doc.write_text(text)
    >>> paragraphs(doc)
    [(2, 'Pi writes. Still.'), (5, '- one'), (6, '- two')]
    """
    lines = path.read_text(encoding="utf-8").splitlines()
    if path.suffix == ".py":
        prose, markdown = [], False
        for line in lines:
            if line.startswith("# %%"):
                markdown = line.startswith("# %% [markdown]")
                prose.append("")
            else:
                prose.append(line[2:] if markdown and line.startswith("#") else "")
    else:
        prose = lines
    found: list[tuple[int, list[str]]] = []
    fenced, open_block = False, False
    for number, line in enumerate(prose, 1):
        if line.lstrip().startswith("```"):
            fenced, open_block = not fenced, False
            continue
        if fenced or not line.strip() or line.startswith("#"):
            open_block = False
            continue
        if not open_block or _ITEM.match(line):
            found.append((number, []))
            open_block = True
        found[-1][1].append(line.strip())
    return [(number, " ".join(text)) for number, text in found]


def unmarked_paragraphs(paths: list[Path] | None = None) -> list[tuple[str, int, str]]:
    """Every paragraph of ``paths`` (default: the marked sources) that names Pi as the
    subject of a verb (``PI_SUBJECT``) but cites no fact and is not marked as the author's
    explanation (``AUTHOR``): (file, line, text). CI wants none.

    >>> import tempfile
    >>> doc = Path(tempfile.mkdtemp()) / "d.md"
    >>> text = "Pi keeps it.\\n\\nPi keeps it [fact: x].\\n\\nPi's `open()` reads it.\\n"
    >>> text += "\\nPi 0.87.1 knows it.\\n\\nPi's index keeps it.\\n\\nPi's own answers.\\n"
    >>> _ = doc.write_text(text)
    >>> [text for _, _, text in unmarked_paragraphs([doc])]  # doctest: +NORMALIZE_WHITESPACE
    ['Pi keeps it.', "Pi's `open()` reads it.", 'Pi 0.87.1 knows it.',
     "Pi's index keeps it."]
    """
    found = []
    for path in MARKED if paths is None else paths:
        name = str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path)
        for number, text in paragraphs(path):
            if PI_SUBJECT.search(text) and not MARKER.search(text) and not AUTHOR.search(text):
                found.append((name, number, text))
    return found


def main() -> int:
    facts = load_facts()
    for fact in facts:
        print(f"{fact['name']}: {fact['statement']}")
        for evidence in fact["evidence"]:
            for version in VERSIONS["checked"]:
                print(f"  Pi {version}: {json.dumps(evidence_value(version, evidence))}")
    problems = check(facts)
    for problem in problems:
        print("DIFFERS", problem)
    print(f"{len(facts)} facts, {len(markers())} markers, {len(problems)} differences")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
