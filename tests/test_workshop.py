"""The workshop checkers accept a right answer and reject plausible wrong ones.

Each reference solution below is written the way a reader would write it (plain dicts,
no pisession internals); each wrong one is a mistake seen in real tools or likely in a
first attempt (walking by timestamp, keeping system messages in the kept range, ...).
"""

from __future__ import annotations

import re

import pytest

from pisession import workshop

# --- reference solutions -----------------------------------------------------------


def walk(entries, leaf_id):
    by_id = {e["id"]: e for e in entries}
    path, entry = [], by_id[leaf_id]
    while entry is not None:
        path.append(entry["id"])
        entry = by_id.get(entry.get("parentId")) if entry.get("parentId") else None
    return path[::-1]


def default_leaf(entries):
    return entries[-1]["id"]


def _is_system(entry):
    return entry["type"] == "message" and entry["message"]["role"] == "system"


def kept_range(path, *, drop_system=True, newest=True, compaction_first=True):
    compactions = [i for i, e in enumerate(path) if e["type"] == "compaction"]
    if not compactions:
        return [e["id"] for e in path]
    cut = compactions[-1] if newest else compactions[0]
    compaction = path[cut]
    before, found = [], False
    for entry in path[:cut]:
        if entry["id"] == compaction.get("firstKeptEntryId"):
            found = True
        if found and not (drop_system and _is_system(entry)):
            before.append(entry["id"])
    after = [e["id"] for e in path[cut + 1 :]]
    if compaction_first:
        return [compaction["id"], *before, *after]
    return [*before, compaction["id"], *after]


def dir_name(cwd):
    return "--" + re.sub(r"[/\\:]", "-", re.sub(r"^[/\\]", "", cwd)) + "--"


def labels(entries):
    out = {}
    for entry in entries:
        if entry["type"] != "label":
            continue
        if entry.get("label"):
            out[entry["targetId"]] = entry["label"]
        else:
            out.pop(entry["targetId"], None)
    return out


def bash_to_llm(message, *, always_code=False, ignore_cancel=False, drop_excluded=True):
    if drop_excluded and message.get("excludeFromContext"):
        return None
    text = f"Ran `{message['command']}`\n"
    text += f"```\n{message['output']}\n```" if message.get("output") else "(no output)"
    code = message.get("exitCode")
    if message.get("cancelled") and not ignore_cancel:
        text += "\n\n(command cancelled)"
    elif always_code or (code is not None and code != 0):
        text += f"\n\nCommand exited with code {code}"
    if message.get("truncated") and message.get("fullOutputPath"):
        text += f"\n\n[Output truncated. Full output: {message['fullOutputPath']}]"
    return {
        "role": "user",
        "content": [{"type": "text", "text": text}],
        "timestamp": message["timestamp"],
    }


# --- plausible wrong answers -------------------------------------------------------


def walk_by_timestamp(entries, leaf_id):
    """What pi-tree-viz-style tools do: everything up to the leaf's time, sorted."""
    leaf = next(e for e in entries if e["id"] == leaf_id)
    older = [e for e in entries if e["timestamp"] <= leaf["timestamp"]]
    return [e["id"] for e in sorted(older, key=lambda e: e["timestamp"])]


def walk_in_file_order(entries, leaf_id):
    out = []
    for entry in entries:
        out.append(entry["id"])
        if entry["id"] == leaf_id:
            return out
    return out


def walk_leaf_first(entries, leaf_id):
    return walk(entries, leaf_id)[::-1]


def leaf_by_newest_timestamp(entries):
    return max(entries, key=lambda e: e["timestamp"])["id"]


def leaf_last_message(entries):
    return [e for e in entries if e["type"] == "message"][-1]["id"]


def dir_name_chapter(cwd):
    """The chapter's example: the drive colon disappears (C:\\work\\api -> --C-work-api--)."""
    return dir_name(cwd.replace(":", ""))


def dir_name_strip_all(cwd):
    return "--" + re.sub(r"[/\\:]", "-", cwd.lstrip("/\\")) + "--"


def labels_never_cleared(entries):
    return {e["targetId"]: e["label"] for e in entries if e["type"] == "label" and e.get("label")}


def stub(*args):
    raise NotImplementedError


# --- tests -------------------------------------------------------------------------

CHECKS = [
    (workshop.check_walk, walk, [walk_by_timestamp, walk_in_file_order, walk_leaf_first]),
    (workshop.check_default_leaf, default_leaf, [leaf_by_newest_timestamp, leaf_last_message]),
    (
        workshop.check_kept_range,
        kept_range,
        [
            lambda p: kept_range(p, drop_system=False),
            lambda p: kept_range(p, newest=False),
            lambda p: kept_range(p, compaction_first=False),
        ],
    ),
    (workshop.check_session_dir_name, dir_name, [dir_name_chapter, dir_name_strip_all]),
    (workshop.check_labels, labels, [labels_never_cleared]),
    (
        workshop.check_bash_to_llm,
        bash_to_llm,
        [
            lambda m: bash_to_llm(m, always_code=True),
            lambda m: bash_to_llm(m, ignore_cancel=True),
            lambda m: bash_to_llm(m, drop_excluded=False),
        ],
    ),
]
IDS = [check.__name__ for check, _, _ in CHECKS]


@pytest.mark.parametrize(("check", "right", "wrongs"), CHECKS, ids=IDS)
def test_accepts_the_reference_solution(check, right, wrongs, capsys):
    assert check(right) is True
    assert ": correct." in capsys.readouterr().out


@pytest.mark.parametrize(("check", "right", "wrongs"), CHECKS, ids=IDS)
def test_rejects_plausible_wrong_solutions(check, right, wrongs, capsys):
    for wrong in wrongs:
        assert check(wrong) is False
        out = capsys.readouterr().out
        assert ": not yet." in out
        assert "First case that differs" in out


@pytest.mark.parametrize(("check", "right", "wrongs"), CHECKS, ids=IDS)
def test_a_stub_gets_a_not_yet(check, right, wrongs, capsys):
    assert check(stub) is False
    assert "NotImplementedError" in capsys.readouterr().out


def test_an_exception_names_the_case(capsys):
    assert workshop.check_walk(lambda entries, leaf_id: entries[999]) is False
    out = capsys.readouterr().out
    assert "IndexError" in out and "On case" in out


def test_specific_hints(capsys):
    workshop.check_kept_range(lambda p: kept_range(p, drop_system=False))
    assert "system message" in capsys.readouterr().out
    workshop.check_session_dir_name(dir_name_chapter)
    assert "--C--work-api--" in capsys.readouterr().out
    workshop.check_walk(walk_by_timestamp)
    assert "not an ancestor" in capsys.readouterr().out


def test_the_reader_may_mutate_the_entries(capsys):
    def destructive(entries, leaf_id):
        answer = walk(entries, leaf_id)
        entries.clear()
        return answer

    assert workshop.check_walk(destructive) is True
    assert workshop.check_walk(walk) is True


def test_cases_cover_several_leaves_and_the_samples():
    names = {case.name.split(",")[0] for case in workshop.walk_cases()}
    assert set(workshop.SAMPLES) <= names
    tour_leaves = [c for c in workshop.walk_cases() if c.name.startswith("tour,")]
    assert len(tour_leaves) >= 3


def test_output_is_deterministic(capsys):
    workshop.check_walk(walk_by_timestamp)
    first = capsys.readouterr().out
    workshop.check_walk(walk_by_timestamp)
    assert capsys.readouterr().out == first
