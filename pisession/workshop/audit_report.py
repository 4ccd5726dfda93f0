"""The claim audit's report (notebook 08), rendered as Markdown from its asserted evidence.

Notebook 08 asserts each claim's verdict on Pi's recorded answers
(``data/audit/evidence.json`` for Pi 0.87.1, ``data/audit/evidence-1.6.0.json``) and
collects, per claim, the facts it asserted and the scenarios they rest on. :func:`report`
turns that, the claims file (``data/audit/claims.json``: quote, concern, priority,
response, replacement) and the evidence into the seven sections the chapter's author asked
for; ``docs/chapter-27-audit.md`` is that text, copied from the notebook's stored output
by ``tools/audit_report.py`` (a repository script) and kept in step by a test.

>>> claims = {"claims": [{"key": "k", "short": "a claim"}]}
>>> claim_refs("as [[k]] says", claims)
'as claim 1 says'
"""

from __future__ import annotations

import html
import json
import re
import textwrap
from collections.abc import Callable, Collection, Sequence
from typing import Any, cast

from ..piversions import checked, pi_name
from .audit_evidence import scenario_differences as scenario_differences  # for notebook 08
from .repository import repository_file as repository_file  # notebook 08 reads through it

#: The releases the evidence was recorded with: the primary one and the newest checked one.
_PRIMARY = pi_name()
_NEWER = pi_name(checked(newest_first=True)[0])

#: The claims file (``data/audit/claims.json``), a claim in it, the verdicts notebook 08
#: asserted (by claim key) and one version's evidence (``data/audit/evidence*.json``): JSON.
Claims = dict[str, Any]
Claim = dict[str, Any]
#: One claim's asserted verdict: ``{"verdict", "facts", "scenarios", "differs", "newer"}``.
Verdict = dict[str, Any]
Asserted = dict[str, Verdict]
Evidence = dict[str, Any]

TITLE = "# Chapter 27 audit:"

VERDICTS = ("holds", "needs nuance", "wrong")
RESPONSES = ("correct", "clarify", "cite", "leave alone")
_MD_SPECIAL = re.compile(r"([\\`*_\[\]|])")
_REF = re.compile(r"\[\[([\w-]+)\]\]")


#: How each verdict looks: a CSS mark (a filled dot, a half-filled dot, a ring; no emoji,
#: so no font is needed) with the word beside it, and a plain-text form.
MARKS = {
    "holds": ("#1a7f37", "#dafbe1", "#1a7f37", "[holds]"),
    "needs nuance": (
        "#7d4e00",
        "#fff8c5",
        "linear-gradient(90deg, #7d4e00 50%, #fff8c5 50%)",
        "[nuance]",
    ),
    "wrong": ("#cf222e", "#ffebe9", "#ffebe9", "[WRONG]"),
}


def badge(verdict: str) -> str:
    """A verdict as an HTML badge: a CSS mark and the verdict in words.

    >>> "holds</span>" in badge("holds") and "&#" not in badge("holds")
    True
    """
    colour, background, fill, _ = MARKS[verdict]
    mark = (
        f'<span style="display:inline-block;width:0.7em;height:0.7em;border-radius:50%;'
        f'border:2px solid {colour};background:{fill};margin-right:4px;vertical-align:-1px">'
        "</span>"
    )
    return (
        f'<span style="background:{background};color:{colour};font-weight:bold;'
        f'padding:1px 6px;border-radius:4px;white-space:nowrap">{mark}{verdict}</span>'
    )


def plain_mark(verdict: str) -> str:
    """A verdict's plain-text mark.

    >>> plain_mark("wrong")
    '[WRONG]'
    """
    return MARKS[verdict][3]


def summary(claims: Claims) -> dict[str, str]:
    """The verdicts at a glance, with the response the report proposes for each claim,
    as ``{"text/html", "text/plain"}`` for IPython's display.

    >>> one = {"claims": [{"key": "k", "short": "a <claim>", "source": "PiG page",
    ...     "where": "Label", "verdict": "holds", "response": "leave alone"}]}
    >>> print(summary(one)["text/plain"])
     1. [holds]   a <claim> (leave alone)
    """
    rows, text = [], []
    for number, c in _numbered(claims):
        link = f'<a href="#claim-{c["key"]}">{html.escape(c["short"])}</a>'
        where = html.escape(f"{c['source']}, {c['where']}")
        rows.append(
            f"<tr><td>{number}</td><td style='text-align:left'>{link}</td>"
            f"<td style='text-align:left'>{where}</td><td>{badge(c['verdict'])}</td>"
            f"<td style='text-align:left'>{html.escape(c['response'])}</td></tr>"
        )
        line = f"{number:2}. {plain_mark(c['verdict']):9} {c['short']} ({c['response']})"
        text.append(textwrap.fill(line, 100, subsequent_indent=" " * 14))
    table = (
        "<table><thead><tr><th>#</th><th style='text-align:left'>claim</th>"
        "<th style='text-align:left'>where</th><th>verdict</th>"
        "<th style='text-align:left'>response</th></tr></thead>"
        f"<tbody>{''.join(rows)}</tbody></table>"
    )
    return {"text/html": table, "text/plain": "\n".join(text)}


def md(text: object) -> str:
    """``text`` safe in a Markdown table cell: one line, special characters escaped.

    >>> md("C:\\\\work | <b>\\n*x*")
    'C:\\\\\\\\work \\\\| &lt;b&gt; \\\\*x\\\\*'
    """
    value = str(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    value = "".join(ch if ch.isprintable() else " " for ch in value)
    return _MD_SPECIAL.sub(r"\\\1", value)


def claim_refs(text: str, claims: Claims) -> str:
    """Replace each ``[[key]]`` by "claim N" (N: the claim's place in the claims file).

    >>> claim_refs("see [[b]]", {"claims": [{"key": "a"}, {"key": "b"}]})
    'see claim 2'
    """
    number = {c["key"]: i for i, c in enumerate(claims["claims"], start=1)}
    return _REF.sub(lambda m: f"claim {number[m.group(1)]}", text)


def _table(head: tuple[str, ...], rows: Sequence[tuple[str, ...]]) -> list[str]:
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    return lines + ["| " + " | ".join(row) + " |" for row in rows]


def _numbered(claims: Claims) -> list[tuple[int, Claim]]:
    return list(enumerate(claims["claims"], start=1))


def _version_cell(
    asserted: Verdict, kinds: Collection[str] = (), claim: Claim | None = None
) -> str:
    """The 1.6.0 column: "same answer" only when 1.6.0's own answer backs it.

    A verdict resting on files Pi 0.87.1's CLI wrote (scenario kind ``pi-file``) gets the
    same answer from 1.6.0's code on those files, which says nothing of what 1.6.0's CLI
    writes: UNVERIFIED, unless a fact on 1.6.0's real-CLI recordings backs it.

    >>> _version_cell({"differs": []}, {"pi-file"})
    "UNVERIFIED: rests on files Pi 0.87.1's CLI wrote"
    >>> _version_cell({"differs": []}, {"pi-file"}, {"cli_1_6_0_fact": "f"})
    "same answer; 1.6.0's CLI files agree (fact: f)"
    """
    newer = cast("Verdict", asserted.get("newer"))  # there when the answers differ
    note = f"; {md(claim['note_1_6_0'])}" if claim and claim.get("note_1_6_0") else ""
    if not asserted["differs"]:
        if claim and claim.get("cli_1_6_0_fact"):
            fact = claim["cli_1_6_0_fact"]
            return f"same answer; 1.6.0's CLI files agree (fact: {fact}){note}"
        if "pi-file" not in kinds:
            return "same answer" + note
        return f"UNVERIFIED: rests on files {_PRIMARY}'s CLI wrote" + note
    same = "same verdict" if newer["verdict"] == asserted["verdict"] else f"**{newer['verdict']}**"
    unverified = ""
    if "pi-file" in kinds and not (claim and claim.get("cli_1_6_0_fact")):
        unverified = "; UNVERIFIED for the files 1.6.0's CLI writes"
    return f"{same}; differs: {md(', '.join(asserted['differs']))}{unverified}{note}"


def _context(claims: Claims, evidence: Evidence, newer: Evidence) -> list[str]:
    audit = claims["audit"]
    unrun = "; ".join(f"{u['name']} ({u['why']})" for u in claims["unrun"])
    return [
        "## 1. Context and provenance",
        "",
        f"- **What was read**: {md(audit['chapter'])}, and {md(audit['pig'])}. The audit covers "
        "the excerpt only: the rest of the chapter needs the full snapshot.",
        f"- **Pi versions**: {evidence['pi']} (pi-ai {evidence['piAi']}), npm "
        "`@earendil-works/pi-coding-agent` installed by `npm install` in `conformance/` (its "
        f"package-lock pins it); {newer['pi']} (pi-ai {newer['piAi']}) installed by "
        "`conformance/check.sh` into `conformance/.pi/1.6.0`. Pi's library code ran under Node 20.",
        f"- **How**: `{evidence['generator']}` ran {len(evidence['scenarios'])} scenarios with "
        f"each version's own code and read {len(evidence['files'])} purpose-made files "
        "(`data/audit/*.jsonl`); entropy fixed, so both evidence files re-record byte for byte. "
        "Every verdict below was asserted in notebook 08 on those answers.",
        f"- **Date of the run**: {audit['date']} (UTC); reviewed against Pi's recordings "
        f"on {audit.get('reviewed', audit['date'])} (today's date for this report).",
        f"- **Not run**: {md(unrun)}.",
        "",
    ]


def _claim_detail(
    number: int, c: Claim, a: Verdict, claims: Claims, kinds: Collection[str] = ()
) -> list[str]:
    """One claim's record, folded (``<details>``: one line until opened, on GitHub and in
    JupyterLab alike): the quote, Pi's evidence, what Pi 1.6.0 answered, the concern."""
    evidence = ", ".join(f"`{s}`" for s in a["scenarios"]) + ": " + md(", ".join(a["facts"]))
    newer = _version_cell(a, kinds, c)
    return [
        f"<details><summary>Claim {number}: {html.escape(c['short'])} "
        f"({html.escape(a['verdict'])})</summary>",
        "",
        f"- **Quote** ({md(c['source'])}, {md(c['where'])}): “{md(c['quote'])}”",
        f"- **Evidence** ({_PRIMARY}): {evidence}",
        f"- **{_NEWER}**: {newer}",
        f"- **Concern**: {md(claim_refs(c['concern'], claims))}",
        f"- **Response**: {c['response']} (priority {c['priority']})",
        "",
        "</details>",
        "",
    ]


def _claim_audit(claims: Claims, asserted: Asserted, recorded: Evidence | None = None) -> list[str]:
    scenarios = recorded["scenarios"] if recorded else {}
    rows, details = [], []
    for number, c in _numbered(claims):
        a = asserted[c["key"]]
        kinds = {scenarios[s]["kind"] for s in a["scenarios"] if s in scenarios}
        rows.append(
            (
                str(number),
                md(c["short"]),
                md(f"{c['source']}, {c['where']}"),
                f"**{a['verdict']}**",
                _version_cell(a, kinds, c),
                c["priority"],
                c["response"],
            )
        )
        details += _claim_detail(number, c, a, claims, kinds)
    head = ("#", "claim", "where", "verdict (0.87.1)", "1.6.0", "priority", "response")
    return [
        "## 2. Claim audit",
        "",
        "One row per claim; below the table, each claim's quote, the evidence its verdict "
        f"was asserted on, what {_NEWER} answered and the concern (click a claim to open it).",
        "",
        *_table(head, rows),
        "",
        *details,
    ]


def _code_lines(evidence: Evidence) -> dict[str, list[int]]:
    lines: dict[str, set[int]] = {}
    for scenario in evidence["scenarios"].values():
        for code in scenario.get("code", []):
            lines.setdefault(code["file"], set()).add(code["line"])
    return {file: sorted(found) for file, found in sorted(lines.items())}


def _ledger(claims: Claims, evidence: Evidence, newer: Evidence) -> list[str]:
    date = claims["audit"]["date"]
    rows = [
        ("chapter 27 excerpt", md(claims["audit"]["chapter"]), "read in full (the excerpt)", date),
        ("PiG session-format page", md(claims["audit"]["pig"]), "read in full", date),
    ]
    for e in (evidence, newer):
        rows.append(
            (
                f"Pi {e['pi']}",
                f"npm `@earendil-works/pi-coding-agent@{e['pi']}`, "
                f"`@earendil-works/pi-ai@{e['piAi']}`",
                "run (library code under Node 20); cited lines below",
                date,
            )
        )
    rows += [
        (
            f"files {_PRIMARY}'s CLI wrote",
            "`data/samples/pi-0.87.1-*.jsonl`",
            "read by the scenarios of kind pi-file",
            date,
        ),
        ("audit files", "`data/audit/*.jsonl`", "read by Pi at every leaf", date),
    ]
    out = [
        "## 3. Source ledger",
        "",
        *_table(("source", "identity", "reading status", "accessed"), rows),
    ]
    for e in (evidence, newer):
        out += ["", f"Lines of Pi {e['pi']}'s code the evidence quotes (file: lines):", ""]
        out += [
            f"- `{file}`: {', '.join(map(str, lines))}" for file, lines in _code_lines(e).items()
        ]
    return [*out, ""]


def _findings(claims: Claims, asserted: Asserted, evidence: Evidence) -> list[str]:
    def item(number: int, c: Claim) -> str:
        return f"- claim {number} ({md(c['where'])}): {md(claim_refs(c['concern'], claims))}"

    groups = {"holds": "Supporting", "needs nuance": "Qualifying", "wrong": "Contradicting"}
    out = ["## 4. Findings", ""]
    for verdict, title in groups.items():
        out += [f"### {title} ({verdict})", ""]
        out += [
            item(n, c) for n, c in _numbered(claims) if asserted[c["key"]]["verdict"] == verdict
        ]
        out.append("")
    out += [f"### Where {_NEWER} answers differently", ""]
    for number, c in _numbered(claims):
        a = asserted[c["key"]]
        if a["differs"]:
            verdict = a["newer"]["verdict"]
            same = "the same verdict" if verdict == a["verdict"] else f"**{verdict}**"
            out.append(
                f"- claim {number} ({md(c['short'])}): {same} in 1.6.0, asserted on its answer "
                f"({md(', '.join(a['newer']['facts']))}); the answers differ at "
                f"{md(', '.join(a['differs']))}."
            )
    out += ["", "### Unresolved", ""]
    for number, c in _numbered(claims):
        kinds = {evidence["scenarios"][s]["kind"] for s in asserted[c["key"]]["scenarios"]}
        notes = []
        if "code" in kinds:
            notes.append("rests partly on Pi's code evaluated as written, not on a run of its CLI")
        if "pi-file" in kinds:
            notes.append(
                f"rests partly on files {_PRIMARY}'s CLI wrote (the audit reads none 1.6.0's CLI "
                "wrote: UNVERIFIED for 1.6.0 unless its column names a fact on 1.6.0's recordings)"
            )
        if c.get("open"):
            notes.append(md(c["open"]))
        if notes:
            out.append(f"- claim {number} ({md(c['short'])}): " + "; ".join(notes) + ".")
    out += [f"- {md(u['name'])}: UNRUN ({md(u['why'])})." for u in claims["unrun"]]
    return [*out, ""]


def _upgrades(claims: Claims) -> list[str]:
    out = ["## 5. Upgrade proposal", ""]
    for number, c in _numbered(claims):
        if c["response"] not in ("correct", "clarify"):
            continue
        out += [
            f"**Claim {number}** ({md(c['source'])}, {md(c['where'])}; {c['response']}).",
            "",
            f"> {md(c['quote'])}",
            "",
            "becomes",
            "",
            f"> {md(c['replacement'])}",
            "",
            f"Why: {md(claim_refs(c['reason'], claims))}",
            "",
        ]
    return out


def _experiments(
    claims: Claims, asserted: Asserted, evidence: Evidence, newer: Evidence
) -> list[str]:
    number = {c["key"]: n for n, c in _numbered(claims)}
    rows = []
    for name, scenario in evidence["scenarios"].items():
        users = [(number[k], a) for k, a in asserted.items() if name in a["scenarios"]]
        criterion = (
            "; ".join(
                f"claim {n}: {', '.join(a['facts'])}" for n, a in sorted(users, key=lambda u: u[0])
            )
            or "recorded for the notebooks (no verdict rests on it)"
        )
        changed = scenario_differences(evidence, newer, name)
        status = f"run on {evidence['pi']} and {newer['pi']}: " + (
            "same answer" if not changed else f"differs at {', '.join(changed)}"
        )
        calls = f" Calls: {', '.join(scenario['calls'])}." if scenario.get("calls") else ""
        rows.append((f"`{name}`", md(scenario["what"] + calls), md(criterion), md(status)))
    rows += [(md(u["name"]), md(u["method"]), md(u["criterion"]), "UNRUN") for u in claims["unrun"]]
    head = ("experiment", "method", "success criterion", "status")
    return ["## 6. Experiments", "", *_table(head, rows), ""]


def _checklist(claims: Claims) -> list[str]:
    out = ["## 7. Review checklist", ""]
    for number, c in _numbered(claims):
        if c["response"] in ("correct", "clarify"):
            out.append(
                f"- [ ] Claim {number} ({md(c['short'])}): {c['response']} as section 5 proposes?"
            )
        elif c["response"] == "cite":
            out.append(f"- [ ] Claim {number} ({md(c['short'])}): cite Pi's code or files for it?")
    out += [f"- [ ] {md(claim_refs(d, claims))}" for d in claims["decisions"]]
    return [*out, ""]


# --- the brief's full form (issue 40): sections 8-11 ---------------------------------------

#: Where each part of the chapter and of PiG's page is taught: the notebooks a change to a
#: claim there carries over to (by the claim's ``where``, longest prefix first).
_TAUGHT_IN = {
    "Location": "01",
    "Versions": "05",
    "The header": "01, 02",
    "The container": "01, 02",
    "The entry types: message": "03, 06",
    "The entry types: model_change": "03",
    "The entry types: thinking_level_change": "01, 03",
    "The entry types: usage": "06",
    "The entry types: compaction": "04",
    "The entry types: context_edit": "06",
    "The entry types": "01",
    "File location": "01, 02",
    "Entry tree": "02",
    "Entry types: Message": "03",
    "Compaction": "04",
    "Context construction": "03, 04",
    "Label": "02",
    "Session information": "02",
    "Session file format": "06",
    "Compatibility rules": "02",
}

EVIDENCE_CLASSES = {
    "run": "reproduced here",
    "pi-file": f"reproduced here (on files {_PRIMARY}'s CLI wrote)",
    "code": "reported by a source (Pi's code, quoted and evaluated as written)",
}


def taught_in(where: str) -> str:
    """The notebooks that teach the part of the text a claim sits in.

    >>> taught_in("The entry types: compaction"), taught_in("Somewhere else")
    ('04', 'UNVERIFIED: no notebook mapped')
    """
    for prefix in sorted(_TAUGHT_IN, key=len, reverse=True):
        if where.startswith(prefix):
            return _TAUGHT_IN[prefix]
    return "UNVERIFIED: no notebook mapped"


def citations(evidence: Evidence, scenarios: Sequence[str]) -> str:
    """file:line of Pi's code each scenario quotes, else the Pi functions it called.

    >>> ev = {"scenarios": {"s": {"code": [{"file": "f.js", "line": 3}]},
    ...     "t": {"calls": ["SessionManager.open"]}}}
    >>> citations(ev, ["s", "t"])
    '`f.js:3`; `t`: calls SessionManager.open'
    """
    out = []
    for name in scenarios:
        scenario = evidence["scenarios"][name]
        if scenario.get("code"):
            out += [f"`{c['file']}:{c['line']}`" for c in scenario["code"]]
        else:
            out.append(f"`{name}`: calls {', '.join(scenario.get('calls', [])) or 'Pi (run)'}")
    return "; ".join(dict.fromkeys(out))


def decision(claim: Claim, asserted: Verdict, kinds: Collection[str]) -> tuple[str, str]:
    """A proposed decision (accept / revise / defer / reject) for a proposal, and its reason.

    >>> decision({"verdict": "wrong", "response": "correct", "priority": "high"},
    ...     {"differs": []}, {"run"})[0]
    'accept'
    """
    if claim["response"] == "leave alone":
        return "reject", "the text holds on Pi's answer: no change is proposed"
    if claim["verdict"] == "wrong":
        return "accept", "Pi's own answer contradicts the text; the replacement states it"
    if "pi-file" in kinds and not claim.get("cli_1_6_0_fact"):
        return "revise", "it rests partly on files only 0.87.1's CLI wrote: name the version"
    if asserted["differs"]:
        return "revise", f"{_NEWER} answers differently: the replacement should say which version"
    if claim["response"] == "cite":
        return "accept", "a citation of Pi's code costs one line and settles the question"
    if claim["priority"] == "low":
        return "defer", "low priority: the text is incomplete, not wrong"
    return "accept", "the nuance changes what a reader would do; Pi's answer is reproduced here"


def _ranges(numbers: list[int]) -> str:
    """Claim numbers as runs: ``1-26, 43``.

    >>> _ranges([1, 2, 3, 5, 7, 8])
    '1-3, 5, 7-8'
    """
    runs: list[list[int]] = []
    for n in numbers:
        if runs and n == runs[-1][1] + 1:
            runs[-1][1] = n
        else:
            runs.append([n, n])
    return ", ".join(str(a) if a == b else f"{a}-{b}" for a, b in runs)


def brief_sections(
    claims: Claims, asserted: Asserted, evidence: Evidence, newer: Evidence
) -> list[str]:
    """Sections 8-12 of the report: the source ledger in full, findings with citations and
    evidence classes, trade-offs and dependencies, a decision per proposal, and every
    experiment's success and failure criteria."""
    numbered = _numbered(claims)
    kinds = {
        c["key"]: {evidence["scenarios"][s]["kind"] for s in asserted[c["key"]]["scenarios"]}
        for _, c in numbered
    }
    return [
        *_full_ledger(claims, kinds, evidence, newer),
        *_cited_findings(claims, kinds, asserted, evidence),
        *_trade_offs(claims),
        *_decisions(claims, kinds, asserted),
        *_success_and_failure(claims, asserted, evidence, newer),
    ]


def _full_ledger(
    claims: Claims, kinds: dict[str, set[str]], evidence: Evidence, newer: Evidence
) -> list[str]:
    """Section 8: every source with its identity, URL, reading status, claims and limits."""
    audit = claims["audit"]
    run, today = audit["date"], audit.get("reviewed", audit["date"])
    rows = _sources(claims, kinds, evidence, newer)
    head = ("source", "identity and version", "URL", "reading status", "claims", "limits")
    return [
        "## 8. Source ledger in full",
        "",
        f"Verified (the run): {run}. Accessed and reviewed: {today}.",
        "",
        *_table(head, rows),
        "",
    ]


def _sources(
    claims: Claims, kinds: dict[str, set[str]], evidence: Evidence, newer: Evidence
) -> list[tuple[str, ...]]:
    """The rows of section 8: source, identity, URL, reading status, claims, limits."""
    audit = claims["audit"]
    numbered = _numbered(claims)

    def claims_where(test: Callable[[Claim], bool]) -> str:
        return _ranges([n for n, c in numbered if test(c)]) or "none"

    npm = "https://www.npmjs.com/package/@earendil-works/pi-coding-agent/v/"
    rows: list[tuple[str, ...]] = [
        (
            "chapter 27 excerpt",
            md(audit["chapter"]),
            "UNVERIFIED: no URL recorded (the excerpt was given to the audit as text)",
            "read in full (the excerpt)",
            claims_where(lambda c: c["source"] == "chapter 27"),
            md("the excerpt only: it stops mid-sentence in context_edit"),
        ),
        (
            "PiG session-format page",
            md(audit["pig"]),
            "UNVERIFIED: no URL recorded",
            "read in full",
            claims_where(lambda c: c["source"] != "chapter 27"),
            f"PiG pins {_PRIMARY}; its own code was not run",
        ),
    ]
    for e in (evidence, newer):
        rows.append(
            (
                f"Pi {e['pi']}",
                f"npm `@earendil-works/pi-coding-agent@{e['pi']}`, "
                f"`@earendil-works/pi-ai@{e['piAi']}`",
                f"[npm: {e['pi']}]({npm}{e['pi']})",  # a short link: a URL does not wrap
                "run (library code under Node 20); its code quoted with line numbers",
                claims_where(lambda c: True),
                "library code, not the CLI, for the audit's scenarios",
            )
        )
    rows += [
        (
            f"files {_PRIMARY}'s CLI wrote",
            "`data/samples/pi-0.87.1-*.jsonl`",
            "in this repository",
            "read by the scenarios of kind pi-file",
            claims_where(lambda c: "pi-file" in kinds[c["key"]]),
            "one version's CLI against a fake provider: UNVERIFIED for 1.6.0",
        ),
        (
            "real-CLI recordings",
            "`data/realcli/<version>/` (`conformance/realcli`)",
            "in this repository",
            "read for the facts of `data/facts/facts.json`",
            claims_where(lambda c: bool(c.get("cli_1_6_0_fact"))),
            "a fake provider; ids and times random, structure compared",
        ),
    ]
    return rows


def _cited_findings(
    claims: Claims, kinds: dict[str, set[str]], asserted: Asserted, evidence: Evidence
) -> list[str]:
    """Section 9: the claims grouped by verdict with their evidence classes and citations,
    then what is unresolved."""
    numbered = _numbered(claims)
    out = [
        "## 9. Findings with citations",
        "",
        "Evidence classes: **background** (section 1), **reported by a source** (Pi's code "
        "quoted), **reproduced here** (Pi's code run by the audit), **hypothesis** (an open "
        "question below), **proposed experiment** (UNRUN, section 6).",
        "",
    ]
    groups = {"holds": "Supporting", "needs nuance": "Qualifying", "wrong": "Contradicting"}
    for verdict, title in groups.items():
        out += [f"### {title}", ""]
        for number, c in numbered:
            a = asserted[c["key"]]
            if a["verdict"] != verdict:
                continue
            classes = ", ".join(sorted({EVIDENCE_CLASSES[k] for k in kinds[c["key"]]}))
            out.append(
                f"- claim {number} ({md(c['short'])}), {classes}: "
                f"{citations(evidence, a['scenarios'])}."
            )
        out.append("")
    out += ["### Unresolved", ""]
    for number, c in numbered:
        if c.get("open"):
            out.append(f"- claim {number}, hypothesis: {md(c['open'])}")
        elif "pi-file" in kinds[c["key"]] and not c.get("cli_1_6_0_fact"):
            out.append(f"- claim {number}: UNVERIFIED for files {_NEWER}'s CLI writes.")
    out += [
        f"- {md(u['name'])}, proposed experiment: UNRUN. Success: {md(u['criterion'])} "
        "Failure: the recorded files disagree with the scenarios' answers."
        for u in claims["unrun"]
    ]
    return [*out, ""]


def _trade_offs(claims: Claims) -> list[str]:
    """Section 10: what the upgrade trades and what depends on it (the notebooks that
    teach each changed claim)."""
    out = [
        "## 10. Trade-offs and dependencies of the upgrade",
        "",
        "- **Trade-off**: the smallest replacement (section 5) keeps the chapter's voice and "
        "its length, but leaves version-specific behaviour (when the file appears, what 1.6.0 "
        f"appends at a run's start) to notes; rewriting the sections around {_NEWER} would "
        "date the excerpt's 0.87.1 examples.",
        "- **Trade-off**: citing Pi's code (file:line) makes each statement checkable but "
        "ties the text to one release's line numbers.",
        "- **Dependencies**: each changed claim carries over to the notebooks that teach its "
        "section (below) and to notebook 08 itself; the neighbouring chapters of *Pi Agents* "
        "were not read (UNVERIFIED: whether they repeat a changed statement).",
        "",
    ]
    out += [
        f"- claim {n} ({md(c['where'])}): notebooks {taught_in(c['where'])}"
        for n, c in _numbered(claims)
        if c["response"] in ("correct", "clarify")
    ]
    return [*out, ""]


def _decisions(claims: Claims, kinds: dict[str, set[str]], asserted: Asserted) -> list[str]:
    """Section 11: a proposed decision for every claim not left alone."""
    decisions: list[tuple[str, ...]] = []
    for number, c in _numbered(claims):
        if c["response"] == "leave alone":
            continue
        choice, why = decision(c, asserted[c["key"]], kinds[c["key"]])
        decisions.append((str(number), md(c["short"]), c["response"], f"**{choice}**", md(why)))
    return [
        "## 11. Decisions",
        "",
        "Proposed decisions (accept / revise / defer / reject); the author decides.",
        "",
        *_table(("#", "claim", "proposal", "decision", "reason"), decisions),
        "",
    ]


def _success_and_failure(
    claims: Claims, asserted: Asserted, evidence: Evidence, newer: Evidence
) -> list[str]:
    """Section 12: each recorded scenario and each unrun experiment with what counts as
    success and as failure."""
    claim_number = {c["key"]: n for n, c in _numbered(claims)}
    experiments: list[tuple[str, ...]] = []
    for name in evidence["scenarios"]:
        users = sorted(claim_number[k] for k, a in asserted.items() if name in a["scenarios"])
        claims_text = ", ".join(map(str, users)) or "none (recorded for the notebooks)"
        experiments.append(
            (
                f"`{name}`",
                f"Pi {evidence['pi']} and {newer['pi']} give the recorded answers and the "
                f"facts asserted for claims {claims_text} hold",
                "an answer differs from the recorded one (`tests/test_audit_evidence.py` "
                "fails) or an asserted fact no longer holds (notebook 08 stops at its claim)",
                "reproduced here",
            )
        )
    experiments += [
        (
            md(u["name"]),
            md(u["criterion"]),
            "the recorded files disagree with the scenarios' answers",
            "UNRUN (proposed experiment)",
        )
        for u in claims["unrun"]
    ]
    return [
        "## 12. Experiments: success and failure",
        "",
        *_table(("experiment", "success", "failure", "status"), experiments),
        "",
    ]


def report(claims: Claims, asserted: Asserted, evidence: Evidence, newer: Evidence) -> str:
    """The audit report as Markdown: the seven sections, from the claims file, the verdicts
    notebook 08 asserted (``{key: {"verdict", "facts", "scenarios", "differs", "newer"}}``)
    and both versions' evidence.

    >>> claims = {"audit": {"date": "2026-01-01", "chapter": "ch", "pig": "pig"},
    ...     "claims": [{"key": "k", "source": "chapter 27", "where": "W", "short": "s",
    ...         "quote": "q", "verdict": "holds", "concern": "None.", "priority": "low",
    ...         "response": "leave alone"}], "unrun": [], "decisions": ["Decide."]}
    >>> ev = {"pi": "0.87.1", "piAi": "0.87.1", "generator": "g", "files": {},
    ...     "scenarios": {"s": {"kind": "run", "what": "W.", "result": {"a": 1}}}}
    >>> new = dict(ev, pi="1.6.0", piAi="1.6.0")
    >>> done = {"k": {"verdict": "holds", "facts": ["a is 1"], "scenarios": ["s"],
    ...     "differs": [], "newer": None}}
    >>> text = report(claims, done, ev, new)
    >>> [line for line in text.splitlines() if line[:3] == "## "]  # doctest: +NORMALIZE_WHITESPACE
    ['## 1. Context and provenance', '## 2. Claim audit', '## 3. Source ledger',
     '## 4. Findings', '## 5. Upgrade proposal', '## 6. Experiments', '## 7. Review checklist',
     '## 8. Source ledger in full', '## 9. Findings with citations',
     '## 10. Trade-offs and dependencies of the upgrade', '## 11. Decisions',
     '## 12. Experiments: success and failure']
    """
    missing = [c["key"] for c in claims["claims"] if c["key"] not in asserted]
    if missing:
        raise ValueError(f"no asserted verdict for {', '.join(missing)}")
    lines = [
        f"# Chapter 27 audit: the session format against Pi {evidence['pi']} and {newer['pi']}",
        "",
        "Rendered by notebook 08 (`notebooks/src/08-claim-audit.py`) from `data/audit/claims.json` "
        "and the verdicts it asserted on Pi's recorded answers; do not edit by hand "
        "(`tests/test_audit_report.py` keeps this file equal to the notebook's output).",
        "",
        *_context(claims, evidence, newer),
        *_claim_audit(claims, asserted, evidence),
        *_ledger(claims, evidence, newer),
        *_findings(claims, asserted, evidence),
        *_upgrades(claims),
        *_experiments(claims, asserted, evidence, newer),
        *_checklist(claims),
        *brief_sections(claims, asserted, evidence, newer),
    ]
    return "\n".join(lines).rstrip("\n") + "\n"


def loads_claims(text: str) -> Claims:
    """The claims file, checked: known verdicts and responses, a replacement where asked.

    >>> loads_claims('{"claims": [{"key": "k", "verdict": "maybe", "response": "cite"}]}')
    Traceback (most recent call last):
    ...
    ValueError: claims.json: claim k: verdict 'maybe' is not one of holds, needs nuance, wrong
    """
    claims: Claims = json.loads(text)
    for c in claims["claims"]:
        if c["verdict"] not in VERDICTS:
            raise ValueError(
                f"claims.json: claim {c['key']}: verdict {c['verdict']!r} is not one of "
                + ", ".join(VERDICTS)
            )
        if c["response"] not in RESPONSES:
            raise ValueError(f"claims.json: claim {c['key']}: response {c['response']!r} unknown")
        if c["response"] in ("correct", "clarify") and not c.get("replacement"):
            raise ValueError(f"claims.json: claim {c['key']}: {c['response']} needs a replacement")
    return claims
