"""pisession's reading of one file, compared with Pi's (a golden from ``worker.mjs``).

``compare(path, answer)`` returns a list of ``Finding``: every place where pisession
gives a different value than Pi 0.87.1, refuses what Pi opens (or the reverse), or
raises anything but a ``PisessionError``. The rules are those of
``tests/test_conformance.py`` (the committed goldens), plus:

- values are compared strictly: ``true`` is not ``1``, and key order counts (Pi's text
  is ``JSON.stringify``'s);
- at the default leaf, ``pisession context`` and ``pisession context --llm`` must print
  Pi's own ``JSON.stringify(value, null, 2)`` text (terminal-steering characters
  written as ``\\uXXXX``, a documented difference);
- a legacy (v1/v2) file's migration must write Pi's own rewrite (``SessionManager.open``
  writing the file back), ids aside, or refuse where Pi's rewrite throws;
- at the level users meet Pi (``answer["manager"]``): the leaf ``SessionManager.open``
  picks and the context there (pisession's default leaf and ``context()``, refused where
  Pi's ``JSON.stringify`` of it throws), and the row ``SessionManager.listAll(dir)``
  lists for the file, or none (``files.session_info``);
- at each leaf, for each checked Pi version installed and a few target models, what
  the request carries (``pisession.request.sent`` of pisession's provider messages) must
  equal what pi-ai's own ``transformMessages`` makes of Pi's (``conformance/sent.mjs``),
  or raise a ``PisessionError`` where pi-ai throws;
- at the default leaf the other readers (stats, fates, explain, tree text, HTML views,
  ``export`` as HTML and Markdown, ``diff`` against a branch end) must not crash: only a
  ``PisessionError`` may come out of them.
"""

from __future__ import annotations

import base64
import contextlib
import io
import json
import re
import sys
import traceback
from dataclasses import dataclass
from pathlib import Path

import pisession
from pisession import cli, request
from pisession.errors import CycleError, PisessionError
from pisession.js import json as jsjson
from pisession.js.value import CANNOT_CONVERT, UNDEFINED, field, strict_equal
from pisession.system_prompt import replay_system_prompt

STAGES = ("context", "projection", "llm", "systemMessage", "systemPrompt")


@dataclass(frozen=True)
class Finding:
    """One difference. ``kind`` is a coarse signature (what differs and where, without
    the values), ``detail`` a human-readable account."""

    kind: str
    detail: str
    leaf: object = None


class Crash(Exception):
    """pisession raised something other than a ``PisessionError``."""


def _crash_kind(where: str, exc: BaseException) -> str:
    return f"crash:{where}:{type(exc).__name__}"


def as_json(value):
    """What Pi's JSON holds for a value: pisession's ``JSON.stringify`` text, read back
    with its key order."""
    return jsjson.loads(jsjson.dumps(value).encode("utf-8"))


def _shape(path: str) -> str:
    """A path with indices and ids blanked, for signatures: ``messages[3].content``
    -> ``messages[].content``."""
    out, depth = [], 0
    for char in path:
        if char == "[":
            depth += 1
            out.append("[]")
        elif char == "]":
            depth -= 1
        elif depth == 0:
            out.append(char)
    return "".join(out)


def first_difference(a, b, path: str = "") -> tuple[str, str] | None:
    """Where two JSON values first differ, strictly (``true`` != ``1``; key order counts,
    reported as ``key-order``). Returns (path, what) or None. Not recursive: values may
    be nested 100,000 deep."""
    stack = [(a, b, path)]
    order_difference = None
    while stack:
        a, b, path = stack.pop()
        if isinstance(a, bool) or isinstance(b, bool):
            if a is not b:
                return path, f"{a!r} != {b!r}"
        elif isinstance(a, (int, float)) and isinstance(b, (int, float)):
            if a != b:
                return path, f"{a!r} != {b!r}"
        elif type(a) is not type(b):
            return path, f"{type(a).__name__} {_short(a)} != {type(b).__name__} {_short(b)}"
        elif isinstance(a, list):
            if len(a) != len(b):
                return path + ".length", f"{len(a)} != {len(b)}"
            stack.extend(
                (x, y, f"{path}[{i}]") for i, (x, y) in reversed(list(enumerate(zip(a, b))))
            )
        elif isinstance(a, dict):
            if set(a) != set(b):
                return path + ".keys", f"{sorted(set(a) ^ set(b))[:5]} differ"
            if list(a) != list(b) and order_difference is None:
                order_difference = (path + ".key-order", f"{list(a)[:6]} != {list(b)[:6]}")
            stack.extend((a[k], b[k], f"{path}.{k}") for k in reversed(list(a)))
        elif a != b:
            return path, f"{_short(a)} != {_short(b)}"
    return order_difference


def _short(value, width: int = 80) -> str:
    try:
        text = repr(value)
    except RecursionError:
        text = f"<{type(value).__name__} nested too deep to show>"
    return text if len(text) <= width else text[: width - 3] + "..."


def _entry_id(session, position):
    value = field(session.entry(position), "id")
    return None if value is UNDEFINED else value


def _recorded_index(session, position):
    """``entries.indexOf(entry)``: for a primitive value, the first equal one."""
    value = session.entry(position)
    if isinstance(value, (dict, list)):
        return position
    return next(p for p in range(len(session)) if strict_equal(session.entry(p), value))


class _Collector:
    def __init__(self) -> None:
        self.findings: list[Finding] = []
        self.intended: list[str] = []  # documented differences seen (not findings)

    def add(self, kind: str, detail: str, leaf: object = None) -> None:
        self.findings.append(Finding(kind, detail, leaf))

    def value(self, stage: str, ours, theirs, leaf) -> None:
        found = first_difference(ours, theirs, stage)
        if found:
            where, what = found
            kind = "key-order" if where.endswith(".key-order") else "value"
            self.add(f"{kind}:{_shape(where)}", f"{where}: pisession {what} (Pi)", leaf)


def _guard(collector: _Collector, where: str, fn, leaf=None):
    """Run ``fn``; a non-PisessionError is a crash finding (returns None then)."""
    try:
        return fn()
    except PisessionError:
        raise
    except Exception as exc:
        detail = f"{where}: {type(exc).__name__}: {str(exc)[:200]} (at {_origin(exc)})"
        collector.add(_crash_kind(where, exc), detail, leaf)
    return None


def _origin(exc: BaseException) -> str:
    """The innermost pisession frame of a traceback: ``jsdate.py:166``."""
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if "pisession" in f.filename]
    if not frames:
        return "?"
    return f"{Path(frames[-1].filename).name}:{frames[-1].lineno}"


def compare(path: Path, answer: dict, probes: bool = True) -> tuple[list[Finding], list[str]]:
    """Every difference between pisession's reading of ``path`` and Pi's (``answer``),
    and the documented differences seen on the way (not counted as findings)."""
    out = _Collector()
    if "manager" in answer:
        _compare_manager(out, path, answer["manager"])
    golden = answer["golden"]
    pi_refuses = golden.get("error") in ("no-valid-header", "exception")
    try:
        session = _guard(out, "load", lambda: pisession.load(path))
    except PisessionError as exc:
        if not pi_refuses:
            out.add("refuses:load", f"pisession refuses a file Pi opens: {exc}")
        return out.findings, out.intended
    if session is None:
        return out.findings, out.intended
    if pi_refuses:
        out.add(
            f"opens:{golden['error']}:{golden.get('stage', '')}",
            f"Pi refuses this file ({golden['error']} {golden.get('message', '')}); "
            "pisession opens it",
        )
        return out.findings, out.intended
    _compare_file(out, session, golden)
    if "migrated" in answer:
        _compare_migration(out, session, answer["migrated"])
    for case in golden["cases"]:
        try:
            _compare_case(out, session, case)
        except PisessionError as exc:
            out.add(
                f"refuses:case:{type(exc).__name__}",
                f"pisession raises {exc} where Pi answers",
                case["leaf"],
            )
    _compare_sent(out, session, golden, answer.get("sent", {}))
    if probes:
        _compare_cli(out, path, answer)
        _probe(out, session)
    return out.findings, out.intended


def _compare_file(out: _Collector, session, golden: dict) -> None:
    if len(session) != golden["entryCount"]:
        out.add("value:entryCount", f"{len(session)} entries != {golden['entryCount']} (Pi)")
        return
    if "managerError" not in golden:
        name = _guard(out, "name", lambda: session.name)
        if name != golden["sessionName"]:
            out.add("value:sessionName", f"{name!r} != {golden['sessionName']!r} (Pi)")
    elif "trim is not a function" in golden["managerError"]:
        _expect_failure(out, "name", lambda: session.name, "Pi's getSessionName throws")
    if "labels" in golden:
        ids = [field(e, "id") for e in session.entries]
        ids = {i for i in ids if isinstance(i, str)}  # getLabel is asked for string ids
        labels = _guard(out, "labels", lambda: session.labels) or {}
        ours = as_json({k: v for k, v in labels.items() if k in ids})  # values as JSON holds them
        found = first_difference(ours, golden["labels"], "labels")
        if found and not found[0].endswith("key-order"):
            out.add("value:labels", f"{found[0]}: pisession {found[1]} (Pi)")
    if "would visit more than" in str(golden.get("treeError", "")):
        out.intended.append("tree: Pi's getTree would hang (repeated ids, worker.mjs)")
    if CANNOT_CONVERT in str(golden.get("treeError", "")):
        _expect_failure(out, "tree", lambda: _outline(session), "Pi's getTree throws")
    tree = golden.get("tree")
    # Pi's getTree keys its nodes by id, so repeated ids (and several entries without
    # one: ``undefined`` is a Map key too) make it list a node twice; pisession keeps one
    # node per line (README: a difference on purpose). Such trees are not compared.
    without_id = sum(1 for i in session.index.ids if i is UNDEFINED)
    if isinstance(tree, list) and not session.problems()["duplicate_ids"] and without_id < 2:
        outline = _guard(out, "tree", lambda: as_json(_outline(session)))
        if outline is None:
            return
        found = first_difference(outline, tree, "tree")
        if found:
            kind = "value:tree-order" if _same_children(outline, tree) else "value:tree"
            out.add(kind, f"{found[0]}: pisession {found[1]} (Pi)")


def normalised_rewrite(data: bytes) -> str:
    """A migrated file's text with every entry id replaced by ``<idN>``, N its rank in
    the file (Pi draws new ids at random). Two things pisession keeps on purpose
    ("nothing lost") are set aside: lines Pi skips (blank, unparsable, falsy JSON), which
    Pi's rewrite drops, ``\r`` before a newline, and bytes that are not UTF-8 (Pi reads
    them as U+FFFD and writes that; pisession keeps the bytes).

    >>> normalised_rewrite(b'{"type":"session"}\\n\\n{"id":"x9","parentId":null}\\r\\n')
    '{"type":"session"}\\n{"id":"<id0>","parentId":null}\\n'
    """
    lines, ids = [], {}
    for line in data.decode("utf-8", "replace").split("\n"):
        try:
            value = jsjson.loads(line.encode("utf-8", "surrogatepass"))  # any depth
        except ValueError:
            continue  # a line Pi skips
        if not value:
            continue  # falsy JSON: Pi skips it too
        lines.append(line.removesuffix("\r"))
        if isinstance(value, dict) and value.get("type") != "session":
            for key in ("id", "parentId"):  # a parent can be an id no line shows
                if isinstance(value.get(key), str):
                    ids.setdefault(value[key], f"<id{len(ids)}>")
    text = "\n".join(lines) + "\n"
    if not ids:
        return text
    pattern = re.compile("|".join(re.escape(json.dumps(i)) for i in ids))
    return pattern.sub(lambda m: json.dumps(ids[json.loads(m.group())]), text)


def _compare_migration(out: _Collector, session, migrated: dict) -> None:
    try:
        ours = _guard(out, "migrate", session.dumps)
    except PisessionError as exc:
        if "error" in migrated:
            out.intended.append("migrate: Pi's rewrite throws; pisession refuses to write it")
        else:
            out.add("refuses:migrate", f"pisession refuses to write what Pi writes: {exc}")
        return
    if ours is None:  # a crash, already a finding
        return
    if "error" in migrated:
        out.add("migrate:opens", f"Pi's rewrite fails ({migrated['error']}); pisession writes it")
        return
    if normalised_rewrite(ours) != normalised_rewrite(base64.b64decode(migrated["bytes"])):
        out.add("value:migrate-bytes", "pisession's migrated file differs from Pi's rewrite")


def _expect_failure(out: _Collector, where: str, read, what: str) -> None:
    """Where Pi throws, pisession must raise a ``PisessionError`` (a ``PiFailure``)."""
    try:
        _guard(out, where, read)
    except PisessionError:
        out.intended.append(f"{what}; pisession raises a PisessionError")
        return
    out.add(f"answers:{where}", f"{what}; pisession answers")


def _same_children(ours: list, theirs: list) -> bool:
    """The same nodes with the same children, only in another order."""

    def key(outline):
        return sorted(
            (jsjson.dumps(node), sorted(jsjson.dumps(c) for c in kids)) for node, kids in outline
        )

    return key(ours) == key(theirs)


def _outline(session) -> list:
    """pisession's tree as the recorder lists Pi's: ``[id, [child ids]]`` in pre-order
    (as tests/test_conformance.py builds it)."""
    kids = session.children()
    if hasattr(session, "shape"):
        order = session.shape.preorder()
    else:  # pisession before the one-rule refactor (for measuring old versions)
        from pisession.tree import preorder

        order = preorder(session._structure)
    return [[_entry_id(session, p), [_entry_id(session, c) for c in kids[p]]] for p, _ in order]


def _compare_case(out: _Collector, session, case: dict) -> None:
    leaf = case["leaf"]
    if case.get("error") == "cycle":
        try:
            _guard(out, "context", lambda: session.context(leaf), leaf)
        except CycleError as exc:
            if sorted(map(jsjson.dumps, exc.cycle)) != sorted(map(jsjson.dumps, case["cycle"])):
                out.add("value:cycle", f"cycle {exc.cycle} != {case['cycle']} (Pi)", leaf)
            else:
                out.intended.append("cycle: Pi loops forever, pisession raises CycleError")
            return
        out.add("cycle:missed", f"Pi loops forever on {case['cycle']}; pisession answers", leaf)
        return
    failing = case.get("stage") if case.get("error") == "exception" else None
    expected = "a PisessionError where Pi throws a TypeError"
    try:
        projection = _guard(out, "projection", lambda: _free_projection(session, leaf), leaf)
    except PisessionError as exc:
        if failing in ("context", "projection"):
            out.intended.append(expected)
        else:
            out.add(f"refuses:case:{type(exc).__name__}", f"pisession raises {exc}", leaf)
        return
    if projection is None:
        return
    if failing in ("context", "projection"):
        out.add(f"answers:{failing}", f"Pi throws ({case.get('message')}); pisession answers", leaf)
        return
    context = _guard(out, "to_json", lambda: as_json(projection.context.to_dict()), leaf)
    if context is not None:
        out.value("context", context, case["context"], leaf)
    got = [[_recorded_index(session, i.position), len(i.messages)] for i in projection.entries]
    out.value("projection", got, case["projection"], leaf)
    readers = [
        ("llm", lambda: as_json(projection.context.to_llm())),
        ("systemMessage", lambda: as_json(replay_system_prompt(projection.messages).to_message())),
        ("systemPrompt", lambda: replay_system_prompt(projection.messages).text),
    ]
    for stage, read in readers:
        try:
            ours = _guard(out, stage, read, leaf)
        except PisessionError as exc:
            if stage == failing:
                out.intended.append(expected)
            else:
                out.add(f"refuses:{stage}", f"pisession raises {exc}", leaf)
            return
        if stage == failing:
            out.add(
                f"answers:{stage}", f"Pi throws ({case.get('message')}); pisession answers", leaf
            )
            return
        if ours is not None or (stage == "systemMessage" and case[stage] is None):
            out.value(stage, ours, case[stage], leaf)


def _null_leaf(session) -> bool:
    """The last entry's id is null: ``SessionManager``'s leaf is null (an empty context,
    compared in ``_compare_manager``), while the free functions walk from the last entry."""
    return len(session) > 0 and session.default_leaf is None


def _free_projection(session, leaf):
    """``session.projection(leaf)``, but for the default leaf the free function's, as the
    golden records it: ``buildSessionContext(entries)`` walks from the last entry."""
    if leaf is not None or not _null_leaf(session):
        return session.projection(leaf)
    from pisession.engine import context as engine
    from pisession.errors import SessionFormatError

    try:
        projection = engine.project(session.index, len(session) - 1)
    except SessionFormatError as exc:
        raise session.located(exc) from None
    for item in projection.items:
        item.line = session.line_of(item.position)
    return projection


#: The Date.now() the worker fixes for the tool results pi-ai writes (conformance/sent.mjs).
NOW = 1700000000000


def _compare_sent(out: _Collector, session, golden: dict, sent: dict) -> None:
    """What the request carries, against pi-ai's ``transformMessages`` (worker's "sent")."""
    for version, cases in sent.items():
        for recorded in cases:
            leaf = golden["cases"][recorded["case"]]["leaf"]
            try:
                llm = _guard(
                    out, "llm", lambda at=leaf: _free_projection(session, at).context.to_llm(), leaf
                )  # the goldens' default leaf is the free function's: the last entry
            except PisessionError:
                continue  # already a finding of the llm stage if Pi answered there
            if llm is None:
                continue
            for name, result in recorded["results"].items():
                _compare_sent_case(out, llm, version, name, result, leaf)


def _compare_sent_case(out: _Collector, llm, version: str, name: str, result: dict, leaf):
    target = result["model"]

    def get(key: str) -> object:  # a field JSON.stringify left out was undefined
        return target.get(key, UNDEFINED)

    model = request.TargetModel(get("provider"), get("id"), get("api"), tuple(target["input"]))
    where = f"sent[{version}/{name}]"
    try:
        ours = _guard(
            out, where, lambda: as_json(request.sent(llm, model, NOW, version).messages), leaf
        )
    except PisessionError as exc:
        if "error" in result:
            out.intended.append("a PisessionError where Pi throws a TypeError")
        else:
            out.add(f"refuses:{where}", f"pisession raises {exc} where pi-ai sends", leaf)
        return
    if ours is None:
        return
    if "error" in result:
        out.add(f"answers:{where}", f"pi-ai throws ({result['error']}); pisession sends", leaf)
        return
    out.value(where, ours, result["messages"], leaf)


def run_cli(argv: list[str]) -> tuple[int, bytes, str]:
    """``pisession ARGV`` in this process: (status, stdout bytes, stderr text)."""
    raw = io.BytesIO()
    stdout = io.TextIOWrapper(raw, encoding="utf-8", newline="")
    stderr = io.StringIO()
    with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
        status = cli.main(argv)
        stdout.flush()
    return status, raw.getvalue(), stderr.getvalue()


def _compare_cli(out: _Collector, path: Path, answer: dict) -> None:
    """``pisession context`` (and ``--llm``) print Pi's text at the default leaf."""
    texts = answer.get("text") or {}
    with contextlib.suppress(PisessionError):
        if _null_leaf(pisession.load(path)):
            texts = {}  # the CLI prints SessionManager's empty context: _compare_manager
    for name, argv in (("context", ["context"]), ("llm", ["context", "--llm"])):
        try:
            status, printed, errors = run_cli([*argv, str(path)])
        except Exception as exc:
            detail = f"pisession {' '.join(argv)}: {exc!r} (at {_origin(exc)})"
            out.add(_crash_kind(f"cli-{name}", exc), detail)
            continue
        if name not in texts:
            continue  # Pi has no such text (a cycle, an exception, unserialisable)
        expected = (jsjson.terminal_safe(texts[name]) + "\n").encode("utf-8")
        if status != 0:
            out.add(f"cli-fails:{name}", f"pisession {' '.join(argv)} exits {status}: {errors}")
        elif printed != expected:
            out.add(f"cli-text:{name}", _text_difference(printed, expected))


def _text_difference(ours: bytes, theirs: bytes) -> str:
    at = next((i for i, (a, b) in enumerate(zip(ours, theirs)) if a != b), None)
    if at is None:
        at = min(len(ours), len(theirs))
    return (
        f"text differs at byte {at}: pisession {ours[max(0, at - 20) : at + 30]!r} "
        f"vs Pi {theirs[max(0, at - 20) : at + 30]!r}"
    )


def _diff_probe(session) -> str:
    """``pisession diff`` between the default leaf and the first branch end."""
    from pisession.views.diff import diff_text

    leaves = session.leaves()
    ids = [field(session.entry(p), "id") for p in leaves[:1]]
    if not ids or not isinstance(ids[0], str):
        return ""
    result = session.diff(None, ids[0])
    return diff_text(session, result)


def _probe(out: _Collector, session) -> None:
    """Readers other than the context: only a PisessionError may come out."""
    from pisession.views.explain import explain_text, tree_text
    from pisession.views.export import export_html, export_markdown

    probes = [
        ("export_html", lambda: export_html(session)),
        ("export_markdown", lambda: export_markdown(session)),
        ("diff", lambda: _diff_probe(session)),
        ("stats", session.stats),
        ("fates", session.fates),
        ("explain", lambda: explain_text(session)),
        ("tree_text", lambda: tree_text(session)),
        ("session_html", session._repr_html_),
        ("context_html", lambda: session.context()._repr_html_()),
        ("projection_html", lambda: session.projection()._repr_html_()),
        ("system_prompt", lambda: session.system_prompt().text),
        ("problems", session.problems),
        ("dumps", lambda: session.dumps()),
    ]
    for name, fn in probes:
        with contextlib.suppress(PisessionError):
            _guard(out, name, fn)


if __name__ == "__main__":  # pragma: no cover - manual use: compare.py FILE ANSWER.json
    found, _ = compare(Path(sys.argv[1]), json.loads(Path(sys.argv[2]).read_text()))
    for f in found:
        print(f.kind, f.detail)


#: The modification time (s) the worker gives the copy it lists (record-manager.mjs).
LIST_MTIME = 1767225600


def _manager_open(path: Path) -> dict:
    """pisession's answers to ``SessionManager.open``'s questions, as the worker writes
    Pi's: the default leaf's id, the context there (count and SHA-256 of its JSON)."""
    import hashlib

    try:
        session = pisession.load(path)
        leaf = session.default_leaf
        context = session.context()
        session.refuse_too_deep()
    except CycleError:
        return {"cycle": True}
    except PisessionError as exc:
        return {"error": str(exc)}
    leaf_id = None if leaf is None else session.index.ids[leaf]
    text = context.to_json(None).encode("utf-8", "surrogatepass")
    return {
        "leaf": "(undefined)" if leaf_id is UNDEFINED else as_json(leaf_id),
        "messages": len(context.messages),
        "sha256": hashlib.sha256(text).hexdigest(),
    }


def _manager_row(path: Path) -> dict | None:
    """pisession's row for the file in a session list, as the worker writes Pi's."""
    from pisession.files import session_info, to_jsonable

    info = session_info(path, LIST_MTIME * 1000)
    if info is None:
        return None
    row = to_jsonable(info)
    return {
        "id": row["id"],
        "cwd": row["cwd"],
        "name": row["name"],
        "parentSessionPath": row["parentSession"],
        "created": _ms(row["created"]),
        "modified": _ms(row["modified"]),
        "messageCount": row["messageCount"],
        "firstMessage": row["firstMessage"],
    }


def _ms(iso: str | None) -> int | None:
    from datetime import datetime

    if iso is None:
        return None
    return round(datetime.fromisoformat(iso.replace("Z", "+00:00")).timestamp() * 1000)


def _compare_manager(out: _Collector, path: Path, manager: dict) -> None:
    """pisession against ``SessionManager.open`` and ``listAll`` (the worker's answer)."""
    theirs = manager["open"]
    ours = _guard(out, "manager-open", lambda: _manager_open(path))
    if ours is not None:
        _compare_open(out, ours, theirs)
    listed = manager.get("listed")
    if isinstance(listed, dict) and "error" in listed:
        out.add("manager:list-error", f"Pi's listAll throws: {listed['error']}")
        return
    row = _guard(out, "manager-list", lambda: _manager_row(path))
    if listed is None or row is None:
        if (listed is None) != (row is None):
            who = "Pi" if row is None else "pisession"
            out.add("manager:listed", f"only {who} lists the file ({listed or row})")
        return
    theirs_row = {**listed, "created": _ms(listed["created"]), "modified": _ms(listed["modified"])}
    for key, value in theirs_row.items():
        if not strict_equal(as_json(row[key]), value):
            out.add(f"manager:list:{key}", f"{key}: {_short(row[key])} != {_short(value)} (Pi)")


def _compare_open(out: _Collector, ours: dict, theirs: dict) -> None:
    failed = "error" in ours or "cycle" in ours
    if "error" in theirs and "leaf" not in theirs and "Maximum call stack" in theirs["error"]:
        if not failed:  # Pi's open rewrites a migrated file and throws there
            out.intended.append("migrate: Pi's rewrite throws; pisession refuses to write it")
    elif "error" in theirs:  # open, or JSON.stringify of its context, throws
        if not failed:
            out.add("manager:opens", f"Pi throws ({theirs['error'][:120]}); pisession answers")
    elif "cycle" in theirs:
        if "cycle" not in ours:
            out.add("manager:cycle", f"Pi's walk from its leaf loops; pisession: {ours}")
    elif failed:
        if theirs.get("leaf") is None and theirs.get("messages") == 0:
            # no session header: Pi's open starts a new session in the file and writes
            # it; pisession never writes, and says the file has no header
            out.intended.append("manager: Pi's open starts a new session in a file without one")
        else:
            out.add("manager:refuses", f"pisession: {ours}; Pi opens ({theirs})")
    elif theirs["leaf"] != "(a new id)" and ours["leaf"] != theirs["leaf"]:
        out.add("manager:leaf", f"leaf {_short(ours['leaf'])} != {_short(theirs['leaf'])} (Pi)")
    elif (ours["messages"], ours["sha256"]) != (theirs["messages"], theirs["sha256"]):
        out.add("manager:context", f"{ours['messages']} messages != {theirs['messages']} (Pi)")
