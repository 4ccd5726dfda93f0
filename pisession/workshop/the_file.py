"""Exercises of notebook 01 (the file): the file name, the folder name, the lines Pi keeps."""

from __future__ import annotations

import json
import random
import re
from collections.abc import Callable
from typing import NoReturn

from ..errors import PisessionError
from ..files import resolve_cwd
from ..files import safe_dir_name as _folder_rule
from ..files import session_file_name as _file_name_rule
from ..session import loads
from ._checking import DRAWN, Case, Exercise, Mistake, _run
from ._sessions import _WORDS, _hex


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


def check_session_file_name(name: Callable[..., object], seed: int | None = None) -> bool:
    """Check ``name(timestamp, session_id) -> str``: the file name of a new session.

    >>> import re
    >>> def file_name(timestamp, session_id):
    ...     return re.sub(r"[:.]", "-", timestamp) + f"_{session_id}.jsonl"
    >>> check_session_file_name(file_name)  # doctest: +ELLIPSIS
    session file name: correct. All 14 cases match pisession (Pi 0.87.1),
      12 of them ...
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
    "D:\\",
)


def _dir_fixed() -> list[Case]:
    return [Case(repr(cwd), (cwd,), pi_folder_name(cwd)) for cwd in DIR_NAME_INPUTS]


def _dir_drawn(rng: random.Random) -> list[Case]:
    """Random POSIX, drive and network paths, the first one a drive's root."""
    root = rng.choice("CDEZ") + rng.choice((":\\", ":/"))
    cases = [Case(repr(root), (root,), pi_folder_name(root), True)]
    for _ in range(DRAWN - 1):
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


def _strip_trailing(cwd: str) -> str:
    """A trailing separator dropped from the resolved path, a drive's root's too."""
    resolved = pi_resolved(cwd)
    return _folder_rule(resolved[:-1] if resolved[-1:] in ("/", "\\") else resolved)


SESSION_DIR_NAME = Exercise(
    "session dir name",
    _dir_fixed,
    _dir_drawn,
    (
        Mistake(
            _strip_trailing,
            "your answer dropped the '\\' of a drive's root. Pi resolves 'D:\\' to 'D:\\' "
            "(the root keeps its separator; only a trailing one after a folder goes), so the "
            "folder is '--D----', not '--D---'.",
        ),
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
    "drop a trailing separator (not the '\\' of a drive's root such as 'D:\\'), remove ONE "
    "leading '/' or '\\', turn every '/', '\\' and ':' into '-', and put '--' before and after.",
)


def check_session_dir_name(name: Callable[..., object], seed: int | None = None) -> bool:
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
    "an empty list []": b"[]",
    "an empty object {}": b"{}",
    "a string": b'"just text"',
    "a number": b"42",
    "U+2028 inside a string": '{"type":"custom","id":"c1","data":"a\u2028b"}'.encode(),
    "a CRLF ending": b'{"type":"session_info","id":"n1","parentId":null,"name":"crlf"}\r',
}


def _values_expected(raw: bytes) -> list[object]:
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
    """Random lines after a header (now and then before it), the first file with a `[]`
    or `{}` line (truthy in JavaScript) after its header."""
    names = list(_LINES)
    cases = []
    for number in range(DRAWN):
        chosen = [rng.choice(names) for _ in range(rng.randint(2, 8))]
        if number == 0:
            chosen.insert(rng.randint(0, len(chosen)), rng.choice(_EMPTY_BUT_TRUTHY))
        lines = [_LINES[n] for n in chosen]
        position = 0 if number == 0 or rng.random() < 0.85 else rng.randint(0, len(lines))
        lines.insert(position, _GOOD_HEADER)
        cases.append(_values_case("drawn: " + ", ".join(chosen), lines, True))
    return cases


_EMPTY_BUT_TRUTHY = ("an empty list []", "an empty object {}")


def _js_falsy(value: object) -> bool:
    if value is None or value is False or value == "":
        return True
    return isinstance(value, (int, float)) and not isinstance(value, bool) and value == 0


def _reject(constant: str) -> NoReturn:
    raise ValueError(constant)


def _parsed(line: str) -> object:
    """``JSON.parse``, as far as the exercise needs it: NaN and Infinity refused."""
    value: object = json.loads(line, parse_constant=_reject)
    return value


def _values_model(
    raw: bytes,
    *,
    split: Callable[[str], list[str]] | None = None,
    parse: Callable[[str], object] | None = None,
    keep_falsy: bool = False,
    header: bool = True,
    objects_only: bool = False,
    python_falsy: bool = False,
) -> list[object]:
    text = raw.decode("utf-8", "replace")
    lines = split(text) if split else text.split("\n")
    values: list[object] = []
    for line in lines:
        if not line.strip():
            continue
        try:
            value = (parse or _parsed)(line)
        except ValueError:
            continue
        if not keep_falsy and (not value if python_falsy else _js_falsy(value)):
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
            lambda raw: _values_model(raw, python_falsy=True),
            "your answer dropped a [] or {} line (Python's `not value` is True for them). "
            "In JavaScript an empty array or object is truthy, and Pi keeps it; only null, "
            'false, 0 and "" are dropped.',
        ),
        Mistake(
            lambda raw: _values_model(raw, objects_only=True),
            "other truthy values (a list, a string, a number) are kept as they are.",
        ),
    ),
    "decode as UTF-8, split on '\\n', skip blank lines, lines JSON.parse rejects and falsy "
    "values; the first value kept must be the header.",
)


def check_read_values(read: Callable[..., object], seed: int | None = None) -> bool:
    """Check ``read(raw_bytes) -> list``: the values Pi keeps from a file, header first."""
    return _run(READ_VALUES, read, seed)
