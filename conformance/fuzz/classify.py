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
    """A difference whose cause is known: ``pending`` ones are not counted. ``explains``
    says which findings the cause accounts for; ``applies`` checks, once per file, that
    the file holds what causes them."""

    name: str
    pending: bool
    explanation: str
    explains: Callable[[Finding], bool]
    applies: Callable[[bytes, dict], bool]


def _kind(pattern: str) -> Callable[[Finding], bool]:
    return lambda finding: re.search(pattern, finding.kind) is not None


def _dates_differ(data: bytes, answer: dict) -> bool:
    """Some timestamp of the file is parsed differently by pisession than by V8 (the
    driver asks the worker and sets ``answer["datesDiffer"]``)."""
    return bool(answer.get("datesDiffer"))


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


def _falsy_parent_links(data: bytes, answer: dict) -> bool:
    """Pi's getTree keys nodes by id and looks up every parentId but null, so an entry
    with ``parentId: ""`` (or ``0``, ``false``, or none at all) becomes the child of an
    entry with that id (``undefined`` is a Map key too); the context path, like
    pisession's tree, treats a falsy parentId as "no parent"."""
    from pisession.jsvalue import UNDEFINED, field, strict_equal

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


_DISPLAY_PROBES = (
    r"^crash:(explain|fates|tree_text|session_html|projection_html|context_html"
    r"|export_html|export_markdown|diff):"
)

KNOWN: list[KnownCause] = [
    KnownCause(
        "jsdate (pending)",
        True,
        "a timestamp V8's Date parses differently (issue 12 item 1, branch jsdate)",
        _kind(r"^value:(?:context\.messages\[\]|llm\[\])\.timestamp$|^value:tree-order$"),
        _dates_differ,
    ),
    KnownCause(
        "jsdate (pending)",
        True,
        "a timestamp jsdate.py cannot convert (a traceback from inside jsdate.py)",
        lambda finding: finding.kind.startswith("crash:") and "(at jsdate.py:" in finding.detail,
        lambda data, answer: True,
    ),
    KnownCause(
        "tree: getTree links falsy parentIds (pending: tree.py)",
        True,
        'Pi\'s tree view makes an entry with parentId "", 0, false or none a child of an '
        "entry with that id; pisession's tree, like every context path, makes it a root",
        _kind(r"^value:tree$"),
        _falsy_parent_links,
    ),
    KnownCause(
        "deep id or type shown as text (pending: provenance.py/terminal.py)",
        True,
        "explain, fates, the tree text, HTML views and export call str() on an id or type "
        "nested thousands deep: RecursionError (provenance.py's fate reasons)",
        _kind(_DISPLAY_PROBES + r"RecursionError$"),
        lambda data, answer: True,
    ),
]


def classify(data: bytes, findings: list[Finding], answer: dict) -> tuple[str, bool]:
    """``(class name, pending)`` for a mutant with at least one finding.

    Each finding is matched to the first known cause that explains it and applies to
    the file; when every finding is explained (the CLI's text differences count as
    renderings of the value differences beside them), the class names the causes, in
    ``KNOWN`` order. Otherwise the class is the signature of the first unexplained
    finding, crashes first.
    """
    applies: dict[int, bool] = {}
    causes: list[KnownCause] = []
    unexplained = []
    values = [f for f in findings if not f.kind.startswith("cli-text")]
    for finding in values:
        for i, cause in enumerate(KNOWN):
            if cause.explains(finding):
                if i not in applies:
                    applies[i] = cause.applies(data, answer)
                if applies[i]:
                    if cause not in causes:
                        causes.append(cause)
                    break
        else:
            unexplained.append(finding)
    if causes and not unexplained:
        causes.sort(key=KNOWN.index)
        names = list(dict.fromkeys(c.name for c in causes))
        return " + ".join(names), all(c.pending for c in causes)
    ordered = sorted(unexplained or findings, key=_priority)
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
