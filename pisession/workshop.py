"""Self-checking exercises for the workshop notebook (``07-workshop-exercises``).

Each ``check_...`` function takes a function the reader wrote, runs it on the bundled
samples (several leaves) and on a few tiny hand-made files, compares every answer with
what pisession (that is, Pi 0.87.1) gives, prints a short verdict and returns True when
every case matches. A verdict names the first case that differs, what was expected and
what came back, and a hint when the mistake is a known one (walking by timestamp,
keeping system messages in the kept range, dropping the drive colon, ...).

The reader's function gets copies of the entries, so it may modify them freely.

>>> from pisession.workshop import check_session_dir_name
>>> def dir_name(cwd):
...     return "--" + cwd.lstrip("/").replace("/", "-") + "--"
>>> check_session_dir_name(dir_name)  # doctest: +ELLIPSIS
session dir name: not yet. 2 of 6 cases right.
...
False
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from dataclasses import dataclass

from .build import TINY_HEADER, new_entry, new_message, tiny_session
from .context import kept_range as _kept_range
from .files import safe_dir_name as _session_dir_name
from .jsvalue import UNDEFINED, field
from .llm import to_llm_message
from .samples import sample_path
from .session import load
from .tree import resolved_labels

#: The samples every tree exercise runs on.
SAMPLES = (
    "tour",
    "pi-0.87.1-a-print-multiturn-tools",
    "pi-0.87.1-b-rpc-compaction-manual-threshold-overflow",
)

_MAX_SHOWN = 200


@dataclass
class Case:
    """One input for the reader's function and the answer pisession gives."""

    name: str
    args: tuple
    expected: object


# --- tiny hand-made files ----------------------------------------------------------


def _session(entries: list[dict], name: str):
    header = {**TINY_HEADER, "id": "w0"}
    return tiny_session(*entries, name=name, header=header)


def _entry(entry_id: str, parent: str | None, kind: str, minute: int, extra: str = "") -> dict:
    """An entry; ``extra`` holds its other fields as a JSON fragment (``',"label":"x"'``)."""
    return new_entry(kind, entry_id, parent, minute, **json.loads("{" + extra.lstrip(",") + "}"))


_msg = new_message


def _tiny_sessions() -> dict:
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
                _entry("l1", "a1", "label", 4, ',"targetId":"a1","label":"keep"'),
            ],
            "label-last",
        ),
        "tiny file, a retain-none compaction (firstKeptEntryId = its own id)": _session(
            [
                _msg("u1", None, "user", 1),
                _msg("a1", "u1", "assistant", 2),
                _entry("c1", "a1", "compaction", 3, ',"summary":"s","firstKeptEntryId":"c1"'),
                _msg("u2", "c1", "user", 4),
            ],
            "retain-none",
        ),
        "tiny file, the kept range starts at a system message": _session(
            [
                _msg("u1", None, "user", 1),
                _msg("s1", "u1", "system", 2),
                _msg("u2", "s1", "user", 3),
                _entry("c1", "u2", "compaction", 4, ',"summary":"s","firstKeptEntryId":"s1"'),
                _msg("u3", "c1", "user", 5),
            ],
            "first-kept-is-system",
        ),
        "tiny file, two compactions (the newest one decides)": _session(
            [
                _msg("u1", None, "user", 1),
                _msg("a1", "u1", "assistant", 2),
                _entry("c1", "a1", "compaction", 3, ',"summary":"old","firstKeptEntryId":"a1"'),
                _msg("u2", "c1", "user", 4),
                _msg("a2", "u2", "assistant", 5),
                _entry("c2", "a2", "compaction", 6, ',"summary":"new","firstKeptEntryId":"u2"'),
                _msg("u3", "c2", "user", 7),
            ],
            "two-compactions",
        ),
        "tiny file, labels set, moved and cleared": _session(
            [
                _msg("u1", None, "user", 1),
                _msg("a1", "u1", "assistant", 2),
                _entry("l1", "a1", "label", 3, ',"targetId":"u1","label":"start"'),
                _entry("l2", "l1", "label", 4, ',"targetId":"a1","label":"draft"'),
                _entry("l3", "l2", "label", 5, ',"targetId":"a1","label":"final"'),
                _entry("l4", "l3", "label", 6, ',"targetId":"u1","label":""'),
                _entry("l5", "l4", "label", 7, ',"targetId":"u1"'),
            ],
            "labels",
        ),
    }


def _sessions(with_tiny: bool = True) -> dict:
    out = {name: load(sample_path(name)) for name in SAMPLES}
    if with_tiny:
        out.update(_tiny_sessions())
    return out


def _id(entry: object) -> object:
    value = field(entry, "id")
    return None if value is UNDEFINED else value


def _leaf_choices(session) -> list[int]:
    """Every branch end, plus a couple of entries in the middle of the file."""
    chosen = list(session.leaves())
    for position in (len(session) // 3, (2 * len(session)) // 3):
        if 0 <= position < len(session) and position not in chosen:
            chosen.append(position)
    return chosen


# --- running and reporting ---------------------------------------------------------


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


def _run(
    title: str,
    function: Callable,
    cases: list[Case],
    hint: Callable[[Case, object], str | None] | None = None,
) -> bool:
    """Call ``function`` on every case, print the verdict, return True when all match."""
    if not callable(function):
        print(f"{title}: not yet. Pass a function (got {_short(function)}).")
        return False
    right = 0
    first_wrong: tuple[Case, object] | None = None
    for case in cases:
        try:
            got = function(*copy.deepcopy(case.args))
        except NotImplementedError:
            print(
                f"{title}: not yet. {getattr(function, '__name__', 'your function')} "
                "raises NotImplementedError: replace the `raise` with your code."
            )
            return False
        except Exception as exc:
            print(f"{title}: not yet. On case '{case.name}' your function raised")
            print(f"  {type(exc).__name__}: {_short(str(exc))}")
            return False
        if got == case.expected:
            right += 1
        elif first_wrong is None:
            first_wrong = (case, got)
    if first_wrong is None:
        print(f"{title}: correct. All {len(cases)} cases match pisession (Pi 0.87.1).")
        return True
    case, got = first_wrong
    print(f"{title}: not yet. {right} of {len(cases)} cases right.")
    print(f"First case that differs: {case.name}")
    print(_difference(case.expected, got))
    advice = hint(case, got) if hint else None
    if advice:
        print(f"Hint: {advice}")
    return False


# --- 1. the walk from leaf to root -------------------------------------------------


def walk_cases() -> list[Case]:
    """Inputs ``(entries, leaf_id)`` and the path ids (root first) pisession gives."""
    cases = []
    for name, session in _sessions().items():
        if session.source in ("retain-none", "first-kept-is-system", "two-compactions"):
            continue  # nothing new for the walk
        for leaf in _leaf_choices(session):
            leaf_id = _id(session.entry(leaf))
            path = [_id(e) for e in session.path(leaf_id)]
            cases.append(Case(f"{name}, leaf {leaf_id!r}", (session.entries, leaf_id), path))
    return cases


def _walk_hint(case: Case, got: object) -> str | None:
    if not isinstance(got, list):
        return "return a list of ids, root first."
    expected = case.expected
    if got and got == expected[::-1]:  # type: ignore[index]
        return "you walked from the leaf up: reverse the list so the root comes first."
    strangers = [i for i in got if i not in expected]  # type: ignore[operator]
    if strangers:
        return (
            f"{strangers[0]!r} is not an ancestor of the leaf (another branch, or a later "
            "entry): follow parentId from the leaf instead of file order or timestamps."
        )
    return "start at the leaf, repeat parent = entry with id == parentId, stop at a missing one."


def check_walk(walk: Callable) -> bool:
    """Check ``walk(entries, leaf_id) -> [ids, root first]`` (the chapter's path).

    ``entries`` are the file's entries (header excluded, file order); the path follows
    ``parentId`` from the leaf until the parent is null, empty or not in the file.

    >>> from pisession.workshop import check_walk
    >>> def walk(entries, leaf_id):
    ...     by_id = {e["id"]: e for e in entries}
    ...     path, entry = [], by_id[leaf_id]
    ...     while entry is not None:
    ...         path.append(entry["id"])
    ...         entry = by_id.get(entry.get("parentId"))
    ...     return path[::-1]
    >>> check_walk(walk)  # doctest: +ELLIPSIS
    walk from leaf to root: correct. All ... cases match pisession (Pi 0.87.1).
    True
    """
    return _run("walk from leaf to root", walk, walk_cases(), _walk_hint)


# --- 2. the default leaf -----------------------------------------------------------


def default_leaf_cases() -> list[Case]:
    """Inputs ``(entries,)`` and the id of Pi's default leaf (the last entry)."""
    cases = []
    for name, session in _sessions().items():
        leaf = session.default_leaf
        if leaf is not None:
            cases.append(Case(name, (session.entries,), _id(session.entry(leaf))))
    return cases


def _leaf_hint(case: Case, got: object) -> str | None:
    (entries,) = case.args
    by_id = {_id(e): e for e in entries}
    if got in by_id and field(by_id[got], "type") == "message":
        return "Pi does not look at types or timestamps: the leaf is the last entry in the file."
    return "the leaf after loading is simply the last entry in file order."


def check_default_leaf(pick: Callable) -> bool:
    """Check ``pick(entries) -> id`` of the leaf Pi uses after loading a file.

    >>> check_default_leaf(lambda entries: entries[-1]["id"])  # doctest: +ELLIPSIS
    default leaf: correct. All ... cases match pisession (Pi 0.87.1).
    True
    """
    return _run("default leaf", pick, default_leaf_cases(), _leaf_hint)


# --- 3. the kept range -------------------------------------------------------------


def kept_range_cases() -> list[Case]:
    """Inputs ``(path_entries,)`` and the ids of the selected entries, in context order."""
    cases = []
    for name, session in _sessions().items():
        leaves = _leaf_choices(session) if "tiny" not in name else [session.default_leaf]
        for leaf in leaves:
            path = session.path_positions(_id(session.entry(leaf)))
            entries = [session.entry(p) for p in path]
            selected = _kept_range(entries, list(range(len(entries))))
            expected = [_id(entries[i]) for i in selected]
            leaf_id = _id(session.entry(leaf))
            cases.append(Case(f"{name}, path to {leaf_id!r}", (entries,), expected))
    return cases


def _kept_hint(case: Case, got: object) -> str | None:
    (entries,) = case.args
    if not isinstance(got, list):
        return "return a list of ids."
    roles = {
        _id(e): field(field(e, "message"), "role") for e in entries if field(e, "type") == "message"
    }
    if any(roles.get(i) == "system" and i not in case.expected for i in got):  # type: ignore[operator]
        return (
            "you kept a system message from before the compaction. Pi drops system messages "
            "in the kept range: the compaction carries its own system checkpoint."
        )
    compactions = [_id(e) for e in entries if field(e, "type") == "compaction"]
    if compactions and got and got[0] != compactions[-1]:
        return "the newest compaction on the path comes first: its summary opens the context."
    if compactions:
        return (
            "keep entries before the compaction only from the one whose id is "
            "firstKeptEntryId; if no entry before it has that id, keep none of them."
        )
    return "without a compaction on the path, every entry of the path is selected."


def check_kept_range(select: Callable) -> bool:
    """Check ``select(path_entries) -> [ids]``: the entries Pi selects for the context.

    ``path_entries`` is the path, root first. With no compaction: all of it. Otherwise
    the newest compaction C first, then the entries before C from ``C.firstKeptEntryId``
    on (system messages skipped), then everything after C.
    """
    return _run("kept range", select, kept_range_cases(), _kept_hint)


# --- 4. the session folder name ----------------------------------------------------

DIR_NAME_INPUTS = (
    "/home/reader/projects/demo-app",
    "/",
    "C:\\work\\api",
    "C:/Users/ana/code",
    "\\\\server\\share\\repo",
    "/srv/data:2026/app",
)


def dir_name_cases() -> list[Case]:
    """Inputs ``(cwd,)`` and the folder name under ``~/.pi/agent/sessions/``."""
    return [Case(repr(cwd), (cwd,), _session_dir_name(cwd)) for cwd in DIR_NAME_INPUTS]


def _dir_hint(case: Case, got: object) -> str | None:
    (cwd,) = case.args
    if ":" in cwd and isinstance(got, str) and "--" not in got.strip("-"):
        return (
            "a ':' becomes '-' like a slash (the chapter's '--C-work-api--' drops it; "
            "Pi writes '--C--work-api--')."
        )
    if cwd.startswith("\\\\"):
        return "only ONE leading '/' or '\\' is removed; the next one becomes '-'."
    return "remove one leading '/' or '\\', turn every '/', '\\' and ':' into '-', add '--' around."


def check_session_dir_name(name: Callable) -> bool:
    """Check ``name(cwd) -> str``: the per-folder directory Pi keeps sessions in, for an
    already resolved cwd (Pi resolves it first: ``pisession.files.session_dir_name``).

    >>> from pisession.files import safe_dir_name
    >>> check_session_dir_name(safe_dir_name)
    session dir name: correct. All 6 cases match pisession (Pi 0.87.1).
    True
    """
    return _run("session dir name", name, dir_name_cases(), _dir_hint)


# --- 5. labels ---------------------------------------------------------------------


def label_cases() -> list[Case]:
    """Inputs ``(entries,)`` and the resolved labels (target id -> label)."""
    return [
        Case(name, (session.entries,), resolved_labels(session.entries))
        for name, session in _sessions().items()
    ]


def _label_hint(case: Case, got: object) -> str | None:
    if isinstance(got, dict) and set(got) > set(case.expected):  # type: ignore[arg-type]
        return "an empty or missing label clears the target's label."
    return "go through label entries in file order; a later label for the same target wins."


def check_labels(resolve: Callable) -> bool:
    """Check ``resolve(entries) -> {target_id: label}`` (Pi's ``getLabel`` for every id).

    >>> from pisession.tree import resolved_labels
    >>> check_labels(resolved_labels)  # doctest: +ELLIPSIS
    label resolution: correct. All ... cases match pisession (Pi 0.87.1).
    True
    """
    return _run("label resolution", resolve, label_cases(), _label_hint)


# --- 6. a bash execution turned into a provider message ----------------------------

BASH_MESSAGES = (
    ("exit code 0", {"command": "ls", "output": "a.py\nb.py", "exitCode": 0}),
    ("exit code 2", {"command": "make test", "output": "1 failed", "exitCode": 2}),
    ("no output", {"command": "true", "output": "", "exitCode": 0}),
    ("cancelled", {"command": "sleep 60", "output": "", "exitCode": None, "cancelled": True}),
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


def bash_cases() -> list[Case]:
    """Inputs ``(message,)`` (a ``bashExecution`` message) and Pi's provider message."""
    cases = []
    for name, fields in BASH_MESSAGES:
        message = {"role": "bashExecution", **fields, "timestamp": 1767225600000}
        cases.append(Case(name, (message,), to_llm_message(message)))
    return cases


def _bash_hint(case: Case, got: object) -> str | None:
    (message,) = case.args
    if case.expected is None:
        return "a message with excludeFromContext true is dropped: return None."
    if got is None:
        return "only excludeFromContext drops the message; everything else becomes a user message."
    if message.get("cancelled"):
        return "a cancelled command ends with '\\n\\n(command cancelled)' and no exit code."
    if message.get("truncated"):
        return "the truncation note needs both truncated and fullOutputPath."
    if not message.get("output"):
        return "empty output is written as '(no output)' without a code fence."
    return (
        "the text is 'Ran `CMD`\\n' + a ``` fence around the output; the exit code line "
        "appears only for a non-zero, non-null code."
    )


def check_bash_to_llm(convert: Callable) -> bool:
    """Check ``convert(message) -> dict | None`` for ``bashExecution`` messages.

    Pi's ``convertToLlm`` turns one into a user message with one text block (or drops it
    when ``excludeFromContext`` is true); the timestamp is kept.

    >>> from pisession.llm import to_llm_message
    >>> check_bash_to_llm(to_llm_message)
    bash execution to LLM: correct. All 8 cases match pisession (Pi 0.87.1).
    True
    """
    return _run("bash execution to LLM", convert, bash_cases(), _bash_hint)


__all__ = [
    "Case",
    "bash_cases",
    "check_bash_to_llm",
    "check_default_leaf",
    "check_kept_range",
    "check_labels",
    "check_session_dir_name",
    "check_walk",
    "default_leaf_cases",
    "dir_name_cases",
    "kept_range_cases",
    "label_cases",
    "walk_cases",
]
