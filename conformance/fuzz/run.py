#!/usr/bin/env python3
"""Differential fuzzing of pisession against Pi 0.87.1.

    python conformance/fuzz/run.py --seed 1 --count 2000       # a fixed slice
    python conformance/fuzz/run.py --minutes 60                 # a new seed, for an hour

Each mutant of the corpus (``mutate.py``) is read by Pi 0.87.1 (a long-lived Node
process, ``worker.mjs``) and by pisession (``compare.py``); every difference is
classified (``classify.py``), and the first few of each class are minimised
(``minimize.py``) into ``conformance/fuzz/found/<class>/``. Exit status: 0 when no
unexplained difference was found, 1 otherwise, 2 on a usage error; 0 with a ``SKIP``
line when Node or Pi 0.87.1 is not available.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parents[1]))  # this checkout's pisession, not an installed one

from classify import classify, slug  # noqa: E402
from compare import Finding, compare  # noqa: E402
from minimize import minimize  # noqa: E402
from mutate import Mutator, load_corpus  # noqa: E402
from oracle import Oracle, OracleTimeout, pi_version, unavailable_reason  # noqa: E402

FOUND = HERE / "found"


class Fuzzer:
    """One fuzzing run: mutants in, differences counted, classified and minimised."""

    def __init__(
        self,
        seed: int,
        out: Path,
        minimize_per_class: int,
        timeout: float,
        minimize_pending: bool = False,
    ):
        self.seed = seed
        self.out = out
        self.minimize_per_class = minimize_per_class
        self.minimize_pending = minimize_pending
        self.mutator = Mutator(load_corpus(), seed)
        self.oracle = Oracle(timeout=timeout)
        self.work = Path(tempfile.mkdtemp(prefix="pisession-fuzz-"))
        self.mutants = 0
        self.classes: Counter = Counter()
        self.pending: Counter = Counter()
        self.intended: Counter = Counter()
        self.unexplained: list[tuple[int, str]] = []
        self.minimised: Counter = Counter()

    def check(self, data: bytes, probes: bool = True, name: str = "mutant.jsonl"):
        """(findings, intended, answer) for one file's bytes."""
        path = self.work / name
        path.write_bytes(data)
        try:
            answer = self.oracle.ask(path)
        except OracleTimeout as exc:
            return None, [], {"timeout": str(exc)}
        if "error" in answer:
            return None, [], answer
        try:
            findings, intended = compare(path, answer, probes=probes)
        except Exception as exc:  # the comparison itself failed: report it, keep going
            kind = f"fuzzer-error:{type(exc).__name__}"
            findings, intended = [Finding(kind, f"{type(exc).__name__}: {str(exc)[:200]}")], []
        if findings and self._timestamps_involved(findings):
            answer["datesDiffer"] = self._dates_differ(data)
        return findings, intended, answer

    @staticmethod
    def _timestamps_involved(findings) -> bool:
        return any("timestamp" in f.kind or "tree-order" in f.kind for f in findings)

    def _dates_differ(self, data: bytes) -> bool:
        """Does pisession parse some timestamp string of the file differently from V8?"""
        from pisession.js.date import js_time_ms
        from pisession.js.json import LineDecodeError, loads

        values = []
        for line in data.split(b"\n"):
            try:
                value = loads(line) if line.strip() else None
            except (LineDecodeError, ValueError, RecursionError):
                continue
            if isinstance(value, dict) and "timestamp" in value:
                values.append(value["timestamp"])
        values = [
            v
            for v in values
            if isinstance(v, (str, type(None)))
            or (isinstance(v, (int, float)) and not isinstance(v, bool) and abs(v) < 1e300)
        ][:500]
        if not values:
            return False
        theirs = self.oracle.dates(values)
        for value, t in zip(values, theirs):
            ours = js_time_ms(value)
            if (t is None) != (ours != ours) or (t is not None and ours != t):
                return True
        return False

    def run_one(self, number: int) -> None:
        mutant = self.mutator.mutant(number)
        findings, intended, answer = self.check(mutant.data)
        self.mutants += 1
        for name in intended:
            self.intended[name] += 1
        if findings is None:
            if "timeout" in answer:
                self._record(mutant, "pi-timeout", False, [], answer)
            else:  # Pi's side could not be recorded (unserialisable): nothing to compare
                self.intended[f"not compared: {answer.get('error', '')[:60]}"] += 1
            return
        if not findings:
            return
        name, pending = classify(mutant.data, findings, answer)
        self._record(mutant, name, pending, findings, answer)

    def _record(self, mutant, name: str, pending: bool, findings, answer) -> None:
        self.classes[name] += 1
        if pending:
            self.pending[name] += 1
        else:
            self.unexplained.append((mutant.number, name))
        if self.minimised[name] >= self.minimize_per_class or (
            pending and not self.minimize_pending
        ):
            return
        self.minimised[name] += 1
        folder = self.out / slug(name)
        folder.mkdir(parents=True, exist_ok=True)
        stem = f"seed{self.seed}-{mutant.number}"
        (folder / f"{stem}.original.jsonl").write_bytes(mutant.data)
        small = mutant.data
        if name != "pi-timeout":
            small = minimize(mutant.data, lambda d: self._same_class(d, name))
        (folder / f"{stem}.jsonl").write_bytes(small)
        findings_small, _, answer_small = self.check(small)
        report = {
            "class": name,
            "pending": pending,
            "seed": self.seed,
            "mutant": mutant.number,
            "source": mutant.source,
            "operations": mutant.ops,
            "bytes": [len(mutant.data), len(small)],
            "findings": [f.__dict__ for f in (findings_small or findings)],
            "pi": answer_small.get("golden", answer_small),
        }
        from pisession.js.json import dumps

        (folder / f"{stem}.json").write_text(dumps(report, 1) + "\n", encoding="utf-8")

    def _same_class(self, data: bytes, name: str) -> bool:
        probes = name.startswith(("crash:", "cli-")) or "pending" in name
        findings, _, answer = self.check(data, probes=probes, name="candidate.jsonl")
        if not findings:
            return False
        return classify(data, findings, answer)[0] == name

    def close(self) -> None:
        self.oracle.close()
        for path in self.work.iterdir():
            path.unlink()
        self.work.rmdir()

    def summary(self, seconds: float) -> str:
        lines = [
            f"fuzz: Pi {pi_version()}, seed {self.seed}, {self.mutants} mutants in {seconds:.0f} s "
            f"({self.mutants / max(seconds, 1e-9):.1f}/s)",
            f"fuzz: {len(self.unexplained)} unexplained differences, "
            f"{sum(self.pending.values())} pending (known causes being fixed elsewhere)",
        ]
        for name, count in self.classes.most_common():
            tag = "pending" if name in self.pending else "UNEXPLAINED"
            lines.append(f"  {count:6d}  {tag:11s}  {name}")
        if self.intended:
            lines.append("documented differences seen (not counted):")
            for name, count in self.intended.most_common():
                lines.append(f"  {count:6d}  {name}")
        if self.unexplained:
            lines.append(f"minimised examples: {self.out}/<class>/")
            first = ", ".join(f"{n} ({c})" for n, c in self.unexplained[:5])
            lines.append(f"first: {first}")
        return "\n".join(lines)


def _interrupted(signum, frame) -> None:
    raise KeyboardInterrupt


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, help="mutant seed (default: a new random one)")
    parser.add_argument("--count", type=int, help="number of mutants")
    parser.add_argument("--minutes", type=float, help="run for this long (instead of --count)")
    parser.add_argument("--start", type=int, default=0, help="first mutant number")
    parser.add_argument("--out", type=Path, default=FOUND, help="where minimised files go")
    parser.add_argument("--minimize", type=int, default=2, help="examples minimised per class")
    parser.add_argument(
        "--minimize-pending",
        action="store_true",
        help="also minimise examples of the known, pending classes",
    )
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds Pi may take")
    parser.add_argument("--only", type=int, nargs="*", help="run just these mutant numbers")
    parser.add_argument("--json", type=Path, help="also write the totals here as JSON")
    parser.add_argument(
        "--tz",
        default="UTC",
        help="the time zone both sides read date-times without an offset in (TZ, default UTC)",
    )
    args = parser.parse_args(argv)
    if args.count is None and args.minutes is None and not args.only:
        parser.error("give --count N, --minutes M or --only N...")
    reason = unavailable_reason()
    if reason:
        print(f"SKIP differential fuzzing: {reason}")
        return 0
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(10**9)
    os.environ["TZ"] = args.tz  # pisession reads it here, the worker as FUZZ_TZ (oracle.py)
    time.tzset()
    signal.signal(signal.SIGTERM, _interrupted)  # `kill` stops the Node worker too
    fuzzer = Fuzzer(seed, args.out, args.minimize, args.timeout, args.minimize_pending)
    started = time.monotonic()
    deadline = started + args.minutes * 60 if args.minutes else None
    numbers = args.only or range(args.start, args.start + (args.count or 10**12))
    try:
        for i, number in enumerate(numbers):
            if deadline and time.monotonic() > deadline:
                break
            fuzzer.run_one(number)
            if i and i % 1000 == 0:
                elapsed = time.monotonic() - started
                print(
                    f"fuzz: {i} mutants, {len(fuzzer.unexplained)} unexplained, "
                    f"{sum(fuzzer.pending.values())} pending ({elapsed:.0f} s)",
                    flush=True,
                )
    except KeyboardInterrupt:
        print("fuzz: interrupted", flush=True)
    finally:
        fuzzer.close()
    elapsed = time.monotonic() - started
    print(fuzzer.summary(elapsed))
    if args.json:
        args.json.write_text(
            json.dumps(
                {
                    "seed": seed,
                    "start": args.start,
                    "mutants": fuzzer.mutants,
                    "seconds": round(elapsed),
                    "classes": dict(fuzzer.classes),
                    "pending": dict(fuzzer.pending),
                    "unexplained": fuzzer.unexplained,
                    "intended": dict(fuzzer.intended),
                },
                indent=1,
            )
            + "\n"
        )
    return 1 if fuzzer.unexplained else 0


if __name__ == "__main__":
    sys.exit(main())
