"""``pisession.folders.usage`` equals Pi 1.6.0's own ``getUsageCostBreakdown`` on every file of the
corpus (``data/usage/breakdowns.json``, recorded by ``conformance/record-usage.mjs``),
for every entry and for the default leaf's path; summed over a folder, grouped, and
through ``pisession usage``."""

from __future__ import annotations

import csv
import io
import json
import math
import shutil
from pathlib import Path

import pytest

import pisession
from pisession.cli import main
from pisession.engine.stats import js_total
from pisession.errors import CycleError, SessionFormatError
from pisession.folders.usage import UsageError, scan_folder, session_breakdown, session_usage
from pisession.js.value import js_string

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = json.loads((ROOT / "data" / "usage" / "breakdowns.json").read_text("utf-8"))
FILES = GOLDEN["files"]


def _figure(value):
    """A figure as the golden stores it: a finite number, or its JavaScript type and text."""
    if type(value) in (int, float) and math.isfinite(value):
        return value
    return {"js": "string" if isinstance(value, str) else "number", "text": js_string(value)}


def _ours(path: str, branch: bool):
    rows = session_breakdown(pisession.load(ROOT / path), branch=branch)
    return [{"key": r.key, "cost": _figure(r.cost), "tokens": _figure(r.tokens)} for r in rows]


#: Folders whose every file has a recorded breakdown (``node conformance/record-usage.mjs``
#: records every folder of the corpus again).
COVERED = ("conformance/edge", "conformance/generated", "conformance/generated-1.6", "samples",
           "usage")  # fmt: skip


def test_the_goldens_cover_the_corpus():
    on_disk = {
        p.relative_to(ROOT).as_posix()
        for folder in COVERED
        for p in (ROOT / "data" / folder).glob("**/*.jsonl")
    }
    assert on_disk <= set(FILES)
    assert GOLDEN["pi"] == "1.6.0" and GOLDEN["function"] == "getUsageCostBreakdown"
    assert sum(1 for g in FILES.values() if g.get("all")) > 400  # most files have usage


@pytest.mark.parametrize("branch", [False, True], ids=["every-entry", "branch"])
@pytest.mark.parametrize("path", sorted(p for p in FILES if (ROOT / p).is_file()))
def test_breakdown_equals_pis_function(path, branch):
    golden = FILES[path]
    expected = golden.get("branch" if branch else "all", golden)
    if golden.get("note") == "no session header":  # Pi reads no entries; pisession refuses
        with pytest.raises(SessionFormatError):
            _ours(path, branch)
    elif isinstance(expected, list):
        assert _ours(path, branch) == expected
    elif expected == {"error": "parent cycle"}:  # Pi's walk would never end
        with pytest.raises(CycleError):
            _ours(path, branch)
    else:  # Pi throws (a migration, or its usage breakdown): pisession says where
        with pytest.raises((UsageError, SessionFormatError)) as caught:
            _ours(path, branch)
        assert ":" in str(caught.value)


def test_odd_figures_are_added_as_javascript_adds():
    rows = {r["key"]: r for r in FILES["data/usage/odd-figures.jsonl"]["all"]}
    assert rows["strings/claude"]["tokens"] == {"js": "string", "text": "05100"}
    assert rows["missing/claude"]["tokens"] == {"js": "number", "text": "NaN"}
    assert "zero/claude" not in rows and "negative/claude" not in rows
    assert (
        _ours("data/usage/odd-figures.jsonl", False) == FILES["data/usage/odd-figures.jsonl"]["all"]
    )


def _good_files() -> list[Path]:
    out = []
    for path, golden in sorted(FILES.items()):
        rows = golden.get("all")
        if isinstance(rows, list) and rows and "js" not in json.dumps(rows):
            out.append(ROOT / path)
    return out


def test_a_folder_total_is_the_sum_of_pis_per_session_figures():
    files = _good_files()
    usage = scan_folder(files, by="model", workers=2, per_file=True)
    assert usage.sessions == len(files) and not usage.skipped
    for row in usage.rows:
        per_file = [r for f in files for r in FILES[f.relative_to(ROOT).as_posix()]["all"]]
        mine = [r for r in per_file if r["key"] == row.group]
        assert row.tokens == js_total([r["tokens"] for r in mine])
        assert row.cost == js_total([r["cost"] for r in mine])
        assert row.sessions == len(mine)
    total = js_total(
        [r["tokens"] for f in files for r in FILES[f.relative_to(ROOT).as_posix()]["all"]]
    )
    assert usage.total.tokens == total


@pytest.mark.parametrize("by", ["day", "week", "month", "project", "session"])
def test_every_grouping_adds_up_to_the_same_tokens(by):
    files = _good_files()[:60]
    by_model = scan_folder(files, by="model", workers=1)
    grouped = scan_folder(files, by=by, workers=1)
    assert math.isclose(grouped.total.tokens, by_model.total.tokens)
    assert math.isclose(sum(r.tokens for r in grouped.rows), by_model.total.tokens)
    assert math.isclose(grouped.total.cost, by_model.total.cost, rel_tol=1e-9)


def test_since_and_until_keep_those_days_only():
    path = ROOT / "data/usage/odd-figures.jsonl"
    days = sorted({day for day, _ in session_usage(str(path)).days})
    assert len(days) == 3
    one = scan_folder([path], by="day", since=days[1], until=days[1], workers=1)
    cells = {k: f for (day, k), f in session_usage(str(path)).days.items() if day == days[1]}
    assert one.total.input == sum(f[0] for f in cells.values())
    assert {r.key for r in one.total.models} <= set(cells)
    assert scan_folder([path], by="day", since="2027-01-01", workers=1).total.input == 0


def test_bad_files_are_reported_skipped_and_counted(tmp_path):
    for name in ("tour.jsonl",):
        shutil.copy(ROOT / "data/samples" / name, tmp_path / name)
    shutil.copy(ROOT / "data/damaged/binary-garbage.jsonl", tmp_path / "garbage.jsonl")
    shutil.copy(ROOT / "data/conformance/edge/message-without-message-field.jsonl", tmp_path)
    (tmp_path / "unreadable.jsonl").mkdir()  # a folder with a session's name
    usage = scan_folder(sorted(tmp_path.glob("*.jsonl")), workers=1)
    assert usage.sessions == 1 and len(usage.skipped) == 3
    assert all("\n" not in p and p.count(":") >= 1 for p in usage.skipped)
    assert any(":3: Pi's usage breakdown throws here" in p for p in usage.skipped)


def test_to_records_feeds_a_data_frame_as_it_is():
    usage = scan_folder([ROOT / "data/samples/tour.jsonl"], by="model", workers=1)
    records = usage.to_records()
    assert records and all(type(r) is dict for r in records)
    assert all(type(v) in (str, int, float) for r in records for v in r.values())
    rows = session_breakdown(pisession.load(ROOT / "data/samples/tour.jsonl")).to_records()
    assert [r["key"] for r in rows] == [r["group"] for r in records]
    pandas = pytest.importorskip("pandas")
    assert list(pandas.DataFrame(records)["group"]) == [r["group"] for r in records]


# --- the command ------------------------------------------------------------------------


def _folder(tmp_path) -> Path:
    for name in ("tour.jsonl", "pi-0.87.1-a-print-multiturn-tools.jsonl", "legacy-v2.jsonl"):
        shutil.copy(ROOT / "data/samples" / name, tmp_path / name)
    (tmp_path / "broken.jsonl").write_bytes(b"\x00\x01 not json\n")
    return tmp_path


def test_usage_json_equals_the_library(tmp_path, capsys):
    folder = _folder(tmp_path)
    assert main(["usage", str(folder), "--json", "--by", "model"]) == 0
    out = json.loads(capsys.readouterr().out)
    expected = scan_folder(sorted(folder.glob("*.jsonl")), by="model", workers=1).to_dict()
    assert out == expected
    assert out["skipped"] == 1 and out["counts"] == "every entry"


def test_usage_table_and_csv(tmp_path, capsys):
    folder = _folder(tmp_path)
    assert main(["usage", str(folder), "--by", "month", "--width", "80"]) == 0
    captured = capsys.readouterr()
    assert "month" in captured.out and "total" in captured.out
    assert "1 file skipped" in captured.out
    assert "broken.jsonl" in captured.err and captured.err.count("\n") == 1
    assert all(len(line) <= 80 for line in captured.out.splitlines())
    assert main(["usage", str(folder), "--csv", "--by", "session"]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    usage = scan_folder(sorted(folder.glob("*.jsonl")), by="session", workers=1)
    assert [r["session"] for r in rows] == [r.group for r in usage.rows]
    assert [float(r["cost"]) for r in rows] == [r.cost for r in usage.rows]


def test_usage_branch_and_cwd(tmp_path, capsys):
    folder = _folder(tmp_path)
    assert main(["usage", str(folder), "--json", "--branch"]) == 0
    out = json.loads(capsys.readouterr().out)
    tour = pisession.load(folder / "tour.jsonl")
    assert out["counts"] == "the default leaf's path"
    branch = session_breakdown(tour, branch=True)
    assert out["total"]["tokens"] >= sum(r.tokens for r in branch)
    cwd = tour.header["cwd"]
    assert main(["usage", str(folder), "--json", "--cwd", cwd, "--by", "session"]) == 0
    out = json.loads(capsys.readouterr().out)
    same = [pisession.load(f) for f in sorted(folder.glob("*.jsonl")) if f.name != "broken.jsonl"]
    same = [s for s in same if s.header.get("cwd") == cwd]
    assert len(same) == 2  # tour and one of Pi's own files were made in demo-app
    assert sorted(r["group"] for r in out["rows"]) == sorted(s.id for s in same)
    assert out["total"]["tokens"] == sum(r.tokens for s in same for r in session_breakdown(s))
