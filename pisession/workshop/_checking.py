"""Running a reader's function on an exercise's cases and telling the verdict."""

from __future__ import annotations

import copy
import json
import os
import random
from collections.abc import Callable
from dataclasses import dataclass, field

from ..migration import sequential_ids
from ..piversions import pi_versions

#: How many cases each check draws at random, fresh for every run.
DRAWN = 12

_MAX_SHOWN = 200


@dataclass
class Case:
    """One input for the reader's function and the answer pisession gives."""

    name: str
    args: tuple[object, ...]
    expected: object
    drawn: bool = False


@dataclass(frozen=True)
class Mistake:
    """A common wrong answer: a function that makes it, and what to tell the reader."""

    model: Callable[..., object]
    hint: str


@dataclass
class Exercise:
    """One rule to write: its cases, its mistake models and a general hint."""

    title: str
    fixed: Callable[[], list[Case]]
    drawn: Callable[[random.Random], list[Case]]
    mistakes: tuple[Mistake, ...] = ()
    hint: str = ""
    key_hints: dict[str, str] = field(default_factory=dict)


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

    def __deepcopy__(self, memo: dict[int, object]) -> FreshIds:
        return self

    def __repr__(self) -> str:
        return "sequential_ids()"


def _arguments(args: tuple[object, ...]) -> tuple[object, ...]:
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


def _gives(mistake: Mistake, case: Case, got: object) -> bool:
    """Does the mistake model give exactly ``got`` on ``case``?"""
    try:
        return _same(mistake.model(*_arguments(case.args)), got)
    except Exception:  # a model that cannot run on this case does not match
        return False


def _model_hint(exercise: Exercise, answers: list[tuple[Case, object]], first: int) -> str:
    """The hint of the first mistake model that gives the reader's answer on every case;
    failing that, of the first one that gives it on the first case that differs
    (``answers[first]``)."""
    matching = [m for m in exercise.mistakes if _gives(m, *answers[first])]
    for mistake in matching:
        if all(_gives(mistake, case, got) for case, got in answers):
            return mistake.hint
    return matching[0].hint if matching else exercise.hint


def _exception_hint(exercise: Exercise, exc: Exception) -> str:
    if isinstance(exc, KeyError) and exc.args:
        key: object = exc.args[0]
        if isinstance(key, str) and key in exercise.key_hints:
            return exercise.key_hints[key]
        return (
            f"your function read the field {key!r}, which this case does not have. Real "
            "files leave optional fields out: use .get() and decide what a missing field "
            "means."
        )
    if isinstance(exc, TypeError) and "string indices" in str(exc):
        return "a content field can be a plain string as well as a list of blocks."
    return ""


#: pisession's folder (this file is in its workshop subfolder).
_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _from_pisession(function: Callable[..., object]) -> bool:
    """Is this pisession's own code (a function written in the package's files)?"""
    code = getattr(function, "__code__", None)
    if code is not None:
        where = os.path.dirname(os.path.abspath(str(code.co_filename)))
        return where == _PACKAGE or where.startswith(_PACKAGE + os.sep)
    module = str(getattr(function, "__module__", None) or "")
    return module == "pisession" or module.startswith("pisession.")


def _refusal(title: str, function: object) -> str | None:
    """Why ``function`` is not run at all (None: it is run)."""
    if not callable(function):
        return f"{title}: not yet. Pass a function (got {_short(function)})."
    if _from_pisession(function):
        return (
            f"{title}: not yet. {getattr(function, '__name__', 'that')} is pisession's own "
            "code: the point is to write the rule yourself."
        )
    return None


def _run(exercise: Exercise, function: Callable[..., object], seed: int | None) -> bool:
    """Call ``function`` on every case, print the verdict, return True when all match."""
    refusal = _refusal(exercise.title, function)
    if refusal:
        print(refusal)
        return False
    cases = [*exercise.fixed(), *exercise.drawn(random.Random(seed))]
    answers: list[tuple[Case, object]] = []
    for case in cases:
        try:
            answers.append((case, function(*_arguments(case.args))))
        except Exception as exc:
            _report_exception(exercise, function, case, exc)
            return False
    wrong = [i for i, (case, got) in enumerate(answers) if got != case.expected]
    right = len(cases) - len(wrong)
    if not wrong:
        print(
            f"{exercise.title}: correct. All {len(cases)} cases match pisession "
            f"(Pi {pi_versions()['primary']}),\n"
            f"  {sum(c.drawn for c in cases)} of them drawn at random for this run."
        )
        return True
    case, got = answers[wrong[0]]
    print(f"{exercise.title}: not yet. {right} of {len(cases)} cases right.")
    print(f"First case that differs: {case.name}")
    _report_input(case)
    print(_difference(case.expected, got))
    _report_hint(_model_hint(exercise, answers, wrong[0]))
    return False


def _report_exception(
    exercise: Exercise, function: Callable[..., object], case: Case, exc: Exception
) -> None:
    title = exercise.title
    if isinstance(exc, NotImplementedError):
        print(
            f"{title}: not yet. {getattr(function, '__name__', 'your function')} "
            "raises NotImplementedError:\n  replace the `raise` with your code."
        )
        return
    print(f"{title}: not yet. On case '{case.name}' your function raised")
    print(f"  {type(exc).__name__}: {str(exc)[:_MAX_SHOWN]}")
    _report_input(case)
    _report_hint(_exception_hint(exercise, exc))


def _report_input(case: Case) -> None:
    """A drawn case's input (the reader has not seen it); a fixed case is named enough."""
    if case.drawn:
        print(f"  input: {_short(case.args)}")


def _report_hint(advice: str) -> None:
    if advice:
        print(f"Hint: {advice}")
