"""The Node side, seen from Python: a long-lived ``worker.mjs`` process asked about one
file at a time. A request that takes longer than ``timeout`` seconds (Pi hanging in a
way the recorder did not foresee) kills the worker; the next request starts a new one.
"""

from __future__ import annotations

import contextlib
import json
import os
import selectors
import shutil
import subprocess
from pathlib import Path

from pisession.js.json import loads

HERE = Path(__file__).resolve().parent
CONFORMANCE = HERE.parent


class OracleUnavailable(RuntimeError):
    """No Node >= 20, or no Pi 0.87.1 where the conformance scripts look for it."""


class OracleTimeout(RuntimeError):
    """Pi did not answer in time (the worker was killed)."""


def pi_version() -> str:
    """The Pi version the worker loads: ``$PI_ORACLE_VERSION``, else the primary one of
    ``pisession/pi_versions.json`` (0.87.1), as ``conformance/pi.mjs`` decides."""
    versions = json.loads((CONFORMANCE.parent / "pisession" / "pi_versions.json").read_text())
    return os.environ.get("PI_ORACLE_VERSION") or versions["primary"]


def unavailable_reason() -> str | None:
    """Why the oracle cannot run here, or None when it can."""
    node = shutil.which("node")
    if node is None:
        return "node >= 20 not found"
    try:
        major = subprocess.run(
            [node, "-p", "process.versions.node.split('.')[0]"],
            capture_output=True,
            text=True,
            timeout=120,
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return "node does not run"
    if not major.isdigit() or int(major) < 20:
        return "node >= 20 not found"
    version = pi_version()
    try:  # conformance/locate.mjs: $PI_ORACLE_DIR, conformance/.pi/<V>, conformance/node_modules
        found = subprocess.run(
            [node, str(CONFORMANCE / "locate.mjs"), version], capture_output=True, timeout=120
        )
    except (OSError, subprocess.SubprocessError):
        return "node does not run"
    if found.returncode != 0:
        return f"Pi {version} not found (sh conformance/check.sh installs it; or set PI_ORACLE_DIR)"
    return None


class Oracle:
    """Ask Pi 0.87.1 about files: ``oracle.ask(path)`` -> the worker's answer."""

    def __init__(self, timeout: float = 30.0):
        self.timeout = timeout
        self._process: subprocess.Popen | None = None
        self._next = 0
        self._buffer = b""

    def _start(self) -> subprocess.Popen:
        reason = unavailable_reason()
        if reason:
            raise OracleUnavailable(reason)
        env = dict(os.environ, TZ="UTC", FUZZ_TZ=os.environ.get("TZ", "UTC"))
        self._process = subprocess.Popen(
            ["node", str(HERE / "worker.mjs")],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=env,
        )
        self._buffer = b""
        return self._process

    def ask(self, path: Path) -> dict:
        """Pi's reading of ``path`` (the worker's JSON answer)."""
        return self._request({"path": str(path)})

    def dates(self, values: list) -> list:
        """``new Date(value).getTime()`` for each value (None for NaN)."""
        return self._request({"dates": values})["dates"]

    def _request(self, payload: dict) -> dict:
        process = self._process if self._process and self._process.poll() is None else None
        process = process or self._start()
        self._next += 1
        request = json.dumps({"id": self._next, **payload}) + "\n"
        try:
            process.stdin.write(request.encode())
            process.stdin.flush()
        except BrokenPipeError:
            self.close()
            raise OracleTimeout("the worker exited") from None
        line = self._read_line(process)
        answer = loads(line)  # answers can be nested deeper than json's parser goes
        if answer.get("id") != self._next:
            self.close()
            raise OracleTimeout("the worker answered out of order")
        return answer

    def _read_line(self, process: subprocess.Popen) -> bytes:
        selector = selectors.DefaultSelector()
        selector.register(process.stdout, selectors.EVENT_READ)
        fd = process.stdout.fileno()
        try:
            while b"\n" not in self._buffer:
                if not selector.select(self.timeout):
                    self.close()
                    raise OracleTimeout(f"no answer from Pi within {self.timeout:.0f} s")
                chunk = os.read(fd, 1 << 20)
                if not chunk:
                    self.close()
                    raise OracleTimeout("the worker exited (Pi crashed or ran out of memory)")
                self._buffer += chunk
        finally:
            selector.close()
        line, _, self._buffer = self._buffer.partition(b"\n")
        return line

    def close(self) -> None:
        """Stop the worker (it is started again on the next request)."""
        process, self._process = self._process, None
        if process is None:
            return
        if process.poll() is None:
            process.kill()
        process.wait()
        for stream in (process.stdin, process.stdout):
            with contextlib.suppress(OSError):
                stream.close()

    def __enter__(self) -> Oracle:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
