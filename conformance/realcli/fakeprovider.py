"""A fake OpenAI-compatible chat-completions server on 127.0.0.1 for recording real Pi CLI
sessions (``run.py``). It answers from a queue of scripted replies and saves every
request body it receives, in order, with the URL path.

A reply is a dict (every key optional):

- ``text``: the answer's text; ``thinking``: a reasoning block (``reasoning_content``);
- ``tools``: ``[{"name": ..., "args": {...}}]`` tool calls (several = parallel calls);
- ``usage``: ``{"prompt_tokens": N, "completion_tokens": N, "cached_tokens": N}``;
- ``model``: the model the stream names (``responseModel`` when it differs);
- ``finish``: the finish reason (default ``tool_calls`` with tools, else ``stop``);
- ``status`` + ``error``: an HTTP error (429, 500, 400 ...) with that message;
- ``cut``: stop the stream after the first chunk, without a finish reason or [DONE];
- ``hang``: stream the reply, then wait (up to 60 s) before the finish reason, for an
  abort; ``slow``: seconds between chunks.

Requests the queue does not decide: a summarization request (Pi's compaction and branch
summary system prompt) gets a canned summary; a one-token request (cache warming) gets
one token; an empty queue answers ``ok``.
"""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

SUMMARY_MARK = "context summarization assistant"


def _chunks(reply: dict, rid: str, model: str) -> list[dict]:
    """The streamed chunks of one scripted reply (without the final [DONE])."""
    base = {"id": rid, "object": "chat.completion.chunk", "created": 1764547200, "model": model}

    def chunk(delta: dict, finish: str | None = None) -> dict:
        return {**base, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}

    out = [chunk({"role": "assistant", "content": ""})]
    if reply.get("thinking"):
        for part in _split(reply["thinking"]):
            out.append(chunk({"reasoning_content": part}))
    if reply.get("text"):
        for part in _split(reply["text"]):
            out.append(chunk({"content": part}))
    for n, call in enumerate(reply.get("tools", [])):
        args = json.dumps(call.get("args", {}))
        half = len(args) // 2
        out.append(
            chunk(
                {
                    "tool_calls": [
                        {
                            "index": n,
                            "id": call.get("id", f"call_{rid[-4:]}_{n}"),
                            "type": "function",
                            "function": {"name": call["name"], "arguments": args[:half]},
                        }
                    ]
                }
            )
        )
        out.append(chunk({"tool_calls": [{"index": n, "function": {"arguments": args[half:]}}]}))
    finish = reply.get("finish") or ("tool_calls" if reply.get("tools") else "stop")
    out.append(chunk({}, finish))
    usage = reply.get("usage", {})
    prompt = usage.get("prompt_tokens", 1200)
    completion = usage.get("completion_tokens", 40)
    raw: dict[str, Any] = {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
    }
    if usage.get("cached_tokens") is not None:
        raw["prompt_tokens_details"] = {"cached_tokens": usage["cached_tokens"]}
    if usage.get("reasoning_tokens") is not None:
        raw["completion_tokens_details"] = {"reasoning_tokens": usage["reasoning_tokens"]}
    out.append({**base, "choices": [], "usage": raw})
    return out


def _split(text: str) -> list[str]:
    """Text in two deltas (the stream is real streaming, not one blob)."""
    half = max(1, len(text) // 2)
    return [p for p in (text[:half], text[half:]) if p]


class FakeProvider:
    """The server: ``start()``, ``push(*replies)``, ``requests``, ``stop()``."""

    def __init__(self) -> None:
        self.queue: list[dict] = []
        self.requests: list[dict] = []
        self.lock = threading.Lock()
        self.count = 0
        self.summaries = 0
        self.released = threading.Event()
        self.hangs = threading.Condition()
        self.generation = 0
        provider = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: object) -> None:  # quiet
                pass

            def do_GET(self) -> None:  # /v1/models and the like: nothing
                self._send_json(404, {"error": {"message": "not found"}})

            def do_POST(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                raw = self.rfile.read(length)
                try:
                    body = json.loads(raw)
                except ValueError:
                    body = {"unparsed": raw.decode("utf-8", "replace")}
                reply, rid = provider._take(self.path, body)
                if reply.get("status"):
                    provider._error(self, reply)
                    return
                provider._stream(self, reply, rid, reply.get("model") or body.get("model", ""))

            def _send_json(self, status: int, obj: dict) -> None:
                data = json.dumps(obj).encode()
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def port(self) -> int:
        return self.server.server_address[1]

    def start(self) -> FakeProvider:
        self.thread.start()
        return self

    def stop(self) -> None:
        self.released.set()
        self.release()
        self.server.shutdown()
        self.server.server_close()

    def push(self, *replies: dict) -> None:
        with self.lock:
            self.queue.extend(replies)

    def release(self) -> None:
        """Let hanging streams end (after an abort the client has gone anyway)."""
        with self.hangs:
            self.generation += 1
            self.hangs.notify_all()

    def _hang(self) -> None:
        with self.hangs:
            start = self.generation
            self.hangs.wait_for(lambda: self.generation != start or self.released.is_set(), 60)

    def _take(self, path: str, body: dict) -> tuple[dict, str]:
        with self.lock:
            self.count += 1
            rid = f"chatcmpl-fake{self.count:04d}"
            self.requests.append({"path": path, "body": body})
            if _is_summary(body):
                self.summaries += 1
                return {
                    "text": f"## Goal\nSummary {self.summaries} of the work so far.\n\n"
                    "## Progress\n- read the files\n- ran the tests",
                    "usage": {"prompt_tokens": 900, "completion_tokens": 60},
                }, rid
            if body.get("max_tokens") == 1 or body.get("max_completion_tokens") == 1:
                return {"text": "k", "usage": {"prompt_tokens": 30000, "cached_tokens": 30000,
                                               "completion_tokens": 1}}, rid  # fmt: skip
            if self.queue:
                return self.queue.pop(0), rid
            return {"text": "ok"}, rid

    def _error(self, handler: BaseHTTPRequestHandler, reply: dict) -> None:
        data = json.dumps(
            {"error": {"message": reply.get("error", "error"), "type": "fake_error", "code": None}}
        ).encode()
        handler.send_response(reply["status"])
        handler.send_header("content-type", "application/json")
        handler.send_header("content-length", str(len(data)))
        if reply["status"] == 429:
            handler.send_header("retry-after-ms", "10")
        handler.end_headers()
        handler.wfile.write(data)

    def _stream(self, handler: BaseHTTPRequestHandler, reply: dict, rid: str, model: str) -> None:
        handler.send_response(200)
        handler.send_header("content-type", "text/event-stream")
        handler.send_header("cache-control", "no-cache")
        handler.send_header("connection", "close")
        handler.end_headers()
        handler.close_connection = True
        chunks = _chunks(reply, rid, model)
        try:
            for n, chunk in enumerate(chunks):
                if reply.get("cut") and n == 2:
                    handler.wfile.flush()
                    return  # the connection closes mid-message
                if reply.get("hang") and chunk["choices"] and chunk["choices"][0]["finish_reason"]:
                    handler.wfile.flush()
                    self._hang()
                    return
                handler.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
                handler.wfile.flush()
                if reply.get("slow"):
                    time.sleep(reply["slow"])
            handler.wfile.write(b"data: [DONE]\n\n")
            handler.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            pass


def _is_summary(body: dict) -> bool:
    for message in body.get("messages", [])[:2]:
        content = message.get("content")
        text = content if isinstance(content, str) else json.dumps(content)
        if message.get("role") in ("system", "developer") and SUMMARY_MARK in text:
            return True
    return False
