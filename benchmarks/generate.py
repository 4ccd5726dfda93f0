"""Generate large, realistic, deterministic Pi 0.87.1 (v3) session files for benchmarks.

The lines look like the ones Pi writes (compact ``JSON.stringify`` output, Pi's key
order, 8-hex ids, ISO timestamps, usage with cost, system messages with ``sections``
and ``toolsAdded``). A session holds: turns with tool calls and tool results (some
tens of KB, some base64 image blobs), failed attempts omitted by a ``context_edit``,
context edits that shorten big results, branches (some with a ``branch_summary``),
compactions with a ``systemMessage`` checkpoint and a kept range (a few retain-none),
system-message updates, model and thinking-level changes, ``usage`` entries, labels,
``session_info``, ``custom`` and ``custom_message`` entries.

The same ``--seed`` and ``--entries`` always give the same bytes::

    python benchmarks/generate.py --entries 200000 --out benchmarks/out/s200k.jsonl
    python benchmarks/generate.py --shape chain --entries 1000000 \\
        --out benchmarks/out/chain-1m.jsonl

About 1.4 KB per entry on average: 200,000 entries make a file of about 275 MB.
"""

from __future__ import annotations

import argparse
import base64
import contextlib
import json
import random
import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path

_WORDS = " ".join(
    (
        "the a file test module function error value list parser session entry branch",
        "compaction context model tool result read write edit bash command output line",
        "import return class config path build check run fix update add remove rename",
        "refactor docs index cache leaf tree node summary message user assistant system",
        "because then so but also first next finally quickly carefully small large new old",
    )
).split()

_TOOLS = [
    (
        "read",
        "Read the contents of a file. Supports text files and images (jpg, png, gif, webp, "
        "bmp). Images are sent as attachments. For text files, output is truncated to 2000 "
        "lines or 50KB (whichever is hit first). Use offset/limit for large files.",
        {
            "path": ("string", "Path to the file to read (relative or absolute)"),
            "offset": ("number", "Line number to start reading from (1-indexed)"),
            "limit": ("number", "Maximum number of lines to read"),
        },
        ["path"],
    ),
    (
        "bash",
        "Execute a bash command in the current working directory. Returns stdout and "
        "stderr. Output is truncated to last 2000 lines or 50KB (whichever is hit first).",
        {
            "command": ("string", "Shell command to execute"),
            "timeout": ("number", "Timeout in seconds (optional, no default timeout)"),
        },
        ["command"],
    ),
    (
        "edit",
        "Edit a single file using exact text replacement. Every edits[].oldText must match "
        "a unique, non-overlapping region of the original file.",
        {
            "path": ("string", "Path to the file to edit (relative or absolute)"),
            "edits": ("array", "One or more targeted replacements."),
        },
        ["path", "edits"],
    ),
    (
        "write",
        "Write content to a file. Creates the file if it doesn't exist, overwrites if it "
        "does. Automatically creates parent directories.",
        {
            "path": ("string", "Path to the file to write (relative or absolute)"),
            "content": ("string", "Content to write to the file"),
        },
        ["path", "content"],
    ),
    (
        "ls",
        "List directory contents. Returns entries sorted alphabetically, with '/' suffix "
        "for directories. Includes dotfiles.",
        {
            "path": ("string", "Directory to list (default: current directory)"),
            "limit": ("number", "Maximum number of entries to return (default: 500)"),
        },
        [],
    ),
    (
        "grep",
        "Search file contents for a pattern. Returns matching lines with file paths and "
        "line numbers. Respects .gitignore.",
        {
            "pattern": ("string", "Search pattern (regex or literal string)"),
            "path": ("string", "Directory or file to search (default: current directory)"),
        },
        ["pattern"],
    ),
]

_MODELS = [("fake", "fake-coder"), ("anthropic", "claude-sonnet-4-5"), ("openai", "gpt-5")]
_LEVELS = ["off", "minimal", "low", "medium", "high"]


def _tool_decl(tool) -> dict:
    name, description, params, required = tool
    return {
        "name": name,
        "description": description,
        "parameters": {
            "type": "object",
            "required": required,
            "properties": {k: {"type": t, "description": d} for k, (t, d) in params.items()},
        },
        "constrainedSampling": {"type": "json_schema", "strict": "prefer"},
    }


class Generator:
    """Writes one session, entry by entry, to a binary stream."""

    def __init__(self, entries: int, seed: int, out):
        self.rng = random.Random(seed)
        self.target = entries
        self.out = out
        self.count = 0  # entries written (header excluded)
        self.ids: set[str] = set()
        self.clock = datetime(2026, 11, 30, 9, 0, 0, tzinfo=timezone.utc)
        self.leaf: str | None = None
        # the current branch since the newest compaction: (id, type, role, entry bytes)
        self.path: list[tuple[str, str, str | None, int]] = []
        self.context_bytes = 0
        self.compact_at = self._compaction_threshold()
        self.call_counter = 0
        self.response_counter = 0
        self.provider, self.model = _MODELS[0]
        self.cwd = "/home/reader/projects/big-app"
        self.sections = {}
        self.tools = []

    # --- low-level helpers -----------------------------------------------------------

    def _compaction_threshold(self) -> int:
        return self.rng.randint(300_000, 900_000)

    def _new_id(self) -> str:
        while True:
            value = f"{self.rng.getrandbits(32):08x}"
            if value not in self.ids:
                self.ids.add(value)
                return value

    def _tick(self, low: float = 0.05, high: float = 4.0) -> datetime:
        self.clock += timedelta(milliseconds=int(self.rng.uniform(low, high) * 1000))
        return self.clock

    def _iso(self, moment: datetime | None = None) -> str:
        moment = moment or self.clock
        return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"

    def _millis(self) -> int:
        return int(self.clock.timestamp() * 1000)

    def _words(self, low: int, high: int) -> str:
        n = self.rng.randint(low, high)
        return " ".join(self.rng.choice(_WORDS) for _ in range(n))

    def _sentence(self, low: int = 4, high: int = 18) -> str:
        text = self._words(low, high)
        return text[:1].upper() + text[1:] + "."

    def _code(self, size: int) -> str:
        lines, total, n = [], 0, 0
        while total < size:
            n += 1
            if self.rng.random() < 0.2:
                line = f"def {self.rng.choice(_WORDS)}_{n}({self.rng.choice(_WORDS)}):"
            else:
                line = "    " + self._words(2, 9).replace(" ", "_", 1) + f"  # {n}"
            lines.append(line)
            total += len(line) + 1
        return "\n".join(lines) + "\n"

    def _blob(self, size: int) -> str:
        raw = self.rng.getrandbits(size * 6).to_bytes(size * 3 // 4 + 1, "little")
        return base64.b64encode(b"\x89PNG\r\n\x1a\n" + raw).decode("ascii")[:size]

    def _emit(self, entry: dict, role: str | None = None) -> str:
        line = json.dumps(entry, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
        self.out.write(line + b"\n")
        self.count += 1
        self.leaf = entry["id"]
        self.path.append((entry["id"], entry["type"], role, len(line)))
        self.context_bytes += len(line)
        return entry["id"]

    def _base(self, kind: str, parent: str | None = None) -> dict:
        self._tick()
        return {
            "type": kind,
            "id": self._new_id(),
            "parentId": self.leaf if parent is None else parent,
            "timestamp": self._iso(),
        }

    def _usage(self, tokens_in: int, tokens_out: int) -> dict:
        cache = self.rng.choice([0, 0, tokens_in // 2])
        cost_in = round(max(tokens_in * 0.000003, 0.0001), 6)
        cost_out = round(max(tokens_out * 0.000015, 0.0001), 6)
        return {
            "input": tokens_in,
            "output": tokens_out,
            "cacheRead": cache,
            "cacheWrite": 0,
            "reasoning": 0,
            "totalTokens": tokens_in + tokens_out,
            "cost": {
                "input": cost_in,
                "output": cost_out,
                "cacheRead": 0,
                "cacheWrite": 0,
                "total": cost_in + cost_out,
            },
        }

    # --- entries ---------------------------------------------------------------------

    def header(self) -> None:
        a, b, c, d = (self.rng.getrandbits(bits) for bits in (16, 12, 16, 48))
        line = {
            "type": "session",
            "version": 3,
            "id": f"01a22a5a-{a:04x}-7{b:03x}-{c:04x}-{d:012x}",
            "timestamp": self._iso(),
            "cwd": self.cwd,
        }
        self.out.write(json.dumps(line, separators=(",", ":")).encode() + b"\n")

    def system_message(self, full: bool) -> None:
        entry = self._base("message")
        if full:
            self.sections = {
                "preamble": "You are an expert coding assistant operating inside pi, a coding "
                "agent harness. You help users by reading files, executing commands, editing "
                "code, and writing new files.",
                "tools": "<tools>\n"
                + "\n".join(f"- {t[0]}: {t[1][:60]}" for t in _TOOLS[:4])
                + "\n</tools>",
                "rules": "<rules>\n"
                + "\n".join("- " + self._sentence() for _ in range(8))
                + "\n</rules>",
                "docs": "<docs>\n"
                + "\n".join(self._sentence(8, 30) for _ in range(6))
                + "\n</docs>",
                "project_context": "<project_context>\n"
                + "\n".join(self._sentence(6, 20) for _ in range(4))
                + "\n</project_context>",
                "cwd": f"<cwd>\n{self.cwd}\n</cwd>",
            }
            self.tools = [t[0] for t in _TOOLS[:4]]
            message = {
                "role": "system",
                "content": "",
                "sections": self.sections,
                "timestamp": self._millis(),
                "toolsAdded": [_tool_decl(t) for t in _TOOLS[:4]],
            }
        else:
            patch: dict = {
                "rules": "<rules>\n" + "\n".join("- " + self._sentence() for _ in range(5))
            }
            self.sections = {**self.sections, **patch}
            message = {
                "role": "system",
                "content": "",
                "sections": patch,
                "timestamp": self._millis(),
            }
            extra = [t for t in _TOOLS if t[0] not in self.tools]
            if extra and self.rng.random() < 0.5:
                tool = self.rng.choice(extra)
                self.tools.append(tool[0])
                message["toolsAdded"] = [_tool_decl(tool)]
            elif len(self.tools) > 2 and self.rng.random() < 0.5:
                name = self.tools.pop(self.rng.randrange(len(self.tools)))
                message["toolsRemoved"] = [{"name": name}]
        entry["message"] = message
        self._emit(entry, "system")

    def model_change(self) -> None:
        self.provider, self.model = self.rng.choice(_MODELS)
        entry = self._base("model_change")
        entry.update(provider=self.provider, modelId=self.model)
        self._emit(entry)

    def thinking_level_change(self) -> None:
        entry = self._base("thinking_level_change")
        entry["thinkingLevel"] = self.rng.choice(_LEVELS)
        self._emit(entry)

    def user(self) -> str:
        entry = self._base("message")
        content: list = [{"type": "text", "text": self._sentence(5, 40)}]
        if self.rng.random() < 0.02:
            content.append(
                {
                    "type": "image",
                    "data": self._blob(self.rng.randint(8_000, 60_000)),
                    "mimeType": "image/png",
                }
            )
        entry["message"] = {"role": "user", "content": content, "timestamp": self._millis()}
        return self._emit(entry, "user")

    def assistant(self, calls: int, error: bool = False) -> tuple[str, list]:
        entry = self._base("message")
        self._tick(0.5, 20)
        content: list = []
        if self.rng.random() < 0.3:
            content.append(
                {
                    "type": "thinking",
                    "thinking": " ".join(self._sentence() for _ in range(self.rng.randint(1, 6))),
                    "thinkingSignature": "reasoning_content",
                }
            )
        if not error and (calls == 0 or self.rng.random() < 0.5):
            content.append(
                {
                    "type": "text",
                    "text": " ".join(self._sentence() for _ in range(self.rng.randint(1, 8))),
                }
            )
        made = []
        for n in range(0 if error else calls):
            self.call_counter += 1
            name = self.rng.choice(self.tools or ["bash"])
            call_id = f"call_{self.call_counter:06d}_{n}"
            if name == "bash":
                program = self.rng.choice(["ls", "grep -rn", "python -m pytest", "cat"])
                arguments = {"command": f"{program} {self.rng.choice(_WORDS)}"}
            elif name in ("edit", "write"):
                arguments = {
                    "path": f"src/{self.rng.choice(_WORDS)}.py",
                    "content": self._code(self.rng.randint(100, 1500)),
                }
            else:
                arguments = {"path": f"src/{self.rng.choice(_WORDS)}/{self.rng.choice(_WORDS)}.py"}
            content.append(
                {"type": "toolCall", "id": call_id, "name": name, "arguments": arguments}
            )
            made.append((call_id, name))
        self.response_counter += 1
        tokens_in = min(self.context_bytes // 4 + 1500, 190_000)
        tokens_out = self.rng.randint(5, 900)
        message = {
            "role": "assistant",
            "content": content,
            "api": "openai-completions",
            "provider": self.provider,
            "model": self.model,
            "usage": self._usage(tokens_in, tokens_out) if not error else self._usage(0, 0),
            "stopReason": "error" if error else ("toolUse" if made else "stop"),
            "timestamp": self._millis(),
        }
        if error:
            message["errorMessage"] = (
                '400: {"message":"This model\'s maximum context length was exceeded"}'
            )
        else:
            message["responseId"] = f"chatcmpl-{self.response_counter:08d}"
            message["rawStopReason"] = "tool_calls" if made else "stop"
        entry["message"] = message
        return self._emit(entry, "assistant"), made

    def tool_result(self, call_id: str, name: str) -> str:
        entry = self._base("message")
        roll = self.rng.random()
        if roll < 0.006:
            size = self.rng.randint(20_000, 60_000)
            content = [
                {"type": "text", "text": "Read image file [image/png]"},
                {"type": "image", "data": self._blob(size), "mimeType": "image/png"},
            ]
        elif roll < 0.036:
            content = [{"type": "text", "text": self._code(self.rng.randint(8_000, 32_000))}]
        elif roll < 0.3:
            content = [{"type": "text", "text": self._code(self.rng.randint(500, 3_500))}]
        else:
            content = [{"type": "text", "text": self._words(3, 60)}]
        message: dict = {
            "role": "toolResult",
            "toolCallId": call_id,
            "toolName": name,
            "content": content,
        }
        if name == "edit":
            message["details"] = {
                "diff": self._code(200),
                "firstChangedLine": self.rng.randint(1, 400),
            }
        message["isError"] = self.rng.random() < 0.05
        message["timestamp"] = self._millis()
        entry["message"] = message
        return self._emit(entry, "toolResult")

    def context_edit(self, target: str, omit: bool) -> None:
        entry = self._base("context_edit")
        entry["targetId"] = target
        entry["replacement"] = (
            None
            if omit
            else {"content": [{"type": "text", "text": f"[{self._sentence(3, 10)} body omitted]"}]}
        )
        self._emit(entry)

    def label(self) -> None:
        targets = [e[0] for e in self.path[-30:] if e[2] == "assistant"]
        if not targets:
            return
        entry = self._base("label")
        entry["targetId"] = self.rng.choice(targets)
        entry["label"] = self.rng.choice(
            ["checkpoint", "good answer", "", "before refactor", "bug here"]
        )
        self._emit(entry)

    def usage_entry(self) -> None:
        entry = self._base("usage")
        entry.update(
            kind="session-title", provider="fake", model="fake-mini", usage=self._usage(120, 8)
        )
        self._emit(entry)

    def session_info(self) -> None:
        entry = self._base("session_info")
        entry["name"] = self._sentence(2, 6)
        self._emit(entry)

    def custom(self) -> None:
        entry = self._base("custom")
        entry["customType"] = "todo-list"
        entry["data"] = {"open": [self._sentence() for _ in range(3)], "done": [self._sentence()]}
        self._emit(entry)

    def custom_message(self) -> None:
        entry = self._base("custom_message")
        entry.update(
            customType="reminder", content=self._sentence(), display=self.rng.random() < 0.7
        )
        if self.rng.random() < 0.4:
            entry["details"] = {"source": "extension", "n": self.rng.randint(1, 99)}
        self._emit(entry, "custom")

    def compaction(self) -> None:
        users = [i for i, e in enumerate(self.path) if e[2] == "user"]
        entry = self._base("compaction")
        entry["summary"] = "## Goal\n" + "\n".join(
            self._sentence(8, 30) for _ in range(self.rng.randint(6, 30))
        )
        if users and self.rng.random() < 0.9:
            keep = self.rng.choice(users[-4:])
            entry["firstKeptEntryId"] = self.path[keep][0]
        else:
            keep = len(self.path)
            entry["firstKeptEntryId"] = entry["id"]  # retain-none stores its own id
        entry["tokensBefore"] = self.context_bytes // 4
        entry["details"] = {
            "readFiles": [f"src/{w}.py" for w in self._words(1, 4).split()],
            "modifiedFiles": [],
        }
        entry["usage"] = self._usage(self.rng.randint(800, 9000), self.rng.randint(100, 900))
        entry["fromHook"] = False
        entry["systemMessage"] = {
            "role": "system",
            "content": "",
            "sections": self.sections,
            "timestamp": self._millis(),
            "toolsAdded": [_tool_decl(t) for t in _TOOLS if t[0] in self.tools],
        }
        kept = self.path[keep:]
        self._emit(entry)
        self.path = kept + self.path[-1:]
        self.context_bytes = sum(e[3] for e in self.path)
        self.compact_at = self._compaction_threshold()

    def branch(self) -> None:
        """Go back to an earlier entry of the branch and continue from there."""
        candidates = [i for i, e in enumerate(self.path[:-1]) if e[2] in ("assistant", "user")][
            -40:
        ]
        if len(candidates) < 2:
            return
        back = self.rng.choice(candidates[:-1])
        old_leaf = self.leaf
        self.leaf = self.path[back][0]
        self.path = self.path[: back + 1]
        self.context_bytes = sum(e[3] for e in self.path)
        if self.rng.random() < 0.5:
            entry = self._base("branch_summary")
            entry.update(fromId=old_leaf, summary=" ".join(self._sentence() for _ in range(3)))
            if self.rng.random() < 0.3:
                entry["usage"] = self._usage(2000, 120)
            self._emit(entry, "branchSummary")

    def turn(self) -> None:
        self.user()
        for _ in range(self.rng.choice([0, 1, 1, 2, 3, 4, 6])):
            if self.rng.random() < 0.01:  # a failed attempt, omitted from the context
                failed, _ = self.assistant(0, error=True)
                self.context_edit(failed, omit=True)
            calls = self.rng.choice([1, 1, 1, 2, 3])
            _, made = self.assistant(calls)
            results = [self.tool_result(call_id, name) for call_id, name in made]
            if results and self.rng.random() < 0.06:
                biggest = max(
                    results, key=lambda r: next(e[3] for e in reversed(self.path) if e[0] == r)
                )
                self.context_edit(biggest, omit=self.rng.random() < 0.2)
        self.assistant(0)

    def extras(self) -> None:
        r = self.rng.random
        if r() < 0.05:
            self.label()
        if r() < 0.03:
            self.usage_entry()
        if r() < 0.01:
            self.session_info()
        if r() < 0.02:
            self.custom()
        if r() < 0.02:
            self.custom_message()
        if r() < 0.01:
            self.system_message(full=False)
        if r() < 0.01:
            self.model_change()
        if r() < 0.01:
            self.thinking_level_change()

    def run(self) -> None:
        self.header()
        if self.target >= 1:
            self.session_info()
        starters = [
            self.model_change,
            self.thinking_level_change,
            lambda: self.system_message(True),
        ]
        for start in starters[: max(0, self.target - self.count)]:
            start()
        while self.count < self.target:
            self.turn()
            self.extras()
            if self.context_bytes > self.compact_at:
                self.compaction()
            elif self.rng.random() < 0.03:
                self.branch()
        # the file then ends mid-turn, as a real session cut off at any moment could


def generate(entries: int, out, seed: int = 27) -> int:
    """Write a session of exactly ``entries`` entries (header excluded) to the binary
    stream ``out``; return the number of entries written.

    >>> import io
    >>> buf = io.BytesIO(); generate(40, buf)
    40
    >>> buf.getvalue().count(b"\\n")
    41
    """
    writer = _Truncating(out, entries + 1)
    gen = Generator(entries, seed, writer)
    with contextlib.suppress(_Full):
        gen.run()
    return writer.lines - 1


class _Full(Exception):
    pass


class _Truncating:
    """Stops the generator after exactly ``limit`` lines."""

    def __init__(self, out, limit: int):
        self.out, self.limit, self.lines = out, limit, 0

    def write(self, data: bytes) -> None:
        if self.lines >= self.limit:
            raise _Full
        self.out.write(data)
        self.lines += 1


def _chain_time(i: int) -> str:
    moment = datetime(2026, 1, 1, tzinfo=timezone.utc) + timedelta(milliseconds=i * 1500)
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def generate_chain(entries: int, out) -> int:
    """The other extreme: one straight path of small user and assistant messages, no
    branch, no compaction (a 1,000,000-entry chain is about 350 MB). Every entry is
    on the path and sent, so it measures the cost per entry of a whole context."""
    header = {"type": "session", "version": 3, "id": "019a0000-0000-7000-8000-000000000000",
              "timestamp": _chain_time(0), "cwd": "/home/me/app"}  # fmt: skip
    out.write(json.dumps(header, separators=(",", ":")).encode() + b"\n")
    usage = {"input": 10, "output": 5, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 15,
             "cost": {"input": 0.0001, "output": 0.0002, "cacheRead": 0, "cacheWrite": 0,
                      "total": 0.0003}}  # fmt: skip
    previous = None
    for i in range(entries):
        entry_id = f"{i:08x}"
        if i % 2 == 0:
            text = f"step {i}: please update the parser and run the tests again"
            message = {"role": "user", "content": [{"type": "text", "text": text}],
                       "timestamp": 1767225600000 + i}  # fmt: skip
        else:
            message = {"role": "assistant",
                       "content": [{"type": "text", "text": f"Done with step {i}; all tests "
                                                            "pass."}],
                       "api": "x", "provider": "fake", "model": "fake-coder", "usage": usage,
                       "stopReason": "stop", "timestamp": 1767225600000 + i}  # fmt: skip
        entry = {"type": "message", "id": entry_id, "parentId": previous,
                 "timestamp": _chain_time(i), "message": message}  # fmt: skip
        out.write(json.dumps(entry, separators=(",", ":")).encode() + b"\n")
        previous = entry_id
    return entries


def generate_tiny(entries: int, out) -> int:
    """A hostile shape: a header, then ``entries`` lines of 13 bytes (``{"type":"x"}``),
    entries of an unknown type with no id, so a 1,000,000-line file is 13 MB and every
    entry is a root of its own. It measures what a command keeps per entry, next to
    the size of the file: ``tree`` and ``export`` write a line for each."""
    header = {"type": "session", "version": 3, "id": "019a0000-0000-7000-8000-0000000000ff",
              "timestamp": _chain_time(0), "cwd": "/home/me/app"}  # fmt: skip
    out.write(json.dumps(header, separators=(",", ":")).encode() + b"\n")
    for _ in range(entries // 10_000):
        out.write(b'{"type":"x"}\n' * 10_000)
    out.write(b'{"type":"x"}\n' * (entries % 10_000))
    return entries


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entries", type=int, default=10_000, help="entries (header excluded)")
    parser.add_argument("--out", required=True, help="output .jsonl file")
    parser.add_argument("--seed", type=int, default=27)
    parser.add_argument(
        "--shape",
        choices=("session", "chain", "tiny"),
        default="session",
        help="session: a realistic session (default); chain: one straight path of small "
        "messages (no branch, no compaction); tiny: 13-byte lines, each an id-less entry",
    )
    args = parser.parse_args(argv)
    path = Path(args.out)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "wb", buffering=1 << 20) as handle:
        if args.shape == "chain":
            written = generate_chain(args.entries, handle)
        elif args.shape == "tiny":
            written = generate_tiny(args.entries, handle)
        else:
            written = generate(args.entries, handle, args.seed)
    size = path.stat().st_size
    print(f"{path}: {written} entries, {size / 1e6:.1f} MB", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
