"""Facts notebooks 01 and 03 state about Pi, checked by running Pi 0.87.1 and 1.6.0 in Node 20.

Each fact is asked of Pi's own ``SessionManager`` (loaded by ``conformance/pi.mjs``, version
chosen by ``PI_ORACLE_VERSION``) on files in a fresh temporary folder, never on repository
files. Skipped when Node or that Pi version is not installed.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent

PI_SCRIPT = r"""
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
const pi = await import(pathToFileURL(process.argv[1]).href);
const { SessionManager, buildSessionContext } = pi.sessionManager;
const dir = mkdtempSync(join(tmpdir(), "facts-"));
// A custom session directory: where does the file go, and when does it appear?
const sm = SessionManager.create("/w/proj", dir);
const file = sm.getSessionFile();
sm.appendMessage({ role: "user", content: [{ type: "text", text: "hi" }], timestamp: 1 });
const afterUser = existsSync(file);
const zero = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 };
const usage = { input: 1, output: 1, cacheRead: 0, cacheWrite: 0, totalTokens: 2, cost: zero };
sm.appendMessage({
  role: "assistant", content: [{ type: "text", text: "yo" }], api: "x", provider: "p",
  model: "m", usage, stopReason: "stop", timestamp: 2,
});
const afterAssistant = existsSync(file);
// A file whose first value is not a header.
const bad = join(dir, "bad.jsonl");
writeFileSync(bad, '{"type":"message","id":"u1"}\n');
let openError = null;
try { SessionManager.open(bad); } catch (e) { openError = String(e.message).replace(bad, "FILE"); }
// Null or missing content.
const ctx = buildSessionContext([
  { type: "message", id: "a", parentId: null, timestamp: "t", message: { role: "user" } },
  { type: "message", id: "b", parentId: "a", timestamp: "t",
    message: { role: "system", content: null } },
], "b").messages.map((m) => m.content);
const fileDirIsSessionDir = dirname(file) === dir;
// Notebook 03, step 5: a model without mid-conversation system messages gets one leading
// system message that merges them all; one that takes them keeps them in place.
const sys = [
  { role: "system", content: "A", timestamp: 1 }, { role: "user", content: "hi", timestamp: 2 },
  { role: "system", content: "B", timestamp: 3 }, { role: "user", content: "x", timestamp: 4 },
];
const roles = (ok) => pi.transcript.resolveTranscript({ messages: sys }, ok).messages
  .map((m) => `${m.role}:${m.content}`);
const transcripts = { midConvo: roles(true), collapsed: roles(false) };
// Notebook 05: v1 -> v2 of a compaction's firstKeptEntryIndex (the compaction is value 2).
const indexCases = {
  earlier: 1, header: 0, self: 2, laterWithId: 3, laterNoId: 4, fraction: 1.5, string: "1",
  bool: true,
};
const migrated = {};
for (const [name, index] of Object.entries(indexCases)) {
  const v = [
    { type: "session", version: 1, id: "s", timestamp: "t", cwd: "/w" },
    { type: "message", timestamp: "t", message: { role: "user", content: "a" } },
    { type: "compaction", timestamp: "t", summary: "s", firstKeptEntryIndex: index },
    { type: "message", id: "old-id", timestamp: "t", message: { role: "user", content: "b" } },
    { type: "message", timestamp: "t", message: { role: "user", content: "c" } },
  ];
  pi.sessionManager.migrateSessionEntries(v);
  const kept = v[2].firstKeptEntryId;
  const names = { [v[1].id]: "earlier", [v[2].id]: "compaction", [v[3].id]: "later" };
  migrated[name] = {
    kept: kept === undefined ? null : (names[kept] ?? kept),
    index: "firstKeptEntryIndex" in v[2] ? v[2].firstKeptEntryIndex : "deleted",
  };
}
// A torn last line (no newline at the end): reading the file appends one.
const torn = join(dir, "torn.jsonl");
const tornHeader = '{"type":"session","version":3,"id":"t","timestamp":"t","cwd":"/w"}';
writeFileSync(torn, `${tornHeader}\n{"type":"mess`);
pi.sessionManager.loadEntriesFromFile(torn);
const tornAfter = readFileSync(torn, "utf8").slice(-6);
console.log(JSON.stringify({
  version: pi.PI_VERSION, afterUser, afterAssistant, fileDirIsSessionDir, openError, ctx, tornAfter,
  transcripts, migrated,
}));
"""


def _run(version: str) -> dict | str:
    """Pi's answers for one version, or why they could not be had."""
    if shutil.which("node") is None:
        return "node is not installed"
    found = subprocess.run(
        ["node", "conformance/locate.mjs", version], cwd=REPO, capture_output=True, text=True
    )
    if found.returncode != 0:
        return f"Pi {version} is not installed"
    env = {**os.environ, "PI_ORACLE_VERSION": version}
    done = subprocess.run(
        ["node", "--input-type=module", "-e", PI_SCRIPT, str(REPO / "conformance" / "pi.mjs")],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.fixture(scope="module", params=["0.87.1", "1.6.0"])
def pi(request) -> dict:
    answers = _run(request.param)
    if isinstance(answers, str):
        pytest.skip(answers)
    assert answers["version"] == request.param
    return answers


def test_the_file_appears_at_the_first_assistant_message_in_0871_and_user_message_in_160(pi):
    assert pi["afterAssistant"] is True
    assert pi["afterUser"] is (pi["version"] == "1.6.0")


def test_a_custom_session_dir_is_the_session_folder_itself(pi):
    assert pi["fileDirIsSessionDir"] is True


def test_open_rejects_a_file_whose_first_value_is_not_a_header(pi):
    assert pi["openError"] == "Session file is not a valid pi session: FILE"


def test_null_or_missing_content_becomes_empty(pi):
    assert pi["ctx"] == [[], ""]


def test_reading_a_file_whose_last_line_is_torn_appends_a_newline(pi):
    assert pi["tornAfter"] == '"mess\n'  # the torn text stays, followed by a newline


def test_system_messages_merge_into_one_leading_prompt_without_mid_conversation_support(pi):
    assert pi["transcripts"] == {
        "midConvo": ["system:A", "user:hi", "system:B", "user:x"],
        "collapsed": ["system:A\n\nB", "user:hi", "user:x"],
    }


def test_v1_compaction_index_migrates_as_notebook_05_says(pi):
    assert pi["migrated"] == {
        "earlier": {"kept": "earlier", "index": "deleted"},
        "header": {"kept": None, "index": "deleted"},
        "self": {"kept": "compaction", "index": "deleted"},  # keeps nothing before it
        "laterWithId": {"kept": "old-id", "index": "deleted"},  # that entry's id is replaced
        "laterNoId": {"kept": None, "index": "deleted"},
        "fraction": {"kept": None, "index": "deleted"},
        "string": {"kept": None, "index": "1"},
        "bool": {"kept": None, "index": True},
    }
