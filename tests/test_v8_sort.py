"""``tree.v8_sort`` orders siblings as Node's own ``Array.prototype.sort`` does, also when
the comparator gives NaN (an invalid timestamp): V8 counts a NaN result as +0, which ends
a descending run at the start (found by the fuzzer, seed 20261201, mutant 12499)."""

from __future__ import annotations

import json
import random
import shutil
import subprocess

import pytest

from pisession.tree import v8_sort

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
