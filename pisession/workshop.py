"""Self-checking exercises for the notebooks (the end of 01-06, and the 07 workshop).

Each ``check_...`` function takes a function the reader wrote, runs it on cases, compares
every answer with what pisession gives (pisession matches Pi 0.87.1, and the tests pin it
to Pi's own output), prints a short verdict and returns True when every case matches.

The cases come from two places:

- the bundled samples (several leaves each) and small hand-made files for the corners
  real files show (duplicate ids, a system message after a compaction, a cancelled
  command with an exit code, a working directory with a trailing slash, ...);
- cases **drawn at random for each run** (random trees, paths, commands, folders),
  which the reader never sees before running: an answer that looks the cases up, or
  that was fitted to the examples shown in the notebook, fails them.

When an answer differs, the verdict names the first case that differs, what was expected
and what came back, and a hint. Hints come from *mistake models*: each exercise knows the
common wrong answers (first-wins labels, a fence around a string, the exit code of a
cancelled command, ...), and the hint is the one whose model gives exactly the reader's
answer on that case. An exception gets a hint too (a ``KeyError`` names the missing
field). A function from pisession itself is refused: write the rule yourself.

The reader's function gets deep copies of its inputs, so it may modify them freely.

>>> from pisession.workshop import check_session_file_name
>>> def file_name(timestamp, session_id):
...     return timestamp.replace(":", "-") + "_" + session_id + ".jsonl"
>>> check_session_file_name(file_name, seed=1)  # doctest: +ELLIPSIS
session file name: not yet. ...
First case that differs: ...
...
Hint: the '.' before the milliseconds becomes '-' as well ...
False
"""

from __future__ import annotations

import copy
import json
import os
import random
import re
from collections.abc import Callable
from dataclasses import dataclass, field

from .build import TINY_HEADER, new_entry, new_message, tiny_session
from .errors import PisessionError
from .files import resolve_cwd
from .files import safe_dir_name as _folder_rule
from .files import session_file_name as _file_name_rule
from .llm import to_llm_message
from .migration import migrate_v1_to_v2, migrate_v2_to_v3, sequential_ids
from .samples import sample_path
from .session import load, loads
from .system_prompt import replay_system_prompt

#: The samples the tree and context exercises run on.
SAMPLES = (
    "tour",
    "pi-0.87.1-a-print-multiturn-tools",
    "pi-0.87.1-b-rpc-compaction-manual-threshold-overflow",
)
#: How many cases each check draws at random, fresh for every run.
DRAWN = 12

_MAX_SHOWN = 200


@dataclass
class Case:
    """One input for the reader's function and the answer pisession gives."""

    name: str
    args: tuple
    expected: object
    drawn: bool = False


@dataclass(frozen=True)
class Mistake:
    """A common wrong answer: a function that makes it, and what to tell the reader."""

    model: Callable
    hint: str


@dataclass
class Exercise:
    """One rule to write: its cases, its mistake models and a general hint."""

    title: str
    fixed: Callable[[], list[Case]]
    drawn: Callable[[random.Random], list[Case]]
    mistakes: tuple[Mistake, ...] = ()
    hint: str = ""
    key_hints: dict = field(default_factory=dict)


# --- running and reporting ----------------------------------------------------------------


def _short(value: object) -> str:
    text = repr(value)
    return text if len(text) <= _MAX_SHOWN else text[: _MAX_SHOWN - 3] + "..."


def _difference(expected: object, got: object) -> str:
    if isinstance(expected, list) and isinstance(got, list):
        for i, (e, g) in enumerate(zip(expected, got)):
            if e != g:
                return f"  first difference at index {i}: expected {_short(e)}, got {_short(g)}"
        if len(expected) != len(got):
            longer = "your answer has" if len(got) > len(expected) else "pisession has"
            extra = got[len(expected)] if len(got) > len(expected) else expected[len(got)]
            return (
                f"  same start, but {longer} more items (expected {len(expected)}, "
                f"got {len(got)}); the first extra one is {_short(extra)}"
            )
    return f"  expected: {_short(expected)}\n  got:      {_short(got)}"


class FreshIds:
    """Stands in a case's arguments for a new ``sequential_ids()`` factory: every call of
    the reader's function (and of each mistake model) gets its own, starting at m0000001."""

    def __deepcopy__(self, memo: dict) -> FreshIds:
        return self

    def __repr__(self) -> str:
        return "sequential_ids()"


def _arguments(args: tuple) -> tuple:
    copied = copy.deepcopy(args)
    return tuple(sequential_ids() if isinstance(a, FreshIds) else a for a in copied)


def _canonical(value: object) -> str | None:
    try:
        return json.dumps(value, sort_keys=True, default=repr)
    except (TypeError, ValueError):
        return None


def _same(a: object, b: object) -> bool:
    """Equal, or equal as JSON text (so that NaN matches NaN when choosing a hint)."""
    if a == b:
        return True
    text = _canonical(a)
    return text is not None and text == _canonical(b)


def _model_hint(exercise: Exercise, case: Case, got: object) -> str:
    """The hint of the first mistake model that gives exactly ``got`` on ``case``."""
    for mistake in exercise.mistakes:
        try:
            if _same(mistake.model(*_arguments(case.args)), got):
                return mistake.hint
        except Exception:  # a model that cannot run on this case does not match
            continue
    return exercise.hint


def _exception_hint(exercise: Exercise, exc: Exception) -> str:
    if isinstance(exc, KeyError) and exc.args:
        key = exc.args[0]
        if key in exercise.key_hints:
            return exercise.key_hints[key]
        return (
            f"your function read the field {key!r}, which this case does not have. Real "
            "files leave optional fields out: use .get() and decide what a missing field "
            "means."
        )
    if isinstance(exc, TypeError) and "string indices" in str(exc):
        return "a content field can be a plain string as well as a list of blocks."
    return ""


_PACKAGE = os.path.dirname(os.path.abspath(__file__))


def _from_pisession(function: Callable) -> bool:
    """Is this pisession's own code (a function written in the package's files)?"""
    code = getattr(function, "__code__", None)
    if code is not None:
        where = os.path.dirname(os.path.abspath(code.co_filename))
        return where == _PACKAGE or where.startswith(_PACKAGE + os.sep)
    module = getattr(function, "__module__", None) or ""
    return module == "pisession" or module.startswith("pisession.")


def _run(exercise: Exercise, function: Callable, seed: int | None) -> bool:
    """Call ``function`` on every case, print the verdict, return True when all match."""
    title = exercise.title
    if not callable(function):
        print(f"{title}: not yet. Pass a function (got {_short(function)}).")
        return False
    if _from_pisession(function):
        print(
            f"{title}: not yet. {getattr(function, '__name__', 'that')} is pisession's own "
            "code: the point is to write the rule yourself."
        )
        return False
    rng = random.Random(seed)
    cases = [*exercise.fixed(), *exercise.drawn(rng)]
    right = 0
    first_wrong: tuple[Case, object] | None = None
    for case in cases:
        try:
            got = function(*_arguments(case.args))
        except NotImplementedError:
            print(
                f"{title}: not yet. {getattr(function, '__name__', 'your function')} "
                "raises NotImplementedError: replace the `raise` with your code."
            )
            return False
        except Exception as exc:
            print(f"{title}: not yet. On case '{case.name}' your function raised")
            print(f"  {type(exc).__name__}: {str(exc)[:_MAX_SHOWN]}")
            if case.drawn:
                print(f"  input: {_short(case.args)}")
            advice = _exception_hint(exercise, exc)
            if advice:
                print(f"Hint: {advice}")
            return False
        if got == case.expected:
            right += 1
        elif first_wrong is None:
            first_wrong = (case, got)
    drawn = sum(c.drawn for c in cases)
    if first_wrong is None:
        print(
            f"{title}: correct. All {len(cases)} cases match pisession (Pi 0.87.1), "
            f"{drawn} of them drawn at random for this run."
        )
        return True
    case, got = first_wrong
    print(f"{title}: not yet. {right} of {len(cases)} cases right.")
    print(f"First case that differs: {case.name}")
    if case.drawn:
        print(f"  input: {_short(case.args)}")
    print(_difference(case.expected, got))
    advice = _model_hint(exercise, case, got)
    if advice:
        print(f"Hint: {advice}")
    return False


# --- building blocks: tiny files and random sessions -------------------------------------


def _session(entries: list[dict], name: str):
    return tiny_session(*entries, name=name, header={**TINY_HEADER, "id": "w0"})


def _msg(entry_id: str, parent: str | None, role: str, minute: int, **extra) -> dict:
    entry = new_message(entry_id, parent, role, minute)
    entry["message"].update(extra)
    return entry


def _assistant(entry_id, parent, minute, provider="fake", model="fake-coder", usage=None):
    return _msg(
        entry_id,
        parent,
        "assistant",
        minute,
        provider=provider,
        model=model,
        usage=usage or _usage(100, 20),
    )


def _usage(input_tokens: int, output: int, cache_read: int = 0, cache_write: int = 0) -> dict:
    total = input_tokens + output + cache_read + cache_write
    return {
        "input": input_tokens,
        "output": output,
        "cacheRead": cache_read,
        "cacheWrite": cache_write,
        "totalTokens": total,
        "cost": {"total": round(total * 1e-6, 9)},
    }


def _id(value: object) -> object:
    return value.get("id") if isinstance(value, dict) else None


def _hex(rng: random.Random) -> str:
    return f"{rng.getrandbits(32):08x}"


_WORDS = ("alpha", "build", "cache", "docs", "edge", "fix", "graph", "io", "json", "kit")


def _draw_entries(rng: random.Random, size: int, kinds: tuple[str, ...] | None = None) -> list:
    """A random session's entries (file order): branches, several roots now and then,
    labels, compactions, model and thinking changes, a duplicate id now and then, and
    timestamps that do not always increase."""
    kinds = kinds or (
        "user",
        "user",
        "assistant",
        "assistant",
        "toolResult",
        "system",
        "model_change",
        "thinking_level_change",
        "label",
        "compaction",
        "custom",
        "custom_message",
        "branch_summary",
        "usage",
        "session_info",
    )
    entries: list[dict] = []
    for position in range(size):
        entry_id = _hex(rng)
        if not entries:
            parent = None
        elif rng.random() < 0.7:
            parent = entries[-1]["id"]
        elif rng.random() < 0.9:
            parent = rng.choice(entries)["id"]
        else:
            parent = None
        minute = position + 1 if rng.random() < 0.85 else rng.randint(0, size)
        kind = rng.choice(kinds)
        if kind in ("user", "assistant", "toolResult", "system"):
            if kind == "assistant":
                entry = _assistant(entry_id, parent, minute, model=rng.choice(("m1", "m2", "m3")))
            else:
                entry = _msg(entry_id, parent, kind, minute)
                if kind == "system":
                    entry["message"]["sections"] = {rng.choice(_WORDS): f"rule {position}"}
                if kind == "toolResult" and rng.random() < 0.5:
                    entry["message"]["usage"] = _usage(rng.randint(0, 50), rng.randint(0, 9))
        elif kind == "model_change":
            entry = new_entry(
                kind,
                entry_id,
                parent,
                minute,
                provider="fake",
                modelId=rng.choice(("m1", "m2", "m3")),
            )
        elif kind == "thinking_level_change":
            level = rng.choice(("off", "low", "medium", "high"))
            entry = new_entry(kind, entry_id, parent, minute, thinkingLevel=level)
        elif kind == "label":
            target = rng.choice(entries)["id"] if entries else entry_id
            fields: dict = {"targetId": target}
            choice = rng.random()
            if choice < 0.55:
                fields["label"] = rng.choice(_WORDS)
            elif choice < 0.7:
                fields["label"] = ""
            elif choice < 0.85:
                fields["label"] = None
            entry = new_entry(kind, entry_id, parent, minute, **fields)
        elif kind == "compaction":
            earlier = [e["id"] for e in entries]
            first_kept = rng.choice([*earlier[-6:], entry_id, "gone0000"]) if earlier else entry_id
            fields = {
                "summary": f"summary {position}",
                "firstKeptEntryId": first_kept,
                "tokensBefore": 1000 * position,
            }
            if rng.random() < 0.5:
                fields["systemMessage"] = {
                    "role": "system",
                    "content": "",
                    "sections": {"rules": "r"},
                    "timestamp": 0,
                }
            if rng.random() < 0.4:
                fields["usage"] = _usage(rng.randint(100, 900), rng.randint(10, 90))
            entry = new_entry(kind, entry_id, parent, minute, **fields)
        elif kind == "custom":
            entry = new_entry(kind, entry_id, parent, minute, customType="state", data={"n": 1})
        elif kind == "custom_message":
            entry = new_entry(
                kind, entry_id, parent, minute, customType="note", content="a note", display=True
            )
        elif kind == "branch_summary":
            summary = rng.choice(("", "what the other branch did"))
            fields = {"fromId": "root", "summary": summary}
            if rng.random() < 0.4:
                fields["usage"] = _usage(rng.randint(100, 900), rng.randint(10, 90))
            entry = new_entry(kind, entry_id, parent, minute, **fields)
        elif kind == "usage":
            fields = {
                "kind": rng.choice(("cache_warm", "title", "my-extension")),
                "provider": "fake",
                "model": "m1",
                "usage": _usage(rng.randint(0, 500), rng.randint(0, 50), rng.randint(0, 5000)),
            }
            entry = new_entry(kind, entry_id, parent, minute, **fields)
        else:
            entry = new_entry(kind, entry_id, parent, minute, name=rng.choice(_WORDS))
        entries.append(entry)
    if len(entries) > 4 and rng.random() < 0.35:
        # a duplicate id: a later entry reuses an earlier id (and its parent), later wins
        original = rng.choice(entries[1:-1])
        duplicate = copy.deepcopy(rng.choice(entries[1:]))
        duplicate["id"], duplicate["parentId"] = original["id"], original["parentId"]
        entries.append(duplicate)
    return entries


def _drawn_sessions(rng: random.Random, count: int, kinds=None, size=(6, 18)):
    out = []
    while len(out) < count:
        entries = _draw_entries(rng, rng.randint(*size), kinds)
        try:
            session = _session(entries, "drawn")
            session.context()  # damage pisession (like Pi) cannot read is redrawn
        except PisessionError:
            continue
        out.append((entries, session))
    return out


def _sample_sessions() -> dict:
    return {name: load(sample_path(name)) for name in SAMPLES}


def _leaf_choices(session) -> list[int]:
    """Every branch end, plus a couple of entries in the middle of the file."""
    chosen = list(session.leaves())
    for position in (len(session) // 3, (2 * len(session)) // 3):
        if 0 <= position < len(session) and position not in chosen:
            chosen.append(position)
    return chosen


# --- 01: the file name, the folder name, the lines Pi keeps -------------------------------


def _file_name_fixed() -> list[Case]:
    inputs = (
        ("2026-11-30T02:48:34.392Z", "019dd4a1-6b2c-7c3e-9f10-2a3b4c5d6e7f"),
        ("2026-01-05T12:00:00.000Z", "audit"),
    )
    return [Case(f"{t} and {i}", (t, i), _file_name_rule(t, i)) for t, i in inputs]


def _file_name_drawn(rng: random.Random) -> list[Case]:
    cases = []
    for _ in range(DRAWN):
        stamp = (
            f"{rng.randint(2024, 2030)}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}T"
            f"{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}:{rng.randint(0, 59):02d}."
            f"{rng.randint(0, 999):03d}Z"
        )
        session_id = (
            f"{_hex(rng)}-{_hex(rng)[:4]}-7{_hex(rng)[:3]}-a{_hex(rng)[:3]}-{_hex(rng)}abcd"
        )
        cases.append(
            Case("drawn at random", (stamp, session_id), _file_name_rule(stamp, session_id), True)
        )
    return cases


SESSION_FILE_NAME = Exercise(
    "session file name",
    _file_name_fixed,
    _file_name_drawn,
    (
        Mistake(
            lambda t, i: t.replace(":", "-") + f"_{i}.jsonl",
            "the '.' before the milliseconds becomes '-' as well (every ':' and '.').",
        ),
        Mistake(
            lambda t, i: re.sub(r"[:.]", "-", t) + f"_{i}",
            "the file name ends in '.jsonl'.",
        ),
    ),
    "the timestamp with every ':' and '.' replaced by '-', then '_', the session id, '.jsonl'.",
)


def check_session_file_name(name: Callable, seed: int | None = None) -> bool:
    """Check ``name(timestamp, session_id) -> str``: the file name of a new session.

    >>> import re
    >>> def file_name(timestamp, session_id):
    ...     return re.sub(r"[:.]", "-", timestamp) + f"_{session_id}.jsonl"
    >>> check_session_file_name(file_name)  # doctest: +ELLIPSIS
    session file name: correct. All 14 cases match pisession (Pi 0.87.1), 12 of them ...
    True
    """
    return _run(SESSION_FILE_NAME, name, seed)


def pi_resolved(cwd: str) -> str:
    """A working directory as Pi resolves it (``pisession.files.resolve_cwd``): Windows
    forms (a drive or ``\\\\server``) with Windows' rules, the rest with POSIX ones.

    >>> pi_resolved("/home/reader/app/"), pi_resolved("C:/Users/ana/code")
    ('/home/reader/app', 'C:\\\\Users\\\\ana\\\\code')
    """
    windows = re.match(r"^[A-Za-z]:", cwd) or cwd.startswith("\\\\")
    if windows:
        return resolve_cwd(cwd, "win32", base="C:\\", home="C:\\Users\\reader")
    return resolve_cwd(cwd, "posix", base="/", home="/home/reader")


def pi_folder_name(cwd: str) -> str:
    """The folder Pi 0.87.1 keeps sessions of ``cwd`` in (checked against Pi for the
    audit's folders, POSIX and Windows).

    >>> pi_folder_name("C:\\\\work\\\\api\\\\"), pi_folder_name("/")
    ('--C--work-api--', '----')
    """
    return _folder_rule(pi_resolved(cwd))


DIR_NAME_INPUTS = (
    "/home/reader/projects/demo-app",
    "/home/reader/projects/demo-app/",
    "/",
    "/srv/data:2026/app",
    "C:\\work\\api",
    "C:\\work\\api\\",
    "C:/Users/ana/code",
    "\\\\server\\share\\repo",
)


def _dir_fixed() -> list[Case]:
    return [Case(repr(cwd), (cwd,), pi_folder_name(cwd)) for cwd in DIR_NAME_INPUTS]


def _dir_drawn(rng: random.Random) -> list[Case]:
    cases = []
    for _ in range(DRAWN):
        parts = [
            rng.choice(_WORDS) + rng.choice(("", "-2", ":x", ".d"))
            for _ in range(rng.randint(1, 4))
        ]
        style = rng.random()
        if style < 0.45:
            cwd = "/" + "/".join(parts)
            trailing = "/"
        elif style < 0.85:
            cwd = rng.choice("CDE") + ":\\" + "\\".join(p.replace(":", "") for p in parts)
            trailing = "\\"
        else:
            cwd = "\\\\" + "\\".join(p.replace(":", "") for p in ["server", "share", *parts])
            trailing = "\\"
        if rng.random() < 0.3:
            cwd += trailing
        cases.append(Case(repr(cwd), (cwd,), pi_folder_name(cwd), True))
    return cases


def _strip_all(cwd: str) -> str:
    return "--" + re.sub(r"[/\\:]", "-", cwd.lstrip("/\\")) + "--"


SESSION_DIR_NAME = Exercise(
    "session dir name",
    _dir_fixed,
    _dir_drawn,
    (
        Mistake(
            lambda cwd: pi_folder_name(cwd.replace(":", "")),
            "a ':' becomes '-' like a slash (the chapter's '--C-work-api--' drops it; "
            "Pi writes '--C--work-api--').",
        ),
        Mistake(
            _folder_rule,
            "Pi resolves the directory first: a trailing '/' or '\\' is dropped "
            "('/home/reader/app/' is '/home/reader/app').",
        ),
        Mistake(
            lambda cwd: _strip_all(pi_resolved(cwd)),
            "only ONE leading '/' or '\\' is removed; the next one becomes '-'.",
        ),
        Mistake(
            lambda cwd: "--" + re.sub(r"[/:]", "-", re.sub(r"^[/\\]", "", pi_resolved(cwd))) + "--",
            "'\\' is replaced by '-' too (Windows paths).",
        ),
        Mistake(
            lambda cwd: "--" + re.sub(r"[/\\:]", "-", pi_resolved(cwd)) + "--",
            "remove one leading '/' or '\\' before replacing the separators.",
        ),
    ),
    "drop a trailing separator, remove ONE leading '/' or '\\', turn every '/', '\\' and ':' "
    "into '-', and put '--' before and after.",
)


def check_session_dir_name(name: Callable, seed: int | None = None) -> bool:
    """Check ``name(cwd) -> str``: the per-folder directory Pi keeps sessions in.

    >>> check_session_dir_name(pi_folder_name)  # doctest: +ELLIPSIS
    session dir name: not yet. pi_folder_name is pisession's own code: the point is ...
    False
    """
    return _run(SESSION_DIR_NAME, name, seed)


_GOOD_HEADER = (
    b'{"type":"session","version":3,"id":"w0","timestamp":"2026-01-01T00:00:00Z","cwd":"/w"}'
)
_LINES = {
    "an entry": b'{"type":"label","id":"l1","parentId":null,'
    b'"timestamp":"2026-01-01T00:01:00Z","targetId":"x","label":"a"}',
    "a blank line": b"",
    "spaces": b"   ",
    "null": b"null",
    "0": b"0",
    "false": b"false",
    'an empty string ""': b'""',
    "NaN": b'{"type":"usage","id":"u1","cost":NaN}',
    "Infinity": b'{"type":"usage","id":"u2","cost":-Infinity}',
    "a torn line": b'{"type":"message","id":"t0rn","mess',
    "a list": b"[1, 2]",
    "a string": b'"just text"',
    "a number": b"42",
    "U+2028 inside a string": '{"type":"custom","id":"c1","data":"a\u2028b"}'.encode(),
    "a CRLF ending": b'{"type":"session_info","id":"n1","parentId":null,"name":"crlf"}\r',
}


def _values_expected(raw: bytes) -> list:
    try:
        session = loads(raw, "drawn.jsonl")
    except PisessionError:
        return []
    return [session.header, *session.entries]


def _values_case(name: str, lines: list[bytes], drawn: bool = False) -> Case:
    raw = b"\n".join(lines) + b"\n"
    return Case(name, (raw,), _values_expected(raw), drawn)


def _values_fixed() -> list[Case]:
    everything = [_GOOD_HEADER, *_LINES.values()]
    return [
        _values_case("a header and one line of each kind", everything),
        _values_case("the first line is not a header", [_LINES["an entry"], _GOOD_HEADER]),
        _values_case("a blank line before the header", [b"", _GOOD_HEADER, _LINES["a number"]]),
    ]


def _values_drawn(rng: random.Random) -> list[Case]:
    names = list(_LINES)
    cases = []
    for _ in range(DRAWN):
        chosen = [rng.choice(names) for _ in range(rng.randint(2, 8))]
        lines = [_LINES[n] for n in chosen]
        position = 0 if rng.random() < 0.85 else rng.randint(0, len(lines))
        lines.insert(position, _GOOD_HEADER)
        cases.append(_values_case("drawn: " + ", ".join(chosen), lines, True))
    return cases


def _js_falsy(value: object) -> bool:
    if value is None or value is False or value == "":
        return True
    return isinstance(value, (int, float)) and not isinstance(value, bool) and value == 0


def _reject(constant: str):
    raise ValueError(constant)


def _values_model(
    raw: bytes, *, split=None, parse=None, keep_falsy=False, header=True, objects_only=False
):
    text = raw.decode("utf-8", "replace")
    lines = split(text) if split else text.split("\n")
    values = []
    for line in lines:
        if not line.strip():
            continue
        try:
            value = (parse or (lambda s: json.loads(s, parse_constant=_reject)))(line)
        except ValueError:
            continue
        if not keep_falsy and _js_falsy(value):
            continue
        if objects_only and not isinstance(value, dict):
            continue
        values.append(value)
    if header and values:
        first = values[0]
        if not (
            isinstance(first, dict)
            and first.get("type") == "session"
            and isinstance(first.get("id"), str)
        ):
            return []
    return values


READ_VALUES = Exercise(
    "lines Pi keeps",
    _values_fixed,
    _values_drawn,
    (
        Mistake(
            lambda raw: _values_model(raw, parse=json.loads),
            "Python's json accepts NaN and Infinity, JavaScript's JSON.parse does not: Pi "
            "skips such a line. json.loads(line, parse_constant=...) with a function that "
            "raises does the same.",
        ),
        Mistake(
            lambda raw: _values_model(raw, split=str.splitlines),
            "split on '\\n' only: str.splitlines() also splits on U+2028 and other "
            "characters that may sit inside a JSON string.",
        ),
        Mistake(
            lambda raw: _values_model(raw, keep_falsy=True),
            'a line whose value is falsy in JavaScript (null, false, 0, "") is skipped.',
        ),
        Mistake(
            lambda raw: _values_model(raw, header=False),
            "if the first value kept is not a session header (type 'session' and a string "
            "id), Pi reads no entries at all: return [].",
        ),
        Mistake(
            lambda raw: _values_model(raw, objects_only=True),
            "other truthy values (a list, a string, a number) are kept as they are.",
        ),
    ),
    "decode as UTF-8, split on '\\n', skip blank lines, lines JSON.parse rejects and falsy "
    "values; the first value kept must be the header.",
)


def check_read_values(read: Callable, seed: int | None = None) -> bool:
    """Check ``read(raw_bytes) -> list``: the values Pi keeps from a file, header first."""
    return _run(READ_VALUES, read, seed)


# --- 02: the walk, the default leaf, labels ---------------------------------------------


def _tiny_tree_sessions() -> dict:
    """Small files for the corners the samples do not show."""
    return {
        "tiny file, a parent id that names no entry (the walk stops there)": _session(
            [
                _msg("u1", None, "user", 1),
                _msg("a1", "u1", "assistant", 2),
                _msg("u2", "gone0000", "user", 3),
                _msg("a2", "u2", "assistant", 4),
            ],
            "dangling-parent",
        ),
        "tiny file, the last line has an older timestamp than the one before": _session(
            [
                _msg("u1", None, "user", 1),
                _msg("a1", "u1", "assistant", 9),
                _msg("u2", "u1", "user", 5),
            ],
            "clock-skew",
        ),
        "tiny file, the last entry is a label on the first branch": _session(
            [
                _msg("u1", None, "user", 1),
                _msg("a1", "u1", "assistant", 2),
                _msg("u2", "u1", "user", 3),
                new_entry("label", "l1", "a1", 4, targetId="a1", label="keep"),
            ],
            "label-last",
        ),
        "tiny file, two entries share the id 'a1' (the later one wins)": _session(
            [
                _msg("u1", None, "user", 1),
                _msg("a1", "u1", "assistant", 2),
                _msg("u2", None, "user", 3),
                _msg("a1", "u2", "assistant", 4),
                _msg("u3", "a1", "user", 5),
            ],
            "duplicate-ids",
        ),
        "tiny file, a parentId of '' (no parent)": _session(
            [
                _msg("u1", None, "user", 1),
                _msg("u2", "", "user", 2),
                _msg("a2", "u2", "assistant", 3),
            ],
            "empty-parent",
        ),
    }


def _walk_case(name: str, session, leaf: int, drawn: bool = False) -> Case:
    leaf_id = _id(session.entry(leaf))
    return Case(
        f"{name}, leaf {leaf_id!r}",
        (session.entries, leaf_id),
        [_id(e) for e in session.path(leaf_id)],
        drawn,
    )


def _walk_fixed() -> list[Case]:
    cases = []
    for name, session in {**_sample_sessions(), **_tiny_tree_sessions()}.items():
        cases += [_walk_case(name, session, leaf) for leaf in _leaf_choices(session)]
    return cases


def _walk_drawn(rng: random.Random) -> list[Case]:
    cases = []
    for _entries, session in _drawn_sessions(rng, DRAWN):
        cases.append(_walk_case("drawn at random", session, rng.randrange(len(session)), True))
    return cases


def _walk_model(entries, leaf_id, *, first_wins=False):
    by_id: dict = {}
    for entry in entries:
        if not first_wins or entry["id"] not in by_id:
            by_id[entry["id"]] = entry
    path, entry = [], by_id[leaf_id]
    while entry is not None:
        path.append(entry["id"])
        parent = entry.get("parentId")
        entry = by_id.get(parent) if parent else None
    return path[::-1]


def _walk_by_time(entries, leaf_id):
    leaf = next(e for e in reversed(entries) if e["id"] == leaf_id)
    older = [e for e in entries if e["timestamp"] <= leaf["timestamp"]]
    return [e["id"] for e in sorted(older, key=lambda e: e["timestamp"])]


def _walk_file_order(entries, leaf_id):
    out = []
    for entry in entries:
        out.append(entry["id"])
        if entry["id"] == leaf_id:
            break
    return out


WALK = Exercise(
    "walk from leaf to root",
    _walk_fixed,
    _walk_drawn,
    (
        Mistake(
            lambda entries, leaf_id: _walk_model(entries, leaf_id)[::-1],
            "you walked from the leaf up: reverse the list so the root comes first.",
        ),
        Mistake(
            lambda entries, leaf_id: _walk_model(entries, leaf_id, first_wins=True),
            "two entries share an id here: the LATER one in the file wins (Pi's index is "
            "filled in file order, so a later entry replaces an earlier one).",
        ),
        Mistake(
            _walk_by_time,
            "follow parentId from the leaf: timestamps do not say which entries are "
            "ancestors (branches interleave, clocks skew).",
        ),
        Mistake(
            _walk_file_order,
            "follow parentId from the leaf: file order mixes the lines of several branches.",
        ),
    ),
    "start at the leaf, repeat parent = the entry whose id is parentId, stop when parentId "
    "is null, empty or names no entry; then reverse.",
)


def check_walk(walk: Callable, seed: int | None = None) -> bool:
    """Check ``walk(entries, leaf_id) -> [ids, root first]`` (the chapter's path).

    ``entries`` are the file's entries (header excluded, file order); the path follows
    ``parentId`` from the leaf until the parent is null, empty or not in the file.

    >>> def walk(entries, leaf_id):
    ...     by_id = {e["id"]: e for e in entries}
    ...     path, entry = [], by_id[leaf_id]
    ...     while entry is not None:
    ...         path.append(entry["id"])
    ...         entry = by_id.get(entry.get("parentId"))
    ...     return path[::-1]
    >>> check_walk(walk)  # doctest: +ELLIPSIS
    walk from leaf to root: correct. All ... cases match pisession (Pi 0.87.1), 12 of them ...
    True
    """
    return _run(WALK, walk, seed)


def _leaf_fixed() -> list[Case]:
    cases = []
    for name, session in {**_sample_sessions(), **_tiny_tree_sessions()}.items():
        cases.append(Case(name, (session.entries,), _id(session.entry(session.default_leaf))))
    return cases


def _leaf_drawn(rng: random.Random) -> list[Case]:
    return [
        Case("drawn at random", (s.entries,), _id(s.entry(s.default_leaf)), True)
        for _, s in _drawn_sessions(rng, DRAWN)
    ]


DEFAULT_LEAF = Exercise(
    "default leaf",
    _leaf_fixed,
    _leaf_drawn,
    (
        Mistake(
            lambda entries: max(entries, key=lambda e: e["timestamp"])["id"],
            "Pi does not look at timestamps: the leaf is the last entry in the file.",
        ),
        Mistake(
            lambda entries: [e for e in entries if e["type"] == "message"][-1]["id"],
            "not the last message: the last entry, whatever its type (a label, a usage "
            "entry, ...).",
        ),
    ),
    "the leaf after loading is simply the last entry in file order.",
)


def check_default_leaf(pick: Callable, seed: int | None = None) -> bool:
    """Check ``pick(entries) -> id`` of the leaf Pi uses after loading a file.

    >>> check_default_leaf(lambda entries: entries[-1]["id"])  # doctest: +ELLIPSIS
    default leaf: correct. All ... cases match pisession (Pi 0.87.1), 12 of them drawn ...
    True
    """
    return _run(DEFAULT_LEAF, pick, seed)


def _tiny_label_sessions() -> dict:
    return {
        "tiny file, labels set, replaced and cleared (null, '' and missing)": _session(
            [
                _msg("u1", None, "user", 1),
                _msg("a1", "u1", "assistant", 2),
                _msg("u2", "a1", "user", 3),
                new_entry("label", "l1", "u2", 4, targetId="u1", label="start"),
                new_entry("label", "l2", "l1", 5, targetId="a1", label="draft"),
                new_entry("label", "l3", "l2", 6, targetId="a1", label="final"),
                new_entry("label", "l4", "l3", 7, targetId="u1", label=None),
                new_entry("label", "l5", "l4", 8, targetId="u2", label="later"),
                new_entry("label", "l6", "l5", 9, targetId="u2", label=""),
                new_entry("label", "l7", "l6", 10, targetId="a1"),
                new_entry("label", "l8", "l7", 11, targetId="a1", label="kept"),
            ],
            "labels",
        ),
        "tiny file, a label set twice (the later one counts)": _session(
            [
                _msg("u1", None, "user", 1),
                new_entry("label", "l1", "u1", 2, targetId="u1", label="first"),
                new_entry("label", "l2", "l1", 3, targetId="u1", label="second"),
            ],
            "relabelled",
        ),
    }


def _labels_fixed() -> list[Case]:
    sessions = {**_sample_sessions(), **_tiny_tree_sessions(), **_tiny_label_sessions()}
    return [Case(name, (s.entries,), dict(s.labels)) for name, s in sessions.items()]


def _labels_drawn(rng: random.Random) -> list[Case]:
    kinds = ("user", "assistant", "label", "label", "label", "label", "custom")
    return [
        Case("drawn at random", (s.entries,), dict(s.labels), True)
        for _, s in _drawn_sessions(rng, DRAWN, kinds, (8, 20))
    ]


def _labels_model(entries, *, clear=True, first_wins=False, store_empty=False, only_empty=False):
    labels: dict = {}
    for entry in entries:
        if entry["type"] != "label":
            continue
        label, target = entry.get("label"), entry["targetId"]
        if first_wins and target in labels:
            continue
        if label or store_empty:
            labels[target] = label
        elif clear and (not only_empty or label == ""):
            labels.pop(target, None)
    return labels


LABELS = Exercise(
    "label resolution",
    _labels_fixed,
    _labels_drawn,
    (
        Mistake(
            lambda e: _labels_model(e, first_wins=True),
            "a later label for the same target replaces the earlier one (file order, last wins).",
        ),
        Mistake(
            lambda e: _labels_model(e, clear=False),
            "an empty, null or missing label clears the target's label.",
        ),
        Mistake(
            lambda e: _labels_model(e, store_empty=True),
            "clearing removes the target from the result: do not store None or ''.",
        ),
        Mistake(
            lambda e: _labels_model(e, only_empty=True),
            "null and a missing label clear too, not only '' (any falsy label clears).",
        ),
    ),
    "go through label entries in file order; a non-empty label sets it, anything else clears it.",
    {"label": "a label entry may have no 'label' field at all (that clears): use .get('label')."},
)


def check_labels(resolve: Callable, seed: int | None = None) -> bool:
    """Check ``resolve(entries) -> {target_id: label}`` (Pi's ``getLabel`` for every id)."""
    return _run(LABELS, resolve, seed)


# --- 03: settings, a bash execution for the model ---------------------------------------


def _settings_of(session, leaf_id=None) -> dict:
    context = session.context(leaf_id)
    return {"thinkingLevel": context.thinking_level, "model": context.model}


def _settings_fixed() -> list[Case]:
    tiny = {
        "tiny file, a model_change then an assistant message of another model": _session(
            [
                new_entry("model_change", "m1", None, 1, provider="fake", modelId="chosen"),
                _msg("u1", "m1", "user", 2),
                _assistant("a1", "u1", 3, provider="other", model="answering"),
            ],
            "model-then-assistant",
        ),
        "tiny file, an assistant message then a model_change": _session(
            [
                _msg("u1", None, "user", 1),
                _assistant("a1", "u1", 2, provider="other", model="answering"),
                new_entry("model_change", "m1", "a1", 3, provider="fake", modelId="chosen"),
                new_entry("thinking_level_change", "t1", "m1", 4, thinkingLevel="low"),
            ],
            "assistant-then-model",
        ),
        "tiny file, nothing that sets either": _session([_msg("u1", None, "user", 1)], "none"),
    }
    cases = []
    for name, session in {**_sample_sessions(), **tiny}.items():
        for leaf in _leaf_choices(session):
            leaf_id = _id(session.entry(leaf))
            cases.append(
                Case(
                    f"{name}, path to {leaf_id!r}",
                    (session.path(leaf_id),),
                    _settings_of(session, leaf_id),
                )
            )
    return cases


def _settings_drawn(rng: random.Random) -> list[Case]:
    kinds = ("user", "assistant", "model_change", "thinking_level_change", "compaction", "label")
    cases = []
    for _, session in _drawn_sessions(rng, DRAWN, kinds):
        leaf_id = _id(session.entry(rng.randrange(len(session))))
        cases.append(
            Case("drawn at random", (session.path(leaf_id),), _settings_of(session, leaf_id), True)
        )
    return cases


def _settings_model(path, *, assistants=True, model_changes=True, first_wins=False, default=None):
    level, model = "off", default
    seen_level = seen_model = False
    for entry in path:
        if entry["type"] == "thinking_level_change" and not (first_wins and seen_level):
            level, seen_level = entry["thinkingLevel"], True
        elif entry["type"] == "model_change" and model_changes and not (first_wins and seen_model):
            model, seen_model = {"provider": entry["provider"], "modelId": entry["modelId"]}, True
        elif (
            entry["type"] == "message"
            and entry["message"]["role"] == "assistant"
            and assistants
            and not (first_wins and seen_model)
        ):
            message = entry["message"]
            model, seen_model = {"provider": message["provider"], "modelId": message["model"]}, True
    return {"thinkingLevel": level, "model": model}


SETTINGS = Exercise(
    "settings",
    _settings_fixed,
    _settings_drawn,
    (
        Mistake(
            lambda p: _settings_model(p, assistants=False),
            "assistant messages set the model too: {'provider': message['provider'], "
            "'modelId': message['model']}, in path order with the model_change entries.",
        ),
        Mistake(
            lambda p: _settings_model(p, model_changes=False),
            "model_change entries set the model too ({'provider', 'modelId'}).",
        ),
        Mistake(
            lambda p: _settings_model(p, first_wins=True),
            "later entries on the path win: keep updating as you go.",
        ),
        Mistake(
            lambda p: _settings_model(p, default={}),
            "before anything sets it the model is None (not {}).",
        ),
    ),
    "start from thinkingLevel 'off' and model None; go along the path: a "
    "thinking_level_change sets the level, a model_change or an assistant message sets the "
    "model.",
)


def check_settings(settings: Callable, seed: int | None = None) -> bool:
    """Check ``settings(path) -> {"thinkingLevel": ..., "model": ...}`` for a path."""
    return _run(SETTINGS, settings, seed)


BASH_MESSAGES = (
    ("exit code 0", {"command": "ls", "output": "a.py\nb.py", "exitCode": 0}),
    ("exit code 2", {"command": "make test", "output": "1 failed", "exitCode": 2}),
    ("no output", {"command": "true", "output": "", "exitCode": 0}),
    ("cancelled", {"command": "sleep 60", "output": "", "exitCode": None, "cancelled": True}),
    (
        "cancelled, with an exit code",
        {"command": "npm test", "output": "running", "exitCode": 130, "cancelled": True},
    ),
    ("exit code null", {"command": "kill -9 $$", "output": "x", "exitCode": None}),
    (
        "truncated, with the full output's path",
        {
            "command": "cat big.log",
            "output": "line 1",
            "exitCode": 0,
            "truncated": True,
            "fullOutputPath": "/tmp/pi-bash-1.log",
        },
    ),
    ("truncated, no path", {"command": "yes", "output": "y", "exitCode": 0, "truncated": True}),
    (
        "excluded from the context (a !! command)",
        {"command": "git status", "output": "clean", "exitCode": 0, "excludeFromContext": True},
    ),
)


def _bash_case(name: str, fields: dict, timestamp: int = 1767225600000, drawn=False) -> Case:
    message = {"role": "bashExecution", **fields, "timestamp": timestamp}
    return Case(name, (message,), to_llm_message(message), drawn)


def bash_cases() -> list[Case]:
    """The named ``bashExecution`` cases (inputs and Pi's provider messages), as examples."""
    return [_bash_case(name, fields) for name, fields in BASH_MESSAGES]


def _bash_drawn(rng: random.Random) -> list[Case]:
    cases = []
    for _ in range(DRAWN):
        fields: dict = {
            "command": f"{rng.choice(_WORDS)} --{rng.choice(_WORDS)}",
            "output": rng.choice(("", "ok", f"{rng.randint(1, 9)} failed\nsee log")),
            "exitCode": rng.choice((0, 0, 1, 2, 127, None)),
        }
        for flag in ("cancelled", "truncated", "excludeFromContext"):
            if rng.random() < 0.25:
                fields[flag] = rng.random() < 0.8
        if rng.random() < 0.4:
            fields["fullOutputPath"] = f"/tmp/pi-bash-{rng.randint(1, 99)}.log"
        cases.append(_bash_case("drawn at random", fields, rng.randint(1, 2**41), True))
    return cases


def _bash_model(
    message,
    *,
    code_when_cancelled=False,
    always_code=False,
    keep_excluded=False,
    string_content=False,
    fence_empty=False,
    note_without_path=False,
    no_timestamp=False,
):
    if message.get("excludeFromContext") and not keep_excluded:
        return None
    text = f"Ran `{message['command']}`\n"
    output = message.get("output")
    text += f"```\n{output}\n```" if output or fence_empty else "(no output)"
    code = message.get("exitCode")
    if message.get("cancelled"):
        text += "\n\n(command cancelled)"
    if (not message.get("cancelled") or code_when_cancelled) and (
        always_code or (code is not None and code != 0)
    ):
        text += f"\n\nCommand exited with code {code}"
    if message.get("truncated") and (message.get("fullOutputPath") or note_without_path):
        text += f"\n\n[Output truncated. Full output: {message.get('fullOutputPath')}]"
    out: dict = {
        "role": "user",
        "content": text if string_content else [{"type": "text", "text": text}],
    }
    if not no_timestamp:
        out["timestamp"] = message["timestamp"]
    return out


BASH = Exercise(
    "bash execution to LLM",
    lambda: bash_cases(),
    _bash_drawn,
    (
        Mistake(
            lambda m: _bash_model(m, keep_excluded=True),
            "a message with excludeFromContext true (a !! command) is dropped: return None.",
        ),
        Mistake(
            lambda m: _bash_model(m, code_when_cancelled=True),
            "a cancelled command ends with '\\n\\n(command cancelled)' and never shows its "
            "exit code (cancelled wins; the code line is the else-branch).",
        ),
        Mistake(
            lambda m: _bash_model(m, always_code=True),
            "the exit code line appears only for a code that is neither 0 nor None.",
        ),
        Mistake(
            lambda m: _bash_model(m, string_content=True),
            "the content is a list with one text block: [{'type': 'text', 'text': ...}], "
            "not a string.",
        ),
        Mistake(
            lambda m: _bash_model(m, fence_empty=True),
            "empty output is written as '(no output)', without a code fence.",
        ),
        Mistake(
            lambda m: _bash_model(m, note_without_path=True),
            "the truncation note needs both truncated and fullOutputPath.",
        ),
        Mistake(
            lambda m: _bash_model(m, no_timestamp=True),
            "keep the message's timestamp on the user message.",
        ),
    ),
    "the text is 'Ran `CMD`\\n' + a ``` fence around the output (or '(no output)'), then "
    "the cancelled note or a non-zero code, then the truncation note.",
    {
        "fullOutputPath": "fullOutputPath may be missing: only write the truncation note "
        "when truncated is true AND fullOutputPath is set (use .get()).",
        "cancelled": "cancelled, truncated and excludeFromContext may be missing (false): "
        "use .get().",
        "truncated": "cancelled, truncated and excludeFromContext may be missing (false): "
        "use .get().",
        "excludeFromContext": "cancelled, truncated and excludeFromContext may be missing "
        "(false): use .get().",
    },
)


def check_bash_to_llm(convert: Callable, seed: int | None = None) -> bool:
    """Check ``convert(message) -> dict | None`` for ``bashExecution`` messages.

    Pi's ``convertToLlm`` turns one into a user message with one text block (or drops it
    when ``excludeFromContext`` is true); the timestamp is kept.
    """
    return _run(BASH, convert, seed)


# --- 04: the kept range, the roles of a context -------------------------------------------


def _tiny_compaction_sessions() -> dict:
    return {
        "tiny file, a retain-none compaction (firstKeptEntryId = its own id)": _session(
            [
                _msg("u1", None, "user", 1),
                _msg("a1", "u1", "assistant", 2),
                new_entry(
                    "compaction", "c1", "a1", 3, summary="s", firstKeptEntryId="c1", tokensBefore=10
                ),
                _msg("u2", "c1", "user", 4),
            ],
            "retain-none",
        ),
        "tiny file, the kept range starts at a system message": _session(
            [
                _msg("u1", None, "user", 1),
                _msg("s1", "u1", "system", 2),
                _msg("u2", "s1", "user", 3),
                new_entry(
                    "compaction", "c1", "u2", 4, summary="s", firstKeptEntryId="s1", tokensBefore=10
                ),
                _msg("u3", "c1", "user", 5),
            ],
            "first-kept-is-system",
        ),
        "tiny file, a system message after the compaction (it is kept)": _session(
            [
                _msg("s1", None, "system", 1),
                _msg("u1", "s1", "user", 2),
                _msg("s2", "u1", "system", 3),
                _msg("a1", "s2", "assistant", 4),
                new_entry(
                    "compaction", "c1", "a1", 5, summary="s", firstKeptEntryId="u1", tokensBefore=10
                ),
                _msg("s3", "c1", "system", 6),
                _msg("u2", "s3", "user", 7),
            ],
            "system-after-compaction",
        ),
        "tiny file, two compactions (the newest one decides)": _session(
            [
                _msg("u1", None, "user", 1),
                _msg("a1", "u1", "assistant", 2),
                new_entry(
                    "compaction",
                    "c1",
                    "a1",
                    3,
                    summary="old",
                    firstKeptEntryId="a1",
                    tokensBefore=10,
                    systemMessage={"role": "system", "content": "", "timestamp": 0},
                ),
                _msg("u2", "c1", "user", 4),
                _msg("a2", "u2", "assistant", 5),
                new_entry(
                    "compaction",
                    "c2",
                    "a2",
                    6,
                    summary="new",
                    firstKeptEntryId="a1",
                    tokensBefore=20,
                ),
                _msg("u3", "c2", "user", 7),
            ],
            "two-compactions",
        ),
        "tiny file, firstKeptEntryId names no entry before the compaction": _session(
            [
                _msg("u1", None, "user", 1),
                _msg("a1", "u1", "assistant", 2),
                new_entry(
                    "compaction", "c1", "a1", 3, summary="s", firstKeptEntryId="u9", tokensBefore=10
                ),
                _msg("u9", "c1", "user", 4),
            ],
            "first-kept-after",
        ),
        "tiny file, a compaction without a systemMessage": _session(
            [
                _msg("s1", None, "system", 1),
                _msg("u1", "s1", "user", 2),
                _msg("a1", "u1", "assistant", 3),
                new_entry("branch_summary", "b1", "a1", 4, fromId="x", summary=""),
                new_entry("custom", "x1", "b1", 5, customType="state", data={}),
                new_entry(
                    "compaction", "c1", "x1", 6, summary="s", firstKeptEntryId="s1", tokensBefore=10
                ),
                new_entry(
                    "custom_message", "m1", "c1", 7, customType="n", content="c", display=True
                ),
                _msg("u2", "m1", "user", 8),
            ],
            "compaction-without-system",
        ),
    }


def _path_cases(make_expected, prepare=None) -> Callable[[], list[Case]]:
    """Paths of the samples (several leaves) and of the tiny compaction files."""

    def fixed() -> list[Case]:
        cases = []
        for name, session in {**_sample_sessions(), **_tiny_compaction_sessions()}.items():
            leaves = [session.default_leaf] if "tiny" in name else _leaf_choices(session)
            for leaf in leaves:
                leaf_id = _id(session.entry(leaf))
                path = session.path(leaf_id)
                path = prepare(path) if prepare else path
                cases.append(Case(f"{name}, path to {leaf_id!r}", (path,), make_expected(path)))
        return cases

    return fixed


def _drawn_paths(make_expected, kinds) -> Callable[[random.Random], list[Case]]:
    def drawn(rng: random.Random) -> list[Case]:
        cases = []
        for _, session in _drawn_sessions(rng, DRAWN, kinds):
            leaf_id = _id(session.entry(rng.randrange(len(session))))
            path = session.path(leaf_id)
            cases.append(Case("drawn at random", (path,), make_expected(path), True))
        return cases

    return drawn


def _without_edits(path: list) -> list:
    """The path with each context_edit entry made a plain state entry (same id and parent):
    the roles exercise comes before context edits (notebook 06)."""
    return [
        {
            **{k: e[k] for k in ("type", "id", "parentId", "timestamp")},
            "type": "custom",
            "customType": "context-edit-set-aside",
            "data": None,
        }
        if isinstance(e, dict) and e.get("type") == "context_edit"
        else e
        for e in path
    ]


def _selected(path: list) -> list:
    """The ids pisession selects for a path (built as its own little file)."""
    return [item.id for item in _session(path, "path").projection().entries]


_PATH_KINDS = (
    "user",
    "assistant",
    "system",
    "system",
    "compaction",
    "compaction",
    "label",
    "model_change",
    "custom",
    "custom_message",
    "branch_summary",
)


def _system_ids(path: list) -> set:
    return {e["id"] for e in path if _is_system(e)}


def _is_system(entry) -> bool:
    return entry["type"] == "message" and entry["message"]["role"] == "system"


def _kept_model(
    path,
    *,
    drop_before=True,
    drop_after=False,
    newest=True,
    first=True,
    keep_all_if_missing=False,
    older_compactions=True,
):
    positions = [i for i, e in enumerate(path) if e["type"] == "compaction"]
    if not positions:
        return [e["id"] for e in path]
    cut = positions[-1] if newest else positions[0]
    compaction = path[cut]
    ids = [e["id"] for e in path[:cut]]
    found = compaction.get("firstKeptEntryId") in ids
    before = []
    keeping = not found and keep_all_if_missing
    for entry in path[:cut]:
        if entry["id"] == compaction.get("firstKeptEntryId"):
            keeping = True
        if not keeping or (drop_before and _is_system(entry)):
            continue
        if not older_compactions and entry["type"] == "compaction":
            continue
        before.append(entry["id"])
    after = [e["id"] for e in path[cut + 1 :] if not (drop_after and _is_system(e))]
    if first:
        return [compaction["id"], *before, *after]
    return [*before, compaction["id"], *after]


KEPT_RANGE = Exercise(
    "kept range",
    _path_cases(_selected),
    _drawn_paths(_selected, _PATH_KINDS),
    (
        Mistake(
            lambda p: _kept_model(p, drop_before=False),
            "you kept a system message from before the compaction. Pi drops system messages "
            "in the kept range, whether or not the compaction stored a systemMessage.",
        ),
        Mistake(
            lambda p: _kept_model(p, drop_after=True),
            "only system messages BEFORE the compaction (in the kept range) are dropped; every "
            "entry after the compaction is kept, system messages included.",
        ),
        Mistake(
            lambda p: [i for i in _kept_model(p, drop_after=True) if i not in _system_ids(p)],
            "only system messages BEFORE the newest compaction (in the kept range) are dropped; "
            "a path without a compaction keeps all of them, and so does the part after it.",
        ),
        Mistake(
            lambda p: _kept_model(p, newest=False),
            "the NEWEST compaction on the path decides (the last one).",
        ),
        Mistake(
            lambda p: _kept_model(p, first=False),
            "the compaction comes first: its summary opens the context.",
        ),
        Mistake(
            lambda p: _kept_model(p, keep_all_if_missing=True),
            "if no entry before the compaction has the id firstKeptEntryId, keep none of them.",
        ),
        Mistake(
            lambda p: _kept_model(p, older_compactions=False),
            "an older compaction inside the kept range is still selected (it contributes "
            "nothing, but it is there).",
        ),
    ),
    "no compaction: every entry. Otherwise the newest compaction C first, then the entries "
    "before C from the one whose id is C's firstKeptEntryId (system messages skipped), then "
    "every entry after C.",
)


def check_kept_range(select: Callable, seed: int | None = None) -> bool:
    """Check ``select(path_entries) -> [ids]``: the entries Pi selects for the context.

    ``path_entries`` is the path, root first. With no compaction: all of it. Otherwise
    the newest compaction C first, then the entries before C from ``C.firstKeptEntryId``
    on (system messages skipped), then everything after C.
    """
    return _run(KEPT_RANGE, select, seed)


def _roles(path: list) -> list:
    return [m.get("role") for m in _session(path, "path").context().messages]


def _roles_model(
    path,
    *,
    always_system=False,
    never_system=False,
    drop_before=True,
    older_contributes=False,
    empty_summary=False,
    custom_entries=False,
):
    selected = _kept_model(path, drop_before=drop_before)
    by_id = {e["id"]: e for e in path}
    roles = []
    for rank, entry_id in enumerate(selected):
        entry = by_id[entry_id]
        kind = entry["type"]
        if kind == "message":
            roles.append(entry["message"]["role"])
        elif kind == "custom_message" or (kind == "custom" and custom_entries):
            roles.append("custom")
        elif kind == "branch_summary" and (entry.get("summary") or empty_summary):
            roles.append("branchSummary")
        elif kind == "compaction" and (rank == 0 or older_contributes):
            system = entry.get("systemMessage")
            if (system or always_system) and not never_system:
                roles.append("system")
            roles.append("compactionSummary")
    return roles


CONTEXT_ROLES = Exercise(
    "context roles",
    _path_cases(_roles, _without_edits),
    _drawn_paths(_roles, _PATH_KINDS),
    (
        Mistake(
            lambda p: _roles_model(p, always_system=True),
            "the compaction contributes a system message only when it stored a systemMessage; "
            "without one there is no system message from it at all.",
        ),
        Mistake(
            lambda p: _roles_model(p, never_system=True),
            "the newest compaction contributes its systemMessage (when present) before its "
            "summary: ['system', 'compactionSummary'].",
        ),
        Mistake(
            lambda p: _roles_model(p, drop_before=False),
            "system messages in the kept range (before the compaction) are dropped.",
        ),
        Mistake(
            lambda p: _roles_model(p, older_contributes=True),
            "an older compaction inside the kept range contributes nothing: only the newest "
            "one (the first selected entry) gives a summary.",
        ),
        Mistake(
            lambda p: _roles_model(p, empty_summary=True),
            "a branch_summary with an empty summary contributes nothing.",
        ),
        Mistake(
            lambda p: _roles_model(p, custom_entries=True),
            "a 'custom' entry is extension state and contributes nothing (a 'custom_message' "
            "entry does: role 'custom').",
        ),
    ),
    "select the kept range, then: message -> its role; custom_message -> 'custom'; a "
    "non-empty branch_summary -> 'branchSummary'; the newest compaction -> 'system' (if it "
    "has a systemMessage) and 'compactionSummary'; the rest nothing.",
)


def check_context_roles(roles: Callable, seed: int | None = None) -> bool:
    """Check ``roles(path_entries) -> [roles]``: the roles of the context messages of a
    path (no context edits on these paths)."""
    return _run(CONTEXT_ROLES, roles, seed)


# --- 05: migration ------------------------------------------------------------------------


def _values_of(path) -> list:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def _v3_expected(values: list) -> list:
    return migrate_v2_to_v3(values)[0]


def _v2_file(rng: random.Random) -> list:
    entries = _draw_entries(rng, rng.randint(4, 10), ("user", "assistant", "custom", "label"))
    for entry in entries:
        if entry["type"] == "message" and rng.random() < 0.35:
            entry["message"]["role"] = "hookMessage"
            entry["message"]["customType"] = "hook"
        if entry["type"] == "custom" and rng.random() < 0.5:
            entry["data"] = {"role": "hookMessage"}
    return [{**TINY_HEADER, "version": 2, "id": "w0"}, *entries]


def _rename_everywhere(value: object) -> object:
    if isinstance(value, list):
        return [_rename_everywhere(v) for v in value]
    if isinstance(value, dict):
        out = {k: _rename_everywhere(v) for k, v in value.items()}
        if out.get("role") == "hookMessage":
            out["role"] = "custom"
        return out
    return value


V2_TO_V3 = Exercise(
    "v2 -> v3",
    lambda: [
        Case(
            "legacy-v2 sample",
            (_values_of(sample_path("legacy-v2")),),
            _v3_expected(_values_of(sample_path("legacy-v2"))),
        )
    ],
    lambda rng: [
        Case("drawn at random", (values,), _v3_expected(values), True)
        for values in (_v2_file(rng) for _ in range(DRAWN))
    ],
    (
        Mistake(
            lambda values: [
                {**v, "message": {**v["message"], "role": "custom"}}
                if v.get("type") == "message" and v["message"].get("role") == "hookMessage"
                else v
                for v in values
            ],
            "the header's version becomes 3.",
        ),
        Mistake(
            lambda values: _rename_everywhere(migrate_v2_to_v3(values)[0]),
            "only message entries are renamed (entry['message']['role']); a 'custom' entry's "
            "data is extension state and stays as it is.",
        ),
    ),
    "set the header's version to 3; in every 'message' entry whose message.role is "
    "'hookMessage', make it 'custom'. Nothing else changes (a 'custom' entry is not a message).",
)


def check_v2_to_v3(migrate: Callable, seed: int | None = None) -> bool:
    """Check ``migrate(values) -> values``: version 2 to 3 (header first)."""
    return _run(V2_TO_V3, migrate, seed)


def _v1_expected(values: list) -> list:
    return migrate_v1_to_v2(values, new_id=sequential_ids())[0]


def _v1_file(rng: random.Random) -> list:
    values: list = [
        {"type": "session", "id": "w0", "timestamp": "2026-01-01T00:00:00Z", "cwd": "/w"}
    ]
    for position in range(rng.randint(3, 9)):
        if rng.random() < 0.25 and len(values) > 1:
            index = rng.choice(
                (0, rng.randint(1, len(values) - 1), rng.randint(1, len(values) + 3))
            )
            values.append(
                {
                    "type": "compaction",
                    "timestamp": "2026-01-01T00:01:00Z",
                    "summary": f"s{position}",
                    "firstKeptEntryIndex": index,
                    "tokensBefore": 100,
                }
            )
        else:
            role = rng.choice(("user", "assistant"))
            values.append(
                {
                    "type": "message",
                    "timestamp": "2026-01-01T00:01:00Z",
                    "message": {"role": role, "content": [{"type": "text", "text": role}]},
                }
            )
    return values


def _v1_model(
    values,
    new_id,
    *,
    offset=0,
    keep_index=False,
    none_when_missing=False,
    keep_version=False,
    keep_ids=False,
):
    out = copy.deepcopy(values)
    previous = None
    for entry in out:
        if entry["type"] == "session":
            if not keep_version:
                entry["version"] = 2
            continue
        if not (keep_ids and "id" in entry):
            entry["id"] = new_id()
        entry["parentId"] = previous
        previous = entry["id"]
        if entry["type"] == "compaction" and "firstKeptEntryIndex" in entry:
            target_index = entry["firstKeptEntryIndex"] + offset
            target = out[target_index] if 0 <= target_index < len(out) else None
            if target is not None and target["type"] != "session" and "id" in target:
                entry["firstKeptEntryId"] = target["id"]
            elif none_when_missing:
                entry["firstKeptEntryId"] = None
            if not keep_index:
                del entry["firstKeptEntryIndex"]
    return out


V1_TO_V2 = Exercise(
    "v1 -> v2",
    lambda: [
        Case(
            "legacy-v1 sample",
            (_values_of(sample_path("legacy-v1")), FreshIds()),
            _v1_expected(_values_of(sample_path("legacy-v1"))),
        )
    ],
    lambda rng: [
        Case("drawn at random", (values, FreshIds()), _v1_expected(values), True)
        for values in (_v1_file(rng) for _ in range(DRAWN))
    ],
    (
        Mistake(
            lambda v, n: _v1_model(v, n, offset=1),
            "firstKeptEntryIndex counts the header as index 0: values[index] is the entry, "
            "with the header still in the list.",
        ),
        Mistake(
            lambda v, n: _v1_model(v, n, keep_index=True),
            "delete firstKeptEntryIndex from the compaction (whether or not it resolved).",
        ),
        Mistake(
            lambda v, n: _v1_model(v, n, none_when_missing=True),
            "when the index names the header, a later entry (no id yet) or nothing, leave "
            "firstKeptEntryId out instead of setting it to None.",
        ),
        Mistake(
            lambda v, n: _v1_model(v, n, keep_version=True),
            "the header's version becomes 2.",
        ),
    ),
    "for each value after the header: id = new_id(), parentId = the previous entry's id "
    "(None first); a compaction's firstKeptEntryIndex (header = 0) becomes the id of that "
    "value when it is an earlier entry; then the index is deleted.",
    {"firstKeptEntryIndex": "only some compactions carry firstKeptEntryIndex: use .get()."},
)


def check_v1_to_v2(migrate: Callable, seed: int | None = None) -> bool:
    """Check ``migrate(values, new_id) -> values``: version 1 to 2 (header first)."""
    return _run(V1_TO_V2, migrate, seed)


# --- 06: context edits, usage, the system prompt ------------------------------------------


def _chained(entries: list) -> list:
    out, previous = [], None
    for entry in entries:
        out.append({**entry, "parentId": previous})
        previous = entry["id"]
    return out


def _edited(entries: list) -> list:
    return _session(entries, "edits").context().messages


_EDIT_ROLES = ("user", "assistant", "toolResult", "custom", "system", "bashExecution")


def _edit_message(entry_id: str, role: str, minute: int) -> dict:
    if role == "bashExecution":
        message = {"role": role, "command": "ls", "output": "a", "exitCode": 0, "timestamp": minute}
        return new_entry("message", entry_id, None, minute, message=message)
    if role == "custom":
        return _msg(entry_id, None, role, minute, customType="note", display=True)
    return _msg(entry_id, None, role, minute)


def _edit_entries(rng: random.Random) -> list:
    entries: list = []
    targets: list = []
    for position in range(rng.randint(3, 9)):
        minute = position + 1
        if targets and rng.random() < 0.45:
            replacement = rng.choice(
                (
                    None,
                    {"content": f"edit {position}"},
                    {"content": [{"type": "text", "text": f"blocks {position}"}]},
                )
            )
            entries.append(
                new_entry(
                    "context_edit",
                    f"e{position}",
                    None,
                    minute,
                    targetId=rng.choice(targets),
                    replacement=replacement,
                )
            )
            continue
        entry_id = f"m{position}"
        entries.append(_edit_message(entry_id, rng.choice(_EDIT_ROLES), minute))
        targets.append(entry_id)
    return _chained(entries)


def _edits_fixed() -> list[Case]:
    entries = _chained(
        [
            _edit_message("u1", "user", 1),
            _edit_message("a1", "assistant", 2),
            _edit_message("t1", "toolResult", 3),
            _edit_message("s1", "system", 4),
            _edit_message("c1", "custom", 5),
            new_entry(
                "context_edit", "e1", None, 6, targetId="t1", replacement={"content": "short"}
            ),
            new_entry(
                "context_edit", "e2", None, 7, targetId="t1", replacement={"content": "shorter"}
            ),
            new_entry("context_edit", "e3", None, 8, targetId="a1", replacement=None),
            new_entry("context_edit", "e4", None, 9, targetId="u1", replacement={"content": "hi"}),
            new_entry("context_edit", "e5", None, 10, targetId="s1", replacement={"content": "x"}),
            new_entry("context_edit", "e6", None, 11, targetId="c1", replacement={"content": "y"}),
        ]
    )
    name = (
        "tiny file: two edits of one tool result, an omitted answer, string edits of a "
        "user, a system and a custom message"
    )
    return [Case(name, (entries,), _edited(entries))]


def _edits_model(
    entries,
    *,
    first_wins=False,
    never_wrap=False,
    always_wrap=False,
    every_role=False,
    null_empties=False,
):
    edits: dict = {}
    for entry in entries:
        if entry["type"] == "context_edit" and not (first_wins and entry["targetId"] in edits):
            edits[entry["targetId"]] = entry
    out = []
    for entry in entries:
        if entry["type"] != "message":
            continue
        message = dict(entry["message"])
        edit = edits.get(entry["id"])
        if edit is not None:
            replacement = edit["replacement"]
            if replacement is None and not null_empties:
                continue
            if every_role or message["role"] in ("user", "assistant", "toolResult", "custom"):
                content = replacement["content"] if replacement else []
                wrap = always_wrap or (
                    not never_wrap and message["role"] in ("assistant", "toolResult")
                )
                if isinstance(content, str) and wrap:
                    content = [{"type": "text", "text": content}]
                message["content"] = content
        out.append(message)
    return out


CONTEXT_EDITS = Exercise(
    "context edits",
    _edits_fixed,
    lambda rng: [
        Case("drawn at random", (e,), _edited(e), True)
        for e in (_edit_entries(rng) for _ in range(DRAWN))
    ],
    (
        Mistake(
            lambda e: _edits_model(e, first_wins=True),
            "a later edit of the same target replaces an earlier one.",
        ),
        Mistake(
            lambda e: _edits_model(e, never_wrap=True),
            "for assistant and toolResult messages a string replacement becomes "
            "[{'type': 'text', 'text': ...}] (those roles require a list of blocks).",
        ),
        Mistake(
            lambda e: _edits_model(e, always_wrap=True),
            "user and custom messages keep a string replacement as a string; only assistant "
            "and toolResult wrap it in a text block.",
        ),
        Mistake(
            lambda e: _edits_model(e, every_role=True),
            "only user, assistant, toolResult and custom messages are edited; a system or "
            "bashExecution message is left as it is.",
        ),
        Mistake(
            lambda e: _edits_model(e, null_empties=True),
            "a None replacement removes the target's message entirely.",
        ),
    ),
    "collect the edits (a later one for the same target replaces an earlier one); a None "
    "replacement removes the target's message; otherwise user, assistant, toolResult and "
    "custom messages take replacement['content'], a string becoming one text block for "
    "assistant and toolResult; other roles are left alone.",
)


def check_context_edits(apply: Callable, seed: int | None = None) -> bool:
    """Check ``apply(entries) -> [messages]``: the selected entries of a path (message and
    context_edit entries, in order) to the messages Pi builds, edits applied.

    The raw entries stay as they are: build new message dicts.
    """
    return _run(CONTEXT_EDITS, apply, seed)


def _tokens(entries: list) -> int:
    return int(_session(entries, "usage").stats().usage.total_tokens)


def _tokens_model(entries, *, only_assistant=False, kinds=None, summaries=True, cache=True):
    def add(usage):
        total = usage["input"] + usage["output"]
        return total + (usage["cacheRead"] + usage["cacheWrite"] if cache else 0)

    counted = []
    for entry in entries:
        kind = entry["type"]
        if kind == "message":
            role = entry["message"]["role"]
            if role == "assistant" or (role == "toolResult" and not only_assistant):
                counted.append(entry["message"].get("usage"))
        elif only_assistant:
            continue
        elif kind == "usage":
            counted.append(entry["usage"] if kinds is None or entry["kind"] in kinds else None)
        elif kind in ("compaction", "branch_summary") and summaries:
            counted.append(entry.get("usage"))
    return sum(add(u) for u in counted if u is not None)


_USAGE_KINDS = (
    "user",
    "assistant",
    "assistant",
    "toolResult",
    "usage",
    "usage",
    "compaction",
    "branch_summary",
    "label",
)

TOTAL_TOKENS = Exercise(
    "total tokens",
    lambda: [
        Case(name, (s.entries,), _tokens(s.entries)) for name, s in _sample_sessions().items()
    ],
    lambda rng: [
        Case("drawn at random", (entries,), _tokens(entries), True)
        for entries, _ in _drawn_sessions(rng, DRAWN, _USAGE_KINDS)
    ],
    (
        Mistake(
            lambda e: _tokens_model(e, only_assistant=True),
            "not only assistant messages: usage entries, tool results with usage, "
            "compactions and branch summaries count too.",
        ),
        Mistake(
            lambda e: _tokens_model(e, kinds=("cache_warm",)),
            "every usage entry counts, whatever its kind: unknown kinds are normal usage.",
        ),
        Mistake(
            lambda e: _tokens_model(e, summaries=False),
            "compactions and branch summaries carry the usage of the call that wrote them: add it.",
        ),
        Mistake(
            lambda e: _tokens_model(e, cache=False),
            "a usage's tokens are input + output + cacheRead + cacheWrite.",
        ),
    ),
    "over ALL entries (every branch, compacted history included): usage entries, assistant "
    "messages, tool results with usage, compactions and branch summaries with usage; each "
    "adds input + output + cacheRead + cacheWrite.",
    {
        "usage": "not every entry has a usage (a tool result or a compaction may have none): "
        "use .get('usage')."
    },
)


def check_total_tokens(total: Callable, seed: int | None = None) -> bool:
    """Check ``total(entries) -> int``: the session's total tokens, as Pi's statistics."""
    return _run(TOTAL_TOKENS, total, seed)


def _prompt(messages: list) -> dict:
    prompt = replay_system_prompt(messages)
    return {"text": prompt.text, "tools": list(prompt.tools)}


def _system_messages(rng: random.Random) -> list:
    names = ("preamble", "rules", "env", "docs")
    tools = ("read", "bash", "edit", "ls", "write")
    out: list = []
    for position in range(rng.randint(2, 6)):
        if rng.random() < 0.25:
            out.append({"role": "user", "content": "hi", "timestamp": position})
            continue
        message: dict = {"role": "system", "content": rng.choice(("", "", f"Extra {position}."))}
        sections = {}
        for name in rng.sample(names, rng.randint(0, 3)):
            sections[name] = None if rng.random() < 0.3 else f"{name} v{position}"
        if sections:
            message["sections"] = sections
        if rng.random() < 0.6:
            message["toolsAdded"] = [{"name": t} for t in rng.sample(tools, rng.randint(1, 3))]
        if rng.random() < 0.4:
            message["toolsRemoved"] = [{"name": t} for t in rng.sample(tools, rng.randint(1, 2))]
        message["timestamp"] = position
        out.append(message)
    return out


def _prompt_model(messages, *, keep_null=False, add_first=False, no_content=False, joiner="\n\n"):
    content, sections, tools = [], {}, {}
    for message in messages:
        if message["role"] != "system":
            continue
        if message.get("content") and not no_content:
            content.append(message["content"])
        for name, value in (message.get("sections") or {}).items():
            if value is None and not keep_null:
                sections.pop(name, None)
            else:
                sections[name] = value
        if add_first:
            for tool in message.get("toolsAdded", []):
                tools[tool["name"]] = tool
        for tool in message.get("toolsRemoved", []):
            tools.pop(tool["name"], None)
        if not add_first:
            for tool in message.get("toolsAdded", []):
                tools[tool["name"]] = tool
    parts = [joiner.join(content), *(v for v in sections.values() if v is not None)]
    return {"text": joiner.join(p for p in parts if p), "tools": list(tools)}


SYSTEM_PROMPT = Exercise(
    "system prompt replay",
    lambda: [
        Case(name, (s.context().messages,), _prompt(s.context().messages))
        for name, s in _sample_sessions().items()
    ],
    lambda rng: [
        Case("drawn at random", (m,), _prompt(m), True)
        for m in (_system_messages(rng) for _ in range(DRAWN))
    ],
    (
        Mistake(
            lambda m: _prompt_model(m, keep_null=True),
            "a section set to None is deleted; set again later, it goes last.",
        ),
        Mistake(
            lambda m: _prompt_model(m, add_first=True),
            "in each system message remove toolsRemoved first, then add toolsAdded.",
        ),
        Mistake(
            lambda m: _prompt_model(m, no_content=True),
            "a system message's non-empty content is part of the prompt, before the sections.",
        ),
        Mistake(
            lambda m: _prompt_model(m, joiner="\n"),
            "the parts are joined with a blank line ('\\n\\n').",
        ),
    ),
    "system messages in order: non-empty content is appended; sections are patched by name "
    "(None deletes); remove toolsRemoved, then add toolsAdded by name. The text is the "
    "content parts joined, then each section value, empty parts dropped, joined with '\\n\\n'.",
    {
        "sections": "sections, toolsAdded and toolsRemoved are optional: use .get().",
        "toolsAdded": "sections, toolsAdded and toolsRemoved are optional: use .get().",
        "toolsRemoved": "sections, toolsAdded and toolsRemoved are optional: use .get().",
    },
)


def check_system_prompt(replay: Callable, seed: int | None = None) -> bool:
    """Check ``replay(messages) -> {"text": str, "tools": [names]}``: the system prompt in
    force after the context's system messages (sample content is plain strings)."""
    return _run(SYSTEM_PROMPT, replay, seed)


# --- examples for the notebooks -----------------------------------------------------------

EXERCISES = {
    "session_file_name": SESSION_FILE_NAME,
    "session_dir_name": SESSION_DIR_NAME,
    "read_values": READ_VALUES,
    "walk": WALK,
    "default_leaf": DEFAULT_LEAF,
    "labels": LABELS,
    "settings": SETTINGS,
    "bash_to_llm": BASH,
    "kept_range": KEPT_RANGE,
    "context_roles": CONTEXT_ROLES,
    "v2_to_v3": V2_TO_V3,
    "v1_to_v2": V1_TO_V2,
    "context_edits": CONTEXT_EDITS,
    "total_tokens": TOTAL_TOKENS,
    "system_prompt": SYSTEM_PROMPT,
}


def example(exercise: str, index: int = 0) -> Case:
    """One of an exercise's fixed cases (input and expected answer), to show in a notebook.

    >>> example("session_dir_name", 4).args, example("session_dir_name", 4).expected
    (('C:\\\\work\\\\api',), '--C--work-api--')
    """
    return EXERCISES[exercise].fixed()[index]


__all__ = [
    "DRAWN",
    "EXERCISES",
    "SAMPLES",
    "Case",
    "Exercise",
    "FreshIds",
    "Mistake",
    "bash_cases",
    "check_bash_to_llm",
    "check_context_edits",
    "check_context_roles",
    "check_default_leaf",
    "check_kept_range",
    "check_labels",
    "check_read_values",
    "check_session_dir_name",
    "check_session_file_name",
    "check_settings",
    "check_system_prompt",
    "check_total_tokens",
    "check_v1_to_v2",
    "check_v2_to_v3",
    "check_walk",
    "example",
    "pi_folder_name",
    "pi_resolved",
]
