"""``js.sort.v8_sort`` orders siblings as Node's own ``Array.prototype.sort`` does, also when
the comparator gives NaN (an invalid timestamp): V8 counts a NaN result as +0, which ends
a descending run at the start (found by the fuzzer, seed 20261201, mutant 12499), and
above 64 items, where V8's TimSort merges runs with galloping (``data/v8sort``, recorded
by ``conformance/v8sort.mjs``)."""

from __future__ import annotations

import json
import random
import shutil
import subprocess
from functools import cmp_to_key
from pathlib import Path

import pytest

from pisession.js.sort import v8_sort

NAN = float("nan")

SORT_IN_NODE = """
const arrays = JSON.parse(require("fs").readFileSync(0, "utf8"));
const orders = arrays.map((values) => {
  const times = values.map((v) => (v === null ? NaN : v));
  return times.map((_, i) => i).sort((a, b) => times[a] - times[b]);
});
process.stdout.write(JSON.stringify(orders));
"""


def _cases(count: int = 400, seed: int = 12499) -> list[list[float]]:
    rng = random.Random(seed)
    pool = [1.0, 2.0, 3.0, 5.0, NAN]
    return [[rng.choice(pool) for _ in range(rng.randint(2, 63))] for _ in range(count)]


def _sorted_here(values: list[float]) -> list[int]:
    return v8_sort(list(range(len(values))), lambda a, b: values[a] - values[b])


def test_a_nan_ends_a_descending_run_as_in_v8():
    later, earlier, invalid = 1796007584844.0, 980985600000.0, NAN
    times = [later, earlier, invalid]  # the fuzzer's three siblings, in file order
    assert _sorted_here(times) == [1, 0, 2]  # Node: earlier, later, invalid


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_v8_sort_equals_nodes_sort_with_nan_results():
    cases = _cases()
    encoded = json.dumps([[None if v != v else v for v in values] for values in cases])
    done = subprocess.run(
        ["node", "-e", SORT_IN_NODE], input=encoded, capture_output=True, text=True, check=True
    )
    expected = json.loads(done.stdout)
    assert [_sorted_here(values) for values in cases] == expected


# --- V8's whole TimSort (issue 31, item 3): cases recorded from Node -------------------

CASES = Path(__file__).resolve().parents[1] / "data" / "v8sort" / "cases.json"
RECORDER = Path(__file__).resolve().parents[1] / "conformance" / "v8sort.mjs"


def _comparator(case: dict):
    keys = [NAN if v is None else v for v in case["keys"]]
    if case["kind"] == "minus":
        return lambda a, b: keys[a] - keys[b]
    return lambda a, b: keys[(a * 31 + b * 17) % len(keys)]  # inconsistent on purpose


def _recorded() -> list[dict]:
    return json.loads(CASES.read_text())["cases"]


@pytest.mark.parametrize("case", _recorded(), ids=lambda c: f"{c['style']}-{len(c['order'])}")
def test_v8_sort_equals_nodes_recorded_order(case):
    size = len(case["order"])
    assert v8_sort(list(range(size)), _comparator(case)) == case["order"]


def test_the_recorded_cases_tell_v8_from_a_stable_sort():
    """Sizes 0 to 600, NaN, ties and inconsistent comparators; some of them Python's
    own stable sort orders otherwise (it merges runs in another order)."""
    cases = _recorded()
    sizes = {len(c["order"]) for c in cases}
    assert min(sizes) == 0 and max(sizes) == 600 and {64, 65, 128, 129} <= sizes
    assert {c["kind"] for c in cases} == {"minus", "table"}

    def stable(case):
        compare = _comparator(case)

        def order(a, b):
            value = compare(a, b)
            return 0 if value != value else (value > 0) - (value < 0)

        return sorted(range(len(case["order"])), key=cmp_to_key(order))

    assert any(stable(c) != c["order"] for c in cases)


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_the_recorded_cases_are_nodes_own():
    done = subprocess.run(
        ["node", str(RECORDER), "--stdout"], capture_output=True, text=True, check=True
    )
    assert json.loads(done.stdout)["cases"] == _recorded()
