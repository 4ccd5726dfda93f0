"""One recording: a temp machine (``home/reader`` with a project and Pi's agent folder), the
fake provider, Pi's real CLI run in print, json and rpc modes, and the files it leaves,
with the temp prefix rewritten so paths read as on a reader's machine.

Used by ``run.py`` (``scenarios.py`` holds what each recording does).
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import queue
import re
import shutil
import signal
import struct
import subprocess
import tempfile
import threading
import time
import zlib
from pathlib import Path

from fakeprovider import FakeProvider

HERE = Path(__file__).resolve().parent
EXTENSION = HERE / "recorder-ext.ts"
#: Where the paths of the temp machine and of Pi's package read after rewriting.
READER_PACKAGE = "/usr/local/lib/node_modules/@earendil-works/pi-coding-agent"
PROJECT = "projects/demo-app"
OTHER_PROJECT = "projects/other-app"


class RecorderError(RuntimeError):
    pass


def png(width: int = 4, height: int = 3, rgb: tuple[int, int, int] = (200, 40, 40)) -> bytes:
    """A small valid PNG (one colour)."""
    raw = b"".join(b"\x00" + bytes(rgb) * width for _ in range(height))

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", ihdr)
        + chunk(b"IDAT", zlib.compress(raw))
        + chunk(b"IEND", b"")
    )


def models_json(port: int, cache_ttl: int | None = None) -> dict:
    """Pi's custom models config for the fake provider (two providers, three models)."""
    base = f"http://127.0.0.1:{port}"
    coder = {
        "id": "fake-coder",
        "name": "Fake Coder",
        "reasoning": True,
        "input": ["text", "image"],
        "contextWindow": 32000,
        "maxTokens": 4096,
        "cost": {"input": 3, "output": 15, "cacheRead": 0.3, "cacheWrite": 3.75},
    }
    if cache_ttl:
        coder["promptCache"] = {"short": cache_ttl}
        coder["cost"] = {"input": 300, "output": 15, "cacheRead": 0.3, "cacheWrite": 3750}
    return {
        "providers": {
            "fake": {
                "baseUrl": f"{base}/v1",
                "api": "openai-completions",
                "apiKey": "fake-key",
                "models": [
                    coder,
                    {
                        "id": "fake-text",
                        "name": "Fake Text Only",
                        "input": ["text"],
                        "contextWindow": 32000,
                        "maxTokens": 4096,
                        "cost": {"input": 1, "output": 2, "cacheRead": 0.1, "cacheWrite": 1},
                    },
                ],
            },
            "other": {
                "baseUrl": f"{base}/other/v1",
                "api": "openai-completions",
                "apiKey": "other-key",
                "models": [
                    {
                        "id": "other-thinker",
                        "name": "Other Thinker",
                        "reasoning": True,
                        "input": ["text", "image"],
                        "contextWindow": 64000,
                        "maxTokens": 4096,
                        "cost": {"input": 5, "output": 25, "cacheRead": 0.5, "cacheWrite": 6},
                    }
                ],
            },
        }
    }


class Rpc:
    """A ``pi --mode rpc`` process: commands with ids, events collected in order."""

    def __init__(self, rec: Recorder, args: list[str], cwd: Path) -> None:
        self.rec = rec
        self.proc = subprocess.Popen(
            [rec.node, str(rec.cli), "--mode", "rpc", *args],
            cwd=cwd,
            env=rec.env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        self.events: list[dict] = []
        self.inbox: queue.Queue = queue.Queue()
        self.next_id = 0
        self.stderr = b""
        threading.Thread(target=self._read, daemon=True).start()
        threading.Thread(target=self._read_err, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            try:
                record = json.loads(line)
            except ValueError:
                continue
            self.inbox.put(record)
        self.inbox.put(None)

    def _read_err(self) -> None:
        assert self.proc.stderr is not None
        self.stderr = self.proc.stderr.read()

    def _pump(self, until, timeout: float) -> dict:
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise RecorderError(f"rpc: timed out; stderr: {self.stderr[-600:]!r}")
            try:
                record = self.inbox.get(timeout=left)
            except queue.Empty:
                continue
            if record is None:
                raise RecorderError(f"rpc: pi exited; stderr: {self.stderr[-600:]!r}")
            self.events.append(record)
            if until(record):
                return record

    def send(self, type_: str, timeout: float = 60, **fields) -> dict:
        """A command and its response (raises when Pi says it failed)."""
        self.next_id += 1
        rid = f"r{self.next_id}"
        self._write({"id": rid, "type": type_, **fields})
        response = self._pump(lambda r: r.get("type") == "response" and r.get("id") == rid, timeout)
        if not response.get("success"):
            raise RecorderError(f"rpc {type_}: {response.get('error')}")
        return response.get("data") or {}

    def _write(self, obj: dict) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write((json.dumps(obj) + "\n").encode())
        self.proc.stdin.flush()

    def wait(self, type_: str, since: int | None = None, timeout: float = 60) -> dict:
        """The first event of ``type_`` from position ``since`` (default: the next one)."""
        if since is not None:
            for record in self.events[since:]:
                if record.get("type") == type_:
                    return record
        return self._pump(lambda r: r.get("type") == type_, timeout)

    def _call_deltas(self, since: int) -> int:
        return sum(
            1
            for r in self.events[since:]
            if r.get("type") == "message_update"
            and (r.get("assistantMessageEvent") or {}).get("type") == "toolcall_delta"
        )

    def mark(self) -> int:
        return len(self.events)

    def prompt(self, message: str, timeout: float = 90, wait: bool = True, **fields) -> dict:
        """A prompt, waited for until Pi settles (``agent_settled``)."""
        mark = self.mark()
        data = self.send("prompt", message=message, **fields)
        if wait and data.get("disposition", "started") == "started":
            self.wait("agent_settled", mark, timeout)
        return data

    def abort_when(self, type_: str, since: int, settle: bool = True, tool_calls: int = 0) -> None:
        """Abort once an event of ``type_`` has come (and, with ``tool_calls``, once the
        arguments of that many tool calls have streamed: two deltas each), then let
        hanging streams end."""
        self.wait(type_, since)
        while tool_calls and self._call_deltas(since) < 2 * tool_calls:
            self._pump(lambda r: r.get("type") == "message_update", 30)
        mark = self.mark()
        self.send("abort")
        self.rec.provider.release()
        if settle:
            self.wait("agent_settled", mark)

    def command(self, text: str) -> dict:
        """An extension command (``/rec-...``), handled at once."""
        return self.send("prompt", message=text)

    def close(self, timeout: float = 30) -> None:
        assert self.proc.stdin is not None
        with contextlib.suppress(BrokenPipeError):
            self.proc.stdin.close()
        try:
            self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.rec.rpc_logs.append(self.events)

    def kill(self) -> None:
        """SIGKILL: Pi gets no chance to finish (a tool call left without a result)."""
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait()
        self.rec.rpc_logs.append(self.events)


class Recorder:
    """The temp machine of one scenario, run with one Pi version."""

    def __init__(
        self, node: str, cli: Path, package_roots: list[str], cache_ttl: int | None = None
    ):
        self.node = node
        self.cli = cli
        self.package_roots = package_roots
        self.root = Path(tempfile.mkdtemp(prefix="pirec-"))
        self.home = self.root / "home" / "reader"
        self.cwd = self.home / PROJECT
        self.other = self.home / OTHER_PROJECT
        self.agent = self.home / ".pi" / "agent"
        self.provider = FakeProvider().start()
        self.rpc_logs: list[list[dict]] = []
        self.stats: dict[str, dict] = {}
        self.exports: dict[str, dict] = {}
        for folder in (self.cwd / "src", self.other, self.agent):
            folder.mkdir(parents=True, exist_ok=True)
        (self.cwd / "notes.txt").write_text("Ship the parser on Friday.\nTests: 12 passing.\n")
        (self.cwd / "src" / "app.py").write_text('def greet(name):\n    return "hi " + name\n')
        (self.cwd / "screenshot.png").write_bytes(png())
        (self.cwd / "diagram.png").write_bytes(png(6, 4, (30, 90, 200)))
        (self.other / "README.md").write_text("# other-app\n")
        models = models_json(self.provider.port, cache_ttl)
        (self.agent / "models.json").write_text(json.dumps(models, indent=2))
        settings = {
            "defaultProvider": "fake",
            "defaultModel": "fake-coder",
            "defaultThinkingLevel": "off",
            "quietStartup": True,
            "enableInstallTelemetry": False,
            "retry": {"enabled": True, "maxRetries": 2, "baseDelayMs": 20},
            "compaction": {"enabled": True, "reserveTokens": 8000, "keepRecentTokens": 60},
            "cacheWarming": "idle" if cache_ttl else "off",
        }
        (self.agent / "settings.json").write_text(json.dumps(settings, indent=2))
        path = os.path.dirname(node) + os.pathsep + "/usr/bin:/bin"
        self.env = {
            "PATH": path,
            "HOME": str(self.home),
            "PI_CODING_AGENT_DIR": str(self.agent),
            "PI_OFFLINE": "1",
            "PI_SKIP_VERSION_CHECK": "1",
            "PI_TELEMETRY": "0",
            "TZ": "UTC",
            "LANG": "C.UTF-8",
            "TERM": "dumb",
            "NO_COLOR": "1",
        }

    # --- running Pi ----------------------------------------------------------------

    def pi(self, *args: str, cwd: Path | None = None, timeout: float = 90) -> str:
        """``pi ARGS`` (print or json mode), to its end; returns stdout."""
        proc = subprocess.run(
            [self.node, str(self.cli), *args],
            cwd=cwd or self.cwd,
            env=self.env,
            capture_output=True,
            timeout=timeout,
            stdin=subprocess.DEVNULL,
        )
        if proc.returncode not in (0, 1):
            raise RecorderError(f"pi {args}: exit {proc.returncode}: {proc.stderr[-800:]!r}")
        return proc.stdout.decode("utf-8", "replace")

    def rpc(self, *args: str, cwd: Path | None = None) -> Rpc:
        return Rpc(self, list(args), cwd or self.cwd)

    def sessions(self) -> list[Path]:
        return sorted((self.agent / "sessions").glob("*/*.jsonl"))

    def ext(self) -> list[str]:
        return ["-e", str(EXTENSION)]

    # --- after the scenario ----------------------------------------------------------

    def record_stats(self) -> None:
        """Pi's ``get_session_stats`` for every session file (an rpc process per file,
        opened with ``--session``; the file must stay as it was)."""
        for path in self.sessions():
            before = path.read_bytes()
            rpc = self.rpc("--session", str(path), *self.ext())
            try:
                self.stats[str(path)] = rpc.send("get_session_stats")
            finally:
                rpc.close()
            self.rpc_logs.pop()
            if path.read_bytes() != before:
                raise RecorderError(f"{path.name}: opening it for get_session_stats changed it")

    def record_exports(self) -> None:
        """Pi's own ``--export`` page for every session file: the leaf it shows, the
        entries embedded in it and the path its viewer renders (the page's ``getPath``:
        from the leaf up the ``parentId`` chain, stopping at a missing or self parent)."""
        for path in self.sessions():
            page = self.root / "export.html"
            self.pi("--export", str(path), str(page))
            html = page.read_text("utf-8")
            found = re.search(r'<script id="session-data" type="application/json">([^<]*)<', html)
            if not found:
                raise RecorderError(f"{path.name}: no session data in Pi's export page")
            data = json.loads(base64.b64decode(found.group(1)))
            by_id = {e["id"]: e for e in data["entries"]}
            walk, current = [], by_id.get(data["leafId"])
            while current:
                walk.append(current)
                if not current.get("parentId") or current["parentId"] == current["id"]:
                    break
                current = by_id.get(current["parentId"])
            self.exports[str(path)] = {
                "leafId": data["leafId"],
                "entries": [e["id"] for e in data["entries"]],
                "path": [[e["id"], e["type"]] for e in reversed(walk)],
            }
            page.unlink()

    def rewrite(self, text: str) -> str:
        """The temp prefix and Pi's install folder, as on a reader's machine."""
        root = str(self.root)
        safe = root.lstrip("/").replace("/", "-")
        text = text.replace(f"--{safe}-", "--")
        text = text.replace(root + "/", "/")
        for package in sorted(self.package_roots, key=len, reverse=True):
            text = text.replace(package, READER_PACKAGE)
        return text

    def save(self, out: Path, name: str) -> None:
        """Write ``out/<name>/sessions/...``, ``out/<name>.requests.jsonl`` and
        ``out/<name>.cli.json`` (the rewritten session files, the request bodies, and what
        Pi's CLI answered: RPC ``get_session_stats`` and the ``--export`` page)."""
        folder = out / name
        if folder.exists():
            shutil.rmtree(folder)
        sessions_root = self.agent / "sessions"
        for path in self.sessions():
            target = folder / "sessions" / self.rewrite(str(path.relative_to(sessions_root)))
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(self.rewrite(path.read_text("utf-8")), "utf-8")
        lines = [
            json.dumps({"path": r["path"], "body": r["body"]}, ensure_ascii=False)
            for r in self.provider.requests
        ]
        (out / f"{name}.requests.jsonl").write_text(
            self.rewrite("".join(line + "\n" for line in lines)), "utf-8"
        )
        if os.environ.get("PI_RECORDER_EVENTS"):  # for debugging a scenario
            with open(out / f"{name}.events.jsonl", "w", encoding="utf-8") as handle:
                for n, events in enumerate(self.rpc_logs):
                    for event in events:
                        if event.get("type") not in ("message_update", "tool_execution_update"):
                            handle.write(self.rewrite(json.dumps({"rpc": n, **event})) + "\n")
        stats = {
            self.rewrite(str(Path(p).relative_to(sessions_root))): self._stats(s)
            for p, s in self.stats.items()
        }
        exports = {
            self.rewrite(str(Path(p).relative_to(sessions_root))): e
            for p, e in self.exports.items()
        }
        text = json.dumps(
            {"getSessionStats": stats, "exportPage": exports},
            indent=1,
            ensure_ascii=False,
            sort_keys=True,
        )
        (out / f"{name}.cli.json").write_text(self.rewrite(text) + "\n", "utf-8")

    @staticmethod
    def _stats(s: dict) -> dict:
        return {k: v for k, v in s.items() if k not in ("sessionFile",)}

    def close(self) -> None:
        self.provider.stop()
        shutil.rmtree(self.root, ignore_errors=True)
