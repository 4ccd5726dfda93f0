"""Mutants of session files, as an adversary (or a crash, an editor, a careless script)
would make them.

``Mutator(corpus, seed).mutant(n)`` gives mutant number ``n`` of a run: the same seed and
number always give the same bytes (each mutant has its own ``random.Random``), so any
difference can be reproduced from ``(seed, n)`` alone. A mutant applies one to four
operations to a corpus file, chosen from:

- lines: delete, duplicate, swap, move, truncate the file, garbage lines (binary, NUL
  blocks, falsy and primitive JSON values, half objects, ``NaN``), CRLF / CR endings,
  a BOM, no final newline, a second session appended;
- entries: retargeted ``parentId`` (self, a later entry, a missing id, null, ``""``,
  numbers), changed ids (duplicates, numbers, integers beyond 2^53, null, missing),
  retyped fields anywhere in an entry (null, booleans, numbers huge and tiny, 400- and
  5,000-digit integers, strings, arrays, objects), strings with lone surrogates,
  U+2028, NUL, C1 and bidi characters, integer-like keys, content nested 1,000 deep,
  changed types and roles, weird timestamps;
- structure: header version games, v1-like files (ids stripped, ``firstKeptEntryIndex``),
  inserted compactions, context edits, branch summaries, custom messages and bash
  executions with odd fields.
"""

from __future__ import annotations

import json
import math
import random
import re
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

#: Corpus folders (relative to the repository) whose ``*.jsonl`` files get mutated.
CORPUS_DIRS = (
    *sorted(
        str(p.relative_to(REPO)) for p in (REPO / "data" / "conformance").iterdir() if p.is_dir()
    ),
    "data/damaged",
    "pisession/samples",
)
#: Files too large to be worth mutating thousands of times (seconds per read).
MAX_CORPUS_BYTES = 400_000


def load_corpus(dirs=CORPUS_DIRS) -> list[tuple[str, bytes]]:
    """``(relative path, bytes)`` of every corpus file, sorted (deterministic)."""
    out = []
    for folder in dirs:
        for path in sorted((REPO / folder).glob("*.jsonl")):
            data = path.read_bytes()
            if len(data) <= MAX_CORPUS_BYTES:
                out.append((str(path.relative_to(REPO)), data))
    return out


class Raw:
    """A JSON token written as is (numbers JSON allows but Python cannot hold exactly)."""

    def __init__(self, text: str):
        self.text = text

    def __eq__(self, other) -> bool:
        return isinstance(other, Raw) and other.text == self.text

    def __hash__(self) -> int:
        return hash(self.text)

    def __repr__(self) -> str:
        return self.text


def _float_token(text: str):
    value = float(text)
    return value if math.isfinite(value) and (value or not text.strip("-0.eE+")) else Raw(text)


def parse_line(raw: bytes):
    """A line's JSON value with numbers Python cannot hold kept as ``Raw`` tokens
    (``1e400``, 5,000-digit integers), so that writing it back changes nothing."""
    return json.loads(
        raw.decode("utf-8"),
        parse_int=lambda t: int(t) if len(t) < 19 else Raw(t),
        parse_float=_float_token,
    )


_RAW = re.compile(r'"\\u0000RAW(\d+)\\u0000"')
#: An escaped backslash (left alone) or a \uXXXX escape.
_ESCAPE = re.compile(r"\\\\|\\u([0-9a-f]{4})")


def _unescape(match: re.Match) -> str:
    code = match.group(1)
    if code is None:
        return match.group()
    value = int(code, 16)
    return match.group() if value < 0x20 or 0xD800 <= value <= 0xDFFF else chr(value)


def dumps_line(value, rng: random.Random | None = None) -> bytes:
    """One JSON line (``Raw`` tokens spliced in; lone surrogates as ``\\u`` escapes)."""
    raws: list[str] = []

    def prepare(v):
        if isinstance(v, Raw):
            raws.append(v.text)
            return f"\x00RAW{len(raws) - 1}\x00"
        if isinstance(v, dict):
            return {k: prepare(x) for k, x in v.items()}
        if isinstance(v, list):
            return [prepare(x) for x in v]
        return v

    ascii_only = rng is not None and rng.random() < 0.2
    try:
        text = json.dumps(prepare(value), ensure_ascii=True, separators=(",", ":"))
    except RecursionError:
        raise ValueError("nested too deep to rewrite") from None
    text = _RAW.sub(lambda m: raws[int(m.group(1))], text)
    if not ascii_only:  # usually raw UTF-8, as Pi writes; lone surrogates stay escaped
        text = _ESCAPE.sub(_unescape, text)
    return text.encode("utf-8", "surrogatepass")


TWO53 = 2**53

#: Values JavaScript's ToString cannot convert (an own ``toString`` key, also nested in
#: arrays) or converts oddly (an own ``valueOf`` alone, arrays joined): issue 31.
NO_PRIMITIVE = [
    {"toString": 1},
    {"toString": None, "valueOf": 2},
    {"valueOf": 1},
    [1, {"toString": "x"}],
    [[{"toString": {}}]],
    [1, {}],
    [None, [2, [None]]],
    {"length": 1, "toString": 0},
    {"trim": 1},
]

ODD_VALUES: list[Callable[[random.Random], object]] = [
    lambda r: None,
    lambda r: True,
    lambda r: False,
    lambda r: 0,
    lambda r: 1,
    lambda r: -1,
    lambda r: 0.5,
    lambda r: (
        r.choice([TWO53 + 1, TWO53, -(TWO53 + 1), 2**64])
        if r.random() < 0.5
        else Raw(str(TWO53 + r.randrange(1, 5)))
    ),
    lambda r: Raw("1e400"),
    lambda r: Raw("-1e400"),
    lambda r: Raw("1" * r.choice([309, 310, 400, 4301, 5000])),
    lambda r: Raw(r.choice(["1e-400", "-0", "0.1e1", "123456789012345678901234567890", "5e-7"])),
    lambda r: "",
    lambda r: "x",
    lambda r: "0",
    lambda r: r.choice(["false", "null", "undefined", "NaN", "[object Object]"]),
    lambda r: [],
    lambda r: {},
    lambda r: [1, None, "a"],
    lambda r: {"type": "text", "text": "t"},
    lambda r: odd_string(r),
    lambda r: deep(r.choice([50, 1000, 1000, 5000])),
    lambda r: {"1": "one", "b": 2, "0": "zero"},
    lambda r: r.choice(NO_PRIMITIVE),
]

ODD_CHARS = [
    "\ud800",
    "\udfff",
    "\ud83d",
    "\u2028",
    "\u2029",
    "\x00",
    "\x1b[31m",
    "\x9b",
    "\u202e",
    "\ufeff",
    "\r",
    "\n",
    "é",
    "😀",
    "\ufffd",
    "</script>",
    "<b>&amp;",
    "`",
]


def odd_string(r: random.Random) -> str:
    return "".join(
        r.choice(ODD_CHARS) if r.random() < 0.5 else "ab" for _ in range(r.randint(1, 4))
    )


def deep(depth: int) -> Raw:
    """A value nested ``depth`` levels deep, as JSON text (Python's encoder recurses)."""
    opens = "".join("[" if i % 2 else '{"k":' for i in range(depth))
    closes = "".join("]" if i % 2 else "}" for i in reversed(range(depth)))
    return Raw(opens + '"core"' + closes)


ODD_TIMESTAMPS = [
    "2026-02-01T10:00:00Z",
    "2026-02-01T10:00:00.123456Z",
    "2026-02-01",
    "2026-02-01T10:00:00",
    "2026-03-29T02:30:00",
    "2026-10-25T02:30:00.5",
    "2026-03-08 02:30",
    "Nov 1 2026 01:30:00",
    "1800-01-01T00:00:00",
    "+275760-09-12T23:00:00",
    "2026-02-01T10:00:00+05:30",
    "Feb 1 2026 10:00",
    "1 February 2026",
    "2026/02/01 10:00",
    "",
    "not a date",
    "+275760-09-13T00:00:00.000Z",
    "2026-13-01T00:00:00Z",
    "2026-02-30T00:00:00Z",
]

ROLES = [
    "user",
    "assistant",
    "toolResult",
    "system",
    "custom",
    "bashExecution",
    "branchSummary",
    "compactionSummary",
    "hookMessage",
    "weird",
]
TYPES = [
    "message",
    "model_change",
    "thinking_level_change",
    "usage",
    "compaction",
    "context_edit",
    "branch_summary",
    "custom",
    "custom_message",
    "label",
    "session_info",
    "session",
    "unknown_kind",
]

GARBAGE_LINES = [
    b"",
    b"   ",
    b"null",
    b"0",
    b"false",
    b'""',
    b"7",
    b'"text"',
    b"true",
    b"[]",
    b"[1,2]",
    b"{}",
    b'{"type":"message"',
    b'{"type":"message","id":"zz",',
    b"NaN",
    b'{"a":NaN}',
    b'{"a":Infinity}',
    b"\x00" * 64,
    b"\xff\xfe\x00garbage",
    b"\xef\xbb\xbf{}",
    b"{'single':'quotes'}",
    b'{"trailing":1,}',
    b'{"type":"session","version":3,"id":"second","timestamp":"2026-01-01T00:00:00Z"}',
]


class Mutant:
    """One mutant: its bytes and the operations that made it."""

    def __init__(self, number: int, source: str, data: bytes, ops: list[str]):
        self.number = number
        self.source = source
        self.data = data
        self.ops = ops


class _Lines:
    """A file as lines of bytes, with the parsed value of each (or None)."""

    def __init__(self, data: bytes):
        self.lines = data.split(b"\n")
        self.final_newline = data.endswith(b"\n")
        if self.final_newline:
            self.lines.pop()

    def value(self, i: int):
        try:
            return parse_line(self.lines[i])
        except (ValueError, UnicodeDecodeError, RecursionError):
            return None

    def entries(self) -> list[tuple[int, dict]]:
        out = []
        for i in range(len(self.lines)):
            v = self.value(i)
            if isinstance(v, dict):
                out.append((i, v))
        return out

    def ids(self) -> list:
        return [v.get("id") for _, v in self.entries() if v.get("type") != "session"]

    def bytes(self) -> bytes:
        out = b"\n".join(self.lines)
        return out + b"\n" if self.final_newline and self.lines else out


def _pick_path(rng: random.Random, value, max_depth: int = 4) -> list:
    """A random path (keys/indices) to somewhere inside ``value``."""
    path = []
    current = value
    for _ in range(max_depth):
        if isinstance(current, dict) and current:
            key = rng.choice(list(current))
        elif isinstance(current, list) and current:
            key = rng.randrange(len(current))
        else:
            break
        path.append(key)
        current = current[key]
        if rng.random() < 0.35:
            break
    return path


def _set_path(value, path: list, new) -> None:
    for key in path[:-1]:
        value = value[key]
    value[path[-1]] = new


class Mutator:
    """Mutants of a corpus; deterministic for a seed and a mutant number."""

    def __init__(self, corpus: list[tuple[str, bytes]], seed: int):
        self.corpus = corpus
        self.seed = seed
        self.ops: list[tuple[str, Callable, int]] = [
            (name.removeprefix("op_"), getattr(self, name), weight)
            for name, weight in OP_WEIGHTS.items()
        ]

    def mutant(self, number: int) -> Mutant:
        rng = random.Random(f"{self.seed}:{number}")
        source, data = rng.choice(self.corpus)
        lines = _Lines(data)
        done = []
        for _ in range(rng.choice([1, 1, 1, 2, 2, 3, 4])):
            names = [o[0] for o in self.ops]
            weights = [o[2] for o in self.ops]
            name = rng.choices(names, weights)[0]
            fn = dict((o[0], o[1]) for o in self.ops)[name]
            try:
                note = fn(rng, lines)
            except (IndexError, ValueError):
                note = None
            if note is not False:
                done.append(name + (f"({note})" if note else ""))
        return Mutant(number, source, lines.bytes(), done)

    # --- helpers ---------------------------------------------------------------------

    def _entry(self, rng, lines: _Lines, kind: str | None = None):
        entries = [(i, v) for i, v in lines.entries() if v.get("type") != "session"]
        if kind:
            entries = [(i, v) for i, v in entries if v.get("type") == kind] or entries
        if not entries:
            raise IndexError
        return rng.choice(entries)

    def _some_id(self, rng, lines: _Lines):
        ids = [i for i in lines.ids() if i is not None] or ["missing"]
        return rng.choice(ids)

    def _write(self, lines: _Lines, i: int, value, rng) -> None:
        lines.lines[i] = dumps_line(value, rng)

    def _insert(self, rng, lines: _Lines, value) -> None:
        at = rng.randint(1, len(lines.lines)) if lines.lines else 0
        lines.lines.insert(at, dumps_line(value, rng))

    def _new_entry(self, rng, lines: _Lines, kind: str, **fields) -> dict:
        entry = {
            "type": kind,
            "id": f"fz{rng.randrange(16**6):06x}",
            "parentId": self._some_id(rng, lines) if rng.random() < 0.9 else None,
            "timestamp": "2026-03-01T12:00:00.000Z",
        }
        entry.update(fields)
        return entry

    # --- line operations -------------------------------------------------------------

    def op_delete_line(self, rng, lines):
        del lines.lines[rng.randrange(len(lines.lines))]

    def op_duplicate_line(self, rng, lines):
        i = rng.randrange(len(lines.lines))
        lines.lines.insert(rng.randint(0, len(lines.lines)), lines.lines[i])

    def op_swap_lines(self, rng, lines):
        i, j = rng.randrange(len(lines.lines)), rng.randrange(len(lines.lines))
        lines.lines[i], lines.lines[j] = lines.lines[j], lines.lines[i]

    def op_truncate(self, rng, lines):
        data = lines.bytes()
        cut = rng.randrange(len(data)) if data else 0
        fresh = _Lines(data[:cut])
        lines.lines, lines.final_newline = fresh.lines, fresh.final_newline
        return str(cut)

    def op_garbage_line(self, rng, lines):
        lines.lines.insert(rng.randint(0, len(lines.lines)), rng.choice(GARBAGE_LINES))

    def op_line_endings(self, rng, lines):
        how = rng.choice(["crlf", "crlf-some", "cr", "no-final-newline"])
        if how == "crlf":
            lines.lines = [ln + b"\r" for ln in lines.lines]
        elif how == "crlf-some":
            i = rng.randrange(len(lines.lines))
            lines.lines[i] += b"\r"
        elif how == "cr":
            lines.lines = [b"\r".join(lines.lines)]
        else:
            lines.final_newline = False
        return how

    def op_bom(self, rng, lines):
        i = 0 if rng.random() < 0.5 else rng.randrange(len(lines.lines))
        lines.lines[i] = b"\xef\xbb\xbf" + lines.lines[i]
        return str(i)

    def op_append_session(self, rng, lines):
        _, other = rng.choice(self.corpus)
        lines.lines.extend(_Lines(other).lines)

    # --- entry operations ------------------------------------------------------------

    def op_retarget_parent(self, rng, lines):
        i, entry = self._entry(rng, lines)
        choice = rng.choice(["self", "other", "missing-id", "null", "empty", "absent", "number"])
        if choice == "self":
            entry["parentId"] = entry.get("id")
        elif choice == "other":
            entry["parentId"] = self._some_id(rng, lines)
        elif choice == "missing-id":
            entry["parentId"] = "nobody00"
        elif choice == "null":
            entry["parentId"] = None
        elif choice == "empty":
            entry["parentId"] = ""
        elif choice == "absent":
            entry.pop("parentId", None)
        else:
            entry["parentId"] = rng.choice([0, 7, TWO53 + 1, 1.5, True])
        self._write(lines, i, entry, rng)
        return choice

    def op_change_id(self, rng, lines):
        i, entry = self._entry(rng, lines)
        choice = rng.choice(["duplicate", "number", "big", "null", "absent", "bool", "empty"])
        old = entry.get("id")
        if choice == "duplicate":
            entry["id"] = self._some_id(rng, lines)
        elif choice == "number":
            entry["id"] = rng.choice([0, 1, 42, 1.5])
        elif choice == "big":
            entry["id"] = Raw(str(TWO53 + rng.randrange(0, 4)))
        elif choice == "null":
            entry["id"] = None
        elif choice == "absent":
            entry.pop("id", None)
        elif choice == "bool":
            entry["id"] = rng.choice([True, False])
        else:
            entry["id"] = ""
        self._write(lines, i, entry, rng)
        if rng.random() < 0.5 and choice in ("number", "big", "null", "bool", "empty"):
            # keep the children attached: point them at the new id
            for j, child in lines.entries():
                if child.get("parentId") == old and old is not None:
                    child["parentId"] = entry.get("id")
                    self._write(lines, j, child, rng)
        return choice

    def op_retype_field(self, rng, lines):
        i, entry = self._entry(rng, lines)
        path = _pick_path(rng, entry)
        if not path:
            raise IndexError
        value = rng.choice(ODD_VALUES)(rng)
        _set_path(entry, path, value)
        self._write(lines, i, entry, rng)
        return ".".join(map(str, path))

    def op_odd_string(self, rng, lines):
        i, entry = self._entry(rng, lines)
        strings = []

        def walk(v, path):
            if isinstance(v, str):
                strings.append(path)
            elif isinstance(v, dict):
                for k, x in v.items():
                    walk(x, [*path, k])
            elif isinstance(v, list):
                for k, x in enumerate(v):
                    walk(x, [*path, k])

        walk(entry, [])
        if not strings:
            raise IndexError
        path = rng.choice(strings)
        current = entry
        for key in path:
            current = current[key]
        at = rng.randint(0, len(current))
        _set_path(entry, path, current[:at] + rng.choice(ODD_CHARS) + current[at:])
        self._write(lines, i, entry, rng)
        return ".".join(map(str, path))

    def op_integer_keys(self, rng, lines):
        i, entry = self._entry(rng, lines)
        targets = [entry]
        message = entry.get("message")
        if isinstance(message, dict):
            targets.append(message)
            content = message.get("content")
            if isinstance(content, list):
                targets.extend(b for b in content if isinstance(b, dict))
        target = rng.choice(targets)
        for key in rng.sample(["0", "1", "2", "10", "4294967294", "4294967295", "-1", "01"], 2):
            target[key] = rng.choice(["v", 1, None])
        self._write(lines, i, entry, rng)

    def op_deep_content(self, rng, lines):
        i, entry = self._entry(rng, lines, "message")
        message = entry.get("message")
        if not isinstance(message, dict):
            raise IndexError
        depth = rng.choice([500, 1000, 1000, 3000, 5000])
        message["content"] = [{"type": "text", "text": "deep", "nested": deep(depth)}]
        self._write(lines, i, entry, rng)
        return str(depth)

    def op_change_type(self, rng, lines):
        i, entry = self._entry(rng, lines)
        entry["type"] = rng.choice(TYPES)
        self._write(lines, i, entry, rng)
        return entry["type"]

    def op_change_role(self, rng, lines):
        i, entry = self._entry(rng, lines, "message")
        message = entry.get("message")
        if not isinstance(message, dict):
            raise IndexError
        message["role"] = rng.choice(ROLES)
        self._write(lines, i, entry, rng)
        return message["role"]

    def op_timestamp(self, rng, lines):
        i, entry = self._entry(rng, lines)
        entry["timestamp"] = rng.choice([*ODD_TIMESTAMPS, None, 0, 1700000000000.0])
        self._write(lines, i, entry, rng)

    # --- structure -------------------------------------------------------------------

    def op_version(self, rng, lines):
        for i, value in lines.entries():
            if value.get("type") == "session":
                version = rng.choice(
                    [
                        1,
                        2,
                        3,
                        "3",
                        "2",
                        "1",
                        None,
                        "absent",
                        4,
                        2.5,
                        True,
                        [],
                        [2],
                        "abc",
                        -1,
                        "0x2",
                        " 2 ",
                        "",
                        Raw("3e0"),
                        Raw("1e400"),
                    ]
                )
                if version == "absent":
                    value.pop("version", None)
                else:
                    value["version"] = version
                self._write(lines, i, value, rng)
                return repr(version if not isinstance(version, Raw) else version.text)
        raise IndexError

    def op_make_v1(self, rng, lines):
        """Strip ids and parents (a v1-like file), maybe with firstKeptEntryIndex."""
        for i, value in lines.entries():
            if value.get("type") == "session":
                if rng.random() < 0.7:
                    value.pop("version", None)
                else:
                    value["version"] = 1
            else:
                if rng.random() < 0.9:
                    value.pop("id", None)
                    value.pop("parentId", None)
                if value.get("type") == "compaction":
                    # a stale id beside the index (Pi drops it when the index names a later
                    # entry), or a string like the ids pisession makes (issue 31 items 5, 7)
                    stale = rng.choice([None, None, "stale", "m0000002"])
                    value.pop("firstKeptEntryId", None)
                    if stale is not None:
                        value["firstKeptEntryId"] = stale
                    value["firstKeptEntryIndex"] = rng.choice(
                        [0, 1, 2, 3, len(lines.lines), 999, -1, 1.5, "2", None]
                    )
                if value.get("type") == "label" and rng.random() < 0.5:
                    value["targetId"] = rng.choice(["m0000001", "m0000003"])
            self._write(lines, i, value, rng)
        if rng.random() < 0.3:  # an array or primitive line inside a v1 file
            lines.lines.insert(
                rng.randint(1, len(lines.lines)), rng.choice([b"[1,2]", b"[]", b"7"])
            )
        if rng.random() < 0.2:  # a second session line: Pi sets the version on every one
            second = b'{"type":"session","version":2,"id":"s2","timestamp":"t","cwd":"/w"}'
            lines.lines.insert(rng.randint(1, len(lines.lines)), second)

    def op_add_compaction(self, rng, lines):
        first = rng.choice([self._some_id(rng, lines), "nobody00", None, 5, "self", "absent"])
        entry = self._new_entry(
            rng, lines, "compaction", summary=rng.choice(["sum", "", None]), tokensBefore=100
        )
        if first == "self":
            first = entry["id"]
        if first != "absent":
            entry["firstKeptEntryId"] = first
        if rng.random() < 0.3:
            entry["systemMessage"] = rng.choice(
                [
                    {"role": "system", "content": "s"},
                    {"role": "system"},
                    None,
                    "x",
                    {"role": "user"},
                ]
            )
        self._insert(rng, lines, entry)

    def op_add_context_edit(self, rng, lines):
        target = rng.choice([self._some_id(rng, lines)] * 3 + [None, "absent", 7, "nobody00"])
        replacement = rng.choice(
            [
                None,
                {"content": "replaced"},
                {"content": [{"type": "text", "text": "r"}]},
                {},
                "absent",
                "str",
                5,
                {"content": None},
            ]
        )
        entry = self._new_entry(rng, lines, "context_edit")
        if target != "absent":
            entry["targetId"] = target
        if replacement != "absent":
            entry["replacement"] = replacement
        self._insert(rng, lines, entry)
        return f"{target!r}"

    def op_add_message(self, rng, lines):
        role = rng.choice(ROLES)
        message: dict = {"role": role, "timestamp": rng.choice([1, None, "x", 1.7e12])}
        if role == "bashExecution":
            message.update(
                command=rng.choice(["ls", "", None, 5]),
                output=rng.choice(["out", "", None, 0, []]),
                exitCode=rng.choice([0, 1, False, True, None, "0", "", 0.0, -0.0, [], "absent"]),
                cancelled=rng.choice([False, True, 0, 1, None, ""]),
                truncated=rng.choice([False, True, 1]),
                fullOutputPath=rng.choice(["/tmp/o", "", None]),
                excludeFromContext=rng.choice([False, True, 0, 1, None, "", "x"]),
            )
            if message["exitCode"] == "absent":
                del message["exitCode"]
        elif role in ("branchSummary", "compactionSummary"):
            message.update(summary=rng.choice(["s", "", None, 5]), fromId="x", tokensBefore=5)
        else:
            message["content"] = rng.choice(
                ["text", "", None, [], [{"type": "text", "text": "t"}], [{"type": "image"}], 5]
            )
        if role == "system" and rng.random() < 0.6:
            message["sections"] = rng.choice(
                [{"a": "x", "b": None}, {"1": "one", "a": "x", "0": "zero"}, [], None, "s"]
            )
            message["toolsAdded"] = rng.choice(
                [[{"name": "t", "description": "d"}], [{"name": 5}], "x", None, [None]]
            )
            message["toolsRemoved"] = rng.choice([["t"], [], "t", None, [5]])
        self._insert(rng, lines, self._new_entry(rng, lines, "message", message=message))
        return role

    def op_no_primitive(self, rng, lines):
        """A value without a primitive (or an odd one) where Pi turns a value into text:
        a bash message's fields, summaries, system text blocks and sections, a sibling's
        timestamp, a session name."""
        value = rng.choice(NO_PRIMITIVE)
        site = rng.choice(["bash", "summary", "system", "sibling", "name"])
        if site == "bash":
            field = rng.choice(["command", "output", "exitCode", "fullOutputPath"])
            message = {"role": "bashExecution", "command": "ls", "output": "a", "exitCode": 1}
            message.update(truncated=True, fullOutputPath="/tmp/o", timestamp=1)
            message[field] = value
            entry = self._new_entry(rng, lines, "message", message=message)
        elif site == "summary":
            kind = rng.choice(["branch_summary", "compaction"])
            entry = self._new_entry(rng, lines, kind, summary=value, fromId="x", tokensBefore=1)
            entry["firstKeptEntryId"] = self._some_id(rng, lines)
        elif site == "system":
            if rng.random() < 0.5:
                message = {"role": "system", "content": [{"type": "text", "text": value}]}
            else:
                message = {"role": "system", "content": "s", "sections": {"a": "A", "b": value}}
            entry = self._new_entry(rng, lines, "message", message={**message, "timestamp": 1})
        elif site == "sibling":
            i, entry = self._entry(rng, lines)
            twin = dict(entry, id=f"fz{rng.randrange(16**6):06x}", timestamp=value)
            self._insert(rng, lines, twin)
            return f"sibling of line {i}"
        else:
            entry = self._new_entry(rng, lines, "session_info", name=value)
        self._insert(rng, lines, entry)
        return site

    def op_many_siblings(self, rng, lines):
        """64 to 300 children of one entry, timestamps in rising and falling stretches
        with ties and unparsable ones: V8's TimSort with several runs and galloping."""
        parent = self._some_id(rng, lines)
        count = rng.choice([64, 65, 100, 128, 129, 200, 300])
        stretch = rng.choice([8, 20, 40, 70])
        for i in range(count):
            if rng.random() < 0.05:
                stamp = rng.choice(["not a date", "", None])
            else:
                step = i % stretch if (i // stretch) % 2 else stretch - i % stretch
                second = (i // stretch * 7 + step * rng.choice([1, 1, 2])) % 3600
                stamp = f"2026-03-01T10:{second // 60:02d}:{second % 60:02d}Z"
            message = {"role": "user", "content": f"c{i}", "timestamp": 1}
            entry = self._new_entry(rng, lines, "message", message=message)
            entry.update(parentId=parent, timestamp=stamp)
            self._insert(rng, lines, entry)
        return f"{count} under {parent!r}"

    def op_add_other_entry(self, rng, lines):
        kind = rng.choice(
            [
                "branch_summary",
                "custom_message",
                "label",
                "session_info",
                "thinking_level_change",
                "model_change",
            ]
        )
        fields = {
            "branch_summary": lambda: dict(summary=rng.choice(["s", "", None, 0]), fromId="x"),
            "custom_message": lambda: dict(
                customType="c",
                content=rng.choice(["c", None, [], [{"type": "text", "text": "t"}], 5]),
                display=rng.choice([True, False, None]),
                **({"details": rng.choice([{}, None, 1])} if rng.random() < 0.5 else {}),
            ),
            "label": lambda: dict(
                targetId=self._some_id(rng, lines), label=rng.choice(["L", "", None, 5])
            ),
            "session_info": lambda: dict(name=rng.choice(["n", "", None, 5, " padded "])),
            "thinking_level_change": lambda: dict(thinkingLevel=rng.choice(["high", None, 3])),
            "model_change": lambda: dict(provider=rng.choice(["p", None]), modelId="m"),
        }[kind]()
        self._insert(rng, lines, self._new_entry(rng, lines, kind, **fields))
        return kind


#: Operation weights (how often each is picked).
OP_WEIGHTS = {
    "op_delete_line": 6,
    "op_duplicate_line": 5,
    "op_swap_lines": 5,
    "op_truncate": 3,
    "op_garbage_line": 5,
    "op_line_endings": 2,
    "op_bom": 1,
    "op_append_session": 1,
    "op_retarget_parent": 8,
    "op_change_id": 6,
    "op_retype_field": 14,
    "op_odd_string": 4,
    "op_integer_keys": 2,
    "op_deep_content": 1,
    "op_change_type": 4,
    "op_change_role": 4,
    "op_timestamp": 2,
    "op_version": 3,
    "op_make_v1": 3,
    "op_add_compaction": 5,
    "op_add_context_edit": 5,
    "op_add_message": 6,
    "op_add_other_entry": 4,
    "op_no_primitive": 4,
    "op_many_siblings": 2,
}
