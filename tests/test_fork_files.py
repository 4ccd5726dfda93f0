"""The files of ``data/forks/`` are what Pi 0.87.1 writes for /clone, /fork and pi --fork.

``conformance/record-forks.mjs`` recorded them by calling Pi's ``SessionManager`` in Node 20
(notebook 02 shows them). Here: the facts notebook 02 states about them, read from the
recorded files (no Node needed), and a re-run of the recorder compared with the committed
files apart from what Pi draws at random or from the clock (header ids and timestamps, the
ids of new entries, the timestamps of new messages). The re-run is skipped without Node or Pi.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

import pisession

REPO = Path(__file__).resolve().parent.parent
FORKS = REPO / "data" / "forks"
SAMPLES = REPO / "data" / "samples"
MANIFEST = json.loads((FORKS / "forks.json").read_text())
CASES = {case["name"]: case for case in MANIFEST["cases"]}


def _load(name: str) -> pisession.Session:
    return pisession.load(FORKS / name)


def _values(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_manifest_names_every_file_and_only_those():
    named = {case["file"] for case in MANIFEST["cases"] if case["file"]}
    on_disk = {p.name for p in FORKS.glob("*.jsonl")}
    assert named == on_disk
    assert MANIFEST["pi"] == "0.87.1"
    assert MANIFEST["sourcesUnchanged"] is True


def test_every_new_file_names_its_parent_and_is_version_3():
    for case in MANIFEST["cases"]:
        header = _load(case["file"]).header if case["file"] else case["header"]
        assert header["version"] == 3
        assert header["parentSession"] == f"{MANIFEST['sessionsFolder']}/{case['source']}"


def test_clone_is_the_path_without_labels_relinked_and_labels_rewritten_at_the_end():
    tour = pisession.load(SAMPLES / "tour.jsonl")
    clone = _load(CASES["clone-tour"]["file"])
    path = tour.path(tour.entry(tour.default_leaf)["id"])
    kept = [e for e in path if e["type"] != "label"]
    assert [e["id"] for e in clone.entries[:-1]] == [e["id"] for e in kept]
    changed = {e["id"] for e, c in zip(kept, clone.entries, strict=False) if e != c}
    assert changed == {"u2000001"}  # the entry that followed the label
    assert clone.entry(clone.position_of("u2000001"))["parentId"] == "a2000001"
    new_label, old_label = clone.entries[-1], tour.entry(tour.position_of("lb000001"))
    assert new_label["type"] == "label" and new_label["id"] != old_label["id"]
    assert new_label["parentId"] == kept[-1]["id"]
    for key in ("targetId", "label", "timestamp"):
        assert new_label[key] == old_label[key]
    assert clone.context().to_json() == tour.context(kept[-1]["id"]).to_json()


def test_fork_on_a_user_message_stops_at_its_parent():
    fork = _load(CASES["fork-tour-u4000001"]["file"])
    ids = [e["id"] for e in fork.entries]
    assert "u4000001" not in ids and ids[-2] == "cp000001"
    assert fork.entries[-1]["type"] == "label"


def test_fork_on_the_first_user_message_of_a_real_file_waits_for_the_first_reply():
    case = CASES["fork-real-first-user"]
    assert case["writtenAtOnce"] is False and case["entriesInMemory"] == 3
    real = pisession.load(SAMPLES / "pi-0.87.1-a-print-multiturn-tools.jsonl")
    after = _load(case["file"])
    assert after.entries[:3] == real.entries[:3]  # model, thinking level, system message
    assert [e["message"]["role"] for e in after.entries[3:]] == ["user", "assistant"]


def test_fork_on_a_root_user_message_starts_an_empty_session():
    case = CASES["fork-root-user"]
    assert case["file"] is None and case["writtenAtOnce"] is False
    assert case["entriesInMemory"] == 0


def test_pi_fork_copies_every_entry_of_every_branch_reserialized():
    tour = pisession.load(SAMPLES / "tour.jsonl")
    forked = _load(CASES["pi-fork-tour"]["file"])
    assert forked.entries == tour.entries
    assert len(tour.leaves()) > 1
    assert forked.header["cwd"] == "/home/reader/projects/other-app"
    old = (SAMPLES / "tour.jsonl").read_bytes().splitlines()[1:]
    new = (FORKS / CASES["pi-fork-tour"]["file"]).read_bytes().splitlines()[1:]
    differing = [(a, b) for a, b in zip(old, new, strict=True) if a != b]
    assert len(differing) == 1 and b"2e-05" in differing[0][0] and b"0.00002" in differing[0][1]


# --- the re-run ----------------------------------------------------------------------


def _pi_ready() -> str | None:
    if shutil.which("node") is None:
        return "node is not installed"
    located = subprocess.run(
        ["node", "conformance/locate.mjs", "0.87.1"], cwd=REPO, capture_output=True
    )
    return (
        None if located.returncode == 0 else "Pi 0.87.1 is not installed (npm ci in conformance/)"
    )


def _normalized(values: list[dict], known: set[str]) -> list[dict]:
    """Header id/timestamp dropped; ids Pi made up numbered in file order; the clock's
    timestamps of new non-label entries dropped."""
    names: dict[str, str] = {}
    out = []
    for value in values:
        value = dict(value)
        if value.get("type") == "session":
            value.pop("id"), value.pop("timestamp")
        elif value["id"] not in known:
            names[value["id"]] = f"new-{len(names) + 1}"
            if value["type"] != "label":
                value.pop("timestamp")
        for key in ("id", "parentId"):
            if key in value:
                value[key] = names.get(value[key], value[key])
        out.append(value)
    return out


@pytest.mark.skipif(_pi_ready() is not None, reason=str(_pi_ready()))
def test_a_rerun_of_the_recorder_writes_the_same(tmp_path):
    run = subprocess.run(
        ["node", "conformance/record-forks.mjs", "--out", str(tmp_path)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr
    rerun = json.loads((tmp_path / "forks.json").read_text())
    for case in rerun["cases"]:
        case.get("header", {}).pop("id", None), case.get("header", {}).pop("timestamp", None)
    committed = json.loads(json.dumps(MANIFEST))
    for case in committed["cases"]:
        case.get("header", {}).pop("id", None), case.get("header", {}).pop("timestamp", None)
    assert rerun == committed
    known = {v.get("id") for name in MANIFEST["sources"] for v in _values(SAMPLES / name)}
    for case in MANIFEST["cases"]:
        if case["file"]:
            assert _normalized(_values(tmp_path / case["file"]), known) == _normalized(
                _values(FORKS / case["file"]), known
            ), case["name"]
