"""Forks and clones counted once by ``usage``, against Pi's own breakdown.

``data/forks/folder`` (made by Pi 0.87.1's ``SessionManager``) and
``data/forks/pi-1.6.0/folder`` (by Pi 1.6.0's) hold two sessions and a fork or clone by
every route Pi has, each continued with a reply of its own (``conformance/record-forks.mjs``;
``folder.json`` names the routes). ``data/forks/usage.json`` is Pi 1.6.0's
``getUsageCostBreakdown`` over each file's entries that count there and over the distinct
entries (``conformance/record-fork-usage.mjs``, which writes the rule again in JavaScript).
"""

from __future__ import annotations

import json
import random
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from pisession.cli import main
from pisession.folders.forks import FileHeader, left_out
from pisession.folders.usage import file_header, scan_folder, session_usage

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = json.loads((ROOT / "data/forks/usage.json").read_text())
FOLDERS = sorted(GOLDEN["folders"])


def _files(folder: str) -> list[Path]:
    return sorted((ROOT / folder).glob("*.jsonl"))


@pytest.mark.parametrize("folder", FOLDERS)
def test_the_folder_holds_a_copy_made_by_every_route(folder):
    routes = {f["route"] for f in json.loads((ROOT / folder / "folder.json").read_text())["files"]}
    assert {"CLI --fork", "RPC fork", "clone", "/fork at the first message"} <= routes
    assert any("RPC clone" in r for r in routes) and any("not in the folder" in r for r in routes)
    calls = json.loads((ROOT / folder / "folder.json").read_text())["files"]
    assert any("labels rewritten" in c["call"] for c in calls)


@pytest.mark.parametrize("folder", FOLDERS)
def test_usage_is_pis_breakdown_over_the_distinct_entries(folder):
    golden = GOLDEN["folders"][folder]
    usage = scan_folder(_files(folder), by="model", workers=1)
    assert [(r.group, r.tokens, r.cost) for r in usage.rows] == [
        (r["key"], r["tokens"], r["cost"]) for r in golden["perSession"]
    ]
    assert usage.left_out == golden["leftOut"] > 0
    distinct = {r["key"]: r for r in golden["distinct"]}
    for row in usage.rows:
        assert row.tokens == distinct[row.group]["tokens"]
        assert row.cost == pytest.approx(distinct[row.group]["cost"], rel=1e-12)


@pytest.mark.parametrize("folder", FOLDERS)
def test_each_file_counts_what_it_wrote_first(folder):
    golden = GOLDEN["folders"][folder]["files"]
    files = _files(folder)
    headers = [file_header(f) for f in files]
    entries = [session_usage(str(f), identify=True).entries for f in files]
    gone = left_out(headers, entries)
    for index, path in enumerate(files):
        mine = session_usage(str(path), leave_out=gone.get(index, ()))
        assert mine.breakdown.pi_rows() == golden[path.name]["kept"], path.name
        assert len(gone.get(index, ())) == golden[path.name]["leftOut"], path.name
        assert session_usage(str(path)).breakdown.pi_rows() == golden[path.name]["all"]
    assert golden["tour.jsonl"]["leftOut"] == golden["real.jsonl"]["leftOut"] == 0


@pytest.mark.parametrize("folder", FOLDERS)
def test_per_file_keeps_pis_per_session_numbers(folder):
    golden = GOLDEN["folders"][folder]["files"]
    usage = scan_folder(_files(folder), by="model", workers=1, per_file=True)
    every = [r for f in golden.values() for r in f["all"]]
    assert usage.total.tokens == sum(r["tokens"] for r in every)
    assert usage.left_out == 0 and usage.per_file


def test_the_scan_order_does_not_matter():
    files = _files(FOLDERS[0])
    first = scan_folder(files, by="model", workers=1)
    shuffled = files[:]
    random.Random(4).shuffle(shuffled)
    again = scan_folder(shuffled, by="model", workers=2)
    assert [(r.group, r.tokens) for r in again.rows] == [(r.group, r.tokens) for r in first.rows]
    assert again.left_out == first.left_out


def test_a_fork_whose_parent_is_not_in_the_scan_counts_its_copies_once():
    folder = ROOT / FOLDERS[0]
    fork = folder / "7-cli-fork-of-a-parent-not-in-the-folder.jsonl"
    clone = folder / "8-clone-of-that-fork.jsonl"
    alone = scan_folder([fork], workers=1)
    assert alone.left_out == 0 and alone.total.tokens > 0
    both = scan_folder([clone, fork], workers=1)
    assert both.total.tokens == alone.total.tokens and both.left_out > 0


def test_the_same_session_found_twice_counts_once(tmp_path):
    tour = ROOT / "data/samples/tour.jsonl"
    (tmp_path / "a").mkdir(), (tmp_path / "b").mkdir()
    shutil.copy(tour, tmp_path / "a/tour.jsonl"), shutil.copy(tour, tmp_path / "b/tour.jsonl")
    once = scan_folder([tour], workers=1)
    twice = scan_folder([tmp_path / "a/tour.jsonl", tmp_path / "b/tour.jsonl"], workers=1)
    assert twice.total.tokens == once.total.tokens and twice.left_out > 0


def test_without_forks_nothing_is_compared():
    assert left_out([FileHeader("a", 1, None), FileHeader("b", 2, None)], [None, None]) == {}


def test_the_command_says_how_many_copies_it_left_out(capsys):
    folder = ROOT / FOLDERS[0]
    assert main(["usage", str(folder), "--width", "100"]) == 0
    out = capsys.readouterr().out
    left = GOLDEN["folders"][FOLDERS[0]]["leftOut"]
    assert f"{left} copied entries" in out and "--per-file" in out
    assert main(["usage", str(folder), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["copiesLeftOut"] == left and data["perFile"] is False
    assert main(["usage", str(folder), "--json", "--per-file"]) == 0
    assert json.loads(capsys.readouterr().out)["copiesLeftOut"] == 0


def _node_ready() -> str | None:
    if shutil.which("node") is None:
        return "node is not installed"
    located = subprocess.run(
        ["node", "conformance/locate.mjs", "1.6.0"], cwd=ROOT, capture_output=True
    )
    return None if located.returncode == 0 else "Pi 1.6.0 is not installed"


@pytest.mark.skipif(_node_ready() is not None, reason=str(_node_ready()))
def test_the_golden_is_pis_answer_today():
    run = subprocess.run(
        ["node", "conformance/record-fork-usage.mjs", "--check"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr


def test_branch_counts_each_path_entry_once():
    folder = ROOT / FOLDERS[0]
    tour, clone = folder / "tour.jsonl", folder / "3-clone.jsonl"
    alone = scan_folder([tour], branch=True, workers=1)
    both = scan_folder([clone, tour], branch=True, workers=1)
    reply = session_usage(str(clone)).breakdown  # the clone's own reply: 300 + 30 + 3 tokens
    assert both.total.tokens == alone.total.tokens + 333
    assert both.left_out > 0 and sum(r.tokens for r in reply) > both.total.tokens - 333


def test_a_header_without_a_time_comes_last():
    from pisession.folders.forks import FileEntries, file_order

    nan = float("nan")
    headers = [FileHeader("a", nan, "/p"), FileHeader("b", 5, None)]
    assert file_order(headers) == [1, 0]
    same = [FileEntries([3], [b"x"]), FileEntries([7], [b"x"])]
    assert left_out(headers, same) == {0: [3]}


def _same_apart_from_the_draws(values: list[dict], known: set) -> list[dict]:
    """Header id and time dropped; ids Pi drew numbered in file order; the clock's times
    of new entries and their messages dropped."""
    names: dict[str, str] = {}
    out = []
    for value in values:
        value = json.loads(json.dumps(value))
        if value.get("type") == "session":
            value.pop("id"), value.pop("timestamp")
            parent = value.get("parentSession", "")  # a fork's file name: Pi's time and id
            value["parentSession"] = re.sub(r"/[^/]*_[0-9a-f-]{36}\.jsonl$", "/<drawn>", parent)
        elif value["id"] not in known:
            names[value["id"]] = f"new-{len(names) + 1}"
            if value["type"] != "label":
                value.pop("timestamp")
                value.get("message", {}).pop("timestamp", None)
        for key in ("id", "parentId"):
            if key in value:
                value[key] = names.get(value[key], value[key])
        out.append(value)
    return out


@pytest.mark.parametrize("version, folder", [("0.87.1", FOLDERS[0]), ("1.6.0", FOLDERS[1])])
def test_a_rerun_of_the_recorder_makes_the_same_folder(version, folder, tmp_path):
    import os

    if shutil.which("node") is None:
        pytest.skip("node is not installed")
    found = subprocess.run(
        ["node", "conformance/locate.mjs", version], cwd=ROOT, capture_output=True
    )
    if found.returncode != 0:
        pytest.skip(f"Pi {version} is not installed")
    run = subprocess.run(
        ["node", "conformance/record-forks.mjs", "--out", str(tmp_path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PI_ORACLE_VERSION": version},
    )
    assert run.returncode == 0, run.stderr
    committed, again = ROOT / folder, tmp_path / "folder"
    manifest = json.loads((committed / "folder.json").read_text())
    rerun = json.loads((again / "folder.json").read_text())
    assert rerun["pi"] == manifest["pi"] == version
    assert [f["route"] for f in rerun["files"]] == [f["route"] for f in manifest["files"]]
    assert sorted(p.name for p in again.glob("*.jsonl")) == [p.name for p in _files(folder)]
    known = {
        json.loads(line).get("id")
        for name in ("tour.jsonl", "real.jsonl")
        for line in (committed / name).read_text().splitlines()
    }
    for path in _files(folder):
        mine = [json.loads(line) for line in path.read_text().splitlines()]
        theirs = [json.loads(line) for line in (again / path.name).read_text().splitlines()]
        assert _same_apart_from_the_draws(theirs, known) == _same_apart_from_the_draws(
            mine, known
        ), path.name
