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


#: Causes being fixed elsewhere, reported under their own name and not counted. Empty:
#: the last ones (V8's dates, Pi's tree view linking falsy parentIds and ordering
#: siblings with unparsable timestamps, ids nested thousands deep shown as text, an
#: undefined content key losing its place in what the request carries) are fixed, so a
#: difference of theirs is now unexplained.
KNOWN: list[KnownCause] = []


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
