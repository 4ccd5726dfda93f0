"""Time ``pisession usage`` against ccusage-pi and ``pisession search`` against rg on one
sessions folder, as whole processes: median wall time of ``--runs`` alternating runs and
the peak memory of the process tree (RSS summed over the process and its workers,
sampled every 20 ms), the files read once before each run so that they come from the
page cache. Writes ``benchmarks/out/folder-results.json`` and prints a table.

    python benchmarks/generate_folder.py --out benchmarks/out/folder-2gb/sessions
    python benchmarks/folder_bench.py benchmarks/out/folder-2gb/sessions \\
        --ccusage /tmp/ccusage/node_modules/.bin/ccusage-pi --pattern "index cache leaf"

ccusage-pi (npm ``@ccusage/pi``) is given the folder's parent as ``--piPath``; ``rg``
is Debian's ripgrep. Neither is a dependency: install them outside the repository.

``--small FOLDER`` (a folder of the same generator, a few sessions) also runs
``pisession usage`` and ``search`` there, in the same rounds, to show that the peak
memory follows the biggest session, not the folder.

``--cold`` also times ``pisession search`` and ``rg`` with the files read from disk: the
page cache is dropped (``/proc/sys/vm/drop_caches``, as root on Linux) before each of
those runs, as for a folder of old sessions nothing has read lately. Where the cache
cannot be dropped it prints SKIP and times the warm runs only.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
OUT = HERE / "out" / "folder-results.json"


def _tree_rss(pid: int) -> int:
    """RSS in bytes of ``pid`` and every process below it."""
    total, todo = 0, [pid]
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as handle:
                    parent = int(handle.read().rsplit(")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                continue
            children.setdefault(parent, []).append(int(entry))
    while todo:
        p = todo.pop()
        todo.extend(children.get(p, []))
        try:
            with open(f"/proc/{p}/statm") as handle:
                total += int(handle.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
        except (OSError, ValueError):
            pass
    return total


def run(command: list[str]) -> tuple[float, int, bytes]:
    """Wall seconds, peak tree RSS and stdout of one run. The output is read as it comes,
    by a thread of its own: read between memory samples instead, a tool whose output
    outgrows the pipe (rg prints whole JSON lines, 2 MB) would wait for each sample."""
    import threading

    chunks: list[bytes] = []
    start = time.perf_counter()
    with open(os.devnull, "wb") as null:
        process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=null)
        reader = threading.Thread(target=lambda: chunks.extend(iter(process.stdout.read1, b"")))
        reader.start()
        peak = 0
        while process.poll() is None:
            peak = max(peak, _tree_rss(process.pid))
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(0.02)  # returns as soon as the process ends
        reader.join()
    return time.perf_counter() - start, peak, b"".join(chunks)


DROP_CACHES = Path("/proc/sys/vm/drop_caches")


def drop_page_cache() -> bool:
    """Write the page cache's clean pages out of memory (True), or say it cannot (False)."""
    try:
        os.sync()
        DROP_CACHES.write_text("1\n")
    except OSError:
        return False
    return True


def read_through(folders: list[Path]) -> None:
    """Read every session file once (untimed), so that a warm run finds the files in the
    page cache: on a host short of memory a run before may have pushed them out."""
    for folder in folders:
        for path in folder.rglob("*.jsonl"):
            with open(path, "rb") as handle:
                while handle.read(1 << 24):
                    pass


def _size(folder: Path) -> tuple[int, int]:
    """Bytes and number of the session files under ``folder``."""
    sizes = [p.stat().st_size for p in folder.rglob("*.jsonl")]
    return sum(sizes), len(sizes)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", help="the sessions folder")
    parser.add_argument("--ccusage", required=True, help="the ccusage-pi command")
    parser.add_argument("--rg", default="rg")
    parser.add_argument("--pattern", default="index cache leaf")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--small", help="a small folder of the same generator (memory)")
    parser.add_argument("--cold", action="store_true", help="also search from disk (root)")
    args = parser.parse_args(argv)
    folder = Path(args.folder)
    py = [sys.executable, "-m", "pisession"]
    commands = {
        "pisession usage": [*py, "usage", str(folder), "--json"],
        "ccusage-pi": [args.ccusage, "daily", "--json", "--piPath", str(folder.parent)],
        "pisession search": [*py, "search", args.pattern, str(folder), "--json"],
        "rg": [args.rg, "-n", args.pattern, str(folder)],
    }
    if args.small:
        commands["pisession usage (small)"] = [*py, "usage", args.small, "--json"]
        commands["pisession search (small)"] = [*py, "search", args.pattern, args.small, "--json"]
    cold = {}
    if args.cold and drop_page_cache():
        cold = {f"{name} (cold)": commands[name] for name in ("pisession search", "rg")}
    elif args.cold:
        print(f"SKIP cold runs: cannot write {DROP_CACHES} (root on Linux only)")
    commands.update(cold)
    warm = [folder, *([Path(args.small)] if args.small else [])]
    times: dict[str, list[float]] = {name: [] for name in commands}
    peaks: dict[str, int] = dict.fromkeys(commands, 0)
    outputs: dict[str, bytes] = {}
    for _ in range(args.runs):
        for name, command in commands.items():
            if name in cold:
                drop_page_cache()
            else:
                read_through(warm)
            wall, peak, out = run(command)
            times[name].append(wall)
            peaks[name] = max(peaks[name], peak)
            outputs[name] = out
    size, files = _size(folder)
    usage = json.loads(outputs["pisession usage"])
    ccusage = json.loads(outputs["ccusage-pi"])
    search = json.loads(outputs["pisession search"])
    result = {
        "folder": {"files": files, "bytes": size},
        "small_folder": dict(zip(("bytes", "files"), _size(Path(args.small))))
        if args.small
        else None,
        "runs": args.runs,
        "pattern": args.pattern,
        "median_seconds": {n: statistics.median(t) for n, t in times.items()},
        "seconds": times,
        "peak_rss_mb": {n: round(p / 1e6) for n, p in peaks.items()},
        "pisession_total": usage["total"],
        "pisession_skipped": usage["skipped"],
        "ccusage_totals": ccusage["totals"],
        "search_hits": len(search["hits"]),
        "rg_lines": outputs["rg"].count(b"\n"),
    }
    OUT.parent.mkdir(exist_ok=True)
    OUT.write_text(json.dumps(result, indent=1) + "\n")
    median = result["median_seconds"]
    print(f"{files} files, {size / 1e9:.2f} GB, {args.runs} runs each (median wall, peak RSS)")
    if args.small:
        small = result["small_folder"]
        print(f"small folder: {small['files']} files, {small['bytes'] / 1e6:.1f} MB")
    for name in commands:
        print(f"{name:26} {median[name]:7.2f} s  {result['peak_rss_mb'][name]:6} MB")
    print(f"usage / ccusage-pi: {median['pisession usage'] / median['ccusage-pi']:.2f}x")
    print(f"search / rg:        {median['pisession search'] / median['rg']:.2f}x")
    if cold:
        ratio = median["pisession search (cold)"] / median["rg (cold)"]
        print(f"search / rg, cold:  {ratio:.2f}x")
    print(f"search hits {result['search_hits']}, rg lines {result['rg_lines']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
