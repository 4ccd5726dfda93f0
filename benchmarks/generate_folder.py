"""Generate a sessions folder like a heavy Pi user's, for the folder benchmarks
(``pisession usage`` and ``search``): many projects, sessions spread over many months,
sizes from a few entries to tens of thousands, stored as Pi stores them
(``<root>/--home-me-<project>--/<timestamp>_<id>.jsonl``).

Each session is ``generate.py``'s realistic session (turns, tool calls, compactions with
usage, branches with summaries, ``usage`` entries), with its own seed, start time and
working directory; about one session in five answers through a router (provider
``openrouter``, model ``auto``, the answering model in ``responseModel``, as Pi 1.6.0
writes it). Three damaged files sit among them (binary garbage, no header, a truncated
last line), as a real folder may hold. The same arguments always give the same bytes::

    python benchmarks/generate_folder.py --sessions 2000 --size 2000 --out benchmarks/out/folder

``--size`` is the folder's size in MB (about; the sizes are drawn, then scaled).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import os
import random
import sys
from datetime import datetime, timedelta, timezone
from multiprocessing import Pool
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from generate import Generator, _Full, _Truncating

from pisession.files import session_dir_name, session_file_name

#: Bytes per entry of ``generate.py``'s sessions, on average (measured: 14.7 MB / 10,000).
BYTES_PER_ENTRY = 1470

_PROJECTS = [
    "api", "web", "cli", "docs", "infra", "mobile", "ml-pipeline", "billing", "auth", "search",
    "etl", "dashboard", "sdk-python", "sdk-js", "game", "blog", "notes", "dotfiles", "scraper",
    "compiler", "kernel-module", "chat", "payments", "analytics", "shop", "crm", "wiki", "bot",
    "ops", "research", "thesis", "homelab", "agent", "plugin", "theme", "parser", "db", "queue",
    "cache", "gateway",
]  # fmt: skip

_ROUTED = [("anthropic/claude-sonnet-4.5", "openrouter"), ("openai/gpt-5", "openrouter")]


class FolderSession(Generator):
    """A ``Generator`` session with its own start, cwd and, when ``routed``, assistant
    messages that name the router's ``auto`` model and the answering ``responseModel``."""

    def __init__(self, entries: int, seed: int, out, start: datetime, cwd: str, routed: bool):
        super().__init__(entries, seed, out)
        self.clock = start
        self.cwd = cwd
        self.routed = routed

    def _emit(self, entry: dict, role: str | None = None) -> str:
        message = entry.get("message")
        if self.routed and isinstance(message, dict) and message.get("role") == "assistant":
            answered, provider = _ROUTED[self.rng.getrandbits(1)]
            message["provider"], message["model"] = provider, "auto"
            message["responseModel"] = answered
        return super()._emit(entry, role)


def plan(sessions: int, size_mb: float, seed: int) -> list[tuple]:
    """What each session will be: (seed, entries, start, project, routed), in order."""
    rng = random.Random(seed)
    sizes = [rng.lognormvariate(0, 1.3) for _ in range(sessions)]
    scale = size_mb * 1e6 / BYTES_PER_ENTRY / sum(sizes)
    first = datetime(2025, 1, 6, 8, 0, tzinfo=timezone.utc)
    span = (datetime(2026, 11, 28, tzinfo=timezone.utc) - first).total_seconds()
    out = []
    for n, size in enumerate(sizes):
        entries = max(3, min(60_000, math.ceil(size * scale)))
        start = first + timedelta(seconds=int(span * n / sessions + rng.uniform(0, 3600)))
        project = _PROJECTS[min(int(rng.paretovariate(1.2)) - 1, len(_PROJECTS) - 1) * 7 % 40]
        out.append((seed * 100_003 + n, entries, start, project, rng.random() < 0.2))
    return out


def write_session(job: tuple) -> int:
    """Write one planned session under ``root``; returns its size in bytes."""
    root, (seed, entries, start, project, routed) = job
    cwd = f"/home/me/{project}"
    folder = Path(root) / session_dir_name(cwd)
    folder.mkdir(parents=True, exist_ok=True)
    temp = folder / f".writing-{seed}.jsonl"
    with open(temp, "wb", buffering=1 << 20) as handle:
        writer = _Truncating(handle, entries + 1)
        with contextlib.suppress(_Full):
            FolderSession(entries, seed, writer, start, cwd, routed).run()
    with open(temp, "rb") as handle:
        header = json.loads(handle.readline())
    target = folder / session_file_name(header["timestamp"], header["id"])
    os.replace(temp, target)
    return target.stat().st_size


def write_damaged(root: Path) -> None:
    """Three files Pi's loader would skip or repair, in one project's folder."""
    folder = root / session_dir_name("/home/me/api")
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "2025-03-01T10-00-00-000Z_damaged-garbage.jsonl").write_bytes(bytes(range(256)) * 4)
    (folder / "2025-03-02T10-00-00-000Z_damaged-no-header.jsonl").write_text(
        '{"type":"message","id":"a","parentId":null,"message":{"role":"user","content":"x"}}\n'
    )
    header = {"type": "session", "version": 3, "id": "damaged-truncated", "cwd": "/home/me/api",
              "timestamp": "2025-03-03T10:00:00.000Z"}  # fmt: skip
    (folder / "2025-03-03T10-00-00-000Z_damaged-truncated.jsonl").write_text(
        json.dumps(header) + '\n{"type":"message","id":"a","parentId":null,"mess'
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=2000)
    parser.add_argument("--size", type=float, default=2000, help="total size in MB (about)")
    parser.add_argument("--seed", type=int, default=28)
    parser.add_argument("--out", required=True, help="the sessions folder to write")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    args = parser.parse_args(argv)
    root = Path(args.out)
    if root.exists() and any(root.iterdir()):
        parser.error(f"{root}: exists and is not empty (pick a new folder)")
    root.mkdir(parents=True, exist_ok=True)
    jobs = [(str(root), p) for p in plan(args.sessions, args.size, args.seed)]
    with Pool(args.workers) as pool:
        total = sum(pool.imap(write_session, jobs, chunksize=8))
    write_damaged(root)
    print(f"{root}: {len(jobs)} sessions (+3 damaged files), {total / 1e6:.0f} MB", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
