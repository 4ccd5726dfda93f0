"""Two checkouts of pisession on the same files, in one run: before and after a change.

    python benchmarks/compare_trees.py BEFORE_DIR AFTER_DIR FILE ... [--runs 5]

``bench.py``'s commands (and ``import pisession.cli`` alone) run as whole processes with
``PYTHONPATH`` set to each checkout, interleaved: in every round each command runs once
per checkout, the order of the two alternating from round to round, so a shared machine
whose speed drifts slows both alike. First each command's output is compared between the
two checkouts (SHA-256, read in pieces). The table gives the median wall time of each,
the median of the per-round ratios (after / before), median CPU time and peak memory
(``ru_maxrss`` from ``os.wait4``, as in ``bench.py``).
"""

from __future__ import annotations

import argparse
import compileall
import os
import statistics
import sys
from pathlib import Path

from bench import COMMANDS, digest_of, run_once  # the benchmark table's (this folder)


def argv_of(command: str, path: Path) -> list[str]:
    """The process for one command on one file (``import`` alone: the CLI's imports)."""
    if command == "import":
        return [sys.executable, "-c", "import pisession.cli"]
    words = command.split()
    return [sys.executable, "-m", "pisession", words[0], str(path), *words[1:]]


def compare_file(trees: dict[str, Path], path: Path, runs: int) -> list[tuple]:
    """One row per command: file, command, the medians of both checkouts and the ratio."""
    commands = {c: argv_of(c, path) for c in (*COMMANDS, "import")}
    (a, tree_a), (b, tree_b) = trees.items()
    same = all(digest_of(v, tree_a) == digest_of(v, tree_b) for v in commands.values())
    print(f"{path.name}: every output the same on {a} and {b}: {same}")
    samples: dict[tuple[str, str], list] = {(t, c): [] for t in trees for c in commands}
    for round_ in range(runs):
        for command, argv in commands.items():
            for name in list(trees)[:: 1 if round_ % 2 == 0 else -1]:
                samples[(name, command)].append(run_once(argv, trees[name]))
    rows = []
    for command in commands:
        before, after = samples[(a, command)], samples[(b, command)]
        rows.append(
            (
                path.name,
                command,
                statistics.median(w for w, _, _ in before),
                statistics.median(w for w, _, _ in after),
                statistics.median(y[0] / x[0] for x, y in zip(before, after)),
                statistics.median(c for _, _, c in before),
                statistics.median(c for _, _, c in after),
                max(m for _, m, _ in before),
                max(m for _, m, _ in after),
            )
        )
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("before", type=Path, help="checkout before the change")
    parser.add_argument("after", type=Path, help="checkout after the change")
    parser.add_argument("files", nargs="+", type=Path, help="session files")
    parser.add_argument("--runs", type=int, default=5, help="rounds (default 5)")
    args = parser.parse_args(argv)
    trees = {"before": args.before.resolve(), "after": args.after.resolve()}
    for tree in trees.values():
        compileall.compile_dir(tree / "pisession", quiet=1)  # what an installed package has
    load = os.getloadavg()[0]
    print(f"{os.cpu_count()} CPUs; python {sys.version.split()[0]}; runs={args.runs}; ", end="")
    print(f"load average {load:.2f} at the start")
    rows = [row for path in args.files for row in compare_file(trees, path, args.runs)]
    print(
        "\n| file | command | before s | after s | after/before | before cpu s | "
        "after cpu s | before MB | after MB |\n|---|---|---:|---:|---:|---:|---:|---:|---:|"
    )
    for r in rows:
        print(
            f"| {r[0]} | `{r[1]}` | {r[2]:.3f} | {r[3]:.3f} | {r[4]:.2f} | {r[5]:.2f} | "
            f"{r[6]:.2f} | {r[7]:.0f} | {r[8]:.0f} |"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
