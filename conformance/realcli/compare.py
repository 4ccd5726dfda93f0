"""pisession against Pi's answers on the real-CLI recordings of one Pi version
(``data/realcli/<V>/``: ``<scenario>/sessions/...``, ``<scenario>.pi.json`` from
``answers.mjs``, ``<scenario>.cli.json`` from Pi's CLI: RPC ``get_session_stats`` and
the ``--export`` page).

Each check returns a list of differences (``file: what: Pi says X, pisession says Y``);
``tests/test_realcli.py`` runs them on the committed recordings, ``run.py --check`` on
fresh ones.
"""

from __future__ import annotations

import contextlib
import io
import json
import math
import os
import re
import shutil
import tempfile
from datetime import datetime
from pathlib import Path

import pisession
from pisession.folders.usage import session_breakdown
from pisession.js import json as jsjson
from pisession.js.value import UNDEFINED, field


def as_json(value):
    """What Pi's JSON would hold for this value (NaN -> null, JavaScript number text)."""
    return json.loads(jsjson.dumps(value))


def _id(session, position):
    value = field(session.entry(position), "id")
    return None if value is UNDEFINED else value


def _short(value) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 160 else text[:157] + "..."


class Differences(list):
    def check(self, where: str, what: str, pi, ours) -> None:
        if pi != ours:
            self.append(f"{where}: {what}: Pi says {_short(pi)}, pisession says {_short(ours)}")


def scenarios(folder: Path) -> list[str]:
    return sorted(p.name[: -len(".pi.json")] for p in folder.glob("*.pi.json"))


def _cli(*args: str) -> str:
    from pisession.cli import main

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(list(args))
    if code not in (0, None):
        raise AssertionError(f"pisession {' '.join(args)}: exit {code}")
    return out.getvalue()


def compare_file(path: Path, pi: dict, where: str) -> Differences:
    """SessionManager.open's leaf, name, labels, getTree, and the context and provider
    messages at the open leaf and at every leaf; the cost breakdown."""
    d = Differences()
    session = pisession.load(path)
    leaf = session.default_leaf
    d.check(where, "the leaf SessionManager.open picks", pi["openLeaf"],
            None if leaf is None else _id(session, leaf))  # fmt: skip
    d.check(where, "getSessionName", pi["sessionName"], session.name)
    ids = {field(e, "id") for e in session.entries}
    d.check(where, "labels", pi["labels"], {k: v for k, v in session.labels.items() if k in ids})
    kids = session.children()
    outline = [
        [_id(session, p), [_id(session, c) for c in kids[p]]] for p, _ in session.shape.preorder()
    ]
    d.check(where, "getTree order", pi["tree"], as_json(outline))
    leaves = [_id(session, p) for p, _ in session.shape.preorder() if not kids[p]]
    d.check(where, "tree leaves", pi["leaves"], leaves)
    for n, case in enumerate(pi["contexts"]):
        at = "the open leaf" if n == 0 else f"leaf {case['leaf']}"
        context = session.context(None if n == 0 else case["leaf"])
        d.check(where, f"buildSessionContext at {at}", case["context"], as_json(context.to_dict()))
        d.check(where, f"convertToLlm at {at}", case["llm"], as_json(context.to_llm()))
    llm = json.loads(_cli("context", str(path), "--llm"))
    d.check(where, "pisession context --llm (the open leaf)", pi["contexts"][0]["llm"], llm)
    for part, branch in (("all", False), ("branch", True)):
        rows = [
            {"key": r.key, "cost": r.cost, "tokens": r.tokens}
            for r in session_breakdown(session, branch=branch)
        ]
        d.check(where, f"getUsageCostBreakdown ({part})", pi["usage"][part], as_json(rows))
    return d


def compare_stats(path: Path, stats: dict, where: str) -> Differences:
    """The RPC ``get_session_stats`` against ``pisession stats --json``'s whole session."""
    d = Differences()
    ours = json.loads(_cli("stats", str(path), "--json"))
    whole = ours["session"]
    for key in ("userMessages", "assistantMessages", "toolCalls", "toolResults", "totalMessages",
                "tokens", "cost"):  # fmt: skip
        d.check(where, f"get_session_stats {key}", stats[key], whole[key])
    d.check(where, "get_session_stats sessionId", stats["sessionId"], ours["id"])
    return d


def compare_export(path: Path, page: dict, where: str) -> Differences:
    """Pi's ``--export`` page against ``pisession export``: the same leaf, the same path
    (every entry from the root to the leaf, in order), and pisession's table of entries
    in the page's order."""
    d = Differences()
    html = _cli("export", str(path), "--format", "html")
    leaf = re.search(r"<dt>leaf</dt><dd>([^ <]+)", html)
    d.check(where, "the --export page's leaf", page["leafId"], leaf and leaf.group(1))
    count = re.search(r"<dt>path</dt><dd>(\d+) entr", html)
    d.check(where, "entries on the --export page's path", len(page["path"]),
            count and int(count.group(1)))  # fmt: skip
    session = pisession.load(path)
    ours = [[_id(session, p), field(session.entry(p), "type")] for p in session.path_positions()]
    d.check(where, "the --export page's path", page["path"], ours)
    table = html[html.find("id=entries") :]
    listed = re.findall(r'<td class="mono">([^<]+)</td>', table)
    order = {entry_id: n for n, (entry_id, _) in enumerate(page["path"])}
    shown = [order[i] for i in listed if i in order]
    d.check(where, "pisession export's entries in the page's order", sorted(shown), shown)
    return d


def _ms(text: str | None) -> float | None:
    if text is None:
        return None
    return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp() * 1000


def _relative(path: str, root: Path) -> str:
    """Pi's answers hold paths relative to the sessions folder already; pisession's
    are absolute."""
    if not os.path.isabs(path):
        return path
    return Path(path).resolve().relative_to(root.resolve()).as_posix()


def _listing(rows: list[dict], root: Path) -> list[dict]:
    return [
        {
            "path": _relative(r["path"], root),
            "id": r["id"],
            "cwd": r["cwd"],
            "name": r["name"],
            # Pi names it parentSessionPath, `ls --json` parentSession
            "parentSessionPath": r.get("parentSessionPath", r.get("parentSession")),
            "created": _ms(r["created"]),
            "modified": _ms(r["modified"]),
            "messageCount": r["messageCount"],
            "firstMessage": r["firstMessage"],
        }
        for r in rows
    ]


@contextlib.contextmanager
def _agent_dir(agent: Path):
    """PI_CODING_AGENT_DIR pointing at ``agent`` (as answers.mjs sets it for Pi)."""
    saved = {k: os.environ.get(k) for k in ("PI_CODING_AGENT_DIR", "PI_CODING_AGENT_SESSION_DIR")}
    os.environ["PI_CODING_AGENT_DIR"] = str(agent)
    os.environ.pop("PI_CODING_AGENT_SESSION_DIR", None)
    try:
        yield
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def compare_lists(folder: Path, pi: dict, where: str) -> Differences:
    """``pisession ls --json --all`` and ``ls --json --cwd PROJECT`` against
    SessionManager.listAll and SessionManager.list, on a copy whose mtimes are the
    header times (as ``answers.mjs`` sets them)."""
    d = Differences()
    with tempfile.TemporaryDirectory() as tmp, _agent_dir(Path(tmp) / "agent"):
        root = Path(tmp) / "agent" / "sessions"
        shutil.copytree(folder / "sessions", root)
        for path in root.glob("*/*.jsonl"):
            header = json.loads(path.read_text("utf-8").split("\n", 1)[0])
            when = _ms(header["timestamp"]) / 1000
            os.utime(path, (when, when))
        ours = _listing(json.loads(_cli("ls", "--json", "--all")), root)
        d.check(where, "SessionManager.listAll", _listing(pi["listAll"], root), ours)
        for cwd, rows in pi["list"].items():
            ours = _listing(json.loads(_cli("ls", "--json", "--cwd", cwd)), root)
            d.check(where, f"SessionManager.list({cwd})", _listing(rows, root), ours)
    return d


def compare_usage(folder: Path, pi: dict, where: str) -> Differences:
    """``pisession usage --per-file --json`` over the scenario's sessions folder (by model) against
    Pi's per-session ``getUsageCostBreakdown`` added up per model: the sessions, the
    tokens (exactly) and the cost (to 1e-12, as the additions' order may differ)."""
    d = Differences()
    # --per-file: Pi's numbers session by session (the default counts a fork's or a
    # clone's copied entries once, which Pi's per-session breakdown does not)
    ours = json.loads(_cli("usage", str(folder / "sessions"), "--per-file", "--json"))
    groups: dict[str, dict] = {}
    for rel in sorted(pi["files"]):
        for row in pi["files"][rel]["usage"]["all"]:
            group = groups.setdefault(row["key"], {"sessions": 0, "tokens": 0, "cost": 0.0})
            group["sessions"] += 1
            group["tokens"] += row["tokens"]
            group["cost"] += row["cost"]
    mine = {r["group"]: r for r in ours["rows"]}
    d.check(where, "usage: the models", sorted(groups), sorted(mine))
    for key, group in groups.items():
        if key in mine:
            d.check(where, f"usage {key}: sessions", group["sessions"], mine[key]["sessions"])
            d.check(where, f"usage {key}: tokens", group["tokens"], mine[key]["tokens"])
            if not math.isclose(group["cost"], mine[key]["cost"], rel_tol=1e-12, abs_tol=1e-15):
                d.check(where, f"usage {key}: cost", group["cost"], mine[key]["cost"])
    return d


def compare_scenario(folder: Path, name: str) -> Differences:
    d = Differences()
    pi = json.loads((folder / f"{name}.pi.json").read_text("utf-8"))
    cli = json.loads((folder / f"{name}.cli.json").read_text("utf-8"))
    sessions = folder / name / "sessions"
    for rel, answer in pi["files"].items():
        where = f"{folder.name}/{name}/{rel}"
        d += compare_file(sessions / rel, answer, where)
        d += compare_stats(sessions / rel, cli["getSessionStats"][rel], where)
        d += compare_export(sessions / rel, cli["exportPage"][rel], where)
    d += compare_lists(folder / name, pi, f"{folder.name}/{name}")
    d += compare_usage(folder / name, pi, f"{folder.name}/{name}")
    return d


def compare_folder(folder: Path) -> list[str]:
    out: list[str] = []
    for name in scenarios(folder):
        out += compare_scenario(folder, name)
    return out
