"""The differential fuzzer's own parts (conformance/fuzz), without Node: mutants are
reproducible, the comparison is strict, minimisation keeps what fails, and classes are
named. Running it against Pi is .ci/run's job (``conformance/fuzz/run.py``)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

FUZZ = Path(__file__).resolve().parent.parent / "conformance" / "fuzz"
sys.path.insert(0, str(FUZZ))

from classify import classify  # noqa: E402
from compare import Finding, first_difference  # noqa: E402
from minimize import Budget, ddmin, minimize  # noqa: E402
from mutate import Mutator, Raw, dumps_line, load_corpus, parse_line  # noqa: E402


@pytest.fixture(scope="module")
def corpus():
    return load_corpus()


def test_the_corpus_holds_every_kind_of_file(corpus):
    names = [name for name, _ in corpus]
    for folder in ("edge", "generated", "damaged", "samples"):
        assert any(f"/{folder}/" in name for name in names), folder
    assert len(corpus) > 400


def test_a_mutant_is_reproducible_from_seed_and_number(corpus):
    first, again = Mutator(corpus, 7), Mutator(corpus, 7)
    for number in range(40):
        a, b = first.mutant(number), again.mutant(number)
        assert (a.source, a.data, a.ops) == (b.source, b.data, b.ops)
    assert len({first.mutant(n).data for n in range(40)}) > 30


def test_numbers_python_cannot_hold_survive_a_rewrite():
    line = b'{"a":1e400,"b":' + b"7" * 5000 + b',"c":"\\ud800","d":"\\\\u0041"}'
    value = parse_line(line)
    assert isinstance(value["a"], Raw) and isinstance(value["b"], Raw)
    assert dumps_line(value) == line


def test_the_comparison_is_strict():
    assert first_difference({"a": [True]}, {"a": [1]})[0] == ".a[0]"
    assert first_difference({"a": 1}, {"a": 1.0}) is None
    assert first_difference({"a": 1, "b": 2}, {"b": 2, "a": 1})[0] == ".key-order"
    deep_a = deep_b = "x"
    for _ in range(50_000):
        deep_a, deep_b = [deep_a], [deep_b]
    assert first_difference(deep_a, deep_b) is None


def test_ddmin_finds_a_minimal_failing_subset():
    items = list(range(40))
    assert ddmin(items, lambda xs: {5, 31} <= set(xs), Budget(1000)) == [5, 31]


def test_minimize_keeps_the_failure_and_drops_the_rest():
    lines = [b'{"type":"session","id":"s"}'] + [
        f'{{"type":"message","id":"m{i}","keep":{str(i == 7).lower()}}}'.encode() for i in range(20)
    ]
    data = b"\n".join(lines) + b"\n"

    def fails(candidate: bytes) -> bool:
        return b'"keep":true' in candidate and candidate.startswith(b'{"type":"session"')

    small = minimize(data, fails)
    assert fails(small) and small.count(b"\n") <= 2 and b"m7" not in small


def test_classes_name_known_causes_and_fall_back_to_the_signature():
    big = b'{"type":"session","id":"s"}\n{"id":9007199254740993,"parentId":null}\n'
    finding = Finding("value:context.messages.length", "2 != 3")
    assert classify(big, [finding], {}) == ("value:context.messages.length", False)
    plain = b'{"type":"session","id":"s"}\n{"id":"a","parentId":null}\n'
    assert classify(plain, [finding], {}) == ("value:context.messages.length", False)
    crash = Finding("crash:stats:ValueError", "stats: ValueError: x (at stats.py:3)")
    assert classify(plain, [finding, crash], {}) == ("crash:stats:ValueError", False)


def test_a_mutant_with_two_known_causes_is_explained_by_both(monkeypatch):
    """A known cause names the findings it explains; a mutant all of whose findings are
    explained by pending causes is named by all of them and not counted."""
    import classify as classes

    def cause(name, kind):
        return classes.KnownCause(
            name, True, "", lambda f, kind=kind: f.kind == kind, lambda data, answer: True
        )

    monkeypatch.setattr(classes, "KNOWN", [cause("first", "value:tree"), cause("second", "x")])
    findings = [Finding("value:tree", "tree[0][0]"), Finding("x", "y")]
    assert classify(b"", findings, {}) == ("first + second", True)
    assert classify(b"", [*findings, Finding("value:llm", "z")], {}) == ("value:llm", False)
