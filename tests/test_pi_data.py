"""What Pi does lives in data (``pisession/pi/<version>.json``): which places must change
when Pi adds a field or an entry type (CONTRIBUTING.md's recipes).

Each test copies the whole package into a temporary folder, changes only what the recipe
says (the data; for a type's meaning, the rule too) and runs pisession from the copy in a
fresh process, so that nothing imported here hides a place that would have to change:

- a new field: only the data. A file whose assistant messages carry an invented field is
  written from the fast path's structs once the data lists the field (and not before),
  and its context is the rule's.
- a new entry type: the data, and the rule once the type means something. Before, it
  contributes nothing and every command still works; after ``rule.entry_messages`` gives
  it a message, the engine sends that message too (it takes the rule's).
- the modules that switch on an entry type or a role are the ones ``SWITCHES`` lists (and
  CONTRIBUTING.md names): a new switch elsewhere fails here.
"""

from __future__ import annotations

import ast
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from pisession.piversions import checked, entry_types, key_order, release, roles

REPO = Path(__file__).resolve().parent.parent
PACKAGE = REPO / "pisession"
NEWEST = checked(newest_first=True)[0]
FIELD = "inventedField"
TYPE = "invented_type"


def package_copy(tmp_path: Path) -> Path:
    """A copy of the package (no caches) under ``tmp_path``: the folder to put on
    ``PYTHONPATH``."""
    root = tmp_path / "copy"
    shutil.copytree(PACKAGE, root / "pisession", ignore=shutil.ignore_patterns("__pycache__"))
    return root


def edit_data(root: Path, change) -> None:
    """``change`` the newest checked release's data in the copy (and nothing else)."""
    path = root / "pisession" / "pi" / f"{NEWEST}.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    change(data)
    path.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")


def run(root: Path, script: str, *args: str) -> dict:
    """``script`` run by Python with the copy first on the path; it prints one JSON value."""
    done = subprocess.run(
        [sys.executable, "-c", script, *args],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(root)},
        cwd=root,  # (``-c`` puts the working folder first on the path)
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    answer = json.loads(done.stdout.splitlines()[-1])
    assert answer.pop("package") == str(root / "pisession" / "__init__.py")
    return answer


def line(number: int, message: dict) -> str:
    parent = None if number == 1 else f"{number - 1:08x}"
    entry = {"type": "message", "id": f"{number:08x}", "parentId": parent}
    entry |= {"timestamp": "2026-01-01T00:00:00.000Z", "message": message}
    return json.dumps(entry, separators=(",", ":"))


HEADER = json.dumps(
    {
        "type": "session",
        "version": 3,
        "id": "s",
        "timestamp": "2026-01-01T00:00:00.000Z",
        "cwd": "/",
    },
    separators=(",", ":"),
)
USAGE = {
    "input": 3,
    "output": 1,
    "cacheRead": 0,
    "cacheWrite": 0,
    "totalTokens": 4,
    "cost": {"input": 0.001, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0.001},
}


def session_with_the_field(path: Path, count: int = 200) -> None:
    """A chat whose assistant messages, written in Pi's key order, end with ``FIELD``."""
    lines = [HEADER]
    for number in range(1, count + 1):
        if number % 2:
            message = {"role": "user", "content": f"question {number}", "timestamp": number}
        else:
            message = {"role": "assistant", "content": [{"type": "text", "text": f"a{number}"}]}
            message |= {"api": "x", "provider": "p", "model": "m", "usage": USAGE}
            message |= {"stopReason": "stop", "timestamp": number, FIELD: {"n": [number, 0.5]}}
        lines.append(line(number, message))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


#: Writes the context of argv[1] with the dict decoder and the exact writer refused, and
#: compares it with the rule's: {"fast": whether the structs took every line, "equal": ...}.
FAST_PATH = """
import json, sys
import pisession
from pisession import rule
from pisession.engine import stream

class Refused(Exception):
    pass

class NoDicts:
    def decode_lines(self, raw):
        raise Refused
    decode = decode_lines

def refuse(*args):
    raise Refused

path = sys.argv[1]
expected = json.loads(json.dumps(rule.project(rule.load_entries(path)).messages))
session = pisession.load(path)
plain = json.loads(b"".join(session.context_json()))["messages"]
stream._message_lines, stream._exact = NoDicts(), refuse
try:
    fast = json.loads(b"".join(session.context_json()))["messages"]
except Refused:
    fast = None
equal = plain == expected and fast in (None, expected)
print(json.dumps({"fast": fast is not None, "equal": equal, "package": pisession.__file__}))
"""


def test_the_data_lists_what_the_fast_path_reads():
    """The fast path's orders are every checked release's keys, the primary's in its own
    order (a later release's key goes after the nearest key before it there)."""
    primary = release()
    for version in checked():
        data = release(version)
        assert data["pi"] == version and data["sessionFormat"] == 3
        for role, shape in data["roles"].items():
            assert set(shape["keys"]) <= set(key_order("roles", role)), (version, role)
    for role, shape in primary["roles"].items():
        assert [k for k in key_order("roles", role) if k in shape["keys"]] == shape["keys"]
    assert entry_types()[0] == "message" and "context_edit" in entry_types()
    assert "assistant" in roles() and "invented" not in json.dumps(release(NEWEST))


@pytest.mark.parametrize("role", roles())
def test_the_rule_sends_a_missing_content_as_the_data_says(role):
    """The data's ``content`` (how Pi sends a missing or null content) is what the rule
    does (``rule.message_messages``) and what the fast path requires (a struct whose
    ``content`` must be there): one fact, held equal where the code uses it."""
    import msgspec

    from pisession import rule
    from pisession.engine.shapes import MESSAGES
    from pisession.piversions import empty_content

    shape = empty_content(role)
    sent = rule.message_messages({"role": role, "content": None})[0]
    assert sent["content"] == {None: None, "text": "", "blocks": [], "text or blocks": []}[shape]
    fields = msgspec.inspect.type_info(MESSAGES[role]).fields
    assert [f.name for f in fields if f.required] == (["content"] if shape else [])


def installed(version: str) -> Path | None:
    """Where Pi ``version``'s ``node_modules`` is (``conformance/locate.mjs``), or None."""
    if shutil.which("node") is None:
        return None
    found = subprocess.run(
        ["node", "conformance/locate.mjs", version], cwd=REPO, capture_output=True, text=True
    )
    return Path(found.stdout.strip()) if found.returncode == 0 else None


def declared(text: str, name: str) -> list[str]:
    """The top-level keys of the TypeScript ``interface`` or object ``type`` ``name``."""
    start = re.search(r"(?:interface|type) " + name + r"\b[^{]*\{", text)
    assert start, name
    at, depth = start.end(), 1
    while depth:
        depth += {"{": 1, "}": -1}.get(text[at], 0)
        at += 1
    body = re.sub(r"/\*.*?\*/", "", text[start.end() : at - 1], flags=re.S)
    keys, depth = [], 0
    for row in body.split("\n"):
        if depth == 0 and (key := re.match(r"\s*(\w+)\??:", row)):
            keys.append(key.group(1))
        depth += row.count("{") - row.count("}")
    return keys


@pytest.mark.parametrize("version", checked())
def test_the_data_is_what_the_release_declares(version):
    """Each release's data against its own type declarations (``.d.ts`` of pi-ai and
    pi-coding-agent): the session format, the entry types, and the keys of every role,
    block, usage and cost, as sets (the order is what Pi writes: the test below)."""
    where = installed(version)
    if where is None:
        pytest.skip(f"Pi {version} is not installed (bash conformance/check.sh installs it)")
    agent = where / "@earendil-works" / "pi-coding-agent" / "dist" / "core"
    ai = (where / "@earendil-works" / "pi-ai" / "dist" / "types.d.ts").read_text("utf-8")
    messages = (agent / "messages.d.ts").read_text("utf-8")
    manager = (agent / "session-manager.d.ts").read_text("utf-8")
    data = release(version)
    assert f"CURRENT_SESSION_VERSION = {data['sessionFormat']};" in manager
    assert sorted(set(re.findall(r'type: "(\w+)"', manager)) - {"session"}) == sorted(
        data["entryTypes"]
    )
    interfaces = {"user": (ai, "UserMessage"), "assistant": (ai, "AssistantMessage"),
                  "toolResult": (ai, "ToolResultMessage"), "system": (ai, "SystemMessage"),
                  "bashExecution": (messages, "BashExecutionMessage"),
                  "custom": (messages, "CustomMessage")}  # fmt: skip
    for role, (text, name) in interfaces.items():
        assert sorted(set(declared(text, name)) - {"role"}) == sorted(data["roles"][role]["keys"])
    blocks = {"text": "TextContent", "thinking": "ThinkingContent", "toolCall": "ToolCall",
              "image": "ImageContent"}  # fmt: skip
    for kind, name in blocks.items():
        assert sorted(set(declared(ai, name)) - {"type"}) == sorted(data["blocks"][kind])
    assert sorted(declared(ai, "Usage")) == sorted(data["objects"]["usage"])
    usage = ai[ai.index("interface Usage ") :]
    cost = re.sub(
        r"/\*.*?\*/", "", usage[usage.index("cost: {") + 7 : usage.index("}")], flags=re.S
    )
    assert sorted(re.findall(r"(\w+)\??:", cost)) == sorted(data["objects"]["cost"])


@pytest.mark.parametrize("version", checked())
def test_the_fast_path_reads_every_message_line_pis_command_line_wrote(version):
    """The guard a new field needs: every message line of the files Pi's real command
    line wrote (``data/realcli/<version>/``, ``conformance/realcli/run.py``) is read into
    the structs. A release that writes a key the data lacks, or in another order, fails
    here once it is recorded, not silently in the benchmark."""
    from pisession.engine.shapes import LINES

    files = [p for p in (REPO / "data" / "realcli" / version).rglob("*.jsonl")]
    lines = [
        raw
        for path in files
        if not path.name.endswith(".requests.jsonl")
        for raw in path.read_bytes().split(b"\n")
        if raw.startswith(b'{"type":"message"')
    ]
    refused = [json.loads(raw)["message"] for raw in lines if LINES.decode(raw) is None]
    assert len(lines) > 100
    assert [(m.get("role"), list(m)) for m in refused] == []


def test_a_new_field_needs_only_the_data(tmp_path):
    session_with_the_field(tmp_path / "s.jsonl")
    root = package_copy(tmp_path)
    # before: the field turns the fast path off (the answer is still the rule's)
    assert run(root, FAST_PATH, str(tmp_path / "s.jsonl")) == {"fast": False, "equal": True}

    # the recipe: the field goes into the data, after the keys it follows
    edit_data(root, lambda data: data["roles"]["assistant"]["keys"].append(FIELD))
    assert run(root, FAST_PATH, str(tmp_path / "s.jsonl")) == {"fast": True, "equal": True}
    changed = [
        p.relative_to(root / "pisession").as_posix()
        for p in (root / "pisession").rglob("*")
        if p.is_file()
        and p.read_bytes() != (PACKAGE / p.relative_to(root / "pisession")).read_bytes()
    ]
    assert changed == [f"pi/{NEWEST}.json"]


def session_with_the_type(path: Path, kind: str) -> None:
    """user, ``kind``, assistant, ``kind`` (the leaf): entries of ``kind`` on the path."""
    lines = [HEADER]
    chain = [
        {"type": "message", "message": {"role": "user", "content": "hi", "timestamp": 1}},
        {"type": kind, "text": "what the new type says"},
        {"type": "message", "message": {"role": "assistant", "content": [], "api": "x",
                                        "provider": "p", "model": "m", "usage": USAGE,
                                        "stopReason": "stop", "timestamp": 2}},
        {"type": kind, "text": "the leaf"},
    ]  # fmt: skip
    for number, entry in enumerate(chain, 1):
        entry |= {"id": f"{number:08x}", "parentId": None if number == 1 else f"{number - 1:08x}"}
        entry |= {"timestamp": f"2026-01-01T00:00:0{number}.000Z"}
        lines.append(json.dumps(entry))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


#: Every command of the command line on argv[1] (exit status, and context's output), and
#: the messages Session and the rule send: one JSON object.
COMMANDS = """
import contextlib, io, json, sys, tempfile
import pisession
from pisession import rule
from pisession.cli import main

path, out = sys.argv[1], tempfile.mkdtemp()
commands = [["explain"], ["context"], ["context", "--sent"], ["tree"],
            ["tree", "-o", out + "/t.svg"], ["check"], ["stats"], ["export", "-o", out + "/e.html"],
            ["export", "-o", out + "/e.md"], ["diff", path, "00000002", "00000004"],
            ["migrate", "-o", out + "/m.jsonl"]]
status, context = {}, None
for args in commands:
    argv = args if args[0] == "diff" else [*args[:1], path, *args[1:]]
    text, errors = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(text), contextlib.redirect_stderr(errors):
        status[" ".join(args[:1] if args[0] == "diff" else args[:2])] = main(argv)
    if args == ["context"]:
        context = text.getvalue()
session = pisession.load(path)
print(json.dumps({"status": status, "context": context,
                  "session": json.loads(session.context().to_json()),
                  "rule": json.loads(json.dumps(rule.project(rule.load_entries(path)).messages)),
                  "fates": len(session.fates()), "package": pisession.__file__}))
"""

#: The meaning a recipe would give the type, put into the copy's rule.entry_messages.
MEANING = """    if kind == "invented_type":
        keys, text = ("customType", "content", "display"), field(entry, "text")
        return [_message(entry, "custom", keys, customType="invented", content=text, display=False)]
"""


def give_the_type_a_meaning(root: Path) -> None:
    rule = root / "pisession" / "rule.py"
    text = rule.read_text(encoding="utf-8")
    anchor = 'kind = field(entry, "type")\n'
    start = text.index("def entry_messages(")
    at = text.index(anchor, start) + len(anchor)
    rule.write_text(text[:at] + MEANING + text[at:], encoding="utf-8")


def test_a_new_entry_type_needs_the_data_and_the_rule(tmp_path):
    session_with_the_type(tmp_path / "new.jsonl", TYPE)
    session_with_the_type(tmp_path / "known.jsonl", "custom")  # a type that says nothing
    root = package_copy(tmp_path)
    edit_data(root, lambda data: data["entryTypes"].append(TYPE))
    known = run(root, COMMANDS, str(tmp_path / "known.jsonl"))
    new = run(root, COMMANDS, str(tmp_path / "new.jsonl"))
    # the data alone: the type contributes nothing, and every command works as before
    assert new["status"] == known["status"] and set(new["status"].values()) <= {0, 1}
    assert new["context"] == known["context"] and new["session"] == known["session"]
    assert new["rule"] == new["session"]["messages"] and new["fates"] == 4

    # the rule gives it a meaning: the engine sends it too, the commands still work
    give_the_type_a_meaning(root)
    meant = run(root, COMMANDS, str(tmp_path / "new.jsonl"))
    sent = [m for m in meant["session"]["messages"] if m.get("customType") == "invented"]
    assert [m["content"] for m in sent] == ["what the new type says", "the leaf"]
    assert meant["rule"] == meant["session"]["messages"]
    assert (
        set(meant["status"].values()) <= {0, 1} and meant["status"].keys() == new["status"].keys()
    )


#: The modules that switch on an entry type or a message role (compare one with a type or
#: role, or hold a table keyed by them), and what each decides: CONTRIBUTING.md's recipe
#: "A new entry type" names every one.
SWITCHES = {
    "rule.py": "what an entry contributes, the settings, the selection, the edits",
    "engine/context.py": "the engine's columns for messages, compactions and settings",
    "engine/stats.py": "what statistics and usage count",
    "engine/counting.py": "which rows the reading counts, and what a line adds",
    "llm.py": "how each role is handed to the model (convertToLlm)",
    "message_text.py": "the one switch on a message's role, a mode per reader",
    "request.py": "what the request step keeps of each role",
    "system_prompt.py": "which messages replay the system prompt",
    "migration.py": "the v1/v2 steps (compactions, hookMessage)",
    "tree.py": "labels, the session name, the tree's messages",
    "files.py": "what ls reads of a file (name, first message)",
    "session.py": "the facade's assistant messages",
    "projection.py": "the parts of a projection (compaction, kept, after) and the settings",
    "folders/search.py": "the text search reads of each type and role",
    "views/text.py": "the words for each type and role",
    "views/provenance.py": "each entry's fate and its words",
    "views/request_entries.py": "which entries pi-ai's request step reads as plain turns",
    "views/explain_json.py": "explain --json's rows",
    "views/tree_text.py": "pisession tree's rows",
    "views/stats_text.py": "pisession stats's counts by role",
    "views/export_page.py": "exported pages' system prompt replay",
    "views/export_markdown.py": "the Markdown export's messages by role",
    "views/export_text.py": "exported pages' messages by role",
    "views/layout.py": "pictures' boxes",
    "views/charts.py": "the pipeline and edits charts",
    "views/prompt_steps.py": "the system prompt's steps",
    "folders/text.py": "search hits as the command line names them",
    "views/explorers.py": "the notebook widgets",
    "views/findings.py": "check's findings",
    "workshop/_sessions.py": "the workshop's generated sessions",
    "workshop/compaction.py": "notebook 04's exercises",
    "workshop/context_rule.py": "notebook 03's exercises",
    "workshop/edits_usage_prompt.py": "notebook 06's exercises",
    "workshop/entry_tree.py": "notebook 02's exercises",
    "workshop/migration.py": "notebook 05's exercises",
    "workshop/request_step.py": "notebook 07's request exercises",
}

#: Roles Pi makes of entries (not stored as a message's role in Pi's data) and the v1/v2 one.
MADE_ROLES = {"branchSummary", "compactionSummary", "hookMessage"}


def _strings(node: ast.AST) -> list[str]:
    """The string constants a comparison side or a tuple/list/set of them holds."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return [s for element in node.elts for s in _strings(element)]
    return []


def switches(package: Path = PACKAGE) -> dict[str, set[str]]:
    """Module (path in the package) -> the types and roles it compares with or keys a
    table by (a dict literal with two or more of them)."""
    words = set(entry_types()) | set(roles()) | MADE_ROLES
    found: dict[str, set[str]] = {}
    for path in sorted(package.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            hits: list[str] = []
            if isinstance(node, ast.Compare):
                hits = [s for side in (node.left, *node.comparators) for s in _strings(side)]
            elif isinstance(node, ast.Dict):
                keys = [s for key in node.keys if key is not None for s in _strings(key)]
                hits = keys if len(set(keys) & words) >= 2 else []
            elif isinstance(node, ast.MatchValue):
                hits = _strings(node.value)
            if set(hits) & words:
                name = path.relative_to(package).as_posix()
                found.setdefault(name, set()).update(set(hits) & words)
    return found


def test_the_modules_that_switch_on_types_and_roles_are_the_listed_ones():
    found = switches()
    new, gone = sorted(set(found) - set(SWITCHES)), sorted(set(SWITCHES) - set(found))
    assert not new and not gone, (
        f"modules that switch on entry types or roles changed: new {new}, gone {gone}: "
        "update SWITCHES here and the recipe 'A new entry type' in CONTRIBUTING.md"
    )
    guide = (REPO / "CONTRIBUTING.md").read_text(encoding="utf-8")
    assert [m for m in SWITCHES if f"`{m}`" not in guide] == []


def test_the_scan_finds_a_new_switch(tmp_path):
    """The structural check can fail: a switch on a type in a module it does not list."""
    root = package_copy(tmp_path)
    (root / "pisession" / "views" / "tables.py").write_text(
        (PACKAGE / "views" / "tables.py").read_text(encoding="utf-8")
        + '\n\ndef _is_label(kind: object) -> bool:\n    return kind == "label"\n',
        encoding="utf-8",
    )
    assert "views/tables.py" not in switches() and "views/tables.py" in switches(root / "pisession")


@pytest.mark.parametrize("version", checked())
def test_messages_name_pi_from_the_data(version):
    """No message string of the package writes a checked version (docstrings and
    comments may): they come from ``piversions`` (``pi_name``, ``checked_range``)."""
    offenders = []
    for path in sorted(PACKAGE.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        docstrings = {
            id(node.body[0].value)
            for node in ast.walk(tree)
            if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
            and node.body
            and isinstance(node.body[0], ast.Expr)
            and isinstance(node.body[0].value, ast.Constant)
        }
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Constant)
                and isinstance(node.value, str)
                and id(node) not in docstrings
                and f"Pi {version}" in node.value
            ):
                offenders.append(f"{path.relative_to(PACKAGE)}:{node.lineno}")
    assert [o for o in offenders if o.split(":")[0] not in NOT_YET] == []


#: Modules whose messages still write a version: other areas change their own on their
#: branches (issue 42); each one goes from this list when its branch has merged.
NOT_YET: set[str] = set()
