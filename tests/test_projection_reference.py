"""The fast engine (``pisession.engine.context`` over a columnar index, with its shortcuts)
equals the readable rule (``pisession.rule``) on generated sessions and on every corpus
file, for the default leaf, every branch end and some interior entries: the same
selected entries, the same messages from each, the same settings, and an error where
the rule has one (a cycle; an entry on which Pi throws)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from test_properties import EXAMPLES, RANDOM, legacy_session_bytes, session_bytes

import pisession
from pisession import rule
from pisession.errors import CycleError, PisessionError
from pisession.js import json as jsjson
from pisession.js.value import UNDEFINED

ROOT = Path(__file__).resolve().parent.parent
CORPUS = sorted((ROOT / "data").glob("*/*/*.jsonl")) + sorted(
    (ROOT / "data").glob("damaged/*.jsonl")
)


def _same_as_the_rule(session, leaf_position: int | None) -> None:
    entries = session.entries
    try:
        expected = rule.project(entries, leaf_position)
    except CycleError:
        with pytest.raises(CycleError):
            session.projection(_leaf_id(session, leaf_position))
        return
    except PisessionError:
        with pytest.raises(PisessionError):
            session.projection(_leaf_id(session, leaf_position))
        return
    got = session.projection(_leaf_id(session, leaf_position))
    assert [i.position for i in got.items] == expected.positions
    assert [len(i.messages) for i in got.items] == [len(m) for m in expected.contributed]
    assert jsjson.dumps(got.messages) == jsjson.dumps(expected.messages)
    context = got.context
    assert _settings(context.thinking_level, context.model) == _settings(
        expected.settings.thinking_level, expected.settings.model
    )


def _settings(thinking: object, model: object) -> str:
    """Settings as Pi's JSON shows them (an undefined thinking level is left out)."""
    return jsjson.dumps(
        {"thinkingLevel": thinking, "model": model}
        if thinking is not UNDEFINED
        else {"model": model}
    )


def _leaf_id(session, position: int | None) -> object:
    return None if position is None else session.index.ids[position]


def _leaves(session) -> list[int | None]:
    """The default leaf, then entries whose id names them alone (so it can be a leaf id)."""
    ids = session.index.ids
    chosen: list[int | None] = [None]
    for position in [*session.leaves(), *range(0, len(session), 3)]:
        ident = ids[position]
        if ident is UNDEFINED or ident is None or isinstance(ident, (dict, list)):
            continue
        if session.index.position_of(ident) == position and position not in chosen:
            chosen.append(position)
    return chosen[:12]


def _check_bytes(data: bytes) -> None:
    try:
        session = pisession.loads(data, new_id=pisession.sequential_ids())
    except PisessionError:
        return
    for leaf in _leaves(session):
        _same_as_the_rule(session, leaf)


@settings(
    max_examples=EXAMPLES,
    derandomize=not RANDOM,
    deadline=None,
    suppress_health_check=list(HealthCheck),
)
@given(session_bytes())
def test_projection_equals_the_rule(data):
    _check_bytes(data)


@settings(max_examples=EXAMPLES // 2, derandomize=not RANDOM, deadline=None)
@given(legacy_session_bytes())
def test_migrated_projection_equals_the_rule(data):
    _check_bytes(data)


@pytest.mark.parametrize("path", CORPUS, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_corpus_projection_equals_the_rule(path):
    _check_bytes(path.read_bytes())


def test_none_is_the_default_leaf_everywhere():
    """``None`` names Pi's default leaf (the last entry in file order) in the rule, the
    engine and the session alike; an empty session has no path."""
    from pisession.engine import context

    session = pisession.load(pisession.sample_path("tour"))
    default = session.default_leaf
    expected = [i.position for i in session.projection(session.index.ids[default]).items]
    assert rule.project(session.entries, None).positions == expected
    assert [i.position for i in context.project(session.index, None).items] == expected
    assert [i.position for i in session.projection(None).items] == expected
    assert len(session.context(None).messages) == len(rule.project(session.entries).messages)
    assert rule.path([], None) == [] and context.project(context.EntryIndex.of([])).items == []


def test_the_rule_reads_in_at_most_300_lines():
    """``pisession.rule`` stays about the size of Pi's own rule (docstrings included),
    the five steps in the chapter's order."""
    source = (ROOT / "pisession" / "rule.py").read_text(encoding="utf-8")
    assert len(source.splitlines()) <= 300
    steps = [source.index(f"# --- {n}. ") for n in range(1, 6)]
    assert steps == sorted(steps)
