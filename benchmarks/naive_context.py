"""The baseline: decode every line fully (orjson when installed, else ``json``), then
build Pi's context the obvious way. Prints ``JSON.stringify(buildSessionContext(...))``.

    python benchmarks/naive_context.py FILE > /dev/null

It covers what the generated benchmark sessions hold (v3 files, string ids, no damaged
lines) and nothing more: it is a yardstick for speed and a second opinion in the tests,
not a replacement for pisession.
"""

from __future__ import annotations

import json
import sys
from datetime import datetime

try:
    import orjson

    _loads = orjson.loads
except ImportError:  # pragma: no cover - orjson is optional
    orjson = None
    _loads = json.loads


def read_entries(lines) -> list:
    """Every line that parses, header included (Pi skips the others); ``lines`` is an
    iterable of byte lines, such as a file opened in binary mode."""
    entries = []
    for line in lines:
        if not line.strip():
            continue
        try:
            entries.append(_loads(line))
        except ValueError:
            continue
    return entries


def _millis(iso: str) -> int:
    return int(datetime.fromisoformat(iso.replace("Z", "+00:00")).timestamp() * 1000)


def naive_context(entries: list, leaf_id: str | None = None) -> dict:
    """Pi's ``buildSessionContext`` for a clean v3 session (header excluded from
    ``entries``): path, settings, newest compaction, kept range, context edits."""
    by_id = {e["id"]: e for e in entries}
    leaf = by_id[leaf_id] if leaf_id is not None else entries[-1]
    path = []
    while leaf is not None:
        path.append(leaf)
        leaf = by_id.get(leaf.get("parentId")) if leaf.get("parentId") else None
    path.reverse()

    thinking, model = "off", None
    for e in path:
        if e["type"] == "thinking_level_change":
            thinking = e["thinkingLevel"]
        elif e["type"] == "model_change":
            model = {"provider": e["provider"], "modelId": e["modelId"]}
        elif e["type"] == "message" and e["message"]["role"] == "assistant":
            model = {"provider": e["message"]["provider"], "modelId": e["message"]["model"]}

    compactions = [i for i, e in enumerate(path) if e["type"] == "compaction"]
    if compactions:
        cut = compactions[-1]
        first_kept = path[cut].get("firstKeptEntryId")
        ids = [e["id"] for e in path[:cut]]
        start = ids.index(first_kept) if first_kept in ids else cut
        kept = [
            e
            for e in path[start:cut]
            if not (e["type"] == "message" and e["message"]["role"] == "system")
        ]
        selected = [path[cut], *kept, *path[cut + 1 :]]
    else:
        selected = path

    edits = {e["targetId"]: e for e in selected if e["type"] == "context_edit"}
    messages = []
    for rank, e in enumerate(selected):
        kind = e["type"]
        if kind == "message":
            out = [e["message"]]
        elif kind == "custom_message":
            m = {"role": "custom", "customType": e["customType"], "content": e["content"]}
            m["display"] = e["display"]
            if "details" in e:
                m["details"] = e["details"]
            m["timestamp"] = _millis(e["timestamp"])
            out = [m]
        elif kind == "branch_summary" and e.get("summary"):
            out = [
                {
                    "role": "branchSummary",
                    "summary": e["summary"],
                    "fromId": e["fromId"],
                    "timestamp": _millis(e["timestamp"]),
                }
            ]
        elif kind == "compaction" and rank == 0:
            summary = {
                "role": "compactionSummary",
                "summary": e["summary"],
                "tokensBefore": e["tokensBefore"],
                "timestamp": _millis(e["timestamp"]),
            }
            out = [e["systemMessage"], summary] if e.get("systemMessage") else [summary]
        else:
            out = []
        edit = edits.get(e["id"])
        if edit is not None:
            replacement = edit["replacement"]
            if replacement is None:
                out = []
            else:
                edited = []
                for m in out:
                    if m["role"] in ("user", "assistant", "toolResult", "custom"):
                        content = replacement["content"]
                        if m["role"] in ("assistant", "toolResult") and isinstance(content, str):
                            content = [{"type": "text", "text": content}]
                        m = {**m, "content": content}
                    edited.append(m)
                out = edited
        messages.extend(out)
    return {"messages": messages, "thinkingLevel": thinking, "model": model}


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    with open(args[0], "rb") as handle:
        entries = read_entries(handle)
    context = naive_context([e for e in entries if e.get("type") != "session"])
    if orjson is not None:
        sys.stdout.buffer.write(orjson.dumps(context) + b"\n")
    else:
        sys.stdout.write(json.dumps(context, ensure_ascii=False, separators=(",", ":")) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
