"""Likely secrets in a session file, found and replaced before a page is shared.

Session files hold what tools printed: API keys in environment dumps, tokens in
``curl`` commands, private keys read by mistake. ``pisession export`` warns when the
page shows one (``page_secrets``) and ``--redact`` replaces each in the whole file, before
the page is made, with a marker that says what kind was removed (``redacted``).

What is found: the shapes in ``SHAPES`` below, always (provider API keys ``sk-...``
and ``sk-ant-...``, AWS access key ids and secret keys given by name, GitHub tokens,
``Bearer`` credentials, private key blocks, passwords in URLs); and, when the
optional package ``detect-secrets`` is installed, every token shape of its own list
(JSON web tokens, GitLab, Slack, Stripe, npm, PyPI, SendGrid, Twilio, Discord,
Telegram, Azure storage keys, ...), read from its plugins so that list stays theirs.
What is not found: a secret with no telling shape (a bare password, a random hex
string), one split across two strings, and one written with JSON ``\\u`` escapes. A
warning that finds nothing is therefore no proof that a page is safe to share.

>>> redact_text("key=sk-ant-api03-abcdefghijklmnopqrstuvwxyz done")
('key=[redacted: API key] done', ['API key'])
"""

from __future__ import annotations

import html
import re
from bisect import bisect_right
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING

try:  # the parser of the re module (3.11+), to read a pattern's plain text
    from re import _parser  # type: ignore[attr-defined]
except ImportError:  # Python 3.10
    import sre_parse as _parser

from ..js.json import LineDecodeError, dumps, loads
from .text import plural

if TYPE_CHECKING:
    from ..engine.parallel import _Pending

#: Secret shapes pisession knows itself: (kind, pattern, hints): every match holds one
#: of its hints (in any case), which is how a file is searched fast. These stay when
#: ``detect-secrets`` is not installed; it adds many more.
SHAPES: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    (
        "private key",
        r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?"
        r"(?:-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|\Z)",
        ("-----BEGIN ",),
    ),
    ("API key", r"(?<![A-Za-z0-9])sk-(?:ant-|proj-)?[A-Za-z0-9_-]{20,}", ("sk-",)),
    (
        "AWS access key",
        r"(?<![A-Z0-9])(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}(?![A-Z0-9])",
        ("A3T", "AKIA", "ASIA", "ABIA", "ACCA"),
    ),
    (
        "AWS secret key",
        r"(?i:aws_?secret_?(?:access_?)?key)\W{0,4}[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+])",
        ("secret",),
    ),
    (
        "GitHub token",
        r"(?<![A-Za-z0-9])(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{40,})",
        ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"),
    ),
    ("Bearer credential", r"(?<![A-Za-z])(?i:bearer)\s+[A-Za-z0-9._~+/-]{12,}=*", ("bearer",)),
    ("password in a URL", r"(?<=://)[^\s:/?#@\"']+:[^\s:/?#@\"']+(?=@)", ("://",)),
)

#: detect-secrets plugins left out: they match words near a keyword or any long
#: random-looking text, so they would mark ordinary prose and ids.
_NOT_PLUGINS = frozenset(
    {
        "Base64HighEntropyString",
        "HexHighEntropyString",
        "KeywordDetector",
        "IPPublicDetector",
        "ArtifactoryDetector",
        "CloudantDetector",
        "IbmCloudIamDetector",
        "IbmCosHmacDetector",
        "SoftlayerDetector",
        "PrivateKeyDetector",  # its patterns name only the first line; SHAPES takes the block
        "BasicAuthDetector",  # SHAPES' "password in a URL" takes the same
    }
)


@cache
def patterns() -> tuple[tuple[str, re.Pattern[str]], ...]:
    """Every secret shape looked for: ``SHAPES``, then detect-secrets' token plugins
    (when it is installed), as (kind, compiled pattern).

    >>> patterns()[0][0]
    'private key'
    """
    return tuple((kind, pattern) for kind, pattern, _ in _searches())


#: What ``_searches`` gives: (kind, compiled pattern, hints).
Searches = tuple[tuple[str, re.Pattern[str], tuple[str, ...]], ...]

#: ``_searches()`` once made (here, or by the helper ``searches_meanwhile`` started).
_made: list[Searches] = []

#: The helper process making them, while one is (``searches_meanwhile``).
_coming: list[_Pending[Searches]] = []


def _searches() -> Searches:
    """``patterns()`` with the hints each match holds (none: the whole text is searched)."""
    if not _made:
        _made.append(_coming.pop().result() if _coming else _make_searches())
    return _made[0]


def searches_meanwhile() -> None:
    """Start making the secret shapes (``patterns()``, with their hints) in a helper
    process of the lowest priority, where a second core can help: importing
    detect-secrets takes a tenth of a second, which the helper spends while this process
    reads a big file (and a core would wait); the first search takes its result.
    Nothing when they are made or coming.

    >>> searches_meanwhile(); patterns()[0][0]
    'private key'
    """
    from ..engine.parallel import can_fork, in_child

    if not _made and not _coming and can_fork():
        _coming.append(in_child(_make_searches, background=True))


def _make_searches() -> Searches:
    """``_searches()``, made: ``SHAPES``, then detect-secrets' token plugins."""
    found = [(kind, re.compile(pattern), hints) for kind, pattern, hints in SHAPES]
    try:
        from detect_secrets.core.plugins.util import get_mapping_from_secret_type_to_class
    except ImportError:
        return tuple(found)
    plugin: type
    for kind, plugin in sorted(get_mapping_from_secret_type_to_class().items()):
        if plugin.__name__ not in _NOT_PLUGINS:
            found += [(kind, p, _hints(p)) for p in getattr(plugin, "denylist", ())]
    return tuple(found)


def _hints(pattern: re.Pattern[str]) -> tuple[str, ...]:
    """The longest plain text every match of ``pattern`` holds (its longest run of
    literal characters outside any group); none when that is shorter than 3 characters.

    >>> _hints(re.compile(r"xox[ab]-\\d+")), _hints(re.compile(r"\\d{8}:\\w+"))
    (('xox',), ())
    """
    best: list[str] = []
    run: list[str] = []
    for op, value in _parser.parse(pattern.pattern, pattern.flags):
        if op is _parser.LITERAL:
            run.append(chr(value))
            continue
        best, run = (run if len(run) > len(best) else best), []
    text = "".join(run if len(run) > len(best) else best)
    return (text,) if len(text) >= 3 else ()


def secret_spans(text: str) -> list[tuple[int, int, str]]:
    """Where ``text`` holds likely secrets: (start, end, kind), in order, overlaps
    merged (the earlier pattern names a merged span).

    >>> secret_spans("token ghp_" + "a" * 36)
    [(6, 46, 'GitHub token')]
    """
    spans = sorted(
        (m.start(), rank, m.end(), kind)
        for rank, kind, pattern in _may_match(text)
        for m in pattern.finditer(text)
        if m.end() > m.start()
    )
    merged: list[tuple[int, int, str]] = []
    for start, _, end, kind in spans:
        if merged and start < merged[-1][1]:
            last = merged[-1]
            merged[-1] = (last[0], max(last[1], end), last[2])
        else:
            merged.append((start, end, kind))
    return merged


def shows_secrets(piece: str) -> bool:
    """Whether a piece of an HTML page shows likely secrets (``secret_spans`` of its
    text, entities read as the browser reads them), asked until one pattern finds one.

    >>> shows_secrets("<p>ghp_" + "a" * 36 + "</p>"), shows_secrets("<p>&lt;b&gt;</p>")
    (True, False)
    """
    text = html.unescape(piece)
    return any(
        m.end() > m.start() for _, _, pattern in _may_match(text) for m in pattern.finditer(text)
    )


def _may_match(text: str) -> Iterator[tuple[int, str, re.Pattern[str]]]:
    """(rank, kind, pattern) of the patterns that may find something in ``text``: those
    without hints, and those whose hints ``text`` holds (in any case where the pattern
    ignores case somewhere, else as written: a literal matches only itself); a
    pattern with a quick test (``_FIRST``) only when that test finds something."""
    lower = ""  # (made when first needed)
    for rank, (kind, pattern, holds, exact, first) in enumerate(_plans()):
        if holds is not None:
            if not exact and not lower:
                lower = text.lower()
            if not holds(text if exact else lower):
                continue
        if first is not None and first.search(text) is None:
            continue
        yield rank, kind, pattern


#: Patterns (by their text) that start with a class, each with the part of it that
#: starts at its first literal, which every match of theirs holds: a pattern that
#: starts with a literal is searched for quickly, the whole one only where that part is.
_FIRST = {
    r"\d{8,10}:[0-9A-Za-z_-]{35}": r":[0-9A-Za-z_-]{35}",  # detect-secrets' Telegram
    r"[MNO][a-zA-Z\d_-]{23,25}\.[a-zA-Z\d_-]{6}\.[a-zA-Z\d_-]{27}": (  # Discord
        r"\.[a-zA-Z\d_-]{6}\.[a-zA-Z\d_-]{27}"
    ),
}

#: What ``_may_match`` reads of each pattern of ``_searches()``: (kind, pattern, the test
#: of a text for its hints (``_holder``) or None, whether the hints are searched as
#: written, the quick test or None).
_Plan = tuple[
    str, re.Pattern[str], "Callable[[str], object] | None", bool, "re.Pattern[str] | None"
]

#: ``_plans()`` once made, and the ``_searches()`` it was made of.
_planned: list[tuple[Searches, tuple[_Plan, ...]]] = []


def _plans() -> tuple[_Plan, ...]:
    """``_searches()`` with how each is looked for (``_may_match``).

    >>> [(kind, exact) for kind, _, _, exact, _ in _plans()[3:6]]
    [('AWS secret key', False), ('GitHub token', True), ('Bearer credential', False)]
    """
    made = _searches()
    if not _planned or _planned[0][0] is not made:
        plans = []
        for kind, pattern, hints in made:
            exact = not _ignores_case(pattern)
            holds = _holder(hints if exact else tuple(hint.lower() for hint in hints))
            first = _FIRST.get(pattern.pattern)
            quick = None if first is None else re.compile(first, pattern.flags)
            plans.append((kind, pattern, holds, exact, quick))
        _planned[:] = [(made, tuple(plans))]
    return _planned[0][1]


def _holder(hints: tuple[str, ...]) -> Callable[[str], object] | None:
    """A test of whether a text holds any of ``hints`` (None: there are none): one hint
    looked for as it is, several by one regular expression of them (one pass over the
    text, where a search for each would make one each).

    >>> _holder(("ghp_", "gho_"))("a gho_b") is not None, _holder(("sk-",))("x"), _holder(())
    (True, False, None)
    """
    if not hints:
        return None
    if len(hints) == 1:
        (hint,) = hints
        return lambda text: hint in text
    return re.compile("|".join(map(re.escape, hints))).search


def _ignores_case(pattern: re.Pattern[str]) -> bool:
    """Whether ``pattern`` ignores case anywhere (its flags, or ``(?i)`` / ``(?i:...)``
    in its text: read loosely, so that anything like them counts).

    >>> _ignores_case(re.compile("(?i:bearer)x")), _ignores_case(re.compile("AKIA"))
    (True, False)
    """
    return bool(pattern.flags & re.IGNORECASE) or bool(
        re.search(r"\(\?[A-Za-z-]*i", pattern.pattern)
    )


def redact_text(text: str) -> tuple[str, list[str]]:
    """``text`` with each likely secret replaced by ``[redacted: KIND]``, and the kinds.

    >>> redact_text("no secret here")
    ('no secret here', [])
    """
    spans = secret_spans(text)
    if not spans:
        return text, []
    out, at = [], 0
    for start, end, kind in spans:
        out += [text[at:start], f"[redacted: {kind}]"]
        at = end
    out.append(text[at:])
    return "".join(out), [kind for _, _, kind in spans]


def _redact_value(value: object, kinds: list[str]) -> object:
    """A JSON value with every string redacted (keys stay: they are the format's)."""
    if isinstance(value, str):
        text, found = redact_text(value)
        kinds += found
        return text
    if isinstance(value, list):
        return [_redact_value(v, kinds) for v in value]
    if isinstance(value, dict):
        return {k: _redact_value(v, kinds) for k, v in value.items()}
    return value


@dataclass(frozen=True)
class Secret:
    """A line of the file that holds likely secrets: its number, its entry's id (when
    it has a string one) and the kinds found."""

    line: int
    entry_id: str | None
    kinds: tuple[str, ...]


def _secret_lines(data: bytes) -> list[int]:
    """The 0-based numbers of the lines of ``data`` a likely secret starts on. A
    pattern with hints runs only on the lines that hold one, found in the ASCII
    lower-cased bytes (``bytes.find`` is many times faster than a pattern that starts
    with a class or a look-behind).

    >>> _secret_lines(b"a\\nkey SK-x sk-" + b"x" * 24 + b"\\nb")
    [1]
    """
    lines = data.split(b"\n")
    lower = data.lower()
    starts = [0] + [m.end() for m in re.finditer(b"\n", data)]
    found: set[int] = set()
    text = None
    for _, pattern, hints in _searches():
        if hints:
            for line in _lines_holding(lower, hints, starts):
                if pattern.search(lines[line].decode("utf-8", "surrogateescape")):
                    found.add(line)
            continue
        if text is None:
            text = data.decode("utf-8", "surrogateescape")
            text_starts = [0] + [m.end() for m in re.finditer("\n", text)]
        found.update(bisect_right(text_starts, m.start()) - 1 for m in pattern.finditer(text))
    return sorted(found)


def _lines_holding(lower: bytes, hints: tuple[str, ...], starts: list[int]) -> set[int]:
    """The lines of the lower-cased bytes ``lower`` that hold one of ``hints``."""
    lines = set()
    for hint in hints:
        needle = hint.lower().encode()
        at = lower.find(needle)
        while at >= 0:
            line = bisect_right(starts, at) - 1
            lines.add(line)
            at = lower.find(needle, starts[line + 1] if line + 1 < len(starts) else len(lower))
    return lines


def redacted(data: bytes) -> tuple[bytes, list[Secret]]:
    """The file's bytes with every likely secret replaced, and where they were. A line
    that holds one is decoded, its strings redacted and written again as
    ``JSON.stringify`` would; a line that is not JSON is redacted as text; every other
    line keeps its bytes.

    >>> data = b'{"type":"session","id":"s"}\\n{"id":"e1","text":"Bearer abcdefghijklmnop"}\\n'
    >>> out, found = redacted(data)
    >>> out.splitlines()[1]
    b'{"id":"e1","text":"[redacted: Bearer credential]"}'
    >>> found
    [Secret(line=2, entry_id='e1', kinds=('Bearer credential',))]
    """
    lines = data.split(b"\n")
    found = []
    for index in _secret_lines(data):
        raw = lines[index]
        kinds: list[str] = []
        try:
            value = loads(raw)
        except (LineDecodeError, ValueError):
            new_text, kinds = redact_text(raw.decode("utf-8", "surrogateescape"))
            new = new_text.encode("utf-8", "surrogateescape")
            entry_id = None
        else:
            value = _redact_value(value, kinds)
            new = dumps(value).encode("utf-8", "surrogatepass") if kinds else raw
            ident = value.get("id") if isinstance(value, dict) else None
            entry_id = ident if isinstance(ident, str) else None
        if kinds:
            lines[index] = new
            found.append(Secret(index + 1, entry_id, tuple(dict.fromkeys(kinds))))
    return b"\n".join(lines), found


def page_secrets(page: str, read: Callable[[], bytes]) -> list[Secret]:
    """The likely secrets a rendered page shows, and the lines of the file (its bytes,
    from ``read()``, asked only when there are some) they come from: the page is small
    where the file can be big, so this is what ``export`` warns about. A secret cut
    short in the page (an excerpt ending inside it) may go unseen here; ``redacted``
    reads the whole file.

    >>> data = b'{"type":"session"}\\n{"id":"u1","text":"Bearer abcdefghijklmnop"}\\n'
    >>> page_secrets("<p>Bearer abcdefghijklmnop</p>", lambda: data)
    [Secret(line=2, entry_id='u1', kinds=('Bearer credential',))]
    """
    text = html.unescape(page)
    spans = secret_spans(text)
    data = read() if spans else b""
    starts = [0] + [m.end() for m in re.finditer(b"\n", data)] if spans else [0]
    kinds_by_line: dict[int, list[str]] = {}
    for start, end, kind in spans:
        runs = re.findall(r"[A-Za-z0-9]{6,}", text[start:end]) or [text[start:end]]
        needle = max(runs, key=len).encode("utf-8", "surrogatepass")
        at = data.find(needle)
        while at >= 0:
            line = bisect_right(starts, at) - 1  # (the newlines before ``at``)
            kinds_by_line.setdefault(line, []).append(kind)
            at = data.find(needle, data.find(b"\n", at) + 1 or len(data))
    lines = data.split(b"\n")
    found = []
    for line in sorted(kinds_by_line):
        try:
            value = loads(lines[line])
        except ValueError:
            value = None
        ident = value.get("id") if isinstance(value, dict) else None
        kinds = tuple(dict.fromkeys(kinds_by_line[line]))
        found.append(Secret(line + 1, ident if isinstance(ident, str) else None, kinds))
    return found


def warning_text(found: list[Secret], limit: int = 5) -> str:
    """One line naming the entries and lines with likely secrets.

    >>> warning_text([Secret(3, "a1", ("API key",)), Secret(9, None, ("private key",))])
    'likely secrets on 2 lines: line 3 (entry a1: API key), line 9 (private key); \
--redact replaces them in the page'
    """
    shown = []
    for secret in found[:limit]:
        entry = f"entry {secret.entry_id}: " if secret.entry_id else ""
        shown.append(f"line {secret.line} ({entry}{', '.join(secret.kinds)})")
    more = f", and {len(found) - limit:,} more" if len(found) > limit else ""
    return (
        f"likely secrets on {plural(len(found), 'line')}: {', '.join(shown)}{more}; "
        "--redact replaces them in the page"
    )


def scanner(showing: list[str] | None) -> Callable[[str], str]:
    """A function that gives back its piece, appending it to ``showing`` when it shows
    likely secrets (``shows_secrets``; no list: nothing looked at).

    >>> found: list[str] = []
    >>> scan = scanner(found)
    >>> scan("plain text"), found
    ('plain text', [])
    """
    if showing is None:
        return lambda piece: piece
    _plans()  # here: a helper process forked later finds them made

    def scan(piece: str) -> str:
        if shows_secrets(piece):
            showing.append(piece)
        return piece

    return scan
