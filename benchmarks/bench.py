"""Time ``pisession context`` against Pi 0.87.1 itself and a plain full-decode baseline.

    python benchmarks/bench.py                      # the default files (made if missing)
    python benchmarks/bench.py --runs 9 FILE ...    # any session files

For every file, each tool runs as a whole process, ``--runs`` times, round-robin (one run
of each tool in turn, so that a busy machine slows all of them alike), output to
/dev/null:

- ``pisession``: ``python -m pisession context FILE`` (what a user types);
- ``pi``: ``node benchmarks/pi_context.mjs FILE``: Pi's own ``loadEntriesFromFile``,
  ``migrateSessionEntries`` and ``buildSessionContext`` (skipped with a message when
  Node or Pi is missing; Pi from ``$PI_ORACLE_DIR/node_modules`` or
  ``conformance/node_modules``);
- ``orjson``: ``python benchmarks/naive_context.py FILE`` (every line decoded in full).

Wall time is measured around spawn-to-exit with ``time.perf_counter``; peak memory is
the child's own ``ru_maxrss`` as returned by ``os.wait4`` for that process (no
sampling, no ``/usr/bin/time``). The table gives medians. Before timing, each tool's
output is checked once against Pi's (parsed JSON compared).

Then, in this process: load the largest file once, build the default context, and
time ``context(leaf)`` (and ``context(leaf).to_json()``) for ``--leaves`` random other
leaves; and the start-up cost of ``import pisession.cli`` in a fresh interpreter.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
OUT = HERE / "out"
DEFAULT_SIZES = (10_000, 50_000, 200_000)


def default_file(entries: int) -> Path:
    """Where ``generate.py`` puts the session of this size (``benchmarks/out/``)."""
    return OUT / f"session-{entries // 1000}k.jsonl"


def ensure_file(entries: int) -> Path:
    """The default session of this size, generated first if it is missing."""
    path = default_file(entries)
    if not path.exists():
        cmd = [sys.executable, str(HERE / "generate.py"), "--entries", str(entries)]
        subprocess.run([*cmd, "--out", str(path)], check=True)
    return path


def pi_command(path: Path) -> list[str] | None:
    """The Pi reference command, or None (with the reason printed) if it cannot run."""
    node = shutil.which("node")
    if node is None:
        print("pi: skipped (node is not installed)")
        return None
    probe = subprocess.run(
        [node, str(HERE / "pi_context.mjs"), "--version"], capture_output=True, text=True
    )
    if probe.returncode != 0 or probe.stdout.strip() != "0.87.1":
        reason = probe.stderr.strip() or f"found Pi {probe.stdout.strip()!r}, not 0.87.1"
        print(f"pi: skipped ({reason})")
        return None
    return [node, str(HERE / "pi_context.mjs"), str(path)]


def commands(path: Path, with_pi: bool) -> dict[str, list[str]]:
    """Tool name -> argv, for one file."""
    cmds = {"pisession": [sys.executable, "-m", "pisession", "context", str(path)]}
    if with_pi:
        pi = pi_command(path)
        if pi is not None:
            cmds["pi"] = pi
    cmds["orjson"] = [sys.executable, str(HERE / "naive_context.py"), str(path)]
    return cmds


def run_once(argv: list[str]) -> tuple[float, float]:
    """Run a command with stdout to /dev/null; return (wall seconds, peak RSS in MB)."""
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    start = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, env=env, cwd=REPO)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise RuntimeError(f"{argv} exited with {proc.returncode}")
    return wall, usage.ru_maxrss / 1024  # Linux: kilobytes


def output_of(argv: list[str]) -> object:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    done = subprocess.run(argv, capture_output=True, env=env, cwd=REPO, check=True)
    return json.loads(done.stdout)


def bench_file(path: Path, runs: int, with_pi: bool) -> list[dict]:
    """Median wall time and peak memory of every tool on one file."""
    cmds = commands(path, with_pi)
    reference = output_of(cmds["pi"]) if "pi" in cmds else None
    for name, argv in cmds.items():
        if reference is not None and name != "pi" and output_of(argv) != reference:
            print(f"warning: {name}'s context differs from Pi's on {path.name}")
    times: dict[str, list[tuple[float, float]]] = {name: [] for name in cmds}
    for _ in range(runs):
        for name, argv in cmds.items():
            times[name].append(run_once(argv))
    rows = []
    for name, samples in times.items():
        walls = [w for w, _ in samples]
        rows.append(
            {
                "file": path.name,
                "size_mb": path.stat().st_size / 1e6,
                "tool": name,
                "median_s": statistics.median(walls),
                "min_s": min(walls),
                "peak_mb": max(m for _, m in samples),
            }
        )
    return rows


def other_leaf_latency(path: Path, count: int, seed: int = 6) -> dict:
    """Load once, then time contexts for ``count`` random leaves other than the default."""
    sys.path.insert(0, str(REPO))
    import pisession

    start = time.perf_counter()
    session = pisession.load(path)
    session.context().to_json()
    first = time.perf_counter() - start
    default = session.default_leaf
    leaves = [p for p in session.leaves() if p != default]
    chosen = random.Random(seed).sample(leaves, min(count, len(leaves)))
    plain, with_json = [], []
    for position in chosen:
        leaf = session.entry(position)["id"]
        t0 = time.perf_counter()
        context = session.context(leaf)
        t1 = time.perf_counter()
        context.to_json()
        t2 = time.perf_counter()
        plain.append((t1 - t0) * 1000)
        with_json.append((t2 - t0) * 1000)
    return {
        "file": path.name,
        "leaves": len(chosen),
        "first_context_s": first,
        "context_ms_median": statistics.median(plain),
        "context_ms_max": max(plain),
        "to_json_ms_median": statistics.median(with_json),
        "to_json_ms_max": max(with_json),
    }


def import_time(runs: int) -> tuple[float, float]:
    """Median seconds to ``import pisession.cli`` in a fresh interpreter, and the median
    start-up of a bare interpreter for comparison."""
    code = (
        "import time; t = time.perf_counter(); import pisession.cli; print(time.perf_counter() - t)"
    )
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    imports, bare = [], []
    for _ in range(runs):
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
        imports.append(float(out.stdout))
        bare.append(run_once([sys.executable, "-c", "pass"])[0])
    return statistics.median(imports), statistics.median(bare)


def print_table(rows: list[dict]) -> None:
    head = ("file", "MB", "tool", "median s", "min s", "peak MB", "vs Pi")
    print("{:<22} {:>6} {:<10} {:>9} {:>7} {:>8} {:>7}".format(*head))
    pi = {r["file"]: r for r in rows if r["tool"] == "pi"}
    for r in rows:
        ref = pi.get(r["file"])
        ratio = f"{r['median_s'] / ref['median_s']:.2f}" if ref else "-"
        print(
            f"{r['file']:<22} {r['size_mb']:>6.1f} {r['tool']:<10} {r['median_s']:>9.3f} "
            f"{r['min_s']:>7.3f} {r['peak_mb']:>8.0f} {ratio:>7}"
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="*", type=Path, help="session files (default: generated)")
    parser.add_argument("--runs", type=int, default=5, help="runs per tool and file (default 5)")
    parser.add_argument("--leaves", type=int, default=20, help="other leaves to time (default 20)")
    parser.add_argument("--no-pi", action="store_true", help="do not run Pi")
    parser.add_argument("--json", type=Path, help="also write the results as JSON here")
    args = parser.parse_args(argv)
    files = args.files or [ensure_file(n) for n in DEFAULT_SIZES]

    print(f"{os.cpu_count()} CPUs; python {sys.version.split()[0]}; runs={args.runs}\n")
    rows = []
    for path in files:
        rows.extend(bench_file(path, args.runs, not args.no_pi))
    print()
    print_table(rows)

    largest = max(files, key=lambda p: p.stat().st_size)
    leaf = other_leaf_latency(largest, args.leaves)
    print(
        f"\nother leaves ({leaf['file']}, {leaf['leaves']} random leaves, after one load and "
        f"the default context in {leaf['first_context_s']:.2f} s):\n"
        f"  context(leaf):           median {leaf['context_ms_median']:.1f} ms, "
        f"max {leaf['context_ms_max']:.1f} ms\n"
        f"  context(leaf).to_json(): median {leaf['to_json_ms_median']:.1f} ms, "
        f"max {leaf['to_json_ms_max']:.1f} ms"
    )
    imported, bare = import_time(args.runs)
    print(
        f"\nimport pisession.cli: {imported * 1000:.0f} ms (median; a bare interpreter starts "
        f"in {bare * 1000:.0f} ms)"
    )
    if args.json:
        args.json.write_text(
            json.dumps({"tools": rows, "other_leaf": leaf, "import_s": imported}, indent=2)
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
