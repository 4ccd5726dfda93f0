"""Name the cause of a difference.

Findings from ``compare`` carry a coarse signature (``value:context.messages[].content``,
``crash:explain:ValueError``, ...). A mutant's class is the signature of its first
finding, unless the mutant matches one of the known causes below, which are reported
under their own name and, when marked *pending*, not counted as unexplained: a fix for
them is under way elsewhere in the project (see conformance/fuzz/README.md).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from compare import Finding


@dataclass(frozen=True)
class KnownCause:
    """A difference whose cause is known: ``pending`` ones are not counted."""

    name: str
    pending: bool
    explanation: str
    matches: Callable[[bytes, list[Finding], dict], bool]


def _only(findings: list[Finding], pattern: str) -> bool:
    return all(re.search(pattern, f.kind) for f in findings)


def _jsdate(data: bytes, findings: list[Finding], answer: dict) -> bool:
    return _timestamps_only(data, findings, answer) or _jsdate_crash(findings)


def _jsdate_crash(findings: list[Finding]) -> bool:
    """A traceback from inside jsdate.py (e.g. ``new Date(<400-digit integer>)``)."""
    crashes = [f for f in findings if f.kind.startswith("crash:")]
    return bool(crashes) and all("(at jsdate.py:" in f.detail for f in crashes)


def _timestamps_only(data: bytes, findings: list[Finding], answer: dict) -> bool:
    """Every difference is a message timestamp, the order of tree children (sorted by
    timestamp) or the CLI text that prints them, and some timestamp string of the file
    is parsed differently by pisession than by V8 (``answer["dates"]``)."""
    if not answer.get("datesDiffer"):
        return False
    value_findings = [f for f in findings if not f.kind.startswith("cli-text")]
    return bool(value_findings) and _only(
        value_findings, r"^value:(?:context\.messages\[\]|llm\[\])\.timestamp$|^value:tree-order$"
    )


def _entries(data: bytes, objects_only: bool = True) -> list:
    """The file's entries as Pi reads them (a rough reading: every line that parses to
    a truthy value but a header; with ``objects_only`` only the objects)."""
    from pisession.jsjson import LineDecodeError, loads
    from pisession.jsvalue import truthy

    out = []
    for line in data.split(b"\n"):
        try:
            value = loads(line) if line.strip() else None
        except (LineDecodeError, ValueError, RecursionError):
            continue
        if isinstance(value, dict):
            if value.get("type") != "session":
                out.append(value)
        elif truthy(value) and not objects_only:
            out.append(value)
    return out


def _tree_falsy_parents(data: bytes, findings: list[Finding], answer: dict) -> bool:
    """Pi's getTree keys nodes by id and looks up every parentId but null, so an entry
    with ``parentId: ""`` (or ``0``, ``false``, or none at all) becomes the child of an
    entry with that id (``undefined`` is a Map key too); the context path, like
    pisession's tree, treats a falsy parentId as "no parent"."""
    from pisession.jsvalue import UNDEFINED, field, strict_equal

    if not _only(findings, r"^value:tree$"):
        return False
    entries = _entries(data, objects_only=False)
    ids = [field(e, "id") for e in entries]
    for entry in entries:
        parent = field(entry, "parentId")
        if parent is None or (parent is not UNDEFINED and parent not in ("", 0, False)):
            continue
        if parent is UNDEFINED and UNDEFINED in ids:
            return True
        if parent is not UNDEFINED and any(strict_equal(parent, i) for i in ids):
            return True
    return False


def _tree_nan_order(data: bytes, findings: list[Finding], answer: dict) -> bool:
    """Pi sorts children by ``new Date(a) - new Date(b)``; with an unparsable timestamp the
    comparison is NaN and V8's sort keeps its own order."""
    from pisession.jsdate import js_time_ms

    if not _only(findings, r"^value:tree-order$"):
        return False
    stamps = [js_time_ms(e.get("timestamp")) for e in _entries(data)]
    return any(t != t for t in stamps)


_DISPLAY_PROBES = r"^crash:(explain|fates|tree_text|session_html|projection_html|context_html):"


def _deep_value_shown(data: bytes, findings: list[Finding], answer: dict) -> bool:
    """An id or type nested thousands deep, turned into text by the readers' display
    code (``str(value)`` recurses)."""
    return _only(findings, _DISPLAY_PROBES + r"RecursionError$")


KNOWN: list[KnownCause] = [
    KnownCause(
        "jsdate (pending)",
        True,
        "a timestamp V8's Date parses differently, or one jsdate.py cannot convert "
        "(issue 12 item 1, branch jsdate)",
        _jsdate,
    ),
    KnownCause(
        "tree: getTree links falsy parentIds (pending: tree.py)",
        True,
        'Pi\'s tree view makes an entry with parentId "", 0, false or none a child of an '
        "entry with that id; pisession's tree, like every context path, makes it a root",
        _tree_falsy_parents,
    ),
    KnownCause(
        "tree: child order with unparsable timestamps (pending: tree.py)",
        True,
        "Pi sorts children with a comparator that gives NaN for unparsable timestamps; "
        "V8's sort then keeps an order of its own",
        _tree_nan_order,
    ),
    KnownCause(
        "deep id or type shown as text (pending: provenance.py/terminal.py)",
        True,
        "explain, fates and the tree text call str() on an id or type nested thousands "
        "deep: RecursionError (the lead's display code)",
        _deep_value_shown,
    ),
]


def classify(data: bytes, findings: list[Finding], answer: dict) -> tuple[str, bool]:
    """``(class name, pending)`` for a mutant with at least one finding."""
    for cause in KNOWN:
        if cause.matches(data, findings, answer):
            return cause.name, cause.pending
    ordered = sorted(findings, key=_priority)
    return ordered[0].kind, False


def _priority(finding: Finding) -> int:
    """Crashes first, then refusals, then value differences; CLI text last (it usually
    just repeats a value difference)."""
    kind = finding.kind
    for rank, prefix in enumerate(("crash:", "refuses", "opens", "cycle", "answers", "value")):
        if kind.startswith(prefix):
            return rank
    return 10


def slug(name: str) -> str:
    """A folder name for a class."""
    return re.sub(r"[^A-Za-z0-9._-]+", "_", name).strip("_")[:80] or "class"
